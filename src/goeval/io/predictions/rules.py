"""The rules of prediction files, shared by the whole-file and the streamed readers.

One definition of each: the header lines (CAFA ``AUTHOR``/``MODEL``/
``KEYWORDS``/``ACCURACY`` lines, then an optional ``target term score``
column header) and the separator (:func:`prediction_layout`), a data line
(:func:`check_prediction`), the ``END`` line and what may follow it, CAFA 6's
free-text lines (:func:`is_text_line`: ``protein Text score text``, skipped
and counted), and the reference line-by-line parser (:class:`LineParser`)
that decides whenever the vectorized reader cannot vouch for a file or a
part of one.

A line of a tab-separated file that mixes tabs and spaces between its
three fields (``P1 GO:0000001<TAB>0.5``, as CAFA-evaluator-PK's example
files do) is split on any run of whitespace, as CAFA-evaluator splits every
line, and counted (``mixed_separator_lines``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.files import PathLike
from goeval.io.kinds import misplaced_hint
from goeval.io.pairs import encode_chunks, float_chunks, has_empty
from goeval.io.text import (
    LINE_END,
    STRIP,
    Layout,
    is_cafa_header,
    is_end,
    is_number,
    is_score_header,
    raw_lines,
    split_fields,
)

__all__ = ["HEAD_BYTES", "COLUMNS", "COLUMN_TYPES", "TEXT_TAG", "prediction_layout", "check_prediction",
           "is_text_line", "TextLines", "line_fields", "LineParser", "arrow_columns", "line_counts"]

#: Bytes looked at to find the layout of a prediction file.
HEAD_BYTES = 1 << 16
#: Column names given to the fast reader: target, term, score.
COLUMNS = ["p", "t", "s"]
#: Their Arrow types.
COLUMN_TYPES = {"p": tsv.DICTIONARY, "t": tsv.DICTIONARY, "s": pa.float64()}
#: The second field of a CAFA 6 free-text line (``protein<TAB>Text<TAB>score<TAB>text``).
TEXT_TAG = "Text"


def is_text_line(fields: list[str]) -> bool:
    """Whether a line's fields are a CAFA 6 free-text line (second field ``Text``), which is not scored.

    Examples
    --------
    >>> is_text_line(["P1", "Text", "0.9", "binds ATP"]), is_text_line(["P1", "GO:0005524", "0.9"])
    (True, False)
    """
    return len(fields) >= 2 and fields[1] == TEXT_TAG


class TextLines:
    """A ``skip`` predicate for :func:`goeval.io.tsv.parse_tsv` that drops and counts free-text lines."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, fields: list[str], text: str = "") -> bool:
        if is_text_line(fields):
            self.n += 1
            return True
        return False


def line_fields(line: str, tab: bool) -> tuple[list[str], bool]:
    """(fields, split on any whitespace?) of a data line by the line rule.

    In a tab-separated file, a line whose tabs do not give three fields is
    split on any whitespace when that gives three fields or a free-text line.

    Examples
    --------
    >>> line_fields("P1 GO:1\\t0.5", True)
    (['P1', 'GO:1', '0.5'], True)
    """
    fields = split_fields(line, tab)
    if tab and len(fields) != 3 and not is_text_line(fields) and "\t" in line:
        loose = split_fields(line, False)
        if len(loose) == 3 or is_text_line(loose):
            return loose, True
    return fields, False


def prediction_layout(head: bytes, path: PathLike) -> Layout:
    """CAFA header lines, an optional column header and the separator, from the first bytes.

    Parameters
    ----------
    head : bytes
        The first (at most :data:`HEAD_BYTES`) bytes of the file.
    path : str or path-like
        The file, for errors.

    Returns
    -------
    Layout
        ``counts`` holds ``cafa_header_lines`` (and ``cafa_header``, the
        lines), ``header_lines`` when there is a column header, and
        ``whitespace_separated``.

    Raises
    ------
    InputFormatError
        The first line is a ``!gaf-version`` line.
    """
    lay = Layout(counts={"cafa_header_lines": 0})
    for no, end, text in raw_lines(head):
        fields = split_fields(text, True)
        if not fields:
            continue
        if no == 1 and text.lstrip(STRIP).lower().startswith("!gaf"):
            raise InputFormatError(path, 1, "this is a GAF annotation file; give it as truth, not as predictions", text)
        if lay.first is None and is_cafa_header(fields) and not lay.counts.get("header_lines"):
            lay.counts.setdefault("cafa_header", []).append(" ".join(fields))
            lay.counts["cafa_header_lines"] += 1
        elif lay.first is None and is_score_header(fields) and "header_lines" not in lay.counts:
            lay.counts["header_lines"] = 1
        else:
            lay.first = (no, text, fields)
            lay.tab = "\t" in text.lstrip(STRIP).rstrip(LINE_END)
            break
        lay.offset, lay.start = end, no + 1
    lay.counts["whitespace_separated"] = not lay.tab
    return lay


def check_prediction(fields: list[str], path: PathLike, no: int, line: str, first: bool) -> None:
    """Raise unless ``fields`` are 'target term score' with a score in [0, 1].

    ``first``: this is the first data line (what else it looks like - a
    truth, IA or result file - is said, :func:`goeval.io.kinds.misplaced_hint`;
    a GAF line is said on any line).
    """
    if len(fields) != 3 or not fields[0] or not fields[1]:
        hint = misplaced_hint(fields, True, "predictions") if first or len(fields) >= 15 else ""
        hint = f"; {hint}" if hint else ""
        got = f"got {len(fields)}" if all(fields) else "got an empty field"
        raise InputFormatError(path, no, f"expected 3 columns 'target term score', {got}{hint}", line)
    problem = None if is_number(fields[2]) else "the score is not a number"
    if problem is None and not math.isfinite(v := float(fields[2])):
        problem = "the score must be a finite number in [0, 1]"
    elif problem is None and not 0 <= v <= 1:
        problem = "the score must lie in [0, 1]"
    if problem:
        raise InputFormatError(path, no, problem, line)


