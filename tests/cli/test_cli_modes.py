"""Every way of running ``goeval evaluate`` writes the same summary.tsv and curves.tsv bytes.

Modes: the compiled-ontology cache off, cold and warm; prediction files read
whole or streamed; serial, threads, and a 2-worker Dask cluster; exact
thresholds and a grid. The bundled example (CAFA2's BLAST baseline) and a
random case split into many leaves are used.
"""

from __future__ import annotations

import itertools

import pytest

import goeval
from goeval.cli import main

EXAMPLE = [goeval.example_path(k) for k in ("ontology", "truth", "predictions", "ia")]


def _run(out, extra, files=EXAMPLE) -> dict[str, bytes]:
    onto, truth, preds, ia = files
    args = ["evaluate", "--ontology", str(onto), "--truth", str(truth), "--predictions", str(preds), "--ia", str(ia),
            "--out", str(out), "-q", *extra]
    assert main(args) == 0
    return {name: (out / name).read_bytes() for name in ("summary.tsv", "curves.tsv")}


@pytest.mark.parametrize("thresholds", ["exact", "0.01"])
def test_cache_stream_and_threads_give_the_same_files(tmp_path, thresholds):
    cache = tmp_path / "cache.npz"
    modes = {
        "no cache": ["--no-cache"],
        "cold cache": ["--ontology-cache", str(cache)],
        "warm cache": ["--ontology-cache", str(cache)],
    }
    for (name, flags), stream, threads in itertools.product(list(modes.items()), (False, True), ("1", "2")):
        extra = [*flags, "--thresholds", thresholds, "--threads", threads] + (["--stream"] if stream else [])
        got = _run(tmp_path / f"{name}-{stream}-{threads}".replace(" ", "_"), extra)
        if name == "no cache" and not stream and threads == "1":
            ref = got
        assert got == ref, (name, stream, threads)
    assert cache.is_file()


def test_dask_local_cluster_gives_the_same_files(tmp_path):
    pytest.importorskip("distributed")
    ref = _run(tmp_path / "serial", ["--no-cache"])
    assert _run(tmp_path / "dask", ["--no-cache", "--dask", "local:2"]) == ref
    assert _run(tmp_path / "dask-stream", ["--no-cache", "--dask", "local:2", "--stream"]) == ref


def test_bad_dask_address_fails_before_reading(tmp_path, capsys):
    onto, truth, preds, ia = EXAMPLE
    code = main(["evaluate", "--ontology", str(onto), "--truth", str(truth), "--predictions", str(preds),
                 "--out", str(tmp_path / "o"), "--dask", "localhost"])
    assert code == 2
    assert "local:N" in capsys.readouterr().err
    assert not (tmp_path / "o" / "summary.tsv").exists()
