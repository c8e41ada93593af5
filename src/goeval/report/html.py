"""The report of a results directory as a self-contained HTML page and as a Markdown summary.

The page holds everything it shows: tables as HTML, figures as
``data:image/png;base64`` URIs, its style sheet inline; it names no
external style sheet, script, font or image, so it opens offline and makes
no network request. It opens with its contents (links to every section),
then the sections of :func:`goeval.report.outline.report_outline`: the
headline matrix, the paired comparison when the results hold
``protein_stats.npz``, each namespace's rankings beside its figure, ...,
the diagnostics and how the results were produced.

The Markdown summary has the same sections, tables and text, with the
figures linked when their files are given, and without the folded texts
(every count of ``diagnostics.json``).

Every text read from the results (names, paths, diagnostics, the command
line) is escaped in both, so it shows as itself: never markup, a link or an
image. Section anchors are numbered, never made from such a text.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from goeval.io.names import shown
from goeval.report.outline import Details, Figure, Items, Para, Section, Table, report_outline
from goeval.report.style import measure_label, result_colors

__all__ = ["report_html", "report_markdown"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:2em auto;max-width:80em;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #ccc}h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #ddd}
h3{font-size:1.1em}h4{font-size:1em;margin:.8em 0 .2em}table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f2f2f2}
td.t,th.t{text-align:left}td.b{font-weight:bold;background:#eef5ee}figure{margin:1em 0}
figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
ul.diag li{margin:.15em 0}.warn{color:#a40}.tw{overflow-x:auto}ul.note{font-size:.85em;color:#444;max-width:60em}
nav ol{margin:.2em 0}nav li{margin:.1em 0}nav ol ol{display:inline;padding:0}nav ol ol::before{content:": "}
nav ol ol li{display:inline}nav ol ol li:not(:last-child)::after{content:" \\00b7  "}
.sw{display:inline-block;width:.8em;height:.8em;margin-right:.4em;vertical-align:-.05em;border:1px solid #0004}
""".strip()

#: Columns read as text (left-aligned).
_TEXT_COLS = frozenset({"method", "namespace", "measure", "term", "name", "CI", "targets", "method A", "method B",
                        "input", "file", "option", "value", "stage"})
#: Columns whose methods get their figures' colour as a swatch.
_METHOD_COLS = frozenset({"method", "method A", "method B"})
#: Columns that hold numbers in some tables and text in others: text only in these tables' columns.
_TEXT_ONLY_IN = {"value": ("option",)}

_NO_FIGURES = "No figures (matplotlib is not installed, or nothing to plot)."


# ------------------------------------------------------------ HTML
def _text_col(c: str, cols: Sequence[str]) -> bool:
    need = _TEXT_ONLY_IN.get(c)
    return c in _TEXT_COLS and (need is None or any(n in cols for n in need))


def _table(table: Table, colors: Mapping[str, str]) -> str:
    e = html.escape
    title = f"<h4>{e(table.title)}</h4>" if table.title else ""
    if not table.records:
        return title + "<p><em>none</em></p>"
    cols = list(table.records[0])
    text = {c: _text_col(c, cols) for c in cols}
    head = "".join(f'<th class="t">{e(c)}</th>' if text[c] else f"<th>{e(c)}</th>" for c in cols)

    def cell(i: int, c: str, value: str) -> str:
        inner = _methods_html(value, colors) if c in _METHOD_COLS else e(value)
        cls = " ".join(x for x, on in (("t", text[c]), ("b", (i, c) in table.best and value)) if on)
        return f'<td class="{cls}">{inner}</td>' if cls else f"<td>{inner}</td>"

    body = "".join("<tr>" + "".join(cell(i, c, str(r.get(c, ""))) for c in cols) + "</tr>"
                   for i, r in enumerate(table.records))
    return f'{title}<div class="tw"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


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


_CAPTIONS = {
    "coverage": "Coverage (share of benchmark proteins with a prediction) against the threshold.",
    "optima": "Fmax and Smin per method (error bars: bootstrap interval, when computed).",
    "tap_curve": "Mean TAP over term queries against the score cutoff (TAP-k paper, Fig. 5); dots: peak TAP.",
}
_KIND_PREFIX = re.compile(r"^([a-z]{2})_(?=fig4_|coverage$|optima$|tap_curve$|top_|rank_|groups_)")


