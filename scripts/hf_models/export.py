"""ONNX exports of the tiny models in modeling.py the way Hugging Face optimum writes them.

* `export_decoder`: optimum v1.23.3 (exporters/onnx: convert.py export_pytorch, config.py
  TextDecoderWithPositionIdsOnnxConfig, base.py OnnxConfigWithPast, model_configs.py
  LlamaOnnxConfig / Qwen2OnnxConfig / GemmaOnnxConfig / Phi3OnnxConfig, opset 14), the
  non-legacy text-generation-with-past export transformers.js 3.x ships as `onnx/model.onnx`: one
  graph whose past_key_values may be empty. Inputs in forward-signature order (OnnxConfig
  .ordered_inputs): input_ids, attention_mask, position_ids, past_key_values.{i}.key/value; outputs
  logits, present.{i}.key/value; dynamic axes batch_size, sequence_length, past_sequence_length,
  "past_sequence_length + 1"; dummy inputs of DummyTextInputGenerator / MistralDummyPastKeyValues
  Generator (batch 2, sequence 16, past 16, attention mask padded to past + sequence).
* `export_legacy_merged_llama`: optimum v1.13.2 (the release transformers.js 2.17 pins): LlamaOnnx
  Config(TextDecoderOnnxConfig) at opset 13 exported twice, decoder_model.onnx (input_ids,
  attention_mask) and decoder_with_past_model.onnx (input_ids of one token, attention_mask,
  past_key_values.*), then `merge_decoders` (optimum/onnx/graph_transformations.py) into
  decoder_model_merged.onnx.
* `export_whisper_merged`: optimum v1.13.2 WhisperOnnxConfig(AudioToTextOnnxConfig), opset 11
  (OnnxConfig.DEFAULT_ONNX_OPSET): decoder_model.onnx (input_ids, encoder_hidden_states ->
  logits, present.{i}.decoder.key/value, present.{i}.encoder.key/value) and the with-past decoder
  (one token; the cross-attention cache is an input and not an output), merged with strict=False,
  which gives the with-past branch empty constant encoder presents (_unify_onnx_outputs).
* `export_bert`: optimum v1.13.2 BertOnnxConfig (feature-extraction: input_ids, attention_mask,
  token_type_ids -> last_hidden_state), opset 11.

`merge_decoders` follows optimum's function: the two graphs become the branches of one If named
"optimum::if" on a new bool[1] input use_cache_branch (then: with past, else: without), inputs
the union of both in order, outputs the decoder's, every initializer but scalars and 1-D ints
moved to the outer graph deduplicated by content (_deduplicated_cross_model_initializers) and
renamed `<name>_merged_<n>`, attention_mask's second axis renamed attention_mask_sequence_length,
ir_version 9. Where optimum pops an arbitrary member of a Python set to name a group of equal
initializers, this takes the first in model order (the name does not change the graph).
"""
import copy
import hashlib

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper

from modeling import WhisperDecoderNoPast, WhisperDecoderWithPast


def _export(model, args, path, input_names, output_names, dynamic_axes, opset):
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes, do_constant_folding=True, opset_version=opset)
    return onnx.load(path)


def _past(cfg, batch, length, generator, heads=None):
    heads = heads or cfg.kv_heads
    return tuple((torch.randn(batch, heads, length, cfg.head_dim, generator=generator),
                  torch.randn(batch, heads, length, cfg.head_dim, generator=generator)) for _ in range(cfg.layers))


def export_decoder(model, cfg, path, opset=14):
    g = torch.Generator().manual_seed(1)
    batch, seq, past_len = 2, 16, 16
    input_ids = torch.randint(0, cfg.vocab, (batch, seq), generator=g)
    attention_mask = torch.ones(batch, past_len + seq, dtype=torch.int64)
    position_ids = torch.randint(0, cfg.vocab, (batch, seq), generator=g)
    past = _past(cfg, batch, past_len, g)
    names_in = ["input_ids", "attention_mask", "position_ids"]
    names_out = ["logits"]
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "past_sequence_length + 1"},
            "position_ids": {0: "batch_size", 1: "sequence_length"},
            "logits": {0: "batch_size", 1: "sequence_length"}}
    for i in range(cfg.layers):
        for kind in ("key", "value"):
            names_in.append("past_key_values.%d.%s" % (i, kind))
            names_out.append("present.%d.%s" % (i, kind))
            axes[names_in[-1]] = {0: "batch_size", 2: "past_sequence_length"}
            axes[names_out[-1]] = {0: "batch_size", 2: "past_sequence_length + 1"}
    return _export(model, (input_ids, attention_mask, position_ids, past), path, names_in, names_out, axes, opset)


