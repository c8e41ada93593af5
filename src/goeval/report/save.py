"""Plots and the report of a results directory, rendered and written in one call each.

These are what ``goeval plot``, ``goeval report`` and ``goeval evaluate
--plots`` run; the files themselves are written by
:func:`goeval.io.results_dir.write_files` (all appear, or none changes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goeval.errors import InvalidParameterError
from goeval.progress import stage

__all__ = ["render_figures", "save_plots", "save_report", "FORMATS"]

# The package goeval.report imports this module, and every command imports goeval.report for its
# text tables (goeval info among them): the results reader, the figures and the HTML page (with
# pyarrow and the annotations behind them) are imported by the functions that need them.

#: Figure file formats.
FORMATS = ("png", "svg", "pdf")


def _results(results: Any) -> Any:
    from goeval.io.results_dir import ResultsDir, read_results_dir  # deferred: see the note at the top

    return results if isinstance(results, ResultsDir) else read_results_dir(results)


def render_figures(results: Any, format: str = "png", *, panels: bool = True, points: Any = None,
                   desc: str | None = "figures") -> dict[str, bytes]:
    """Every figure of ``results`` (a directory or a ResultsDir), rendered: file name -> bytes.

    ``panels`` adds each Fig. 4 panel as a file of its own
    (``fig4_<NS>_<panel>.<format>``) beside the four-panel ``fig4_<NS>``.
    A progress bar shows on a terminal (:mod:`goeval.progress`).
    """
    if format not in FORMATS:
        raise InvalidParameterError(f"The 'format' parameter of render_figures must be one of {set(FORMATS)}; got {format!r}.")
    from goeval.report.plots import figure_bytes, results_figures  # deferred: see the note at the top

    with stage(desc or "figures", quiet=desc is None) as st:
        figs = results_figures(_results(results), panels=panels, points=points)
        st.set_total(len(figs))
        out = {}
        for name, fig in figs.items():
            out[f"{name}.{format}"] = figure_bytes(fig, format)
            st.update()
        st.note = f"{len(out)} {format.upper()} files drawn"
    return out


def save_plots(results: Any, out_dir: Any = None, format: str = "png", *, panels: bool = True,
               points: Any = None) -> dict[str, Path]:
    """Render and write every figure of a results directory.

    Parameters
    ----------
    results : str, path-like or ResultsDir
        The results directory (``goeval evaluate``/``retrieval``/``benchmark cv`` output).
    out_dir : str or path-like, optional
        Where the figures go (default ``<results>/plots``).
    format : {'png', 'svg', 'pdf'}
    panels : bool
        Also one file per Fig. 4 panel.
    points : mapping, optional
        Single points for the Fig. 4 panels (:func:`goeval.report.plots.fig4_figure`).

    Returns
    -------
    dict of str to Path
        File name -> path written.
    """
    from goeval.io.results_dir import write_files  # deferred: see the note at the top

    res = _results(results)
    out = Path(out_dir) if out_dir is not None else res.path / "plots"
    return write_files(out, render_figures(res, format, panels=panels, points=points), added_by="goeval plot")


def save_report(results: Any, out: Any = None, *, markdown: bool = True, title: str | None = None) -> dict[str, Path]:
    """Write the self-contained HTML page (and the Markdown summary beside it).

    Parameters
    ----------
    results : str, path-like or ResultsDir
    out : str or path-like, optional
        The HTML file (default ``<results>/report.html``); the Markdown
        summary takes the same name with ``.md``.
    markdown : bool
        Also write the Markdown summary.
    title : str, optional

    Returns
    -------
    dict of str to Path
        ``report.html`` (and ``report.md``) -> path written.

    Notes
    -----
    Without matplotlib the page has every table and no figure (and says so).
    """
    from goeval.io.results_dir import write_files  # deferred: see the note at the top
    from goeval.report.html import report_html, report_markdown  # deferred: see the note at the top

    res = _results(results)
    html_path = Path(out) if out is not None else res.path / "report.html"
    try:
        import matplotlib  # noqa: F401 - optional (plot extra): only whether it is installed
    except ImportError:
        figures: dict[str, bytes] = {}
    else:
        figures = {name.rsplit(".", 1)[0]: data for name, data in render_figures(res, "png", panels=False,
                                                                                     desc="report figures").items()}
    files: dict[str, str] = {html_path.name: report_html(res, figures, title=title)}
    if markdown:
        files[html_path.with_suffix(".md").name] = report_markdown(res, title=title)
    return write_files(html_path.parent, files, added_by="goeval report")
