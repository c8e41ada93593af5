"""The sweep of one score vector predicted for every protein, from per-term sums of the truth.

When every benchmark protein receives the same propagated predicted set
``S(tau) = {v : s(v) >= tau}`` (the naive baseline), the per-protein
quantities of :data:`~goeval.sweep.STAT_DEFINITIONS` depend on the protein
only through ``t_i = |T_i ∩ S|`` and ``q_i = sum_{T_i ∩ S} ia``, and both
are sums over the terms of ``S`` of the protein's truth indicator. Every
sum the kernel needs is therefore a sum over the terms of ``S(tau)`` of a
per-term aggregate of the truth, computed once:

.. math::

    N_p(v) = \\sum_{i : v \\in T_i} i(T_i)^p, \\quad
    R_p(v) = \\sum_{i : v \\in T_i} i(T_i)^p / |T_i|, \\quad
    W_p(v) = \\sum_{i : v \\in T_i,\\ i(T_i) > 0} i(T_i)^{p - 1}

so that, with ``C = |S|`` and ``A = sum_S ia`` (the same for every protein),
``sum_i i(T_i)^p pr_i = sum_{v in S} N_p(v) / C``,
``sum_i i(T_i)^p rc_i = sum_{v in S} R_p(v)``, ``sum_i i(T_i)^p q_i =
sum_{v in S} ia(v) N_p(v)``, ``sum_i i(T_i)^p wrc_i = sum_{v in S} ia(v)
W_p(v)``, ``sum_i i(T_i)^p wpr_i = sum_{v in S} ia(v) N_p(v) / A``, and the
indicators (covered, covered_w) are those of ``C > 0`` and ``A > 0`` times
``sum_i i(T_i)^p``. The cost is one pass over the truth entries and one over
the vector, never one row per protein and term; the sums equal those of the
materialised rows (:func:`~goeval.sweep.sweep_partial`) up to rounding
(about 1e-13 relative; tested against it).

The rule does not hold when a protein's predicted set differs from the
vector's: its known terms ``K_i`` removed (partial knowledge). Then
(:func:`known_partial`) the predicted set at level L is ``S(L) \\ K_i`` and
the truth ``T_i`` holds no known term, so every running total of the kernel
(:data:`~goeval.sweep.quantities.TOTALS`: ``cnt``, ``tp``, ``ia_pred``,
``ia_tp``, the calibration sums, any registered later) is, per protein and
level, the vector's total from the highest level down to L, minus that of
the protein's known terms in ``S(L)``, plus the change its true terms in
``S(L)`` make (an entry's value as a true term minus as a false one). The
vector's levels are every protein's change points, so the kernel's
(protein, level) groups are all the pairs (less those where every term of
the level is known: no group, as the rows have none), built from per-level
sums of the vector (each the exact sum, as ``hi + lo``) and one value per
known and true term (:func:`~goeval.sweep.kernel.level_steps`), in chunks of
proteins; the per-protein quantities, the partial sums and
``finish_partial`` run on them unchanged. The cost is proteins x levels plus
their known and true terms, never one entry per protein and term. Counts are
exact; a total whose protein has no entry of a non-zero value is 0, exactly
(an exact count of those entries is kept beside it), and the other sums are
the kernel's compensated running sums of these values: equal to the rows'
up to rounding (about 1e-13 relative; tested against them). Per-protein
weighting (``cafa-pk``) is the kernel's (``weighted_rows``).

When per-protein step functions, similarity sums or the events of an event
source (the non-redundant F) are asked for, the rows are made
(:class:`goeval.evaluation.sources.SharedScoresSource`). Without known terms,
each quantity declares its rule (:attr:`goeval.sweep.quantities.Quantity.shared`,
given a :class:`SharedVector`) or that it has none; then the rows are made too
(:func:`shared_supported`).
"""

from __future__ import annotations

import numpy as np

from goeval.sparse import dense_unique
from goeval.sweep import STAT_DEFINITIONS, STAT_NAMES, SweepPartial, running_sums, truth_totals  # noqa: F401 - the doctest reads STAT_NAMES
from goeval.sweep.kernel import VectorLevels, level_steps
from goeval.sweep.partial import chunk_partial
from goeval.sweep.quantities import QUANTITIES, sum_names

__all__ = ["SharedVector", "shared_supported", "shared_thresholds", "shared_partial", "known_partial"]


