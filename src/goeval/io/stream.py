"""Prediction files read in bounded memory: one validating scan, then batches.

:func:`~goeval.io.tables.read_predictions` holds a whole prediction file in
memory. The two readers here take the same files by the same rules (the line
rule of :mod:`goeval.io.tables`, CAFA header lines and ``END``, a column
header, compression) and raise the same :class:`~goeval.errors.InputFormatError`
(file, line number, text) on the same input, but read the file in blocks of
whole lines:

* :func:`scan_predictions` validates every line in one pass and returns what
  a chunked evaluation needs to know first: the distinct scores (the exact
  thresholds), whether the file is grouped by protein, the number of rows and
  proteins, and the ``counts`` that ``read_predictions`` gives;
* :func:`iter_prediction_batches` gives the rows in file order as
  :class:`~goeval.io.tables.PairTable` batches that end at protein boundaries.

Memory is independent of the file size: a few blocks of text and their
parsed rows, plus one entry per distinct protein (and per distinct score for
the scan).

Each block (the whole lines that start within ``block_size`` bytes) is parsed by
Arrow exactly as ``read_predictions`` parses a whole file; a block that Arrow
cannot vouch for (a lone carriage return, an Arrow error, a row with another
number of columns, an empty field, a score outside [0, 1]) is read by the
reference line-by-line rule instead, with absolute line numbers. The
precedence of errors is that of ``read_predictions``'s reference reader,
which looks at the whole file before it names a line: bytes that are not
UTF-8 anywhere come first, then a lone carriage return anywhere, then the
first malformed line; so after the first error the rest of the file is still
read (not parsed) before the error is raised. A corrupt compressed stream
is reported before everything else, as ``read_predictions`` does.
"""

from __future__ import annotations

import lzma
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa

from goeval.errors import InputFormatError, InvalidParameterError, UngroupedPredictionsError
from goeval.io.files import PathLike, decode_utf8, open_binary
from goeval.io.tables import (
    _BOM,
    _COMPRESSED,
    _DICT,
    _HEAD,
    _LONE_CR,
    PairTable,
    _arrow,
    _buffer,
    _check_prediction,
    _columns,
    _encode,
    _encode_chunks,
    _has_lone_cr,
    _Layout,
    _prediction_layout,
    _split_fields,
    _whitespace_to_tab,
)

__all__ = ["PredictionScan", "scan_predictions", "iter_prediction_batches", "PredictionBatches",
           "UngroupedPredictionsError"]

_BLOCK = 1 << 23  # bytes of text parsed at a time
_ARROW_BLOCK = 1 << 20  # Arrow's own block inside ours (its unit of parallel parsing)
_READ = 1 << 20  # bytes read from the file at a time
_NAMES = ["p", "t", "s"]
_TYPES = {"p": _DICT, "t": _DICT, "s": pa.float64()}


@dataclass(frozen=True)
class PredictionScan:
    """What one validating pass over a prediction file found.

    Attributes
    ----------
    source : str
        The file scanned.
    scores : ndarray of float64, shape (n_scores,)
        The distinct scores greater than 0, sorted increasingly (every score
        is finite and in [0, 1]): the exact thresholds of a sweep.
    grouped : bool
        Every protein's lines are contiguous (blank lines aside), so
        :func:`iter_prediction_batches` can read the file.
    reappearing_protein : str or None
        When not grouped, the first protein whose lines resume after the
        lines of another protein ...
    reappearing_line : int or None
        ... and the line where they resume.
    n_rows : int
        Data rows (``counts['rows']``).
    n_proteins : int
        Distinct proteins.
    n_zero_scores : int
        Rows with a score of exactly 0 (they can never reach a threshold).
    counts : dict
        The ``counts`` of :func:`~goeval.io.tables.read_predictions` for the
        same file: ``cafa_header_lines`` (and ``cafa_header``),
        ``header_lines`` when there is a column header,
        ``whitespace_separated``, ``end_line``, ``space_separated_lines``,
        ``missing_end``, ``rows``.
    """

    source: str
    scores: np.ndarray
    grouped: bool
    reappearing_protein: str | None
    reappearing_line: int | None
    n_rows: int
    n_proteins: int
    n_zero_scores: int
    counts: dict[str, Any]


