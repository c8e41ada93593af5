"""Per-protein similarity step functions (goeval.metrics.similarity_steps).

The sums under protein weights are checked against the sweep of the rows duplicated as often as their weight
(a slow oracle: what a bootstrap resample is), and the unweighted ones against the sweep, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import goeval
from goeval.errors import InvalidParameterError
from goeval.metrics.similarity import SimilaritySpec, similarity_partial, similarity_stats, similarity_sweep
from goeval.metrics.similarity_steps import SimilaritySteps, similarity_steps
from tests.conftest import random_dag_edges

MEASURES = ("lin", "jc", "wang", "jaccard", "simgic")
PAIRINGS = ("all", "bma", "bma-mean", "max", "rcmax")
SCORES = np.array([0.1, 0.3, 0.5, 0.7, 0.9, np.inf])


def _random_block(seed: int, n: int = 12, terms: int = 25):
    rng = np.random.default_rng(seed)
    onto = goeval.ontology_from_edges(random_dag_edges(rng, terms))
    anc = onto.ancestors_csr

    def closed(k: int) -> tuple[np.ndarray, np.ndarray]:
        """k random terms with random scores, propagated (an ancestor takes the largest score below it)."""
        score = np.full(onto.n_terms, -1.0)
        for t, v in zip(rng.choice(onto.n_terms, size=k, replace=False), rng.choice(SCORES, size=k)):
            a = anc.indices[anc.indptr[t]:anc.indptr[t + 1]]
            score[a] = np.maximum(score[a], v)
        cols = np.flatnonzero(score >= 0)
        return cols, score[cols]

    truth = [closed(int(rng.integers(1, 4)))[0] for _ in range(n)]
    pred = [closed(int(rng.integers(1, 5)) if i % 5 else 0) for i in range(n)]
    ic = rng.uniform(0, 4, onto.n_terms)
    return onto, truth, [p for p, _ in pred], [s for _, s in pred], ic


def _csr(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return np.r_[0, np.cumsum([r.size for r in rows])].astype(np.int64), np.concatenate(rows).astype(np.int64)


def _steps(seed, thresholds, chunk_items=1 << 21, rows=None):
    onto, truth, pred, scores, ic = _random_block(seed)
    pick = range(len(truth)) if rows is None else rows
    t_ptr, t_cols = _csr([truth[i] for i in pick])
    p_ptr, p_cols = _csr([pred[i] for i in pick])
    sc = np.concatenate([scores[i] for i in pick]).astype(np.float64)
    spec = SimilaritySpec.of(onto, 0, onto.n_terms, ic, ic, measures=MEASURES, pairings=PAIRINGS)
    args = (t_ptr, t_cols, p_ptr, p_cols, sc, thresholds, spec)
    return similarity_steps(*args, chunk_items=chunk_items), similarity_partial(*args, chunk_items=chunk_items), spec


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("chunk_items", [1 << 21, 40])
def test_the_partial_of_the_kept_steps_is_the_sweeps_bit_for_bit(seed, chunk_items):
    taus = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    steps, (keys, values), spec = _steps(seed, taus, chunk_items)
    if chunk_items == 40:
        assert steps.group_bounds.size > 3  # several chunks, added one after the other
    k2, v2 = steps.partial()
    assert_array_equal(k2, keys)
    assert_array_equal(v2, values)
    want = similarity_stats(taus, keys, values, spec.columns, 12)
    for got in (steps.stats(), steps.stats(np.ones(12)), steps.stats(np.ones((1, 12)))):
        for c in spec.columns:
            assert_array_equal(np.reshape(got.sums[c], -1), want.sums[c])
            assert_array_equal(np.reshape(got.defined[c], -1), want.defined[c])


@pytest.mark.parametrize("seed", range(4))
def test_weighted_sums_are_those_of_the_rows_repeated(seed):
    """Row b of W gives the sweep of protein i taken W[b, i] times (0: left out), each column and count."""
    taus = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    steps, _, spec = _steps(seed, taus, chunk_items=60)
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 3, size=(5, 12)).astype(np.float64)
    got = steps.stats(w)
    for b in range(w.shape[0]):
        drawn = np.repeat(np.arange(12), w[b].astype(int))
        _, (keys, values), _ = _steps(seed, taus, rows=drawn)
        want = similarity_stats(taus, keys, values, spec.columns, drawn.size)
        assert got.n[b] == drawn.size
        for c in spec.columns:
            assert_allclose(got.sums[c][b], want.sums[c], rtol=1e-12, atol=1e-12, err_msg=c)
            assert_array_equal(got.defined[c][b], want.defined[c])
    one = steps.stats(w[2])  # a weight vector: the same sums as its row of the matrix
    for c in spec.columns:
        assert_allclose(one.sums[c], got.sums[c][2], rtol=1e-12, atol=1e-12)


def test_rebinned_and_assembled_steps_keep_every_protein_value():
    """Leaves of a block over their own thresholds, put on the block's: the block's sums, and on a finer
    threshold set the values of the next old threshold above."""
    taus = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    whole, (keys, values), spec = _steps(1, taus)
    first, _, _ = _steps(1, taus[[0, 2, 4]], rows=range(7))
    second, _, _ = _steps(1, taus, rows=range(7, 12))
    block = SimilaritySteps.assemble([(np.arange(7), first), (np.arange(7, 12), second)], taus, 12, spec.columns)
    lo, _, _ = _steps(1, taus[[0, 2, 4]])
    want_lo = lo.stats()
    got = block.stats()
    for c in spec.columns:
        assert_allclose(got.sums[c][5:], whole.stats().sums[c][5:])
        # proteins 0..6 seen at 0.1, 0.5, 0.9 only: the block's thresholds 0.3 and 0.7 take those of 0.5 and 0.9
        part = first.on(taus, np.array([0, 2, 4])).stats()
        assert_allclose(part.sums[c][[1, 3]], first.stats().sums[c][[1, 2]])
    finer = lo.on(taus, np.array([0, 2, 4])).stats()
    for c in spec.columns:
        assert_allclose(finer.sums[c][[0, 1, 2, 3, 4]], want_lo.sums[c][[0, 1, 1, 2, 2]])
    empty = whole.empty().stats(np.ones((2, 12)))
    assert all(not v.any() for v in empty.sums.values()) and empty.n.tolist() == [12, 12]


def test_sweep_equals_steps_and_bad_columns_or_weights_are_parameter_errors():
    taus = np.array([0.1, 0.5, 0.9])
    steps, _, spec = _steps(2, taus)
    onto, truth, pred, scores, ic = _random_block(2)
    t_ptr, t_cols = _csr(truth)
    p_ptr, p_cols = _csr(pred)
    st = similarity_sweep(t_ptr, t_cols, p_ptr, p_cols, np.concatenate(scores), taus, onto, 0, onto.n_terms, ic, ic,
                          measures=MEASURES, pairings=PAIRINGS)
    for c in spec.columns:
        assert_array_equal(steps.stats().sums[c], st.sums[c])
    with pytest.raises(InvalidParameterError, match="hold the columns"):
        steps.stats(columns=["resnik_bma"])
    with pytest.raises(InvalidParameterError, match="weights"):
        steps.stats(np.ones(3))
