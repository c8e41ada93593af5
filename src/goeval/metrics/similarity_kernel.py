"""Vectorized kernel of the similarity sweep (see :mod:`goeval.metrics.similarity`).

For a chunk of proteins (rows of one namespace, local term columns) the kernel
computes, for every protein and every *point* (a range of threshold levels
over which the protein's predicted set does not change), the per-protein
value of each requested measure. The steps, all array operations over the
whole chunk (Python loops only over ontology generations and tree levels):

1. entries: the predicted terms with their level ``l_e`` (number of
   thresholds ``<= score``); ancestors missing from a protein's entries are
   added as structural entries of level 0 (never predicted);
2. ``D_e``: the largest level of a proper descendant of ``e`` among the
   protein's entries (one pass per generation, deepest first); ``e`` is a
   leaf of ``P(tau_j)`` exactly for ``D_e < j <= l_e``;
3. the leaves of each truth set; IC of the most informative common ancestor
   of every (leaf of T, entry) pair by one pass per generation, top down:
   ``mica_t(p) = max([p in anc(t)] IC(p), max over parents q of mica_t(q))``
   - computed once per protein, never per threshold;
4. per protein, the sorted distinct breakpoints of the leaf and membership
   intervals are its points; additive quantities (sums over the leaves or
   the predicted terms) are difference arrays summed per protein; the best
   match of each truth leaf over the current leaves of P is a "max over
   the intervals covering a point" query, answered for all (protein, leaf)
   pairs at once by a segment tree (range update, point query).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from goeval.sparse import gather_rows
from goeval.ontology import Ontology

from goeval.metrics.registry import DISTANCES, IC_MEASURES, PAIR_MEASURES, SET_MEASURES
from goeval.metrics.registry import similarity_column as column_name
from goeval.metrics.wang import SValues, wang_pairs


# ----------------------------------------------------------------- structure
@dataclass(frozen=True, kw_only=True)
class Structure:
    """One namespace ``[lo, hi)`` in local indices: parents, closure, generation."""

    n: int
    parents: sp.csr_array
    anc_indptr: np.ndarray
    anc_indices: np.ndarray
    generation: np.ndarray


_STRUCTURES: "weakref.WeakKeyDictionary[Ontology, dict[tuple[int, int], Structure]]" = weakref.WeakKeyDictionary()


def namespace_structure(ontology: Ontology, lo: int, hi: int) -> Structure:
    """The local structure of terms ``[lo, hi)`` (cached per ontology object)."""
    per = _STRUCTURES.setdefault(ontology, {})
    if (lo, hi) not in per:
        a = ontology.ancestors_csr
        ptr = a.indptr[lo : hi + 1].astype(np.int64)
        ind = a.indices[ptr[0] : ptr[-1]].astype(np.int64) - lo
        par = ontology.parents[lo:hi][:, lo:hi].tocsr()
        par.sort_indices()
        gen = ontology.generation[lo:hi].astype(np.int64)
        per[(lo, hi)] = Structure(n=hi - lo, parents=par, anc_indptr=ptr - ptr[0], anc_indices=ind, generation=gen)
    return per[(lo, hi)]


# ------------------------------------------------------------------ entries
@dataclass(kw_only=True)
class Entries:
    """A chunk's entries sorted by (row, column); ``start[r]:start[r+1]`` is row ``r``."""

    key: np.ndarray  # row * n + col, sorted, unique
    row: np.ndarray
    col: np.ndarray
    level: np.ndarray  # 0: structural, never predicted
    start: np.ndarray
    child: np.ndarray  # entry-parent edges (positions), sorted by child generation
    parent: np.ndarray