# ------------------------------------------------------------- the blocks
@dataclass
class _Part:
    """The rows parsed from one block, dictionary-encoded in first-appearance order."""

    pcodes: np.ndarray
    proteins: np.ndarray
    tcodes: np.ndarray
    terms: np.ndarray
    scores: np.ndarray
    line0: int  # line number of the block's first line
    lines: np.ndarray | None = None  # line of every row, when known
    text: bytes | None = None  # the block, when rows are not one per line
    tab: bool = True
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # protein runs

    def __len__(self) -> int:
        return int(self.pcodes.shape[0])

    def line_of(self, row: int) -> int:
        """The line number of row ``row`` (the block is re-read when rows skip lines)."""
        if self.lines is None and self.text is not None:
            self.lines = _row_lines(self.text, self.line0, self.tab)
            self.text = None
        return int(self.lines[row]) if self.lines is not None else self.line0 + row


def _row_lines(block: bytes, line0: int, tab: bool) -> np.ndarray:
    """Line numbers of the data lines of a block that Arrow read (blank and END lines skipped)."""
    out = []
    for k, raw in enumerate(block.split(b"\n")):
        fields = _split_fields(raw.decode("utf-8", "replace").rstrip("\r"), tab)
        if fields and not (len(fields) == 1 and fields[0].upper() == "END"):
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


def _last_data_line(block: bytes, line0: int) -> tuple[int, list[str]] | None:
    """(line number, fields) of the last non-blank line of ``block``, or None."""
    end, no = len(block), line0 + block.count(b"\n")
    while True:
        start = block.rfind(b"\n", 0, end) + 1
        fields = _split_fields(block[start:end].decode("utf-8", "replace").rstrip("\r"), True)
        if fields:
            return no, fields
        if start == 0:
            return None
        end, no = start - 1, no - 1


def _is_end(fields: list[str]) -> bool:
    return len(fields) == 1 and fields[0].upper() == "END"


