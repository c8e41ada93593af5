"""Leaves: runs of benchmark proteins of one (method, namespace), each propagated and swept on its own.

A *leaf* is a run of consecutive benchmark proteins of one block (one
method in one namespace), in the order of the method's predictions (first
appearance in its file), cut greedily: a leaf closes as soon as its
proteins' raw (unpropagated) predictions in the namespace reach
:data:`LEAF_ENTRIES` (:class:`LeafCutter`). :func:`leaf_task` propagates,
filters and sweeps one leaf - a picklable task a thread, a process pool or
a Dask worker can run - and returns everything the block asks for from the
same propagated rows: the sweep's partial sums, and on request the
per-protein step functions (bootstrap), the similarity sums and the
propagated scores themselves (term-centric measures).

A :class:`SharedLeaf` is every benchmark protein of a block receiving one
score vector (the naive baseline): it is propagated once and swept from
per-term sums of the truth (:func:`goeval.sweep.shared.shared_partial`) or,
with known pairs, from the vector's levels and each protein's known and
true terms (:func:`goeval.sweep.shared.known_partial`), without a row per
protein.

The leaves depend only on the inputs (never on where or when a leaf is
computed), and their partials are added in a fixed tree
(:class:`~goeval.sweep.TreeSum`), so every backend gives the same bits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from goeval.annotations import drop_pairs, propagate_rows
from goeval.evaluation.benchmark import NamespaceGraph
from goeval.metrics.plugins import PluginSet, current_plugins
from goeval.sparse import keep_entries, row_indptr, select_columns
from goeval.sweep import ProteinSteps, SweepPartial, protein_steps, sweep_partial
from goeval.sweep.quantities import sum_names

if TYPE_CHECKING:
    from goeval.metrics.similarity import SimilaritySpec

__all__ = ["LEAF_ENTRIES", "Block", "Leaf", "SharedLeaf", "LeafResult", "leaf_task", "add_roots", "LeafCutter"]

#: Raw prediction entries (in one namespace) after which a leaf closes.
LEAF_ENTRIES = 1 << 18


@dataclass(frozen=True, kw_only=True)
class Block:
    """One (method, namespace): what every leaf of it shares (shipped with each leaf task).

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
        Local roots predicted for every protein with score ``+inf``.
    known : tuple (keys, lo, n_terms) or None
        Sorted keys ``truth row * n_terms + term`` of known pairs removed
        from the predictions (partial knowledge).
    per_protein : bool
        Also return each protein's step functions (bootstrap, comparisons).
    similarity : SimilaritySpec or None
        Also return the similarity sums.
    keep_scores : bool
        Also return the propagated scores (term-centric evaluation).
    sweep : bool
        Sweep the leaf (False: only what is asked besides, e.g. the scores).
    chunk_entries : int
        Kernel chunk size within a leaf.
    events : object or None
        The namespace's event source of the optional measures asked for
        (:data:`goeval.sweep.quantities.EVENT_SOURCES`, e.g.
        :class:`~goeval.metrics.nonredundant.NonredundantEvents`): its events of the
        leaf's propagated rows are merged with them in the sweep and the steps.
    plugins : PluginSet
        The measure plugins loaded where the block was made (by default, those of this process): a worker
        loads them when it unpickles the block, before its leaf runs.
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
    per_protein: bool = False
    similarity: SimilaritySpec | None = None
    keep_scores: bool = False
    sweep: bool = True
    chunk_entries: int = 1 << 19
    events: Any = None
    plugins: PluginSet = field(default_factory=current_plugins)

    @property
    def sources(self) -> tuple[str, ...]:
        """The names of the block's event sources."""
        return () if self.events is None else (self.events.name,)


@dataclass(kw_only=True)
class Leaf:
    """Raw predictions and truth of a run of benchmark proteins (local columns).

    ``truth_rows`` (each protein's row in the benchmark's truth) serves the
    known pairs; ``bench`` (each protein's index in its namespace's
    benchmark) places per-protein results.
    """

    pred_indptr: np.ndarray
    pred_cols: np.ndarray
    pred_scores: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    truth_rows: np.ndarray
    bench: np.ndarray
    weighted_rows: np.ndarray | None = None  # cafa-pk: 1.0 where a protein's truth carries information


