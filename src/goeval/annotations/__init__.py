"""Sparse protein x term annotations and predictions; propagation.

An :class:`Annotations` object holds one sparse row per protein over the
global term index of an :class:`~goeval.ontology.Ontology` (bool for truth
sets, float64 for prediction scores). Nothing here opens files: readers in
:mod:`goeval.io` return :class:`~goeval.io.pairs.PairTable` objects, which
:func:`map_table` turns into annotations, counting every remapped or
dropped row.

Propagation (CR13 §3, the consistency requirement)
    * truth: ``T`` becomes its ancestor closure within the namespace;
    * predictions, ``mode="max"``: ``s(v) <- max(s(v), max_{u child} s(u))``,
      so ``P(tau) = {v : s(v) >= tau}`` is consistent at every ``tau``;
    * predictions, ``mode="fill"``: an ancestor takes the maximum descendant
      score only where it has no own score.

The kernel works on chunks of proteins with a bounded dense buffer per
namespace (about ``buffer_cells`` float64 cells), visits the generations of
the DAG from the deepest up, and only touches predicted cells, so its cost
is proportional to the propagated predictions plus one linear scan of the
buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.sparse import column_block, gather_rows
from goeval.errors import InvalidParameterError, check_choice
from goeval.io.pairs import PairTable
from goeval.ontology import Ontology, TermStatus

__all__ = [
    "Annotations", "map_table", "merge_annotations", "propagate", "propagate_rows", "is_consistent",
    "pair_keys", "in_pairs", "remove_pairs", "PROPAGATION_BUFFER_CELLS",
]

#: Default size of the dense working buffer of :func:`propagate_rows` (float64 cells, 16 MiB).
PROPAGATION_BUFFER_CELLS = 1 << 21


@dataclass(eq=False)
class Annotations:
    """Sparse annotations (truth) or scores (predictions) of proteins.

    Attributes
    ----------
    proteins : ndarray of str, shape (n_proteins,)
        Protein identifiers, one per row.
    matrix : scipy.sparse.csr_array, shape (n_proteins, n_terms)
        ``bool`` for truth sets, ``float64`` scores in [0, 1] for predictions;
        columns are term indices of ``ontology``.
    ontology : Ontology
    propagated : bool
        Whether the rows are closed under ancestors.
    diagnostics : dict
        Counts from reading and mapping.
    """

    proteins: np.ndarray
    matrix: sp.csr_array
    ontology: Ontology
    propagated: bool = False
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def is_scores(self) -> bool:
        """True for predictions (float scores), False for truth sets."""
        return self.matrix.dtype != np.bool_

    def __repr__(self) -> str:
        kind = "scores" if self.is_scores else "annotations"
        return f"<Annotations {kind}: {self.matrix.shape[0]} proteins, {self.matrix.nnz} entries, propagated={self.propagated}>"

    def namespace(self, name: str | int, *, drop_empty: bool = True) -> "Annotations":
        """The rows restricted to one namespace's terms (columns keep global indices)."""
        s = self.ontology.namespace_slice(name)
        m = self.matrix.tocsr()
        ptr, cols, data = column_block(m, s.start, s.stop)
        counts = np.diff(ptr)
        if drop_empty:
            sel = np.flatnonzero(counts > 0)
            ptr = np.r_[0, np.cumsum(counts[sel])]
        else:
            sel = np.arange(m.shape[0])
        sub = sp.csr_array((data, cols, ptr), shape=(sel.size, m.shape[1]))
        return Annotations(self.proteins[sel], sub, self.ontology, self.propagated, dict(self.diagnostics))

    def to_frame(self):  # noqa: ANN201 - pandas.DataFrame
        """Long table ``protein, term[, score]`` (pandas)."""
        import pandas as pd

        coo = self.matrix.tocoo()
        d = {"protein": self.proteins[coo.row], "term": self.ontology.ids[coo.col]}
        if self.is_scores:
            d["score"] = coo.data
        return pd.DataFrame(d)

    @classmethod
    def from_pairs(
        cls, ontology: Ontology, proteins: Any, terms: Any, scores: Any = None
    ) -> "Annotations":
        """Build from parallel sequences of ids (and scores), e.g. in a notebook."""
        return map_table(PairTable.from_arrays(proteins, terms, scores), ontology)