# ------------------------------------------------------------ the reader
class _Reader:
    """One pass over a prediction file: validated rows block by block, then the counts.

    The outcome of ``read_predictions`` is kept in the first error of each
    kind (UTF-8, lone carriage return, line) and in ``fallback`` (whether it
    would have read the file with its line-by-line reader, which also decodes
    the header lines strictly).
    """

    def __init__(self, path: PathLike, block_size: int) -> None:
        self.path = path
        self.block_size = block_size
        self.compressed = Path(path).suffix.lower() in _COMPRESSED
        self.lay = _Layout()
        self.header_utf8: InputFormatError | None = None
        self.utf8: InputFormatError | None = None
        self.cr: InputFormatError | None = None
        self.line_error: InputFormatError | None = None
        self.fallback = False
        self.end_line: int | None = None
        self.rows = 0
        self.spaced = 0
        self.counts: dict[str, Any] = {}

    @property
    def failed(self) -> bool:
        return bool(self.utf8 or self.cr or self.line_error)

    def parts(self) -> Iterator[_Part]:
        """The parsed blocks in file order; raises the file's first error at the end."""
        with self._open() as fh:
            read = self._reader(fh)
            buf = bytearray()
            while len(buf) < _HEAD and (chunk := read(_HEAD - len(buf))):
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
        if isinstance(exc, (FileNotFoundError, IsADirectoryError, PermissionError)):
            return InputFormatError(self.path, None, f"cannot read the file: {exc.strerror}")
        return InputFormatError(self.path, None, f"cannot decompress the file: {exc}")

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
            if not head.replace(_BOM, b"").strip():
                raise InputFormatError(self.path, None, "the file is empty")
            self.lay = _prediction_layout(head, self.path)
        except InputFormatError:
            while self.compressed and read(1 << 20):
                pass
            raise
        header = head[: self.lay.offset]
        try:
            decode_utf8(header, self.path)
        except InputFormatError as exc:
            self.header_utf8 = exc
            return
        if _has_lone_cr(header):
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
        if self.cr is None and b"\r" in block and _has_lone_cr(block):
            for k, line in enumerate(lines):
                line = line[:-1] if line.endswith("\r") else line
                if "\r" in line:
                    self.cr = InputFormatError(self.path, line0 + k, _LONE_CR, line)
                    return None
        if self.cr is not None:
            return None
        return [line[:-1] if line.endswith("\r") else line for line in lines]

    def _block(self, block: bytes, line0: int, n_lines: int) -> _Part | None:
        """Arrow over one block of ``n_lines`` lines; the line-by-line rule when Arrow cannot vouch for it."""
        tab = self.lay.tab
        if self.end_line is not None or _has_lone_cr(block):
            self.fallback |= self.end_line is None
            return self._by_line(block, line0)
        body = block if tab else _whitespace_to_tab(block)
        got = _arrow(_buffer(body, 0), _NAMES, _TYPES, _NAMES, tab, min(_ARROW_BLOCK, max(len(body), 1)))
        cols = None if got is None or not all(_is_end(f) for f in got[1]) else _arrow_columns(got[0])
        if cols is None:
            self.fallback = True
            return self._by_line(block, line0)
        if got[1]:  # an END closing the block (lines after it go to the line rule), or the line rule decides
            end = _last_data_line(block, line0) if len(got[1]) == 1 else None
            if end is None or not _is_end(end[1]):
                return self._by_line(block, line0)
            self.end_line = end[0]
        text = None if len(cols[0]) == n_lines else block
        return _Part(*cols, line0=line0, text=text, tab=tab)

    def _by_line(self, block: bytes, line0: int) -> _Part | None:
        """The reference rule of ``read_predictions`` over one block, with absolute line numbers."""
        lines = self._text(block, line0)
        if lines is None:
            return None
        p: list[str] = []
        t: list[str] = []
        s: list[float] = []
        nos: list[int] = []
        for k, line in enumerate(lines):
            fields = _split_fields(line, self.lay.tab)
            if not fields:
                continue
            if (problem := self._end_rule(fields, no := line0 + k)) is not None:
                self.line_error = InputFormatError(self.path, no, problem, line)
                return None
            if _is_end(fields):
                continue
            try:
                _check_prediction(fields, self.path, no, line, self.rows + len(p) == 0)
            except InputFormatError as exc:
                self.line_error = exc
                return None
            self.spaced += self.lay.tab and "\t" not in line
            p.append(fields[0])
            t.append(fields[1])
            s.append(float(fields[2]))
            nos.append(no)
        return _part_from_lists(p, t, s, nos, line0)

    def _end_rule(self, fields: list[str], no: int) -> str | None:
        """The problem with a line given the END seen so far (and record a first END)."""
        if _is_end(fields):
            if self.end_line is not None:
                return f"a second END line (the first is line {self.end_line})"
            self.end_line = no
            return None
        if self.end_line is not None:
            return f"data after the END line (line {self.end_line}); END must be the last line"
        return None

    def _finish(self) -> None:
        """Raise the error ``read_predictions`` would raise, or set the counts."""
        if self.fallback or self.failed:
            for error in (self.header_utf8, self.utf8, self.cr, self.line_error):
                if error is not None:
                    raise error
        counts = dict(self.lay.counts, end_line=self.end_line is not None, space_separated_lines=self.spaced)
        counts["missing_end"] = int(counts["cafa_header_lines"] > 0 and self.end_line is None)
        counts["rows"] = self.rows
        self.counts = counts


def _arrow_columns(table: pa.Table) -> tuple[np.ndarray, ...] | None:
    """(protein codes, proteins, term codes, terms, scores) of an Arrow table, or None
    when a field is empty or a score is outside [0, 1]."""
    chunks = {name: list(table.column(name).chunks) for name in _NAMES}
    n_rows = int(table.num_rows)
    del table
    return _columns(chunks, n_rows)


