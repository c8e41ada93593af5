"""Figures of an evaluation: Clark & Radivojac (2013) Fig. 3 and Fig. 4, coverage, optima, TAP.

Every function returns a :class:`matplotlib.figure.Figure` built off screen
(Agg; pyplot's global state is never touched), so figures show in a
notebook and render on a server without a display. Curves come from
``curves.tsv`` (or :attr:`goeval.EvaluationResult.curves`), optima from
``summary.tsv`` (:attr:`~goeval.EvaluationResult.summary`); the functions
draw, they compute nothing but contour grids.

Drawn elements carry a ``gid`` so that tests (and users) can find the data
behind a figure: ``curve:<method>``, ``optimum:<method>``,
``point:<name>``, ``iso:<kind>``.

Needs matplotlib (``pip install 'goeval[plot]'``).

References
----------
Clark W. T., Radivojac P. (2013) Information-theoretic evaluation of
predicted ontological annotations. Bioinformatics 29(13):i53-i61, Fig. 3
(information content per protein) and Fig. 4 (the four 2D plots).
Carroll H. D. et al. (2010) Threshold Average Precision (TAP-k).
Bioinformatics 26(14):1708-1713, Fig. 5 (TAP against the cutoff).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError, check_choice
from goeval.io.names import held_namespace
from goeval.report.style import (PANELS, Panel, coverage_column, figure_stem, figure_text, lower_is_better,
                                  measure_label, method_colors, new_figure, require_matplotlib, result_colors)

__all__ = [
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


# ------------------------------------------------------------ all figures of a result
def results_figures(results: Any, *, points: PointsArg = None, panels: bool = False,
                    k: float | None = None) -> dict[str, Any]:
    """Every figure a result supports, by file stem.

    Parameters
    ----------
    results : ResultsDir or EvaluationResult
        Anything with ``curves`` and ``summary`` frames (either may be
        ``None``), optionally ``tap_curve``, ``retrieval_summary`` and
        ``diagnostics`` (its ``options.k`` sets the S_k order).
    points : mapping, optional
        Single points for the Fig. 4 panels (see :func:`fig4_figure`).
    panels : bool
        Also each Fig. 4 panel as a figure of its own (``fig4_<NS>_<panel>``).
    k : float, optional
        S_k order of the iso-S contours (default: the run's, else 2).

    Returns
    -------
    dict of str to Figure
        ``fig4_<NS>`` per namespace (``/`` and ``\\`` in it replaced by ``_``) and its panels, ``coverage``,
        ``optima`` (Fmax and Smin bars, with bootstrap intervals when the
        summary has them; an undefined optimum is written "undefined (nan)"
        in place of its bar), ``tap_curve`` when retrieval curves are
        present; for a time split, each kind's figures prefixed ``nk_``,
        ``lk_``, ``pk_`` and titled with the kind.
    """
    require_matplotlib()
    parts = getattr(results, "parts", None) or {}
    if parts:  # a time split: each kind's figures, named and titled by the kind
        figs = {}
        for kind, part in parts.items():
            for name, fig in results_figures(part, points=points, panels=panels, k=k).items():
                fig.suptitle(f"{figure_text(kind)} targets", fontsize=10)
                figs[f"{kind.lower()}_{name}"] = fig
        return figs
    curves, summary = getattr(results, "curves", None), getattr(results, "summary", None)
    k = _run_k(results) if k is None else k
    figs: dict[str, Any] = {}
    if curves is not None and len(curves):
        colors = result_colors(summary, curves)
        methods = list(colors)
        for ns in dict.fromkeys(curves["namespace"].tolist()):
            figs[f"fig4_{figure_stem(ns)}"] = fig4_figure(curves, summary, ns, methods=methods, points=points, colors=colors,
                                                    k=k)
            for p in _available(curves, None) if panels else []:
                figs[f"fig4_{figure_stem(ns)}_{p.name}"] = panel_figure(curves, summary, ns, p.name, methods=methods, points=points,
                                                           colors=colors, k=k)
        figs["coverage"] = coverage_figure(curves, methods=methods, colors=colors)
    if summary is not None and len(summary) and summary["measure"].isin(["fmax", "smin"]).any():
        figs["optima"] = optima_figure(summary, colors=result_colors(summary, curves))
    tap = getattr(results, "tap_curve", None)
    if tap is not None and len(tap):
        retrieval = getattr(results, "retrieval_summary", None)
        figs["tap_curve"] = tap_curve_figure(tap, retrieval, colors=result_colors(summary, curves, retrieval, tap))
    kind = (getattr(results, "diagnostics", None) or {}).get("kind")
    if isinstance(kind, str):  # one kind of a time split, read on its own
        for fig in figs.values():
            fig.suptitle(f"{figure_text(kind)} targets", fontsize=10)
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
    curves, summary = getattr(result, "curves", None), getattr(result, "summary", None)
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