def _lookup(keys: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Position of each query in the sorted distinct ``keys``, -1 when absent.

    The keys of a chunk (``row * n + col``) span a few rows of columns: when that span is small against the
    arrays, a dense table of positions over it answers every query at once (a binary search of unsorted
    queries is slower); otherwise the keys are searched.
    """
    if keys.size == 0:
        return np.full(query.size, -1, np.int64)
    lo, span = int(keys[0]), int(keys[-1]) - int(keys[0]) + 1
    if span < 64 * (keys.size + query.size) and keys.size < 2**31 - 1:
        table = np.full(span, -1, np.int32)
        table[keys - lo] = np.arange(keys.size, dtype=np.int32)
        at = query - lo
        inside = (at >= 0) & (at < span)
        return np.where(inside, table[np.where(inside, at, 0)], -1).astype(np.int64)
    pos = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    return np.where(keys[pos] == query, pos, -1)


def _parent_edges(st: Structure, row: np.ndarray, col: np.ndarray, key: np.ndarray):
    lens, par = gather_rows(st.parents.indptr, st.parents.indices, col)
    child = np.repeat(np.arange(col.size, dtype=np.int64), lens)
    pkey = row[child] * st.n + par
    return child, pkey, _lookup(key, pkey)


def make_entries(st: Structure, n_rows: int, rows: np.ndarray, cols: np.ndarray, level: np.ndarray) -> Entries:
    """Entries of level >= 1 (duplicates keep the highest level), closed under parents."""
    keep = level > 0
    key = rows[keep].astype(np.int64) * st.n + cols[keep]
    lev = level[keep].astype(np.int64)
    order = np.argsort(key, kind="stable")
    key, lev = key[order], lev[order]
    if key.size:
        first = np.r_[True, key[1:] != key[:-1]]
        lev = np.maximum.reduceat(lev, np.flatnonzero(first))
        key = key[first]
    while True:  # add missing ancestors (fill propagation, masked terms) as structural entries
        row, col = np.divmod(key, st.n)
        child, pkey, ppos = _parent_edges(st, row, col, key)
        missing = np.unique(pkey[ppos < 0])
        if missing.size == 0:
            break
        key = np.r_[key, missing]
        lev = np.r_[lev, np.zeros(missing.size, np.int64)]
        order = np.argsort(key, kind="stable")
        key, lev = key[order], lev[order]
    by_gen = np.argsort(st.generation[col[child]], kind="stable")
    start = np.searchsorted(row, np.arange(n_rows + 1))
    return Entries(key=key, row=row, col=col, level=lev, start=start, child=child[by_gen], parent=ppos[by_gen])


def descendant_levels(st: Structure, ent: Entries) -> np.ndarray:
    """``D_e``: the largest level of a proper descendant of each entry among its row's entries."""
    d = np.zeros(ent.key.size, np.int64)
    if ent.child.size == 0:
        return d
    g = st.generation[ent.col[ent.child]]
    cuts = np.flatnonzero(np.diff(g)) + 1
    bounds = list(zip(np.r_[0, cuts], np.r_[cuts, g.size]))
    for a, b in reversed(bounds):  # deepest children first: their D is final
        c, p = ent.child[a:b], ent.parent[a:b]
        np.maximum.at(d, p, np.maximum(ent.level[c], d[c]))
    return d


# -------------------------------------------------------------------- truth
@dataclass(kw_only=True)
class Truth:
    key: np.ndarray  # sorted row * n + col of the truth terms
    leaf_row: np.ndarray  # leaves of T, sorted by (row, col)
    leaf_col: np.ndarray
    n_leaves: np.ndarray  # per row
    size: np.ndarray  # |T| per row


def make_truth(st: Structure, indptr: np.ndarray, cols: np.ndarray) -> Truth:
    """Truth keys and leaves (terms without a proper descendant in the set)."""
    n_rows = indptr.size - 1
    rows = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(indptr))
    key = np.unique(rows * st.n + cols.astype(np.int64))
    row, col = np.divmod(key, st.n)
    lens, anc = gather_rows(st.anc_indptr, st.anc_indices, col)
    owner = np.repeat(np.arange(col.size), lens)
    proper = anc != col[owner]
    pos = _lookup(key, row[owner[proper]] * st.n + anc[proper])
    inner = np.zeros(key.size, bool)
    inner[pos[pos >= 0]] = True
    leaf = ~inner
    return Truth(key=key, leaf_row=row[leaf], leaf_col=col[leaf], n_leaves=np.bincount(row[leaf], minlength=n_rows),
                 size=np.bincount(row, minlength=n_rows))


