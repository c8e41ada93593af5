"""CAFA 6 free-text lines and lines mixing tabs and spaces: every prediction reader skips (and counts) the
first and splits the second on any whitespace, with the same rows, counts and errors whole or streamed."""

from __future__ import annotations

from pathlib import Path

import pytest

import goeval.io.predictions.reader as reader
from goeval.errors import InputFormatError
from goeval.io.predictions import PredictionBatches, read_predictions, scan_predictions
from goeval.io.predictions.parts import PartReader
from goeval.io.predictions.rules import is_text_line

from test_stream import outcome, rows, write


def _all_readers(path: Path, part_bytes: int = 1 << 20) -> list:
    """(rows, counts) of the whole-file reader, the scan and the batches."""
    whole = read_predictions(path)
    scan = scan_predictions(path, part_bytes=part_bytes)
    b = PredictionBatches(path, batch_rows=7, part_bytes=part_bytes)
    streamed = [r for part in b for r in rows(part)]
    return [(rows(whole), whole.counts), (None, scan.counts), (streamed, b.scan.counts)]


def _submission(n: int = 3000) -> str:
    lines = []
    for i in range(n):
        lines.append(f"P{i}\tGO:{i % 7}\t0.5")
        if i % 3 == 0:
            lines.append(f"P{i}\tText\t0.9\tfree text about P{i}, with spaces")
        lines.append(f"P{i}\tGO:{i % 7 + 10}\t0.25")
    return "\n".join(lines) + "\n"


def test_text_lines_are_skipped_and_counted_by_every_reader(tmp_path):
    path = write(tmp_path, "sub.tsv", _submission())
    out = _all_readers(path, part_bytes=4096)
    assert out[0][0] == out[2][0] and len(out[0][0]) == 6000
    assert all(o[1]["text_lines"] == 1000 for o in out) and out[0][1] == out[1][1] == out[2][1]
    assert all(t != "Text" for _p, t, _s in out[0][0])


def test_text_lines_keep_the_fast_readers(tmp_path, monkeypatch):
    """Thousands of free-text lines do not send a file (or a part of it) to the line-by-line reader."""
    path = write(tmp_path, "sub.tsv", _submission())

    def refuse(*args, **kwargs):
        raise AssertionError("the line-by-line reader was used")

    monkeypatch.setattr(PartReader, "_by_line", refuse)
    assert read_predictions(path).counts["text_lines"] == 1000
    br = PartReader(path, 8192)
    parts = list(br.parts())
    assert br.counts["text_lines"] == 1000
    assert parts[1].line_of(0) > parts[1].line0 - 1  # rows are numbered past the skipped lines
    lines = path.read_text().split("\n")
    for part in parts[:3]:
        for row in (0, len(part) - 1):
            fields = lines[part.line_of(row) - 1].split("\t")
            assert not is_text_line(fields) and fields[0] == part.proteins[part.pcodes[row]]


@pytest.mark.parametrize("text", ["P1\tText\t0.5", "P1 Text 0.5 words here", "P1\tText\tnot a score\t!"])
def test_a_text_line_of_any_shape_is_skipped(tmp_path, text):
    path = write(tmp_path, "p.tsv", f"P1\tGO:1\t0.5\n{text}\nP2\tGO:2\t1\n")
    for got, counts in _all_readers(path):
        assert counts["text_lines"] == 1 and got in (None, [("P1", "GO:1", 0.5), ("P2", "GO:2", 1.0)])


def test_a_text_line_after_end_is_data_after_end(tmp_path):
    path = write(tmp_path, "p.txt", "AUTHOR a\nP1\tGO:1\t0.5\nEND\nP1\tText\t0.5\tx\n")
    ref = outcome(lambda: read_predictions(path))
    assert ref[2] == 4 and "after the END" in ref[1]
    assert outcome(lambda: scan_predictions(path)) == ref


def test_lines_mixing_tabs_and_spaces_are_split_on_whitespace(tmp_path):
    """CAFA-evaluator-PK's example files mix 'target2 GO:0008150<TAB>0.0000' lines into tab-separated files."""
    body = "".join(f"T1\tGO:{k}\t0.5\n" for k in range(300)) + "".join(f"T2 GO:{k}\t0.25\n" for k in range(300))
    path = write(tmp_path, "p.tsv", body)
    out = _all_readers(path, part_bytes=2048)
    assert out[0][0] == out[2][0] and out[0][0][300] == ("T2", "GO:0", 0.25)
    assert all(o[1]["mixed_separator_lines"] == 300 for o in out) and out[0][1] == out[1][1] == out[2][1]


def test_a_mixed_line_that_is_not_three_fields_is_still_an_error(tmp_path):
    path = write(tmp_path, "p.tsv", "T1\tGO:1\t0.5\nT2 GO:2 extra\t0.25\n")
    with pytest.raises(InputFormatError) as e:
        read_predictions(path)
    assert e.value.line == 2 and "3 columns" in e.value.problem
    assert outcome(lambda: scan_predictions(path)) == outcome(lambda: read_predictions(path))


def test_the_console_says_what_was_skipped(tmp_path):
    from goeval.report.text import describe_reading

    line = describe_reading("m", {"rows_read": 4, "text_lines": 2, "mixed_separator_lines": 1})
    assert "2 free-text (Text) lines skipped" in line and "1 line mixing tabs and spaces" in line
