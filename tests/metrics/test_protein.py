"""Protein-centric curves and optima (CONVENTIONS §4, CR13 §3.2-3.4).

Reference values come from the set-based oracle of ``tests/oracles.py``
on random DAGs with many tied scores, from hand-computed cases and from
invariances that every measure must satisfy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oracles import (
    IA_CURVE_COLUMNS,
    PLAIN_COLUMNS,
    TOL,
    Case,
    ancestors_within,
    assert_curves_equal,
    assert_summary_equal,
    oracle_evaluate,
    random_case,
)

import goeval
from goeval.errors import InvalidParameterError
from goeval.metrics.protein import CURVE_COLUMNS, best_index, f_score, protein_curves, s_distance
from goeval.metrics.registry import BEPROF_AREAS, PROTEIN_AREAS, PROTEIN_CALIBRATION, PROTEIN_MEASURES
from goeval.ontology import ontology_from_edges
from goeval.sweep import grid_thresholds, sweep

#: Names of the protein-centric measures, in summary order (optima, areas, calibration).
MEASURE_NAMES = [m.name for m in PROTEIN_MEASURES + PROTEIN_AREAS + PROTEIN_CALIBRATION + BEPROF_AREAS]


def run(case: Case, scores=None, *, with_ia: bool = True, **options):
    onto = case.ontology()
    return goeval.evaluate(
        onto, case.truth_annotations(onto), {"m": case.predictions(onto, scores)},
        ia=case.ia_array(onto) if with_ia else None, **options,
    )


# =====================================================================
# Against the oracle
# =====================================================================
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    thresholds=st.sampled_from(["exact", 0.01]),
    normalization=st.sampled_from(["cafa", "pred", "gt"]),
    protein_weighting=st.sampled_from(["none", "information"]),
    k=st.sampled_from([1.0, 2.0]),
)
# a namespace the method never covers: no optimum, area or calibration row (ECE and Brier were written)
@example(seed=2087, thresholds=0.01, normalization="cafa", protein_weighting="none", k=1.0)
def test_curves_and_optima_match_oracle(seed, thresholds, normalization, protein_weighting, k):
    """Every curve column and every optimum; other orders k: see below."""
    case = random_case(seed)
    opts = dict(thresholds=thresholds, normalization=normalization, protein_weighting=protein_weighting, k=k)
    res = run(case, **opts)
    want = oracle_evaluate(case, **opts)
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")


@pytest.mark.parametrize("seed", [25, 26, 27])
@pytest.mark.parametrize("k", [1.5, 3.0])
def test_semantic_distance_of_any_order_matches_oracle(seed, k):
    """S_k for k = 1.5 and 3 at every threshold (no NaN where ru or mi is 0)."""
    case = random_case(seed)
    res = run(case, k=k)
    want = oracle_evaluate(case, k=k)
    assert not res.curves[["s", "ws"]].isna().any().any()
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_only_tied_scores_match_oracle(seed, thresholds):
    """Scores drawn from five values only: every threshold is a massive tie."""
    case = random_case(seed, n_proteins=14, max_pred=10)
    rng = np.random.default_rng(seed)
    scores = {key: float(rng.choice([0.1, 0.25, 0.5, 0.75, 1.0])) for key in case.scores}
    for normalization in ("cafa", "pred", "gt"):
        res = run(case, scores, thresholds=thresholds, normalization=normalization)
        want = oracle_evaluate(case, scores=scores, thresholds=thresholds, normalization=normalization)
        assert_curves_equal(res.curves, want, "m")
        assert_summary_equal(res.summary, want, "m")


@pytest.mark.parametrize("seed", range(6))
def test_without_ia_only_the_unweighted_measures_are_reported(seed):
    case = random_case(seed)
    res = run(case, with_ia=False, thresholds=0.01)
    want = oracle_evaluate(case, thresholds=0.01)
    assert_curves_equal(res.curves, want, "m", with_ia=False)
    assert_summary_equal(res.summary, want, "m", with_ia=False)


def test_exact_thresholds_are_every_distinct_propagated_score():
    case = random_case(3)
    res = run(case)
    onto = case.ontology()
    prop = goeval.propagate(case.predictions(onto))
    truth = goeval.propagate(case.truth_annotations(onto))
    for ns in res.curves["namespace"].unique():
        sub = prop.namespace(ns)
        bench = set(truth.namespace(ns).proteins)
        rows = np.isin(sub.proteins, list(bench))
        scores = np.unique(sub.matrix.tocsr()[np.flatnonzero(rows)].data)
        got = res.curves.loc[res.curves["namespace"] == ns, "threshold"].to_numpy()
        # every threshold is a score of a benchmark protein and covers it
        assert_array_equal(got, scores)


# =====================================================================
# 'pred' normalization and information coverage, by hand
# =====================================================================
def small_pred_case():
    """r -> a, r -> b; ia(r) = 0, ia(a) = 1, ia(b) = 2.

    p1 truth {a}, predicts a at 0.8 (so r at 0.8 after propagation);
    p2 truth {b}, predicts only the root (0.9): covered, but its predicted
    set carries no information; p3 truth {a}, predicts nothing.
    """
    return Case(
        edges=[("a", "r"), ("b", "r")],
        namespace_of={"r": "x", "a": "x", "b": "x"},
        truth=[("p1", "a"), ("p2", "b"), ("p3", "a")],
        scores={("p1", "a"): 0.8, ("p2", "r"): 0.9},
        ia={"r": 0.0, "a": 1.0, "b": 2.0},
    )


# at tau = 0.8: p1 P={r,a} tp 2 |T| 2, wpr 1, wrc 1, ru 0, mi 0
#               p2 P={r}   tp 1 |T| 2, ia(P) = 0 (not covered_w), wrc 0, ru 2, mi 0
#               p3 P={}    |T| 2, ru 1
# at tau = 0.9: p1 P={} (ru 1); p2 as before; p3 as before
HAND_PRED = {
    "cafa": {
        "n_covered": [2, 1], "n_covered_w": [1, 0],
        "precision": [1.0, 1.0], "recall": [(1 + 0.5) / 3, 0.5 / 3],
        "recall_micro": [3 / 6, 1 / 6],
        "wprecision": [1.0, 0.0], "wrecall": [1 / 3, 0.0],
        "ru": [(0 + 2 + 1) / 3, (1 + 2 + 1) / 3], "mi": [0.0, 0.0],
    },
    "pred": {
        "n_covered": [2, 1], "n_covered_w": [1, 0],
        "precision": [1.0, 1.0], "recall": [1.5 / 2, 0.5],
        "recall_micro": [3 / 4, 1 / 2],  # truth of the covered proteins only
        "wprecision": [1.0, 0.0], "wrecall": [1.0, 0.0],
        "ru": [0.0, 0.0], "mi": [0.0, 0.0],  # over proteins with informative predictions
    },
    "gt": {
        "n_covered": [2, 1], "n_covered_w": [1, 0],
        "precision": [2 / 3, 1 / 3], "recall": [1.5 / 3, 0.5 / 3],
        "recall_micro": [3 / 6, 1 / 6],
        "wprecision": [1 / 3, 0.0], "wrecall": [1 / 3, 0.0],
        "ru": [1.0, 4 / 3], "mi": [0.0, 0.0],
    },
}


@pytest.mark.parametrize("normalization", ["cafa", "pred", "gt"])
def test_normalizations_by_hand(normalization):
    res = run(small_pred_case(), normalization=normalization)
    cur = res.curves
    assert_array_equal(cur["threshold"], [0.8, 0.9])
    for col, want in HAND_PRED[normalization].items():
        assert_allclose(cur[col].to_numpy(dtype=float), want, err_msg=col, **TOL)
    assert_allclose(cur["precision_micro"], [3 / 3, 1 / 1], **TOL)
    assert_allclose(cur["coverage"], [2 / 3, 1 / 3], **TOL)
    assert_allclose(cur["coverage_w"], [1 / 3, 0.0], **TOL)


def test_pred_normalization_averages_over_covered_proteins_only():
    """'pred': a protein without any prediction changes nothing."""
    case = random_case(11)
    extra = Case(case.edges, case.namespace_of, case.truth + [("NEW", t) for t in list(case.namespace_of)[3:6]],
                 case.scores, case.ia)
    a = run(case, normalization="pred", thresholds=0.01).curves
    b = run(extra, normalization="pred", thresholds=0.01).curves
    for col in ("precision", "recall", "precision_micro", "recall_micro", "wprecision", "wrecall", "ru", "mi", "wru", "wmi"):
        assert_allclose(b[col].to_numpy(dtype=float), a[col].to_numpy(dtype=float), err_msg=col, **TOL)


# =====================================================================
# S_k by hand
# =====================================================================
def sk_case() -> Case:
    """r -> a -> c, r -> b -> d; ia: r 0, a 1, b 2, c 1.5, d 0.5.

    p1: truth {c} -> T1 = {r, a, c}, i(T1) = 2.5; predicts c 0.9, b 0.6.
    p2: truth {d} -> T2 = {r, b, d}, i(T2) = 2.5; predicts c 0.9, d 0.3.
    After max propagation: p1 {c .9, a .9, r .9, b .6},
    p2 {c .9, a .9, r .9, d .3, b .3}.
    """
    return Case(
        edges=[("a", "r"), ("b", "r"), ("c", "a"), ("d", "b")],
        namespace_of={t: "x" for t in "rabcd"},
        truth=[("p1", "c"), ("p2", "d")],
        scores={("p1", "c"): 0.9, ("p1", "b"): 0.6, ("p2", "c"): 0.9, ("p2", "d"): 0.3},
        ia={"r": 0.0, "a": 1.0, "b": 2.0, "c": 1.5, "d": 0.5},
    )


# tau = 0.3: P1 = {r,a,c,b}:   ru1 = 0,               mi1 = ia(b) = 2
#            P2 = {r,a,c,b,d}: ru2 = 0,               mi2 = ia(a) + ia(c) = 2.5
#            ru = 0,    mi = (2 + 2.5) / 2 = 2.25
# tau = 0.6: P1 = {r,a,c,b}:   ru1 = 0,               mi1 = 2
#            P2 = {r,a,c}:     ru2 = ia(b) + ia(d) = 2.5, mi2 = 2.5
#            ru = 1.25, mi = (2 + 2.5) / 2 = 2.25
# tau = 0.9: P1 = {r,a,c}:     ru1 = 0,               mi1 = 0
#            P2 = {r,a,c}:     ru2 = 2.5,             mi2 = 2.5
#            ru = 1.25, mi = 1.25
SK_RU = [0.0, 1.25, 1.25]
SK_MI = [2.25, 2.25, 1.25]
SK_EXPECTED = {
    # S_1 = ru + mi: 2.25, 3.5, 2.5 -> minimum 2.25 at 0.3
    1.0: ([2.25, 3.5, 2.5], 2.25, 0.3),
    # S_2 = sqrt(ru^2 + mi^2): 2.25, sqrt(1.5625 + 5.0625), sqrt(3.125) -> min at 0.9
    2.0: ([2.25, math.sqrt(6.625), math.sqrt(3.125)], math.sqrt(3.125), 0.9),
    # S_3 = (ru^3 + mi^3)^(1/3): 2.25, (1.953125 + 11.390625)^(1/3), (2 * 1.953125)^(1/3)
    3.0: ([2.25, 13.34375 ** (1 / 3), 3.90625 ** (1 / 3)], 3.90625 ** (1 / 3), 0.9),
}


@pytest.mark.parametrize("k", [1.0, 2.0, 3.0])
def test_semantic_distance_by_hand(k):
    res = run(sk_case(), k=k)
    cur = res.curves
    assert_array_equal(cur["threshold"], [0.3, 0.6, 0.9])
    assert_allclose(cur["ru"], SK_RU, **TOL)
    assert_allclose(cur["mi"], SK_MI, **TOL)
    # both proteins have i(T) = 2.5: the weighted means equal the plain ones
    assert_allclose(cur["wru"], SK_RU, **TOL)
    assert_allclose(cur["wmi"], SK_MI, **TOL)
    values, smin, tau = SK_EXPECTED[k]
    assert_allclose(cur["s"], values, **TOL)
    assert_allclose(cur["ws"], values, **TOL)
    summary = res.summary.set_index("measure")
    for measure in ("smin", "wsmin"):
        row = summary.loc[measure]
        assert_allclose(row["value"], smin, **TOL)
        assert row["threshold"] == tau
        i = [0.3, 0.6, 0.9].index(tau)
        assert_allclose([row["ru"], row["mi"]], [SK_RU[i], SK_MI[i]], **TOL)


@pytest.mark.parametrize("k", [0.5, 0.0, -1.0, math.nan, math.inf])
def test_k_below_one_is_rejected(k):
    with pytest.raises(InvalidParameterError, match="'k'"):
        run(sk_case(), k=k)
    with pytest.raises(InvalidParameterError, match="'k'"):
        s_distance(np.array([1.0]), np.array([1.0]), k)


def test_s_distance_formula():
    ru, mi = np.array([0.0, 3.0, 1.25]), np.array([2.0, 4.0, 1.25])
    assert_allclose(s_distance(ru, mi, 1), ru + mi, **TOL)
    assert_allclose(s_distance(ru, mi), [2.0, 5.0, math.sqrt(3.125)], **TOL)
    assert_allclose(s_distance(ru, mi, 3), np.cbrt(ru**3 + mi**3), **TOL)
    assert_allclose(s_distance(ru, mi, 2.5), (ru**2.5 + mi**2.5) ** 0.4, **TOL)


def test_f_score_is_zero_where_precision_and_recall_are_zero():
    assert_array_equal(f_score(np.array([0.0, 1.0, 0.5, 0.0]), np.array([0.0, 1.0, 0.5, 1.0])), [0.0, 1.0, 0.5, 0.0])
    assert_allclose(f_score(np.array([0.6]), np.array([0.75])), [2 / 3], **TOL)


# =====================================================================
# Optima
# =====================================================================
def test_best_index_takes_the_first_of_equal_values():
    assert best_index(np.array([0.1, 0.5, 0.5, 0.2]), "max") == 1
    assert best_index(np.array([3.0, 1.0, 2.0, 1.0]), "min") == 1
    assert best_index(np.array([np.nan, 0.2, 0.2]), "max") == 1
    assert best_index(np.array([0.9, 0.2, 0.1]), "max", np.array([False, True, True])) == 1
    assert best_index(np.array([0.9, 0.2]), "min", np.array([False, False])) == -1


def test_optimum_over_a_plateau_is_at_the_lowest_threshold():
    """On the 0.01 grid all thresholds up to 0.5 give the same sets."""
    onto = ontology_from_edges([("a", "r"), ("b", "r")])
    truth = goeval.Annotations.from_pairs(onto, ["p1", "p2"], ["a", "b"])
    pred = goeval.Annotations.from_pairs(onto, ["p1", "p2"], ["a", "a"], [0.5, 0.5])
    ia = np.ones(onto.n_terms)
    ia[onto.roots()] = 0.0
    res = goeval.evaluate(onto, truth, {"m": pred}, ia=ia, thresholds=0.01)
    assert res.curves["threshold"].max() == 0.5
    summary = res.summary.set_index("measure")
    for measure in PROTEIN_MEASURES:
        assert summary.loc[measure.name, "threshold"] == 0.01, measure.name


def test_optimum_ties_within_rounding_take_the_lowest_threshold():
    """F = 2/3 at both thresholds; floating point must not pick the tie.

    One protein, truth {a, b, c} (with the root r: |T| = 4).
    tau = 0.8: P = {r, a}:            tp 2, pr 1,   rc 1/2, F = 2/3
    tau = 0.4: P = {r, a, b, w1, w2}: tp 3, pr 3/5, rc 3/4, F = (9/10)/(27/20) = 2/3
    (float: 0.6666666666666666 at 0.8, 0.6666666666666665 at 0.4)
    Ties go to the lowest threshold: 0.4.
    """
    onto = ontology_from_edges([(t, "r") for t in ("a", "b", "c", "w1", "w2")])
    truth = goeval.Annotations.from_pairs(onto, ["p"] * 3, ["a", "b", "c"])
    pred = goeval.Annotations.from_pairs(onto, ["p"] * 4, ["a", "b", "w1", "w2"], [0.8, 0.4, 0.4, 0.4])
    res = goeval.evaluate(onto, truth, {"m": pred})
    cur = res.curves
    assert_allclose(cur["f"], [2 / 3, 2 / 3], **TOL)
    summary = res.summary.set_index("measure")
    assert summary.loc["fmax", "threshold"] == 0.4
    assert summary.loc["fmax_micro", "threshold"] == 0.4


def test_summary_layout():
    res = run(sk_case(), thresholds=0.01)
    assert list(res.summary.columns) == ["method", "namespace", "measure", "value", "threshold", "coverage",
                                         "precision", "recall", "ru", "mi"]
    assert list(res.curves.columns) == ["method", "namespace", *CURVE_COLUMNS]
    assert sorted(res.summary["measure"]) == sorted(MEASURE_NAMES)


# =====================================================================
# protein_curves directly
# =====================================================================
def test_protein_curves_rejects_bad_choices():
    onto = ontology_from_edges([("a", "r")])
    stats = sweep(np.array([0, 1]), np.array([1]), np.array([0.5]), np.array([0, 2]), np.array([0, 1]),
                  onto.n_terms, grid_thresholds(0.5), np.array([0.0, 1.0]))
    with pytest.raises(InvalidParameterError, match="The 'normalization' parameter of protein_curves must be one of"):
        protein_curves(stats, normalization="foo")
    with pytest.raises(InvalidParameterError, match="'protein_weighting'"):
        protein_curves(stats, protein_weighting="bits")
    cur = protein_curves(stats, with_ia=False)
    assert set(cur) == set(CURVE_COLUMNS) - set(IA_CURVE_COLUMNS)
    # one protein, T = {r, a}, P(0.5) = {a} (the kernel does not propagate)
    cur = protein_curves(stats)
    assert_allclose(cur["precision"], [1.0, 0.0])
    assert_allclose(cur["recall"], [0.5, 0.0])
    assert_allclose(cur["ru"], [0.0, 1.0])
    assert_allclose(cur["mi"], [0.0, 0.0])


@pytest.mark.parametrize("option,value", [("normalization", "all"), ("protein_weighting", "ia"), ("propagation", "min"),
                                          ("thresholds", "fine"), ("thresholds", 0.03)])
def test_evaluate_rejects_bad_options(option, value):
    with pytest.raises(InvalidParameterError):
        run(sk_case(), **{option: value})


# =====================================================================
# Invariances (every measure, every transformation)
# =====================================================================
def shuffle_truth_lines(case: Case, rng: np.random.Generator) -> tuple[Case, dict]:
    truth = [case.truth[i] for i in rng.permutation(len(case.truth))]
    return Case(case.edges, case.namespace_of, truth, case.scores, case.ia), case.scores


def shuffle_prediction_lines(case, rng):
    keys = list(case.scores)
    return case, {keys[i]: case.scores[keys[i]] for i in rng.permutation(len(keys))}


def propagate_predictions_first(case, rng):
    """max-propagated scores (as CAFA submissions often are) evaluate the same."""
    out: dict[tuple[str, str], float] = {}
    parents: dict[str, set[str]] = {}
    for c, p in case.edges:
        parents.setdefault(c, set()).add(p)
    for (prot, t), s in case.scores.items():
        for a in ancestors_within(t, parents):
            out[(prot, a)] = max(out.get((prot, a), 0.0), s)
    return case, out


def relabel_terms(case, rng):
    """A random bijection of term names reorders every internal index."""
    terms = list(case.namespace_of)
    names = {t: f"T{int(i):04d}" for t, i in zip(terms, rng.permutation(len(terms)))}
    return Case(
        [(names[c], names[p]) for c, p in case.edges],
        {names[t]: ns for t, ns in case.namespace_of.items()},
        [(p, names[t]) for p, t in case.truth],
        {(p, names[t]): s for (p, t), s in case.scores.items()},
        {names[t]: v for t, v in case.ia.items()},
    ), None


def add_proteins_without_truth(case, rng):
    scores = dict(case.scores)
    for j in range(5):
        for t in rng.choice(list(case.namespace_of), size=4, replace=False):
            scores[(f"NOTRUTH{j}", str(t))] = float(rng.random())
    return case, scores


def add_lower_duplicates(case, rng):
    """Repeated (protein, term) lines with lower scores: the maximum is kept."""
    keys = list(case.scores)
    extra = [keys[i] for i in rng.choice(len(keys), size=min(6, len(keys)), replace=False)]
    return case, [(k, case.scores[k]) for k in keys] + [(k, case.scores[k] * 0.5) for k in extra]


INVARIANCES = {
    "shuffle_truth_lines": shuffle_truth_lines,
    "shuffle_prediction_lines": shuffle_prediction_lines,
    "propagate_predictions_first": propagate_predictions_first,
    "relabel_terms": relabel_terms,
    "add_proteins_without_truth": add_proteins_without_truth,
    "add_lower_duplicates": add_lower_duplicates,
}


def evaluate_transformed(case: Case, scores, **options):
    onto = case.ontology()
    if scores is None:
        scores = case.scores
    pairs = list(scores.items()) if isinstance(scores, dict) else scores
    pred = goeval.Annotations.from_pairs(onto, [p for (p, _), _ in pairs], [t for (_, t), _ in pairs], [s for _, s in pairs])
    return goeval.evaluate(onto, case.truth_annotations(onto), {"m": pred}, ia=case.ia_array(onto), **options)


@pytest.mark.parametrize("name", sorted(INVARIANCES))
@pytest.mark.parametrize("options", [{}, {"thresholds": 0.01, "normalization": "pred"},
                                     {"normalization": "gt", "protein_weighting": "information", "k": 3.0}],
                         ids=["exact-cafa", "grid-pred", "exact-gt-information"])
@pytest.mark.parametrize("seed", range(3))
def test_invariance(name, options, seed):
    case = random_case(seed + 100)
    base = evaluate_transformed(case, None, **options)
    other = evaluate_transformed(*INVARIANCES[name](case, np.random.default_rng(seed)), **options)
    a, b = base.curves, other.curves
    assert list(a.columns) == list(b.columns)
    assert_array_equal(a[["method", "namespace"]], b[["method", "namespace"]])
    for col in ("threshold",) + PLAIN_COLUMNS + IA_CURVE_COLUMNS:
        assert_allclose(b[col].to_numpy(dtype=float), a[col].to_numpy(dtype=float), err_msg=col, **TOL)
    sa, sb = base.summary, other.summary
    assert_array_equal(sa[["method", "namespace", "measure"]], sb[["method", "namespace", "measure"]])
    for col in ("value", "coverage", "precision", "recall", "ru", "mi"):
        assert_allclose(sb[col].to_numpy(dtype=float), sa[col].to_numpy(dtype=float), err_msg=col, **TOL)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_unit_ia_without_roots_makes_weighted_equal_unweighted(seed, thresholds):
    case = random_case(seed)
    roots = {t for t in case.namespace_of if not any(c == t for c, _ in case.edges)}
    case.ia = {t: 0.0 if t in roots else 1.0 for t in case.namespace_of}
    res = run(case, thresholds=thresholds, exclude_roots=True)
    cur = res.curves
    assert len(cur)
    assert_array_equal(cur["n_covered_w"], cur["n_covered"])
    for w, u in (("coverage_w", "coverage"), ("wprecision", "precision"), ("wrecall", "recall"), ("wf", "f")):
        assert_allclose(cur[w], cur[u], err_msg=w, **TOL)
    # ru and mi become term counts: compare with the oracle's counts
    want = oracle_evaluate(case, thresholds=thresholds, exclude_roots=True)
    for ns, w in want.items():
        sub = cur[cur["namespace"] == ns]
        assert_allclose(sub["ru"], w["ru"], **TOL)
        assert np.all(np.abs(sub["ru"] * sub["n_proteins"] - np.rint(sub["ru"] * sub["n_proteins"])) < 1e-9)
    summary = res.summary.set_index(["namespace", "measure"])
    for ns in want:
        assert_allclose(summary.loc[(ns, "wfmax"), "value"], summary.loc[(ns, "fmax"), "value"], **TOL)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
@pytest.mark.parametrize("k", [1.0, 2.0, 3.0])
def test_perfect_prediction(seed, thresholds, k):
    """Predicting exactly the truth (score 1) gives Fmax 1, wFmax 1, Smin 0, wSmin 0 (any k),
    full coverage, areas of 1 and a calibration error and Brier score of 0; BeProf's trapezoid area of its one
    point (recall 1, precision 1 at every cut) is 0, as BeProf's code gives it."""
    case = random_case(seed, p_zero_ia=0.0)
    roots = {t for t in case.namespace_of if not any(c == t for c, _ in case.edges)}
    case.truth = [(p, t) for p, t in case.truth if t not in roots]  # every i(T) > 0
    scores = {(p, t): 1.0 for p, t in case.truth}
    for options in ({}, {"normalization": "gt"}, {"protein_weighting": "information"}):
        res = run(case, scores, thresholds=thresholds, k=k, **options)
        summary = res.summary.set_index(["namespace", "measure"])["value"]
        namespaces = sorted(res.curves["namespace"].unique())
        assert namespaces
        assert sorted(summary.index) == sorted((ns, m) for ns in namespaces for m in MEASURE_NAMES)
        for (ns, measure), value in summary.items():
            best = 0.0 if measure in ("smin", "wsmin", "smin_terms", "ece", "brier", "wece", "wbrier", "ic_aupr") else 1.0
            assert value == pytest.approx(best, abs=1e-12), (ns, measure)
        optima = res.summary[~res.summary["measure"].isin([m.name for m in PROTEIN_AREAS + PROTEIN_CALIBRATION
                                                            + BEPROF_AREAS])]
        assert (optima["coverage"] == 1.0).all()