# --------------------------------------------------------------------- MICA
def term_values(measure: str, ict: np.ndarray, icp: np.ndarray, mic: np.ndarray) -> np.ndarray:
    """A term measure from IC(t), IC(p) and IC(MICA) (see :func:`goeval.metrics.similarity.pair_similarity`)."""
    if measure == "resnik":
        return mic.copy()
    if measure == "jc":
        return (ict - mic) + (icp - mic)
    den = ict + icp
    lin = np.divide(2.0 * mic, den, out=np.ones_like(den), where=den > 0)  # 0/0 := 1
    if measure == "lin":
        return lin
    return lin * (1.0 - np.exp2(-mic))  # schlicker: p(MICA) = 2**-IC(MICA)


@dataclass(kw_only=True)
class Items:
    """(truth leaf q, entry e) pairs, q-major: ``qstart[q] + (e - start[row(q)])``."""

    q_row: np.ndarray
    q_col: np.ndarray
    qstart: np.ndarray
    entry: np.ndarray
    mica: np.ndarray


def mica_items(st: Structure, ic: np.ndarray | None, ent: Entries, tr: Truth) -> Items:
    """IC of the MICA of every (leaf of T, entry of the same protein) pair, by generations (0 without ``ic``:
    only the pairs are wanted)."""
    q_row, q_col = tr.leaf_row, tr.leaf_col
    e_len = np.diff(ent.start)[q_row]
    qstart = np.r_[0, np.cumsum(e_len)]
    total = int(qstart[-1])
    entry = np.repeat(ent.start[q_row] - qstart[:-1], e_len) + np.arange(total)
    val = np.zeros(total)
    if ic is None:
        return Items(q_row=q_row, q_col=q_col, qstart=qstart, entry=entry, mica=val)
    # initial values: p in anc(t) gives IC(p)
    lens, anc = gather_rows(st.anc_indptr, st.anc_indices, q_col)
    owner = np.repeat(np.arange(q_row.size), lens)
    pos = _lookup(ent.key, q_row[owner] * st.n + anc)
    hit = pos >= 0
    val[qstart[owner[hit]] + pos[hit] - ent.start[q_row[owner[hit]]]] = ic[anc[hit]]
    # pass down the generations: children take the max over their parents
    q_first = np.searchsorted(q_row, np.arange(ent.start.size - 1))
    n_q = np.bincount(q_row, minlength=ent.start.size - 1)
    g = st.generation[ent.col[ent.child]]
    cuts = np.flatnonzero(np.diff(g)) + 1
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, g.size]):
        c, p = ent.child[a:b], ent.parent[a:b]
        r = ent.row[c]
        k = n_q[r]
        qs = np.repeat(q_first[r], k) + (np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k))
        off = qstart[qs] - ent.start[ent.row[np.repeat(c, k)]]
        np.maximum.at(val, off + np.repeat(c, k), val[off + np.repeat(p, k)])
    return Items(q_row=q_row, q_col=q_col, qstart=qstart, entry=entry, mica=val)


# ------------------------------------------------------------------- points
@dataclass
class Points:
    """Per (row, point): the first level of the point and the row of each point."""

    row: np.ndarray
    level: np.ndarray  # first threshold level (1-based) of the point
    start: np.ndarray  # per row: points start[r]:start[r+1]
    key: np.ndarray


