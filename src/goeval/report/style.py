"""Shared look of goeval's figures: method colours, panel definitions, axis labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from goeval.errors import GoevalError, InvalidParameterError
from goeval.metrics.registry import get_measure, measures

__all__ = ["Panel", "PANELS", "PALETTE", "BASELINE_COLORS", "BASELINE_NAMES", "is_baseline", "method_colors", "result_colors", "require_matplotlib",
           "new_figure", "measure_label", "lower_is_better", "ranked_measures", "value_format", "cafaeval_name",
           "coverage_column", "figure_text", "figure_stem", "rank_text"]

#: The Okabe-Ito colours (Okabe & Ito 2008, "Color Universal Design"), distinguishable with the common
#: colour-vision deficiencies, written out so that colours never depend on rcParams. Methods take them
#: in this order (yellow, the faintest on white, last); black and orange are kept for the baselines.
OKABE_ITO = {"blue": "#0072B2", "vermillion": "#D55E00", "bluish green": "#009E73", "reddish purple": "#CC79A7",
             "sky blue": "#56B4E9", "yellow": "#F0E442", "orange": "#E69F00", "black": "#000000"}

#: goeval's reference baselines (names as its baselines write them, any case): one colour in every figure.
BASELINE_COLORS = {"naive": OKABE_ITO["black"], "blast": OKABE_ITO["orange"]}

#: The methods that figures draw as baselines, apart from the methods they rank (names as goeval's baselines
#: write them, any case): CAFA's naive and BLAST baselines, and GOtcha.
BASELINE_NAMES = ("naive", "blast", "gotcha")

#: Colour cycle of the other methods (and of namespaces, points): Okabe-Ito without the baselines' colours.
PALETTE = tuple(c for c in OKABE_ITO.values() if c not in BASELINE_COLORS.values())


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


def coverage_column(name: str) -> str:
    """The curve column of the coverage reported with a measure (``coverage``, or ``coverage_w`` for weighted ones)."""
    ms = _measure(name)
    return (ms.coverage if ms is not None else None) or "coverage"


def value_format(name: str) -> str:
    """How tables round a measure's values: 4 decimals for a ratio, 3 for a value with a unit (bits, terms)."""
    ms = _measure(name)
    return ".3f" if ms is not None and ms.unit else ".4f"


#: CAFA-evaluator's names of goeval's measures (``evaluation_best_<name>.tsv``; docs/cafaeval.md, "Columns").
_CAFAEVAL = {"fmax": "f", "wfmax": "f_w", "smin": "s_w (not s)", "wsmin": "(none)", "smin_terms": "s",
             "fmax_micro": "f_micro", "wfmax_micro": "f_micro_w", "max_coverage": "cov_max",
             "aupr": "aps (plotting notebook)", "waupr": "aps of pr_w, rc_w", "cafa5_score": "Kaggle CAFA 5 score"}


def cafaeval_name(name: str) -> str:
    """CAFA-evaluator's name of a summary measure (its best-row file's metric), '' when it has none to give."""
    return _CAFAEVAL.get(name, "")


def lower_is_better(name: str) -> bool:
    """Whether a summary measure is minimised (its registered direction; unknown names: maximised)."""
    ms = _measure(name)
    return ms is not None and not ms.higher_is_better


def ranked_measures(present: Iterable[str]) -> list[str]:
    """The registered measures the report ranks methods by (``ranked=True``), among those present, in order."""
    have = set(present)
    return [m.name for m in measures("protein") if m.ranked and m.name in have]


@dataclass(frozen=True, kw_only=True)
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
    Panel(name="pr", x="recall", y="precision", measure="fmax", at_x="recall", at_y="precision",
          xlabel="recall", ylabel="precision", title="precision-recall", iso="f"),
    Panel(name="wpr", x="wrecall", y="wprecision", measure="wfmax", at_x="recall", at_y="precision",
          xlabel="weighted recall", ylabel="weighted precision", title="weighted precision-recall", iso="f"),
    Panel(name="rumi", x="ru", y="mi", measure="smin", at_x="ru", at_y="mi",
          xlabel="remaining uncertainty ru (bits)", ylabel="misinformation mi (bits)", title="ru-mi", iso="s"),
    Panel(name="wrumi", x="wru", y="wmi", measure="wsmin", at_x="ru", at_y="mi",
          xlabel="weighted remaining uncertainty wru (bits)", ylabel="weighted misinformation wmi (bits)",
          title="weighted ru-mi", iso="s"),
)