# =====================================================================
# aupr_score by hand
# =====================================================================
def test_aupr_score_by_hand():
    """Thresholds ascending; recall 0.9, 0.6, 0.6, 0.3 and precision 0.5, 0.4, 0.7, 0.6.
    Envelope (running maximum): 0.5, 0.5, 0.7, 0.7. Rectangles from recall 1 (the added point
    (1, 0)) down to 0 (the added point (0, 1)), each at the envelope of its lower-recall end:
    (1 - 0.9) 0.5 + (0.9 - 0.6) 0.5 + 0 * 0.7 + (0.6 - 0.3) 0.7 + 0.3 * 1 = 0.71."""
    from goeval.metrics import aupr_score

    rc, pr = np.array([0.9, 0.6, 0.6, 0.3]), np.array([0.5, 0.4, 0.7, 0.6])
    assert aupr_score(rc, pr) == pytest.approx(0.71, abs=1e-15)
    # one point: (1 - r) p + r
    assert aupr_score(np.array([0.4]), np.array([0.5])) == pytest.approx(0.6 * 0.5 + 0.4)
    # a perfect curve, and an empty one
    assert aupr_score(np.array([1.0]), np.array([1.0])) == 1.0
    assert np.isnan(aupr_score(np.zeros(0), np.zeros(0)))
    with pytest.raises(InvalidParameterError, match="'recall' and 'precision' parameters of aupr_score"):
        aupr_score(np.zeros(2), np.zeros(3))