class SharedVector:
    """Per-level sums of a shared vector and of the truth's per-term aggregates (levels ascending).

    What a quantity's shared rule (:attr:`goeval.sweep.quantities.Quantity.shared`) is given, with a
    power ``p``: it returns, per level of the vector (ascending), the change of ``sum_i i(T_i)^p x_i``
    from the next higher level. ``cols``/``scores`` are the vector's terms and scores (``+inf``: predicted
    at every threshold), ``inverse`` the level of each; ``count``/``ia`` are ``|S|`` and ``sum_S ia`` from
    each level up,
    ``d_count``/``d_ia`` their changes per level, ``weights[p]`` the proteins' ``i(T_i)^p``,
    :meth:`delta` the truth's per-term aggregates summed over the vector's terms per level.
    """

    def __init__(self, cols: np.ndarray, scores: np.ndarray, inverse: np.ndarray, k: int, iav: np.ndarray,
                 truth_indptr: np.ndarray, truth_cols: np.ndarray, n_cols: int) -> None:
        self.cols, self.scores, self.inverse, self.k, self.iav = cols, scores, inverse, k, iav
        self.n_t, self.i_t = truth_totals(truth_indptr, truth_cols, iav, n_cols)
        self.rows = np.repeat(np.arange(self.n_t.size), np.diff(truth_indptr))
        self.truth_cols, self.n_cols = truth_cols, n_cols
        self.weights = [np.ones(self.n_t.size), self.i_t, self.i_t * self.i_t]
        self.ia_v = iav[cols]
        self.d_count = self.level_sum(np.ones(cols.size))
        self.d_ia = self.level_sum(self.ia_v)
        self.count, self.ia = self.from_top(self.d_count), self.from_top(self.d_ia)
        self._memo: dict[tuple[str, int], np.ndarray] = {}

    def level_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-entry values of the vector within each level."""
        return np.bincount(self.inverse, weights=values, minlength=self.k)

    def term_sum(self, per_protein: np.ndarray) -> np.ndarray:
        """Per term: the sum of ``per_protein`` over the proteins whose truth holds it."""
        return np.bincount(self.truth_cols, weights=per_protein[self.rows], minlength=self.n_cols)

    def total(self, p: int) -> float:
        """``sum_i i(T_i)^p`` over the proteins."""
        return float(self.weights[p].sum())

    def delta(self, kind: str, p: int) -> np.ndarray:
        """Per level, the change of ``sum_i i(T_i)^p x_i`` for x = t (``"t"``), q, t/|T| (``"r"``), q/i(T) (``"w"``)."""
        key = (kind, p)
        if key not in self._memo:
            w = self.weights[p]
            if kind == "r":
                agg, ia = self.term_sum(w / self.n_t), False
            elif kind == "w":
                with np.errstate(divide="ignore", invalid="ignore"):
                    agg, ia = self.term_sum(np.where(self.i_t > 0, w / self.i_t, 0.0)), True
            else:
                agg, ia = self.term_sum(w), kind == "q"
            self._memo[key] = self.level_sum(agg[self.cols] * self.ia_v if ia else agg[self.cols])
        return self._memo[key]

    @staticmethod
    def from_top(d: np.ndarray) -> np.ndarray:
        """Accurate sums of ``d`` from each level to the highest (``running_sums``)."""
        if not d.size:
            return d
        rev = d[::-1]
        idx = np.arange(rev.size)
        return running_sums(rev, idx, np.zeros_like(idx))[::-1]

    @staticmethod
    def changes(values: np.ndarray) -> np.ndarray:
        """Per level, the value there minus the value at the next higher level (0 above the highest)."""
        return values - np.r_[values[1:], 0.0]

    @staticmethod
    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """``num / den``, 0 where ``den`` is not positive."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)

    def indicator(self, on: np.ndarray, factor: float) -> np.ndarray:
        """Per level, the change of ``factor`` times an indicator of the levels from the highest down."""
        return self.changes(on.astype(np.float64) * factor)


def shared_supported(sources: tuple[str, ...] = ()) -> bool:
    """Whether every quantity of the sweep (given the event sources ``sources``, :func:`sum_names`) has a
    shared-vector rule (a quantity registered with ``shared=None`` has none: the rows are then made)."""
    return all(QUANTITIES[STAT_DEFINITIONS[s][0]].shared is not None for s in sum_names(sources))


def shared_thresholds(scores: np.ndarray, thresholds: np.ndarray | None) -> np.ndarray:
    """The thresholds of a shared vector: ``thresholds``, or (exact) its distinct positive scores (``+inf`` included)."""
    if thresholds is not None:
        return np.asarray(thresholds, dtype=np.float64)
    return np.unique(scores[scores > 0])


