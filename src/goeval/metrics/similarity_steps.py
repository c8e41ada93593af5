"""Per-protein similarity statistics: every protein's similarity step functions, kept (:class:`SimilaritySteps`).

The similarity sums of a block (:class:`~goeval.metrics.similarity.SimilarityStats`)
add, threshold by threshold, each protein's value where it is defined. The
kernel (:mod:`goeval.metrics.similarity_kernel`) gives every protein's value
at each of its *points* (ranges of thresholds over which its predicted set
does not change); :func:`~goeval.metrics.similarity.similarity_changes` turns
them into changes at threshold indices, which the sweep scatters into bins and
forgets. Kept per protein - (row, threshold index, change of each column's
value and of its "defined" count) - they give the sums under any protein
weights: one sparse (columns x thresholds, proteins) product ``D @ W.T`` for
all B rows of a weight matrix, then a reverse cumulative sum over
thresholds, as :meth:`goeval.sweep.ProteinSteps.stats` does for the
protein-centric sums. Bootstrap resamples and paired permutations of the
similarity optima come from these arrays alone.

A protein has at most one change per threshold index and column; its
number of changes is its number of points (at most its distinct score
levels plus the levels where a predicted term stops being a leaf).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.metrics.similarity import SimilaritySpec, SimilarityStats, add_changes, similarity_changes
from goeval.sweep.kernel import check_weights
from goeval.sweep.steps import stacked_changes

__all__ = ["SimilaritySteps", "similarity_steps"]


@dataclass(kw_only=True)
class SimilaritySteps:
    """Per-protein similarity step functions of one block (method, namespace).

    Attributes
    ----------
    thresholds : ndarray of float64, shape (m,)
    columns : tuple of str
        The similarity columns (``lin_bma``, ``jaccard``...), in order.
    n_proteins : int
        Benchmark proteins (rows), those without a change included.
    rows, bins : ndarray of int64, shape (g,)
        Protein and threshold index of every change.
    sums : ndarray of float64, shape (g, q)
        Change of each column's value (0 where undefined), summed from the
        highest threshold down: a protein's value at threshold index ``j``
        is the sum of its changes at indices ``>= j``.
    defined : ndarray of int8, shape (g, q)
        Change of whether each column is defined (+1, 0, -1), the same way.
    group_bounds : ndarray of int64, shape (k + 1,)
        Chunks of changes (``[group_bounds[c], group_bounds[c+1])``), added
        one after the other as the sweep adds them (:meth:`partial`), so
        the unweighted sums are the sweep's bits.
    """

    thresholds: np.ndarray
    columns: tuple[str, ...]
    n_proteins: int
    rows: np.ndarray
    bins: np.ndarray
    sums: np.ndarray
    defined: np.ndarray
    group_bounds: np.ndarray

    def _dense(self, weights: np.ndarray | None, columns: tuple[str, ...]) -> np.ndarray:
        """Changes per threshold (m, 2 q) of ``columns`` under 1-d ``weights`` (None: 1), chunk by chunk."""
        ks = [self.columns.index(c) for c in columns]
        dense = np.zeros((self.thresholds.size, 2 * len(ks)))
        for g0, g1 in zip(self.group_bounds[:-1], self.group_bounds[1:]):
            wg = None if weights is None else weights[self.rows[g0:g1]]
            s = [self.sums[g0:g1, k] if wg is None else wg * self.sums[g0:g1, k] for k in ks]
            d = [self.defined[g0:g1, k].astype(np.float64) if wg is None else wg * self.defined[g0:g1, k] for k in ks]
            add_changes(dense, self.bins[g0:g1], s, d)
        return dense

    def partial(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, values)`` of :func:`~goeval.metrics.similarity.similarity_partial` for these proteins, bit
        for bit."""
        dense = self._dense(None, self.columns)
        touched = np.flatnonzero(dense.any(axis=1))
        return self.thresholds[touched], dense[touched]

    def _matrix(self, c: int, columns: tuple[str, ...]) -> Any:
        """Chunk ``c``'s changes of ``columns`` (value, then defined, per column) as one (2 q m, n) CSR (cached)."""
        cache = self.__dict__.setdefault("_cache", {})
        if (c, columns) not in cache:
            g0, g1 = int(self.group_bounds[c]), int(self.group_bounds[c + 1])
            data = [x for col in columns for x in (self.sums[g0:g1, self.columns.index(col)],
                                                  self.defined[g0:g1, self.columns.index(col)])]
            cache[(c, columns)] = stacked_changes(self.bins[g0:g1], self.rows[g0:g1], data, self.thresholds.size,
                                                  self.n_proteins)
        return cache[(c, columns)]

    def _batched(self, w: np.ndarray, columns: tuple[str, ...]) -> np.ndarray:
        """Changes per threshold under every row of ``w`` (B, n): shape (2 q, B, m)."""
        m, b = self.thresholds.size, w.shape[0]
        acc = np.zeros((2 * len(columns) * m, b))
        wt = np.ascontiguousarray(w.T)
        for c in range(self.group_bounds.size - 1):
            if self.group_bounds[c + 1] > self.group_bounds[c]:
                acc += self._matrix(c, columns) @ wt
        return np.ascontiguousarray(acc.reshape(2 * len(columns), m, b).transpose(0, 2, 1))

    def stats(self, weights: np.ndarray | None = None, columns: Sequence[str] | None = None) -> SimilarityStats:
        """The :class:`~goeval.metrics.similarity.SimilarityStats` of these proteins under ``weights``.

        Parameters
        ----------
        weights : ndarray of float64, shape (n,) or (B, n), optional
            Protein weights (bootstrap counts, permutation flags); None: the
            sweep's sums, bit for bit. Shape (B, n): sums of shape (B, m)
            and ``n`` of shape (B,), one row per weight vector; a row of ones
            gives the sweep's bits too.
        columns : sequence of str, optional
            The columns computed (default: all).

        Raises
        ------
        InvalidParameterError
            A column these steps do not hold, or weights of another shape.
        """
        cols = self.columns if columns is None else tuple(columns)
        missing = [c for c in cols if c not in self.columns]
        if missing:
            raise InvalidParameterError(f"The per-protein similarity statistics hold the columns {list(self.columns)}; "
                                        f"got {missing}.")
        w = check_weights(weights, self.n_proteins)
        if w is not None and w.ndim == 2:
            changes, n = self._batched(w, cols), w.sum(axis=1)
        else:
            dense = self._dense(w, cols)
            changes, n = dense.T, (self.n_proteins if w is None else float(w.sum()))
        total = np.cumsum(changes[..., ::-1], axis=-1)[..., ::-1]
        sums = {c: total[2 * q] for q, c in enumerate(cols)}
        defined = {c: total[2 * q + 1] for q, c in enumerate(cols)}
        if w is None:
            defined = {c: np.rint(v) for c, v in defined.items()}
        return SimilarityStats(self.thresholds, sums, defined, n)

    def on(self, thresholds: np.ndarray, pos: np.ndarray) -> "SimilaritySteps":
        """The same steps over other ``thresholds``, threshold index ``j`` becoming ``pos[j]`` (a finer set
        holding these thresholds; :meth:`goeval.sweep.ProteinSteps.rebinned`)."""
        return replace(self, thresholds=np.asarray(thresholds, dtype=np.float64), bins=np.asarray(pos)[self.bins])

    def empty(self) -> "SimilaritySteps":
        """The steps of a method predicting nothing for the same proteins."""
        q = len(self.columns)
        return replace(self, rows=np.zeros(0, np.int64), bins=np.zeros(0, np.int64), sums=np.zeros((0, q)),
                       defined=np.zeros((0, q), np.int8), group_bounds=np.zeros(2, np.int64))

    @classmethod
    def assemble(cls, pieces: Sequence[tuple[np.ndarray, "SimilaritySteps"]], thresholds: np.ndarray,
                 n_proteins: int, columns: Sequence[str]) -> "SimilaritySteps":
        """One block's steps from those of its leaves: ``(bench, steps)`` per leaf, ``bench`` its proteins'
        indices in the block, its thresholds a subset of ``thresholds`` (``+inf``: the highest). Ordered
        by protein (stable), in one chunk."""
        taus = np.asarray(thresholds, dtype=np.float64)
        top = max(taus.size - 1, 0)
        rows = [bench[st.rows] for bench, st in pieces]
        bins = [np.minimum(np.searchsorted(taus, st.thresholds), top)[st.bins] for _, st in pieces]
        q = len(columns)
        r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        order = np.argsort(r, kind="stable")
        cat = lambda xs, empty: (np.concatenate(xs) if xs else empty)[order]  # noqa: E731
        return cls(thresholds=taus, columns=tuple(columns), n_proteins=int(n_proteins), rows=r[order].astype(np.int64),
                   bins=cat(bins, np.zeros(0, np.int64)).astype(np.int64),
                   sums=cat([st.sums for _, st in pieces], np.zeros((0, q))),
                   defined=cat([st.defined for _, st in pieces], np.zeros((0, q), np.int8)),
                   group_bounds=np.array([0, r.size], np.int64))


