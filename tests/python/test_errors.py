"""Failures: mo.ConversionError with what / where / hint for what `mo` reports with exit code 1,
TypeError / ValueError with the `mo` command's message for bad keywords, and nothing left on
disk: not the staged bytes of a model, not a half-written IR, not a directory a save made."""
import subprocess
import sys
import tempfile

import pytest

import mo
from conftest import BUILD, DATA, TINY_CNN, run_mo

UNSUPPORTED = DATA / "contrib" / "Attention" / "model.onnx"


def test_missing_file():
    with pytest.raises(mo.ConversionError) as e:
        mo.convert_model("/nonexistent/model.onnx")
    assert isinstance(e.value, RuntimeError)
    assert (e.value.what, e.value.where) == ("input model not found", "/nonexistent/model.onnx")
    assert e.value.hint


def test_bad_keywords_are_type_errors():
    with pytest.raises(TypeError):
        mo.convert_model(TINY_CNN, no_such_keyword=1)
    with pytest.raises(TypeError, match="batch takes an int"):
        mo.convert_model(TINY_CNN, batch="4")
    with pytest.raises(TypeError, match="reverse_input_channels takes True or False"):
        mo.convert_model(TINY_CNN, reverse_input_channels="yes")
    with pytest.raises(TypeError, match="mean_values"):
        mo.convert_model(TINY_CNN, mean_values={"input": "abc"})


@pytest.mark.parametrize("keywords,flags", [
    ({"batch": 0}, ["--batch", "0"]),
    ({"input_shape": "[1,3,x]"}, ["--input_shape", "[1,3,x]"]),
    ({"layout": "nhhc"}, ["--layout", "nhhc"]),
    ({"transform": "Fold"}, ["--transform", "Fold"]),
    ({"log_level": "LOUD"}, ["--log_level", "LOUD"]),
    ({"output": []}, ["--output", ""]),
], ids=["batch", "input_shape", "layout", "transform", "log_level", "output"])
def test_bad_values_are_value_errors_with_the_cli_message(tmp_path, keywords, flags):
    r = run_mo("--input_model", TINY_CNN, "--output_dir", tmp_path, *flags)
    assert r.returncode == 2
    cli_message = r.stderr.splitlines()[0].removeprefix("[ ERROR ] ")
    with pytest.raises(ValueError) as e:
        mo.convert_model(TINY_CNN, **keywords)
    assert str(e.value).splitlines()[0] == cli_message


def test_unsupported_op_names_the_node():
    """Attention without its com.microsoft domain registered as an unknown op: a model whose op
    mo does not know."""
    onnx = pytest.importorskip("onnx")
    proto = onnx.load(str(UNSUPPORTED))
    for node in proto.graph.node:
        node.op_type = "NoSuchOp" + node.op_type
    with pytest.raises(mo.ConversionError) as e:
        mo.convert_model(proto)
    assert "NoSuchOpAttention" in e.value.what and e.value.hint
    assert e.value.where == "<onnx.ModelProto>"


def test_a_failed_bytes_conversion_leaves_no_staged_file(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(mo.ConversionError):
        mo.convert_model(b"\x08\x07 this is no model")
    mo.convert_model(UNSUPPORTED.read_bytes())  # and one that succeeds
    assert list(tmp_path.iterdir()) == []


def test_a_failed_save_leaves_no_file_and_no_directory(tmp_path):
    model = mo.convert_model(TINY_CNN)
    with pytest.raises(mo.ConversionError, match=r"\.xml"):
        model.save(tmp_path / "a" / "b" / "model.onnx")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(mo.ConversionError):
        model.save(blocker / "sub" / "m.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


INTERRUPTED_SAVE = """
import resource, signal, sys
sys.path.insert(0, sys.argv[1])
import mo
model = mo.convert_model(sys.argv[2], compress_to_fp16=False)
# The .bin outgrows the file size limit mid-write: the write fails as on a full disk.
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
try:
    model.save(sys.argv[3] + "/out/model.xml")
except mo.ConversionError as e:
    print("ConversionError:", e.what)
    sys.exit(0)
sys.exit("saved although the file size limit was below the weights")
"""


def test_an_interrupted_save_leaves_nothing(tmp_path):
    llm = DATA / "llm" / "model.onnx"  # 88 KB of weights
    r = subprocess.run([sys.executable, "-c", INTERRUPTED_SAVE, str(BUILD / "python"), str(llm), str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ConversionError" in r.stdout
    assert list(tmp_path.iterdir()) == []


SAVING_FOREVER = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np, onnx, mo
from onnx import TensorProto, helper, numpy_helper
w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((2048, 4096)).astype(np.float32), "w")
graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2048])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4096])], [w])
model = mo.convert_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
print("converted", flush=True)
while True:
    model.save(sys.argv[2] + "/model.xml")
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_save_killed_by_a_signal_leaves_no_temporary(tmp_path, sig):
    """SIGTERM mid-write ends the process as it would have, without the staged files; SIGINT is
    Python's KeyboardInterrupt, raised after the save: the IR is whole."""
    import signal
    import time
    pytest.importorskip("onnx")
    child = subprocess.Popen([sys.executable, "-c", SAVING_FOREVER, str(BUILD / "python"), str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "converted", child.stderr.read()
        deadline = time.monotonic() + 20
        while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
            assert time.monotonic() < deadline, "no save was seen under way"
        child.send_signal(getattr(signal, sig))
        code = child.wait(timeout=30)
    finally:
        child.kill()
    # Both end the process by their signal (Python re-raises SIGINT after an uncaught KeyboardInterrupt).
    assert code == -getattr(signal, sig)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert not [name for name in left if name.endswith(".tmp")], left
    if sig == "SIGINT":
        assert "KeyboardInterrupt" in child.stderr.read()
        assert left == ["model.bin", "model.xml"]
        assert (tmp_path / "model.bin").stat().st_size == 2048 * 4096 * 2
