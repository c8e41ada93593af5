"""Reader of retrieval lists in the input format of the reference TAP-k tool.

The format ([TAP]_ §2.4, the reference Perl script and its Python port)::

    query_id [weight]          first line of a list; weight > 0, default 1
    T(q)                       number of relevant records, retrieved or not
    0|1<TAB>score              one line per record, best first
    ...
                               lists are separated by blank lines

Scores are ranked best-first: descending for scores, ascending for E-values.
Columns after the score are ignored, as by the reference tool.

References
----------
.. [TAP] H. D. Carroll et al. (2010), *Bioinformatics* 26(14):1708, §2.4.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np

from goeval.errors import InputFormatError
from goeval.io.files import read_text
from goeval.metrics.lists import RetrievalLists

__all__ = ["parse_retrieval_lists", "read_retrieval_lists"]

_SEPARATORS = re.compile(r"[ \t]+")
_WS = " \t\ufeff"  # stripped around every field: spaces, tabs, a byte-order mark
_NO_T = "query line without a T(q) line: the next line must give the number of relevant records"


def read_retrieval_lists(
    path: str | os.PathLike[str], *, higher_is_better: bool = True
) -> RetrievalLists:
    """Read retrieval lists from ``path`` (plain, ``.gz``, ``.bz2`` or ``.xz``).

    Parameters
    ----------
    path : str or path-like
    higher_is_better : bool, default True
        True for scores (lists descending), False for E-values (lists
        ascending). Stated rather than guessed from the data.

    Returns
    -------
    RetrievalLists
        In file order, records in file order.

    Raises
    ------
    InputFormatError
        Naming the file, the line and its text, for a malformed line: a query
        line with more than two fields or a weight that is not a positive
        number, a missing or non-integer T(q) line, a relevance other than 0
        or 1, a score that is not a finite number, a list not ranked
        best-first, more relevant records than T(q), a repeated query id, or
        no list at all.
    """
    return parse_retrieval_lists(read_text(path), path=path, higher_is_better=higher_is_better)


def _fields(line: str) -> list[str]:
    """Whitespace-separated fields (spaces, tabs; a byte-order mark is stripped)."""
    return [f for f in (x.strip(_WS) for x in _SEPARATORS.split(line.strip(_WS))) if f]


class _ListReader:
    """The lists read so far, as columns, and where the reader stands.

    ``state`` is ``"between"`` (a query line comes next), ``"need_t"`` (the
    T(q) line) or ``"records"``; each line is handed to the step of its state.
    """

    def __init__(self, lines: list[str], path: str | os.PathLike[str] | None) -> None:
        self.lines = lines
        self.path = path
        self.ids: list[str] = []
        self.weights: list[float] = []
        self.n_rel: list[int] = []
        self.offsets: list[int] = [0]
        self.scores: list[float] = []
        self.rel: list[bool] = []
        self.rec_line: list[int] = []
        self.seen: dict[str, int] = {}
        self.state = "between"
        self.header_no = 0
        self.found = 0

    def fail(self, no: int, problem: str) -> InputFormatError:
        return InputFormatError(self.path, no, problem, self.lines[no - 1])

    def end_list(self) -> None:
        """Close the current list (at a blank line or the end of the text)."""
        if self.state == "need_t":
            raise self.fail(self.header_no, _NO_T)
        if self.state == "records":
            self.offsets.append(len(self.scores))
        self.state = "between"

    def query_line(self, no: int, fields: list[str]) -> None:
        """``query_id [weight]``: opens a list."""
        if len(fields) > 2:
            raise self.fail(no, "a query line holds 'query_id [weight]' (at most 2 fields)")
        weight = 1.0
        if len(fields) == 2:
            try:
                weight = float(fields[1])
            except ValueError:
                weight = math.nan
            if not (math.isfinite(weight) and weight > 0):
                raise self.fail(no, "the weight after the query id must be a positive number")
        if fields[0] in self.seen:
            first = self.seen[fields[0]]
            raise self.fail(no, f"query id {fields[0]!r} already used on line {first}; ids must be unique")
        self.seen[fields[0]] = no
        self.ids.append(fields[0])
        self.weights.append(weight)
        self.header_no, self.state = no, "need_t"

    def count_line(self, no: int, fields: list[str]) -> None:
        """T(q), the number of relevant records, after the query line."""
        if len(fields) != 1 or not fields[0].isdigit():
            what = "a record line" if len(fields) >= 2 else "not a non-negative integer"
            raise self.fail(no, f"expected T(q), the number of relevant records, after the query line; got {what}")
        self.n_rel.append(int(fields[0]))
        self.found, self.state = 0, "records"

    def record_line(self, no: int, fields: list[str]) -> None:
        """``0|1<TAB>score``: one record of the current list."""
        if len(fields) < 2:
            raise self.fail(no, "a record line holds 'relevance<TAB>score'")
        if fields[0] not in ("0", "1"):
            raise self.fail(no, "relevance (column 1) must be 0 or 1")
        try:
            score = float(fields[1])
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            raise self.fail(no, "score (column 2) must be a finite number")
        if fields[0] == "1":
            self.found += 1
            if self.found > self.n_rel[-1]:
                raise self.fail(no, f"more relevant records than T(q) = {self.n_rel[-1]} (line {self.header_no + 1}); "
                                "T(q) must count every relevant record")
        self.scores.append(score)
        self.rel.append(fields[0] == "1")
        self.rec_line.append(no)


def _read_lists(lines: list[str], path: str | os.PathLike[str] | None) -> _ListReader:
    """Read every list, checking each line; at least one is required."""
    reader = _ListReader(lines, path)
    step = {"between": reader.query_line, "need_t": reader.count_line, "records": reader.record_line}
    for no, line in enumerate(lines, start=1):
        fields = _fields(line)
        if fields:
            step[reader.state](no, fields)
        else:
            reader.end_list()
    reader.end_list()
    if not reader.ids:
        raise InputFormatError(path, None, "no retrieval list found; expected lists of 'query_id', T(q), records")
    return reader


def _check_ranked(reader: _ListReader, s: np.ndarray, off: np.ndarray, higher_is_better: bool) -> None:
    """Raise at the first record better than the record before it in its list."""
    seg = np.repeat(np.arange(len(reader.ids)), np.diff(off))
    same = seg[1:] == seg[:-1]
    g = s if higher_is_better else -s
    bad = np.flatnonzero(same & (g[1:] > g[:-1]))
    if bad.size:
        no = reader.rec_line[bad[0] + 1]
        if higher_is_better:
            hint = "scores must not increase down a list (for E-values, which ascend, use --evalue)"
        else:
            hint = "E-values must not decrease down a list (drop --evalue for scores, which descend)"
        raise reader.fail(no, f"list {reader.ids[seg[bad[0]]]!r} is not ranked best-first: {hint}")


def parse_retrieval_lists(
    text: str, *, path: str | os.PathLike[str] | None = None, higher_is_better: bool = True
) -> RetrievalLists:
    """Parse retrieval lists from ``text`` (see :func:`read_retrieval_lists`).

    ``path`` only names the source in error messages. Lines are split on
    ``\n`` only (U+0085 and U+2028 are not line breaks); fields on runs of
    spaces and tabs, with a byte-order mark stripped like a space.
    """
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
    reader = _read_lists(lines, path)
    s = np.array(reader.scores, dtype=np.float64)
    off = np.array(reader.offsets, dtype=np.int64)
    _check_ranked(reader, s, off, higher_is_better)
    return RetrievalLists(
        ids=tuple(reader.ids),
        n_relevant=np.array(reader.n_rel, dtype=np.int64),
        weights=np.array(reader.weights, dtype=np.float64),
        offsets=off,
        scores=s,
        relevance=np.array(reader.rel, dtype=bool),
    )
