"""The reliability figure: whether a method's scores read as probabilities (``calibration.tsv``).

Per namespace one panel of the mean score (x) against the fraction of true
pairs (y) in each score bin, one line per method in its colour
(:func:`goeval.report.style.result_colors`), the diagonal of calibrated
scores, and each method's ECE in the legend; under it a small panel of the
propagated predicted pairs per bin (log scale), so that a bin of a few pairs
is not read as much as one of thousands. The figure draws what
``calibration.tsv`` holds (:mod:`goeval.metrics.calibration`); it computes
nothing.

Drawn elements carry a ``gid`` as in :mod:`goeval.report.plots`:
``curve:<method>`` (the reliability line), ``bins:<method>`` (its pairs per
bin), ``iso:diagonal``.

References
----------
DeGroot M. H., Fienberg S. E. (1983) The comparison and evaluation of forecasters. The Statistician 32:12-22
(the reliability diagram).
Guo C., Pleiss G., Sun Y., Weinberger K. Q. (2017) On calibration of modern neural networks. ICML (Fig. 1:
the diagram with the bins' sizes under it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from goeval.report.style import figure_stem, figure_text, new_figure, result_colors

__all__ = ["reliability_figure", "calibration_figures"]


def _ece(summary: Any, method: str, namespace: str, measure: str) -> float | None:
    """The method's ``ece`` (``wece``) in the namespace from the summary, if it holds one."""
    if summary is None or not len(summary):
        return None
    rows = summary[(summary["method"] == method) & (summary["namespace"] == namespace) & (summary["measure"] == measure)]
    return float(rows["value"].iloc[0]) if len(rows) else None


def _label(method: str, ece: float | None, weighted: bool) -> str:
    name = "weighted ECE" if weighted else "ECE"
    return figure_text(method) if ece is None or ece != ece else f"{figure_text(method)} ({name} {ece:.3f})"


def _panel(ax: Any, bins_ax: Any, rows: Any, method: str, color: str, label: str, weighted: bool) -> None:
    """One method's reliability line (its non-empty bins) and its pairs per bin (a step line, log scale)."""
    prefix = "w" if weighted else ""
    pairs = rows[f"{prefix}pairs"].to_numpy(dtype=float)
    full = pairs > 0
    x, y = rows[f"{prefix}mean_score"].to_numpy(dtype=float)[full], rows[f"{prefix}fraction_true"].to_numpy(dtype=float)[full]
    (line,) = ax.plot(x, y, "o-", color=color, lw=1.5, ms=3.5, label=label)
    line.set_gid(f"curve:{method}")
    edges = np.r_[rows["lower"].to_numpy(dtype=float), rows["upper"].to_numpy(dtype=float)[-1:]]
    shown = np.where(full, pairs, np.nan)  # an empty bin: no step (log scale)
    steps = bins_ax.stairs(shown, edges, color=color, lw=1.2)
    steps.set_gid(f"bins:{method}")


def reliability_figure(calibration: Any, summary: Any = None, *, namespaces: Sequence[str] | None = None,
                       methods: Sequence[str] | None = None, colors: Mapping[str, str] | None = None,
                       weighted: bool = False):  # noqa: ANN201 - Figure
    """The reliability diagram of every method, one panel per namespace, the pairs per bin under each.

    Parameters
    ----------
    calibration : pandas.DataFrame
        ``calibration.tsv`` (:attr:`goeval.EvaluationResult.calibration`).
    summary : pandas.DataFrame, optional
        Its ``ece`` (``wece``) rows give each method's value in the legend.
    namespaces, methods : sequence of str, optional
        Default: those of ``calibration``, in order.
    colors : mapping of str to colour, optional
        Method colours that win (default: the result's, :func:`~goeval.report.style.result_colors`).
    weighted : bool
        The IA-weighted table (``wmean_score``, ``wfraction_true``, ``wpairs``; ``wece`` in the legend).

    Returns
    -------
    matplotlib.figure.Figure
    """
    namespaces = list(namespaces or dict.fromkeys(calibration["namespace"].tolist()))
    methods = list(methods or dict.fromkeys(calibration["method"].tolist()))
    colors = result_colors(summary, calibration, fixed=colors)
    fig = new_figure(4.0 * max(len(namespaces), 1), 5.0 + 0.15 * len(methods))
    grid = fig.add_gridspec(2, max(len(namespaces), 1), height_ratios=(3, 1))
    measure = "wece" if weighted else "ece"
    for k, ns in enumerate(namespaces):
        ax = fig.add_subplot(grid[0, k])
        bins_ax = fig.add_subplot(grid[1, k], sharex=ax)
        (diag,) = ax.plot([0, 1], [0, 1], ls="--", color="0.6", lw=1, label="calibrated")
        diag.set_gid("iso:diagonal")
        for m in methods:
            rows = calibration[(calibration["method"] == m) & (calibration["namespace"] == ns)].sort_values("bin")
            if len(rows):
                _panel(ax, bins_ax, rows, m, colors[m], _label(m, _ece(summary, m, ns, measure), weighted), weighted)
        what = "IA-weighted " if weighted else ""
        ax.set(xlim=(0, 1), ylim=(0, 1.02), ylabel=f"{what}fraction true", title=f"{figure_text(ns)}: reliability")
        ax.tick_params(labelbottom=False)
        bins_ax.set_yscale("log")
        bins_ax.set(xlabel=f"{what}mean score in the bin", ylabel="pairs" if not weighted else "IA of pairs")
        ax.legend(fontsize=7, loc="upper left", frameon=False)
    return fig


def calibration_figures(results: Any) -> dict[str, Any]:
    """``calibration_<NS>``: the reliability figure of each namespace of a result with ``calibration.tsv``
    (weighted ones are not drawn: the table holds them); empty for a result without it (rank thresholds, a
    folder of an earlier goeval)."""
    table = getattr(results, "calibration", None)
    if table is None or not len(table):
        return {}
    summary = getattr(results, "summary", None)
    colors = result_colors(summary, getattr(results, "curves", None), table)
    return {f"calibration_{figure_stem(ns)}": reliability_figure(table, summary, namespaces=[ns], colors=colors)
            for ns in dict.fromkeys(table["namespace"].tolist())}
