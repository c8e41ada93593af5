"""Threshold-sweep kernels: per-threshold sufficient statistics.

For protein ``i`` the predicted set ``P_i(tau) = {v : s_i(v) >= tau}`` only
changes at that protein's own scores, so every per-protein quantity
(``|P|``, ``|T ∩ P|``, ``sum_P ia``, ``sum_{T ∩ P} ia``) is a step function
of ``tau``. The kernel maps each propagated score to its *level* (the number
of thresholds ``<= score``), sorts each protein's entries by level once
(one ``np.sort`` of packed integer keys), takes cumulative sums over the
levels, and scatters the *changes* of every per-protein measure into the
threshold bins with ``np.bincount``; a reverse cumulative sum then gives,
for every threshold, the sum over proteins. Nothing loops over thresholds
or proteins in Python, and the statistics are additive over chunks of
proteins (bounded memory; a distributed backend only has to add them).

This is the multi-threshold analogue of scikit-learn's
``_binary_clf_curve``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import numpy as np

from goeval.errors import InvalidParameterError

__all__ = ["SweepStats", "sweep", "running_sums", "ProteinSteps", "protein_steps", "assemble_steps",
           "SweepPartial", "TreeSum", "tree_sum", "sweep_partial", "finish_partial", "fold_infinite", "truth_totals", "grid_thresholds", "exact_thresholds", "MAX_GRID_THRESHOLDS", "STAT_NAMES", "STAT_DEFINITIONS"]

#: Per-protein quantities of a predicted set at one threshold (``sweep``
#: sums them over proteins): covered ``[|P_i| > 0]``, pr ``tp/|P|`` (0 when
#: not covered), rc ``tp/|T|``, tp ``|T ∩ P|``, npred ``|P|``, ntrue_cov
#: ``|T|`` of covered proteins, covered_w ``[sum_P ia > 0]``, wpr
#: ``sum_{T∩P} ia / sum_P ia``, wrc ``sum_{T∩P} ia / i(T)``, ru
#: ``sum_{T-P} ia``, mi ``sum_{P-T} ia``, ia_tp ``sum_{T∩P} ia`` and
#: ia_pred ``sum_P ia`` (the last two pooled for micro averages).
BASE_QUANTITIES: tuple[str, ...] = (
    "covered", "pr", "rc", "tp", "npred", "ntrue_cov", "covered_w", "wpr", "wrc", "ru", "mi", "ia_tp", "ia_pred",
)

#: Every sum of :class:`SweepStats`: name -> (per-protein quantity, power p).
#: The sum is ``sum_i w_i * i(T_i)**p * quantity_i`` with the protein
#: weights ``w_i`` of :func:`sweep` (1 by default): the ``it_*`` sums are the
#: plain sums under the protein weights ``w_i * i(T_i)`` (``it2_cov_w``:
#: ``w_i * i(T_i)**2``), used for ``wru``/``wmi`` (CR13 eqs. 4-5) and for
#: ``protein_weighting='information'`` (CR13 §3.4.1).
STAT_DEFINITIONS: dict[str, tuple[str, int]] = {
    "covered": ("covered", 0),
    "pr": ("pr", 0),
    "rc": ("rc", 0),
    "tp": ("tp", 0),
    "npred": ("npred", 0),
    "ntrue_cov": ("ntrue_cov", 0),
    "covered_w": ("covered_w", 0),
    "wpr": ("wpr", 0),
    "wrc": ("wrc", 0),
    "ru": ("ru", 0),
    "mi": ("mi", 0),
    "it_ru": ("ru", 1),
    "it_mi": ("mi", 1),
    "it_wpr": ("wpr", 1),
    "it_wrc": ("wrc", 1),
    "it_cov_w": ("covered_w", 1),
    "it2_cov_w": ("covered_w", 2),
    "ia_tp": ("ia_tp", 0),
    "ia_pred": ("ia_pred", 0),
    "it_cov": ("covered", 1),
}

#: Per-threshold sums produced by :func:`sweep` (all over benchmark proteins).
STAT_NAMES: tuple[str, ...] = tuple(STAT_DEFINITIONS)

#: How the sums of the i(T)-weighted view (:meth:`SweepStats.information_weighted`)
#: are read from the plain ones: under weights ``w_i i(T_i)``, covered_w is
#: it_cov_w, and the view's own ``it_cov_w`` is it2_cov_w.
_INFORMATION_VIEW = {
    "covered": "it_cov", "covered_w": "it_cov_w", "wpr": "it_wpr", "wrc": "it_wrc",
    "ru": "it_ru", "mi": "it_mi", "it_cov_w": "it2_cov_w",
}


@dataclass
class SweepStats:
    """Sufficient statistics of a protein-centric sweep (additive over proteins).

    Attributes
    ----------
    thresholds : ndarray of float64, shape (n_thresholds,)
        Ascending decision thresholds.
    sums : dict of str to ndarray of float64, shape (n_thresholds,) or (B, n_thresholds)
        For each name of :data:`STAT_NAMES`, the (weighted) sum over proteins
        at each threshold (:data:`STAT_DEFINITIONS`); one row per weight
        vector when :func:`sweep` was given weights of shape (B, n).
    n : int, float or ndarray of shape (B,)
        Benchmark proteins (non-empty truth); with weights, ``sum_i w_i``.
    n_true : int, float or ndarray of shape (B,)
        ``sum_i w_i |T_i|``.
    it_sum, it2_sum : float or ndarray of shape (B,)
        ``sum_i w_i i(T_i)`` and ``sum_i w_i i(T_i)^2`` (bits, bits^2).

    Notes
    -----
    The combination contract (what a chunked or distributed backend relies
    on): the statistics of a set of proteins are the sum of those of any
    partition of it into chunks, computed over the same thresholds with the
    same IA and the same weights per protein. ``a + b``, ``a += b`` and
    :meth:`combine` add every field; the curves and optima of
    :mod:`goeval.metrics.protein` are functions of the combined statistics
    only. Sums of chunks equal the sums of the whole up to floating-point
    rounding (the order of additions differs).
    """

    thresholds: np.ndarray
    sums: dict[str, np.ndarray]
    n: Any
    n_true: Any
    it_sum: Any
    it2_sum: Any
    #: The per-protein step functions these sums came from, when kept
    #: (:func:`protein_steps`; bootstrap and paired comparisons need them).
    #: Sums added over chunks or folds do not carry them.
    protein_steps: "ProteinSteps | None" = field(default=None, repr=False, compare=False)
    #: Per-threshold sums of the semantic similarities of the same proteins over the
    #: same thresholds (:class:`goeval.metrics.similarity.SimilarityStats`), when
    #: requested; added with the sums.
    similarity: Any = field(default=None, repr=False, compare=False)

    @property
    def n_replicates(self) -> int | None:
        """B for statistics of weights of shape (B, n), else None."""
        first = next(iter(self.sums.values()), None)
        return None if first is None or first.ndim == 1 else int(first.shape[0])

    def __iadd__(self, other: "SweepStats") -> "SweepStats":
        if not np.array_equal(self.thresholds, other.thresholds):
            raise InvalidParameterError("Sweep statistics over different thresholds cannot be added.")
        if set(self.sums) != set(other.sums):
            raise InvalidParameterError("Sweep statistics with different sums cannot be added.")
        if (self.similarity is None) != (other.similarity is None):
            raise InvalidParameterError("Sweep statistics with and without similarity sums cannot be added.")
        for k in self.sums:
            self.sums[k] = self.sums[k] + other.sums[k]
        self.n = self.n + other.n
        self.n_true = self.n_true + other.n_true
        self.it_sum = self.it_sum + other.it_sum
        self.it2_sum = self.it2_sum + other.it2_sum
        self.protein_steps = None  # the sum is no longer these proteins' alone
        if self.similarity is not None:
            self.similarity = self.similarity + other.similarity
        return self

    def __add__(self, other: "SweepStats") -> "SweepStats":
        out = SweepStats(self.thresholds, dict(self.sums), self.n, self.n_true, self.it_sum, self.it2_sum,
                         similarity=self.similarity)
        out += other
        return out

    @classmethod
    def combine(cls, parts: Iterable["SweepStats"]) -> "SweepStats":
        """Sum of the statistics of disjoint protein chunks (see Notes of the class).

        Raises
        ------
        InvalidParameterError
            For no parts, or parts over different thresholds.
        """
        parts = list(parts)
        if not parts:
            raise InvalidParameterError("The 'parts' parameter of SweepStats.combine must not be empty.")
        first = parts[0]
        total = cls(first.thresholds, dict(first.sums), first.n, first.n_true, first.it_sum, first.it2_sum,
                    similarity=first.similarity)
        for p in parts[1:]:
            total += p
        return total

    def information_weighted(self) -> "SweepStats":
        """The statistics under protein weights ``w_i i(T_i)`` (a partial view).

        Holds the sums the IA-based curves read (covered, covered_w, wpr,
        wrc, ru, mi, it_cov_w), ``n = it_sum`` and ``it_sum = it2_sum``, so
        the i(T)-weighted means of CR13 eqs. (4)-(5) and §3.4.1 are the plain
        means of this view. ``n_true`` and ``it2_sum`` are not available (NaN).
        """
        sums = {name: self.sums[src] for name, src in _INFORMATION_VIEW.items()}
        return SweepStats(self.thresholds, sums, self.it_sum, float("nan"), self.it2_sum, float("nan"))

    def replicate(self, b: int) -> "SweepStats":
        """Row ``b`` of statistics swept with weights of shape (B, n)."""
        if self.n_replicates is None:
            raise InvalidParameterError("replicate() needs statistics swept with weights of shape (B, n).")
        return SweepStats(self.thresholds, {k: v[b] for k, v in self.sums.items()},
                          self.n[b], self.n_true[b], self.it_sum[b], self.it2_sum[b])


#: Largest number of grid thresholds accepted (a step of 1e-7). Each threshold
#: costs a few hundred bytes per curve and per method and namespace; a smaller
#: step would need gigabytes before any input is read.
MAX_GRID_THRESHOLDS = 10_000_000

def grid_thresholds(step: float) -> np.ndarray:
    """Thresholds ``tau_j = j / N`` for ``j = 1 .. N``, ``N = round(1 / step)``.

    Computed from integers, so 0.06 is exactly the double nearest to 0.06
    (``np.arange(0.01, 1, 0.01)`` gives 0.060000000000000005 there).

    Raises
    ------
    InvalidParameterError
        Unless ``0 < step <= 1``, ``1 / step`` is an integer and the grid has
        at most :data:`MAX_GRID_THRESHOLDS` thresholds.
    """
    if not (isinstance(step, (int, float)) and math.isfinite(step) and 0 < step <= 1):
        raise InvalidParameterError(f"The threshold step must lie in (0, 1]; got {step!r}.")
    n = int(round(1.0 / step))
    if abs(n * step - 1.0) > 1e-9:
        raise InvalidParameterError(
            f"The threshold step must divide 1 exactly (e.g. 0.01, 0.05, 0.1); got {step!r}."
        )
    if n > MAX_GRID_THRESHOLDS:
        raise InvalidParameterError(
            f"The threshold step {step!r} gives {n:,} thresholds (at most {MAX_GRID_THRESHOLDS:,}); "
            "use a larger step, or 'exact' for every distinct score."
        )
    return np.arange(1, n + 1) / n


def exact_thresholds(*score_arrays: np.ndarray) -> np.ndarray:
    """Every distinct positive, finite score (ascending)."""
    s = np.concatenate([np.asarray(a, dtype=np.float64) for a in score_arrays]) if score_arrays else np.zeros(0)
    s = np.unique(s[(s > 0) & np.isfinite(s)])
    return s


def _segment_cumsum(x: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Cumulative sum restarting at every ``first`` flag (exact for integer-valued ``x``)."""
    cs = np.cumsum(x)
    starts = np.flatnonzero(first)
    base = np.r_[0, cs[starts[1:] - 1]] if starts.size else np.zeros(0, cs.dtype)
    seg_len = np.diff(np.r_[starts, x.size])
    return cs - np.repeat(base, seg_len)


