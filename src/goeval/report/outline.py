"""The report's sections, in reading order, each with its tables, notes and figures.

One outline serves both renderings (:mod:`goeval.report.html`: the HTML
page and the Markdown summary), so they have the same sections in the same
order:

1. the headline: kind x namespace x method of Fmax, weighted Fmax, Smin and
   the maximum coverage, with intervals when computed, the best values
   marked (:func:`goeval.report.tables.headline_matrix`), the top-N bars
   of each (kind and) namespace, and the optima figure of a single result;
2. the paired comparison, when the results hold ``protein_stats.npz``
   (:mod:`goeval.report.comparison`);
3. per kind of target (a time split; otherwise directly): its optima
   figure, then per namespace one table of the methods ranked by each
   ranked measure beside its Fig. 4 (and F against k for rank
   thresholds); the heat maps of methods x groups for a result evaluated
   per group; the other measures beside the coverage figure; retrieval
   beside the TAP curve; the reliability figures (calibration) of each namespace;
4. Table 1 (one table, every kind);
5. any figure no section took;
6. the diagnostics in words, per kind;
7. how the results were produced.

A figure is named as :func:`goeval.report.plots.results_figures` names it;
a section shows the figures of its own results only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from goeval.report.plots import rank_thresholds_run, result_groups
from goeval.report.style import figure_stem
from goeval.report.tables import (comparison_records, diagnostics_lines, headline_matrix, headline_note, number,
                                  optima_records, other_matrix, provenance, reader_version, retrieval_records,
                                  table1_records)

__all__ = ["Table", "Items", "Para", "Details", "Figure", "Section", "report_outline", "HEADLINE_TITLE"]

HEADLINE_TITLE = "Headline: Fmax, weighted Fmax, Smin and coverage of every method"


@dataclass(frozen=True)
class Table:
    """A table of text cells; ``best``: the (row, column) cells to mark."""

    records: list[dict[str, str]]
    title: str = ""
    best: frozenset[tuple[int, str]] = frozenset()


@dataclass(frozen=True)
class Items:
    """A list of sentences; ``warn``: warnings; ``note``: notes on the table above."""

    lines: tuple[str, ...]
    title: str = ""
    warn: bool = False
    note: bool = False


@dataclass(frozen=True)
class Para:
    """A paragraph: ``text``, then ``code`` (a command line) when given."""

    text: str
    code: str | None = None


@dataclass(frozen=True)
class Details:
    """Text shown on demand (the HTML page folds it; the Markdown summary leaves it out)."""

    summary: str
    text: str


@dataclass(frozen=True)
class Figure:
    """A figure of the results, by name (:func:`goeval.report.plots.results_figures`)."""

    name: str


Block = Union[Table, Items, Para, Details, Figure]


@dataclass
class Section:
    """A titled section: its blocks, then its subsections; ``anchor`` is set by :func:`report_outline`."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    children: list["Section"] = field(default_factory=list)
    anchor: str = ""

    def figures(self) -> list[str]:
        """The figures of the section and its subsections, in order."""
        return [b.name for b in self.blocks if isinstance(b, Figure)] + [f for c in self.children for f in c.figures()]


