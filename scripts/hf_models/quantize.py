"""The quantized and half-precision copies transformers.js ships next to model.onnx, written the
way its scripts/quantize.py (transformers.js 3.8.1; 2.17.2's convert.py `quantize` for the
merged decoders) makes them with ONNX Runtime's quantization tools (onnxruntime 1.20.1,
onnxruntime/python/tools/quantization). Each pass is this project's own code reproducing the
tools' output form: node and tensor names, initializer shapes and types, which ops are changed.

* `quantize_q8` -> model_quantized.onnx: ONNXQuantizer (onnx_quantizer.py) in
  QuantizationMode.IntegerOps, static=False, activations QUInt8, weights QInt8 (no Conv in these
  models), op types IntegerOpsRegistry (registry.py: Conv, MatMul, Attention, LSTM, Gather,
  Transpose, EmbedLayerNormalization), extra_options EnableSubgraph=True, MatMulConstBOnly=True;
  per_channel / reduce_range False for the decoder families and Whisper (NO_PER_CHANNEL_REDUCE_
  RANGE_MODELS in convert.py), True for BERT.
  - MatMul with an initializer B (operators/matmul.py MatMulInteger.quantize): A through one
    DynamicQuantizeLinear "<A>_QuantizeLinear" (outputs <A>_quantized, <A>_scale, <A>_zero_point;
    shared by every MatMul reading A), B quantized once as <B>_quantized with <B>_scale (f32) and
    <B>_zero_point (i8), per tensor ([]) or per output column ([N], channel axis -1), symmetric
    (quant_utils.py compute_scale_zp: zero point (qmin + qmax) / 2 = 0, scale = 2 max|B| /
    (qmax - qmin) over [-127, 127], or [-64, 64] with reduce_range, computed in f64 and stored f32;
    quantize_nparray: round half to even of B / scale in f32, clipped to [-128, 127]); then
    MatMulInteger "<node>_quant" -> Cast "<out>_output_quantized_cast" to f32 -> Mul by
    "<node>_quant_scales_mul" (= A scale x B scale) named "<node>_quant_output_scale_mul".
  - Gather of an initializer (operators/gather.py GatherQuant): the table quantized as an
    activation (uint8; symmetric because the weights are QInt8: range [0, 254], zero point 127),
    the Gather reads <table>_quantized and writes <out>_quantized; every reader of <out> gets
    DequantizeLinear "<out>_DequantizeLinear" (QuantOperatorBase.quantize / _dequantize_value).
  - Inside If branches (EnableSubgraph) the activations' DynamicQuantizeLinear nodes stay in the
    branch and the outer-scope weights are quantized once in the outer graph (the parent
    quantizer's __quantize_inputs with from_subgraph=True).
* `quantize_q4` -> model_q4.onnx: MatMul4BitsQuantizer (matmul_4bits_quantizer.py,
  DefaultWeightOnlyQuantizer.quantize_matmul) with block_size 32, is_symmetric True,
  accuracy_level None: each MatMul with a 2-D initializer B becomes com.microsoft MatMulNBits
  "<node>_Q4" (K, N, bits 4, block_size) reading <B>_Q4 (uint8 [N, K/32, 16]) and <B>_scales
  (f32 [N * K/32]), no zero points. The blocks are MLAS's (onnxruntime/core/mlas/lib/q4_dq.cpp
  BlockwiseQuantizer::quantizeAndTranspose, range2scale): scale = (the block's value of largest
  magnitude, signed) / -8, q = clamp(roundf(v * (1 / scale) + 8), 0, 15) in f32, two values a byte,
  low nibble first.
* `to_fp16` -> model_fp16.onnx: transformers.js scripts/float16.py convert_float_to_float16 with
  keep_io_types=True and DEFAULT_OP_BLOCK_LIST (which holds Cast, Min, Max, CumSum, ...): after
  ONNX shape inference every f32 initializer, Constant tensor and value becomes f16 (values
  clamped to [1e-7, 1e4] in magnitude, 0 and infinities kept), f32 graph inputs are cast to f16
  ("<in>_fp16") and f32 outputs cast back ("<out>_fp16" -> Cast "<out>_fp16_input_cast<i>"), a
  blocked op gets Casts to f32 before its f16 inputs ("<node>_input_cast<i>") and back to f16
  after its f32 outputs ("<node>_output_cast<i>"), and the nodes are sorted topologically
  (its remove_unnecessary_cast_node compares a TypeProto with an int and so removes nothing).
"""
import copy

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16, I8, U8 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT8, TensorProto.UINT8