def export_legacy_merged_llama(model, cfg, path, work):
    g = torch.Generator().manual_seed(1)
    batch, seq = 2, 16
    names_past = ["past_key_values.%d.%s" % (i, k) for i in range(cfg.layers) for k in ("key", "value")]
    names_present = ["present.%d.%s" % (i, k) for i in range(cfg.layers) for k in ("key", "value")]
    out_axes = {"logits": {0: "batch_size", 1: "sequence_length"}}
    out_axes.update({n: {0: "batch_size", 2: "past_sequence_length + 1"} for n in names_present})
    decoder = _export(model, (torch.randint(0, cfg.vocab, (batch, seq), generator=g),
                              torch.ones(batch, seq, dtype=torch.int64)),
                      work + "/decoder_model.onnx", ["input_ids", "attention_mask"], ["logits"] + names_present,
                      dict(out_axes, input_ids={0: "batch_size", 1: "sequence_length"},
                           attention_mask={0: "batch_size", 1: "sequence_length"}), 13)
    in_axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
               "attention_mask": {0: "batch_size", 1: "past_sequence_length + 1"}}
    in_axes.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in names_past})
    with_past = _export(model, (torch.randint(0, cfg.vocab, (batch, 1), generator=g),
                                torch.ones(batch, seq + 1, dtype=torch.int64), _past(cfg, batch, seq, g)),
                        work + "/decoder_with_past_model.onnx", ["input_ids", "attention_mask"] + names_past,
                        ["logits"] + names_present, dict(in_axes, **out_axes), 13)
    merged = merge_decoders(decoder, with_past, strict=True)
    onnx.save(merged, path)
    return merged


def export_whisper_merged(dec, cfg, enc_len, path, work):
    g = torch.Generator().manual_seed(1)
    batch, seq = 2, 16
    present = []
    for i in range(cfg.layers):
        present += ["present.%d.decoder.key" % i, "present.%d.decoder.value" % i,
                    "present.%d.encoder.key" % i, "present.%d.encoder.value" % i]
    out_axes = {"logits": {0: "batch_size", 1: "decoder_sequence_length"}}
    for n in present:
        out_axes[n] = {0: "batch_size", 2: "encoder_sequence_length_out" if ".encoder." in n
                       else "past_decoder_sequence_length + 1"}
    encoder_hidden = torch.randn(batch, enc_len, cfg.hidden, generator=g)
    decoder = _export(WhisperDecoderNoPast(dec), (torch.randint(0, cfg.vocab, (batch, seq), generator=g), encoder_hidden),
                      work + "/decoder_model.onnx", ["input_ids", "encoder_hidden_states"], ["logits"] + present,
                      dict(out_axes, input_ids={0: "batch_size", 1: "decoder_sequence_length"},
                           encoder_hidden_states={0: "batch_size", 1: "encoder_sequence_length / 2"}), 11)
    past_names = [n.replace("present", "past_key_values") for n in present]
    in_axes = {"input_ids": {0: "batch_size"}}
    for n in past_names:
        in_axes[n] = {0: "batch_size", 2: "encoder_sequence_length_out" if ".encoder." in n else "past_decoder_sequence_length"}
    self_present = [n for n in present if ".decoder." in n]
    past = []
    for i in range(cfg.layers):
        past.append(tuple(torch.randn(batch, cfg.heads, seq if j < 2 else enc_len, cfg.head_dim, generator=g)
                          for j in range(4)))
    with_past = _export(WhisperDecoderWithPast(dec), (torch.randint(0, cfg.vocab, (batch, 1), generator=g), tuple(past)),
                        work + "/decoder_with_past_model.onnx", ["input_ids"] + past_names, ["logits"] + self_present,
                        dict(in_axes, logits={0: "batch_size", 1: "1"},
                             **{n: out_axes[n] for n in self_present}), 11)
    merged = merge_decoders(decoder, with_past, strict=False)
    onnx.save(merged, path)
    return merged


