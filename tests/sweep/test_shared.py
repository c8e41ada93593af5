"""The sweep of one shared score vector (naive) from per-term sums of the truth, against oracles."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oracles import kernel_oracle, random_score, to_csr

from goeval.sweep import STAT_NAMES, finish_partial, fold_infinite, grid_thresholds, sweep_partial, truth_totals
from goeval.sweep.shared import known_partial, shared_partial, shared_supported, shared_thresholds


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


def _known_case(seed: int, n_rows: int, n_cols: int, with_inf: bool):
    """A random vector, truth and known terms (disjoint from the truth; some rows know every term of a level,
    some have an empty truth, as under ``cafa-pk``), with ties, IA zeros and terms of equal IA."""
    rng = np.random.default_rng(seed)
    truth, cols, scores, ia = _random(seed, n_rows, n_cols, with_inf)
    ia[rng.random(n_cols) < 0.2] = 0.5
    known = []
    for i, t in enumerate(truth):
        rest = [c for c in range(n_cols) if c not in t]
        kn = set(rng.choice(rest, size=int(rng.integers(0, len(rest) + 1)), replace=False).tolist())
        if rng.random() < 0.15:  # every term of the vector's top scores known
            kn |= {int(c) for c, s in zip(cols, scores) if s >= scores.max(initial=0.0) and c not in t}
        if rng.random() < 0.1:
            kn, truth[i] = kn | t, set()
        known.append(kn)
    return truth, known, cols, scores, ia


def _rows_without_known(truth, known, cols, scores, taus, n_cols, ia, weighted_rows):
    """The rows path: the vector tiled, each protein's known terms removed, swept by the kernel."""
    preds = [{int(c): float(s) for c, s in zip(cols, scores) if int(c) not in kn} for kn in known]
    p_ptr, p_cols, p_data = to_csr(preds, n_cols, True)
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    return sweep_partial(p_ptr, p_cols, p_data, t_ptr, t_cols, n_cols, shared_thresholds(scores, taus), ia,
                         weighted_rows=weighted_rows)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), grid=st.booleans(), n_rows=st.integers(1, 30), with_ia=st.booleans(),
       weighted=st.booleans(), chunk=st.sampled_from([1, 7, 1 << 19]))
def test_known_partial_matches_the_rows_without_known_terms(seed, grid, n_rows, with_ia, weighted, chunk):
    """Partial knowledge from the vector's levels: the same keys, every count exact, every sum to 1e-12
    relative (1e-13 of its largest value) of the rows made protein by protein (each without its known terms)."""
    n_cols = 25
    truth, known, cols, scores, ia = _known_case(seed, n_rows, n_cols, not grid)
    ia = ia if with_ia else None
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    k_ptr, k_cols = to_csr(known, n_cols, False)
    w = np.array([1.0 if t and (ia is None or ia[list(t)].sum() > 0) else 0.0 for t in truth]) if weighted else None
    taus = grid_thresholds(0.01) if grid else None
    got = known_partial(cols, scores, t_ptr, t_cols, k_ptr, k_cols, n_cols, taus, ia, weighted_rows=w,
                        chunk_entries=chunk)
    want = _rows_without_known(truth, known, cols, scores, taus, n_cols, ia, w)
    assert_array_equal(got.keys, want.keys)
    a, b = _finished(got, taus, truth, n_cols, ia), _finished(want, taus, truth, n_cols, ia)
    for key in STAT_NAMES:
        if key in ("tp", "npred", "covered", "ntrue_cov", "covered_w"):
            assert_array_equal(a.sums[key], b.sums[key], err_msg=key)
        else:  # (a sum that cancels, e.g. ru once every true term is predicted: to 1e-13 of the curve's scale)
            scale = float(np.abs(b.sums[key]).max(initial=0.0))
            assert_allclose(a.sums[key], b.sums[key], rtol=1e-12, atol=1e-13 * scale, err_msg=key)


