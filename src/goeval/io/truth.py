"""Reader of ground-truth annotation tables: ``protein<TAB>term[<TAB>...]``.

The file follows the line rule of :mod:`goeval.io.text`. Parsing is
vectorized (:func:`goeval.io.tsv.parse_tsv`); whenever the fast reader
cannot vouch for the file, it is read again line by line, which either
raises an :class:`~goeval.errors.InputFormatError` naming the line or
returns the same table.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.files import PathLike, read_bytes
from goeval.io.gaf import DEFAULT_EVIDENCE, read_gaf
from goeval.io.kinds import FileKind, line_kind, misplaced_hint
from goeval.io.pairs import PairTable, encode_strings, has_empty
from goeval.io.text import (
    Layout,
    has_lone_cr,
    is_truth_header,
    no_data_error,
    numbered_fields,
    table_layout,
    text_lines,
    whitespace_to_tab,
)

__all__ = ["read_truth", "read_annotation_tables", "pair_table"]


def _pairs_fast(data: bytes, lay: Layout, first: tuple[int, str, list[str]],
                exact: bool) -> tuple[np.ndarray, ...] | None:
    """Arrow over a two-column table (its first two columns); None when the line reader must decide."""
    if lay.tab:
        ncols, source = first[1].count("\t") + 1, tsv.buffer_reader(data, lay.offset)
    else:
        ncols, source = len(first[2]), tsv.buffer_reader(whitespace_to_tab(data[lay.offset :]))
    if ncols < 2 or (exact and ncols != 2):
        return None
    names = [f"c{i}" for i in range(ncols)]
    got = tsv.parse_tsv(source, names, {"c0": tsv.DICTIONARY, "c1": tsv.DICTIONARY}, ["c0", "c1"], lay.tab)
    if got is None or got[1]:
        return None
    table = got[0]
    pcodes, puniq = encode_strings(table.column("c0"))
    tcodes, tuniq = encode_strings(table.column("c1"))
    return None if has_empty(puniq) or has_empty(tuniq) else (pcodes, puniq, tcodes, tuniq)


def _pairs_by_line(data: bytes, path: PathLike, lay: Layout, second: str,
                   exact: bool) -> tuple[list[str], list[str]]:
    p: list[str] = []
    t: list[str] = []
    for no, line, fields in numbered_fields(text_lines(data, path), lay.start, lay.tab):
        if len(fields) < 2 or not fields[0] or not fields[1]:
            raise InputFormatError(path, no, f"expected 'protein<TAB>{second}' (two columns)", line)
        if exact and len(fields) > 2:
            raise InputFormatError(path, no, f"expected 'protein<TAB>{second}' (two columns), got {len(fields)} "
                                   f"columns (a {second} holding spaces needs a tab-separated file)", line)
        p.append(fields[0])
        t.append(fields[1])
    return p, t


def pair_table(data: bytes, path: PathLike, lay: Layout, second: str = "term", exact: bool = False) -> PairTable:
    """The (protein, ``second``) pairs of a table's data lines: its first two columns, by the line rule.

    The one reader of two-column tables (truth files, groups files): the
    vectorized parser first, the line reader whenever it cannot vouch for
    the file (which either names the bad line or returns the same table).

    Parameters
    ----------
    data : bytes
        The file's (decompressed) content.
    path : str or path-like
        The file, for messages.
    lay : Layout
        Its layout (:func:`goeval.io.text.table_layout`), with a first data line.
    second : str, default 'term'
        What the second column holds, for messages (``term``, ``group``).
    exact : bool, default False
        Every line has exactly two columns (else further columns are ignored).

    Returns
    -------
    PairTable
        Without scores, ``counts`` empty.

    Raises
    ------
    InputFormatError
        Naming the first line with fewer than two columns (more than two
        with ``exact``) or an empty field.
    """
    cols = None if has_lone_cr(data) else _pairs_fast(data, lay, lay.first, exact)  # type: ignore[arg-type]
    if cols is None:
        return PairTable.from_arrays(*_pairs_by_line(data, path, lay, second, exact), source=str(path))
    pcodes, proteins, tcodes, terms = cols
    return PairTable(protein_codes=pcodes, proteins=proteins, term_codes=tcodes, terms=terms, scores=None,
                     source=str(path))


def read_truth(path: PathLike) -> PairTable:
    """Read a ground-truth file ``protein<TAB>term[<TAB>...]``.

    Further columns are ignored; an optional header line (``protein term ...``,
    ``EntryID term aspect``...) is detected and counted. Files without a tab
    on their first line are split on runs of whitespace (see the line rule
    of :mod:`goeval.io.text`). A GAF file (its first data line is GAF to
    :func:`goeval.io.kinds.line_kind`: ``!gaf-version``, or 15 or more
    tab-separated columns) is read with :func:`~goeval.io.gaf.read_gaf`'s
    defaults.

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).

    Returns
    -------
    PairTable
        Without scores; ``counts`` has ``header_lines`` (and ``header``) and ``rows``.

    Raises
    ------
    InputFormatError
        Empty file, only a header line, non-UTF-8 bytes, a line with fewer
        than two columns or an empty field, a prediction file (three columns
        with a score, or CAFA header lines), an information-accretion file
        (a term and a non-integer number) or a result table (its header).
    """
    data = read_bytes(path)
    lay = table_layout(data, is_truth_header)
    if lay.first is None:
        raise no_data_error(path, lay, "annotation")
    no, text, fields = lay.first
    kind, why = line_kind(fields, lay.tab)
    if kind is FileKind.GAF:
        return read_gaf(path, data=data)
    if kind is FileKind.PREDICTIONS:
        raise InputFormatError(path, no, f"this looks like a prediction file ({why}); give it as predictions", text)
    if hint := misplaced_hint(fields, lay.tab, "truth"):
        raise InputFormatError(path, no, hint, text)
    counts: dict[str, Any] = dict(lay.counts)
    if lay.header is not None:
        counts["header"] = lay.header
    table = pair_table(data, path, lay)
    counts["rows"] = len(table)
    table.counts = counts
    return table


def read_annotation_tables(path: PathLike | list[PathLike] | tuple[PathLike, ...],
                           evidence: tuple[str, ...] | None = DEFAULT_EVIDENCE,
                           gaf: bool | None = None) -> list[PairTable]:
    """The tables of one or several annotation files, read and not mapped: GAF or ``protein<TAB>term`` pairs,
    as ``gaf`` says, else as each file's kind is sniffed (:func:`goeval.io.kinds.sniff`).

    Raises
    ------
    InvalidParameterError
        No file named.
    InputFormatError
        As :func:`read_truth` and :func:`~goeval.io.gaf.read_gaf`.
    """
    from goeval.errors import InvalidParameterError
    from goeval.io.kinds import sniff

    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InvalidParameterError("The 'path' parameter of load_annotations must name at least one file.")
    out = []
    for p in paths:
        if gaf or (gaf is None and sniff(p) is FileKind.GAF):
            out.append(read_gaf(p, None if evidence is None else tuple(evidence)))
        else:
            out.append(read_truth(p))
    return out
