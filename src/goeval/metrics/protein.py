"""Protein-centric curves and optima (Clark & Radivojac 2013, §3.2-3.4).

Pure functions of :class:`goeval.sweep.SweepStats`. For protein ``i`` with
propagated truth ``T_i`` and predicted set ``P_i(tau)``:

.. math::

    pr_i = \\frac{|T_i \\cap P_i|}{|P_i|},\\quad
    rc_i = \\frac{|T_i \\cap P_i|}{|T_i|},\\quad
    ru_i = \\sum_{v \\in T_i - P_i} ia(v),\\quad
    mi_i = \\sum_{v \\in P_i - T_i} ia(v)

    wpr_i = \\frac{\\sum_{T_i \\cap P_i} ia}{\\sum_{P_i} ia},\\quad
    wrc_i = \\frac{\\sum_{T_i \\cap P_i} ia}{i(T_i)}

Averages (``normalization``): ``cafa`` - precision-type over the covered
proteins (``|P_i| > 0``; for ``wpr``: ``sum_P ia > 0``), the rest over all
``n``; ``pred`` - all over the covered proteins; ``gt`` - all over ``n``.
``wru``/``wmi`` are the ``i(T_i)``-weighted means of eqs. (4)-(5);
``S_k = (ru^k + mi^k)^{1/k}`` (eq. 6); ``F = 2 pr rc / (pr + rc)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError, check_choice
from goeval.sweep import SweepStats

__all__ = ["protein_curves", "f_score", "s_distance", "CURVE_COLUMNS", "IA_COLUMNS", "best_index"]

#: Columns of the curves table, in order (IA-based ones only with IA).
CURVE_COLUMNS: tuple[str, ...] = (
    "threshold", "n_proteins", "n_covered", "coverage", "precision", "recall", "f",
    "precision_micro", "recall_micro", "f_micro",
    "n_covered_w", "coverage_w", "wprecision", "wrecall", "wf", "ru", "mi", "s", "wru", "wmi", "ws",
)
IA_COLUMNS = ("n_covered_w", "coverage_w", "wprecision", "wrecall", "wf", "ru", "mi", "s", "wru", "wmi", "ws")


def f_score(pr: np.ndarray, rc: np.ndarray) -> np.ndarray:
    """Harmonic mean ``2 pr rc / (pr + rc)``; 0 where both are 0."""
    pr, rc = np.asarray(pr, float), np.asarray(rc, float)
    d = pr + rc
    return np.divide(2 * pr * rc, d, out=np.zeros_like(d), where=d > 0)


def s_distance(ru: np.ndarray, mi: np.ndarray, k: float = 2.0) -> np.ndarray:
    """Semantic distance ``S_k = (ru^k + mi^k)^(1/k)`` (CR13 eq. 6), bits.

    Raises
    ------
    InvalidParameterError
        Unless ``k >= 1``.
    """
    if not (np.isfinite(k) and k >= 1):
        raise InvalidParameterError(f"The 'k' parameter of s_distance must be a number >= 1; got {k!r}.")
    # |.|: a sum of non-negative ia can come out as -1e-16 after cancellation,
    # and ia from the 'frequency' estimate may be negative; S_k is a norm.
    ru, mi = np.abs(np.asarray(ru, float)), np.abs(np.asarray(mi, float))
    if k == 2:
        return np.hypot(ru, mi)
    if k == 1:
        return ru + mi
    return (ru**k + mi**k) ** (1.0 / k)


def _div(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    b = np.broadcast_to(np.asarray(b, dtype=float), np.shape(a))
    return np.divide(a, b, out=np.zeros(np.shape(a)), where=b > 0)


def _total(x: Any) -> Any:
    """A total of :class:`SweepStats` as a divisor: a float, or a column of shape (B, 1)."""
    return x[..., None] if isinstance(x, np.ndarray) else float(x)


def _ru_mi(stats: SweepStats, normalization: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean ru and mi (CR13 eqs. 2-3) of the plain or the i(T)-weighted statistics."""
    s = stats.sums
    if normalization == "pred":
        # sums over covered proteins only: uncovered ones have ru_i = i(T_i), mi_i = 0
        ru_cov = s["ru"] - (_total(stats.it_sum) - s["it_cov_w"])
        return _div(ru_cov, s["covered_w"]), _div(s["mi"], s["covered_w"])
    n = _total(stats.n)
    return _div(s["ru"], n), _div(s["mi"], n)


