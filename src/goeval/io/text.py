"""The line rule shared by every tabular reader, and the column headers they recognise.

Every table of :mod:`goeval.io` (truth, GAF, predictions, IA, identifier
lists) is read by one line rule (:func:`split_fields` is its definition):

* the file is UTF-8, plain or compressed; lines end with ``\\n`` or
  ``\\r\\n``, a carriage return anywhere else is an error, and other Unicode
  line separators (U+0085, U+2028) are ordinary characters of a field;
* a byte-order mark and spaces are stripped from both ends of every field,
  spaces and tabs from the end of every line (trailing tabs add no column);
  blank lines are skipped;
* fields are separated by tabs; a file whose first data line has no tab is
  separated by runs of spaces and tabs (CAFA allows either), and in a
  tab-separated file a line without any tab is split on runs of spaces.

The header helpers say which first lines are column headers or CAFA header
lines; the readers and :mod:`goeval.io.kinds` use the same ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from goeval.errors import InputFormatError
from goeval.io.files import PathLike, decode_utf8

__all__ = [
    "BOM", "STRIP", "LINE_END", "LONE_CR", "CAFA_HEADER", "PROTEIN_HEADERS", "TERM_HEADERS", "SCORE_HEADERS",
    "IA_HEADERS", "split_fields", "text_lines", "numbered_fields", "raw_lines", "has_lone_cr",
    "whitespace_to_tab", "is_number", "is_end", "is_cafa_header", "is_truth_header", "is_score_header",
    "is_ia_header", "Layout", "table_layout", "no_data_error",
]

#: The UTF-8 byte-order mark.
BOM = b"\xef\xbb\xbf"
#: Characters stripped from both ends of every field.
STRIP = " \ufeff"
#: Characters stripped from the end of every line.
LINE_END = " \t\ufeff"
#: The problem of a line with a carriage return inside it.
LONE_CR = "a carriage return (\\r) inside the line; lines must end with \\n or \\r\\n"

#: First words of the CAFA header lines of a prediction file.
CAFA_HEADER = frozenset({"AUTHOR", "MODEL", "KEYWORDS", "ACCURACY"})
#: Column names of a protein column (lower case).
PROTEIN_HEADERS = frozenset({"protein", "proteins", "target", "targets", "entryid", "entry", "protein_id",
                             "accession", "id", "gene", "gene_id", "db_object_id", "uniprot", "sequence"})
#: Column names of a term column (lower case).
TERM_HEADERS = frozenset({"term", "terms", "go", "go_id", "goid", "term_id", "go_term", "hpo", "hpo_id",
                          "annotation"})
#: Column names of a score column (lower case).
SCORE_HEADERS = frozenset({"score", "scores", "prob", "probability", "confidence", "value"})
#: Column names of an information-accretion column (lower case).
IA_HEADERS = frozenset({"ia", "information_accretion", "information", "ic", "value", "bits"})

_SPACES = re.compile(r"[ \t]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:nan|inf|infinity)")


# ------------------------------------------------------------ the line rule
def split_fields(line: str, tab: bool) -> list[str]:
    """The fields of one line (without its ``\\n``) by the line rule; ``[]`` when blank.

    Parameters
    ----------
    line : str
        One line, without its ``\\n`` (a trailing ``\\r`` already removed).
    tab : bool
        The file is tab-separated (else runs of spaces and tabs separate).

    Examples
    --------
    >>> split_fields("\\ufeffP1\\t GO:1 \\t", True)
    ['P1', 'GO:1']
    >>> split_fields("P1  GO:1 0.5", True)
    ['P1', 'GO:1', '0.5']
    """
    s = line.lstrip(STRIP).rstrip(LINE_END)
    if not s:
        return []
    if tab and "\t" in s:
        return [f.strip(STRIP) for f in s.split("\t")]
    return [f.strip(STRIP) for f in _SPACES.split(s.strip(LINE_END)) if f.strip(STRIP)]


def text_lines(data: bytes, path: PathLike) -> list[str]:
    """Strictly decoded lines split on ``\\n``, one trailing ``\\r`` removed.

    Raises
    ------
    InputFormatError
        Bytes that are not UTF-8, or a carriage return inside a line.
    """
    text = decode_utf8(data, path)
    lines = text.split("\n")
    if "\r" in text:
        for k, line in enumerate(lines):
            if line.endswith("\r"):
                line = lines[k] = line[:-1]
            if "\r" in line:
                raise InputFormatError(path, k + 1, LONE_CR, line)
    return lines


def numbered_fields(lines: list[str], start: int, tab: bool) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, line, fields) of the non-blank lines of ``lines`` from line ``start`` on."""
    for k in range(start - 1, len(lines)):
        fields = split_fields(lines[k], tab)
        if fields:
            yield k + 1, lines[k], fields