def _caption(name: str) -> str:
    """A figure's caption from its name (a time split's ``nk_``... prefix read as its kind of target)."""
    m = _KIND_PREFIX.match(name)
    kind, stem = (m.group(1).upper() + " targets: ", name[m.end():]) if m else ("", name)
    if stem.startswith("fig4_"):
        return (f"{kind}{stem[5:]}: precision-recall, weighted precision-recall, ru-mi and weighted ru-mi curves "
                "(Clark & Radivojac 2013, Fig. 4); dots: the optima (Fmax, weighted Fmax, Smin, weighted Smin); "
                "grey lines: iso-F and iso-S contours. Legends: each optimum, its bootstrap interval when computed, "
                "and the coverage at its threshold (share of benchmark proteins with a prediction; weighted: whose "
                "predicted terms carry information). Rows without coverage, where precision is undefined, are not "
                "drawn. A note above a ru-mi panel says where its misinformation axis cuts the curves.")
    if stem.startswith("top_"):
        return (f"{kind}{stem[4:]}: the best methods by each measure (at most --top, 10 by default), best first, "
                "beside the baselines (naive, BLAST, GOtcha and those named with --baselines: hatched, after the "
                "gap, not counted among the best); error bars: the bootstrap interval, when computed; C: the "
                "coverage at the optimum.")
    if stem.startswith("rank_"):
        return (f"{kind}{stem[5:]}: F, weighted F and S at each rank threshold k (the k best-scoring terms of each "
                "protein and namespace, and their ancestors; all: every term); ringed dots: the optima over k.")
    if stem.startswith("groups_"):
        return (f"{kind}{measure_label(stem[7:])} of every method in each group of benchmark proteins (all: the "
                "whole benchmark; n: the group's proteins in the namespace).")
    return kind + _CAPTIONS.get(stem, stem)


def _figure(name: str, png: bytes) -> str:
    data = base64.b64encode(png).decode("ascii")
    caption = html.escape(_caption(name))
    return (f'<figure id="fig-{html.escape(name)}"><img alt="{caption}" '
            f'src="data:image/png;base64,{data}"><figcaption>{caption}</figcaption></figure>')


def _block_html(block: Any, figures: Mapping[str, bytes], colors: Mapping[str, str]) -> str:
    e = html.escape
    if isinstance(block, Table):
        return _table(block, colors)
    if isinstance(block, Items):
        cls = "note" if block.note else "diag"
        items = "".join(f'<li class="warn">{e(x)}</li>' if block.warn else f"<li>{e(x)}</li>" for x in block.lines)
        return (f"<h4>{e(block.title)}</h4>" if block.title else "") + f'<ul class="{cls}">{items}</ul>'
    if isinstance(block, Para):
        return f"<p>{e(block.text)}" + (f" <code>{e(block.code)}</code>" if block.code else "") + "</p>"
    if isinstance(block, Details):
        return f"<details><summary>{e(block.summary)}</summary><pre>{e(block.text)}</pre></details>"
    if isinstance(block, Figure):
        return _figure(block.name, figures[block.name]) if block.name in figures else ""
    raise TypeError(f"not a report block: {block!r}")


def _section_html(section: Section, level: int, figures: Mapping[str, bytes], colors: Mapping[str, str]) -> str:
    head = f'<h{level} id="{section.anchor}">{html.escape(section.title)}</h{level}>'
    body = "".join(_block_html(b, figures, colors) for b in section.blocks)
    return head + body + "".join(_section_html(c, level + 1, figures, colors) for c in section.children)


def _contents_html(sections: Sequence[Section]) -> str:
    def items(secs: Sequence[Section]) -> str:
        return "<ol>" + "".join(f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a>'
                                + (items(s.children) if s.children else "") + "</li>" for s in secs) + "</ol>"

    return f'<nav id="contents"><h2>Contents</h2>{items(sections)}</nav>'


def _files_read(results: Any) -> list[str]:
    parts = getattr(results, "parts", None) or {}
    return list(results.files) + [f"{k.lower()}/{f}" for k, p in parts.items() for f in p.files]


def _notes(results: Any) -> list[str]:
    parts = getattr(results, "parts", None) or {}
    return list(getattr(results, "notes", [])) + [n for p in parts.values() for n in p.notes]


