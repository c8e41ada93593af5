"""Tests of goeval.io.biocreative (BioCreative II.5 result and gold files, §3.2)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import shared_path
from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.biocreative import (
    BiocreativeFormatError,
    parse_gold,
    parse_results,
    read_gold,
    read_results,
    validate_result_lines,
)

HERE = Path(__file__).resolve().parent
LOCAL = HERE.parent / "data" / "cases" / "iprauc" / "result_file_validation_cases.json"


def _cases(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cases"]


def _check(case: dict) -> None:
    lines = case["text"].splitlines()
    issues = validate_result_lines(lines, case["task"])
    assert [[i.line, i.code] for i in issues] == case["expected_errors"]
    assert [i.message for i in issues] == case["expected_messages"]
    by_set = validate_result_lines(lines, case["task"], rank_file_order=False)
    assert [[i.line, i.code] for i in by_set] == case["expected_errors_rank_set_only"]


@pytest.mark.parametrize("case", _cases(LOCAL), ids=lambda c: c["name"])
def test_local_validation_cases(case):
    _check(case)


@pytest.mark.parametrize("name", [c["name"] for c in _cases(LOCAL)])
def test_shared_validation_cases(name):
    _check(next(c for c in _cases(shared_path("cases", "iprauc", "result_file_validation_cases.json"))
                if c["name"] == name))


def test_every_problem_is_listed_in_one_error():
    case = next(c for c in _cases(LOCAL) if c["name"] == "INT_errors")
    with pytest.raises(BiocreativeFormatError) as info:
        parse_results(case["text"], "INT", path="run1.tsv")
    err = info.value
    assert isinstance(err, InputFormatError)
    assert len(err.issues) == 11 and err.line == 2 and err.path == "run1.tsv"
    text = str(err)
    assert text.startswith("run1.tsv: 11 problems in the INT result file")
    for issue in err.issues:
        assert f"line {issue.line}: {issue.code}: {issue.message}" in text


def test_parse_valid_results_in_rank_order():
    text = "d1\tP2\t2\t0.5\nd2\tQ1\t1\t1\nd1\tP1\t1\t0.9\n\n"
    with pytest.raises(BiocreativeFormatError, match="RANK_SEQUENCE"):
        parse_results(text, "INT")
    res = parse_results(text, "INT", rank_file_order=False)  # trailing blank line ignored
    assert res.hits == {"d1": ["P1", "P2"], "d2": ["Q1"]}
    assert list(res.hits) == ["d1", "d2"]


def test_rank_set_duplicates_and_gaps():
    text = "d1\tA\t1\t0.9\nd1\tB\t1\t0.8\nd1\tC\t3\t0.7\n"
    issues = validate_result_lines(text.splitlines(), "INT", rank_file_order=False)
    assert [(i.line, i.code) for i in issues] == [(1, "RANK_MISSING"), (2, "RANK_DUPLICATE")]
    assert "2" in issues[0].message and "line 1" in issues[1].message


def test_more_format_problems():
    text = "d1\tA\t0\t0.9\nd1\tA\t-1\t0.9\nd1\tB\t1\t1e-3\n\n\n"
    issues = validate_result_lines(text.splitlines(), "INT")
    assert [(i.line, i.code) for i in issues] == [
        (1, "RANK_FORMAT"),
        (2, "DUPLICATE"),
        (2, "RANK_FORMAT"),
        (3, "RANK_SEQUENCE"),  # a malformed rank still takes its place in the sequence
    ]
    assert issues[0].message == "rank '0' is not a positive integer"
    assert issues[-1].message.startswith("rank 1, expected 3")


def test_ipt_and_act_parsing():
    ipt = parse_results("d1\tA\tB\t1\t0.9\nd1\tC\tA\t2\t0.9\n", "IPT")
    assert ipt.hits == {"d1": [("A", "B"), ("C", "A")]}
    act = parse_results("d1\t1\t1\t0.9\nd3\t0\t1\t0.9\nd2\t1\t2\t0.4\nd4\t0\t2\t0.3\n", "ACT")
    assert act.positives == ["d1", "d2"] and act.negatives == ["d3", "d4"]


def test_gold_parsing():
    gold = parse_gold("d1\tP1\nd1\tP2\n\nd1\tP1\nd2\tP9\n", "INT")
    assert gold.answers == {"d1": {"P1", "P2"}, "d2": {"P9"}} and gold.n_duplicates == 1
    ipt = parse_gold("d1\tB\tA\nd1\tA\tB\n", "IPT")
    assert ipt.answers == {"d1": {("A", "B")}} and ipt.n_duplicates == 1
    act = parse_gold("d1\t1\nd2\t0\n", "ACT")
    assert act.classes == {"d1": 1, "d2": 0}


def test_gold_errors_are_collected():
    with pytest.raises(BiocreativeFormatError) as info:
        parse_gold("d1\t1\nd2\tx\nd3\nd1\t0\nd4\t\n", "ACT", path="gold.tsv")
    assert [(i.line, i.code) for i in info.value.issues] == [
        (2, "CLASS_FORMAT"),
        (3, "COLUMNS"),
        (4, "DUPLICATE"),
        (5, "EMPTY_FIELD"),
    ]


def test_read_from_files(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("d1\tP1\n")
    results = tmp_path / "results.tsv.gz"
    with gzip.open(results, "wt") as fh:
        fh.write("d1\tP1\t1\t0.5\n")
    assert read_gold(gold, "INT").answers == {"d1": {"P1"}}
    assert read_results(results, "INT").hits == {"d1": ["P1"]}


def test_unknown_task():
    with pytest.raises(InvalidParameterError, match="'task' parameter of validate_result_lines"):
        validate_result_lines([], "PPI")


def test_bom_and_field_whitespace_do_not_change_documents(tmp_path):
    clean = "doc1\tP1\t1\t0.9\ndoc1\tP2\t2\t0.5\ndoc2\tP3\t1\t1\n"
    noisy = "\ufeffdoc1\tP1 \t1\t0.9\r\ndoc1\t P2\t2 \t0.5\r\n doc2\tP3\t1\t1\r\n"
    p = tmp_path / "r.tsv"
    p.write_bytes(noisy.encode())
    assert read_results(p, "INT") == parse_results(clean, "INT")
    assert list(read_results(p, "INT").hits) == ["doc1", "doc2"]
    g = tmp_path / "g.tsv"
    g.write_bytes("\ufeffdoc1\tP1\r\ndoc1 \tP2 \r\n".encode())
    assert read_gold(g, "INT").answers == {"doc1": {"P1", "P2"}}


def test_unicode_line_separators_are_not_line_breaks():
    # U+2028 inside an accession is part of it, not the start of a new line
    res = parse_results("doc1\tP\u20281\t1\t0.9\n", "INT")
    assert res.hits == {"doc1": ["P\u20281"]}
    assert parse_gold("doc1\x85x\tP1\n", "INT").answers == {"doc1\x85x": {"P1"}}
