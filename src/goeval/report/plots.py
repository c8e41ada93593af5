"""Figures of an evaluation: Clark & Radivojac (2013) Fig. 3 and Fig. 4, coverage, optima, TAP, and the figures
CAFA papers print: the top methods beside the baselines, methods x groups, F against k.

Every function returns a :class:`matplotlib.figure.Figure` built off screen
(Agg; pyplot's global state is never touched), so figures show in a
notebook and render on a server without a display. Curves come from
``curves.tsv`` (or :attr:`goeval.EvaluationResult.curves`), optima from
``summary.tsv`` (:attr:`~goeval.EvaluationResult.summary`); the functions
draw, they compute nothing but contour grids.

Drawn elements carry a ``gid`` so that tests (and users) can find the data
behind a figure: ``curve:<method>``, ``optimum:<method>``,
``point:<name>``, ``iso:<kind>``, ``bar:<method>``, ``baseline:<method>``,
``ci:<method>``, ``heatmap:<namespace>``.

Needs matplotlib (``pip install 'goeval[plot]'``).

References
----------
Clark W. T., Radivojac P. (2013) Information-theoretic evaluation of
predicted ontological annotations. Bioinformatics 29(13):i53-i61, Fig. 3
(information content per protein) and Fig. 4 (the four 2D plots).
Carroll H. D. et al. (2010) Threshold Average Precision (TAP-k).
Bioinformatics 26(14):1708-1713, Fig. 5 (TAP against the cutoff).
Jiang Y. et al. (2016) An expanded evaluation of protein function
prediction methods shows an improvement in accuracy. Genome Biology 17:184,
Fig. 3 and 4 (the top ten methods beside the baselines, bootstrap intervals).
Zhou N. et al. (2019) The CAFA challenge reports improved protein function
prediction and new functional annotations for hundreds of genes through
experimental screens. Genome Biology 20:244, Fig. 2 (the same, per ontology).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError, check_choice
from goeval.io.names import held_namespace
from goeval.report.style import (PANELS, Panel, coverage_column, figure_stem, figure_text, is_baseline,
                                  lower_is_better, measure_label, method_colors, new_figure, rank_text,
                                  require_matplotlib, result_colors)

__all__ = [
    "metric_check_figures",
    "PANELS",
    "method_colors",
    "fig4_figure",
    "panel_figure",
    "draw_panel",
    "drawn_rows",
    "information_content_figure",
    "coverage_figure",
    "optima_figure",
    "tap_curve_figure",
    "top_methods",
    "top_methods_figure",
    "groups_figure",
    "group_sizes",
    "rank_figure",
    "whole_benchmark",
    "result_groups",
    "rank_thresholds_run",
    "ALL_GROUP",
    "PAPER_MEASURES",
    "results_figures",
    "result_figure",
    "FIGURE_KINDS",
    "figure_bytes",
]

PointsArg = Mapping[str, Mapping[Any, tuple[float, float]]] | None

_PANEL_BY_NAME = {p.name: p for p in PANELS}
_F_LEVELS = np.round(np.arange(1, 10) / 10, 1)


def _methods(frame: Any, methods: Sequence[str] | None) -> list[str]:
    present = list(dict.fromkeys(frame["method"].tolist())) if frame is not None and len(frame) else []
    if methods is None:
        return present
    return [m for m in methods if m in present]


def _namespace(frame: Any, namespace: str, func: str) -> str:
    """The label of ``frame``'s namespace that ``namespace`` names (:func:`~goeval.ontology.core.held_namespace`):
    a name the frame does not hold is an error listing those it holds, never an empty figure."""
    held = [n for n in dict.fromkeys(frame["namespace"].tolist()) if n != "all"] if frame is not None else []
    return held_namespace(namespace, held, func)


def _rows(frame: Any, method: str, namespace: str) -> Any:
    return frame[(frame["method"] == method) & (frame["namespace"] == namespace)]


def _optimum(summary: Any, method: str, namespace: str, measure: str) -> dict[str, Any] | None:
    if summary is None:
        return None
    sel = summary[(summary["method"] == method) & (summary["namespace"] == namespace) & (summary["measure"] == measure)]
    return None if sel.empty else sel.iloc[0].to_dict()


def _fmt(v: float) -> str:
    return "nan" if v != v else f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"


def optimum_label(method: str, row: Mapping[str, Any] | None, measure: str) -> str:
    """Legend text: method, optimum value (with its CI when present) and coverage at the optimum.

    The coverage is named in words: ``coverage`` (share of benchmark
    proteins with a prediction at the optimum's threshold) or ``weighted
    coverage`` for the measures that report ``coverage_w``.
    """
    if row is None:
        return method
    text = f"{method}: {measure_label(measure, unit=False)} {_fmt(float(row['value']))}"
    lo, hi = row.get("ci_low"), row.get("ci_high")
    if lo is not None and hi is not None and lo == lo and hi == hi:
        text += f" [{_fmt(float(lo))}, {_fmt(float(hi))}]"
    cov = row.get("coverage")
    if cov is not None and cov == cov:
        word = "weighted coverage" if coverage_column(measure) == "coverage_w" else "coverage"
        text += f", {word} {float(cov):.2f}"
    return text


def drawn_rows(curve: Any, panel: Panel | str) -> Any:
    """The rows of one curve that a panel draws: its points where they are defined.

    Precision is undefined where no protein is covered, so the
    precision-recall panels leave out the rows whose coverage (weighted
    coverage on the weighted panel, the coverage of the panel's measure) is
    0, e.g. the naive baseline's τ = 1, which would otherwise draw a line to
    (0, 0); every panel leaves out rows with a missing coordinate.
    """
    p = _PANEL_BY_NAME[panel] if isinstance(panel, str) else panel
    keep = curve[p.x].notna() & curve[p.y].notna()
    cov = coverage_column(p.measure)
    if p.iso == "f" and cov in curve.columns:
        keep &= curve[cov] > 0
    return curve[keep]


def _iso_f(ax: Any) -> None:
    """Iso-F contours F = 2pr/(p+r) at 0.1..0.9 on the unit square (as CAFA2 and CAFA-evaluator)."""
    g = np.linspace(0.005, 1.0, 200)
    x, y = np.meshgrid(g, g)
    cs = ax.contour(x, y, 2 * x * y / (x + y), levels=_F_LEVELS, colors="0.8", linewidths=0.7, zorder=0)
    cs.set_gid("iso:f")
    ax.clabel(cs, inline=True, fontsize=7, fmt="%.1f")


def _iso_s(ax: Any, k: float) -> None:
    """Iso-S_k contours S_k = (ru^k + mi^k)^(1/k) over the panel's current limits (bits)."""
    from matplotlib.ticker import MaxNLocator  # deferred: matplotlib (plot extra) only when a figure is drawn

    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    top = float(np.hypot(x1, y1)) if k == 2 else float((x1 ** k + y1 ** k) ** (1 / k))
    levels = [v for v in MaxNLocator(nbins=8).tick_values(0, top) if v > 0]
    x, y = np.meshgrid(np.linspace(max(x0, 0), x1, 200), np.linspace(max(y0, 0), y1, 200))
    cs = ax.contour(x, y, (np.abs(x) ** k + np.abs(y) ** k) ** (1 / k), levels=levels, colors="0.8",
                    linewidths=0.7, zorder=0)
    cs.set_gid("iso:s")
    ax.clabel(cs, inline=True, fontsize=7, fmt="%g")
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)


def draw_panel(ax: Any, curves: Any, summary: Any, panel: Panel | str, namespace: str, *,
               colors: Mapping[str, str] | None = None, methods: Sequence[str] | None = None,
               points: Mapping[str, tuple[float, float]] | None = None, k: float = 2.0,
               legend: bool = True, mi_limit: float | str | None = "auto") -> None:
    """Draw one Fig. 4 panel of ``namespace`` on ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    curves, summary : pandas.DataFrame
        ``curves.tsv`` and ``summary.tsv`` (or the result's frames).
    panel : Panel or {'pr', 'wpr', 'rumi', 'wrumi'}
    namespace : str
    colors : mapping of str to colour, optional
        Method (and point) colours that win; the others follow
        :func:`~goeval.report.style.result_colors` of ``summary`` and
        ``curves`` (so a subset of the methods keeps the result's colours).
    methods : sequence of str, optional
        The methods to draw, in order (default: all, in the curves' order).
    points : mapping of str to (x, y), optional
        Single points, e.g. one database evaluated against another (CR13's
        "GO" point), drawn as stars.
    k : float
        Order of the semantic distance S_k of the iso-S contours.
    legend : bool
        Add a legend.
    mi_limit : 'auto', float or None
        Top of the misinformation axis on the ru-mi panels (bits). ``'auto'``:
        2.5 times the largest remaining uncertainty, raised to show every
        marked optimum and point, never above the data; the low-threshold ends
        of the curves, where misinformation grows without bound (CR13 §4.3),
        then leave the frame instead of flattening the elbow. ``None``: the
        whole data range.
    """
    p = _PANEL_BY_NAME[panel] if isinstance(panel, str) else panel
    namespace = _namespace(curves, namespace, "draw_panel")
    methods = _methods(curves, methods)
    colors = _colors(curves, summary, colors, points)
    for i, m in enumerate(methods):
        c = drawn_rows(_rows(curves, m, namespace).sort_values("threshold"), p)
        if c.empty:
            continue
        row = _optimum(summary, m, namespace, p.measure)
        label = figure_text(_wrap(optimum_label(m, row, p.measure), _legend_chars(ax)))
        (line,) = ax.plot(c[p.x].to_numpy(), c[p.y].to_numpy(), color=colors[m], lw=1.6, label=label, zorder=10 + i)
        line.set_gid(f"curve:{m}")
        if row is not None and row.get(p.at_x) == row.get(p.at_x):
            (mark,) = ax.plot([row[p.at_x]], [row[p.at_y]], "o", color=colors[m], ms=7, mec="black", mew=0.8,
                              zorder=100 + i)
            mark.set_gid(f"optimum:{m}")
    for name, (x, y) in (points or {}).items():
        (pt,) = ax.plot([x], [y], "*", color=colors[name], ms=12, mec="black", mew=0.6, label=figure_text(name),
                        zorder=200)
        pt.set_gid(f"point:{name}")
    ax.set_xlabel(p.xlabel)
    ax.set_ylabel(p.ylabel)
    ax.set_title(f"{figure_text(namespace)}: {p.title}")
    shown = curves[(curves["namespace"] == namespace) & curves["method"].isin(list(methods))]
    if len(shown) and shown[[p.x, p.y]].isna().all().all():  # e.g. ru, mi without any information in the truth
        ax.text(0.5, 0.5, "undefined (nan): the truth carries no\ninformation under this IA", ha="center",
                va="center", transform=ax.transAxes, fontsize=8, gid="undefined")
    if p.iso == "f":
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        _iso_f(ax)
    else:
        _ru_mi_limits(ax, curves, summary, p, namespace, methods, points, mi_limit)
        _iso_s(ax, k)
        _cut_note(ax, shown[p.y], p)
    ax.grid(False)
    if legend:
        _legend_below(ax)


def _colors(curves: Any, summary: Any, fixed: Mapping[str, str] | None,
            points: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Method colours of the result (:func:`~goeval.report.style.result_colors`), then the points' colours."""
    return method_colors(list(points or {}), result_colors(summary, curves, fixed=fixed))


def _legend_below(ax: Any, ncols: int = 1) -> None:
    """The legend under the axes, outside the frame (constrained layout makes room for it)."""
    from matplotlib.transforms import offset_copy  # deferred: matplotlib (plot extra) only when a figure is drawn

    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    ticks = ax.xaxis.get_major_ticks()
    tick = ticks[0].label1.get_size() + ticks[0].get_tick_padding() if ticks else 0.0
    below = 1.3 * (tick + ax.xaxis.label.get_size()) + ax.xaxis.labelpad + 4.0  # points under the frame: ticks, label
    at = offset_copy(ax.transAxes, fig=ax.figure, y=-below, units="points")
    ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=at,
              ncols=ncols, frameon=False, borderaxespad=0.0)


def _legend_chars(ax: Any) -> int:
    """How many characters of a 7 pt legend line fit under one panel (about 3.6 pt a character, a margin kept)."""
    spec = ax.get_subplotspec()
    width = ax.figure.get_figwidth() / (spec.get_gridspec().ncols if spec is not None else 1)  # inches of a panel
    return max(24, int(width * 72 / 3.6 * 0.8))


def _wrap(label: str, width: int) -> str:
    """A legend label on two lines when it is longer than ``width``: broken before its coverage, else at spaces."""
    if len(label) <= width:
        return label
    head, sep, tail = label.rpartition(", ")
    if sep and len(head) < width and "coverage" in tail:
        return f"{head},\n    {tail}"
    import textwrap

    return textwrap.fill(label, width, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def _legend_height(entries: int) -> float:
    """Inches a figure grows by for a legend of ``entries`` lines under its axes."""
    return 0.3 + 0.15 * entries


def _cut_note(ax: Any, y: Any, p: Panel) -> None:
    """Say above the frame when the misinformation axis cuts the curves, and how far they go."""
    top = float(y.max()) if len(y) and y.notna().any() else float("nan")
    limit = ax.get_ylim()[1]
    if top == top and top > limit:
        what = p.ylabel.split(" (")[0].split()[-1]
        ax.text(0.5, 1.01, f"{what} shown up to {limit:.1f} bits; the curves reach {top:.1f} bits at low τ",
                transform=ax.transAxes, ha="center", va="bottom", fontsize=7, color="0.3", gid="cut")
        ax.set_title(ax.get_title(), pad=14)


def _ru_mi_limits(ax: Any, curves: Any, summary: Any, p: Panel, namespace: str, methods: Sequence[str],
                  points: Mapping[str, tuple[float, float]] | None, mi_limit: float | str | None) -> None:
    sel = curves[(curves["namespace"] == namespace) & curves["method"].isin(list(methods))]
    finite = [float(v) for v in (sel[p.x].max(), sel[p.y].max()) if v == v] if len(sel) else []
    xs = finite[:1] or [1.0]
    ys = finite[1:2] or [1.0]
    marks = [(row[p.at_x], row[p.at_y]) for m in methods
             if (row := _optimum(summary, m, namespace, p.measure)) is not None]
    marks += list((points or {}).values())
    xmax = max([*xs, *(x for x, _ in marks if x == x)]) * 1.05 or 1.0
    ymax = max([*ys, *(y for _, y in marks if y == y)]) * 1.05 or 1.0
    if mi_limit == "auto":
        ymax = min(ymax, max([2.5 * xmax, *(1.2 * y for _, y in marks if y == y)]))
    elif mi_limit is not None:
        ymax = float(mi_limit)
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, ymax)


def _available(curves: Any, panels: Sequence[str] | None) -> list[Panel]:
    bad = [n for n in (panels or []) if n not in _PANEL_BY_NAME]
    if bad:
        raise InvalidParameterError(f"The 'panels' parameter of fig4_figure must list names among "
                                    f"{[p.name for p in PANELS]}; got {list(panels or [])!r}.")
    chosen = [_PANEL_BY_NAME[n] for n in panels] if panels is not None else list(PANELS)
    return [p for p in chosen if p.x in curves.columns and p.y in curves.columns]


def _points_for(points: PointsArg, namespace: str, panel: str) -> dict[str, tuple[float, float]]:
    out = {}
    for name, where in (points or {}).items():
        xy = where.get((namespace, panel), where.get(panel))
        if xy is not None:
            out[name] = (float(xy[0]), float(xy[1]))
    return out


def fig4_figure(curves: Any, summary: Any, namespace: str, *, methods: Sequence[str] | None = None,
                points: PointsArg = None, colors: Mapping[str, str] | None = None, k: float = 2.0,
                panels: Sequence[str] | None = None, panel_size: float = 4.2,
                mi_limit: float | str | None = "auto"):  # noqa: ANN201 - Figure
    """The four 2D plots of Clark & Radivojac (2013) Fig. 4 for one namespace.

    Columns: (recall, precision), (weighted recall, weighted precision),
    (ru, mi) and (wru, wmi) in bits, every method as one curve over the
    thresholds, each curve marked at its optimum from the summary (Fmax,
    weighted Fmax, Smin, weighted Smin) and labelled with the value (and
    bootstrap interval when the summary has ``ci_low``/``ci_high``) and the
    coverage at the optimum. Iso-F contours (F = 0.1 ... 0.9) lie under the
    precision-recall panels, iso-S_k contours under the ru-mi panels.
    Panels whose columns the curves lack (no IA: no weighted or ru-mi
    panels) are left out.

    Parameters
    ----------
    curves, summary : pandas.DataFrame
        ``curves.tsv`` and ``summary.tsv``, or a result's ``curves`` and ``summary``.
    namespace : str
        Namespace label (``MFO``...), in any case; a GO namespace's OBO name
        (``molecular_function``) names its label.
    methods : sequence of str, optional
        Methods to draw, in order (default all).
    points : mapping of str to mapping, optional
        Single points per panel: name -> {panel: (x, y)}, where a panel key
        is ``'pr'``, ``'wpr'``, ``'rumi'``, ``'wrumi'`` or a
        ``(namespace, panel)`` pair; e.g. ``{"GO vs Swiss-Prot": {"pr": (0.8, 0.9)}}``.
    colors : mapping of str to colour, optional
        Fixed colours (others follow :func:`~goeval.report.style.result_colors` of
        ``summary`` and ``curves``: the same colour for a method in every figure).
    k : float
        Order of S_k for the iso-S contours (the run's ``--k``, default 2).
    panels : sequence of str, optional
        A subset of the panels, in order.
    panel_size : float
        Width and height of one panel, inches.
    mi_limit : 'auto', float or None
        Top of the misinformation axes (see :func:`draw_panel`).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidParameterError
        A namespace the curves do not hold (the message lists those they hold), or curves without the
        columns of any panel asked for.
    """
    chosen = _available(curves, panels)
    if not chosen:
        raise InvalidParameterError("The 'curves' parameter of fig4_figure must have the columns of at least one "
                                    "panel (recall and precision at least); got " + ", ".join(map(str, curves.columns)) + ".")
    namespace = _namespace(curves, namespace, "fig4_figure")
    methods = _methods(curves, methods)
    colors = _colors(curves, summary, colors, points)
    fig = new_figure(panel_size * len(chosen), panel_size + _legend_height(len(methods) + len(points or {})))
    axes = fig.subplots(1, len(chosen), squeeze=False)[0]
    for ax, p in zip(axes, chosen):
        draw_panel(ax, curves, summary, p, namespace, colors=colors, methods=methods,
                   points=_points_for(points, namespace, p.name), k=k, mi_limit=mi_limit)
    lines = max(sum(t.get_text().count("\n") + 1 for t in ax.get_legend().get_texts()) if ax.get_legend() else 0
                for ax in axes)
    fig.set_figheight(panel_size + _legend_height(lines))  # room for the longest legend under the panels
    return fig


def panel_figure(curves: Any, summary: Any, namespace: str, panel: str, **kwargs: Any):  # noqa: ANN201
    """One Fig. 4 panel as its own figure (arguments as :func:`fig4_figure`)."""
    return fig4_figure(curves, summary, namespace, panels=[panel], **kwargs)


# ------------------------------------------------------------ other figures
def information_content_figure(annotations: Any, ia: Any = None, *, bins: int = 40,
                               log: bool = False):  # noqa: ANN201 - Figure
    """Distribution of the information content i(T) per protein (CR13 Fig. 3).

    Parameters
    ----------
    annotations : Annotations or mapping of str to array
        Truth annotations (propagated here when they are not), with ``ia``;
        or namespace -> i(T) values (bits) already computed.
    ia : array of shape (n_terms,), optional
        Information accretion (bits), needed with annotations.
    bins : int
        Histogram bins per namespace.
    log : bool
        Logarithmic horizontal axis (CR13 notes a Gaussian-like shape of BPO
        in the logarithmic scale); proteins with i(T) = 0 are then left out.

    Returns
    -------
    matplotlib.figure.Figure
        One histogram per namespace, titled with the mean and standard
        deviation (bits) as in the paper's caption.
    """
    values = _information_by_namespace(annotations, ia)
    fig = new_figure(4.0 * max(len(values), 1), 3.4)
    axes = fig.subplots(1, max(len(values), 1), squeeze=False)[0]
    colors = method_colors(values)
    for ax, (ns, v) in zip(axes, values.items()):
        v = np.asarray(v, dtype=np.float64)
        shown = v[v > 0] if log else v
        edges = np.geomspace(shown.min(), shown.max(), bins + 1) if log and shown.size and shown.min() < shown.max() else bins
        ax.hist(shown, bins=edges, color=colors[ns], edgecolor="white", linewidth=0.4, gid=f"hist:{ns}")
        if log:
            ax.set_xscale("log", base=2)
        ax.set_xlabel("information content i(T) (bits)")
        ax.set_ylabel("proteins")
        title = figure_text(ns)
        ax.set_title(f"{title}: mean {v.mean():.1f}, std {v.std():.1f} bits (n = {v.size:,})" if v.size else title)
    return fig


def _information_by_namespace(annotations: Any, ia: Any) -> dict[str, np.ndarray]:
    if isinstance(annotations, Mapping):
        return {str(k): np.asarray(v, dtype=np.float64) for k, v in annotations.items()}
    if ia is None:
        raise InvalidParameterError("The 'ia' parameter of information_content_figure is needed with annotations; got None.")
    # deferred: the annotations stack (networkx, pyarrow) only for this figure; goeval plot and report never need it
    from goeval.annotations import propagate
    from goeval.information.accretion import information_content  # deferred: as propagate

    ann = annotations if annotations.propagated else propagate(annotations)
    ia = np.asarray(getattr(ia, "values", ia), dtype=np.float64)
    out = {}
    for label in ann.ontology.labels:
        sub = ann.namespace(label)
        if sub.matrix.shape[0]:
            out[label] = information_content(ia, sub)
    return out


def coverage_figure(curves: Any, *, namespaces: Sequence[str] | None = None, methods: Sequence[str] | None = None,
                    colors: Mapping[str, str] | None = None):  # noqa: ANN201 - Figure
    """Coverage (share of benchmark proteins with a prediction) against the threshold, per namespace
    (``namespaces``: those the curves hold, by default; another is an error listing them)."""
    namespaces = [_namespace(curves, n, "coverage_figure") for n in namespaces] if namespaces else \
        list(dict.fromkeys(curves["namespace"].tolist()))
    methods = _methods(curves, methods)
    colors = result_colors(curves, fixed=colors)
    fig = new_figure(4.0 * max(len(namespaces), 1), 3.4 + _legend_height(len(methods)))
    axes = fig.subplots(1, max(len(namespaces), 1), squeeze=False)[0]
    for ax, ns in zip(axes, namespaces):
        for m in methods:
            c = _rows(curves, m, ns).sort_values("threshold")
            if not c.empty:
                (line,) = ax.plot(c["threshold"].to_numpy(), c["coverage"].to_numpy(), color=colors[m], lw=1.5,
                                  drawstyle="steps-post", label=figure_text(m))
                line.set_gid(f"curve:{m}")
        ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="threshold τ (score)", ylabel="coverage (share of proteins)",
               title=f"{figure_text(ns)}: coverage")
        _legend_below(ax)
    return fig


