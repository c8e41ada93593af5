"""The threshold-sweep kernel against the slow oracles of ``tests/oracles.py``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oracles import *  # noqa: F401,F403 - the oracles and random cases

from goeval.errors import InvalidParameterError
from goeval.sweep import STAT_NAMES, SweepStats, exact_thresholds, grid_thresholds, sweep

# =====================================================================
# Tests of the kernel
# =====================================================================
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    grid=st.booleans(),
    chunk=st.sampled_from([1, 3, 17, 1 << 21]),
    with_ia=st.booleans(),
)
def test_sweep_matches_oracle(seed, grid, chunk, with_ia):
    n_cols = 15
    truth, preds, ia = random_kernel_input(seed, n_cols=n_cols)
    ia = ia if with_ia else None
    taus = grid_thresholds(0.01) if grid else exact_thresholds(*[np.array(list(p.values())) for p in preds])
    got = run_kernel(truth, preds, ia, taus, n_cols, chunk_entries=chunk)
    assert_array_equal(got.thresholds, taus)
    assert_stats_equal(got, kernel_oracle(truth, preds, ia, taus), truth, ia)
    if not with_ia:
        for key in ("covered_w", "wpr", "wrc", "ru", "mi", "it_cov_w", "ia_tp", "ia_pred"):
            assert not got.sums[key].any(), key


@pytest.mark.parametrize("seed", range(6))
def test_sweep_is_additive_over_proteins(seed):
    """Statistics of two halves add up to those of the whole (chunked backends)."""
    n_cols = 15
    truth, preds, ia = random_kernel_input(seed, n_rows=14, n_cols=n_cols)
    taus = grid_thresholds(0.05)
    whole = run_kernel(truth, preds, ia, taus, n_cols)
    part = run_kernel(truth[:5], preds[:5], ia, taus, n_cols)
    part += run_kernel(truth[5:], preds[5:], ia, taus, n_cols)
    assert (part.n, part.n_true) == (whole.n, whole.n_true)
    assert_allclose([part.it_sum, part.it2_sum], [whole.it_sum, whole.it2_sum], **TOL)
    for key in STAT_NAMES:
        assert_allclose(part.sums[key], whole.sums[key], err_msg=key, **TOL)


def test_sweep_stats_on_different_thresholds_cannot_be_added():
    truth, preds, ia = random_kernel_input(0)
    a = run_kernel(truth, preds, ia, grid_thresholds(0.1), 15)
    b = run_kernel(truth, preds, ia, grid_thresholds(0.05), 15)
    with pytest.raises(InvalidParameterError):
        a += b


def test_sweep_rejects_rows_that_do_not_match():
    p_ptr, p_cols, p_data = to_csr([{0: 0.5}], 3, True)
    t_ptr, t_cols = to_csr([{0}, {1}], 3, False)
    with pytest.raises(InvalidParameterError):
        sweep(p_ptr, p_cols, p_data, t_ptr, t_cols, 3, grid_thresholds(0.1))


def test_sweep_without_predictions_or_thresholds():
    """Nothing predicted: ru is i(T) everywhere, every other sum is zero."""
    ia = np.array([0.0, 1.0, 2.0])
    truth = [{0, 1}, {1, 2}]
    got = run_kernel(truth, [{}, {}], ia, grid_thresholds(0.25), 3)
    assert_allclose(got.sums["ru"], np.full(4, 1.0 + 3.0))
    assert_allclose(got.sums["it_ru"], np.full(4, 1.0 + 9.0))
    for key in set(STAT_NAMES) - {"ru", "it_ru"}:
        assert not got.sums[key].any(), key
    empty = run_kernel(truth, [{0: 0.5}, {}], ia, np.zeros(0), 3)
    assert empty.n == 2 and all(v.size == 0 for v in empty.sums.values())


def test_sweep_threshold_is_inclusive_and_exact_on_the_grid():
    """A score of exactly 0.06 is predicted at tau = 0.06 (score >= tau)."""
    taus = grid_thresholds(0.01)
    got = run_kernel([{0}], [{0: 0.06}], None, taus, 1)
    assert_array_equal(got.sums["covered"][:6], 1.0)
    assert_array_equal(got.sums["covered"][6:], 0.0)
    # the drifting float grid of the incumbent misses it
    assert np.arange(0.01, 1, 0.01)[5] > 0.06


def test_sweep_infinite_scores_are_predicted_at_every_threshold():
    got = run_kernel([{0, 1}], [{0: math.inf, 1: 0.5}], np.array([0.0, 1.0]), grid_thresholds(0.25), 2)
    assert_array_equal(got.sums["npred"], [2, 2, 1, 1])
    assert_array_equal(got.sums["covered"], 1.0)
    assert_array_equal(got.sums["covered_w"], [1, 1, 0, 0])  # the root carries no information


def test_grid_thresholds_are_computed_from_integers():
    assert_array_equal(grid_thresholds(0.01), np.arange(1, 101) / 100)
    g = grid_thresholds(0.01)
    assert g[5] == 0.06 and g[28] == 0.29 and g[-1] == 1.0
    assert_array_equal(grid_thresholds(0.25), [0.25, 0.5, 0.75, 1.0])
    assert_array_equal(grid_thresholds(1), [1.0])


@pytest.mark.parametrize("step", [0.0, -0.1, 1.5, 0.03, 0.3, math.nan])
def test_grid_thresholds_reject_bad_steps(step):
    with pytest.raises(InvalidParameterError):
        grid_thresholds(step)


def test_exact_thresholds_are_the_distinct_positive_finite_scores():
    got = exact_thresholds(np.array([0.5, 0.1, 0.5, 0.0, math.inf]), np.array([1.0, 0.1, math.nan, 0.25]))
    assert_array_equal(got, [0.1, 0.25, 0.5, 1.0])
    assert exact_thresholds().size == 0


# =====================================================================
# Protein weights
# =====================================================================
def weighted_kernel_oracle(truth, preds, ia, taus, w) -> dict[str, np.ndarray]:
    """sum_i w_i * quantity_i, one protein at a time (STAT_DEFINITIONS by hand)."""
    sums = {k: np.zeros(len(taus)) for k in STAT_NAMES}
    for i, (T, sc) in enumerate(zip(truth, preds)):
        one = kernel_oracle([T], [sc], ia, taus)
        for key in STAT_NAMES:
            sums[key] += w[i] * one[key]
    return sums


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chunk=st.sampled_from([1, 5, 1 << 21]), grid=st.booleans())
def test_weighted_sweep_matches_oracle(seed, chunk, grid):
    n_cols = 15
    truth, preds, ia = random_kernel_input(seed, n_cols=n_cols)
    w = np.random.default_rng(seed).random(len(truth)) * 3
    taus = grid_thresholds(0.05) if grid else exact_thresholds(*[np.array(list(p.values())) for p in preds])
    got = run_kernel(truth, preds, ia, taus, n_cols, weights=w, chunk_entries=chunk)
    want = weighted_kernel_oracle(truth, preds, ia, taus, w)
    for key in STAT_NAMES:
        assert_allclose(got.sums[key], want[key], err_msg=key, **TOL)
    i_t = np.array([math.fsum(ia[v] for v in T) for T in truth])
    assert_allclose([got.n, got.n_true, got.it_sum, got.it2_sum],
                    [w.sum(), (w * [len(T) for T in truth]).sum(), (w * i_t).sum(), (w * i_t**2).sum()], **TOL)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("grid", [False, True])
def test_information_sums_are_plain_sums_under_weights_i_t_bit_for_bit(seed, grid):
    """The it_* sums (wru, wmi, protein_weighting='information') are the plain
    sums of a sweep weighted by i(T): the same bits, not merely close."""
    n_cols = 15
    truth, preds, ia = random_kernel_input(seed, n_cols=n_cols)
    taus = grid_thresholds(0.05) if grid else exact_thresholds(*[np.array(list(p.values())) for p in preds])
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    i_t = np.bincount(np.repeat(np.arange(len(truth)), np.diff(t_ptr)), weights=ia[t_cols], minlength=len(truth))
    plain = run_kernel(truth, preds, ia, taus, n_cols).information_weighted()
    weighted = run_kernel(truth, preds, ia, taus, n_cols, weights=i_t)
    for key, view in plain.sums.items():
        assert_array_equal(view, weighted.sums[key], err_msg=key)
    assert plain.n == weighted.n and plain.it_sum == weighted.it_sum


@pytest.mark.parametrize("seed", range(6))
def test_weights_of_one_give_the_same_bits_as_no_weights(seed):
    truth, preds, ia = random_kernel_input(seed)
    taus = exact_thresholds(*[np.array(list(p.values())) for p in preds])
    a = run_kernel(truth, preds, ia, taus, 15)
    b = run_kernel(truth, preds, ia, taus, 15, weights=np.ones(len(truth)))
    for key in STAT_NAMES:
        assert_array_equal(a.sums[key], b.sums[key], err_msg=key)
    assert (a.n, a.n_true, a.it_sum, a.it2_sum) == (b.n, b.n_true, b.it_sum, b.it2_sum)


@pytest.mark.parametrize("weights", [np.ones(3), np.ones((2, 3)), np.array([1.0, -1.0]), np.array([1.0, np.nan]),
                                     np.ones((1, 1, 2))])
def test_sweep_rejects_bad_weights(weights):
    truth, preds = [{0}, {1}], [{0: 0.5}, {1: 0.25}]
    with pytest.raises(InvalidParameterError, match="weights"):
        run_kernel(truth, preds, None, grid_thresholds(0.25), 3, weights=weights)


def test_batched_statistics_add_and_split_into_replicates():
    truth, preds, ia = random_kernel_input(4)
    taus = grid_thresholds(0.1)
    W = np.vstack([np.ones(len(truth)), np.arange(len(truth), dtype=float)])
    st = run_kernel(truth, preds, ia, taus, 15, weights=W)
    assert st.n_replicates == 2 and st.sums["pr"].shape == (2, taus.size)
    assert_array_equal(st.n, W.sum(axis=1))
    double = SweepStats.combine([st, st])
    assert_allclose(double.sums["tp"], 2 * st.sums["tp"])
    assert_allclose(double.replicate(1).sums["rc"], 2 * st.replicate(1).sums["rc"])
    assert run_kernel(truth, preds, ia, taus, 15).n_replicates is None
    with pytest.raises(InvalidParameterError):
        run_kernel(truth, preds, ia, taus, 15).replicate(0)
    with pytest.raises(InvalidParameterError):
        SweepStats.combine([])


@pytest.mark.parametrize("step", [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5])
def test_levels_on_the_float_grid_are_a_binary_searchs(step):
    """On CAFA-evaluator's np.arange grid the arithmetic level with its one-step correction equals the binary
    search for every three-significant-figure score, the drifted decimals included, and for scores off the grid."""
    from goeval.sweep import arange_thresholds, grid_multiplier
    from goeval.sweep.kernel import _levels

    taus = arange_thresholds(step)
    n = grid_multiplier(taus)
    assert n == round(1 / step)
    rng = np.random.default_rng(0)
    scores = np.r_[np.arange(0, 1001) / 1000, np.arange(0, 10001) / 10000, rng.random(20000), taus,
                   np.nextafter(taus, 0), np.nextafter(taus, 2), 1.0, 1.5, 0.0, 5e-5]
    assert np.array_equal(_levels(taus, scores, n), np.searchsorted(taus, scores, side="right"))


@pytest.mark.parametrize("seed", range(6))
def test_events_change_no_sum_of_the_entries_and_count_as_running_totals(seed):
    """Events at levels where a protein has no entry, in rows without entries, and rows without events:
    the sums of the real entries keep their bits, and each count of the events is its running total."""
    from goeval.sweep.kernel import truth_totals
    from goeval.sweep.partial import finish_partial, sweep_partial
    from goeval.sweep.quantities import Events, event_totals

    n_cols, taus = 15, grid_thresholds(0.1)
    truth, preds, ia = random_kernel_input(seed, n_cols=n_cols)
    preds[0] = {}  # a row with events and no entry
    p_ptr, p_cols, p_data = to_csr(preds, n_cols, True)
    t_ptr, t_cols = to_csr(truth, n_cols, False)
    rng = np.random.default_rng(seed)
    n, m, names = len(preds), taus.size, event_totals("nonredundant")
    per_row = rng.integers(0, 5, size=n)
    per_row[1] = 0  # a row with entries and no event
    rows = np.repeat(np.arange(n), per_row)
    levels = rng.integers(0, m + 1, size=rows.size)
    which = rng.integers(0, len(names), size=rows.size)
    sign = rng.choice([-1.0, 1.0], size=rows.size)
    star = rng.integers(1, 4, size=n).astype(float)
    ev = Events(indptr=np.r_[0, np.cumsum(per_row)], levels=levels,
                values={t: np.where(which == q, sign, 0.0) for q, t in enumerate(names)}, truth={"nr_star": star})
    n_t, i_t = truth_totals(t_ptr, t_cols, ia, n_cols)
    args = (p_ptr, p_cols, p_data, t_ptr, t_cols, n_cols, taus, ia)
    for chunk in (1, 3, 1 << 20):
        plain = finish_partial(sweep_partial(*args, chunk_entries=chunk), taus, n_t, i_t)
        both = finish_partial(sweep_partial(*args, chunk_entries=chunk, events=ev), taus, n_t, i_t,
                              sources=("nonredundant",), truth=ev.truth)
        for k, v in plain.sums.items():
            assert_array_equal(both.sums[k], v, err_msg=k)
        for q, t in enumerate(names):  # at threshold j an event of level L counts when j < L
            want = [sum(s for r, lv, w, s in zip(rows, levels, which, sign) if w == q and j < lv) for j in range(m)]
            got = both.sums["nr_z_n" if t == "nr_mapped" else f"{t}_n"]
            if t == "nr_mapped":  # Z = |T*| - mapped
                want = [star.sum() - x for x in want]
            assert_array_equal(got, want, err_msg=t)
