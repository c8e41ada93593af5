"""Reader of sequence-search hit tables (BLAST / DIAMOND ``-outfmt 6``).

A hit table has one alignment per line: the 12 standard columns of
``-outfmt 6``::

    qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore

or the 6 of DIAMOND's short table ``qseqid sseqid pident length evalue
bitscore``, recognised by their number of fields; a header line of column
names (``qseqid sseqid ...``) says the columns of any other layout, and
``hit_columns`` names them when the file does not. Fields are separated by
tabs, or, when the first row has none, by runs of spaces (the line rule of
:mod:`goeval.io.text`). Parsing is vectorized
(pyarrow's CSV reader); query and subject identifiers are dictionary-encoded
into one shared list, so a self hit is ``query_codes == subject_codes``.
When the fast reader rejects a file, a line-by-line pass finds the first
offending line and the error names file, line and text.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.arrow import arrow_array, arrow_scalar, numpy_values, string_array, string_values
from goeval.io.files import PathLike, decode_utf8, read_bytes, read_head

__all__ = ["HitTable", "read_hits", "hit_table_columns", "STANDARD_COLUMNS", "SHORT_COLUMNS", "LAYOUTS",
           "KNOWN_COLUMNS"]

#: The 12 columns of BLAST / DIAMOND ``-outfmt 6`` without a column list.
STANDARD_COLUMNS: tuple[str, ...] = (
    "qseqid", "sseqid", "pident", "length", "mismatch", "gapopen",
    "qstart", "qend", "sstart", "send", "evalue", "bitscore",
)

#: Numeric columns goeval understands (BLAST+ / DIAMOND names); others are rejected.
KNOWN_COLUMNS: tuple[str, ...] = STANDARD_COLUMNS[2:] + (
    "qlen", "slen", "qcovhsp", "scovhsp", "nident", "positive", "gaps", "ppos", "score",
)

_BOM = b"\xef\xbb\xbf"


@dataclass(kw_only=True)
class HitTable:
    """Alignment hits with dictionary-encoded identifiers.

    Attributes
    ----------
    query_codes, subject_codes : ndarray of int32, shape (n_hits,)
        Codes into ``ids`` (one list shared by queries and subjects).
    ids : ndarray of str, shape (n_ids,)
        Distinct sequence identifiers.
    values : dict of str to ndarray of float64, shape (n_hits,)
        Numeric columns by BLAST name (``pident`` in percent, ``evalue``,
        ``bitscore`` in bits, ``length`` in residues, ...).
    source : str
        The file read (or ``"<memory>"``).
    counts : dict
        What the reader noticed (rows, header and comment lines).
    """

    query_codes: np.ndarray
    subject_codes: np.ndarray
    ids: np.ndarray
    values: dict[str, np.ndarray]
    source: str = "<memory>"
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.query_codes.shape[0])

    @property
    def columns(self) -> tuple[str, ...]:
        """Names of the numeric columns present."""
        return tuple(self.values)

    def column(self, name: str, func: str = "HitTable.column") -> np.ndarray:
        """The numeric column ``name``; :class:`InvalidParameterError` if absent."""
        if name not in self.values:
            raise InvalidParameterError(
                f"{func} needs the {name!r} column of the hit table {self.source}; it has "
                f"{', '.join(('qseqid', 'sseqid') + self.columns)} (use hit_columns / --hit-columns "
                "to name the columns of the file)."
            )
        return self.values[name]

    @property
    def queries(self) -> np.ndarray:
        """Distinct query identifiers, in order of first appearance."""
        codes = numpy_values(pc.unique(arrow_array(self.query_codes)))
        return self.ids[codes]

    @classmethod
    def from_arrays(cls, qseqid: Any, sseqid: Any, source: str = "<memory>", **values: Any) -> "HitTable":
        """Build a table from parallel sequences (for notebooks and tests).

        Examples
        --------
        >>> h = HitTable.from_arrays(["a", "a"], ["a", "b"], pident=[100.0, 40.0], evalue=[0.0, 1e-5])
        >>> len(h), h.ids.tolist(), h.subject_codes.tolist()
        (2, ['a', 'b'], [0, 1])
        """
        q = pa.chunked_array([string_array([str(x) for x in qseqid])])
        s = pa.chunked_array([string_array([str(x) for x in sseqid])])
        qc, sc, ids = _encode_pair(q, s)
        vals = {k: np.asarray(v, dtype=np.float64) for k, v in values.items()}
        for k, v in vals.items():
            if v.shape != qc.shape:
                raise InvalidParameterError(
                    f"The {k!r} parameter of HitTable.from_arrays must have {qc.size} values; got {v.size}."
                )
        return cls(query_codes=qc, subject_codes=sc, ids=ids, values=vals, source=source, counts={"rows": int(qc.size)})


# ----------------------------------------------------------------- helpers
def _encode_pair(q: pa.ChunkedArray, s: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes of two string columns into one shared dictionary (first appearance order)."""
    qd = pc.dictionary_encode(q).combine_chunks() if len(q) else None
    sd = pc.dictionary_encode(s).combine_chunks() if len(s) else None
    if qd is None or sd is None:
        return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, dtype=object)
    merged = pc.unique(pa.concat_arrays([qd.dictionary, sd.dictionary]))
    out = []
    for d in (qd, sd):
        trans = numpy_values(pc.index_in(d.dictionary, value_set=merged)).astype(np.int32)
        out.append(trans[numpy_values(d.indices)])
    return out[0], out[1], string_values(merged)


