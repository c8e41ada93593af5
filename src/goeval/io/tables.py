"""Readers of the tabular inputs: truth, GAF, predictions, IA, identifier lists.

Every reader applies one line rule (:func:`_split_fields` is its definition):

* the file is UTF-8, plain or compressed; lines end with ``\\n`` or
  ``\\r\\n``, a carriage return anywhere else is an error, and other Unicode
  line separators (U+0085, U+2028) are ordinary characters of a field;
* a byte-order mark and spaces are stripped from both ends of every field,
  spaces and tabs from the end of every line (trailing tabs add no column);
  blank lines are skipped;
* fields are separated by tabs; a file whose first data line has no tab is
  separated by runs of spaces and tabs (CAFA allows either), and in a
  tab-separated file a line without any tab is split on runs of spaces.

Parsing is vectorized (pyarrow's multi-threaded CSV reader over the whole
file). Whenever the fast reader meets something it cannot vouch for (an
Arrow error, a row with another number of columns, an empty field, a score
outside [0, 1], a duplicated IA term), the file is read again line by line
under the same rule, which either raises an :class:`InputFormatError` naming
the line or returns the same table. Identifiers come back dictionary-encoded
(integer codes + unique strings), so later stages map each distinct term once.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from goeval.errors import InputFormatError
from goeval.io.files import PathLike, decode_utf8, open_binary, read_bytes

__all__ = [
    "PairTable",
    "read_truth",
    "read_gaf",
    "read_predictions",
    "read_ia",
    "read_id_list",
    "start_read_predictions",
    "DEFAULT_EVIDENCE",
]

#: Experimental evidence codes kept from GAF files by default (CAFA).
DEFAULT_EVIDENCE = ("EXP", "IDA", "IPI", "IMP", "IGI", "IEP", "TAS", "IC")

_CAFA_HEADER = {"AUTHOR", "MODEL", "KEYWORDS", "ACCURACY"}
_PROTEIN_HEADERS = {"protein", "proteins", "target", "targets", "entryid", "entry", "protein_id",
                    "accession", "id", "gene", "gene_id", "db_object_id", "uniprot", "sequence"}
_TERM_HEADERS = {"term", "terms", "go", "go_id", "goid", "term_id", "go_term", "hpo", "hpo_id", "annotation"}
_SCORE_HEADERS = {"score", "scores", "prob", "probability", "confidence", "value"}
_IA_HEADERS = {"ia", "information_accretion", "information", "ic", "value", "bits"}

_STRIP = " \ufeff"  # stripped from both ends of every field
_LINE_END = " \t\ufeff"  # stripped from the end of every line
_SPACES = re.compile(r"[ \t]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:nan|inf|infinity)")
_BOM = b"\xef\xbb\xbf"
_DICT = pa.dictionary(pa.int32(), pa.string())
_HEAD = 1 << 16  # bytes looked at to find the layout of a prediction file
_MAX_INVALID = 100  # rows set aside by the fast reader before it gives up
_COMPRESSED = (".gz", ".bz2", ".xz")
_LONE_CR = "a carriage return (\\r) inside the line; lines must end with \\n or \\r\\n"


@dataclass
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
        pcodes, puniq = _encode(pa.chunked_array([pa.array(list(proteins), pa.string())]))
        tcodes, tuniq = _encode(pa.chunked_array([pa.array(list(terms), pa.string())]))
        sc = None if scores is None else np.asarray(scores, dtype=np.float64)
        return cls(pcodes, puniq, tcodes, tuniq, sc, source)


# ------------------------------------------------------------ the line rule
def _split_fields(line: str, tab: bool) -> list[str]:
    """The fields of one line (without its ``\\n``) by the line rule; [] when blank.

    ``tab``: the file is tab-separated (else runs of spaces and tabs separate).
    """
    s = line.lstrip(_STRIP).rstrip(_LINE_END)
    if not s:
        return []
    if tab and "\t" in s:
        return [f.strip(_STRIP) for f in s.split("\t")]
    return [f.strip(_STRIP) for f in _SPACES.split(s.strip(_LINE_END)) if f.strip(_STRIP)]


def _text_lines(data: bytes, path: PathLike) -> list[str]:
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
                raise InputFormatError(path, k + 1, _LONE_CR, line)
    return lines


def _numbered(lines: list[str], start: int, tab: bool) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, line, fields) of the non-blank lines from line ``start`` on."""
    for k in range(start - 1, len(lines)):
        fields = _split_fields(lines[k], tab)
        if fields:
            yield k + 1, lines[k], fields


