"""BioCreative II.5 gold-standard and result files (tasks INT, IPT, ACT).

Result files are validated exactly as the evaluation page requires ([BC]_
§3.2) and every problem is reported, each with its line and a code:

===============  ==========================================================
code             problem
===============  ==========================================================
BLANK_LINE       a blank line before the last non-blank one
COLUMNS          not exactly 4 (INT, ACT) or 5 (IPT) tab-separated fields
EMPTY_FIELD      a field is empty
CLASS_FORMAT     ACT classification is not 0 or 1
RANK_FORMAT      the rank is not a positive integer
CONF_FORMAT      the confidence is not a number
CONF_RANGE       the confidence is not in ]0..1]
DUPLICATE        the hit was already reported for the document (IPT: in
                 either order; ACT: the document was already classified)
RANK_SEQUENCE    ranks do not run 1, 2, 3, ... per document (ACT: per class)
                 in file order
CONF_ORDER       the confidence is higher than at the previous rank
RANK_MISSING     (``rank_file_order=False``) ranks 1..N have gaps
RANK_DUPLICATE   (``rank_file_order=False``) a rank is used twice
===============  ==========================================================

By default ranks must be consecutive in file order, {r_1 = 1} and
{r_i = r_{i-1} + 1}; with ``rank_file_order=False`` the ranks of a document
(or class) need only form the set 1..N in any line order, and confidences
are compared in rank order. Trailing blank lines at the end of a file are
ignored.

References
----------
.. [BC] BioCreative II.5 "Result evaluation" page (2009-03-13), §3.2.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from goeval.errors import InputFormatError, check_choice
from goeval.io.files import read_text

__all__ = [
    "BiocreativeFormatError",
    "BiocreativeGold",
    "BiocreativeResults",
    "TASKS",
    "ValidationIssue",
    "parse_gold",
    "parse_results",
    "read_gold",
    "read_results",
    "validate_result_lines",
]

TASKS: tuple[str, ...] = ("INT", "IPT", "ACT")
_RESULT_FIELDS = {"INT": 4, "IPT": 5, "ACT": 4}
_GOLD_FIELDS = {"INT": 2, "IPT": 3, "ACT": 2}
_WS = " \t\ufeff"  # stripped around every field: spaces, tabs, a byte-order mark
_INT_RE = re.compile(r"[+-]?[0-9]+")
_NUM_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:[+-]?(?:nan|inf|infinity))")


@dataclass(frozen=True, order=True)
class ValidationIssue:
    """One problem of a BioCreative file: 1-based line, code, message."""

    line: int
    code: str
    message: str


class BiocreativeFormatError(InputFormatError):
    """A BioCreative file has problems; ``issues`` lists every one of them."""

    def __init__(self, path: str | os.PathLike[str] | None, issues: Sequence[ValidationIssue], what: str) -> None:
        self.issues = tuple(issues)
        n = len(self.issues)
        listing = "\n".join(f"  line {i.line}: {i.code}: {i.message}" for i in self.issues)
        problem = (
            f"{n} problem{'s' if n != 1 else ''} in the {what} (BioCreative II.5 §3.2); "
            f"fix every line listed:\n{listing}"
        )
        super().__init__(path, None, problem)
        self.line = self.issues[0].line if self.issues else None


@dataclass(frozen=True)
class BiocreativeResults:
    """A validated result file.

    Attributes
    ----------
    task : str
    hits : dict of str to list
        INT and IPT: each document's hits in rank order (accessions, or
        (A, B) pairs as written).
    positives, negatives : list of str
        ACT: documents classified 1, and 0, in rank order.
    """

    task: str
    hits: dict[str, list] = field(default_factory=dict)
    positives: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BiocreativeGold:
    """A gold standard.

    Attributes
    ----------
    task : str
    answers : dict of str to set
        INT and IPT: gold accessions (or unordered pairs, as sorted tuples)
        per document.
    classes : dict of str to int
        ACT: gold class (0 or 1) per document.
    n_duplicates : int
        Repeated gold lines, merged.
    """

    task: str
    answers: dict[str, set] = field(default_factory=dict)
    classes: dict[str, int] = field(default_factory=dict)
    n_duplicates: int = 0


def _check_task(task: str, func: str) -> None:
    check_choice(task, "task", func, TASKS)


def _last_content(lines: Sequence[str]) -> int:
    n = len(lines)
    while n and not lines[n - 1].strip(_WS):
        n -= 1
    return n


def _split_lines(text: str) -> list[str]:
    """Lines split on ``\n`` only (one trailing ``\r`` removed): U+0085 and
    U+2028 are ordinary characters of a field, not line breaks."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


