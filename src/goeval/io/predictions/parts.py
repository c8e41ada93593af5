"""One validating pass over a prediction file in parts of whole lines, in bounded memory.

Each part (the whole lines that start within ``part_bytes`` bytes of text) is
parsed by the fast reader exactly as :func:`~goeval.io.predictions.read_predictions`
parses a whole file; a part that it cannot vouch for (a lone carriage
return, an Arrow error, a row with another number of columns, an empty
field, a score outside [0, 1]) is read by the reference
:class:`~goeval.io.predictions.rules.LineParser` instead, with absolute line
numbers. Errors are raised as soon as they are met, in file order (a
malformed line, bytes that are not UTF-8, a carriage return inside a line, a
line longer than :data:`MAX_LINE_BYTES`, a corrupt compressed stream): a bad
first line is an error at once, and memory stays within a few parts
whatever the file holds (a decompression bomb of one long line included).

Given a :class:`~goeval.io.predictions.keep.ProteinFilter`, the reader
parses the protein of every line and the rest only for the proteins kept;
the others' lines are counted (:class:`~goeval.io.predictions.keep.Unread`).
"""

from __future__ import annotations

import lzma
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import pyarrow as pa

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.arrow import string_array
from goeval.io.background import ordered_map, prefetched
from goeval.io.files import MAX_LINE_BYTES as FILES_MAX_LINE
from goeval.io.files import PathLike, decode_utf8, is_compressed, long_line_error, open_binary, read_failure
from goeval.io.pairs import encode_strings
from goeval.io.predictions.keep import EXAMPLES, FILTERED_TYPES, ProteinFilter, Unread, filtered_table
from goeval.io.predictions.rules import (
    COLUMN_TYPES,
    COLUMNS,
    HEAD_BYTES,
    LineParser,
    arrow_columns,
    check_prediction,
    is_text_line,
    line_counts,
    line_fields,
    prediction_layout,
)
from goeval.io.text import BOM, LONE_CR, Layout, has_lone_cr, is_end, split_fields, whitespace_to_tab

__all__ = ["PART_BYTES", "MAX_LINE_BYTES", "ParsedPart", "PartReader", "line_parts"]

#: Bytes of text parsed at a time, by default.
PART_BYTES = 1 << 23
_ARROW_BLOCK = 1 << 20  # Arrow's block size (its unit of parsing) inside a part
#: Parts parsed at once, each by one thread (Arrow and the compute kernels release the GIL).
PARSERS = max(1, min(4, os.cpu_count() or 1))
_READ = 1 << 20  # bytes read from the file at a time
#: The longest line a reader takes (or ``part_bytes``, when larger): :data:`goeval.io.files.MAX_LINE_BYTES`.
MAX_LINE_BYTES = FILES_MAX_LINE


@dataclass(kw_only=True)
class ParsedPart:
    """The rows parsed from one part of a file, dictionary-encoded in first-appearance order.

    Attributes
    ----------
    pcodes, proteins, tcodes, terms, scores : ndarray
        Target codes and targets, term codes and terms, scores.
    line0 : int
        Line number of the part's first line.
    lines : ndarray of int64 or None
        The line of every row, when known.
    source : _Span or None
        Where the part lies in the file, to find the lines of its rows when
        they are not one per line (it is read again, only then).
    tab : bool
        The file is tab-separated.
    keep : ProteinFilter or None
        The proteins whose lines were parsed.
    starts : ndarray of int64
        Rows where a protein run starts (set by the reader of the parts).
    """

    pcodes: np.ndarray
    proteins: np.ndarray
    tcodes: np.ndarray
    terms: np.ndarray
    scores: np.ndarray
    line0: int
    lines: np.ndarray | None = None
    source: "_Span | None" = None
    tab: bool = True
    keep: ProteinFilter | None = None
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __len__(self) -> int:
        return int(self.pcodes.shape[0])

    def line_of(self, row: int) -> int:
        """The line number of row ``row`` (the part is read again when rows skip lines)."""
        if self.lines is None and self.source is not None:
            self.lines = _row_lines(self.source.read(), self.line0, self.tab, self.keep)
            self.source = None
        return int(self.lines[row]) if self.lines is not None else self.line0 + row


@dataclass(frozen=True)
class _Span:
    """Bytes ``offset`` to ``offset + size`` of a file's (decompressed) text, read again on demand."""

    path: PathLike
    offset: int
    size: int

    def read(self) -> bytes:
        with open_binary(self.path) as fh:
            if self.offset and not is_compressed(self.path):
                fh.seek(self.offset)
            else:
                left = self.offset
                while left and (chunk := fh.read(min(left, _READ))):
                    left -= len(chunk)
            return fh.read(self.size)