def _has_lone_cr(data: bytes | bytearray, n: int | None = None) -> bool:
    n = len(data) if n is None else n
    return data.find(b"\r", 0, n) >= 0 and data.count(b"\r", 0, n) != data.count(b"\r\n", 0, n)


def _raw_lines(data: bytes, offset: int = 0) -> Iterator[tuple[int, int, str]]:
    """(line number counted from ``offset``, end offset, text) of lines, lazily."""
    pos, no = offset, 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        no += 1
        yield no, end + 1, data[pos:end].decode("utf-8", "replace").rstrip("\r")
        pos = end + 1


def _whitespace_to_tab(body: bytes) -> bytes:
    """Runs of spaces and tabs to one tab, none at the ends of a line."""
    body = re.sub(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)", b"", body)
    return re.sub(rb"[ \t]+", b"\t", body)


def _is_number(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None


# ------------------------------------------------------------------ encoding
def _encode(col: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Dictionary-encode a string column: (int32 codes, unique stripped strings)."""
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    return _encode_chunks(list(col.chunks), len(col))


def _encode_chunks(chunks: list, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Global codes for dictionary-encoded chunks, releasing each chunk when done.

    The chunk dictionaries are small: each is stripped (byte-order marks and
    spaces around a field), they are merged into one dictionary, and every
    chunk's indices are translated through ``index_in`` - so ``P2`` and
    ``P2 `` get one code.
    """
    if not chunks:
        return np.zeros(0, np.int32), np.zeros(0, dtype=object)
    dicts = [pc.utf8_trim(c.dictionary, _STRIP) for c in chunks]
    merged = pc.unique(pa.concat_arrays(dicts))
    codes = np.empty(n_rows, dtype=np.int32)
    pos = 0
    for i, c in enumerate(chunks):
        trans = pc.index_in(dicts[i], value_set=merged).to_numpy(zero_copy_only=False).astype(np.int32)
        idx = c.indices
        local = _numpy(idx, np.int32) if idx.null_count == 0 else idx.fill_null(0).to_numpy()
        codes[pos : pos + len(c)] = trans[local]
        pos += len(c)
        chunks[i] = None
    return codes, np.asarray(merged.to_pylist(), dtype=object)


def _numpy(arr: pa.Array, dtype: type) -> np.ndarray:
    """Zero-copy view of a primitive Arrow array without nulls (fast path)."""
    width = np.dtype(dtype).itemsize
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * width)


def _float_chunks(chunks: list, n_rows: int) -> np.ndarray:
    """Concatenate float64 chunks (nulls become NaN), releasing each one."""
    out = np.empty(n_rows)
    pos = 0
    for i, c in enumerate(chunks):
        out[pos : pos + len(c)] = _numpy(c, np.float64) if c.null_count == 0 else c.to_numpy(zero_copy_only=False)
        pos += len(c)
        chunks[i] = None
    return out


def _has_empty(uniq: np.ndarray) -> bool:
    return bool(uniq.size) and bool((uniq == "").any())


# ---------------------------------------------------------------- fast path
def _arrow(source: Any, names: list[str], types: dict[str, pa.DataType], include: list[str],
           tab: bool, block_size: int = 1 << 24) -> tuple[pa.Table, list[list[str]]] | None:
    """Parse with Arrow; (table, fields of the rows set aside) or None if Arrow failed.

    Rows with another number of columns are set aside and returned split by
    the line rule (blank ones dropped); after ``_MAX_INVALID`` of them, or on
    any Arrow error, the caller reads the file line by line instead.
    """
    aside: list[list[str]] = []

    def handler(row: Any) -> str:
        fields = _split_fields(row.text.rstrip("\r"), tab)
        if fields:
            aside.append(fields)
        return "skip" if len(aside) <= _MAX_INVALID else "error"

    try:
        with _quiet_invalid_utf8():
            table = _read_csv(source, names, types, include, block_size, handler)
    except (pa.ArrowException, OSError, ValueError, UnicodeDecodeError):
        return None
    return table, aside


def _read_csv(source: Any, names: list[str], types: dict[str, pa.DataType], include: list[str],
              block_size: int, handler: Callable[[Any], str]) -> pa.Table:
    return pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=names, use_threads=True, block_size=block_size),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                                         invalid_row_handler=handler),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=include,
                                             strings_can_be_null=False, quoted_strings_can_be_null=False),
    )