def report_outline(results: Any, figures: Iterable[str] = (), comparison: Any = None) -> list[Section]:
    """The sections of the report of ``results``, in reading order (see the module's description).

    Parameters
    ----------
    results : ResultsDir
        What :func:`goeval.io.results_dir.read_results_dir` read.
    figures : iterable of str
        The names of the figures drawn; each is placed in the section of
        what it shows, those no section takes in a section of their own.
        Empty: no figure blocks.
    comparison : PairedComparison, optional
        :func:`goeval.report.comparison.paired_comparison` of the results.

    Returns
    -------
    list of Section
        Each with a unique anchor (``s1``, ``s1-2``...: never made from a
        name read from the results).
    """
    drawn = list(figures)
    parts = dict(getattr(results, "parts", None) or {})
    out: list[Section] = []
    matrix = headline_matrix(results)
    if matrix.records:
        blocks: list[Block] = [Table(matrix.records, best=frozenset(matrix.best)),
                               Items(tuple(headline_note(results)), note=True)]
        tops = [f for kind, part in (parts or {"": results}).items() for f in _figures(
            drawn, f"{kind.lower()}_" if kind else "", *(f"top_{figure_stem(ns)}" for ns in _namespaces(part)))]
        out.append(Section(HEADLINE_TITLE, blocks + tops + ([] if parts else _figures(drawn, "", "optima"))))
    if comparison is not None:
        out.append(_comparison_section(comparison))
    if parts:
        for kind, part in parts.items():
            prefix = f"{kind.lower()}_"
            out.append(Section(f"{kind} targets", _figures(drawn, prefix, "optima"), _result_sections(part, drawn, prefix)))
    else:
        out += _result_sections(results, drawn, "")
    t1 = table1_records(results)
    if t1:
        out.append(Section(_table1_title(results), [Table(t1)]))
    placed = {f for s in out for f in s.figures()}
    rest = [f for f in drawn if f not in placed]
    if rest:
        out.append(Section("Other figures", [Figure(f) for f in rest]))
    out.append(_diagnostics_section(results))
    out.append(_provenance_section(provenance(results.diagnostics, results.timings)))
    _anchor(out, "s")
    return out


def _figures(drawn: list[str], prefix: str, *names: str) -> list[Block]:
    return [Figure(prefix + n) for n in names if prefix + n in drawn]


def _anchor(sections: list[Section], stem: str) -> None:
    for i, s in enumerate(sections, 1):
        s.anchor = f"{stem}{i}"
        _anchor(s.children, f"{s.anchor}-")


def _result_sections(res: Any, drawn: list[str], prefix: str) -> list[Section]:
    """One result's sections: per namespace its rankings and Fig. 4; other measures; retrieval."""
    out = []
    summary = res.summary
    if summary is not None and len(summary):
        for ns in _namespaces(res):
            records = optima_records(summary, ns, ranks=rank_thresholds_run(res))
            if records:
                stem = figure_stem(str(ns))
                out.append(Section(f"{ns}: methods ranked", [Table(records)]
                                   + _figures(drawn, prefix, f"fig4_{stem}", f"rank_{stem}")))
        if result_groups(getattr(res, "group_summary", None)) or result_groups(summary):
            out.append(_groups_section(drawn, prefix))
        other, names = other_matrix(summary)
        blocks: list[Block] = [Table(other)] if other else []
        if names:
            blocks.append(Items(("CAFA-evaluator's names: " + "; ".join(names) + ".",), note=True))
        blocks += _figures(drawn, prefix, "coverage")
        if blocks:
            out.append(Section("Coverage and other measures", blocks))
        reliability = _figures(drawn, prefix, *(f"calibration_{figure_stem(str(ns))}" for ns in _namespaces(res)))
        if reliability:
            out.append(Section("Calibration: do the scores read as probabilities?",
                               [Items((CALIBRATION_NOTE,), note=True), *reliability]))
    if getattr(res, "retrieval_summary", None) is not None:
        ret = res.retrieval_summary
        note = [Items((RETRIEVAL_INTERVAL_NOTE,), note=True)] if any(str(c).endswith("_ci_low") for c in ret.columns) \
            else []
        out.append(Section("Term-centric retrieval (TAP-k, AUC iP/R, ROC AUC, AP)",
                           [Table(retrieval_records(ret)), *note] + _figures(drawn, prefix, "tap_curve")))
    return out


RETRIEVAL_INTERVAL_NOTE = (
    "In brackets: the percentile bootstrap interval of each measure (goeval retrieval --bootstrap; the benchmark "
    "proteins resampled, as for the protein-centric intervals). Resampling shifts the precision-based measures (TAP-k, "
    "AUC iP/R, AP) up, so their interval may lie above the value; compare methods by their paired difference (goeval "
    "compare --measure roc_auc, ...). docs/conventions.md, Term-centric measures.")

