"""The sweep kernel: per-threshold sums of protein-centric quantities (:func:`sweep`).

The building blocks (a chunk's (protein, level) groups, their states and the
scatter of their changes into threshold bins) are shared with
:mod:`goeval.sweep.steps` and :mod:`goeval.sweep.partial`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.sparse import dense_unique, row_indptr
from goeval.sweep.quantities import TOTALS, Entries, Events, ProteinState, protein_state, sum_names
from goeval.sweep.stats import STAT_DEFINITIONS, SweepStats
from goeval.sweep.thresholds import grid_multiplier

__all__ = ["sweep", "running_sums", "truth_totals", "ChunkSteps", "TruthFlags", "chunk_bounds", "chunk_steps",
           "VectorLevels", "level_steps", "step_states", "add_steps", "check_weights", "protein_weights", "finish_sums"]

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
    x = np.asarray(x, dtype=np.float64)
    if 2 * np.count_nonzero(x) >= x.size:  # mostly non-zero (kept below would be too): the whole array, no index
        return _compensated(x, ends, seg_start)
    mask = (x != 0) | np.signbit(x)
    kept = np.flatnonzero(mask)
    if 2 * kept.size < x.size:  # mostly +0.0 (e.g. a total of the true terms): the other entries alone, same bits
        upto = np.cumsum(mask)  # kept entries up to each index: where ends and starts fall among them
        return _compensated(x[kept], upto[ends] - 1, upto[seg_start] - mask[seg_start])
    return _compensated(x, ends, seg_start)


def _compensated(x: np.ndarray, ends: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """:func:`running_sums` over every entry of ``x``; a run with ``ends < seg_start`` (no entry) sums to 0.

    Adding +0.0 changes neither a running sum nor its rounding error (TwoSum of ``s + 0`` is ``(s, 0)``,
    exactly), so the runs of an array without its +0.0 entries (``ends``: each run's last entry kept,
    ``seg_start``: its first) have the bits of the whole array's. For the same reason a pass whose
    errors are all +0.0 ends the loop: its terms, and those after it, are +0.0 (same bits, a third less work
    on IA sums, whose errors' errors are almost always exact).
    """
    before = seg_start - 1
    has = before >= 0
    before = np.maximum(before, 0)
    some = ends >= 0
    last = np.maximum(ends, 0)
    terms = []
    x = np.array(x, dtype=np.float64)  # a copy, updated in place (as the buffers below: the same bits, less memory)
    s, bv, t = (np.empty_like(x) for _ in range(3))
    for k in range(3):  # the sums, their rounding errors, the errors of those
        if k and not x.any():  # no rounding error left (the errors' errors mostly): the next terms are all +0.0
            terms += [np.zeros(ends.size)] * (3 - k)
            break
        np.cumsum(x, out=s)
        if not s.size:
            terms.append(np.zeros(ends.size))
            continue
        terms.append(np.where(some, s[last], 0.0) - np.where(has, s[before], 0.0))
        if k < 2:  # TwoSum(prev, x) = (s, e), prev the sum before (0 first): bv = s - prev, e = (prev - (s - bv)) + (x - bv)
            bv[0] = s[0] - 0.0
            np.subtract(s[1:], s[:-1], out=bv[1:])
            np.subtract(s, bv, out=t)
            t[0] = 0.0 - t[0]
            np.subtract(s[:-1], t[1:], out=t[1:])  # element by element in place: each t[i] is read before written
            np.add(t, np.subtract(x, bv, out=x), out=x)
    return terms[0] + (terms[1] + terms[2])


def _levels(thresholds: np.ndarray, scores: np.ndarray, grid_n: int) -> np.ndarray:
    """Number of thresholds <= each score (``searchsorted(..., 'right')``).

    For a grid of step ``1 / grid_n`` (:func:`~goeval.sweep.thresholds.grid_multiplier`: the
    decimals ``j / N`` or CAFA-evaluator's floats) the level is computed arithmetically and then
    corrected against the exact threshold values, which is several times faster than a binary
    search and gives identical results.
    """
    if not grid_n:
        return np.searchsorted(thresholds, scores, side="right")
    m = thresholds.size
    with np.errstate(invalid="ignore", over="ignore"):
        lev = np.clip(np.floor(np.minimum(scores, 2.0) * grid_n), 0, m).astype(np.int64)
    ext = np.r_[-np.inf, thresholds, np.inf]  # ext[L] = tau_L (1-based), ext[0] = -inf
    lev -= ext[lev] > scores  # level too high
    lev += (lev < m) & (ext[lev + 1] <= scores)  # level too low
    return lev


@dataclass(kw_only=True)
class ChunkSteps:
    """The (protein, level) groups of a chunk, ordered by protein then descending level.

    ``totals`` holds, per registered running total (:data:`~goeval.sweep.quantities.TOTALS`:
    ``cnt`` ``|P|``, ``tp`` ``|T ∩ P|``, ``ia_pred`` ``sum_P ia``, ``ia_tp`` ``sum_{T∩P} ia``, and
    any registered later; those of an event source only when its events are given), the protein's
    total once every entry down to the group's level is predicted; ``first`` flags a protein's first
    group, ``bins`` the threshold index (level - 1); ``truth`` the per-protein constants of the event
    sources at each group (:attr:`~goeval.sweep.quantities.Events.truth`).
    """

    rows: np.ndarray
    bins: np.ndarray
    first: np.ndarray
    totals: dict[str, np.ndarray]
    truth: dict[str, np.ndarray] = field(default_factory=dict)


def chunk_bounds(pred_indptr: np.ndarray, chunk_entries: int) -> list[int]:
    """Row bounds such that each chunk holds about ``chunk_entries`` entries."""
    n = pred_indptr.size - 1
    cum = pred_indptr[1:]
    bounds = [0]
    while bounds[-1] < n:
        target = pred_indptr[bounds[-1]] + chunk_entries
        nxt = int(np.searchsorted(cum, target, side="right")) + 1
        bounds.append(min(n, max(nxt, bounds[-1] + 1)))
    return bounds


class TruthFlags:
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


def chunk_steps(
    r0: int, r1: int, pred_indptr: np.ndarray, pred_cols: np.ndarray, pred_scores: np.ndarray,
    truth_flags: TruthFlags, iav: np.ndarray, thresholds: np.ndarray, grid_n: int,
    levels: np.ndarray | None = None, events: Events | None = None,
) -> ChunkSteps | None:
    """Group the entries of rows [r0, r1) by (protein, level) with running totals.

    ``levels`` (every entry's level, when the caller knows them) replaces
    the search of the scores among the thresholds. ``events`` (an event
    source's events of the same rows, :class:`~goeval.sweep.quantities.Events`)
    are merged with the real entries: its totals are computed too.
    """
    m = thresholds.size
    a, b = int(pred_indptr[r0]), int(pred_indptr[r1])
    n_events = 0 if events is None else int(events.indptr[r1] - events.indptr[r0])
    if a == b and not n_events:
        return None
    rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(pred_indptr[r0 : r1 + 1]))
    cols = pred_cols[a:b].astype(np.int64)
    level = _levels(thresholds, pred_scores[a:b], grid_n) if levels is None else levels[a:b]
    keep = level > 0
    if not keep.all():
        rows, cols, level = rows[keep], cols[keep], level[keep]
    tp = truth_flags(r0, r1, rows, cols)
    scores = pred_scores[a:b][keep] if any(t.scores for t in TOTALS.values()) else None
    steps = _entry_steps(r0, (rows, cols, level, tp, scores), iav, m) if rows.size else None
    if events is None:
        return steps
    return _joined_steps(steps, _event_steps(r0, r1, events, m), events, m)


def _entry_steps(r0: int, real: tuple[np.ndarray, ...], iav: np.ndarray, m: int) -> ChunkSteps:
    """The groups of a chunk's real entries (``rows, cols, level, tp, scores``; at least one) and their totals."""
    rows, cols, level, tp, scores = real
    # one sort of packed keys: (row, descending level) groups, then column, tp bit
    col_bits = max(1, int(iav.size).bit_length())
    desc = m - level
    grp = rows * (m + 1) + desc
    if int(grp.max()).bit_length() + col_bits + 1 <= 63:
        carried = None if scores is None else _carried(grp, rows, cols, tp, scores, desc)
        if carried is not None:  # a total reads the scores: they follow the sort
            grp, cols, tp, scores = carried
        else:
            key = (grp << (col_bits + 1)) | (cols << 1) | tp
            if scores is None:
                key = np.sort(key, kind="stable")  # rows grouped: timsort merges them
            else:
                order = np.argsort(key, kind="stable")
                key, scores = key[order], scores[order]
            grp = key >> (col_bits + 1)
            cols = (key >> 1) & ((1 << col_bits) - 1)
            tp = (key & 1).astype(bool)
    else:  # pragma: no cover - astronomically many thresholds x rows
        order = np.argsort(grp, kind="stable")
        grp, cols, tp = grp[order], cols[order], tp[order]
        scores = None if scores is None else scores[order]
    entries = Entries(cols=cols, tp=tp, ia=iav[cols], scores=scores)
    return _grouped(grp, m, r0, {name: t.exact for name, t in TOTALS.items() if t.events is None},
                    lambda name: TOTALS[name].entry(entries))  # type: ignore[misc]


def _grouped(grp: np.ndarray, m: int, r0: int, totals: dict[str, bool],
             values: Callable[[str], np.ndarray]) -> ChunkSteps:
    """The (protein, level) groups of sorted group keys ``grp`` and the running totals named by ``totals``
    (name -> exact: integer values), from ``values(name)``, one value per key (made one total at a time: one
    array of values alive at once)."""
    starts = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
    g_row, g_rlev = np.divmod(grp[starts], m + 1)
    first = np.r_[True, g_row[1:] != g_row[:-1]]
    ends = np.r_[starts[1:] - 1, grp.size - 1]
    row_start = np.repeat(starts[first], np.diff(np.r_[np.flatnonzero(first), starts.size]))
    out = {name: _running_total(exact, values(name), starts, ends, first, row_start) for name, exact in totals.items()}
    return ChunkSteps(rows=g_row + r0, bins=(m - g_rlev) - 1, first=first, totals=out)


def _event_steps(r0: int, r1: int, events: Events, m: int) -> ChunkSteps | None:
    """The groups of a chunk's events alone (those of a level above 0) and the totals of their source."""
    ea, eb = int(events.indptr[r0]), int(events.indptr[r1])
    e_rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(events.indptr[r0 : r1 + 1]))
    e_level = np.asarray(events.levels[ea:eb], np.int64)
    live = np.flatnonzero(e_level > 0)
    if not live.size:
        return None
    grp = e_rows[live] * (m + 1) + (m - e_level[live])
    order = np.argsort(grp, kind="stable")
    pick = live[order]
    return _grouped(grp[order], m, r0, {name: TOTALS[name].exact for name in events.values},
                    lambda name: np.asarray(events.values[name])[ea:eb][pick])


def _joined_steps(real: ChunkSteps | None, ev: ChunkSteps | None, events: Events, m: int) -> ChunkSteps | None:
    """The groups of a chunk's real entries and of its events, merged: at each group of either, every total
    as the protein's own groups left it (what one sort of entries and events together gives, an event
    adding 0 to the totals of real entries and a real entry 0 to an event's)."""
    parts = [p for p in (real, ev) if p is not None]
    if not parts:
        return None
    keys = [p.rows * (m + 1) + (m - 1 - p.bins) for p in parts]
    merged = keys[0]
    if len(keys) == 2:  # the events' levels are mostly levels of the protein's entries: no group to add
        pos = np.minimum(np.searchsorted(keys[0], keys[1]), keys[0].size - 1)
        if (keys[0][pos] != keys[1]).any():
            merged = np.union1d(*keys)
    rows = merged // (m + 1)
    totals: dict[str, np.ndarray] = {}
    for p, k in zip(parts, keys):
        if k is merged:
            totals.update(p.totals)
            continue
        at = np.full(merged.size, -1)
        at[np.searchsorted(merged, k)] = np.arange(k.size)
        at = np.maximum.accumulate(at)  # the protein's last group at or above each level
        ok = at >= 0
        ok[ok] = p.rows[at[ok]] == rows[ok]
        totals.update({name: np.where(ok, v[at], 0.0) for name, v in p.totals.items()})
    zero = np.zeros(merged.size)
    for name, t in TOTALS.items():  # the totals of a side without a group in the chunk
        if name not in totals and (t.events is None or name in events.values):
            totals[name] = zero
    first = np.r_[True, rows[1:] != rows[:-1]]
    steps = ChunkSteps(rows=rows, bins=m - 1 - merged % (m + 1), first=first, totals=totals)
    steps.truth = {k: np.asarray(v, np.float64)[steps.rows] for k, v in events.truth.items()}
    return steps


def _carried(grp: np.ndarray, rows: np.ndarray, cols: np.ndarray, tp: np.ndarray,
             scores: np.ndarray, desc: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """``grp``, ``cols``, ``tp`` and ``scores`` in the order of the packed key ``(grp, col, tp)``, by a plain
    sort of ``(grp, entry index)`` keys: the order of the key when the columns ascend within each row (CSR's
    canonical order), cheaper than its permutation (``argsort``). None otherwise (or too many bits).

    ``grp`` is ``rows * (m + 1) + desc`` (``desc``: the descending level). When rows and levels fit in 16 bits
    the order is that of two stable radix sorts (by ``desc``, then by row), about twice as fast as the sort
    of the 64-bit keys: the same permutation (both keep entries of one group in their order)."""
    n = grp.size
    idx_bits = max(1, int(n).bit_length())
    if int(grp.max()).bit_length() + idx_bits > 63:
        return None
    if n > 1 and not np.all((cols[1:] > cols[:-1]) | (rows[1:] != rows[:-1])):
        return None
    if n and int(rows.max()) < 1 << 16 and int(desc.max()) < 1 << 16:
        by_level = np.argsort(desc.astype(np.uint16), kind="stable")  # numpy sorts 16-bit keys by radix
        at = by_level[np.argsort(rows[by_level].astype(np.uint16), kind="stable")]
        return grp[at], cols[at], tp[at], scores[at]
    key = np.sort((grp << idx_bits) | np.arange(n, dtype=np.int64), kind="stable")
    at = key & ((1 << idx_bits) - 1)
    return key >> idx_bits, cols[at], tp[at], scores[at]


def _running_total(exact: bool, values: np.ndarray, starts: np.ndarray, ends: np.ndarray, first: np.ndarray,
                   row_start: np.ndarray) -> np.ndarray:
    """A protein's running total down to each group's level: counts (``exact``) exactly (integers), sums
    accurately (compensated, per protein; see :func:`running_sums`)."""
    if exact:
        return _segment_cumsum(np.add.reduceat(values.astype(np.int64), starts), first).astype(np.float64)
    return running_sums(np.asarray(values, dtype=np.float64), ends, row_start)


class VectorLevels:
    """One score vector given to many proteins, by level: what :func:`level_steps` reads.

    Per real-entry running total (:data:`~goeval.sweep.quantities.TOTALS`), :attr:`parts` holds each
    level's sum of the entries' values as predicted terms outside the truth (``hi + lo``: the exact sum
    rounded, and the rounded rest) and each entry's value outside (``off``) and inside (``on``) the truth;
    a total that is not a count also has an exact total counting its entries of a non-zero value
    (:attr:`nonzero`). Levels as :func:`chunk_steps` finds them; entries of level 0 (never predicted) are
    left out.

    Parameters
    ----------
    cols : ndarray of int, shape (k,)
        Distinct columns of the (propagated) vector, in ``[0, n_cols)``.
    scores : ndarray of float64, shape (k,)
    iav : ndarray of float64, shape (n_cols,)
        Information accretion (zeros without IA).
    thresholds : ndarray of float64, shape (m,)

    Attributes
    ----------
    m : int
        Number of thresholds.
    levels : ndarray of int64
        The levels holding an entry, ascending; ``inverse`` each entry's index among them, ``size``
        the entries of each, ``has_lo`` whether some total's level sum has a rest ``lo``.
    pos_of : ndarray of int64, shape (n_cols,)
        Each column's entry (-1: not in the vector, or never predicted).
    exact : dict of str to bool
        The totals of :attr:`parts` and whether each is a count.
    parts : dict of str to tuple (hi, lo, off, on) of ndarrays
    nonzero : dict of str to str
        Per total that is not a count, the count of its entries of a non-zero value: a count of the same
        0 and 1 values (``cnt`` for the scores, ``tp`` for the scores of true terms) or ``NAME:nonzero``.
    """

    def __init__(self, cols: np.ndarray, scores: np.ndarray, iav: np.ndarray, thresholds: np.ndarray) -> None:
        self.m = thresholds.size
        level = _levels(thresholds, scores, grid_multiplier(thresholds))
        keep = level > 0
        self.cols, self.scores = np.asarray(cols, np.int64)[keep], np.asarray(scores, np.float64)[keep]
        self.levels, self.inverse = dense_unique(level[keep], self.m + 1)
        self.size = np.bincount(self.inverse, minlength=self.levels.size)
        self.pos_of = np.full(iav.size, -1, np.int64)
        self.pos_of[self.cols] = np.arange(self.cols.size)
        self.exact: dict[str, bool] = {}
        self.parts: dict[str, tuple[np.ndarray, ...]] = {}
        self.nonzero: dict[str, str] = {}
        for name, total in TOTALS.items():
            if total.entry is not None:  # (not an event source's)
                off, on = (np.asarray(total.entry(Entries(cols=self.cols, tp=np.full(self.cols.size, tp),
                                                          ia=iav[self.cols], scores=self.scores)), np.float64)
                           for tp in (False, True))
                if not (np.isfinite(off).all() and np.isfinite(on).all()):
                    raise InvalidParameterError(
                        f"The running total {name!r} gives an entry of the vector a value that is not finite; the "
                        "sweep of a vector without each protein's known terms needs finite values (cap the scores "
                        "of +inf, as the calibration totals do).")
                self.exact[name], self.parts[name] = total.exact, (*self._level_sums(off), off, on)
        self.has_lo = np.zeros(self.levels.size, bool)  # where some level sum has a rest
        for name in [name for name, exact in self.exact.items() if not exact]:
            self.has_lo |= self.parts[name][1] != 0
            off, on = self.parts[name][2:]
            self.nonzero[name] = self._counter(off != 0, on != 0, name)

    def _counter(self, off: np.ndarray, on: np.ndarray, name: str) -> str:
        """The exact total counting the entries whose values are non-zero where ``off`` / ``on`` (a count of 0
        and 1 values of the same pattern, e.g. ``cnt`` for the scores; or a new one, ``NAME:nonzero``)."""
        for other, exact in self.exact.items():
            o_off, o_on = self.parts[other][2:]
            if exact and np.array_equal(o_off, off) and np.array_equal(o_on, on):
                return other
        key = f"{name}:nonzero"
        self.exact[key] = True
        self.parts[key] = (self._level_sums(off.astype(np.float64))[0], np.zeros(self.levels.size),
                           off.astype(np.float64), on.astype(np.float64))
        return key

    def _level_sums(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each level's exact sum of ``values`` as ``hi + lo`` (``math.fsum`` of the level, then of the rest)."""
        hi = np.bincount(self.inverse, weights=values, minlength=self.levels.size)  # exact for one entry
        lo = np.zeros(self.levels.size)
        order = np.argsort(self.inverse, kind="stable")
        bounds = np.r_[0, np.cumsum(self.size)]
        for j in np.flatnonzero(self.size > 1):
            part = values[order[bounds[j] : bounds[j + 1]]].tolist()
            hi[j] = math.fsum(part)
            lo[j] = math.fsum([*part, -hi[j]])
        return hi, lo


def level_steps(vec: VectorLevels, r0: int, r1: int, truth_indptr: np.ndarray, truth_cols: np.ndarray,
                known_indptr: np.ndarray, known_cols: np.ndarray) -> ChunkSteps | None:
    """The (protein, level) groups of rows [r0, r1), each given the vector ``vec`` without its known terms,
    built from the vector's levels (never one entry per protein and term).

    A protein's predicted set at level L is ``S(L) \\ K`` (``K`` its known terms, disjoint from its
    truth ``T``), so each running total there is the sum, over the levels down to L, of the level's
    ``off`` total (``hi`` and ``lo``), minus ``off`` of its known terms of the level, plus ``on`` minus
    ``off`` of its true terms of the level: one value per (protein, level) and per known and true term,
    summed by the kernel's running totals (:func:`_grouped`). A sum whose protein has no entry of a non-zero
    value (its count :attr:`VectorLevels.nonzero`) is 0, as the rows give it; a group where the protein has
    no entry left (every entry of the level known) is dropped, as the rows have none.
    """
    k, n = vec.levels.size, r1 - r0
    if not k or not n:
        return None
    k_rows, k_pos = _members(vec, r0, r1, known_indptr, known_cols)
    t_rows, t_pos = _members(vec, r0, r1, truth_indptr, truth_cols)
    g_known = k_rows * k + (k - 1 - vec.inverse[k_pos])  # group: row, then descending level
    g_truth = t_rows * k + (k - 1 - vec.inverse[t_pos])
    extra = np.r_[g_known, g_truth, g_truth]  # -off of a known term; +on and -off of a true term
    order = np.argsort(extra, kind="stable")
    rev = slice(None, None, -1)
    head = np.tile(1 + vec.has_lo[rev].astype(np.int64), n)  # a group: its level's hi (and lo), then its terms
    n_extra = np.bincount(extra, minlength=n * k)
    start = np.r_[0, np.cumsum(head + n_extra)[:-1]]
    ranked = extra[order]
    at = (start + head)[ranked] + np.arange(order.size) - np.r_[0, np.cumsum(n_extra)[:-1]][ranked]
    lo_at = (start + 1)[head > 1]
    grp = (np.arange(n, dtype=np.int64)[:, None] * (vec.m + 1) + (vec.m - vec.levels[rev])[None, :]).ravel()
    grp = np.repeat(grp, head + n_extra)

    def values(name: str) -> np.ndarray:
        hi, lo, off, on = vec.parts[name]
        out = np.zeros(grp.size)
        out[start], out[lo_at] = np.tile(hi[rev], n), np.tile(lo[rev][vec.has_lo[rev]], n)
        out[at] = np.r_[0.0 - off[k_pos], on[t_pos], 0.0 - off[t_pos]][order]  # (0.0 - 0.0 is +0.0)
        return out

    steps = _grouped(grp, vec.m, r0, vec.exact, values)
    for name, counter in vec.nonzero.items():  # no entry of a non-zero value: 0, exactly
        steps.totals[name] = np.where(steps.totals[counter] > 0, steps.totals[name], 0.0)
    for name in set(vec.nonzero.values()) - set(TOTALS):
        del steps.totals[name]
    left = np.flatnonzero(np.tile(vec.size[rev], n) - np.bincount(g_known, minlength=n * k) > 0)
    if not left.size:
        return None
    rows = steps.rows[left]
    return ChunkSteps(rows=rows, bins=steps.bins[left], first=np.r_[True, rows[1:] != rows[:-1]],
                      totals={name: v[left] for name, v in steps.totals.items()})


def _members(vec: VectorLevels, r0: int, r1: int, indptr: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, ...]:
    """The (local row, vector entry) of the terms of CSR rows [r0, r1) that the vector predicts."""
    a, b = int(indptr[r0]), int(indptr[r1])
    rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(indptr[r0 : r1 + 1]))
    pos = vec.pos_of[np.asarray(cols[a:b], np.int64)]
    ok = pos >= 0
    return rows[ok], pos[ok]


def step_states(steps: ChunkSteps, n_t: np.ndarray, i_t: np.ndarray,
                w_row: np.ndarray | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per-protein quantities (:data:`~goeval.sweep.quantities.QUANTITIES`) at each group's level and just
    above it (before the group); ``w_row``: per protein, 1.0 when its truth carries information (None:
    every protein). A protein with an empty truth (its truth entirely known, CAFA-evaluator-PK's
    counting) has recall 0; ``w_row`` keeps a protein out of the information-weighted quantities
    (covered_w, mi, ia_pred) when its truth carries no information at all."""
    nT, iT = n_t[steps.rows], i_t[steps.rows]
    wR = None if w_row is None else w_row[steps.rows]

    def shift(x: np.ndarray) -> np.ndarray:
        y = np.r_[0.0, x[:-1]]
        y[steps.first] = 0.0
        return y

    now = protein_state(ProteinState(totals=steps.totals, n_t=nT, i_t=iT, w_row=wR, truth=steps.truth))
    before = protein_state(ProteinState(totals={k: shift(v) for k, v in steps.totals.items()}, n_t=nT, i_t=iT,
                                        w_row=wR, truth=steps.truth))
    return now, before


def add_steps(sums: dict[str, np.ndarray], steps: ChunkSteps, now: dict[str, np.ndarray],
               before: dict[str, np.ndarray], pw: list[np.ndarray | None]) -> None:
    """Scatter the changes of every sum of ``sums`` into threshold bins (weights of shape (n,) or none).

    The protein weight multiplies each state before differencing, so a
    weight of exactly 1 leaves every bit unchanged.
    """
    m = next(iter(sums.values())).size
    gathered: dict[int, np.ndarray] = {}
    for name in sums:
        base, p = STAT_DEFINITIONS[name]
        w = pw[p]
        if w is None:
            delta = now[base] - before[base]
        else:
            if p not in gathered:
                gathered[p] = w[steps.rows]
            wg = gathered[p]
            delta = wg * now[base] - wg * before[base]
        sums[name] += np.bincount(steps.bins, weights=delta, minlength=m)


def _add_steps_batched(sums: dict[str, np.ndarray], steps: ChunkSteps, now: dict[str, np.ndarray],
                       before: dict[str, np.ndarray], pw: list[np.ndarray], r0: int, r1: int) -> None:
    """Weights of shape (B, n): the per-protein deltas of each quantity become a
    sparse (rows x thresholds) matrix D once, and ``W @ D`` gives all B rows."""
    # deferred: scipy.sparse (~70 ms); the command line's flags (goeval.options) import goeval.sweep
    import scipy.sparse as sp

    m = next(iter(sums.values())).shape[-1]
    local = steps.rows - r0
    indptr = row_indptr(local, r1 - r0)
    deltas: dict[str, Any] = {}
    for name in sums:
        base, p = STAT_DEFINITIONS[name]
        if base not in deltas:
            d = sp.csr_array((now[base] - before[base], steps.bins, indptr), shape=(r1 - r0, m))
            deltas[base] = d.T.tocsr()  # (m, rows)
        sums[name] += (deltas[base] @ pw[p][:, r0:r1].T).T


def check_weights(weights: Any, n: int) -> np.ndarray | None:
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


def protein_weights(w: np.ndarray | None, i_t: np.ndarray) -> list[np.ndarray | None]:
    """Per-protein weights ``w_i i(T_i)**p`` for p = 0, 1, 2 (None: p = 0 unweighted)."""
    if w is None:
        return [None, i_t, i_t * i_t]
    w1 = w * i_t
    return [w, w1, w1 * i_t]


def _nothing_predicted(n_t: np.ndarray, i_t: np.ndarray,
                       truth: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The quantities that are not 0 with nothing predicted (every running total 0; ``ru_i = i(T_i)``);
    ``truth``: the per-protein constants of the event sources of the sweep (their totals are then 0 too)."""
    zero = np.zeros(n_t.size)
    names = [k for k, t in TOTALS.items() if t.events is None or truth]
    state = protein_state(ProteinState(totals={k: zero for k in names}, n_t=n_t, i_t=i_t, truth=truth or {}))
    return {k: v for k, v in state.items() if np.any(v != 0)}


def finish_sums(thresholds: np.ndarray, sums: dict[str, np.ndarray], pw: list[np.ndarray | None],
                n_t: np.ndarray, i_t: np.ndarray, truth: dict[str, np.ndarray] | None = None) -> SweepStats:
    """Reverse cumulative sums over levels, the values with nothing predicted, and the totals (``truth``: the
    per-protein constants of the event sources, as :func:`_nothing_predicted`)."""
    for k in sums:
        sums[k] = np.cumsum(sums[k][..., ::-1], axis=-1)[..., ::-1]
    batched = pw[1].ndim == 2
    empty = _nothing_predicted(n_t, i_t, truth)
    for k in sums:
        base, p = STAT_DEFINITIONS[k]
        if base in empty:  # at every threshold (a protein predicts nothing above its highest score)
            tot = (empty[base] if pw[p] is None else pw[p] * empty[base]).sum(axis=-1)
            sums[k] += tot[:, None] if batched else tot
    has_t, has_i = n_t > 0, pw[1] > 0  # proteins with truth, with informative truth (w_i i(T_i) > 0)
    if pw[0] is None:
        n, n_true, n_w = int(has_t.sum()), int(n_t.sum()), int(has_i.sum())
    elif batched:
        n, n_true, n_w = (pw[0] * has_t).sum(axis=-1), (pw[0] * n_t).sum(axis=-1), (pw[0] * has_i).sum(axis=-1)
    else:
        n, n_true = float((pw[0] * has_t).sum()), float((pw[0] * n_t).sum())
        n_w = float((pw[0] * has_i).sum())
    it_sum, it2_sum = pw[1].sum(axis=-1), pw[2].sum(axis=-1)
    if not batched:
        it_sum, it2_sum = float(it_sum), float(it2_sum)
    return SweepStats(thresholds=thresholds, sums=sums, n=n, n_true=n_true, it_sum=it_sum, it2_sum=it2_sum, n_w=n_w)


def truth_totals(truth_indptr: np.ndarray, truth_cols: np.ndarray, ia: np.ndarray | None,
                 n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """``|T_i|`` and ``i(T_i)`` (bits) of every protein of CSR truth sets (as :func:`sweep` computes them)."""
    n = truth_indptr.size - 1
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    t_rows = np.repeat(np.arange(n), np.diff(truth_indptr))
    return np.diff(truth_indptr).astype(np.float64), np.bincount(t_rows, weights=iav[truth_cols], minlength=n)


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
    weighted_rows: np.ndarray | None = None,
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
    weighted_rows : ndarray of float64, shape (n,), optional
        1.0 for a protein whose truth carries information, 0.0 for one whose
        truth holds only terms of zero IA: such a protein is left out of the
        information-weighted quantities (CAFA-evaluator-PK's counting; None:
        every protein counts).

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
    w = check_weights(weights, n)
    iav = np.zeros(n_cols) if ia is None else np.asarray(ia, dtype=np.float64)
    n_t, i_t = truth_totals(truth_indptr, truth_cols, iav, n_cols)
    pw = protein_weights(w, i_t)
    shape = (m,) if w is None or w.ndim == 1 else (w.shape[0], m)
    sums = {k: np.zeros(shape) for k in sum_names()}
    if m == 0 or n == 0:
        return finish_sums(thresholds, sums, pw, n_t, i_t)
    grid_n = grid_multiplier(thresholds)
    flags = TruthFlags(truth_indptr, truth_cols, n_cols)
    bounds = chunk_bounds(pred_indptr, chunk_entries)
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        steps = chunk_steps(r0, r1, pred_indptr, pred_cols, pred_scores, flags, iav, thresholds, grid_n)
        if steps is None:
            continue
        now, before = step_states(steps, n_t, i_t, weighted_rows)
        if len(shape) == 1:
            add_steps(sums, steps, now, before, pw)
        else:
            _add_steps_batched(sums, steps, now, before, pw, r0, r1)
    return finish_sums(thresholds, sums, pw, n_t, i_t)
