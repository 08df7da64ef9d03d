#!/usr/bin/env python3
"""Writes the Caffe test models of tests/e2e/data/caffe/ and their reference outputs.

    /usr/bin/python3 scripts/make_caffe_models.py [--only NAME,...] [--full DIR]

Needs protoc, Debian's python3-protobuf, python3-numpy and python3-opencv (OpenCV 4.6.0). Each
model directory holds deploy.prototxt, model.caffemodel (random weights, written with protobuf
classes generated from mo's loaders/caffe/caffe.proto), input_<i>.npy, output_<j>.npy and
reference.txt. The outputs are the net's outputs in mo's order (the blobs no layer reads after
their last write, in the order of that write) computed by:
* OpenCV's Caffe importer (cv2.dnn.readNetFromCaffe, fusion off), which runs Caffe's layer
  semantics, for every net it can read; the plain numpy interpreter below is checked against it
  on those nets (the script stops if they disagree); DetectionOutput's rows are put back in
  Caffe's order (by image, label, then score), which OpenCV 4.6 replaces by score order;
* the numpy interpreter alone for the layers OpenCV 4.6 does not read (DeepLab's Interp,
  SegNet's Upsample, round_mode FLOOR, a PriorBoxClustered layer type); reference.txt says which.
The nets' forms follow the deploy files of the real models: BVLC's models/bvlc_googlenet and
bvlc_alexnet deploy.prototxt (V2 `layer`, `input` + `input_dim` / Input layers), weiliu89's SSD
(ssd branch) VGG_VOC0712_SSD_300x300 deploy.prototxt and chuanqi305's MobileNet-SSD
MobileNetSSD_deploy.prototxt (Normalize, PriorBox, Permute / Flatten / Concat heads,
DetectionOutput), SegNet's (caffe-segnet) Pooling with a mask top and Upsample, DeepLab-v2's Interp.
--full DIR also writes the full-size GoogLeNet (224 x 224) and MobileNet-SSD (300 x 300) with
random weights to DIR/<name>/ (not committed: tests find them through MO_CAFFE_MODELS).
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "e2e", "data", "caffe")

tmp = tempfile.mkdtemp()
subprocess.run(["protoc", "-I", os.path.join(ROOT, "loaders", "caffe"), "--python_out", tmp, "caffe.proto"], check=True)
sys.path.insert(0, tmp)
import caffe_pb2 as pb  # noqa: E402
from google.protobuf import text_format  # noqa: E402


def fill(msg, values):
    """Sets a protobuf message's fields from a dict (lists extend repeated fields)."""
    for key, value in values.items():
        field = msg.DESCRIPTOR.fields_by_name[key]
        if isinstance(value, dict):
            fill(getattr(msg, key), value)
        elif isinstance(value, (list, tuple)):
            if field.message_type is not None:
                for v in value:
                    fill(getattr(msg, key).add(), v)
            else:
                getattr(msg, key).extend(value)
        else:
            setattr(msg, key, value)


class Net:
    """A Caffe net being built: layers in order, blobs kept apart for the .caffemodel."""

    def __init__(self, name, seed=0):
        self.msg = pb.NetParameter(name=name)
        self.blobs = {}
        self.shapes = {}  # input blob -> shape
        self.channels = {}  # blob -> channels, for conv()
        self.rng = np.random.default_rng(seed)

    def input(self, name, shape, form="input_shape"):
        self.shapes[name] = list(shape)
        self.channels[name] = shape[1] if len(shape) > 1 else None
        if form == "input_shape":
            self.msg.input.append(name)
            self.msg.input_shape.add(dim=shape)
        elif form == "input_dim":
            self.msg.input.append(name)
            self.msg.input_dim.extend(shape)
        else:
            self.layer("Input", name, [], [name], input_param={"shape": [{"dim": list(shape)}]})
        return name

    def layer(self, type, name, bottom, top=None, blobs=(), **params):
        top = [name] if top is None else top
        l = self.msg.layer.add(name=name, type=type, bottom=list(bottom), top=list(top))
        fill(l, params)
        if blobs:
            self.blobs[name] = [np.asarray(b, np.float32) for b in blobs]
        return top[0] if len(top) == 1 else top

    def weights(self, *shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = scale if scale is not None else 1.0 / math.sqrt(max(fan_in, 1))
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    # Layer helpers in the deploy files' forms.
    def conv(self, name, bottom, outputs, kernel, stride=1, pad=0, group=1, bias=True, in_channels=None, weight_scale=1.0,
             **extra):
        """A Convolution layer in the form the deploy files write (kernel_size, stride, pad lists)."""
        c = in_channels if in_channels is not None else self.channels[bottom]
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        p = {"num_output": outputs, "kernel_size": [kernel] if isinstance(kernel, int) else list(kernel)}
        if stride != 1:
            p["stride"] = [stride]
        if pad:
            p["pad"] = [pad]
        if group != 1:
            p["group"] = group
        if not bias:
            p["bias_term"] = False
        p.update(extra)
        blobs = [self.weights(outputs, c // group, kh, kw) * weight_scale]
        if bias:
            blobs.append(self.weights(outputs, scale=0.1))
        top = self.layer("Convolution", name, [bottom], blobs=blobs, convolution_param=p)
        self.channels[top] = outputs
        return top

    def relu(self, name, blob):
        return self.layer("ReLU", name, [blob], [blob])

    def write(self, directory):
        if getattr(self, "v1", False):
            return self.write_v1(directory)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "deploy.prototxt"), "w") as f:
            f.write(text_format.MessageToString(self.msg))
        model = pb.NetParameter()
        model.CopyFrom(self.msg)
        for l in model.layer:
            for b in self.blobs.get(l.name, []):
                blob = l.blobs.add()
                blob.shape.dim.extend(b.shape)
                blob.data.extend(b.ravel().tolist())
        with open(os.path.join(directory, "model.caffemodel"), "wb") as f:
            f.write(model.SerializeToString())


    def write_v1(self, directory):
        """The deprecated V1 form (`layers`, LayerType enums) as 2014 Caffe wrote it, with blobs in
        the legacy 4-D (num, channels, height, width) form: InnerProduct weights (1, 1, N, K)."""
        os.makedirs(directory, exist_ok=True)
        kinds = {"Convolution": "CONVOLUTION", "ReLU": "RELU", "Pooling": "POOLING", "LRN": "LRN", "InnerProduct": "INNER_PRODUCT",
                 "Dropout": "DROPOUT", "Softmax": "SOFTMAX", "Concat": "CONCAT", "Eltwise": "ELTWISE"}
        proto, model = pb.NetParameter(name=self.msg.name), pb.NetParameter(name=self.msg.name)
        for net in (proto, model):
            net.input.extend(self.msg.input)
            net.input_dim.extend(self.msg.input_dim)
            for l in self.msg.layer:
                v = net.layers.add(name=l.name, type=getattr(pb.V1LayerParameter, kinds[l.type]), bottom=l.bottom, top=l.top)
                for field, value in l.ListFields():
                    if field.name.endswith("_param"):
                        getattr(v, field.name).CopyFrom(value)
                if net is model:
                    for b in self.blobs.get(l.name, []):
                        dims = ([1] * (4 - b.ndim) + list(b.shape))
                        blob = v.blobs.add(num=dims[0], channels=dims[1], height=dims[2], width=dims[3])
                        blob.data.extend(b.ravel().tolist())
        with open(os.path.join(directory, "deploy.prototxt"), "w") as f:
            f.write(text_format.MessageToString(proto))
        with open(os.path.join(directory, "model.caffemodel"), "wb") as f:
            f.write(model.SerializeToString())


# ---- The numpy interpreter: Caffe's forward pass of the layers the tests use ---------------------

def conv2d(x, w, b, stride, pad, dilation, group):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    ekh, ekw = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    oh, ow = (h + 2 * pad[0] - ekh) // stride[0] + 1, (wd + 2 * pad[1] - ekw) // stride[1] + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    og = o // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dilation[0]:i * dilation[0] + stride[0] * (oh - 1) + 1:stride[0],
                           j * dilation[1]:j * dilation[1] + stride[1] * (ow - 1) + 1:stride[1]]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def deconv2d(x, w, b, stride, pad, group):
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    oh, ow = stride[0] * (h - 1) + kh - 2 * pad[0], stride[1] * (wd - 1) + kw - 2 * pad[1]
    full = np.zeros((n, og * group, stride[0] * (h - 1) + kh, stride[1] * (wd - 1) + kw))
    cg = c // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                full[:, g * og:(g + 1) * og, i:i + stride[0] * (h - 1) + 1:stride[0], j:j + stride[1] * (wd - 1) + 1:stride[1]] += \
                    np.einsum("nchw,co->nohw", x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg, :, i, j])
    y = full[:, :, pad[0]:pad[0] + oh, pad[1]:pad[1] + ow]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def caffe_pool_extent(n, k, s, p, ceil):
    out = (math.ceil if ceil else math.floor)((n + 2 * p - k) / s) + 1
    if p and (out - 1) * s >= n + p:
        out -= 1
    return out


