"""(protein, term[, score]) tables, and the dictionary encoding that builds them.

Every reader of annotations and predictions returns a :class:`PairTable`:
identifiers come back dictionary-encoded (integer codes + unique strings),
so later stages map each distinct term once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from goeval.io.arrow import numpy_values, string_array, string_values
from goeval.io.text import STRIP

__all__ = ["PairTable", "encode_strings", "encode_chunks", "translate_codes", "float_chunks", "has_empty"]


@dataclass(kw_only=True)
class PairTable:
    """(protein, term[, score]) rows with dictionary-encoded identifiers.

    Attributes
    ----------
    protein_codes, term_codes : ndarray of int32, shape (n_rows,)
        Codes into ``proteins`` and ``terms``.
    proteins, terms : ndarray of str
        Distinct identifiers.
    scores : ndarray of float64, shape (n_rows,) or None
        Scores (predictions only).
    source : str
        The file read.
    counts : dict
        What the reader skipped or noticed (header lines, GAF rows filtered...).
    """

    protein_codes: np.ndarray
    proteins: np.ndarray
    term_codes: np.ndarray
    terms: np.ndarray
    scores: np.ndarray | None = None
    source: str = "<memory>"
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.protein_codes.shape[0])

    @classmethod
    def from_arrays(cls, proteins: Any, terms: Any, scores: Any = None, source: str = "<memory>") -> "PairTable":
        """Build a table from plain sequences (for notebooks and tests)."""
        pcodes, puniq = encode_strings(pa.chunked_array([string_array(proteins)]))
        tcodes, tuniq = encode_strings(pa.chunked_array([string_array(terms)]))
        sc = None if scores is None else np.asarray(scores, dtype=np.float64)
        return cls(protein_codes=pcodes, proteins=puniq, term_codes=tcodes, terms=tuniq, scores=sc, source=source)


def encode_strings(col: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Dictionary-encode a string column: (int32 codes, unique stripped strings).

    Examples
    --------
    >>> codes, uniq = encode_strings(pa.chunked_array([["P2", "P1", "P2 "]]))
    >>> codes.tolist(), uniq.tolist()
    ([0, 1, 0], ['P2', 'P1'])
    """
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    return encode_chunks(list(col.chunks), len(col))


def encode_chunks(chunks: list, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Global codes for dictionary-encoded chunks, releasing each chunk when done.

    The chunk dictionaries are small: each is stripped (byte-order marks and
    spaces around a field), they are merged into one dictionary, and every
    chunk's indices are translated through ``index_in`` - so ``P2`` and
    ``P2 `` get one code. ``chunks`` is emptied (its items set to None).
    """
    if not chunks:
        return np.zeros(0, np.int32), np.zeros(0, dtype=object)
    dicts = [pc.utf8_trim(c.dictionary, STRIP) for c in chunks]
    # one hash of the dictionaries put end to end: its dictionary is their distinct values in first-appearance
    # order (as pc.unique's) and its indices translate each chunk's dictionary (one pass, not one per chunk)
    merged = pc.dictionary_encode(pa.concat_arrays(dicts))

    def pieces() -> Iterator[tuple[np.ndarray, int]]:
        for i, c in enumerate(chunks):
            idx = c.indices
            yield numpy_values(idx, fill=0), len(dicts[i])
            chunks[i] = None

    codes = translate_codes(pieces(), numpy_values(merged.indices), n_rows)
    return codes, string_values(merged.dictionary)  # an object array of str


def translate_codes(pieces: Iterable[tuple[np.ndarray, int]], translate: np.ndarray, n_rows: int) -> np.ndarray:
    """The int32 codes of ``n_rows`` rows given as pieces of (local codes, size of the piece's dictionary), each
    piece's codes translated through its dictionary's slice of ``translate`` (the global codes of the pieces'
    dictionaries put end to end)."""
    codes = np.empty(n_rows, dtype=np.int32)
    pos = at = 0
    for local, size in pieces:
        codes[pos : pos + local.size] = translate[at : at + size][local]
        pos, at = pos + local.size, at + size
    return codes


def float_chunks(chunks: list, n_rows: int) -> np.ndarray:
    """Concatenate float64 Arrow chunks (nulls become NaN), releasing each one."""
    out = np.empty(n_rows)
    pos = 0
    for i, c in enumerate(chunks):
        out[pos : pos + len(c)] = numpy_values(c, fill=np.nan)
        pos += len(c)
        chunks[i] = None
    return out


def has_empty(uniq: np.ndarray) -> bool:
    """Whether the distinct identifiers ``uniq`` include the empty string."""
    return bool(uniq.size) and bool((uniq == "").any())
