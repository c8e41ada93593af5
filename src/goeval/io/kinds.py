"""What kind of file a path holds: decided by its first lines, then by its extension.

One place decides: every command and reader that has to tell a GAF file from
a ``protein<TAB>term`` table, or predictions from annotations, asks
:func:`sniff` (a path) or :func:`line_kind` (the first data line a reader has
already split). Content comes first, so a GAF file named ``truth.tsv`` is a
GAF file; the extension (``.gaf``, ``.obo``, ``.fasta``...) decides only when
the first lines do not (an empty file, text that is not a table).

A compressed file is decompressed only as far as :data:`HEAD_BYTES` of text
need, whatever its size.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, Callable

from goeval.io import files
from goeval.io.files import PathLike, strip_compression
from goeval.io.text import (
    LINE_END,
    STRIP,
    is_cafa_header,
    is_ia_header,
    is_number,
    is_score_header,
    is_truth_header,
    split_fields,
)

__all__ = ["FileKind", "add_kind", "prediction_extensions", "HEAD_BYTES", "sniff", "sniff_bytes", "line_kind", "result_table", "misplaced_hint"]

#: Decompressed bytes looked at to decide a file's kind.
HEAD_BYTES = 1 << 16


class FileKind:
    """A kind of input file goeval reads: the built-in kinds below, and those :func:`add_kind` registers.

    Each kind is one object (compare with ``is``); it pickles as its value.

    Attributes
    ----------
    name, value : str
        ``PREDICTIONS``, ``"predictions"``.
    extensions : tuple of str
        Extensions (lower case, before compression) of the files of this
        kind that a directory walk takes (prediction files: ``.tsv``...).
    detect : callable or None
        ``detect(head: bytes) -> bool``: the content rule of a registered
        kind, asked before the built-in rules (the built-in kinds' rules
        are :func:`sniff_bytes`'s own).
    predictions : bool
        Files of this kind hold predictions (read where predictions are given).
    """

    __slots__ = ("name", "value", "extensions", "detect", "predictions")
    _all: dict[str, "FileKind"] = {}

    GAF: "FileKind"
    TRUTH: "FileKind"
    PREDICTIONS: "FileKind"
    IA: "FileKind"
    ID_LIST: "FileKind"
    FASTA: "FileKind"
    OBO: "FileKind"
    HITS: "FileKind"
    RESULTS: "FileKind"
    UNKNOWN: "FileKind"

    def __init__(self, name: str, value: str, *, extensions: tuple[str, ...] = (),
                 detect: Callable[[bytes], bool] | None = None, predictions: bool = False) -> None:
        self.name, self.value, self.extensions = name, value, tuple(e.lower() for e in extensions)
        self.detect, self.predictions = detect, predictions

    def __repr__(self) -> str:
        return f"<FileKind.{self.name}: {self.value!r}>"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return FileKind.of, (self.value,)

    @classmethod
    def of(cls, value: str) -> "FileKind":
        """The kind whose value is ``value`` (``"predictions"`` -> ``FileKind.PREDICTIONS``)."""
        return cls._all[value]

    @classmethod
    def _builtin(cls, name: str, value: str, **kw: Any) -> "FileKind":
        kind = cls._all[value] = cls(name, value, **kw)
        setattr(cls, name, kind)
        return kind


FileKind._builtin("GAF", "gaf")  # GO annotation file (``!gaf-version``, 15 or 17 tab-separated columns)
FileKind._builtin("TRUTH", "truth")  # annotation pairs ``protein<TAB>term[<TAB>...]``
FileKind._builtin("PREDICTIONS", "predictions", predictions=True,  # CAFA predictions, ``target term score`` triples
                  extensions=(".tsv", ".txt", ".tab", ".pred", ".predictions"))
FileKind._builtin("IA", "ia")  # information accretion ``term<TAB>ia``
FileKind._builtin("ID_LIST", "id_list")  # one identifier per line
FileKind._builtin("FASTA", "fasta")  # sequences (``>`` header lines)
FileKind._builtin("OBO", "obo")  # an ontology (``format-version:``, ``[Term]`` stanzas)
FileKind._builtin("HITS", "hits")  # an alignment hit table (BLAST / DIAMOND ``-outfmt 6``)
FileKind._builtin("RESULTS", "results")  # a result table (goeval's ``curves.tsv``...; CAFA-evaluator's)
FileKind._builtin("UNKNOWN", "unknown")  # neither the content nor the extension says


def add_kind(name: str, value: str, *, detect: Callable[[bytes], bool], extensions: tuple[str, ...] = (),
             predictions: bool = True) -> FileKind:
    """Register a new kind of input file (e.g. a prediction format): its content rule and extensions.

    Its reader goes into :data:`goeval.io.readers.READERS` (:func:`goeval.io.readers.add_reader`).

    Parameters
    ----------
    name, value : str
        The kind's name (``"JSONL"``) and value (``"jsonl"``, unique).
    detect : callable
        ``detect(head) -> bool`` on the first decompressed bytes of a file
        (up to :data:`HEAD_BYTES`; empty for a pipe): True when they are of
        this kind. Asked before the built-in rules, in registration order.
    extensions : tuple of str, optional
        The extensions of such files (``(".jsonl",)``): a directory walk
        takes them, and they decide when the content does not.
    predictions : bool, default True
        Files of this kind hold predictions.

    Returns
    -------
    FileKind

    Raises
    ------
    InvalidParameterError
        ``value`` is taken.
    """
    from goeval.errors import InvalidParameterError

    if value in FileKind._all:
        raise InvalidParameterError(f"The file kind {value!r} exists already.")
    kind = FileKind._all[value] = FileKind(name, value, extensions=extensions, detect=detect, predictions=predictions)
    _EXTENSIONS.update(dict.fromkeys(kind.extensions, kind))
    return kind


def prediction_extensions() -> tuple[str, ...]:
    """The extensions of prediction files (every kind that holds predictions), in registration order."""
    return tuple(e for k in FileKind._all.values() if k.predictions for e in k.extensions)


_EXTENSIONS = {
    ".gaf": FileKind.GAF, ".gpa": FileKind.GAF, ".obo": FileKind.OBO, ".fasta": FileKind.FASTA,
    ".fa": FileKind.FASTA, ".faa": FileKind.FASTA, ".fas": FileKind.FASTA, ".m8": FileKind.HITS,
}
_OBO_STANZAS = ("[term]", "[typedef]", "[instance]")

#: The first columns of the result tables goeval and CAFA-evaluator write -> what the file is.
_RESULT_TABLES = {
    ("method", "namespace", "threshold"): "a goeval result file (curves.tsv of a result folder)",
    ("method", "namespace", "measure"): "a goeval result file (summary.tsv of a result folder)",
    ("method", "namespace", "cutoff"): "a goeval result file (tap_curve.tsv of a result folder)",
    ("method", "namespace", "term"): "a goeval result file (retrieval_terms.tsv of a result folder)",
    ("method", "namespace"): "a goeval result file (a table of a result folder)",
    ("filename", "ns", "tau"): "a CAFA-evaluator result file (evaluation_all.tsv or evaluation_best_*.tsv)",
}


def result_table(fields: list[str]) -> str | None:
    """What result table a header line opens (``"goeval's curves.tsv"``...), or None when it opens none.

    Parameters
    ----------
    fields : list of str
        A line split by the line rule.

    Returns
    -------
    str or None
        The file the header belongs to, for messages (``"a goeval result file (curves.tsv of a result folder)"``).

    Examples
    --------
    >>> result_table(["method", "namespace", "threshold", "n_proteins", "coverage"])
    'a goeval result file (curves.tsv of a result folder)'
    >>> result_table(["P1", "GO:0005515", "0.5"]) is None
    True
    """
    low = tuple(f.lower() for f in fields[:3])
    if len(fields) < 4:
        return None
    return _RESULT_TABLES.get(low) or _RESULT_TABLES.get(low[:2])


def line_kind(fields: list[str], tab: bool) -> tuple[FileKind, str]:
    """The kind of file whose first data line has these fields, and why.

    Parameters
    ----------
    fields : list of str
        The line split by the line rule (:func:`goeval.io.text.split_fields`), not empty.
    tab : bool
        The line has a tab (its fields are tab-separated).

    Returns
    -------
    kind : FileKind
        RESULTS (the header of a result table, :func:`result_table`), GAF
        (``!gaf`` or 15+ tab-separated columns), PREDICTIONS (three
        columns with a numeric third, or a CAFA header line), HITS (four or
        more columns, numbers from the third on), IA (a name and a number),
        ID_LIST (one column), else TRUTH.
    reason : str
        The evidence, for messages ("3 columns with a score"...).

    Examples
    --------
    >>> line_kind(["P1", "GO:0005515", "0.71"], True)
    (<FileKind.PREDICTIONS: 'predictions'>, '3 columns with a score')
    >>> line_kind(["P1", "GO:0005515"], True)[0]
    <FileKind.TRUTH: 'truth'>
    """
    n = len(fields)
    if (table := result_table(fields)) is not None:
        return FileKind.RESULTS, f"the header of {table}"
    if fields[0].lower().startswith("!gaf"):
        return FileKind.GAF, "a !gaf-version line"
    if tab and n >= 15:
        return FileKind.GAF, f"{n} tab-separated columns"
    if n == 3 and is_number(fields[2]):
        return FileKind.PREDICTIONS, "3 columns with a score"
    if is_cafa_header(fields):
        return FileKind.PREDICTIONS, "a CAFA header line"
    if n >= 4 and all(is_number(f) for f in fields[2:]):
        return FileKind.HITS, "two identifiers and numeric columns"
    if n == 2 and is_number(fields[1]):
        return FileKind.IA, "a term and a number"
    return (FileKind.ID_LIST, "one column") if n == 1 else (FileKind.TRUTH, f"{n} columns")


#: An ontology term id (``GO:0008150``, ``HP:0000118``).
_TERM_ID = re.compile(r"[A-Za-z][A-Za-z_]*:[0-9]+")

#: What to do with a file of each kind given in the wrong place.
_GIVE_AS = {
    FileKind.GAF: "looks like a GAF annotation file: give it as truth",
    FileKind.TRUTH: "looks like a truth file (protein term): give it as truth",
    FileKind.PREDICTIONS: "looks like a prediction file ({why}): give it as predictions",
    FileKind.IA: "looks like an information-accretion file (term, bits): give it with --ia",
    FileKind.RESULTS: "is {why}, not {role}",
}


def misplaced_hint(fields: list[str], tab: bool, role: str) -> str:
    """What the first data line of a file given as ``role`` says the file is instead, for an error message.

    Parameters
    ----------
    fields : list of str
        The first data line, split by the line rule.
    tab : bool
        The line has a tab.
    role : {'predictions', 'truth'}
        What the file was given as.

    Returns
    -------
    str
        ``"this looks like ...: give it as ..."``, or ``""`` when the line
        fits ``role`` or says nothing else. A two-column line is an
        information-accretion file when its number is not an integer, its
        first field is a term id (``GO:0000006``) or a column header says
        so (a truth file's terms are never ``3.157``, its proteins rarely
        ``GO:0000006``).

    Examples
    --------
    >>> misplaced_hint(["GO:0000006", "3.157"], True, "predictions")
    'this looks like an information-accretion file (term, bits): give it with --ia'
    >>> misplaced_hint(["P1", "GO:0005515", "0.5"], True, "predictions")
    ''
    """
    kind, why = line_kind(fields, tab)
    if is_ia_header(fields):
        kind = FileKind.IA
    elif kind is FileKind.IA and fields[1].lstrip("+-").isdigit() and not _TERM_ID.match(fields[0]):
        kind = FileKind.TRUTH
    own = {"predictions": FileKind.PREDICTIONS, "truth": FileKind.TRUTH}[role]
    if kind is own or kind not in _GIVE_AS or (kind is FileKind.GAF and role == "truth"):
        return ""
    return "this " + _GIVE_AS[kind].format(why=why.removeprefix("the header of "), role=role)


def _first_line_kind(stripped: str) -> FileKind | None:
    """The kinds a file's first line alone tells: GAF, OBO, FASTA."""
    low = stripped.lower()
    if low.startswith("!gaf"):
        return FileKind.GAF
    if low.startswith("format-version:") or low.rstrip() in _OBO_STANZAS:
        return FileKind.OBO
    return FileKind.FASTA if stripped.startswith(">") else None


def _header_kind(fields: list[str]) -> FileKind | None:
    """The kind a column header line announces, or None when the line is not a header."""
    if is_score_header(fields):
        return FileKind.PREDICTIONS
    if is_ia_header(fields):
        return FileKind.IA
    return FileKind.TRUTH if is_truth_header(fields) else None


def _content_kind(head: bytes, whole: bool) -> FileKind | None:
    """The kind the complete lines of ``head`` show, or None when they show none.

    A file that opens with ``!`` comments (the GO annotation family) is GAF
    when its first data line is, else the content does not say (GPAD, GPI).
    """
    cut = head.find(b"\0")  # binary from here on: not text
    lines = (head if cut < 0 else head[:cut]).split(b"\n")
    if cut >= 0 or not whole:
        lines.pop()  # cut short: the last line may be incomplete
    first, hint, bang = True, None, False
    for raw in lines:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        fields = split_fields(text, True)
        if not fields:
            continue
        stripped = text.lstrip(STRIP).rstrip(LINE_END)
        if first and (kind := _first_line_kind(stripped)) is not None:
            return kind
        bang |= first and stripped.startswith("!")
        first = False
        if stripped.startswith(("!", "#")):  # comment lines (GAF, identifier lists)
            continue
        if hint is None and not is_cafa_header(fields) and (hint := _header_kind(fields)) is not None:
            continue
        kind = line_kind(fields, "\t" in stripped)[0]
        if kind is FileKind.TRUTH and hint in (FileKind.PREDICTIONS, FileKind.IA):
            kind = hint  # a malformed line under a 'target term score' or 'term ia' header
        return None if bang and kind is not FileKind.GAF else kind
    return None if bang else hint


def sniff_bytes(head: bytes, *, whole: bool = True, name: PathLike | None = None) -> FileKind:
    """The kind of a file from its first bytes (decompressed), then from ``name``'s extension.

    Parameters
    ----------
    head : bytes
        The start of the file's (decompressed) content.
    whole : bool, default True
        ``head`` is the whole file (else its last line may be cut short and is not looked at).
    name : str or path-like, optional
        The file's name; its extension (before ``.gz``, ``.bz2``, ``.xz``)
        decides when the content does not.

    Returns
    -------
    FileKind
        From the first non-blank line (``!gaf-version``, ``format-version:``
        or ``[Term]``, ``>``), else from the first data line after comment
        lines (``!``, ``#``) and at most one column header (see
        :func:`line_kind`; a ``target term score`` or ``term ia`` header
        wins over a data line that is only generic pairs), else from a
        column header alone, else from the extension; UNKNOWN when none of
        them says.

    Examples
    --------
    >>> sniff_bytes(b"AUTHOR me\\nMODEL 1\\nP1\\tGO:1\\t0.5\\nEND\\n")
    <FileKind.PREDICTIONS: 'predictions'>
    >>> sniff_bytes(b"", name="goa_human.gaf.gz")
    <FileKind.GAF: 'gaf'>
    """
    kind = next((k for k in FileKind._all.values() if k.detect is not None and k.detect(head)), None)
    kind = _content_kind(head, whole) if kind is None else kind
    if kind is None and name is not None:
        kind = _EXTENSIONS.get(Path(strip_compression(str(name))).suffix.lower())
    return FileKind.UNKNOWN if kind is None else kind


def sniff(path: PathLike) -> FileKind:
    """The kind of the file at ``path``: by its content first, then by its extension.

    At most :data:`HEAD_BYTES` of decompressed text are read, so a large
    compressed file is never decompressed whole. A pipe or FIFO (``<(zcat
    truth.gz)``) is not read at all, since its reader must see all of it:
    its extension decides.

    Parameters
    ----------
    path : str or path-like
        A file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).

    Returns
    -------
    FileKind
        See :func:`sniff_bytes`.

    Raises
    ------
    InputFormatError
        The file is missing or unreadable, or the start of its compressed
        stream is corrupt (as the readers say it).
    """
    if _is_stream(path):
        return sniff_bytes(b"", name=path)
    head, whole = files.read_head(path, HEAD_BYTES)
    return sniff_bytes(head, whole=whole, name=path)


def _is_stream(path: PathLike) -> bool:
    """Whether ``path`` is a pipe, FIFO or device: its content can be read only once."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # the reader says what is wrong with it
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