def pool2d(x, kernel, stride, pad, method, ceil=True):
    n, c, h, w = x.shape
    oh, ow = caffe_pool_extent(h, kernel[0], stride[0], pad[0], ceil), caffe_pool_extent(w, kernel[1], stride[1], pad[1], ceil)
    y = np.zeros((n, c, oh, ow))
    mask = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * stride[0] - pad[0], j * stride[1] - pad[1]
            he, we = min(hs + kernel[0], h + pad[0]), min(ws + kernel[1], w + pad[1])
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            win = x[:, :, hs:he, ws:we].reshape(n, c, -1)
            if method == "MAX":
                arg = win.argmax(axis=2)  # the first maximum, as Caffe's strict '>' keeps
                y[:, :, i, j] = win.max(axis=2)
                mask[:, :, i, j] = (hs + arg // (we - ws)) * w + ws + arg % (we - ws)
            else:
                y[:, :, i, j] = win.sum(axis=2) / size
    return y, mask


def interp_bilinear(x, oh, ow):
    """DeepLab's caffe_cpu_interp2 (aligned corners)."""
    n, c, h, w = x.shape
    y = np.zeros((n, c, oh, ow))
    rh = (h - 1) / (oh - 1) if oh > 1 else 0.0
    rw = (w - 1) / (ow - 1) if ow > 1 else 0.0
    for i in range(oh):
        hr = np.float32(rh * i)
        h1 = int(hr)
        hp = 1 if h1 < h - 1 else 0
        hl = hr - h1
        for j in range(ow):
            wr = np.float32(rw * j)
            w1 = int(wr)
            wp = 1 if w1 < w - 1 else 0
            wl = wr - w1
            y[:, :, i, j] = (1 - hl) * ((1 - wl) * x[:, :, h1, w1] + wl * x[:, :, h1, w1 + wp]) + \
                hl * ((1 - wl) * x[:, :, h1 + hp, w1] + wl * x[:, :, h1 + hp, w1 + wp])
    return y


def prior_boxes(p, fh, fw, ih, iw):
    """The SSD fork's PriorBoxLayer::Forward_cpu (and OpenCV's clustered form: width / height)."""
    step_h = p.step_h if p.HasField("step_h") else p.step if p.HasField("step") else ih / fh
    step_w = p.step_w if p.HasField("step_w") else p.step if p.HasField("step") else iw / fw
    ratios = [1.0]
    for r in p.aspect_ratio:
        if any(abs(r - e) < 1e-6 for e in ratios):
            continue
        ratios.append(r)
        if p.flip:
            ratios.append(1.0 / r)
    boxes = []
    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + p.offset) * step_w, (h + p.offset) * step_h
            sizes = []
            if len(p.width):
                sizes = list(zip(p.width, p.height))
            for s, m in enumerate(p.min_size):
                sizes.append((m, m))
                if len(p.max_size):
                    sizes.append((math.sqrt(m * p.max_size[s]),) * 2)
                for r in ratios:
                    if abs(r - 1) < 1e-6:
                        continue
                    sizes.append((m * math.sqrt(r), m / math.sqrt(r)))
            for bw, bh in sizes:
                boxes.append([(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw, (cy + bh / 2) / ih])
    boxes = np.array(boxes).ravel()
    if p.clip:
        boxes = np.clip(boxes, 0, 1)
    var = list(p.variance) or [0.1]
    variances = np.tile(var if len(var) == 4 else var * 4, len(boxes) // 4)
    return np.stack([boxes, variances])[None]


def run_numpy(net, inputs):
    """Caffe's forward pass of `net` (NetParameter plus blobs) in float64."""
    blobs = dict(inputs)
    params = net.blobs
    for l in net.msg.layer:
        t = l.type
        x = [blobs[b] for b in l.bottom]
        w = params.get(l.name, [])
        out = None
        if t == "Input" or t == "DetectionOutput":  # DetectionOutput: OpenCV's outputs only
            continue
        if t == "Convolution" or t == "Deconvolution":
            p = l.convolution_param
            k = list(p.kernel_size) * (2 // max(len(p.kernel_size), 1)) if len(p.kernel_size) else [p.kernel_h, p.kernel_w]
            s = ([p.stride_h, p.stride_w] if p.HasField("stride_h") else list(p.stride) * (2 // len(p.stride)) if len(p.stride) else [1, 1])
            pd = ([p.pad_h, p.pad_w] if p.HasField("pad_h") else list(p.pad) * (2 // len(p.pad)) if len(p.pad) else [0, 0])
            d = list(p.dilation) * (2 // len(p.dilation)) if len(p.dilation) else [1, 1]
            b = w[1] if p.bias_term else None
            if t == "Convolution":
                out = conv2d(x[0], w[0].reshape(p.num_output, -1, k[0], k[1]), b, s, pd, d, p.group)
            else:
                out = deconv2d(x[0], w[0].reshape(x[0].shape[1], -1, k[0], k[1]), b, s, pd, p.group)
        elif t == "Pooling":
            p = l.pooling_param
            if p.global_pooling:
                red = x[0].max(axis=(2, 3), keepdims=True) if p.pool == p.MAX else x[0].mean(axis=(2, 3), keepdims=True)
                out = red
            else:
                k = [p.kernel_h, p.kernel_w] if p.HasField("kernel_h") else [p.kernel_size] * 2
                s = [p.stride_h, p.stride_w] if p.HasField("stride_h") else [p.stride] * 2
                pd = [p.pad_h, p.pad_w] if p.HasField("pad_h") else [p.pad] * 2
                out, mask = pool2d(x[0], k, s, pd, "MAX" if p.pool == p.MAX else "AVE", p.round_mode == p.CEIL)
                if len(l.top) == 2:
                    out = [out, mask]
        elif t == "InnerProduct":
            p = l.inner_product_param
            axis = p.axis % x[0].ndim
            flat = x[0].reshape(x[0].shape[:axis] + (-1,))
            wm = w[0].reshape(-1, p.num_output) if p.transpose else w[0].reshape(p.num_output, -1).T
            out = flat @ wm + (w[1] if p.bias_term else 0)
        elif t == "ReLU":
            out = np.where(x[0] > 0, x[0], x[0] * l.relu_param.negative_slope)
        elif t == "PReLU":
            a = w[0].reshape(1, -1, *([1] * (x[0].ndim - 2))) if w[0].size > 1 else w[0].reshape(())
            out = np.where(x[0] > 0, x[0], x[0] * a)
        elif t == "ELU":
            out = np.where(x[0] > 0, x[0], l.elu_param.alpha * (np.exp(x[0]) - 1))
        elif t == "Sigmoid":
            out = 1 / (1 + np.exp(-x[0]))
        elif t == "TanH":
            out = np.tanh(x[0])
        elif t == "AbsVal":
            out = np.abs(x[0])
        elif t == "BNLL":
            out = np.log1p(np.exp(x[0]))
        elif t == "Power":
            p = l.power_param
            out = (p.shift + p.scale * x[0]) ** p.power
        elif t == "Exp":
            p = l.exp_param
            base = math.e if p.base == -1 else p.base
            out = base ** (p.shift + p.scale * x[0])
        elif t == "Log":
            p = l.log_param
            out = np.log(p.shift + p.scale * x[0]) / (1 if p.base == -1 else math.log(p.base))
        elif t in ("Dropout", "Split"):
            out = [x[0]] * len(l.top) if len(l.top) > 1 else x[0]
        elif t == "Softmax":
            a = l.softmax_param.axis
            e = np.exp(x[0] - x[0].max(axis=a, keepdims=True))
            out = e / e.sum(axis=a, keepdims=True)
        elif t == "LRN":
            p = l.lrn_param
            sq = x[0] ** 2
            half = (p.local_size - 1) // 2
            if p.norm_region == p.ACROSS_CHANNELS:
                padded = np.pad(sq, ((0, 0), (half, half), (0, 0), (0, 0)))
                s = sum(padded[:, i:i + x[0].shape[1]] for i in range(p.local_size))
                out = x[0] / (p.k + p.alpha / p.local_size * s) ** p.beta
            else:
                padded = np.pad(sq, ((0, 0), (0, 0), (half, half), (half, half)))
                s = sum(padded[:, :, i:i + x[0].shape[2], j:j + x[0].shape[3]]
                        for i in range(p.local_size) for j in range(p.local_size))
                out = x[0] / (1 + p.alpha / p.local_size ** 2 * s) ** p.beta
        elif t == "BatchNorm":
            f = 0 if w[2][0] == 0 else 1 / w[2][0]
            shape = (1, -1) + (1,) * (x[0].ndim - 2)
            out = (x[0] - (w[0] * f).reshape(shape)) / np.sqrt((w[1] * f).reshape(shape) + l.batch_norm_param.eps)
        elif t in ("Scale", "Bias"):
            p = l.scale_param if t == "Scale" else l.bias_param
            v = x[1] if len(x) > 1 else w[0]
            rest = x[0].ndim - (p.axis % x[0].ndim) - (v.ndim if len(x) > 1 else (x[0].ndim - p.axis if p.num_axes == -1 else p.num_axes))
            v = v.reshape(v.shape + (1,) * rest) if len(x) > 1 else v.reshape(
                x[0].shape[p.axis:p.axis + (p.num_axes if p.num_axes >= 0 else x[0].ndim)] + (1,) * rest)
            out = x[0] * v if t == "Scale" else x[0] + v
            if t == "Scale" and p.bias_term:
                out = out + w[1 if len(x) == 1 else 0].reshape(v.shape)
        elif t == "Eltwise":
            p = l.eltwise_param
            if p.operation == p.SUM:
                coeff = list(p.coeff) or [1.0] * len(x)
                out = sum(c * xi for c, xi in zip(coeff, x))
            elif p.operation == p.PROD:
                out = np.prod(x, axis=0)
            else:
                out = np.max(x, axis=0)
        elif t == "Concat":
            p = l.concat_param
            out = np.concatenate(x, axis=p.concat_dim if p.HasField("concat_dim") and not p.HasField("axis") else p.axis)
        elif t == "Slice":
            p = l.slice_param
            axis = p.slice_dim if p.HasField("slice_dim") and not p.HasField("axis") else p.axis
            out = np.split(x[0], list(p.slice_point) or len(l.top), axis=axis)
        elif t == "Flatten":
            p = l.flatten_param
            a, e = p.axis % x[0].ndim, p.end_axis % x[0].ndim
            out = x[0].reshape(x[0].shape[:a] + (-1,) + x[0].shape[e + 1:])
        elif t == "Reshape":
            p = l.reshape_param
            dims = [x[0].shape[p.axis + i] if d == 0 else d for i, d in enumerate(p.shape.dim)]
            start = p.axis if p.axis >= 0 else x[0].ndim + p.axis + 1
            end = x[0].ndim if p.num_axes == -1 else start + p.num_axes
            out = x[0].reshape(x[0].shape[:start] + tuple(dims) + x[0].shape[end:])
        elif t == "Permute":
            order = list(l.permute_param.order)
            order += [a for a in range(x[0].ndim) if a not in order]
            out = x[0].transpose(order)
        elif t == "Crop":
            p = l.crop_param
            a = p.axis % x[0].ndim
            offs = list(p.offset) or [0]
            offs = offs * (x[0].ndim - a) if len(offs) == 1 else offs
            sl = [slice(None)] * a + [slice(o, o + x[1].shape[a + i]) for i, o in enumerate(offs)]
            out = x[0][tuple(sl)]
        elif t == "ArgMax":
            p = l.argmax_param
            if p.HasField("axis"):
                idx = np.argsort(-x[0], axis=p.axis, kind="stable")
                idx = np.take(idx, range(p.top_k), axis=p.axis)
                out = np.take_along_axis(x[0], idx, axis=p.axis) if p.out_max_val else idx.astype(np.float64)
            else:
                flat = x[0].reshape(x[0].shape[0], -1)
                idx = np.argsort(-flat, axis=1, kind="stable")[:, :p.top_k]
                vals = np.take_along_axis(flat, idx, axis=1)
                out = np.stack([idx.astype(np.float64)] + ([vals] if p.out_max_val else []), axis=1)
        elif t == "Normalize":
            p = l.norm_param
            axes = tuple(range(1, x[0].ndim)) if p.across_spatial else (1,)
            norm = np.sqrt((x[0] ** 2).sum(axis=axes, keepdims=True) + p.eps)
            scale = w[0].reshape(()) if p.channel_shared else w[0].reshape(1, -1, *([1] * (x[0].ndim - 2)))
            out = x[0] / norm * scale
        elif t in ("PriorBox", "PriorBoxClustered"):
            p = l.prior_box_param
            ih = p.img_h if p.HasField("img_h") else p.img_size if p.HasField("img_size") else x[1].shape[2]
            iw = p.img_w if p.HasField("img_w") else p.img_size if p.HasField("img_size") else x[1].shape[3]
            out = prior_boxes(p, x[0].shape[2], x[0].shape[3], ih, iw)
        elif t == "Interp":
            p = l.interp_param
            h = x[0].shape[2] + p.pad_beg + p.pad_end
            wd = x[0].shape[3] + p.pad_beg + p.pad_end
            src = x[0][:, :, -p.pad_beg:x[0].shape[2] + p.pad_end, -p.pad_beg:x[0].shape[3] + p.pad_end]
            if p.HasField("zoom_factor") or p.HasField("shrink_factor"):
                oh, ow = (h - 1) // p.shrink_factor + 1, (wd - 1) // p.shrink_factor + 1
                oh, ow = oh + (oh - 1) * (p.zoom_factor - 1), ow + (ow - 1) * (p.zoom_factor - 1)
            elif p.HasField("height"):
                oh, ow = p.height, p.width
            else:
                oh, ow = x[1].shape[2], x[1].shape[3]
            out = interp_bilinear(src, oh, ow)
        elif t == "Upsample":
            p = l.upsample_param
            n, c, h, wd = x[0].shape
            if len(x) == 1:
                out = x[0].repeat(p.scale, axis=2).repeat(p.scale, axis=3)
            else:
                oh = p.upsample_h if p.HasField("upsample_h") else h * p.scale - int(p.pad_out_h)
                ow = p.upsample_w if p.HasField("upsample_w") else wd * p.scale - int(p.pad_out_w)
                out = np.zeros((n, c, oh * ow))
                idx = x[1].reshape(n, c, -1).astype(np.int64)
                np.put_along_axis(out, idx, x[0].reshape(n, c, -1), axis=2)
                out = out.reshape(n, c, oh, ow)
        elif t == "MVN":
            p = l.mvn_param
            axes = (1, 2, 3) if p.across_channels else (2, 3)
            out = x[0] - x[0].mean(axis=axes, keepdims=True)
            if p.normalize_variance:
                out = out / (np.sqrt((out ** 2).mean(axis=axes, keepdims=True)) + p.eps)
        elif t == "Threshold":
            out = (x[0] > l.threshold_param.threshold).astype(np.float64)
        else:
            raise NotImplementedError(t)
        outs = out if isinstance(out, list) else [out]
        for name, value in zip(l.top, outs):
            blobs[name] = np.asarray(value, np.float64)
    return blobs


def net_outputs(net):
    """mo's outputs: blobs nothing reads after their last write, in the order of that write."""
    available = []
    for l in net.msg.layer:
        for b in l.bottom:
            if b in available:
                available.remove(b)
        if l.type == "Input":
            continue
        for t in l.top:
            if t in available:
                available.remove(t)
            available.append(t)
    writers = {}
    for l in net.msg.layer:
        for j, t in enumerate(l.top):
            writers[t] = (l.name, j)
    return [(b, writers[b]) for b in available]


def run_opencv(directory, net, inputs):
    import cv2
    cv = cv2.dnn.readNetFromCaffe(os.path.join(directory, "deploy.prototxt"), os.path.join(directory, "model.caffemodel"))
    cv.enableFusion(False)
    for name, value in inputs.items():
        cv.setInput(value.astype(np.float32), name)
    outputs = []
    types = {l.name: l.type for l in net.msg.layer}
    for blob, (layer, j) in net_outputs(net):
        got = cv.forwardAndRetrieve([layer])[0]
        value = got[0] if types[layer] == "Split" else got[j]  # OpenCV's Split has one output
        if types[layer] == "DetectionOutput":
            # Caffe writes the kept detections by image, then label, each label's by score;
            # OpenCV 4.6 sorts them by score alone: back into Caffe's order (a stable sort).
            rows = value.reshape(-1, 7)
            order = sorted(range(len(rows)), key=lambda r: (rows[r][0], rows[r][1], -rows[r][2]))
            value = rows[order].reshape(value.shape)
        outputs.append(value)
    return outputs


def save(directory, net, inputs, reference="opencv", tolerance=1e-4):
    """Writes the net, its inputs and its reference outputs; checks numpy against OpenCV."""
    net.write(directory)
    names = list(net.shapes)
    for i, name in enumerate(names):
        np.save(os.path.join(directory, f"input_{i}.npy"), inputs[name].astype(np.float32))
    ours = run_numpy(net, inputs)
    mine = [ours.get(b) for b, _ in net_outputs(net)]
    if reference == "opencv":
        theirs = run_opencv(directory, net, inputs)
        for (blob, _), a, b in zip(net_outputs(net), theirs, mine):
            if b is None:
                continue
            scale = max(np.abs(a).max(), 1e-6)
            err = np.abs(a.reshape(b.shape) - b).max() / scale
            if not err <= tolerance:  # NaN disagrees too
                raise SystemExit(f"{directory}: numpy and OpenCV disagree on {blob}: {err}")
        outputs = theirs
        note = "outputs: OpenCV 4.6.0 cv2.dnn.readNetFromCaffe (enableFusion(False)); the numpy interpreter agrees"
    else:
        outputs = mine
        note = "outputs: the numpy interpreter of scripts/make_caffe_models.py (" + reference + ")"
    for j, value in enumerate(outputs):
        np.save(os.path.join(directory, f"output_{j}.npy"), np.asarray(value, np.float32))
    with open(os.path.join(directory, "reference.txt"), "w") as f:
        f.write(note + "\n" + "".join(f"output_{j}: {b}\n" for j, (b, _) in enumerate(net_outputs(net))))


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- The test nets ------------------------------------------------------------------------------

MODELS = {}


def model(fn):
    MODELS[fn.__name__] = fn
    return fn


def conv_raw(net, name, bottom, outputs, kh, kw, group_channels, bias=True, **p):
    p = dict(num_output=outputs, **p)
    if not bias:
        p["bias_term"] = False
    blobs = [net.weights(outputs, group_channels, kh, kw)] + ([net.weights(outputs, scale=0.1)] if bias else [])
    top = net.layer("Convolution", name, [bottom], blobs=blobs, convolution_param=p)
    net.channels[top] = outputs
    return top


@model
def conv(d):
    """Convolution in every parameter form: *_h / *_w, groups with dilation and no bias, a
    depthwise layer with per-axis lists, 1 x 1; ReLU in place."""
    net = Net("conv")
    x = net.input("data", [2, 4, 9, 10])
    a = conv_raw(net, "conv_hw", x, 6, 3, 5, 4, kernel_h=3, kernel_w=5, pad_h=1, pad_w=2, stride_h=2, stride_w=1)
    net.relu("relu_hw", a)
    b = conv_raw(net, "conv_group_dilated", a, 4, 3, 3, 3, bias=False, kernel_size=[3], group=2, dilation=[2], pad=[2])
    c = conv_raw(net, "conv_depthwise", b, 4, 3, 3, 1, kernel_size=[3, 3], group=4, stride=[1, 2], pad=[1, 1])
    conv_raw(net, "conv_1x1", c, 5, 1, 1, 4, kernel_size=[1])
    save(d, net, {"data": randn(net.rng, 2, 4, 9, 10)})


@model
def deconv(d):
    """Deconvolution with stride, pad and groups, and one without bias."""
    net = Net("deconv")
    x = net.input("data", [1, 4, 5, 6])
    a = net.layer("Deconvolution", "up", [x], blobs=[net.weights(4, 3, 4, 4), net.weights(6, scale=0.1)],
                  convolution_param=dict(num_output=6, kernel_size=[4], stride=[2], pad=[1], group=2))
    net.layer("Deconvolution", "up_nobias", [a], blobs=[net.weights(6, 3, 3, 3)],
              convolution_param=dict(num_output=3, kernel_size=[3], bias_term=False))
    save(d, net, {"data": randn(net.rng, 1, 4, 5, 6)})


@model
def pooling(d):
    """MAX / AVE with Caffe's CEIL rounding (a last window in the padding dropped on `small`),
    global pooling, and MAX with its mask top."""
    net = Net("pooling")
    x = net.input("data", [1, 3, 11, 10])
    s = net.input("small", [1, 3, 5, 7])
    net.layer("Pooling", "max_pad", [x], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=3, stride=2, pad=1))
    net.layer("Pooling", "ave_pad", [x], pooling_param=dict(pool=pb.PoolingParameter.AVE, kernel_size=3, stride=2, pad=1))
    net.layer("Pooling", "max_drop", [s], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2, pad=1))
    net.layer("Pooling", "ave_drop", [s], pooling_param=dict(pool=pb.PoolingParameter.AVE, kernel_size=2, stride=2, pad=1))
    net.layer("Pooling", "ave_hw", [x], pooling_param=dict(pool=pb.PoolingParameter.AVE, kernel_h=3, kernel_w=2, stride_h=2,
                                                             stride_w=3, pad_h=1, pad_w=0))
    net.layer("Pooling", "global_ave", [x], pooling_param=dict(pool=pb.PoolingParameter.AVE, global_pooling=True))
    net.layer("Pooling", "global_max", [s], pooling_param=dict(pool=pb.PoolingParameter.MAX, global_pooling=True))
    net.layer("Pooling", "max_mask", [x], ["max_mask", "mask"], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2))
    save(d, net, {"data": randn(net.rng, 1, 3, 11, 10), "small": randn(net.rng, 1, 3, 5, 7)})


@model
def inner_product(d):
    """InnerProduct on a 4-D blob (axis 1), along axis 2, without bias."""
    net = Net("inner_product")
    x = net.input("data", [2, 3, 4, 5])
    a = net.layer("InnerProduct", "fc", [x], blobs=[net.weights(7, 60), net.weights(7)], inner_product_param=dict(num_output=7))
    net.layer("InnerProduct", "fc_axis2", [x], blobs=[net.weights(6, 20), net.weights(6)], inner_product_param=dict(num_output=6, axis=2))
    net.layer("InnerProduct", "fc_nobias", [a], blobs=[net.weights(4, 7)], inner_product_param=dict(num_output=4, bias_term=False))
    save(d, net, {"data": randn(net.rng, 2, 3, 4, 5)})


@model
def inner_product_transpose(d):
    """InnerProduct with transposed weights [K, num_output] (Caffe: top = bottom x W), on axis 1 and 2."""
    net = Net("inner_product_transpose")
    x = net.input("data", [2, 3, 4, 5])
    net.layer("InnerProduct", "fc_t", [x], blobs=[net.weights(60, 7), net.weights(7)], inner_product_param=dict(num_output=7, transpose=True))
    net.layer("InnerProduct", "fc_t_axis2", [x], blobs=[net.weights(20, 6), net.weights(6)],
              inner_product_param=dict(num_output=6, axis=2, transpose=True))
    save(d, net, {"data": randn(net.rng, 2, 3, 4, 5)}, reference="OpenCV 4.6 reads transposed InnerProduct weights as not transposed")


@model
def activations(d):
    """Every activation on its own, and an in-place chain (Power, ReLU, Scale, TanH on one blob)."""
    net = Net("activations")
    x = net.input("data", [2, 3, 4, 5])
    net.layer("ReLU", "leaky", [x], relu_param=dict(negative_slope=0.1))
    net.layer("ReLU", "relu", [x])
    net.layer("PReLU", "prelu", [x], blobs=[net.rng.uniform(0.05, 0.5, 3)])
    net.layer("PReLU", "prelu_shared", [x], blobs=[[0.25]], prelu_param=dict(channel_shared=True))
    net.layer("ELU", "elu", [x], elu_param=dict(alpha=0.7))
    net.layer("Sigmoid", "sigmoid", [x])
    net.layer("TanH", "tanh", [x])
    net.layer("AbsVal", "abs", [x])
    net.layer("BNLL", "bnll", [x])
    net.layer("Power", "power", [x], power_param=dict(power=2.0, scale=0.5, shift=1.0))
    net.layer("Power", "sqrt", [x], power_param=dict(power=0.5, shift=6.0))
    net.layer("Exp", "exp", [x], exp_param=dict(base=2.0, scale=0.5, shift=0.25))
    net.layer("Exp", "exp_e", [x])
    c = net.layer("Power", "chain", [x], power_param=dict(scale=2.0))
    net.layer("ReLU", "chain_relu", [c], [c], relu_param=dict(negative_slope=0.2))
    net.layer("Scale", "chain_scale", [c], [c], blobs=[net.rng.uniform(0.5, 1.5, 3), net.weights(3)], scale_param=dict(bias_term=True))
    net.layer("TanH", "chain_tanh", [c], [c])
    save(d, net, {"data": randn(net.rng, 2, 3, 4, 5)})


@model
def log(d):
    """Log with base, scale and shift: log_base(shift + scale x)."""
    net = Net("log")
    x = net.input("data", [2, 3, 4, 5])
    net.layer("Log", "log", [x], log_param=dict(base=10.0, scale=0.5, shift=4.0))
    net.layer("Log", "log_e", [x], log_param=dict(shift=5.0))
    net.layer("Log", "log_plain", [net.layer("AbsVal", "abs", [x])])
    save(d, net, {"data": randn(net.rng, 2, 3, 4, 5)}, reference="OpenCV 4.6's Log ignores base, scale and shift")


@model
def normalization(d):
    """Softmax on two axes, LRN across and within channels, BatchNorm (scale factor 2.5) with
    Scale in place, Scale by a second bottom (axis 0), MVN."""
    net = Net("normalization")
    x = net.input("data", [2, 3, 6, 7])
    net.layer("Softmax", "softmax", [x])
    net.layer("Softmax", "softmax_axis2", [x], softmax_param=dict(axis=2))
    net.layer("LRN", "lrn", [x], lrn_param=dict(local_size=3, alpha=0.5, beta=0.75))
    net.layer("LRN", "lrn_within", [x], lrn_param=dict(local_size=3, alpha=0.5, beta=0.75, norm_region=pb.LRNParameter.WITHIN_CHANNEL))
    bn = net.layer("BatchNorm", "bn", [x], blobs=[net.weights(3) * 2.5, net.rng.uniform(0.5, 2, 3) * 2.5, [2.5]],
                   batch_norm_param=dict(eps=1e-3))
    net.layer("Scale", "bn_scale", [bn], [bn], blobs=[net.rng.uniform(0.5, 1.5, 3), net.weights(3)], scale_param=dict(bias_term=True))
    g = net.layer("Pooling", "gap", [x], pooling_param=dict(pool=pb.PoolingParameter.AVE, global_pooling=True))
    f = net.layer("Flatten", "gap_flat", [g])
    net.layer("Scale", "scale_by_bottom", [x, f], scale_param=dict(axis=0))
    net.layer("MVN", "mvn", [x])
    net.layer("MVN", "mvn_across", [x], mvn_param=dict(across_channels=True, normalize_variance=False))
    save(d, net, {"data": randn(net.rng, 2, 3, 6, 7)})


@model
def bias(d):
    """Bias by a blob (axis 1) and by a second bottom (axis 0, two axes), in place after a Scale."""
    net = Net("bias")
    x = net.input("data", [2, 3, 4, 5])
    y = net.input("offsets", [2, 3])
    net.layer("Bias", "bias", [x], blobs=[net.weights(3)])
    s = net.layer("Scale", "scaled", [x], blobs=[net.rng.uniform(0.5, 1.5, (3, 4))], scale_param=dict(num_axes=2))
    net.layer("Bias", "scaled_bias", [s, y], [s], bias_param=dict(axis=0))
    save(d, net, {"data": randn(net.rng, 2, 3, 4, 5), "offsets": randn(net.rng, 2, 3)},
         reference="OpenCV 4.6 has no Bias layer")


@model
def lrn_k(d):
    """LRN across channels with k = 2 (Caffe adds k before the power)."""
    net = Net("lrn_k")
    x = net.input("data", [2, 5, 3, 4])
    net.layer("LRN", "lrn", [x], lrn_param=dict(local_size=5, alpha=0.5, beta=0.75, k=2.0))
    save(d, net, {"data": randn(net.rng, 2, 5, 3, 4)}, reference="OpenCV 4.6 ignores LRN's k")


@model
def eltwise(d):
    """Eltwise SUM with coefficients over three bottoms, PROD, MAX."""
    net = Net("eltwise")
    a, b, c = (net.input(n, [2, 3, 4, 4]) for n in ("a", "b", "c"))
    net.layer("Eltwise", "sum", [a, b, c], eltwise_param=dict(coeff=[0.5, -2.0, 1.0]))
    net.layer("Eltwise", "prod", [a, b], eltwise_param=dict(operation=pb.EltwiseParameter.PROD))
    net.layer("Eltwise", "max", [a, b, c], eltwise_param=dict(operation=pb.EltwiseParameter.MAX))
    save(d, net, {n: randn(net.rng, 2, 3, 4, 4) for n in ("a", "b", "c")})


@model
def shapes(d):
    """Concat, Slice (points, equal parts), Split, Flatten (axis / end_axis), Reshape (0, -1,
    axis / num_axes), Permute (full and partial order), Crop (offsets per axis, one offset),
    Dropout."""
    net = Net("shapes")
    x = net.input("data", [2, 5, 4, 6])
    r = net.input("ref", [2, 5, 2, 3])
    net.layer("Concat", "concat", [x, x])
    net.layer("Concat", "concat_axis2", [x, x], concat_param=dict(axis=2))
    net.layer("Slice", "slice", [x], ["part1", "part2", "part3"], slice_param=dict(axis=1, slice_point=[1, 3]))
    net.layer("Slice", "halves", [x], ["half1", "half2"], slice_param=dict(axis=3, slice_point=[3]))
    net.layer("Split", "split", [x], ["copy1", "copy2"])
    net.layer("Flatten", "flatten", [x])
    net.layer("Flatten", "flatten_mid", [x], flatten_param=dict(axis=1, end_axis=2))
    net.layer("Reshape", "reshape", [x], reshape_param=dict(shape=dict(dim=[0, -1, 2])))
    net.layer("Reshape", "reshape_range", [x], reshape_param=dict(shape=dict(dim=[2, 2]), axis=2, num_axes=1))
    net.layer("Permute", "permute", [x], permute_param=dict(order=[0, 2, 3, 1]))
    net.layer("Crop", "crop", [x, r], crop_param=dict(axis=2, offset=[1, 2]))
    net.layer("Crop", "crop_one", [x, r], crop_param=dict(axis=2, offset=[1]))
    net.layer("Dropout", "dropout", [x], dropout_param=dict(dropout_ratio=0.3))
    save(d, net, {"data": randn(net.rng, 2, 5, 4, 6), "ref": randn(net.rng, 2, 5, 2, 3)})


@model
def slice_equal(d):
    """Slice into equal parts (no slice_point): as many as the layer has tops; Permute with a
    partial order (Caffe appends the missing axes in increasing order)."""
    net = Net("slice_equal")
    x = net.input("data", [2, 6, 3, 4])
    net.layer("Slice", "thirds", [x], ["third1", "third2", "third3"], slice_param=dict(axis=1))
    net.layer("Slice", "halves", [x], ["half1", "half2"], slice_param=dict(slice_dim=3))
    net.layer("Permute", "permute_partial", [x], permute_param=dict(order=[0, 3]))
    save(d, net, {"data": randn(net.rng, 2, 6, 3, 4)},
         reference="OpenCV 4.6 makes no part of a Slice without slice points and does not complete a partial Permute order")


@model
def argmax(d):
    """ArgMax along an axis (top 2) and over each image's values (top 3 with their values)."""
    net = Net("argmax")
    x = net.input("data", [2, 5, 3, 4])
    net.layer("ArgMax", "argmax_axis", [x], argmax_param=dict(axis=1, top_k=2))
    net.layer("ArgMax", "argmax_values", [x], argmax_param=dict(top_k=3, out_max_val=True))
    save(d, net, {"data": randn(net.rng, 2, 5, 3, 4)}, reference="OpenCV 4.6 has no ArgMax layer")


def ssd_head(net, sources, image, num_classes, priors, name="mbox", threshold=0.2, keep_top_k=20):
    """SSD's head as weiliu89's CreateMultiBoxHead writes it: per source a 3 x 3 loc and conf
    convolution, Permute [0, 2, 3, 1], Flatten, a PriorBox; Concat; conf Reshape [0, -1, classes],
    Softmax on axis 2, Flatten; DetectionOutput."""
    locs, confs, boxes = [], [], []
    for i, (src, p) in enumerate(zip(sources, priors)):
        n = (len(p.get("min_size", [])) + len(p.get("max_size", [])) +
             len(p.get("min_size", [])) * len(p.get("aspect_ratio", [])) * (2 if p.get("flip", True) else 1))
        loc = net.conv(f"{src}_mbox_loc", src, n * 4, 3, pad=1)
        loc = net.layer("Permute", f"{src}_mbox_loc_perm", [loc], permute_param=dict(order=[0, 2, 3, 1]))
        locs.append(net.layer("Flatten", f"{src}_mbox_loc_flat", [loc]))
        conf = net.conv(f"{src}_mbox_conf", src, n * num_classes, 3, pad=1, weight_scale=0.2)
        conf = net.layer("Permute", f"{src}_mbox_conf_perm", [conf], permute_param=dict(order=[0, 2, 3, 1]))
        confs.append(net.layer("Flatten", f"{src}_mbox_conf_flat", [conf]))
        boxes.append(net.layer("PriorBox", f"{src}_mbox_priorbox", [src, image], prior_box_param=p))
    loc = net.layer("Concat", f"{name}_loc", locs)
    conf = net.layer("Concat", f"{name}_conf", confs)
    prior = net.layer("Concat", f"{name}_priorbox", boxes, concat_param=dict(axis=2))
    conf = net.layer("Reshape", f"{name}_conf_reshape", [conf], reshape_param=dict(shape=dict(dim=[0, -1, num_classes])))
    conf = net.layer("Softmax", f"{name}_conf_softmax", [conf], softmax_param=dict(axis=2))
    conf = net.layer("Flatten", f"{name}_conf_flatten", [conf])
    return net.layer("DetectionOutput", "detection_out", [loc, conf, prior], detection_output_param=dict(
        num_classes=num_classes, share_location=True, background_label_id=0,
        nms_param=dict(nms_threshold=0.45, top_k=100), code_type=pb.PriorBoxParameter.CENTER_SIZE, keep_top_k=keep_top_k,
        confidence_threshold=threshold))


@model
def ssd_vgg(d):
    """An SSD-VGG300-like net at 64 x 64: VGG blocks, conv4_3's Normalize (per-channel scale 20),
    two sources with steps, max sizes, aspect ratios 2 and 3 (flipped), clip off."""
    net = Net("ssd_vgg", seed=3)
    x = net.input("data", [1, 3, 64, 64])
    a = net.relu("relu1_1", net.conv("conv1_1", x, 8, 3, pad=1))
    a = net.layer("Pooling", "pool1", [a], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2))
    net.channels[a] = 8
    a = net.relu("relu4_3", net.conv("conv4_3", a, 16, 3, pad=1))
    n = net.layer("Normalize", "conv4_3_norm", [a], blobs=[np.full(16, 20.0)],
                  norm_param=dict(across_spatial=False, channel_shared=False, scale_filler=dict(type="constant", value=20)))
    net.channels[n] = 16
    b = net.layer("Pooling", "pool4", [a], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2))
    net.channels[b] = 16
    b = net.relu("relu7", net.conv("fc7", b, 16, 3, pad=6, dilation=[6]))
    priors = [dict(min_size=[8.0], max_size=[20.0], aspect_ratio=[2.0], flip=True, clip=False,
                   variance=[0.1, 0.1, 0.2, 0.2], step=2.0, offset=0.5),
              dict(min_size=[20.0], max_size=[40.0], aspect_ratio=[2.0, 3.0], flip=True, clip=False,
                   variance=[0.1, 0.1, 0.2, 0.2], step=4.0, offset=0.5)]
    ssd_head(net, [n, b], x, 4, priors)
    save(d, net, {"data": net.rng.uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)})


def dw_block(net, name, x, outputs, stride):
    """MobileNet-SSD's depthwise-separable block: conv (group = channels) + BatchNorm + Scale +
    ReLU, then 1 x 1 conv + BatchNorm + Scale + ReLU, all in place after each convolution."""
    c = net.channels[x]
    for suffix, out, k, s, g in ((f"{name}/dw", c, 3, stride, c), (name, outputs, 1, 1, 1)):
        y = net.conv(suffix, x, out, k, stride=s, pad=(k - 1) // 2, group=g, bias=False)
        net.layer("BatchNorm", f"{suffix}/bn", [y], [y], blobs=[net.weights(out, scale=0.1), net.rng.uniform(0.5, 1.5, out), [1.0]])
        net.layer("Scale", f"{suffix}/scale", [y], [y], blobs=[net.rng.uniform(0.5, 1.5, out), net.weights(out, scale=0.1)],
                  scale_param=dict(bias_term=True))
        net.relu(f"{suffix}/relu", y)
        x = y
    return x


@model
def mobilenet_ssd(d):
    """A MobileNet-SSD-like net at 64 x 64 (chuanqi305's form): depthwise blocks with BatchNorm and
    Scale in place, PriorBox without step (from the sizes), clip off, DetectionOutput."""
    net = Net("mobilenet_ssd", seed=5)
    x = net.input("data", [1, 3, 64, 64])
    a = net.conv("conv0", x, 8, 3, stride=2, pad=1, bias=False)
    net.layer("BatchNorm", "conv0/bn", [a], [a], blobs=[net.weights(8, scale=0.1), net.rng.uniform(0.5, 1.5, 8), [1.0]])
    net.layer("Scale", "conv0/scale", [a], [a], blobs=[net.rng.uniform(0.5, 1.5, 8), net.weights(8, scale=0.1)],
              scale_param=dict(bias_term=True))
    net.relu("conv0/relu", a)
    a = dw_block(net, "conv1", a, 16, 2)
    b = dw_block(net, "conv2", a, 16, 2)
    priors = [dict(min_size=[12.0], aspect_ratio=[2.0], flip=True, clip=False, variance=[0.1, 0.1, 0.2, 0.2], offset=0.5),
              dict(min_size=[24.0], max_size=[48.0], aspect_ratio=[2.0, 3.0], flip=True, clip=False,
                   variance=[0.1, 0.1, 0.2, 0.2], offset=0.5)]
    ssd_head(net, [a, b], x, 5, priors)
    save(d, net, {"data": net.rng.uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)})


@model
def prior_box(d):
    """PriorBox with clipping, img_size, several min / max sizes, variance of one value; and
    PriorBox with explicit box widths and heights (clustered)."""
    net = Net("prior_box")
    f = net.input("feature", [1, 2, 3, 4])
    x = net.input("data", [1, 3, 24, 32])
    net.layer("PriorBox", "clipped", [f, x], prior_box_param=dict(min_size=[10.0, 20.0], max_size=[15.0, 30.0],
                                                                  aspect_ratio=[2.0], flip=True, clip=True, variance=[0.2]))
    net.layer("PriorBox", "clustered", [f, x], prior_box_param=dict(width=[4.0, 10.0], height=[8.0, 5.0], clip=True,
                                                                    variance=[0.1, 0.1, 0.2, 0.2]))
    save(d, net, {"feature": randn(net.rng, 1, 2, 3, 4), "data": randn(net.rng, 1, 3, 24, 32)})


@model
def prior_box_sizes(d):
    """PriorBox with img_size, a step and offset 0.25, one aspect ratio unflipped; img_h / img_w
    with step_h = step_w; the PriorBoxClustered layer type."""
    net = Net("prior_box_sizes")
    f = net.input("feature", [1, 2, 3, 4])
    x = net.input("data", [1, 3, 24, 32])
    net.layer("PriorBox", "img_size", [f, x], prior_box_param=dict(min_size=[6.0], aspect_ratio=[3.0], flip=False, clip=False,
                                                                   img_size=40, step=10.0, offset=0.25, variance=[0.1]))
    net.layer("PriorBox", "img_hw", [f, x], prior_box_param=dict(min_size=[5.0], max_size=[9.0], img_h=30, img_w=36,
                                                                 step_h=8.0, step_w=8.0, clip=True))
    net.layer("PriorBoxClustered", "clustered", [f, x], prior_box_param=dict(width=[6.0], height=[3.0], offset=0.5,
                                                                             variance=[0.1, 0.1, 0.2, 0.2]))
    save(d, net, {"feature": randn(net.rng, 1, 2, 3, 4), "data": randn(net.rng, 1, 3, 24, 32)},
         reference="OpenCV 4.6 ignores img_size / img_h / img_w and has no PriorBoxClustered layer type")


def inception(net, name, x, c1, c3r, c3, c5r, c5, proj):
    """GoogLeNet's inception module (BVLC models/bvlc_googlenet/deploy.prototxt)."""
    a = net.relu(f"{name}/relu_1x1", net.conv(f"{name}/1x1", x, c1, 1))
    b = net.relu(f"{name}/relu_3x3_reduce", net.conv(f"{name}/3x3_reduce", x, c3r, 1))
    b = net.relu(f"{name}/relu_3x3", net.conv(f"{name}/3x3", b, c3, 3, pad=1))
    c = net.relu(f"{name}/relu_5x5_reduce", net.conv(f"{name}/5x5_reduce", x, c5r, 1))
    c = net.relu(f"{name}/relu_5x5", net.conv(f"{name}/5x5", c, c5, 5, pad=2))
    p = net.layer("Pooling", f"{name}/pool", [x], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=3, stride=1, pad=1))
    net.channels[p] = net.channels[x]
    p = net.relu(f"{name}/relu_pool_proj", net.conv(f"{name}/pool_proj", p, proj, 1))
    out = net.layer("Concat", f"{name}/output", [a, b, c, p])
    net.channels[out] = c1 + c3 + c5 + proj
    return out


def googlenet(net, x, widths, blocks, classes):
    a = net.relu("conv1/relu_7x7", net.conv("conv1/7x7_s2", x, widths[0], 7, stride=2, pad=3))
    a = net.layer("Pooling", "pool1/3x3_s2", [a], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=3, stride=2))
    a = net.layer("LRN", "pool1/norm1", [a], lrn_param=dict(local_size=5, alpha=0.0001, beta=0.75))
    net.channels[a] = widths[0]
    a = net.relu("conv2/relu_3x3_reduce", net.conv("conv2/3x3_reduce", a, widths[0], 1))
    a = net.relu("conv2/relu_3x3", net.conv("conv2/3x3", a, widths[1], 3, pad=1))
    a = net.layer("LRN", "conv2/norm2", [a], lrn_param=dict(local_size=5, alpha=0.0001, beta=0.75))
    a = net.layer("Pooling", "pool2/3x3_s2", [a], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=3, stride=2))
    net.channels[a] = widths[1]
    for name, cfg in blocks:
        if name == "pool":
            c = net.channels[a]
            a = net.layer("Pooling", cfg, [a], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=3, stride=2))
            net.channels[a] = c
        else:
            a = inception(net, name, a, *cfg)
    c = net.channels[a]
    size = net.out_size
    a = net.layer("Pooling", "pool5/7x7_s1", [a], pooling_param=dict(pool=pb.PoolingParameter.AVE, kernel_size=size, stride=1))
    a = net.layer("Dropout", "pool5/drop_7x7_s1", [a], [a], dropout_param=dict(dropout_ratio=0.4))
    a = net.layer("InnerProduct", "loss3/classifier", [a], blobs=[net.weights(classes, c), net.weights(classes)],
                  inner_product_param=dict(num_output=classes))
    return net.layer("Softmax", "prob", [a])