@contextlib.contextmanager
def _quiet_invalid_utf8() -> Iterator[None]:
    """Silence pyarrow's 'Exception ignored' report when a set-aside row is not
    UTF-8 (pyarrow then fails the read, and the line reader names the line)."""
    previous = sys.unraisablehook

    def hook(info: Any) -> None:
        if not isinstance(info.exc_value, UnicodeDecodeError):
            previous(info)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def _buffer(data: bytes, offset: int) -> pa.BufferReader:
    return pa.BufferReader(pa.py_buffer(data).slice(offset))


# ------------------------------------------------------------- predictions
@dataclass
class _Layout:
    """Where the data of a file starts and how its columns are separated."""

    offset: int = 0  # byte offset just after the last header line
    start: int = 1  # line number of that position
    tab: bool = True
    first: tuple[int, str, list[str]] | None = None  # first data line: number, text, fields
    header: str | None = None  # the column header line
    counts: dict[str, Any] = field(default_factory=dict)


def _prediction_layout(head: bytes, path: PathLike) -> _Layout:
    """CAFA header lines, an optional column header and the separator, from the first bytes."""
    lay = _Layout(counts={"cafa_header_lines": 0})
    for no, end, text in _raw_lines(head):
        fields = _split_fields(text, True)
        if not fields:
            continue
        if no == 1 and text.lstrip(_STRIP).lower().startswith("!gaf"):
            raise InputFormatError(path, 1, "this is a GAF annotation file; give it as truth, not as predictions", text)
        if lay.first is None and fields[0].upper() in _CAFA_HEADER and not lay.counts.get("header_lines"):
            lay.counts.setdefault("cafa_header", []).append(" ".join(fields))
            lay.counts["cafa_header_lines"] += 1
        elif lay.first is None and len(fields) == 3 and fields[2].lower() in _SCORE_HEADERS and "header_lines" not in lay.counts:
            lay.counts["header_lines"] = 1
        else:
            lay.first = (no, text, fields)
            lay.tab = "\t" in text.lstrip(_STRIP).rstrip(_LINE_END)
            break
        lay.offset, lay.start = end, no + 1
    lay.counts["whitespace_separated"] = not lay.tab
    return lay


def _scan(path: PathLike) -> tuple[bytes, bytes, bool, bytes | None]:
    """(head, tail, lone carriage return?, whole content or None) of a prediction file.

    An uncompressed file is read once in 8 MiB pieces (about 30 ms for 100 MB)
    and left to Arrow to read from disk; a compressed one is decompressed here.
    """
    if Path(path).suffix.lower() in _COMPRESSED:
        data = read_bytes(path)
        return data[:_HEAD], data[-4096:], _has_lone_cr(data), data
    buf, head, tail, lone, carry = bytearray(1 << 23), b"", b"", False, False
    try:
        with open_binary(path) as fh:
            while n := fh.readinto(buf):
                head = head or bytes(buf[:min(n, _HEAD)])  # not the buffer's zero padding
                tail = (tail + bytes(buf[max(0, n - 4096) : n]))[-4096:]
                if not lone:
                    ends_cr = buf[n - 1] == 13
                    lone = (carry and buf[0] != 10) or _has_lone_cr(buf, n - ends_cr)
                    carry = ends_cr
    except OSError as exc:
        raise InputFormatError(path, None, f"cannot read the file: {exc}") from None
    return head, tail, lone, None


