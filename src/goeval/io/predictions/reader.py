"""The whole-file reader of prediction files (and its start in a forked child).

:func:`read_predictions` is one pass of the part reader
(:class:`~goeval.io.predictions.parts.PartReader`: Arrow over parts of
whole lines, the reference :class:`~goeval.io.predictions.rules.LineParser`
for any part it cannot vouch for) whose parsed parts are put together: memory is
the rows kept plus a few parts, whatever the file's size or compression.
Given the proteins to keep (an evaluation's benchmark proteins), only their
lines are parsed and held; the others are counted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from goeval.io.arrow import arrow_array, string_array
from goeval.io.background import Background, should_fork, start
from goeval.io.files import PathLike
from goeval.io.pairs import PairTable, encode_chunks
from goeval.io.predictions.parts import PART_BYTES, PartReader, ParsedPart
from goeval.io.predictions.keep import ProteinFilter

__all__ = ["read_predictions", "start_read_predictions", "concat_parts"]


def concat_parts(parts: list[ParsedPart], source: str, counts: dict[str, Any] | None = None) -> PairTable:
    """Parsed parts as one :class:`~goeval.io.pairs.PairTable` (identifiers in order of first appearance).

    ``parts`` is emptied as it is read (each part released once encoded).
    """
    n = sum(len(p) for p in parts)
    pchunks, tchunks, scores = [], [], np.empty(n, np.float64)
    pos = 0
    for i, part in enumerate(parts):
        pchunks.append(_dictionary(part.pcodes, part.proteins))
        tchunks.append(_dictionary(part.tcodes, part.terms))
        scores[pos : pos + len(part)] = part.scores
        pos += len(part)
        parts[i] = None  # type: ignore[call-overload]
    pcodes, proteins = encode_chunks(pchunks, n)
    tcodes, terms = encode_chunks(tchunks, n)
    return PairTable(protein_codes=pcodes, proteins=proteins, term_codes=tcodes, terms=terms, scores=scores,
                     source=source, counts=dict(counts or {}))


def _dictionary(codes: np.ndarray, uniq: np.ndarray) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(arrow_array(codes.astype(np.int32, copy=False)), string_array(uniq))


def read_predictions(path: PathLike, *, keep: Iterable[str] | ProteinFilter | None = None,
                     part_bytes: int = PART_BYTES,
                     progress: Callable[[int], None] | None = None) -> PairTable:
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
    keep : iterable of str or ProteinFilter, optional
        Parse and keep only the lines of these proteins (an evaluation's
        benchmark proteins). Every other line is read as far as its protein
        field and counted in ``counts['unread']`` (``rows``: its data lines,
        ``other_lines``: lines of another shape, not checked, ``proteins``:
        how many, ``examples``: the first ones), never parsed further.
    part_bytes : int, default 8 MiB
        Bytes of text parsed at a time. Memory is the rows kept plus a few
        parts.
    progress : callable, optional
        Called with the number of bytes (of text) read after each part.

    Returns
    -------
    PairTable
        With scores; ``counts`` holds ``cafa_header_lines`` (and
        ``cafa_header``), ``header_lines`` when there is a column header,
        ``whitespace_separated``, ``end_line``, ``space_separated_lines``,
        ``missing_end`` and ``rows`` (rows kept), when not 0
        ``mixed_separator_lines`` and ``text_lines`` (free-text lines
        skipped), and with ``keep`` the ``unread`` counts.

    Raises
    ------
    InputFormatError
        At the first problem met, in file order: empty file, bytes that are
        not UTF-8, a line without exactly three columns, a score that is not
        a finite number in [0, 1], data after ``END`` or a second ``END``, a
        GAF file, a line longer than 16 MiB - with the line number and the
        line. With ``keep``, the lines of other proteins are not checked
        beyond their protein field.
    """
    keep = keep if keep is None or isinstance(keep, ProteinFilter) else ProteinFilter(keep)
    reader = PartReader(path, part_bytes, keep)
    parts: list[ParsedPart] = []
    for part in reader.parts():
        part.source = None  # the rows' lines are not asked for
        parts.append(part)
        if progress is not None:
            progress(reader.bytes_read)
    return concat_parts(parts, str(path), reader.counts)