def test_aupr_in_the_summary_is_the_area_of_the_curve_rows():
    case = random_case(2)
    res = run(case, thresholds=0.05)
    from goeval.metrics import aupr_score

    for (ns,), cur in res.curves.groupby(["namespace"]):
        rows = res.summary[(res.summary["namespace"] == ns)].set_index("measure")["value"]
        assert rows["aupr"] == aupr_score(cur["recall"].to_numpy(), cur["precision"].to_numpy())
        assert rows["waupr"] == aupr_score(cur["wrecall"].to_numpy(), cur["wprecision"].to_numpy())


def test_cafa_pk_counting_on_a_fully_known_protein():
    """CAFA-evaluator-PK's counting, checked by hand (the reference scorer gives these values):
    P2's truth is entirely known, so it leaves the recall denominators but its surviving
    predictions count in precision (coverage 1.5)."""
    import warnings

    import goeval
    from goeval.evaluation import evaluate_annotations

    onto = goeval.ontology_from_edges([("A", "R"), ("B", "R"), ("C", "A"), ("D", "B")])
    truth = goeval.Annotations.from_pairs(onto, ["P1", "P2", "P3"], ["C", "A", "D"])
    known = goeval.Annotations.from_pairs(onto, ["P1", "P2"], ["A", "C"])
    pred = goeval.Annotations.from_pairs(onto, ["P1", "P2", "P3"], ["C", "D", "D"], [0.9, 0.8, 0.6])
    ia = np.zeros(onto.n_terms)
    for t, v in {"A": 1, "B": 2, "C": 3, "D": 4}.items():
        ia[onto.index(t)] = v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_annotations(onto, truth, {"m": pred}, ia=ia, known=known,
                                                     thresholds="arange:0.1", normalization="cafa-pk")
    row = res.curves.iloc[0]  # tau = 0.1: every prediction in
    assert (row["n_covered"], row["n_proteins"]) == (3, 2)
    assert_allclose([row["coverage"], row["precision"], row["recall"], row["f"]], [1.5, 2 / 3, 1.0, 0.8])
    assert_allclose([row["coverage_w"], row["wprecision"], row["wrecall"], row["wf"], row["wf_micro"]],
                    [1.5, 2 / 3, 1.0, 0.8, 0.75])
    last = res.curves.iloc[-1]  # tau = 0.9: only P1's C
    assert_allclose([last["coverage"], last["precision"], last["recall"]], [0.5, 1.0, 0.5])
    # goeval's own rule drops P2 from the benchmark: coverage stays within [0, 1]
    own = evaluate_annotations(onto, truth, {"m": pred}, ia=ia, known=known, thresholds=0.1)
    assert own.curves["coverage"].max() <= 1.0


