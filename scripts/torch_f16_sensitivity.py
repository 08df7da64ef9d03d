#!/usr/bin/python3
"""How much do a model's outputs move, in PyTorch itself, when its weights are rounded to f16?

An independent yardstick for `mo --compress_to_fp16`: the model of shared/models/export_torch.py is
rebuilt with the same seed, BatchNorm is folded into its convolution where one module holds both
(Inception's BasicConv2d; as the ONNX export and mo do), every parameter is rounded to f16 (what the
compressed IR stores; activations stay f32), and the first output is compared with the saved
reference.

    /usr/bin/python3 scripts/torch_f16_sensitivity.py inception_v3_op13 [MODELS_DIR]

Needs Debian's python3-torch and python3-torchvision (as export_torch.py does).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "models"))
import export_torch as et  # noqa: E402

name = sys.argv[1]
models = sys.argv[2] if len(sys.argv) > 2 else "/work/models"
spec = et.SPECS[name]
torch.manual_seed(0)
np.random.seed(0)
model = spec["make"]()
if spec.get("post"):
    spec["post"](model)
model.eval()
if spec["calib"]:
    et.calibrate_bn(model, spec, 0)
model.eval()
inputs = [torch.from_numpy(np.load(os.path.join(models, name, "input_%d.npy" % i)))
          for i in range(len(spec["inputs"](7)))]
ref = np.load(os.path.join(models, name, "output_0.npy"))


def first_output():
    with torch.no_grad():
        return et.flat_outputs(model(*inputs))[0].detach().numpy()


print("rebuilt model vs saved reference:      max abs %.3g" % np.abs(first_output() - ref).max())
for m in model.modules():
    if isinstance(getattr(m, "conv", None), nn.Conv2d) and isinstance(getattr(m, "bn", None), nn.BatchNorm2d):
        m.conv = fuse_conv_bn_eval(m.conv, m.bn)
        m.bn = nn.Identity()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(p.half().float())
err = np.abs(first_output() - ref).max()
print("f16-rounded (folded) weights vs reference: max abs %.3g, max|ref| %.3g" % (err, np.abs(ref).max()))