def start_read_predictions(path: PathLike, *, fork: bool | None = None,
                           keep: Iterable[str] | ProteinFilter | None = None, truth: Any = None,
                           batch_rows: int | None = None) -> Any:
    """Start reading a prediction file; return a :class:`~goeval.io.background.Background`.

    Its ``result()`` is the :class:`~goeval.io.pairs.PairTable` (arrays
    read-only) and ``cancel()`` stops the read. With ``fork`` None the
    policy of :func:`~goeval.io.background.should_fork` decides (a file of
    64 MiB or more is large): the file is parsed in a
    child process forked now, which sends back only the final arrays, so the
    reader's working memory never counts against the caller and the caller
    goes on meanwhile. Call it early, while the caller is still small.

    With ``batch_rows``, a forked read sends the kept rows in batches of
    about that many rows as it reads them, and the value is a
    :class:`~goeval.io.readers.StartedBatches`: an evaluation takes each
    batch as it comes (the first proteins are evaluated while the child reads
    the next ones) and reads the file whole only if it is not grouped by
    protein. Unforked, it is the :class:`~goeval.io.background.Background`
    above.

    Parameters
    ----------
    path : str or path-like
        A prediction file (see :func:`read_predictions`).
    fork : bool, optional
        Parse in a forked child (True), in the caller when the result is
        asked for (False), or as the policy says (None).
    keep : iterable of str or ProteinFilter, optional
        As for :func:`read_predictions`.
    truth : path or list of paths, optional
        Instead of ``keep``: the truth files whose proteins are kept, read by
        the reader itself first (in the forked child, so the caller goes on).
    batch_rows : int, optional
        A forked read sends its rows in batches (see above).

    Returns
    -------
    Background or StartedBatches
        The pending read (its ``path`` attribute: the file).
    """
    if fork is None:
        try:
            large = os.path.getsize(path) >= 1 << 26
        except OSError:
            large = False
        fork = should_fork(large=large)
    read = _ReadKept(keep, truth, batch_rows)
    if batch_rows is not None and fork:
        from goeval.io.readers import StartedBatches, prediction_file

        pending = start(read.batches, str(path), name="prediction reader", fork=True, stream=True)
        return StartedBatches(prediction_file(path), pending)
    pending = start(read, str(path), name="prediction reader", fork=fork)
    pending.path = str(path)  # what it reads (a caller's progress counts its bytes)
    return pending


class _ReadKept:
    """A prediction file read through the reader of its kind, with a filter (or the truth files that make it,
    read first), as a callable."""

    def __init__(self, keep: Iterable[str] | ProteinFilter | None, truth: Any = None,
                 batch_rows: int | None = None) -> None:
        self.keep, self.truth, self.batch_rows = keep, truth, batch_rows

    def _filter(self) -> ProteinFilter | None:
        if self.truth is None:
            return None if self.keep is None or isinstance(self.keep, ProteinFilter) else ProteinFilter(self.keep)
        from goeval.io.truth import read_annotation_tables

        return ProteinFilter.of(read_annotation_tables(self.truth))

    def __call__(self, path: str) -> PairTable:
        from goeval.io.readers import prediction_file

        return prediction_file(path).read(keep=self._filter())

    def batches(self, path: str) -> Iterator[PairTable | dict[str, Any]]:
        """The kept rows in batches, then the reader's counts (a dict)."""
        from goeval.io.readers import prediction_file

        batches = prediction_file(path).batches(self.batch_rows, keep=self._filter())
        yield from batches
        yield dict(batches.scan.counts)
