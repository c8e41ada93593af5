"""Fold files: reading, writing, errors with file and line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.folds import read_folds, write_folds
from conftest import DATA


def test_read_toy_folds():
    t = read_folds(DATA / "benchmarks" / "folds.tsv")
    assert t.proteins.tolist() == ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]
    assert t.folds.tolist() == [0, 0, 1, 1, 2, 2, 2]
    assert t.counts["header_lines"] == 1 and t.counts["rows"] == 7


def test_neutral_variants_and_counts(tmp_path):
    p = tmp_path / "f.tsv.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("\ufeff# made by hand\n a \t 1 \n\nb\t0\na\t1\n")
    t = read_folds(p)
    assert t.as_dict() == {"a": 1, "b": 0}
    assert t.counts == {"rows": 3, "header_lines": 0, "comment_lines": 1, "blank_lines": 1, "duplicate_rows": 1}


@pytest.mark.parametrize("text, line, problem", [
    ("a\t0\nb\n", 2, "expected 2 tab-separated columns"),
    ("a\t0\nb\t1\t2\n", 2, "expected 2 tab-separated columns"),
    ("a\t0\nb\tone\n", 2, "non-negative integer"),
    ("a\t0\nb\t-1\n", 2, "non-negative integer"),
    ("a\t0\nb\t1.5\n", 2, "non-negative integer"),
    ("protein\tfold\na\t0\nb\t2\na\t1\n", 4, "fold 1 here and fold 0 on line 2"),
    ("\tfold\n", 1, "empty protein"),
])
def test_malformed_lines_name_file_line_and_text(tmp_path, text, line, problem):
    p = tmp_path / "bad.tsv"
    p.write_text(text)
    with pytest.raises(InputFormatError) as err:
        read_folds(p)
    assert err.value.line == line and problem in err.value.problem
    assert str(p) in str(err.value) and err.value.text == text.split("\n")[line - 1]


def test_no_rows_is_an_error(tmp_path):
    p = tmp_path / "empty.tsv"
    p.write_text("protein\tfold\n")
    with pytest.raises(InputFormatError, match="no protein<TAB>fold lines"):
        read_folds(p)


def test_write_read_round_trip(tmp_path):
    write_folds(tmp_path / "o" / "folds.tsv", ["x", "y"], np.array([3, 0]))
    assert (tmp_path / "o" / "folds.tsv").read_text() == "protein\tfold\nx\t3\ny\t0\n"
    assert read_folds(tmp_path / "o" / "folds.tsv").as_dict() == {"x": 3, "y": 0}
    with pytest.raises(InvalidParameterError, match="one fold per protein"):
        write_folds(tmp_path / "z.tsv", ["x"], [0, 1])
    with pytest.raises(InvalidParameterError, match="folds >= 0"):
        write_folds(tmp_path / "z.tsv", ["x"], [-1])
