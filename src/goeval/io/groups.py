"""Readers behind groups of proteins: a groups file, the proteins of annotation files, a GAF's taxa.

A **groups file** (``--groups FILE``) has ``protein<TAB>group`` lines read by
the line rule of :mod:`goeval.io.text` and the two-column reader of truth
files (:func:`goeval.io.truth.pair_table`):

* exactly two fields per line (a group name holding spaces needs a
  tab-separated file); an optional header line (its first field a protein
  column name such as ``protein``, or its second ``group``);
* a protein may be in several groups (one line each); a repeated
  (protein, group) line counts once and is counted (``duplicate_rows``);
* a group name follows :mod:`goeval.io.names` (no control character) and
  may not be ``all``, the name of the whole benchmark (:data:`ALL_GROUP`);
* a first line that makes the file a GAF, predictions, hits or a result
  table is an error saying so.

Errors name the file, the line and its text.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow.compute as pc

from goeval.errors import InputFormatError
from goeval.io.files import PathLike, read_bytes
from goeval.io.gaf import gaf_columns
from goeval.io.kinds import FileKind, line_kind
from goeval.io.names import bad_character
from goeval.io.pairs import PairTable, encode_strings
from goeval.io.text import (
    PROTEIN_HEADERS,
    no_data_error,
    numbered_fields,
    table_layout,
    text_lines,
)
from goeval.io.truth import read_annotation_tables, pair_table

__all__ = ["ALL_GROUP", "GROUP_HEADERS", "is_groups_header", "group_name_problem", "read_group_table",
           "read_annotated_proteins", "read_gaf_taxa"]

#: The group of every protein of a benchmark; no group read or derived may take this name.
ALL_GROUP = "all"
#: Column names of a group column (lower case).
GROUP_HEADERS = frozenset({"group", "groups", "group_name", "species", "taxon", "organism"})
#: What a file whose first line is of another kind is, for messages.
_OTHER_KINDS = {FileKind.GAF: "a GAF annotation file", FileKind.PREDICTIONS: "a prediction file",
                FileKind.HITS: "a hit table", FileKind.RESULTS: "a result table"}
#: A GAF taxon field (column 13): the protein's taxon, then, after ``|``, an interacting taxon; and the problem
#: of a line whose field is not one.
_TAXON = ("taxon:[0-9]+(?:[|].*)?", "the taxon (column 13) must be 'taxon:<id>', optionally followed by "
          "'|taxon:<id>'")


def is_groups_header(fields: list[str]) -> bool:
    """Whether a line's fields are the column header of a groups file (``protein group``, ``EntryID species``).

    Examples
    --------
    >>> is_groups_header(["protein", "group"]), is_groups_header(["Q9XYZ1", "species"])
    (True, True)
    >>> is_groups_header(["Q9XYZ1", "human"])
    False
    """
    return fields[0].lower() in PROTEIN_HEADERS or (len(fields) > 1 and fields[1].lower() in GROUP_HEADERS)


def group_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a group (None when it can): a control character, or the reserved ``all``.

    Examples
    --------
    >>> group_name_problem("human") is None, group_name_problem("all")
    (True, "the group name 'all' is the name of the whole benchmark; give the group another name")
    """
    if name == ALL_GROUP:
        return f"the group name {ALL_GROUP!r} is the name of the whole benchmark; give the group another name"
    bad = bad_character(name)
    if bad is not None:
        return (f"the group name holds the control character {bad!r} (a group name is one table cell and one "
                "line: no tab, line end or other control character)")
    return None


def _first_line_with(data: bytes, path: PathLike, start: int, tab: bool, column: int,
                     value: str) -> tuple[int | None, str | None]:
    """The first data line (number, text) whose field ``column`` is ``value``."""
    for no, line, fields in numbered_fields(text_lines(data, path), start, tab):
        if len(fields) > column and fields[column] == value:
            return no, line
    return None, None


