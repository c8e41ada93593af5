"""Tests of goeval.metrics.tapk: worked examples, shared cases, a slow oracle."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from conftest import shared_path
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.metrics.tapk import (
    InsufficientErrorsError,
    RetrievalList,
    RetrievalLists,
    tap_curve,
    tap_k,
)

HERE = Path(__file__).resolve().parent
LOCAL_CASES = HERE.parent / "data" / "cases" / "tapk"


# --------------------------------------------------------------------------
# The three worked examples of the "What is TAP-k?" page, typed in from it.
# Columns: Q1 (T=5), Q2 (5), Q3 (5), Q4 (3), Q5 (5); (relevance, score).
# --------------------------------------------------------------------------
EX1_REL = {
    "Q1": [1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    "Q2": [0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
    "Q3": [0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1],
    "Q4": [0] * 15,
    "Q5": [1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
}
EX1_SCORE = {
    "Q1": [0.900, 0.738, 0.605, 0.496, 0.407, 0.334, 0.274, 0.224, 0.184, 0.151, 0.124, 0.101, 0.083, 0.068, 0.056],
    "Q2": [0.500, 0.475, 0.451, 0.429, 0.407, 0.387, 0.367, 0.349, 0.332, 0.315, 0.299, 0.284, 0.270, 0.257, 0.244],
    "Q3": [0.500, 0.475, 0.451, 0.429, 0.407, 0.387, 0.367, 0.349, 0.332, 0.315, 0.299, 0.284, 0.270, 0.257, 0.244],
    "Q4": [0.2, 0.187, 0.174, 0.163, 0.152, 0.142, 0.132, 0.123, 0.115, 0.107, 0.100, 0.094, 0.087, 0.082, 0.076],
    "Q5": [0.980, 0.788, 0.633, 0.509, 0.409, 0.329, 0.265, 0.213, 0.171, 0.138, 0.111, 0.089, 0.071, 0.057, 0.046],
}
EX_T = {"Q1": 5, "Q2": 5, "Q3": 5, "Q4": 3, "Q5": 5}
EX3_SCORE = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2]


def _example(n_records: int | None = None, rank_only: bool = False) -> list[RetrievalList]:
    out = []
    for q in EX_T:
        scores = EX3_SCORE if rank_only else EX1_SCORE[q]
        out.append(RetrievalList(id=q, n_relevant=EX_T[q], scores=scores[:n_records], relevance=EX1_REL[q][:n_records]))
    return out


def _round3(x: float) -> float:
    """Round half up to 3 decimals, as the page prints."""
    return math.floor(x * 1000 + 0.5) / 1000


@pytest.mark.parametrize(
    ("lists", "cutoff", "doc_apcp", "doc_tap", "exact_tap", "fallback"),
    [
        (_example(), 0.213, [0.675, 0.206, 0.264, 0.0, 0.413], 0.312, Fraction(1121, 3600), False),
        (_example(4), 0.163, [0.583, 0.097, 0.125, 0.0, 0.333], 0.228, Fraction(41, 180), True),
        (_example(rank_only=True), 0.6, [0.687, 0.170, 0.107, 0.0, 0.421], 0.277, Fraction(3491, 12600), False),
    ],
    ids=["example1", "example2", "example3"],
)
def test_worked_examples_of_the_tapk_page(lists, cutoff, doc_apcp, doc_tap, exact_tap, fallback):
    r = tap_k(lists, 5)
    assert r.cutoff == cutoff
    assert r.fallback_used is fallback
    assert [_round3(a) for a in r.apcp] == doc_apcp
    # the page's TAP is the mean of the rounded per-query values
    assert _round3(sum(doc_apcp) / 5) == doc_tap
    assert r.tap == pytest.approx(float(exact_tap), abs=1e-15)


def test_example1_exact_per_query_fractions():
    r = tap_k(_example(), 5)
    exact = [Fraction(27, 40), Fraction(37, 180), Fraction(19, 72), Fraction(0), Fraction(33, 80)]
    assert_allclose(r.apcp, [float(x) for x in exact], rtol=0, atol=1e-15)
    assert r.fp_at_cutoff.tolist() == [4, 12, 11, 0, 5]
    assert r.n_within.tolist() == [8, 15, 15, 0, 8]
    assert r.median_fp == 5


def test_example2_alternatives():
    with pytest.raises(InsufficientErrorsError, match="Fewer than 0.5 of the retrieval lists have 5 errors"):
        tap_k(_example(4), 5, insufficient="error")
    pad = tap_k(_example(4), 5, insufficient="pad")
    assert pad.cutoff is None and pad.fallback_used
    assert pad.tap == pytest.approx(61 / 360, abs=1e-15)


# --------------------------------------------------------------------------
# Shared cases
# --------------------------------------------------------------------------
def _case_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _lists_of(case: dict) -> tuple[list[RetrievalList], bool]:
    inp = case["input"]
    lists = [
        RetrievalList(id=q["id"], n_relevant=q["T"], scores=[s for s, _ in q["items"]],
                      relevance=[r for _, r in q["items"]], weight=q["weight"])
        for q in inp["queries"]
    ]
    return lists, inp["higher_is_better"]


_ALT_OPTIONS = {
    "insufficient=pad": {"insufficient": "pad"},
    "insufficient=error": {"insufficient": "error"},
    "zero_relevant=perl": {"zero_relevant": "perl"},
    "zero_relevant=skip": {"zero_relevant": "skip"},
}


def _check(r, expected: dict) -> None:
    assert r.cutoff == expected["cutoff"]
    assert r.fallback_used is expected["fallback"]
    assert r.tap == pytest.approx(expected["tap"], rel=1e-12, abs=1e-15)
    if "tap_exact" in expected:
        assert r.tap == pytest.approx(float(Fraction(expected["tap_exact"])), rel=1e-12, abs=1e-15)
    got = r.per_query()
    for q, v in expected["per_query"].items():
        if v is None:
            assert math.isnan(got[q])
        else:
            assert got[q] == pytest.approx(v, rel=1e-12, abs=1e-15)
    if "fp_at_cutoff" in expected:
        assert dict(zip(r.ids, r.fp_at_cutoff.tolist())) == expected["fp_at_cutoff"]
    if "n_within" in expected:
        assert dict(zip(r.ids, r.n_within.tolist())) == expected["n_within"]
    if "median_fp" in expected:
        assert r.median_fp == expected["median_fp"]


def _run_case(path: Path) -> None:
    case = json.loads(path.read_text())
    lists, hib = _lists_of(case)
    q = case["input"]["quantile"]
    for run in case["runs"]:
        _check(tap_k(lists, run["k"], higher_is_better=hib, quantile=q), run["expected"])
        for name, alt in run["alternatives"].items():
            opts = next((o for key, o in _ALT_OPTIONS.items() if key in name), None)
            if opts is None:  # e.g. tie-reordering variants, documented as not the reference
                continue
            if "error" in alt:
                with pytest.raises(InsufficientErrorsError, match=alt["error"].rstrip(".")):
                    tap_k(lists, run["k"], higher_is_better=hib, quantile=q, **opts)
            else:
                _check(tap_k(lists, run["k"], higher_is_better=hib, quantile=q, **opts), alt)


@pytest.mark.parametrize("path", _case_files(LOCAL_CASES), ids=lambda p: p.stem)
def test_local_tapk_cases(path):
    _run_case(path)


def test_local_cases_are_present():
    assert len(_case_files(LOCAL_CASES)) == 10


@pytest.mark.parametrize("name", [p.name for p in _case_files(LOCAL_CASES)])
def test_shared_tapk_cases(name):
    _run_case(shared_path("cases", "tapk", name))


# --------------------------------------------------------------------------
# Slow, obviously correct oracle
# --------------------------------------------------------------------------
def oracle_tap_k(queries, k, *, hib=True, quantile=0.5, insufficient="lowest", zero_relevant="paper",
                 threshold=None):
    """Plain-Python TAP-k following the paper's definitions literally."""

    def better(a, b):  # a ranks at least as well as b
        return a >= b if hib else a <= b

    ranked = [(qid, t, w, sorted(items, key=lambda it: -it[0] if hib else it[0])) for qid, t, w, items in queries]
    pad = False
    cutoff = threshold
    if cutoff is None:
        kth = []
        for _, _, w, items in ranked:
            errors = 0
            for score, rel in items:
                if not rel:
                    errors += 1
                    if errors == k:
                        kth.append((score, w))
                        break
        kth.sort(key=lambda sw: -sw[0] if hib else sw[0])
        total = sum(w for _, _, w, _ in ranked)
        acc = 0.0
        for score, w in kth:
            acc += w
            if acc >= quantile * total * (1 - 1e-12):
                cutoff = score
                break
        if cutoff is None:
            if insufficient == "error":
                raise InsufficientErrorsError("insufficient")
            if insufficient == "pad":
                pad = True
            else:
                everything = [s for _, _, _, items in ranked for s, _ in items]
                if everything:
                    cutoff = min(everything) if hib else max(everything)
    out = []
    for _, t, w, items in ranked:
        summed, found, n = 0.0, 0, 0
        for score, rel in items:
            if not pad and (cutoff is None or not better(score, cutoff)):
                break
            n += 1
            if rel:
                found += 1
                summed += found / n
        if n and not pad:
            summed += found / n
        apcp = summed / (t + 1)
        if t == 0 and zero_relevant == "perl":
            apcp = 1.0 / (n + 1)
        if t == 0 and zero_relevant == "skip":
            apcp = math.nan
        out.append((apcp, w, n, n - found))
    kept = [(a, w) for a, w, _, _ in out if not math.isnan(a)]
    tap = sum(a * w for a, w in kept) / sum(w for _, w in kept)
    return cutoff, tap, [a for a, _, _, _ in out], [fp for *_, fp in out]


