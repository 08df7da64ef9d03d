#!/usr/bin/env python3
"""Runs an 8-bit TFLite model with the integer arithmetic of TFLite's reference kernels (as the
tflite-micro reference kernels compute it) and writes its outputs as reference_<i>.npy next to the
model: references for tests, independent of mo and of the TFLite interpreter's XNNPACK delegate
(which tfjs-tflite applies). Not run by CI.

    apt-get install python3-numpy python3-flatbuffers flatbuffers-compiler
    /usr/bin/python3 scripts/tflite_reference_kernels.py [--single-rounding] [--all] DIR ...
        (DIR/model.tflite, DIR/input_<i>.npy)

--all also writes every operator's output as DIR/reference/<tensor>.npy. --single-rounding
requantizes as a TFLite build with TFLITE_SINGLE_ROUNDING=1 does.

The arithmetic, from TFLite's kernels (tensorflow/lite/kernels/internal/common.h, common.cc,
quantization_util.cc, reference/conv.h, reference/depthwiseconv_uint8.h,
reference/integer_ops/conv.h, depthwise_conv.h, add.h, reference/concatenation.h):
  * QuantizeMultiplier(m): m = f * 2^e, f in [0.5, 1), q = round(f * 2^31) (a q of 2^31 halves
    and e grows by one); m is computed in double from the float scales.
  * MultiplyByQuantizedMultiplier(x, q, e), by default double rounding:
    RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * 2^max(e, 0), q), max(-e, 0)), where
    the high multiplication rounds (x * q) / 2^31 half up and the division rounds half away from
    zero; with TFLITE_SINGLE_ROUNDING, (x * q + 2^(30 - e)) >> (31 - e).
  * CONV_2D / DEPTHWISE_CONV_2D: acc = sum (x - x_zp) (w - w_zp) + bias over the window (padding
    reads x_zp), out = MultiplyByQuantizedMultiplier(acc, M[c]) + out_zp, clamped to the fused
    activation's range quantize(0) / quantize(6) (TfLiteRound: half away from zero).
  * ADD: each input (x - zp) * 2^20 scaled by its multiplier s_i / (2 max(s1, s2)) (rounded twice,
    as above), summed, scaled by 2 max(s1, s2) / (2^20 s_out), plus out_zp, clamped.
  * CONCATENATION of inputs with other scales: round(x * s_in / s_out - zp_in * s_in / s_out)
    + zp_out in float (std::round: half away from zero), clamped; same scales: the bytes.
  * RESHAPE: the bytes.
  * QUANTIZE of a float tensor: round(x / s) (in float, half away from zero) + zp, clamped.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_schema():
    """The Python code flatc makes for mo's TFLite schema subset, imported from a temporary dir."""
    out = tempfile.mkdtemp(prefix='tflite_schema_py_')
    subprocess.run(['flatc', '--python', '-o', out, os.path.join(ROOT, 'loaders/tflite/tflite_schema.fbs')], check=True)
    sys.path.insert(0, out)
    import importlib
    import tflite
    for name in ('Model', 'Conv2DOptions', 'DepthwiseConv2DOptions', 'AddOptions', 'ConcatenationOptions'):
        importlib.import_module('tflite.' + name)
    return tflite


SINGLE_ROUNDING = False


def quantize_multiplier(m):
    if m == 0:
        return 0, 0
    f, e = np.frexp(m)
    q = int(np.floor(f * (1 << 31) + 0.5))
    if q == 1 << 31:
        q //= 2
        e += 1
    return q, int(e)


def multiply_by_quantized_multiplier(x, q, e):
    """Elementwise over broadcast (q, e): per-channel multipliers come as arrays."""
    x, q, e = np.broadcast_arrays(np.asarray(x, np.int64), np.asarray(q, np.int64), np.asarray(e, np.int64))
    if SINGLE_ROUNDING:
        total = 31 - e
        return (x * q + (np.int64(1) << (total - 1))) >> total
    left, right = np.maximum(e, 0), np.maximum(-e, 0)
    high = (x * (np.int64(1) << left) * q + (1 << 30)) >> 31  # rounds (x * q) / 2^31 half up
    mask = (np.int64(1) << right) - 1
    return (high >> right) + ((high & mask) > ((mask >> 1) + (high < 0)))  # half away from zero