def optima_figure(summary: Any, *, measures: Sequence[str] = ("fmax", "smin"), methods: Sequence[str] | None = None,
                  colors: Mapping[str, str] | None = None):  # noqa: ANN201 - Figure
    """Bar charts of optima per namespace and method, with bootstrap intervals when present.

    One column of panels per measure (default Fmax and Smin), one row per
    namespace; error bars span ``ci_low``-``ci_high`` when the summary has
    those columns (``goeval evaluate --bootstrap``). Bars carry the gid
    ``bar:<method>``.
    """
    measures = [m for m in measures if (summary["measure"] == m).any()]
    if not measures:
        raise InvalidParameterError("The 'measures' parameter of optima_figure must name measures of the summary; "
                                    f"got none of {sorted(set(summary['measure']))}.")
    namespaces = [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"]
    methods = _methods(summary, methods)
    colors = result_colors(summary, fixed=colors)
    has_ci = {"ci_low", "ci_high"} <= set(summary.columns)
    fig = new_figure(max(3.0, 0.6 * len(methods) + 1.6) * len(measures), 3.2 * len(namespaces))
    axes = fig.subplots(len(namespaces), len(measures), squeeze=False)
    for c, measure in enumerate(measures):
        for r, ns in enumerate(namespaces):
            ax = axes[r][c]
            _bars(ax, summary, measure, ns, methods, colors, has_ci)
            ax.set_ylabel(measure_label(measure))
            ax.set_title(f"{figure_text(ns)}: {measure_label(measure, unit=False)}"
                         + (" (bootstrap CI)" if has_ci else ""))
    return fig


def _bars(ax: Any, summary: Any, measure: str, ns: str, methods: list[str], colors: Mapping[str, str],
          has_ci: bool) -> None:
    x = np.arange(len(methods))
    for i, m in enumerate(methods):
        row = _optimum(summary, m, ns, measure)
        if row is None:
            continue
        v = float(row["value"])
        if v != v:  # undefined (e.g. an IA covering none of the terms): said, not a missing bar
            ax.text(x[i], 0.0, "undefined\n(nan)", ha="center", va="bottom", fontsize=7, color=colors[m],
                    gid=f"undefined:{m}")
            continue
        bars = ax.bar([x[i]], [v], color=colors[m], width=0.7)
        bars.patches[0].set_gid(f"bar:{m}")
        if has_ci and row["ci_low"] == row["ci_low"] and row["ci_high"] == row["ci_high"]:
            _interval_bar(ax, x[i], float(row["ci_low"]), float(row["ci_high"]), m)
    ax.set_xticks(x, [figure_text(m) for m in methods], rotation=30, ha="right", fontsize=8)
    if not lower_is_better(measure) and measure_label(measure) == measure_label(measure, unit=False):
        ax.set_ylim(0, 1)  # a ratio maximised (F, coverage, Lin...): its whole range


def _interval_bar(ax: Any, x: float, low: float, high: float, method: str) -> None:
    """The bootstrap interval ``[low, high]`` as an error bar at ``x``, drawn on its own: a percentile interval
    need not contain the point estimate (a narrow ``--confidence``, a skewed resampling distribution), so the
    bar spans the interval, wherever the value lies (gid ``ci:<method>``)."""
    mid, half = (low + high) / 2, (high - low) / 2
    _line, _caps, (segments,) = ax.errorbar([x], [mid], yerr=[[half], [half]], fmt="none", ecolor="black", capsize=4)
    segments.set_gid(f"ci:{method}")


def tap_curve_figure(tap_curve: Any, retrieval_summary: Any = None, *, methods: Sequence[str] | None = None,
                     colors: Mapping[str, str] | None = None):  # noqa: ANN201 - Figure
    """Mean TAP against the score cutoff, per namespace (TAP-k paper, Fig. 5).

    The curve is ``tap_curve.tsv`` of ``goeval retrieval``; with the
    retrieval summary, each curve's peak (``peak_tap`` at ``peak_cutoff``)
    is marked (gid ``optimum:<method>``). The cutoff axis runs from strict
    (high scores) to lenient, as the paper's E-value axis does.
    """
    namespaces = list(dict.fromkeys(tap_curve["namespace"].tolist()))
    methods = _methods(tap_curve, methods)
    colors = result_colors(retrieval_summary, tap_curve, fixed=colors)
    fig = new_figure(4.2 * max(len(namespaces), 1), 3.6 + _legend_height(2 * len(methods)))
    axes = fig.subplots(1, max(len(namespaces), 1), squeeze=False)[0]
    for ax, ns in zip(axes, namespaces):
        for m in methods:
            c = _rows(tap_curve, m, ns)
            if c.empty:
                continue
            (line,) = ax.plot(c["cutoff"].to_numpy(), c["tap"].to_numpy(), color=colors[m], lw=1.5,
                              drawstyle="steps-post", label=figure_text(m))
            line.set_gid(f"curve:{m}")
            peak = None if retrieval_summary is None else _rows(retrieval_summary, m, ns)
            if peak is not None and not peak.empty and {"peak_tap", "peak_cutoff"} <= set(peak.columns):
                pk = peak.iloc[0]
                (mark,) = ax.plot([pk["peak_cutoff"]], [pk["peak_tap"]], "o", color=colors[m], mec="black", ms=7,
                                  label=f"peak TAP {pk['peak_tap']:.3f} at {pk['peak_cutoff']:.3g}")
                mark.set_gid(f"optimum:{m}")
        ax.invert_xaxis()
        ax.set(xlabel="score cutoff (strict → lenient)", ylabel="mean TAP over term queries",
               title=f"{figure_text(ns)}: TAP vs cutoff")
        ax.set_ylim(bottom=0)
        _legend_below(ax)
    return fig


# ------------------------------------------------------------ the figures papers print
#: The group of a result evaluated per group (``goeval evaluate --groups``) that holds the whole benchmark.
ALL_GROUP = "all"

#: The measures of the top-N bars and of F against k, each a panel when the summary holds it.
PAPER_MEASURES: tuple[str, ...] = ("fmax", "wfmax", "smin")


def whole_benchmark(frame: Any) -> Any:
    """The rows of a frame that are about the whole benchmark: all of them, or those of the group ``all`` (without
    the ``group`` column) when the result was evaluated per group; None stays None."""
    if frame is None or "group" not in frame.columns:
        return frame
    return frame[frame["group"].astype(str) == ALL_GROUP].drop(columns="group")


def result_groups(frame: Any) -> list[str]:
    """The groups of a result evaluated per group, ``all`` first, then in order of first appearance; empty for a
    result without groups (no ``group`` column, or ``all`` alone)."""
    if frame is None or "group" not in frame.columns:
        return []
    groups = [g for g in dict.fromkeys(frame["group"].astype(str).tolist()) if g != ALL_GROUP]
    return [ALL_GROUP, *groups] if groups else []


def rank_thresholds_run(results: Any) -> bool:
    """Whether a result was evaluated at rank thresholds: its recorded ``options.thresholds`` is the label of rank
    thresholds (``the top 1, 3, 5 terms (3 rank thresholds)``) or the option itself (``top:1,3,5``)."""
    options = (getattr(results, "diagnostics", None) or {}).get("options") or {}
    return str(options.get("thresholds", "")).startswith(("the top ", "top:"))


def _values(summary: Any, namespace: str, measure: str) -> dict[str, Mapping[str, Any]]:
    """Each method's summary row of one measure and namespace, in the summary's order."""
    rows = summary[(summary["namespace"] == namespace) & (summary["measure"] == measure)]
    out: dict[str, Mapping[str, Any]] = {}
    for m, r in zip(rows["method"].tolist(), rows.to_dict("records")):
        out.setdefault(m, r)
    return out


def top_methods(summary: Any, namespace: str, measure: str, n: int = 10,
                baselines: Sequence[str] = ()) -> tuple[list[str], list[str], int]:
    """The methods a top-N panel draws, in order.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``summary.tsv`` (of the whole benchmark: see :func:`whole_benchmark`).
    namespace, measure : str
    n : int
        How many methods to rank.
    baselines : sequence of str
        Methods drawn as baselines besides :data:`~goeval.report.style.BASELINE_NAMES`.

    Returns
    -------
    ranked : list of str
        The ``n`` best methods that are not baselines, best first (the
        largest value of a maximised measure, the smallest of a minimised
        one; ties in the summary's order); a method whose value is
        undefined (nan) is not ranked.
    baselines : list of str
        The baselines the summary holds, in its order, whatever their value.
    total : int
        How many methods were ranked (the ``n`` shown are the best of them).
    """
    if n < 1:
        raise InvalidParameterError(f"The 'n' parameter of top_methods must be an integer >= 1; got {n!r}.")
    rows = _values(summary, namespace, measure)
    values = {m: float(r["value"]) for m, r in rows.items()}
    ranked = [m for m, v in values.items() if not is_baseline(m, baselines) and v == v]
    ranked.sort(key=lambda m: values[m], reverse=not lower_is_better(measure))  # stable: ties in the summary's order
    return ranked[:n], [m for m in values if is_baseline(m, baselines)], len(ranked)


def top_methods_figure(summary: Any, namespace: str, *, measures: Sequence[str] = PAPER_MEASURES, n: int = 10,
                       baselines: Sequence[str] = (),
                       colors: Mapping[str, str] | None = None):  # noqa: ANN201 - Figure
    """The ``n`` best methods of one namespace as bars, the baselines apart (CAFA2 and CAFA3's figures).

    One panel per measure the summary holds (default Fmax, weighted Fmax,
    Smin): the best methods first (:func:`top_methods`), then, after a gap
    marked by a dotted line, the baselines as hatched bars, not counted
    among the ``n``. Error bars span the bootstrap interval when the
    summary has ``ci_low``/``ci_high``; ``C`` in a bar is the coverage at
    the optimum. Bars carry the gids ``bar:<method>`` (ranked) and
    ``baseline:<method>``, intervals ``ci:<method>``, coverage texts
    ``coverage:<method>``.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``summary.tsv`` or a result's summary (a result evaluated per
        group: its group ``all``).
    namespace : str
        A namespace of the summary (any case, or a GO namespace's OBO name).
    measures : sequence of str
        The measures, one panel each, in order (those the summary lacks are left out).
    n : int
        How many methods each panel ranks.
    baselines : sequence of str
        Methods drawn as baselines besides naive, BLAST and GOtcha
        (:data:`~goeval.report.style.BASELINE_NAMES`).
    colors : mapping of str to colour, optional
        Colours that win over :func:`~goeval.report.style.result_colors`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidParameterError
        A namespace the summary does not hold, none of ``measures`` in it, or ``n`` below 1.
    """
    summary = whole_benchmark(summary)
    namespace = _namespace(summary, namespace, "top_methods_figure")
    held = set(summary.loc[summary["namespace"] == namespace, "measure"])
    chosen = [m for m in measures if m in held]
    if not chosen:
        raise InvalidParameterError(f"The 'measures' parameter of top_methods_figure must name measures of the "
                                    f"summary; got none of {sorted(held)}: {list(measures)!r}.")
    colors = result_colors(summary, fixed=colors)
    drawn = [top_methods(summary, namespace, m, n, baselines) for m in chosen]
    slots = max(len(r) + len(b) + (1 if r and b else 0) for r, b, _ in drawn)
    fig = new_figure(max(3.2, 0.38 * slots + 1.4) * len(chosen), 3.9)
    axes = fig.subplots(1, len(chosen), squeeze=False)[0]
    has_ci = {"ci_low", "ci_high"} <= set(summary.columns)
    for ax, measure, (ranked, base, total) in zip(axes, chosen, drawn):
        _top_panel(ax, _values(summary, namespace, measure), ranked, base, colors, has_ci, measure)
        best = f"the {len(ranked)} best of {total} methods" if total > len(ranked) else \
            f"{total} method{'s' if total != 1 else ''}"
        ax.set_title(f"{figure_text(namespace)}: {measure_label(measure, unit=False)}, {best}"
                     + (" (bootstrap CI)" if has_ci else ""), fontsize=9)
        ax.set_ylabel(_better(measure))
    if any((t.get_gid() or "").startswith("coverage:") for ax in axes for t in ax.texts):
        fig.supxlabel("C: the coverage at the optimum (share of benchmark proteins predicted at its threshold)",
                      fontsize=7, color="0.3")
    return fig


def _better(measure: str) -> str:
    """A measure's label with its unit, and ``lower is better`` for a minimised one."""
    return measure_label(measure) + (", lower is better" if lower_is_better(measure) else "")


def _top_panel(ax: Any, rows: Mapping[str, Mapping[str, Any]], ranked: list[str], base: list[str],
               colors: Mapping[str, str], has_ci: bool, measure: str) -> None:
    """One top-N panel: the ranked bars, the gap, the baselines' hatched bars."""
    from matplotlib.colors import to_rgba  # deferred: matplotlib (plot extra) only when a figure is drawn

    at = {m: float(i) for i, m in enumerate(ranked)}
    at.update({m: float(len(ranked) + (1 if ranked else 0) + i) for i, m in enumerate(base)})
    top = 0.0
    for m, x in at.items():
        row, baseline = rows[m], m in base
        v = float(row["value"])
        if v != v:
            ax.text(x, 0.0, "undefined\n(nan)", ha="center", va="bottom", fontsize=7, gid=f"undefined:{m}")
            continue
        style = {"facecolor": to_rgba(colors[m], 0.3), "edgecolor": colors[m], "hatch": "///", "linewidth": 1.0} \
            if baseline else {"color": colors[m]}
        (bar,) = ax.bar([x], [v], width=0.7, **style).patches
        bar.set_gid(f"{'baseline' if baseline else 'bar'}:{m}")
        lo, hi = (float(row["ci_low"]), float(row["ci_high"])) if has_ci else (float("nan"),) * 2
        if lo == lo and hi == hi:
            _interval_bar(ax, x, lo, hi, m)
        top = max(top, v, hi if hi == hi else v)
        cov = row.get("coverage")
        if cov is not None and cov == cov:
            ax.text(x, 0.0, f" C={float(cov):.2f}", rotation=90, ha="center", va="bottom", fontsize=6,
                    bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "alpha": 0.7, "linewidth": 0},
                    gid=f"coverage:{m}")
    ax.set_xticks(list(at.values()), [figure_text(m) for m in at], rotation=35, ha="right", fontsize=8)
    ax.set_xlim(-0.6, max(at.values(), default=0.0) + 0.6)
    if not lower_is_better(measure) and measure_label(measure) == measure_label(measure, unit=False):
        ax.set_ylim(0, 1)  # a ratio maximised (F, coverage...): its whole range
    else:
        ax.set_ylim(0, (top or 1.0) * 1.12)
    if ranked and base:
        gap = len(ranked)
        ax.axvline(gap, color="0.6", linestyle=":", linewidth=1.0, gid="gap")
        ax.text((gap + 1 + at[base[-1]]) / 2, 0.98, "baselines", transform=ax.get_xaxis_transform(), ha="center",
                va="top", fontsize=7, color="0.3", gid="baselines")


