"""Per-protein statistics: every protein's step functions of a sweep, kept (:class:`ProteinSteps`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.sparse import row_indptr
from goeval.sweep.kernel import (ChunkSteps, TruthFlags, add_steps, check_weights, chunk_bounds, chunk_steps,
                                 finish_sums, protein_weights, step_states, truth_totals)
from goeval.sweep.quantities import TOTALS, Events, sum_names
from goeval.sweep.stats import STAT_DEFINITIONS, SweepStats
from goeval.sweep.thresholds import grid_multiplier

__all__ = ["ProteinSteps", "protein_steps", "assemble_steps", "stacked_changes"]

@dataclass(kw_only=True)
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
    totals : dict of str to ndarray of float64, shape (g,)
        Every running total (:data:`~goeval.sweep.quantities.TOTALS`) at the group: ``cnt`` ``|P|``,
        ``tp`` ``|T ∩ P|``, ``ia_pred`` ``sum_P ia``, ``ia_tp`` ``sum_{T∩P} ia``, and those registered.
    row_bounds, group_bounds : ndarray of int64, shape (k + 1,)
        The kernel's chunks (rows ``[row_bounds[c], row_bounds[c+1])`` own
        groups ``[group_bounds[c], group_bounds[c+1])``); sums are added in
        this order, so :meth:`stats` gives the bits of :func:`sweep`.
    proteins : ndarray of str, shape (n,), optional
        Protein ids (what a resample is keyed on).
    weighted_rows : ndarray of float64, shape (n,), optional
        1.0 for a protein whose truth carries information (see :func:`sweep`).
    similarity : SimilaritySteps, optional
        The same proteins' similarity step functions over the same thresholds
        (:class:`goeval.metrics.similarity_steps.SimilaritySteps`), kept when
        similarity measures were evaluated with per-protein statistics; their
        columns are sums :meth:`stats` can compute.
    truth : dict of str to ndarray of float64, shape (n,), optional
        The per-protein constants of the event sources whose totals are in ``totals``
        (:attr:`~goeval.sweep.quantities.Events.truth`).
    """

    thresholds: np.ndarray
    n_t: np.ndarray
    i_t: np.ndarray
    rows: np.ndarray
    bins: np.ndarray
    totals: dict[str, np.ndarray]
    row_bounds: np.ndarray
    group_bounds: np.ndarray
    proteins: np.ndarray | None = None
    weighted_rows: np.ndarray | None = None
    similarity: Any = None
    truth: dict[str, np.ndarray] | None = None

    @property
    def n_proteins(self) -> int:
        return int(self.n_t.size)

    @property
    def sources(self) -> tuple[str, ...]:
        """The event sources whose totals these statistics hold."""
        return tuple(dict.fromkeys(str(TOTALS[k].events) for k in self.totals if TOTALS[k].events is not None))

    @property
    def names(self) -> tuple[str, ...]:
        """The sums these statistics give (:func:`~goeval.sweep.quantities.sum_names` of their sources)."""
        return sum_names(self.sources)

    def _chunk(self, c: int) -> ChunkSteps:
        g0, g1 = int(self.group_bounds[c]), int(self.group_bounds[c + 1])
        rows = self.rows[g0:g1]
        first = np.r_[True, rows[1:] != rows[:-1]] if rows.size else np.zeros(0, bool)
        return ChunkSteps(rows=rows, bins=self.bins[g0:g1], first=first,
                          totals={k: v[g0:g1] for k, v in self.totals.items()},
                          truth={k: v[rows] for k, v in (self.truth or {}).items()})

    def stats(self, weights: np.ndarray | None = None, names: tuple[str, ...] | None = None) -> SweepStats:
        """The :class:`SweepStats` of these proteins under ``weights`` (as :func:`sweep`).

        Parameters
        ----------
        weights : ndarray of float64, shape (n,) or (B, n), optional
            Protein weights; None or 1-d: the sums of :func:`sweep`, bit for
            bit. Shape (B, n): B rows, each the sweep of that weight vector
            (a sparse product per chunk, see Notes).
        names : tuple of str, optional
            The sums computed (of :attr:`names`, the default, and of the
            similarity columns :attr:`similarity` holds); the others are
            absent from the result. Similarity columns give the result's
            ``similarity`` (:class:`~goeval.metrics.similarity.SimilarityStats`
            under the same weights), None without them.

        Notes
        -----
        For weights of shape (B, n) each sum's per-protein changes between
        threshold levels form a sparse (m x n) matrix ``D`` (the changes of
        ``i(T_i)**p * quantity_i``, built once and cached), and the sums are
        ``W @ D`` followed by a reverse cumulative sum over thresholds. Within
        a threshold the proteins are added in order and chunks are added in
        order, so a row of ones gives the same bits as no weights.
        """
        known = self.names
        held = () if self.similarity is None else tuple(self.similarity.columns)
        names = known if names is None else tuple(names)
        unknown = sorted(set(names) - set(known) - set(held))
        if unknown:
            also = f" or the similarity columns {list(held)}" if held else ""
            raise InvalidParameterError(f"The 'names' parameter of ProteinSteps.stats must be among {list(known)}"
                                        f"{also}; got {unknown}.")
        columns = tuple(x for x in names if x in held)
        names = tuple(x for x in names if x in known)
        n, m = self.n_proteins, self.thresholds.size
        w = check_weights(weights, n)
        pw = protein_weights(w, self.i_t)
        if w is not None and w.ndim == 2:
            sums = self._batched_sums(w, names)
        else:
            sums = {k: np.zeros(m) for k in names}
            for c in range(self.group_bounds.size - 1):
                steps = self._chunk(c)
                if steps.rows.size:
                    now, before = step_states(steps, self.n_t, self.i_t, self.weighted_rows)
                    add_steps(sums, steps, now, before, pw)
        out = finish_sums(self.thresholds, sums, pw, self.n_t, self.i_t, self.truth)
        if columns:
            out.similarity = self.similarity.stats(w, columns)
        return out

    def _contributions(self, c: int, names: tuple[str, ...]) -> Any:
        """Chunk ``c``'s changes of every sum of ``names``, stacked: a (len(names) * m, rows) CSR."""
        cache = self.__dict__.setdefault("_cache", {})
        key = (c, names)
        if key in cache:
            return cache[key]
        m = self.thresholds.size
        steps = self._chunk(c)
        r0, r1 = int(self.row_bounds[c]), int(self.row_bounds[c + 1])
        now, before = step_states(steps, self.n_t, self.i_t, self.weighted_rows)
        powers = [None, self.i_t, self.i_t * self.i_t]
        data = []
        for name in names:
            base, p = STAT_DEFINITIONS[name]
            if p == 0:
                delta = now[base] - before[base]
            else:
                wg = powers[p][steps.rows]
                delta = wg * now[base] - wg * before[base]
            data.append(delta)
        mat = stacked_changes(steps.bins, steps.rows - r0, data, m, r1 - r0)  # proteins ascending within a threshold
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
        # finish_sums takes reverse cumulative sums along the last axis: hand it (B, m) rows
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
        sim = None if self.similarity is None else self.similarity.on(t, pos)
        return replace(self, thresholds=t, bins=pos[self.bins], similarity=sim)