def similarity_steps(
    truth_indptr: np.ndarray, truth_cols: np.ndarray, pred_indptr: np.ndarray, pred_cols: np.ndarray,
    pred_scores: np.ndarray, thresholds: np.ndarray, spec: SimilaritySpec, *, levels: np.ndarray | None = None,
    chunk_items: int = 1 << 21,
) -> SimilaritySteps:
    """Every protein's similarity step functions (parameters as
    :func:`~goeval.metrics.similarity.similarity_partial`).

    ``similarity_steps(...).partial()`` equals ``similarity_partial(...)``
    bit for bit; ``.stats(W)`` gives the sums under protein weights ``W``.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    rows, bins, sums, defined = [], [], [], []
    for idx, row, changes in similarity_changes(truth_indptr, truth_cols, pred_indptr, pred_cols, pred_scores,
                                                thresholds, spec, levels=levels, chunk_items=chunk_items):
        rows.append(row)
        bins.append(idx.astype(np.int64))
        sums.append(np.stack([changes[f"sum:{c}"] for c in spec.columns], axis=1))
        defined.append(np.stack([changes[f"defined:{c}"] for c in spec.columns], axis=1).astype(np.int8))
    q = len(spec.columns)
    bounds = np.r_[0, np.cumsum([r.size for r in rows])].astype(np.int64)
    return SimilaritySteps(thresholds=thresholds, columns=tuple(spec.columns), n_proteins=int(truth_indptr.size - 1),
                           rows=np.concatenate(rows) if rows else np.zeros(0, np.int64),
                           bins=np.concatenate(bins) if bins else np.zeros(0, np.int64),
                           sums=np.concatenate(sums) if sums else np.zeros((0, q)),
                           defined=np.concatenate(defined) if defined else np.zeros((0, q), np.int8),
                           group_bounds=bounds if rows else np.zeros(1, np.int64))