def map_table(table: PairTable, ontology: Ontology) -> Annotations:
    """Map a :class:`PairTable` onto ``ontology`` term indices.

    alt_ids are mapped to their primary id, obsolete terms with a single
    ``replaced_by`` to the replacement; other obsolete and unknown terms are
    dropped. Duplicated (protein, term) pairs keep the maximum score. Scores
    of exactly 0 can never reach a threshold (thresholds are > 0) and are
    dropped. Every such row is counted in ``diagnostics``.
    """
    idx, status = ontology.resolve(table.terms)
    diag = _term_status_diagnostics(table, status)
    rows, cols, scores = _kept_rows(table, idx, diag)
    proteins, rows = _renumber_proteins(table.proteins, rows, diag)
    m = _build_matrix(rows, cols, scores, proteins.size, ontology.n_terms, diag)
    return Annotations(proteins, m, ontology, False, diag)


def _term_status_diagnostics(table: PairTable, status: np.ndarray) -> dict[str, Any]:
    """The table's counts, its rows by term status and examples of the remapped and dropped terms."""
    names = TermStatus.NAMES
    if len(table):
        row_status_counts = np.bincount(status[table.term_codes], minlength=len(names))
    else:
        row_status_counts = np.zeros(5, np.int64)
    diag: dict[str, Any] = {"source": table.source, "rows_read": len(table), **table.counts}
    diag["rows_by_term_status"] = {names[k]: int(row_status_counts[k]) for k in range(len(names))}
    for code, label in (
        (TermStatus.UNKNOWN, "unknown_terms"), (TermStatus.OBSOLETE, "obsolete_terms_dropped"),
        (TermStatus.ALT_ID, "alt_id_remapped"), (TermStatus.REPLACED, "obsolete_replaced"),
    ):
        bad = np.flatnonzero(status == code)
        if bad.size:
            diag[label] = {"distinct": int(bad.size), "examples": sorted(table.terms[bad].tolist())[:10]}
    return diag


def _kept_rows(
    table: PairTable, idx: np.ndarray, diag: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Protein codes, term indices and scores of the rows with a known term (and a score > 0)."""
    cols = idx.astype(np.int32)[table.term_codes]  # int32: half the memory of int64
    rows = table.protein_codes
    scores = table.scores
    keep = cols >= 0
    if scores is not None:
        keep &= scores > 0
        diag["zero_scores_dropped"] = int((scores == 0).sum())
    if not keep.all():
        rows, cols = rows[keep], cols[keep]
        scores = None if scores is None else scores[keep]
    return rows, cols, scores


def _renumber_proteins(
    all_proteins: np.ndarray, rows: np.ndarray, diag: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """The proteins that still have a row, in order of first appearance of their code, and the rows renumbered."""
    used = np.zeros(all_proteins.size, bool)
    used[rows] = True
    diag["proteins_without_kept_rows"] = int(all_proteins.size - used.sum())
    proteins = all_proteins[used]
    if not used.all():
        rows = (np.cumsum(used, dtype=np.int64) - 1).astype(np.int32)[rows]
    return proteins, rows


def _build_matrix(
    rows: np.ndarray, cols: np.ndarray, scores: np.ndarray | None, n_rows: int, n_terms: int,
    diag: dict[str, Any],
) -> sp.csr_array:
    """The CSR matrix of the pairs, duplicated pairs counted and merged (scores: their maximum)."""
    key = rows.astype(np.int64) * n_terms + cols
    key.sort()
    dup = int(np.count_nonzero(key[1:] == key[:-1])) if key.size else 0
    diag["duplicate_pairs"] = dup
    if scores is not None and not dup:
        del key
        return _group_rows(rows, cols, scores, n_rows, n_terms)
    if scores is None:
        key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key
        data = np.ones(key.size, bool)
    else:
        del key
        key, data = _max_of_duplicates(rows, cols, scores, n_terms)
    r, c = np.divmod(key, n_terms)
    del key
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=n_rows))]
    return sp.csr_array((data, c.astype(np.int32), indptr), shape=(n_rows, n_terms))


def _max_of_duplicates(
    rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct (row, term) keys and the maximum score of each."""
    key = rows.astype(np.int64) * n_terms + cols
    order = np.lexsort((-scores, key))
    key, scores = key[order], scores[order]
    first = np.r_[True, key[1:] != key[:-1]]
    return key[first], scores[first]


def _group_rows(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, n_rows: int, n_terms: int) -> sp.csr_array:
    """The CSR matrix of distinct pairs, grouped by row (input order within a row)."""
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=n_rows))]
    if rows.size and bool((rows[1:] >= rows[:-1]).all()):  # already grouped: no copy at all
        return sp.csr_array((scores, cols, indptr), shape=(n_rows, n_terms))
    order = np.argsort(rows, kind="stable")  # stable sort, about linear on nearly grouped files
    return sp.csr_array((scores[order], cols[order], indptr), shape=(n_rows, n_terms))


