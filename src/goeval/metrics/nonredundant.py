"""PAN-GO's non-redundant partial-credit precision, recall and F (``docs/conventions.md``).

For one protein, namespace and threshold ``tau``, with the excluded terms
``X``, the propagated truth ``T`` and the propagated predicted set
``P(tau) = {v : s(v) >= tau}``:

* ``T*`` - the leaves of ``T - X``; ``P*`` - the leaves of ``P(tau) - X``;
* each ``v`` in ``P*`` is **E** (``v`` in ``T*``), **L** (a strict ancestor of
  a term of ``T*``: ``v`` in ``T - X - T*``), **M** (a strict descendant of a
  term of ``T*``) or **U** (none of these); L counts the distinct sets of
  ``T*`` terms the L terms are ancestors of;
* **Z** - the terms of ``T*`` no term of ``P*`` is comparable with;
* ``pr = (E + 0.75 L + 0.5 M) / (E + L + M + U)``,
  ``rc = (E + 0.75 L + 0.5 M) / (E + L + M + Z)``.

A term's category does not depend on ``tau``; it is a leaf of ``P(tau) - X``
exactly for ``tau`` in ``(c(v), s(v)]``, ``c(v)`` the largest score of its
predicted non-excluded strict descendants, so every count is a sum of
intervals over the thresholds (:func:`nonredundant_sums`).

Reference: ``anphan0828/CAFA-evaluator-non-redundant``, ``fpr_metric_sweep.py``
(``metric_for_protein``, ``row_from_incremental_counts``, ``best_rows_by_score``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.errors import InputFormatError, InvalidParameterError, check_choice
from goeval.metrics.protein import _from_annotations, _namespace_of, _thresholds, best_index, f_score
from goeval.metrics.similarity_kernel import Structure, _lookup, descendant_levels, make_entries, namespace_structure
from goeval.ontology.dag import generations
from goeval.sparse import gather_rows, row_indptr
from goeval.sweep.kernel import _levels, chunk_bounds, truth_totals
from goeval.sweep.partial import finish_partial, sweep_partial
from goeval.sweep.quantities import EVENT_SOURCES, NR_WEIGHTS, Events
from goeval.sweep.thresholds import grid_multiplier

__all__ = ["WEIGHTS", "BINDING_TERMS", "DO_NOT_ANNOTATE", "NonredundantSums", "NonredundantEvents", "nonredundant_sums",
           "nonredundant_curves", "nonredundant_f", "exclusion_mask", "closure_structure"]

#: Partial credit of an exact (E), less specific (L) and more specific (M) predicted term.
WEIGHTS = NR_WEIGHTS
#: Excluded by default with the roots: binding and protein binding (the reference's ``BINDING_TERMS``).
BINDING_TERMS = ("GO:0005488", "GO:0005515")
#: The OBO subset of the terms GO says not to annotate to.
DO_NOT_ANNOTATE = "gocheck_do_not_annotate"
_COUNTS = ("E", "L", "M", "U", "Z")


@dataclass(kw_only=True)
class NonredundantSums:
    """Per-threshold sums over the benchmark proteins of one namespace.

    Attributes
    ----------
    thresholds : ndarray of float64, shape (m,)
    E, L, M, U, Z : ndarray of float64, shape (m,)
        Counts summed over the benchmark proteins (micro numerators and denominators).
    pr_sum, rc_sum : ndarray of float64, shape (m,)
        Sums of the per-protein precision (over the covered proteins) and recall (over all).
    n_covered : ndarray of float64, shape (m,)
        Benchmark proteins with at least one term in ``P*``.
    n : int
        Benchmark proteins: those with a non-empty ``T*``.
    """

    thresholds: np.ndarray
    E: np.ndarray
    L: np.ndarray
    M: np.ndarray
    U: np.ndarray
    Z: np.ndarray
    pr_sum: np.ndarray
    rc_sum: np.ndarray
    n_covered: np.ndarray
    n: int = 0
    _fields: tuple[str, ...] = field(default=_COUNTS + ("pr_sum", "rc_sum", "n_covered"), repr=False)

    @classmethod
    def zeros(cls, thresholds: np.ndarray) -> NonredundantSums:
        m = np.asarray(thresholds).size
        return cls(thresholds=np.asarray(thresholds, dtype=np.float64),
                   **{k: np.zeros(m) for k in _COUNTS + ("pr_sum", "rc_sum", "n_covered")})

    def __add__(self, other: NonredundantSums) -> NonredundantSums:
        if not np.array_equal(self.thresholds, other.thresholds):
            raise InvalidParameterError("Non-redundant sums over different thresholds cannot be added.")
        return NonredundantSums(thresholds=self.thresholds, n=self.n + other.n,
                                **{k: getattr(self, k) + getattr(other, k) for k in self._fields})


def nonredundant_curves(s: NonredundantSums) -> dict[str, np.ndarray]:
    """Micro and macro precision, recall and F at every threshold.

    Micro pools the counts (``E``, ``L``, ``M``, ``U`` and ``Z`` summed over
    the benchmark proteins); macro averages the precision over the covered
    proteins and the recall over all ``n``. A ratio with a zero denominator is 0.
    """
    num = WEIGHTS["E"] * s.E + WEIGHTS["L"] * s.L + WEIGHTS["M"] * s.M
    found = s.E + s.L + s.M

    def div(a: np.ndarray, b: Any) -> np.ndarray:
        b = np.broadcast_to(np.asarray(b, dtype=np.float64), np.shape(a))
        return np.divide(a, b, out=np.zeros(np.shape(a)), where=b > 0)

    out = {"threshold": s.thresholds, "n_proteins": np.full(s.thresholds.size, float(s.n)),
           "n_covered": s.n_covered, **{k: getattr(s, k) for k in _COUNTS}}
    out["precision_micro"], out["recall_micro"] = div(num, found + s.U), div(num, found + s.Z)
    out["precision"], out["recall"] = div(s.pr_sum, s.n_covered), div(s.rc_sum, s.n)
    out["f_micro"] = f_score(out["precision_micro"], out["recall_micro"])
    out["f"] = f_score(out["precision"], out["recall"])
    return out


# ---------------------------------------------------------------- the kernel
def _strict_ancestor_pairs(cols: np.ndarray, st: Structure) -> tuple[np.ndarray, np.ndarray]:
    """(index, strict ancestor column) of every one of ``cols`` through the closure of ``st``."""
    lens, a = gather_rows(st.anc_indptr, st.anc_indices, cols)
    entry = np.repeat(np.arange(cols.size), lens)
    keep = a != cols[entry]
    return entry[keep], a[keep]


def _union(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The union of the intervals ``[start, end)`` of each group, as disjoint intervals (group, start, end)."""
    ok = start < end
    group, start, end = group[ok], start[ok], end[ok]
    if group.size == 0:
        return group, start, end
    order = np.lexsort((start, group))
    group, start, end = group[order], start[order], end[order]
    big = int(end.max()) + 1
    reach = np.maximum.accumulate(group * big + end) - group * big  # running max of end within the group
    first = np.r_[True, group[1:] != group[:-1]]
    new = first | (start > np.r_[0, reach[:-1]])
    runs = np.flatnonzero(new)
    last = np.r_[runs[1:] - 1, group.size - 1]
    return group[runs], start[runs], reach[last]


