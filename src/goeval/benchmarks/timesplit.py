"""CAFA time splits: no-, limited- and partial-knowledge targets (CONVENTIONS §6).

Between annotations at t0 and t1 (mapped on one ontology), per namespace o:

* **NK** (no knowledge): no annotation in any namespace at t0, some in o at t1;
* **LK** (limited knowledge): annotated at t0 in another namespace but not
  in o, annotated in o at t1;
* **PK** (partial knowledge): annotated in o at t0 and gaining new terms in
  o by t1 (the propagated t1 set has a term the propagated t0 set lacks);
  evaluated with the t0 terms as *known*: each protein's known terms
  (propagated) leave its truth and its predictions (``known=`` of
  :func:`goeval.evaluation.namespace_stats`, the CAFA3 / CAFA-evaluator
  partial-knowledge rule; :func:`remove_known` shows the resulting sets).

The truth of a target is its t1 annotation in o (as annotated, unpropagated;
for PK the known terms are removed at evaluation). Optionally the targets
are restricted to proteins with a sequence, and, as in CAFA3, the targets
whose only new term of the namespace is protein binding (GO:0005515) are
dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import functools
import warnings
from collections.abc import Iterator
from typing import Any, Mapping

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations, in_pairs, propagate, remove_pairs
from goeval.baselines import HIT_METHODS, METHODS, naive_list
from goeval.benchmarks.cv import annotated_namespaces
from goeval.diagnostics import Diagnostics
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.evaluation import summarize
from goeval.evaluation.benchmark import make_benchmark
from goeval.evaluation.engine import Plan
from goeval.evaluation.summary import TimeSplitResult, summarize_block
from goeval.evaluation.run import evaluate_blocks, evaluated
from goeval.evaluation.sources import AnnotationsSource, MethodFeed, SharedScoresSource
from goeval.information.accretion import information_accretion
from goeval.information.content import term_information_content
from goeval.io.background import should_fork, start
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.progress import stage, within
from goeval.report.text import plural
from goeval.sparse import keep_entries

__all__ = ["KINDS", "PROTEIN_BINDING", "TimeSplit", "time_split_targets", "remove_known", "evaluate_time_split",
           "iter_time_split", "time_split_information", "HitPredictions"]

#: Target kinds, in report order.
KINDS = ("NK", "LK", "PK")
#: The term CAFA3 removed when it was an MFO target's only new annotation.
PROTEIN_BINDING = "GO:0005515"


@dataclass
class TimeSplit:
    """Targets of a time split and their truth.

    Attributes
    ----------
    targets : dict of str to dict of str to ndarray
        Kind (``NK``, ``LK``, ``PK``) -> namespace label -> sorted protein ids.
    truth : Annotations
        t1 annotations (unpropagated) of every target, restricted to the
        namespaces in which the protein is a target.
    known : Annotations
        t0 annotations (propagated) of the PK targets, in their PK namespaces.
    diagnostics : dict
        Counts: candidates, without sequence, binding-only dropped, kept.
    """

    targets: dict[str, dict[str, np.ndarray]]
    truth: Annotations
    known: Annotations
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def truth_of(self, kind: str) -> Annotations:
        """The truth restricted to the targets of one kind (in their namespaces)."""
        return _restrict(self.truth, {label: t for label, t in self.targets[kind].items()})


def _rows_of(proteins: np.ndarray, universe: np.ndarray) -> np.ndarray:
    index = {p: i for i, p in enumerate(universe.tolist())}
    return np.fromiter((index.get(p, -1) for p in proteins.tolist()), np.int64, proteins.size)


def _membership(ann: Annotations, universe: np.ndarray) -> np.ndarray:
    """Bool (len(universe), n_namespaces): annotated in the namespace."""
    out = np.zeros((universe.size, len(ann.ontology.namespaces)), bool)
    rows = _rows_of(ann.proteins, universe)
    ok = rows >= 0
    out[rows[ok]] = annotated_namespaces(ann)[ok]
    return out


def _restrict(ann: Annotations, keep: Mapping[str, np.ndarray]) -> Annotations:
    """Entries of ``ann`` in namespace ``label`` for the proteins ``keep[label]`` only."""
    onto = ann.ontology
    m = ann.matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    ok = np.zeros(m.nnz, bool)
    for label, prots in keep.items():
        j = onto.namespace_index(label)
        chosen = np.isin(ann.proteins.astype(str), np.asarray(prots, dtype=object).astype(str))
        ok |= chosen[rows] & (onto.namespace_of[m.indices] == j)
    ptr = keep_entries(m.indptr, ok)
    sel = np.flatnonzero(np.diff(ptr) > 0)
    sub = sp.csr_array((m.data[ok], m.indices[ok], ptr), shape=m.shape)[sel]
    return Annotations(proteins=ann.proteins[sel], matrix=sp.csr_array(sub), ontology=onto, propagated=ann.propagated,
                       diagnostics=dict(ann.diagnostics))


def _new_terms(t0p: Annotations, t1: Annotations, universe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per (protein of universe, namespace): count of propagated t1 terms not in t0,
    and whether the only unpropagated new t1 term is protein binding."""
    onto = t1.ontology
    n_ns = len(onto.namespaces)
    t1p = propagate(t1)
    keys0 = _keys(t0p, universe)
    new = np.zeros((universe.size, n_ns), np.int64)
    r1, c1 = _entries(t1p, universe)
    fresh = ~in_pairs(r1, c1, keys0, onto.n_terms)
    np.add.at(new, (r1[fresh], onto.namespace_of[c1[fresh]]), 1)
    binding_only = np.zeros((universe.size, n_ns), bool)
    idx, _ = onto.resolve([PROTEIN_BINDING])
    if idx[0] >= 0:
        b = int(idx[0])
        r, c = _entries(t1, universe)
        fresh = ~in_pairs(r, c, keys0, onto.n_terms)
        n_fresh = np.zeros((universe.size, n_ns), np.int64)
        np.add.at(n_fresh, (r[fresh], onto.namespace_of[c[fresh]]), 1)
        has_b = np.zeros(universe.size, bool)
        has_b[r[fresh & (c == b)]] = True
        binding_only[:, onto.namespace_of[b]] = has_b & (n_fresh[:, onto.namespace_of[b]] == 1)
    return new, binding_only