@dataclass(kw_only=True)
class SharedLeaf:
    """One score vector predicted for every benchmark protein of a block (local columns).

    Attributes
    ----------
    cols, scores : ndarray
        The raw vector of the namespace (before propagation).
    truth_indptr, truth_cols : ndarray
        The truth of the leaf's proteins, CSR.
    truth_rows, bench : ndarray of int64
        Their rows in the benchmark's truth and their benchmark indices.
    from_truth : bool
        The leaf holds every benchmark protein of the namespace and is swept
        from per-term sums of the truth (with known pairs or ``cafa-pk``'s
        weighting: from the vector's levels), never one row per protein.
    weighted_rows : ndarray of float64, optional
        As :class:`Leaf`'s (``cafa-pk``).
    """

    cols: np.ndarray
    scores: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    truth_rows: np.ndarray
    bench: np.ndarray
    from_truth: bool = True
    weighted_rows: np.ndarray | None = None


@dataclass(kw_only=True)
class LeafResult:
    """What one leaf gives its block.

    Attributes
    ----------
    partial : SweepPartial
        Changes of every sum of :data:`~goeval.sweep.STAT_NAMES`, then of the
        similarity sums when asked, keyed by threshold value (``+inf``:
        roots of exact thresholds, folded into the highest threshold when
        the block is finished).
    entries, kept, known_removed : int
        Entries right after propagation, after filtering, known pairs removed.
    steps : ProteinSteps or None
        The leaf's per-protein step functions (rows: the leaf's proteins;
        thresholds: the partial's; with the similarity sums, its
        ``similarity`` step functions too), with ``sizes``, its proteins' entries.
    sizes : ndarray of int64 or None
    scores : tuple (indptr, cols, scores) or None
        The propagated scores (``keep_scores``).
    """

    partial: SweepPartial
    entries: int
    kept: int
    known_removed: int
    steps: ProteinSteps | None = None
    sizes: np.ndarray | None = None
    scores: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


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
    return row_indptr(rr, n), c, v