CALIBRATION_NOTE = ("Per score bin, the mean score of the propagated predicted pairs (x) against the share of them "
                    "that are true (y): on the dashed diagonal a score of 0.8 means 80 % true. Under each panel, the "
                    "pairs per bin (log scale); ECE in the legend (docs/conventions.md, Calibration; the table: "
                    "calibration.tsv).")


def _namespaces(res: Any) -> list[str]:
    """The namespaces of a result's summary, in order (``all`` left out)."""
    summary = res.summary
    return [] if summary is None else [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"]


def _groups_section(drawn: list[str], prefix: str) -> Section:
    """The heat maps of a result evaluated per group (``groups_<measure>``), with what their rows and columns are."""
    note = ("Rows: the methods, best first on the whole benchmark (the column 'all'), then the baselines (naive, BLAST, "
            "GOtcha and those named with --baselines); columns: the groups, each with its number of benchmark "
            "proteins in the namespace (n). Yellow is the better end of the scale for every measure; grey: undefined.")
    figures: list[Block] = [Figure(f) for f in drawn if f.startswith(f"{prefix}groups_")]
    return Section("Groups of proteins: each method per group", [Items((note,), note=True), *figures])


def _table1_title(results: Any) -> str:
    if getattr(results, "parts", None):
        return "Table 1 (Clark & Radivojac 2013's layout), every kind of target"
    kind = results.diagnostics.get("kind") if results.kind == "time split kind" else None
    if kind is not None:
        return f"Table 1 ({kind} targets)"
    return "Table 1 (cross-validation)" if results.kind == "cross-validation" else "Table 1"


def _comparison_section(comparison: Any) -> Section:
    blocks: list[Block] = [Table(comparison_records(comparison.pairs))] if comparison.pairs else []
    return Section("Paired comparison of the methods", blocks + [Items(tuple(comparison.sentences()), note=True)])


def _diagnostics_section(results: Any) -> Section:
    parts = dict(getattr(results, "parts", None) or {})
    top = Section("Diagnostics: what was read, remapped and dropped", _diagnostics_blocks(results.diagnostics))
    top.children = [Section(f"{k} targets", _diagnostics_blocks(p.diagnostics)) for k, p in parts.items()]
    return top


def _diagnostics_blocks(diagnostics: Mapping[str, Any]) -> list[Block]:
    lines, warnings = diagnostics_lines(diagnostics)
    blocks: list[Block] = [Items(tuple(lines))] if lines else [Para("No diagnostics recorded.")]
    if warnings:
        blocks.append(Items(tuple(warnings), title="Warnings", warn=True))
    if diagnostics:
        blocks.append(Details("every count (diagnostics.json)", json.dumps(diagnostics, indent=1)))
    return blocks


def _provenance_section(prov: Mapping[str, Any]) -> Section:
    versions = ", ".join(f"{k} {v}" for k, v in (prov["versions"] or {}).items()) or "not recorded"
    blocks: list[Block] = [Para("Command:", prov["command"]) if prov["command"] else
                           Para("Command: not recorded in diagnostics.json"),
                           Para(f"Versions: {versions}; this report: goeval {reader_version()}.")]
    if prov["inputs"]:
        blocks.append(Table([{"input": k, "file": v} for k, v in prov["inputs"].items()], "Inputs"))
    if prov["options"]:
        blocks.append(Table([{"option": k, "value": json.dumps(v)} for k, v in prov["options"].items()], "Options"))
    if prov.get("bootstrap"):
        blocks.append(Details("bootstrap settings", json.dumps(prov["bootstrap"], indent=1)))
    if prov["timings"]:
        blocks.append(Table([{"stage": k, "seconds": number(v, ".3g")} for k, v in prov["timings"].items()],
                            "Timings (s)"))
    return Section("How these results were produced", blocks)