def stacked_changes(bins: np.ndarray, cols: np.ndarray, data: list[np.ndarray], m: int, width: int) -> Any:
    """Changes of several sums, at (threshold index, protein), as one sparse (len(data) * m, width) CSR.

    Sum ``q``'s changes at threshold index ``j`` are row ``q * m + j``,
    in the order given (a stable sort by threshold): a product with a
    column of ones adds them as ``np.bincount(bins, weights=data[q])``
    does, to the same bits.

    Parameters
    ----------
    bins, cols : ndarray of int64, shape (g,)
        Threshold index and protein (column) of every change.
    data : list of ndarray of float64, shape (g,)
        The changes of each sum.
    m, width : int
        Thresholds; proteins.
    """
    # deferred: scipy.sparse (~70 ms); the command line's flags (goeval.options) import goeval.sweep
    import scipy.sparse as sp

    order = np.argsort(bins, kind="stable")
    ptr = row_indptr(bins, m)
    g, k = int(bins.size), len(data)
    indptr = np.concatenate([ptr[:-1] + q * g for q in range(k)] + [[k * g]])
    values = np.concatenate([np.asarray(d, dtype=np.float64)[order] for d in data]) if data else np.zeros(0)
    return sp.csr_array((values, np.tile(cols[order], k), indptr), shape=(k * m, width))