def _part_from_lists(p: list[str], t: list[str], s: list[float], nos: list[int], line0: int) -> _Part:
    pcodes, proteins = _encode(pa.chunked_array([pa.array(p, pa.string())]))
    tcodes, terms = _encode(pa.chunked_array([pa.array(t, pa.string())]))
    return _Part(pcodes, proteins, tcodes, terms, np.asarray(s, dtype=np.float64), line0,
                 lines=np.asarray(nos, dtype=np.int64))


def _check_size(value: int, name: str, func: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidParameterError(f"The {name!r} parameter of {func} must be an integer >= 1; got {value!r}.")


# ------------------------------------------------------------- grouping
def _run_starts(codes: np.ndarray) -> np.ndarray:
    """Rows where a new run of equal codes begins (0 included when not empty)."""
    if not codes.size:
        return np.zeros(0, np.int64)
    return np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))


class _Grouping:
    """Follows the protein runs across parts: the distinct proteins and the first reappearance."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.last: str | None = None
        self.reappearing: tuple[str, int] | None = None

    def add(self, part: _Part) -> None:
        """Take the next part; set ``part.starts`` (its protein runs not continuing the previous part)."""
        starts = _run_starts(part.pcodes)
        run_codes = part.pcodes[starts]
        repeat = np.zeros(starts.size, bool)
        repeat[1:] = run_codes[1:] <= np.maximum.accumulate(run_codes)[:-1]
        proteins = part.proteins.tolist()
        continues = proteins[0] == self.last
        rows = [int(starts[np.argmax(repeat)])] if repeat.any() else []
        if self.reappearing is None and not self.seen.isdisjoint(proteins[continues:]):
            k = next(k for k in range(continues, len(proteins)) if proteins[k] in self.seen)
            rows.append(int(starts[~repeat][k]))
        if rows and self.reappearing is None:
            row = min(rows)
            self.reappearing = (proteins[part.pcodes[row]], part.line_of(row))
        self.seen.update(proteins)
        self.last = proteins[part.pcodes[-1]]
        part.starts = starts[1:] if continues else starts


class _DistinctScores:
    """The sorted distinct positive scores of a stream of score arrays, merged now and then."""

    def __init__(self) -> None:
        self.merged = np.zeros(0)
        self.pending: list[np.ndarray] = []
        self.n_pending = 0
        self.zeros = 0

    def add(self, scores: np.ndarray) -> None:
        positive = scores[scores > 0]
        self.zeros += int(scores.size - positive.size)
        self.pending.append(np.unique(positive))
        self.n_pending += self.pending[-1].size
        if self.n_pending > max(self.merged.size, 1 << 16):
            self.result()

    def result(self) -> np.ndarray:
        self.merged = np.unique(np.concatenate([self.merged, *self.pending]))
        self.pending, self.n_pending = [], 0
        return self.merged


def scan_predictions(path: PathLike, *, block_size: int = _BLOCK) -> PredictionScan:
    """Validate a prediction file in one pass in bounded memory; its scores, grouping and counts.

    Every line is checked as :func:`~goeval.io.tables.read_predictions`
    checks it, and the same error is raised for the same file.

    Parameters
    ----------
    path : str or path-like
        A prediction file (CAFA format or a 3-column table, plain, ``.gz``,
        ``.bz2`` or ``.xz``).
    block_size : int, default 8 MiB
        Bytes of text parsed at a time (rounded up to whole lines). Memory
        is a few times this, plus the distinct proteins and scores.

    Returns
    -------
    PredictionScan
        The distinct positive scores, whether the file is grouped by protein
        (and if not, the first protein that reappears and its line), the
        numbers of rows and proteins, and ``read_predictions``'s counts.

    Raises
    ------
    InputFormatError
        As :func:`~goeval.io.tables.read_predictions`: an empty file, bytes
        that are not UTF-8, a line without exactly three columns, a score
        that is not a finite number in [0, 1], data after ``END`` or a second
        ``END``, a GAF or truth file - with the file, line number and line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "p.tsv"
    >>> _ = p.write_text("P1\\tGO:1\\t0.5\\nP1\\tGO:2\\t0.25\\nP2\\tGO:1\\t0.5\\n")
    >>> scan = scan_predictions(p)
    >>> scan.scores.tolist(), scan.grouped, scan.n_rows, scan.n_proteins
    ([0.25, 0.5], True, 3, 2)
    """
    _check_size(block_size, "block_size", "scan_predictions")
    reader, groups, scores = _Reader(path, block_size), _Grouping(), _DistinctScores()
    for part in reader.parts():
        groups.add(part)
        scores.add(part.scores)
    again = groups.reappearing or (None, None)
    return PredictionScan(str(path), scores.result(), groups.reappearing is None, again[0], again[1],
                          reader.rows, len(groups.seen), scores.zeros, reader.counts)


# -------------------------------------------------------------- batches
def _merge_codes(pieces: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One dictionary encoding (first-appearance order) for pieces of (codes, their dictionary)."""
    if len(pieces) == 1 and (pieces[0][0].size == 0 or _first_appearance(pieces[0][0], pieces[0][1].size)):
        return pieces[0]
    chunks = []
    for codes, uniq in pieces:
        local = pa.array(codes).dictionary_encode()
        values = pa.array(uniq[local.dictionary.to_numpy(zero_copy_only=False)].tolist(), pa.string())
        chunks.append(pa.DictionaryArray.from_arrays(local.indices, values))
    return _encode_chunks(chunks, sum(len(c) for c, _ in pieces))


