"""A competition's submission rules, checked on every line of a file in bounded memory (``goeval validate``).

The CAFA 6 rules (Kaggle "cafa-6-protein-function-prediction", its
Submission and Evaluation pages), :data:`CAFA6_RULES`:

* one tab-separated file, no header: ``protein<TAB>GO id<TAB>score``;
* a score in (0, 1.000] with at most three significant figures (0 is not
  allowed);
* terms of the named GO release (an alt_id counts as its term and is only
  noted; an obsolete or unknown id is a violation);
* at most 1500 terms per protein over MF, BP and CC combined; a (protein,
  term) pair once;
* optional free-text lines ``protein<TAB>Text<TAB>score<TAB>text``: at most
  five per protein, printable ASCII (32-126) without tabs, at most 3000
  characters of text per protein;
* with a target list, proteins among the targets.

Every violation is kept with its line (each rule's first ``show`` in line
order, and the count of all), so a 200-million-line file is checked in memory
that does not grow with it: the lines are read in parts
(:func:`goeval.io.predictions.submission.submission_parts`), the rules that
look at one line are checked on each part's distinct values (a score text,
a term, a protein is looked at once per part), and the (protein, term) pairs
go to a :class:`~goeval.compat.submission_pairs.PairLedger` that finds the
duplicates and the proteins with too many terms at the end, in bounded
memory.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from goeval.compat.submission_pairs import PairLedger
from goeval.io.files import PathLike
from goeval.io.predictions.submission import SubmissionPart, line_texts, submission_parts
from goeval.io.text import CAFA_HEADER, PROTEIN_HEADERS, SCORE_HEADERS, TERM_HEADERS, is_number
from goeval.ontology import Ontology, TermStatus

__all__ = ["SubmissionRules", "CAFA6_RULES", "RULES", "Violation", "SubmissionReport", "validate_submission",
           "significant_figures"]


@dataclass(frozen=True, kw_only=True)
class SubmissionRules:
    """The limits of a competition's submission format (see :data:`CAFA6_RULES`)."""

    name: str = "cafa6"
    significant_figures: int = 3
    max_terms: int = 1500
    max_text_lines: int = 5
    max_text_chars: int = 3000
    text_tag: str = "Text"


#: The Kaggle CAFA 6 rules.
CAFA6_RULES = SubmissionRules()

#: Rule name -> what it says (the summary's order).
RULES: dict[str, str] = {
    "header": "a header or footer line (a submission has none)",
    "format": "not 'protein<TAB>GO id<TAB>score' (three tab-separated fields, UTF-8)",
    "score_not_number": "the score is not a finite number",
    "score_zero": "a score of 0 (scores lie in (0, 1.000])",
    "score_negative": "a negative score",
    "score_above_1": "a score above 1",
    "significant_figures": "a score with more than {sf} significant figures",
    "unknown_term": "not a term of this GO release",
    "obsolete_term": "an obsolete term of this GO release",
    "duplicate": "a (protein, term) pair given again",
    "too_many_terms": "more than {max_terms} terms for one protein (MF, BP and CC together)",
    "text_line": "a malformed free-text line ('protein<TAB>Text<TAB>score<TAB>text', printable ASCII)",
    "text_lines_per_protein": "more than {max_text_lines} free-text lines for one protein",
    "text_length": "more than {max_text_chars} characters of free text for one protein",
    "not_a_target": "a protein outside the target set",
}


@dataclass(frozen=True, order=True)
class Violation:
    """One broken rule at one line (ordered by line)."""

    line: int
    rule: str
    problem: str
    text: str = ""


@dataclass(kw_only=True)
class SubmissionReport:
    """What :func:`validate_submission` found.

    Attributes
    ----------
    path : str
    counts : dict
        ``lines`` (non-blank), ``go_lines``, ``text_lines``, ``proteins``, ``alt_id_lines``.
    by_rule : dict of str to int
        Every violation counted, per rule (rules never broken are absent).
    shown : list of Violation
        The first ``show`` violations of each rule, in line order.
    """

    path: str
    counts: dict[str, int]
    by_rule: dict[str, int]
    shown: list[Violation]
    rules: SubmissionRules = CAFA6_RULES

    @property
    def valid(self) -> bool:
        return not self.by_rule

    def describe(self, rule: str) -> str:
        """The rule's text with its limits."""
        r = self.rules
        return RULES[rule].format(sf=r.significant_figures, max_terms=r.max_terms, max_text_lines=r.max_text_lines,
                                  max_text_chars=r.max_text_chars)


