"""A self-contained HTML page and a Markdown summary of a results directory.

The page holds everything it shows: tables as HTML, figures as
``data:image/png;base64`` URIs, its style sheet inline; it names no
external style sheet, script, font or image, so it opens offline and makes
no network request. Sections:

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

The Markdown summary has sections 1, 2, 4 and 5 (no images).
"""

from __future__ import annotations

import base64
import html
import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from goeval import __version__
from goeval.report.style import lower_is_better, measure_label, ranked_measures
from goeval.report.text import format_report

__all__ = ["report_html", "report_markdown", "ranking_records", "provenance", "diagnostics_lines"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:2em auto;max-width:80em;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #ccc}h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #ddd}
h3{font-size:1.1em}table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f2f2f2}
td.t,th.t{text-align:left}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
ul.diag li{margin:.15em 0}.warn{color:#a40}.tw{overflow-x:auto}
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


def _value(v: Any) -> str:
    """An optimum's cell: ``nan (undefined)`` for an undefined value, never an empty cell."""
    text = _num(v, ".4f")
    return text if text or v is None else "nan (undefined)"


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
    out = []
    for rank, r in enumerate(sub.to_dict("records"), 1):
        rec = {"rank": str(rank), "method": str(r["method"]), "value": _value(r["value"])}
        if has_ci:
            lo, hi = _num(r["ci_low"], ".4f"), _num(r["ci_high"], ".4f")
            rec["CI"] = f"[{lo}, {hi}]" if lo and hi else ""
            if "se" in sub.columns:
                rec["se"] = _num(r["se"], ".4f")
        rec["threshold"] = _num(r["threshold"], ".4g")
        rec["coverage"] = _num(r["coverage"], ".3f")
        pair = ("ru", "mi") if ascending else ("precision", "recall")
        for c in pair:
            rec[c] = _num(r.get(c), ".3f")
        out.append(rec)
    return out


def _other_records(summary: Any) -> list[dict[str, str]]:
    rest = summary[~summary["measure"].isin(ranked_measures(summary["measure"]))]
    return [{"method": str(r["method"]), "namespace": str(r["namespace"]), "measure": measure_label(str(r["measure"])),
             "value": _value(r["value"]), "threshold": _num(r["threshold"], ".4g"),
             "coverage": _num(r["coverage"], ".3f")} for r in rest.to_dict("records")]


def _frame_records(frame: Any, digits: int = 4) -> list[dict[str, str]]:
    out = []
    for r in frame.to_dict("records"):
        out.append({str(k): (_num(v, f".{digits}g") if isinstance(v, float) else str(v)) for k, v in r.items()})
    return out


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
def _table(records: Sequence[Mapping[str, str]], text_cols: tuple[str, ...] = ("method", "namespace", "measure",
                                                                                "term", "name", "CI")) -> str:
    if not records:
        return "<p><em>none</em></p>"
    cols = list(records[0])
    e = html.escape
    head = "".join(f'<th class="t">{e(c)}</th>' if c in text_cols else f"<th>{e(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f'<td class="t">{e(str(r.get(c, "")))}</td>' if c in text_cols
                                    else f'<td>{e(str(r.get(c, "")))}</td>' for c in cols) + "</tr>"
                   for r in records)
    return f'<div class="tw"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


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
                "grey lines: iso-F and iso-S contours.")
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
    for head, tables in _sections(results):
        parts.append(f"<h2>{e(head)}</h2>")
        for sub, records in tables:
            parts.append((f"<h3>{e(sub)}</h3>" if sub else "") + _table(records))
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
def _md_table(records: Sequence[Mapping[str, str]]) -> str:
    if not records:
        return "_none_\n"
    cols = list(records[0])
    esc = lambda s: str(s).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(esc(r.get(c, "")) for c in cols) + " |" for r in records]
    return "\n".join(lines) + "\n"


def report_markdown(results: Any, *, title: str | None = None, figure_files: Sequence[str] = ()) -> str:
    """The Markdown summary of ``results``: rankings, other tables, diagnostics, provenance.

    ``figure_files`` (names relative to the Markdown file) are linked as
    images when given.
    """
    title = title or f"goeval results: {results.path.name}"
    out = [f"# {title}\n", f"Files read: {', '.join(_files_read(results))}.\n"]
    out += [f"- **{n}**\n" for n in _notes(results)]
    for head, tables in _sections(results):
        out.append(f"## {head}\n")
        for sub, records in tables:
            out.append((f"### {sub}\n\n" if sub else "") + _md_table(records))
    if figure_files:
        out.append("## Figures\n")
        out += [f"![{f}]({f})\n" for f in figure_files]
    out.append("## Diagnostics: what was read, remapped and dropped\n")
    for head, diag in _all_diagnostics(results):
        lines, warnings = diagnostics_lines(diag)
        out.append((f"### {head}\n\n" if head else "") + ("".join(f"- {x}\n" for x in lines)
                                                         or "_No diagnostics recorded._\n"))
        if warnings:
            out.append("\nWarnings:\n\n" + "".join(f"- {w}\n" for w in warnings))
    prov = provenance(results.diagnostics, results.timings)
    out.append("## How these results were produced\n")
    out.append(f"Command: `{prov['command']}`\n" if prov["command"] else "Command: not recorded in diagnostics.json\n")
    versions = ", ".join(f"{k} {v}" for k, v in prov["versions"].items()) or "not recorded"
    out.append(f"\nVersions: {versions}; this report: goeval {_reader_version()}.\n")
    if prov["inputs"]:
        out.append("\n" + _md_table([{"input": k, "file": v} for k, v in prov["inputs"].items()]))
    if prov["options"]:
        out.append("\n" + _md_table([{"option": k, "value": json.dumps(v)} for k, v in prov["options"].items()]))
    return "\n".join(out)
