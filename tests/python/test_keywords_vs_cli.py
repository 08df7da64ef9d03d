"""Every keyword of mo.convert_model against the `mo` command: the IR that Model.save writes must
be byte for byte the IR `mo` writes with the same flags (XML and BIN)."""
import numpy as np
import pytest

import mo
from conftest import DATA, EXAMPLE, LLM, SOURCE, TINY_CNN, mo_ir, plugin_path, saved_ir

INT8_CNN = DATA / "tflite_int8" / "int8_cnn" / "model.tflite"
TINY_SSD = DATA / "tiny_ssd" / "model.onnx"
SCALED_TANH = EXAMPLE / "scaled_tanh.prototxt"
LLM_PAIRS = {f"past_key_values.{i}.{kind}": f"present.{i}.{kind}" for i in range(2) for kind in ("key", "value")}

# (id, model, convert_model keywords, `mo` flags)
CASES = [
    ("defaults", TINY_CNN, {}, []),
    ("compress_to_fp16=False", TINY_CNN, {"compress_to_fp16": False}, ["--compress_to_fp16=False"]),
    ("input name+shape", TINY_CNN, {"input": ("input", [2, 3, 32, 32])}, ["--input", "input[2,3,32,32]"]),
    ("input name+shape+type", TINY_CNN, {"input": ("input", [2, 3, 32, 32], np.float32)},
     ["--input", "input[2,3,32,32]"]),
    ("input dict", TINY_CNN, {"input": {"input": [2, 3, 32, 32]}}, ["--input", "input[2,3,32,32]"]),
    ("input list of names", TINY_CNN, {"input": ["input"]}, ["--input", "input"]),
    ("input shape by position", TINY_CNN, {"input": [[2, 3, 32, 32]]}, ["--input_shape", "[2,3,32,32]"]),
    ("input string", TINY_CNN, {"input": "input[2,3,32,32]"}, ["--input", "input[2,3,32,32]"]),
    ("input_shape", TINY_CNN, {"input_shape": [2, 3, 32, 32]}, ["--input_shape", "[2,3,32,32]"]),
    ("input_shape dynamic", TINY_CNN, {"input_shape": [None, 3, 32, 32]}, ["--input_shape", "[?,3,32,32]"]),
    ("input_shape interval", TINY_CNN, {"input_shape": [(1, 8), 3, 32, 32]}, ["--input_shape", "[1..8,3,32,32]"]),
    ("output", TINY_CNN, {"output": "relu_out"}, ["--output", "relu_out"]),
    ("output list", TINY_CNN, {"output": ["logits"]}, ["--output", "logits"]),
    ("mean_values", TINY_CNN, {"mean_values": [123, 117, 104]}, ["--mean_values", "[123,117,104]"]),
    ("mean_values dict", TINY_CNN, {"mean_values": {"input": [1.5, 2, 3]}}, ["--mean_values", "input[1.5,2,3]"]),
    ("scale_values", TINY_CNN, {"scale_values": [58, 57, 57]}, ["--scale_values", "[58,57,57]"]),
    ("reverse_input_channels", TINY_CNN, {"reverse_input_channels": True}, ["--reverse_input_channels"]),
    ("batch", TINY_CNN, {"batch": 4}, ["--batch", "4"]),
    ("static_shape", TINY_CNN, {"static_shape": True}, ["--static_shape"]),
    ("framework", TINY_CNN, {"framework": "onnx"}, ["--framework", "onnx"]),
    ("log_level", TINY_CNN, {"log_level": "ERROR"}, ["--log_level", "ERROR"]),
    ("layout", INT8_CNN, {"layout": "nhwc->nchw"}, ["--layout", "nhwc->nchw"]),
    ("source_layout", INT8_CNN, {"source_layout": "nhwc"}, ["--source_layout", "nhwc"]),
    ("target_layout", INT8_CNN, {"target_layout": "nchw"}, ["--target_layout", "nchw"]),
    ("disable_nhwc_to_nchw", INT8_CNN, {"disable_nhwc_to_nchw": True}, ["--disable_nhwc_to_nchw"]),
    ("tflite defaults", INT8_CNN, {}, []),
    # If and Loop bodies with f32 constants: the clone compressed at save time keeps its bodies.
    ("If bodies", DATA / "control_flow" / "nested_branches" / "model.onnx", {}, []),
    ("Loop body", DATA / "control_flow" / "while_halving" / "model.onnx", {}, []),
    ("Loop body, uncompressed", DATA / "control_flow" / "recurrence" / "model.onnx", {"compress_to_fp16": False},
     ["--compress_to_fp16=False"]),
    ("transformations_config", TINY_SSD, {"transformations_config": SOURCE / "configs" / "ssd.json"},
     ["--transformations_config", SOURCE / "configs" / "ssd.json"]),
    ("transform", LLM, {"transform": "MakeStateful"}, ["--transform", "MakeStateful"]),
    ("transform with pairs", LLM, {"transform": ("MakeStateful", {"param_res_names": LLM_PAIRS})},
     ["--transform", "MakeStateful[param_res_names={" + ",".join(f"'{a}':'{b}'" for a, b in LLM_PAIRS.items()) + "}]"]),
]


@pytest.mark.parametrize("model,keywords,flags", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_keyword_gives_the_bytes_of_the_cli_flag(tmp_path, model, keywords, flags):
    want_xml, want_bin = mo_ir(tmp_path, model, *flags)
    got_xml, got_bin = saved_ir(mo.convert_model(str(model), **keywords), tmp_path, model.stem)
    assert got_xml == want_xml
    assert got_bin == want_bin


def test_extensions_give_the_bytes_of_the_cli_flag(tmp_path):
    plugin = plugin_path()
    want = mo_ir(tmp_path, SCALED_TANH, "--extensions", plugin, "--compress_to_fp16=False")
    for keyword in ("extensions", "extension"):  # ovc spells it extension
        model = mo.convert_model(str(SCALED_TANH), compress_to_fp16=False, **{keyword: [plugin]})
        assert saved_ir(model, tmp_path, SCALED_TANH.stem) == want


def test_save_time_compression_gives_the_bytes_of_the_cli(tmp_path):
    """One held model saved both ways: compressed as `mo` writes by default, uncompressed as
    `mo --compress_to_fp16=False` writes (save_model's compress_to_fp16, as ovc's)."""
    model = mo.convert_model(str(TINY_CNN))
    compressed = saved_ir(model, tmp_path, "tiny_cnn")
    plain = saved_ir(model, tmp_path, "tiny_cnn", compress_to_fp16=False)
    assert compressed == mo_ir(tmp_path, TINY_CNN)
    assert plain == mo_ir(tmp_path, TINY_CNN, "--compress_to_fp16=False")
    assert compressed[1] != plain[1]
    # And the held model itself is not compressed by saving: again, the same bytes.
    mo.save_model(model, tmp_path / "again" / "tiny_cnn.xml")
    assert (tmp_path / "again" / "tiny_cnn.xml").read_bytes() == compressed[0]
    assert "Convert" not in model.ops()