def _row_lines(text: bytes, line0: int, tab: bool, keep: ProteinFilter | None = None) -> np.ndarray:
    """Line numbers of the data lines of a part that Arrow read (blank, END, free-text lines and the lines of
    proteins outside ``keep`` skipped)."""
    out = []
    for k, raw in enumerate(text.split(b"\n")):
        fields = line_fields(raw.decode("utf-8", "replace").rstrip("\r"), tab)[0]
        if fields and not is_end(fields) and not is_text_line(fields) and (keep is None or fields[0] in keep):
            out.append(line0 + k)
    return np.asarray(out, dtype=np.int64)


class _LongLine(Exception):
    """A line longer than the limit: the caller, who knows the line number, says it (:func:`_long_line`)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def _text_parts(read: Callable[[int], bytes], readinto: Callable[[memoryview], int], head: bytes, size: int,
                 limit: int | None = None) -> Iterator[bytearray]:
    """``head`` and then the rest of the stream in parts of whole lines: each the lines that end within
    ``size`` bytes (at least one line; the last part ends at the end of the stream).

    Each part is a buffer of its own, filled by ``readinto`` with no
    further copy. A line longer than ``limit`` bytes (default ``max(size,
    MAX_LINE_BYTES)``) raises :class:`_LongLine` as soon as that many bytes
    are read, so memory stays within a few parts whatever the stream holds.
    """
    limit = max(size, MAX_LINE_BYTES) if limit is None else limit
    carry, eof = head, False
    while carry or not eof:
        buf, eof = _filled(readinto, carry, size)
        cut = len(buf) if eof else buf.rfind(b"\n", 0, size) + 1
        if cut == 0:  # one line longer than a part: read on to its end, within the limit
            cut = _line_end(read, buf, size, limit)
            eof = eof or cut == len(buf) and not buf.endswith(b"\n")
        carry = bytes(buf[cut:])
        del buf[cut:]
        if buf:
            yield buf


def _filled(readinto: Callable[[memoryview], int], carry: bytes, size: int) -> tuple[bytearray, bool]:
    """A new buffer of ``carry`` and then up to ``size`` bytes in all read straight into it; (buffer, at the end?)."""
    buf = bytearray(max(size, len(carry)))
    n, eof = len(carry), False
    buf[:n] = carry
    with memoryview(buf) as view:
        while n < size:
            got = readinto(view[n:size])
            if not got:
                eof = True
                break
            n += got
    del buf[n:]
    return buf, eof


def _line_end(read: Callable[[int], bytes], buf: bytearray, start: int, limit: int) -> int:
    """The end of the first line of ``buf`` (reading on), or :class:`_LongLine` past ``limit`` bytes."""
    while (end := buf.find(b"\n", start)) < 0:
        if len(buf) > limit:
            raise _LongLine(limit)
        start = len(buf)
        chunk = read(_READ)
        if not chunk:
            return len(buf)
        buf += chunk
    if end >= limit:
        raise _LongLine(limit)
    return end + 1


def _whole_lines(read: Callable[[int], bytes], readinto: Callable[[memoryview], int], line: int, size: int,
                 path: PathLike) -> Iterator[tuple[bytearray, int, int]]:
    """(part, number of its first line, its ``\\n`` count) of :func:`_text_parts`."""
    try:
        for text in _text_parts(read, readinto, b"", size):
            n_newlines = text.count(b"\n")
            yield text, line, n_newlines
            line += n_newlines
    except _LongLine as exc:
        raise long_line_error(path, line, exc.limit) from None


def line_parts(path: PathLike, part_bytes: int = PART_BYTES) -> Iterator[tuple[bytes, int, int]]:
    """A file (plain or compressed) in parts of whole lines: (part, number of its first line, its ``\\n`` count).

    Each part holds the lines that start within ``part_bytes`` bytes (at
    least one line). Memory is a few parts, whatever the file's size: a line
    longer than :data:`MAX_LINE_BYTES` (or ``part_bytes``) is an error.

    Raises
    ------
    InputFormatError
        A file that cannot be read or decompressed (as the prediction readers
        say it), or a line too long.
    """
    reader = PartReader(path, part_bytes)
    with reader._open() as fh:
        yield from _whole_lines(reader._reader(fh), reader._reader_into(fh), 1, part_bytes, path)


def _last_data_line(text: bytes, line0: int) -> tuple[int, list[str]] | None:
    """(line number, fields) of the last non-blank line of ``text``, or None."""
    end, no = len(text), line0 + text.count(b"\n")
    while True:
        start = text.rfind(b"\n", 0, end) + 1
        fields = split_fields(text[start:end].decode("utf-8", "replace").rstrip("\r"), True)
        if fields:
            return no, fields
        if start == 0:
            return None
        end, no = start - 1, no - 1


def _from_lists(p: list[str], t: list[str], s: list[float], nos: list[int], line0: int) -> ParsedPart:
    pcodes, proteins = encode_strings(pa.chunked_array([string_array(p)]))
    tcodes, terms = encode_strings(pa.chunked_array([string_array(t)]))
    return ParsedPart(pcodes=pcodes, proteins=proteins, tcodes=tcodes, terms=terms,
                      scores=np.asarray(s, dtype=np.float64), line0=line0, lines=np.asarray(nos, dtype=np.int64))


def _unread_names(text: bytearray, tab: bool, keep: ProteinFilter | None, n: int) -> list[str]:
    """The first ``n`` distinct proteins of a part's unread lines, in file order."""
    names: dict[str, None] = {}
    for raw in text.split(b"\n"):
        fields = line_fields(raw.decode("utf-8", "replace").rstrip("\r"), tab)[0]
        if fields and fields[0] and not is_end(fields) and not is_text_line(fields) and fields[0] not in keep:
            names[fields[0]] = None
            if len(names) == n:
                break
    return list(names)


