"""Conversions in threads at once (the same bytes as one after the other), the GIL released while
mo converts, and no leak: 200 conversions in one process keep the resident set flat."""
import threading
import time

import numpy as np
import pytest

import mo
from big_chain import chain_model
from conftest import LLM, TINY_CNN, saved_ir


def convert_and_save(source, tmp_path, stem, **keywords):
    return saved_ir(mo.convert_model(source, **keywords), tmp_path, stem)


def test_two_conversions_in_two_threads_give_the_bytes_of_one_after_the_other(tmp_path):
    pytest.importorskip("onnx")
    chain = chain_model(3000).SerializeToString()
    jobs = [(chain, "chain", {}), (LLM, "llm", {"transform": "MakeStateful"})]
    sequential = [convert_and_save(src, tmp_path / "seq", stem, **kw) for src, stem, kw in jobs]
    results = [None, None]
    barrier = threading.Barrier(2)

    def work(i):
        src, stem, kw = jobs[i]
        barrier.wait()
        results[i] = convert_and_save(src, tmp_path / f"thread{i}", stem, **kw)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == sequential
    # The same model twice at once, too.
    same = [None, None]
    barrier = threading.Barrier(2)

    def again(i):
        barrier.wait()
        same[i] = convert_and_save(chain, tmp_path / f"again{i}", "chain")

    threads = [threading.Thread(target=again, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert same == [sequential[0], sequential[0]]


def test_the_gil_is_released_while_mo_converts_runs_and_saves(tmp_path):
    """A Python thread keeps counting while another thread is inside mo: with the GIL held it
    could not run at all between the call's start and end. Each call's work doubles until one call
    lasts long enough to tell, so a fast or a busy machine gives the same verdict."""
    pytest.importorskip("onnx")

    def convert(scale):
        chain = chain_model(2000 * scale).SerializeToString()
        return lambda: mo.convert_model(chain)

    def run(scale):
        batch = 64 * scale
        model = mo.convert_model(chain_model(2000, 256, batch).SerializeToString())
        x = np.ones((batch, 256), np.float32)
        return lambda: model.run([x])

    def save(scale):
        model = mo.convert_model(chain_model(2000 * scale).SerializeToString())
        return lambda: model.save(tmp_path / "chain.xml")

    for name, prepare in {"convert": convert, "run": run, "save": save}.items():
        for scale in (1, 2, 4, 8, 16):
            call = prepare(scale)
            ticks = []
            done = threading.Event()

            def count():
                while not done.is_set():
                    ticks.append(time.perf_counter())

            counter = threading.Thread(target=count)
            counter.start()
            time.sleep(0.01)
            start = time.perf_counter()
            call()
            end = time.perf_counter()
            done.set()
            counter.join()
            if end - start > 0.05:
                break
        inside = [t for t in ticks if start + 0.2 * (end - start) < t < end - 0.2 * (end - start)]
        assert end - start > 0.05, f"{name} took {end - start:.3f} s at 16x the work: too short to tell"
        assert len(inside) > 100, f"{name}: {len(inside)} ticks of another thread in {end - start:.3f} s"


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def test_200_conversions_keep_the_resident_set_flat(tmp_path):
    x = np.ones((1, 3, 32, 32), np.float32)

    def one(i):
        model = mo.convert_model(TINY_CNN)
        model.run([x])
        model.save(tmp_path / f"m{i % 2}.xml")

    for i in range(20):  # warm up: allocator pools, imported modules, lazily built tables
        one(i)
    before = rss_mib()
    for i in range(200):
        one(i)
    grown = rss_mib() - before
    assert grown < 10.0, f"RSS grew by {grown:.1f} MiB over 200 conversions"
