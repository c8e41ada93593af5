"""Calibration from cumulative sums equals a direct computation on the pairs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.errors import InvalidParameterError
from goeval.metrics.calibration import calibration_bins, calibration_from_pairs


def _direct(y, s, edges, w, n_true):
    """ECE and Brier pair by pair: each pair's bin by np.digitize, the squared errors summed."""
    b = np.clip(np.digitize(s, edges[1:-1], right=False), 0, edges.size - 2)
    ece, total = 0.0, w.sum()
    for k in range(edges.size - 1):
        inb = b == k
        if inb.any():
            nb = w[inb].sum()
            ece += nb / total * abs((w[inb] * y[inb]).sum() / nb - (w[inb] * s[inb]).sum() / nb)
    missed = n_true - (w * y).sum()
    brier = ((w * (s - y) ** 2).sum() + missed) / (total + missed)
    return ece, brier


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 100), st.booleans(), st.floats(0.1, 3.0)), min_size=1, max_size=60),
       st.integers(1, 12), st.integers(0, 5), st.booleans())
def test_ece_and_brier_equal_a_pair_by_pair_computation(pairs, n_bins, extra_true, weighted):
    s = np.array([p[0] / 100 for p in pairs])
    y = np.array([p[1] for p in pairs], dtype=np.float64)
    w = np.array([p[2] for p in pairs]) if weighted else np.ones(s.size)
    thresholds = np.unique(s)  # exact thresholds: every distinct score
    edges = calibration_bins(n_bins)
    n_true = (w * y).sum() + extra_true
    got = calibration_from_pairs(y, s, thresholds, edges, weights=w, n_true=n_true)
    ece, brier = _direct(y, s, edges, w, n_true)
    assert got["ece"] == pytest.approx(ece, rel=1e-12, abs=1e-14)
    assert got["brier"] == pytest.approx(brier, rel=1e-12)
    assert got["table"]["pairs"].sum() == pytest.approx(w.sum())


def test_a_calibrated_predictor_has_ece_near_zero_and_a_constant_one_does_not():
    rng = np.random.default_rng(7)
    s = rng.integers(1, 101, 200_000) / 100
    y = (rng.random(s.size) < s).astype(np.float64)  # true with probability s
    thresholds = np.unique(s)
    good = calibration_from_pairs(y, s, thresholds, calibration_bins(10))
    assert good["ece"] < 0.005
    over = calibration_from_pairs(y, np.minimum(1.0, s + 0.2), np.unique(np.minimum(1.0, s + 0.2)),
                                  calibration_bins(10))
    assert over["ece"] > 0.15


def test_the_reliability_table_of_a_small_case():
    s = np.array([0.05, 0.15, 0.15, 0.95, 1.0])
    y = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    got = calibration_from_pairs(y, s, np.unique(s), calibration_bins(10))
    t = got["table"]
    assert t["pairs"].tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    assert t["fraction_true"][1] == 0.5 and np.isnan(t["fraction_true"][2])
    assert t["mean_score"][9] == pytest.approx(0.975)
    # ECE: (1*0.05 + 2*0.35 + 2*0.025) / 5; Brier: (0.05^2 + 0.85^2 + 0.15^2 + 0.05^2 + 0) / 5
    assert got["ece"] == pytest.approx((0.05 + 0.7 + 0.05) / 5)
    assert got["brier"] == pytest.approx((0.0025 + 0.7225 + 0.0225 + 0.0025) / 5)


@pytest.mark.parametrize("spec", [0, 2.5, [0.5, 0.4], [0.0, 0.5], [1.0]])
def test_bad_bins_are_refused(spec):
    with pytest.raises(InvalidParameterError):
        calibration_bins(spec)