def test_measures_without_information_in_the_truth_are_nan():
    """i(T) = 0 for every protein (an IA covering none of the truth's terms): the IA-based columns are undefined."""
    from goeval.metrics.protein import UNDEFINED_WITHOUT_INFORMATION, protein_curves
    from goeval.sweep import sweep

    truth = (np.array([0, 1, 2]), np.array([0, 1]))
    pred = (np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([0.9, 0.4, 0.7]))
    ia = np.array([0.0, 0.0, 1.5])  # only a term no protein is annotated with carries information
    st = sweep(*pred, *truth, 3, np.array([0.4, 0.7, 0.9]), ia)
    cur = protein_curves(st)
    for col in UNDEFINED_WITHOUT_INFORMATION:
        assert np.isnan(cur[col]).all(), col
    assert np.isfinite(cur["f"]).all() and cur["n_covered_w"].tolist() == [1, 0, 0]
    w = sweep(*pred, *truth, 3, np.array([0.4, 0.7, 0.9]), np.array([1.0, 0.0, 1.5]))
    assert np.isfinite(protein_curves(w)["s"]).all()  # information somewhere: defined


@pytest.mark.parametrize("normalization", ["cafa", "pred", "gt", "cafa-pk"])
@pytest.mark.parametrize("weighting", ["none", "information"])
def test_curve_sums_are_exactly_the_sums_a_column_depends_on(normalization, weighting):
    """The sums of each column come from its one declaration: a column changes when, and only when, one of
    its sums changes (the oracle: every sum perturbed in turn)."""
    from goeval.metrics.protein import COLUMNS as CURVE_COLUMNS  # every column: those of event sources too
    from goeval.metrics.protein import curve_sums
    from goeval.sweep import STAT_DEFINITIONS as STAT_NAMES  # every sum
    from goeval.sweep import SweepStats

    rng = np.random.default_rng(5)
    base = {k: rng.random(6) + 1.0 for k in STAT_NAMES}

    def curves(sums):
        st = SweepStats(thresholds=np.linspace(0.1, 0.6, 6), sums=sums, n=9.0, n_true=20.0, it_sum=30.0,
                        it2_sum=150.0, n_w=8.0)
        return protein_curves(st, normalization=normalization, protein_weighting=weighting)

    ref = curves(base)
    for col in CURVE_COLUMNS:
        moved = {k for k in STAT_NAMES
                 if not np.array_equal(curves({**base, k: base[k] * 1.5 + 0.25})[col], ref[col])}
        shape = {"covered"} if col == "n_proteins" else set()  # it reads covered for its shape (B, m) only
        assert set(curve_sums(col, normalization, weighting)) == moved | shape, col