def _find(keys: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which ``keys`` are in the sorted distinct ``table``, and their positions in it."""
    if table.size == 0:
        return np.zeros(keys.size, bool), np.zeros(0, np.int64)
    pos = np.minimum(np.searchsorted(table, keys), table.size - 1)
    found = table[pos] == keys
    return found, pos[found]


def _member(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in the sorted distinct ``table``."""
    return _find(keys, table)[0]


def _row_groups(rows: np.ndarray) -> np.ndarray:
    """The group of each row of a 2-d array, equal rows one group (as ``np.unique(axis=0)``'s inverse)."""
    if not rows.shape[0]:
        return np.zeros(0, np.int64)
    order = np.lexsort(rows.T[::-1])
    srt = rows[order]
    new = np.r_[True, (srt[1:] != srt[:-1]).any(axis=1)]
    out = np.empty(rows.shape[0], np.int64)
    out[order] = np.cumsum(new) - 1
    return out


def _set_signatures(group: np.ndarray, members: np.ndarray, n_groups: int) -> np.ndarray:
    """Two 64-bit sums of random keys of each group's member set, shape (n_groups, 2): equal sets, equal rows
    (unequal sets collide with probability about 2**-128 per pair)."""
    rng = np.random.default_rng(0x5EED)
    n_cols = int(members.max()) + 1 if members.size else 1
    keys = rng.integers(0, np.iinfo(np.uint64).max, size=(n_cols, 2), dtype=np.uint64, endpoint=True)
    out = np.zeros((n_groups, 2), dtype=np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(out, group, keys[members])
    return out


def _leaf_intervals(st: Structure, n_rows: int, rows: np.ndarray, cols: np.ndarray, level: np.ndarray,
                    counted: np.ndarray) -> tuple[np.ndarray, ...]:
    """The entries that are a leaf of their row's counted entries at some level: their rows, columns and
    interval of levels ``[d, level)`` (``d`` the largest level of a counted strict descendant), sorted by
    (row, column).

    ``level`` is every entry's level, ``counted`` whether it may be a leaf (not excluded): an entry not
    counted is a leaf at no level and gives none to its ancestors, but still links them to its descendants.
    Rows closed under parents whose levels never rise from a term to a parent (propagated scores) take one
    pass over the parents (:func:`_closed_levels`); any other rows one pass per generation with the missing
    ancestors added (:func:`~goeval.metrics.similarity_kernel.make_entries`,
    :func:`~goeval.metrics.similarity_kernel.descendant_levels`).
    """
    d = _closed_levels(st, rows * st.n + cols, cols, level, counted)
    if d is not None:
        leaf = counted & (level > d)
    else:
        ent = make_entries(st, n_rows, rows, cols, np.where(counted, level, 0) + 1)  # + 1: level 0 stays
        rows, cols, level = ent.row, ent.col, ent.level - 1  # -1: an ancestor missing from the row, added
        d = np.maximum(descendant_levels(st, ent) - 1, 0)
        leaf = level > d
    return rows[leaf], cols[leaf], d[leaf], level[leaf]


def _closed_levels(st: Structure, key: np.ndarray, cols: np.ndarray, level: np.ndarray,
                   counted: np.ndarray) -> np.ndarray | None:
    """``d`` of every entry (keys ``row * n + col``, sorted and distinct) by one pass over the parents, or None
    when the keys are not sorted, the rows not closed under parents or a level rises from a term to a parent.

    In such rows a counted entry's level is at least that of every descendant, so ``d(v)`` is the largest,
    over the children ``w`` of ``v``, of ``level(w)`` (counted) or ``d(w)`` (not counted: those alone are
    visited by generation, deepest first).
    """
    if key.size == 0:
        return np.zeros(0, np.int64)
    if (key[1:] <= key[:-1]).any():
        return None
    lens, par = gather_rows(st.parents.indptr, st.parents.indices, cols)
    first = np.cumsum(lens) - lens  # each entry's first edge to a parent
    child = np.repeat(np.arange(key.size), lens)
    up = _lookup(key, key[child] - cols[child] + par)  # the parent's entry
    if (up < 0).any() or (level[up] < level[child]).any():
        return None
    d = np.zeros(key.size, np.int64)
    from_counted = counted[child]
    np.maximum.at(d, up[from_counted], level[child[from_counted]])
    skipped = np.flatnonzero(~counted)
    gen = st.generation[cols[skipped]]
    for g in np.unique(gen)[::-1]:  # the entries not counted, deepest first, give their d to their parents
        x = skipped[gen == g]
        n_par = lens[x]
        edge = np.repeat(first[x] - np.cumsum(n_par) + n_par, n_par) + np.arange(int(n_par.sum()))
        np.maximum.at(d, up[edge], np.repeat(d[x], n_par))
    return d


def _reduced_truth(st: Structure, n_rows: int, trow: np.ndarray, tcol: np.ndarray,
                   excluded: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``T*`` of truth entries (local rows, columns): the terms not excluded that are no strict ancestor of
    another one (their rows and columns, sorted), and the sorted keys ``row * n + col`` of the truth entries
    not excluded."""
    kt = ~excluded[tcol]
    star_row, star_col, _, _ = _leaf_intervals(st, n_rows, trow, tcol, np.ones(tcol.size, np.int64), kt)
    return star_row, star_col, np.sort(trow[kt] * st.n + tcol[kt])


def _below_star(prow: np.ndarray, pcol: np.ndarray, pkey: np.ndarray, star_row: np.ndarray, star_col: np.ndarray,
                st: Structure, descendants: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (v, r) of a term ``v`` of ``pkey`` (sorted keys ``row * n + col``) that is a strict descendant
    of a term ``r`` of ``T*`` (sorted keys ``star``), as positions: from the terms' ancestors or from the
    descendants of ``T*``, whichever side has fewer (``T*``'s terms are mostly near the leaves)."""
    n, star = st.n, star_row * st.n + star_col
    up_cost = int((st.anc_indptr[pcol + 1] - st.anc_indptr[pcol]).sum())
    down_cost = int((descendants.indptr[star_col + 1] - descendants.indptr[star_col]).sum())
    if up_cost <= down_cost:
        pe, panc = _strict_ancestor_pairs(pcol, st)
        found, r = _find(prow[pe] * n + panc, star)
        return pe[found], r
    lens, d = gather_rows(descendants.indptr, descendants.indices, star_col)
    r = np.repeat(np.arange(star.size), lens)
    strict = d != star_col[r]
    r, d = r[strict], d[strict]
    found, v = _find(star_row[r] * n + d, pkey)
    return v, r[found]


def _chunk_events(r0: int, r1: int, pred: tuple[np.ndarray, ...], truth: tuple[np.ndarray, np.ndarray],
                  st: Structure, descendants: sp.csr_array, excluded: np.ndarray, thresholds: np.ndarray,
                  grid_n: int) -> dict[str, Any]:
    """Interval events of every count of proteins [r0, r1): (protein, start, end) per count, and |T*|."""
    p_indptr, p_cols, p_scores = pred
    t_indptr, t_cols = truth
    n_cols, nr = st.n, r1 - r0
    a, b = int(p_indptr[r0]), int(p_indptr[r1])
    prow = np.repeat(np.arange(nr, dtype=np.int64), np.diff(p_indptr[r0 : r1 + 1]))
    pcol, score = p_cols[a:b].astype(np.int64), p_scores[a:b].astype(np.float64)
    nan = np.isnan(score)
    lev = _levels(thresholds, np.where(nan, 0.0, score), grid_n)
    ta, tb = int(t_indptr[r0]), int(t_indptr[r1])
    trow = np.repeat(np.arange(nr, dtype=np.int64), np.diff(t_indptr[r0 : r1 + 1]))
    star_row, star_col, truth_keys = _reduced_truth(st, nr, trow, t_cols[ta:tb].astype(np.int64), excluded)
    star = star_row * n_cols + star_col
    # the terms that are a leaf of P(tau) - X for some tau, and that interval [lev_c, lev_s) of threshold indices
    prow, pcol, lev_c, lev_s = _leaf_intervals(st, nr, prow, pcol, lev, ~(excluded[pcol] | nan))
    pkey = prow * n_cols + pcol  # sorted
    # categories
    is_e = _member(pkey, star)
    is_l = ~is_e & _member(pkey, truth_keys)
    down_v, down_r = _below_star(prow, pcol, pkey, star_row, star_col, st, descendants)
    has_star_anc = np.zeros(pcol.size, bool)
    has_star_anc[down_v] = True
    is_m = ~is_e & ~is_l & has_star_anc
    is_u = ~(is_e | is_l | is_m)
    ev = {k: (prow[m] + r0, lev_c[m], lev_s[m]) for k, m in (("E", is_e), ("M", is_m), ("U", is_u))}
    # pairs (r in T*, comparable predicted v): v below r (M, E) and v above r (L)
    sa_e, sa_a = _strict_ancestor_pairs(star_col, st)
    up_ok, up_v = _find(star_row[sa_e] * n_cols + sa_a, pkey)
    up_r = sa_e[up_ok]  # up_v a predicted strict ancestor of r = star[up_r]
    e_v = np.flatnonzero(is_e)
    z_group = np.r_[up_r, down_r, np.searchsorted(star, pkey[e_v])]
    z_v = np.r_[up_v, down_v, e_v]
    g, s0, s1 = _union(z_group, lev_c[z_v], lev_s[z_v])
    ev["mapped"] = (star_row[g] + r0, s0, s1)
    # L: one count per distinct set of T* terms below the L terms, while one of them is a leaf
    l_terms = np.flatnonzero(is_l)
    slot = np.full(pcol.size, -1)
    slot[l_terms] = np.arange(l_terms.size)
    in_l = is_l[up_v]
    sig = _set_signatures(slot[up_v[in_l]], up_r[in_l], l_terms.size)
    skey = np.c_[prow[l_terms].astype(np.uint64), sig]
    l_group = _row_groups(skey)
    g, s0, s1 = _union(l_group.ravel().astype(np.int64), lev_c[l_terms], lev_s[l_terms])
    first_member = np.full(int(l_group.max()) + 1 if l_terms.size else 0, 0)
    first_member[l_group.ravel()] = l_terms
    ev["L"] = (prow[first_member[g]] + r0, s0, s1)
    return {"events": ev, "n_star": np.bincount(star_row, minlength=nr)}


#: The running total of each interval count of :func:`_chunk_events`.
_TOTAL_OF = {"E": "nr_e", "L": "nr_l", "M": "nr_m", "U": "nr_u", "mapped": "nr_mapped"}


def _as_events(ev: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], n: int) -> tuple[np.ndarray, ...]:
    """Interval counts (row, start, end) as events sorted by row: rows, levels, and the index of each one's total
    (+1 at level ``end``: it counts at every threshold index below; -1 at level ``start``)."""
    rows, levels, which, sign = [], [], [], []
    for q, k in enumerate(_TOTAL_OF):
        row, s0, s1 = ev[k]
        for where, v in ((s1, 1.0), (s0, -1.0)):
            rows.append(row)
            levels.append(where)
            which.append(np.full(row.size, q))
            sign.append(np.full(row.size, v))
    row = np.concatenate(rows).astype(np.int64)
    order = np.argsort(row, kind="stable")
    return (row[order], np.concatenate(levels).astype(np.int64)[order], np.concatenate(which)[order],
            np.concatenate(sign)[order])


@dataclass(frozen=True, kw_only=True)
class NonredundantEvents:
    """The event source ``nonredundant`` of one namespace: PAN-GO's counts as per-protein events of the sweep.

    Every count of a protein (E, L, M, U and the terms of ``T*`` mapped) is a sum over intervals of
    thresholds ``(c(v), s(v)]`` (unions made disjoint), so it is a running total of events ``+1`` at
    the top of each interval and ``-1`` at its bottom: the kernel merges them with the protein's real
    entries (:func:`goeval.sweep.kernel.chunk_steps`), and the per-protein quantities
    (:mod:`goeval.sweep.quantities`: ``nr_pr``, ``nr_rc``, ``nr_covered``, the counts) come out of
    the same per-protein state as every other, with their sums, steps and bootstrap.

    ``c(v)`` and ``T*`` come from the direct parents (:func:`_leaf_intervals`: one pass over them for
    rows closed under parents with propagated scores, else one pass per generation); the closure is read
    only for the terms that are a leaf at some threshold and for the terms of ``T*``, so the cost follows
    the propagated entries times the mean number of parents, not times the mean number of ancestors. A
    term that is a leaf at no threshold gives no event. The truth rows must be closed under parents
    (propagated); the predicted rows need not be.

    Attributes
    ----------
    structure : goeval.metrics.similarity_kernel.Structure
        The namespace's parents, closure and generations in local columns
        (:func:`~goeval.metrics.similarity_kernel.namespace_structure`, or :func:`closure_structure`).
    excluded : ndarray of bool, shape (width,)
        Terms removed before the leaves are taken (:func:`exclusion_mask`).
    chunk_entries : int
        Predicted and truth entries handled at once (memory bound).
    """

    structure: Structure
    excluded: np.ndarray
    chunk_entries: int = 1 << 15
    name: str = "nonredundant"
    #: ``|T*|`` of the truth rows whose events were made in this process, by the row's terms (a row's ``T*``
    #: depends on its terms alone): :meth:`truth` reads them instead of reducing those rows a second time.
    #: Not pickled: a worker's rows are reduced again where :meth:`truth` runs.
    _stars: dict[bytes, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_stars"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_stars", {})

    @cached_property
    def descendants(self) -> sp.csr_array:
        """Reflexive descendants of every term (the closure transposed), bool CSR with sorted indices."""
        st = self.structure
        anc = sp.csr_array((np.ones(st.anc_indices.size, bool), st.anc_indices, st.anc_indptr), shape=(st.n, st.n))
        out = sp.csr_array(anc.T.tocsr())
        out.sort_indices()
        return out

    def truth(self, truth_indptr: np.ndarray, truth_cols: np.ndarray) -> dict[str, np.ndarray]:
        """``nr_star``, ``|T*|`` of every truth row (0: not a protein of the non-redundant benchmark): that of the
        rows whose events were made here (:attr:`_stars`), the other rows reduced now."""
        n, excluded = truth_indptr.size - 1, np.asarray(self.excluded, bool)
        out = np.zeros(n)
        keys = _row_keys(truth_indptr, truth_cols)
        known = [self._stars.get(k) for k in keys]
        todo = np.array([i for i, x in enumerate(known) if x is None], dtype=np.int64)
        for i, x in enumerate(known):
            if x is not None:
                out[i] = x
        if not todo.size:
            return {"nr_star": out}
        lens, cols = gather_rows(np.asarray(truth_indptr, np.int64), np.asarray(truth_cols, np.int64), todo)
        indptr = np.r_[0, np.cumsum(lens)]
        for r0, r1 in zip(*_pairs(chunk_bounds(indptr, self.chunk_entries))):
            trow = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(indptr[r0 : r1 + 1]))
            star_row, _, _ = _reduced_truth(self.structure, r1 - r0, trow, cols[indptr[r0] : indptr[r1]], excluded)
            out[todo[r0:r1]] = np.bincount(star_row, minlength=r1 - r0)
        return {"nr_star": out}

    def events(self, pred_indptr: np.ndarray, pred_cols: np.ndarray, pred_scores: np.ndarray,
               truth_indptr: np.ndarray, truth_cols: np.ndarray, thresholds: np.ndarray) -> Events:
        """The events of propagated rows over ``thresholds`` (levels as the kernel finds them)."""
        thresholds = np.asarray(thresholds, dtype=np.float64)
        n, m = pred_indptr.size - 1, thresholds.size
        grid_n = grid_multiplier(thresholds) if m else 0
        excluded = np.asarray(self.excluded, bool)
        pieces, stars = [], []
        both = np.asarray(pred_indptr, dtype=np.int64) + np.asarray(truth_indptr, dtype=np.int64)
        for r0, r1 in zip(*_pairs(chunk_bounds(both, self.chunk_entries) if n else [0])):
            got = _chunk_events(r0, r1, (pred_indptr, pred_cols, pred_scores), (truth_indptr, truth_cols),
                                self.structure, self.descendants, excluded, thresholds, grid_n)
            pieces.append(_as_events(got["events"], n))
            stars.append(got["n_star"])
        row, lev, which, sign = (np.concatenate(x) for x in zip(*pieces)) if pieces else (np.zeros(0, np.int64),) * 4
        values = {t: np.where(which == q, sign, 0.0) for q, t in enumerate(_TOTAL_OF.values())}
        n_star = np.concatenate(stars).astype(np.float64) if stars else np.zeros(n)
        self._stars.update(zip(_row_keys(truth_indptr, truth_cols), n_star.astype(np.int64).tolist()))
        return Events(indptr=row_indptr(row, n), levels=lev, values=values, truth={"nr_star": n_star})


def _row_keys(indptr: np.ndarray, cols: np.ndarray) -> list[bytes]:
    """Each CSR row's terms as bytes (int64), the key of its ``T*``."""
    ptr, data = np.asarray(indptr, np.int64).tolist(), np.asarray(cols, np.int64)
    return [data[a:b].tobytes() for a, b in zip(ptr[:-1], ptr[1:])]


def _pairs(bounds: list[int]) -> tuple[list[int], list[int]]:
    return bounds[:-1], bounds[1:]


def closure_structure(ancestors: Any) -> Structure:
    """The :class:`~goeval.metrics.similarity_kernel.Structure` of a reflexive-transitive closure alone.

    The direct parents are the strict ancestors that are no strict ancestor of another strict ancestor
    (the transitive reduction), the generations the longest paths from the roots
    (:func:`goeval.ontology.dag.generations`).

    Parameters
    ----------
    ancestors : scipy sparse matrix of bool, shape (n, n)
        Row ``v`` holds the ancestors of ``v`` (``v`` itself may be left out).

    Returns
    -------
    goeval.metrics.similarity_kernel.Structure
        Parents, reflexive closure and generations over the ``n`` columns.

    Raises
    ------
    InvalidParameterError
        If the closure is not square or has a cycle (two terms each an ancestor of the other).
    """
    anc = sp.csr_array(ancestors).astype(bool)
    n = anc.shape[0]
    if anc.shape != (n, n):
        raise InvalidParameterError(f"The ancestors must be a square closure; got shape {anc.shape}.")
    coo = anc.tocoo()
    off = coo.row != coo.col
    strict = sp.csr_array((np.ones(int(off.sum()), np.int32), (coo.row[off], coo.col[off])), shape=(n, n))
    indirect = sp.csr_array((strict @ strict) > 0).astype(np.int32)
    parents = sp.csr_array(strict - indirect.multiply(strict))
    parents.eliminate_zeros()
    parents = sp.csr_array(parents > 0)
    parents.sort_indices()
    gen = generations(parents)
    if (gen < 0).any():
        raise InvalidParameterError("The ancestors have a cycle: two terms are each an ancestor of the other.")
    full = sp.csr_array(anc + sp.eye_array(n, dtype=bool, format="csr"))  # reflexive whatever was given
    full.sort_indices()
    return Structure(n=n, parents=parents, anc_indptr=full.indptr.astype(np.int64),
                     anc_indices=full.indices.astype(np.int64), generation=gen.astype(np.int64))


def namespace_events(ontology: Any, lo: int, hi: int, options: Any) -> NonredundantEvents:
    """The ``nonredundant`` event source of the namespace ``[lo, hi)`` of ``ontology`` under ``options``
    (an :class:`~goeval.options.EvaluationOptions`: its ``nonredundant_exclude`` and ``nonredundant_terms``)."""
    from goeval.io.idlist import read_id_list  # deferred: the term lists are read when a run asks for them

    files = tuple(getattr(options, "nonredundant_terms", ()) or ())
    kinds = set(getattr(options, "nonredundant_exclude", ("roots", "binding", "do-not-annotate")) or ())
    mask = exclusion_mask(ontology, roots="roots" in kinds, binding="binding" in kinds,
                          do_not_annotate="do-not-annotate" in kinds, terms=[read_id_list(f) for f in files],
                          sources=files)
    return NonredundantEvents(structure=namespace_structure(ontology, lo, hi), excluded=mask[lo:hi])


EVENT_SOURCES["nonredundant"] = namespace_events


def nonredundant_sums(
    pred_indptr: np.ndarray,
    pred_cols: np.ndarray,
    pred_scores: np.ndarray,
    truth_indptr: np.ndarray,
    truth_cols: np.ndarray,
    ancestors: sp.csr_array,
    excluded: np.ndarray,
    thresholds: np.ndarray,
    *,
    chunk_entries: int = 1 << 16,
) -> NonredundantSums:
    """Per-threshold sums of the non-redundant counts of one run of proteins, through the sweep kernel.

    Parameters
    ----------
    pred_indptr, pred_cols, pred_scores : ndarrays
        Propagated (consistent) predictions in CSR form, ``n`` rows, columns in
        ``[0, n_cols)``; a term is predicted at ``tau`` when ``score >= tau``.
    truth_indptr, truth_cols : ndarrays
        Propagated truth sets in CSR form, the same ``n`` rows.
    ancestors : scipy.sparse.csr_array of bool, shape (n_cols, n_cols)
        Reflexive-transitive closure: row ``v`` holds ``v`` and its ancestors
        (``Ontology.ancestors_csr`` restricted to the namespace's columns).
    excluded : ndarray of bool, shape (n_cols,)
        Terms removed before the leaves are taken (:func:`exclusion_mask`).
    thresholds : ndarray of float64, shape (m,)
        Ascending thresholds.
    chunk_entries : int
        Approximate number of prediction entries handled at once (memory bound).

    Returns
    -------
    NonredundantSums
        Sums over the rows whose ``T*`` is not empty (the benchmark proteins);
        the sweep's sums of :class:`NonredundantEvents` (``nr_*``), as an evaluation
        asked for ``measures=('nonredundant',)`` computes them.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    excluded = np.asarray(excluded, dtype=bool)
    n = pred_indptr.size - 1
    if truth_indptr.size - 1 != n:
        raise InvalidParameterError("Predictions and truth must have the same rows.")
    if ancestors.shape != (excluded.size, excluded.size):
        raise InvalidParameterError(
            f"The ancestors must be a ({excluded.size}, {excluded.size}) closure; got shape {ancestors.shape}.")
    source = NonredundantEvents(structure=closure_structure(ancestors), excluded=excluded,
                                chunk_entries=chunk_entries)
    ev = source.events(pred_indptr, pred_cols, pred_scores, truth_indptr, truth_cols, thresholds)
    part = sweep_partial(pred_indptr, pred_cols, pred_scores, truth_indptr, truth_cols, excluded.size, thresholds,
                         chunk_entries=chunk_entries, events=ev)
    n_t, i_t = truth_totals(truth_indptr, truth_cols, None, excluded.size)
    st = finish_partial(part, thresholds, n_t, i_t, sources=(source.name,), truth=ev.truth)
    sums = st.sums
    return NonredundantSums(thresholds=thresholds, n=int((ev.truth["nr_star"] > 0).sum()),
                            **{k: sums[f"nr_{k.lower()}_n"] for k in _COUNTS}, pr_sum=sums["nr_pr"],
                            rc_sum=sums["nr_rc"], n_covered=sums["nr_covered"])


# ------------------------------------------------------------ the exclusions
def exclusion_mask(ontology: Any, *, roots: bool = True, binding: bool = True, do_not_annotate: bool = True,
                   terms: Any = (), sources: Any = ()) -> np.ndarray:
    """The excluded terms of an ontology, a bool mask over its terms.

    Parameters
    ----------
    ontology : Ontology
    roots : bool, default True
        Exclude every term without a parent (GO's three roots).
    binding : bool, default True
        Exclude :data:`BINDING_TERMS` (binding, protein binding) where the ontology has them.
    do_not_annotate : bool, default True
        Exclude the terms of the OBO's ``subset: gocheck_do_not_annotate``.
    terms : sequence of arrays of str
        Further term lists (e.g. read by :func:`goeval.io.idlist.read_id_list`), one per file.
    sources : sequence of str
        The file of each list, named in errors.

    Raises
    ------
    InputFormatError
        A listed id that is no term of the ontology (unknown, or obsolete without one replacement).
    """
    mask = np.zeros(ontology.n_terms, dtype=bool)
    if roots:
        mask[ontology.roots()] = True
    if binding:
        idx, _ = ontology.resolve(list(BINDING_TERMS))
        mask[idx[idx >= 0]] = True
    if do_not_annotate:
        mask[ontology.subset(DO_NOT_ANNOTATE)] = True
    sources = list(sources) + [None] * (len(terms) - len(sources))
    for ids, source in zip(terms, sources):
        ids = list(ids)
        idx, _ = ontology.resolve(ids)
        if (idx < 0).any():
            bad = ids[int(np.flatnonzero(idx < 0)[0])]
            raise InputFormatError(source, None, f"excluded term {bad!r} is not a term of the ontology "
                                   f"{ontology.source!r} (unknown, or obsolete without a single replacement)", bad)
        mask[idx] = True
    return mask


# --------------------------------------------------------------- the scorer
def nonredundant_f(
    y_true: Any,
    y_score: Any,
    *,
    ancestors: sp.csr_array | None = None,
    excluded: np.ndarray | None = None,
    average: str = "macro",
    thresholds: str | float = "exact",
) -> tuple[float, float]:
    """PAN-GO's non-redundant partial-credit F: its maximum over thresholds and that threshold.

    Parameters
    ----------
    y_true, y_score : Annotations, or scipy sparse matrices of shape (n_proteins, n_terms)
        As :func:`goeval.metrics.protein.fmax_score` (one namespace; Annotations are
        propagated, sparse matrices must be).
    ancestors : scipy.sparse.csr_array, optional
        For sparse matrices: the reflexive-transitive closure over their columns.
        Annotations bring their ontology's.
    excluded : ndarray of bool, optional
        Excluded columns (sparse) or terms (Annotations). Default for Annotations:
        :func:`exclusion_mask` with its defaults; for sparse matrices: none.
    average : {'macro', 'micro'}, default 'macro'
    thresholds : 'exact' or float, default 'exact'

    Returns
    -------
    (float, float)
        The best F (ties within rounding to the highest threshold) and its
        threshold; NaN, NaN when no benchmark protein is covered at any threshold.

    Examples
    --------
    Columns: 0 the root, 1 and 2 its children, 3 a child of 1.

    >>> import numpy as np, scipy.sparse as sp
    >>> anc = sp.csr_array(np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 1]], dtype=bool))
    >>> y_true = sp.csr_array(np.array([[1, 1, 0, 1]], dtype=bool))  # T* = {3}
    >>> y_score = sp.csr_array(np.array([[0.9, 0.9, 0.5, 0.0]]))    # P* = {1} (L) at 0.9, {1, 2} (L, U) at 0.5
    >>> nonredundant_f(y_true, y_score, ancestors=anc, excluded=np.array([True, False, False, False]))
    (0.75, 0.9)
    """
    check_choice(average, "average", "nonredundant_f", ("macro", "micro"))
    if sp.issparse(y_true) and sp.issparse(y_score):
        if ancestors is None:
            raise InvalidParameterError("nonredundant_f needs 'ancestors' for sparse matrices.")
        tm, sm = sp.csr_array(y_true != 0), sp.csr_array(y_score).astype(np.float64)
        anc = sp.csr_array(ancestors)
        ex = np.zeros(tm.shape[1], bool) if excluded is None else np.asarray(excluded, bool)
    else:
        tm, sm, _ = _from_annotations(y_true, y_score, None)
        onto = y_true.ontology
        cols = np.arange(onto.n_terms)[_namespace_of(y_true)]
        anc = onto.ancestors_csr[cols][:, cols]
        ex = (exclusion_mask(onto) if excluded is None else np.asarray(excluded, bool))[cols]
        tm = sp.csr_array(tm != 0)
    tm.sort_indices()
    sm = sm.tocsr()
    sm.sum_duplicates()
    bench = np.flatnonzero(np.diff(tm.indptr) > 0)
    tm, sm = tm[bench], sm[bench]
    taus = _thresholds(thresholds, sm.data)
    cur = nonredundant_curves(nonredundant_sums(sm.indptr, sm.indices, sm.data, tm.indptr, tm.indices, anc, ex, taus))
    column = "f" if average == "macro" else "f_micro"
    values = cur[column]
    j = best_index(values, "max", cur["n_covered"] > 0, ties="high")
    if j < 0:
        return float("nan"), float("nan")
    return float(values[j]), float(taus[j])

