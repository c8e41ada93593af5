"""Reader of retrieval lists in the input format of the reference TAP-k tool.

The format ([TAP]_ §2.4, the reference Perl script and its Python port)::

    query_id [weight]          first line of a block; weight > 0, default 1
    T(q)                       number of relevant records, retrieved or not
    0|1<TAB>score              one line per record, best first
    ...
                               blocks are separated by blank lines

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
from goeval.io._files import read_text
from goeval.lists import RetrievalLists

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


def parse_retrieval_lists(
    text: str, *, path: str | os.PathLike[str] | None = None, higher_is_better: bool = True
) -> RetrievalLists:
    """Parse retrieval lists from ``text`` (see :func:`read_retrieval_lists`).

    ``path`` only names the source in error messages. Lines are split on
    ``\n`` only (U+0085 and U+2028 are not line breaks); fields on runs of
    spaces and tabs, with a byte-order mark stripped like a space.
    """
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
    ids: list[str] = []
    weights: list[float] = []
    n_rel: list[int] = []
    offsets: list[int] = [0]
    scores: list[float] = []
    rel: list[bool] = []
    rec_line: list[int] = []
    seen: dict[str, int] = {}
    state = "between"  # "between" | "need_t" | "records"
    header_no = 0
    found = 0

    def fail(no: int, problem: str) -> InputFormatError:
        return InputFormatError(path, no, problem, lines[no - 1])

    for no, line in enumerate(lines, start=1):
        fields = _fields(line)
        if not fields:
            if state == "need_t":
                raise fail(header_no, _NO_T)
            if state == "records":
                offsets.append(len(scores))
            state = "between"
            continue
        if state == "between":
            if len(fields) > 2:
                raise fail(no, "a query line holds 'query_id [weight]' (at most 2 fields)")
            weight = 1.0
            if len(fields) == 2:
                try:
                    weight = float(fields[1])
                except ValueError:
                    weight = math.nan
                if not (math.isfinite(weight) and weight > 0):
                    raise fail(no, "the weight after the query id must be a positive number")
            if fields[0] in seen:
                raise fail(no, f"query id {fields[0]!r} already used on line {seen[fields[0]]}; ids must be unique")
            seen[fields[0]] = no
            ids.append(fields[0])
            weights.append(weight)
            header_no, state = no, "need_t"
        elif state == "need_t":
            if len(fields) != 1 or not fields[0].isdigit():
                what = "a record line" if len(fields) >= 2 else "not a non-negative integer"
                raise fail(no, f"expected T(q), the number of relevant records, after the query line; got {what}")
            n_rel.append(int(fields[0]))
            found, state = 0, "records"
        else:
            if len(fields) < 2:
                raise fail(no, "a record line holds 'relevance<TAB>score'")
            if fields[0] not in ("0", "1"):
                raise fail(no, "relevance (column 1) must be 0 or 1")
            try:
                score = float(fields[1])
            except ValueError:
                score = math.nan
            if not math.isfinite(score):
                raise fail(no, "score (column 2) must be a finite number")
            if fields[0] == "1":
                found += 1
                if found > n_rel[-1]:
                    raise fail(no, f"more relevant records than T(q) = {n_rel[-1]} (line {header_no + 1}); "
                               "T(q) must count every relevant record")
            scores.append(score)
            rel.append(fields[0] == "1")
            rec_line.append(no)
    if state == "need_t":
        raise fail(header_no, _NO_T)
    if state == "records":
        offsets.append(len(scores))
    if not ids:
        raise InputFormatError(path, None, "no retrieval list found; expected blocks of 'query_id', T(q), records")

    s = np.array(scores, dtype=np.float64)
    off = np.array(offsets, dtype=np.int64)
    seg = np.repeat(np.arange(len(ids)), np.diff(off))
    same = seg[1:] == seg[:-1]
    g = s if higher_is_better else -s
    bad = np.flatnonzero(same & (g[1:] > g[:-1]))
    if bad.size:
        no = rec_line[bad[0] + 1]
        if higher_is_better:
            hint = "scores must not increase down a list (for E-values, which ascend, use --evalue)"
        else:
            hint = "E-values must not decrease down a list (drop --evalue for scores, which descend)"
        raise fail(no, f"list {ids[seg[bad[0]]]!r} is not ranked best-first: {hint}")
    return RetrievalLists(
        ids=tuple(ids),
        n_relevant=np.array(n_rel, dtype=np.int64),
        weights=np.array(weights, dtype=np.float64),
        offsets=off,
        scores=s,
        relevance=np.array(rel, dtype=bool),
    )