@pytest.mark.parametrize("normalization", ["cafa", "pred", "gt", "cafa-pk"])
@pytest.mark.parametrize("weighting", ["none", "information"])
def test_curves_of_handed_over_statistics_let_each_sum_go_after_its_last_column(normalization, weighting):
    """``release``: the same columns, bit for bit, and every sum a column reads leaves the statistics (those no
    column reads stay); a sum removed too early would be a KeyError."""
    from goeval.metrics.protein import COLUMNS as CURVE_COLUMNS
    from goeval.metrics.protein import curve_sums
    from goeval.sweep import STAT_DEFINITIONS as STAT_NAMES
    from goeval.sweep import SweepStats

    rng = np.random.default_rng(9)
    base = {k: rng.random(7) + 0.5 for k in STAT_NAMES}

    def stats():
        return SweepStats(thresholds=np.linspace(0.1, 0.7, 7), sums={k: v.copy() for k, v in base.items()}, n=9.0,
                          n_true=20.0, it_sum=30.0, it2_sum=150.0, n_w=8.0)

    want = protein_curves(stats(), normalization=normalization, protein_weighting=weighting)
    handed = stats()
    got = protein_curves(handed, normalization=normalization, protein_weighting=weighting, release=True)
    assert list(got) == list(want)
    for col in want:
        assert_array_equal(got[col], want[col])
    read = {x for col in CURVE_COLUMNS for x in curve_sums(col, normalization, weighting)}
    assert set(handed.sums) == set(STAT_NAMES) - read