def running_sums(x: np.ndarray, ends: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """Accurate sums ``x[seg_start[g]] + ... + x[ends[g]]`` for every g (vectorized).

    ``np.cumsum`` adds left to right, so each of its roundings is known: the
    error of step i is recovered exactly by Knuth's TwoSum from the running
    sum before and after it. The sum of a run is the difference of two
    running sums plus the difference of the cumulated errors, so the digits
    a plain ``cumsum(x)[end] - cumsum(x)[start - 1]`` cancels are restored:
    the result is within a few ulps of ``math.fsum`` of the run, whatever
    came before it in the array. The errors' own running sum is compensated
    the same way once more (Ogita-Rump-Oishi's SumK with K = 3), so what is
    left is of order ``eps |sum| + n^3 eps^3 |prefix|``, against ``n eps
    |prefix|`` for the plain difference.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
    ends : ndarray of int, shape (g,)
        Index of the last element of each run.
    seg_start : ndarray of int, shape (g,)
        Index of the first element of each run (``<= ends``).

    Returns
    -------
    ndarray of float64, shape (g,)

    References
    ----------
    Knuth DE, The Art of Computer Programming vol. 2, §4.2.2 (TwoSum);
    Ogita T, Rump SM, Oishi S (2005) Accurate sum and dot product. SIAM J Sci Comput 26(6).

    Examples
    --------
    >>> x = np.array([1e16, 1.0, 1.0, 1.0])
    >>> float(running_sums(x, np.array([3]), np.array([1]))[0])
    3.0
    """
    before = seg_start - 1
    has = before >= 0
    before = np.maximum(before, 0)
    terms = []
    for _ in range(3):  # the sums, their rounding errors, the errors of those
        s = np.cumsum(x)
        prev = np.empty_like(s)
        if s.size:
            prev[0] = 0.0
            prev[1:] = s[:-1]
        bv = s - prev  # TwoSum(prev, x) = (s, e) with prev + x == s + e exactly
        terms.append(s[ends] - np.where(has, s[before], 0.0))
        x = (prev - (s - bv)) + (x - bv)
    return terms[0] + (terms[1] + terms[2])


def _levels(thresholds: np.ndarray, scores: np.ndarray, grid_n: int) -> np.ndarray:
    """Number of thresholds <= each score (``searchsorted(..., 'right')``).

    For the grid ``j / N`` the level is computed arithmetically and then
    corrected against the exact threshold values, which is several times
    faster than a binary search and gives identical results.
    """
    if not grid_n:
        return np.searchsorted(thresholds, scores, side="right")
    with np.errstate(invalid="ignore", over="ignore"):
        lev = np.clip(np.floor(np.minimum(scores, 2.0) * grid_n), 0, grid_n).astype(np.int64)
    ext = np.r_[-np.inf, thresholds, np.inf]  # ext[L] = tau_L (1-based), ext[0] = -inf
    lev -= ext[lev] > scores  # level too high
    lev += (lev < grid_n) & (ext[lev + 1] <= scores)  # level too low
    return lev



@dataclass
class _Steps:
    """The (protein, level) groups of a chunk, ordered by protein then descending level.

    ``cnt``, ``tp``, ``ia_pred``, ``ia_tp`` are the protein's running totals
    (``|P|``, ``|T ∩ P|``, ``sum_P ia``, ``sum_{T∩P} ia``) once every entry
    down to the group's level is predicted; ``first`` flags a protein's
    first group, ``bins`` the threshold index (level - 1).
    """

    rows: np.ndarray
    bins: np.ndarray
    first: np.ndarray
    cnt: np.ndarray
    tp: np.ndarray
    ia_pred: np.ndarray
    ia_tp: np.ndarray


def _chunk_bounds(pred_indptr: np.ndarray, chunk_entries: int) -> list[int]:
    """Row bounds such that each chunk holds about ``chunk_entries`` entries."""
    n = pred_indptr.size - 1
    cum = pred_indptr[1:]
    bounds = [0]
    while bounds[-1] < n:
        target = pred_indptr[bounds[-1]] + chunk_entries
        nxt = int(np.searchsorted(cum, target, side="right")) + 1
        bounds.append(min(n, max(nxt, bounds[-1] + 1)))
    return bounds


class _TruthFlags:
    """True-positive flags through a dense bool buffer of one chunk (reset sparsely)."""

    def __init__(self, truth_indptr: np.ndarray, truth_cols: np.ndarray, n_cols: int) -> None:
        self.indptr, self.cols, self.n_cols = truth_indptr, truth_cols, n_cols
        self.buf = np.zeros(0, bool)

    def __call__(self, r0: int, r1: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        nr, n_cols = r1 - r0, self.n_cols
        ta, tb = int(self.indptr[r0]), int(self.indptr[r1])
        tcells = np.repeat(np.arange(nr, dtype=np.int64), np.diff(self.indptr[r0 : r1 + 1])) * n_cols + self.cols[ta:tb]
        if self.buf.size < nr * n_cols:
            self.buf = np.zeros(nr * n_cols, bool)
        self.buf[tcells] = True
        tp = self.buf[rows * n_cols + cols]
        self.buf[tcells] = False
        return tp


def _chunk_steps(
    r0: int, r1: int, pred_indptr: np.ndarray, pred_cols: np.ndarray, pred_scores: np.ndarray,
    truth_flags: _TruthFlags, iav: np.ndarray, thresholds: np.ndarray, grid_n: int,
    levels: np.ndarray | None = None,
) -> _Steps | None:
    """Group the entries of rows [r0, r1) by (protein, level) with running totals.

    ``levels`` (every entry's level, when the caller knows them) replaces
    the search of the scores among the thresholds.
    """
    m, n_cols = thresholds.size, iav.size
    a, b = int(pred_indptr[r0]), int(pred_indptr[r1])
    if a == b:
        return None
    rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(pred_indptr[r0 : r1 + 1]))
    cols = pred_cols[a:b].astype(np.int64)
    level = _levels(thresholds, pred_scores[a:b], grid_n) if levels is None else levels[a:b]
    keep = level > 0
    if not keep.all():
        rows, cols, level = rows[keep], cols[keep], level[keep]
    if rows.size == 0:
        return None
    tp = truth_flags(r0, r1, rows, cols)
    # one sort of packed keys: (row, descending level) groups, then column, tp bit
    col_bits = max(1, int(n_cols).bit_length())
    grp = rows * (m + 1) + (m - level)
    if int(grp.max()).bit_length() + col_bits + 1 <= 63:
        key = np.sort((grp << (col_bits + 1)) | (cols << 1) | tp)
        grp = key >> (col_bits + 1)
        cols = (key >> 1) & ((1 << col_bits) - 1)
        tp = (key & 1).astype(bool)
    else:  # pragma: no cover - astronomically many thresholds x rows
        order = np.argsort(grp, kind="stable")
        grp, cols, tp = grp[order], cols[order], tp[order]
    starts = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
    g_row, g_rlev = np.divmod(grp[starts], m + 1)
    first = np.r_[True, g_row[1:] != g_row[:-1]]
    # running totals of each protein down to each group's level: counts exactly
    # (integers), IA sums accurately (compensated, per protein; see running_sums)
    cnt = _segment_cumsum(np.diff(np.r_[starts, grp.size]), first).astype(np.float64)
    tpc = _segment_cumsum(np.add.reduceat(tp.astype(np.int64), starts), first).astype(np.float64)
    ends = np.r_[starts[1:] - 1, grp.size - 1]
    row_start = np.repeat(starts[first], np.diff(np.r_[np.flatnonzero(first), starts.size]))
    iav_e = iav[cols]
    iap = running_sums(iav_e, ends, row_start)
    iatp = running_sums(np.where(tp, iav_e, 0.0), ends, row_start)
    return _Steps(g_row + r0, (m - g_rlev) - 1, first, cnt, tpc, iap, iatp)


def _protein_state(
    c: np.ndarray, t: np.ndarray, p: np.ndarray, q: np.ndarray, n_t: np.ndarray, i_t: np.ndarray
) -> dict[str, np.ndarray]:
    """The :data:`BASE_QUANTITIES` of proteins with ``|P| = c``, ``|T ∩ P| = t``,
    ``sum_P ia = p``, ``sum_{T∩P} ia = q``, ``|T| = n_t`` and ``i(T) = i_t``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cov = (c > 0).astype(np.float64)
        covw = (p > 0).astype(np.float64)
        pr = np.where(c > 0, t / c, 0.0)
        wpr = np.where(p > 0, q / p, 0.0)
        wrc = np.where(i_t > 0, q / i_t, 0.0)
    return {
        "covered": cov, "pr": pr, "rc": t / n_t, "tp": t, "npred": c, "ntrue_cov": cov * n_t,
        "covered_w": covw, "wpr": wpr, "wrc": wrc, "ru": i_t - q, "mi": p - q, "ia_tp": q, "ia_pred": p,
    }


def _states(steps: _Steps, n_t: np.ndarray, i_t: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per-protein quantities at each group's level and just above it (before the group)."""
    nT, iT = n_t[steps.rows], i_t[steps.rows]

    def shift(x: np.ndarray) -> np.ndarray:
        y = np.r_[0.0, x[:-1]]
        y[steps.first] = 0.0
        return y

    now = _protein_state(steps.cnt, steps.tp, steps.ia_pred, steps.ia_tp, nT, iT)
    before = _protein_state(shift(steps.cnt), shift(steps.tp), shift(steps.ia_pred), shift(steps.ia_tp), nT, iT)
    return now, before


def _add_steps(sums: dict[str, np.ndarray], steps: _Steps, now: dict[str, np.ndarray],
               before: dict[str, np.ndarray], pw: list[np.ndarray | None]) -> None:
    """Scatter the changes of every sum into threshold bins (weights of shape (n,) or none).

    The protein weight multiplies each state before differencing, so a
    weight of exactly 1 leaves every bit unchanged.
    """
    m = next(iter(sums.values())).size
    gathered: dict[int, np.ndarray] = {}
    for name, (base, p) in STAT_DEFINITIONS.items():
        w = pw[p]
        if w is None:
            delta = now[base] - before[base]
        else:
            if p not in gathered:
                gathered[p] = w[steps.rows]
            wg = gathered[p]
            delta = wg * now[base] - wg * before[base]
        sums[name] += np.bincount(steps.bins, weights=delta, minlength=m)


def _add_steps_batched(sums: dict[str, np.ndarray], steps: _Steps, now: dict[str, np.ndarray],
                       before: dict[str, np.ndarray], pw: list[np.ndarray], r0: int, r1: int) -> None:
    """Weights of shape (B, n): the per-protein deltas of each quantity become a
    sparse (rows x thresholds) matrix D once, and ``W @ D`` gives all B rows."""
    import scipy.sparse as sp

    m = next(iter(sums.values())).shape[-1]
    local = steps.rows - r0
    indptr = np.r_[0, np.cumsum(np.bincount(local, minlength=r1 - r0))]
    deltas: dict[str, Any] = {}
    for name, (base, p) in STAT_DEFINITIONS.items():
        if base not in deltas:
            d = sp.csr_array((now[base] - before[base], steps.bins, indptr), shape=(r1 - r0, m))
            deltas[base] = d.T.tocsr()  # (m, rows)
        sums[name] += (deltas[base] @ pw[p][:, r0:r1].T).T


def _check_weights(weights: Any, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim not in (1, 2) or w.shape[-1] != n:
        raise InvalidParameterError(
            f"The 'weights' parameter of sweep must have shape (n,) or (B, n) with n = {n} proteins; got shape {w.shape}."
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise InvalidParameterError("The 'weights' parameter of sweep must hold finite values >= 0.")
    return w


def _protein_weights(w: np.ndarray | None, i_t: np.ndarray) -> list[np.ndarray | None]:
    """Per-protein weights ``w_i i(T_i)**p`` for p = 0, 1, 2 (None: p = 0 unweighted)."""
    if w is None:
        return [None, i_t, i_t * i_t]
    w1 = w * i_t
    return [w, w1, w1 * i_t]


def _finish(thresholds: np.ndarray, sums: dict[str, np.ndarray], pw: list[np.ndarray | None],
            n_t: np.ndarray) -> SweepStats:
    """Reverse cumulative sums over levels, the values with nothing predicted, and the totals."""
    for k in sums:
        sums[k] = np.cumsum(sums[k][..., ::-1], axis=-1)[..., ::-1]
    batched = pw[1].ndim == 2
    for k in sums:
        base, p = STAT_DEFINITIONS[k]
        if base == "ru":  # with nothing predicted ru_i = i(T_i)
            tot = pw[p + 1].sum(axis=-1)
            sums[k] += tot[:, None] if batched else tot
    if pw[0] is None:
        n, n_true = n_t.size, int(n_t.sum())
    elif batched:
        n, n_true = pw[0].sum(axis=-1), (pw[0] * n_t).sum(axis=-1)
    else:
        n, n_true = float(pw[0].sum()), float((pw[0] * n_t).sum())
    it_sum, it2_sum = pw[1].sum(axis=-1), pw[2].sum(axis=-1)
    if not batched:
        it_sum, it2_sum = float(it_sum), float(it2_sum)
    return SweepStats(thresholds, sums, n, n_true, it_sum, it2_sum)


def sweep(
    pred_indptr: np.ndarray,
    pred_cols: np.ndarray,
    pred_scores: np.ndarray,
    truth_indptr: np.ndarray,
    truth_cols: np.ndarray,
    n_cols: int,
    thresholds: np.ndarray,
    ia: np.ndarray | None = None,
    *,
    weights: np.ndarray | None = None,
    chunk_entries: int = 1 << 19,
) -> SweepStats:
    """Per-threshold (weighted) sums of protein-centric quantities.

    Parameters
    ----------
    pred_indptr : ndarray of int, shape (n + 1,)
    pred_cols : ndarray of int, shape (nnz_pred,)
        Column (term) of each propagated prediction, in ``[0, n_cols)``.
    pred_scores : ndarray of float64, shape (nnz_pred,)
        Scores; ``+inf`` marks a term predicted at every threshold.
    truth_indptr, truth_cols : ndarrays
        Propagated truth sets in CSR form, same ``n`` rows, non-empty rows.
    n_cols : int
        Number of columns (terms of the namespace).
    thresholds : ndarray of float64, shape (m,)
        Ascending thresholds; a term is predicted at ``tau`` when
        ``score >= tau``.
    ia : ndarray of float64, shape (n_cols,) or None
        Information accretion (bits). When None the ia-based sums are zero.
    weights : ndarray of float64, shape (n,) or (B, n), optional
        Protein weights ``w_i >= 0`` applied where per-protein contributions
        are summed (:data:`STAT_DEFINITIONS`). Shape (B, n) gives B rows of
        statistics in one pass (bootstrap replicates: integer weights equal
        duplicated proteins). None: every weight is 1 (the counts stay
        integers). Weights of exactly 1 give the same bits as None.
    chunk_entries : int
        Approximate number of prediction entries handled at once (memory bound).

    Returns
    -------
    SweepStats
        Sums of shape (m,), or (B, m) for weights of shape (B, n).

    Notes
    -----
    For the weights of shape (n,) each protein's quantities are multiplied
    by its weight before the changes between levels are scattered with
    ``np.bincount``; for shape (B, n) the changes become a sparse
    (n x m) matrix ``D`` per quantity and the sums are ``W @ D``.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    m = thresholds.size
    n = pred_indptr.size - 1
    if truth_indptr.size - 1 != n:
        raise InvalidParameterError("Predictions and truth must have the same rows.")
    w = _check_weights(weights, n)
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    n_t, i_t = truth_totals(truth_indptr, truth_cols, iav, n_cols)
    pw = _protein_weights(w, i_t)
    shape = (m,) if w is None or w.ndim == 1 else (w.shape[0], m)
    sums = {k: np.zeros(shape) for k in STAT_NAMES}
    if m == 0 or n == 0:
        return _finish(thresholds, sums, pw, n_t)
    grid_n = m if np.array_equal(thresholds, np.arange(1, m + 1) / m) else 0
    flags = _TruthFlags(truth_indptr, truth_cols, n_cols)
    bounds = _chunk_bounds(pred_indptr, chunk_entries)
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        steps = _chunk_steps(r0, r1, pred_indptr, pred_cols, pred_scores, flags, iav, thresholds, grid_n)
        if steps is None:
            continue
        now, before = _states(steps, n_t, i_t)
        if len(shape) == 1:
            _add_steps(sums, steps, now, before, pw)
        else:
            _add_steps_batched(sums, steps, now, before, pw, r0, r1)
    return _finish(thresholds, sums, pw, n_t)


# ---------------------------------------------------------------------
# Per-protein statistics: every protein's step functions, kept
# ---------------------------------------------------------------------
@dataclass
class ProteinSteps:
    """Per-protein sufficient statistics: each benchmark protein's step functions.

    What :func:`sweep` computes chunk by chunk and sums at once, kept per
    protein, so that the sums under any protein weights - bootstrap
    resamples, permutations of two methods' contributions - come from these
    arrays alone (:meth:`stats`), without the predictions. A protein's
    groups are ordered by descending threshold index; each holds the
    protein's running totals once every entry scoring at least that
    group's threshold is predicted, so its quantities
    (:data:`BASE_QUANTITIES`) at threshold index ``j`` are those of its
    group with the smallest ``bins >= j`` (nothing predicted if none).

    Attributes
    ----------
    thresholds : ndarray of float64, shape (m,)
    n_t, i_t : ndarray of float64, shape (n,)
        ``|T_i|`` and ``i(T_i)`` (bits) of every benchmark protein.
    rows, bins : ndarray of int64, shape (g,)
        Protein and threshold index (level - 1) of every (protein, level) group.
    cnt, tp, ia_pred, ia_tp : ndarray of float64, shape (g,)
        Running ``|P|``, ``|T ∩ P|``, ``sum_P ia``, ``sum_{T∩P} ia`` at the group.
    row_bounds, group_bounds : ndarray of int64, shape (k + 1,)
        The kernel's chunks (rows ``[row_bounds[c], row_bounds[c+1])`` own
        groups ``[group_bounds[c], group_bounds[c+1])``); sums are added in
        this order, so :meth:`stats` gives the bits of :func:`sweep`.
    proteins : ndarray of str, shape (n,), optional
        Protein ids (what a resample is keyed on).
    """

    thresholds: np.ndarray
    n_t: np.ndarray
    i_t: np.ndarray
    rows: np.ndarray
    bins: np.ndarray
    cnt: np.ndarray
    tp: np.ndarray
    ia_pred: np.ndarray
    ia_tp: np.ndarray
    row_bounds: np.ndarray
    group_bounds: np.ndarray
    proteins: np.ndarray | None = None

    @property
    def n_proteins(self) -> int:
        return int(self.n_t.size)

    def _chunk(self, c: int) -> _Steps:
        g0, g1 = int(self.group_bounds[c]), int(self.group_bounds[c + 1])
        rows = self.rows[g0:g1]
        first = np.r_[True, rows[1:] != rows[:-1]] if rows.size else np.zeros(0, bool)
        return _Steps(rows, self.bins[g0:g1], first, self.cnt[g0:g1], self.tp[g0:g1],
                      self.ia_pred[g0:g1], self.ia_tp[g0:g1])

    def stats(self, weights: np.ndarray | None = None, names: tuple[str, ...] = STAT_NAMES) -> SweepStats:
        """The :class:`SweepStats` of these proteins under ``weights`` (as :func:`sweep`).

        Parameters
        ----------
        weights : ndarray of float64, shape (n,) or (B, n), optional
            Protein weights; None or 1-d: the sums of :func:`sweep`, bit for
            bit. Shape (B, n): B rows, each the sweep of that weight vector
            (a sparse product per chunk, see Notes).
        names : tuple of str
            The sums computed (a subset of :data:`STAT_NAMES`); the others
            are absent from the result.

        Notes
        -----
        For weights of shape (B, n) each sum's per-protein changes between
        threshold levels form a sparse (m x n) matrix ``D`` (the changes of
        ``i(T_i)**p * quantity_i``, built once and cached), and the sums are
        ``W @ D`` followed by a reverse cumulative sum over thresholds. Within
        a threshold the proteins are added in order and chunks are added in
        order, so a row of ones gives the same bits as no weights.
        """
        unknown = sorted(set(names) - set(STAT_NAMES))
        if unknown:
            raise InvalidParameterError(f"The 'names' parameter of ProteinSteps.stats must be among {STAT_NAMES}; got {unknown}.")
        n, m = self.n_proteins, self.thresholds.size
        w = _check_weights(weights, n)
        pw = _protein_weights(w, self.i_t)
        if w is not None and w.ndim == 2:
            sums = self._batched_sums(w, tuple(names))
        else:
            sums = {k: np.zeros(m) for k in names}
            for c in range(self.group_bounds.size - 1):
                steps = self._chunk(c)
                if steps.rows.size:
                    now, before = _states(steps, self.n_t, self.i_t)
                    _add_steps(sums, steps, now, before, pw)
        return _finish(self.thresholds, sums, pw, self.n_t)

    def _contributions(self, c: int, names: tuple[str, ...]) -> Any:
        """Chunk ``c``'s changes of every sum of ``names``, stacked: a (len(names) * m, rows) CSR."""
        import scipy.sparse as sp

        cache = self.__dict__.setdefault("_cache", {})
        key = (c, names)
        if key in cache:
            return cache[key]
        m = self.thresholds.size
        steps = self._chunk(c)
        r0, r1 = int(self.row_bounds[c]), int(self.row_bounds[c + 1])
        now, before = _states(steps, self.n_t, self.i_t)
        powers = [None, self.i_t, self.i_t * self.i_t]
        order = np.argsort(steps.bins, kind="stable")  # by threshold, proteins ascending within
        local = (steps.rows - r0)[order]
        ptr = np.r_[0, np.cumsum(np.bincount(steps.bins, minlength=m))]
        data = []
        for name in names:
            base, p = STAT_DEFINITIONS[name]
            if p == 0:
                delta = now[base] - before[base]
            else:
                wg = powers[p][steps.rows]
                delta = wg * now[base] - wg * before[base]
            data.append(delta[order])
        g = local.size
        indptr = np.concatenate([ptr[:-1] + q * g for q in range(len(names))] + [[len(names) * g]])
        mat = sp.csr_array((np.concatenate(data) if data else np.zeros(0), np.tile(local, len(names)), indptr),
                           shape=(len(names) * m, r1 - r0))
        cache[key] = mat
        return mat

    def _batched_sums(self, w: np.ndarray, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        m, b = self.thresholds.size, w.shape[0]
        acc = np.zeros((len(names) * m, b))
        wt = np.ascontiguousarray(w.T)  # (n, B): rows of the product's right operand
        for c in range(self.group_bounds.size - 1):
            if self.group_bounds[c + 1] > self.group_bounds[c]:
                r0, r1 = int(self.row_bounds[c]), int(self.row_bounds[c + 1])
                acc += self._contributions(c, names) @ wt[r0:r1]
        acc = acc.reshape(len(names), m, b)
        # _finish takes reverse cumulative sums along the last axis: hand it (B, m) rows
        return {name: np.ascontiguousarray(acc[q].T) for q, name in enumerate(names)}

    def rebinned(self, thresholds: np.ndarray) -> "ProteinSteps":
        """The same step functions over a finer threshold set containing :attr:`thresholds`.

        Between two of its own thresholds a protein's predicted set does not
        change, so its steps keep their threshold values: at an added
        threshold the sums equal those of the next old threshold above it
        (nothing is predicted above the old range).

        Raises
        ------
        InvalidParameterError
            If ``thresholds`` does not contain every threshold of these statistics.
        """
        t = np.asarray(thresholds, dtype=np.float64)
        pos = np.searchsorted(t, self.thresholds)
        if pos.size and (pos.max() >= t.size or not np.array_equal(t[pos], self.thresholds)):
            raise InvalidParameterError("The 'thresholds' parameter of ProteinSteps.rebinned must contain every "
                                        "threshold of the statistics.")
        return replace(self, thresholds=t, bins=pos[self.bins])


def protein_steps(
    pred_indptr: np.ndarray,
    pred_cols: np.ndarray,
    pred_scores: np.ndarray,
    truth_indptr: np.ndarray,
    truth_cols: np.ndarray,
    n_cols: int,
    thresholds: np.ndarray,
    ia: np.ndarray | None = None,
    *,
    proteins: np.ndarray | None = None,
    chunk_entries: int = 1 << 19,
    levels: np.ndarray | None = None,
) -> ProteinSteps:
    """Per-protein step functions of a sweep (parameters as :func:`sweep`; ``levels`` as :func:`sweep_partial`).

    ``protein_steps(...).stats()`` equals ``sweep(...)`` bit for bit and
    ``.stats(W)`` equals ``sweep(..., weights=W)`` up to rounding; the
    arrays hold one entry per (protein, distinct threshold level), at most
    one per prediction entry.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    m, n = thresholds.size, pred_indptr.size - 1
    if truth_indptr.size - 1 != n:
        raise InvalidParameterError("Predictions and truth must have the same rows.")
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    n_t, i_t = truth_totals(truth_indptr, truth_cols, iav, n_cols)
    parts: list[_Steps] = []
    bounds = [0, n] if m == 0 or n == 0 else _chunk_bounds(pred_indptr, chunk_entries)
    if m and n:
        grid_n = m if np.array_equal(thresholds, np.arange(1, m + 1) / m) else 0
        flags = _TruthFlags(truth_indptr, truth_cols, n_cols)
        for r0, r1 in zip(bounds[:-1], bounds[1:]):
            steps = _chunk_steps(r0, r1, pred_indptr, pred_cols, pred_scores, flags, iav, thresholds, grid_n, levels)
            parts.append(steps if steps is not None else _Steps(*([np.zeros(0, np.int64)] * 2), np.zeros(0, bool),
                                                                 *([np.zeros(0)] * 4)))
    else:
        parts.append(_Steps(*([np.zeros(0, np.int64)] * 2), np.zeros(0, bool), *([np.zeros(0)] * 4)))
    cat = {f: np.concatenate([getattr(s, f) for s in parts]) for f in ("rows", "bins", "cnt", "tp", "ia_pred", "ia_tp")}
    group_bounds = np.r_[0, np.cumsum([s.rows.size for s in parts])].astype(np.int64)
    return ProteinSteps(thresholds, n_t, i_t, cat["rows"].astype(np.int64), cat["bins"].astype(np.int64),
                        cat["cnt"], cat["tp"], cat["ia_pred"], cat["ia_tp"], np.asarray(bounds, np.int64),
                        group_bounds, None if proteins is None else np.asarray(proteins))


# ---------------------------------------------------------------------
# Partial sums: what a chunk of proteins contributes, combined in a fixed tree
# ---------------------------------------------------------------------
@dataclass
class SweepPartial:
    """Unfinished sweep sums of some proteins: the changes of every sum at the thresholds they touch.

    What :func:`sweep` accumulates before its reverse cumulative sum, kept
    sparse and keyed by threshold *value*: ``values[i, q]`` is the sum, over
    the proteins of the partial, of the change of sum ``STAT_NAMES[q]`` at
    threshold ``keys[i]`` (a row per threshold: merging moves whole rows). Partials computed over different threshold sets
    (a leaf's own distinct scores, a grid) add key by key (``a + b``); a key
    present in one operand only keeps its value, which is what a dense
    ``x + 0.0`` gives, so sparse and dense accumulation give the same bits.
    The sum of many partials is order-dependent in floating point: combine
    them with :func:`tree_sum` (or :class:`TreeSum`) so that every backend
    adds them in the same fixed tree.

    Attributes
    ----------
    keys : ndarray of float64, shape (k,)
        Sorted, distinct thresholds.
    values : ndarray of float64, shape (k, len(STAT_NAMES))
    """

    keys: np.ndarray
    values: np.ndarray

    @classmethod
    def empty(cls) -> "SweepPartial":
        return cls(np.zeros(0), np.zeros((0, len(STAT_NAMES))))

    def __add__(self, other: "SweepPartial") -> "SweepPartial":
        if not self.keys.size:
            return other
        if not other.keys.size:
            return self
        a, b = self.keys, other.keys
        if a.size == b.size and np.array_equal(a, b):
            return SweepPartial(a, self.values + other.values)
        # merge two sorted key sets without sorting: where each key of b goes among a's
        pos = np.searchsorted(a, b)
        common = pos < a.size
        common[common] = a[pos[common]] == b[common]
        new_pos = pos[~common]
        out_a = np.arange(a.size) + np.cumsum(np.bincount(new_pos, minlength=a.size + 1))[: a.size]
        out_new = new_pos + np.arange(new_pos.size)
        keys = np.empty(a.size + new_pos.size)
        keys[out_a], keys[out_new] = a, b[~common]
        out = np.empty((keys.size, self.values.shape[1]))
        out[out_a] = self.values
        out[out_new] = other.values[~common]
        at = out_a[pos[common]]
        out[at] = out[at] + other.values[common]
        return SweepPartial(keys, out)


class TreeSum:
    """Adds partials pushed one at a time in a fixed pairwise tree (a binary counter).

    Pushing ``p_0, p_1, ...`` and calling :meth:`result` gives the same bits
    as :func:`tree_sum` of the list, whether the partials were computed in
    this process, in a pool or on a cluster, streamed or held in memory: two
    subtrees of equal size are merged as soon as both exist (left + right),
    and what remains at the end is folded from the right. At most log2(n)
    partials are held.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[int, SweepPartial]] = []
        self.count = 0

    def push(self, part: SweepPartial) -> None:
        size = 1
        while self._stack and self._stack[-1][0] == size:
            _, left = self._stack.pop()
            part = left + part
            size *= 2
        self._stack.append((size, part))
        self.count += 1

    def result(self) -> SweepPartial:
        if not self._stack:
            return SweepPartial.empty()
        total = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            total = left + total
        return total


def tree_sum(parts: Iterable[SweepPartial]) -> SweepPartial:
    """The sum of ``parts`` (in order) in the fixed tree of :class:`TreeSum`."""
    acc = TreeSum()
    for p in parts:
        acc.push(p)
    return acc.result()


def _step_deltas(steps: _Steps, now: dict[str, np.ndarray], before: dict[str, np.ndarray],
                 i_t: np.ndarray) -> np.ndarray:
    """The change of every sum of :data:`STAT_NAMES` at each group (unweighted), shape (n_stats, g).

    The same arithmetic as :func:`_add_steps` without weights.
    """
    pw = [None, i_t, i_t * i_t]
    out = np.empty((len(STAT_NAMES), steps.rows.size))
    gathered: dict[int, np.ndarray] = {}
    for q, (base, p) in enumerate(STAT_DEFINITIONS.values()):
        if p == 0:
            np.subtract(now[base], before[base], out=out[q])
        else:
            if p not in gathered:
                gathered[p] = pw[p][steps.rows]
            wg = gathered[p]
            np.subtract(wg * now[base], wg * before[base], out=out[q])
    return out


def _chunk_partial(steps: _Steps, n_t: np.ndarray, i_t: np.ndarray, thresholds: np.ndarray) -> SweepPartial:
    """One kernel chunk's changes, summed per threshold in array order (as ``np.bincount`` does)."""
    now, before = _states(steps, n_t, i_t)
    deltas = _step_deltas(steps, now, before, i_t)
    bins, inverse = np.unique(steps.bins, return_inverse=True)
    values = np.empty((bins.size, deltas.shape[0]))
    for q in range(deltas.shape[0]):
        values[:, q] = np.bincount(inverse, weights=deltas[q], minlength=bins.size)
    return SweepPartial(thresholds[bins], values)


def truth_totals(truth_indptr: np.ndarray, truth_cols: np.ndarray, ia: np.ndarray | None,
                 n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """``|T_i|`` and ``i(T_i)`` (bits) of every protein of CSR truth sets (as :func:`sweep` computes them)."""
    n = truth_indptr.size - 1
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    t_rows = np.repeat(np.arange(n), np.diff(truth_indptr))
    return np.diff(truth_indptr).astype(np.float64), np.bincount(t_rows, weights=iav[truth_cols], minlength=n)


def sweep_partial(
    pred_indptr: np.ndarray,
    pred_cols: np.ndarray,
    pred_scores: np.ndarray,
    truth_indptr: np.ndarray,
    truth_cols: np.ndarray,
    n_cols: int,
    thresholds: np.ndarray,
    ia: np.ndarray | None = None,
    *,
    chunk_entries: int = 1 << 19,
    levels: np.ndarray | None = None,
) -> SweepPartial:
    """The unfinished sums of some proteins (parameters as :func:`sweep`, no weights).

    ``finish_partial(sweep_partial(...), ...)`` equals ``sweep(...)`` bit for
    bit; partials of disjoint groups of proteins add (:func:`tree_sum`).
    ``levels`` (int64, one per entry: the number of thresholds <= its
    score) may be given when known, e.g. from ``np.unique(scores,
    return_inverse=True)`` when the thresholds are the distinct scores.
    The truth rows are needed only for the rows given (their predictions'
    true positives, ``|T|`` and ``i(T)``).
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    m, n = thresholds.size, pred_indptr.size - 1
    if truth_indptr.size - 1 != n:
        raise InvalidParameterError("Predictions and truth must have the same rows.")
    total = SweepPartial.empty()
    if m == 0 or n == 0:
        return total
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    n_t, i_t = truth_totals(truth_indptr, truth_cols, iav, n_cols)
    grid_n = m if np.array_equal(thresholds, np.arange(1, m + 1) / m) else 0
    flags = _TruthFlags(truth_indptr, truth_cols, n_cols)
    bounds = _chunk_bounds(pred_indptr, chunk_entries)
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        steps = _chunk_steps(r0, r1, pred_indptr, pred_cols, pred_scores, flags, iav, thresholds, grid_n, levels)
        if steps is not None:
            total = total + _chunk_partial(steps, n_t, i_t, thresholds)
    return total


def finish_partial(partial: SweepPartial, thresholds: np.ndarray | None, n_t: np.ndarray,
                   i_t: np.ndarray) -> SweepStats:
    """The :class:`SweepStats` of a (combined) partial, with the totals of every benchmark protein.

    Parameters
    ----------
    partial : SweepPartial
        The changes of every sum (e.g. :func:`tree_sum` of the partials of
        chunks of proteins).
    thresholds : ndarray of float64, shape (m,), or None
        The thresholds of the statistics (containing every key of
        ``partial``); None: the keys themselves - the thresholds at which
        some protein's predicted set changes, i.e. the distinct scores
        (exact thresholds).
    n_t, i_t : ndarray of float64, shape (n,)
        ``|T_i|`` and ``i(T_i)`` of every benchmark protein, predicted or
        not (:func:`truth_totals`), in one fixed order.

    Raises
    ------
    InvalidParameterError
        If a key of ``partial`` is not among ``thresholds``.
    """
    if thresholds is None:
        partial = fold_infinite(partial)
        taus = partial.keys
        pos = np.arange(taus.size)
    else:
        taus = np.asarray(thresholds, dtype=np.float64)
        pos = np.searchsorted(taus, partial.keys)
        if pos.size and (pos.max() >= taus.size or not np.array_equal(taus[pos], partial.keys)):
            raise InvalidParameterError("The partial sums hold thresholds that are not among 'thresholds'.")
    sums = {}
    for q, name in enumerate(STAT_NAMES):
        dense = np.zeros(taus.size)
        dense[pos] = partial.values[:, q]
        sums[name] = dense
    return _finish(taus, sums, [None, i_t, i_t * i_t], n_t)


def fold_infinite(partial: SweepPartial) -> SweepPartial:
    """The partial with its ``+inf`` key (scores predicted at every threshold) added to its highest finite key.

    Exact thresholds are the distinct finite scores; a term scored ``+inf``
    (a root counted as predicted for every protein) is predicted at all of
    them, so its changes belong to the highest one. Without a finite key
    the ``+inf`` row is dropped (there is no threshold).
    """
    keys = partial.keys
    if not keys.size or np.isfinite(keys[-1]):
        return partial
    values = partial.values[:-1].copy()
    if keys.size > 1:
        values[-1] = values[-1] + partial.values[-1]
    return SweepPartial(keys[:-1], values)


def assemble_steps(pieces: list[tuple[np.ndarray, np.ndarray, ProteinSteps]], thresholds: np.ndarray,
                   n_t: np.ndarray, i_t: np.ndarray, proteins: np.ndarray | None = None, *,
                   chunk_entries: int = 1 << 19) -> ProteinSteps:
    """One block's :class:`ProteinSteps` from those of its leaves, in benchmark order.

    Parameters
    ----------
    pieces : list of (bench, sizes, steps)
        Per leaf: its proteins' benchmark indices, their propagated entries
        and its step functions over its own thresholds (a subset of
        ``thresholds``; ``+inf`` stands for the highest threshold).
    thresholds : ndarray of float64, shape (m,)
        The block's thresholds.
    n_t, i_t : ndarray of float64, shape (n,)
        ``|T_i|`` and ``i(T_i)`` of every benchmark protein.
    proteins : ndarray of str, shape (n,), optional

    Returns
    -------
    ProteinSteps
        Groups ordered by benchmark protein (then descending threshold) and
        cut into chunks of about ``chunk_entries`` propagated entries, as
        :func:`protein_steps` of the whole block cuts them.
    """
    taus = np.asarray(thresholds, dtype=np.float64)
    n = int(n_t.size)
    sizes = np.zeros(n, np.int64)
    rows, bins, cols = [], [], {f: [] for f in ("cnt", "tp", "ia_pred", "ia_tp")}
    for bench, sz, st in pieces:
        sizes[bench] = sz
        pos = np.minimum(np.searchsorted(taus, st.thresholds), max(taus.size - 1, 0))  # +inf: the highest
        rows.append(bench[st.rows])
        bins.append(pos[st.bins])
        for f, out in cols.items():
            out.append(getattr(st, f))
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    order = np.argsort(r, kind="stable")
    r = r[order]
    cat = {f: (np.concatenate(v)[order] if v else np.zeros(0)) for f, v in cols.items()}
    b = np.concatenate(bins)[order] if bins else np.zeros(0, np.int64)
    bounds = np.asarray(_chunk_bounds(np.r_[0, np.cumsum(sizes)], chunk_entries) if n else [0, 0], np.int64)
    group_bounds = np.searchsorted(r, bounds, side="left").astype(np.int64)
    return ProteinSteps(taus, n_t, i_t, r.astype(np.int64), b.astype(np.int64), cat["cnt"], cat["tp"],
                        cat["ia_pred"], cat["ia_tp"], bounds, group_bounds,
                        None if proteins is None else np.asarray(proteins))
