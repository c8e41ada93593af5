"""Tests of goeval.metrics.retrieval: per-GO-term retrieval queries."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from goeval.errors import InvalidParameterError
from goeval.metrics.iprauc import ipr_auc
from goeval.metrics.tapk import RetrievalList, tap_curve, tap_k
from goeval.metrics.retrieval import term_queries, term_retrieval

PROTEINS = np.array(["P3", "P1", "P2", "P4"])


def _small():
    # rows: P3, P1, P2, P4; columns: terms t0, t1, t2
    truth = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [0, 1, 0]], dtype=bool)
    scores = np.array([[0.5, 0.0, 0.3], [0.5, 0.2, 0.0], [0.9, 0.0, 0.0], [0.0, 0.7, 0.0]])
    return sp.csr_array(truth), sp.csr_array(scores)


def test_term_queries_by_hand():
    truth, scores = _small()
    lists, index = term_queries(truth, scores, PROTEINS, term_ids=["t0", "t1", "t2"])
    assert index.tolist() == [0, 1]  # t2 has no truth protein
    assert lists.ids == ("t0", "t1")
    assert lists.n_relevant.tolist() == [2, 2]
    # t0: P2 0.9, then the tie at 0.5 broken by id: P1 before P3
    assert lists[0].scores.tolist() == [0.9, 0.5, 0.5]
    assert lists[0].relevance.tolist() == [False, True, True]
    assert lists[1].scores.tolist() == [0.7, 0.2]
    assert lists[1].relevance.tolist() == [True, True]
    every, index0 = term_queries(truth, scores, PROTEINS, min_positives=0)
    assert index0.tolist() == [0, 1, 2] and every.ids == ("0", "1", "2") and every.n_relevant[2] == 0


def test_term_queries_weights_and_errors():
    truth, scores = _small()
    lists, _ = term_queries(truth, scores, PROTEINS, query_weights=[2.0, 3.0, 4.0])
    assert lists.weights.tolist() == [2.0, 3.0]
    with pytest.raises(InvalidParameterError, match="protein_ids"):
        term_queries(truth, scores, PROTEINS[:3])
    with pytest.raises(InvalidParameterError, match="same shape"):
        term_queries(truth, scores[:, :2], PROTEINS)
    with pytest.raises(InvalidParameterError, match="query_weights"):
        term_queries(truth, scores, PROTEINS, query_weights=[1.0])
    with pytest.raises(InvalidParameterError, match="'min_positives'"):
        term_queries(truth, scores, PROTEINS, min_positives=-1)


def _oracle_lists(truth, scores, pids, min_positives=1):
    """One RetrievalList per term, built with Python sorting."""
    out = []
    for j in range(truth.shape[1]):
        t = int(truth[:, j].sum())
        if t < min_positives:
            continue
        rows = [i for i in range(truth.shape[0]) if scores[i, j] != 0]
        rows.sort(key=lambda i: (-scores[i, j], pids[i]))
        out.append(RetrievalList(id=str(j), n_relevant=t, scores=[scores[i, j] for i in rows],
                                 relevance=[bool(truth[i, j]) for i in rows]))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_term_retrieval_matches_per_term_loops(seed):
    rng = np.random.default_rng(seed)
    n, m = 30, 25
    truth = rng.random((n, m)) < 0.15
    scores = np.round(rng.random((n, m)), 1) * (rng.random((n, m)) < 0.5)
    pids = np.array([f"P{v:03d}" for v in rng.permutation(n)])
    res = term_retrieval(sp.csc_array(truth), sp.coo_array(scores), pids, 3, min_positives=1)
    expected = _oracle_lists(truth, scores, pids)
    assert res.term_index.tolist() == [int(q.id) for q in expected]
    for got, want in zip(res.lists, expected):
        assert_array_equal(got.scores, want.scores)
        assert_array_equal(got.relevance, want.relevance)
    ref = tap_k(expected, 3)
    assert res.tapk.cutoff == ref.cutoff
    assert_allclose(res.tapk.apcp, ref.apcp, rtol=1e-14, atol=0)
    assert res.tapk.tap == pytest.approx(ref.tap, rel=1e-14)
    auc = [ipr_auc(q.relevance, q.n_relevant) for q in expected]
    assert_allclose(res.ipr_auc, auc, rtol=1e-14)
    assert res.mean_ipr_auc == pytest.approx(np.mean(auc))
    curve = tap_curve(expected)
    assert_array_equal(res.curve.cutoffs, curve.cutoffs)
    assert_allclose(res.curve.tap, curve.tap, atol=1e-12)


def test_term_retrieval_options():
    truth, scores = _small()
    res = term_retrieval(truth, scores, PROTEINS, None, threshold=0.5, curve=False, query_weights=[1.0, 3.0, 1.0])
    assert res.curve is None and res.tapk.cutoff == 0.5
    # t0 inside 0.5: P2 (no), P1 (yes), P3 (yes): (1/2 + 2/3 + 2/3) / 3 ; t1 inside: P4 (yes): (1 + 1) / 3
    assert_allclose(res.tapk.apcp, [(0.5 + 2 / 3 + 2 / 3) / 3, 2 / 3])
    assert res.tapk.tap == pytest.approx((res.tapk.apcp[0] + 3 * res.tapk.apcp[1]) / 4)
    assert_allclose(res.ipr_auc, [2 / 3, 1.0])
    assert res.mean_ipr_auc == pytest.approx((2 / 3 + 3) / 4)