# ---------------------------------------------------------------------------------------------
# BeProf's IC_AUPR (CSUBioGroup/BeProf evaluation.py: fmax, new_compute_performance), followed literally
# ---------------------------------------------------------------------------------------------
def _beprof_oracle(targets, scores, weights, literal_sort=False):
    """BeProf's weighted precision/recall at cuts c / 100 and its np.trapz area, dense numpy as its code.
    ``scores``: -1 where a term is not predicted. Points of equal recall: descending cut (``literal_sort``:
    BeProf's own np.argsort, whose order of ties is the machine's)."""
    w = np.asarray(weights, float).reshape(-1, 1)
    precisions, recalls, cuts = [], [], []
    for cut in (c / 100 for c in range(101)):
        cut_sc = (scores >= cut).astype(np.int32)
        correct_sc = cut_sc * targets
        correct_ic, cut_ic, targets_ic = correct_sc @ w, cut_sc @ w, targets @ w
        with np.errstate(divide="ignore", invalid="ignore"):
            icp, icr = correct_ic / cut_ic, correct_ic / targets_ic
        icp, icr = np.average(icp[np.invert(np.isnan(icp))]) if (~np.isnan(icp)).any() else np.nan, np.average(icr)
        precisions.append(0.0 if np.isnan(icp) else icp)
        recalls.append(icr)
        cuts.append(cut)
    p, r = np.array(precisions), np.array(recalls)
    order = np.argsort(r) if literal_sort else np.lexsort((-np.array(cuts), r))
    return float(np.trapezoid(p[order], r[order])), p, r