def _ends_with_end(tail: bytes) -> bool:
    for line in reversed(tail.split(b"\n")):
        fields = _split_fields(line.decode("utf-8", "replace").rstrip("\r"), True)
        if fields:
            return len(fields) == 1 and fields[0].upper() == "END"
    return False


def _check_prediction(fields: list[str], path: PathLike, no: int, line: str, first: bool) -> None:
    """Raise unless ``fields`` are 'target term score' with a score in [0, 1]."""
    if len(fields) != 3 or not fields[0] or not fields[1]:
        hint = ""
        if len(fields) >= 15:
            hint = "; this looks like a GAF annotation file: give it as truth"
        elif len(fields) == 2 and first:
            hint = "; this looks like a truth file (protein term): give it as truth"
        got = f"got {len(fields)}" if all(fields) else "got an empty field"
        raise InputFormatError(path, no, f"expected 3 columns 'target term score', {got}{hint}", line)
    problem = None if _is_number(fields[2]) else "the score is not a number"
    if problem is None and not math.isfinite(v := float(fields[2])):
        problem = "the score must be a finite number in [0, 1]"
    elif problem is None and not 0 <= v <= 1:
        problem = "the score must lie in [0, 1]"
    if problem:
        raise InputFormatError(path, no, problem, line)


def _predictions_by_line(data: bytes, path: PathLike, lay: _Layout) -> tuple[list, list, list, dict[str, Any]]:
    """The reference reader: every data line by the line rule, or an error naming the line."""
    p: list[str] = []
    t: list[str] = []
    s: list[float] = []
    end_line, spaced = None, 0
    for no, line, fields in _numbered(_text_lines(data, path), lay.start, lay.tab):
        if len(fields) == 1 and fields[0].upper() == "END":
            if end_line is not None:
                raise InputFormatError(path, no, f"a second END line (the first is line {end_line})", line)
            end_line = no
            continue
        if end_line is not None:
            raise InputFormatError(path, no, f"data after the END line (line {end_line}); END must be the last line", line)
        _check_prediction(fields, path, no, line, not p)
        spaced += lay.tab and "\t" not in line
        p.append(fields[0])
        t.append(fields[1])
        s.append(float(fields[2]))
    return p, t, s, {"end_line": end_line is not None, "space_separated_lines": spaced}


def _predictions_fast(path: PathLike, data: bytes | None, lay: _Layout, ends: bool) -> tuple | None:
    """Arrow over the data lines: (codes and scores, counts), or None when the
    line-by-line reader must decide."""
    names = ["p", "t", "s"]
    types = {"p": _DICT, "t": _DICT, "s": pa.float64()}
    if data is None:
        source = pa.OSFile(str(path))
        source.seek(lay.offset)
        size = os.path.getsize(path)
    else:
        body = data if lay.tab else _whitespace_to_tab(data[lay.offset :])
        source, size = _buffer(body, lay.offset if lay.tab else 0), len(body)
    got = _arrow(source, names, types, names, lay.tab, _block_size(size))
    if got is None:
        return None
    table, aside = got
    n_end = sum(len(f) == 1 and f[0].upper() == "END" for f in aside)
    if n_end != len(aside) or n_end != int(ends):
        return None
    chunks = {name: list(table.column(name).chunks) for name in names}
    n_rows = int(table.num_rows)
    del table, got  # the chunk lists hold the only references: released one by one
    cols = _columns(chunks, n_rows)
    return None if cols is None else (cols, {"end_line": ends, "space_separated_lines": 0})