class _Findings:
    """Violations: every one counted, the first ``show`` of each rule (by line) kept."""

    def __init__(self, show: int | None) -> None:
        self.show = show
        self.counts: dict[str, int] = {}
        self.kept: dict[str, list[tuple[int, int, Violation]]] = {}
        self._n = 0

    def add(self, rule: str, line: int, problem: str, text: str = "") -> None:
        self.counts[rule] = self.counts.get(rule, 0) + 1
        heap = self.kept.setdefault(rule, [])
        item = (-line, self._n, Violation(line, rule, problem, text))
        self._n += 1
        if self.show is None or len(heap) < self.show:
            heapq.heappush(heap, item)
        elif -heap[0][0] > line:
            heapq.heapreplace(heap, item)

    def add_many(self, rule: str, lines: np.ndarray, describe: Any) -> None:
        """Count a violation at each of ``lines``; ``describe(i)`` gives ``(problem, text)`` of ``lines[i]``,
        asked only for the lines that may be shown."""
        if not lines.size:
            return
        order = np.argsort(lines, kind="stable")
        keep = order if self.show is None else order[: self.show]
        for i in keep.tolist():
            self.add(rule, int(lines[i]), *describe(i))
        self.counts[rule] += int(lines.size - keep.size)

    def violations(self) -> list[Violation]:
        return sorted(v for heap in self.kept.values() for _, _, v in heap)


def significant_figures(text: str) -> int | None:
    """The significant figures of a decimal number as written, trailing zeros aside (None: not finite).

    Examples
    --------
    >>> [significant_figures(x) for x in ("0.123", "0.1230", "1", "1.000", "0.0001234", "5e-4", "nan")]
    [3, 3, 1, 1, 4, 1, None]
    """
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    return 0 if d == 0 else len(d.normalize().as_tuple().digits)


def _score_rule(text: str, rules: SubmissionRules) -> tuple[str, str] | None:
    """(rule, problem) broken by a score text, or None."""
    if not is_number(text) or significant_figures(text) is None:
        return "score_not_number", f"the score {text!r} is not a finite number"
    v = float(text)
    if v == 0:
        return "score_zero", "a score of 0 (scores lie in (0, 1])"
    if v < 0:
        return "score_negative", f"the score {text} is negative"
    if v > 1:
        return "score_above_1", f"the score {text} is above 1"
    if significant_figures(text) > rules.significant_figures:
        return "significant_figures", f"the score {text} has more than {rules.significant_figures} significant figures"
    return None


def _is_header(fields: list[str], first: bool) -> bool:
    """A CAFA header or END line anywhere (its tag followed by a tab or by spaces: ``AUTHOR team``); a column
    header as the first line."""
    words = fields[0].split()
    head = words[0].upper() if words else ""
    if head in CAFA_HEADER or (len(fields) == 1 and words == [head] and head == "END"):
        return True
    low = [f.strip().lower() for f in fields]
    return first and (low[0] in PROTEIN_HEADERS or (len(low) > 1 and low[1] in TERM_HEADERS) or
                      (len(low) > 2 and low[2] in SCORE_HEADERS))


