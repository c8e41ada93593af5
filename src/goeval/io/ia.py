"""Reader of information-accretion files: ``term<TAB>ia`` (a header line optional).

The file follows the line rule of :mod:`goeval.io.text`; the fast reader
(:func:`goeval.io.tsv.parse_tsv`) is checked line by line whenever it cannot
vouch for the file (also for a value it reads as missing and for a term
listed twice), so errors name the line.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.arrow import arrow_scalar, string_values
from goeval.io.files import PathLike, read_bytes
from goeval.io.pairs import float_chunks
from goeval.io.text import (
    STRIP,
    Layout,
    has_lone_cr,
    is_ia_header,
    is_number,
    no_data_error,
    numbered_fields,
    table_layout,
    text_lines,
    whitespace_to_tab,
)

__all__ = ["read_ia"]


def _ia_fast(data: bytes, lay: Layout, first: tuple[int, str, list[str]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Arrow over an IA table; None when the line reader must decide (also for
    a value Arrow reads as missing and for a term listed twice)."""
    if len(first[2]) != 2 or (lay.tab and first[1].count("\t") != 1):
        return None
    body, offset = (data, lay.offset) if lay.tab else (whitespace_to_tab(data[lay.offset :]), 0)
    got = tsv.parse_tsv(tsv.buffer_reader(body, offset), ["t", "v"], {"t": pa.string(), "v": pa.float64()},
                        ["t", "v"], lay.tab)
    if got is None or got[1] or got[0].column("v").null_count:
        return None
    terms_col = pc.utf8_trim(got[0].column("t"), STRIP)
    empty = pc.any(pc.equal(terms_col, arrow_scalar("", terms_col.type))).as_py()
    if empty or pc.count_distinct(terms_col).as_py() != len(terms_col):
        return None
    return string_values(terms_col), float_chunks(list(got[0].column("v").chunks), len(terms_col))


def _ia_by_line(data: bytes, path: PathLike, lay: Layout) -> tuple[np.ndarray, np.ndarray, int]:
    """(terms, values, duplicate lines dropped); a term listed twice with two values is an error."""
    seen: dict[str, tuple[float, int]] = {}
    n_dup = 0
    terms: list[str] = []
    values: list[float] = []
    for no, line, fields in numbered_fields(text_lines(data, path), lay.start, lay.tab):
        if len(fields) != 2 or not fields[0]:
            raise InputFormatError(path, no, "expected 'term<TAB>ia' (two columns)", line)
        if not is_number(fields[1]):
            raise InputFormatError(path, no, "the information accretion is not a number", line)
        value = float(fields[1])
        if fields[0] in seen:
            v0, l0 = seen[fields[0]]
            if not (v0 == value or (math.isnan(v0) and math.isnan(value))):
                raise InputFormatError(path, no, f"term {fields[0]!r} is listed twice with different values: "
                                       f"{v0!r} on line {l0} and {value!r} on line {no}", line)
            n_dup += 1
            continue
        seen[fields[0]] = (value, no)
        terms.append(fields[0])
        values.append(value)
    return np.asarray(terms, dtype=object), np.asarray(values, dtype=np.float64), n_dup


def read_ia(path: PathLike) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Read an information-accretion file ``term<TAB>ia`` (header optional).

    A first line is a header only when both of its fields are column names
    (``term ia``, ``go_id information_accretion``...); anything else on it
    must be data. A term listed twice with the same value is counted
    (``duplicate_terms``) and kept once.

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).

    Returns
    -------
    terms : ndarray of str
    ia : ndarray of float64 (bits)
    counts : dict
        Header lines, non-finite values (set to 0, as CAFA-evaluator does),
        negative values (kept), duplicated lines, rows.

    Raises
    ------
    InputFormatError
        A line without two columns or with a value that is not a number, a
        term listed twice with different values (naming both lines), an empty
        file or one with only a header.
    """
    data = read_bytes(path)
    lay = table_layout(data, is_ia_header)
    if lay.first is None:
        raise no_data_error(path, lay, "term")
    fast = None if has_lone_cr(data) else _ia_fast(data, lay, lay.first)
    if fast is None:
        terms, ia, n_dup = _ia_by_line(data, path, lay)
    else:
        (terms, ia), n_dup = fast, 0
    counts = dict(lay.counts)
    nonfinite = ~np.isfinite(ia)
    counts["non_finite_set_to_zero"] = int(nonfinite.sum())
    counts["negative"] = int((ia < 0).sum())
    counts["duplicate_terms"] = n_dup
    ia[nonfinite] = 0.0
    counts["rows"] = int(terms.size)
    return terms, ia, counts
