"""The whole-file reader of prediction files (and its start in a forked child).

Parsing is vectorized (:func:`goeval.io.tsv.parse_tsv` over the whole
file); whenever the fast reader meets something it cannot vouch for, the
file is read again by the reference :class:`~goeval.io.predictions.rules.LineParser`,
which either raises an :class:`~goeval.errors.InputFormatError` naming the
line or returns the same table.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.background import Background, should_fork, start
from goeval.io.files import PathLike, is_compressed, open_binary, read_bytes
from goeval.io.pairs import PairTable
from goeval.io.predictions.rules import (
    COLUMN_TYPES,
    COLUMNS,
    HEAD_BYTES,
    LineParser,
    TextLines,
    arrow_columns,
    line_counts,
    prediction_layout,
)
from goeval.io.text import BOM, Layout, has_lone_cr, is_end, split_fields, text_lines, whitespace_to_tab

__all__ = ["read_predictions", "start_read_predictions"]


def _scan(path: PathLike) -> tuple[bytes, bytes, bool, bytes | None]:
    """(head, tail, lone carriage return?, whole content or None) of a prediction file.

    An uncompressed file is read once in 8 MiB pieces (about 30 ms for 100 MB)
    and left to Arrow to read from disk; a compressed one is decompressed here.
    """
    if is_compressed(path):
        data = read_bytes(path)
        return data[:HEAD_BYTES], data[-4096:], has_lone_cr(data), data
    buf, head, tail, lone, carry = bytearray(1 << 23), b"", b"", False, False
    try:
        with open_binary(path) as fh:
            while n := fh.readinto(buf):
                head = head or bytes(buf[:min(n, HEAD_BYTES)])  # not the buffer's zero padding
                tail = (tail + bytes(buf[max(0, n - 4096) : n]))[-4096:]
                if not lone:
                    ends_cr = buf[n - 1] == 13
                    lone = (carry and buf[0] != 10) or has_lone_cr(buf, n - ends_cr)
                    carry = ends_cr
    except OSError as exc:
        raise InputFormatError(path, None, f"cannot read the file: {exc}") from None
    return head, tail, lone, None


def _ends_with_end(tail: bytes) -> bool:
    for line in reversed(tail.split(b"\n")):
        fields = split_fields(line.decode("utf-8", "replace").rstrip("\r"), True)
        if fields:
            return is_end(fields)
    return False


def _predictions_by_line(data: bytes, path: PathLike, lay: Layout) -> tuple[list, list, list, dict[str, Any]]:
    """The reference reader: every data line by the line rule, or an error naming the line."""
    parser = LineParser(path, lay.tab)
    p, t, s, _ = parser.parse(text_lines(data, path), 1, skip=lay.start - 1)
    return p, t, s, {"end_line": parser.end_line is not None, "space_separated_lines": parser.spaced,
                     **line_counts(parser)}


def _predictions_fast(path: PathLike, data: bytes | None, lay: Layout, ends: bool) -> tuple | None:
    """Arrow over the data lines: (codes and scores, counts), or None when the
    line-by-line reader must decide."""
    if data is None:
        source = pa.OSFile(str(path))
        source.seek(lay.offset)
        size = os.path.getsize(path)
    else:
        body = data if lay.tab else whitespace_to_tab(data[lay.offset :])
        source, size = tsv.buffer_reader(body, lay.offset if lay.tab else 0), len(body)
    texts = TextLines()
    got = tsv.parse_tsv(source, COLUMNS, COLUMN_TYPES, COLUMNS, lay.tab, _block_size(size), skip=texts)
    if got is None:
        return None
    table, aside = got
    n_end = sum(is_end(f) for f in aside)
    if n_end != len(aside) or n_end != int(ends):
        return None
    chunks = {name: list(table.column(name).chunks) for name in COLUMNS}
    n_rows = int(table.num_rows)
    del table, got  # the chunk lists hold the only references: released one by one
    cols = arrow_columns(chunks, n_rows)
    info = {"end_line": ends, "space_separated_lines": 0, **line_counts(LineParser(path, lay.tab), texts.n)}
    return None if cols is None else (cols, info)


def _block_size(size: int) -> int:
    """CSV block size: 4 MiB, growing with the file so that it splits into at
    most ~32 blocks (fewer dictionary merges), capped at 64 MiB."""
    return int(min(1 << 26, max(1 << 22, size // 32)))


def read_predictions(path: PathLike) -> PairTable:
    """Read a prediction file: CAFA format or a plain 3-column table.

    CAFA header lines (``AUTHOR``, ``MODEL``, ``KEYWORDS``, ``ACCURACY``) at
    the top and a final ``END`` are skipped; data lines are ``target term
    score`` separated by tabs or by spaces (see the line rule of
    :mod:`goeval.io.text`; a line mixing tabs and spaces is split on any
    whitespace). A column header ``target term score`` is accepted. CAFA 6
    free-text lines (``protein Text score text``) are skipped and counted.
    A CAFA file (one with header lines) without ``END`` is read, and
    ``counts['missing_end']`` is 1: the file may have been truncated.

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).

    Returns
    -------
    PairTable
        With scores; ``counts`` holds ``cafa_header_lines`` (and
        ``cafa_header``), ``header_lines`` when there is a column header,
        ``whitespace_separated``, ``end_line``, ``space_separated_lines``,
        ``missing_end`` and ``rows``, and when not 0 ``mixed_separator_lines``
        and ``text_lines`` (free-text lines skipped).

    Raises
    ------
    InputFormatError
        Empty file, bytes that are not UTF-8, a line without exactly three
        columns, a score that is not a finite number in [0, 1], data after
        ``END`` or a second ``END``, a GAF file - with the line number and
        the line.
    """
    head, tail, lone_cr, data = _scan(path)
    if not head.replace(BOM, b"").strip():
        raise InputFormatError(path, None, "the file is empty")
    lay = prediction_layout(head, path)
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


def start_read_predictions(path: PathLike, *, fork: bool | None = None) -> Background:
    """Start reading a prediction file; return a :class:`~goeval.io.background.Background`.

    Its ``result()`` is the :class:`~goeval.io.pairs.PairTable` (arrays
    read-only) and ``cancel()`` stops the read. With ``fork`` None the
    policy of :func:`~goeval.io.background.should_fork` decides (a file of
    64 MiB or more is large): the file is parsed in a child process forked
    now, which sends back only the final arrays, so the CSV reader's working
    memory never counts against the caller and the caller goes on
    meanwhile. Call it early, while the caller is still small.

    Parameters
    ----------
    path : str or path-like
        A prediction file (see :func:`read_predictions`).
    fork : bool, optional
        Parse in a forked child (True), in the caller when the result is
        asked for (False), or as the policy says (None).

    Returns
    -------
    Background
        The pending read (its ``path`` attribute: the file).
    """
    if fork is None:
        try:
            large = os.path.getsize(path) >= 1 << 26
        except OSError:
            large = False
        fork = should_fork(large=large)
    pending = start(read_predictions, str(path), name="prediction reader", fork=fork)
    pending.path = str(path)  # what it reads (a caller's progress counts its bytes)
    return pending
