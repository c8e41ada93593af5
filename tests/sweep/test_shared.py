"""The sweep of one shared score vector (naive) from per-term sums of the truth, against oracles."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oracles import kernel_oracle, random_score, to_csr

from goeval.sweep import STAT_NAMES, finish_partial, fold_infinite, grid_thresholds, sweep_partial, truth_totals
from goeval.sweep.shared import shared_partial, shared_supported, shared_thresholds


def _random(seed: int, n_rows: int, n_cols: int, with_inf: bool):
    rng = np.random.default_rng(seed)
    ia = np.where(rng.random(n_cols) < 0.25, 0.0, rng.random(n_cols) * 3)
    truth = [set(rng.choice(n_cols, size=int(rng.integers(1, 6)), replace=False).tolist()) for _ in range(n_rows)]
    cols = np.sort(rng.choice(n_cols, size=int(rng.integers(0, n_cols)), replace=False))
    scores = np.array([random_score(rng) for _ in cols])
    if with_inf and cols.size and rng.random() < 0.5:
        scores[0] = math.inf
    return truth, cols.astype(np.int64), scores, ia


def _finished(part, taus, truth, n_cols, ia):
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    n_t, i_t = truth_totals(t_ptr, t_cols, ia, n_cols)
    return finish_partial(fold_infinite(part), taus, n_t, i_t)


def test_every_sum_has_a_rule():
    assert shared_supported()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), grid=st.booleans(), with_ia=st.booleans(), with_inf=st.booleans())
def test_shared_partial_matches_the_slow_oracle(seed, grid, with_ia, with_inf):
    n_cols = 14
    truth, cols, scores, ia = _random(seed, 9, n_cols, with_inf and not grid)
    ia = ia if with_ia else None
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    taus = grid_thresholds(0.1) if grid else None
    got = _finished(shared_partial(cols, scores, t_ptr, t_cols, n_cols, taus, ia), taus, truth, n_cols, ia)
    want = kernel_oracle(truth, [dict(zip(cols.tolist(), scores.tolist()))] * len(truth), ia, got.thresholds)
    for key in STAT_NAMES:
        assert_allclose(got.sums[key], want[key], rtol=1e-12, atol=1e-12, err_msg=key)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), grid=st.booleans(), n_rows=st.integers(1, 40))
def test_shared_partial_matches_the_materialised_rows(seed, grid, n_rows):
    """The same keys and, to 1e-12 relative, the same changes as the kernel on one row per protein."""
    n_cols = 25
    truth, cols, scores, ia = _random(seed, n_rows, n_cols, not grid)
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    taus = grid_thresholds(0.01) if grid else None
    shared = shared_partial(cols, scores, t_ptr, t_cols, n_cols, taus, ia)
    rows = sweep_partial(np.arange(n_rows + 1) * cols.size, np.tile(cols, n_rows), np.tile(scores, n_rows), t_ptr,
                         t_cols, n_cols, shared_thresholds(scores, taus), ia)
    assert_array_equal(shared.keys, rows.keys)
    a, b = _finished(shared, taus, truth, n_cols, ia), _finished(rows, taus, truth, n_cols, ia)
    for key in STAT_NAMES:
        scale = max(1.0, float(np.abs(b.sums[key]).max(initial=0.0)))
        assert_allclose(a.sums[key], b.sums[key], rtol=1e-12, atol=1e-13 * scale, err_msg=key)


def test_nothing_above_the_first_threshold_is_empty():
    part = shared_partial(np.array([0]), np.array([0.004]), np.array([0, 1]), np.array([0]), 2, grid_thresholds(0.01))
    assert part.keys.size == 0