def propagate_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    ontology: Ontology,
    lo: int,
    hi: int,
    mode: str = "max",
    *,
    buffer_cells: int = PROPAGATION_BUFFER_CELLS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Propagate score rows whose columns all lie in one namespace ``[lo, hi)``.

    The kernel of :func:`propagate`, for callers that hold CSR pieces of one
    namespace (the evaluation propagates each method's namespace block
    without building an :class:`Annotations`).

    Parameters
    ----------
    indptr : ndarray of int, shape (n_rows + 1,)
    indices : ndarray of int, shape (nnz,)
        Global term indices in ``[lo, hi)``, no repeats within a row.
    data : ndarray of float64, shape (nnz,)
        Scores (>= 0).
    ontology : Ontology
    lo, hi : int
        Bounds of the namespace (``ontology.bounds[j]``, ``ontology.bounds[j + 1]``).
    mode : {'max', 'fill'}
        As for :func:`propagate`.
    buffer_cells : int
        Size of the dense working buffer (float64 cells); bounds memory.

    Returns
    -------
    counts : ndarray of int64, shape (n_rows,)
        Entries per row after propagation.
    cols : ndarray of int32, shape (counts.sum(),)
        Global term indices, sorted within each row.
    scores : ndarray of float64, shape (counts.sum(),)
        ``max``: ``s(v) = max(s(v), max over descendants u of s(u))``;
        ``fill``: the maximum descendant score only where ``v`` has no own score.

    Notes
    -----
    Rows are processed in chunks on a dense buffer (row stride a power of two)
    that is reset sparsely; generations are visited deepest first, each
    pushing its cells' scores to the direct parents. Only cells that carry a
    score are ever touched, so the cost is proportional to the number of
    propagated entries times the mean number of parents. Propagating the
    output again returns it unchanged.
    """
    check_choice(mode, "mode", "propagate_rows", ("max", "fill"))
    n_rows = indptr.size - 1
    prop = _RowPropagator(ontology, lo, hi, mode, n_rows, buffer_cells, int(indices.size * 1.25))
    for r0 in range(0, n_rows, prop.chunk):
        r1 = min(n_rows, r0 + prop.chunk)
        a, b = indptr[r0], indptr[r1]
        lr = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(indptr[r0 : r1 + 1]))
        cells = (lr << prop.shift) + (indices[a:b] - lo)
        prop.buf[cells] = data[a:b]
        if not prop.is_consistent(cells, data[a:b]):
            cells = prop.push_up(cells)
        prop.emit(np.sort(cells), r0, r1)
    return prop.counts, prop.out_c[: prop.n_out].copy(), prop.out_v[: prop.n_out].copy()


class _RowPropagator:
    """Working state of :func:`propagate_rows`: the dense buffer of a chunk of
    rows (row stride a power of two, reset sparsely), the parents of the
    namespace, and outputs that grow in place (no list of pieces plus a
    concatenation: half the peak memory)."""

    def __init__(self, ontology: Ontology, lo: int, hi: int, mode: str, n_rows: int, buffer_cells: int,
                 capacity: int) -> None:
        width = hi - lo
        self.lo = lo
        self.shift = max(1, int(width - 1).bit_length())
        stride = 1 << self.shift
        self.mask = stride - 1
        gen = ontology.generation[lo:hi].astype(np.int64)
        self.gen = (gen - gen.min() if gen.size else gen).astype(np.int16)  # radix-sortable
        self.n_gen = int(self.gen.max()) + 1 if self.gen.size else 1
        self.levels = np.arange(self.n_gen + 1)
        pp = ontology.parents
        self.p_ptr = (pp.indptr[lo : hi + 1] - pp.indptr[lo]).astype(np.int64)
        self.p_ind = pp.indices[pp.indptr[lo] : pp.indptr[hi]].astype(np.int64) - lo
        self.chunk = max(1, min(n_rows, buffer_cells // stride))
        size = self.chunk * stride
        self.buf = np.full(size, -1.0)  # -1: no score (scores are >= 0)
        self.pushed = np.full(size, -1.0) if mode == "fill" else None
        self.cap = max(16, capacity)
        self.out_c = np.empty(self.cap, np.int32)
        self.out_v = np.empty(self.cap)
        self.counts = np.zeros(n_rows, np.int64)
        self.n_out = 0

    def is_consistent(self, cells: np.ndarray, scores: np.ndarray) -> bool:
        """Fast path: every parent present (and for max with a score >= the
        child's), so no level-by-level pass is needed."""
        cols0 = cells & self.mask
        lens0, par0 = gather_rows(self.p_ptr, self.p_ind, cols0)
        pvals = self.buf[np.repeat(cells - cols0, lens0) + par0]
        if not bool((pvals >= 0).all()):
            return False
        return self.pushed is not None or bool((pvals >= np.repeat(scores, lens0)).all())

    def emit(self, allc: np.ndarray, r0: int, r1: int) -> None:
        """Append a chunk's final cells (sorted) to the outputs and reset them."""
        k = allc.size
        if self.n_out + k > self.cap:
            self.cap = max(2 * self.cap, self.n_out + k)
            self.out_c = np.resize(self.out_c, self.cap)
            self.out_v = np.resize(self.out_v, self.cap)
        self.out_v[self.n_out : self.n_out + k] = self.buf[allc]
        self.out_c[self.n_out : self.n_out + k] = (allc & self.mask) + self.lo
        self.counts[r0:r1] = np.bincount(allc >> self.shift, minlength=r1 - r0)
        self.n_out += k
        self.buf[allc] = -1.0  # sparse reset
        if self.pushed is not None:
            self.pushed[allc] = -1.0

    def bucket(self, cells: np.ndarray, store: list[list[np.ndarray]]) -> None:
        """File cells under their generation."""
        g = self.gen[cells & self.mask]
        order = np.argsort(g, kind="stable")
        cut = np.searchsorted(g[order], self.levels)
        cells = cells[order]
        for h in np.flatnonzero(np.diff(cut)):
            store[h].append(cells[cut[h] : cut[h + 1]])

    def push_up(self, cells: np.ndarray) -> np.ndarray:
        """Visit the generations deepest first, each pushing its cells' scores to
        the direct parents; return every cell of the chunk (unsorted)."""
        buf, pushed = self.buf, self.pushed
        store: list[list[np.ndarray]] = [[] for _ in range(self.n_gen)]
        self.bucket(cells, store)
        done = [cells]
        for g in range(self.n_gen - 1, -1, -1):
            if not store[g]:
                continue
            level = np.concatenate(store[g]) if len(store[g]) > 1 else store[g][0]
            store[g] = []
            if pushed is not None:  # fill: cells without an own score take the pushed maximum
                own = buf[level] >= 0
                buf[level[~own]] = pushed[level[~own]]
            if g == 0:
                break
            new = self._push_level(level)
            if new.size:
                done.append(new)
                self.bucket(new, store)
        return np.concatenate(done)

    def _push_level(self, level: np.ndarray) -> np.ndarray:
        """Push one generation's scores to the parents; return the newly scored cells."""
        buf, pushed = self.buf, self.pushed
        cols = level & self.mask
        lens, par = gather_rows(self.p_ptr, self.p_ind, cols)
        if par.size == 0:
            return par
        target = np.repeat(level - cols, lens) + par
        vals = np.repeat(buf[level], lens)
        dest = pushed if pushed is not None else buf
        old = dest[target]
        upd = vals > old  # consistent input: almost nothing to update
        target, vals, old = target[upd], vals[upd], old[upd]
        absent = old < 0  # a cell that had no score yet (fill: nor an own one)
        if pushed is not None:
            absent &= buf[target] < 0
        new = target[absent]
        np.maximum.at(dest, target, vals)
        if new.size:
            new.sort()
            new = new[np.r_[True, new[1:] != new[:-1]]]  # one per distinct cell
        return new


def _close_sets(annotations: Annotations, m: sp.csr_array) -> Annotations:
    """Ancestor closure of truth sets: every entry expanded through the closure
    CSR of the ontology, then one sort of (row, term) keys removes repeats.
    Sparse truth (a few leaf terms per protein) makes this much cheaper than
    the level-by-level pass used for scores."""
    onto = annotations.ontology
    anc = onto.ancestors_csr
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    cols = m.indices
    lens, a_cols = gather_rows(anc.indptr, anc.indices, cols)
    key = np.repeat(rows, lens) * onto.n_terms + a_cols
    key.sort()
    key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key
    r, c = np.divmod(key, onto.n_terms)
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=m.shape[0]))]
    out = sp.csr_array((np.ones(c.size, bool), c.astype(np.int32), indptr), shape=m.shape)
    diag = dict(annotations.diagnostics)
    diag["entries_before_propagation"] = int(m.nnz)
    diag["entries_after_propagation"] = int(out.nnz)
    return Annotations(annotations.proteins, out, onto, True, diag)