def _block_size(size: int) -> int:
    """CSV block size: 4 MiB, growing with the file so that it splits into at
    most ~32 blocks (fewer dictionary merges), capped at 64 MiB."""
    return int(min(1 << 26, max(1 << 22, size // 32)))


def _columns(cols: dict[str, list], n_rows: int) -> tuple[np.ndarray, ...] | None:
    """(protein codes, proteins, term codes, terms, scores) from Arrow chunks,
    releasing each chunk once copied; None when a field is empty or a score is
    outside [0, 1]."""
    scores = _float_chunks(cols.pop("s"), n_rows)
    if not ((scores >= 0) & (scores <= 1)).all():
        return None
    pcodes, puniq = _encode_chunks(cols.pop("p"), n_rows)
    tcodes, tuniq = _encode_chunks(cols.pop("t"), n_rows)
    if _has_empty(puniq) or _has_empty(tuniq):
        return None
    return pcodes, puniq, tcodes, tuniq, scores


def read_predictions(path: PathLike) -> PairTable:
    """Read a prediction file: CAFA format or a plain 3-column table.

    CAFA header lines (``AUTHOR``, ``MODEL``, ``KEYWORDS``, ``ACCURACY``) at
    the top and a final ``END`` are skipped; data lines are ``target term
    score`` separated by tabs or by spaces (see the module's line rule). A
    column header ``target term score`` is accepted. A CAFA file (one with
    header lines) without ``END`` is read, and ``counts['missing_end']`` is 1:
    the file may have been truncated.

    Raises
    ------
    InputFormatError
        Empty file, bytes that are not UTF-8, a line without exactly three
        columns, a score that is not a finite number in [0, 1], data after
        ``END`` or a second ``END``, a GAF file - with the line number and
        the line.
    """
    head, tail, lone_cr, data = _scan(path)
    if not head.replace(_BOM, b"").strip():
        raise InputFormatError(path, None, "the file is empty")
    lay = _prediction_layout(head, path)
    if data is None and not lay.tab:
        data = read_bytes(path)  # spaces to tabs first
    fast = None if lone_cr else _predictions_fast(path, data, lay, _ends_with_end(tail))
    if fast is None:
        p, t, s, info = _predictions_by_line(read_bytes(path) if data is None else data, path, lay)
        table = PairTable.from_arrays(p, t, s, str(path))
        del p, t, s
    else:
        table, info = PairTable(*fast[0], str(path)), fast[1]
    counts = dict(lay.counts, **info)
    counts["missing_end"] = int(counts["cafa_header_lines"] > 0 and not info["end_line"])
    counts["rows"] = len(table)
    table.counts = counts
    return table


def start_read_predictions(path: PathLike, *, fork: bool | None = None) -> Any:
    """Start reading a prediction file; return a :class:`~goeval.io.background.Background`.

    Its ``result()`` is the :class:`PairTable` (arrays read-only) and
    ``cancel()`` stops the read. With ``fork`` None the policy of
    :func:`~goeval.io.background.should_fork` decides (a file of 64 MiB or
    more is large): the file is parsed in a child process forked now, which
    sends back only the final arrays, so the CSV reader's working memory never
    counts against the caller and the caller goes on meanwhile. Call it
    early, while the caller is still small.
    """
    from goeval.io.background import should_fork, start

    if fork is None:
        try:
            large = os.path.getsize(path) >= 1 << 26
        except OSError:
            large = False
        fork = should_fork(large=large)
    return start(read_predictions, str(path), name="prediction reader", fork=fork)


# ------------------------------------------------------------------ truth
def _table_layout(data: bytes, is_header: Callable[[list[str]], bool]) -> _Layout:
    """An optional column header, the first data line and the separator of a table."""
    lay = _Layout(counts={"header_lines": 0})
    for no, end, text in _raw_lines(data):
        fields = _split_fields(text, True)
        if not fields:
            continue
        if lay.first is None and not lay.counts["header_lines"] and is_header(fields):
            lay.counts["header_lines"] = 1
            lay.header = text.strip(_LINE_END)
            lay.offset, lay.start = end, no + 1
            continue
        lay.first = (no, text, fields)
        lay.tab = "\t" in text.lstrip(_STRIP).rstrip(_LINE_END)
        break
    return lay


def _no_data(path: PathLike, lay: _Layout, what: str) -> InputFormatError:
    if lay.counts["header_lines"]:
        return InputFormatError(path, lay.start - 1, f"the file has a header line but no {what} lines")
    return InputFormatError(path, None, "the file is empty")


def _is_truth_header(fields: list[str]) -> bool:
    low = [f.lower() for f in fields[:2]]
    return low[0] in _PROTEIN_HEADERS or (len(low) > 1 and low[1] in _TERM_HEADERS)


def _not_a_prediction_file(path: PathLike, first: tuple[int, str, list[str]]) -> None:
    """Raise when the first data line of a truth file is a prediction (or CAFA header) line."""
    no, text, fields = first
    scored = len(fields) == 3 and _is_number(fields[2])
    if scored or fields[0].upper() in _CAFA_HEADER:
        what = "3 columns with a score" if scored else "a CAFA header line"
        raise InputFormatError(path, no, f"this looks like a prediction file ({what}); give it as predictions", text)


def _pairs_fast(data: bytes, lay: _Layout, first: tuple[int, str, list[str]]) -> tuple[np.ndarray, ...] | None:
    """Arrow over a truth table (first two columns); None when the line reader must decide."""
    if lay.tab:
        ncols, source = first[1].count("\t") + 1, _buffer(data, lay.offset)
    else:
        ncols, source = len(first[2]), _buffer(_whitespace_to_tab(data[lay.offset :]), 0)
    if ncols < 2:
        return None
    names = [f"c{i}" for i in range(ncols)]
    got = _arrow(source, names, {"c0": _DICT, "c1": _DICT}, ["c0", "c1"], lay.tab)
    if got is None or got[1]:
        return None
    table = got[0]
    pcodes, puniq = _encode(table.column("c0"))
    tcodes, tuniq = _encode(table.column("c1"))
    return None if _has_empty(puniq) or _has_empty(tuniq) else (pcodes, puniq, tcodes, tuniq)


def _pairs_by_line(data: bytes, path: PathLike, lay: _Layout) -> tuple[list[str], list[str]]:
    p: list[str] = []
    t: list[str] = []
    for no, line, fields in _numbered(_text_lines(data, path), lay.start, lay.tab):
        if len(fields) < 2 or not fields[0] or not fields[1]:
            raise InputFormatError(path, no, "expected 'protein<TAB>term' (two columns)", line)
        p.append(fields[0])
        t.append(fields[1])
    return p, t


def read_truth(path: PathLike) -> PairTable:
    """Read a ground-truth file ``protein<TAB>term[<TAB>...]``.

    Further columns are ignored; an optional header line (``protein term ...``,
    ``EntryID term aspect``...) is detected and counted. Files without a tab
    on their first line are split on runs of whitespace (see the module's
    line rule). A GAF file (first line ``!gaf-version``, or 15 or more
    tab-separated columns) is read with :func:`read_gaf`'s defaults.

    Raises
    ------
    InputFormatError
        Empty file, only a header line, non-UTF-8 bytes, a line with fewer
        than two columns or an empty field, a prediction file (three columns
        with a score, or CAFA header lines).
    """
    data = read_bytes(path)
    lay = _table_layout(data, _is_truth_header)
    if lay.first is None:
        raise _no_data(path, lay, "annotation")
    first = lay.first[2]
    if first[0].lower().startswith("!gaf") or (lay.tab and len(first) >= 15):
        return read_gaf(path, _data=data)
    _not_a_prediction_file(path, lay.first)
    counts: dict[str, Any] = dict(lay.counts)
    if lay.header is not None:
        counts["header"] = lay.header
    cols = None if _has_lone_cr(data) else _pairs_fast(data, lay, lay.first)
    if cols is None:
        table = PairTable.from_arrays(*_pairs_by_line(data, path, lay), source=str(path))
    else:
        table = PairTable(*cols, None, str(path))
    counts["rows"] = len(table)
    table.counts = counts
    return table


# -------------------------------------------------------------------- GAF
_GAF_VERSION = re.compile(rb"!gaf-version:?[ \t]*([0-9]+)(\.[0-9]+)?", re.I)
_GAF_COMMENT = re.compile(rb"(?m)^(?:\xef\xbb\xbf| )*![^\n]*")
_GAF_NAMES = {1: "DB object ID (column 2)", 4: "GO ID (column 5)"}


def _gaf_width(data: bytes, version: re.Match | None, path: PathLike) -> tuple[int, str]:
    """Number of columns of every line and the format's name: GAF 1.0 has 15, GAF 2.x 17."""
    if version is not None and version.group(1) in (b"1", b"2"):
        name = f"GAF {version.group(1).decode()}{(version.group(2) or b'').decode()}"
        return (15 if version.group(1) == b"1" else 17), name
    for no, _end, text in _raw_lines(data):
        if text.strip(_LINE_END):
            n = len(text.split("\t"))
            if n not in (15, 17):
                raise InputFormatError(path, no, "a GAF line has 15 (GAF 1.0) or 17 (GAF 2.x) tab-separated "
                                       f"columns; got {n}", text)
            return n, "GAF"
    raise InputFormatError(path, None, "the GAF file has no annotation lines (only comments)")


def _gaf_fast(data: bytes, width: int) -> pa.Table | None:
    """Arrow over the (comment-free) GAF lines: protein, qualifier, term, evidence, stripped."""
    names = [f"c{i}" for i in range(width)]
    keep = {"protein": "c1", "qualifier": "c3", "term": "c4", "evidence": "c6"}
    got = _arrow(_buffer(data, 0), names, {c: pa.string() for c in keep.values()}, list(keep.values()), True)
    if got is None or got[1]:
        return None
    table = pa.table({k: pc.utf8_trim(got[0].column(c), _STRIP) for k, c in keep.items()})
    empty = pc.or_(pc.equal(table.column("protein"), ""), pc.equal(table.column("term"), ""))
    return None if pc.any(empty).as_py() else table


def _gaf_by_line(data: bytes, path: PathLike, width: int, name: str) -> pa.Table:
    rows: tuple[list[str], ...] = ([], [], [], [])
    for no, line, _fields in _numbered(_text_lines(data, path), 1, True):
        fields = [f.strip(_STRIP) for f in line.split("\t")]
        if len(fields) != width:
            raise InputFormatError(path, no, f"a {name} line has {width} tab-separated columns; got {len(fields)}", line)
        for k, what in _GAF_NAMES.items():
            if not fields[k]:
                raise InputFormatError(path, no, f"empty {what}", line)
        for out, k in zip(rows, (1, 3, 4, 6)):
            out.append(fields[k])
    return pa.table({k: pa.array(v, pa.string()) for k, v in zip(("protein", "qualifier", "term", "evidence"), rows)})


def read_gaf(path: PathLike, evidence: tuple[str, ...] | None = DEFAULT_EVIDENCE, *, _data: bytes | None = None) -> PairTable:
    """Read a GAF annotation file, keeping experimental annotations.

    Rows are kept when column 7 (evidence) is in ``evidence`` (``None`` keeps
    all) and column 4 (qualifier, split on ``|``) has no ``NOT``. The protein
    is column 2 (DB object ID), the term column 5. Filtered rows are counted.
    Every line has 17 tab-separated columns (GAF 2.x) or 15 (GAF 1.0), as the
    ``!gaf-version`` header says (without one, as the first line has).

    Raises
    ------
    InputFormatError
        A line with another number of columns, an empty DB object ID or GO
        ID, a file without annotation lines.
    """
    data = read_bytes(path) if _data is None else _data
    version = _GAF_VERSION.search(data, 0, 4096)
    data, n_comments = _GAF_COMMENT.subn(b"", data)  # keeps line numbers
    width, name = _gaf_width(data, version, path)
    table = None if _has_lone_cr(data) else _gaf_fast(data, width)
    if table is None:
        table = _gaf_by_line(data, path, width, name)
    return _filter_gaf(table, evidence, {"gaf_comment_lines": n_comments}, path)


def _filter_gaf(table: pa.Table, evidence: tuple[str, ...] | None, counts: dict[str, Any], path: PathLike) -> PairTable:
    n = table.num_rows
    qual = pc.utf8_lower(table.column("qualifier"))
    is_not = pc.match_substring_regex(qual, r"(^|\|)not(\||$)")
    keep = pc.invert(is_not)
    ev_ok = None
    if evidence is not None:
        ev_ok = pc.is_in(table.column("evidence"), value_set=pa.array(list(evidence), pa.string()))
        keep = pc.and_(keep, ev_ok)
    counts.update({
        "gaf_rows": n,
        "gaf_rows_NOT_qualifier": int(pc.sum(is_not).as_py() or 0),
        "gaf_rows_other_evidence": 0 if ev_ok is None else int(n - (pc.sum(ev_ok).as_py() or 0)),
        "evidence_codes": None if evidence is None else list(evidence),
    })
    table = table.filter(keep)
    counts["rows"] = table.num_rows
    pcodes, puniq = _encode(table.column("protein"))
    tcodes, tuniq = _encode(table.column("term"))
    return PairTable(pcodes, puniq, tcodes, tuniq, None, str(path), counts)


# ---------------------------------------------------------------------- IA
def _is_ia_header(fields: list[str]) -> bool:
    return len(fields) == 2 and fields[0].lower() in _TERM_HEADERS and fields[1].lower() in _IA_HEADERS


def _ia_fast(data: bytes, lay: _Layout, first: tuple[int, str, list[str]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Arrow over an IA table; None when the line reader must decide (also for
    a value Arrow reads as missing and for a term listed twice)."""
    if len(first[2]) != 2 or (lay.tab and first[1].count("\t") != 1):
        return None
    body, offset = (data, lay.offset) if lay.tab else (_whitespace_to_tab(data[lay.offset :]), 0)
    got = _arrow(_buffer(body, offset), ["t", "v"], {"t": pa.string(), "v": pa.float64()}, ["t", "v"], lay.tab)
    if got is None or got[1] or got[0].column("v").null_count:
        return None
    terms_col = pc.utf8_trim(got[0].column("t"), _STRIP)
    if pc.any(pc.equal(terms_col, "")).as_py() or pc.count_distinct(terms_col).as_py() != len(terms_col):
        return None
    return np.asarray(terms_col.to_pylist(), dtype=object), _float_chunks(list(got[0].column("v").chunks), len(terms_col))


def _ia_by_line(data: bytes, path: PathLike, lay: _Layout) -> tuple[np.ndarray, np.ndarray, int]:
    """(terms, values, duplicate lines dropped); a term listed twice with two values is an error."""
    seen: dict[str, tuple[float, int]] = {}
    n_dup = 0
    terms: list[str] = []
    values: list[float] = []
    for no, line, fields in _numbered(_text_lines(data, path), lay.start, lay.tab):
        if len(fields) != 2 or not fields[0]:
            raise InputFormatError(path, no, "expected 'term<TAB>ia' (two columns)", line)
        if not _is_number(fields[1]):
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
    lay = _table_layout(data, _is_ia_header)
    if lay.first is None:
        raise _no_data(path, lay, "term")
    fast = None if _has_lone_cr(data) else _ia_fast(data, lay, lay.first)
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


def read_id_list(path: PathLike) -> np.ndarray:
    """Read a list of identifiers, one per line (first column; ``#`` comments).

    Lines are split on ``\\n`` only; the byte-order mark and spaces around
    the identifier are stripped, as by every reader here.
    """
    out = []
    for line in _text_lines(read_bytes(path), path):
        fields = _split_fields(line, True)
        if fields and not fields[0].startswith("#"):
            out.append(fields[0])
    return np.asarray(out, dtype=object)
