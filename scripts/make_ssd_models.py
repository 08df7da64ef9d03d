#!/usr/bin/python3
"""Exports torchvision SSD detectors to ONNX with PyTorch's detections, for configs/ssd.json.

Run with Debian's python3 (python3-torch, python3-torchvision 0.14, python3-onnx):

    /usr/bin/python3 scripts/make_ssd_models.py OUT_DIR [tiny_ssd,ssdlite320,ssd300]

Each model goes to OUT_DIR/<name>/: model.onnx, image.npy (the [3, H, W] input),
boxes.npy / scores.npy / labels.npy (PyTorch's detections, boxes in pixels of the image).
Weights are random (seeded), calibrated so that scores spread and detections exist
(see calibrate()). tiny_ssd is torchvision's SSD class (same transform, anchors and
post-processing as SSD300 / SSDlite) around a two-layer backbone: small enough to commit as
the fixture of tests/configs/ssd_config_test.cpp.
"""
import os
import sys
from collections import OrderedDict

import numpy as np
import torch
from torch import nn
import torchvision
from torchvision.models.detection import ssd300_vgg16, ssdlite320_mobilenet_v3_large
from torchvision.models.detection.anchor_utils import DefaultBoxGenerator
from torchvision.models.detection.ssd import SSD, SSDHead


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(3, 8, 3, stride=4, padding=1), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU())
        self.out_channels = [8, 8]

    def forward(self, x):
        a = self.a(x)
        return OrderedDict([("0", a), ("1", self.b(a))])


def tiny_ssd():
    anchors = DefaultBoxGenerator([[2], [2, 3]])
    head = SSDHead([8, 8], anchors.num_anchors_per_location(), 4)
    return SSD(TinyBackbone(), anchors, (64, 64), 4, head=head, detections_per_img=50, topk_candidates=100), (3, 80, 96)


MODELS = {
    "tiny_ssd": tiny_ssd,
    "ssdlite320": lambda: (ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5), (3, 320, 320)),
    "ssd300": lambda: (ssd300_vgg16(weights=None, weights_backbone=None, num_classes=5), (3, 300, 300)),
}


def last_convs(head):
    """The last Conv2d of each feature level of an SSD scoring head."""
    convs = []
    for level in head.module_list:
        found = [m for m in level.modules() if isinstance(m, nn.Conv2d)]
        convs.append(found[-1])
    return convs


def calibrate(model, image_shape):
    """Random weights, but outputs like a trained detector's: batch norm statistics taken from
    random images (random running statistics make deep backbones' features vanish), class
    logits with a spread of about 2 (scores neither uniform nor saturated), and box codes small
    enough that torchvision's clamp of the box size never applies."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a plain average over the calibration batches
    model.train()
    images = [torch.rand(image_shape) for _ in range(4)]
    with torch.no_grad():
        batch, _ = model.transform(images)
        for _ in range(2):
            model.backbone(batch.tensors)
        model.eval()
        features = list(model.backbone(batch.tensors).values())
        out = model.head(features)
        for key, head, target in (("cls_logits", model.head.classification_head, 2.0 / out["cls_logits"].std()),
                                  ("bbox_regression", model.head.regression_head, 3.0 / out["bbox_regression"].abs().max())):
            for conv in last_convs(head):
                conv.weight.mul_(target)
                if conv.bias is not None:
                    conv.bias.mul_(target)


def export(name, out_dir):
    torch.manual_seed(0)
    model, image_shape = MODELS[name]()
    calibrate(model, image_shape)
    image = torch.rand(image_shape)
    with torch.no_grad():
        det = model([image])[0]
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    torch.onnx.export(model, ([image],), os.path.join(d, "model.onnx"), opset_version=11,
                      input_names=["image"], output_names=["boxes", "scores", "labels"])
    np.save(os.path.join(d, "image.npy"), image.numpy())
    np.save(os.path.join(d, "boxes.npy"), det["boxes"].numpy())
    np.save(os.path.join(d, "scores.npy"), det["scores"].numpy())
    np.save(os.path.join(d, "labels.npy"), det["labels"].numpy())
    print(f"{name}: {len(det['scores'])} detections, torch {torch.__version__}, torchvision {torchvision.__version__}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(MODELS)
    for name in names:
        export(name, sys.argv[1])


if __name__ == "__main__":
    main()