def propagate(
    annotations: Annotations, mode: str = "max", *, buffer_cells: int = PROPAGATION_BUFFER_CELLS
) -> Annotations:
    """Close annotations or predictions under the ancestor relation.

    Parameters
    ----------
    annotations : Annotations
        Truth sets (bool) or prediction scores (float).
    mode : {'max', 'fill'}
        For scores: ``max`` gives every ancestor the maximum of its own and all
        descendants' scores; ``fill`` only fills ancestors without an own
        score. Truth sets always take the full ancestor closure.
    buffer_cells : int
        Size of the per-chunk working buffer (float64 cells); bounds memory.

    Returns
    -------
    Annotations
        A new object with ``propagated=True`` and sorted CSR rows.

    Notes
    -----
    Propagating twice equals propagating once (tested).
    """
    check_choice(mode, "mode", "propagate", ("max", "fill"))
    onto = annotations.ontology
    m = annotations.matrix.tocsr()
    if m.dtype == np.bool_:
        return _close_sets(annotations, m)
    rows_all, cols_all, vals_all = [], [], []
    for j in range(len(onto.namespaces)):
        lo, hi = int(onto.bounds[j]), int(onto.bounds[j + 1])
        ptr, cols, data = column_block(m, lo, hi)
        if cols.size == 0:
            continue
        cnt, c, v = propagate_rows(ptr, cols.astype(np.int64), data, onto, lo, hi, mode, buffer_cells=buffer_cells)
        rows_all.append(np.repeat(np.arange(m.shape[0]), cnt))
        cols_all.append(c)
        vals_all.append(v)
    if rows_all:
        r = np.concatenate(rows_all)
        c = np.concatenate(cols_all)
        v = np.concatenate(vals_all)
        order = np.argsort(r, kind="stable")  # blocks are (row, col)-sorted: merge by row
        r, c, v = r[order], c[order], v[order]
    else:
        r = c = np.zeros(0, np.int64)
        v = np.zeros(0)
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=m.shape[0]))]
    out = sp.csr_array((v, c.astype(np.int32), indptr), shape=m.shape)
    diag = dict(annotations.diagnostics)
    diag["entries_before_propagation"] = int(m.nnz)
    diag["entries_after_propagation"] = int(out.nnz)
    return Annotations(annotations.proteins, out, onto, True, diag)