@model
def inception_block(d):
    """A GoogLeNet-like net at 64 x 64: the stem (7 x 7 / 2, CEIL pooling, LRN), two inception
    modules with a pooling between, average pooling, Dropout in place, InnerProduct, Softmax."""
    net = Net("inception_block", seed=7)
    x = net.input("data", [1, 3, 64, 64], form="input_dim")
    net.out_size = 4
    googlenet(net, x, (8, 16), [("inception_3a", (4, 4, 8, 2, 4, 4)), ("pool", "pool3/3x3_s2"),
                                 ("inception_4a", (8, 4, 8, 2, 4, 4))], 10)
    save(d, net, {"data": randn(net.rng, 1, 3, 64, 64)})


@model
def openpose_like(d):
    """An OpenPose-like net: VGG features, two stages of two branches (PAFs, heatmaps) whose
    outputs are concatenated with the features, then DeepLab's Interp (zoom 4, shrink 2, a
    size, pad_beg / pad_end cropping, a second bottom's size) to resize the maps."""
    net = Net("openpose_like", seed=11)
    x = net.input("image", [1, 3, 16, 20])
    f = net.relu("relu1", net.conv("conv1", x, 8, 3, pad=1))
    f = net.layer("Pooling", "pool1", [f], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2))
    net.channels[f] = 8
    f = net.relu("relu2", net.conv("conv2", f, 8, 3, pad=1))
    prev = f
    for stage in (1, 2):
        l1 = net.conv(f"Mconv1_stage{stage}_L1", prev, 4, 3, pad=1)
        l2 = net.conv(f"Mconv1_stage{stage}_L2", prev, 3, 3, pad=1)
        if stage == 1:
            prev = net.layer("Concat", "concat_stage2", [l1, l2, f])
            net.channels[prev] = 15
    net.layer("Concat", "net_output", [l1, l2])
    net.layer("Interp", "resize_zoom", [l2], interp_param=dict(zoom_factor=4))
    net.layer("Interp", "resize_shrink", [l1], interp_param=dict(shrink_factor=2, zoom_factor=3))
    net.layer("Interp", "resize_size", [l2], interp_param=dict(height=11, width=7, pad_beg=-1, pad_end=-1))
    net.layer("Interp", "resize_like", [l1, x])
    save(d, net, {"image": randn(net.rng, 1, 3, 16, 20)}, reference="OpenCV 4.6 cannot read interp_param")