def tflite_round(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


class Model:
    def __init__(self, tflite, path):
        self.buf = open(path, 'rb').read()
        self.m = tflite.Model.Model.GetRootAsModel(self.buf, 0)
        self.g = self.m.Subgraphs(0)
        self.tflite = tflite

    def tensor(self, i):
        return self.g.Tensors(i)

    def quant(self, i):
        q = self.tensor(i).Quantization()
        return [float(np.float32(q.Scale(k))) for k in range(q.ScaleLength())], [int(q.ZeroPoint(k)) for k in range(q.ZeroPointLength())]

    def data(self, i):
        t = self.tensor(i)
        b = self.m.Buffers(t.Buffer())
        if b.DataLength() == 0:
            return None
        dtype = {2: np.int32, 3: np.uint8, 4: np.int64, 9: np.int8}[t.Type()]
        return b.DataAsNumpy().view(dtype).reshape(t.ShapeAsNumpy()).astype(np.int64)

    def code(self, op):
        c = self.m.OperatorCodes(op.OpcodeIndex())
        return max(c.BuiltinCode(), c.DeprecatedBuiltinCode())

    def options(self, op, cls):
        """The options table, or None when the operator stores none (every option its default)."""
        t = op.BuiltinOptions()
        if t is None:
            return None
        o = cls()
        o.Init(t.Bytes, t.Pos)
        return o


def qrange(t):
    return (0, 255) if t.Type() == 3 else (-128, 127)


def activation_range(code, s, zp, lo, hi):
    q = lambda v: zp + int(tflite_round(v / s))
    if code == 1:
        return max(lo, q(0.0)), hi
    if code == 2:
        return max(lo, q(-1.0)), min(hi, q(1.0))
    if code == 3:
        return max(lo, q(0.0)), min(hi, q(6.0))
    return lo, hi


def conv(model, op, vals, depthwise):
    tfl = model.tflite
    o = model.options(op, tfl.DepthwiseConv2DOptions.DepthwiseConv2DOptions if depthwise else tfl.Conv2DOptions.Conv2DOptions)
    xi, wi, bi, yi = op.Inputs(0), op.Inputs(1), op.Inputs(2), op.Outputs(0)
    (sx,), (zx,) = model.quant(xi)
    sw, zw = model.quant(wi)
    (so,), (zo,) = model.quant(yi)
    x = vals[xi]
    w = model.data(wi)
    axis = 3 if depthwise else 0
    zw = np.array(zw)
    w = w - (zw.reshape([-1 if k == axis else 1 for k in range(4)]) if len(zw) > 1 else zw[0])
    bias = model.data(bi) if bi >= 0 else 0
    n, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    yshape = model.tensor(yi).ShapeAsNumpy()
    oh, ow, oc = yshape[1], yshape[2], yshape[3]
    sh, sw_ = o.StrideH(), o.StrideW()
    dh, dw = o.DilationHFactor(), o.DilationWFactor()
    if o.Padding() == 0:  # SAME: the odd pixel at the end
        ph = max((oh - 1) * sh + (kh - 1) * dh + 1 - h, 0) // 2
        pw = max((ow - 1) * sw_ + (kw - 1) * dw + 1 - wd, 0) // 2
    else:
        ph = pw = 0
    xp = np.zeros((n, h + 2 * (kh * dh + sh), wd + 2 * (kw * dw + sw_), c), np.int64)
    xp[:, ph:ph + h, pw:pw + wd, :] = x - zx
    acc = np.zeros((n, oh, ow, oc), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh:i * dh + sh * oh:sh, j * dw:j * dw + sw_ * ow:sw_, :]
            if depthwise:
                acc += np.repeat(patch, oc // c, axis=3) * w[0, i, j, :]
            else:
                acc += np.einsum('nhwc,oc->nhwo', patch, w[:, i, j, :])
    acc += bias
    qs = [quantize_multiplier(float(np.float64(sx) * np.float64(s) / np.float64(so))) for s in sw]
    q = np.array([a for a, _ in qs])  # one per output channel (the last axis), or one
    e = np.array([b for _, b in qs])
    out = multiply_by_quantized_multiplier(acc, q, e) + zo
    lo, hi = activation_range(o.FusedActivationFunction(), so, zo, *qrange(model.tensor(yi)))
    return np.clip(out, lo, hi)


def add(model, op, vals):
    o = model.options(op, model.tflite.AddOptions.AddOptions)
    (s1,), (z1,) = model.quant(op.Inputs(0))
    (s2,), (z2,) = model.quant(op.Inputs(1))
    (so,), (zo,) = model.quant(op.Outputs(0))
    left = 20
    twice = 2 * max(s1, s2)
    q1, e1 = quantize_multiplier(s1 / twice)
    q2, e2 = quantize_multiplier(s2 / twice)
    qo, eo = quantize_multiplier(twice / ((1 << left) * so))
    a = multiply_by_quantized_multiplier((vals[op.Inputs(0)] - z1) * (1 << left), q1, e1)
    b = multiply_by_quantized_multiplier((vals[op.Inputs(1)] - z2) * (1 << left), q2, e2)
    out = multiply_by_quantized_multiplier(a + b, qo, eo) + zo
    lo, hi = activation_range(o.FusedActivationFunction() if o else 0, so, zo, *qrange(model.tensor(op.Outputs(0))))
    return np.clip(out, lo, hi)


def concatenation(model, op, vals):
    o = model.options(op, model.tflite.ConcatenationOptions.ConcatenationOptions)
    (so,), (zo,) = model.quant(op.Outputs(0))
    lo, hi = qrange(model.tensor(op.Outputs(0)))
    parts = []
    for k in range(op.InputsLength()):
        i = op.Inputs(k)
        (si,), (zi,) = model.quant(i)
        if (si, zi) == (so, zo):
            parts.append(vals[i])
            continue
        scale = np.float32(si) * np.float32(np.float32(1) / np.float32(so))
        v = vals[i].astype(np.float32) * scale + np.float32(-zi) * scale
        parts.append(np.clip(tflite_round(v).astype(np.int64) + zo, lo, hi))
    return np.concatenate(parts, axis=o.Axis() if o else 0)


def run(model, inputs):
    vals = {model.g.Inputs(k): v if v.dtype.kind == 'f' else v.astype(np.int64) for k, v in enumerate(inputs)}
    for k in range(model.g.OperatorsLength()):
        op = model.g.Operators(k)
        code = model.code(op)
        if code == 3:
            y = conv(model, op, vals, False)
        elif code == 4:
            y = conv(model, op, vals, True)
        elif code == 0:
            y = add(model, op, vals)
        elif code == 2:
            y = concatenation(model, op, vals)
        elif code == 114 and model.tensor(op.Inputs(0)).Type() == 0:  # QUANTIZE of a float tensor
            (so,), (zo,) = model.quant(op.Outputs(0))
            v = vals[op.Inputs(0)].astype(np.float32) / np.float32(so)
            y = np.clip(tflite_round(v).astype(np.int64) + zo, *qrange(model.tensor(op.Outputs(0))))
        elif code == 22:
            y = vals[op.Inputs(0)].reshape(model.tensor(op.Outputs(0)).ShapeAsNumpy())
        else:
            print(f'operator {k}: builtin code {code} is not one this script computes; its outputs are left out')
            continue
        vals[op.Outputs(0)] = y
    return vals


def main():
    global SINGLE_ROUNDING
    p = argparse.ArgumentParser()
    p.add_argument('--single-rounding', action='store_true')
    p.add_argument('--all', action='store_true')
    p.add_argument('dirs', nargs='+')
    a = p.parse_args()
    SINGLE_ROUNDING = a.single_rounding
    tflite = load_schema()
    for d in a.dirs:
        model = Model(tflite, os.path.join(d, 'model.tflite'))
        inputs = [np.load(os.path.join(d, f'input_{k}.npy')) for k in range(model.g.InputsLength())]
        vals = run(model, inputs)
        for k in range(model.g.OutputsLength()):
            i = model.g.Outputs(k)
            if i not in vals:
                continue
            dtype = np.uint8 if model.tensor(i).Type() == 3 else np.int8
            np.save(os.path.join(d, f'reference_{k}.npy'), vals[i].astype(dtype))
            print(f'{d}: reference {k} {model.tensor(i).Name().decode()} {list(vals[i].shape)}')
        if a.all:
            os.makedirs(os.path.join(d, 'reference'), exist_ok=True)
            for i, v in vals.items():
                name = model.tensor(i).Name().decode().replace('/', '_').replace(':', '_')
                dtype = np.uint8 if model.tensor(i).Type() == 3 else np.int8
                np.save(os.path.join(d, 'reference', name + '.npy'), v.astype(dtype))


if __name__ == '__main__':
    main()
