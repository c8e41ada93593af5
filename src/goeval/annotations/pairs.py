"""Known (protein, term) pairs: their keys, and their removal from annotations or CSR pieces.

The partial-knowledge rule of CAFA3 and CAFA-evaluator removes each
protein's known terms from its truth and its predictions; every removal in
goeval (the truth of a benchmark, a leaf's predictions, an
:class:`~goeval.annotations.Annotations` object) goes through
:func:`drop_pairs`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from goeval.annotations.core import Annotations
from goeval.errors import InvalidParameterError
from goeval.sparse import keep_entries

__all__ = ["pair_keys", "in_pairs", "drop_pairs", "remove_pairs"]


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


def drop_pairs(indptr: np.ndarray, cols: np.ndarray, data: np.ndarray | None, rows: np.ndarray, keys: np.ndarray,
               n_terms: int, offset: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """CSR pieces without the entries whose (protein, term) pair is one of ``keys``.

    Parameters
    ----------
    indptr, cols, data : ndarrays
        CSR rows (``data`` may be None); columns are ``term - offset``.
    rows : ndarray of int, shape (n_rows,)
        Each CSR row's row number in the numbering of ``keys``.
    keys : ndarray of int64
        Sorted keys ``row * n_terms + term`` (:func:`pair_keys`).
    n_terms : int
    offset : int, default 0
        Added to ``cols`` to give global term indices (a namespace's first term).

    Returns
    -------
    indptr, cols, data, removed
        The pieces without those entries (the inputs themselves when none
        is removed) and the number of entries removed.
    """
    if keys.size == 0:
        return indptr, cols, data, 0
    gone = in_pairs(np.repeat(np.asarray(rows, np.int64), np.diff(indptr)), np.asarray(cols, np.int64) + offset,
                    keys, n_terms)
    if not gone.any():
        return indptr, cols, data, 0
    keep = ~gone
    return keep_entries(indptr, keep), cols[keep], None if data is None else data[keep], int(gone.sum())


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
    keys = pair_keys(pairs, annotations.proteins)
    rows = np.arange(m.shape[0], dtype=np.int64)
    ptr, cols, data, removed = drop_pairs(m.indptr, m.indices, m.data, rows, keys, annotations.ontology.n_terms)
    out = sp.csr_array((data, cols, ptr), shape=m.shape)
    sel = np.flatnonzero(np.diff(ptr) > 0) if drop_empty else np.arange(m.shape[0])
    diag = dict(annotations.diagnostics, pairs_removed=removed)
    return Annotations(proteins=annotations.proteins[sel], matrix=sp.csr_array(out[sel]), ontology=annotations.ontology,
                       propagated=annotations.propagated, diagnostics=diag)
