"""Streaming evaluation (goeval.evaluate(stream=True), evaluate --stream) against the in-memory one.

The statistics, curves, summary and counts must be the same bits whatever
the batch size, the leaf size, the executor, and whether a file is grouped
by protein (an ungrouped file falls back to the in-memory path).
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from oracles import random_case

import goeval
import goeval.evaluation.leaves as leaves
import goeval.evaluation.run as run
from goeval.io.results import jsonable

OPTION_SETS = [
    {"thresholds": "exact"},
    {"thresholds": 0.01},
    {"thresholds": "exact", "propagation": "fill", "normalization": "gt", "max_terms": 4},
    {"thresholds": 0.05, "exclude_roots": True, "namespaces": ("alpha",)},
]


def _write_case(tmp: Path, seed: int = 2, grouped: bool = True, n_proteins: int = 50):
    case = random_case(seed, n_proteins=n_proteins, max_pred=12, n_terms=(15, 40))
    onto = case.ontology()
    pred_lines = [f"{p}\t{t}\t{s!r}" for (p, t), s in case.scores.items()]
    if grouped:
        pred_lines.sort(key=lambda line: line.split("\t")[0])
    else:
        np.random.default_rng(seed).shuffle(pred_lines)
    (tmp / "preds").mkdir(exist_ok=True)
    (tmp / "preds" / "m.tsv").write_text("\n".join(pred_lines) + "\n")
    (tmp / "preds" / "m2.tsv").write_text("AUTHOR x\nMODEL 1\nKEYWORDS none.\n" + "\n".join(
        line.replace("\t", " ") for line in pred_lines[: len(pred_lines) // 2]) + "\nEND\n")
    (tmp / "truth.tsv").write_text("".join(f"{p}\t{t}\n" for p, t in case.truth))
    ia = case.ia_array(onto)
    return onto, tmp / "truth.tsv", tmp / "preds", ia


def _bits(res, skip: tuple[str, ...] = ("streaming",)) -> tuple:
    summary = [{k: repr(v) for k, v in r.items()} for r in res.summary_records]
    curves = {c: np.asarray(v) for c, v in res.curve_columns.items()}
    diag = jsonable({k: v for k, v in res.diagnostics.items() if k not in skip})
    return summary, curves, json.dumps(diag)


def _assert_same(a, b, skip: tuple[str, ...] = ("streaming",)) -> None:
    sa, ca, da = _bits(a, skip)
    sb, cb, db = _bits(b, skip)
    assert sa == sb
    assert list(ca) == list(cb)
    for c in ca:
        assert np.array_equal(ca[c], cb[c]), c
    assert da == db


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("batch_rows", [1, 7, 1 << 20])
def test_streamed_equals_in_memory(tmp_path, monkeypatch, options, batch_rows):
    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 9)
    monkeypatch.setattr(run, "BATCH_ROWS", batch_rows)
    onto, truth, preds, ia = _write_case(tmp_path)
    mem = goeval.evaluate(onto, truth, [preds], ia=ia, **options)
    st = goeval.evaluate(onto, truth, [preds], ia=ia, stream=True, **options)
    assert st.diagnostics["streaming"]["streamed"] == ["m", "m2"]
    _assert_same(mem, st)


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
def test_streamed_with_targets_terms_and_an_executor(tmp_path, monkeypatch):
    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 5)
    onto, truth, preds, ia = _write_case(tmp_path, seed=5)
    proteins = sorted({line.split("\t")[0] for line in truth.read_text().splitlines()})
    terms = list(onto.ids[::2])
    kw = dict(ia=ia, targets=proteins[::2] + ["not_a_protein"], excluded_terms=terms[:5], thresholds="exact")
    mem = goeval.evaluate(onto, truth, [preds], **kw)
    with cf.ThreadPoolExecutor(2) as pool:
        st = goeval.evaluate(onto, truth, [preds], stream=True, executor=pool, **kw)
    _assert_same(mem, st)


def test_ungrouped_file_falls_back_with_a_warning(tmp_path, monkeypatch):
    """A protein back in a later batch: the file is read whole (within one batch it is simply read)."""
    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 9)
    monkeypatch.setattr(run, "BATCH_ROWS", 5)
    onto, truth, preds, ia = _write_case(tmp_path, grouped=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = goeval.evaluate(onto, truth, [preds], ia=ia)
    with pytest.warns(goeval.errors.GoevalWarning, match="read whole, not streamed"):
        st = goeval.evaluate(onto, truth, [preds], ia=ia, stream=True)
    assert "m" in st.diagnostics["streaming"]["in_memory"]
    assert "not grouped by protein" in st.diagnostics["streaming"]["in_memory"]["m"]
    assert any("P" in w and "read whole" in w for w in st.diagnostics["warnings"])
    _assert_same(mem, st, skip=("streaming", "warnings"))


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
@pytest.mark.parametrize("extra", [{"bootstrap": 10}, {"similarity": ("lin", "jaccard")}, {"root_as_prediction": True},
                                   {"root_as_prediction": True, "thresholds": 0.01}, {"known": "half"}])
def test_every_option_streams_with_the_in_memory_bits(tmp_path, monkeypatch, extra):
    """Bootstrap, similarity, roots and known terms come from the same leaves, streamed or not."""
    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 9)
    monkeypatch.setattr(run, "BATCH_ROWS", 7)
    onto, truth, preds, ia = _write_case(tmp_path)
    if "known" in extra:
        lines = truth.read_text().splitlines()
        (tmp_path / "known.tsv").write_text("\n".join(lines[::2]) + "\n")
        extra = {"known": tmp_path / "known.tsv"}
    mem = goeval.evaluate(onto, truth, [preds], ia=ia, **extra)
    st = goeval.evaluate(onto, truth, [preds], ia=ia, stream=True, **extra)
    assert st.diagnostics["streaming"]["streamed"] == ["m", "m2"]
    _assert_same(mem, st)
    if "bootstrap" in extra:
        for key, s in mem.stats.items():
            a, b = s.protein_steps, st.stats[key].protein_steps
            for f in ("rows", "bins", "row_bounds", "group_bounds"):
                assert np.array_equal(getattr(a, f), getattr(b, f)), f
            for f in ("cnt", "tp", "ia_pred", "ia_tp"):
                assert np.array_equal(a.totals[f], b.totals[f]), f


def test_malformed_line_in_a_streamed_file_names_the_line(tmp_path):
    onto, truth, preds, ia = _write_case(tmp_path)
    lines = (preds / "m.tsv").read_text().splitlines()
    lines.insert(30, "P1\tGO:1")
    (preds / "m.tsv").write_text("\n".join(lines) + "\n")
    with pytest.raises(goeval.errors.InputFormatError, match="line 31"):
        goeval.evaluate(onto, truth, [preds], ia=ia, stream=True)


def test_cli_stream_gives_the_same_files(tmp_path):
    from goeval.cli import main

    onto = goeval.example_path("ontology")
    args = ["evaluate", "--ontology", str(onto), "--truth", str(goeval.example_path("truth")), "--predictions",
            str(goeval.example_path("predictions")), "--ia", str(goeval.example_path("ia")), "-q"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    assert main(args + ["--out", str(tmp_path / "b"), "--stream"]) == 0
    for name in ("summary.tsv", "curves.tsv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
def test_streamed_files_on_a_two_worker_dask_cluster(tmp_path, monkeypatch):
    """Each file streamed by a worker: the in-memory bits (an ungrouped file falls back in this process)."""
    pytest.importorskip("distributed")
    from goeval.evaluation.parallel import dask_executor

    monkeypatch.setattr(run, "BATCH_ROWS", 6)  # in the setup the workers receive
    onto, truth, preds, ia = _write_case(tmp_path, seed=8)
    (preds / "shuffled.tsv").write_text("\n".join(sorted((preds / "m.tsv").read_text().splitlines(),
                                                          key=lambda line: line.split("\t")[1])) + "\n")
    mem = goeval.evaluate(onto, truth, [preds], ia=ia, thresholds="exact")
    with dask_executor("local:2") as ex:
        st = goeval.evaluate(onto, truth, [preds], ia=ia, thresholds="exact", stream=True, executor=ex)
    assert st.diagnostics["streaming"]["streamed"] == ["m", "m2"]
    assert list(st.diagnostics["streaming"]["in_memory"]) == ["shuffled"]
    _assert_same(mem, st, skip=("streaming", "warnings"))


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
@pytest.mark.parametrize("grouped", [True, False])
def test_batches_sent_by_a_forked_reader_give_the_in_memory_bits(tmp_path, monkeypatch, grouped):
    """A file whose kept batches a forked child sends as it reads them (goeval evaluate's large first file) is
    evaluated batch by batch as they come, with the bits and the diagnostics of the in-memory run; a file not
    grouped by protein is read whole instead, with the same bits, and a warning says so."""
    from goeval.io.predictions import start_read_predictions
    from goeval.io.readers import StartedBatches

    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 9)
    onto, truth, preds, ia = _write_case(tmp_path, grouped=grouped)
    mem = goeval.evaluate(onto, truth, {"m": preds / "m.tsv"}, ia=ia, thresholds="exact")
    started = start_read_predictions(preds / "m.tsv", truth=truth, batch_rows=7, fork=True)
    assert isinstance(started, StartedBatches) and started.pending.forked
    st = goeval.evaluate(onto, truth, {"m": started}, ia=ia, thresholds="exact")
    if grouped:
        assert "streaming" not in st.diagnostics
        _assert_same(mem, st)
    else:  # read again, whole: said (a warning naming why), never silently
        assert list(st.diagnostics["streaming"]["in_memory"]) == ["m"]
        assert any("m: its file is read a second time, whole" in w and "not grouped by protein" in w
                   for w in st.diagnostics["warnings"])
        _assert_same(mem, st, skip=("streaming", "warnings"))
    assert goeval.io.background.live_children() == []