# ------------------------------------------------------------------------------- q8 (dynamic)
def _scale_zp_symmetric(data, qmin, qmax):
    rmin = np.minimum(data.min(), np.float32(0))
    rmax = np.maximum(data.max(), np.float32(0))
    absmax = np.maximum(np.abs(rmin), np.abs(rmax))
    dr = np.array(absmax - (-absmax), dtype=np.float64)
    scale = np.array(dr / (np.float64(qmax) - np.float64(qmin)))
    if scale < np.finfo(np.float32).tiny:
        return np.float32(1.0), 0
    return np.float32(scale), int(np.round((qmin + qmax) / 2.0))


def _quantize_array(data, scale, zp, lo, hi, dtype):
    q = (data.astype(np.float32) / np.float32(scale)).round() + zp
    return np.clip(q, lo, hi).astype(dtype)


class _Q8:
    def __init__(self, graph, parent, per_channel, reduce_range):
        self.graph, self.parent = graph, parent
        self.per_channel, self.reduce_range = per_channel, reduce_range
        self.inits = {t.name: t for t in graph.initializer}
        self.qmap = {}  # value -> (q_name, scale, zp)
        self.new_nodes, self.new_inits = [], []
        produced = {o for n in graph.node for o in n.output}
        self.known = produced | {i.name for i in graph.input}
        self.generated = {i.name for i in graph.input if i.name not in self.inits}

    def is_weight(self, name):
        t = self.inits.get(name)
        if t is not None:
            return t.data_type == F32
        return self.parent is not None and self.parent.is_weight(name)

    def quantize_initializer(self, name, as_activation, reduce_range, per_channel):
        if name in self.qmap:
            return self.qmap[name]
        data = numpy_helper.to_array(self.inits[name])
        q_name, scale_name, zp_name = name + "_quantized", name + "_scale", name + "_zero_point"
        if as_activation:  # uint8, symmetric because the weight type is QInt8
            scale, zp = _scale_zp_symmetric(data, 0, 254)
            q = _quantize_array(data, scale, zp, 0, 255, np.uint8)
            scale_t = helper.make_tensor(scale_name, F32, [], [float(scale)])
            zp_t = helper.make_tensor(zp_name, U8, [], [zp])
        elif per_channel:  # channel axis -1 (quantize_weight's default)
            qmin, qmax = (-64, 64) if reduce_range else (-127, 127)
            cols = [_scale_zp_symmetric(data[..., c].flatten(), qmin, qmax) for c in range(data.shape[-1])]
            q = np.stack([_quantize_array(data[..., c], s, z, -128, 127, np.int8) for c, (s, z) in enumerate(cols)], -1)
            scale_t = helper.make_tensor(scale_name, F32, [data.shape[-1]], [float(s) for s, _ in cols])
            zp_t = helper.make_tensor(zp_name, I8, [data.shape[-1]], [z for _, z in cols])
        else:
            qmin, qmax = (-64, 64) if reduce_range else (-127, 127)
            scale, zp = _scale_zp_symmetric(data.flatten(), qmin, qmax)
            q = _quantize_array(data, scale, zp, -128, 127, np.int8)
            scale_t = helper.make_tensor(scale_name, F32, [], [float(scale)])
            zp_t = helper.make_tensor(zp_name, I8, [], [zp])
        self.new_inits += [scale_t, zp_t, numpy_helper.from_array(q, q_name)]
        self.qmap[name] = (q_name, scale_name, zp_name)
        return self.qmap[name]

    def quantize_input(self, node, index, as_activation, reduce_range, per_channel, nodes):
        name = node.input[index]
        if name in self.qmap:
            return self.qmap[name]
        if name in self.inits:
            return self.quantize_initializer(name, as_activation, reduce_range, per_channel)
        if name in self.known:
            # one DynamicQuantizeLinear per activation, shared by its MatMuls
            dql = name + "_QuantizeLinear"
            outs = [name + "_quantized", name + "_scale", name + "_zero_point"]
            nodes.append(helper.make_node("DynamicQuantizeLinear", [name], outs, dql))
            self.qmap[name] = tuple(outs)
            return self.qmap[name]
        # an outer-scope value: the parent quantizes it, its DynamicQuantizeLinear goes before the If
        return self.parent.quantize_input(node, index, as_activation, reduce_range, per_channel, self.parent.new_nodes)

    def dequantize(self, name):
        if name in self.qmap and name not in self.generated and name not in self.inits:
            q, s, z = self.qmap[name]
            if any(n.name == name + "_DequantizeLinear" for n in self.new_nodes):
                return None
            return helper.make_node("DequantizeLinear", [q, s, z], [name], name + "_DequantizeLinear")
        return None

    def default(self, node):
        for name in node.input:
            dq = self.dequantize(name)
            if dq is not None:
                self.new_nodes.append(dq)
        self.new_nodes.append(node)

    def run(self):
        for node in list(self.graph.node):
            if any(a.type == onnx.AttributeProto.GRAPH for a in node.attribute):
                node = self.quantize_branches(node)
            start = len(self.new_nodes)
            if node.op_type == "MatMul" and self.is_weight(node.input[1]):
                nodes = []
                a_q, a_s, a_z = self.quantize_input(node, 0, False, False, False, nodes)
                b_q, b_s, b_z = self.quantize_input(node, 1, False, self.reduce_range, self.per_channel, nodes)
                name = node.name + "_quant"
                out = node.output[0] + "_output_quantized"
                nodes.append(helper.make_node("MatMulInteger", [a_q, b_q, a_z, b_z], [out], name))
                nodes.append(helper.make_node("Cast", [out], [out + "_cast_output"], out + "_cast", to=F32))
                nodes.append(helper.make_node("Mul", [a_s, b_s], [name + "_scales_mul:0"], name + "_scales_mul"))
                nodes.append(helper.make_node("Mul", [out + "_cast_output", name + "_scales_mul:0"], [node.output[0]],
                                              name + "_output_scale_mul"))
                self.new_nodes += nodes
            elif node.op_type == "Gather" and self.is_weight(node.input[0]):
                nodes = []
                q, s, z = self.quantize_input(node, 0, True, False, False, nodes)
                out = node.output[0]
                node = copy.deepcopy(node)
                node.input[0], node.output[0] = q, out + "_quantized"
                self.qmap[out] = (out + "_quantized", s, z)
                self.new_nodes += nodes + [node]
            else:
                self.default(node)
            for n in self.new_nodes[start:]:
                self.generated.update(n.output)
        for o in self.graph.output:
            dq = self.dequantize(o.name)
            if dq is not None:
                self.new_nodes.append(dq)
        del self.graph.node[:]
        self.graph.node.extend(self.new_nodes)

    def quantize_branches(self, node):
        node = copy.deepcopy(node)
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                sub = _Q8(a.g, self, self.per_channel, self.reduce_range)
                sub.run()
                a.g.initializer.extend(sub.new_inits)
        return node


