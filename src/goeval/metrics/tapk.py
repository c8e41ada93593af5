"""Threshold Average Precision (TAP-k) of ranked retrieval lists.

A *retrieval list* is the answer to one query: records ranked best-first by a
score, each relevant or not, plus T(q), the number of records relevant to the
query whether retrieved or not. Many lists are held together in a
:class:`RetrievalLists` (concatenated arrays and offsets), so every measure
here is computed for all queries at once with NumPy, without a Python loop
over queries or records.

References
----------
.. [TAP] H. D. Carroll, M. G. Kann, S. L. Sheetlin, J. L. Spouge (2010).
   Threshold Average Precision (TAP-k): a measure of retrieval designed for
   bioinformatics. *Bioinformatics* 26(14):1708-1713, §2.3.4, and the
   "What is TAP-k?" page with its three worked examples.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from goeval.errors import GoevalError, GoevalWarning, InvalidParameterError, check_choice
from goeval.metrics.lists import Ranked, RetrievalList, RetrievalLists

__all__ = [
    "InsufficientErrorsError",
    "RetrievalList",
    "RetrievalLists",
    "TapCurve",
    "TapkResult",
    "tap_curve",
    "tap_k",
]

#: Relative slack of the weighted-quantile walk (as in the reference tool), so
#: that float weights summing to exactly half the total are not missed.
_QUANTILE_SLACK = 1e-12


class InsufficientErrorsError(GoevalError, ValueError):
    """Too few retrieval lists have k irrelevant records to define E_k."""


@dataclass(frozen=True, eq=False, kw_only=True)
class TapkResult:
    """Result of :func:`tap_k` (arrays have shape (n_queries,)).

    Attributes
    ----------
    k : int or None
        Errors per query defining the cutoff (``None`` with a fixed threshold).
    cutoff : float or None
        The cutoff E_k (or the fixed threshold), in the input's units;
        ``None`` with ``insufficient="pad"`` or when no record exists.
    tap : float
        Weighted mean of ``apcp`` over the included queries.
    apcp : ndarray of float
        Per-query TAP (APCP); NaN for queries left out (``zero_relevant="skip"``).
    fp_at_cutoff, n_within : ndarray of int
        Irrelevant records, and all records, inside the cutoff.
    n_relevant : ndarray of int
        T(q).
    weights : ndarray of float
    included : ndarray of bool
        Queries entering the mean.
    median_fp : int
        Largest m such that queries with at least m errors inside the cutoff
        carry at least ``quantile`` of the total weight.
    fallback_used : bool
        True when fewer than ``quantile`` of the lists (by weight) have k errors.
    ids : tuple of str
    higher_is_better : bool
    quantile : float
    """

    k: int | None
    cutoff: float | None
    tap: float
    apcp: NDArray[np.float64]
    fp_at_cutoff: NDArray[np.int64]
    n_within: NDArray[np.int64]
    n_relevant: NDArray[np.int64]
    weights: NDArray[np.float64]
    included: NDArray[np.bool_]
    median_fp: int
    fallback_used: bool
    ids: tuple[str, ...]
    higher_is_better: bool = True
    quantile: float = 0.5

    def per_query(self) -> dict[str, float]:
        """Map query id -> APCP (NaN for excluded queries)."""
        return dict(zip(self.ids, self.apcp.tolist()))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary with one record per query (NaN becomes ``None``)."""
        queries = [
            {
                "query": qid,
                "weight": float(w),
                "T": int(t),
                "n_within": int(n),
                "fp_at_cutoff": int(fp),
                "apcp": None if np.isnan(a) else float(a),
            }
            for qid, w, t, n, fp, a in zip(
                self.ids, self.weights, self.n_relevant, self.n_within, self.fp_at_cutoff, self.apcp
            )
        ]
        return {
            "k": self.k,
            "cutoff": self.cutoff,
            "tap": None if np.isnan(self.tap) else self.tap,
            "median_fp": self.median_fp,
            "fallback_used": self.fallback_used,
            "quantile": self.quantile,
            "higher_is_better": self.higher_is_better,
            "queries": queries,
        }


