"""The report's tables and sentences as text: what :mod:`goeval.report.outline` arranges and
:mod:`goeval.report.html` renders.

Every function here returns text cells (records: lists of dicts of str),
rounded for reading: a ratio to 4 decimals, a value in bits or terms to 3,
thresholds, coverage, precision, recall, ru and mi to 3 decimals (a
threshold below 0.0005 reads ``<0.001``); full precision stays in the TSV
files. An undefined value reads ``nan (undefined)``, never an empty cell.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from goeval import __version__
from goeval.metrics.registry import measures
from goeval.report.style import (cafaeval_name, coverage_column, lower_is_better, measure_label, rank_text,
                                  ranked_measures, value_format)
from goeval.report.text import format_report

__all__ = ["HEADLINE_MEASURES", "Matrix", "number", "headline_matrix", "ranking_records", "optima_records", "other_matrix",
           "headline_note", "frame_records", "retrieval_records", "table1_records", "comparison_records", "diagnostics_lines", "provenance",
           "reader_version"]

#: The measures of the headline matrix, in its column order: Fmax, weighted Fmax, Smin and the maximum
#: coverage (the share of benchmark proteins with any prediction: CAFA's coverage).
HEADLINE_MEASURES: tuple[str, ...] = ("fmax", "wfmax", "smin", "max_coverage")


# ------------------------------------------------------------ cells
def number(v: Any, fmt: str) -> str:
    """``v`` formatted with ``fmt``; '' for None and NaN, the text itself for a value that is not a number."""
    if v is None:
        return ""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "" if f != f else format(f, fmt)


def _value(v: Any, measure: str | None = None) -> str:
    """An optimum's cell, rounded as the measure is (:func:`~goeval.report.style.value_format`);
    ``nan (undefined)`` for an undefined value, never an empty cell."""
    text = number(v, value_format(measure) if measure else ".4f")
    return text if text or v is None else "nan (undefined)"


def _threshold(v: Any, ranks: bool = False) -> str:
    """A threshold to 3 decimals; a positive one below 0.0005 reads ``<0.001``, not ``0.000``. With ``ranks`` the
    k of a rank threshold: ``5``, ``all`` (:func:`~goeval.report.style.rank_text`)."""
    text = number(v, ".3f")
    if ranks and text:
        return rank_text(v)
    return "<0.001" if text == "0.000" and float(v) > 0 else text


def _interval(row: Mapping[str, Any], fmt: str, low: str = "ci_low", high: str = "ci_high") -> str:
    lo, hi = number(row.get(low), fmt), number(row.get(high), fmt)
    return f"[{lo}, {hi}]" if lo and hi else ""


def _parts(results: Any) -> dict[str, Any]:
    """A time split's (or CAFA 6's) results per kind of target; empty for one result."""
    return dict(getattr(results, "parts", None) or {})


def _namespaces(summary: Any) -> list[str]:
    return [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"]


# ------------------------------------------------------------ the headline matrix
@dataclass
class Matrix:
    """A table whose best cells are marked: records and the (row, column) cells to emphasise.

    Attributes
    ----------
    records : list of dict of str to str
    best : set of (int, str)
        Row index and column of each best value of its group (ties: every
        one of them).
    """

    records: list[dict[str, str]] = field(default_factory=list)
    best: set[tuple[int, str]] = field(default_factory=set)


def headline_matrix(results: Any) -> Matrix:
    """Kind x namespace x method of the headline measures (:data:`HEADLINE_MEASURES`), best values marked.

    Parameters
    ----------
    results : ResultsDir or EvaluationResult
        Anything with a ``summary`` frame; a time split (``parts``) gives
        each kind's rows, with a ``targets`` column first.

    Returns
    -------
    Matrix
        One row per (kind,) namespace (``all`` left out) and method, in the
        summary's order; one column per headline measure present, labelled
        as the registry labels it, each cell the value and, when the summary
        has ``ci_low``/``ci_high``, its bootstrap interval (``0.4856
        [0.4470, 0.5233]``). Per (kind,) namespace and measure the best
        value is marked: the largest of a maximised measure, the smallest
        of a minimised one (as the registry says); tied values are all
        marked, an undefined one never.
    """
    parts = _parts(results)
    if parts:
        out = Matrix()
        for kind, part in parts.items():
            sub = headline_matrix(part)
            out.best |= {(i + len(out.records), c) for i, c in sub.best}
            out.records += [{"targets": str(kind), **r} for r in sub.records]
        return out
    summary = getattr(results, "summary", None)
    out = Matrix()
    if summary is None or not len(summary):
        return out
    present = [m for m in HEADLINE_MEASURES if (summary["measure"] == m).any()]
    if not present:
        return out
    has_ci = {"ci_low", "ci_high"} <= set(summary.columns)
    for ns in _namespaces(summary):
        block = summary[summary["namespace"] == ns]
        first = len(out.records)
        for method in dict.fromkeys(block["method"].tolist()):
            rec = {"namespace": str(ns), "method": str(method)}
            for m in present:
                row = block[(block["method"] == method) & (block["measure"] == m)]
                rec[measure_label(m)] = _matrix_cell(row, m, has_ci)
            out.records.append(rec)
        out.best |= _best_cells(block, present, first)
    return out


def _matrix_cell(rows: Any, measure: str, has_ci: bool) -> str:
    if rows.empty:
        return ""
    r = rows.iloc[0]
    ci = _interval(r, value_format(measure)) if has_ci else ""
    return _value(r["value"], measure) + (f" {ci}" if ci else "")


def _best_cells(block: Any, present: Sequence[str], first: int) -> set[tuple[int, str]]:
    """The best cells of one namespace's rows (``first``: the index of its first row in the matrix)."""
    methods = list(dict.fromkeys(block["method"].tolist()))
    cells = set()
    for m in present:
        sub = block[block["measure"] == m]
        values = sub["value"].astype(float)
        if not values.notna().any():
            continue
        best = values.min() if lower_is_better(m) else values.max()
        for method in sub.loc[values == best, "method"]:
            cells.add((first + methods.index(method), measure_label(m)))
    return cells


