"""Submission files read leniently, part by part: every line classified, nothing raised.

The prediction readers (:mod:`goeval.io.predictions.reader`,
:mod:`~goeval.io.predictions.batches`) stop at the first malformed line, as
an evaluation must. A competition's validator must instead see every line
of a file that may hold hundreds of millions: :func:`submission_parts`
reads the same files (plain or compressed, in parts of whole lines,
:func:`~goeval.io.predictions.parts.line_parts`, so memory does not grow
with the file) and gives, per part,

* the *data lines* - exactly three tab-separated fields, taken as written
  (no field stripped: a submission is ``protein<TAB>GO id<TAB>score``) - as
  dictionary-encoded columns of strings with their line numbers, parsed by
  Arrow (one thread per part, which numbers the rows it sets aside);
* every other non-blank line (free-text lines, headers, lines with another
  number of fields, undecodable lines) with its number, text and fields.

A part Arrow cannot read (bytes that are not UTF-8, a lone carriage
return) is read line by line by the same rules (:func:`classify_part`,
also the tests' oracle). Which lines break which rule is the business of
the validator (:mod:`goeval.compat.submission`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from goeval.io.files import PathLike
from goeval.io.arrow import numpy_values, string_values
from goeval.io.predictions.parts import PART_BYTES, line_parts
from goeval.io.text import has_lone_cr

__all__ = ["SubmissionPart", "submission_parts", "classify_part", "line_texts"]

_STRING = pa.dictionary(pa.int32(), pa.string())
_COLUMNS = ["p", "t", "s"]


@dataclass(kw_only=True)
class SubmissionPart:
    """The lines of one part of a submission file.

    Attributes
    ----------
    pcodes, proteins, tcodes, terms, scodes, scores : ndarray
        The data lines (three tab-separated fields): codes into the part's
        distinct proteins, terms and score texts (object arrays of str).
    lines : ndarray of int64
        The line number of every data line.
    others : list of (int, str, list of str or None)
        Every other non-blank line: number, text (without its line end) and
        tab-separated fields (None when the line is not UTF-8; its text is
        then decoded with replacement characters).
    """

    pcodes: np.ndarray
    proteins: np.ndarray
    tcodes: np.ndarray
    terms: np.ndarray
    scodes: np.ndarray
    scores: np.ndarray
    lines: np.ndarray
    others: list[tuple[int, str, list[str] | None]] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.lines.size)


def _encode(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Codes in order of first appearance and the distinct values, as written (nothing stripped)."""
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), np.int32, len(values))
    return codes, np.asarray(list(index), dtype=object)


def classify_part(data: bytes, line0: int) -> SubmissionPart:
    """The reference reading of a part, line by line (the fast reader must give the same)."""
    p, t, s, nos, others = [], [], [], [], []
    for k, raw in enumerate(data.split(b"\n")):
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            others.append((line0 + k, raw.decode("utf-8", "replace"), None))
            continue
        fields = text.split("\t")
        if len(fields) == 3:
            p.append(fields[0])
            t.append(fields[1])
            s.append(fields[2])
            nos.append(line0 + k)
        else:
            others.append((line0 + k, text, fields))
    (pc, pu), (tc, tu), (sc, su) = _encode(p), _encode(t), _encode(s)
    return SubmissionPart(pcodes=pc, proteins=pu, tcodes=tc, terms=tu, scodes=sc, scores=su,
                          lines=np.asarray(nos, np.int64), others=others)


def _nonblank_lines(data: bytes, line0: int) -> np.ndarray:
    """Numbers of the lines Arrow reads as rows: not empty (an ``\\r`` alone is empty)."""
    arr = np.frombuffer(data, np.uint8)
    nl = np.flatnonzero(arr == 10)
    starts = np.r_[0, nl + 1]
    ends = np.r_[nl, arr.size]
    length = ends - starts
    cr_only = (length == 1) & (arr[np.minimum(starts, max(arr.size - 1, 0))] == 13) if arr.size else length > 0
    return line0 + np.flatnonzero((length > 0) & ~cr_only)


def _fast_part(data: bytes, line0: int) -> SubmissionPart | None:
    """Arrow over one part (None when it cannot vouch for it: the line reader decides)."""
    if has_lone_cr(data):
        return None
    aside: list[tuple[int, str]] = []

    def handler(row: pacsv.InvalidRow) -> str:
        aside.append((row.number, row.text))
        return "skip"

    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(column_names=_COLUMNS, use_threads=False, block_size=len(data) + 1),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                                             invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(_COLUMNS, _STRING),
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowException, ValueError, UnicodeDecodeError):
        return None
    rows = _nonblank_lines(data, line0)
    if any(n is None for n, _ in aside) or any(c.num_chunks > 1 for c in table.columns) or \
            rows.size != table.num_rows + len(aside):
        return None
    set_aside = np.asarray([n - 1 for n, _ in aside], np.int64)
    others = [(int(rows[i]), text.rstrip("\r"), text.rstrip("\r").split("\t")) for i, (_, text) in
              zip(set_aside, aside) if text.strip()]
    cols = []
    for name in _COLUMNS:
        col = table.column(name)
        if not col.num_chunks:
            cols += [np.zeros(0, np.int32), np.zeros(0, dtype=object)]
            continue
        chunk = col.chunk(0)
        cols += [numpy_values(chunk.indices).astype(np.int32), string_values(chunk.dictionary)]
    pcodes, proteins, tcodes, terms, scodes, scores = cols
    return SubmissionPart(pcodes=pcodes, proteins=proteins, tcodes=tcodes, terms=terms, scodes=scodes, scores=scores,
                          lines=np.delete(rows, set_aside), others=others)


def submission_parts(path: PathLike, part_bytes: int = PART_BYTES) -> Iterator[SubmissionPart]:
    """Every line of a submission file, part by part, in file order (see the module notes).

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (``.gz``, ``.bz2``, ``.xz``).
    part_bytes : int, default 8 MiB
        Bytes of text read at a time (rounded up to whole lines).

    Raises
    ------
    InputFormatError
        Only for a file that cannot be read or decompressed.
    """
    for data, line0, _ in line_parts(path, part_bytes):
        yield _fast_part(data, line0) or classify_part(data, line0)


def line_texts(path: PathLike, numbers: list[int], part_bytes: int = PART_BYTES) -> dict[int, str]:
    """The text of the lines ``numbers`` of a file (one pass, stopping after the last)."""
    wanted = sorted(set(numbers))
    out: dict[int, str] = {}
    if not wanted:
        return out
    for data, line0, n_newlines in line_parts(path, part_bytes):
        last = line0 + n_newlines
        todo = [n for n in wanted if line0 <= n <= last and n not in out]
        if todo:
            lines = data.split(b"\n")
            for n in todo:
                out[n] = lines[n - line0].rstrip(b"\r").decode("utf-8", "replace")
        if wanted[-1] <= last:
            break
    return out
