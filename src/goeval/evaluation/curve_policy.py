"""How many rows of a curve are kept: every threshold, a thinned curve, or none.

With exact thresholds a curve has one row per distinct score (millions on
a large benchmark), far more than a figure or a reader needs. The policy
is applied to one (method, namespace) curve at a time, after its optima
have been taken on every threshold, so the summary never depends on it:

* ``full`` - every row;
* ``thin`` - a curve of at most ``max_points`` rows is kept whole (so the
  0.01 and 0.001 grids are written in full); a longer one keeps its first
  and last rows, the rows of its optima, and the rows that keep the linear
  interpolation between kept rows within ``tolerance`` of the full curve
  (:func:`thin_rows`), at most ``max_points`` rows in all;
* ``none`` - no rows (no ``curves.tsv``).

Examples
--------
>>> import numpy as np
>>> t = np.linspace(0.01, 1, 100)
>>> rows, dev = thin_rows(t, [t, 1 - t], np.array([], dtype=np.int64), tolerance=1e-3, max_points=10)
>>> rows.tolist(), bool(dev < 1e-12)
([0, 99], True)
>>> rows, dev = thin_rows(t, [t ** 2], np.array([], dtype=np.int64), tolerance=1e-3, max_points=50)
>>> bool(dev <= 1e-3), int(rows.size) < 50
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from goeval.metrics.protein import best_index
from goeval.metrics.registry import measures

__all__ = ["CURVE_POLICIES", "thin_rows", "optimum_rows", "apply_curve_policy", "curves_diagnostics"]

#: The policies (``EvaluationOptions.curves``, ``--curves``).
CURVE_POLICIES = ("full", "thin", "none")

#: Interior rows examined at once (bounds the temporary arrays of a pass).
_ROWS_PER_GROUP = 1 << 20


def optimum_rows(curves: Mapping[str, np.ndarray], valid: np.ndarray) -> np.ndarray:
    """Indices of the optimum of every registered measure present in ``curves``.

    The measures and the choice among ties are those of the summary
    (:func:`goeval.evaluation.optimum_records`): every registered optimum
    whose column is in ``curves``, over the ``valid`` thresholds.

    Parameters
    ----------
    curves : mapping of str to ndarray of shape (n_thresholds,)
    valid : ndarray of bool, shape (n_thresholds,)

    Returns
    -------
    ndarray of int64
        Sorted, distinct indices into the full (unmasked) curves.
    """
    found = [best_index(curves[ms.column], ms.direction, valid, ties=ms.ties) for ms in measures("protein", "optimum")
             if ms.column in curves]
    return np.unique(np.asarray([i for i in found if i >= 0], dtype=np.int64))


def _segment_maxima(t: np.ndarray, columns: Sequence[np.ndarray], scale: np.ndarray,
                    lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Largest scaled deviation inside each segment ``(lo[s], hi[s])`` and the row where it is.

    Every segment has at least one interior row. The interpolation is
    linear in the threshold (in the row index where both ends share a
    threshold); a cell that is NaN on one side only counts as infinitely
    far.
    """
    lengths = hi - lo - 1
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    seg = np.repeat(np.arange(lo.size), lengths)
    rows = np.repeat(lo + 1 - starts, lengths) + np.arange(seg.size)
    # per-segment values spread over its rows (np.repeat: sequential, cheaper than a gather per row)
    span = t[hi] - t[lo]
    flat = span == 0
    w = np.divide(t[rows] - np.repeat(t[lo], lengths), np.repeat(span, lengths), out=np.zeros(rows.size),
                  where=np.repeat(~flat, lengths))
    if flat.any():
        f = np.repeat(flat, lengths)
        w[f] = (rows[f] - np.repeat(lo, lengths)[f]) / np.repeat(hi - lo, lengths)[f]
    dev = np.zeros(rows.size)
    for v, inv in zip(columns, scale):
        vl = v[lo]
        vx = v[rows]
        guess = np.repeat(vl, lengths) + np.repeat(v[hi] - vl, lengths) * w
        d = np.abs(vx - guess)
        d *= inv
        odd = np.isnan(d)
        if odd.any():
            d[odd] = np.where(np.isnan(vx[odd]) == np.isnan(guess[odd]), 0.0, np.inf)
        np.maximum(dev, d, out=dev)
    worst = np.maximum.reduceat(dev, starts)
    at = np.flatnonzero(dev == worst[seg])
    first = np.unique(seg[at], return_index=True)[1]
    return worst, rows[at[first]]


