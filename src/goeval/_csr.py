"""Small helpers on compressed sparse row (CSR) arrays."""

from __future__ import annotations

import numpy as np

__all__ = ["gather_rows"]


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
