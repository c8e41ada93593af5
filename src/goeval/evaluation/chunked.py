"""Evaluation in leaves: chunks of proteins whose partial sums add in a fixed tree.

A *leaf* is a run of consecutive benchmark proteins of one (method,
namespace), in the order of the method's prediction file (first
appearance), cut greedily: a leaf closes as soon as its proteins' raw
(unpropagated) predictions in the namespace reach :data:`LEAF_ENTRIES`.
Each leaf is propagated, filtered and swept on its own
(:func:`leaf_partial`: a picklable task), and the leaves' partial sums
(:class:`~goeval.sweep.SweepPartial`) are added in the fixed pairwise tree
of :class:`~goeval.sweep.TreeSum`, then finished with the totals of every
benchmark protein of the namespace (truth order).

The leaves, their order and the tree depend only on the inputs, never on
where or when a leaf is computed: in this process, in a
``concurrent.futures`` pool, on a Dask cluster, or while a grouped
prediction file is streamed (:mod:`goeval.evaluation.streaming`). Floating-point
addition is deterministic for given operands in a given order, so every
backend gives the same bits.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import scipy.sparse as sp

from goeval.sparse import select_columns
from goeval.annotations import in_pairs, propagate_rows
from goeval.sweep import SweepPartial, SweepStats, TreeSum, finish_partial, sweep_partial

__all__ = [
    "LEAF_ENTRIES",
    "NamespaceGraph",
    "BlockSpec",
    "Leaf",
    "LeafResult",
    "leaf_partial",
    "leaf_scores",
    "leaf_bounds",
    "LeafCutter",
    "make_leaves",
    "add_roots",
    "map_leaves",
    "BlockAccumulator",
    "LeafDispatch",
    "executor_workers",
]

#: Raw prediction entries (in one namespace) after which a leaf closes.
LEAF_ENTRIES = 1 << 18


@dataclass(frozen=True)
class NamespaceGraph:
    """The parents of one namespace in local indices: all :func:`propagate_rows` needs (small to ship).

    Attributes
    ----------
    generation : ndarray of int32, shape (width,)
    parents : scipy.sparse.csr_array of bool, shape (width, width)
    """

    generation: np.ndarray
    parents: Any

    @classmethod
    def of(cls, ontology: Any, lo: int, hi: int) -> "NamespaceGraph":
        pp = ontology.parents
        a, b = int(pp.indptr[lo]), int(pp.indptr[hi])
        ptr = (pp.indptr[lo:hi + 1] - a).astype(np.int64)
        parents = sp.csr_array((pp.data[a:b], pp.indices[a:b] - lo, ptr), shape=(hi - lo, hi - lo))
        return cls(np.asarray(ontology.generation[lo:hi]), parents)


@dataclass(frozen=True)
class BlockSpec:
    """What every leaf of one (method, namespace) shares.

    Attributes
    ----------
    method, label : str
    width : int
        Terms of the namespace (local columns ``0 .. width - 1``).
    graph : NamespaceGraph
    propagation : {'max', 'fill'}
    allowed : ndarray of bool, shape (width,), or None
        Columns kept after propagation (None: all).
    ia : ndarray of float64, shape (width,), or None
    thresholds : ndarray of float64, or None
        The thresholds of the sweep; None: exact thresholds, each leaf
        swept over its own distinct propagated scores (its partial is keyed
        by threshold value, so leaves add up to the sweep over the block's
        distinct scores, bit for bit).
    roots : ndarray of int, or None
        Local roots predicted for every protein with score ``+inf``
        (``root_as_prediction``).
    known : tuple (keys, lo, n_terms) or None
        Sorted keys ``truth row * n_terms + term`` of known pairs removed
        from the predictions (partial knowledge).
    chunk_entries : int
        Kernel chunk size within a leaf.
    """

    method: str
    label: str
    width: int
    graph: NamespaceGraph
    propagation: str
    allowed: np.ndarray | None
    ia: np.ndarray | None
    thresholds: np.ndarray | None
    roots: np.ndarray | None = None
    known: tuple[np.ndarray, int, int] | None = None
    chunk_entries: int = 1 << 19


@dataclass
class Leaf:
    """Raw predictions and truth of a run of benchmark proteins, local columns.

    ``truth_rows`` (the proteins' rows in the prepared truth) is needed
    only to remove known pairs.
    """

    pred_indptr: np.ndarray
    pred_cols: np.ndarray
    pred_scores: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    truth_rows: np.ndarray | None = None


@dataclass
class LeafResult:
    """A leaf's partial sums and counts (entries after propagation, after filtering, known pairs removed)."""

    partial: SweepPartial
    entries: int
    kept: int
    known_removed: int


def add_roots(ptr: np.ndarray, cols: np.ndarray, scores: np.ndarray, roots: np.ndarray,
              width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR rows with ``roots`` added to every row at score ``+inf`` (an existing entry of a root is replaced).

    The roots come first so that the stable sort keeps the ``+inf`` entry.
    """
    n = ptr.size - 1
    rr = np.r_[np.repeat(np.arange(n), roots.size), np.repeat(np.arange(n), np.diff(ptr))]
    c = np.r_[np.tile(roots, n), cols]
    v = np.r_[np.full(n * roots.size, np.inf), scores]
    key = rr * width + c
    order = np.argsort(key, kind="stable")
    rr, c, v = rr[order], c[order], v[order]
    dup = np.r_[False, key[order][1:] == key[order][:-1]]
    rr, c, v = rr[~dup], c[~dup], v[~dup]
    return np.r_[0, np.cumsum(np.bincount(rr, minlength=n))], c, v


def _propagated(spec: BlockSpec, leaf: Leaf) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The leaf's predictions propagated, filtered, with roots added and known pairs removed;
    the number of entries right after propagation; the known pairs removed."""
    cnt, c, v = propagate_rows(leaf.pred_indptr, leaf.pred_cols, leaf.pred_scores, spec.graph, 0, spec.width,
                               spec.propagation)
    n_propagated = int(c.size)
    ptr = np.r_[0, np.cumsum(cnt)]
    if spec.allowed is not None:
        ptr, c, v = select_columns(ptr, c, v, spec.allowed)
    if spec.roots is not None and spec.roots.size:
        ptr, c, v = add_roots(ptr, c, v, spec.roots, spec.width)
    removed = 0
    if spec.known is not None and leaf.truth_rows is not None:
        keys, lo, n_terms = spec.known
        n = ptr.size - 1
        gone = in_pairs(np.repeat(leaf.truth_rows, np.diff(ptr)), c.astype(np.int64) + lo, keys, n_terms)
        if gone.any():
            removed = int(gone.sum())
            counts = np.bincount(np.repeat(np.arange(n), np.diff(ptr))[~gone], minlength=n)
            ptr, c, v = np.r_[0, np.cumsum(counts)], c[~gone], v[~gone]
    return ptr, c, v, n_propagated, removed


def leaf_partial(spec: BlockSpec, leaf: Leaf) -> LeafResult:
    """Propagate, filter and sweep one leaf (the task a pool or cluster runs)."""
    ptr, c, v, n_propagated, removed = _propagated(spec, leaf)
    levels = None
    if spec.thresholds is None:  # the leaf's own distinct scores; each entry's level from the same sort
        usable = np.isfinite(v) & (v > 0)
        taus, inverse = np.unique(np.where(usable, v, np.inf), return_inverse=True)
        taus = taus[np.isfinite(taus)]
        levels = np.where(usable, inverse.ravel() + 1, 0).astype(np.int64)
    else:
        taus = spec.thresholds
    part = sweep_partial(ptr, c, v, leaf.truth_indptr, leaf.truth_cols, spec.width, taus, spec.ia,
                         chunk_entries=spec.chunk_entries, levels=levels)
    return LeafResult(part, n_propagated, int(c.size), removed)


def leaf_scores(spec: BlockSpec, leaf: Leaf) -> np.ndarray:
    """The distinct positive finite scores of a leaf after propagation and filtering (exact thresholds)."""
    v = _propagated(spec, leaf)[2]
    v = v[np.isfinite(v) & (v > 0)]
    return np.unique(v)


def leaf_bounds(counts: np.ndarray, leaf_entries: int | None = None) -> list[int]:
    """Positions cutting a sequence of proteins into leaves (greedy, as :class:`LeafCutter`).

    A leaf ends at the first protein where its raw entries reach
    ``leaf_entries``; the last leaf takes what remains.

    Examples
    --------
    >>> leaf_bounds(np.array([3, 1, 2, 5, 1]), 4)
    [0, 2, 4, 5]
    """
    leaf_entries = LEAF_ENTRIES if leaf_entries is None else leaf_entries
    cum = np.cumsum(counts, dtype=np.int64)
    bounds, base, n = [0], 0, int(cum.size)
    while bounds[-1] < n:
        nxt = int(np.searchsorted(cum, base + leaf_entries, side="left")) + 1
        nxt = min(n, max(nxt, bounds[-1] + 1))
        bounds.append(nxt)
        base = int(cum[nxt - 1])
    return bounds


class LeafCutter:
    """The greedy leaf rule of :func:`leaf_bounds`, fed one group of proteins at a time (streaming)."""

    def __init__(self, leaf_entries: int | None = None) -> None:
        self.leaf_entries = LEAF_ENTRIES if leaf_entries is None else leaf_entries
        self.filled = 0

    def cuts(self, counts: np.ndarray) -> list[int]:
        """Positions in ``counts`` after which the current leaf closes (the rule of :func:`leaf_bounds`)."""
        out: list[int] = []
        cum = np.cumsum(counts, dtype=np.int64)
        base = -self.filled  # cum - base: entries of the open leaf up to each protein
        while True:
            k = int(np.searchsorted(cum, base + self.leaf_entries, side="left"))
            if k >= cum.size:
                self.filled = int(cum[-1] - base) if cum.size else self.filled
                return out
            out.append(k + 1)
            base = int(cum[k])
            if k + 1 == cum.size:
                self.filled = 0
                return out


def make_leaves(pred: tuple[np.ndarray, np.ndarray, np.ndarray], order: np.ndarray,
                truth: tuple[np.ndarray, np.ndarray], truth_rows: np.ndarray | None,
                leaf_entries: int | None = None) -> Iterator[Leaf]:
    """Leaves of a block held in memory: its rows taken in ``order`` (file order), cut by :func:`leaf_bounds`.

    Parameters
    ----------
    pred : (indptr, local cols, scores)
        Raw predictions of the block's rows.
    order : ndarray of int
        The rows with predictions, in the order of the method's file.
    truth : (indptr, local cols)
        Truth of the same rows.
    truth_rows : ndarray of int or None
        Each row's row in the prepared truth (for known pairs).
    """
    from goeval.sparse import gather_rows

    ptr, cols, scores = pred
    t_ptr, t_cols = truth
    bounds = leaf_bounds(np.diff(ptr)[order], leaf_entries)
    for a, b in zip(bounds[:-1], bounds[1:]):
        rows = order[a:b]
        lens, c = gather_rows(ptr, cols, rows)
        _, v = gather_rows(ptr, scores, rows)
        tl, tc = gather_rows(t_ptr, t_cols, rows)
        yield Leaf(np.r_[0, np.cumsum(lens)], c, v, np.r_[0, np.cumsum(tl)], tc,
                   None if truth_rows is None else truth_rows[rows])


def map_leaves(fn: Callable[..., Any], tasks: Sequence[tuple[BlockSpec, Leaf]] | Iterable[tuple[BlockSpec, Leaf]],
               executor: Any = None) -> Iterator[Any]:
    """``fn(spec, leaf)`` of every task, in order: here, or on a ``concurrent.futures.Executor``.

    With an executor every task is submitted first (they run in parallel)
    and the results are yielded in submission order.
    """
    if executor is None:
        for spec, leaf in tasks:
            yield fn(spec, leaf)
        return
    futures = [executor.submit(fn, spec, leaf) for spec, leaf in tasks]
    try:
        for f in futures:
            yield f.result()
    finally:
        for f in futures:
            f.cancel()


class BlockAccumulator:
    """The leaves' results of one block, added as they come (in leaf order) in the fixed tree."""

    def __init__(self) -> None:
        self.tree = TreeSum()
        self.entries = 0
        self.kept = 0
        self.removed = 0
        self.submitted = 0

    @property
    def complete(self) -> bool:
        """Every submitted leaf's result has been added."""
        return self.tree.count == self.submitted

    def add(self, result: LeafResult) -> None:
        self.tree.push(result.partial)
        self.entries += result.entries
        self.kept += result.kept
        self.removed += result.known_removed

    def finish(self, spec: BlockSpec, n_t: np.ndarray, i_t: np.ndarray) -> tuple[SweepStats | None, dict[str, int]]:
        """The block's statistics (None when no entry survived) and its counts."""
        counts = {"entries_after_propagation": self.entries, "known_pairs_removed": self.removed}
        if self.kept == 0:
            return None, counts
        return finish_partial(self.tree.result(), spec.thresholds, n_t, i_t), counts


#: Leaves in flight per worker before the oldest result is awaited.
WINDOW_PER_WORKER = 4


def executor_workers(executor: Any) -> int:
    """About how many tasks ``executor`` runs at once (a Dask client's threads, a pool's workers; else 2)."""
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a client that cannot say: assume two
            return 2
    return max(1, int(getattr(executor, "_max_workers", 2) or 2))


class LeafDispatch:
    """Leaves to their block's accumulator: swept here, or on an executor with a bounded window.

    Results are added in submission order, so each block's tree receives
    its leaves in leaf order whichever task finishes first; at most
    ``window`` leaves (their rows and results) are held at once.
    """

    def __init__(self, executor: Any = None, window: int | None = None) -> None:
        self.executor = executor
        self.window = window if window is not None else (
            executor_workers(executor) * WINDOW_PER_WORKER if executor is not None else 0)
        self.inflight: deque[tuple[BlockAccumulator, Any]] = deque()

    def submit(self, acc: BlockAccumulator, spec: BlockSpec, leaf: Leaf) -> None:
        acc.submitted += 1
        if self.executor is None:
            acc.add(leaf_partial(spec, leaf))
            return
        self.inflight.append((acc, self.executor.submit(leaf_partial, spec, leaf)))
        while len(self.inflight) > self.window:
            self._collect()

    def _collect(self) -> None:
        acc, fut = self.inflight.popleft()
        acc.add(fut.result())

    def drain(self) -> None:
        while self.inflight:
            self._collect()

    def cancel(self) -> None:
        for _, fut in self.inflight:
            fut.cancel()
        self.inflight.clear()
