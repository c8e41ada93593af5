"""A prediction reader given the proteins to keep: the rows of the whole read of those proteins, in the same
order, the other lines counted and never parsed, the same errors on the kept proteins' lines, and errors raised
at once (bounded memory on hostile streams)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goeval.errors import InputFormatError
from goeval.io.predictions import PredictionBatches, read_predictions
from goeval.io.predictions.parts import PartReader
from goeval.io.predictions.keep import ProteinFilter

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def rows(table) -> list[tuple[str, str, float]]:
    return list(zip(table.proteins[table.protein_codes].tolist(), table.terms[table.term_codes].tolist(),
                    table.scores.tolist()))


def outcome(fn):
    try:
        return fn()
    except InputFormatError as exc:
        return ("error", exc.line, exc.problem)


LINE = st.one_of(
    st.tuples(st.sampled_from(["P1", "P2", "Q1", "Q2", "Q3"]), st.sampled_from(["GO:1", "GO:2", "GO:3"]),
              st.sampled_from(["0.5", "1", "0", ".25", "1e-2"])).map(lambda t: "\t".join(t)),
    st.sampled_from(["", "P1 GO:4 0.5", "Q1 GO:4\t0.5", "Q2\tText\t0.9\tfree text", "P2\tText\t0.1\twords"]),
)
BAD = st.sampled_from(["Q1\tGO:1", "Q2\tGO:1\tx", "Q3\t\t0.5", "Q1\tGO:1\t2", "P1\tGO:1", "P2\tGO:2\tnan",
                       "P1\tGO:1\t0.5\textra"])


@SETTINGS
@given(lines=st.lists(LINE, max_size=60), bad=st.lists(st.tuples(st.integers(0, 60), BAD), max_size=3),
       part_bytes=st.sampled_from([16, 64, 1 << 20]))
def test_kept_rows_are_the_whole_reads_rows_of_those_proteins(tmp_path_factory, lines, bad, part_bytes):
    for at, line in bad:
        lines.insert(min(at, len(lines)), line)
    path = tmp_path_factory.mktemp("f") / "p.tsv"
    path.write_text("\n".join(lines) + "\n")
    keep = {"P1", "P2"}
    got = outcome(lambda: read_predictions(path, keep=keep, part_bytes=part_bytes))
    if not any(line.strip() for line in lines):
        assert got == ("error", None, "the file is empty")
        return
    bad_lines = {b for _, b in bad}
    first = next((k for k, line in enumerate(lines) if line.strip()), None)  # the file's first line is checked
    first_bad = 1 + first if first is not None and lines[first] in bad_lines else next(
        (k + 1 for k, line in enumerate(lines) if line in bad_lines and line[:2] in keep), None)
    if first_bad is not None:  # a malformed first data line, or line of a kept protein: an error at that line
        assert got[0] == "error" and got[1] == first_bad
        return
    assert not isinstance(got, tuple)
    kept_lines = [line for line in lines if line and line.split()[0] in keep and "Text" not in line]
    expect = [(p, t, float(s)) for p, t, s in (line.split() for line in kept_lines)]
    assert rows(got) == expect
    others = [line for line in lines if line and line.split()[0] not in keep and "\tText\t" not in line]
    unread = got.counts["unread"]
    assert unread["rows"] + unread["other_lines"] == len(others)
    assert unread["proteins"] == len({line.split()[0] for line in others})  # free-text lines name no protein
    assert got.counts.get("text_lines", 0) == sum("Text" in line for line in lines)


def test_without_bad_lines_the_filter_equals_the_whole_read_filtered(tmp_path):
    rng = np.random.default_rng(0)
    lines = [f"{'PQ'[i % 2]}{i // 40}\tGO:{rng.integers(9)}\t{rng.integers(1, 1000) / 1000}" for i in range(4000)]
    path = tmp_path / "p.tsv"
    path.write_text("\n".join(lines) + "\n")
    keep = {f"P{i}" for i in range(0, 100, 3)}
    whole = rows(read_predictions(path))
    for part_bytes in (128, 4096, 1 << 23):
        got = read_predictions(path, keep=keep, part_bytes=part_bytes)
        assert rows(got) == [r for r in whole if r[0] in keep]
        assert got.counts["unread"]["rows"] == sum(r[0] not in keep for r in whole)
        streamed = [r for b in PredictionBatches(path, batch_rows=50, part_bytes=part_bytes, keep=keep) for r in rows(b)]
        assert streamed == rows(got)


def test_a_malformed_line_of_a_kept_protein_is_named_and_of_another_counted(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("Q0\tGO:1\t0.5\nQ1\tGO:1\tnot a score\nP1\tGO:1\t0.5\nQ2\tGO:1\nP1\tGO:2\n")
    with pytest.raises(InputFormatError) as exc:
        read_predictions(path, keep=["P1"])
    assert exc.value.line == 5 and "expected 3 columns" in exc.value.problem
    path.write_text("Q1\tGO:1\t0.5\nQ1\tGO:1\tnot a score\nP1\tGO:1\t0.5\nQ2\tGO:1\n")
    got = read_predictions(path, keep=ProteinFilter(["P1"]))
    assert rows(got) == [("P1", "GO:1", 0.5)]
    assert got.counts["unread"] == {"rows": 2, "other_lines": 1, "proteins": 2, "examples": ["Q1", "Q2"]}


def test_an_empty_protein_field_is_still_an_error_with_a_filter(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("P1\tGO:1\t0.5\n\tGO:2\t0.5\n")
    with pytest.raises(InputFormatError) as exc:
        read_predictions(path, keep=["P1"])
    assert exc.value.line == 2


def test_a_bad_first_line_is_an_error_before_the_rest_is_read(tmp_path, monkeypatch):
    """Fail fast: the error of line 1 is raised after the first part, not after the whole file."""
    path = tmp_path / "p.tsv"
    path.write_bytes(b"P1\tGO:1\n" + b"P2\tGO:1\t0.5\n" * 200_000)
    seen = []
    real = PartReader._part

    def counting(self, parsed, line0):
        seen.append(line0)
        return real(self, parsed, line0)

    monkeypatch.setattr(PartReader, "_part", counting)
    with pytest.raises(InputFormatError) as exc:
        read_predictions(path, part_bytes=1 << 16)
    assert exc.value.line == 1 and len(seen) == 1


@pytest.mark.parametrize("keep", [None, ["P1"]])
def test_a_stream_that_decompresses_to_one_huge_line_stops_at_the_line_limit(tmp_path, monkeypatch, keep):
    """A small gzip of zeros (no line end) is refused once the line limit is read, not after inflating it all."""
    from goeval.io.predictions import parts

    monkeypatch.setattr(parts, "MAX_LINE_BYTES", 1 << 20)
    path = tmp_path / "bomb.tsv.gz"
    with gzip.open(path, "wb") as fh:
        for _ in range(64):
            fh.write(b"\0" * (1 << 20))  # 64 MiB of zeros, about 64 kB on disk
    reads = []
    real = gzip.GzipFile.read

    def read(self, n=-1):
        out = real(self, n)
        reads.append(len(out))
        return out

    monkeypatch.setattr(gzip.GzipFile, "read", read)
    with pytest.raises(InputFormatError) as exc:
        read_predictions(path, keep=keep, part_bytes=1 << 16)
    assert "longer than" in exc.value.problem and exc.value.line == 1
    assert sum(reads) < 4 << 20  # a few times the limit at most, never the 64 MiB


def test_a_long_line_in_the_middle_is_named(tmp_path):
    from goeval.io.predictions.parts import MAX_LINE_BYTES

    path = tmp_path / "p.tsv"
    path.write_bytes(b"P1\tGO:1\t0.5\n" * 3 + b"P2\tGO:1\t" + b"1" * (MAX_LINE_BYTES + 10) + b"\n")
    with pytest.raises(InputFormatError) as exc:
        read_predictions(path)
    assert exc.value.line == 4 and "longer than" in exc.value.problem


def test_the_rows_lines_are_found_again_when_asked(tmp_path):
    """A part's rows skip the unread lines; their line numbers come from reading the part again."""
    path = tmp_path / "p.tsv"
    path.write_text("".join(f"Q{i}\tGO:1\t0.5\nP{i}\tGO:2\t0.5\n" for i in range(50)))
    parts = list(PartReader(path, 64, ProteinFilter([f"P{i}" for i in range(50)])).parts())
    lines = path.read_text().split("\n")
    for part in parts:
        for row in range(len(part)):
            assert lines[part.line_of(row) - 1].startswith(part.proteins[part.pcodes[row]] + "\t")


