"""Repeated (protein, term) pairs and proteins with too many terms, in bounded memory.

A submission's lines need not be grouped by protein (files joined from one
model per namespace repeat every protein three times), so finding a repeated
pair or a protein's 1501st term needs every pair of the file. A
:class:`PairLedger` keeps them as integer triples (protein id, term id,
line): in memory up to ``budget`` rows, beyond that spilled to temporary
files partitioned by protein (``protein % parts``), each part later checked
alone - memory is about ``max(budget, rows / parts)`` triples of 20 bytes,
however long the file.

The temporary files have no name: each is opened in the temporary folder
(``$TMPDIR``, else the system's) already unlinked (``O_TMPFILE`` on Linux;
elsewhere removed the moment it is made, under a random name), so nothing
can be found or replaced there under a predictable name, and the system
frees them when the process ends, however it ends (SIGKILL included).

Checking a part: sorting by (protein, term, line) puts each pair's lines
together, the first one being the pair's own and every later one a repeat;
sorting the pairs' first lines by (protein, line) numbers each protein's
distinct terms in the order the file gives them, and the ``max_terms + 1``-th
is the line where the protein goes over.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

__all__ = ["PairLedger", "PairFindings"]

_DTYPE = np.dtype([("p", "<i8"), ("t", "<i4"), ("line", "<i8")])


@dataclass(frozen=True)
class PairFindings:
    """What one part of the ledger holds: its repeated pairs and its proteins over the cap.

    Attributes
    ----------
    duplicates : ndarray, fields ``line``, ``p``, ``t``, ``first``
        Every line repeating a (protein, term) pair, with the pair's first line.
    over : ndarray, fields ``line``, ``p``, ``t``, ``count``
        Per protein with more than ``max_terms`` distinct terms, the line of its
        ``max_terms + 1``-th term (in file order) and its number of terms.
    """

    duplicates: np.ndarray
    over: np.ndarray


class PairLedger:
    """(protein, term, line) triples of a file, checked at the end in bounded memory.

    Parameters
    ----------
    budget : int, default 2**22
        Triples held in memory before they are spilled to disk.
    parts : int, default 64
        Temporary files the spilled triples are partitioned into (by protein),
        each made when it first gets triples (anonymous: see the module).
    """

    def __init__(self, budget: int = 1 << 22, parts: int = 64) -> None:
        self.budget, self.parts = int(budget), int(parts)
        self.pending: list[np.ndarray] = []
        self.n_pending = 0
        self.files: list[IO[bytes] | None] | None = None

    def add(self, proteins: np.ndarray, terms: np.ndarray, lines: np.ndarray) -> None:
        """Add the triples of some lines (in file order)."""
        rec = np.empty(len(lines), _DTYPE)
        rec["p"], rec["t"], rec["line"] = proteins, terms, lines
        self.pending.append(rec)
        self.n_pending += rec.size
        if self.n_pending > self.budget:
            self._spill()

    def _spill(self) -> None:
        if self.files is None:
            self.files = [None] * self.parts
        rec = np.concatenate(self.pending)
        self.pending, self.n_pending = [], 0
        part = rec["p"] % self.parts
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(self.parts + 1))
        for k in range(self.parts):
            if bounds[k + 1] > bounds[k]:
                if self.files[k] is None:  # unbuffered: read back through its descriptor
                    self.files[k] = tempfile.TemporaryFile(prefix="goeval-pairs-", buffering=0)
                rec[order[bounds[k]:bounds[k + 1]]].tofile(self.files[k])

    def _chunks(self) -> Iterator[np.ndarray]:
        if self.files is None:
            if self.pending:
                yield np.concatenate(self.pending)
            return
        if self.pending:
            self._spill()
        for fh in self.files:
            if fh is not None:
                fh.seek(0)
                yield np.fromfile(fh, _DTYPE)

    def findings(self, max_terms: int) -> Iterator[PairFindings]:
        """Every repeated pair and every protein with more than ``max_terms`` distinct terms, part by part;
        then the temporary files are removed."""
        try:
            for rec in self._chunks():
                yield _check(rec, max_terms)
        finally:
            self.close()

    def close(self) -> None:
        """Close (and so free) the temporary files (idempotent)."""
        self.pending, self.n_pending = [], 0
        files, self.files = self.files or [], None
        for fh in files:
            if fh is not None:
                fh.close()


_DUP = np.dtype([("line", "<i8"), ("p", "<i8"), ("t", "<i4"), ("first", "<i8")])
_OVER = np.dtype([("line", "<i8"), ("p", "<i8"), ("t", "<i4"), ("count", "<i8")])


def _check(rec: np.ndarray, max_terms: int) -> PairFindings:
    """The findings of one part (every line of its proteins)."""
    r = rec[np.lexsort((rec["line"], rec["t"], rec["p"]))]
    new = np.ones(r.size, bool)
    new[1:] = (r["p"][1:] != r["p"][:-1]) | (r["t"][1:] != r["t"][:-1])
    first = np.maximum.accumulate(np.where(new, np.arange(r.size), 0))
    dup = np.empty(int((~new).sum()), _DUP)
    for name in ("line", "p", "t"):
        dup[name] = r[name][~new]
    dup["first"] = r["line"][first[~new]]
    pairs = r[new]
    by_line = pairs[np.lexsort((pairs["line"], pairs["p"]))]
    starts = np.flatnonzero(np.r_[True, by_line["p"][1:] != by_line["p"][:-1]]) if by_line.size else \
        np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, by_line.size])
    big = sizes > max_terms
    at = by_line[starts[big] + max_terms]
    over = np.empty(int(big.sum()), _OVER)
    for name in ("line", "p", "t"):
        over[name] = at[name]
    over["count"] = sizes[big]
    return PairFindings(dup, over)
