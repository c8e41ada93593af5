"""Known terms (partial knowledge): removed from truth and predictions after propagation.

By hand on a toy DAG, and against the explicit route: remove the known pairs
from the propagated sets (:func:`remove_known`), then sweep them without
propagating again.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_dag_edges
from numpy.testing import assert_allclose

import goeval
from goeval.sparse import column_range
from goeval.annotations import remove_pairs
from goeval.benchmarks.timesplit import remove_known
from goeval.errors import InvalidParameterError
from goeval.evaluation import evaluate_annotations, namespace_stats
from goeval.sweep import exact_thresholds, sweep

#   a (root)
#   ├── b ── d
#   └── c ── e
EDGES = [("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")]


@pytest.fixture
def toy():
    onto = goeval.ontology_from_edges(EDGES)
    truth = goeval.Annotations.from_pairs(onto, ["p", "q", "q"], ["d", "b", "e"])
    pred = goeval.Annotations.from_pairs(onto, ["p", "p", "q", "q"], ["d", "e", "d", "e"], [0.8, 0.3, 0.6, 0.9])
    known = goeval.Annotations.from_pairs(onto, ["p", "q"], ["b", "b"])
    return onto, truth, pred, known


def test_by_hand(toy):
    onto, truth, pred, known = toy
    # p: T = {a, b, d} minus known {a, b} -> {d}; P = {d .8, b .8, a .8, e .3, c .3} minus {a, b} -> {d .8, e .3, c .3}
    # q: T = {a, b, c, e} minus {a, b} -> {c, e}; P = {d .6, b .6, e .9, c .9, a .9} minus {a, b} -> {d .6, e .9, c .9}
    diag: dict = {}
    st = namespace_stats(onto, truth, {"m": pred}, known=known, diagnostics=diag)[("m", onto.labels[0])]
    assert st.thresholds.tolist() == [0.3, 0.6, 0.8, 0.9]
    assert st.n == 2 and st.n_true == 3
    assert st.sums["npred"].tolist() == [6, 4, 3, 2]  # p: 3, 1, 1, 0; q: 3, 3, 2, 2
    assert st.sums["tp"].tolist() == [3, 3, 3, 2]  # p: 1, 1, 1, 0; q: 2, 2, 2, 2
    assert st.sums["covered"].tolist() == [2, 2, 2, 1]
    assert_allclose(st.sums["pr"], [1 / 3 + 2 / 3, 1 + 2 / 3, 1 + 1, 1])
    assert diag["known"]["truth_pairs_removed"] == 4 and diag["known"]["proteins_left_without_truth"] == 0
    assert diag["methods"]["m"]["namespaces"][onto.labels[0]]["known_pairs_removed"] == 4


def test_protein_whose_truth_is_known_leaves_the_benchmark(toy):
    onto, truth, pred, _ = toy
    known = goeval.Annotations.from_pairs(onto, ["p"], ["d"])  # p's whole truth {a, b, d}
    diag: dict = {}
    st = namespace_stats(onto, truth, {"m": pred}, known=known, diagnostics=diag)[("m", onto.labels[0])]
    assert st.n == 1 and diag["known"]["proteins_left_without_truth"] == 1
    assert diag["namespaces"][onto.labels[0]]["benchmark_proteins"] == 1


def test_root_as_prediction_skips_known_roots(toy):
    onto, truth, pred, known = toy
    st = namespace_stats(onto, truth, {"m": pred}, known=known,
                         options=goeval.options.EvaluationOptions(root_as_prediction=True))[("m", onto.labels[0])]
    base = namespace_stats(onto, truth, {"m": pred}, known=known)[("m", onto.labels[0])]
    for k in base.sums:  # the root is known for both proteins: nothing changes
        assert_allclose(st.sums[k], base.sums[k], err_msg=k)


def test_known_must_be_on_the_same_ontology(toy):
    onto, truth, pred, _ = toy
    other = goeval.ontology_from_edges(EDGES)
    with pytest.raises(InvalidParameterError, match="'known' parameter"):
        namespace_stats(onto, truth, {"m": pred}, known=goeval.Annotations.from_pairs(other, ["p"], ["b"]))
    with pytest.raises(InvalidParameterError, match="'known' parameter"):
        namespace_stats(onto, truth, {"m": pred}, known=pred)


def test_remove_pairs(toy):
    onto, truth, _, known = toy
    out = remove_pairs(goeval.propagate(truth), goeval.propagate(known), drop_empty=True)
    assert sorted(zip(*out.to_frame().values.T)) == [("p", "d"), ("q", "c"), ("q", "e")]
    assert out.diagnostics["pairs_removed"] == 4


# ------------------------------------------------------------------ oracle
def explicit_stats(onto, truth, preds, known, ia, propagation):
    """Statistics of the sets of remove_known, swept without propagating again (one namespace)."""
    tr, pr = remove_known(truth, preds, known, propagation)
    tm = tr.matrix.tocsr()
    tm.sort_indices()
    out = {}
    for name, p in preds.items():
        pm = pr[name]
        index = {x: i for i, x in enumerate(pm.proteins.tolist())}
        rows = [index.get(x, -1) for x in tr.proteins.tolist()]
        m = pm.matrix.tocsr()
        sel = [r for r in rows if r >= 0]
        counts = np.zeros(len(rows), np.int64)
        ptr_p, cols_p, data_p = column_range(m, 0, onto.n_terms, np.array(sel, np.int64))
        counts[[i for i, r in enumerate(rows) if r >= 0]] = np.diff(ptr_p)
        if cols_p.size == 0:
            continue
        taus = exact_thresholds(data_p)
        out[name] = sweep(np.r_[0, np.cumsum(counts)], cols_p, data_p, tm.indptr, tm.indices, onto.n_terms, taus, ia)
    return out


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("propagation", ["max", "fill"])
def test_equals_remove_known_then_sweep(seed, propagation):
    rng = np.random.default_rng(seed)
    n_terms = int(rng.integers(6, 16))
    onto = goeval.ontology_from_edges(random_dag_edges(rng, n_terms))
    terms = [f"t{i}" for i in range(1, n_terms)]

    def pairs(n_max, scores):
        ps, ts, ss = [], [], []
        for i in range(10):
            for t in rng.choice(terms, size=int(rng.integers(0, n_max)), replace=False):
                ps.append(f"P{i}")
                ts.append(str(t))
                ss.append(float(rng.choice([0.2, 0.5, 0.7, 1.0])) if rng.random() < 0.5 else float(rng.random()))
        return goeval.Annotations.from_pairs(onto, ps, ts, ss if scores else None)

    truth, pred, known = pairs(4, False), pairs(6, True), pairs(3, False)
    ia = rng.random(onto.n_terms) * 2
    opts = goeval.options.EvaluationOptions(propagation=propagation)
    got = namespace_stats(onto, truth, {"m": pred}, ia, opts, known=known)
    want = explicit_stats(onto, truth, {"m": pred}, known, ia, propagation)
    assert set(k[0] for k in got) == set(want)
    for (name, _), st in got.items():
        w = want[name]
        assert_allclose(st.thresholds, w.thresholds)
        assert st.n == w.n and st.n_true == w.n_true
        for k in w.sums:
            assert_allclose(st.sums[k], w.sums[k], err_msg=k, atol=1e-12)


def test_evaluate_annotations_known_changes_only_what_is_known(toy):
    onto, truth, pred, known = toy
    res = evaluate_annotations(onto, truth, {"m": pred}, known=known)
    f = {r["measure"]: r for r in res.summary_records}["fmax"]
    # thresholds 0.3 / 0.6 / 0.8 / 0.9: pr (1/3+2/3)/2, (1+2/3)/2, 1, 1; rc (1+1)/2, (1+1)/2, (1+1)/2, (0+1)/2
    assert f["value"] == pytest.approx(1.0) and f["threshold"] == 0.8
    empty = goeval.Annotations.from_pairs(onto, ["zz"], ["b"])
    a = evaluate_annotations(onto, truth, {"m": pred}, known=empty)
    b = evaluate_annotations(onto, truth, {"m": pred})
    assert a.summary_records == b.summary_records