def diagnostic_group_sizes(results: Any) -> dict[tuple[str, str], int]:
    """The benchmark proteins of each (namespace, group) from a run's diagnostics (``groups`` and the whole
    benchmark's ``namespaces``); empty when they do not say."""
    diag = getattr(results, "diagnostics", None) or {}
    sizes = {(ns, ALL_GROUP): int(d.get("benchmark_proteins", 0)) for ns, d in (diag.get("namespaces") or {}).items()}
    for name, g in (diag.get("groups") or {}).items():
        sizes.update({(ns, str(name)): int(n) for ns, n in (g.get("benchmark_proteins") or {}).items()})
    return sizes if diag.get("groups") else {}


def group_sizes(curves: Any) -> dict[tuple[str, str], int]:
    """The benchmark proteins of each (namespace, group) of a result evaluated per group: ``n_proteins`` of its
    curves (the same at every threshold and for every method); empty without curves, groups or that column."""
    if curves is None or not len(curves) or not {"group", "n_proteins"} <= set(curves.columns):
        return {}
    sizes = curves.assign(group=curves["group"].astype(str)).groupby(["namespace", "group"], sort=False)["n_proteins"]
    return {(str(ns), str(g)): int(v) for (ns, g), v in sizes.max().items() if v == v}


def groups_figure(summary: Any, measure: str = "fmax", *, sizes: Mapping[tuple[str, str], int] | None = None,
                  namespaces: Sequence[str] | None = None, methods: Sequence[str] | None = None,
                  baselines: Sequence[str] = ()):  # noqa: ANN201 - Figure
    """A methods x groups heat map of one measure per namespace, with each group's size.

    Rows: the methods that are not baselines, best first by their value on
    the whole benchmark (group ``all``; a minimised measure: the smallest
    first), then the baselines (:func:`~goeval.report.style.is_baseline`)
    below a white line. Columns: ``all``, then the groups in the summary's
    order, each labelled with its number of benchmark proteins in the
    namespace (``sizes``). Each cell shows its value; the better end of the
    colour scale is the same (yellow) for a maximised and a minimised
    measure, and one scale serves every namespace; an undefined value (nan)
    is a grey cell. The image of a namespace carries the gid
    ``heatmap:<namespace>``, its array the values drawn; namespaces are
    drawn one under the other.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``summary.tsv`` of a result evaluated per group (a ``group`` column).
    measure : str
        A summary measure (default Fmax).
    sizes : mapping of (namespace, group) to int, optional
        The benchmark proteins of each group (:func:`group_sizes` of the curves); without: labels without sizes.
    namespaces, methods : sequence of str, optional
        The namespaces (panels) and methods (rows) to draw (default all).
    baselines : sequence of str
        Methods drawn as baselines besides naive, BLAST and GOtcha.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidParameterError
        A summary without groups, a measure it does not hold, a namespace it does not hold.
    """
    groups = result_groups(summary)
    if not groups:
        raise InvalidParameterError("The 'summary' parameter of groups_figure must be of a result evaluated per "
                                    "group (a group column with groups besides 'all'); got "
                                    + ("no group column." if "group" not in summary.columns else "the group 'all' alone."))
    rows = summary[summary["measure"] == measure].assign(group=lambda f: f["group"].astype(str))
    if rows.empty:
        raise InvalidParameterError(f"The 'measure' parameter of groups_figure must name a measure of the summary; "
                                    f"got {measure!r} (held: {sorted(set(summary['measure']))}).")
    namespaces = [_namespace(rows, n, "groups_figure") for n in namespaces] if namespaces else \
        [n for n in dict.fromkeys(rows["namespace"].tolist()) if n != "all"]
    panels = [_group_matrix(rows, ns, measure, groups, _methods(rows, methods), baselines) for ns in namespaces]
    finite = np.concatenate([v[np.isfinite(v)] for _, v, _ in panels] or [np.zeros(0)])
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    cmap = _heat_cmap(measure)
    heights = [1.0 + 0.3 * max(len(order), 1) for order, _, _ in panels]  # a namespace under the other: one width
    fig = new_figure(max(4.0, 1.6 + 0.85 * len(groups)) + 1.2, sum(heights) + 0.8)
    axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=heights)[:, 0]
    image = None
    for ax, ns, (order, values, n_base) in zip(axes, namespaces, panels):
        image = _heat_panel(ax, values, cmap, lo, hi, measure)
        image.set_gid(f"heatmap:{ns}")
        _heat_labels(ax, order, groups, [(sizes or {}).get((ns, g)) for g in groups], n_base)
        ax.set_title(f"{figure_text(ns)}: {measure_label(measure, unit=False)} per group", fontsize=9)
    axes[-1].set_xlabel("group of benchmark proteins (n: proteins in the namespace)", fontsize=8)
    fig.colorbar(image, ax=list(axes), label=_better(measure), shrink=0.9)
    return fig