def test_a_truth_that_decompresses_to_one_huge_line_stops_at_the_line_limit(tmp_path, monkeypatch):
    """The whole-file readers (truth, IA, GAF, lists) stop at the line limit too."""
    from goeval.io import files
    from goeval.io.truth import read_truth

    monkeypatch.setattr(files, "MAX_LINE_BYTES", 1 << 20)
    path = tmp_path / "truth.tsv.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b"P1\tGO:1\n")
        for _ in range(64):
            fh.write(b"\0" * (1 << 20))
    with pytest.raises(InputFormatError) as exc:
        read_truth(path)
    assert exc.value.line == 2 and "longer than" in exc.value.problem


def test_the_first_data_line_is_checked_whatever_its_protein(tmp_path):
    """A file that is something else (an IA file among the predictions) is named as such with a filter too."""
    path = tmp_path / "IA.txt"
    path.write_text("GO:0000001\t3.5\nGO:0000002\t0.25\n")
    with pytest.raises(InputFormatError) as exc:
        read_predictions(path, keep=["P1"])
    assert exc.value.line == 1 and "--ia" in str(exc.value)


def test_a_protein_field_with_spaces_or_a_byte_order_mark_is_its_trimmed_name(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("Q1\tGO:1\t0.5\n P1 \tGO:1\t0.5\n\ufeffP2\tGO:2\t0.25\nQ2 \tGO:3\t1\n")
    got = read_predictions(path, keep=["P1", "P2"])
    assert rows(got) == [("P1", "GO:1", 0.5), ("P2", "GO:2", 0.25)]
    assert got.counts["unread"]["examples"] == ["Q1", "Q2"]


def test_a_filter_that_keeps_most_rows_reads_the_same_rows(tmp_path):
    """When most rows are kept, the next parts are converted as without a filter: the same rows and counts."""
    lines = [f"{'PQ'[i % 10 == 0]}{i // 5}\tGO:{i % 7}\t{(i % 997 + 1) / 1000}" for i in range(5000)]
    lines[4000] = "Q800\tGO:1\tnot a score"  # an unread line that fails Arrow's float column: the line rule decides
    path = tmp_path / "p.tsv"
    path.write_text("\n".join(lines) + "\n")
    keep = {line.split("\t")[0] for line in lines if line.startswith("P")}
    got = read_predictions(path, keep=keep, part_bytes=2048)
    assert rows(got) == [(p, t, float(s)) for p, t, s in (line.split("\t") for line in lines) if p in keep]
    assert got.counts["unread"]["rows"] == sum(not line.startswith("P") for line in lines)