def make_points(n_rows: int, m: int, ent: Entries, d: np.ndarray, leafy: np.ndarray) -> Points:
    """Distinct breakpoints per row: 1, every ``l_e + 1``, every ``D_e + 1`` of a leaf interval."""
    pred = ent.level > 0
    b = np.r_[np.arange(n_rows, dtype=np.int64) * (m + 2) + 1,
              ent.row[pred] * (m + 2) + ent.level[pred] + 1,
              ent.row[leafy] * (m + 2) + d[leafy] + 1]
    key = np.unique(b)
    row, level = np.divmod(key, m + 2)
    return Points(row, level, np.searchsorted(row, np.arange(n_rows + 1)), key)


def point_of(pts: Points, m: int, row: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Global point index of breakpoint ``level`` of each row (must exist)."""
    return np.searchsorted(pts.key, row * (m + 2) + level)


def interval_sums(pts: Points, a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per point: sum of ``w`` over the intervals ``[a, b)`` (global point indices) covering it."""
    n = pts.key.size
    diff = np.bincount(a, weights=w, minlength=n + 1) - np.bincount(b, weights=w, minlength=n + 1)
    cs = np.cumsum(diff[:n])
    base = np.r_[0.0, cs][pts.start[:-1]]  # running total before each row's first point
    return cs - np.repeat(base, np.diff(pts.start))


def interval_max(n_groups_pts: np.ndarray, group: np.ndarray, a: np.ndarray, b: np.ndarray,
                 vals: np.ndarray) -> np.ndarray:
    """Per (group, point): max of ``vals`` over the items whose ``[a, b)`` covers the point.

    ``n_groups_pts[g]`` points per group; ``a``, ``b`` are local point indices.
    A segment tree per group (size: next power of two), range updates by
    canonical nodes with ``np.maximum.at``, then point queries up the tree.
    Returns shape (sum of points, vals.shape[1]); -inf where nothing covers.
    """
    k = vals.shape[1]
    size = np.ones(n_groups_pts.size, np.int64)
    np.left_shift(1, np.ceil(np.log2(np.maximum(n_groups_pts, 1))).astype(np.int64), out=size)
    base = np.r_[0, np.cumsum(2 * size)]
    tree = np.full((int(base[-1]), k), -np.inf)
    live = a < b
    gb, gs = base[group[live]], size[group[live]]
    lo, hi, v = a[live] + gs, b[live] + gs, vals[live]
    while lo.size:
        odd = (lo & 1) == 1
        np.maximum.at(tree, gb[odd] + lo[odd], v[odd])
        lo = lo + odd
        odd = (hi & 1) == 1
        hi = hi - odd
        np.maximum.at(tree, gb[odd] + hi[odd], v[odd])
        lo, hi = lo >> 1, hi >> 1
        live = lo < hi
        lo, hi, v, gb = lo[live], hi[live], v[live], gb[live]
    pg = np.repeat(np.arange(n_groups_pts.size), n_groups_pts)
    local = np.arange(pg.size) - np.repeat(np.cumsum(n_groups_pts) - n_groups_pts, n_groups_pts)
    node = local + size[pg]
    out = tree[base[pg] + node]
    while True:
        node = node >> 1
        up = node >= 1
        if not up.any():
            break
        np.maximum(out, np.where(up[:, None], tree[base[pg] + np.maximum(node, 1)], -np.inf), out=out)
    return out


# ------------------------------------------------------------ chunk values
@dataclass
class ChunkValues:
    """Per-point values of every requested column (0 where undefined) and where they are defined."""

    points: Points
    values: dict[str, np.ndarray]
    defined: dict[str, np.ndarray]


def _safe_div(num: np.ndarray, den: np.ndarray, zero_over_zero: float) -> np.ndarray:
    return np.divide(num, den, out=np.full(num.shape, zero_over_zero), where=den > 0)


def _set_columns(n_cols: int, pts: Points, ent: Entries, tr: Truth, pa: np.ndarray, pb: np.ndarray, cnt: np.ndarray,
                 ic: np.ndarray, ia: np.ndarray | None, measures: tuple[str, ...], out: ChunkValues) -> None:
    """Jaccard, simGIC and the IA-weighted Jaccard of the predicted node sets at each point."""
    pred = ent.level > 0
    tp = (_lookup(tr.key, ent.key[pred]) >= 0).astype(np.float64)
    n_rows = pts.start.size - 1
    t_row, t_col = np.divmod(tr.key, n_cols)
    covered = cnt > 0.5
    for name in measures:
        if name == "jaccard":
            w_true, w_pred = np.ones(t_col.size), np.ones(pa.size)
        else:
            w = ic if name == "simgic" else ia
            w_true, w_pred = w[t_col], w[ent.col[pred]]
        tot_t = np.bincount(t_row, weights=w_true, minlength=n_rows)[pts.row]
        s_p = interval_sums(pts, pa, pb, w_pred)
        s_tp = interval_sums(pts, pa, pb, w_pred * tp)
        val = _safe_div(s_tp, (tot_t - s_tp) + s_p, 1.0)  # 0/0 := 1: nothing informative on either side
        out.values[name] = np.where(covered, val, 0.0)
        out.defined[name] = covered


def _item_values(measure: str, t: np.ndarray, p: np.ndarray, mic: np.ndarray, ic: np.ndarray | None,
                 svalues: SValues | None) -> np.ndarray:
    """A term measure of the (truth leaf ``t``, entry ``p``) pairs: Wang's from the S-values, the others from IC."""
    if measure == "wang":
        return wang_pairs(svalues, t, p)
    return term_values(measure, ic[t], ic[p], mic)


def _pairing_value(pairing: str, s: float, a_sum: np.ndarray, r_sum: np.ndarray | None, b_sum: np.ndarray | None,
                   top: np.ndarray | None, m_t: np.ndarray, n_p: np.ndarray) -> np.ndarray:
    """One pairing from the per-point sums (``s`` = -1 for a distance: every max is then a min).

    ``a_sum``: sum over all pairs; ``r_sum``/``b_sum``: sums of the truth leaves' / the predicted leaves'
    best matches; ``top``: the best match over all pairs (larger-is-better scale).
    """
    if pairing == "all":
        return _safe_div(a_sum, m_t * n_p, 0.0)
    if pairing == "bma":
        return _safe_div(r_sum + b_sum, m_t + n_p, 0.0)
    if pairing == "bma-mean":
        return 0.5 * (_safe_div(r_sum, m_t, 0.0) + _safe_div(b_sum, n_p, 0.0))
    if pairing == "max":
        return top * s
    return np.maximum(_safe_div(r_sum * s, m_t, 0.0), _safe_div(b_sum * s, n_p, 0.0)) * s  # rcmax


def _pair_columns(st: Structure, pts: Points, ent: Entries, d: np.ndarray, leafy: np.ndarray, tr: Truth,
                  ic: np.ndarray | None, svalues: SValues | None, m: int, measures: tuple[str, ...],
                  pairings: tuple[str, ...], out: ChunkValues) -> None:
    """All-pair and best-match averages of the term measures over the leaves of T and of P(tau)."""
    it = mica_items(st, ic if any(x in IC_MEASURES for x in measures) else None, ent, tr)
    sel = np.flatnonzero(leafy[it.entry])
    q = np.repeat(np.arange(it.q_row.size), np.diff(it.qstart))[sel]
    e = it.entry[sel]
    sign = np.array([-1.0 if x in DISTANCES else 1.0 for x in measures])
    sims = np.stack([_item_values(x, it.q_col[q], ent.col[e], it.mica[sel], ic, svalues) for x in measures],
                    axis=1) * sign  # larger is better
    le = np.flatnonzero(leafy)
    la = point_of(pts, m, ent.row[le], d[le] + 1)
    lb = point_of(pts, m, ent.row[le], ent.level[le] + 1)
    n_p = interval_sums(pts, la, lb, np.ones(le.size))
    m_t = tr.n_leaves[pts.row].astype(np.float64)
    ok = (n_p > 0.5) & (m_t > 0)
    n_e = ent.key.size
    colbest = np.full((n_e, len(measures)), -np.inf)
    np.maximum.at(colbest, e, sims)
    colbest[~np.isfinite(colbest)] = 0.0  # entries never a leaf, or rows without truth leaves
    if any(p != "all" for p in pairings):
        k_row = np.diff(pts.start)
        pos = np.full(n_e, -1, np.int64)
        pos[le] = np.arange(le.size)
        a = la[pos[e]] - pts.start[ent.row[e]]
        b = lb[pos[e]] - pts.start[ent.row[e]]
        best = interval_max(k_row[it.q_row], q, a, b, sims)
        best[~np.isfinite(best)] = 0.0
        gp = np.repeat(pts.start[it.q_row], k_row[it.q_row])
        gp = gp + (np.arange(gp.size) - np.repeat(np.cumsum(k_row[it.q_row]) - k_row[it.q_row], k_row[it.q_row]))
    for j, name in enumerate(measures):
        s = sign[j]
        col_sum = np.bincount(e, weights=sims[:, j], minlength=n_e) * s
        a_sum = interval_sums(pts, la, lb, col_sum[le])
        r_sum = b_sum = top = None
        if any(p != "all" for p in pairings):
            r_sum = np.bincount(gp, weights=best[:, j], minlength=pts.key.size) * s
            b_sum = interval_sums(pts, la, lb, colbest[le, j] * s)
        if "max" in pairings:
            top = np.full(pts.key.size, -np.inf)
            np.maximum.at(top, gp, best[:, j])
        for pairing in pairings:
            val = _pairing_value(pairing, s, a_sum, r_sum, b_sum, top, m_t, n_p)
            col = column_name(name, pairing)
            out.values[col] = np.where(ok, val, 0.0)
            out.defined[col] = ok


def chunk_values(st: Structure, truth_indptr: np.ndarray, truth_cols: np.ndarray, rows: np.ndarray,
                 cols: np.ndarray, level: np.ndarray, m: int, ic: np.ndarray | None, ia: np.ndarray | None,
                 measures: tuple[str, ...], pairings: tuple[str, ...], *,
                 svalues: SValues | None = None) -> ChunkValues:
    """Per-point values of a chunk: entries ``(rows, cols)`` predicted up to threshold level ``level``.

    ``m`` is the number of thresholds; local columns; ``ic``/``ia``/``svalues`` local (``svalues``: the
    namespace's S-values, for ``wang``).
    """
    n_rows = truth_indptr.size - 1
    ent = make_entries(st, n_rows, rows, cols, level)
    d = descendant_levels(st, ent)
    leafy = ent.level > d
    tr = make_truth(st, truth_indptr, truth_cols)
    pts = make_points(n_rows, m, ent, d, leafy)
    out = ChunkValues(pts, {}, {})
    pred = np.flatnonzero(ent.level > 0)
    pa = point_of(pts, m, ent.row[pred], np.ones(pred.size, np.int64))
    pb = point_of(pts, m, ent.row[pred], ent.level[pred] + 1)
    cnt = interval_sums(pts, pa, pb, np.ones(pred.size))
    pair = tuple(x for x in measures if x in PAIR_MEASURES)
    if pair and pairings:
        _pair_columns(st, pts, ent, d, leafy, tr, ic, svalues, m, pair, pairings, out)
    sets = tuple(x for x in measures if x in SET_MEASURES)
    if sets:
        _set_columns(st.n, pts, ent, tr, pa, pb, cnt, ic, ia, sets, out)
    return out
