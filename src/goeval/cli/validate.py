"""``goeval validate``: a submission file checked against a competition's rules, every violation with its line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goeval.cli.common import add_ontology, read_ontology, say, show

DESCRIPTION = (
    "Check a submission against the rules of a competition (--preset cafa6: the Kaggle CAFA 6 Submission page): "
    "no header; protein<TAB>GO id<TAB>score lines with a score in (0, 1] of at most three significant figures and "
    "a term of the given GO release (not obsolete); at most 1500 terms per protein over MF, BP and CC; no "
    "repeated (protein, term); free-text lines protein<TAB>Text<TAB>score<TAB>text (printable ASCII, at most five "
    "and 3000 characters per protein); with --targets, target proteins only. Prints each violation as FILE:LINE, "
    "the rule, the problem and the line, then a summary by rule; exit status 2 when the file breaks a rule. The "
    "file is read in parts: memory does not grow with it."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("submission", metavar="SUBMISSION", help="the submission file (plain, .gz, .bz2 or .xz)")
    add_ontology(p)
    p.add_argument("--preset", choices=("cafa6",), default="cafa6", help="the competition's rules (default cafa6)")
    p.add_argument("--targets", metavar="FASTA|LIST",
                   help="the target proteins: the competition's FASTA file (its ids) or a list, one per line")
    p.add_argument("--show", type=int, default=20, metavar="N",
                   help="violations printed per rule, the first ones (default 20; 0: every one); all are counted")


def _targets(path: str | None) -> Any:
    """The target ids of a FASTA file or an identifier list."""
    if path is None:
        return None
    from goeval.io.fasta import read_fasta
    from goeval.io.idlist import read_id_list
    from goeval.io.kinds import FileKind, sniff

    return read_fasta(path).ids if sniff(path) is FileKind.FASTA else read_id_list(path)


def run(args: argparse.Namespace) -> int:
    from goeval.compat.submission import validate_submission
    from goeval.errors import InvalidParameterError
    from goeval.io.files import check_input
    from goeval.report.text import plural

    if args.show < 0:
        raise InvalidParameterError(f"The '--show' option of validate must be an integer >= 0; got {args.show}.")
    check_input(args.submission, "submission")
    if args.targets:
        check_input(args.targets, "targets")
    onto = read_ontology(args)
    targets = _targets(args.targets)
    report = validate_submission(args.submission, onto, targets, show=args.show or None)
    show(args, *_lines(report))
    c = report.counts
    alt = c["alt_id_lines"]
    say(args, f"{Path(report.path).name}: {plural(c['lines'], 'line')} ({plural(c['go_lines'], 'GO line')}, "
        f"{plural(c['text_lines'], 'free-text line')}), {plural(c['proteins'], 'protein')}"
        + (f"; {plural(alt, 'line names', 'lines name')} an alt_id (read as its term)" if alt else ""))
    return 0 if report.valid else 2


def _shortened(text: str, width: int = 160) -> str:
    """A line as printed: at most ``width`` characters (its length said when cut)."""
    return text if len(text) <= width else f"{text[:width - 30]}... ({len(text):,} characters)"


def _lines(report: Any) -> list[str]:
    """Each shown violation, then the summary by rule and the verdict."""
    from goeval.report.text import plural

    out = [f"{report.path}:{v.line}: {v.rule}: {v.problem}: {_shortened(v.text)}" for v in report.shown]
    if report.valid:
        return out + [f"{report.path}: valid ({report.rules.name} rules)"]
    shown: dict[str, int] = {}
    for v in report.shown:
        shown[v.rule] = shown.get(v.rule, 0) + 1
    width = max(len(r) for r in report.by_rule)
    out += ["", "violations by rule:"]
    for rule, n in report.by_rule.items():
        more = f" ({shown.get(rule, 0)} shown)" if shown.get(rule, 0) < n else ""
        out.append(f"  {rule.ljust(width)}  {n:>10,}  {report.describe(rule)}{more}")
    total = sum(report.by_rule.values())
    out.append(f"{report.path}: INVALID: {plural(total, 'violation')} of {plural(len(report.by_rule), 'rule')} "
               f"({report.rules.name} rules)")
    return out