# ------------------------------------------------------------ rankings and other measures
def ranking_records(summary: Any, namespace: str, measure: str, *, ranks: bool = False) -> list[dict[str, str]]:
    """Rows of one ranking: methods ordered best first (ties by name), formatted cells.

    Columns: rank, method, value, CI and se (when the summary has ``ci_low``
    and ``ci_high``), threshold, coverage (the weighted coverage for a
    weighted measure, as the summary holds it), and precision, recall, ru
    and mi at the optimum. The threshold is a score to 3 decimals, or with
    ``ranks`` (a run at rank thresholds) the k of its rank threshold
    (``5``; ``all`` for every term, :func:`~goeval.report.style.rank_text`).
    """
    sub = summary[(summary["namespace"] == namespace) & (summary["measure"] == measure)]
    if sub.empty:
        return []
    sub = sub.assign(_v=sub["value"].astype(float)).sort_values(["_v", "method"],
                                                               ascending=[lower_is_better(measure), True],
                                                               na_position="last")
    has_ci = {"ci_low", "ci_high"} <= set(sub.columns)
    fmt = value_format(measure)
    out = []
    for rank, r in enumerate(sub.to_dict("records"), 1):
        rec = {"rank": str(rank), "method": str(r["method"]), "value": _value(r["value"], measure)}
        if has_ci:
            rec["CI"] = _interval(r, fmt)
            if "se" in sub.columns:
                rec["se"] = number(r["se"], fmt)
        rec["threshold"] = _threshold(r["threshold"], ranks)
        rec["coverage"] = number(r["coverage"], ".3f")
        for c in ("precision", "recall", "ru", "mi"):
            rec[c] = number(r.get(c), ".3f")
        out.append(rec)
    return out