def _group_matrix(rows: Any, namespace: str, measure: str, groups: list[str], methods: list[str],
                  baselines: Sequence[str]) -> tuple[list[str], np.ndarray, int]:
    """(methods in row order, values methods x groups, number of baselines) of one namespace."""
    block = rows[rows["namespace"] == namespace]
    value = {(m, g): float(v) for m, g, v in zip(block["method"], block["group"], block["value"])}
    held = [m for m in methods if any((m, g) in value for g in groups)]
    whole = {m: value.get((m, ALL_GROUP), float("nan")) for m in held}
    sign = 1.0 if lower_is_better(measure) else -1.0
    ranked = sorted((m for m in held if not is_baseline(m, baselines)),
                    key=lambda m: (whole[m] != whole[m], sign * whole[m] if whole[m] == whole[m] else 0.0))
    base = [m for m in held if is_baseline(m, baselines)]
    order = ranked + base
    values = np.array([[value.get((m, g), float("nan")) for g in groups] for m in order], dtype=np.float64)
    return order, values.reshape(len(order), len(groups)), len(base)


def _heat_cmap(measure: str) -> Any:
    """Viridis with the better end yellow: reversed for a minimised measure; nan cells grey."""
    from matplotlib import colormaps  # deferred: matplotlib (plot extra) only when a figure is drawn

    return colormaps["viridis_r" if lower_is_better(measure) else "viridis"].with_extremes(bad="0.85")