@model
def segnet_like(d):
    """A SegNet-like encoder-decoder: Pooling with its argmax mask, SegNet's Upsample by the mask
    (scale, and upsample_h / upsample_w for an odd size), and a YOLO-port Upsample of one bottom."""
    net = Net("segnet_like", seed=13)
    x = net.input("data", [1, 3, 10, 9])
    a = net.relu("conv1_relu", net.conv("conv1", x, 4, 3, pad=1))
    p, m = net.layer("Pooling", "pool1", [a], ["pool1", "pool1_mask"], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2))
    net.channels[p] = 4
    b = net.relu("conv2_relu", net.conv("conv2", p, 4, 3, pad=1))
    p2, m2 = net.layer("Pooling", "pool2", [b], ["pool2", "pool2_mask"], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=2, stride=2))
    u2 = net.layer("Upsample", "upsample2", [p2, m2], upsample_param=dict(scale=2, pad_out_h=True, pad_out_w=True))
    net.channels[u2] = 4
    c = net.conv("conv_decode2", u2, 4, 3, pad=1)
    u1 = net.layer("Upsample", "upsample1", [c, m], upsample_param=dict(upsample_h=10, upsample_w=9))
    net.channels[u1] = 4
    net.conv("conv_decode1", u1, 2, 3, pad=1)
    net.layer("Upsample", "nearest", [c], upsample_param=dict(scale=3))
    save(d, net, {"data": randn(net.rng, 1, 3, 10, 9)}, reference="OpenCV 4.6 has no Upsample layer")