@dataclass(kw_only=True)
class _Parsed:
    """What the fast reader made of one part: its columns, or None (the line rule decides)."""

    text: bytearray
    cols: tuple[np.ndarray, ...] | None = None
    aside: list[list[str]] = field(default_factory=list)
    n_lines: int = 0
    skip: "_Skip | None" = None


class _Skip:
    """The ``skip`` of the fast reader: free-text lines, and with a filter the lines of other proteins.

    Its counts are the part's own, added to the reader's only when the fast
    reader's result is used (else the line rule reads the part and counts).
    """

    def __init__(self, tab: bool, keep: ProteinFilter | None) -> None:
        self.tab, self.keep = tab, keep
        self.parser = LineParser("<part>", tab)
        self.unread = Unread()
        self.calls = 0  # rows of another number of columns (blank lines included), set aside or not

    def __call__(self, fields: list[str], text: str) -> bool:
        self.calls += 1
        if not fields:
            return True
        fields, loose = line_fields(text, self.tab)
        if is_text_line(fields):
            self.parser.text_lines += 1
        elif self.keep is None or not fields[0] or not self.parser.unread(fields, text, self.keep, self.unread):
            return False
        self.parser.mixed += loose
        return True


class PartReader:
    """One pass over a prediction file: validated rows part by part, then the counts.

    Errors are raised as soon as they are met, in file order: a malformed
    line, bytes that are not UTF-8, a carriage return inside a line or a line
    too long, each with its file and line number.

    Parameters
    ----------
    path : str or path-like
        A prediction file, plain or compressed.
    part_bytes : int
        Bytes of text parsed at a time, a *part* (rounded up to whole lines).
    keep : ProteinFilter, optional
        Parse only the lines of these proteins; the other lines are counted
        (``counts['unread']``, :class:`~goeval.io.predictions.keep.Unread`)
        after their protein field is read.

    Attributes
    ----------
    rows : int
        Data rows given so far.
    counts : dict
        After the pass: the ``counts`` of ``read_predictions`` for the file.
    """

    def __init__(self, path: PathLike, part_bytes: int, keep: ProteinFilter | None = None) -> None:
        self.path = path
        self.part_bytes = part_bytes
        self.keep = keep
        self.compressed = is_compressed(path)
        self.lay = Layout()
        self.parser = LineParser(path, True)
        self.unread = Unread()
        self.rows = 0
        self.bytes_read = 0
        self.counts: dict[str, Any] = {}
        # the share of the last part's rows kept (it chooses the next parts' column types); before any part, most:
        # the first parts of a file that keeps few (a CAFA 6 submission) are typed for nothing, a few MB of GB,
        # while a file that keeps most (a benchmark's) was parsed three times slower while it was not known
        self._kept = 1.0
        self._pending_error: InputFormatError | None = None

    def parts(self) -> Iterator[ParsedPart]:
        """The parsed parts in file order; the first error is raised when it is met."""
        with self._open() as fh:
            read = self._reader(fh)
            buf = bytearray()
            while len(buf) < HEAD_BYTES and (chunk := read(HEAD_BYTES - len(buf))):
                buf += chunk
            self._layout(bytes(buf), read)
            self.bytes_read, line0 = self.lay.offset, self.lay.start
            try:
                texts = _text_parts(read, self._reader_into(fh), bytes(buf[self.lay.offset :]), self.part_bytes)
                # a large file: the next parts read and parsed (each by one thread) while this one is put in order
                if self._large():
                    texts = ordered_map(self._parse, prefetched(texts, depth=2), PARSERS)
                else:
                    texts = map(self._parse, texts)
                for parsed in texts:
                    text = parsed.text
                    part, n_newlines = self._part(parsed, line0)
                    self.bytes_read += len(text)
                    line0 += n_newlines
                    if part is not None and len(part):
                        self.rows += len(part)
                        yield part
            except _LongLine as exc:
                raise long_line_error(self.path, line0, exc.limit) from None
        self._finish()

    def _large(self) -> bool:
        """Whether the file is worth threads: several parts of at least 1 MiB (a compressed file: any)."""
        if self.part_bytes < 1 << 20:
            return False
        try:
            return self.compressed or os.path.getsize(self.path) > 2 * self.part_bytes
        except OSError:
            return False

    def _open(self) -> IO[bytes]:
        try:
            return open_binary(self.path)
        except OSError as exc:
            raise self._read_error(exc) from None

    def _read_error(self, exc: BaseException) -> InputFormatError:
        """The error ``read_predictions`` gives for a file it cannot read or decompress."""
        if not self.compressed:
            return InputFormatError(self.path, None, f"cannot read the file: {exc}")
        return read_failure(self.path, exc)

    def _reader(self, fh: IO[bytes]) -> Callable[[int], bytes]:
        """``fh.read``, raising :meth:`_read_error` for unreadable or corrupt files."""

        def read(n: int) -> bytes:
            try:
                return fh.read(n)
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise self._read_error(exc) from None

        return read

    def _reader_into(self, fh: IO[bytes]) -> Callable[[memoryview], int]:
        """``fh.readinto``, raising :meth:`_read_error` for unreadable or corrupt files."""

        def readinto(view: memoryview) -> int:
            try:
                return fh.readinto(view)  # type: ignore[attr-defined]
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise self._read_error(exc) from None

        return readinto

    def _layout(self, head: bytes, read: Callable[[int], bytes]) -> None:
        """Header lines and separator from the first bytes; the empty-file and GAF errors."""
        if not head.replace(BOM, b"").strip():
            raise InputFormatError(self.path, None, "the file is empty")
        self.lay = prediction_layout(head, self.path)
        self.parser = LineParser(self.path, self.lay.tab)
        if self.keep is not None and self.lay.first is not None and head.find(b"\n", self.lay.offset) >= 0:
            # the first data line is checked whosever it is (a file of another kind is named as such)
            no, text, _ = self.lay.first
            fields = line_fields(text, self.lay.tab)[0]
            if not is_end(fields) and not is_text_line(fields):
                check_prediction(fields, self.path, no, text, True)
        header = head[: self.lay.offset]
        decode_utf8(header, self.path)
        if has_lone_cr(header):
            self._lines(header, 1)
            if self._pending_error is not None:
                raise self._pending_error

    def _lines(self, text: bytes, line0: int) -> list[str]:
        """The lines of ``text`` (one trailing ``\\r`` removed); the first line that is not UTF-8 or holds a
        carriage return is an error, raised after the lines before it are parsed (:meth:`_by_line`)."""
        bad = None
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            try:
                decode_utf8(text, self.path)
            except InputFormatError as err:
                bad = InputFormatError(self.path, err.line + line0 - 1, err.problem, err.text)  # type: ignore[operator]
            decoded = text[: text.rfind(b"\n", 0, exc.start) + 1].decode("utf-8")
        lines = decoded.split("\n")
        if "\r" in decoded:
            for k, line in enumerate(lines):
                line = lines[k] = line[:-1] if line.endswith("\r") else line
                if "\r" in line:
                    self._pending_error = InputFormatError(self.path, line0 + k, LONE_CR, line)
                    return lines[:k]
        self._pending_error = bad
        return lines

    def _parse(self, text: bytearray) -> "_Parsed":
        """The fast reader over one part, on its own (parts are parsed in parallel): Arrow, then the kept rows'
        columns; what it cannot vouch for is left to :meth:`_part`."""
        tab = self.lay.tab
        if has_lone_cr(text):
            return _Parsed(text=text)
        body = text if tab else whitespace_to_tab(text)
        skip = _Skip(tab, self.keep)
        # with a filter that keeps most rows (a benchmark-sized file), terms and scores are converted by
        # Arrow as without one; with one that keeps few, only the kept rows' are, after the lookup
        types = COLUMN_TYPES if self.keep is None or self._kept > 0.5 else FILTERED_TYPES
        got = tsv.parse_tsv(tsv.buffer_reader(body), COLUMNS, types, COLUMNS, tab,
                            min(_ARROW_BLOCK, max(len(body), 1)), skip=skip, empty_lines=True, threads=False)
        if got is None or not all(is_end(f) for f in got[1]):
            return _Parsed(text=text)
        return _Parsed(text=text, cols=self._columns(got[0], skip), aside=got[1], n_lines=got[0].num_rows + skip.calls,
                       skip=skip)

    def _part(self, parsed: "_Parsed", line0: int) -> tuple[ParsedPart | None, int]:
        """One part's rows in file order: the fast reader's, or the line-by-line rule's where Arrow could not
        vouch for it. (rows, the part's ``\\n`` count)"""
        text, cols = parsed.text, parsed.cols
        if self.parser.end_line is not None or cols is None:
            return self._by_line(text, line0), text.count(b"\n")
        n_newlines = parsed.n_lines - (not text.endswith(b"\n"))
        if parsed.aside:  # an END closing the part (lines after it go to the line rule), or the line rule decides
            end = _last_data_line(text, line0) if len(parsed.aside) == 1 else None
            if end is None or not is_end(end[1]):
                return self._by_line(text, line0), n_newlines
            self.parser.end_line = end[0]
        self._count(parsed.skip, text)
        self._kept = len(cols[0]) / max(1, parsed.n_lines)
        exact = len(cols[0]) == parsed.n_lines
        span = None if exact else _Span(self.path, self.bytes_read, len(text))
        pcodes, proteins, tcodes, terms, scores = cols
        return ParsedPart(pcodes=pcodes, proteins=proteins, tcodes=tcodes, terms=terms, scores=scores, line0=line0,
                          source=span, tab=self.lay.tab, keep=self.keep), n_newlines

    def _columns(self, table: pa.Table, skip: _Skip) -> tuple[np.ndarray, ...] | None:
        """The fast reader's columns (only the kept proteins' rows with a filter), or None."""
        if self.keep is not None:
            table = filtered_table(table, self.keep, skip.unread)
            if table is None:
                return None
        return _table_columns(table)

    def _count(self, skip: _Skip, text: bytearray) -> None:
        """Add a part's counts from the fast reader (the first proteins of unread lines in file order)."""
        self.parser.text_lines += skip.parser.text_lines
        self.parser.mixed += skip.parser.mixed
        self.parser.spaced += skip.parser.spaced
        if len(self.unread.examples) < EXAMPLES and skip.unread.proteins:
            skip.unread.examples = _unread_names(text, self.lay.tab, self.keep, 2 * EXAMPLES)
        self.unread.merge(skip.unread)

    def _by_line(self, text: bytes, line0: int) -> ParsedPart | None:
        """The reference rule of ``read_predictions`` over one part, with absolute line numbers."""
        lines = self._lines(text, line0)
        p, t, s, nos = self.parser.parse(lines, line0, rows_before=self.rows, numbers=True, keep=self.keep,
                                         unread=self.unread)
        if self._pending_error is not None:
            raise self._pending_error
        return _from_lists(p, t, s, nos, line0)

    def _finish(self) -> None:
        """Set the counts of the whole file."""
        end_line = self.parser.end_line is not None
        counts = dict(self.lay.counts, end_line=end_line, space_separated_lines=self.parser.spaced,
                      **line_counts(self.parser))
        counts["missing_end"] = int(counts["cafa_header_lines"] > 0 and not end_line)
        counts["rows"] = self.rows
        if self.keep is not None:
            counts["unread"] = self.unread.counts()
        self.counts = counts


def _table_columns(table: pa.Table) -> tuple[np.ndarray, ...] | None:
    """:func:`~goeval.io.predictions.rules.arrow_columns` of an Arrow table."""
    chunks = {name: list(table.column(name).chunks) for name in COLUMNS}
    n_rows = int(table.num_rows)
    del table
    return arrow_columns(chunks, n_rows)
