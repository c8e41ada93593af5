"""One validating pass over a prediction file in blocks of whole lines, in bounded memory.

Each block (the whole lines that start within ``block_size`` bytes) is
parsed by the fast reader exactly as :func:`~goeval.io.predictions.read_predictions`
parses a whole file; a block that it cannot vouch for (a lone carriage
return, an Arrow error, a row with another number of columns, an empty
field, a score outside [0, 1]) is read by the reference
:class:`~goeval.io.predictions.rules.LineParser` instead, with absolute line
numbers. The precedence of errors is that of ``read_predictions``'s
reference reader, which looks at the whole file before it names a line:
bytes that are not UTF-8 anywhere come first, then a lone carriage return
anywhere, then the first malformed line; so after the first error the rest
of the file is still read (not parsed) before the error is raised. A corrupt
compressed stream is reported before everything else, as
``read_predictions`` does.
"""

from __future__ import annotations

import lzma
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import pyarrow as pa

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.files import PathLike, decode_utf8, is_compressed, open_binary, read_failure
from goeval.io.pairs import encode_strings
from goeval.io.predictions.rules import (
    COLUMN_TYPES,
    COLUMNS,
    HEAD_BYTES,
    LineParser,
    TextLines,
    arrow_columns,
    is_text_line,
    line_counts,
    prediction_layout,
)
from goeval.io.text import BOM, LONE_CR, Layout, has_lone_cr, is_end, split_fields, whitespace_to_tab

__all__ = ["BLOCK_BYTES", "ParsedBlock", "BlockReader", "line_blocks"]

#: Bytes of text parsed at a time, by default.
BLOCK_BYTES = 1 << 23
_ARROW_BLOCK = 1 << 20  # Arrow's own block inside ours (its unit of parallel parsing)
_READ = 1 << 20  # bytes read from the file at a time


@dataclass
class ParsedBlock:
    """The rows parsed from one block, dictionary-encoded in first-appearance order.

    Attributes
    ----------
    pcodes, proteins, tcodes, terms, scores : ndarray
        Target codes and targets, term codes and terms, scores.
    line0 : int
        Line number of the block's first line.
    lines : ndarray of int64 or None
        The line of every row, when known.
    text : bytes or None
        The block, kept when rows are not one per line (to find their lines).
    tab : bool
        The file is tab-separated.
    starts : ndarray of int64
        Rows where a protein run starts (set by the reader of the blocks).
    """

    pcodes: np.ndarray
    proteins: np.ndarray
    tcodes: np.ndarray
    terms: np.ndarray
    scores: np.ndarray
    line0: int
    lines: np.ndarray | None = None
    text: bytes | None = None
    tab: bool = True
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __len__(self) -> int:
        return int(self.pcodes.shape[0])

    def line_of(self, row: int) -> int:
        """The line number of row ``row`` (the block is re-read when rows skip lines)."""
        if self.lines is None and self.text is not None:
            self.lines = _row_lines(self.text, self.line0, self.tab)
            self.text = None
        return int(self.lines[row]) if self.lines is not None else self.line0 + row


def _row_lines(block: bytes, line0: int, tab: bool) -> np.ndarray:
    """Line numbers of the data lines of a block that Arrow read (blank, END and free-text lines skipped)."""
    out = []
    for k, raw in enumerate(block.split(b"\n")):
        fields = split_fields(raw.decode("utf-8", "replace").rstrip("\r"), tab)
        if fields and not is_end(fields) and not is_text_line(fields):
            out.append(line0 + k)
    return np.asarray(out, dtype=np.int64)


def _whole_lines(read: Callable[[int], bytes], buf: bytearray, line: int,
                 size: int) -> Iterator[tuple[bytes, int, int]]:
    """(block, number of its first line, its ``\\n`` count): ``buf`` and then the rest of the
    stream in blocks of whole lines, each the lines that start within ``size``
    bytes (at least one line; the last block ends at the end of the stream)."""
    eof, step = False, min(size, _READ) + 1
    while buf or not eof:
        while not eof and (len(buf) <= size or buf.find(b"\n", size) < 0):
            chunk = read(step)
            eof = not chunk
            buf += chunk
        if eof and len(buf) <= size:
            cut = len(buf)
        else:
            cut = buf.rfind(b"\n", 0, size) + 1 or buf.find(b"\n", size) + 1 or len(buf)
        with memoryview(buf) as view:
            block = bytes(view[:cut])
        del buf[:cut]
        if block:
            n_newlines = block.count(b"\n")
            yield block, line, n_newlines
            line += n_newlines


