"""Model.run against the source runtimes' outputs kept with the test models (ONNX Runtime for the
contrib ops and the LLM, TFLite for the int8 CNN), inputs and outputs as ports, ops(), and
read_model on an IR `mo` wrote."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import mo
from conftest import DATA, LLM, TINY_CNN, run_mo

CONTRIB = DATA / "contrib"


def npy(path):
    return np.load(str(path))


@pytest.mark.parametrize("case", ["Attention", "FusedConv", "Gelu", "MatMulNBits", "SkipLayerNormalization"])
def test_run_gives_onnx_runtimes_outputs(case):
    d = CONTRIB / case
    if not (d / "model.onnx").exists():
        pytest.skip(f"no fixture {d}")
    model = mo.convert_model(d / "model.onnx", compress_to_fp16=False)
    inputs = [npy(d / f"input_{i}.npy") for i in range(len(model.inputs))]
    outputs = list(model.run(inputs).values())
    expected = sorted(d.glob("output_*.npy"))
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got, npy(want), rtol=1e-4, atol=1e-4)


def test_run_by_name_and_by_position_of_the_llm_step1():
    """The LLM without MakeStateful: every input by name, outputs against ONNX Runtime's."""
    model = mo.convert_model(LLM, compress_to_fp16=False)
    feeds = {p.name: npy(LLM.parent / f"step1_in_{p.name}.npy") for p in model.inputs}
    by_name = model.run(feeds)
    by_position = model.run([feeds[p.name] for p in model.inputs])
    assert list(by_name) == [p.name for p in model.outputs]
    for name, got in by_name.items():
        np.testing.assert_allclose(got, npy(LLM.parent / f"step1_out_{name}.npy"), rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(by_position[name], got)


def test_tflite_int8_outputs():
    d = DATA / "tflite_int8" / "int8_cnn"
    model = mo.convert_model(d / "model.tflite", compress_to_fp16=False)
    outputs = list(model.run([npy(d / "input_0.npy")]).values())
    for got, want in zip(outputs, [npy(d / "output_0.npy"), npy(d / "output_1.npy")]):
        assert got.dtype == want.dtype and got.shape == want.shape
        # int8 outputs may differ from TFLite's kernels by one quantization step (docs/tflite.md)
        assert np.max(np.abs(got.astype(np.int32) - want.astype(np.int32))) <= 1


def test_ports_give_names_types_and_partial_shapes():
    model = mo.convert_model(TINY_CNN, input=("input", [(1, 8), 3, 32, 32]))
    [x], [y] = model.inputs, model.outputs
    assert (x.name, x.element_type, x.dtype, x.partial_shape) == ("input", "f32", np.float32, "[1..8,3,32,32]")
    assert x.dims == [(1, 8), 3, 32, 32] and not x.is_static
    assert (y.name, y.element_type) == ("probabilities", "f32")
    assert model.run([np.zeros((3, 3, 32, 32), np.float32)])["probabilities"].shape == (3, 10)
    dyn = mo.convert_model(LLM).inputs
    ids = next(p for p in dyn if p.name == "input_ids")
    assert ids.element_type == "i64" and ids.partial_shape == "[?,?]" and ids.dims == [(0, None), (0, None)]


def test_ops_count_the_layers_mo_writes(tmp_path):
    r = run_mo("--input_model", TINY_CNN, "--output_dir", tmp_path, "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    layers = ET.parse(tmp_path / "tiny_cnn.xml").getroot().find("layers")
    # ops() names types as OpenVINO's runtime does; its IR writer spells four of them otherwise
    # (shared/ir/ir-format.md: Const, PReLU, ReLU, SoftMax).
    runtime_name = {"Const": "Constant", "PReLU": "PRelu", "ReLU": "Relu", "SoftMax": "Softmax"}
    counts = {}
    for layer in layers:
        t = runtime_name.get(layer.get("type"), layer.get("type"))
        counts[t] = counts.get(t, 0) + 1
    assert dict(mo.convert_model(TINY_CNN).ops()) == counts


def test_read_model_runs_like_the_converted_model(tmp_path):
    r = run_mo("--input_model", TINY_CNN, "--output_dir", tmp_path, "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    read = mo.read_model(tmp_path / "tiny_cnn.xml")
    converted = mo.convert_model(TINY_CNN, compress_to_fp16=False)
    assert [(p.name, p.partial_shape) for p in read.inputs] == [(p.name, p.partial_shape) for p in converted.inputs]
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    np.testing.assert_array_equal(read.run({"input": x})["probabilities"], converted.run([x])["probabilities"])


def test_outputs_share_the_evaluators_memory():
    """A computed output is the evaluator's buffer (writable, owned by the array alone); an
    output that is a constant of the model is a read-only view of it, never a copy to corrupt."""
    model = mo.convert_model(TINY_CNN)
    out = model.run([np.zeros((1, 3, 32, 32), np.float32)])["probabilities"]
    assert out.flags.writeable and out.base is not None and not out.flags.owndata


def test_validate_against_references():
    d = CONTRIB / "Gelu"
    model = mo.convert_model(d / "model.onnx")
    x = npy(d / "input_0.npy")
    want = npy(d / "output_0.npy")
    assert model.validate([want], inputs=[x])
    bad = model.validate([want + 1.0], inputs=[x])
    assert not bad and bad.outputs[0]["mismatches"] == want.size and "FAIL" in bad.text


def test_input_of_another_dtype_is_a_type_error():
    model = mo.convert_model(TINY_CNN)
    with pytest.raises(TypeError, match="takes float32, not float64"):
        model.run([np.zeros((1, 3, 32, 32))])
    with pytest.raises(ValueError, match="no input 'x'"):
        model.run({"x": np.zeros((1, 3, 32, 32), np.float32)})
    with pytest.raises(mo.ConversionError):  # a shape the input does not take
        model.run([np.zeros((1, 3, 8, 8), np.float32)])


@pytest.mark.parametrize("case", ["data_dependent_if", "nested_branches", "recurrence", "while_halving",
                                  "list_of_slices"])
def test_control_flow_runs_like_pytorch(case):
    d = DATA / "control_flow" / case
    model = mo.convert_model(d / "model.onnx", compress_to_fp16=False)
    outputs = list(model.run([npy(d / "input_0.npy")]).values())
    expected = sorted(d.glob("output_*.npy"))
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got, npy(want), rtol=1e-5, atol=1e-5)
