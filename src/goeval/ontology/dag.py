"""Sparse DAG algorithms on a child -> parent matrix: longest-path generations, shortest-path depths and the
ancestor closure."""

from __future__ import annotations

import numpy as np

from goeval.lazy import LazyModule
from goeval.sparse import gather_rows

sp = LazyModule("scipy.sparse")  # imported by the first call that needs it (start-up: goeval.lazy)

__all__ = ["closure", "generations", "shortest_depths"]

def closure(parents: sp.csr_array, generation: np.ndarray) -> sp.csr_array:
    """Reflexive-transitive closure, one sparse product per generation.

    Indices are sorted by generation, so the rows of generation ``g`` form a
    contiguous range whose parents all lie in earlier, finished ranges.
    """
    n = parents.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    chunks: list[np.ndarray] = []
    done = 0  # rows [0, done) are complete
    nnz = 0
    cuts = np.flatnonzero(np.diff(generation)) + 1
    for start, stop in zip(np.r_[0, cuts], np.r_[cuts, n]):
        start, stop = int(start), int(stop)
        if start == 0 or parents[start:stop].nnz == 0:
            closed = sp.csr_array(
                (np.ones(stop - start, np.int8), np.arange(start, stop), np.arange(stop - start + 1)),
                shape=(stop - start, n),
            )
        else:
            ind = np.concatenate(chunks) if chunks else np.zeros(0, np.int64)
            ptr = np.concatenate([indptr[: done + 1], np.full(n - done, nnz)])
            a = sp.csr_array((np.ones(ind.size, np.int8), ind, ptr), shape=(n, n))
            p = parents[start:stop].astype(np.int8)
            eye = sp.csr_array(
                (np.ones(stop - start, np.int8), np.arange(start, stop), np.arange(stop - start + 1)),
                shape=(stop - start, n),
            )
            closed = (p @ a + eye).tocsr()
            closed.sort_indices()
        chunks.append(closed.indices.astype(np.int64))
        indptr[start + 1 : stop + 1] = nnz + closed.indptr[1:]
        nnz += closed.indices.size
        done = stop
    ind = np.concatenate(chunks).astype(np.int32)
    return sp.csr_array((np.ones(ind.size, bool), ind, indptr), shape=(n, n))


def generations(parents: sp.csr_array) -> np.ndarray:
    """Longest-path depth of every node (Kahn's algorithm, one step per level).

    Returns -1 for nodes on or below a cycle.
    """
    n = parents.shape[0]
    children = parents.T.tocsr()
    waiting = np.diff(parents.indptr).astype(np.int64)
    gen = np.full(n, -1, dtype=np.int32)
    frontier = np.flatnonzero(waiting == 0)
    g = 0
    while frontier.size:
        gen[frontier] = g
        _lens, kids = gather_rows(children.indptr, children.indices, frontier)
        if kids.size == 0:
            break
        uniq, cnt = np.unique(kids, return_counts=True)
        waiting[uniq] -= cnt
        frontier = uniq[waiting[uniq] == 0]
        g += 1
    return gen


def shortest_depths(parents: sp.csr_array) -> np.ndarray:
    """Number of terms on the shortest path from every node up to a root (roots: 1).

    Breadth-first from the nodes without parents, one step per level (a node
    is reached at the first level holding one of its parents). This is
    BeProf's ``get_depth`` (Zhang et al. 2023), whose search upwards stops at
    the first level holding the namespace root. Nodes reaching no root (only
    possible on a cycle) get 0.

    Parameters
    ----------
    parents : scipy.sparse.csr_array of shape (n, n)
        ``parents[v, u]`` true when ``u`` is a direct parent of ``v``.

    Returns
    -------
    ndarray of int32, shape (n,)
    """
    n = parents.shape[0]
    children = parents.T.tocsr()
    depth = np.zeros(n, dtype=np.int32)
    frontier = np.flatnonzero(np.diff(parents.indptr) == 0)
    level = 1
    while frontier.size:
        depth[frontier] = level
        _lens, kids = gather_rows(children.indptr, children.indices, frontier)
        kids = np.unique(kids)
        frontier = kids[depth[kids] == 0]
        level += 1
    return depth