class _Group:
    __slots__ = ("last_rank", "last_conf", "entries", "first_line")

    def __init__(self, line: int) -> None:
        self.last_rank = 0
        self.last_conf: tuple[float, str] | None = None
        self.entries: list[tuple[int, int, float | None, str]] = []
        self.first_line = line


class _ResultChecker:
    """Checks the lines of a result file one by one: the issues found so far,
    the hits already seen and the rank groups (documents; ACT: classes)."""

    def __init__(self, task: str, rank_file_order: bool) -> None:
        self.task = task
        self.n_fields = _RESULT_FIELDS[task]
        self.unit = "class" if task == "ACT" else "document"
        self.rank_file_order = rank_file_order
        self.issues: list[ValidationIssue] = []
        self.seen: dict[object, tuple[int, tuple[str, ...]]] = {}
        self.groups: dict[str, _Group] = {}

    def add(self, no: int, code: str, message: str) -> None:
        self.issues.append(ValidationIssue(no, code, message))

    def check_line(self, no: int, line: str) -> None:
        """Report every problem of line ``no`` and record it in its rank group."""
        fields = self.fields(no, line)
        if fields is None:
            return
        doc, hit, rank_s, conf_s = fields[0], tuple(fields[1:-2]), fields[-2], fields[-1]
        group_key = self.check_duplicate(no, doc, hit)
        rank = self.rank(no, rank_s)
        conf = self.confidence(no, conf_s)
        if group_key is None:
            return
        g = self.groups.setdefault(group_key, _Group(no))
        if self.rank_file_order:
            self.check_sequence(no, g, rank, conf, conf_s)
        elif rank is not None:
            g.entries.append((rank, no, conf, conf_s))

    def fields(self, no: int, line: str) -> list[str] | None:
        """The stripped fields, or None after reporting a blank line, a wrong field count or an empty field."""
        if not line.strip(_WS):
            self.add(no, "BLANK_LINE", "blank line")
            return None
        fields = line.split("\t")
        if len(fields) != self.n_fields:
            self.add(no, "COLUMNS", f"expected {self.n_fields} tab-separated fields, found {len(fields)}")
            return None
        if any(not f.strip(_WS) for f in fields):
            self.add(no, "EMPTY_FIELD", "empty field")
            return None
        return [f.strip(_WS) for f in fields]

    def check_duplicate(self, no: int, doc: str, hit: tuple[str, ...]) -> str | None:
        """Report a repeated hit (ACT: a class that is not 0 or 1, a document
        classified again); return the line's rank group (None: no valid class)."""
        group_key: str | None = doc
        if self.task == "ACT":
            group_key = hit[0] if hit[0] in ("0", "1") else None
            if group_key is None:
                self.add(no, "CLASS_FORMAT", f"classification {hit[0]!r} is not 0 or 1")
            key: object = doc
        elif self.task == "IPT":
            key = (doc, tuple(sorted(hit)))
        else:
            key = (doc, hit)
        if key in self.seen:
            first, first_hit = self.seen[key]
            swapped = self.task == "IPT" and first_hit != hit
            self.add(no, "DUPLICATE", f"duplicate of line {first}" + (" (swapped pair)" if swapped else ""))
        else:
            self.seen[key] = (no, hit)
        return group_key

    def rank(self, no: int, rank_s: str) -> int | None:
        """The rank, or None after reporting one that is not a positive integer."""
        if _INT_RE.fullmatch(rank_s) is None:
            self.add(no, "RANK_FORMAT", f"rank {rank_s!r} is not an integer")
        elif int(rank_s) < 1:
            self.add(no, "RANK_FORMAT", f"rank {rank_s!r} is not a positive integer")
        else:
            return int(rank_s)
        return None

    def confidence(self, no: int, conf_s: str) -> float | None:
        """The confidence, or None after reporting one that is not a number in ]0..1]."""
        if _NUM_RE.fullmatch(conf_s) is None:
            self.add(no, "CONF_FORMAT", f"confidence {conf_s!r} is not a number")
        elif not 0.0 < float(conf_s) <= 1.0:
            self.add(no, "CONF_RANGE", f"confidence {conf_s!r} not in ]0..1]")
        else:
            return float(conf_s)
        return None

    def check_sequence(self, no: int, g: _Group, rank: int | None, conf: float | None, conf_s: str) -> None:
        """Ranks 1, 2, 3, ... and non-increasing confidences in file order."""
        expected = g.last_rank + 1
        if rank is not None and rank != expected:
            message = f"rank {rank}, expected {expected} (ranks must run 1,2,3,... per {self.unit})"
            self.add(no, "RANK_SEQUENCE", message)
        g.last_rank = rank if rank is not None else expected
        if conf is not None:
            if g.last_conf is not None and conf > g.last_conf[0]:
                self.add(no, "CONF_ORDER", f"confidence {conf_s} higher than at the previous rank ({g.last_conf[1]})")
            g.last_conf = (conf, conf_s)