def _heat_panel(ax: Any, values: np.ndarray, cmap: Any, lo: float, hi: float, measure: str) -> Any:
    """The cells of one namespace, each with its value written in a colour that reads on it."""
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=lo, vmax=hi if hi > lo else lo + 1e-9,
                      aspect="auto", interpolation="nearest")
    fmt = ".2f" if measure_label(measure) != measure_label(measure, unit=False) else ".3f"
    for (i, j), v in np.ndenumerate(values):
        if v != v:
            ax.text(j, i, "nan", ha="center", va="center", fontsize=7, color="0.3", gid="cell")
            continue
        r, g, b, _ = image.cmap(image.norm(v))
        ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
        ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=7, color=ink, gid="cell")
    return image


def _heat_labels(ax: Any, methods: list[str], groups: list[str], sizes: list[int | None], n_base: int) -> None:
    """Method names down the side, groups (with their sizes) across; a white line above the baselines."""
    import textwrap

    many = len(groups) > 8  # upright, names wrapped, below that; slanted past it
    labels = [figure_text(g if many else textwrap.fill(g, 12, break_long_words=False))
              + (f"\nn = {s:,}" if s is not None else "") for g, s in zip(groups, sizes)]
    ax.set_xticks(range(len(groups)), labels, fontsize=7, rotation=40 if many else 0, ha="right" if many else "center",
                  rotation_mode="anchor")
    ax.set_yticks(range(len(methods)), [figure_text(m) for m in methods], fontsize=7)
    ax.tick_params(length=0)
    ax.axvline(0.5, color="white", linewidth=2.5, gid="all-line")  # the whole benchmark apart from its groups
    if n_base and n_base < len(methods):
        ax.axhline(len(methods) - n_base - 0.5, color="white", linewidth=2.5, gid="baseline-line")