def report_html(results: Any, figures: Mapping[str, bytes] | None = None, *, title: str | None = None,
                comparison: Any = None) -> str:
    """The self-contained HTML page of ``results`` (a :class:`~goeval.io.results_dir.ResultsDir`).

    Parameters
    ----------
    results : ResultsDir
        What :func:`goeval.io.results_dir.read_results_dir` read.
    figures : mapping of str to bytes, optional
        Rendered PNG figures by name (:func:`goeval.report.plots.figure_bytes`
        of :func:`~goeval.report.plots.results_figures`); each is embedded
        as a data URI in the section of what it shows. None or empty: a
        page without figures (it says so).
    title : str, optional
        Page title (default: "goeval results: <directory name>").
    comparison : PairedComparison, optional
        :func:`goeval.report.comparison.paired_comparison` of the results:
        its section follows the headline.

    Returns
    -------
    str
        One HTML document without any external reference.
    """
    e = html.escape
    figures = dict(figures or {})
    title = title or f"goeval results: {results.path.name}"
    sections = report_outline(results, figures, comparison)
    colors = _report_colors(results)
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1>",
             f"<p>Files read: {e(', '.join(_files_read(results)))}.</p>"]
    notes = _notes(results)
    if notes:
        parts.append('<ul class="diag">' + "".join(f'<li class="warn">{e(n)}</li>' for n in notes) + "</ul>")
    if not figures:
        parts.append(f"<p><em>{_NO_FIGURES}</em></p>")
    parts.append(_contents_html(sections))
    parts += [_section_html(s, 2, figures, colors) for s in sections]
    parts.append("<p><small>Clark W. T., Radivojac P. (2013) Information-theoretic evaluation of predicted "
                 "ontological annotations. Bioinformatics 29(13):i53-i61.</small></p></body></html>\n")
    return "".join(parts)


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


def _md_table(table: Table) -> str:
    if not table.records:
        return "_none_\n"
    cols = list(table.records[0])

    def cell(i: int, c: str, text: str) -> str:
        return f"**{_md(text)}**" if (i, c) in table.best and text else _md(text)

    lines = ["| " + " | ".join(_md(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(cell(i, c, r.get(c, "")) for c in cols) + " |" for i, r in enumerate(table.records)]
    return (f"**{_md(table.title)}**\n\n" if table.title else "") + "\n".join(lines) + "\n"


def _md_items(items: Sequence[str]) -> str:
    """A Markdown list of texts, each escaped."""
    return "".join(f"- {_md(x, block=True)}\n" for x in items)


def _block_md(block: Any, figure_files: Mapping[str, str]) -> str:
    if isinstance(block, Table):
        return _md_table(block)
    if isinstance(block, Items):
        return (f"**{_md(block.title)}**\n\n" if block.title else "") + _md_items(block.lines)
    if isinstance(block, Para):
        return _md(block.text) + (f" {_md_code(block.code)}" if block.code else "") + "\n"
    if isinstance(block, Figure):
        file = figure_files.get(block.name)
        return f"![{_md(_caption(block.name))}]({quote(file)})\n" if file else ""
    return ""  # Details: folded on the page, left out here


def _section_md(section: Section, level: int, figure_files: Mapping[str, str]) -> list[str]:
    out = [f"{'#' * level} {_md(section.title)}\n"]
    out += [text for text in (_block_md(b, figure_files) for b in section.blocks) if text]
    return out + [x for c in section.children for x in _section_md(c, level + 1, figure_files)]


def _contents_md(sections: Sequence[Section], depth: int = 0) -> str:
    return "".join("  " * depth + f"- {_md(s.title, block=True)}\n" + _contents_md(s.children, depth + 1)
                   for s in sections)


def report_markdown(results: Any, *, title: str | None = None, figure_files: Mapping[str, str] | None = None,
                    comparison: Any = None) -> str:
    """The Markdown summary of ``results``: the sections of the HTML page, without images unless given.

    ``figure_files`` maps a figure's name to its file (relative to the
    Markdown file): each is linked as an image in its section. Every text
    read from the results (names, paths, diagnostics, the command line) is
    escaped so that it renders as itself: a method called ``<img src=x
    onerror=...>`` or ``[a](javascript:...)`` is shown as those characters,
    never as HTML, a link or an image.
    """
    figure_files = dict(figure_files or {})
    title = title or f"goeval results: {results.path.name}"
    sections = report_outline(results, figure_files, comparison)
    out = [f"# {_md(title)}\n", f"Files read: {_md(', '.join(_files_read(results)))}.\n"]
    out += [f"- **{_md(n)}**\n" for n in _notes(results)]
    out.append("## Contents\n\n" + _contents_md(sections))
    for s in sections:
        out += _section_md(s, 2, figure_files)
    return "\n".join(out)