def export_bert(model, cfg, path):
    g = torch.Generator().manual_seed(1)
    batch, seq = 2, 16
    axes = {n: {0: "batch_size", 1: "sequence_length"} for n in
            ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")}
    return _export(model, (torch.randint(0, cfg.vocab, (batch, seq), generator=g), torch.ones(batch, seq, dtype=torch.int64),
                           torch.zeros(batch, seq, dtype=torch.int64)), path,
                   ["input_ids", "attention_mask", "token_type_ids"], ["last_hidden_state"], axes, 11)


# ------------------------------------------------------------------ optimum's merge_decoders
def _dims(vi):
    return [d.dim_param if d.dim_param else d.dim_value for d in vi.type.tensor_type.shape.dim]


def _unify_outputs(m1, m2, strict):
    """_unify_onnx_outputs: m2's outputs in m1's order and shapes; with strict=False, an output
    only m1 has becomes an empty Constant in m2 (first dynamic axis 0, the other dynamic axes 1)."""
    names2 = {o.name for o in m2.graph.output}
    if strict and names2 != {o.name for o in m1.graph.output}:
        raise ValueError("outputs differ")
    for idx, o1 in enumerate(m1.graph.output):
        dims = _dims(o1)
        if o1.name not in names2:
            shape, seen = [], False
            for d in dims:
                if isinstance(d, str):
                    shape.append(1 if seen else 0)
                    seen = True
                else:
                    shape.append(d)
            value = helper.make_tensor("const_tensor", o1.type.tensor_type.elem_type, shape, [])
            m2.graph.node.append(helper.make_node("Constant", [], [o1.name], name="Constant_%d" % (len(m2.graph.node) + 1),
                                                  value=value))
            m2.graph.output.insert(idx, helper.make_tensor_value_info(o1.name, o1.type.tensor_type.elem_type, dims))
        else:
            o2 = next(o for o in m2.graph.output if o.name == o1.name)
            m2.graph.output.remove(o2)
            m2.graph.output.insert(idx, helper.make_tensor_value_info(o1.name, o1.type.tensor_type.elem_type, dims))


def _kept_in_branch(t):
    return len(t.dims) == 0 or (len(t.dims) == 1 and t.data_type in (onnx.TensorProto.INT32, onnx.TensorProto.INT64))


def merge_decoders(decoder, decoder_with_past, strict=True, graph_name="merged"):
    decoder, decoder_with_past = copy.deepcopy(decoder), copy.deepcopy(decoder_with_past)
    _unify_outputs(decoder, decoder_with_past, strict)
    inputs, seen = [], set()
    for m in (decoder, decoder_with_past):
        for i in m.graph.input:
            if i.name not in seen:
                seen.add(i.name)
                inputs.append(copy.deepcopy(i))
    for i in inputs:
        if i.name == "attention_mask":
            assert i.type.tensor_type.shape.dim[1].dim_param == "sequence_length"
            i.type.tensor_type.shape.dim[1].dim_param = "attention_mask_sequence_length"
    # _find_duplicate_initializers / _create_name_sharing_dict / _deduplicated_cross_model_initializers
    groups, order = {}, []
    for mid, m in enumerate((decoder, decoder_with_past)):
        for t in m.graph.initializer:
            if _kept_in_branch(t):
                continue
            key = (t.data_type, hashlib.sha512(numpy_helper.to_array(t).tobytes()).hexdigest(), tuple(t.dims))
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append((t.name, mid))
    rename, used = {}, {}
    for key in order:
        common = groups[key][0][0]
        used[common] = used.get(common, -1) + 1
        for member in groups[key]:
            rename[member] = "%s_%s_%d" % (common, graph_name, used[common])
    shared, shared_names = [], set()
    for mid, m in enumerate((decoder, decoder_with_past)):
        for node in m.graph.node:
            for j, name in enumerate(node.input):
                if (name, mid) in rename:
                    node.input[j] = rename[(name, mid)]
        for t in m.graph.initializer:
            new = rename.get((t.name, mid))
            if new is not None and new not in shared_names:
                shared_names.add(new)
                t2 = copy.deepcopy(t)
                t2.name = new
                shared.append(t2)
    no_past = helper.make_graph(list(decoder.graph.node), "no_past", [], list(decoder.graph.output),
                                [t for t in decoder.graph.initializer if _kept_in_branch(t)])
    with_past = helper.make_graph(list(decoder_with_past.graph.node), "with_past", [], list(decoder_with_past.graph.output),
                                  [t for t in decoder_with_past.graph.initializer if _kept_in_branch(t)])
    use_cache = helper.make_tensor_value_info("use_cache_branch", onnx.TensorProto.BOOL, [1])
    if_node = helper.make_node("If", ["use_cache_branch"], [o.name for o in no_past.output], name="optimum::if",
                               then_branch=with_past, else_branch=no_past)
    graph = helper.make_graph([if_node], graph_name, inputs + [use_cache], list(no_past.output), shared)
    opsets, domains = [], set()
    for o in list(decoder.opset_import) + list(decoder_with_past.opset_import):
        if o.domain not in domains:
            opsets.append(o)
            domains.add(o.domain)
    model = helper.make_model_gen_version(graph, producer_name="optimum-onnx", opset_imports=opsets, ir_version=9)
    return model
