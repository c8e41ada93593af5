"""One table of readers: each kind of input file (:class:`~goeval.io.kinds.FileKind`) -> how it is read.

:data:`READERS` maps a kind to its :class:`Reader`: a function that reads a
file whole and, for prediction kinds, one that streams it in batches; both
take the proteins to keep (the pushed-down filter: only their lines are
parsed, the others counted). Every caller that reads predictions goes
through :func:`prediction_file`, which decides the file's kind once (by
content, then extension: :func:`goeval.io.kinds.sniff`) and gives a
:class:`PredictionFile`; the evaluation receives such objects (or
:class:`SpilledPredictions`, a file read once whose kept batches wait in an
anonymous temporary file) and never opens a file itself.

Adding a prediction format is its reader (a ``whole`` and a ``batches``
function), its kind (:func:`goeval.io.kinds.add_kind`: a content rule and
extensions) and :func:`add_reader`; ``tests/io/test_readers.py`` does it
for a JSON-lines format.
"""

from __future__ import annotations

import importlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from goeval.errors import InvalidParameterError, UngroupedPredictionsError
from goeval.io.files import PathLike
from goeval.io.kinds import FileKind, sniff
from goeval.io.pairs import PairTable

__all__ = ["Reader", "READERS", "add_reader", "reader_of", "PredictionInput", "PredictionFile", "prediction_file", "as_prediction_input",
           "SpilledPredictions", "StartedBatches", "BATCH_ROWS"]

#: Rows of a prediction file per batch when it is streamed.
BATCH_ROWS = 1 << 20


