"""Curve policy: thin curves keep the optima and ends, stay within the tolerance, and never change the summary."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from oracles import run_case
from oracles import random_case

from goeval.evaluation.curve_policy import apply_curve_policy, thin_rows
from goeval.errors import InvalidParameterError
from goeval.io.results import write_results
from goeval.io.results_dir import read_results_dir
from goeval.metrics.registry import PROTEIN_MEASURES, SIMILARITY_MEASURES


def deviation_slow(t, columns, rows) -> float:
    """Largest deviation of the interpolation between ``rows`` from the full curve, one cell at a time."""
    worst = 0.0
    for v in columns:
        fin = [x for x in v if math.isfinite(x)]
        r = max(fin) - min(fin) if fin else 0.0
        for a, b in zip(rows[:-1], rows[1:]):
            for i in range(a + 1, b):
                w = (t[i] - t[a]) / (t[b] - t[a]) if t[b] != t[a] else (i - a) / (b - a)
                guess = v[a] + (v[b] - v[a]) * w
                if math.isnan(v[i]) or math.isnan(guess):
                    d = 0.0 if math.isnan(v[i]) and math.isnan(guess) else math.inf
                else:
                    d = abs(v[i] - guess) / r if r > 0 else 0.0
                worst = max(worst, d)
    return worst


def random_curve(seed: int, n: int):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.random(n))
    smooth = 1 - t ** 2
    steps = np.cumsum(rng.random(n) < 0.05) / max(n * 0.05, 1)
    noisy = np.cumsum(rng.normal(size=n))
    const = np.full(n, 3.0)
    return t, [smooth, steps, noisy, const]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tolerance", [1e-3, 2e-2, 0.2])
def test_thin_rows_within_tolerance_by_the_slow_oracle(seed, tolerance):
    t, cols = random_curve(seed, 400)
    keep = np.array([17, 250])
    rows, dev = thin_rows(t, cols, keep, tolerance=tolerance, max_points=10_000)
    assert rows[0] == 0 and rows[-1] == t.size - 1 and {17, 250} <= set(rows.tolist())
    assert np.all(np.diff(rows) > 0)
    want = deviation_slow(t.tolist(), [c.tolist() for c in cols], rows.tolist())
    assert want <= tolerance
    assert_allclose(dev, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_cap_wins_and_the_deviation_reached_is_reported(seed):
    t, cols = random_curve(seed, 500)
    rows, dev = thin_rows(t, cols, np.array([3]), tolerance=1e-4, max_points=40)
    assert rows.size == 40 and 3 in rows
    assert dev > 1e-4
    assert_allclose(dev, deviation_slow(t.tolist(), [c.tolist() for c in cols], rows.tolist()), rtol=1e-12)


def test_mandatory_rows_are_kept_beyond_the_cap():
    t, cols = random_curve(0, 100)
    keep = np.arange(10, 20)
    rows, _ = thin_rows(t, cols, keep, tolerance=1e-6, max_points=5)
    assert set(keep.tolist()) | {0, 99} == set(rows.tolist())


def test_nan_cells_force_their_neighbours():
    t = np.linspace(0, 1, 50)
    v = t.copy()
    v[20:25] = np.nan
    rows, dev = thin_rows(t, [v], np.array([], dtype=np.int64), tolerance=1e-3, max_points=100)
    assert {19, 20, 25} <= set(rows.tolist())  # last finite row before, first NaN, first finite after
    assert dev == deviation_slow(t.tolist(), [v.tolist()], rows.tolist()) <= 1e-3


def test_groups_of_segments_give_the_same_rows(monkeypatch):
    import goeval.evaluation.curve_policy as cp

    t, cols = random_curve(5, 3000)
    want = thin_rows(t, cols, np.array([7]), tolerance=1e-3, max_points=500)
    monkeypatch.setattr(cp, "_ROWS_PER_GROUP", 37)
    got = thin_rows(t, cols, np.array([7]), tolerance=1e-3, max_points=500)
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60),
       st.sampled_from([1e-3, 1e-2, 0.1]), st.integers(2, 80))
def test_thin_rows_property(values, tolerance, max_points):
    v = np.array(values)
    t = np.arange(v.size) / v.size
    rows, dev = thin_rows(t, [v], np.array([], dtype=np.int64), tolerance=tolerance, max_points=max_points)
    slow = deviation_slow(t.tolist(), [values], rows.tolist())
    assert_allclose(dev, slow, rtol=1e-9, atol=1e-12)
    assert rows.size <= max(max_points, 2)
    if rows.size < max_points:
        assert slow <= tolerance


def test_policy_none_full_and_short_curves():
    frame = {"method": np.array(["m"] * 5, dtype=object), "threshold": np.linspace(0.1, 0.5, 5),
             "f": np.array([0.1, 0.5, 0.2, 0.3, 0.1])}
    out, info = apply_curve_policy(frame, "thin", tolerance=1e-3, max_points=5, keep=np.array([1]))
    assert out is frame and info == {"rows": 5, "written": 5, "max_deviation": 0.0, "capped": False}
    out, info = apply_curve_policy(frame, "none", tolerance=1e-3, max_points=5, keep=np.array([1]))
    assert out is None and info["written"] == 0
    out, info = apply_curve_policy(frame, "thin", tolerance=0.1, max_points=2, keep=np.array([1]))
    assert out["threshold"].tolist() == [0.1, 0.2, 0.5] and out["method"].tolist() == ["m"] * 3
    assert info["capped"] is True and info["written"] == 3


# =====================================================================
# Inside the evaluation
# =====================================================================
def _curve_rows(res, method, ns):
    c = res.curve_columns
    sel = (c["method"] == method) & (c["namespace"] == ns)
    return {k: v[sel] for k, v in c.items()}


@pytest.mark.parametrize("seed", range(4))
def test_thin_evaluation_keeps_summary_optima_and_ends(seed):
    case = random_case(seed, n_proteins=40, max_pred=10)
    full = run_case(case, curves="full")
    thin = run_case(case, curves="thin", curve_points=6, curve_tolerance=1e-3)
    assert thin.summary_records == full.summary_records or thin.summary.equals(full.summary)
    cur = thin.diagnostics["curves"]
    assert cur["policy"] == "thin" and cur["max_points"] == 6
    assert cur["rows"] == full.curve_columns["threshold"].size
    assert cur["written"] == thin.curve_columns["threshold"].size
    names = {ms.name: ms for ms in PROTEIN_MEASURES + SIMILARITY_MEASURES}
    for b in cur["blocks"]:
        f, t = _curve_rows(full, b["method"], b["namespace"]), _curve_rows(thin, b["method"], b["namespace"])
        assert b["rows"] == f["threshold"].size and b["written"] == t["threshold"].size
        assert t["threshold"][0] == f["threshold"][0] and t["threshold"][-1] == f["threshold"][-1]
        for r in thin.summary_records:
            if r["method"] == b["method"] and r["namespace"] == b["namespace"] and r["measure"] in names:
                assert r["threshold"] in set(t["threshold"].tolist()), r["measure"]
        for col in t:  # the rows kept are rows of the full curve
            if col not in ("method", "namespace"):
                pos = np.searchsorted(f["threshold"], t["threshold"])
                assert np.array_equal(f[col][pos], t[col], equal_nan=True)
        measured = [f[c] for c in f if c not in ("method", "namespace", "threshold")]
        rows = np.searchsorted(f["threshold"], t["threshold"]).tolist()
        slow = deviation_slow(f["threshold"].tolist(), [m.tolist() for m in measured], rows)
        assert_allclose(b["max_deviation"], slow, rtol=1e-9, atol=1e-15)
        assert b["capped"] == (slow > 1e-3)


def test_short_curves_are_untouched_and_none_writes_no_curves(tmp_path):
    case = random_case(1, n_proteins=20)
    full = run_case(case)
    thin = run_case(case, curves="thin")  # default 2000 rows: every curve is shorter
    for c in full.curve_columns:
        assert np.array_equal(full.curve_columns[c], thin.curve_columns[c], equal_nan=c not in ("method", "namespace"))
    assert thin.diagnostics["curves"]["thinned"] == 0
    none = run_case(case, curves="none")
    assert none.curves is None and none.curve_columns is None
    assert none.summary.equals(full.summary)
    assert none.diagnostics["curves"]["written"] == 0
    assert none.diagnostics["curves"]["rows"] == full.curve_columns["threshold"].size
    (tmp_path / "curves.tsv").write_text("stale\n")
    paths = write_results(tmp_path, none.curve_columns, none.summary_records, list(none.summary_columns),
                          none.diagnostics)
    assert "curves" not in paths and not (tmp_path / "curves.tsv").exists()
    back = read_results_dir(tmp_path)
    assert back.curves is None and back.summary is not None and "curves.tsv" not in back.files


def test_curve_options_are_validated():
    case = random_case(0)
    for bad in ({"curves": "some"}, {"curve_tolerance": -1}, {"curve_points": 1}):
        with pytest.raises(InvalidParameterError, match=next(iter(bad))):
            run_case(case, **bad)
