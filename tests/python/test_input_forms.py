"""input_model as a path (str, pathlib), bytes (ONNX, TFLite), an onnx.ModelProto, and ONNX
external data found next to the file or in base_dir: each gives the IR `mo` writes for the file
(the conversion parameters name the bytes "<bytes>" instead of a path)."""
import pathlib

import numpy as np
import pytest

import mo
from conftest import DATA, LLM, TINY_CNN, mo_ir, saved_ir

INT8_CNN = DATA / "tflite_int8" / "int8_cnn" / "model.tflite"
ATTENTION = DATA / "contrib" / "Attention" / "model.onnx"


def relabelled(xml, path, label):
    return xml.replace(f'<input_model value="{path}" />'.encode(), f'<input_model value="{label}" />'.encode())


@pytest.mark.parametrize("as_", [str, pathlib.Path], ids=["str", "pathlib"])
def test_path(tmp_path, as_):
    assert saved_ir(mo.convert_model(as_(str(TINY_CNN))), tmp_path, "tiny_cnn") == mo_ir(tmp_path, TINY_CNN)


@pytest.mark.parametrize("model", [ATTENTION, INT8_CNN], ids=["onnx", "tflite"])
def test_bytes(tmp_path, model):
    want_xml, want_bin = mo_ir(tmp_path, model)
    got_xml, got_bin = saved_ir(mo.convert_model(model.read_bytes()), tmp_path, "model")
    assert got_bin == want_bin
    assert b'<input_model value="&lt;bytes>" />' in got_xml
    assert got_xml == relabelled(want_xml, model, "&lt;bytes>")


def test_model_proto(tmp_path):
    onnx = pytest.importorskip("onnx")
    proto = onnx.load(str(ATTENTION))
    want_xml, want_bin = mo_ir(tmp_path, ATTENTION)
    got_xml, got_bin = saved_ir(mo.convert_model(proto), tmp_path, "model")
    assert got_bin == want_bin
    assert got_xml == relabelled(want_xml, ATTENTION, "&lt;onnx.ModelProto>")


def test_external_data_next_to_the_file_and_in_base_dir(tmp_path):
    assert (LLM.parent / "model.onnx.data").exists()  # the fixture keeps its weights outside
    want_xml, want_bin = mo_ir(tmp_path, LLM)
    assert saved_ir(mo.convert_model(LLM), tmp_path, "model") == (want_xml, want_bin)
    got_xml, got_bin = saved_ir(mo.convert_model(LLM.read_bytes(), base_dir=LLM.parent), tmp_path, "model")
    assert got_bin == want_bin
    assert got_xml == relabelled(want_xml, LLM, "&lt;bytes>")


def test_external_data_of_bytes_without_base_dir_is_an_error():
    with pytest.raises(mo.ConversionError) as e:
        mo.convert_model(LLM.read_bytes())
    assert "model.onnx.data" in e.value.what and "cannot be read" in e.value.what


def test_bytes_and_path_run_alike():
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    by_path = mo.convert_model(TINY_CNN).run([x])
    onnx = pytest.importorskip("onnx")
    from google.protobuf import text_format  # the sample is ONNX text; the bytes are its binary form
    proto = text_format.Parse(TINY_CNN.read_text(), onnx.ModelProto())
    by_bytes = mo.convert_model(proto.SerializeToString()).run([x])
    np.testing.assert_array_equal(by_bytes["probabilities"], by_path["probabilities"])


def test_other_input_model_types_are_type_errors():
    with pytest.raises(TypeError, match="input_model takes a path"):
        mo.convert_model(42)