def rank_figure(curves: Any, summary: Any, namespace: str, *, measures: Sequence[str] = PAPER_MEASURES,
                methods: Sequence[str] | None = None,
                colors: Mapping[str, str] | None = None):  # noqa: ANN201 - Figure
    """F (and each other measure's curve) against k, for a result evaluated at rank thresholds.

    One panel per measure whose curve column the curves hold (default F,
    weighted F and S): one line per method through its value at each k
    (``goeval evaluate --thresholds top:1,3,5,10,all``: the ``threshold``
    column holds k), on a categorical axis, ``inf`` drawn as ``all``; the
    optimum over k of the summary (Fmax...) is ringed. Lines carry the gid
    ``curve:<method>``, optima ``optimum:<method>``.

    Parameters
    ----------
    curves, summary : pandas.DataFrame
        ``curves.tsv`` and ``summary.tsv`` of the run (a result evaluated
        per group: its group ``all``); the summary may be None.
    namespace : str
    measures : sequence of str
        Summary measures, one panel each, in order.
    methods : sequence of str, optional
        The methods to draw, in order (default all).
    colors : mapping of str to colour, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InvalidParameterError
        A namespace the curves do not hold, or none of the measures' columns in them.
    """
    from goeval.metrics.registry import get_measure  # deferred: as in goeval.report.style

    curves, summary = whole_benchmark(curves), whole_benchmark(summary)
    namespace = _namespace(curves, namespace, "rank_figure")
    chosen = [m for m in measures if get_measure(m).column in curves.columns]
    if not chosen:
        raise InvalidParameterError(f"The 'measures' parameter of rank_figure must name measures whose curve "
                                    f"column the curves hold; got {list(measures)!r}.")
    methods = _methods(curves, methods)
    colors = result_colors(summary, curves, fixed=colors)
    ks = sorted(set(curves.loc[curves["namespace"] == namespace, "threshold"].astype(float)))
    fig = new_figure(4.4 * len(chosen), 3.4 + _legend_height(len(methods)))
    axes = fig.subplots(1, len(chosen), squeeze=False)[0]
    for ax, measure in zip(axes, chosen):
        _rank_panel(ax, curves, summary, namespace, measure, methods, colors, ks)
    return fig


