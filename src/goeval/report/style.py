"""Shared look of goeval's figures: method colours, panel definitions, axis labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from goeval.errors import GoevalError, InvalidParameterError
from goeval.metrics.registry import get_measure, measures

__all__ = ["Panel", "PANELS", "method_colors", "require_matplotlib", "new_figure", "measure_label",
           "lower_is_better", "ranked_measures"]

#: Colour cycle (matplotlib's tab10, written out so that colours never depend on rcParams).
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


def _measure(name: str) -> Any:
    """The registered measure called ``name`` (None for a name the registry does not know)."""
    try:
        return get_measure(name)
    except InvalidParameterError:
        return None


def measure_label(name: str, *, unit: bool = True) -> str:
    """How reports and figures name a summary measure: its registered label (and unit), else its name."""
    ms = _measure(name)
    if ms is None:
        return name
    return ms.display if unit else (ms.label or ms.name)


def lower_is_better(name: str) -> bool:
    """Whether a summary measure is minimised (its registered direction; unknown names: maximised)."""
    ms = _measure(name)
    return ms is not None and not ms.higher_is_better


def ranked_measures(present: Iterable[str]) -> list[str]:
    """The registered measures the report ranks methods by (``ranked=True``), among those present, in order."""
    have = set(present)
    return [m.name for m in measures("protein") if m.ranked and m.name in have]


@dataclass(frozen=True)
class Panel:
    """One panel of Clark & Radivojac (2013) Fig. 4.

    Attributes
    ----------
    name : str
        Short name (``pr``, ``wpr``, ``rumi``, ``wrumi``), used in file names.
    x, y : str
        Curve columns on the horizontal and vertical axes.
    measure : str
        Summary measure whose optimum is marked on each curve.
    at_x, at_y : str
        Summary columns holding the optimum's coordinates.
    xlabel, ylabel, title : str
        Axis labels (with units) and panel title.
    iso : {'f', 's'}
        Contours drawn underneath: iso-F or iso-S_k.
    """

    name: str
    x: str
    y: str
    measure: str
    at_x: str
    at_y: str
    xlabel: str
    ylabel: str
    title: str
    iso: str


#: The four panels, in the paper's column order.
PANELS: tuple[Panel, ...] = (
    Panel("pr", "recall", "precision", "fmax", "recall", "precision",
          "recall", "precision", "precision-recall", "f"),
    Panel("wpr", "wrecall", "wprecision", "wfmax", "recall", "precision",
          "weighted recall", "weighted precision", "weighted precision-recall", "f"),
    Panel("rumi", "ru", "mi", "smin", "ru", "mi",
          "remaining uncertainty ru (bits)", "misinformation mi (bits)", "ru-mi", "s"),
    Panel("wrumi", "wru", "wmi", "wsmin", "ru", "mi",
          "weighted remaining uncertainty wru (bits)", "weighted misinformation wmi (bits)", "weighted ru-mi", "s"),
)


def method_colors(names: Iterable[str], fixed: Mapping[str, str] | None = None) -> dict[str, str]:
    """A colour per name, in order, cycling through :data:`PALETTE`; ``fixed`` entries win.

    The same list of names always gives the same colours, so every panel
    and every figure of one result shows a method in one colour.
    """
    out = dict(fixed or {})
    i = len(out)
    for name in names:
        if name in out:
            continue
        out[name] = PALETTE[i % len(PALETTE)]
        i += 1
    return out


def require_matplotlib() -> None:
    """Raise a clear error when matplotlib (the ``plot`` extra) is not installed."""
    try:
        import matplotlib  # noqa: F401 - optional (plot extra): only whether it is installed
    except ImportError:
        raise GoevalError("plots need matplotlib: install it with pip install 'goeval[plot]'") from None


def new_figure(width: float, height: float):  # noqa: ANN201 - matplotlib.figure.Figure
    """A Figure that renders off screen (Agg), independent of pyplot's global state."""
    require_matplotlib()
    from matplotlib.figure import Figure  # deferred: matplotlib (plot extra) only when a figure is drawn

    return Figure(figsize=(width, height), layout="constrained")