def is_consistent(annotations: Annotations) -> bool:
    """True when every parent of an entry is present with a score >= the child's."""
    m = annotations.matrix.tocsr()
    p = annotations.ontology.parents
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    cols = m.indices
    lens, par = gather_rows(p.indptr, p.indices, cols)
    r = np.repeat(rows, lens)
    v = np.repeat(m.data if m.dtype != np.bool_ else np.ones(m.nnz), lens)
    n = m.shape[1]
    keys = m.indices.astype(np.int64) + rows * n
    order = np.argsort(keys)
    keys = keys[order]
    look = r * n + par
    pos = np.minimum(np.searchsorted(keys, look), max(keys.size - 1, 0))
    found = keys[pos] == look if keys.size else np.zeros(look.size, bool)
    if not found.all():
        return False
    pos = order[pos]
    if m.dtype == np.bool_:
        return True
    return bool((m.data[pos] >= v).all())


def merge_annotations(parts: list[Annotations]) -> Annotations:
    """Union of several annotation sets on one ontology (e.g. one file per species).

    A protein present in several parts gets the union of its terms; the
    result is propagated when every part is. ``diagnostics`` keeps each
    part's diagnostics and counts the proteins found in more than one part.
    """
    if not parts:
        raise InvalidParameterError("The 'parts' parameter of merge_annotations must hold at least one Annotations; got none.")
    onto = parts[0].ontology
    if any(p.ontology is not onto for p in parts) or any(p.is_scores for p in parts):
        raise InvalidParameterError("The 'parts' parameter of merge_annotations must hold truth annotations on one Ontology object.")
    allp = np.concatenate([np.asarray(p.proteins, dtype=object) for p in parts])
    uniq, first, inv = np.unique(allp.astype(str), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # first-appearance order
    pos = np.empty(uniq.size, np.int64)
    pos[order] = np.arange(uniq.size)
    offsets = np.cumsum([0] + [p.matrix.shape[0] for p in parts])
    rows, cols = [], []
    for k, p in enumerate(parts):
        coo = p.matrix.tocoo()
        rows.append(pos[inv[offsets[k] + coo.row]])
        cols.append(coo.col.astype(np.int64))
    r, c = np.concatenate(rows), np.concatenate(cols)
    m = sp.coo_array((np.ones(r.size, bool), (r, c)), shape=(uniq.size, onto.n_terms)).tocsr()
    m.sum_duplicates()
    m.sort_indices()
    diag: dict[str, Any] = {"source": ", ".join(str(p.diagnostics.get("source")) for p in parts),
                            "parts": [p.diagnostics for p in parts],
                            "proteins_in_several_parts": int(allp.size - uniq.size)}
    for key in ("rows_read", "duplicate_pairs", "proteins_without_kept_rows", "gaf_rows_NOT_qualifier",
                "gaf_rows_other_evidence"):
        diag[key] = int(sum(int(p.diagnostics.get(key, 0) or 0) for p in parts))
    status: dict[str, int] = {}
    for p in parts:
        for k, v in p.diagnostics.get("rows_by_term_status", {}).items():
            status[k] = status.get(k, 0) + int(v)
    diag["rows_by_term_status"] = status
    return Annotations(allp[first[order]], sp.csr_array(m), onto, all(p.propagated for p in parts), diag)


# ------------------------------------------------------------ pair removal
def pair_keys(annotations: Annotations, proteins: np.ndarray) -> np.ndarray:
    """Sorted keys ``row * n_terms + term`` of the (protein, term) pairs of ``annotations``.

    ``row`` is the position of the protein in ``proteins``; pairs of
    proteins absent from ``proteins`` are left out.

    Returns
    -------
    ndarray of int64
        Sorted, unique (rows of ``annotations`` hold no repeated term).
    """
    index = {p: i for i, p in enumerate(np.asarray(proteins, dtype=object).tolist())}
    pos = np.fromiter((index.get(p, -1) for p in annotations.proteins.tolist()), np.int64, annotations.proteins.size)
    m = annotations.matrix.tocsr()
    rows = np.repeat(pos, np.diff(m.indptr))
    ok = rows >= 0
    keys = rows[ok] * np.int64(annotations.ontology.n_terms) + m.indices[ok].astype(np.int64)
    return np.unique(keys)


def in_pairs(rows: np.ndarray, cols: np.ndarray, keys: np.ndarray, n_terms: int) -> np.ndarray:
    """Bool per entry: ``(rows[i], cols[i])`` is one of the pairs of sorted ``keys`` (:func:`pair_keys`)."""
    if keys.size == 0:
        return np.zeros(np.shape(rows), bool)
    k = np.asarray(rows, np.int64) * np.int64(n_terms) + np.asarray(cols, np.int64)
    pos = np.searchsorted(keys, k)
    pos[pos == keys.size] = 0
    return keys[pos] == k


def remove_pairs(annotations: Annotations, pairs: Annotations, *, drop_empty: bool = False) -> Annotations:
    """``annotations`` without the (protein, term) pairs of ``pairs``.

    The core of the partial-knowledge rule (CAFA3, CAFA-evaluator): with
    ``pairs`` the propagated known annotations, a protein's known terms
    leave its truth and its predictions. ``pairs`` are taken as given
    (propagate them first for that rule); the result keeps the
    ``propagated`` flag of ``annotations`` although its rows are then no
    longer closed under ancestors, so it must not be propagated again.

    Parameters
    ----------
    annotations : Annotations
        Truth sets or scores.
    pairs : Annotations
        On the same Ontology object; its scores, if any, are ignored.
    drop_empty : bool, default False
        Leave out the rows that are empty after the removal.

    Returns
    -------
    Annotations
        ``diagnostics['pairs_removed']`` counts the removed entries.

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a")])
    >>> t = goeval.Annotations.from_pairs(onto, ["p", "p", "q"], ["a", "b", "c"])
    >>> remove_pairs(t, goeval.Annotations.from_pairs(onto, ["p"], ["a"])).to_frame().values.tolist()
    [['p', 'b'], ['q', 'c']]
    """
    if pairs.ontology is not annotations.ontology:
        raise InvalidParameterError("The 'pairs' parameter of remove_pairs must be mapped on the same Ontology object.")
    m = annotations.matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    gone = in_pairs(rows, m.indices, pair_keys(pairs, annotations.proteins), annotations.ontology.n_terms)
    counts = np.bincount(rows[~gone], minlength=m.shape[0])
    out = sp.csr_array((m.data[~gone], m.indices[~gone], np.r_[0, np.cumsum(counts)]), shape=m.shape)
    sel = np.flatnonzero(counts > 0) if drop_empty else np.arange(m.shape[0])
    diag = dict(annotations.diagnostics, pairs_removed=int(gone.sum()))
    return Annotations(annotations.proteins[sel], sp.csr_array(out[sel]), annotations.ontology,
                       annotations.propagated, diag)
