"""Writers of prediction files: 3-column TSV and CAFA format.

Rows are ``target<TAB>term<TAB>score``, targets in row order, terms in
column order, scores in the shortest text that reads back to the same
double (``repr(float)``); compression by extension. The CAFA format adds
the header lines ``AUTHOR``, ``MODEL``, ``KEYWORDS`` and a final ``END``;
both are read back by :func:`goeval.io.predictions.read_predictions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import numpy as np
import pyarrow.compute as pc

from goeval.errors import InvalidParameterError, check_choice
from goeval.io.arrow import arrow_array, string_array
from goeval.io.files import PathLike, text_out
from goeval.io.results import format_cell, write_table_to

__all__ = ["write_predictions", "write_naive", "FORMATS"]

#: Output formats.
FORMATS = ("tsv", "cafa")

_CHUNK = 1 << 20


def _header(fh: IO[str], fmt: str, author: str, model: int | str, keywords: Sequence[str]) -> None:
    if fmt != "cafa":
        return
    for name, value in (("author", author), ("model", str(model))):
        if not value or any(c in value for c in "\t\n\r"):
            raise InvalidParameterError(f"The {name!r} parameter of write_predictions must be a non-empty single-line text; got {value!r}.")
    fh.write(f"AUTHOR\t{author}\nMODEL\t{model}\n")
    fh.write(f"KEYWORDS\t{', '.join(keywords)}.\n" if keywords else "")


def _score_text(data: np.ndarray) -> np.ndarray:
    """``repr`` of every score, formatting each distinct value once."""
    uniq, inv = np.unique(data, return_inverse=True)
    return np.asarray([repr(float(x)) for x in uniq.tolist()], dtype=object)[inv]


def _texts(ids: Any) -> Any:
    """Identifiers as an Arrow string array, each as :func:`~goeval.io.results.format_cell` writes it."""
    return string_array([x if isinstance(x, str) or x is None else format_cell(x)
                         for x in np.asarray(ids, dtype=object).tolist()])


def write_predictions(
    path: PathLike | IO[str],
    proteins: Any,
    term_ids: Any,
    matrix: Any,
    *,
    fmt: str = "tsv",
    author: str = "goeval",
    model: int | str = 1,
    keywords: Sequence[str] = (),
) -> int:
    """Write a sparse score matrix as prediction lines; return the rows written.

    Parameters
    ----------
    path : str, path-like or text file
        Output file (``.gz``, ``.bz2``, ``.xz`` compress), or an open text file.
    proteins : array of str, shape (n_proteins,)
        Row identifiers.
    term_ids : array of str, shape (n_terms,)
        Column identifiers (``ontology.ids``).
    matrix : scipy.sparse CSR array, shape (n_proteins, n_terms)
        Scores; every stored entry is written.
    fmt : {'tsv', 'cafa'}
    author, model, keywords
        CAFA header values (``fmt='cafa'`` only).
    """
    check_choice(fmt, "fmt", "write_predictions", FORMATS)
    m = matrix.tocsr()
    prot, terms = _texts(proteins), _texts(term_ids)  # each row's identifiers taken from these (Arrow)
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    with text_out(path) as fh:
        _header(fh, fmt, author, model, keywords)
        for a in range(0, m.nnz, _CHUNK):
            b = min(m.nnz, a + _CHUNK)
            write_table_to(fh, {"target": pc.take(prot, arrow_array(rows[a:b])),
                                "term": pc.take(terms, arrow_array(m.indices[a:b])),
                                "score": np.asarray(m.data[a:b], np.float64)}, header=False)
        if fmt == "cafa":
            fh.write("END\n")
    return int(m.nnz)


def write_naive(
    path: PathLike | IO[str],
    targets: Any,
    term_ids: Any,
    scores: Any,
    *,
    fmt: str = "tsv",
    author: str = "goeval",
    model: int | str = 1,
    keywords: Sequence[str] = (),
) -> int:
    """Write the same ``term score`` list for every target without building a matrix.

    Parameters
    ----------
    targets : array of str
    term_ids : array of str, shape (k,)
    scores : array of float, shape (k,)
        The list (e.g. the positive scores of :func:`goeval.baselines.naive_scores`).

    Returns
    -------
    int
        Rows written (``len(targets) * k``).
    """
    check_choice(fmt, "fmt", "write_naive", FORMATS)
    tail = [f"\t{t}\t{s}\n" for t, s in zip(np.asarray(term_ids, dtype=object), _score_text(np.asarray(scores, dtype=np.float64)))]
    n = 0
    with text_out(path) as fh:
        _header(fh, fmt, author, model, keywords)
        if tail:
            for t in np.asarray(targets, dtype=object).tolist():
                fh.write(t + t.join(tail))  # 't' before every line
                n += len(tail)
        if fmt == "cafa":
            fh.write("END\n")
    return n