def _rank_panel(ax: Any, curves: Any, summary: Any, namespace: str, measure: str, methods: list[str],
                colors: Mapping[str, str], ks: list[float]) -> None:
    from goeval.metrics.registry import get_measure  # deferred: as in goeval.report.style

    column, at = get_measure(measure).column, {k: i for i, k in enumerate(ks)}
    for i, m in enumerate(methods):
        c = _rows(curves, m, namespace).sort_values("threshold")
        if c.empty:
            continue
        row = _optimum(summary, m, namespace, measure)
        label = m if row is None else f"{m}: {_opt_text(row, measure)}"
        x = [at[float(k)] for k in c["threshold"]]
        (line,) = ax.plot(x, c[column].to_numpy(), "-o", color=colors[m], ms=3.5, lw=1.5, zorder=10 + i,
                          label=figure_text(_wrap(label, _legend_chars(ax))))
        line.set_gid(f"curve:{m}")
        if row is not None and float(row["threshold"]) in at and row["value"] == row["value"]:
            (mark,) = ax.plot([at[float(row["threshold"])]], [row["value"]], "o", color=colors[m], ms=8,
                              mec="black", mew=0.8, zorder=100 + i)
            mark.set_gid(f"optimum:{m}")
    name = _curve_name(measure)
    ax.set_xticks(range(len(ks)), [rank_text(k) for k in ks])
    ax.set_xlim(-0.4, len(ks) - 0.6)
    ax.set_xlabel("k (best-scoring terms kept per protein)")
    ax.set_ylabel(name if not get_measure(measure).unit else f"{name} ({get_measure(measure).unit})")
    if not lower_is_better(measure) and not get_measure(measure).unit:
        ax.set_ylim(0, 1)
    ax.set_title(f"{figure_text(namespace)}: {name} against k", fontsize=9)
    _legend_below(ax)


def _opt_text(row: Mapping[str, Any], measure: str) -> str:
    """``Fmax 0.519 [0.49, 0.55] at k = 10``: the optimum over k, its interval when computed."""
    text = f"{measure_label(measure, unit=False)} {_fmt(float(row['value']))}"
    lo, hi = row.get("ci_low"), row.get("ci_high")
    if lo is not None and hi is not None and lo == lo and hi == hi:
        text += f" [{_fmt(float(lo))}, {_fmt(float(hi))}]"
    return text + f" at k = {rank_text(float(row['threshold']))}"


def _curve_name(measure: str) -> str:
    """The quantity a measure optimises, as its label names it without ``max``/``min``: Fmax -> F, weighted Fmax ->
    weighted F, Smin -> S."""
    import re

    return re.sub(r"(?<=\w)(max|min)\b", "", measure_label(measure, unit=False))


# ------------------------------------------------------------ all figures of a result
def results_figures(results: Any, *, points: PointsArg = None, panels: bool = False,
                    k: float | None = None, top: int = 10, baselines: Sequence[str] = ()) -> dict[str, Any]:
    """Every figure a result supports, by file stem.

    Parameters
    ----------
    results : ResultsDir or EvaluationResult
        Anything with ``curves`` and ``summary`` frames (either may be
        ``None``), optionally ``tap_curve``, ``retrieval_summary`` and
        ``diagnostics`` (its ``options.k`` sets the S_k order, its
        ``options.thresholds`` says whether the run used rank thresholds).
    points : mapping, optional
        Single points for the Fig. 4 panels (see :func:`fig4_figure`).
    panels : bool
        Also each Fig. 4 panel as a figure of its own (``fig4_<NS>_<panel>``).
    k : float, optional
        S_k order of the iso-S contours (default: the run's, else 2).
    top : int
        How many methods the top-N bars rank (:func:`top_methods_figure`).
    baselines : sequence of str
        Methods drawn as baselines besides naive, BLAST and GOtcha.

    Returns
    -------
    dict of str to Figure
        ``fig4_<NS>`` per namespace (``/`` and ``\\`` in it replaced by ``_``) and its panels, ``coverage``
        (not for rank thresholds: its axis is the score), ``optima`` (Fmax and Smin bars, with bootstrap
        intervals when the summary has them; an undefined optimum is written "undefined (nan)" in place of its
        bar), ``top_<NS>`` per namespace when a method is not a baseline (:func:`top_methods_figure`),
        ``rank_<NS>`` per namespace for rank thresholds (:func:`rank_figure`), ``calibration_<NS>`` per
        namespace when the result has ``calibration.tsv`` (:func:`goeval.report.reliability.reliability_figure`),
        ``groups_<measure>`` of Fmax,
        weighted Fmax and Smin for a result evaluated per group (:func:`groups_figure`), ``tap_curve`` when
        retrieval curves are present; for a time split, each kind's figures prefixed ``nk_``, ``lk_``,
        ``pk_`` and titled with the kind. A result evaluated per group draws the figures but the heat maps
        from its group ``all``.
    """
    from goeval.report.reliability import calibration_figures  # the reliability figure's own module

    require_matplotlib()
    parts = getattr(results, "parts", None) or {}
    if parts:  # a time split: each kind's figures, named and titled by the kind
        figs = {}
        for kind, part in parts.items():
            for name, fig in results_figures(part, points=points, panels=panels, k=k, top=top,
                                             baselines=baselines).items():
                fig.suptitle(f"{figure_text(kind)} targets", fontsize=10)
                figs[f"{kind.lower()}_{name}"] = fig
        return figs
    figs = _curve_figures(results, points, panels, _run_k(results) if k is None else k)
    figs.update(_summary_figures(results, top, baselines))
    figs.update(metric_check_figures(results))
    figs.update(calibration_figures(results))
    tap = getattr(results, "tap_curve", None)
    if tap is not None and len(tap):
        retrieval = getattr(results, "retrieval_summary", None)
        frames = (getattr(results, "summary", None), getattr(results, "curves", None), retrieval, tap)
        figs["tap_curve"] = tap_curve_figure(tap, retrieval, colors=result_colors(*frames))
    kind = (getattr(results, "diagnostics", None) or {}).get("kind")
    if isinstance(kind, str):  # one kind of a time split, read on its own
        for fig in figs.values():
            fig.suptitle(f"{figure_text(kind)} targets", fontsize=10)
    return figs


def _curve_figures(results: Any, points: PointsArg, panels: bool, k: float) -> dict[str, Any]:
    """Fig. 4 (and its panels), F against k for rank thresholds, else the coverage: of the whole benchmark."""
    curves = whole_benchmark(getattr(results, "curves", None))
    summary = whole_benchmark(getattr(results, "summary", None))
    if curves is None or not len(curves):
        return {}
    colors = result_colors(summary, curves)
    methods = list(colors)
    ranks = rank_thresholds_run(results)
    figs: dict[str, Any] = {}
    for ns in dict.fromkeys(curves["namespace"].tolist()):
        stem = figure_stem(ns)
        figs[f"fig4_{stem}"] = fig4_figure(curves, summary, ns, methods=methods, points=points, colors=colors, k=k)
        for p in _available(curves, None) if panels else []:
            figs[f"fig4_{stem}_{p.name}"] = panel_figure(curves, summary, ns, p.name, methods=methods, points=points,
                                                         colors=colors, k=k)
        if ranks:
            figs[f"rank_{stem}"] = rank_figure(curves, summary, ns, methods=methods, colors=colors)
    if not ranks:
        figs["coverage"] = coverage_figure(curves, methods=methods, colors=colors)
    return figs