def _no_steps(events: Events | None = None) -> ChunkSteps:
    """The steps of a chunk without entries (the totals of the real entries and of ``events``)."""
    none = np.zeros(0, np.int64)
    given = () if events is None else tuple(events.values)
    return ChunkSteps(rows=none, bins=none, first=np.zeros(0, bool),
                      totals={k: np.zeros(0) for k, t in TOTALS.items() if t.events is None or k in given})


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
    weighted_rows: np.ndarray | None = None,
    events: Events | None = None,
) -> ProteinSteps:
    """Per-protein step functions of a sweep (parameters as :func:`sweep`; ``levels`` and ``events`` as
    :func:`sweep_partial`).

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
    parts: list[ChunkSteps] = []
    bounds = [0, n] if m == 0 or n == 0 else chunk_bounds(pred_indptr, chunk_entries)
    if m and n:
        grid_n = grid_multiplier(thresholds)
        flags = TruthFlags(truth_indptr, truth_cols, n_cols)
        for r0, r1 in zip(bounds[:-1], bounds[1:]):
            steps = chunk_steps(r0, r1, pred_indptr, pred_cols, pred_scores, flags, iav, thresholds, grid_n, levels,
                                events)
            parts.append(steps if steps is not None else _no_steps(events))
    else:
        parts.append(_no_steps(events))
    totals = {k: np.concatenate([s.totals[k] for s in parts]) for k in parts[0].totals}
    group_bounds = np.r_[0, np.cumsum([s.rows.size for s in parts])].astype(np.int64)
    return ProteinSteps(thresholds=thresholds, n_t=n_t, i_t=i_t,
                        rows=np.concatenate([s.rows for s in parts]).astype(np.int64),
                        bins=np.concatenate([s.bins for s in parts]).astype(np.int64), totals=totals,
                        row_bounds=np.asarray(bounds, np.int64), group_bounds=group_bounds,
                        proteins=None if proteins is None else np.asarray(proteins), weighted_rows=weighted_rows,
                        truth=None if events is None else dict(events.truth))


def assemble_steps(pieces: list[tuple[np.ndarray, np.ndarray, ProteinSteps]], thresholds: np.ndarray,
                   n_t: np.ndarray, i_t: np.ndarray, proteins: np.ndarray | None = None, *,
                   chunk_entries: int = 1 << 19, weighted_rows: np.ndarray | None = None,
                   truth: dict[str, np.ndarray] | None = None) -> ProteinSteps:
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
    truth : dict of str to ndarray of shape (n,), optional
        The per-protein constants of the event sources of every benchmark protein.

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
    names = pieces[0][2].totals if pieces else {k: None for k, t in TOTALS.items() if t.events is None}
    rows, bins, cols = [], [], {f: [] for f in names}
    for bench, sz, st in pieces:
        sizes[bench] = sz
        pos = np.minimum(np.searchsorted(taus, st.thresholds), max(taus.size - 1, 0))  # +inf: the highest
        rows.append(bench[st.rows])
        bins.append(pos[st.bins])
        for f, out in cols.items():
            out.append(st.totals[f])
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    order = np.argsort(r, kind="stable")
    r = r[order]
    cat = {f: (np.concatenate(v)[order] if v else np.zeros(0)) for f, v in cols.items()}
    b = np.concatenate(bins)[order] if bins else np.zeros(0, np.int64)
    bounds = np.asarray(chunk_bounds(np.r_[0, np.cumsum(sizes)], chunk_entries) if n else [0, 0], np.int64)
    group_bounds = np.searchsorted(r, bounds, side="left").astype(np.int64)
    return ProteinSteps(thresholds=taus, n_t=n_t, i_t=i_t, rows=r.astype(np.int64), bins=b.astype(np.int64),
                        totals=cat, row_bounds=bounds,
                        group_bounds=group_bounds, proteins=None if proteins is None else np.asarray(proteins),
                        weighted_rows=weighted_rows, truth=truth)
