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

__all__ = ["render_figures", "save_plots", "save_report", "save_results", "load_results", "FORMATS"]

# The package goeval.report imports this module, and every command imports goeval.report for its
# text tables (goeval info among them): the results reader, the figures and the HTML page (with
# pyarrow and the annotations behind them) are imported by the functions that need them.

#: Figure file formats.
FORMATS = ("png", "svg", "pdf")


def _results(results: Any) -> Any:
    from goeval.io.results_dir import ResultsDir, read_results_dir  # deferred: see the note at the top

    return results if isinstance(results, ResultsDir) else read_results_dir(results)


def render_figures(results: Any, format: str = "png", *, panels: bool = True, points: Any = None,
                   desc: str | None = "figures", top: int = 10, baselines: Any = ()) -> dict[str, bytes]:
    """Every figure of ``results`` (a directory or a ResultsDir), rendered: file name -> bytes.

    ``panels`` adds each Fig. 4 panel as a file of its own
    (``fig4_<NS>_<panel>.<format>``) beside the four-panel ``fig4_<NS>``;
    ``top`` and ``baselines``: the methods the top-N bars rank and the
    methods they draw as baselines besides naive, BLAST and GOtcha
    (:func:`goeval.report.plots.results_figures`). A progress bar shows on
    a terminal (:mod:`goeval.progress`).
    """
    if format not in FORMATS:
        raise InvalidParameterError(f"The 'format' parameter of render_figures must be one of {set(FORMATS)}; got {format!r}.")
    from goeval.report.plots import figure_bytes, results_figures  # deferred: see the note at the top

    with stage(desc or "figures", quiet=desc is None) as st:
        figs = results_figures(_results(results), panels=panels, points=points, top=top, baselines=tuple(baselines))
        st.set_total(len(figs))
        out = {}
        for name, fig in figs.items():
            out[f"{name}.{format}"] = figure_bytes(fig, format)
            st.update()
        st.note = f"{len(out)} {format.upper()} files drawn"
    return out


def save_plots(results: Any, out_dir: Any = None, format: str = "png", *, panels: bool = True,
               points: Any = None, top: int = 10, baselines: Any = ()) -> dict[str, Path]:
    """Render and write every figure of a results directory.

    Parameters
    ----------
    results : str, path-like or ResultsDir
        The results directory (``goeval evaluate``/``retrieval``/``benchmark cv`` output).
    out_dir : str or path-like, optional
        Where the figures go (default ``<results>/plots``: refused, before
        any figure is drawn, when ``plots`` is a symbolic link there).
    format : {'png', 'svg', 'pdf'}
    panels : bool
        Also one file per Fig. 4 panel.
    points : mapping, optional
        Single points for the Fig. 4 panels (:func:`goeval.report.plots.fig4_figure`).
    top : int
        How many methods the top-N bars rank (``top_<NS>``).
    baselines : sequence of str
        Methods drawn as baselines besides naive, BLAST and GOtcha.

    Returns
    -------
    dict of str to Path
        File name -> path written.
    """
    from goeval.io.files import inside_output
    from goeval.io.results_dir import write_files  # deferred: see the note at the top

    res = _results(results)
    if out_dir is not None:  # a folder the user named: written as named
        return write_files(out_dir, render_figures(res, format, panels=panels, points=points, top=top,
                                                   baselines=baselines), added_by="goeval plot")
    # plots/ inside the results folder: never through a link planted there (goeval.io.files.inside_output)
    inside_output(res.path, "plots", link_ok=False)
    figures = render_figures(res, format, panels=panels, points=points, top=top, baselines=baselines)
    return write_files(res.path, {f"plots/{name}": data for name, data in figures.items()}, added_by="goeval plot")