def validate_result_lines(lines: Iterable[str], task: str, *, rank_file_order: bool = True) -> list[ValidationIssue]:
    """Check the lines of a result file ([BC]_ §3.2); return every issue.

    Parameters
    ----------
    lines : iterable of str
        The file's lines (a final ``\n`` or ``\r\n`` is stripped). Spaces,
        tabs and a byte-order mark around each field are ignored.
    task : {'INT', 'IPT', 'ACT'}
    rank_file_order : bool, default True
        Ranks must be consecutive in file order; False: only the set of
        ranks of each document (ACT: class) must be 1..N.

    Returns
    -------
    list of ValidationIssue
        Sorted by line, then code; empty for a valid file.
    """
    _check_task(task, "validate_result_lines")
    lines = [ln[:-1] if ln.endswith("\n") else ln for ln in lines]
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    checker = _ResultChecker(task, rank_file_order)
    for no, line in enumerate(lines[: _last_content(lines)], start=1):
        checker.check_line(no, line)
    if not rank_file_order:
        for g in checker.groups.values():
            checker.issues.extend(_check_rank_set(g, checker.unit))
    return sorted(checker.issues, key=lambda i: (i.line, i.code))


def _check_rank_set(g: _Group, unit: str) -> list[ValidationIssue]:
    out: list[ValidationIssue] = []
    used: dict[int, int] = {}
    for rank, no, _, _ in sorted(g.entries, key=lambda e: e[1]):
        if rank in used:
            out.append(ValidationIssue(no, "RANK_DUPLICATE", f"rank {rank} already used on line {used[rank]}"))
        else:
            used[rank] = no
    missing = sorted(set(range(1, max(used, default=0) + 1)) - set(used))
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
        out.append(ValidationIssue(
            g.first_line, "RANK_MISSING", f"rank(s) {shown} missing (the ranks of a {unit} must be 1..N)"
        ))
    prev: tuple[float, str] | None = None
    for _, no, conf, conf_s in sorted(g.entries):
        if conf is None:
            continue
        if prev is not None and conf > prev[0]:
            message = f"confidence {conf_s} higher than at the previous rank ({prev[1]})"
            out.append(ValidationIssue(no, "CONF_ORDER", message))
        prev = (conf, conf_s)
    return out


