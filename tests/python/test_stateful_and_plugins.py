"""A stateful LLM decoded step by step through Model.run (ONNX Runtime's logits for two steps),
reset_state, and plugin ops through extensions= (the example plugin's ScaledTanh against the
values its generator computed with numpy)."""
import numpy as np
import pytest

import mo
from conftest import EXAMPLE, LLM, mo_ir, plugin_path, saved_ir


def step(n, name, kind="in"):
    return np.load(str(LLM.parent / f"step{n}_{kind}_{name}.npy"))


def test_stateful_llm_decodes_two_steps_like_onnx_runtime():
    model = mo.convert_model(LLM, transform="MakeStateful", compress_to_fp16=False)
    names = [p.name for p in model.inputs]
    # The cache became variables; beam_idx picks the cache entry each batch entry continues
    # (OpenVINO GenAI's form).
    assert names == ["input_ids", "attention_mask", "position_ids", "beam_idx"]
    assert model.ops()["ReadValue"] == 4 and model.ops()["Assign"] == 4

    def feeds(n, last_token_only=False):
        f = {name: step(n, name)[:, -1:] if last_token_only else step(n, name) for name in names[:3]}
        f["beam_idx"] = np.array([0], np.int32)
        return f

    for n in (1, 2):
        np.testing.assert_allclose(model.run(feeds(n))["logits"], step(n, "logits", "out"), rtol=1e-4, atol=1e-4)
    # Without the first step's cache the second step's token gives other logits.
    model.reset_state()
    assert not np.allclose(model.run(feeds(2, True))["logits"], step(2, "logits", "out"), rtol=1e-4, atol=1e-4)
    model.reset_state()
    np.testing.assert_allclose(model.run(feeds(1))["logits"], step(1, "logits", "out"), rtol=1e-4, atol=1e-4)


def test_plugin_ops_convert_and_run():
    plugin = plugin_path()
    model = mo.convert_model(EXAMPLE / "scaled_tanh.prototxt", extensions=plugin, compress_to_fp16=False)
    assert model.ops()["ScaledTanh"] == 1
    x, y = np.load(str(EXAMPLE / "x.npy")), np.load(str(EXAMPLE / "y.npy"))
    np.testing.assert_allclose(list(model.run([x]).values())[0], y, rtol=1e-6, atol=1e-6)


def test_read_model_with_extensions(tmp_path):
    plugin = plugin_path()
    model = mo.convert_model(EXAMPLE / "scaled_tanh.prototxt", extensions=[plugin], compress_to_fp16=False)
    xml, _ = model.save(tmp_path / "st.xml")
    with pytest.raises(mo.ConversionError):  # ScaledTanh is unknown without the plugin
        mo.read_model(xml)
    read = mo.read_model(xml, extensions=[plugin])
    x, y = np.load(str(EXAMPLE / "x.npy")), np.load(str(EXAMPLE / "y.npy"))
    np.testing.assert_allclose(list(read.run([x]).values())[0], y, rtol=1e-6, atol=1e-6)


def test_plugin_path_that_is_no_plugin_is_a_conversion_error(tmp_path):
    bogus = tmp_path / "libnot_a_plugin.so"
    bogus.write_bytes(b"not an ELF file")
    with pytest.raises(mo.ConversionError) as e:
        mo.convert_model(EXAMPLE / "scaled_tanh.prototxt", extensions=[bogus])
    assert str(bogus) in str(e.value)