def method_colors(names: Iterable[str], fixed: Mapping[str, str] | None = None) -> dict[str, str]:
    """A colour per name: ``fixed`` entries, then the baselines' colours, then :data:`PALETTE` in order.

    Parameters
    ----------
    names : iterable of str
        Method (or point, namespace) names, in the order that assigns the
        palette's colours.
    fixed : mapping of str to colour, optional
        Colours that win over every rule.

    Returns
    -------
    dict of str to str
        ``fixed`` and then every name, each with its colour. ``naive`` and
        ``blast`` (any case) always get :data:`BASELINE_COLORS`; the other
        names take the palette's colours that ``fixed`` does not use, in
        order, cycling when they run out. The same list gives the same
        colours, and a name's colour depends only on ``fixed`` and the
        names before it.
    """
    out = dict(fixed or {})
    free = [c for c in PALETTE if c not in set(out.values())] or list(PALETTE)
    i = 0
    for name in names:
        if name in out:
            continue
        base = BASELINE_COLORS.get(str(name).lower())
        if base is not None:
            out[name] = base
            continue
        out[name] = free[i % len(free)]
        i += 1
    return out


def is_baseline(name: str, baselines: Iterable[str] = ()) -> bool:
    """Whether a method is a baseline: one of :data:`BASELINE_NAMES` (any case), or named in ``baselines`` (as
    written).

    Examples
    --------
    >>> is_baseline("BLAST"), is_baseline("BB4S"), is_baseline("BB4S", ["BB4S"])
    (True, False, True)
    """
    return str(name).lower() in BASELINE_NAMES or name in set(baselines)


def result_colors(*frames: Any, fixed: Mapping[str, str] | None = None) -> dict[str, str]:
    """The colour of every method of one result: :func:`method_colors` over its methods in order.

    Parameters
    ----------
    *frames : pandas.DataFrame or None
        Frames with a ``method`` column, e.g. the summary then the curves:
        the methods in order of first appearance over all of them.
    fixed : mapping of str to colour, optional

    Returns
    -------
    dict of str to str

    Notes
    -----
    Every figure function takes its colours from here, over the whole
    frames it is given, so a figure drawn for a subset or a reordering of
    the methods (``methods=``) shows each one in the colour it has in the
    figures of the whole result, and the HTML report marks it so.
    """
    names: dict[Any, None] = {}
    for frame in frames:
        if frame is not None and len(frame) and "method" in frame.columns:
            names.update(dict.fromkeys(frame["method"].tolist()))
    return method_colors(names, fixed)


def require_matplotlib() -> None:
    """Raise a clear error when matplotlib (the ``plot`` extra) is not installed."""
    try:
        import matplotlib  # noqa: F401 - optional (plot extra): only whether it is installed
    except ImportError:
        raise GoevalError("plots need matplotlib: install it with pip install 'goeval[plot]'") from None


def figure_text(text: str) -> str:
    r"""``text`` (a method, namespace or kind read from a result) as matplotlib shows it literally.

    Matplotlib reads the text between two ``$`` as mathtext (``$\alpha$`` is a Greek letter, ``$\foo{$`` an
    error that stops the figure); each ``$`` escaped as ``\$`` leaves no math to parse and is drawn as ``$``,
    whatever the rest of the text holds (a backslash before it included).

    Examples
    --------
    >>> figure_text("x$\\foo{$"), figure_text("BLAST")
    ('x\\$\\foo{\\$', 'BLAST')
    """
    return text.replace("$", "\\$")


def rank_text(k: float) -> str:
    """A rank threshold as it is read: ``5`` (the 5 best terms), ``all`` for every term (``inf``).

    Examples
    --------
    >>> rank_text(5.0), rank_text(float("inf"))
    ('5', 'all')
    """
    return "all" if float(k) == float("inf") else f"{float(k):g}"


def figure_stem(name: str) -> str:
    """A namespace as part of a figure's name (file stem): ``/`` and ``\\`` replaced by ``_`` (a name is not a
    path; a namespace ``/../../x`` read from someone else's curves must not put a figure outside the folder).

    Examples
    --------
    >>> figure_stem("MFO"), figure_stem("/../../x")
    ('MFO', '_.._.._x')
    """
    return name.replace("/", "_").replace("\\", "_")


def new_figure(width: float, height: float):  # noqa: ANN201 - matplotlib.figure.Figure
    """A Figure that renders off screen (Agg), independent of pyplot's global state."""
    require_matplotlib()
    from matplotlib.figure import Figure  # deferred: matplotlib (plot extra) only when a figure is drawn

    return Figure(figsize=(width, height), layout="constrained")