def _grouped_maxima(t: np.ndarray, columns: Sequence[np.ndarray], scale: np.ndarray,
                    lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_segment_maxima` over groups of segments of about ``_ROWS_PER_GROUP`` rows."""
    ends = np.cumsum(hi - lo - 1)
    cuts = np.unique(np.searchsorted(ends, np.arange(_ROWS_PER_GROUP, ends[-1], _ROWS_PER_GROUP), side="left") + 1)
    bounds = np.concatenate(([0], cuts[cuts < lo.size], [lo.size]))
    parts = [_segment_maxima(t, columns, scale, lo[a:b], hi[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _split_worst(t: np.ndarray, cols: Sequence[np.ndarray], scale: np.ndarray, kept: np.ndarray,
                 lo: np.ndarray, hi: np.ndarray, worst: np.ndarray, at: np.ndarray, bad: np.ndarray,
                 room: int, reached: float) -> tuple[np.ndarray, float]:
    """The last pass under the cap: split only the ``room`` worst bad segments; the deviation reached.

    The deviation is the largest of the segments left bad and of the two
    halves of every segment split (examined once more).
    """
    order = np.argsort(-worst[bad], kind="stable")
    chosen = np.flatnonzero(bad)[order[: max(room, 0)]]
    split = np.zeros(lo.size, dtype=bool)
    split[chosen] = True
    reached = max(reached, float(worst[bad & ~split].max(initial=0.0)))
    left = np.concatenate((lo[split], at[split]))
    right = np.concatenate((at[split], hi[split]))
    inner = right - left > 1
    if inner.any():
        reached = max(reached, float(_grouped_maxima(t, cols, scale, left[inner], right[inner])[0].max()))
    return np.union1d(kept, at[chosen]), reached


def thin_rows(threshold: np.ndarray, columns: Sequence[np.ndarray], keep: np.ndarray, *,
              tolerance: float, max_points: int) -> tuple[np.ndarray, float]:
    """Rows of a curve that keep it within ``tolerance`` under linear interpolation.

    Starting from the first and last rows and ``keep``, every pass examines
    all segments between consecutive kept rows at once and splits each
    segment whose largest deviation exceeds ``tolerance`` at the row where
    that deviation is largest (Ramer-Douglas-Peucker with the vertical
    distance, all segments of a pass in one set of array operations).
    Segments within the tolerance are final and not examined again. When a
    pass would exceed ``max_points`` rows, only the worst segments are split,
    up to ``max_points``, and the thinning stops: the cap wins over the
    tolerance, and the deviation reached is returned.

    Parameters
    ----------
    threshold : ndarray of shape (n_rows,)
        The curve's thresholds (the interpolation variable).
    columns : sequence of ndarray of shape (n_rows,)
        The measure columns; each deviation is scaled by the column's range
        (max - min of its finite values; a constant column only checks NaN).
    keep : ndarray of int
        Rows always kept (the optima), even beyond ``max_points``.
    tolerance : float
        Largest allowed deviation, as a fraction of each column's range.
    max_points : int
        Most rows kept (``keep`` and the two ends excepted).

    Returns
    -------
    rows : ndarray of int64
        Sorted indices of the rows kept.
    max_deviation : float
        Largest scaled deviation of the interpolated curve from the full
        one: ``<= tolerance`` unless the cap was reached.

    Notes
    -----
    For a column :math:`v` and kept rows :math:`a < b`, row :math:`i`
    between them deviates by

    .. math:: \\frac{|v_i - v_a - (v_b - v_a)(\\tau_i - \\tau_a)/(\\tau_b - \\tau_a)|}{\\max v - \\min v}.
    """
    t = np.asarray(threshold, dtype=np.float64)
    n = t.size
    kept = np.unique(np.concatenate(([0, n - 1], np.asarray(keep, dtype=np.int64)))) if n else np.zeros(0, np.int64)
    cols = [np.asarray(c, dtype=np.float64) for c in columns]
    scale = np.zeros(len(cols))
    for j, c in enumerate(cols):
        fin = c[np.isfinite(c)]
        r = float(fin.max() - fin.min()) if fin.size else 0.0
        scale[j] = 1.0 / r if r > 0 else 0.0
    lo, hi = kept[:-1], kept[1:]
    reached = 0.0
    while True:
        open_ = hi - lo > 1
        lo, hi = lo[open_], hi[open_]
        if lo.size == 0:
            return kept, reached
        worst, at = _grouped_maxima(t, cols, scale, lo, hi)
        bad = worst > tolerance
        reached = max(reached, float(worst[~bad].max(initial=0.0)))
        if not bad.any():
            return kept, reached
        room = max_points - kept.size
        if room < int(bad.sum()):
            return _split_worst(t, cols, scale, kept, lo, hi, worst, at, bad, room, reached)
        kept = np.union1d(kept, at[bad])
        lo, hi = np.concatenate((lo[bad], at[bad])), np.concatenate((at[bad], hi[bad]))


def apply_curve_policy(frame: dict[str, np.ndarray], policy: str, *, tolerance: float, max_points: int,
                       keep: np.ndarray) -> tuple[dict[str, np.ndarray] | None, dict[str, Any]]:
    """One curve (method x namespace) as the policy keeps it, and what was done.

    Parameters
    ----------
    frame : dict of str to ndarray of shape (n_rows,)
        The curve's columns; ``threshold`` and every numeric column are
        measured, text columns (method, namespace) are carried along.
    policy : {'full', 'thin', 'none'}
    tolerance, max_points
        See :func:`thin_rows`.
    keep : ndarray of int
        Rows of ``frame`` always kept with ``thin`` (the optima).

    Returns
    -------
    frame : dict or None
        The rows kept (``None`` with ``none``).
    info : dict
        ``rows`` (before), ``written``, ``max_deviation`` (scaled, 0 when
        nothing was dropped) and ``capped`` (the tolerance needed more than
        ``max_points`` rows).
    """
    n = int(frame["threshold"].size)
    if policy == "none":
        return None, {"rows": n, "written": 0, "max_deviation": None, "capped": False}
    if policy == "full" or n <= max_points:
        return frame, {"rows": n, "written": n, "max_deviation": 0.0, "capped": False}
    measured = [v for c, v in frame.items() if c != "threshold" and np.asarray(v).dtype.kind in "fiub"]
    rows, dev = thin_rows(frame["threshold"], measured, keep, tolerance=tolerance, max_points=max_points)
    thinned = {c: v[rows] for c, v in frame.items()}
    return thinned, {"rows": n, "written": int(rows.size), "max_deviation": dev, "capped": bool(dev > tolerance)}


def curves_diagnostics(policy: str, tolerance: float, max_points: int,
                       blocks: Sequence[tuple[str, str, Mapping[str, Any]]]) -> dict[str, Any]:
    """``diagnostics["curves"]``: the policy and, per curve, its rows before and after.

    ``rows`` and ``written`` are totals over the curves, ``thinned`` the
    number of curves ``thin`` shortened, ``capped`` those it cut at
    ``max_points`` before reaching the tolerance.

    Parameters
    ----------
    blocks : sequence of (method, namespace, info)
        ``info`` as returned by :func:`apply_curve_policy`.
    """
    per = [{"method": m, "namespace": ns, **info} for m, ns, info in blocks]
    return {
        "policy": policy, "tolerance": tolerance, "max_points": max_points,
        "interpolation": "linear in the threshold between kept rows; deviation as a fraction of each column's range",
        "rows": sum(b["rows"] for b in per), "written": sum(b["written"] for b in per),
        "thinned": sum(b["written"] < b["rows"] for b in per) if policy == "thin" else 0,
        "capped": sum(b["capped"] for b in per),
        "blocks": per,
    }
