"""Reader of GO annotation files (GAF 2.x, 17 columns; GAF 1.0, 15 columns).

Comment lines (``!``) are removed before parsing, keeping line numbers. The
fast reader (:func:`goeval.io.tsv.parse_tsv`) is checked line by line
whenever it cannot vouch for the file, so errors name the line.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.arrow import arrow_scalar, string_array
from goeval.io.files import PathLike, read_bytes
from goeval.io.pairs import PairTable, encode_strings
from goeval.io.text import LINE_END, STRIP, has_lone_cr, numbered_fields, raw_lines, text_lines

__all__ = ["read_gaf", "gaf_columns", "DEFAULT_EVIDENCE", "ANNOTATION_COLUMNS"]

#: Experimental evidence codes kept from GAF files by default (CAFA).
DEFAULT_EVIDENCE = ("EXP", "IDA", "IPI", "IMP", "IGI", "IEP", "TAS", "IC")

_GAF_VERSION = re.compile(rb"!gaf-version:?[ \t]*([0-9]+)(\.[0-9]+)?", re.I)
_GAF_COMMENT = re.compile(rb"(?m)^(?:\xef\xbb\xbf| )*![^\n]*")
#: Columns that may not be empty when read (0-based) -> their name, for messages.
_GAF_NAMES = {1: "DB object ID (column 2)", 4: "GO ID (column 5)", 12: "taxon (column 13)"}
#: The columns :func:`read_gaf` reads: name -> 0-based GAF column.
ANNOTATION_COLUMNS = {"protein": 1, "qualifier": 3, "term": 4, "evidence": 6}


def _gaf_width(data: bytes, version: re.Match | None, path: PathLike) -> tuple[int, str]:
    """Number of columns of every line and the format's name: GAF 1.0 has 15, GAF 2.x 17."""
    if version is not None and version.group(1) in (b"1", b"2"):
        name = f"GAF {version.group(1).decode()}{(version.group(2) or b'').decode()}"
        return (15 if version.group(1) == b"1" else 17), name
    for no, _end, text in raw_lines(data):
        if text.strip(LINE_END):
            n = len(text.split("\t"))
            if n not in (15, 17):
                raise InputFormatError(path, no, "a GAF line has 15 (GAF 1.0) or 17 (GAF 2.x) tab-separated "
                                       f"columns; got {n}", text)
            return n, "GAF"
    raise InputFormatError(path, None, "the GAF file has no annotation lines (only comments)")


def _gaf_fast(data: bytes, width: int, columns: dict[str, int],
              patterns: dict[str, tuple[str, str]]) -> pa.Table | None:
    """Arrow over the (comment-free) GAF lines: the named columns, stripped."""
    names = [f"c{i}" for i in range(width)]
    keep = {k: f"c{i}" for k, i in columns.items()}
    got = tsv.parse_tsv(tsv.buffer_reader(data), names, {c: pa.string() for c in keep.values()},
                        list(keep.values()), True)
    if got is None or got[1]:
        return None
    table = pa.table({k: pc.utf8_trim(got[0].column(c), STRIP) for k, c in keep.items()})
    required = [k for k, i in columns.items() if i in _GAF_NAMES]
    if any(pc.any(pc.equal(table.column(k), arrow_scalar("", table.column(k).type))).as_py() for k in required):
        return None
    ok = [pc.all(pc.match_substring_regex(table.column(k), f"^(?:{pat})$")).as_py() for k, (pat, _) in patterns.items()]
    return table if all(v is not False for v in ok) else None


def _gaf_by_line(data: bytes, path: PathLike, width: int, name: str, columns: dict[str, int],
                 patterns: dict[str, tuple[str, str]]) -> pa.Table:
    rows: dict[str, list[str]] = {k: [] for k in columns}
    required = {i: what for i, what in _GAF_NAMES.items() if i in columns.values()}
    checks = [(columns[k], re.compile(pat), problem) for k, (pat, problem) in patterns.items()]
    for no, line, _fields in numbered_fields(text_lines(data, path), 1, True):
        fields = [f.strip(STRIP) for f in line.split("\t")]
        if len(fields) != width:
            raise InputFormatError(path, no, f"a {name} line has {width} tab-separated columns; got {len(fields)}", line)
        for k, what in required.items():
            if not fields[k]:
                raise InputFormatError(path, no, f"empty {what}", line)
        for i, rx, problem in checks:
            if rx.fullmatch(fields[i]) is None:
                raise InputFormatError(path, no, problem, line)
        for k, i in columns.items():
            rows[k].append(fields[i])
    return pa.table({k: string_array(v) for k, v in rows.items()})


