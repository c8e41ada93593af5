"""A self-contained HTML page and a Markdown summary of a results directory.

The page holds everything it shows: tables as HTML, figures as
``data:image/png;base64`` URIs, its style sheet inline; it names no
external style sheet, script, font or image, so it opens offline and makes
no network request. Sections:

0. the headline: the best method per namespace and ranked measure, with
   its bootstrap interval when computed, CAFA-evaluator's name of each
   measure and the run's thresholds beside CAFA-evaluator's default;
1. per namespace, the methods ranked by Fmax, weighted Fmax, Smin and
   weighted Smin, with the threshold, coverage and, after ``goeval evaluate
   --bootstrap``, the confidence interval and standard error;
2. the other measures of the summary; retrieval (TAP-k) and Table 1 when
   present;
3. the figures of :func:`goeval.report.plots.results_figures`;
4. the diagnostics in words (:func:`goeval.report.text.format_report`):
   what was read, remapped, dropped, and the warnings;
5. how the results were produced: the command line and versions when the
   run recorded them, the options and the input files.

The Markdown summary has sections 0, 1, 2, 4 and 5 (no images).

Tables round for reading (full precision stays in the TSV files): a
ratio to 4 decimals, a value in bits or terms to 3, thresholds, coverage,
precision, recall, ru and mi to 3 decimals (a threshold below 0.0005 reads
``<0.001``).
"""

from __future__ import annotations

import base64
import html
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from goeval import __version__
from goeval.io.names import shown
from goeval.metrics.registry import measures
from goeval.report.style import (cafaeval_name, coverage_column, lower_is_better, measure_label, ranked_measures, result_colors,
                                  value_format)
from goeval.report.text import format_report