def read_group_table(path: PathLike) -> PairTable:
    """Read a groups file: ``protein<TAB>group`` lines (see the module).

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).

    Returns
    -------
    PairTable
        One row per data line, the groups in ``terms``/``term_codes``;
        ``counts`` has ``rows``, ``header_lines`` (and ``header``),
        ``duplicate_rows`` (repeated (protein, group) lines) and
        ``space_separated`` (the file is separated by runs of spaces).

    Raises
    ------
    InputFormatError
        An empty file or one with only a header, bytes that are not UTF-8,
        a line without exactly two fields, a first line of a GAF,
        prediction, hit or result file, a group name with a control
        character or named ``all``; with line and text.
    """
    data = read_bytes(path)
    lay = table_layout(data, is_groups_header)
    if lay.first is None:
        raise no_data_error(path, lay, "protein<TAB>group")
    no, text, fields = lay.first
    kind, why = line_kind(fields, lay.tab)
    if kind in _OTHER_KINDS:
        raise InputFormatError(path, no, f"this looks like {_OTHER_KINDS[kind]} ({why}), not a groups file "
                                         "(protein<TAB>group lines)", text)
    table = pair_table(data, path, lay, "group", exact=True)
    for name in table.terms.tolist():
        if (problem := group_name_problem(name)) is not None:
            line, shown = _first_line_with(data, path, lay.start, lay.tab, 1, name)
            raise InputFormatError(path, line, problem, shown)
    keys = table.term_codes.astype(np.int64) * max(table.proteins.size, 1) + table.protein_codes
    counts: dict[str, Any] = dict(lay.counts)
    if lay.header is not None:
        counts["header"] = lay.header
    counts.update(rows=len(table), duplicate_rows=int(len(table) - np.unique(keys).size),
                  space_separated=not lay.tab)
    table.counts = counts
    return table


def read_annotated_proteins(path: PathLike) -> tuple[np.ndarray, dict[str, Any]]:
    """The distinct proteins of an annotation file (``protein<TAB>term`` table or GAF), in file order.

    A GAF's rows count whatever their evidence code (not those with a
    ``NOT`` qualifier: :func:`~goeval.io.gaf.read_gaf`).

    Returns
    -------
    proteins : ndarray of str
        Distinct, in order of first appearance.
    counts : dict
        The reader's counts (``rows``...).

    Raises
    ------
    InputFormatError
        As :func:`~goeval.io.truth.read_truth` and :func:`~goeval.io.gaf.read_gaf`.
    """
    table = read_annotation_tables(path, evidence=None)[0]
    return _in_order(table.proteins, table.protein_codes), dict(table.counts)


def _in_order(uniq: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The distinct values ``uniq[codes]`` in order of their first row."""
    present, first = np.unique(codes, return_index=True)
    return uniq[present[np.argsort(first, kind="stable")]]


def read_gaf_taxa(path: PathLike) -> PairTable:
    """The (protein, taxon) pairs of a GAF file: column 2 and the first taxon of column 13, every row.

    Column 13 is ``taxon:<id>`` (the protein's organism), optionally
    followed by ``|taxon:<id>`` (an interacting organism, for
    multi-organism processes, ignored). Every annotation line counts,
    whatever its evidence and qualifier.

    Returns
    -------
    PairTable
        The taxa (without ``taxon:``, e.g. ``9606``) in ``terms``/``term_codes``,
        one row per annotation line; ``counts`` has ``gaf_comment_lines`` and ``rows``.

    Raises
    ------
    InputFormatError
        As :func:`~goeval.io.gaf.gaf_columns`; a taxon field other than
        ``taxon:<digits>[|...]``, naming its line.
    """
    table, counts = gaf_columns(path, {"protein": 1, "taxon": 12}, patterns={"taxon": _TAXON})
    first = pc.list_element(pc.split_pattern(table.column("taxon"), "|"), 0)
    ids = pc.utf8_slice_codeunits(first, len("taxon:"))
    pcodes, puniq = encode_strings(table.column("protein"))
    tcodes, tuniq = encode_strings(ids)
    counts["rows"] = int(pcodes.size)
    return PairTable(protein_codes=pcodes, proteins=puniq, term_codes=tcodes, terms=tuniq, scores=None,
                     source=str(path), counts=counts)
