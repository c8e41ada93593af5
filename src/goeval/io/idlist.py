"""Reader of identifier lists: one identifier per line (targets, terms of interest)."""

from __future__ import annotations

import numpy as np

from goeval.io.files import PathLike, read_bytes
from goeval.io.text import split_fields, text_lines

__all__ = ["read_id_list"]


def read_id_list(path: PathLike) -> np.ndarray:
    """Read a list of identifiers, one per line (first column; ``#`` comments).

    Lines are split on ``\\n`` only; the byte-order mark and spaces around
    the identifier are stripped, as by every reader of :mod:`goeval.io`
    (the line rule of :mod:`goeval.io.text`).

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).

    Returns
    -------
    ndarray of str, shape (n_ids,)
        The identifiers in file order (repeats kept).

    Raises
    ------
    InputFormatError
        An empty or unreadable file, bytes that are not UTF-8, a carriage
        return inside a line.
    """
    out = []
    for line in text_lines(read_bytes(path), path):
        fields = split_fields(line, True)
        if fields and not fields[0].startswith("#"):
            out.append(fields[0])
    return np.asarray(out, dtype=object)
