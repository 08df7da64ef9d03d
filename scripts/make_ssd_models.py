#!/usr/bin/python3
"""Exports torchvision SSD detectors to ONNX with PyTorch's detections, for configs/ssd.json.

Run with Debian's python3 (python3-torch, python3-torchvision 0.14, python3-onnx):

    /usr/bin/python3 scripts/make_ssd_models.py OUT_DIR [tiny_ssd,tiny_ssd_wrapped,ssdlite320,...]

Each model goes to OUT_DIR/<name>/: model.onnx, image.npy (the [3, H, W] input),
boxes.npy / scores.npy / labels.npy (PyTorch's detections, boxes in pixels of the image).
Weights are random (seeded), calibrated so that scores spread and detections exist
(see calibrate()). tiny_ssd is torchvision's SSD class (same transform, anchors and
post-processing as SSD300 / SSDlite) around a two-layer backbone: small enough to commit as
the fixture of tests/e2e/ssd_config_test.cpp (tests/e2e/data/tiny_ssd*). The *_wrapped models
are exported through PickOutputs, as users do to get a tuple of outputs, with non-default
score / NMS thresholds, top-k and detections per image (WRAPPED and MODELS below); the big ones
go to $MO_MODELS_DIR/ssd (default /work/models/ssd), where the test looks for them.
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


class PickOutputs(nn.Module):
    """The wrapper users write to export a detector with a tensor input and a tuple of outputs
    (torch.onnx.export cannot return a list of dicts): the detector becomes submodule `m`, so
    the exporter (torch 1.13) names its nodes /m/Softmax, /m/Split, ... instead of /Softmax."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, image):
        d = self.m([image])[0]
        return d["boxes"], d["scores"], d["labels"]


def tiny_ssd(**settings):
    anchors = DefaultBoxGenerator([[2], [2, 3]])
    head = SSDHead([8, 8], anchors.num_anchors_per_location(), 4)
    return SSD(TinyBackbone(), anchors, (64, 64), 4, head=head, **settings)


# Settings other than torchvision's defaults (SSD: score 0.01, NMS 0.45, 200 per image, top 400
# per class; SSDlite: 0.001, 0.55, 300, 300), so that nothing can be guessed from the defaults.
# On tiny_ssd_wrapped's image each of score, NMS and top-k changes the detections (123 of them;
# 124 with score > 0.7, 142 with NMS 0.45, 184 with the top 400 per class), and fewer than
# detections_per_img survive, so a wrong setting changes their number.
WRAPPED = dict(score_thresh=0.8, nms_thresh=0.3, detections_per_img=150, topk_candidates=60)

# name: (model builder, image shape [3, H, W], whether wrapped in PickOutputs)
MODELS = {
    "tiny_ssd": (lambda: tiny_ssd(detections_per_img=50, topk_candidates=100), (3, 80, 96), False),
    "tiny_ssd_wrapped": (lambda: tiny_ssd(**WRAPPED), (3, 48, 56), True),
    "ssdlite320": (lambda: ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5), (3, 320, 320), False),
    "ssd300": (lambda: ssd300_vgg16(weights=None, weights_backbone=None, num_classes=5), (3, 300, 300), False),
    "ssdlite320_wrapped": (lambda: ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5,
                                                                 score_thresh=0.02, nms_thresh=0.4, detections_per_img=100,
                                                                 topk_candidates=150), (3, 320, 320), True),
    "ssd300_wrapped": (lambda: ssd300_vgg16(weights=None, weights_backbone=None, num_classes=5, score_thresh=0.05,
                                            nms_thresh=0.35, detections_per_img=120, topk_candidates=80), (3, 300, 300), True),
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
    build, image_shape, wrapped = MODELS[name]
    model = build()
    calibrate(model, image_shape)
    image = torch.rand(image_shape)
    with torch.no_grad():
        det = model([image])[0]
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    exported, args = (PickOutputs(model), (image,)) if wrapped else (model, ([image],))
    torch.onnx.export(exported, args, os.path.join(d, "model.onnx"), opset_version=11,
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