@dataclass(frozen=True, eq=False, kw_only=True)
class TapCurve:
    """Query-averaged TAP as a function of the cutoff E0 (Fig. 5 of [TAP]_).

    Attributes
    ----------
    cutoffs : ndarray of shape (n_cutoffs,)
        Every distinct score over all lists, best first, in input units.
    tap : ndarray of shape (n_cutoffs,)
        Weighted mean APCP with the cutoff at each value.
    peak_tap : float
        Maximum of ``tap`` ("peak TAP" of [TAP]_ Table 1); NaN without records.
    peak_cutoff : float or None
        The strictest cutoff reaching the peak (E0*(A) of Table 1).
    """

    cutoffs: NDArray[np.float64]
    tap: NDArray[np.float64]
    peak_tap: float
    peak_cutoff: float | None
    higher_is_better: bool = True


def as_retrieval_lists(lists: RetrievalLists | Iterable[RetrievalList]) -> RetrievalLists:
    """Return ``lists`` as a :class:`RetrievalLists` (concatenating if needed)."""
    return lists if isinstance(lists, RetrievalLists) else RetrievalLists.from_lists(lists)


def _weights(lists: RetrievalLists, weights: ArrayLike | None, func: str) -> NDArray[np.float64]:
    if weights is None:
        return lists.weights
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (len(lists),) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidParameterError(
            f"The 'weights' parameter of {func} must hold {len(lists)} finite weights >= 0."
        )
    return w


def _walk_quantile(w: NDArray[np.float64], target: float) -> int | None:
    """First index at which the cumulative sum of ``w`` reaches ``target`` (None if never)."""
    hit = np.flatnonzero(np.cumsum(w) >= target * (1.0 - _QUANTILE_SLACK))
    return int(hit[0]) if hit.size else None


def _median_fp(fp: NDArray[np.int64], w: NDArray[np.float64], quantile: float) -> int:
    order = np.argsort(-fp, kind="stable")
    i = _walk_quantile(w[order], quantile * w.sum())
    return int(fp[order][i]) if i is not None else 0


def _check_tap_k_options(
    k: int | None, quantile: float, threshold: float | None, insufficient: str, zero_relevant: str
) -> None:
    """Raise :class:`InvalidParameterError` for an option of :func:`tap_k` outside its domain."""
    func = "tap_k"
    check_choice(insufficient, "insufficient", func, ("lowest", "error", "pad"))
    check_choice(zero_relevant, "zero_relevant", func, ("paper", "perl", "skip"))
    if not (isinstance(quantile, (int, float)) and 0.0 < quantile <= 1.0):
        raise InvalidParameterError(f"The 'quantile' parameter of {func} must be in (0, 1]; got {quantile!r}.")
    if threshold is None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidParameterError(f"The 'k' parameter of {func} must be an integer >= 1; got {k!r}.")
    elif not np.isfinite(threshold):
        raise InvalidParameterError(f"The 'threshold' parameter of {func} must be a finite number; got {threshold!r}.")


def _error_cutoff(
    r: Ranked, w: NDArray[np.float64], k: int, quantile: float, insufficient: str
) -> tuple[float | None, bool]:
    """The cutoff E_k in goodness units (``None``: no cutoff), and whether the fallback was used.

    The k-th-error goodness of each list that has one, sorted best-first and
    walked to ``quantile`` of the total weight; without enough such lists,
    the ``insufficient`` policy applies.
    """
    kth = (~r.rel) & (r.pos + 1 - r.crel == k)
    q_k, g_k = r.seg[kth], r.g[kth]
    order = np.argsort(-g_k, kind="stable")
    i = _walk_quantile(w[q_k[order]], quantile * w.sum())
    if i is not None:
        return float(g_k[order][i]), False
    if insufficient == "error":
        raise InsufficientErrorsError(
            f"Fewer than {quantile} of the retrieval lists have {k} errors. "
            "Choose a smaller k, or the 'lowest' policy for insufficient lists "
            "(cutoff at the worst score) or 'pad' (no cutoff)."
        )
    return (None if insufficient == "pad" or r.g.size == 0 else float(r.g.min())), True