_score = st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.35, 0.5, 0.7, 0.8, 0.9, 1.0])


@st.composite
def _queries(draw):
    n_q = draw(st.integers(1, 6))
    queries = []
    for i in range(n_q):
        items = draw(st.lists(st.tuples(_score, st.integers(0, 1)), max_size=12))
        t = sum(r for _, r in items) + draw(st.integers(0, 2))
        w = draw(st.sampled_from([1.0, 1.0, 0.5, 2.0, 3.0]))
        queries.append((f"q{i}", t, w, items))
    return queries


def _to_lists(queries, negate=False):
    return [RetrievalList(id=q, n_relevant=t, scores=[-s if negate else s for s, _ in items],
                          relevance=[r for _, r in items], weight=w)
            for q, t, w, items in queries]


@settings(max_examples=300, deadline=None)
@given(
    queries=_queries(),
    k=st.integers(1, 5),
    quantile=st.sampled_from([0.5, 0.33, 0.75, 1.0]),
    insufficient=st.sampled_from(["lowest", "pad"]),
    zero_relevant=st.sampled_from(["paper", "perl", "skip"]),
    hib=st.booleans(),
)
def test_vectorized_tap_k_matches_oracle(queries, k, quantile, insufficient, zero_relevant, hib):
    if zero_relevant == "skip" and all(t == 0 for _, t, _, _ in queries):
        zero_relevant = "paper"
    cutoff, tap, apcp, fp = oracle_tap_k(queries, k, hib=hib, quantile=quantile, insufficient=insufficient,
                                         zero_relevant=zero_relevant)
    r = tap_k(_to_lists(queries), k, higher_is_better=hib, quantile=quantile, insufficient=insufficient,
              zero_relevant=zero_relevant)
    assert r.cutoff == cutoff
    assert_allclose(r.apcp, apcp, rtol=1e-13, atol=1e-15)
    assert r.tap == pytest.approx(tap, rel=1e-13, abs=1e-15)
    assert r.fp_at_cutoff.tolist() == fp