class _Lazy:
    """``module:function``, imported when first called (the table costs no import time)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module, name = self.target.split(":")
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    def __repr__(self) -> str:
        return self.target


@dataclass(frozen=True)
class Reader:
    """How one kind of file is read.

    Attributes
    ----------
    whole : callable
        ``whole(path, **options)``: the file read at once. For prediction
        kinds ``whole(path, keep=None, progress=None) -> PairTable``.
    batches : callable, optional
        Prediction kinds: ``batches(path, batch_rows=..., keep=None,
        progress=None)`` -> an iterable of :class:`~goeval.io.pairs.PairTable`
        batches ending at protein boundaries (raising
        :class:`~goeval.errors.UngroupedPredictionsError` when a protein
        comes back), whose ``scan.counts`` after the pass are the reader's
        counts (as ``whole``'s table ``counts``).
    """

    whole: Callable[..., Any]
    batches: Callable[..., Any] | None = None


#: Kind -> reader. Readers are imported when first used.
READERS: dict[FileKind, Reader] = {
    FileKind.PREDICTIONS: Reader(_Lazy("goeval.io.predictions.reader:read_predictions"),
                                 _Lazy("goeval.io.predictions.batches:PredictionBatches")),
    FileKind.TRUTH: Reader(_Lazy("goeval.io.truth:read_truth")),
    FileKind.GAF: Reader(_Lazy("goeval.io.gaf:read_gaf")),
    FileKind.IA: Reader(_Lazy("goeval.io.ia:read_ia")),
    FileKind.ID_LIST: Reader(_Lazy("goeval.io.idlist:read_id_list")),
    FileKind.FASTA: Reader(_Lazy("goeval.io.fasta:read_fasta")),
    FileKind.OBO: Reader(_Lazy("goeval.io.obo:read_obo")),
    FileKind.HITS: Reader(_Lazy("goeval.io.hits:read_hits")),
}


def add_reader(kind: FileKind, reader: Reader) -> None:
    """Put the reader of a kind registered with :func:`goeval.io.kinds.add_kind` into :data:`READERS`."""
    if kind.predictions and reader.batches is None:
        raise InvalidParameterError(f"The reader of the prediction kind {kind.value!r} needs a 'batches' function.")
    READERS[kind] = reader


def reader_of(kind: FileKind) -> Reader:
    """The reader of ``kind``, or the parameter error naming the kinds that have one."""
    try:
        return READERS[kind]
    except KeyError:
        raise InvalidParameterError(f"No reader reads files of kind {kind.value!r}; readers exist for "
                                    f"{', '.join(k.value for k in READERS)}.") from None


class PredictionInput:
    """Predictions the evaluation can read whole or in batches (a file, or a file's kept batches spilled).

    Attributes
    ----------
    path : str
        The file, for messages.
    shippable : bool
        Another process can read it (it is a file by name).
    started : bool
        Its batches are being read already (:class:`StartedBatches`): the
        evaluation takes them as they come, and reads the file whole only if
        they fail (a file not grouped by protein).
    """

    path: str
    shippable = False
    started = False

    def read(self, keep: Any = None, progress: Callable[[int], None] | None = None) -> PairTable:
        """The whole (kept) table."""
        raise NotImplementedError

    def batches(self, batch_rows: int = BATCH_ROWS, keep: Any = None) -> Any:
        """The (kept) rows in batches ending at protein boundaries; ``.scan.counts`` after the pass."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.path


class PredictionFile(PredictionInput):
    """A prediction file and the reader of its kind (made by :func:`prediction_file`).

    Parameters
    ----------
    path : str or path-like
    kind : FileKind
        A kind that holds predictions.
    """

    shippable = True

    def __init__(self, path: PathLike, kind: FileKind = FileKind.PREDICTIONS) -> None:
        self.path, self.kind = str(path), kind

    def __repr__(self) -> str:
        return f"PredictionFile({self.path!r}, {self.kind!r})"

    def read(self, keep: Any = None, progress: Callable[[int], None] | None = None) -> PairTable:
        """The file read whole; with ``keep`` only those proteins' lines parsed, the others counted."""
        return reader_of(self.kind).whole(self.path, keep=keep, progress=progress)

    def batches(self, batch_rows: int = BATCH_ROWS, keep: Any = None,
                progress: Callable[[int], None] | None = None) -> Any:
        """The file in batches of about ``batch_rows`` rows (see :class:`Reader`)."""
        return reader_of(self.kind).batches(self.path, batch_rows=batch_rows, keep=keep, progress=progress)


def prediction_file(path: PathLike) -> PredictionFile:
    """The :class:`PredictionFile` of ``path``: its kind by content, then extension.

    A file of a registered prediction kind gets that kind's reader; any
    other file the text reader of CAFA files and ``target term score``
    tables (which says what is wrong with a file that is not one, with its
    line).
    """
    kind = sniff(path)
    return PredictionFile(path, kind if kind.predictions else FileKind.PREDICTIONS)


class SpilledPredictions(PredictionInput):
    """A prediction file read once, only the kept proteins' lines, its batches kept on disk to be replayed.

    Every batch the reader gives (kept rows only, ending at protein
    boundaries) is written as it comes to an anonymous temporary file
    (unlinked at creation, so nothing is left behind, even when the process
    is killed); :meth:`batches` replays them as often as asked, in bounded
    memory, with the reader's counts. Several evaluations (the kinds of a
    CAFA 6 score) then stream one read of a file. A file whose proteins come
    back in a later batch is noted; :meth:`batches` then raises
    :class:`~goeval.errors.UngroupedPredictionsError` as the reader did and
    :meth:`read` reads the file whole.

    Parameters
    ----------
    source : PredictionFile
    keep : ProteinFilter, optional
        The proteins whose lines are parsed and kept.
    batch_rows : int
    progress : callable, optional
        Called with the bytes of text read.
    """

    def __init__(self, source: PredictionFile, keep: Any = None, batch_rows: int = BATCH_ROWS,
                 progress: Callable[[int], None] | None = None) -> None:
        self.source, self.path, self.keep = source, source.path, keep
        self.file = tempfile.TemporaryFile(prefix="goeval-spill-")
        self.n_batches, self.ungrouped, self.scan = 0, None, None
        batches = source.batches(batch_rows, keep=keep, progress=progress)
        try:
            for table in batches:
                self._write(table)
                self.n_batches += 1
        except UngroupedPredictionsError as exc:
            self.ungrouped = exc
        except BaseException:
            self.close()
            raise
        self.scan = batches.scan

    def _write(self, t: PairTable) -> None:
        for a in (t.protein_codes, np.asarray(t.proteins, dtype=str), t.term_codes, np.asarray(t.terms, dtype=str),
                  t.scores):
            np.save(self.file, a, allow_pickle=False)

    def _replay(self) -> Iterator[PairTable]:
        if self.ungrouped is not None:
            raise self.ungrouped
        self.file.seek(0)
        for _ in range(self.n_batches):
            pc, pr, tc, tr, sc = (np.load(self.file, allow_pickle=False) for _ in range(5))
            yield PairTable(protein_codes=pc, proteins=pr.astype(object), term_codes=tc, terms=tr.astype(object),
                            scores=sc, source=self.path, counts={"rows": int(pc.size)})

    def batches(self, batch_rows: int = BATCH_ROWS, keep: Any = None) -> "_Replay":
        """The kept batches, replayed (``keep`` must be the spill's or None: the rows are those kept)."""
        return _Replay(self)

    def read(self, keep: Any = None, progress: Callable[[int], None] | None = None) -> PairTable:
        """The file read whole (again), with the spill's filter."""
        return self.source.read(keep=self.keep, progress=progress)

    def close(self) -> None:
        """Release the temporary file (also when collected)."""
        self.file.close()

    def __enter__(self) -> "SpilledPredictions":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Replay:
    """One replay of a spill: iterable once, with the spill's ``scan``."""

    def __init__(self, spill: SpilledPredictions) -> None:
        self.spill = spill
        self.scan = spill.scan

    def __iter__(self) -> Iterator[PairTable]:
        return self.spill._replay()


class StartedBatches(PredictionInput):
    """A prediction file whose kept batches a forked child is reading already
    (:func:`goeval.io.predictions.start_read_predictions` with ``batch_rows``).

    :meth:`batches` gives them once, as the child sends them (the rows of the
    truth's proteins the child was given); :meth:`read` reads the file whole
    in this process instead (for a file whose batches failed because it is not
    grouped by protein).

    Parameters
    ----------
    source : PredictionFile
    pending : Background
        The child's stream: tables, then the reader's counts (a dict).
    """

    started = True

    def __init__(self, source: PredictionFile, pending: Any) -> None:
        self.source, self.path, self.pending = source, source.path, pending

    def batches(self, batch_rows: int = BATCH_ROWS, keep: Any = None) -> "_Received":
        """The child's batches (their size and filter are the child's)."""
        return _Received(self.pending)

    def read(self, keep: Any = None, progress: Callable[[int], None] | None = None) -> PairTable:
        """The file read whole here (the child stopped)."""
        self.cancel()
        return self.source.read(keep=keep, progress=progress)

    def cancel(self) -> None:
        """Stop the child (idempotent)."""
        self.pending.cancel()


class _Received:
    """The batches of a :class:`StartedBatches`, iterable once; ``scan.counts`` (the reader's counts) after."""

    def __init__(self, pending: Any) -> None:
        self.pending, self.scan = pending, None

    def __iter__(self) -> Iterator[PairTable]:
        for item in self.pending.items():
            if isinstance(item, PairTable):
                yield item
            else:
                self.scan = _Counts(item)


@dataclass(frozen=True)
class _Counts:
    counts: dict[str, Any]


def as_prediction_input(value: Any) -> Any:
    """A path as its :class:`PredictionFile`; anything else (Annotations, inputs, started reads) as it is."""
    return prediction_file(value) if isinstance(value, (str, Path)) else value
