"""Calibration of predicted scores: reliability table, expected calibration error and Brier score.

A method's scores read as probabilities when, among the propagated predicted
(protein, term) pairs scored about ``s``, a share ``s`` is true. Everything
here is computed from per-threshold *cumulative* sums over the propagated
predicted pairs with score at or above each threshold ``tau_j`` (the sweep's
sums, additive over proteins, so bootstrap replicates come for free):

``count(tau)`` pairs, ``positives(tau)`` true pairs, ``score(tau) = sum s``,
``score2(tau) = sum s^2`` and ``score_pos(tau) = sum_{true} s``; with
information accretion as weights, each pair counts ``ia(v)`` instead of 1.

For bins with edges ``0 = e_0 < e_1 < ... < e_B = 1`` (edges snapped up to
the thresholds: a bin is the difference of the sums at its two edges), bin
``b`` holds ``n_b`` pairs of mean score ``conf_b`` and true share ``acc_b``;

.. math::

    \\mathrm{ECE} = \\sum_b \\frac{n_b}{N} |acc_b - conf_b|, \\qquad
    \\mathrm{Brier} = \\frac{1}{N + Z} \\Big( \\sum_{pred} (s - y)^2 + Z \\Big)

where ``N`` is the number (weight) of predicted pairs at the lowest threshold
and ``Z`` that of the true pairs never predicted (score 0, each adding
``(0 - 1)^2``): the Brier score is over the union of the predicted and the
true pairs, so a method is not rewarded for predicting little. ECE follows
Naeini et al. (2015) and Guo et al. (2017); the Brier score, Brier (1950).

References
----------
Guo C, Pleiss G, Sun Y, Weinberger KQ (2017) On calibration of modern neural networks. ICML.
Naeini MP, Cooper GF, Hauskrecht M (2015) Obtaining well calibrated probabilities using Bayesian binning. AAAI.
Brier GW (1950) Verification of forecasts expressed in terms of probability. Monthly Weather Review 78(1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError

__all__ = ["calibration_bins", "bin_edges", "reliability", "expected_calibration_error", "brier_score",
           "calibration_from_pairs", "CALIBRATION_SUMS", "calibration_sums", "curve_reliability", "curve_ece",
           "curve_brier", "CALIBRATION_COLUMNS", "WEIGHTED_CALIBRATION_COLUMNS", "reliability_columns"]

#: The sweep's sums behind each cumulative sum of this module (:data:`goeval.sweep.STAT_NAMES`): plain, and
#: with information accretion as the pair weights.
CALIBRATION_SUMS: dict[bool, dict[str, str]] = {
    False: {"count": "npred", "positives": "tp", "score": "score", "score2": "score2", "score_pos": "score_tp"},
    True: {"count": "ia_pred", "positives": "ia_tp", "score": "ia_score", "score2": "ia_score2",
           "score_pos": "ia_score_tp"},
}


#: The columns of ``calibration.tsv`` (one row per method, namespace and bin; :func:`reliability_columns`).
CALIBRATION_COLUMNS: tuple[str, ...] = ("method", "namespace", "bin", "lower", "upper", "pairs", "true", "mean_score",
                                        "fraction_true")
#: Its columns with information accretion as the pair weights, after those of :data:`CALIBRATION_COLUMNS` (with IA).
WEIGHTED_CALIBRATION_COLUMNS: tuple[str, ...] = ("wpairs", "wtrue", "wmean_score", "wfraction_true")


def calibration_bins(spec: Any = 10) -> np.ndarray:
    """Bin edges from a number of equal-width bins on [0, 1] or an ascending list of inner edges.

    Examples
    --------
    >>> calibration_bins(4).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> calibration_bins([0.5, 0.9]).tolist()
    [0.0, 0.5, 0.9, 1.0]

    Raises
    ------
    InvalidParameterError
        For fewer than one bin, or inner edges not strictly ascending within (0, 1).
    """
    if np.isscalar(spec):
        k = int(spec)
        if k < 1 or k != spec:
            raise InvalidParameterError(f"The number of calibration bins must be a positive integer; got {spec!r}.")
        return np.arange(k + 1) / k  # exact decimals (0.3, not linspace's 0.30000000000000004): 0.3 opens its bin
    inner = np.asarray(spec, dtype=np.float64)
    if inner.ndim != 1 or np.any(inner <= 0) or np.any(inner >= 1) or np.any(np.diff(inner) <= 0):
        raise InvalidParameterError("Calibration bin edges must be strictly ascending numbers between 0 and 1 "
                                    f"(exclusive); got {list(inner)}.")
    return np.r_[0.0, inner, 1.0]


def bin_edges(thresholds: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Index of the threshold each bin edge snaps to: the first threshold at or above it.

    The lowest edge snaps to the lowest threshold (the pairs below it are not
    predicted) and an edge of 1 past the highest (``m``), so that scores of 1
    fall in the last bin. With exact thresholds (every distinct score) the
    snapped bins hold exactly the scores in ``[e_b, e_{b+1})``; on a grid, a
    score counts at its grid level, so an edge between grid points moves up to the next one.
    """
    idx = np.searchsorted(np.asarray(thresholds, dtype=np.float64), edges, side="left")
    idx[0] = 0
    if edges[-1] >= 1.0:
        idx[-1] = np.size(thresholds)
    return idx