def optima_records(summary: Any, namespace: str, *, ranks: bool = False) -> list[dict[str, str]]:
    """One namespace's rankings in one table: per ranked measure (registry order), the methods best first.

    Columns: measure (its label), then those of :func:`ranking_records` (``ranks``: thresholds are the k of rank
    thresholds).
    """
    return [{"measure": measure_label(m), **rec} for m in ranked_measures(summary["measure"])
            for rec in ranking_records(summary, namespace, m, ranks=ranks)]


def _other_measures(summary: Any) -> list[str]:
    shown = set(ranked_measures(summary["measure"])) | set(HEADLINE_MEASURES)
    return [m for m in dict.fromkeys(summary["measure"].tolist()) if m not in shown]


def other_matrix(summary: Any) -> tuple[list[dict[str, str]], list[str]]:
    """The measures that neither the headline nor the rankings show: namespace x method, one column each.

    Returns
    -------
    records : list of dict of str to str
        One row per (namespace, method) with such a measure (``all`` too:
        e.g. the CAFA 5 score), each cell the value and its interval when
        computed.
    names : list of str
        CAFA-evaluator's name of each of those measures that has one
        (``Smin (terms): s``), for a note under the table.
    """
    others = _other_measures(summary)
    if not others:
        return [], []
    has_ci = {"ci_low", "ci_high"} <= set(summary.columns)
    rest = summary[summary["measure"].isin(others)]
    out = []
    for (ns, method), rows in rest.groupby(["namespace", "method"], sort=False):
        rec = {"namespace": str(ns), "method": str(method)}
        for m in others:
            rec[measure_label(m)] = _matrix_cell(rows[rows["measure"] == m], m, has_ci)
        out.append(rec)
    names = [f"{measure_label(m)}: {cafaeval_name(m)}" for m in others if cafaeval_name(m)]
    return out, names


def frame_records(frame: Any, digits: int = 4) -> list[dict[str, str]]:
    """Cells of a table read as is (Table 1, retrieval): thresholds to 3 decimals, measures as in the rankings."""
    return [{str(k): _frame_cell(str(k), v, digits) for k, v in r.items()} for r in frame.to_dict("records")]


def retrieval_records(frame: Any, digits: int = 4) -> list[dict[str, str]]:
    """The retrieval summary's cells (:func:`frame_records`), each measure with a bootstrap interval as
    ``value [ci_low, ci_high]`` (its ``COLUMN_ci_low``, ``COLUMN_ci_high`` and ``COLUMN_se`` columns folded in).

    Examples
    --------
    >>> import pandas as pd
    >>> retrieval_records(pd.DataFrame({"method": ["m"], "queries": [680], "ipr_auc": [0.41648],
    ...                                 "ipr_auc_ci_low": [0.4016], "ipr_auc_ci_high": [0.46928], "ipr_auc_se": [0.02]}))
    [{'method': 'm', 'queries': '680', 'ipr_auc': '0.4165 [0.4016, 0.4693]'}]
    """
    from goeval.stats.bootstrap import BOOTSTRAP_COLUMNS  # deferred: the report's start-up reads no statistics

    suffixes = tuple(f"_{c}" for c in BOOTSTRAP_COLUMNS)
    cols = [str(c) for c in frame.columns]
    with_ci = {c for c in cols if f"{c}_ci_low" in cols and f"{c}_ci_high" in cols}
    folded = {f"{c}{x}" for c in with_ci for x in suffixes}
    out = []
    for r, cells in zip(frame.to_dict("records"), frame_records(frame, digits)):
        row = {}
        for c in cols:
            if c in folded:
                continue
            ci = _interval(r, f".{digits}g", f"{c}_ci_low", f"{c}_ci_high") if c in with_ci else ""
            row[c] = f"{cells[c]} {ci}" if ci else cells[c]
        out.append(row)
    return out


def _frame_cell(column: str, v: Any, digits: int) -> str:
    if not isinstance(v, float):
        return str(v)
    if column == "threshold" or column.endswith("_threshold"):
        return _threshold(v)
    if column in {m.name for m in measures()}:  # a registered measure's value: rounded as in the rankings
        return _value(v, column)
    return number(v, f".{digits}g")