def _first_appearance(codes: np.ndarray, n_uniq: int) -> bool:
    """Whether ``codes`` use all of 0..n_uniq-1, each first appearing in increasing order."""
    firsts = codes[_run_starts(codes)]
    seen = firsts[np.concatenate(([True], firsts[1:] > np.maximum.accumulate(firsts)[:-1]))]
    return seen.size == n_uniq and bool((seen == np.arange(n_uniq)).all())


class _Batcher:
    """Parts in, batches of about ``batch_rows`` rows ending at protein boundaries out."""

    def __init__(self, path: PathLike, batch_rows: int) -> None:
        self.path, self.batch_rows = path, batch_rows
        self.pending: list[list[Any]] = []  # [part, first row not yet in a batch]
        self.n = 0
        self.emitted: set[str] = set()

    def add(self, part: _Part) -> Iterator[PairTable]:
        self.pending.append([part, 0])
        self.n += len(part)
        while self.n >= self.batch_rows and (cut := self._cut()) is not None:
            yield self._take(cut)

    def flush(self) -> Iterator[PairTable]:
        if self.n:
            yield self._take(self.n)

    def _cut(self) -> int | None:
        """Rows of the next batch: up to the last protein start within ``batch_rows``,
        else up to the first protein start (a protein larger than a batch); None
        while no start is known."""
        offset, best, first = 0, 0, 0
        for i, (part, a) in enumerate(self.pending):
            s = part.starts
            lo = int(np.searchsorted(s, a, side="right")) if i == 0 else 0
            hi = int(np.searchsorted(s, self.batch_rows - offset + a, side="right"))
            if hi > lo:
                best = int(s[hi - 1]) - a + offset
            if not first and lo < s.size:
                first = int(s[lo]) - a + offset
            offset += len(part) - a
            if offset > self.batch_rows and first:
                break
        return best or first or None

    def _take(self, n: int) -> PairTable:
        """The next ``n`` pending rows as a batch (checked against the earlier batches)."""
        slices = []
        while n:
            part, a = self.pending[0]
            b = min(len(part), a + n)
            slices.append((part, a, b))
            n -= b - a
            self.n -= b - a
            if b == len(part):
                self.pending.pop(0)
            else:
                self.pending[0][1] = b
        pcodes, proteins = _merge_codes([(p.pcodes[a:b], p.proteins) for p, a, b in slices])
        self._check_grouped(proteins, pcodes, slices)
        tcodes, terms = _merge_codes([(p.tcodes[a:b], p.terms) for p, a, b in slices])
        scores = np.concatenate([p.scores[a:b] for p, a, b in slices])
        return PairTable(pcodes, proteins, tcodes, terms, scores, str(self.path), {"rows": int(pcodes.size)})

    def _check_grouped(self, proteins: np.ndarray, pcodes: np.ndarray, slices: list) -> None:
        """Raise :class:`UngroupedPredictionsError` when a protein of an earlier batch is back."""
        names = proteins.tolist()
        if not self.emitted.isdisjoint(names):
            k = next(k for k, name in enumerate(names) if name in self.emitted)
            row = int(np.argmax(pcodes == k))
            for part, a, b in slices:
                if row < b - a:
                    raise UngroupedPredictionsError(self.path, part.line_of(a + row), names[k])
                row -= b - a
        self.emitted.update(names)