def _summary_figures(results: Any, top: int, baselines: Sequence[str]) -> dict[str, Any]:
    """The optima, the top-N bars per namespace and, per group, the heat maps."""
    grouped = getattr(results, "summary", None)
    summary, curves = whole_benchmark(grouped), whole_benchmark(getattr(results, "curves", None))
    if summary is None or not len(summary):
        return {}
    colors = result_colors(summary, curves)
    figs: dict[str, Any] = {}
    if summary["measure"].isin(["fmax", "smin"]).any():
        figs["optima"] = optima_figure(summary, colors=colors)
    ranked = any(not is_baseline(m, baselines) for m in summary["method"])
    for ns in [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"]:
        held = set(summary.loc[summary["namespace"] == ns, "measure"])
        if ranked and held & set(PAPER_MEASURES):
            figs[f"top_{figure_stem(ns)}"] = top_methods_figure(summary, ns, n=top, baselines=baselines,
                                                                colors=colors)
    grouped = getattr(results, "group_summary", None) if getattr(results, "group_summary", None) is not None \
        else grouped
    if result_groups(grouped):
        sizes = group_sizes(getattr(results, "curves", None)) or diagnostic_group_sizes(results)
        for measure in [m for m in PAPER_MEASURES if (grouped["measure"] == m).any()]:
            figs[f"groups_{measure}"] = groups_figure(grouped, measure, sizes=sizes, baselines=baselines)
    return figs


#: Colours of the false-positive sets in the metric-check figure (the paper's Fig. 4: naive red, all positive blue,
#: random green).
_FP_COLORS = {"naive": "tab:red", "all_positive": "tab:blue", "random": "tab:green"}


def metric_check_figures(results: Any) -> dict[str, Any]:
    """``metric_check_<NS>`` of a ``goeval metric-check`` folder: per namespace, one panel per measure (in the
    table's order, by FPS) of its value against the signal level, every AP set a point, the medians joined, each
    FP set a horizontal line (naive red, all positive blue, random green, as Plyusnin et al. 2019 Fig. 4),
    titled with RC and FPS; empty for other results."""
    values, table = getattr(results, "metric_check_values", None), getattr(results, "metric_check", None)
    if values is None or table is None or not len(values):
        return {}
    figs = {}
    for ns in dict.fromkeys(table["namespace"].tolist()):
        rows = table[table["namespace"] == ns].to_dict("records")
        cols = min(5, len(rows))
        n_rows = -(-len(rows) // cols)
        fig = new_figure(2.6 * cols, 2.3 * n_rows + 0.4)
        axes = fig.subplots(n_rows, cols, squeeze=False).ravel()
        for ax, row in zip(axes, rows):
            v = values[(values["namespace"] == ns) & (values["measure"] == row["measure"])]
            ap = v[v["replicate"] > 0]
            ax.plot(ap["signal"].to_numpy(), ap["value"].to_numpy(), "o", ms=2.5, color="0.4")
            med = ap.groupby("signal")["value"].median()
            ax.plot(med.index.to_numpy(), med.to_numpy(), "-", color="black", lw=1)
            for name, color in _FP_COLORS.items():
                fp = v.loc[v["set"] == name, "value"]
                if len(fp):
                    ax.axhline(float(fp.iloc[0]), color=color, lw=1.2, label=name.replace("_", " "))
            label = row.get("label") if isinstance(row.get("label"), str) else row["measure"]
            ax.set_title(f"{figure_text(label)}\nRC {row['rc']:.2f}  FPS {row['fps']:.2f}", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("signal", fontsize=7)
        for ax in axes[len(rows):]:
            ax.set_axis_off()
        axes[0].legend(fontsize=6, loc="best")
        fig.suptitle(f"{figure_text(ns)}: measures against the ADS signal level", fontsize=10)
        figs[f"metric_check_{figure_stem(ns)}"] = fig
    return figs


def _run_k(results: Any) -> float:
    """The S_k order of a result's run (its recorded ``options.k``), else 2."""
    run_k = ((getattr(results, "diagnostics", None) or {}).get("options") or {}).get("k")
    return float(run_k) if isinstance(run_k, (int, float)) and not isinstance(run_k, bool) and run_k >= 1 else 2.0


#: The figures of one result, by the ``kind`` of :func:`result_figure` (:meth:`goeval.EvaluationResult.plot`):
#: Fig. 4 (its four panels) or one of its panels, the coverage, the optima with their intervals.
FIGURE_KINDS: tuple[str, ...] = ("fig4", *(p.name for p in PANELS), "coverage", "optima")


def result_figure(result: Any, kind: str = "fig4", namespace: str | None = None,
                  **kwargs: Any):  # noqa: ANN201 - Figure
    """One figure of a result: what :meth:`goeval.EvaluationResult.plot` draws.

    Parameters
    ----------
    result : EvaluationResult or ResultsDir
        Anything with ``curves`` and ``summary`` frames (and ``diagnostics``: the run's ``k``).
    kind : {'fig4', 'pr', 'wpr', 'rumi', 'wrumi', 'coverage', 'optima'}
        :func:`fig4_figure`, one of its panels (:func:`panel_figure`),
        :func:`coverage_figure` or :func:`optima_figure`.
    namespace : str, optional
        The namespace (a label as held, in any case, or a GO namespace's OBO
        name). Default: the result's only namespace for Fig. 4 and its
        panels, every namespace for the coverage and the optima.
    **kwargs
        Passed to the figure's function (``methods``, ``colors``, ``points``, ``measures``...).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    GoevalError
        matplotlib (the ``plot`` extra) is not installed.
    InvalidParameterError
        An unknown kind; a namespace the result does not hold (the message
        lists those it holds), or none for Fig. 4 of a result of several
        namespaces; curves asked of a result without them.
    """
    require_matplotlib()
    check_choice(kind, "kind", "plot", FIGURE_KINDS)
    curves, summary = whole_benchmark(getattr(result, "curves", None)), whole_benchmark(getattr(result, "summary", None))
    held = [n for n in dict.fromkeys(summary["namespace"].tolist()) if n != "all"] if summary is not None else []
    namespace = None if namespace is None else held_namespace(namespace, held, "plot")
    if kind == "optima":
        return optima_figure(summary if namespace is None else summary[summary["namespace"] == namespace], **kwargs)
    if curves is None or not len(curves):
        raise InvalidParameterError(f"The 'kind' parameter of plot must be 'optima' for a result without curves "
                                    f"(evaluated with curves='none', or nothing evaluated); got {kind!r}.")
    if kind == "coverage":
        return coverage_figure(curves, namespaces=None if namespace is None else [namespace], **kwargs)
    if namespace is None and len(held) != 1:
        raise InvalidParameterError(f"The 'namespace' parameter of plot must name one of this result's namespaces "
                                    f"{held} for kind={kind!r} (one namespace per figure); got None.")
    namespace = held[0] if namespace is None else namespace
    kwargs.setdefault("k", _run_k(result))
    if kind == "fig4":
        return fig4_figure(curves, summary, namespace, **kwargs)
    return panel_figure(curves, summary, namespace, kind, **kwargs)


def figure_bytes(fig: Any, format: str = "png", dpi: int = 110) -> bytes:
    """The rendered figure (``png``, ``svg`` or ``pdf``) as bytes, for :func:`goeval.io.results_dir.write_files`.

    SVG and PDF are written without timestamps or random ids, so the same
    figure gives the same bytes.
    """
    if format not in ("png", "svg", "pdf"):
        raise InvalidParameterError(f"The 'format' parameter of figure_bytes must be one of {{'png', 'svg', 'pdf'}}; got {format!r}.")
    buf = io.BytesIO()
    metadata: dict[str, Any] = {"png": {"Software": None}, "svg": {"Date": None},
                                "pdf": {"CreationDate": None, "ModDate": None}}[format]
    with _rc({"svg.hashsalt": "goeval"}):
        fig.savefig(buf, format=format, dpi=dpi, metadata=metadata)
    return buf.getvalue()


def _rc(params: dict[str, Any]):  # noqa: ANN202 - context manager
    import matplotlib  # deferred: matplotlib (plot extra) only when a figure is drawn

    return matplotlib.rc_context(params)