def protein_curves(
    stats: SweepStats,
    *,
    normalization: str = "cafa",
    k: float = 2.0,
    protein_weighting: str = "none",
    with_ia: bool = True,
) -> dict[str, np.ndarray]:
    """Curves over thresholds from sweep statistics.

    Parameters
    ----------
    stats : SweepStats
        Sums of shape (n_thresholds,), or (B, n_thresholds) for weights of
        shape (B, n) (then every curve but ``threshold`` has that shape).
    normalization : {'cafa', 'pred', 'gt'}
    k : float, default 2
        Order of the semantic distance ``S_k``.
    protein_weighting : {'none', 'information'}
        How ``wpr_i``/``wrc_i`` are averaged: plainly (CAFA) or weighted by
        ``i(T_i)`` (CR13 §3.4.1, "as in Equations (4) and (5)"), i.e. the
        plain averages of :meth:`SweepStats.information_weighted`.
    with_ia : bool
        Include the IA-based columns.

    Returns
    -------
    dict of str to ndarray of shape (n_thresholds,)
        Keys of :data:`CURVE_COLUMNS` (IA columns only when ``with_ia``).

    Notes
    -----
    ``wru``/``wmi`` (CR13 eqs. 4-5) are ``ru``/``mi`` of the statistics
    under protein weights ``i(T_i)`` (:meth:`SweepStats.information_weighted`).
    """
    check_choice(normalization, "normalization", "protein_curves", ("cafa", "pred", "gt"))
    check_choice(protein_weighting, "protein_weighting", "protein_curves", ("none", "information"))
    s = stats.sums
    n = _total(stats.n)
    m = s["covered"]
    out: dict[str, np.ndarray] = {
        "threshold": stats.thresholds.copy(),
        "n_proteins": np.rint(np.full(m.shape, _total(stats.n))).astype(np.int64),
        "n_covered": np.rint(m).astype(np.int64),
        "coverage": _div(m, n),
    }
    den_pr = n if normalization == "gt" else m
    den_rc = m if normalization == "pred" else n
    out["precision"] = _div(s["pr"], den_pr)
    out["recall"] = _div(s["rc"], den_rc)
    out["f"] = f_score(out["precision"], out["recall"])
    ntrue = s["ntrue_cov"] if normalization == "pred" else _total(stats.n_true)
    out["precision_micro"] = _div(s["tp"], s["npred"])
    out["recall_micro"] = _div(s["tp"], ntrue)
    out["f_micro"] = f_score(out["precision_micro"], out["recall_micro"])
    if not with_ia:
        return out
    mw = s["covered_w"]
    out["n_covered_w"] = np.rint(mw).astype(np.int64)
    out["coverage_w"] = _div(mw, n)
    info = stats.information_weighted()
    avg = info if protein_weighting == "information" else stats
    a, a_n = avg.sums, _total(avg.n)
    out["wprecision"] = _div(a["wpr"], a_n if normalization == "gt" else a["covered_w"])
    out["wrecall"] = _div(a["wrc"], a["covered_w"] if normalization == "pred" else a_n)
    out["wf"] = f_score(out["wprecision"], out["wrecall"])
    out["ru"], out["mi"] = _ru_mi(stats, normalization)
    out["wru"], out["wmi"] = _ru_mi(info, normalization)
    out["s"] = s_distance(out["ru"], out["mi"], k)
    out["ws"] = s_distance(out["wru"], out["wmi"], k)
    return out


def best_index(values: np.ndarray, kind: str, valid: np.ndarray | None = None, *, rtol: float = 1e-12) -> int:
    """Index of the optimum; -1 if there is no valid value.

    Values within ``rtol`` (relative) of the optimum are ties - the same
    value computed through different rounding, e.g. F = 2/3 as
    0.6666666666666666 and 0.6666666666666665 - and the first one (the
    lowest threshold) is chosen.
    """
    v = np.asarray(values, float)
    ok = np.isfinite(v) if valid is None else (np.isfinite(v) & valid)
    if not ok.any():
        return -1
    best = v[ok].max() if kind == "max" else v[ok].min()
    tol = rtol * max(1.0, abs(best))
    near = ok & (np.abs(v - best) <= tol)
    return int(np.flatnonzero(near)[0])
