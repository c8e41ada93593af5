"""Partial sums: what a set of proteins (a leaf of the evaluation) contributes, combined in a fixed tree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.sparse import dense_unique
from goeval.sweep.kernel import (ChunkSteps, TruthFlags, chunk_bounds, chunk_steps, finish_sums, step_states,
                                 truth_totals)
from goeval.sweep.quantities import TOTALS, Events, sum_names
from goeval.sweep.stats import STAT_DEFINITIONS, SweepStats
from goeval.sweep.thresholds import grid_multiplier

__all__ = ["SweepPartial", "TreeSum", "tree_sum", "sweep_partial", "chunk_partial", "finish_partial", "fold_infinite",
           "event_sources"]

@dataclass
class SweepPartial:
    """Unfinished sweep sums of some proteins: the changes of every sum at the thresholds they touch.

    What :func:`sweep` accumulates before its reverse cumulative sum, kept
    sparse and keyed by threshold *value*: ``values[i, q]`` is the sum, over
    the proteins of the partial, of the change of the ``q``-th sum at
    threshold ``keys[i]`` (a row per threshold: merging moves whole rows; the sums of
    :func:`~goeval.sweep.quantities.sum_names` of the sweep's event sources, in that order). Partials computed over different threshold sets
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
    values : ndarray of float64, shape (k, number of sums)
    """

    keys: np.ndarray
    values: np.ndarray

    @classmethod
    def empty(cls) -> "SweepPartial":
        return cls(np.zeros(0), np.zeros((0, len(sum_names()))))

    def __add__(self, other: "SweepPartial") -> "SweepPartial":
        return self.merged(other)

    def merged(self, other: "SweepPartial", *, grow: bool = False) -> "SweepPartial":
        """``self + other`` key by key; ``grow``: made in ``self``'s values, which the result takes over.

        With ``grow``, ``self.values`` is enlarged in place (``ndarray.resize``: a large array is remapped,
        not copied) and its rows moved to their places, so that the sum of two large partials needs the
        result and ``other``, not also a copy of ``self``. The same bits either way (``a + b`` per
        element). Only for a ``self`` that nothing else refers to, nor to its values (a sum a
        :class:`TreeSum` made): it is not used again, and its values change under any view of them. Values
        that are not their own array are not grown (the sum is then made in a new array).
        """
        if not self.keys.size:
            return other
        if not other.keys.size:
            return self
        a, b = self.keys, other.keys
        if a.size == b.size and np.array_equal(a, b):
            if grow and self.values.flags.owndata:
                self.values += other.values
                return SweepPartial(a, self.values)
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
        out = self._grown(keys.size, out_a) if grow else None
        if out is None:
            out = np.empty((keys.size, self.values.shape[1]))
            out[out_a] = self.values
        for rows, to in _pieces(np.flatnonzero(~common), out_new):  # a piece at a time: bounded temporaries
            out[to] = other.values[rows]
        both = np.flatnonzero(common)
        for rows, to in _pieces(both, out_a[pos[both]]):
            out[to] += other.values[rows]  # (distinct rows: out[to] + other's, as one expression)
        return SweepPartial(keys, out)

    def _grown(self, rows: int, to: np.ndarray) -> np.ndarray | None:
        """``self.values`` enlarged in place to ``rows`` rows, its row ``i`` moved to row ``to[i]`` (increasing,
        ``to[i] >= i``); None when it cannot be: not its own array, or referenced elsewhere (a view of it)."""
        n = self.values.shape[0]
        if not _resized(self, (rows, self.values.shape[1])):
            return None
        values = self.values
        # from the last rows down: a piece's rows go to rows at or after them, past the pieces not yet moved
        for end in range(n, 0, -_PIECE_ROWS):
            start = max(end - _PIECE_ROWS, 0)
            values[to[start:end]] = values[start:end].copy()
        return values


def _resized(partial: "SweepPartial", shape: tuple[int, ...]) -> bool:
    """Whether ``partial.values`` was resized in place to ``shape`` (C order: elements kept, new ones zero). Only an
    array that is its own and that nothing else refers to is (``ndarray.resize``'s reference check; a large
    array is remapped, not copied, and shrinking it gives its tail back)."""
    if not (partial.values.flags.owndata and partial.values.flags.c_contiguous):
        return False
    try:
        partial.values.resize(shape, refcheck=True)  # (through the attribute: the owner's reference only)
    except ValueError:
        return False
    return True


#: Rows of a partial moved or added at once by ``SweepPartial.__add__`` (its temporaries: this many rows).
_PIECE_ROWS = 1 << 16


def _pieces(rows: np.ndarray, to: np.ndarray) -> Iterable[tuple[np.ndarray, np.ndarray]]:
    """``rows`` and ``to`` in aligned pieces of :data:`_PIECE_ROWS`."""
    for a in range(0, rows.size, _PIECE_ROWS):
        yield rows[a : a + _PIECE_ROWS], to[a : a + _PIECE_ROWS]


class TreeSum:
    """Adds partials pushed one at a time in a fixed pairwise tree (a binary counter).

    Pushing ``p_0, p_1, ...`` and calling :meth:`result` gives the same bits
    as :func:`tree_sum` of the list, whether the partials were computed in
    this process, in a pool or on a cluster, streamed or held in memory: two
    subtrees of equal size are merged as soon as both exist (left + right),
    and what remains at the end is folded from the right. At most log2(n)
    partials are held. A sum the tree made itself (a subtree of more than
    one partial) is grown in place by the next merge
    (:meth:`SweepPartial.merged`), so that the pushed partials are never changed.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[int, SweepPartial]] = []
        self.count = 0

    def push(self, part: SweepPartial) -> None:
        size = 1
        while self._stack and self._stack[-1][0] == size:
            _, left = self._stack.pop()
            part = left.merged(part, grow=size > 1)
            size *= 2
        self._stack.append((size, part))
        self.count += 1

    def result(self) -> SweepPartial:
        if not self._stack:
            return SweepPartial.empty()
        total = self._stack[-1][1]
        for size, left in reversed(self._stack[:-1]):
            total = left.merged(total, grow=size > 1)
        return total