@model
def v1_layers(d):
    """The V1 `layers` form of an AlexNet-like net (input_dim, CONVOLUTION with groups, RELU in
    place, LRN, POOLING, INNER_PRODUCT with legacy 4-D blobs, DROPOUT, SOFTMAX)."""
    net = Net("v1_layers", seed=17)
    net.v1 = True
    x = net.input("data", [1, 3, 20, 20], form="input_dim")
    a = net.relu("relu1", net.conv("conv1", x, 8, 5, stride=2))
    a = net.layer("LRN", "norm1", [a], lrn_param=dict(local_size=5, alpha=0.0001, beta=0.75))
    a = net.layer("Pooling", "pool1", [a], pooling_param=dict(pool=pb.PoolingParameter.MAX, kernel_size=3, stride=2))
    net.channels[a] = 8
    a = net.relu("relu2", net.conv("conv2", a, 8, 3, pad=1, group=2))
    a = net.layer("InnerProduct", "fc6", [a], blobs=[net.weights(10, 8 * 4 * 4), net.weights(10)], inner_product_param=dict(num_output=10))
    a = net.relu("relu6", a)
    a = net.layer("Dropout", "drop6", [a], [a], dropout_param=dict(dropout_ratio=0.5))
    a = net.layer("InnerProduct", "fc7", [a], blobs=[net.weights(5, 10), net.weights(5)], inner_product_param=dict(num_output=5))
    net.layer("Softmax", "prob", [a])
    save(d, net, {"data": randn(net.rng, 1, 3, 20, 20)})