def has_lone_cr(data: bytes | bytearray, n: int | None = None) -> bool:
    """Whether the first ``n`` bytes of ``data`` (all by default) hold a ``\\r`` not followed by ``\\n``."""
    n = len(data) if n is None else n
    return data.find(b"\r", 0, n) >= 0 and data.count(b"\r", 0, n) != data.count(b"\r\n", 0, n)


def raw_lines(data: bytes, offset: int = 0) -> Iterator[tuple[int, int, str]]:
    """(line number counted from ``offset``, end offset, text) of lines, lazily and leniently decoded."""
    pos, no = offset, 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        no += 1
        yield no, end + 1, data[pos:end].decode("utf-8", "replace").rstrip("\r")
        pos = end + 1


def whitespace_to_tab(body: bytes) -> bytes:
    """Runs of spaces and tabs to one tab, none at the ends of a line."""
    body = re.sub(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)", b"", body)
    return re.sub(rb"[ \t]+", b"\t", body)


def is_number(text: str) -> bool:
    """Whether ``text`` is a decimal number, ``nan`` or ``inf`` (no ``_``, no hexadecimal).

    Examples
    --------
    >>> is_number("1e-3"), is_number(".5"), is_number("NaN"), is_number("1_0")
    (True, True, True, False)
    """
    return _NUMBER.fullmatch(text) is not None


# ----------------------------------------------------------------- headers
def is_end(fields: list[str]) -> bool:
    """Whether a line's fields are a CAFA ``END`` line."""
    return len(fields) == 1 and fields[0].upper() == "END"


def is_cafa_header(fields: list[str]) -> bool:
    """Whether a line's fields are a CAFA header line (``AUTHOR``, ``MODEL``, ``KEYWORDS``, ``ACCURACY``)."""
    return fields[0].upper() in CAFA_HEADER


def is_truth_header(fields: list[str]) -> bool:
    """Whether a line's fields are a column header of annotations (``protein term``, ``EntryID term aspect``)."""
    low = [f.lower() for f in fields[:2]]
    return low[0] in PROTEIN_HEADERS or (len(low) > 1 and low[1] in TERM_HEADERS)


def is_score_header(fields: list[str]) -> bool:
    """Whether a line's fields are a column header of predictions (three columns, the last ``score``...)."""
    return len(fields) == 3 and fields[2].lower() in SCORE_HEADERS


def is_ia_header(fields: list[str]) -> bool:
    """Whether a line's fields are the column header of an IA file (``term ia``, ``go_id information_accretion``)."""
    return len(fields) == 2 and fields[0].lower() in TERM_HEADERS and fields[1].lower() in IA_HEADERS


# ------------------------------------------------------------------ layout
@dataclass(kw_only=True)
class Layout:
    """Where the data of a file starts and how its columns are separated.

    Attributes
    ----------
    offset : int
        Byte offset just after the last header line.
    start : int
        Line number of that position.
    tab : bool
        The data are tab-separated (else separated by runs of whitespace).
    first : (int, str, list of str) or None
        The first data line: number, text, fields.
    header : str or None
        The column header line.
    counts : dict
        Header lines seen (the reader's ``counts`` start from these).
    """

    offset: int = 0
    start: int = 1
    tab: bool = True
    first: tuple[int, str, list[str]] | None = None
    header: str | None = None
    counts: dict[str, Any] = field(default_factory=dict)


def table_layout(data: bytes, is_header: Callable[[list[str]], bool]) -> Layout:
    """An optional column header (the first non-blank line, when ``is_header``
    says so), the first data line and the separator of a table."""
    lay = Layout(counts={"header_lines": 0})
    for no, end, text in raw_lines(data):
        fields = split_fields(text, True)
        if not fields:
            continue
        if lay.first is None and not lay.counts["header_lines"] and is_header(fields):
            lay.counts["header_lines"] = 1
            lay.header = text.strip(LINE_END)
            lay.offset, lay.start = end, no + 1
            continue
        lay.first = (no, text, fields)
        lay.tab = "\t" in text.lstrip(STRIP).rstrip(LINE_END)
        break
    return lay


def no_data_error(path: PathLike, lay: Layout, what: str) -> InputFormatError:
    """The error for a table without data lines: only a header line, or nothing at all."""
    if lay.counts["header_lines"]:
        return InputFormatError(path, lay.start - 1, f"the file has a header line but no {what} lines")
    return InputFormatError(path, None, "the file is empty")