@settings(max_examples=150, deadline=None)
@given(queries=_queries(), x=_score)
def test_fixed_threshold_matches_oracle(queries, x):
    cutoff, tap, apcp, _ = oracle_tap_k(queries, None, threshold=x)
    r = tap_k(_to_lists(queries), None, threshold=x)
    assert r.cutoff == x and not r.fallback_used
    assert_allclose(r.apcp, apcp, rtol=1e-13, atol=1e-15)


@settings(max_examples=150, deadline=None)
@given(queries=_queries(), k=st.integers(1, 4))
def test_evalues_equal_negated_scores(queries, k):
    a = tap_k(_to_lists(queries), k, higher_is_better=True)
    b = tap_k(_to_lists(queries, negate=True), k, higher_is_better=False)
    assert_array_equal(a.apcp, b.apcp)
    assert a.tap == b.tap
    assert (a.cutoff is None and b.cutoff is None) or a.cutoff == -b.cutoff
    assert_array_equal(a.fp_at_cutoff, b.fp_at_cutoff)


def test_unsorted_input_is_ranked_stably():
    ranked = RetrievalList(id="q", n_relevant=3, scores=[0.9, 0.7, 0.7, 0.5, 0.3], relevance=[1, 0, 1, 0, 1])
    shuffled = RetrievalList(id="q", n_relevant=3, scores=[0.5, 0.7, 0.9, 0.3, 0.7], relevance=[0, 0, 1, 1, 1])
    a, b = tap_k([ranked], 1), tap_k([shuffled], 1)
    assert a.cutoff == b.cutoff == 0.7
    assert a.tap == b.tap == pytest.approx((1 + 2 / 3 + 2 / 3) / 4)


def test_ties_keep_input_order():
    # relevant record listed after an irrelevant one with the same score
    r = tap_k([RetrievalList(id="q", n_relevant=1, scores=[0.5, 0.5], relevance=[0, 1])], None, threshold=0.5)
    assert r.apcp[0] == pytest.approx((1 / 2 + 1 / 2) / 2)


