"""Accuracy of the per-protein running sums of the sweep kernel against math.fsum.

The kernel sums each protein's information accretion down to every
threshold level. A plain chunk-wide cumulative sum minus an offset loses
the digits that the proteins before it contributed; the compensated sums
(:func:`goeval.sweep.running_sums`) must stay within a few ulps of the
correctly rounded sum (``math.fsum``) on adversarial inputs.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.sweep import protein_steps, running_sums

ULPS = 4
#: Values 2^-40 .. 2^40 with every mantissa: far wider than any information accretion.
_MAGNITUDES = st.tuples(st.floats(-40, 40), st.floats(1, 2, exclude_max=True)).map(lambda t: t[1] * 2.0 ** t[0])


def _ulp_error(got: float, exact: float) -> float:
    return abs(got - exact) / max(math.ulp(exact), 5e-324)


def _segments(lengths: list[int]) -> tuple[np.ndarray, np.ndarray]:
    ends = np.cumsum(lengths) - 1
    starts = ends - np.asarray(lengths) + 1
    return ends, starts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.just(0.0), _MAGNITUDES), min_size=1, max_size=30), min_size=1, max_size=20))
def test_running_sums_within_a_few_ulps_of_fsum(runs: list[list[float]]) -> None:
    """Runs of values spanning 24 decades (2^-40 .. 2^40 bits, and zeros), in any order."""
    x = np.array([v for r in runs for v in r])
    ends, starts = _segments([len(r) for r in runs])
    got = running_sums(x, ends, starts)
    for g, r in enumerate(runs):
        assert _ulp_error(float(got[g]), math.fsum(r)) <= ULPS


def test_plain_offset_difference_would_fail_here() -> None:
    """The adversarial case: huge sums before a run of small values."""
    x = np.r_[np.full(1000, 1e9), np.full(7, 0.1)]
    ends, starts = np.array([999, 1006]), np.array([0, 1000])
    exact = math.fsum([0.1] * 7)
    plain = float(np.cumsum(x)[1006] - np.cumsum(x)[999])
    assert _ulp_error(plain, exact) > 1000  # the old arithmetic
    assert _ulp_error(float(running_sums(x, ends, starts)[1]), exact) <= ULPS


def test_prefix_sums_of_every_run() -> None:
    rng = np.random.default_rng(3)
    x = np.exp(rng.uniform(-20, 20, 5000))
    lengths = rng.integers(1, 40, 400)
    lengths = lengths[np.cumsum(lengths) <= x.size]
    # every prefix of every run: the runs' starts repeated
    bounds = np.r_[0, np.cumsum(lengths)]
    ends = np.concatenate([np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])])
    starts = np.repeat(bounds[:-1], lengths)
    got = running_sums(x, ends, starts)
    worst = max(_ulp_error(float(g), math.fsum(x[s:e + 1].tolist())) for g, s, e in zip(got, starts, ends))
    assert worst <= ULPS


def test_sweep_running_ia_sums_against_fsum() -> None:
    """Kernel level: every protein's sum_P ia and sum_{T∩P} ia at every level, against fsum."""
    rng = np.random.default_rng(11)
    n_cols, n = 400, 60
    ia = np.exp(rng.uniform(-25, 25, n_cols))  # 1e-11 .. 7e10 bits: adversarial magnitudes
    indptr, cols, scores, t_indptr, t_cols = [0], [], [], [0], []
    for _ in range(n):
        k = int(rng.integers(1, 80))
        c = np.sort(rng.choice(n_cols, k, replace=False))
        cols += c.tolist()
        scores += rng.choice(np.arange(1, 21) / 20, k).tolist()
        indptr.append(len(cols))
        tc = np.sort(rng.choice(n_cols, int(rng.integers(1, 20)), replace=False))
        t_cols += tc.tolist()
        t_indptr.append(len(t_cols))
    indptr, cols, scores = np.array(indptr), np.array(cols), np.array(scores)
    t_indptr, t_cols = np.array(t_indptr), np.array(t_cols)
    taus = np.unique(scores)
    steps = protein_steps(indptr, cols, scores, t_indptr, t_cols, n_cols, taus, ia, chunk_entries=1 << 30)
    for g in range(steps.rows.size):
        r, tau = int(steps.rows[g]), taus[steps.bins[g]]
        sl = slice(indptr[r], indptr[r + 1])
        pred = cols[sl][scores[sl] >= tau]
        truth = set(t_cols[t_indptr[r]:t_indptr[r + 1]].tolist())
        assert _ulp_error(float(steps.totals["ia_pred"][g]), math.fsum(ia[pred].tolist())) <= ULPS
        exact_tp = math.fsum(ia[[c for c in pred if c in truth]].tolist())
        if exact_tp:
            assert _ulp_error(float(steps.totals["ia_tp"][g]), exact_tp) <= ULPS
        else:
            assert steps.totals["ia_tp"][g] == 0.0
        assert steps.totals["cnt"][g] == pred.size