def _closed(block: Block, indptr: np.ndarray, cols: np.ndarray,
            scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Rows propagated, filtered and with roots added; the number of entries right after propagation."""
    cnt, c, v = propagate_rows(indptr, cols, scores, block.graph, 0, block.width, block.propagation)
    n_propagated = int(c.size)
    ptr = np.r_[0, np.cumsum(cnt)]
    if block.allowed is not None:
        ptr, c, v = select_columns(ptr, c, v, block.allowed)
    if block.roots is not None and block.roots.size:
        ptr, c, v = add_roots(ptr, c, v, block.roots, block.width)
    return ptr, c, v, n_propagated


def _without_known(block: Block, truth_rows: np.ndarray, ptr: np.ndarray, c: np.ndarray,
                   v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The rows without their proteins' known pairs (partial knowledge), and how many were removed."""
    if block.known is None:
        return ptr, c, v, 0
    keys, lo, n_terms = block.known
    return drop_pairs(ptr, c, v, truth_rows, keys, n_terms, lo)


def _leaf_levels(block: Block, v: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The leaf's thresholds and, for exact thresholds, every entry's level (from the same sort).

    Exact thresholds are the leaf's own distinct positive scores; a root's
    ``+inf`` is one more threshold, above every finite one.
    """
    if block.thresholds is not None:
        return block.thresholds, None
    usable = v > 0
    taus, inverse = np.unique(np.where(usable, v, 0.0), return_inverse=True)
    inverse = inverse.ravel()
    if taus.size and taus[0] == 0:  # the placeholder of unusable entries: level 0
        taus = taus[1:]
        return taus, np.where(usable, inverse, 0).astype(np.int64)
    return taus, (inverse + 1).astype(np.int64)


def leaf_task(block: Block, leaf: Leaf | SharedLeaf) -> LeafResult:
    """Propagate, filter and sweep one leaf (the task a thread, pool or cluster runs)."""
    if isinstance(leaf, SharedLeaf):
        return shared_leaf_task(block, leaf)
    ptr, c, v, n_propagated = _closed(block, leaf.pred_indptr, leaf.pred_cols, leaf.pred_scores)
    ptr, c, v, removed = _without_known(block, leaf.truth_rows, ptr, c, v)
    result = LeafResult(partial=SweepPartial.empty(), entries=n_propagated, kept=int(c.size), known_removed=removed)
    return _swept(block, leaf, ptr, c, v, _leaf_levels(block, v), result)


def _swept(block: Block, leaf: Leaf | SharedLeaf, ptr: np.ndarray, c: np.ndarray, v: np.ndarray,
           levels: tuple[np.ndarray, np.ndarray | None], out: LeafResult) -> LeafResult:
    """Sweep propagated rows (thresholds and entry levels given), with what the block asks for besides."""
    taus, lev = levels
    args = (ptr, c, v, leaf.truth_indptr, leaf.truth_cols, block.width, taus, block.ia)
    events = None if block.events is None or not block.sweep else \
        block.events.events(ptr, c, v, leaf.truth_indptr, leaf.truth_cols, taus)
    part = sweep_partial(*args, chunk_entries=block.chunk_entries, levels=lev,
                         weighted_rows=leaf.weighted_rows, events=events) if block.sweep else SweepPartial.empty()
    out.partial = part
    sim = None
    if block.similarity is not None:
        # deferred: the similarity measures' modules (~25 ms of imports) only in runs that ask for them
        from goeval.metrics.similarity import similarity_partial
        from goeval.metrics.similarity_steps import similarity_steps

        sim_args = (leaf.truth_indptr, leaf.truth_cols, ptr, c, v, taus, block.similarity)
        if block.per_protein:  # kept per protein: the partial from the same changes, the same bits
            sim = similarity_steps(*sim_args, levels=lev)
            keys, values = sim.partial()
        else:
            keys, values = similarity_partial(*sim_args, levels=lev)
        out.partial = _joined(part, keys, values, len(sum_names(block.sources)))
    if block.per_protein:
        out.steps = protein_steps(*args, chunk_entries=block.chunk_entries, levels=lev,
                                  weighted_rows=leaf.weighted_rows, events=events)
        out.steps.similarity = sim
        out.sizes = np.diff(ptr)
    if block.keep_scores:
        out.scores = (ptr, c, v)
    return out


def shared_leaf_task(block: Block, leaf: SharedLeaf) -> LeafResult:
    """A shared vector: propagated and filtered once, then swept from the truth or given to each protein.

    With ``leaf.from_truth`` (every benchmark protein, and a block without
    per-protein steps, similarity sums or kept scores) the sweep is taken
    from per-term sums of the truth (:func:`goeval.sweep.shared.shared_partial`)
    or, with known pairs or per-protein weighting (``cafa-pk``) and no event
    source, from the vector's levels and each protein's known and true terms
    (:func:`goeval.sweep.shared.known_partial`); otherwise the propagated
    vector becomes one row per protein of the leaf, its known pairs removed,
    swept like any leaf (the levels of exact thresholds found once).
    """
    ptr1, c1, v1, n1 = _closed(block, np.array([0, leaf.cols.size]), leaf.cols, leaf.scores)
    n = leaf.bench.size
    if leaf.from_truth:
        return _from_truth(block, leaf, c1, v1, n1)
    taus, lev = _leaf_levels(block, v1)
    ptr, c, v = np.arange(n + 1, dtype=np.int64) * c1.size, np.tile(c1, n), np.tile(v1, n)
    lev = None if lev is None else np.tile(lev, n)
    gone = _known_entries(block, leaf.truth_rows, c1)
    if gone.size:
        keep = np.ones(c.size, bool)
        keep[gone] = False
        ptr, c, v = keep_entries(ptr, keep), c[keep], v[keep]
        lev, taus = (None, taus) if lev is None else _renumbered(lev[keep], taus)
    result = LeafResult(partial=SweepPartial.empty(), entries=n * n1, kept=int(c.size), known_removed=int(gone.size))
    return _swept(block, leaf, ptr, c, v, (taus, lev), result)


def _from_truth(block: Block, leaf: SharedLeaf, c1: np.ndarray, v1: np.ndarray, n1: int) -> LeafResult:
    """A shared leaf swept without its rows: from per-term sums of the truth, or (known pairs, ``cafa-pk``)
    from the vector's levels and each protein's known terms (the positions :func:`_known_entries` finds)."""
    from goeval.sweep.shared import known_partial, shared_partial

    n = leaf.bench.size
    if block.per_protein or block.similarity is not None or block.keep_scores:
        raise ValueError("a shared vector is swept from the truth only without per-protein steps, similarity sums "
                         "or kept scores")
    if block.known is None and leaf.weighted_rows is None:
        part = shared_partial(c1, v1, leaf.truth_indptr, leaf.truth_cols, block.width, block.thresholds,
                              block.ia) if block.sweep else SweepPartial.empty()
        return LeafResult(partial=part, entries=n * n1, kept=n * int(c1.size), known_removed=0)
    if block.events is not None:
        raise ValueError("a shared vector with known pairs is swept from its levels only without event sources")
    gone = _known_entries(block, leaf.truth_rows, c1)
    owner, pos = np.divmod(gone, max(1, c1.size))
    part = known_partial(c1, v1, leaf.truth_indptr, leaf.truth_cols, row_indptr(owner, n), c1[pos], block.width,
                         block.thresholds, block.ia, weighted_rows=leaf.weighted_rows,
                         chunk_entries=block.chunk_entries) if block.sweep else SweepPartial.empty()
    return LeafResult(partial=part, entries=n * n1, kept=n * int(c1.size) - int(gone.size),
                      known_removed=int(gone.size))


def _known_entries(block: Block, truth_rows: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """Positions, among the vector ``c1`` given to each protein of ``truth_rows`` in turn, of the known pairs.

    The known keys of the leaf's proteins are found by two binary searches
    per protein (they are sorted by truth row); each is placed through the
    vector's column -> position table: the cost follows the known pairs, not
    the rows' entries.
    """
    if block.known is None or not c1.size:
        return np.zeros(0, np.int64)
    keys, lo, n_terms = block.known
    rows = np.asarray(truth_rows, np.int64)
    start, stop = np.searchsorted(keys, rows * n_terms), np.searchsorted(keys, (rows + 1) * n_terms)
    lens, idx = stop - start, np.repeat(start - np.r_[0, np.cumsum(stop - start)[:-1]], stop - start)
    pos_of = np.full(block.width, -1, np.int64)
    pos_of[c1] = np.arange(c1.size)
    term = keys[np.arange(int(lens.sum())) + idx] - np.repeat(rows * n_terms, lens) - lo
    inside = (term >= 0) & (term < block.width)
    owner = np.repeat(np.arange(rows.size), lens)[inside]
    pos = pos_of[term[inside]]
    return (owner * c1.size + pos)[pos >= 0]


def _renumbered(levels: np.ndarray, taus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Levels over the thresholds still holding an entry (exact thresholds: the leaf's own distinct scores)."""
    present = np.bincount(levels, minlength=taus.size + 1)[1:] > 0
    return np.r_[0, np.cumsum(present)][levels], taus[present]


def _joined(part: SweepPartial, keys: np.ndarray, values: np.ndarray, q: int) -> SweepPartial:
    """The sweep's partial (``q`` sums) with the similarity changes as further columns (0 where one side has no
    key)."""
    left = SweepPartial(part.keys, np.hstack([part.values.reshape(-1, q), np.zeros((part.keys.size, values.shape[1]))]))
    right = SweepPartial(keys, np.hstack([np.zeros((keys.size, q)), values]))
    if not part.keys.size:
        return right
    return left + right if keys.size else left


class LeafCutter:
    """The greedy leaf rule, fed one group of proteins at a time.

    A leaf ends at the first protein where its raw entries reach
    ``leaf_entries``; the last leaf takes what remains.

    Examples
    --------
    >>> cut = LeafCutter(4)
    >>> cut.cuts(np.array([3, 1, 2])), cut.cuts(np.array([5, 1]))
    ([2], [1])
    """

    def __init__(self, leaf_entries: int | None = None) -> None:
        self.leaf_entries = LEAF_ENTRIES if leaf_entries is None else leaf_entries
        self.filled = 0

    def cuts(self, counts: np.ndarray) -> list[int]:
        """Positions in ``counts`` after which the current leaf closes."""
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

