"""Small helpers on compressed sparse row (CSR) arrays.

Rows are given by an ``indptr`` (shape ``(n_rows + 1,)``) and entries by
parallel arrays (columns, values). :func:`entry_rows` gives each entry's row
and :func:`keep_entries` the ``indptr`` after dropping entries: together they
are how every part of goeval drops entries from CSR rows.
"""

from __future__ import annotations

import numpy as np

__all__ = ["gather_rows", "column_range", "select_columns", "entry_rows", "keep_entries", "row_indptr", "dense_unique"]


def gather_rows(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entries of the given CSR rows, concatenated in order, without a Python loop.

    Parameters
    ----------
    indptr, indices : ndarray
        The CSR structure.
    rows : ndarray of int, shape (k,)
        Rows to gather (repeats allowed).

    Returns
    -------
    lens : ndarray of int, shape (k,)
        Entries per requested row.
    values : ndarray, shape (lens.sum(),)
        ``indices`` of those rows, row after row.

    Examples
    --------
    >>> gather_rows(np.array([0, 2, 3, 5]), np.array([7, 8, 9, 10, 11]), np.array([2, 0]))
    (array([2, 2]), array([10, 11,  7,  8]))
    """
    starts = indptr[rows]
    lens = indptr[np.asarray(rows) + 1] - starts
    tot = int(lens.sum())
    if tot == 0:
        return lens, indices[:0]
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(tot)
    return lens, indices[offsets]


def column_range(m, lo: int, hi: int, rows: np.ndarray | None = None):  # noqa: ANN001, ANN201
    """CSR pieces (indptr, cols, data) of ``m`` restricted to the column range [lo, hi) and to ``rows``.

    ``m`` is a scipy CSR array; ``rows`` (optional) must be increasing. The
    columns keep their global numbers and their order within each row; no
    row-sliced copy of ``m`` is made.
    """
    n = m.shape[0]
    lengths = np.diff(m.indptr)
    keep = (m.indices >= lo) & (m.indices < hi)
    if rows is not None and rows.size != n:
        selected = np.zeros(n, bool)
        selected[rows] = True
        keep &= np.repeat(selected, lengths)
    else:
        selected = None
    # positions of the kept entries; per row, their count between row bounds
    pos = np.flatnonzero(keep)
    del keep
    per_row = np.diff(np.searchsorted(pos, m.indptr))
    if selected is not None:
        per_row = per_row[selected]
    return np.r_[0, np.cumsum(per_row)], m.indices[pos], m.data[pos]


def select_columns(indptr: np.ndarray, cols: np.ndarray, data: np.ndarray | None,
                   allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """CSR pieces keeping only the entries whose column is ``allowed`` (a bool mask).

    Returns the inputs themselves when every column is allowed.

    Examples
    --------
    >>> select_columns(np.array([0, 2, 3]), np.array([0, 1, 1]), None, np.array([True, False]))
    (array([0, 1, 1]), array([0]), None)
    """
    keep = allowed[cols]
    if keep.all():
        return indptr, cols, data
    return keep_entries(indptr, keep), cols[keep], None if data is None else data[keep]


def entry_rows(indptr: np.ndarray) -> np.ndarray:
    """The row of every entry of CSR rows (int64).

    Examples
    --------
    >>> entry_rows(np.array([0, 2, 2, 3]))
    array([0, 0, 2])
    """
    indptr = np.asarray(indptr)
    return np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))


def keep_entries(indptr: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The ``indptr`` of CSR rows once only the entries flagged in ``keep`` remain.

    Entries keep their order; apply ``keep`` to the entry arrays alongside.

    Examples
    --------
    >>> keep_entries(np.array([0, 2, 3, 5]), np.array([True, False, False, True, True]))
    array([0, 1, 1, 3])
    """
    return np.r_[0, np.cumsum(keep, dtype=np.int64)][np.asarray(indptr)]


def row_indptr(rows: np.ndarray, n_rows: int) -> np.ndarray:
    """The ``indptr`` of CSR rows whose entries' rows (sorted, or grouped by row) are ``rows``.

    Examples
    --------
    >>> row_indptr(np.array([0, 0, 2]), 4)
    array([0, 2, 2, 3, 3])
    """
    return np.r_[0, np.cumsum(np.bincount(np.asarray(rows, np.int64), minlength=n_rows))]


def dense_unique(values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of integers in ``[0, n)`` (e.g. the columns or threshold
    bins of entries): from a table of the ``n`` values when it is not much larger than ``values``, without
    a sort (the same arrays; the inverse as int64).

    Examples
    --------
    >>> dense_unique(np.array([3, 1, 3, 0]), 5)
    (array([0, 1, 3]), array([2, 1, 2, 0]))
    """
    values = np.asarray(values)
    if n > 4 * values.size + 64:  # a sparse few of many values: the sort is cheaper than the table
        distinct, inverse = np.unique(values, return_inverse=True)
        return distinct, inverse.ravel().astype(np.int64, copy=False)
    seen = np.zeros(n, bool)
    seen[values] = True
    rank = np.cumsum(seen, dtype=np.int64) - 1
    return np.flatnonzero(seen), rank[values]