def test_union_of_query_sets_lies_between():
    """Condition (6) of the paper at a fixed threshold."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        lists = [
            RetrievalList(id=f"q{i}", n_relevant=5, scores=np.sort(rng.random(8))[::-1],
                          relevance=rng.integers(0, 2, 8) * (np.arange(8) < 5))
            for i in range(6)
        ]
        a = tap_k(lists[:3], None, threshold=0.4).tap
        b = tap_k(lists[3:], None, threshold=0.4).tap
        both = tap_k(lists, None, threshold=0.4).tap
        assert min(a, b) - 1e-15 <= both <= max(a, b) + 1e-15


def test_retrieval_lists_container_roundtrip():
    lists = RetrievalLists.from_lists(_example())
    assert len(lists) == 5 and lists.scores.size == 75
    assert [q.id for q in lists] == ["Q1", "Q2", "Q3", "Q4", "Q5"]
    assert lists[3].n_relevant == 3 and lists[3].relevance.sum() == 0
    assert tap_k(lists, 5).tap == tap_k(_example(), 5).tap


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_relevant": [0]}, "T\\(q\\) = 0"),
        ({"scores": [np.nan, 0.1]}, "NaN"),
        ({"weights": [-1.0]}, "weights"),
        ({"offsets": [0, 3]}, "offsets"),
        ({"relevance": [2, 0]}, "0 or 1"),
    ],
)
def test_retrieval_lists_validation(kwargs, match):
    base = dict(ids=["q"], n_relevant=[1], weights=[1.0], offsets=[0, 2], scores=[0.5, 0.1], relevance=[1, 0])
    base.update(kwargs)
    with pytest.raises(InvalidParameterError, match=match):
        RetrievalLists(**base)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"k": 0}, "'k' parameter of tap_k"),
        ({"k": None}, "'k' parameter of tap_k"),
        ({"k": 1, "quantile": 0.0}, "'quantile'"),
        ({"k": 1, "insufficient": "drop"}, "'insufficient' parameter of tap_k must be one of"),
        ({"k": 1, "zero_relevant": "one"}, "'zero_relevant'"),
        ({"k": None, "threshold": math.inf}, "'threshold'"),
        ({"k": 1, "weights": [1.0]}, "'weights'"),
    ],
)
def test_parameter_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        tap_k(_example(), **kwargs)


def test_all_queries_skipped_warns_and_gives_nan():
    with pytest.warns(GoevalWarning, match="undefined"):
        r = tap_k([RetrievalList(id="q", n_relevant=0, scores=[0.5], relevance=[0])], 1, zero_relevant="skip")
    assert math.isnan(r.tap)


def test_no_records_at_all():
    r = tap_k([RetrievalList(id="a", n_relevant=2, scores=[], relevance=[]), RetrievalList(id="b", n_relevant=0,
                                                                                           scores=[], relevance=[])], 3)
    assert r.fallback_used and r.cutoff is None
    assert r.apcp.tolist() == [0.0, 0.0]
    assert tap_k([RetrievalList(id="b", n_relevant=0, scores=[], relevance=[])], 3, zero_relevant="perl").tap == 1.0


def test_as_dict_is_json_ready():
    d = tap_k(_example(), 5, zero_relevant="skip").as_dict()
    json.dumps(d)
    assert d["cutoff"] == 0.213 and d["queries"][0]["query"] == "Q1"


# --------------------------------------------------------------------------
# TAP curve
# --------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(queries=_queries(), zero_relevant=st.sampled_from(["paper", "perl", "skip"]), hib=st.booleans())
def test_tap_curve_equals_tap_at_each_cutoff(queries, zero_relevant, hib):
    if zero_relevant == "skip" and all(t == 0 for _, t, _, _ in queries):
        zero_relevant = "paper"
    lists = _to_lists(queries, negate=not hib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        curve = tap_curve(lists, higher_is_better=hib, zero_relevant=zero_relevant)
    distinct = sorted({(-s if not hib else s) for _, _, _, items in queries for s, _ in items}, reverse=hib)
    assert curve.cutoffs.tolist() == distinct
    for x, value in zip(curve.cutoffs, curve.tap):
        ref = tap_k(lists, None, threshold=float(x), higher_is_better=hib, zero_relevant=zero_relevant).tap
        assert value == pytest.approx(ref, abs=1e-12)
    if distinct:
        assert curve.peak_tap == pytest.approx(max(curve.tap))
        assert curve.peak_cutoff == curve.cutoffs[int(np.argmax(curve.tap))]


def test_tap_curve_example1_peak_and_cutoff():
    curve = tap_curve(_example())
    assert curve.tap[curve.cutoffs.tolist().index(0.213)] == pytest.approx(1121 / 3600, abs=1e-12)
    assert curve.peak_tap >= tap_k(_example(), 5).tap
    # the peak is attained: recomputing at the peak cutoff gives the same value
    assert tap_k(_example(), None, threshold=curve.peak_cutoff).tap == pytest.approx(curve.peak_tap, abs=1e-12)


def test_tap_curve_of_empty_lists():
    curve = tap_curve([RetrievalList(id="q", n_relevant=1, scores=[], relevance=[])])
    assert curve.cutoffs.size == 0 and math.isnan(curve.peak_tap) and curve.peak_cutoff is None