def _check_columns(columns: tuple[str, ...]) -> None:
    if len(columns) < 3 or columns[0] != "qseqid" or columns[1] != "sseqid":
        raise InvalidParameterError(
            "The 'hit_columns' parameter of read_hits must start with 'qseqid', 'sseqid' and name at "
            f"least one more column; got {list(columns)!r}."
        )
    unknown = [c for c in columns[2:] if c not in KNOWN_COLUMNS]
    dup = sorted({c for c in columns if columns.count(c) > 1})
    if unknown or dup:
        what = f"unknown names {unknown}" if unknown else f"repeated names {dup}"
        raise InvalidParameterError(
            f"The 'hit_columns' parameter of read_hits must name distinct columns among "
            f"{', '.join(KNOWN_COLUMNS)}; got {what}."
        )


#: DIAMOND's short table: ``--outfmt 6 qseqid sseqid pident length evalue bitscore``.
SHORT_COLUMNS: tuple[str, ...] = ("qseqid", "sseqid", "pident", "length", "evalue", "bitscore")
#: Layouts recognised by their number of fields, without a header line or a column list.
LAYOUTS: dict[int, tuple[str, ...]] = {12: STANDARD_COLUMNS, 6: SHORT_COLUMNS}
_QUERY_NAMES = frozenset({"qseqid", "query", "qaccver", "qacc"})
_SUBJECT_NAMES = frozenset({"sseqid", "subject", "target", "saccver", "sacc"})


def _clean(data: bytes) -> tuple[bytes, dict[str, int]]:
    """Strip a BOM, field/line whitespace, ``\\r\\n`` ends and comment lines (kept as blank lines, so line
    numbers stay); split on runs of spaces the lines without a tab (every line when the first row has none).

    The costly regular expressions run only when the bytes they fix occur at all.
    """
    counts = {"comment_lines": 0, "header_lines": 0}
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if data.startswith(b"#") or b"\n#" in data:
        counts["comment_lines"] = len(re.findall(rb"(?m)^#", data))
        data = re.sub(rb"(?m)^#[^\n]*(\n|$)", lambda m: b"\n", data)  # keep line numbers
    if b" " in data or b"\r" in data:
        data = re.sub(rb"[ \t]*\t[ \t]*", b"\t", data.replace(b"\r\n", b"\n"))
        data = re.sub(rb"(?m)^ +| +$", b"", data)
        spaced = re.compile(rb"(?m)^[^\t\n]* [^\t\n]*$")
        n = len(spaced.findall(data))
        if n:
            counts["space_separated_lines"] = n
            data = spaced.sub(lambda m: re.sub(rb" +", b"\t", m.group()), data)
    return data, counts