def _entries(ann: Annotations, universe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = ann.matrix.tocsr()
    pos = _rows_of(ann.proteins, universe)
    rows = np.repeat(pos, np.diff(m.indptr))
    return rows, m.indices.astype(np.int64)


def _keys(ann: Annotations, universe: np.ndarray) -> np.ndarray:
    r, c = _entries(ann, universe)
    return np.sort(r * ann.ontology.n_terms + c)


def time_split_targets(
    ontology: Ontology,
    t0: Annotations,
    t1: Annotations,
    *,
    namespaces: Any = None,
    sequences: Any = None,
    drop_binding_only: bool = False,
) -> TimeSplit:
    """No-, limited- and partial-knowledge targets between two annotation snapshots.

    Parameters
    ----------
    ontology : Ontology
    t0, t1 : Annotations
        Annotations at t0 and t1 on ``ontology`` (e.g. experimental GOA).
    namespaces : sequence of str, optional
        Namespace labels or names; default all.
    sequences : sequence of str, optional
        Proteins with a sequence (FASTA ids, or the queries of a hit table);
        targets without one are dropped (counted).
    drop_binding_only : bool
        Drop the targets whose only new term of the namespace of protein
        binding (GO:0005515, MFO) is protein binding, as CAFA3 did.

    Returns
    -------
    TimeSplit
    """
    for a, name in ((t0, "t0"), (t1, "t1")):
        if a.ontology is not ontology or a.is_scores:
            raise InvalidParameterError(f"The {name!r} parameter of time_split_targets must hold annotations on the given ontology.")
    labels = [ontology.labels[ontology.namespace_index(n)] for n in (namespaces or ontology.labels)]
    t0p = propagate(t0)
    universe = np.asarray(sorted(set(t0.proteins.tolist()) | set(t1.proteins.tolist())), dtype=object)
    in0, in1 = _membership(t0p, universe), _membership(t1, universe)
    new, binding_only = _new_terms(t0p, t1, universe)
    any0 = in0.any(axis=1)
    has_seq = np.ones(universe.size, bool) if sequences is None else np.isin(
        universe.astype(str), np.asarray(list(sequences), dtype=object).astype(str))
    targets: dict[str, dict[str, np.ndarray]] = {k: {} for k in KINDS}
    diag: dict[str, Any] = {"proteins_t0": int(t0.proteins.size), "proteins_t1": int(t1.proteins.size),
                            "sequence_restriction": sequences is not None, "targets": {}}
    for label in labels:
        j = ontology.namespace_index(label)
        cand = {"NK": ~any0 & in1[:, j], "LK": any0 & ~in0[:, j] & in1[:, j], "PK": in0[:, j] & (new[:, j] > 0)}
        for kind, c in cand.items():
            d = {"candidates": int(c.sum()), "without_sequence": int((c & ~has_seq).sum())}
            c = c & has_seq
            if drop_binding_only:
                d["binding_only_dropped"] = int((c & binding_only[:, j]).sum())
                c = c & ~binding_only[:, j]
            d["targets"] = int(c.sum())
            targets[kind][label] = universe[c]
            diag["targets"].setdefault(kind, {})[label] = d
    truth = _restrict(t1, {label: np.concatenate([targets[k][label] for k in KINDS]) for label in labels})
    known = _restrict(t0p, {label: targets["PK"][label] for label in labels})
    diag["truth_pairs"] = {k: {label: int(_restrict(t1, {label: targets[k][label]}).matrix.nnz) for label in labels}
                           for k in KINDS}
    return TimeSplit(targets, truth, known, diag)


# --------------------------------------------------------- known terms (PK)
def remove_known(truth: Annotations, predictions: Mapping[str, Annotations], known: Annotations,
                 propagation: str = "max") -> tuple[Annotations, dict[str, Annotations]]:
    """Remove each protein's known terms from its truth and its predictions.

    The partial-knowledge rule of CAFA3 and CAFA-evaluator, as separate
    annotation sets: truth and predictions are propagated (predictions
    with ``propagation``), then every (protein, term) pair of the
    propagated known annotations is dropped from both
    (:func:`goeval.annotations.remove_pairs`). A protein whose truth
    becomes empty leaves the benchmark. The evaluation applies the same
    rule itself with ``namespace_stats(..., known=known)`` /
    ``goeval evaluate --known``; this function shows the sets it evaluates.

    Parameters
    ----------
    truth : Annotations
    predictions : mapping of str to Annotations
    known : Annotations
        Known (e.g. t0) annotations; propagated here.
    propagation : {'max', 'fill'}

    Returns
    -------
    truth, predictions
        Propagated (``propagated=True``) and without the known pairs; rows
        of empty truth are dropped. Their sets are no longer closed under
        ancestors (a known ancestor is gone): do not propagate them again.
        ``diagnostics`` counts the ``known_pairs_removed``.
    """
    kp = known if known.propagated else propagate(known)

    def strip(ann: Annotations, mode: str, drop_empty: bool) -> Annotations:
        out = remove_pairs(ann if ann.propagated else propagate(ann, mode), kp, drop_empty=drop_empty)
        out.diagnostics["known_pairs_removed"] = out.diagnostics.pop("pairs_removed")
        return out

    return strip(truth, "max", True), {k: strip(p, propagation, False) for k, p in predictions.items()}


# ------------------------------------------------------ baselines on a split
class HitPredictions:
    """A hit method's predictions for the targets of one kind, made namespace by namespace when iterated.

    Each namespace's predictions are for that namespace's targets only, and
    only one namespace's are held at a time; ``on_predictions(method,
    label, annotations)`` sees each before it is evaluated (to write it).
    ``diagnostics`` gathers each namespace's hit counts.
    """

    def __init__(self, method: str, ontology: Ontology, t0: Annotations, hits: Any, per_ns: dict[str, np.ndarray],
                 filters: dict[str, Any], max_terms: int | None, on_predictions: Any = None) -> None:
        self.method, self.ontology, self.t0, self.hits, self.per_ns = method, ontology, t0, hits, per_ns
        self.filters, self.max_terms, self.on_predictions = filters, max_terms, on_predictions
        self.diagnostics: dict[str, Any] = {"method": method, "filters": dict(filters), "namespaces": {}}
        self.held: list[Annotations] | None = None  # hold(): made once, given again to every group

    def hold(self) -> "HitPredictions":
        """Keep the predictions once made, so that every group evaluates the same ones (made once)."""
        self.held = []
        return self

    def __iter__(self) -> Iterator[Annotations]:
        if self.held:
            yield from self.held
            return
        for pred in self._made():
            if self.held is not None:
                self.held.append(pred)
            yield pred

    def _made(self) -> Iterator[Annotations]:
        for label, targets in self.per_ns.items():
            if not targets.size:
                continue
            with stage(f"{self.method} predicting {label}", min_seconds=1.0) as st:
                pred = HIT_METHODS[self.method](self.ontology, self.t0, self.hits, targets, namespaces=[label],
                                                max_terms=self.max_terms, **self.filters)
                st.note = f"{plural(targets.size, 'target')}, {plural(pred.matrix.nnz, 'score')}"
            self.diagnostics["namespaces"][label] = {"targets": int(targets.size),
                                                     **pred.diagnostics["namespaces"][label]}
            if self.on_predictions is not None:
                self.on_predictions(self.method, label, pred)
            yield pred


def _sources(ontology: Ontology, t0: Annotations, hits: Any, methods: list[str], per_ns: dict[str, np.ndarray],
             opts: EvaluationOptions, filters: dict[str, Any], on_predictions: Any) -> dict[str, Any]:
    """Per method, its predictions (trained on t0): :class:`HitPredictions`, or naive's one list."""
    out: dict[str, Any] = {}
    floor = float(opts.grid[0]) if opts.grid is not None else 0.0  # below the grid's first threshold: never predicted
    for m in methods:
        if m != "naive":
            out[m] = HitPredictions(m, ontology, t0, hits, per_ns, filters, opts.max_terms, on_predictions)
            continue
        cols, vals, info = naive_list(ontology, t0, list(per_ns), max_terms=opts.max_terms, min_score=floor)
        if on_predictions is not None:
            on_predictions(m, None, (cols, vals))
        out[m] = (cols, vals, info)
    return out


def time_split_information(ontology: Ontology, t0: Annotations, pseudocount: float = 1.0,
                           similarity: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The IA (and, for similarity measures, the IC) of a time split: estimated on t0 only (bits per term)."""
    with stage("estimating the IA" + (" and the IC" if similarity else "") + " on t0") as st:
        ia = information_accretion(ontology, t0, pseudocount).values
        ic = term_information_content(ontology, t0, pseudocount).values if similarity else None
        st.note = f"{ontology.n_terms:,} terms, pseudo-count {pseudocount:g}"
    return ia, ic


def iter_time_split(
    ontology: Ontology,
    t0: Annotations,
    split: TimeSplit,
    hits: Any = None,
    *,
    methods: Any = ("naive", "blast", "gotcha"),
    options: EvaluationOptions | None = None,
    pseudocount: float = 1.0,
    kinds: Any = ("NK", "LK"),
    max_evalue: float | None = None,
    min_identity: float | None = None,
    min_coverage: float | None = None,
    bootstrap: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    information: tuple[np.ndarray, np.ndarray | None] | None = None,
    on_predictions: Any = None,
    groups: Mapping[str, Any] | None = None,
) -> Iterator[tuple[str, Any]]:
    """Train the baselines on t0 and evaluate them on each kind of target, one kind at a time.

    The IA (and the IC of ``options.similarity``) is estimated on the t0
    annotations (``pseudocount``; or given as ``information``); no t1
    annotation enters it. PK targets are evaluated with their t0 terms as
    known (``known`` of :func:`~goeval.evaluation.benchmark.make_benchmark`).
    The naive baseline is one score vector given to every target
    (:class:`~goeval.evaluation.sources.SharedScoresSource`); the hit
    methods predict each namespace's targets, one namespace at a time
    (:class:`HitPredictions`), so that only one kind's results are held.

    Parameters
    ----------
    bootstrap, seed, confidence
        Bootstrap intervals of the optima (:func:`goeval.stats.add_bootstrap_columns`).
    on_predictions : callable, optional
        ``on_predictions(kind, method, label, predictions)`` for every part
        of the predictions evaluated (Annotations of one namespace, or
        naive's ``(cols, scores)`` list with ``label`` None), before it is
        evaluated.
    groups : mapping of str to proteins, optional
        Each kind's result gets ``groups``: per group, the kind restricted to
        the group's targets (the same bits as a split whose targets are the
        group's). They are evaluated in a forked child while this process
        evaluates the kind (:func:`~goeval.io.background.should_fork`; the
        child makes the kind's predictions again and holds them for the
        groups), else here after the kind, on its predictions held for them.

    Yields
    ------
    kind, EvaluationResult
        For each kind with targets (as :func:`goeval.evaluate` returns); its
        ``stats`` (the sufficient statistics, large with exact thresholds) are
        kept only with ``bootstrap``, and released block by block otherwise.
    """
    opts = EvaluationOptions.resolve(options)
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in METHODS] + [k for k in kinds if k not in KINDS]
    if bad or (hits is None and any(m != "naive" for m in methods)):
        raise InvalidParameterError(f"The 'methods' and 'kinds' parameters of evaluate_time_split must name "
                                    f"{', '.join(METHODS)} (hit methods need hits) and {', '.join(KINDS)}; got {bad or methods}.")
    labels = [ontology.labels[ontology.namespace_index(n)] for n in (opts.namespaces or ontology.labels)]
    ia, ic = information if information is not None else \
        time_split_information(ontology, t0, pseudocount, opts.similarity is not None)
    filters = {"max_evalue": max_evalue, "min_identity": min_identity, "min_coverage": min_coverage}
    intervals = None if bootstrap is None else (bootstrap, seed, confidence)
    for kind in kinds:
        per_ns = {label: split.targets[kind].get(label, np.zeros(0, object)) for label in labels}
        if not any(t.size for t in per_ns.values()):
            continue
        known = _restrict(split.known, per_ns) if kind == "PK" else None
        hook = None if on_predictions is None else functools.partial(on_predictions, kind)
        # the kind's groups in a forked child, on the machine's other core, while this process evaluates the
        # whole kind (the child makes the kind's predictions again: it shares nothing but what was read)
        aside = None if not groups or not should_fork(True) else start(
            _groups_aside, ontology, t0, hits, methods, per_ns, opts, filters, split, kind, groups, (ia, ic),
            intervals, name=f"evaluation of the {kind} targets' groups", fork=True)
        try:
            with within(kind):  # the stages of this kind (the methods' predictions, the sweeps) are named by it
                sources = _sources(ontology, t0, hits, methods, per_ns, opts, filters, hook)
                if groups and aside is None:
                    sources = _held(sources)
                result = _evaluate_kind(ontology, _restrict(split.truth, per_ns), known, (ia, ic), opts, kind,
                                        per_ns, sources, intervals)
                if groups:
                    result.groups = _joined(aside, kind, len(groups)) if aside is not None else _kind_groups(
                        ontology, split, kind, per_ns, groups, (ia, ic), opts, sources, intervals)
        finally:
            if aside is not None:
                aside.cancel()
        yield kind, result


def _joined(aside: Any, kind: str, n_groups: int) -> dict[str, Any]:
    """The groups evaluated by the child, their warnings said here as their own runs would have said them (the
    child's console is closed)."""
    with stage(f"{plural(n_groups, 'group')} of the {kind} targets (evaluated meanwhile, in a second process)"):
        out = aside.result()
    for g in out.values():
        for message in g.diagnostics.warnings:
            warnings.warn(message, GoevalWarning, stacklevel=2)
    return out


def _held(sources: dict[str, Any]) -> dict[str, Any]:
    """The hit methods' predictions kept once made, for every group of the kind (naive's list as it is)."""
    return {m: p.hold() if isinstance(p, HitPredictions) else p for m, p in sources.items()}


def _groups_aside(ontology: Ontology, t0: Annotations, hits: Any, methods: list[str], per_ns: dict[str, np.ndarray],
                  opts: EvaluationOptions, filters: dict[str, Any], split: TimeSplit, kind: str,
                  groups: Mapping[str, np.ndarray], information: tuple[np.ndarray, np.ndarray | None],
                  intervals: tuple | None) -> dict[str, Any]:
    """One kind's groups on predictions of its own (:func:`_kind_groups`; the task of a forked child)."""
    sources = _held(_sources(ontology, t0, hits, methods, per_ns, opts, filters, None))
    return _kind_groups(ontology, split, kind, per_ns, groups, information, opts, sources, intervals)


def _kind_groups(ontology: Ontology, split: TimeSplit, kind: str, per_ns: dict[str, np.ndarray],
                 groups: Mapping[str, np.ndarray], information: tuple[np.ndarray, np.ndarray | None],
                 opts: EvaluationOptions, sources: dict[str, Any], intervals: tuple | None) -> dict[str, Any]:
    """Each group of one kind: the kind's run restricted to the group's targets (the same bits as a time split
    whose targets are the group's), on the predictions made once for the kind."""
    out = {}
    for name, proteins in groups.items():
        members = np.asarray(proteins, dtype=object).astype(str)
        g_ns = {label: t[np.isin(t.astype(str), members)] for label, t in per_ns.items()}
        known = _restrict(split.known, g_ns) if kind == "PK" else None
        with within(f"group {name}"):
            out[name] = _evaluate_kind(ontology, _restrict(split.truth, g_ns), known, information, opts, kind, g_ns,
                                       _group_sources(sources, members), intervals)
    return out


def _group_sources(sources: dict[str, Any], members: np.ndarray) -> dict[str, Any]:
    """The held predictions of a kind cut to a group's proteins (the rows in their order: the same leaves), so
    that a group's evaluation costs its proteins' rows, not the kind's; naive's one list as it is."""
    out: dict[str, Any] = {}
    for m, p in sources.items():
        if isinstance(p, HitPredictions):
            out[m] = [_group_rows(a, members) for a in p]
        else:
            out[m] = p
    return out


def _group_rows(ann: Annotations, members: np.ndarray) -> Annotations:
    """The rows of ``ann`` whose protein is among ``members`` (in their order)."""
    rows = np.flatnonzero(np.isin(ann.proteins.astype(str), members))
    return Annotations(proteins=ann.proteins[rows], matrix=sp.csr_array(ann.matrix.tocsr()[rows]),
                       ontology=ann.ontology, propagated=ann.propagated, diagnostics=dict(ann.diagnostics))


def evaluate_time_split(ontology: Ontology, t0: Annotations, split: TimeSplit, hits: Any = None,
                        **kwargs: Any) -> TimeSplitResult:
    """Every kind's result of :func:`iter_time_split` (same parameters), as a dict kind -> EvaluationResult
    (a :class:`~goeval.evaluation.summary.TimeSplitResult`: one headline table in a notebook)."""
    return TimeSplitResult(iter_time_split(ontology, t0, split, hits, **kwargs))


def _evaluate_kind(ontology: Ontology, truth: Annotations, known: Annotations | None,
                   information: tuple[np.ndarray, np.ndarray | None], opts: EvaluationOptions, kind: str,
                   per_ns: dict[str, np.ndarray], predictions: dict[str, Any], intervals: tuple | None) -> Any:
    """One kind of target through the engine: its benchmark, every method's leaves, the summary."""
    diag = Diagnostics(kind=kind, targets={k: int(v.size) for k, v in per_ns.items()})
    diag["ontology"] = {"source": ontology.source, **ontology.diagnostics}
    with diag.capture():
        bench = make_benchmark(ontology, truth, opts, diag, ia=information[0], ic=information[1], known=known)
        plan = Plan(options=opts, per_protein=intervals is not None, similarity=opts.similarity is not None)
        sources = {m: (AnnotationsSource(m, p, MethodFeed.of(bench, opts))
                       if isinstance(p, (HitPredictions, list)) else
                       SharedScoresSource(m, *p[:2], MethodFeed.of(bench, opts), p[2], plan=plan))
                   for m, p in predictions.items()}
        early = None if intervals is not None else functools.partial(summarize_block, options=opts, with_ia=True,
                                                                       release=True)
        stats = evaluated(evaluate_blocks(bench, sources, plan, diag, on_block=early))  # summarized as they finish
        for m, p in predictions.items():
            if isinstance(p, HitPredictions):
                diag["methods"][m]["training"] = p.diagnostics
        result = summarize(stats, opts, True, diagnostics=diag, release=intervals is None)
        if intervals is not None and stats:
            from goeval.stats.bootstrap import add_bootstrap_columns

            add_bootstrap_columns(result, *intervals)
        return result