def tree_sum(parts: Iterable[SweepPartial]) -> SweepPartial:
    """The sum of ``parts`` (in order) in the fixed tree of :class:`TreeSum`."""
    acc = TreeSum()
    for p in parts:
        acc.push(p)
    return acc.result()


def _step_deltas(steps: ChunkSteps, now: dict[str, np.ndarray], before: dict[str, np.ndarray],
                 i_t: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """The change of every sum of ``names`` at each group (unweighted), shape (len(names), g).

    The same arithmetic as :func:`add_steps` without weights.
    """
    pw = [None, i_t, i_t * i_t]
    out = np.empty((len(names), steps.rows.size))
    gathered: dict[int, np.ndarray] = {}
    for q, (base, p) in enumerate(STAT_DEFINITIONS[name] for name in names):
        if p == 0:
            np.subtract(now[base], before[base], out=out[q])
        else:
            if p not in gathered:
                gathered[p] = pw[p][steps.rows]
            wg = gathered[p]
            np.subtract(wg * now[base], wg * before[base], out=out[q])
    return out


def chunk_partial(steps: ChunkSteps, n_t: np.ndarray, i_t: np.ndarray, thresholds: np.ndarray,
                   w_row: np.ndarray | None, names: tuple[str, ...]) -> SweepPartial:
    """One kernel chunk's changes (its groups ``steps``, thresholds indexed by ``steps.bins``), summed per
    threshold in array order (as ``np.bincount`` does)."""
    now, before = step_states(steps, n_t, i_t, w_row)
    deltas = _step_deltas(steps, now, before, i_t, names)
    bins, inverse = dense_unique(steps.bins, thresholds.size)
    values = np.empty((bins.size, deltas.shape[0]))
    for q in range(deltas.shape[0]):
        values[:, q] = np.bincount(inverse, weights=deltas[q], minlength=bins.size)
    return SweepPartial(thresholds[bins], values)


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
    weighted_rows: np.ndarray | None = None,
    events: Events | None = None,
) -> SweepPartial:
    """The unfinished sums of some proteins (parameters as :func:`sweep`, no weights; ``events``: an event
    source's events of the same rows, whose sums are then kept too, :func:`event_sources`).

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
    grid_n = grid_multiplier(thresholds)
    flags = TruthFlags(truth_indptr, truth_cols, n_cols)
    names = sum_names(event_sources(events))
    bounds = chunk_bounds(pred_indptr, chunk_entries)  # events follow their rows: the real entries' chunks
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        steps = chunk_steps(r0, r1, pred_indptr, pred_cols, pred_scores, flags, iav, thresholds, grid_n, levels,
                            events)
        if steps is not None:
            total = total + chunk_partial(steps, n_t, i_t, thresholds, weighted_rows, names)
    return total


def event_sources(events: Events | None) -> tuple[str, ...]:
    """The names of the event sources whose totals ``events`` holds (none for None)."""
    if events is None:
        return ()
    return tuple(dict.fromkeys(str(TOTALS[k].events) for k in events.values))


def finish_partial(partial: SweepPartial, thresholds: np.ndarray | None, n_t: np.ndarray,
                   i_t: np.ndarray, *, sources: tuple[str, ...] = (),
                   truth: dict[str, np.ndarray] | None = None, release: bool = False) -> SweepStats:
    """The :class:`SweepStats` of a (combined) partial, with the totals of every benchmark protein.

    Parameters
    ----------
    partial : SweepPartial
        The changes of every sum (e.g. :func:`tree_sum` of the partials of
        leaves).
    thresholds : ndarray of float64, shape (m,), or None
        The thresholds of the statistics (containing every key of
        ``partial``); None: the keys themselves - the thresholds at which
        some protein's predicted set changes, i.e. the distinct scores
        (exact thresholds).
    n_t, i_t : ndarray of float64, shape (n,)
        ``|T_i|`` and ``i(T_i)`` of every benchmark protein, predicted or
        not (:func:`truth_totals`), in one fixed order.
    sources : tuple of str
        The event sources of the partial (its sums: :func:`~goeval.sweep.quantities.sum_names` of them).
    truth : dict of str to ndarray of shape (n,), optional
        Their per-protein constants of every benchmark protein (:attr:`~goeval.sweep.quantities.Events.truth`).
    release : bool, default False
        ``partial`` is handed over (not used again, its values referred to
        nowhere else): with exact thresholds its values are taken apart
        into the sums a half at a time, the array shrinking in between, so
        that the partial and its sums are held once and a half, not twice
        (``partial.values`` is left empty). The same bits.

    Raises
    ------
    InvalidParameterError
        If a key of ``partial`` is not among ``thresholds``.
    """
    if thresholds is None:
        partial = fold_infinite(partial, in_place=release)
        taus = partial.keys
        pos = np.arange(taus.size)
        if release and taus.size:
            return finish_sums(taus, _columns_released(partial, sum_names(sources)), [None, i_t, i_t * i_t], n_t,
                               i_t, truth)
    else:
        taus = np.asarray(thresholds, dtype=np.float64)
        pos = np.searchsorted(taus, partial.keys)
        if pos.size and (pos.max() >= taus.size or not np.array_equal(taus[pos], partial.keys)):
            raise InvalidParameterError("The partial sums hold thresholds that are not among 'thresholds'.")
    sums = {}
    for q, name in enumerate(sum_names(sources)):
        dense = np.zeros(taus.size)
        if partial.keys.size:  # (an empty partial has the width of a sweep without event sources)
            dense[pos] = partial.values[:, q]
        sums[name] = dense
    return finish_sums(taus, sums, [None, i_t, i_t * i_t], n_t, i_t, truth)


def _columns_released(partial: SweepPartial, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The first ``len(names)`` columns of ``partial.values`` as arrays of their own, the later half first; then
    the array is compacted to its first half in place and shrunk before that half is copied (when it is its own
    and referred to nowhere else; else simply copied). ``partial.values`` is left empty."""
    rows, width = partial.values.shape
    half = len(names) // 2
    sums = {name: partial.values[:, q].copy() for q, name in enumerate(names) if q >= half}
    # flat, one element longer: resized only when its own and referred to nowhere else (else copied from)
    if half and width > half and _resized(partial, (rows * width + 1,)):
        flat = partial.values
        grid = flat[: rows * width].reshape(rows, width)
        for start in range(0, rows, _PIECE_ROWS):  # row i's first columns to i * half.. (before its old place)
            piece = grid[start:start + _PIECE_ROWS, :half].copy()
            flat[start * half:start * half + piece.size] = piece.reshape(-1)
        del flat, grid, piece
        _resized(partial, (rows * half,))  # (nothing else refers to it: its tail given back)
        partial.values = partial.values[: rows * half].reshape(rows, half)
    first = {name: partial.values[:, q].copy() for q, name in enumerate(names) if q < half}
    partial.values = np.zeros((0, width))
    return {**first, **sums}  # (in the order of names)


def fold_infinite(partial: SweepPartial, *, in_place: bool = False) -> SweepPartial:
    """The partial with its ``+inf`` key (scores predicted at every threshold) added to its highest finite key.

    Exact thresholds are the distinct finite scores; a term scored ``+inf``
    (a root counted as predicted for every protein) is predicted at all of
    them, so its changes belong to the highest one. Without a finite key
    the ``+inf`` row is dropped (there is no threshold). ``in_place``: the
    result's values are ``partial``'s, whose highest finite row is changed
    (no copy of a partial that is not used again): ``partial`` itself,
    without its last row, when its array is its own and nothing else refers
    to it, else a view of it.
    """
    keys = partial.keys
    if not keys.size or np.isfinite(keys[-1]):
        return partial
    values = partial.values[:-1] if in_place else partial.values[:-1].copy()
    if keys.size > 1:
        values[-1] = values[-1] + partial.values[-1]
    if in_place:
        del values
        if _resized(partial, (keys.size - 1, partial.values.shape[1])):  # its own array: the row dropped
            partial.keys = keys[:-1]
            return partial
        values = partial.values[:-1]
    return SweepPartial(keys[:-1], values)
