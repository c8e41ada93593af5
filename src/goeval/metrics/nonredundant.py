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
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.errors import InputFormatError, InvalidParameterError, check_choice
from goeval.metrics.protein import _from_annotations, _namespace_of, _thresholds, best_index, f_score
from goeval.sweep.kernel import _levels, chunk_bounds
from goeval.sweep.thresholds import grid_multiplier

__all__ = ["WEIGHTS", "BINDING_TERMS", "DO_NOT_ANNOTATE", "NonredundantSums", "nonredundant_sums",
           "nonredundant_curves", "nonredundant_f", "exclusion_mask"]

#: Partial credit of an exact (E), less specific (L) and more specific (M) predicted term.
WEIGHTS = {"E": 1.0, "L": 0.75, "M": 0.5}
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
def _strict_ancestor_pairs(keys_row: np.ndarray, cols: np.ndarray, anc: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """(entry index, strict ancestor column) of every entry (row, col) through the closure ``anc``."""
    lo, hi = anc.indptr[cols], anc.indptr[cols + 1]
    n = hi - lo
    entry = np.repeat(np.arange(cols.size), n)
    pos = np.arange(entry.size) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
    a = anc.indices[pos].astype(np.int64)
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


def _member(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in the sorted array ``table``."""
    if table.size == 0:
        return np.zeros(keys.size, bool)
    i = np.minimum(np.searchsorted(table, keys), table.size - 1)
    return table[i] == keys


def _find(keys: np.ndarray, table: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which ``keys`` are in ``table`` (sorted by ``order``), and their positions in ``table``."""
    found = _member(keys, table[order])
    pos = np.searchsorted(table[order], keys[found]) if table.size else np.zeros(0, np.int64)
    return found, order[pos]


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


def _chunk_events(r0: int, r1: int, pred: tuple[np.ndarray, ...], truth: tuple[np.ndarray, np.ndarray],
                  anc: sp.csr_array, excluded: np.ndarray, thresholds: np.ndarray, grid_n: int) -> dict[str, Any]:
    """Interval events of every count of proteins [r0, r1): (protein, start, end) per count, and |T*|."""
    p_indptr, p_cols, p_scores = pred
    t_indptr, t_cols = truth
    n_cols = excluded.size
    a, b = int(p_indptr[r0]), int(p_indptr[r1])
    prow = np.repeat(np.arange(r0, r1, dtype=np.int64), np.diff(p_indptr[r0 : r1 + 1]))
    pcol, score = p_cols[a:b].astype(np.int64), p_scores[a:b].astype(np.float64)
    keep = ~excluded[pcol] & ~np.isnan(score)
    prow, pcol, score = prow[keep], pcol[keep], score[keep]
    ta, tb = int(t_indptr[r0]), int(t_indptr[r1])
    trow = np.repeat(np.arange(r0, r1, dtype=np.int64), np.diff(t_indptr[r0 : r1 + 1]))
    tcol = t_cols[ta:tb].astype(np.int64)
    kt = ~excluded[tcol]
    trow, tcol = trow[kt], tcol[kt]
    # T*: the truth terms (not excluded) that are no strict ancestor of another one
    te, tanc = _strict_ancestor_pairs(trow, tcol, anc)
    has_desc = np.unique(trow[te] * n_cols + tanc)
    tkey = trow * n_cols + tcol
    leaf = ~_member(tkey, has_desc)
    star_row, star_col = trow[leaf], tcol[leaf]
    star = np.sort(star_row * n_cols + star_col)
    truth_keys = np.sort(tkey)
    # the leaf interval [lev_c, lev_s) of every predicted term, in threshold indices
    pkey = prow * n_cols + pcol
    order = np.argsort(pkey, kind="stable")
    pe, panc = _strict_ancestor_pairs(prow, pcol, anc)
    akey = prow[pe] * n_cols + panc
    c = np.full(pcol.size, -np.inf)
    found, at = _find(akey, pkey, order)
    np.maximum.at(c, at, score[pe[found]])
    lev_s = _levels(thresholds, score, grid_n)
    lev_c = np.where(np.isfinite(c), _levels(thresholds, np.where(np.isfinite(c), c, 0.0), grid_n), 0)
    lev_c = np.minimum(lev_c, lev_s)
    # categories
    is_e = _member(pkey, star)
    is_l = ~is_e & _member(pkey, truth_keys)
    anc_in_star = _member(akey, star)
    has_star_anc = np.zeros(pcol.size, bool)
    has_star_anc[pe[anc_in_star]] = True
    is_m = ~is_e & ~is_l & has_star_anc
    is_u = ~(is_e | is_l | is_m)
    ev = {k: (prow[m], lev_c[m], lev_s[m]) for k, m in (("E", is_e), ("M", is_m), ("U", is_u))}
    # pairs (r in T*, comparable predicted v): v below r (M, E) and v above r (L)
    sa_e, sa_a = _strict_ancestor_pairs(star_row, star_col, anc)
    up_key = star_row[sa_e] * n_cols + sa_a
    up_ok, up_v = _find(up_key, pkey, order)
    up_r = sa_e[up_ok]  # up_v a predicted strict ancestor of r = star[up_r]
    star_index = np.searchsorted(star, star_row * n_cols + star_col)  # position of each T* entry in `star`
    down_v = pe[anc_in_star]
    down_r = np.searchsorted(star, akey[anc_in_star])
    e_v = np.flatnonzero(is_e)
    z_group = np.r_[star_index[up_r], down_r, np.searchsorted(star, pkey[e_v])]
    z_v = np.r_[up_v, down_v, e_v]
    g, s0, s1 = _union(z_group, lev_c[z_v], lev_s[z_v])
    ev["mapped"] = (star[g] // n_cols, s0, s1)
    # L: one count per distinct set of T* terms below the L terms, while one of them is a leaf
    l_terms = np.flatnonzero(is_l)
    slot = np.full(pcol.size, -1)
    slot[l_terms] = np.arange(l_terms.size)
    in_l = is_l[up_v]
    sig = _set_signatures(slot[up_v[in_l]], star_index[up_r[in_l]], l_terms.size)
    skey = np.c_[prow[l_terms].astype(np.uint64), sig]
    _, l_group = np.unique(skey, axis=0, return_inverse=True)
    g, s0, s1 = _union(l_group.ravel().astype(np.int64), lev_c[l_terms], lev_s[l_terms])
    first_member = np.full(int(l_group.max()) + 1 if l_terms.size else 0, 0)
    first_member[l_group.ravel()] = l_terms
    ev["L"] = (prow[first_member[g]], s0, s1)
    n_star = np.bincount(star_row - r0, minlength=r1 - r0)
    return {"events": ev, "n_star": n_star}


def _protein_sums(ev: dict[str, tuple[np.ndarray, ...]], n_star: np.ndarray, r0: int, m: int,
                  out: NonredundantSums) -> None:
    """Add to ``out`` the counts and per-protein precision and recall of one chunk's events."""
    rows, idx, deltas = [], [], {k: [] for k in ("E", "L", "M", "U", "mapped")}
    for k, (row, s0, s1) in ev.items():
        for where, sign in ((s0, 1.0), (s1, -1.0)):
            rows.append(row)
            idx.append(where)
            for kk in deltas:
                deltas[kk].append(np.full(row.size, sign if kk == k else 0.0))
    row, at = np.concatenate(rows), np.concatenate(idx).astype(np.int64)
    d = {k: np.concatenate(v) for k, v in deltas.items()}
    benchmark = n_star[row - r0] > 0
    row, at, d = row[benchmark], at[benchmark], {k: v[benchmark] for k, v in d.items()}
    for k in ("E", "L", "M", "U"):
        getattr(out, k)[:] += np.cumsum(np.bincount(at, weights=d[k], minlength=m + 1))[:m]
    out.Z[:] -= np.cumsum(np.bincount(at, weights=d["mapped"], minlength=m + 1))[:m]
    out.Z[:] += float(n_star.sum())
    out.n += int((n_star > 0).sum())
    if row.size == 0:
        return
    order = np.lexsort((at, row))
    row, at, d = row[order], at[order], {k: v[order] for k, v in d.items()}
    starts = np.flatnonzero(np.r_[True, (row[1:] != row[:-1]) | (at[1:] != at[:-1])])
    first = np.r_[True, row[starts][1:] != row[starts][:-1]]
    seg = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, row.size]))
    state = {}
    for k, v in d.items():
        grouped = np.bincount(seg, weights=v, minlength=starts.size)
        cs = np.cumsum(grouped)
        base = np.repeat(np.r_[0.0, cs][np.flatnonzero(first)], np.diff(np.r_[np.flatnonzero(first), starts.size]))
        state[k] = np.round(cs - base)
    z = n_star[row[starts] - r0] - state["mapped"]
    num = WEIGHTS["E"] * state["E"] + WEIGHTS["L"] * state["L"] + WEIGHTS["M"] * state["M"]
    found = state["E"] + state["L"] + state["M"]
    covered = (found + state["U"]) > 0
    pr = np.divide(num, found + state["U"], out=np.zeros(num.size), where=covered)
    rc = np.divide(num, found + z, out=np.zeros(num.size), where=(found + z) > 0)
    at_g = at[starts]
    for name, value in (("pr_sum", pr), ("rc_sum", rc), ("n_covered", covered.astype(np.float64))):
        before = np.r_[0.0, value[:-1]]
        before[first] = 0.0
        getattr(out, name)[:] += np.cumsum(np.bincount(at_g, weights=value - before, minlength=m + 1))[:m]


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
    """Per-threshold sums of the non-redundant counts of one run of proteins (a leaf of the engine).

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
        add the sums of several leaves with ``+``.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    excluded = np.asarray(excluded, dtype=bool)
    m, n = thresholds.size, pred_indptr.size - 1
    if truth_indptr.size - 1 != n:
        raise InvalidParameterError("Predictions and truth must have the same rows.")
    if ancestors.shape != (excluded.size, excluded.size):
        raise InvalidParameterError(
            f"The ancestors must be a ({excluded.size}, {excluded.size}) closure; got shape {ancestors.shape}.")
    grid_n = grid_multiplier(thresholds) if m else 0
    anc = sp.csr_array(ancestors)
    out = NonredundantSums.zeros(thresholds)
    if n == 0:
        return out
    both = np.asarray(pred_indptr, dtype=np.int64) + np.asarray(truth_indptr, dtype=np.int64)
    bounds = chunk_bounds(both, chunk_entries)
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        got = _chunk_events(r0, r1, (pred_indptr, pred_cols, pred_scores), (truth_indptr, truth_cols), anc,
                            excluded, thresholds, grid_n)
        _protein_sums(got["events"], got["n_star"], r0, m, out)
    return out


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
    i = best_index(values[::-1], "max", cur["n_covered"][::-1] > 0)
    if i < 0:
        return float("nan"), float("nan")
    j = values.size - 1 - i
    return float(values[j]), float(taus[j])

