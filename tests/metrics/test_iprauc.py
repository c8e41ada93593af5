"""Tests of goeval.metrics.iprauc (BioCreative II.5 AUC of the interpolated P/R curve)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from conftest import shared_path
from goeval.errors import InvalidParameterError
from goeval.metrics.iprauc import (
    act_ipr_auc,
    ipr_auc,
    ipr_auc_by_document,
    ipr_auc_segments,
    ipr_curve,
)

HERE = Path(__file__).resolve().parent
LOCAL = HERE.parent / "data" / "cases" / "iprauc" / "iprauc_cases.json"


def oracle_ipr_auc(flags, n):
    """(1/n) * sum over correct hits j of the highest precision at any rank >= rank(j)."""
    if n == 0:
        return Fraction(0)
    precision = []
    found = 0
    for i, f in enumerate(flags, start=1):
        found += f
        precision.append(Fraction(found, i))
    total = Fraction(0)
    for i, f in enumerate(flags):
        if f:
            total += max(precision[i:])
    return total / n


def test_page_example_systems_a_and_b():
    """§4.5: four gold answers, ten hits; A correct at 1 and 10, B at 2 and 3."""
    a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    b = [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert ipr_auc(a, 4) == pytest.approx(0.3, abs=1e-15)
    assert ipr_auc(b, 4) == pytest.approx(1 / 3, abs=1e-15)
    assert round(ipr_auc(b, 4), 3) == 0.333
    p, r = ipr_curve(a, 4)
    assert p.tolist() == [1.0, 0.2] and r.tolist() == [0.25, 0.5]
    p, r = ipr_curve(b, 4)
    assert p.tolist() == [pytest.approx(2 / 3)] and r.tolist() == [0.5]


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def _check_cases(data: dict) -> None:
    for case in data["cases"]:
        got = ipr_auc(case["flags"], case["n"])
        assert got == pytest.approx(case["expected"], abs=1e-15), case["name"]
        assert got == pytest.approx(float(Fraction(case["expected_exact"])), abs=1e-15)
        assert oracle_ipr_auc(case["flags"], case["n"]) == Fraction(case["expected_exact"])
        if "doc_value" in case:
            assert got == pytest.approx(case["doc_value"], abs=1e-15)
        p, r = ipr_curve(case["flags"], case["n"])
        want = [(float(Fraction(a)), float(Fraction(b))) for a, b in case["ipr_points"]]
        assert len(p) == len(want)
        assert_allclose(np.c_[p, r].reshape(-1, 2), np.array(want).reshape(-1, 2), atol=1e-15)
    m = data["macro_example"]
    res = ipr_auc_by_document(m["results"], m["gold"], undirected_pairs=True)
    assert res.per_document == pytest.approx(m["per_doc"])
    assert res.mean == pytest.approx(m["expected_macro"])
    assert res.ignored_documents == ("doc4",) and res.n_without_results == 1
    skip = ipr_auc_by_document(m["results"], m["gold"], undirected_pairs=True, skip_empty=True)
    assert skip.mean == pytest.approx(m["expected_macro_skip_empty"])


def test_local_iprauc_cases():
    _check_cases(_load(LOCAL))


def test_shared_iprauc_cases():
    _check_cases(_load(shared_path("cases", "iprauc", "iprauc_cases.json")))


@settings(max_examples=300, deadline=None)
@given(
    lists=st.lists(st.lists(st.integers(0, 1), max_size=15), min_size=1, max_size=6),
    extra=st.lists(st.integers(0, 3), min_size=6, max_size=6),
)
def test_segments_match_oracle(lists, extra):
    n_gold = [sum(f) + e for f, e in zip(lists, extra)]
    offsets = np.r_[0, np.cumsum([len(f) for f in lists])]
    flags = np.array([x for f in lists for x in f], dtype=int)
    got = ipr_auc_segments(flags, offsets, n_gold)
    want = [float(oracle_ipr_auc(f, n)) for f, n in zip(lists, n_gold)]
    assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_undirected_pairs_and_repeated_hits():
    gold = {"d": [("A", "B"), ("C", "D")]}
    assert ipr_auc_by_document({"d": [("B", "A")]}, gold, undirected_pairs=True).mean == 0.5
    assert ipr_auc_by_document({"d": [("B", "A")]}, gold).mean == 0.0
    # a repeated hit counts once
    assert ipr_auc_by_document({"d": [("A", "B"), ("A", "B")]}, gold).per_document["d"] == 0.5


def test_act_ranking_joins_positives_and_inverted_negatives():
    gold = {"p1": 1, "p2": 1, "n1": 0, "n2": 0}
    # positives ranked n1, p1; negatives ranked (most surely negative first) n2, p2
    res = act_ipr_auc(["n1", "p1"], ["n2", "p2"], gold)
    # joined ranking: n1, p1, p2, n2 -> correct at ranks 2 and 3
    assert res.auc == pytest.approx(float(oracle_ipr_auc([0, 1, 1, 0], 2)))
    assert res.n_gold_positive == 2 and res.n_ranked == 4
    other = act_ipr_auc(["p1", "x"], [], gold)
    assert other.ignored_documents == ("x",) and other.auc == 0.5


def test_errors():
    with pytest.raises(InvalidParameterError, match="correct hits"):
        ipr_auc([1, 1], 1)
    with pytest.raises(InvalidParameterError, match="0/1"):
        ipr_auc([2], 1)
    with pytest.raises(InvalidParameterError, match="n_gold"):
        ipr_auc([0], -1)
    with pytest.raises(InvalidParameterError, match="offsets"):
        ipr_auc_segments([1, 0], [0, 1], [1])
