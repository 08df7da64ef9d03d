"""The Python that README.md and docs/python.md show runs, prints what the page says, and writes
the IR the `mo` command writes."""
import contextlib
import io
import os
import re

from conftest import SOURCE, run_mo


def python_blocks(page):
    return re.findall(r"```python\n(.*?)```\n", (SOURCE / page).read_text(), re.S)


def run_block(code, tmp_path, monkeypatch):
    (tmp_path / "samples").symlink_to(SOURCE / "samples")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<docs>", "exec"), {})
    return out.getvalue()


def test_readme_from_python(tmp_path, monkeypatch):
    [block] = python_blocks("README.md")
    assert len(block.strip().splitlines()) == 5
    printed = run_block(block, tmp_path, monkeypatch)
    assert "<Port 'input': f32[1,3,32,32]>" in printed
    r = run_mo("--input_model", "samples/tiny_cnn.prototxt", "--output_dir", "cli", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for ext in ("xml", "bin"):
        assert (tmp_path / "out" / f"tiny_cnn.{ext}").read_bytes() == (tmp_path / "cli" / f"tiny_cnn.{ext}").read_bytes()


def test_python_md_ten_lines_print_what_the_page_shows(tmp_path, monkeypatch):
    [block] = python_blocks("docs/python.md")
    assert len(block.strip().splitlines()) == 10
    page = (SOURCE / "docs" / "python.md").read_text()
    shown = page[page.index("prints\n\n") + len("prints\n\n"):].split("\n\n")[0]
    printed = run_block(block, tmp_path, monkeypatch)
    assert printed.splitlines() == [line[4:] for line in shown.splitlines()]
    assert os.path.exists(tmp_path / "out" / "tiny_cnn.bin")