def _beprof_case(seed, grid):
    rng = np.random.default_rng(seed)
    n, t = int(rng.integers(1, 9)), int(rng.integers(3, 15))
    targets = (rng.random((n, t)) < 0.35).astype(np.int32)
    targets[np.arange(n), rng.integers(0, t, n)] = 1
    weights = rng.random(t) * 3
    weights[rng.random(t) < 0.2] = 0.0
    weights[targets.argmax(axis=1)] += 0.5  # every protein's truth carries information (BeProf: NaN recall else)
    scores = np.where(rng.random((n, t)) < 0.6, rng.random((n, t)), -1.0)
    if grid:
        scores = np.where(scores >= 0, np.maximum(np.round(scores, 2), 0.01), -1.0)
    elif seed % 2:
        scores = np.where(scores >= 0, np.round(scores, 1) + 0.001, -1.0)  # few distinct scores: recall ties
    return targets, scores, weights


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_ic_aupr_is_beprofs_area_of_the_weighted_curve(seed, grid):
    """ic_aupr equals BeProf's IC_AUPR, followed literally, on random cases (IA as BeProf's IC weights): from
    every distinct score, and from the 0.01 grid when no score lies below 0.01 (BeProf's cut 0 read at 0.01)."""
    from goeval.metrics.protein import curve_values
    from goeval.metrics.registry import get_measure
    from goeval.sweep import exact_thresholds

    targets, scores, weights = _beprof_case(seed, grid)
    tm = sp.csr_array(targets)
    pm = sp.csr_array((scores[scores >= 0], np.nonzero(scores >= 0)[1], np.r_[0, np.cumsum((scores >= 0).sum(1))]),
                      shape=scores.shape)
    taus = grid_thresholds(0.01) if grid else exact_thresholds(pm.data)
    stats = sweep(pm.indptr, pm.indices, pm.data, tm.indptr, tm.indices, targets.shape[1], taus, weights)
    got = curve_values(stats, [get_measure("ic_aupr")])["ic_aupr"]
    want, p, r = _beprof_oracle(targets, scores, weights)
    assert float(got) == pytest.approx(want, rel=1e-12, abs=1e-14)
    if all(np.ptp(p[r == x]) == 0 for x in np.unique(r)):  # no tie to order: BeProf's own sort, the same area
        assert float(got) == pytest.approx(_beprof_oracle(targets, scores, weights, literal_sort=True)[0],
                                           rel=1e-12, abs=1e-14)