def line_blocks(path: PathLike, block_size: int = BLOCK_BYTES) -> Iterator[tuple[bytes, int, int]]:
    """A file (plain or compressed) in blocks of whole lines: (block, number of its first line, its ``\\n`` count).

    Each block holds the lines that start within ``block_size`` bytes (at
    least one line). Memory is a few blocks, whatever the file's size.

    Raises
    ------
    InputFormatError
        A file that cannot be read or decompressed (as the prediction readers say it).
    """
    reader = BlockReader(path, block_size)
    with reader._open() as fh:
        yield from _whole_lines(reader._reader(fh), bytearray(), 1, block_size)


def _last_data_line(block: bytes, line0: int) -> tuple[int, list[str]] | None:
    """(line number, fields) of the last non-blank line of ``block``, or None."""
    end, no = len(block), line0 + block.count(b"\n")
    while True:
        start = block.rfind(b"\n", 0, end) + 1
        fields = split_fields(block[start:end].decode("utf-8", "replace").rstrip("\r"), True)
        if fields:
            return no, fields
        if start == 0:
            return None
        end, no = start - 1, no - 1


def _from_lists(p: list[str], t: list[str], s: list[float], nos: list[int], line0: int) -> ParsedBlock:
    pcodes, proteins = encode_strings(pa.chunked_array([pa.array(p, pa.string())]))
    tcodes, terms = encode_strings(pa.chunked_array([pa.array(t, pa.string())]))
    return ParsedBlock(pcodes, proteins, tcodes, terms, np.asarray(s, dtype=np.float64), line0,
                       lines=np.asarray(nos, dtype=np.int64))


