"""The reader table: every prediction input read through it, and a new format added by the recipe.

The recipe of ``docs/architecture.md`` ("Add a prediction format"): a reader
(``whole`` and ``batches``), its kind (a content rule and extensions) and a
test - nothing else. The JSON-lines format below follows it and is then
evaluated whole, streamed and found in a directory like the built-in one.
"""

from __future__ import annotations

import json
import pickle
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import goeval
from goeval.errors import InvalidParameterError
from goeval.io import kinds, readers
from goeval.io.kinds import FileKind, add_kind, sniff
from goeval.io.pairs import PairTable
from goeval.io.predictions import read_predictions
from goeval.io.predictions.keep import ProteinFilter
from goeval.io.readers import READERS, Reader, SpilledPredictions, add_reader, prediction_file


# --- the recipe: a reader and its kind --------------------------------------------------------------------------

def _rows(path, keep):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    kept = [r for r in rows if keep is None or r["protein"] in keep]
    return rows, kept


def read_jsonl(path, keep=None, progress=None):
    """Whole: the kept rows as a table, the others counted as the text reader counts them."""
    rows, kept = _rows(path, keep)
    t = PairTable.from_arrays([r["protein"] for r in kept], [r["term"] for r in kept],
                              [float(r["score"]) for r in kept], source=str(path))
    t.counts["rows"] = len(kept)
    if keep is not None:
        skipped = {r["protein"] for r in rows} - {r["protein"] for r in kept}
        t.counts["unread"] = {"rows": len(rows) - len(kept), "other_lines": 0, "proteins": len(skipped),
                              "examples": sorted(skipped)[:10]}
    return t


class JsonlBatches:
    """Batched: one protein per batch (the file is grouped by protein); ``scan.counts`` after the pass."""

    def __init__(self, path, batch_rows=1 << 20, keep=None, progress=None):
        self.path, self.keep, self.scan = path, keep, None

    def __iter__(self):
        whole = read_jsonl(self.path, self.keep)
        for p in dict.fromkeys(whole.proteins[whole.protein_codes].tolist()):
            sel = whole.proteins[whole.protein_codes] == p
            yield PairTable.from_arrays(whole.proteins[whole.protein_codes][sel], whole.terms[whole.term_codes][sel],
                                        whole.scores[sel], source=str(self.path))
        self.scan = SimpleNamespace(counts=dict(whole.counts))


@pytest.fixture
def jsonl_kind():
    kind = add_kind("JSONL", "jsonl-test", detect=lambda head: head.lstrip().startswith(b'{"protein"'),
                    extensions=(".jsonl",))
    add_reader(kind, Reader(read_jsonl, JsonlBatches))
    yield kind
    del FileKind._all[kind.value], READERS[kind]
    for ext in kind.extensions:
        del kinds._EXTENSIONS[ext]


def _as_jsonl(tsv, out):
    t = read_predictions(tsv)
    with open(out, "w", encoding="utf-8") as f:
        for p, term, s in zip(t.proteins[t.protein_codes], t.terms[t.term_codes], t.scores):
            f.write(json.dumps({"protein": p, "term": term, "score": float(s)}) + "\n")
    return out


# --- the format is read where predictions are given -------------------------------------------------------------

def test_a_new_format_is_recognised_by_its_rule_and_gets_its_reader(tmp_path, jsonl_kind):
    path = _as_jsonl(goeval.example_path("predictions"), tmp_path / "blast.jsonl")
    assert sniff(path) is jsonl_kind
    pred = prediction_file(path)
    assert pred.kind is jsonl_kind and pred.read().scores.size == read_predictions(
        goeval.example_path("predictions")).scores.size
    assert pickle.loads(pickle.dumps(pred)).kind is jsonl_kind  # a worker gets the same reader
    assert ".jsonl" in kinds.prediction_extensions()


@pytest.mark.parametrize("stream", [False, True])
def test_a_new_format_evaluates_exactly_as_the_same_predictions_in_the_text_format(tmp_path, jsonl_kind, stream):
    folder = tmp_path / "preds"
    folder.mkdir()
    _as_jsonl(goeval.example_path("predictions"), folder / "blast.jsonl")
    args = (goeval.example_path("ontology"), goeval.example_path("truth"))
    new = goeval.evaluate(*args, [folder], ia=goeval.example_path("ia"), stream=stream)
    old = goeval.evaluate(*args, {"blast": goeval.example_path("predictions")}, ia=goeval.example_path("ia"))
    assert list(new.diagnostics["methods"]) == ["blast"]  # found in the directory by the kind's extension
    pd.testing.assert_frame_equal(new.summary, old.summary)
    pd.testing.assert_frame_equal(new.curves, old.curves)
    d = new.diagnostics["methods"]["blast"]
    assert d["proteins_not_in_truth"] == old.diagnostics["methods"]["blast"]["proteins_not_in_truth"]
    if stream:
        assert new.diagnostics["streaming"]["streamed"] == ["blast"]