def _at(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Cumulative sums at the snapped edges along the last axis (0 past the highest threshold)."""
    x = np.asarray(x, dtype=np.float64)
    pad = np.concatenate([x, np.zeros(x.shape[:-1] + (1,))], axis=-1)
    return pad[..., idx]


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def reliability(thresholds: np.ndarray, sums: dict[str, np.ndarray], edges: np.ndarray) -> dict[str, np.ndarray]:
    """The reliability table: per bin, its snapped edges, pairs, mean score and share of true pairs.

    Parameters
    ----------
    thresholds : ndarray, shape (m,)
        Ascending thresholds of the cumulative sums.
    sums : dict
        ``count``, ``positives``, ``score`` (cumulative over pairs at or above each threshold),
        arrays of shape (m,) or (R, m).
    edges : ndarray, shape (B + 1,)
        Bin edges (:func:`calibration_bins`).

    Returns
    -------
    dict of str to ndarray
        ``lower``, ``upper`` (the bin's edges), ``pairs``,
        ``true`` (both weights when IA-weighted), ``mean_score`` and ``fraction_true`` (NaN for an empty bin),
        the last four of shape (B,) or (R, B).
    """
    idx = bin_edges(thresholds, edges)
    cnt, pos, sc = (np.diff(-_at(sums[k], idx), axis=-1) for k in ("count", "positives", "score"))
    return {"lower": np.asarray(edges[:-1], dtype=np.float64), "upper": np.asarray(edges[1:], dtype=np.float64),
            "pairs": cnt, "true": pos,
            "mean_score": _ratio(sc, cnt), "fraction_true": _ratio(pos, cnt)}


def expected_calibration_error(table: dict[str, np.ndarray]) -> np.ndarray:
    """``sum_b n_b / N |acc_b - conf_b|`` over the bins of a :func:`reliability` table (NaN with no pair)."""
    n = table["pairs"]
    gap = np.abs(np.nan_to_num(table["fraction_true"]) - np.nan_to_num(table["mean_score"]))
    return _ratio((n * gap).sum(axis=-1), n.sum(axis=-1))


def brier_score(sums: dict[str, np.ndarray], n_true: Any) -> np.ndarray:
    """Mean squared error ``(s - y)^2`` over the predicted pairs at the lowest threshold and the true pairs
    never predicted (score 0).

    Parameters
    ----------
    sums : dict
        Cumulative ``count``, ``positives``, ``score2`` (``sum s^2``) and ``score_pos`` (``sum_{true} s``).
    n_true : float or ndarray of shape (R,)
        Number (weight) of true pairs of the benchmark proteins.
    """
    if np.shape(sums["count"])[-1] == 0:  # no threshold: nothing predicted, nothing to score
        return np.full(np.shape(sums["count"])[:-1], np.nan)
    c, y = np.asarray(sums["count"])[..., 0], np.asarray(sums["positives"])[..., 0]
    s2, sy = np.asarray(sums["score2"])[..., 0], np.asarray(sums["score_pos"])[..., 0]
    missed = np.asarray(n_true, dtype=np.float64) - y
    return _ratio(s2 - 2.0 * sy + y + missed, c + missed)


def calibration_from_pairs(y: np.ndarray, s: np.ndarray, thresholds: np.ndarray, edges: np.ndarray,
                           weights: np.ndarray | None = None, n_true: float | None = None) -> dict[str, Any]:
    """The same quantities from explicit pairs (the cumulative sums built here; for tests and small inputs).

    Parameters
    ----------
    y : ndarray of bool, shape (n,)
        Whether each predicted pair is true.
    s : ndarray of float, shape (n,)
        Its score; pairs below the lowest threshold are not predicted.
    thresholds, edges : ndarray
        As for :func:`reliability`.
    weights : ndarray, optional
        Per-pair weight (its term's information accretion).
    n_true : float, optional
        Weight of every true pair of the benchmark (predicted or not); default: the true predicted pairs.
    """
    w = np.ones(s.size) if weights is None else np.asarray(weights, dtype=np.float64)
    lvl = np.searchsorted(thresholds, s, side="right")  # pairs at or above threshold j: lvl > j
    m = thresholds.size

    def cum(v: np.ndarray) -> np.ndarray:
        per = np.bincount(lvl, weights=v, minlength=m + 1)[1:]
        return np.cumsum(per[::-1])[::-1]

    sums = {"count": cum(w), "positives": cum(w * y), "score": cum(w * s), "score2": cum(w * s * s),
            "score_pos": cum(w * s * y)}
    table = reliability(thresholds, sums, edges)
    total_true = float((w * y)[lvl > 0].sum()) if n_true is None else n_true
    return {"table": table, "ece": expected_calibration_error(table), "brier": brier_score(sums, total_true)}


def calibration_sums(curves: Any, weighted: bool = False,
                     keys: tuple[str, ...] = ("count", "positives", "score", "score2", "score_pos"),
                     ) -> tuple[dict[str, np.ndarray], Any]:
    """The cumulative sums ``keys`` of this module and the weight of every true pair, from the
    :class:`~goeval.metrics.protein.Curves` of a sweep (:data:`CALIBRATION_SUMS`).

    ``weighted``: each pair weighs its term's information accretion; the true pairs weigh ``sum_i i(T_i)``.
    """
    sums = {k: curves.sums[CALIBRATION_SUMS[weighted][k]] for k in keys}
    return sums, curves.stats.it_sum if weighted else curves.stats.n_true


def curve_reliability(curves: Any, weighted: bool = False) -> dict[str, np.ndarray]:
    """The reliability table (:func:`reliability`) of the curves, in the bins ``curves.calibration_bins``."""
    sums, _ = calibration_sums(curves, weighted, ("count", "positives", "score"))
    return reliability(curves.stats.thresholds, sums, calibration_bins(curves.calibration_bins))


def curve_ece(curves: Any, weighted: bool = False) -> np.ndarray:
    """The expected calibration error of the curves (``Measure(reduce='curve')``: shape () or (B,))."""
    return expected_calibration_error(curve_reliability(curves, weighted))


def curve_brier(curves: Any, weighted: bool = False) -> np.ndarray:
    """The Brier score of the curves (``Measure(reduce='curve')``: shape () or (B,))."""
    sums, n_true = calibration_sums(curves, weighted, ("count", "positives", "score2", "score_pos"))
    return brier_score(sums, n_true)


def reliability_columns(curves: Any, with_ia: bool) -> dict[str, np.ndarray]:
    """The rows of ``calibration.tsv`` of one method and namespace, but its ``method`` and ``namespace``.

    Parameters
    ----------
    curves : Curves
        The :class:`~goeval.metrics.protein.Curves` of the block (unweighted protein statistics, sums of
        shape (m,)), in the bins ``curves.calibration_bins``.
    with_ia : bool
        Also the columns of :data:`WEIGHTED_CALIBRATION_COLUMNS` (each pair weighs its term's IA).

    Returns
    -------
    dict of str to ndarray
        ``bin`` (0, 1, ...), ``lower``, ``upper`` and the per-bin ``pairs``, ``true``, ``mean_score`` and
        ``fraction_true`` of :func:`reliability` (NaN mean and fraction in an empty bin), then the weighted ones:
        the table behind ``ece`` (``wece``) in the summary.
    """
    table = curve_reliability(curves, False)
    out = {"bin": np.arange(table["lower"].size, dtype=np.int64), "lower": table["lower"], "upper": table["upper"]}
    out.update({k: table[k] for k in CALIBRATION_COLUMNS[5:]})
    if with_ia:
        weighted = curve_reliability(curves, True)
        out.update({w: weighted[k] for w, k in zip(WEIGHTED_CALIBRATION_COLUMNS, CALIBRATION_COLUMNS[5:])})
    return out