def _remove_unused_initializers(graph, used=None):
    used = set() if used is None else used
    for n in graph.node:
        used.update(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                _remove_unused_initializers(a.g, used)
    used.update(o.name for o in graph.output)
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def quantize_q8(model, per_channel, reduce_range):
    model = copy.deepcopy(model)
    q = _Q8(model.graph, None, per_channel, reduce_range)
    q.run()
    model.graph.initializer.extend(q.new_inits)
    _remove_unused_initializers(model.graph)
    model.producer_name = "onnx.quantize"
    return model


# ------------------------------------------------------------------------------- q4 (MatMulNBits)
def mlas_q4_symmetric(b, block):
    """B [K, N] f32 -> (packed uint8 [N, K/block, block/2], scales f32 [N * K/block])."""
    k, n = b.shape
    blocks = (k + block - 1) // block
    padded = np.zeros((blocks * block, n), np.float32)
    padded[:k] = b
    cols = padded.T.reshape(n, blocks, block)
    lo, hi = cols.min(axis=2), cols.max(axis=2)
    extreme = np.where(np.abs(hi) > np.abs(lo), hi, lo).astype(np.float32)
    scales = (extreme / np.float32(-8.0)).astype(np.float32)
    recip = np.where(scales != 0, np.float32(1.0) / np.where(scales != 0, scales, np.float32(1)), np.float32(0))
    x = (cols * recip[:, :, None]).astype(np.float32) + np.float32(8.0)
    q = np.clip(np.where(x >= 0, np.floor(x.astype(np.float64) + 0.5), np.ceil(x.astype(np.float64) - 0.5)), 0, 15)
    q = q.astype(np.uint8)
    if k < blocks * block:  # MLAS leaves the padding rows at the zero point
        q.reshape(n, -1)[:, k:] = 8
    packed = (q[:, :, 0::2] & 0xF) | (q[:, :, 1::2] << 4)
    return packed.astype(np.uint8), scales.reshape(-1)


def quantize_q4(model, block=32):
    model = copy.deepcopy(model)
    done = {}

    def process(graph, stack):
        inits = {t.name: t for t in graph.initializer}
        out = []
        for node in graph.node:
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    process(a.g, stack + [graph])
            owner = next((g for g in [graph] + stack[::-1] if any(t.name == node.input[1] for t in g.initializer)), None) \
                if node.op_type == "MatMul" else None
            if owner is None:
                out.append(node)
                continue
            t = next(t for t in owner.initializer if t.name == node.input[1])
            b = numpy_helper.to_array(t)
            if b.ndim != 2 or t.data_type != F32:
                out.append(node)
                continue
            k, n = b.shape
            if t.name not in done:
                packed, scales = mlas_q4_symmetric(b, block)
                owner.initializer.extend([numpy_helper.from_array(packed, t.name + "_Q4"),
                                          numpy_helper.from_array(scales, t.name + "_scales")])
                done[t.name] = True
            out.append(helper.make_node("MatMulNBits", [node.input[0], t.name + "_Q4", t.name + "_scales"], [node.output[0]],
                                        name=node.name + "_Q4" if node.name else "", domain="com.microsoft",
                                        K=k, N=n, bits=4, block_size=block))
        del graph.node[:]
        graph.node.extend(out)
        del inits

    process(model.graph, [])
    _remove_unused_initializers(model.graph)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


# ------------------------------------------------------------------------------- fp16
BLOCK = {"ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer", "FeatureVectorizer",
         "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor", "Normalizer", "OneHotEncoder",
         "RandomUniformLike", "SVMClassifier", "SVMRegressor", "Scaler", "TreeEnsembleClassifier",
         "TreeEnsembleRegressor", "ZipMap", "NonMaxSuppression", "TopK", "RoiAlign", "Resize", "CumSum", "Min", "Max",
         "Upsample", "RandomNormalLike", "Cast"}


def _to_f16_values(a):
    a = a.astype(np.float32)
    a = np.where((a > 0) & (a < 1e-7), np.float32(1e-7), a)
    a = np.where((a < 0) & (a > -1e-7), np.float32(-1e-7), a)
    a = np.where((a > 1e4) & np.isfinite(a), np.float32(1e4), a)
    a = np.where((a < -1e4) & np.isfinite(a), np.float32(-1e4), a)
    return a.astype(np.float16)


def _tensor_to_f16(t):
    if t.data_type != F32:
        return
    a = _to_f16_values(numpy_helper.to_array(t))
    t2 = numpy_helper.from_array(a, t.name)
    t.CopyFrom(t2)


def _value_info(graph, name):
    for vi in list(graph.value_info) + list(graph.input) + list(graph.output):
        if vi.name == name:
            return vi
    return None


def _add_vi(graph, like, name, elem):
    vi = graph.value_info.add()
    vi.CopyFrom(like)
    vi.name = name
    vi.type.tensor_type.elem_type = elem


def to_fp16(model):
    model = onnx.shape_inference.infer_shapes(copy.deepcopy(model))
    g = model.graph
    renamed = {}
    # process_graph_input (top level, keep_io_types)
    for gi in g.input:
        if gi.type.tensor_type.elem_type != F32:
            continue
        new = gi.name + "_fp16"
        users = [n for n in g.node if gi.name in n.input]
        if users:
            g.node.extend([helper.make_node("Cast", [gi.name], [new], new, to=F16)])
            _add_vi(g, gi, new, F16)
            for n in users:
                for i, x in enumerate(n.input):
                    if x == gi.name:
                        n.input[i] = new
            renamed[gi.name] = new
    # process_tensor_in_node
    blocked_values = set()
    for n in g.node:
        if n.op_type in BLOCK:
            blocked_values.update(n.output)
        else:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.TENSOR:
                    _tensor_to_f16(a.t)
    # process_value_info
    for vi in g.value_info:
        if vi.name not in blocked_values and vi.type.tensor_type.elem_type == F32:
            vi.type.tensor_type.elem_type = F16
    # process_node_in_block_list
    for n in list(g.node):
        if n.op_type not in BLOCK:
            continue
        for i, x in enumerate(n.input):
            vi = next((v for v in list(g.value_info) + list(g.input) if v.name == x), None)
            if vi is not None and vi.type.tensor_type.elem_type == F16:
                out = n.name + "_input_cast_" + str(i)
                _add_vi(g, vi, out, F32)
                g.node.extend([helper.make_node("Cast", [x], [out], n.name + "_input_cast" + str(i), to=F32)])
                n.input[i] = out
        for i, y in enumerate(n.output):
            vi = next((v for v in list(g.value_info) + list(g.output) if v.name == y), None)
            if vi is not None and vi.type.tensor_type.elem_type == F32:
                mid = n.name + "_output_cast_" + str(i)
                _add_vi(g, vi, mid, F32)
                vi.type.tensor_type.elem_type = F16
                g.node.extend([helper.make_node("Cast", [mid], [y], n.name + "_output_cast" + str(i), to=F16)])
                n.output[i] = mid
    # process_initializers
    blocked_inits = {x for n in g.node if n.op_type in BLOCK for x in n.input}
    for t in g.initializer:
        if t.name not in blocked_inits:
            _tensor_to_f16(t)
    # process_graph_output (top level, keep_io_types)
    for go in g.output:
        if go.type.tensor_type.elem_type != F32:
            continue
        producer = next(n for n in g.node if go.name in n.output)
        new = go.name + "_fp16"
        idx = 0
        for idx, y in enumerate(producer.output):
            if y == go.name:
                producer.output[idx] = new
        g.node.extend([helper.make_node("Cast", [new], [go.name], new + "_input_cast" + str(idx), to=F32)])
        for vi in g.value_info:
            if vi.name == go.name:
                vi.type.tensor_type.elem_type = F32
        for n in g.node:
            if not (n.op_type == "Cast" and n.input[0] == new):
                for i, x in enumerate(n.input):
                    if x == go.name:
                        n.input[i] = new
    # float16.py's remove_unnecessary_cast_node compares a TypeProto with TensorProto.FLOAT, so it
    # never removes a pair: nothing to do here.
    _toposort(g)
    return model


def _toposort(g):
    ready = {i.name for i in g.input} | {t.name for t in g.initializer} | {""}
    pending, ordered = list(g.node), []
    while pending:
        progressed = False
        for n in list(pending):
            if all(x in ready for x in n.input):
                ordered.append(n)
                ready.update(n.output)
                pending.remove(n)
                progressed = True
        if not progressed:
            raise RuntimeError("cycle or missing input near " + pending[0].name)
    del g.node[:]
    g.node.extend(ordered)