def test_known_partial_counts_a_level_of_known_terms_as_nothing():
    """Every term of a level known: no group there (the rows have none), and a sum of IA over known terms
    equal to their level's is 0, not the residue of the level's sum (``hi + lo`` cannot hold these five
    IA exactly: +4.5e-32 is left), so the protein predicts no IA there (not covered_w, mi 0)."""
    ia = np.array([4.413586394246871e-18, 4.06315392012355e-08, 5.894500922944562e-07, 0.06919489770114057,
                   9.028811551744809, 0.0])
    cols, scores = np.arange(6), np.array([0.9] * 5 + [0.5])
    part = known_partial(cols, scores, np.array([0, 1]), np.array([5]), np.array([0, 5]), np.arange(5), 6, None, ia)
    assert part.keys.tolist() == [0.5]
    names = list(STAT_NAMES)
    assert part.values[0, names.index("tp")] == 1.0 and part.values[0, names.index("covered")] == 1.0
    for name in ("covered_w", "ia_pred", "mi", "wpr"):
        assert part.values[0, names.index(name)] == 0.0, name


def test_known_partial_sums_a_total_registered_later():
    """A running total registered later (a count, and a sum over true terms only) reaches the per-level sweep
    with no other change: its sums equal the rows'."""
    from goeval.sweep.quantities import (Quantity, RunningTotal, register_quantity, register_total, sum_names,
                                         unregister_quantity)

    register_total(RunningTotal(name="n_high", entry=lambda e: e.scores >= 0.5, exact=True, scores=True))
    register_total(RunningTotal(name="ia2_tp", entry=lambda e: np.where(e.tp, e.ia * e.ia, 0.0)))
    for name in ("n_high", "ia2_tp"):
        register_quantity(Quantity(name=name, value=(lambda n: lambda s: s[n])(name), totals=(name,),
                                   sums={name: 0}, shared=None))
    try:
        for seed in range(5):
            truth, known, cols, scores, ia = _known_case(seed, 12, 25, True)
            t_ptr, t_cols = to_csr(truth, 25, False)
            k_ptr, k_cols = to_csr(known, 25, False)
            got = known_partial(cols, scores, t_ptr, t_cols, k_ptr, k_cols, 25, None, ia, chunk_entries=40)
            want = _rows_without_known(truth, known, cols, scores, None, 25, ia, None)
            assert_array_equal(got.keys, want.keys)
            q = list(sum_names()).index
            assert_array_equal(got.values[:, q("n_high")], want.values[:, q("n_high")])
            assert want.values[:, q("ia2_tp")].any()
            assert_allclose(got.values[:, q("ia2_tp")], want.values[:, q("ia2_tp")], rtol=1e-12, atol=1e-13)
    finally:
        for name in ("n_high", "ia2_tp"):
            unregister_quantity(name)


def test_known_partial_refuses_a_total_that_is_not_finite():
    """An entry value of +inf (a registered total reading a root's score uncapped) would leave inf - inf where a
    protein knows the root: a clear error naming the total, not a NaN in the sums."""
    import pytest

    from goeval.errors import InvalidParameterError
    from goeval.sweep.quantities import (Quantity, RunningTotal, register_quantity, register_total,
                                         unregister_quantity)

    register_total(RunningTotal(name="raw_score", entry=lambda e: e.scores, scores=True))
    register_quantity(Quantity(name="raw_score", value=lambda s: s["raw_score"], totals=("raw_score",),
                               sums={"raw_score": 0}, shared=None))
    try:
        with pytest.raises(InvalidParameterError, match="running total 'raw_score' .* not finite"):
            known_partial(np.array([0, 1]), np.array([math.inf, 0.5]), np.array([0, 1]), np.array([1]),
                          np.array([0, 1]), np.array([0]), 2, None)
    finally:
        unregister_quantity("raw_score")
