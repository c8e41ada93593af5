"""The headline of a result: per (kind of target,) namespace and method, the headline measures.

One row per namespace and method (a time split: per kind of target too,
first): Fmax with the threshold and the coverage at it, the weighted Fmax
and Smin, each with its bootstrap interval when the run computed one. It is
what a result shows in a notebook (:meth:`goeval.EvaluationResult._repr_html_`
and its ``repr``) and the matrix a report can open with.

Examples
--------
>>> records = [{"method": "BLAST", "namespace": "MFO", "measure": "fmax", "value": 0.48718, "threshold": 0.46,
...             "coverage": 0.9762, "ci_low": 0.4604, "ci_high": 0.5193}]
>>> headline_matrix(records)
[{'namespace': 'MFO', 'method': 'BLAST', 'Fmax': '0.4872 [0.4604, 0.5193]', 'threshold': '0.460', 'coverage': '0.976'}]
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from goeval.report.style import measure_label, value_format
from goeval.report.text import format_table

__all__ = ["HEADLINE_MEASURES", "headline_matrix", "headline_text", "headline_html"]

#: The measures of the headline, in column order; the threshold and coverage shown are those of the first.
HEADLINE_MEASURES: tuple[str, ...] = ("fmax", "wfmax", "smin")


def _number(v: Any, fmt: str) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ""
    return "" if f != f else format(f, fmt)


def _cell(row: Mapping[str, Any], measure: str) -> str:
    """An optimum with its interval when it has one: ``0.4872 [0.4604, 0.5193]``; ``nan`` when undefined."""
    fmt = value_format(measure)
    value = _number(row.get("value"), fmt) or "nan"
    lo, hi = _number(row.get("ci_low"), fmt), _number(row.get("ci_high"), fmt)
    return f"{value} [{lo}, {hi}]" if lo and hi else value


def _threshold(v: Any) -> str:
    text = _number(v, ".3f")
    return "<0.001" if text == "0.000" and float(v) > 0 else text


def _records(result: Any) -> list[Mapping[str, Any]]:
    if isinstance(result, list):
        return result
    records = getattr(result, "summary_records", None)
    if records is not None:
        return records
    summary = getattr(result, "summary", None)
    return [] if summary is None else summary.to_dict("records")


def _parts(results: Any) -> Mapping[str, Any]:
    """A time split's kinds (a mapping kind -> result, or a results directory's ``parts``); empty otherwise."""
    if isinstance(results, Mapping):
        return results
    return getattr(results, "parts", None) or {}


def headline_matrix(results: Any) -> list[dict[str, str]]:
    """The headline rows of a result, formatted for reading.

    Parameters
    ----------
    results : EvaluationResult, ResultsDir, list of summary records, or mapping of kind to result
        A time split (a mapping, or a results directory with ``parts``)
        gives each kind's rows with a ``targets`` column first.

    Returns
    -------
    list of dict of str to str
        Per namespace (``all`` left out) and method, in order of first
        appearance: ``namespace``, ``method``, then for each of
        :data:`HEADLINE_MEASURES` the run holds its label (``Fmax``, ``weighted
        Fmax``, ``Smin (bits)``) with the value and ``[ci_low, ci_high]``
        when the run computed intervals, and after Fmax the ``threshold`` and
        ``coverage`` at it. Values are rounded as in the report (4 decimals;
        3 for bits); an undefined optimum reads ``nan``.
    """
    parts = _parts(results)
    if parts:
        return [{"targets": str(kind), **row} for kind, part in parts.items() for row in headline_matrix(part)]
    by_block: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = {}
    for r in _records(results):
        if r["namespace"] != "all" and r["measure"] in HEADLINE_MEASURES:
            by_block.setdefault((str(r["namespace"]), str(r["method"])), {})[r["measure"]] = r
    order = {ns: i for i, ns in enumerate(dict.fromkeys(ns for ns, _ in by_block))}
    rows = []
    for (ns, method), per in sorted(by_block.items(), key=lambda kv: order[kv[0][0]]):  # stable: methods in order
        row = {"namespace": ns, "method": method}
        for measure in HEADLINE_MEASURES:
            if measure in per:
                row[measure_label(measure)] = _cell(per[measure], measure)
                if measure == HEADLINE_MEASURES[0]:
                    row["threshold"] = _threshold(per[measure].get("threshold"))
                    row["coverage"] = _number(per[measure].get("coverage"), ".3f")
        rows.append(row)
    return rows


def _columns(rows: Sequence[Mapping[str, str]]) -> list[str]:
    return list(dict.fromkeys(c for r in rows for c in r))


def _intervals(results: Any) -> str:
    """What the intervals are, from the run's bootstrap settings ('' without a bootstrap)."""
    parts = _parts(results)
    first = next(iter(parts.values()), None) if parts else results
    boot = (getattr(first, "diagnostics", None) or {}).get("bootstrap") or {}
    if not boot.get("n_resamples"):
        return ""
    return (f"[low, high]: the {float(boot.get('confidence', 0.95)) * 100:g} % bootstrap percentile interval "
            f"({int(boot['n_resamples']):,} resamples)")


def headline_text(results: Any, max_rows: int = 12) -> str:
    """The headline as a text table (at most ``max_rows`` rows, then how many more), with what the intervals are."""
    rows = headline_matrix(results)
    if not rows:
        return "(nothing evaluated)"
    cols = _columns(rows)
    shown = [[r.get(c, "") for c in cols] for r in rows[:max_rows]]
    more = [f"... {len(rows) - max_rows} more rows"] if len(rows) > max_rows else []
    note = _intervals(results)
    return "\n".join([format_table(shown, cols)] + more + ([note] if note else []))


def headline_html(results: Any, title: str) -> str:
    """The headline as an HTML table captioned ``title`` (escaped), for a notebook."""
    rows = headline_matrix(results)
    if not rows:
        return f"<p><b>{html.escape(title)}</b>: nothing evaluated</p>"
    cols = _columns(rows)
    note = _intervals(results)
    caption = html.escape(title) + (f"<br><small>{html.escape(note)}; threshold and coverage at Fmax</small>" if note
                                     else "<br><small>threshold and coverage at Fmax</small>")
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(r.get(c, ''))}</td>" for c in cols) + "</tr>" for r in rows)
    return (f'<table class="goeval-headline"><caption style="text-align:left">{caption}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