def test_a_taken_kind_and_a_prediction_reader_without_batches_are_refused(jsonl_kind):
    with pytest.raises(InvalidParameterError, match="exists already"):
        add_kind("JSONL", "jsonl-test", detect=lambda head: False)
    with pytest.raises(InvalidParameterError, match="needs a 'batches' function"):
        add_reader(jsonl_kind, Reader(read_jsonl))


def test_every_builtin_kind_read_by_goeval_has_a_reader():
    for kind in (FileKind.PREDICTIONS, FileKind.TRUTH, FileKind.GAF, FileKind.IA, FileKind.ID_LIST, FileKind.FASTA,
                 FileKind.OBO, FileKind.HITS):
        assert readers.reader_of(kind).whole is not None
    with pytest.raises(InvalidParameterError, match="No reader reads files of kind 'unknown'"):
        readers.reader_of(FileKind.UNKNOWN)


def test_the_evaluation_opens_no_file():
    """``evaluation/`` reads predictions only through the inputs io gives it (the reader table)."""
    import pathlib

    src = pathlib.Path(goeval.__file__).parent / "evaluation"
    for f in src.glob("*.py"):
        text = f.read_text(encoding="utf-8")
        for name in ("open(", "read_predictions", "PredictionBatches", "PartReader", "read_text", "read_bytes"):
            assert name not in text.replace("# ", ""), f"{f.name} uses {name}"


# --- a file read once, its kept batches replayed ----------------------------------------------------------------

def test_spilled_batches_replay_the_kept_rows_with_the_readers_counts(tmp_path):
    path = goeval.example_path("predictions")
    whole = read_predictions(path)
    keep = ProteinFilter(whole.proteins[:20].tolist())
    kept = read_predictions(path, keep=keep)
    with SpilledPredictions(prediction_file(path), keep, batch_rows=50) as spill:
        for _ in range(2):  # as often as asked
            replay = spill.batches()
            parts = list(replay)
            assert len(parts) > 1
            got = np.concatenate([p.proteins[p.protein_codes] for p in parts])
            np.testing.assert_array_equal(got, kept.proteins[kept.protein_codes])
            np.testing.assert_array_equal(np.concatenate([p.scores for p in parts]), kept.scores)
            assert replay.scan.counts["unread"] == kept.counts["unread"]
        assert spill.read().counts == kept.counts


def test_a_spilled_file_that_is_not_grouped_says_so_when_replayed(tmp_path):
    from goeval.errors import UngroupedPredictionsError

    path = tmp_path / "p.tsv"
    path.write_text("P1\tGO:0003674\t0.5\n" * 3 + "P2\tGO:0003674\t0.5\n" * 3 + "P1\tGO:0005488\t0.4\n")
    with SpilledPredictions(prediction_file(path), None, batch_rows=2) as spill:
        with pytest.raises(UngroupedPredictionsError):
            list(spill.batches())
        assert len(spill.read()) == 7


def test_started_batches_are_the_readers_batches_sent_by_a_forked_child(tmp_path):
    """start_read_predictions with batch_rows: a forked child sends the kept batches (the truth's proteins) and
    then the reader's counts, as the file's own batches and counts; read() reads the file whole here."""
    from goeval.io.background import fork_supported, live_children
    from goeval.io.predictions import start_read_predictions
    from goeval.io.predictions.keep import ProteinFilter
    from goeval.io.readers import StartedBatches
    from goeval.io.truth import read_annotation_tables

    if not fork_supported():
        pytest.skip("forked reads need Linux")
    path, truth = goeval.example_path("predictions"), goeval.example_path("truth")
    keep = ProteinFilter.of(read_annotation_tables(truth))
    want = readers.prediction_file(path).batches(500, keep=keep)
    want_tables = list(want)
    started = start_read_predictions(path, truth=truth, batch_rows=500, fork=True)
    assert isinstance(started, StartedBatches) and started.started and not started.shippable
    got = started.batches()
    got_tables = list(got)
    assert len(got_tables) == len(want_tables) > 1
    for a, b in zip(got_tables, want_tables):
        for f in ("protein_codes", "proteins", "term_codes", "terms", "scores"):
            assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert got.scan.counts == want.scan.counts and live_children() == []
    whole = started.read(keep=keep)
    assert len(whole) == sum(len(t) for t in want_tables)