def save_report(results: Any, out: Any = None, *, markdown: bool = True, title: str | None = None,
                compare: Any = ("fmax",), top: int = 10, baselines: Any = ()) -> dict[str, Path]:
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
    compare : sequence of str
        The measures of the paired comparison, made when the results hold
        ``protein_stats.npz`` (:func:`goeval.report.comparison.paired_comparison`:
        the run's resamples and seed); empty: none.
    top : int
        How many methods the top-N bars rank.
    baselines : sequence of str
        Methods drawn as baselines besides naive, BLAST and GOtcha.

    Returns
    -------
    dict of str to Path
        ``report.html`` (and ``report.md``) -> path written.

    Notes
    -----
    Without matplotlib the page has every table and no figure (and says so).
    """
    from goeval.io.results_dir import write_files  # deferred: see the note at the top
    from goeval.report.comparison import paired_comparison
    from goeval.report.html import report_html, report_markdown  # deferred: see the note at the top

    res = _results(results)
    html_path = Path(out) if out is not None else res.path / "report.html"
    comparison = paired_comparison(res, tuple(compare)) if compare else None
    try:
        import matplotlib  # noqa: F401 - optional (plot extra): only whether it is installed
    except ImportError:
        figures: dict[str, bytes] = {}
    else:
        drawn = render_figures(res, "png", panels=False, desc="report figures", top=top, baselines=baselines)
        figures = {name.rsplit(".", 1)[0]: data for name, data in drawn.items()}
    files: dict[str, str] = {html_path.name: report_html(res, figures, title=title, comparison=comparison)}
    if markdown:
        files[html_path.with_suffix(".md").name] = report_markdown(res, title=title, comparison=comparison)
    return write_files(html_path.parent, files, added_by="goeval report")


#: One row per method, best first (:func:`goeval.evaluation.summary.leaderboard`), in every results folder.
LEADERBOARD_TABLE = "leaderboard.tsv"
#: The optima of every group, with a ``group`` column (``all``: the whole benchmark), in a grouped run's folder.
GROUPS_TABLE = "groups.tsv"


def group_dir(name: str) -> str:
    """A group's folder under ``groups/``: its name, ``/`` and ``\\`` replaced by ``_`` and ``.`` or ``..``
    prefixed by ``_`` (a name is not a path).

    Examples
    --------
    >>> group_dir("b/x"), group_dir(".."), group_dir("human")
    ('b_x', '_..', 'human')
    """
    name = name.replace("/", "_").replace("\\", "_")
    return f"_{name}" if name in (".", "..") else name


def group_table(result: Any) -> dict[str, list[Any]]:
    """``groups.tsv``: the summary rows of the whole benchmark (``all``) and of every group, a ``group`` column
    after ``method``."""
    rows = [("all", r) for r in result.summary_records]
    rows += [(name, r) for name, res in (result.groups or {}).items() for r in res.summary_records]
    columns = list(result.summary_columns)
    columns = columns[:1] + ["group"] + columns[1:]
    return {c: [g if c == "group" else r.get(c) for g, r in rows] for c in columns}


def group_parts(result: Any, prefix: str, curves_gzip: bool = False) -> dict[str, Any]:
    """The results directory of every group of ``result`` (``PREFIX/groups/NAME/``, ``groups/NAME/`` for ``""``),
    as :func:`save_results` writes them: what ``goeval compare --groups`` reads.

    Parameters
    ----------
    result : EvaluationResult
        An evaluation with groups (none: no part).
    prefix : str
        The folder of ``result`` in the run's tree (a ``goeval cafa6`` kind: ``NK``), ``""`` for the top.
    curves_gzip : bool
        Write ``curves.tsv.gz`` instead of ``curves.tsv``.

    Returns
    -------
    dict of str to ResultFiles
        Folder in the tree -> its files (:func:`goeval.io.results.write_result_tree`'s ``parts``).
    """
    at = f"{prefix}/groups" if prefix else "groups"
    return {f"{at}/{group_dir(name)}": _result_files(res, None, None, None, curves_gzip)
            for name, res in (getattr(result, "groups", None) or {}).items()}


def _result_files(result: Any, records: Any, timings: Any, extra_tables: Any, curves_gzip: bool) -> Any:
    """One results directory's files (:class:`~goeval.io.results.ResultFiles`) of an evaluation."""
    from goeval.evaluation.summary import BOOTSTRAP_COLUMNS
    from goeval.io.results import ResultFiles

    from goeval.evaluation.summary import leaderboard

    columns = list(result.summary_columns)
    board = leaderboard(list(result.summary_records if records is None else records))
    extra_tables = {LEADERBOARD_TABLE: {c: [r[c] for r in board] for c in (board[0] if board else ())},
                    **(extra_tables or {})}
    arrays = None
    if result.stats and BOOTSTRAP_COLUMNS[0] in columns:
        from goeval.stats.store import PROTEIN_STATS_FILE, protein_stats_arrays  # deferred: only after a bootstrap

        arrays = {PROTEIN_STATS_FILE: protein_stats_arrays(result.stats, result.diagnostics.get("options", {}))}
    spent = dict(getattr(result.diagnostics, "timings", {})) if timings is None else timings
    return ResultFiles(curves=result.curve_columns, summary=list(result.summary_records if records is None else records),
                       summary_columns=columns, diagnostics=result.diagnostics, timings=spent,
                       extra_tables=extra_tables, extra_arrays=arrays, curves_gzip=curves_gzip,
                       calibration=getattr(result, "calibration_columns", None))


def save_results(result: Any, out: Any, *, curves_gzip: bool = False, plots: bool = False,
                 records: Any = None, extra_tables: Any = None, timings: Any = None, files: Any = None) -> dict[str, Path]:
    """Write an evaluation's results directory: the files ``goeval evaluate --out DIR`` writes.

    ``curves.tsv`` (or ``curves.tsv.gz``), ``summary.tsv``, ``calibration.tsv``
    (not for rank thresholds), ``diagnostics.json``, ``timings.json``, ``protein_stats.npz`` after a
    bootstrap (what ``goeval compare`` resamples) and ``manifest.json``; with
    ``plots``, the figures (``plots/``) and ``report.html``/``report.md``.
    A run with groups also writes ``groups.tsv`` (every group's optima, a
    ``group`` column) and one such folder per group, ``groups/NAME/``.
    Files of an earlier run in ``out`` that this one does not write are
    removed (see :mod:`goeval.io.manifest`).

    Parameters
    ----------
    result : EvaluationResult
    out : str or path-like
        The directory (created).
    curves_gzip : bool
        Write ``curves.tsv.gz`` instead of ``curves.tsv``.
    plots : bool
        Also the figures and the report (needs the plot extra).
    records, extra_tables, timings, files
        What the command line adds: summary rows (default the result's),
        further tables (file name -> columns), the run's timings (default the
        diagnostics'), and the :class:`~goeval.io.manifest.RunOutput` the
        files join (default a run of their own, whose manifest records where
        the measures that are not goeval's own came from:
        :func:`goeval.metrics.plugins.measure_sources`).

    Returns
    -------
    dict of str to Path
        ``curves``, ``summary``, ``diagnostics``... -> path written.
    """
    from goeval.diagnostics import package_versions
    from goeval.io.results import write_result_tree  # deferred: see the note at the top

    diag = result.diagnostics
    if "versions" not in diag:
        diag["versions"] = package_versions()
    spent = dict(getattr(diag, "timings", {}) if timings is None else timings)
    parts = {"": _result_files(result, records, spent, extra_tables, curves_gzip)}
    tables = None
    if getattr(result, "groups", None):  # groups/NAME/ per group, groups.tsv: every group's optima
        parts.update(group_parts(result, "", curves_gzip))
        tables = {GROUPS_TABLE: group_table(result)}
    if files is None:  # a run of its own, its manifest saying where the measures not goeval's own came from
        from goeval.io.manifest import RunOutput
        from goeval.metrics.plugins import measure_sources

        with RunOutput(out, measures=measure_sources()) as run:
            paths = write_result_tree(out, parts, tables, files=run)
    else:
        paths = write_result_tree(out, parts, tables, files=files)
    if plots:
        paths.update(save_plots(out))
        paths.update(save_report(out))
    return paths


def load_results(path: Any) -> Any:
    """Read a results directory back as the :class:`~goeval.evaluation.EvaluationResult` that wrote it.

    Parameters
    ----------
    path : str or path-like
        A directory written by :meth:`EvaluationResult.save`, ``goeval
        evaluate`` or ``goeval benchmark cv``; a time split's directory gives
        one result per kind.

    Returns
    -------
    EvaluationResult or TimeSplitResult
        ``summary``, ``curves``, ``calibration`` (exact floats: the text written reads back
        to the same doubles) and ``diagnostics`` (with its ``timings``);
        ``stats`` is None (the per-protein statistics of a bootstrap stay in
        ``protein_stats.npz``, read by :func:`goeval.compare`). A time split
        gives ``{"NK": ..., "LK": ..., "PK": ...}`` (a dict, shown as one
        headline table in a notebook).

    Raises
    ------
    GoevalError
        Not a results directory, a file of another run, or no ``summary.tsv``.
    """
    res = _results(path)
    if res.parts:
        from goeval.evaluation.summary import TimeSplitResult  # deferred: as in _result_of

        return TimeSplitResult({kind: _result_of(part) for kind, part in res.parts.items()})
    return _result_of(res)


def _result_of(res: Any) -> Any:
    from goeval.diagnostics import Diagnostics
    from goeval.errors import GoevalError
    from goeval.evaluation.summary import EvaluationResult

    if res.summary is None:
        raise GoevalError(f"{res.path}: no summary.tsv: not the results of an evaluation "
                          f"({', '.join(res.files) or 'no table'} read).")
    curves = None if res.curves is None else {c: res.curves[c].to_numpy() for c in res.curves.columns}
    table = res.calibration
    calibration = None if table is None else {c: table[c].to_numpy() for c in table.columns}
    diag = Diagnostics(res.diagnostics)
    diag.timings.update(res.timings)
    return EvaluationResult(curves, res.summary.to_dict("records"), diag, calibration_columns=calibration)