def gaf_columns(path: PathLike, columns: dict[str, int], data: bytes | None = None,
                patterns: dict[str, tuple[str, str]] | None = None) -> tuple[pa.Table, dict[str, Any]]:
    """Some columns of every annotation line of a GAF file, stripped, unfiltered.

    The one parser of GAF lines (:func:`read_gaf` filters what it returns).

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).
    columns : dict of str to int
        Name -> 0-based GAF column (``{"protein": 1, "taxon": 12}``).
    data : bytes, optional
        The file's (decompressed) content, when the caller has already read it.
    patterns : dict of str to (str, str), optional
        Name of a column read -> (the regular expression every value must
        match in full, the problem a line whose value does not is).

    Returns
    -------
    pyarrow.Table, dict
        The columns, one row per annotation line; counts (``gaf_comment_lines``).

    Raises
    ------
    InputFormatError
        A line with another number of columns than the file's GAF version
        has, an empty DB object ID, GO ID or taxon among the columns read,
        a value that does not match its pattern, a file without annotation lines.
    """
    data = read_bytes(path) if data is None else data
    version = _GAF_VERSION.search(data, 0, 4096)
    data, n_comments = _GAF_COMMENT.subn(b"", data)  # keeps line numbers
    width, name = _gaf_width(data, version, path)
    patterns = patterns or {}
    table = None if has_lone_cr(data) else _gaf_fast(data, width, columns, patterns)
    if table is None:
        table = _gaf_by_line(data, path, width, name, columns, patterns)
    return table, {"gaf_comment_lines": n_comments}


def read_gaf(path: PathLike, evidence: tuple[str, ...] | None = DEFAULT_EVIDENCE, *,
             data: bytes | None = None) -> PairTable:
    """Read a GAF annotation file, keeping experimental annotations.

    Rows are kept when column 7 (evidence) is in ``evidence`` (``None`` keeps
    all) and column 4 (qualifier, split on ``|``) has no ``NOT``. The protein
    is column 2 (DB object ID), the term column 5. Filtered rows are counted.
    Every line has 17 tab-separated columns (GAF 2.x) or 15 (GAF 1.0), as the
    ``!gaf-version`` header says (without one, as the first line has).

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).
    evidence : tuple of str or None, default DEFAULT_EVIDENCE
        Evidence codes kept.
    data : bytes, optional
        The file's (decompressed) content, when the caller has already read it.

    Returns
    -------
    PairTable
        Without scores; ``counts`` has ``gaf_comment_lines``, ``gaf_rows``,
        ``gaf_rows_NOT_qualifier``, ``gaf_rows_other_evidence``,
        ``evidence_codes`` and ``rows``.

    Raises
    ------
    InputFormatError
        A line with another number of columns, an empty DB object ID or GO
        ID, a file without annotation lines.
    """
    table, counts = gaf_columns(path, ANNOTATION_COLUMNS, data)
    return _filter_gaf(table, evidence, counts, path)


def _filter_gaf(table: pa.Table, evidence: tuple[str, ...] | None, counts: dict[str, Any], path: PathLike) -> PairTable:
    n = table.num_rows
    qual = pc.utf8_lower(table.column("qualifier"))
    is_not = pc.match_substring_regex(qual, r"(^|\|)not(\||$)")
    keep = pc.invert(is_not)
    ev_ok = None
    if evidence is not None:
        ev_ok = pc.is_in(table.column("evidence"), value_set=string_array(list(evidence)))
        keep = pc.and_(keep, ev_ok)
    counts.update({
        "gaf_rows": n,
        "gaf_rows_NOT_qualifier": int(pc.sum(is_not).as_py() or 0),
        "gaf_rows_other_evidence": 0 if ev_ok is None else int(n - (pc.sum(ev_ok).as_py() or 0)),
        "evidence_codes": None if evidence is None else list(evidence),
    })
    table = table.filter(keep)
    counts["rows"] = table.num_rows
    pcodes, puniq = encode_strings(table.column("protein"))
    tcodes, tuniq = encode_strings(table.column("term"))
    return PairTable(protein_codes=pcodes, proteins=puniq, term_codes=tcodes, terms=tuniq, scores=None,
                     source=str(path), counts=counts)