def table1_records(results: Any) -> list[dict[str, str]]:
    """Table 1 (Clark & Radivojac 2013's layout, ``table1.tsv``): one table, a ``targets`` column for a time split."""
    parts = _parts(results)
    if parts:
        return [{"targets": str(kind), **r} for kind, part in parts.items() for r in table1_records(part)]
    table1 = getattr(results, "table1", None)
    return [] if table1 is None else frame_records(table1)


# ------------------------------------------------------------ the paired comparison
def comparison_records(pairs: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The pairs of :func:`goeval.stats.compare.compare` as text: difference, interval, wins and p-values.

    A ``targets`` key of the pairs (a time split's kind) becomes the first
    column; values are rounded as their measure is, shares to 3 decimals,
    p-values to 4 (``<0.0001`` never shows: a p-value is at least
    1 / (permutations + 1)).
    """
    out = []
    for r in pairs:
        fmt = value_format(str(r["measure"]))
        rec = {"targets": str(r["targets"])} if "targets" in r else {}
        rec.update({"namespace": str(r["namespace"]), "measure": measure_label(str(r["measure"])),
                    "method A": str(r["method_a"]), "method B": str(r["method_b"]),
                    "A": _value(r["value_a"], str(r["measure"])), "B": _value(r["value_b"], str(r["measure"])),
                    "A - B": _value(r["difference"], str(r["measure"])), "CI": _interval(r, fmt),
                    "A better": number(r["wins_a"], ".3f"), "B better": number(r["wins_b"], ".3f"),
                    "p": number(r["p_value"], ".4f"), "p (Holm)": number(r["p_holm"], ".4f")})
        out.append(rec)
    return out


# ------------------------------------------------------------ notes
def _grid_text(results: Any) -> str:
    """The run's thresholds in words, from its options (a time split: its first kind's)."""
    parts = _parts(results)
    diag = next(iter(parts.values())).diagnostics if parts else results.diagnostics
    t = ((diag or {}).get("options") or {}).get("thresholds")
    if t is None:
        return "this run's thresholds are not recorded"
    if str(t) == "exact":
        return "this run swept the exact thresholds (every distinct score)"
    return f"this run's thresholds: {t}"


def _summary_frames(results: Any) -> list[Any]:
    parts = _parts(results)
    frames = [p.summary for p in parts.values()] if parts else [getattr(results, "summary", None)]
    return [f for f in frames if f is not None and len(f)]


def headline_note(results: Any) -> list[str]:
    """What the headline's marks and words mean, and where goeval's names differ from CAFA-evaluator's.

    The directions come from the measure registry; the thresholds from the
    run's recorded options.
    """
    present = [m for f in _summary_frames(results) for m in dict.fromkeys(f["measure"].tolist())]
    shown = [m for m in HEADLINE_MEASURES if m in present]
    most = ", ".join(measure_label(m) for m in shown if not lower_is_better(m)) or "none here"
    least = ", ".join(measure_label(m) for m in shown if lower_is_better(m)) or "none here"
    weighted = ", ".join(measure_label(m) for m in ranked_measures(present) if coverage_column(m) == "coverage_w")
    return [f"Bold: the best value of each measure per namespace{' and kind of target' if _parts(results) else ''}: "
            f"the largest of a maximised measure ({most}), the smallest of a minimised one ({least}); "
            "tied values are all bold.",
            "[low, high]: the bootstrap percentile interval, when computed; overlapping intervals do not settle a "
            "ranking (the paired comparison does: goeval compare).",
            "Maximum coverage: the share of benchmark proteins with any prediction (CAFA's coverage; "
            "CAFA-evaluator's cov_max). The coverage at each optimum's threshold is in the rankings below"
            + (f" (for {weighted}, the weighted coverage: the share whose predicted terms carry information)."
               if weighted else "."),
            "For CAFA-evaluator users: goeval's Smin is in bits, the optimum of CAFA-evaluator's s_w; "
            "CAFA-evaluator's s counts terms and is goeval's smin_terms (\"Smin (terms)\" under the other measures); "
            f"{_grid_text(results)}, where CAFA-evaluator's default is a 0.01 grid (-th_step 0.01). Every "
            "correspondence: docs/cafaeval.md in goeval's documentation.",
            "Numbers are rounded for reading; summary.tsv and curves.tsv keep full precision."]


# ------------------------------------------------------------ diagnostics and provenance
def diagnostics_lines(diagnostics: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """What was read, remapped and dropped (in words), and the run's warnings."""
    lines = list(format_report(dict(diagnostics)))
    for label, d in (diagnostics.get("namespaces") or {}).items():
        if isinstance(d, Mapping) and "benchmark_proteins" in d:
            lines.append(f"{label}: {int(d['benchmark_proteins']):,} benchmark proteins"
                         + (f", {int(d['truth_entries']):,} propagated truth entries" if "truth_entries" in d else ""))
    for kind, per_ns in _split_targets(diagnostics).items():
        lines.append(f"{kind} targets: " + ", ".join(f"{ns} {int(d['targets']):,} of {int(d['candidates']):,} "
                                                      "candidates" for ns, d in per_ns.items()))
    if diagnostics.get("targets_source"):
        lines.append(str(diagnostics["targets_source"]))
    if diagnostics.get("nothing_evaluated"):
        lines.append(f"nothing evaluated: {diagnostics['nothing_evaluated']}")
    lines += _curves_lines(diagnostics.get("curves"))
    warnings = [str(w) for w in diagnostics.get("warnings", []) or []]
    return lines, warnings


def _split_targets(diagnostics: Mapping[str, Any]) -> dict[str, Any]:
    """A time split's targets per kind and namespace (its top-level diagnostics), or nothing."""
    tg = diagnostics.get("targets")
    if not isinstance(tg, Mapping) or not tg or not all(isinstance(v, Mapping) for v in tg.values()):
        return {}
    return {k: v for k, v in tg.items() if all(isinstance(d, Mapping) and "candidates" in d for d in v.values())}


def _curves_lines(curves: Any) -> list[str]:
    """What ``curves.tsv`` holds when its curves were thinned or not written (the figures draw those rows)."""
    if not isinstance(curves, Mapping):
        return []
    if curves.get("policy") == "none":
        return ["curves: not written (--curves none); the optima were taken over every threshold"]
    if not curves.get("thinned"):
        return []
    return [f"curves thinned: {int(curves['written']):,} of {int(curves['rows']):,} rows written "
            f"({int(curves['thinned'])} curves), each within {curves.get('tolerance')} of a column's range of the "
            f"full curve; the optima were taken over every threshold"
            + (f"; {int(curves['capped'])} curves capped at {curves.get('max_points')} rows" if curves.get("capped")
               else "")]


def provenance(diagnostics: Mapping[str, Any], timings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """How the results were produced: command, versions, options, input files, timings.

    ``command`` and ``versions`` are read from ``diagnostics.json`` when the
    run recorded them (keys ``command``: the argument list or a string, and
    ``versions``: package -> version); the inputs are the ``source`` of the
    ontology, truth, IA and each method.
    """
    cmd = diagnostics.get("command")
    if isinstance(cmd, (list, tuple)):
        cmd = " ".join(shlex.quote(str(a)) for a in cmd)
    inputs: dict[str, str] = {}
    for key in ("ontology", "truth", "ia"):
        d = diagnostics.get(key)
        if isinstance(d, Mapping) and d.get("source"):
            inputs[key] = str(d["source"])
    for name, d in (diagnostics.get("methods") or {}).items():
        if isinstance(d, Mapping) and d.get("source"):
            inputs[f"method {name}"] = str(d["source"])
    return {"command": cmd, "versions": dict(diagnostics.get("versions") or {}),
            "options": dict(diagnostics.get("options") or {}), "inputs": inputs,
            "bootstrap": diagnostics.get("bootstrap"), "timings": dict(timings or {})}


def reader_version() -> str:
    """The version of goeval writing the report (the results may come from another)."""
    return __version__
