#!/usr/bin/python3
"""Small TorchScript models whose ONNX exports carry If and Loop, with PyTorch's outputs: the
fixtures of tests/e2e/control_flow_test.cpp (committed, a few KB each). Run with Debian's
python3-torch 1.13:

    /usr/bin/python3 scripts/make_control_flow_models.py tests/e2e/data/control_flow

Each model directory gets model.onnx, input_<i>.npy and output_<i>.npy.
"""
import os
import sys

from typing import List

import numpy as np
import torch


class Recurrence(torch.nn.Module):
    """h = tanh(x[t] W + h U) over the time axis (a Loop whose trip count is x's length), the
    per-step states stacked (a scan output)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = torch.nn.Parameter(torch.randn(4, 5, generator=g) * 0.5)
        self.u = torch.nn.Parameter(torch.randn(5, 5, generator=g) * 0.5)

    def forward(self, x):
        h = torch.zeros(x.size(1), 5)
        states = []
        for t in range(x.size(0)):
            h = torch.tanh(x[t] @ self.w + h @ self.u)
            states.append(h)
        return h, torch.stack(states)


class DataDependentIf(torch.nn.Module):
    """A branch on the data (If with a computed condition) and an exporter-style empty check."""

    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0 + 1.0
        else:
            y = torch.relu(x) - x.mean()
        if x.size(0) == 0:
            return y
        return y / 3.0


class WhileHalving(torch.nn.Module):
    """Halves y until its squared norm is at most 1, counting the steps (a Loop with a condition)."""

    def forward(self, y):
        steps = torch.zeros(1)
        while bool((y * y).sum() > 1.0):
            y = y / 2.0
            steps = steps + 1.0
        return y, steps


class ListOfSlices(torch.nn.Module):
    """MViT's pooling pattern: a constant-trip loop collects slices in a list, one more tensor is
    appended after the loop, and elements are picked by constant index (a sequence carried through
    the Loop, SequenceInsert and SequenceAt after it)."""

    def forward(self, x):
        return collect_slices(x)


@torch.jit.script
def collect_slices(x: torch.Tensor):
    # A scripted helper inside a traced model, as torchvision's MViT has: its loop stays a Loop.
    parts = torch.jit.annotate(List[torch.Tensor], [])
    for i in range(4):
        parts.append(x[:, i:i + 1] * float(i + 1))
    parts.append(x.sum(dim=1, keepdim=True))
    return parts[1] + parts[4], parts[2]


class NestedBranches(torch.nn.Module):
    """An If inside a Loop, both branches reading a value computed before the loop (an outer-scope
    value two graphs up) and the loop-carried accumulator."""

    def forward(self, x):
        scale = x.abs().mean() + 1.0
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            if bool(x[i].sum() > 0):
                acc = acc + x[i] * scale
            else:
                acc = acc - x[i] / scale
        return acc


MODELS = {
    "recurrence": (Recurrence, [np.random.RandomState(1).randn(6, 2, 4).astype(np.float32)]),
    "data_dependent_if": (DataDependentIf, [np.random.RandomState(2).randn(3, 4).astype(np.float32)]),
    "while_halving": (WhileHalving, [np.random.RandomState(3).randn(2, 3).astype(np.float32) * 10]),
    "nested_branches": (NestedBranches, [np.random.RandomState(5).randn(7, 3).astype(np.float32)]),
    "list_of_slices": (ListOfSlices, [np.random.RandomState(4).randn(2, 4).astype(np.float32)]),
}


def main():
    out = sys.argv[1]
    for name, (cls, inputs) in MODELS.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        module = cls().eval()
        if cls is not ListOfSlices:
            module = torch.jit.script(module)
        tensors = [torch.from_numpy(x) for x in inputs]
        with torch.no_grad():
            outputs = module(*tensors)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        torch.onnx.export(module, tuple(tensors), os.path.join(d, "model.onnx"), opset_version=13,
                          input_names=[f"input_{i}" for i in range(len(inputs))],
                          output_names=[f"output_{i}" for i in range(len(outputs))],
                          dynamic_axes={"input_0": {0: "n"}})
        for i, x in enumerate(inputs):
            np.save(os.path.join(d, f"input_{i}.npy"), x)
        for i, y in enumerate(outputs):
            np.save(os.path.join(d, f"output_{i}.npy"), y.numpy())
        print(name, [y.shape for y in outputs])


if __name__ == "__main__":
    main()
