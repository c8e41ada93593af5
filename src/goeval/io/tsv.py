"""The vectorized parser every table reader tries first (pyarrow's multi-threaded CSV reader).

Whenever it meets something it cannot vouch for (an Arrow error, more than
:data:`MAX_SET_ASIDE` rows with another number of columns), :func:`parse_tsv`
returns None and the reader reads the file again line by line under the
line rule of :mod:`goeval.io.text`, which either raises an
:class:`~goeval.errors.InputFormatError` naming the line or returns the same
table. Readers call ``tsv.parse_tsv`` through this module, so a test can
replace it to force the line-by-line readers.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from goeval.io.text import split_fields

__all__ = ["DICTIONARY", "MAX_SET_ASIDE", "parse_tsv", "buffer_reader"]

#: The Arrow type of an identifier column: dictionary-encoded strings.
DICTIONARY = pa.dictionary(pa.int32(), pa.string())
#: Rows set aside by the fast reader before it gives up.
MAX_SET_ASIDE = 100


def parse_tsv(source: Any, names: list[str], types: dict[str, pa.DataType], include: list[str],
              tab: bool, block_size: int = 1 << 24,
              skip: Callable[[list[str], str], bool] | None = None,
              empty_lines: bool = False, threads: bool = True) -> tuple[pa.Table, list[list[str]]] | None:
    """Parse tab-separated text with Arrow; (table, fields of the rows set aside) or None if Arrow failed.

    Parameters
    ----------
    source : file-like or path
        What :func:`pyarrow.csv.read_csv` reads (no quoting, no header row).
    names : list of str
        The names of all the columns.
    types : dict of str to pyarrow.DataType
        The type of each column read.
    include : list of str
        The columns kept.
    tab : bool
        The file is tab-separated (the line rule that splits the rows set aside).
    block_size : int, default 16 MiB
        Arrow's block size, its unit of parallel parsing.
    skip : callable, optional
        ``skip(fields, text)`` (the row's fields by the line rule and its
        text) is True for a row with another number of columns that is
        dropped without being set aside (e.g. CAFA 6 free-text lines, or the
        lines of proteins a reader does not parse; the callable counts
        them); it is never called for rows with ``len(names)`` columns.
    empty_lines : bool, default False
        Empty lines are rows too (given to ``skip`` with no fields), so that
        the rows and ``skip``'s calls add up to the lines of ``source``.
    threads : bool, default True
        Arrow parses ``source`` on several threads (False: on this one, for a
        caller that parses several sources at once).

    Returns
    -------
    (pyarrow.Table, list of list of str) or None
        Rows with another number of columns are set aside and returned split
        by the line rule (blank ones dropped); after :data:`MAX_SET_ASIDE` of
        them, or on any Arrow error, None: the caller reads line by line.
    """
    aside: list[list[str]] = []

    def handler(row: Any) -> str:
        text = row.text.rstrip("\r")
        fields = split_fields(text, tab)
        if (fields or empty_lines) and skip is not None and skip(fields, text):
            return "skip"
        if fields:
            aside.append(fields)
        return "skip" if len(aside) <= MAX_SET_ASIDE else "error"

    try:
        with _quiet_invalid_utf8():
            table = _read_csv(source, names, types, include, block_size, handler, empty_lines, threads)
    except (pa.ArrowException, OSError, ValueError, UnicodeDecodeError):
        return None
    return table, aside


def _read_csv(source: Any, names: list[str], types: dict[str, pa.DataType], include: list[str],
              block_size: int, handler: Callable[[Any], str], empty_lines: bool = False,
              threads: bool = True) -> pa.Table:
    return pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=names, use_threads=threads, block_size=block_size),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                                         invalid_row_handler=handler, ignore_empty_lines=not empty_lines),
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


def buffer_reader(data: bytes, offset: int = 0) -> pa.BufferReader:
    """``data`` from byte ``offset`` on, as an Arrow reader (no copy)."""
    return pa.BufferReader(pa.py_buffer(data).slice(offset))