def iter_prediction_batches(path: PathLike, *, batch_rows: int = 1 << 20,
                            block_size: int = _BLOCK) -> Iterator[PairTable]:
    """The rows of a prediction file in file order, in batches ending at protein boundaries.

    The file is validated as it is read, by the rules and with the errors of
    :func:`~goeval.io.tables.read_predictions`; the batches put together are
    its rows in its order. Run :func:`scan_predictions` first to know that
    the file is valid and grouped before using any batch.

    Parameters
    ----------
    path : str or path-like
        A prediction file whose proteins' lines are contiguous.
    batch_rows : int, default 2**20
        Rows per batch: a batch ends at the last protein boundary within
        ``batch_rows`` rows, so it is smaller, except a protein with more
        rows, which is one batch of its own.
    block_size : int, default 8 MiB
        Bytes of text parsed at a time. Memory is a few batches and blocks.

    Yields
    ------
    PairTable
        Each with its own encoding: ``proteins`` and ``terms`` in order of
        first appearance in the batch, codes, float64 scores, ``source``;
        ``counts`` holds ``rows``.

    Raises
    ------
    UngroupedPredictionsError
        A protein of an earlier batch appears again (naming it and the line).
    InputFormatError
        Any error of :func:`~goeval.io.tables.read_predictions`, raised when
        the pass reaches it (after the batches before it).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "p.tsv"
    >>> _ = p.write_text("P1\\tGO:1\\t0.5\\nP1\\tGO:2\\t0.25\\nP2\\tGO:1\\t0.5\\n")
    >>> [b.proteins.tolist() for b in iter_prediction_batches(p, batch_rows=2)]
    [['P1'], ['P2']]
    """
    _check_size(batch_rows, "batch_rows", "iter_prediction_batches")
    _check_size(block_size, "block_size", "iter_prediction_batches")
    yield from PredictionBatches(path, batch_rows=batch_rows, block_size=block_size)


class PredictionBatches:
    """:func:`iter_prediction_batches` in one pass that also records what a scan would say.

    Iterate over it for the batches; afterwards :attr:`scan` holds the
    file's :class:`PredictionScan` (without the distinct scores, which this
    pass does not collect: ``scores`` is empty). A file whose proteins come
    back in a later batch raises :class:`UngroupedPredictionsError` during
    the iteration, as :func:`iter_prediction_batches` does; a protein that
    comes back within one batch is read normally (its lines are in that
    batch) and :attr:`scan` says ``grouped=False``.

    Parameters
    ----------
    path, batch_rows, block_size
        As for :func:`iter_prediction_batches`.
    """

    def __init__(self, path: PathLike, *, batch_rows: int = 1 << 20, block_size: int = _BLOCK) -> None:
        _check_size(batch_rows, "batch_rows", "PredictionBatches")
        _check_size(block_size, "block_size", "PredictionBatches")
        self.path, self.batch_rows, self.block_size = path, batch_rows, block_size
        self.scan: PredictionScan | None = None

    def __iter__(self) -> Iterator[PairTable]:
        reader, groups = _Reader(self.path, self.block_size), _Grouping()
        batcher = _Batcher(self.path, self.batch_rows)
        zeros = 0
        for part in reader.parts():
            groups.add(part)
            zeros += int((part.scores == 0).sum())
            yield from batcher.add(part)
        yield from batcher.flush()
        again = groups.reappearing or (None, None)
        self.scan = PredictionScan(str(self.path), np.zeros(0), groups.reappearing is None, again[0], again[1],
                                   reader.rows, len(groups.seen), zeros, reader.counts)