@model
def inputs(d):
    """Inputs as an Input layer with two tops (one shape each) plus a net-level input_shape, and
    a layer left out of the TEST phase (include { phase: TRAIN })."""
    net = Net("inputs")
    net.layer("Input", "input", [], ["a", "b"], input_param=dict(shape=[dict(dim=[1, 2, 3, 4]), dict(dim=[1, 2, 3, 4])]))
    net.shapes["a"] = [1, 2, 3, 4]
    net.shapes["b"] = [1, 2, 3, 4]
    net.layer("Eltwise", "sum", ["a", "b"])
    l = net.msg.layer.add(name="train_only", type="Dropout", bottom=["sum"], top=["sum"])
    l.include.add(phase=pb.TRAIN)
    save(d, net, {"a": randn(net.rng, 1, 2, 3, 4), "b": randn(net.rng, 1, 2, 3, 4)})


# ---- Full-size architectures (--full DIR; not committed) ------------------------------------------

def full_googlenet(d):
    """GoogLeNet as BVLC's models/bvlc_googlenet/deploy.prototxt: 224 x 224, nine inception
    modules with its widths, 1000 classes (random weights)."""
    net = Net("bvlc_googlenet", seed=23)
    x = net.input("data", [1, 3, 224, 224], form="input_dim")
    net.out_size = 7
    blocks = [("inception_3a", (64, 96, 128, 16, 32, 32)), ("inception_3b", (128, 128, 192, 32, 96, 64)),
              ("pool", "pool3/3x3_s2"),
              ("inception_4a", (192, 96, 208, 16, 48, 64)), ("inception_4b", (160, 112, 224, 24, 64, 64)),
              ("inception_4c", (128, 128, 256, 24, 64, 64)), ("inception_4d", (112, 144, 288, 32, 64, 64)),
              ("inception_4e", (256, 160, 320, 32, 128, 128)), ("pool", "pool4/3x3_s2"),
              ("inception_5a", (256, 160, 320, 32, 128, 128)), ("inception_5b", (384, 192, 384, 48, 128, 128))]
    googlenet(net, x, (64, 192), blocks, 1000)
    save(d, net, {"data": net.rng.uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)})


