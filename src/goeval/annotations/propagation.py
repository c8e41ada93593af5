"""Propagation of annotations and predictions through the ontology.


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


import numpy as np
import scipy.sparse as sp

from goeval.annotations.core import Annotations
from goeval.errors import check_choice
from goeval.ontology import Ontology
from goeval.sparse import column_range, gather_rows, row_indptr

__all__ = ["propagate", "propagate_rows", "is_consistent", "PROPAGATION_BUFFER_CELLS"]

#: Cells of the dense buffer (4 MiB): proteins are propagated in chunks whose rows fill it. A smaller buffer
#: than the 16 MiB of before keeps the touched cells in cache (synth3k: 0.70x the time, the same rows).
PROPAGATION_BUFFER_CELLS = 1 << 19


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
    namespace (the evaluation propagates the leaves of each block, a method in
    one namespace, without building an :class:`Annotations`).

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
        prop.emit(np.sort(cells, kind="stable"), r0, r1)  # rows grouped: timsort merges them
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
    """Ancestor closure of truth sets: the boolean product of the sets with the ontology's closure CSR
    (row ``v``: ``v`` and its ancestors), whose sum is a logical or: each protein's terms and all their
    ancestors, once each. Sparse truth (a few leaf terms per protein) makes this much cheaper than the
    level-by-level pass used for scores (and than expanding every entry and sorting: 3.5x)."""
    onto = annotations.ontology
    out = (m.astype(bool) @ onto.ancestors_csr).tocsr()
    out.sort_indices()
    out = sp.csr_array((np.ones(out.nnz, bool), out.indices.astype(np.int32), out.indptr.astype(np.int64)),
                       shape=m.shape)
    diag = dict(annotations.diagnostics)
    diag["entries_before_propagation"] = int(m.nnz)
    diag["entries_after_propagation"] = int(out.nnz)
    return Annotations(proteins=annotations.proteins, matrix=out, ontology=onto, propagated=True, diagnostics=diag)


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
        ptr, cols, data = column_range(m, lo, hi)
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
        order = np.argsort(r, kind="stable")  # each namespace's entries are (row, col)-sorted: merge by row
        r, c, v = r[order], c[order], v[order]
    else:
        r = c = np.zeros(0, np.int64)
        v = np.zeros(0)
    indptr = row_indptr(r, m.shape[0])
    out = sp.csr_array((v, c.astype(np.int32), indptr), shape=m.shape)
    diag = dict(annotations.diagnostics)
    diag["entries_before_propagation"] = int(m.nnz)
    diag["entries_after_propagation"] = int(out.nnz)
    return Annotations(proteins=annotations.proteins, matrix=out, ontology=onto, propagated=True, diagnostics=diag)


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