def _apcp_at(
    lists: RetrievalLists, r: Ranked, g0: float | None, *, terminal: bool
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """APCP of every list with the cutoff at goodness ``g0`` (inclusive; ``None``: every record).

    Returns the APCP (eq. (1), with the terminal term ``p_n`` when
    ``terminal``), the records inside the cutoff and the errors among them.
    """
    n_q = len(lists)
    inside = np.ones(r.g.size, dtype=bool) if g0 is None else r.g >= g0
    n_in = np.bincount(r.seg[inside], minlength=n_q)
    hits = inside & r.rel
    summed = np.bincount(r.seg[hits], weights=r.prec[hits], minlength=n_q)
    has = n_in > 0
    last = lists.offsets[:-1][has] + n_in[has] - 1
    crel_last = np.zeros(n_q, dtype=np.int64)
    crel_last[has] = r.crel[last]
    if terminal:
        term = np.zeros(n_q)
        term[has] = r.prec[last]
        summed = summed + term
    apcp = summed / (lists.n_relevant + 1)
    return apcp, n_in, n_in - crel_last


def _apply_zero_relevant(
    apcp: NDArray[np.float64], n_in: NDArray[np.int64], zero: NDArray[np.bool_], zero_relevant: str
) -> NDArray[np.bool_]:
    """Apply the T(q) = 0 policy to ``apcp`` in place; return the queries entering the mean."""
    included = np.ones(apcp.size, dtype=bool)
    if zero_relevant == "perl":
        apcp[zero] = 1.0 / (n_in[zero] + 1)
    elif zero_relevant == "skip":
        included = ~zero
        apcp[zero] = np.nan
    return included


def _weighted_tap(w: NDArray[np.float64], apcp: NDArray[np.float64], included: NDArray[np.bool_]) -> float:
    """Weighted mean APCP of the included queries; NaN with a warning when they weigh nothing."""
    w_in = w[included]
    if w_in.sum() > 0:
        return float(np.dot(w_in, apcp[included]) / w_in.sum())
    warnings.warn("TAP-k is undefined: no query with positive weight is included; returning NaN.",
                  GoevalWarning, stacklevel=3)
    return float("nan")


def tap_k(
    lists: RetrievalLists | Iterable[RetrievalList],
    k: int | None,
    *,
    higher_is_better: bool = True,
    quantile: float = 0.5,
    weights: ArrayLike | None = None,
    insufficient: str = "lowest",
    zero_relevant: str = "paper",
    threshold: float | None = None,
) -> TapkResult:
    r"""Threshold Average Precision at a quantile of k errors per query.

    Parameters
    ----------
    lists : RetrievalLists or iterable of RetrievalList
        One list per query. Lists are ranked best-first here with a stable
        sort, so records with equal scores keep their input order (C6).
    k : int or None
        Errors (irrelevant records) per query at the quantile; ``k >= 1``.
        May be ``None`` only when ``threshold`` is given.
    higher_is_better : bool, default True
        False for E-values (lower is better). The results equal those of the
        negated values with ``higher_is_better=True``.
    quantile : float in (0, 1], default 0.5
        Weighted fraction of queries that must have >= k errors (the median).
    weights : array-like of shape (n_queries,), optional
        Query weights; default the lists' own weights.
    insufficient : {'lowest', 'error', 'pad'}, default 'lowest'
        What to do when fewer than ``quantile`` of the lists (by weight)
        contain k irrelevant records (C4): ``'lowest'`` puts the cutoff at the
        worst score over all lists and keeps the terminal term (worked
        example 2); ``'error'`` raises (the reference Perl tool's default);
        ``'pad'`` uses no cutoff and no terminal term (its ``-p``).
    zero_relevant : {'paper', 'perl', 'skip'}, default 'paper'
        Queries with T(q) = 0 (C7): APCP 0 as eq. (1) gives; ``'perl'``:
        1 / (n + 1) with n records inside the cutoff; ``'skip'``: left out of
        the mean (APCP NaN). Their errors count towards E_k in every case.
    threshold : float, optional
        A fixed cutoff E0 in input units, used instead of E_k.

    Returns
    -------
    TapkResult

    Raises
    ------
    InvalidParameterError
        For a parameter outside its domain.
    InsufficientErrorsError
        With ``insufficient='error'`` when E_k does not exist.

    Notes
    -----
    With the cutoff :math:`x` inclusive (``score >= x``, or ``E <= x`` for
    E-values; C1), let :math:`n` records of query :math:`q` lie inside,
    :math:`p_i` the precision at rank :math:`i` and :math:`\rho_i \in \{0,1\}`
    the relevance (C2, [TAP]_ eq. (1)):

    .. math::

        \mathrm{APCP}_x(q) = \frac{\sum_{i \le n} \rho_i\, p_i + p_n}{T(q) + 1},
        \qquad \mathrm{APCP}_x(q) = 0 \text{ if } n = 0,

    and :math:`\text{TAP-}k = \sum_q w_q \mathrm{APCP}_{E_k}(q) / \sum_q w_q`
    (C5). The cutoff :math:`E_k` (C3) is the strictest value at which queries
    carrying at least ``quantile`` of the total weight have :math:`\ge k`
    errors: the k-th-error scores are sorted best-first and walked until
    their cumulative weight reaches ``quantile`` times the total weight of
    all queries (with a relative slack of 1e-12 for float weights), so with
    an even number of equal-weight queries it is the upper middle value.

    References
    ----------
    .. [TAP] Carroll et al. (2010), Bioinformatics 26(14):1708, §2.3.4;
       conventions C1-C7 of goeval (CONVENTIONS.md §5).

    Examples
    --------
    >>> q = RetrievalList(id="q1", n_relevant=2, scores=[0.9, 0.8, 0.6, 0.5], relevance=[1, 0, 1, 0])
    >>> r = tap_k([q], 1)
    >>> r.cutoff, round(r.tap, 4)  # (1 + 1/2) / (2 + 1)
    (0.8, 0.5)
    """
    func = "tap_k"
    lists = as_retrieval_lists(lists)
    _check_tap_k_options(k, quantile, threshold, insufficient, zero_relevant)
    w = _weights(lists, weights, func)
    r = lists.ranked(higher_is_better)
    sign = 1.0 if higher_is_better else -1.0
    g0: float | None
    if threshold is not None:
        g0, fallback = sign * float(threshold), False
    else:
        g0, fallback = _error_cutoff(r, w, k, quantile, insufficient)
    apcp, n_in, fp = _apcp_at(lists, r, g0, terminal=not (insufficient == "pad" and fallback))
    included = _apply_zero_relevant(apcp, n_in, lists.n_relevant == 0, zero_relevant)
    return TapkResult(
        k=None if k is None else int(k),
        cutoff=None if g0 is None else sign * g0,
        tap=_weighted_tap(w, apcp, included),
        apcp=apcp,
        fp_at_cutoff=fp,
        n_within=n_in,
        n_relevant=lists.n_relevant,
        weights=w,
        included=included,
        median_fp=_median_fp(fp, w, quantile),
        fallback_used=fallback,
        ids=lists.ids,
        higher_is_better=higher_is_better,
        quantile=float(quantile),
    )


def tap_curve(
    lists: RetrievalLists | Iterable[RetrievalList],
    *,
    higher_is_better: bool = True,
    weights: ArrayLike | None = None,
    zero_relevant: str = "paper",
) -> TapCurve:
    r"""Query-averaged TAP at every distinct cutoff, and its peak.

    Parameters
    ----------
    lists : RetrievalLists or iterable of RetrievalList
    higher_is_better : bool, default True
        False for E-values.
    weights : array-like of shape (n_queries,), optional
    zero_relevant : {'paper', 'perl', 'skip'}, default 'paper'
        As in :func:`tap_k`.

    Returns
    -------
    TapCurve
        ``tap[j]`` equals ``tap_k(lists, None, threshold=cutoffs[j]).tap`` up
        to rounding (the curve is accumulated from per-query changes).

    Notes
    -----
    :math:`\overline{\mathrm{TAP}}(x) = \sum_q w_q \mathrm{APCP}_x(q) /
    \sum_q w_q` changes only where ``x`` passes a record's score, so it is
    evaluated at each distinct score: every list contributes the change of
    its APCP at the end of each of its tie groups, and the changes are summed
    over the globally sorted scores. The maximum is the "peak TAP" reached
    at :math:`E_0^*(A)` ([TAP]_ §3.4, Table 1, Fig. 5); ties for the maximum
    are resolved to the strictest cutoff.

    References
    ----------
    .. [TAP] Carroll et al. (2010), Bioinformatics 26(14):1708, §3.4.
    """
    func = "tap_curve"
    lists = as_retrieval_lists(lists)
    check_choice(zero_relevant, "zero_relevant", func, ("paper", "perl", "skip"))
    w = _weights(lists, weights, func).copy()
    t = lists.n_relevant
    if zero_relevant == "skip":
        w[t == 0] = 0.0
    total = w.sum()
    r = lists.ranked(higher_is_better)
    sign = 1.0 if higher_is_better else -1.0
    if r.g.size == 0 or total <= 0:
        return TapCurve(cutoffs=np.zeros(0), tap=np.zeros(0), peak_tap=float("nan"), peak_cutoff=None,
                        higher_is_better=higher_is_better)
    end = np.ones(r.g.size, dtype=bool)
    end[:-1] = (r.seg[1:] != r.seg[:-1]) | (r.g[1:] != r.g[:-1])
    contrib = np.where(r.rel, r.prec, 0.0)
    csum = np.cumsum(contrib)
    start = np.concatenate([[0.0], csum])[lists.offsets[:-1]]
    summed = csum - start[r.seg]
    q = r.seg[end]
    n = r.pos[end] + 1
    apcp = (summed[end] + r.prec[end]) / (t[q] + 1)
    init = np.zeros(len(lists))
    if zero_relevant == "perl":
        zero = t[q] == 0
        apcp[zero] = 1.0 / (n[zero] + 1)
        init[t == 0] = 1.0
    prev = np.empty_like(apcp)
    prev[1:] = apcp[:-1]
    first = np.ones(q.size, dtype=bool)
    first[1:] = q[1:] != q[:-1]
    prev[first] = init[q[first]]
    delta = (apcp - prev) * w[q]
    g_end = r.g[end]
    order = np.argsort(-g_end, kind="stable")
    g_sorted = g_end[order]
    new = np.ones(g_sorted.size, dtype=bool)
    new[1:] = g_sorted[1:] != g_sorted[:-1]
    starts = np.flatnonzero(new)
    curve = (np.dot(w, init) + np.cumsum(np.add.reduceat(delta[order], starts))) / total
    cutoffs = sign * g_sorted[starts]
    j = int(np.argmax(curve))
    return TapCurve(cutoffs=cutoffs, tap=curve, peak_tap=float(curve[j]), peak_cutoff=float(cutoffs[j]),
                    higher_is_better=higher_is_better)