def _first_row(body: bytes) -> tuple[int, list[str]]:
    """(line number, fields) of the first non-blank line of a cleaned body; (0, []) when there is none."""
    start = len(body) - len(body.lstrip(b"\n"))
    if start == len(body):
        return 0, []
    end = body.find(b"\n", start)
    line = body[start: end if end >= 0 else len(body)].decode("utf-8", "replace")
    return body.count(b"\n", 0, start) + 1, line.split("\t")


def _header_columns(fields: list[str]) -> tuple[str, ...] | None:
    """The columns a header line names (``qseqid sseqid pident ...``), or None when the line is a row."""
    low = [f.strip().lower() for f in fields]
    if len(low) < 3 or low[0] not in _QUERY_NAMES or low[1] not in _SUBJECT_NAMES:
        return None
    return ("qseqid", "sseqid", *low[2:])


def _columns(fields: list[str], hit_columns: Any, path: PathLike, line: int) -> tuple[tuple[str, ...], bool]:
    """The columns of a table whose first row has ``fields`` (and whether that row is a header line)."""
    header = _header_columns(fields)
    if hit_columns is not None:
        cols = tuple(hit_columns)
        if header is not None and header != cols:
            raise InputFormatError(path, line, f"the header line names the columns {' '.join(header)}, but the "
                                               f"given column list is {' '.join(cols)}", "\t".join(fields))
        return cols, header is not None
    if header is not None:
        return header, True
    if len(fields) in LAYOUTS:
        return LAYOUTS[len(fields)], False
    raise InputFormatError(path, line, f"{len(fields)} columns and no header line: goeval recognises 12 (the "
                                       f"standard -outfmt 6 columns) and 6 ({' '.join(SHORT_COLUMNS)}); name the "
                                       "columns (--hit-columns, hit_columns=)", "\t".join(fields))


def hit_table_columns(path: PathLike, hit_columns: Any = None) -> tuple[str, ...]:
    """The columns of a hit table, from its first lines only (to check a file before any work).

    Raises
    ------
    InputFormatError, InvalidParameterError
        As :func:`read_hits` for the layout (a count of fields that no layout
        has, a header disagreeing with ``hit_columns``, unknown names).
    """
    head, whole = read_head(path)
    if not whole:
        head = head[: head.rfind(b"\n") + 1]
    body, _ = _clean(head)
    line, fields = _first_row(body)
    if not fields:
        return STANDARD_COLUMNS if hit_columns is None else tuple(hit_columns)
    columns, _ = _columns(fields, hit_columns, path, line)
    _check_columns(columns)
    return columns


def _line_problem(fields: list[str], columns: tuple[str, ...]) -> str | None:
    """Why one split line is not a hit row (``None`` when it is one)."""
    if len(fields) != len(columns):
        return f"expected {len(columns)} tab-separated columns ({' '.join(columns)}), got {len(fields)}"
    if not fields[0] or not fields[1]:
        return "empty query or subject identifier"
    for name, text in zip(columns[2:], fields[2:]):
        try:
            v = float(text)
        except ValueError:
            return f"the {name} column is not a number"
        if math.isnan(v):
            return f"the {name} column is not a number"
        if math.isinf(v):
            return f"the {name} column is infinite"
        if name == "pident" and not 0.0 <= v <= 100.0:
            return "the percent identity (pident) must lie in [0, 100]"
        if name == "evalue" and v < 0:
            return "the E-value must not be negative"
        if name == "bitscore" and v < 0:
            return "the bit score must not be negative"
    return None


def _raise_first_bad(body: bytes, path: PathLike, first_line: int, columns: tuple[str, ...]) -> None:
    """Find the first malformed line and raise :class:`InputFormatError` for it."""
    text = decode_utf8(body, path)
    for k, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        if "\r" in line:
            raise InputFormatError(path, first_line + k, "a carriage return inside a line (lines end with \\n)", line)
        problem = _line_problem(line.split("\t"), columns)
        if problem:
            raise InputFormatError(path, first_line + k, problem, line)


def _parse(body: bytes, columns: tuple[str, ...]) -> pa.Table:
    types = {c: pa.float64() for c in columns[2:]}
    types.update(qseqid=pa.string(), sseqid=pa.string())
    return pacsv.read_csv(
        io.BytesIO(body),
        read_options=pacsv.ReadOptions(column_names=list(columns), use_threads=True, block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                                         newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                             quoted_strings_can_be_null=False),
    )


