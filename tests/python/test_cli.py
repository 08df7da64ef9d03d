"""`python3 -m mo` is the `mo` command: the same IR bytes, output lines and exit codes."""
import os
import subprocess
import sys

from conftest import BUILD, EXAMPLE, TINY_CNN, run_mo


def python_mo(*args):
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    return subprocess.run([sys.executable, "-m", "mo", *map(str, args)], capture_output=True, text=True, env=env)


def test_same_ir_and_summary_as_mo(tmp_path):
    flags = ["--input_model", TINY_CNN, "--mean_values", "[1,2,3]", "--compress_to_fp16=False"]
    cli = run_mo(*flags, "--output_dir", tmp_path / "cli")
    py = python_mo(*flags, "--output_dir", tmp_path / "py")
    assert (cli.returncode, py.returncode) == (0, 0), py.stderr
    for ext in ("xml", "bin"):
        assert (tmp_path / "py" / f"tiny_cnn.{ext}").read_bytes() == (tmp_path / "cli" / f"tiny_cnn.{ext}").read_bytes()
    # Every line but the time and memory figures (and the folder they name) is the same.
    def lines(out, folder):
        return [l.replace(str(tmp_path / folder), "OUT") for l in out.splitlines() if "time" not in l and "Memory" not in l]
    assert lines(py.stdout, "py") == lines(cli.stdout, "cli")
    assert "[ SUCCESS ] Layers:" in py.stdout


def test_exit_codes_and_messages(tmp_path):
    for args, code in (([], 2), (["--input_model", TINY_CNN, "--batch", "0"], 2),
                       (["--input_model", tmp_path / "missing.onnx"], 1)):
        cli, py = run_mo(*args, "--output_dir", tmp_path), python_mo(*args, "--output_dir", tmp_path)
        assert (py.returncode, py.stderr) == (code, cli.stderr) and cli.returncode == code
    assert python_mo("--help").stdout == run_mo("--help").stdout
    assert python_mo("--version").stdout == run_mo("--version").stdout


def test_validate_with_references(tmp_path):
    py = python_mo("--input_model", EXAMPLE / "scaled_tanh.prototxt", "--output_dir", tmp_path,
                   "--extensions", next(BUILD.glob("plugins/**/libmo_example_ops.so")),
                   "--validate_inputs", EXAMPLE / "x.npy", "--validate_outputs", EXAMPLE / "y.npy")
    assert py.returncode == 0, py.stderr
    assert "[ VALIDATE ] passed" in py.stdout