def full_mobilenet_ssd(d):
    """MobileNet-SSD 300 x 300 as chuanqi305's MobileNetSSD (train/test form: BatchNorm and Scale
    after each convolution): 13 depthwise blocks, four extra layers, six PriorBox sources, 21 classes."""
    net = Net("mobilenet_ssd_300", seed=29)
    x = net.input("data", [1, 3, 300, 300])
    a = net.conv("conv0", x, 32, 3, stride=2, pad=1, bias=False)
    net.layer("BatchNorm", "conv0/bn", [a], [a], blobs=[net.weights(32, scale=0.1), net.rng.uniform(0.5, 1.5, 32), [1.0]])
    net.layer("Scale", "conv0/scale", [a], [a], blobs=[net.rng.uniform(0.5, 1.5, 32), net.weights(32, scale=0.1)],
              scale_param=dict(bias_term=True))
    net.relu("conv0/relu", a)
    sources = {}
    for i, (out, stride) in enumerate([(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
                                       (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)], start=1):
        a = dw_block(net, f"conv{i}", a, out, stride)
        sources[i] = a
    srcs = [sources[11], sources[13]]
    for i, (mid, out) in zip(range(14, 18), [(256, 512), (128, 256), (128, 256), (64, 128)]):
        b = net.relu(f"conv{i}_1/relu", net.conv(f"conv{i}_1", a, mid, 1))
        a = net.relu(f"conv{i}_2/relu", net.conv(f"conv{i}_2", b, out, 3, stride=2, pad=1))
        srcs.append(a)
    sizes = [(60.0, None), (105.0, 150.0), (150.0, 195.0), (195.0, 240.0), (240.0, 285.0), (285.0, 300.0)]
    priors = []
    for k, (mn, mx) in enumerate(sizes):
        p = dict(min_size=[mn], aspect_ratio=[2.0] if k == 0 else [2.0, 3.0], flip=True, clip=False,
                 variance=[0.1, 0.1, 0.2, 0.2], offset=0.5)
        if mx:
            p["max_size"] = [mx]
        priors.append(p)
    ssd_head(net, srcs, x, 21, priors, threshold=0.06, keep_top_k=100)
    save(d, net, {"data": net.rng.uniform(-1, 1, (1, 3, 300, 300)).astype(np.float32)})


FULL = {"bvlc_googlenet": full_googlenet, "mobilenet_ssd_300": full_mobilenet_ssd}


def main():
    only = None
    args = sys.argv[1:]
    if "--only" in args:
        only = args[args.index("--only") + 1].split(",")
    if "--full" in args:
        out = args[args.index("--full") + 1]
        for name, fn in FULL.items():
            if not only or name in only:
                fn(os.path.join(out, name))
                print("wrote", name)
        return
    for name, fn in MODELS.items():
        if only and name not in only:
            continue
        fn(os.path.join(OUT, name))
        print("wrote", name)


if __name__ == "__main__":
    main()