def _valid(values: dict[str, np.ndarray], qc: pa.ChunkedArray, sc: pa.ChunkedArray) -> bool:
    """Vectorized check of every rule of :func:`_line_problem` but the column count."""
    for name, v in values.items():
        if not np.isfinite(v).all():
            return False
    if "pident" in values and not ((values["pident"] >= 0) & (values["pident"] <= 100)).all():
        return False
    if any(name in values and (values[name] < 0).any() for name in ("evalue", "bitscore")):
        return False
    lengths = (pc.utf8_length(qc), pc.utf8_length(sc))
    return not any(pc.any(pc.equal(n, arrow_scalar(0, n.type))).as_py() for n in lengths)


# ------------------------------------------------------------------ reader
def read_hits(path: PathLike, hit_columns: tuple[str, ...] | list[str] | None = None) -> HitTable:
    """Read a BLAST / DIAMOND tabular hit table (``-outfmt 6``), plain or compressed.

    Parameters
    ----------
    path : str or path-like
        The table (``.gz``, ``.bz2``, ``.xz`` by extension).
    hit_columns : sequence of str, optional
        Column names in file order, starting with ``qseqid, sseqid``; default:
        the names of the file's header line, else :data:`STANDARD_COLUMNS`
        for 12 fields and :data:`SHORT_COLUMNS` for 6. Numeric columns are
        read as float64.

    Returns
    -------
    HitTable

    Raises
    ------
    InputFormatError
        Empty file, bytes that are not UTF-8, a count of fields that no
        layout has (without header or column list), a header line that
        disagrees with ``hit_columns``, or a malformed row: wrong column
        count, an empty identifier, a value that is not a finite number, an
        identity outside [0, 100], a negative E-value or bit score; with
        line number and text.
    InvalidParameterError
        ``hit_columns`` not starting with ``qseqid, sseqid`` or naming an
        unknown column.

    Notes
    -----
    A UTF-8 byte-order mark, spaces around fields, ``\\r\\n`` line ends,
    ``#`` comment lines (``-outfmt 7``), a header line of column names and
    space-separated lines (a line without a tab is split on runs of
    spaces) are accepted and counted; lines are split on ``\\n`` only (a
    lone ``\\r`` inside a line is an error).
    """
    if hit_columns is not None:
        _check_columns(tuple(hit_columns))
    body, counts = _clean(read_bytes(path))
    line, fields = _first_row(body)
    if not fields:
        raise InputFormatError(path, None, "the file has no hit rows")
    columns, has_header = _columns(fields, hit_columns, path, line)
    _check_columns(columns)
    first_line = 1
    if has_header:
        counts["header_lines"] = 1
        cut = body.find(b"\n", len(body) - len(body.lstrip(b"\n")))
        body, first_line = (body[cut + 1:] if cut >= 0 else b""), line + 1
    if b"\r" in body:
        _raise_first_bad(body, path, first_line, columns)
    if not body.strip():
        raise InputFormatError(path, None, "the file has no hit rows")
    try:
        table = _parse(body, columns)
    except (pa.ArrowInvalid, UnicodeDecodeError):
        _raise_first_bad(body, path, first_line, columns)
        raise InputFormatError(path, None, "the file could not be parsed as a tab-separated hit table") from None
    values = {c: np.array(numpy_values(table.column(c).cast(pa.float64()), fill=np.nan)) for c in columns[2:]}  # owned
    q, s = table.column("qseqid"), table.column("sseqid")
    if not _valid(values, q, s):
        _raise_first_bad(body, path, first_line, columns)
    del body
    qc, sc, ids = _encode_pair(q, s)
    del table, q, s
    pa.default_memory_pool().release_unused()  # the parsed text's pages go back to the system, not to Arrow's pool
    counts["rows"] = int(qc.size)
    counts["columns"] = list(columns)
    return HitTable(query_codes=qc, subject_codes=sc, ids=ids, values=values, source=str(path), counts=counts)