def parse_results(
    text: str, task: str, *, path: str | os.PathLike[str] | None = None, rank_file_order: bool = True
) -> BiocreativeResults:
    """Validate and parse the text of a result file.

    Raises
    ------
    BiocreativeFormatError
        Listing every issue found by :func:`validate_result_lines`.
    """
    _check_task(task, "parse_results")
    lines = _split_lines(text)
    issues = validate_result_lines(lines, task, rank_file_order=rank_file_order)
    if issues:
        raise BiocreativeFormatError(path, issues, f"{task} result file")
    rows = []
    for line in lines[: _last_content(lines)]:
        f = [x.strip(_WS) for x in line.split("\t")]
        rows.append((f[0], tuple(f[1:-2]), int(f[-2])))
    out = BiocreativeResults(task)
    for doc, hit, rank in sorted(rows, key=lambda r: r[2]):
        if task == "ACT":
            (out.positives if hit[0] == "1" else out.negatives).append(doc)
        else:
            out.hits.setdefault(doc, []).append(hit[0] if task == "INT" else hit)
    # keep documents in file order
    order = {doc: i for i, (doc, _, _) in reversed(list(enumerate(rows)))}
    if task != "ACT":
        object.__setattr__(out, "hits", dict(sorted(out.hits.items(), key=lambda kv: order[kv[0]])))
    return out


def read_results(path: str | os.PathLike[str], task: str, *, rank_file_order: bool = True) -> BiocreativeResults:
    """Read, validate and parse a result file (plain or compressed).

    Parameters
    ----------
    path : str or path-like
    task : {'INT', 'IPT', 'ACT'}
    rank_file_order : bool, default True
        See :func:`validate_result_lines`.

    Returns
    -------
    BiocreativeResults

    Raises
    ------
    BiocreativeFormatError
        Listing every problem with its line; the file is not evaluated.
    """
    return parse_results(read_text(path), task, path=path, rank_file_order=rank_file_order)


def parse_gold(text: str, task: str, *, path: str | os.PathLike[str] | None = None) -> BiocreativeGold:
    """Parse a gold standard: ``doc<TAB>accession`` (INT), ``doc<TAB>A<TAB>B``
    (IPT) or ``doc<TAB>0|1`` (ACT); blank lines are skipped.

    Raises
    ------
    BiocreativeFormatError
        Listing every line with the wrong number of fields, an empty field,
        or (ACT) a class other than 0/1 or a document classified twice
        differently.
    """
    _check_task(task, "parse_gold")
    n_fields = _GOLD_FIELDS[task]
    issues: list[ValidationIssue] = []
    gold = BiocreativeGold(task)
    dup = 0
    first_class: dict[str, int] = {}
    for no, line in enumerate(_split_lines(text), start=1):
        if not line.strip(_WS):
            continue
        fields = line.split("\t")
        if len(fields) != n_fields:
            message = f"expected {n_fields} tab-separated fields, found {len(fields)}"
            issues.append(ValidationIssue(no, "COLUMNS", message))
            continue
        fields = [f.strip(_WS) for f in fields]
        if not all(fields):
            issues.append(ValidationIssue(no, "EMPTY_FIELD", "empty field"))
            continue
        doc = fields[0]
        if task == "ACT":
            if fields[1] not in ("0", "1"):
                issues.append(ValidationIssue(no, "CLASS_FORMAT", f"classification {fields[1]!r} is not 0 or 1"))
                continue
            cls = int(fields[1])
            if doc in gold.classes:
                if gold.classes[doc] != cls:
                    message = f"class of {doc!r} differs from line {first_class[doc]}"
                    issues.append(ValidationIssue(no, "DUPLICATE", message))
                dup += 1
                continue
            gold.classes[doc] = cls
            first_class[doc] = no
        else:
            hit = fields[1] if task == "INT" else tuple(sorted(fields[1:]))
            answers = gold.answers.setdefault(doc, set())
            dup += hit in answers
            answers.add(hit)
    if issues:
        raise BiocreativeFormatError(path, issues, f"{task} gold standard")
    object.__setattr__(gold, "n_duplicates", dup)
    return gold


def read_gold(path: str | os.PathLike[str], task: str) -> BiocreativeGold:
    """Read a gold-standard file (see :func:`parse_gold`)."""
    return parse_gold(read_text(path), task, path=path)