class _Validator:
    """The state of one pass: ids, per-protein free-text totals, the pair ledger, the findings."""

    def __init__(self, ontology: Ontology, targets: set[str] | None, rules: SubmissionRules,
                 findings: _Findings, ledger: PairLedger) -> None:
        self.ontology, self.targets, self.rules = ontology, targets, rules
        self.found, self.ledger = findings, ledger
        self.protein_ids: dict[str, int] = {}
        self.term_ids: dict[str, int] = {}
        self.outside: set[str] = set()
        self.text: dict[str, list[int]] = {}  # protein -> [lines, characters]
        self.counts = {"lines": 0, "go_lines": 0, "text_lines": 0, "alt_id_lines": 0}
        self.first_line: int | None = None

    def part(self, b: SubmissionPart) -> None:
        """Check the lines of one part of the file."""
        firsts = [x for x in (b.lines[:1].tolist() + [o[0] for o in b.others[:1]]) if x]
        if self.first_line is None and firsts:
            self.first_line = min(firsts)
        self.counts["lines"] += len(b) + len(b.others)
        for line, text, fields in b.others:
            self._other(line, text, fields)
        if len(b):
            self._data(b)

    def _protein(self, name: str, line: int) -> int:
        pid = self.protein_ids.setdefault(name, len(self.protein_ids))
        if self.targets is not None and name not in self.targets and name not in self.outside:
            self.outside.add(name)
            self.found.add("not_a_target", line, f"protein {name} is not a target")
        return pid

    def _other(self, line: int, text: str, fields: list[str] | None) -> None:
        if fields is None:
            self.found.add("format", line, "the line is not UTF-8 text", text)
        elif _is_header(fields, line == self.first_line):
            self._header(line, text)
        elif len(fields) >= 2 and fields[1] == self.rules.text_tag:
            self._text_line(line, text, fields)
        else:
            why = "the fields are separated by spaces, not tabs" if len(fields) == 1 and " " in text.strip() else \
                f"{len(fields)} tab-separated field{'s' if len(fields) != 1 else ''}; expected 3 (protein, GO id, score)"
            self.found.add("format", line, why, text)

    def _header(self, line: int, text: str) -> None:
        what = "a footer line" if text.strip().upper() == "END" else "a header line"
        self.found.add("header", line, f"{what} (a submission has no header or footer lines)", text)

    def _text_line(self, line: int, text: str, fields: list[str]) -> None:
        """A free-text line: its own form, then its protein's totals."""
        r = self.rules
        self.counts["text_lines"] += 1
        problem = None
        if len(fields) != 4:
            problem = f"a free-text line has 4 tab-separated fields (protein, Text, score, text); got {len(fields)}"
        elif (bad := _score_rule(fields[2], r)) is not None:
            problem = bad[1]
        elif not fields[3] or any(not 32 <= ord(c) <= 126 for c in fields[3]):
            c = next((c for c in fields[3] if not 32 <= ord(c) <= 126), None)
            problem = "an empty text" if c is None else f"the character U+{ord(c):04X} is not printable ASCII"
        if problem is not None:
            self.found.add("text_line", line, problem, text)
        name = fields[0]
        self._protein(name, line)
        tally = self.text.setdefault(name, [0, 0])
        tally[0] += 1
        chars = len(fields[3]) if len(fields) > 3 else 0
        if tally[0] == r.max_text_lines + 1:
            self.found.add("text_lines_per_protein", line, f"protein {name} has more than {r.max_text_lines} "
                           "free-text lines", text)
        if tally[1] <= r.max_text_chars < tally[1] + chars:
            self.found.add("text_length", line, f"protein {name} has more than {r.max_text_chars} characters of "
                           "free text", text)
        tally[1] += chars

    def _data(self, b: SubmissionPart) -> None:
        """The data lines of a part: rules of their distinct values, then their pairs to the ledger."""
        r = self.rules
        keep = np.ones(len(b), bool)
        fields = lambda i: [b.proteins[b.pcodes[i]], b.terms[b.tcodes[i]], b.scores[b.scodes[i]]]  # noqa: E731
        text = lambda i: "\t".join(fields(i))  # noqa: E731
        if int(b.lines[0]) == self.first_line and _is_header(fields(0), True):
            self._header(int(b.lines[0]), text(0))
            keep[0] = False
        for i in np.flatnonzero(keep & (b.terms == r.text_tag)[b.tcodes]).tolist():
            self._text_line(int(b.lines[i]), text(i), fields(i))
            keep[i] = False
        self.counts["go_lines"] += int(keep.sum())
        rows = np.flatnonzero(keep)
        self._scores(b, rows, text)
        self._terms(b, rows, text)
        pid = self._proteins(b, rows)
        tid = np.fromiter((self.term_ids.setdefault(t, len(self.term_ids)) for t in b.terms.tolist()), np.int64,
                          b.terms.size)
        self.ledger.add(pid[b.pcodes[rows]], tid[b.tcodes[rows]], b.lines[rows])

    def _scores(self, b: SubmissionPart, rows: np.ndarray, text: Any) -> None:
        broken = [_score_rule(s, self.rules) for s in b.scores.tolist()]
        names = sorted({x[0] for x in broken if x is not None})
        code = np.array([-1 if x is None else names.index(x[0]) for x in broken], np.int64)
        per_row = code[b.scodes[rows]]
        for k, rule in enumerate(names):
            hit = rows[per_row == k]
            self.found.add_many(rule, b.lines[hit], lambda i, h=hit: (broken[b.scodes[h[i]]][1], text(h[i])))

    def _terms(self, b: SubmissionPart, rows: np.ndarray, text: Any) -> None:
        _idx, status = self.ontology.resolve(b.terms.tolist())
        st = status[b.tcodes[rows]]
        self.counts["alt_id_lines"] += int((st == TermStatus.ALT_ID).sum())
        for rule, codes, what in (("unknown_term", (TermStatus.UNKNOWN,), "is not a term of this GO release"),
                                  ("obsolete_term", (TermStatus.OBSOLETE, TermStatus.REPLACED),
                                   "is obsolete in this GO release")):
            hit = rows[np.isin(st, codes)]
            self.found.add_many(rule, b.lines[hit], lambda i, h=hit, w=what: (f"{b.terms[b.tcodes[h[i]]]} {w}",
                                                                              text(h[i])))

    def _proteins(self, b: SubmissionPart, rows: np.ndarray) -> np.ndarray:
        """Global ids of the part's proteins of ``rows`` (-1 for the others); a protein outside the targets is
        reported at its first line."""
        first = np.full(b.proteins.size, -1, np.int64)
        codes, at = np.unique(b.pcodes[rows], return_index=True)
        first[codes] = b.lines[rows[at]]
        names = b.proteins.tolist()
        return np.fromiter((self._protein(n, int(first[k])) if first[k] >= 0 else -1 for k, n in enumerate(names)),
                           np.int64, len(names))

    def finish(self) -> None:
        """The pair rules, from the ledger."""
        proteins, terms = list(self.protein_ids), list(self.term_ids)
        cap = self.rules.max_terms
        for part in self.ledger.findings(cap):
            d, o = part.duplicates, part.over
            self.found.add_many("duplicate", d["line"], lambda i, d=d: (
                f"protein {proteins[d['p'][i]]}, term {terms[d['t'][i]]} again (first at line {d['first'][i]})", ""))
            self.found.add_many("too_many_terms", o["line"], lambda i, o=o: (
                f"protein {proteins[o['p'][i]]} has {o['count'][i]:,} terms (more than {cap:,}); this line holds "
                f"its term number {cap + 1:,}", ""))