def test_ic_aupr_of_curves_covering_no_protein_is_undefined():
    """Like an optimum or an area, ic_aupr is NaN (not 0) where no protein is covered at any threshold: a bootstrap
    replicate drawing only unpredicted proteins."""
    from goeval.metrics.protein import curve_values
    from goeval.metrics.registry import get_measure

    stats = sweep(np.zeros(3, np.int64), np.zeros(0, np.int64), np.zeros(0), np.array([0, 1, 2]), np.array([0, 1]),
                  2, grid_thresholds(0.01), np.ones(2), weights=np.array([[1.0, 1.0], [2.0, 0.0]]))
    assert np.isnan(curve_values(stats, [get_measure("ic_aupr")])["ic_aupr"]).all()


def test_ic_aupr_is_not_waupr():
    """ic_aupr and waupr read the same weighted curve but take different areas (trapezoids at BeProf's cuts;
    the monotone envelope with end points): they differ."""
    from goeval.metrics.protein import aupr_score, beprof_aupr

    taus = np.array([0.2, 0.5, 0.9])
    rc, pr = np.array([1.0, 0.5, 0.25]), np.array([0.5, 0.75, 1.0])
    assert float(beprof_aupr(taus, rc, pr)) == pytest.approx(0.65625)
    assert aupr_score(rc[::-1], pr[::-1]) == pytest.approx(0.25 + 0.25 * 1.0 + 0.5 * 1.0)
