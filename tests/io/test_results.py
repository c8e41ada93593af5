"""Result writers: shortest round-trip floats, chunked text equal to the whole, atomic sets."""

from __future__ import annotations

import numpy as np

from goeval.io import results


def test_chunked_table_equals_whole_and_floats_round_trip(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    cols = {"method": np.array(["a"] * 10, dtype=object), "threshold": rng.random(10),
            "n": np.arange(10), "x": np.r_[0.1 + 0.2, 0.47999999999999998, np.nan, rng.random(7)]}
    results.write_table(tmp_path / "whole.tsv", cols)
    monkeypatch.setattr(results, "_CHUNK_ROWS", 3)
    results.write_table(tmp_path / "chunks.tsv", cols)
    text = (tmp_path / "chunks.tsv").read_text()
    assert text == (tmp_path / "whole.tsv").read_text()
    lines = text.splitlines()
    assert lines[0] == "method\tthreshold\tn\tx" and len(lines) == 11
    assert lines[1].split("\t")[3] == "0.30000000000000004" and lines[2].split("\t")[3] == "0.48"
    back = np.array([float(ln.split("\t")[1]) for ln in lines[1:]])
    assert np.array_equal(back, cols["threshold"])  # every float reads back to the same double


def test_records_table_and_missing_cells(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "_CHUNK_ROWS", 2)
    recs = [{"a": 1, "b": 0.5}, {"a": 2, "b": None}, {"a": 3}]
    results.write_table(tmp_path / "r.tsv", recs, ["a", "b"])
    assert (tmp_path / "r.tsv").read_text() == "a\tb\n1\t0.5\n2\t\n3\t\n"