class LineParser:
    """The reference reader of prediction data lines: one line at a time, or an error naming it.

    It keeps what the lines read so far say: the ``END`` line (at most one,
    and the last), the lines split on spaces in a tab-separated file, the
    lines mixing tabs and spaces, the free-text lines skipped.

    Parameters
    ----------
    path : str or path-like
        The file, for errors.
    tab : bool
        The file is tab-separated (its :class:`~goeval.io.text.Layout`).
    """

    def __init__(self, path: PathLike, tab: bool) -> None:
        self.path, self.tab = path, tab
        self.end_line: int | None = None
        self.spaced = 0
        self.mixed = 0
        self.text_lines = 0

    def fields(self, line: str) -> list[str]:
        """The fields of a line by the line rule (:func:`line_fields`; a line split on any whitespace is
        counted in :attr:`mixed`)."""
        fields, loose = line_fields(line, self.tab)
        self.mixed += loose
        return fields

    def unread(self, fields: list[str], line: str, keep: Any, unread: Any) -> bool:
        """Whether a line belongs to a protein outside ``keep`` (a :class:`~goeval.io.predictions.keep.ProteinFilter`):
        then it is counted in ``unread`` (or as a free-text line) and not parsed further."""
        if is_end(fields) or fields[0] in keep or not fields[0]:
            return False
        if is_text_line(fields):  # counted as every free-text line is (its protein is not a protein of the table)
            self.text_lines += 1
            return True
        if len(fields) == 3:
            unread.rows += 1
            self.spaced += self.tab and "\t" not in line
        else:
            unread.other_lines += 1
        unread.add_proteins([fields[0]])
        return True

    def end_problem(self, fields: list[str], no: int) -> str | None:
        """The problem with line ``no`` given the END seen so far (a first END is recorded)."""
        if is_end(fields):
            if self.end_line is not None:
                return f"a second END line (the first is line {self.end_line})"
            self.end_line = no
            return None
        if self.end_line is not None:
            return f"data after the END line (line {self.end_line}); END must be the last line"
        return None

    def parse(self, lines: list[str], line0: int, *, skip: int = 0, rows_before: int = 0,
              numbers: bool = False, keep: Any = None,
              unread: Any = None) -> tuple[list[str], list[str], list[float], list[int]]:
        """(targets, terms, scores, line numbers) of ``lines[skip:]``, line ``k`` being number ``line0 + k``.

        Parameters
        ----------
        lines : list of str
            Decoded lines without their ``\\n`` (nor a trailing ``\\r``).
        line0 : int
            The number of ``lines[0]``.
        skip : int, default 0
            Lines at the start not parsed (header lines).
        rows_before : int, default 0
            Data rows read before these lines.
        numbers : bool, default False
            Also return the line number of every row (else the list is empty).
        keep, unread : ProteinFilter and Unread, optional
            Only the lines of the proteins in ``keep`` are parsed; the others
            are counted in ``unread`` (:meth:`unread`).

        Raises
        ------
        InputFormatError
            The first malformed line, a second END or data after END.
        """
        p: list[str] = []
        t: list[str] = []
        s: list[float] = []
        nos: list[int] = []
        for k in range(skip, len(lines)):
            fields = self.fields(line := lines[k])
            if not fields:
                continue
            if (problem := self.end_problem(fields, no := line0 + k)) is not None:
                raise InputFormatError(self.path, no, problem, line)
            if is_end(fields) or (keep is not None and self.unread(fields, line, keep, unread)):
                continue
            if is_text_line(fields):
                self.text_lines += 1
                continue
            check_prediction(fields, self.path, no, line, rows_before + len(p) == 0)
            self.spaced += self.tab and "\t" not in line
            p.append(fields[0])
            t.append(fields[1])
            s.append(float(fields[2]))
            if numbers:
                nos.append(no)
        return p, t, s, nos


def line_counts(parser: LineParser, text_lines: int = 0) -> dict[str, int]:
    """The reader counts of what a parser met besides data lines: ``mixed_separator_lines`` and
    ``text_lines`` (free-text lines skipped, plus ``text_lines`` met by the fast reader), when not 0."""
    out = {"mixed_separator_lines": parser.mixed, "text_lines": parser.text_lines + text_lines}
    return {k: v for k, v in out.items() if v}


def arrow_columns(chunks: dict[str, list], n_rows: int) -> tuple[np.ndarray, ...] | None:
    """(target codes, targets, term codes, terms, scores) from the fast reader's chunks.

    Each chunk is released once copied (``chunks`` is emptied). None when a
    field is empty, a score is outside [0, 1] or a three-field line is a
    free-text line (term ``Text``): the line reader decides.
    """
    scores = float_chunks(chunks.pop("s"), n_rows)
    if not ((scores >= 0) & (scores <= 1)).all():
        return None
    pcodes, puniq = encode_chunks(chunks.pop("p"), n_rows)
    tcodes, tuniq = encode_chunks(chunks.pop("t"), n_rows)
    if has_empty(puniq) or has_empty(tuniq) or bool((tuniq == TEXT_TAG).any()):
        return None
    return pcodes, puniq, tcodes, tuniq, scores