def shared_partial(cols: np.ndarray, scores: np.ndarray, truth_indptr: np.ndarray, truth_cols: np.ndarray,
                   n_cols: int, thresholds: np.ndarray | None, ia: np.ndarray | None = None) -> SweepPartial:
    """The unfinished sweep sums of proteins that all receive one propagated score vector.

    Parameters
    ----------
    cols : ndarray of int, shape (k,)
        Distinct columns of the vector, in ``[0, n_cols)``.
    scores : ndarray of float64, shape (k,)
        Their propagated scores (``+inf``: predicted at every threshold).
    truth_indptr, truth_cols : ndarrays
        The proteins' (non-empty, propagated) truth sets, CSR.
    n_cols : int
    thresholds : ndarray of float64, or None
        The thresholds (a grid); None: exact, the vector's distinct
        positive scores (the keys then include ``+inf`` for scores of
        ``+inf``, as a leaf's partial does).
    ia : ndarray of float64, shape (n_cols,), optional

    Returns
    -------
    SweepPartial
        Equal, up to rounding, to :func:`~goeval.sweep.sweep_partial` of the
        rows made by giving every protein the vector: ``finish_partial`` of
        it gives the same statistics.

    Examples
    --------
    >>> part = shared_partial(np.array([0, 1]), np.array([1.0, 0.5]), np.array([0, 1, 3]),
    ...                       np.array([0, 0, 2]), 3, None)
    >>> part.keys.tolist(), part.values[:, list(STAT_NAMES).index("tp")].tolist()
    ([0.5, 1.0], [0.0, 2.0])
    """
    scores = np.asarray(scores, dtype=np.float64)
    taus = shared_thresholds(scores, thresholds)
    level = np.searchsorted(taus, scores, side="right")
    keep = level > 0
    if not keep.any() or truth_indptr.size < 2:
        return SweepPartial.empty()
    levels, inverse = dense_unique(level[keep] - 1, taus.size)
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    vec = SharedVector(np.asarray(cols)[keep].astype(np.int64), scores[keep], inverse, levels.size, iav,
                       truth_indptr, truth_cols, n_cols)
    names = sum_names()
    values = np.empty((levels.size, len(names)))
    for q, (base, p) in enumerate(STAT_DEFINITIONS[name] for name in names):
        values[:, q] = QUANTITIES[base].shared(vec, p)
    return SweepPartial(taus[levels], values)


def known_partial(cols: np.ndarray, scores: np.ndarray, truth_indptr: np.ndarray, truth_cols: np.ndarray,
                  known_indptr: np.ndarray, known_cols: np.ndarray, n_cols: int, thresholds: np.ndarray | None,
                  ia: np.ndarray | None = None, *, weighted_rows: np.ndarray | None = None,
                  chunk_entries: int = 1 << 19) -> SweepPartial:
    """The unfinished sweep sums of proteins that each receive one propagated score vector without their
    known terms (partial knowledge), from the vector's levels.

    Parameters
    ----------
    cols, scores : ndarray, shape (k,)
        The vector's distinct columns and propagated scores (``+inf``: predicted at every threshold).
    truth_indptr, truth_cols : ndarrays
        The proteins' propagated truth sets, CSR (without their known terms; empty under ``cafa-pk``
        for a protein whose truth is entirely known).
    known_indptr, known_cols : ndarrays
        The proteins' known terms, CSR, the same rows (columns outside the vector are ignored).
    n_cols : int
    thresholds : ndarray of float64, or None
        A grid; None: exact, the vector's distinct positive scores (``+inf`` included).
    ia : ndarray of float64, shape (n_cols,), optional
    weighted_rows : ndarray of float64, shape (n,), optional
        As :func:`~goeval.sweep.sweep`'s (``cafa-pk``).
    chunk_entries : int
        About how many (protein, level) groups are built at once (memory bound).

    Returns
    -------
    SweepPartial
        Equal, up to rounding (counts exactly), to :func:`~goeval.sweep.sweep_partial` of the rows made
        by giving every protein the vector without its known terms, with the same keys.

    Examples
    --------
    >>> part = known_partial(np.array([0, 1]), np.array([1.0, 0.5]), np.array([0, 1, 2]), np.array([1, 2]),
    ...                      np.array([0, 1, 1]), np.array([0]), 3, None)
    >>> part.keys.tolist(), part.values[:, list(STAT_NAMES).index("tp")].tolist()
    ([0.5, 1.0], [1.0, 0.0])
    """
    scores = np.asarray(scores, dtype=np.float64)
    taus = shared_thresholds(scores, thresholds)
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    vec = VectorLevels(np.asarray(cols, np.int64), scores, iav, taus)
    n = truth_indptr.size - 1
    n_t, i_t = truth_totals(truth_indptr, truth_cols, iav, n_cols)
    names, total = sum_names(), SweepPartial.empty()
    per = max(1, chunk_entries // (2 * max(1, vec.levels.size)))
    for r0 in range(0, n, per):
        steps = level_steps(vec, r0, min(n, r0 + per), truth_indptr, truth_cols, known_indptr, known_cols)
        if steps is not None:
            total = total + chunk_partial(steps, n_t, i_t, taus, weighted_rows, names)
    return total