def validate_submission(path: PathLike, ontology: Ontology, targets: Iterable[str] | None = None, *,
                        rules: SubmissionRules = CAFA6_RULES, show: int | None = 20, part_bytes: int | None = None,
                        budget: int = 1 << 22) -> SubmissionReport:
    """Check every line of a submission file against a competition's rules (default CAFA 6's).

    Parameters
    ----------
    path : str or path-like
        The submission (plain or compressed).
    ontology : Ontology
        The GO release the competition names.
    targets : iterable of str, optional
        The target proteins (e.g. the ids of the competition's FASTA file).
    rules : SubmissionRules
    show : int or None, default 20
        Violations kept with their line per rule (the first ones; None: all).
        Every violation is counted.
    part_bytes : int, optional
        Bytes read at a time (default 8 MiB).
    budget : int
        (protein, term, line) triples kept in memory before they go to temporary files.

    Returns
    -------
    SubmissionReport

    Raises
    ------
    InputFormatError
        Only for a file that cannot be read or decompressed.

    Examples
    --------
    >>> import pathlib, tempfile, goeval
    >>> onto = goeval.ontology_from_edges([("GO:2", "GO:1"), ("GO:3", "GO:1")], namespace="molecular_function")
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "sub.tsv"
    >>> _ = p.write_text("P1\\tGO:2\\t0.5\\nP1\\tGO:3\\t0\\nP1\\tGO:9\\t0.1234\\n")
    >>> report = validate_submission(p, onto)
    >>> report.valid, report.by_rule
    (False, {'score_zero': 1, 'significant_figures': 1, 'unknown_term': 1})
    >>> [(v.line, v.rule) for v in report.shown]
    [(2, 'score_zero'), (3, 'significant_figures'), (3, 'unknown_term')]
    """
    from goeval.io.predictions.parts import PART_BYTES

    found, ledger = _Findings(show), PairLedger(budget)
    v = _Validator(ontology, None if targets is None else set(targets), rules, found, ledger)
    try:
        for part in submission_parts(path, part_bytes or PART_BYTES):
            v.part(part)
        v.finish()
    finally:
        ledger.close()
    shown = found.violations()
    texts = line_texts(path, [x.line for x in shown if not x.text])
    shown = [x if x.text else Violation(x.line, x.rule, x.problem, texts.get(x.line, "")) for x in shown]
    counts = dict(v.counts, proteins=len(v.protein_ids))
    by_rule = {rule: found.counts[rule] for rule in RULES if found.counts.get(rule)}
    return SubmissionReport(path=str(path), counts=counts, by_rule=by_rule, shown=shown, rules=rules)
