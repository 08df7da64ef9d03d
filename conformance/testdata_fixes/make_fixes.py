#!/usr/bin/python3
"""Writes the corrected test data that mo-conformance uses instead of Debian's ONNX 1.12 files.

Run with Debian's python3 (python3-onnx, python3-torch):
    /usr/bin/python3 conformance/testdata_fixes/make_fixes.py [/usr/share/libonnx-testdata/data/node]

Each fix is a file that replaces the file of the same name in the test's data set; the reason is
next to it below. Nothing here is computed by mo: bf16 rounding comes from torch.
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

NODE = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/libonnx-testdata/data/node"
HERE = os.path.dirname(os.path.abspath(__file__))


def read(test, name):
    t = onnx.TensorProto()
    with open(os.path.join(NODE, test, "test_data_set_0", name), "rb") as f:
        t.ParseFromString(f.read())
    return t


def write(test, name, array, tensor_name):
    out = os.path.join(HERE, test, "test_data_set_0", name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as f:
        f.write(numpy_helper.from_array(array, tensor_name).SerializeToString())
    print(out)


def bf16_bits_rounded(x):
    # f32 -> bf16 rounding to nearest even, as ONNX >= 1.14 (ml_dtypes), ONNX Runtime and
    # OpenVINO do. ONNX 1.12 wrote these tests by dropping the low 16 bits (truncation).
    return torch.from_numpy(x.copy()).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)


for test in ["test_cast_FLOAT_to_BFLOAT16", "test_castlike_FLOAT_to_BFLOAT16",
             "test_castlike_FLOAT_to_BFLOAT16_expanded"]:
    x = numpy_helper.to_array(read(test, "input_0.pb"))
    y = bf16_bits_rounded(x)
    write(test, "output_0.pb", y, "output")
    if test.startswith("test_castlike"):
        # ONNX 1.12 stored `like` as shape [1] while the model declares [3, 4] (ONNX >= 1.14
        # declares what it stores). CastLike reads only its element type; give the declared shape.
        write(test, "input_1.pb", y, "like")

for test in ["test_castlike_BFLOAT16_to_FLOAT", "test_castlike_BFLOAT16_to_FLOAT_expanded"]:
    y = numpy_helper.to_array(read(test, "output_0.pb"))
    write(test, "input_1.pb", y, "like")  # same `like` shape fix as above