__all__ = ["report_html", "report_markdown", "ranking_records", "headline_records", "headline_note", "provenance",
           "diagnostics_lines"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:2em auto;max-width:80em;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #ccc}h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #ddd}
h3{font-size:1.1em}table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f2f2f2}
td.t,th.t{text-align:left}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
ul.diag li{margin:.15em 0}.warn{color:#a40}.tw{overflow-x:auto}ul.note{font-size:.85em;color:#444;max-width:60em}
.sw{display:inline-block;width:.8em;height:.8em;margin-right:.4em;vertical-align:-.05em;border:1px solid #0004}
""".strip()


# ------------------------------------------------------------ data of the sections
def _num(v: Any, fmt: str) -> str:
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
    text = _num(v, value_format(measure) if measure else ".4f")
    return text if text or v is None else "nan (undefined)"


def _threshold(v: Any) -> str:
    """A threshold to 3 decimals; a positive one below 0.0005 reads ``<0.001``, not ``0.000``."""
    text = _num(v, ".3f")
    return "<0.001" if text == "0.000" and float(v) > 0 else text


def ranking_records(summary: Any, namespace: str, measure: str) -> list[dict[str, str]]:
    """Rows of one ranking: methods ordered best first (ties by name), formatted cells.

    Columns: rank, method, value, CI (when the summary has ``ci_low`` and
    ``ci_high``), se, threshold, coverage, and precision/recall (F
    measures) or ru/mi (S measures) at the optimum.
    """
    sub = summary[(summary["namespace"] == namespace) & (summary["measure"] == measure)]
    if sub.empty:
        return []
    ascending = lower_is_better(measure)
    sub = sub.assign(_v=sub["value"].astype(float)).sort_values(["_v", "method"], ascending=[ascending, True],
                                                               na_position="last")
    has_ci = {"ci_low", "ci_high"} <= set(sub.columns)
    fmt = value_format(measure)
    out = []
    for rank, r in enumerate(sub.to_dict("records"), 1):
        rec = {"rank": str(rank), "method": str(r["method"]), "value": _value(r["value"], measure)}
        if has_ci:
            rec["CI"] = _interval(r, fmt)
            if "se" in sub.columns:
                rec["se"] = _num(r["se"], fmt)
        rec["threshold"] = _threshold(r["threshold"])
        rec["coverage"] = _num(r["coverage"], ".3f")
        pair = ("ru", "mi") if ascending else ("precision", "recall")
        for c in pair:
            rec[c] = _num(r.get(c), ".3f")
        out.append(rec)
    return out


def _interval(row: Mapping[str, Any], fmt: str) -> str:
    lo, hi = _num(row.get("ci_low"), fmt), _num(row.get("ci_high"), fmt)
    return f"[{lo}, {hi}]" if lo and hi else ""


def _other_records(summary: Any) -> list[dict[str, str]]:
    rest = summary[~summary["measure"].isin(ranked_measures(summary["measure"]))]
    return [{"method": str(r["method"]), "namespace": str(r["namespace"]), "measure": measure_label(str(r["measure"])),
             "CAFA-evaluator": cafaeval_name(str(r["measure"])), "value": _value(r["value"], str(r["measure"])),
             "threshold": _threshold(r["threshold"]), "coverage": _num(r["coverage"], ".3f")}
            for r in rest.to_dict("records")]


def headline_records(results: Any) -> list[dict[str, str]]:
    """The best method per namespace and ranked measure: the headline of the report.

    Parameters
    ----------
    results : ResultsDir or EvaluationResult
        Anything with a ``summary`` frame; a time split (``parts``) gives
        each kind's rows, with a ``targets`` column first.

    Returns
    -------
    list of dict of str to str
        Per namespace (``all`` left out) and measure ranked in the report
        (:func:`~goeval.report.style.ranked_measures`, in the registry's
        order): the measure's label and CAFA-evaluator's name, the best
        method (the largest value of a maximised measure, the smallest of a
        minimised one, as the measure registry says; methods tied at it are
        listed together, by name), its value and bootstrap interval (when
        the summary has ``ci_low``/``ci_high``), threshold and coverage,
        and the runner-up with its value. Cells are rounded as in
        :func:`ranking_records`.
    """
    parts = getattr(results, "parts", None) or {}
    if parts:
        return [{"targets": str(kind), **rec} for kind, part in parts.items() for rec in headline_records(part)]
    summary = getattr(results, "summary", None)
    if summary is None or not len(summary):
        return []
    out = []
    for ns in [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"]:
        for measure in ranked_measures(summary["measure"]):
            rec = _best_record(summary, ns, measure)
            if rec is not None:
                out.append(rec)
    return out


def _best_record(summary: Any, namespace: str, measure: str) -> dict[str, str] | None:
    sub = summary[(summary["namespace"] == namespace) & (summary["measure"] == measure)]
    if sub.empty:
        return None
    values = sub["value"].astype(float)
    best = values.min() if lower_is_better(measure) else values.max()  # nan only when every value is
    top = sub[values == best].sort_values("method") if best == best else sub.sort_values("method")
    rest = sub.assign(_v=values)[(values != best) & values.notna()]
    rest = rest.sort_values(["_v", "method"], ascending=[lower_is_better(measure), True])
    row, fmt = top.iloc[0], value_format(measure)
    rec = {"namespace": str(namespace), "measure": measure_label(measure), "CAFA-evaluator": cafaeval_name(measure),
           "best method": ", ".join(map(str, top["method"])) if best == best else "", "value": _value(best, measure)}
    if {"ci_low", "ci_high"} <= set(sub.columns):
        rec["CI"] = _interval(row, fmt) if best == best else ""
    rec["threshold"] = _threshold(row["threshold"]) if best == best else ""
    rec["coverage"] = _num(row["coverage"], ".3f") if best == best else ""
    rec["runner-up"] = (f"{rest.iloc[0]['method']} {_value(rest.iloc[0]['_v'], measure)}" if len(rest) else "")
    return rec


def _grid_text(results: Any) -> str:
    """The run's thresholds in words, from its options (a time split: its first kind's)."""
    parts = getattr(results, "parts", None) or {}
    diag = next(iter(parts.values())).diagnostics if parts else results.diagnostics
    t = ((diag or {}).get("options") or {}).get("thresholds")
    if t is None:
        return "this run's thresholds are not recorded"
    if str(t) == "exact":
        return "this run swept the exact thresholds (every distinct score)"
    return f"this run's thresholds: {t}"


def _summary_measures(results: Any) -> list[str]:
    parts = getattr(results, "parts", None) or {}
    frames = [p.summary for p in parts.values()] if parts else [getattr(results, "summary", None)]
    return [m for f in frames if f is not None and len(f) for m in dict.fromkeys(f["measure"].tolist())]


def headline_note(results: Any) -> list[str]:
    """What the headline's words mean and where goeval's names differ from CAFA-evaluator's: plain sentences.

    The directions come from the measure registry; the thresholds from the
    run's recorded options.
    """
    ranked = ranked_measures(_summary_measures(results))
    most = ", ".join(measure_label(m) for m in ranked if not lower_is_better(m)) or "none here"
    least = ", ".join(measure_label(m) for m in ranked if lower_is_better(m)) or "none here"
    weighted = ", ".join(measure_label(m) for m in ranked if coverage_column(m) == "coverage_w") or "none here"
    return [f"Best: the largest value of a maximised measure ({most}), the smallest of a minimised one ({least}); "
            "methods tied at it are listed together.",
            "CI: the bootstrap percentile interval, when computed; overlapping intervals do not settle a ranking "
            "(goeval compare runs a paired test).",
            "Coverage: the share of benchmark proteins with a prediction at the optimum's threshold; for "
            f"{weighted}, the weighted coverage (the share whose predicted terms carry information).",
            "For CAFA-evaluator users: goeval's Smin is in bits, the optimum of CAFA-evaluator's s_w; "
            "CAFA-evaluator's s counts terms and is goeval's smin_terms (\"Smin (terms)\" under Other measures); "
            f"{_grid_text(results)}, where CAFA-evaluator's default is a 0.01 grid (-th_step 0.01). Every "
            "correspondence: docs/cafaeval.md in goeval's documentation.",
            "Numbers are rounded for reading; summary.tsv and curves.tsv keep full precision."]


def _frame_records(frame: Any, digits: int = 4) -> list[dict[str, str]]:
    """Cells of a table read as is (Table 1, retrieval): thresholds to 3 decimals, measures as in the rankings."""
    out = []
    for r in frame.to_dict("records"):
        out.append({str(k): _frame_cell(str(k), v, digits) for k, v in r.items()})
    return out


def _frame_cell(column: str, v: Any, digits: int) -> str:
    if not isinstance(v, float):
        return str(v)
    if column == "threshold" or column.endswith("_threshold"):
        return _threshold(v)
    if column in {m.name for m in measures()}:  # a registered measure's value: rounded as in the rankings
        return _value(v, column)
    return _num(v, f".{digits}g")


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


def _reader_version() -> str:
    return __version__


# ------------------------------------------------------------ HTML
_TEXT_COLS = ("method", "namespace", "measure", "term", "name", "CI", "targets", "CAFA-evaluator", "best method",
              "runner-up")
#: Columns whose methods get their figures' colour as a swatch.
_METHOD_COLS = ("method", "best method")


def _table(records: Sequence[Mapping[str, str]], text_cols: tuple[str, ...] = _TEXT_COLS,
           colors: Mapping[str, str] | None = None) -> str:
    if not records:
        return "<p><em>none</em></p>"
    cols = list(records[0])
    e = html.escape
    head = "".join(f'<th class="t">{e(c)}</th>' if c in text_cols else f"<th>{e(c)}</th>" for c in cols)

    def cell(c: str, text: str) -> str:
        inner = _methods_html(text, colors) if c in _METHOD_COLS and colors else e(text)
        return f'<td class="t">{inner}</td>' if c in text_cols else f"<td>{inner}</td>"

    body = "".join("<tr>" + "".join(cell(c, str(r.get(c, ""))) for c in cols) + "</tr>" for r in records)
    return f'<div class="tw"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _methods_html(text: str, colors: Mapping[str, str]) -> str:
    """Method names (one, or tied ones joined by ", "), each after a swatch of its figures' colour."""
    names = text.split(", ") if text not in colors else [text]
    if not all(n in colors for n in names):
        return html.escape(text)
    return ", ".join(f'<span class="sw" style="background:{html.escape(colors[n])}"></span>{html.escape(n)}'
                     for n in names)


def _report_colors(results: Any) -> dict[str, str]:
    """The figures' colour of every method (:func:`~goeval.report.style.result_colors`; a time split: its kinds')."""
    parts = getattr(results, "parts", None) or {}
    frames = [(p.summary, p.curves) for p in parts.values()] or [(results.summary, getattr(results, "curves", None))]
    return result_colors(*[f for pair in frames for f in pair])


def _figure(name: str, png: bytes, caption: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure id="fig-{html.escape(name)}"><img alt="{html.escape(caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption></figure>')


_CAPTIONS = {
    "coverage": "Coverage (share of benchmark proteins with a prediction) against the threshold.",
    "optima": "Fmax and Smin per method (error bars: bootstrap interval, when computed).",
    "tap_curve": "Mean TAP over term queries against the score cutoff (TAP-k paper, Fig. 5); dots: peak TAP.",
}


def _caption(name: str) -> str:
    if name.startswith("fig4_"):
        return (f"{name[5:]}: precision-recall, weighted precision-recall, ru-mi and weighted ru-mi curves "
                "(Clark & Radivojac 2013, Fig. 4); dots: the optima (Fmax, weighted Fmax, Smin, weighted Smin); "
                "grey lines: iso-F and iso-S contours. Legends: each optimum, its bootstrap interval when computed, "
                "and the coverage at its threshold (share of benchmark proteins with a prediction; weighted: whose "
                "predicted terms carry information). Rows without coverage, where precision is undefined, are not "
                "drawn. A note above a ru-mi panel says where its misinformation axis cuts the curves.")
    return _CAPTIONS.get(name, name)


def _table1_title(results: Any, kind: str | None) -> str:
    kind = kind or (results.diagnostics.get("kind") if results.kind == "time split kind" else None)
    if kind is not None:
        return f"Table 1 ({kind} targets)"
    return "Table 1 (cross-validation)" if results.kind == "cross-validation" else "Table 1"


def _sections(results: Any, kind: str | None = None) -> list[tuple[str, list[tuple[str, list[dict[str, str]]]]]]:
    """(section title, [(table title, records)]) for the tables of the results (a time split: kind by kind)."""
    parts = getattr(results, "parts", None) or {}
    if parts:
        return [section for k, part in parts.items() for section in _sections(part, k)]
    head = f"{kind} targets: " if kind else ""
    out: list[tuple[str, list[tuple[str, list[dict[str, str]]]]]] = []
    summary = results.summary
    if summary is not None and len(summary):
        for ns in [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"]:
            tables = [(f"ranked by {measure_label(m)}", ranking_records(summary, ns, m))
                      for m in ranked_measures(summary["measure"])]
            out.append((f"{head}{ns}: methods ranked", [t for t in tables if t[1]]))
        other = _other_records(summary)
        if other:
            out.append((f"{head}Other measures", [("", other)]))
    if getattr(results, "retrieval_summary", None) is not None:
        out.append((f"{head}Term-centric retrieval (TAP-k, AUC iP/R, ROC AUC, AP)",
                    [("", _frame_records(results.retrieval_summary))]))
    if getattr(results, "table1", None) is not None:
        out.append((_table1_title(results, kind), [("", _frame_records(results.table1))]))
    return out


def _files_read(results: Any) -> list[str]:
    parts = getattr(results, "parts", None) or {}
    return list(results.files) + [f"{k.lower()}/{f}" for k, p in parts.items() for f in p.files]


def _notes(results: Any) -> list[str]:
    parts = getattr(results, "parts", None) or {}
    return list(getattr(results, "notes", [])) + [n for p in parts.values() for n in p.notes]


def _all_diagnostics(results: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """(heading, diagnostics) of the results, then of each part of a time split."""
    parts = getattr(results, "parts", None) or {}
    return [("", results.diagnostics)] + [(f"{k} targets", p.diagnostics) for k, p in parts.items()]


_HEADLINE = "Headline: the best method per measure and namespace"


def report_html(results: Any, figures: Mapping[str, bytes] | None = None, *, title: str | None = None) -> str:
    """The self-contained HTML page of ``results`` (a :class:`~goeval.io.results_dir.ResultsDir`).

    Parameters
    ----------
    results : ResultsDir
        What :func:`goeval.io.results_dir.read_results_dir` read.
    figures : mapping of str to bytes, optional
        Rendered PNG figures by name (:func:`goeval.report.plots.figure_bytes`
        of :func:`~goeval.report.plots.results_figures`); embedded as data
        URIs in this order. None or empty: a page without figures.
    title : str, optional
        Page title (default: "goeval results: <directory name>").

    Returns
    -------
    str
        One HTML document without any external reference.
    """
    e = html.escape
    title = title or f"goeval results: {results.path.name}"
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1>",
             f"<p>Files read: {e(', '.join(_files_read(results)))}.</p>"]
    notes = _notes(results)
    if notes:
        parts.append('<ul class="diag">' + "".join(f'<li class="warn">{e(n)}</li>' for n in notes) + "</ul>")
    colors = _report_colors(results)
    headline = headline_records(results)
    if headline:
        parts.append(f'<h2 id="headline">{_HEADLINE}</h2>' + _table(headline, colors=colors)
                     + '<ul class="note">' + "".join(f"<li>{e(x)}</li>" for x in headline_note(results)) + "</ul>")
    for head, tables in _sections(results):
        parts.append(f"<h2>{e(head)}</h2>")
        for sub, records in tables:
            parts.append((f"<h3>{e(sub)}</h3>" if sub else "") + _table(records, colors=colors))
    parts.append("<h2>Figures</h2>")
    if figures:
        parts.extend(_figure(name, png, _caption(name)) for name, png in figures.items())
    else:
        parts.append("<p><em>No figures (matplotlib is not installed, or nothing to plot).</em></p>")
    parts.append("<h2>Diagnostics: what was read, remapped and dropped</h2>")
    parts.extend(_diagnostics_html(diag, head) for head, diag in _all_diagnostics(results))
    parts.append(_provenance_html(provenance(results.diagnostics, results.timings)))
    parts.append("<p><small>Clark W. T., Radivojac P. (2013) Information-theoretic evaluation of predicted "
                 "ontological annotations. Bioinformatics 29(13):i53-i61.</small></p></body></html>\n")
    return "".join(parts)


def _diagnostics_html(diagnostics: Mapping[str, Any], head: str = "") -> str:
    e = html.escape
    lines, warnings = diagnostics_lines(diagnostics)
    out = [f"<h3>{e(head)}</h3>" if head else ""]
    out.append("<ul class=\"diag\">" + "".join(f"<li>{e(x)}</li>" for x in lines) + "</ul>" if lines
               else "<p><em>No diagnostics recorded.</em></p>")
    if warnings:
        out.append("<h3>Warnings</h3><ul class=\"diag\">" + "".join(f'<li class="warn">{e(w)}</li>' for w in warnings)
                   + "</ul>")
    if diagnostics:
        out.append("<details><summary>every count (diagnostics.json)</summary><pre>"
                   + e(json.dumps(diagnostics, indent=1)) + "</pre></details>")
    return "".join(out)


def _provenance_html(prov: Mapping[str, Any]) -> str:
    e = html.escape
    out = ["<h2>How these results were produced</h2>"]
    cmd = prov["command"]
    out.append(f"<p>Command: <code>{e(cmd)}</code></p>" if cmd else
               "<p>Command: <em>not recorded in diagnostics.json</em></p>")
    versions = prov["versions"] or {}
    vtext = ", ".join(f"{k} {v}" for k, v in versions.items()) if versions else "not recorded"
    out.append(f"<p>Versions: {e(vtext)}; this report: goeval {e(_reader_version())}.</p>")
    if prov["inputs"]:
        out.append("<h3>Inputs</h3>" + _table([{"input": k, "file": v} for k, v in prov["inputs"].items()],
                                              ("input", "file")))
    if prov["options"]:
        out.append("<h3>Options</h3>" + _table([{"option": k, "value": json.dumps(v)} for k, v in prov["options"].items()],
                                               ("option", "value")))
    if prov.get("bootstrap"):
        out.append("<h3>Bootstrap</h3><pre>" + e(json.dumps(prov["bootstrap"], indent=1)) + "</pre>")
    if prov["timings"]:
        out.append("<h3>Timings (s)</h3>" + _table([{"stage": k, "seconds": _num(v, ".3g")}
                                                      for k, v in prov["timings"].items()], ("stage",)))
    return "".join(out)


# ------------------------------------------------------------ Markdown
#: Characters that mean something to Markdown renderers anywhere in a line (emphasis, code, links, raw HTML
#: and entities, table cells, strikethrough, math, attribute lists, heading ends), each escaped with a
#: backslash; CommonMark renders any backslash-escaped ASCII punctuation as the character itself.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}<>&|~$#!])")
#: What makes a list item's text a block of its own: a leading ``-`` or ``+`` (a list, a rule) or an ordered
#: list marker (``1.``); quotes, headings and ``*`` are escaped anywhere.
_MD_BLOCK_START = re.compile(r"^(\s*)([-+]|\d{1,9}(?=[.)](?:\s|$)))")


def _md(text: Any, *, block: bool = False) -> str:
    """``text`` as Markdown that renders as the text itself (no link, image, HTML, emphasis or code).

    Control characters are shown escaped (:func:`goeval.io.names.shown`), so the text stays on its line;
    ``block``: the text starts a list item, so a leading list marker is escaped too.
    """
    out = _MD_SPECIAL.sub(r"\\\1", shown(str(text)))
    return _MD_BLOCK_START.sub(lambda m: m.group(1) + (m.group(2) + "\\" if m.group(2)[0].isdigit()
                                                       else "\\" + m.group(2)), out) if block else out


def _md_code(text: str) -> str:
    """``text`` as a Markdown code span: fenced by more backticks than it holds in a row (CommonMark 6.1)."""
    text = shown(text)
    fence = "`" * (1 + max((len(run) for run in re.findall("`+", text)), default=0))
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_table(records: Sequence[Mapping[str, str]]) -> str:
    if not records:
        return "_none_\n"
    cols = list(records[0])
    lines = ["| " + " | ".join(_md(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(_md(r.get(c, "")) for c in cols) + " |" for r in records]
    return "\n".join(lines) + "\n"


def report_markdown(results: Any, *, title: str | None = None, figure_files: Sequence[str] = ()) -> str:
    """The Markdown summary of ``results``: rankings, other tables, diagnostics, provenance.

    ``figure_files`` (names relative to the Markdown file) are linked as
    images when given. Every text read from the results (names, paths,
    diagnostics, the command line) is escaped so that it renders as itself:
    a method called ``<img src=x onerror=...>`` or ``[a](javascript:...)``
    is shown as those characters, never as HTML, a link or an image.
    """
    title = title or f"goeval results: {results.path.name}"
    out = [f"# {_md(title)}\n", f"Files read: {_md(', '.join(_files_read(results)))}.\n"]
    out += [f"- **{_md(n)}**\n" for n in _notes(results)]
    headline = headline_records(results)
    if headline:
        out.append(f"## {_HEADLINE}\n")
        out.append(_md_table(headline) + "\n" + _md_items(headline_note(results)))
    for head, tables in _sections(results):
        out.append(f"## {_md(head)}\n")
        for sub, records in tables:
            out.append((f"### {_md(sub)}\n\n" if sub else "") + _md_table(records))
    if figure_files:
        out.append("## Figures\n")
        out += [f"![{_md(f)}]({quote(f)})\n" for f in figure_files]
    out.append("## Diagnostics: what was read, remapped and dropped\n")
    for head, diag in _all_diagnostics(results):
        lines, warnings = diagnostics_lines(diag)
        out.append((f"### {_md(head)}\n\n" if head else "") + (_md_items(lines) or "_No diagnostics recorded._\n"))
        if warnings:
            out.append("\nWarnings:\n\n" + _md_items(warnings))
    out += _md_provenance(provenance(results.diagnostics, results.timings))
    return "\n".join(out)


def _md_items(items: Sequence[str]) -> str:
    """A Markdown list of texts, each escaped."""
    return "".join(f"- {_md(x, block=True)}\n" for x in items)


def _md_provenance(prov: Mapping[str, Any]) -> list[str]:
    out = ["## How these results were produced\n"]
    out.append(f"Command: {_md_code(prov['command'])}\n" if prov["command"] else
               "Command: not recorded in diagnostics.json\n")
    versions = ", ".join(f"{k} {v}" for k, v in prov["versions"].items()) or "not recorded"
    out.append(f"\nVersions: {_md(versions)}; this report: goeval {_md(_reader_version())}.\n")
    if prov["inputs"]:
        out.append("\n" + _md_table([{"input": k, "file": v} for k, v in prov["inputs"].items()]))
    if prov["options"]:
        out.append("\n" + _md_table([{"option": k, "value": json.dumps(v)} for k, v in prov["options"].items()]))
    return out