class BlockReader:
    """One pass over a prediction file: validated rows block by block, then the counts.

    The outcome of ``read_predictions`` is kept in the first error of each
    kind (UTF-8, lone carriage return, line) and in ``fallback`` (whether it
    would have read the file with its line-by-line reader, which also decodes
    the header lines strictly).

    Parameters
    ----------
    path : str or path-like
        A prediction file, plain or compressed.
    block_size : int
        Bytes of text parsed at a time (rounded up to whole lines).

    Attributes
    ----------
    rows : int
        Data rows given so far.
    counts : dict
        After the pass: the ``counts`` of ``read_predictions`` for the file.
    """

    def __init__(self, path: PathLike, block_size: int) -> None:
        self.path = path
        self.block_size = block_size
        self.compressed = is_compressed(path)
        self.lay = Layout()
        self.parser = LineParser(path, True)
        self.header_utf8: InputFormatError | None = None
        self.utf8: InputFormatError | None = None
        self.cr: InputFormatError | None = None
        self.line_error: InputFormatError | None = None
        self.fallback = False
        self.rows = 0
        self.fast_text_lines = 0  # free-text lines the fast reader skipped
        self.counts: dict[str, Any] = {}

    @property
    def failed(self) -> bool:
        """Whether an error was met (the rest of the file is read, not parsed)."""
        return bool(self.utf8 or self.cr or self.line_error)

    def parts(self) -> Iterator[ParsedBlock]:
        """The parsed blocks in file order; raises the file's first error at the end."""
        with self._open() as fh:
            read = self._reader(fh)
            buf = bytearray()
            while len(buf) < HEAD_BYTES and (chunk := read(HEAD_BYTES - len(buf))):
                buf += chunk
            self._layout(bytes(buf), read)
            del buf[: self.lay.offset]
            n_blocks = 0
            for block, line0, n_newlines in _whole_lines(read, buf, self.lay.start, self.block_size):
                n_blocks += 1
                if self.failed:
                    self._text(block, line0)
                    continue
                part = self._block(block, line0, n_newlines + (not block.endswith(b"\n")))
                if part is not None and len(part):
                    self.rows += len(part)
                    yield part
        self.fallback |= n_blocks == 0  # Arrow refuses an empty body
        self._finish()

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

    def _layout(self, head: bytes, read: Callable[[int], bytes]) -> None:
        """Header lines and separator from the first bytes; the empty-file and GAF errors.

        A compressed file is first read to its end (``read_predictions``
        decompresses it whole before looking at it).
        """
        try:
            if not head.replace(BOM, b"").strip():
                raise InputFormatError(self.path, None, "the file is empty")
            self.lay = prediction_layout(head, self.path)
        except InputFormatError:
            while self.compressed and read(1 << 20):
                pass
            raise
        self.parser = LineParser(self.path, self.lay.tab)
        header = head[: self.lay.offset]
        try:
            decode_utf8(header, self.path)
        except InputFormatError as exc:
            self.header_utf8 = exc
            return
        if has_lone_cr(header):
            self._text(header, 1)

    def _text(self, block: bytes, line0: int) -> list[str] | None:
        """The lines of ``block`` (one trailing ``\\r`` removed), or None after
        recording its first UTF-8 or lone carriage return error."""
        if self.utf8 is not None:
            return None
        try:
            lines = decode_utf8(block, self.path).split("\n")
        except InputFormatError as exc:
            self.utf8 = InputFormatError(self.path, exc.line + line0 - 1, exc.problem, exc.text)  # type: ignore[operator]
            return None
        if self.cr is None and b"\r" in block and has_lone_cr(block):
            for k, line in enumerate(lines):
                line = line[:-1] if line.endswith("\r") else line
                if "\r" in line:
                    self.cr = InputFormatError(self.path, line0 + k, LONE_CR, line)
                    return None
        if self.cr is not None:
            return None
        return [line[:-1] if line.endswith("\r") else line for line in lines]

    def _block(self, block: bytes, line0: int, n_lines: int) -> ParsedBlock | None:
        """Arrow over one block of ``n_lines`` lines; the line-by-line rule when Arrow cannot vouch for it."""
        tab = self.lay.tab
        if self.parser.end_line is not None or has_lone_cr(block):
            self.fallback |= self.parser.end_line is None
            return self._by_line(block, line0)
        body = block if tab else whitespace_to_tab(block)
        texts = TextLines()
        got = tsv.parse_tsv(tsv.buffer_reader(body), COLUMNS, COLUMN_TYPES, COLUMNS, tab,
                            min(_ARROW_BLOCK, max(len(body), 1)), skip=texts)
        cols = None if got is None or not all(is_end(f) for f in got[1]) else _table_columns(got[0])
        if cols is None:
            self.fallback = True
            return self._by_line(block, line0)
        if got[1]:  # an END closing the block (lines after it go to the line rule), or the line rule decides
            end = _last_data_line(block, line0) if len(got[1]) == 1 else None
            if end is None or not is_end(end[1]):
                return self._by_line(block, line0)
            self.parser.end_line = end[0]
        text = None if len(cols[0]) == n_lines else block
        self.fast_text_lines += texts.n
        return ParsedBlock(*cols, line0=line0, text=text, tab=tab)

    def _by_line(self, block: bytes, line0: int) -> ParsedBlock | None:
        """The reference rule of ``read_predictions`` over one block, with absolute line numbers."""
        lines = self._text(block, line0)
        if lines is None:
            return None
        try:
            p, t, s, nos = self.parser.parse(lines, line0, rows_before=self.rows, numbers=True)
        except InputFormatError as exc:
            self.line_error = exc
            return None
        return _from_lists(p, t, s, nos, line0)

    def _finish(self) -> None:
        """Raise the error ``read_predictions`` would raise, or set the counts."""
        if self.fallback or self.failed:
            for error in (self.header_utf8, self.utf8, self.cr, self.line_error):
                if error is not None:
                    raise error
        end_line = self.parser.end_line is not None
        counts = dict(self.lay.counts, end_line=end_line, space_separated_lines=self.parser.spaced,
                      **line_counts(self.parser, self.fast_text_lines))
        counts["missing_end"] = int(counts["cafa_header_lines"] > 0 and not end_line)
        counts["rows"] = self.rows
        self.counts = counts


def _table_columns(table: pa.Table) -> tuple[np.ndarray, ...] | None:
    """:func:`~goeval.io.predictions.rules.arrow_columns` of an Arrow table."""
    chunks = {name: list(table.column(name).chunks) for name in COLUMNS}
    n_rows = int(table.num_rows)
    del table
    return arrow_columns(chunks, n_rows)
