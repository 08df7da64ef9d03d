"""Shared set-up of the Python module's tests (docs/python.md): the built package on sys.path,
the `mo` command beside it, the test models, and helpers to compare IR files.

Run from the repository root (as .ci/run does): /usr/bin/python3 -m pytest tests/python
MO_BUILD_DIR names the build directory (default: build).
"""
import os
import pathlib
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("MO_BUILD_DIR", SOURCE / "build")).resolve()
sys.path.insert(0, str(BUILD / "python"))

DATA = SOURCE / "tests" / "e2e" / "data"
TINY_CNN = SOURCE / "samples" / "tiny_cnn.prototxt"
LLM = DATA / "llm" / "model.onnx"
EXAMPLE = SOURCE / "plugins" / "example_ops"
MO = BUILD / "tools" / "mo"


def plugin_path():
    """The example plugin built with the project (plugins/example_ops)."""
    found = sorted(BUILD.glob("plugins/**/libmo_example_ops.so"))
    assert found, f"no libmo_example_ops.so under {BUILD}/plugins"
    return str(found[0])


def run_mo(*args, cwd=None):
    """Runs the `mo` command; returns the completed process (the caller checks returncode)."""
    return subprocess.run([str(MO), *map(str, args)], capture_output=True, text=True, cwd=cwd)


def mo_ir(tmp_path, model, *flags, name=None):
    """The (xml bytes, bin bytes) that `mo` writes for model + flags."""
    out = tmp_path / "cli"
    r = run_mo("--input_model", model, "--output_dir", out, *flags)
    assert r.returncode == 0, r.stderr
    stem = name or pathlib.Path(str(model)).stem
    return (out / f"{stem}.xml").read_bytes(), (out / f"{stem}.bin").read_bytes()


def saved_ir(model, tmp_path, stem, **save_kw):
    """The (xml bytes, bin bytes) that Model.save writes as tmp_path/py/<stem>.xml."""
    xml, bin_ = model.save(tmp_path / "py" / f"{stem}.xml", **save_kw)
    return pathlib.Path(xml).read_bytes(), pathlib.Path(bin_).read_bytes()


@pytest.fixture
def example_plugin():
    return plugin_path()
