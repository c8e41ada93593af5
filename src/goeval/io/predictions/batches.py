"""Prediction files read in bounded memory: one validating scan, then batches.

:func:`~goeval.io.predictions.read_predictions` holds a whole prediction file in
memory. The readers here take the same files by the same rules (those of
:mod:`goeval.io.predictions.rules`: the line rule, CAFA header lines and
``END``, a column header, compression) and raise the same
:class:`~goeval.errors.InputFormatError` (file, line number, text) on the
same input, but read the file in parts of whole lines
(:class:`~goeval.io.predictions.parts.PartReader`):

* :func:`scan_predictions` validates every line in one pass and returns what
  a streamed evaluation needs to know first: the distinct scores (the exact
  thresholds), whether the file is grouped by protein, the number of rows and
  proteins, and the ``counts`` that ``read_predictions`` gives;
* :func:`iter_prediction_batches` gives the rows in file order as
  :class:`~goeval.io.pairs.PairTable` batches that end at protein boundaries;
  :class:`PredictionBatches` does the same and records the scan.

Memory is independent of the file size: a few parts of text and their
parsed rows, plus one entry per distinct protein (and per distinct score for
the scan).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError, UngroupedPredictionsError
from goeval.io.arrow import arrow_array, numpy_values, string_array, string_values
from goeval.io.files import PathLike
from goeval.io.pairs import PairTable, translate_codes
from goeval.io.predictions.parts import PART_BYTES, PartReader, ParsedPart
from goeval.io.predictions.keep import ProteinFilter

__all__ = ["PredictionScan", "scan_predictions", "iter_prediction_batches", "PredictionBatches",
           "UngroupedPredictionsError"]


@dataclass(frozen=True, kw_only=True)
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
        The ``counts`` of :func:`~goeval.io.predictions.read_predictions` for the
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

    def add(self, part: ParsedPart) -> None:
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


def scan_predictions(path: PathLike, *, part_bytes: int = PART_BYTES) -> PredictionScan:
    """Validate a prediction file in one pass in bounded memory; its scores, grouping and counts.

    Every line is checked as :func:`~goeval.io.predictions.read_predictions`
    checks it, and the same error is raised for the same file.

    Parameters
    ----------
    path : str or path-like
        A prediction file (CAFA format or a 3-column table, plain, ``.gz``,
        ``.bz2`` or ``.xz``).
    part_bytes : int, default 8 MiB
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
        As :func:`~goeval.io.predictions.read_predictions`: an empty file, bytes
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
    _check_size(part_bytes, "part_bytes", "scan_predictions")
    reader, groups, scores = PartReader(path, part_bytes), _Grouping(), _DistinctScores()
    for part in reader.parts():
        groups.add(part)
        scores.add(part.scores)
    again = groups.reappearing or (None, None)
    return PredictionScan(source=str(path), scores=scores.result(), grouped=groups.reappearing is None,
                          reappearing_protein=again[0], reappearing_line=again[1], n_rows=reader.rows,
                          n_proteins=len(groups.seen), n_zero_scores=scores.zeros, counts=reader.counts)


# -------------------------------------------------------------- batches
def _merge_codes(pieces: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One dictionary encoding (first-appearance order) for pieces of (codes, their dictionary).

    A piece that starts a part uses its dictionary's first codes in order (the parts are encoded in
    first-appearance order), so its codes stand as they are; another piece is encoded again by Arrow's hash of
    its codes. The pieces' dictionaries, put end to end, are then factorized once (first-appearance order).
    """
    if len(pieces) == 1 and pieces[0][0].size and _first_appearance(pieces[0][0], pieces[0][1].size):
        return pieces[0]
    local, values = [], []
    for codes, uniq in pieces:
        n = int(codes.max()) + 1 if codes.size else 0
        if not n or _first_appearance(codes, n):
            local.append(codes)
            values.append(uniq[:n])
        else:
            encoded = arrow_array(codes).dictionary_encode()
            local.append(numpy_values(encoded.indices))
            values.append(uniq[numpy_values(encoded.dictionary)])
    merged = string_array(np.concatenate(values)).dictionary_encode()  # first-appearance order
    codes = translate_codes(zip(local, (v.size for v in values)), numpy_values(merged.indices).astype(np.int32),
                            sum(c.size for c in local))
    return codes, string_values(merged.dictionary)


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

    def add(self, part: ParsedPart) -> Iterator[PairTable]:
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
        return PairTable(protein_codes=pcodes, proteins=proteins, term_codes=tcodes, terms=terms, scores=scores,
                         source=str(self.path), counts={"rows": int(pcodes.size)})

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


def iter_prediction_batches(path: PathLike, *, batch_rows: int = 1 << 20, part_bytes: int = PART_BYTES,
                            keep: Any = None) -> Iterator[PairTable]:
    """The rows of a prediction file in file order, in batches ending at protein boundaries.

    The file is validated as it is read, by the rules and with the errors of
    :func:`~goeval.io.predictions.read_predictions`; the batches put together are
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
    part_bytes : int, default 8 MiB
        Bytes of text parsed at a time. Memory is a few batches and parts.
    keep : iterable of str or ProteinFilter, optional
        Only these proteins' lines are parsed (see
        :func:`~goeval.io.predictions.read_predictions`); the others are counted.

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
        Any error of :func:`~goeval.io.predictions.read_predictions`, raised when
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
    _check_size(part_bytes, "part_bytes", "iter_prediction_batches")
    yield from PredictionBatches(path, batch_rows=batch_rows, part_bytes=part_bytes, keep=keep)


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
    path, batch_rows, part_bytes, keep
        As for :func:`iter_prediction_batches`.
    progress : callable, optional
        Called with the bytes (of text) read after each part.
    """

    def __init__(self, path: PathLike, *, batch_rows: int = 1 << 20, part_bytes: int = PART_BYTES,
                 keep: Any = None, progress: Any = None) -> None:
        _check_size(batch_rows, "batch_rows", "PredictionBatches")
        _check_size(part_bytes, "part_bytes", "PredictionBatches")
        self.path, self.batch_rows, self.part_bytes = path, batch_rows, part_bytes
        self.keep = keep if keep is None or isinstance(keep, ProteinFilter) else ProteinFilter(keep)
        self.progress = progress
        self.scan: PredictionScan | None = None

    def __iter__(self) -> Iterator[PairTable]:
        reader, groups = PartReader(self.path, self.part_bytes, self.keep), _Grouping()
        batcher = _Batcher(self.path, self.batch_rows)
        zeros = 0
        for part in reader.parts():
            groups.add(part)
            zeros += int((part.scores == 0).sum())
            if self.progress is not None:
                self.progress(reader.bytes_read)
            yield from batcher.add(part)
        yield from batcher.flush()
        again = groups.reappearing or (None, None)
        self.scan = PredictionScan(source=str(self.path), scores=np.zeros(0), grouped=groups.reappearing is None,
                                   reappearing_protein=again[0], reappearing_line=again[1], n_rows=reader.rows,
                                   n_proteins=len(groups.seen), n_zero_scores=zeros, counts=reader.counts)
