"""Tests of goeval.io.retrieval_lists (reference TAP-k tool format)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from goeval.errors import InputFormatError
from goeval.io.retrieval_lists import parse_retrieval_lists, read_retrieval_lists
from goeval.metrics.tapk import InsufficientErrorsError, tap_k

HERE = Path(__file__).resolve().parent
RETLISTS = HERE.parent / "data" / "external" / "tapk_retlists"
REFERENCE = json.loads((RETLISTS / "reference_values.json").read_text())


def test_reads_a_small_file():
    text = "q1\t2\n2\n1\t0.9\n0\t0.5\n\n\nq2\n0\n\nq3 0.5\n1\n0 7\n1 3 extra\n"
    lists = parse_retrieval_lists(text)
    assert lists.ids == ("q1", "q2", "q3")
    assert lists.weights.tolist() == [2.0, 1.0, 0.5]
    assert lists.n_relevant.tolist() == [2, 0, 1]
    assert lists.offsets.tolist() == [0, 2, 2, 4]
    assert lists.scores.tolist() == [0.9, 0.5, 7.0, 3.0]
    assert lists.relevance.tolist() == [True, False, False, True]


def test_crlf_and_leading_blank_lines():
    lists = parse_retrieval_lists("\r\n\r\nq\r\n1\r\n1\t0.5\r\n")
    assert lists.ids == ("q",) and lists.scores.tolist() == [0.5]


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ("q\n1\tx\n", 2, "T\\(q\\)"),  # missing T line: a record follows the query id
        ("q\n", 1, "without a T\\(q\\) line"),
        ("q\n\nr\n1\n", 1, "without a T\\(q\\) line"),
        ("q\n-1\n", 2, "T\\(q\\)"),
        ("q\n1\n1\tabc\n", 3, "score"),
        ("q\n1\n1\tnan\n", 3, "finite"),
        ("q\n1\n2\t0.5\n", 3, "0 or 1"),
        ("q\n1\n1\n", 3, "relevance<TAB>score"),
        ("q\n1\n1\t0.5\n0\t0.7\n", 4, "not ranked best-first"),
        ("q\n1\n1\t0.5\n1\t0.4\n", 4, "more relevant records than T\\(q\\) = 1"),
        ("q 1 2\n1\n", 1, "at most 2 fields"),
        ("q 0\n1\n", 1, "positive number"),
        ("q two\n1\n", 1, "positive number"),
        ("q\n0\n\nq\n0\n", 4, "already used on line 1"),
    ],
)
def test_malformed_input_names_line_and_text(text, line, match):
    with pytest.raises(InputFormatError, match=match) as info:
        parse_retrieval_lists(text, path="lists.tsv")
    assert info.value.line == line
    assert info.value.path == "lists.tsv"
    assert info.value.text == text.splitlines()[line - 1]


def test_evalues_ascend():
    text = "q\n1\n0\t1e-30\n1\t1e-5\n0\t2.0\n"
    lists = parse_retrieval_lists(text, higher_is_better=False)
    assert lists.scores.tolist() == [1e-30, 1e-5, 2.0]
    with pytest.raises(InputFormatError, match="--evalue"):
        parse_retrieval_lists(text)


def test_only_blank_text_is_rejected():
    with pytest.raises(InputFormatError, match="no retrieval list"):
        parse_retrieval_lists("\n\n")


@pytest.mark.parametrize(
    ("name", "line", "match"),
    [("nonmonotonic.tsv", 15, "not ranked best-first"), ("toomanyrelevant.tsv", 11, "more relevant records")],
)
def test_external_malformed_files_are_rejected(name, line, match):
    with pytest.raises(InputFormatError, match=match) as info:
        read_retrieval_lists(RETLISTS / name)
    assert info.value.line == line and name in str(info.value)


def test_gz_file_equals_plain_text(tmp_path):
    plain = tmp_path / "long.tsv"
    with gzip.open(RETLISTS / "long.tsv.gz", "rt") as fh:
        plain.write_text(fh.read())
    a = read_retrieval_lists(plain)
    b = read_retrieval_lists(RETLISTS / "long.tsv.gz")
    assert len(a) == len(b) == 989
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.offsets, b.offsets)


def _ref_id(run: dict) -> str:
    return run["command"].replace("TAP-k -i ", "")


@pytest.mark.parametrize("run", REFERENCE["runs"], ids=_ref_id)
def test_reference_tool_values(run):
    """Every value the reference port prints for its own test files (see the folder's README)."""
    opts = run["options"]
    hib = not (run["file"] == "asc.tsv" or opts.get("m") == "asc")
    kwargs = dict(
        higher_is_better=hib,
        quantile=float(opts.get("q", 0.5)),
        insufficient="pad" if opts.get("p") else "error",
        zero_relevant="perl",
    )
    k = int(opts["k"]) if "k" in opts else None
    threshold = float(opts["t"]) if "t" in opts else None
    if "error" in run:
        with pytest.raises((InputFormatError, InsufficientErrorsError)):
            lists = read_retrieval_lists(RETLISTS / run["file"], higher_is_better=hib)
            tap_k(lists, k, threshold=threshold, **kwargs)
        return
    lists = read_retrieval_lists(RETLISTS / run["file"], higher_is_better=hib)
    weights = np.ones(len(lists)) if opts.get("u") else None
    r = tap_k(lists, k, threshold=threshold, weights=weights, **kwargs)
    assert r.cutoff == run["e0"]
    assert r.tap == pytest.approx(run["tap"], rel=1e-12, abs=1e-15)
    got = r.per_query()
    assert set(got) == set(run["per_query"])
    for q, v in run["per_query"].items():
        assert got[q] == pytest.approx(v, rel=1e-12, abs=1e-15)
    if "weights" in run:
        assert dict(zip(lists.ids, lists.weights.tolist())) == run["weights"]


def test_bom_and_field_whitespace_are_stripped(tmp_path):
    plain = parse_retrieval_lists("q1\t2\n2\n1\t0.9\n0\t0.5\n\nq2\n1\n1\t0.3\n")
    noisy = "\ufeffq1 \t 2 \r\n 2\t\r\n1\t0.9 \r\n\ufeff0\t 0.5\t\r\n \t\r\nq2\r\n1\r\n1 0.3\r\n"
    p = tmp_path / "lists.txt"
    p.write_bytes(noisy.encode())
    got = read_retrieval_lists(p)
    assert got.ids == plain.ids == ("q1", "q2")
    for name in ("n_relevant", "weights", "offsets", "scores", "relevance"):
        assert getattr(got, name).tolist() == getattr(plain, name).tolist(), name


def test_unicode_line_separators_are_not_line_breaks():
    lists = parse_retrieval_lists("q\u20281\n1\n1\t0.5\n")
    assert lists.ids == ("q\u20281",)
    with pytest.raises(InputFormatError) as e:  # splitlines would have read 'q', '1', a record
        parse_retrieval_lists("q\x851\n1\t0.5\n")
    assert e.value.line == 2
