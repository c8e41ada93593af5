"""k-fold cross-validation of the baselines (Clark & Radivojac 2013, §4.1; CONVENTIONS §6).

Per namespace o:

* **benchmark proteins**: proteins annotated in o that have a sequence,
  i.e. occur as a query of the hit table (an all-vs-all search lists every
  sequence, at least through its self hit), or those of a given list;
* **training set of fold f**: every protein annotated in o whose fold is
  not f, with or without a sequence;
* **IA of fold f**: estimated on fold f's training annotations only
  (:func:`goeval.benchmarks.folds.fold_ia`) and used for fold f's truth and
  predictions alike;
* **IC of fold f** (similarity measures, when requested): the term
  information content of fold f's training annotations
  (:func:`goeval.information.content.term_information_content`, the same
  pseudo-count), like the IA;
* **pooling**: every fold is a benchmark of its own (its proteins, its IA
  and IC) whose leaves go into the same blocks of the evaluation engine
  (:class:`~goeval.evaluation.engine.Engine` with ``pooled=True``), so each
  (method, namespace) is one tree of partial sums over the whole benchmark,
  finished once: curves and optima are over the whole benchmark at once
  (exact thresholds: the distinct scores of every fold); benchmark proteins
  without a usable hit keep an empty prediction and stay in the
  denominators.

The work per fold is one baseline call per (method, namespace) on the
fold's benchmark proteins and the hits of their queries, whose leaves are
swept at once (a fold's predictions are dropped after it, unless kept); the
naive baseline's one score vector is made into rows leaf by leaf.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations, propagate
from goeval.baselines import HIT_METHODS, METHODS, naive_scores
from goeval.benchmarks.folds import fold_ia, fold_of
from goeval.diagnostics import Diagnostics
from goeval.errors import InvalidParameterError
from goeval.evaluation import EvaluationResult, summarize, term_mask
from goeval.evaluation.benchmark import group_proteins, make_benchmark
from goeval.evaluation.engine import Engine, Plan, Runner
from goeval.evaluation.sources import AnnotationsSource, MethodFeed, SharedScoresSource
from goeval.information.accretion import information_content
from goeval.information.content import term_information_content
from goeval.io.hits import HitTable
from goeval.metrics.registry import SIMILARITY_MEASURES
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.progress import stage, within
from goeval.sweep import SweepStats

__all__ = ["CrossValidation", "cross_validate", "table1_records", "table1_columns", "pooled_predictions",
           "annotated_namespaces", "TABLE1_COLUMNS"]

#: Columns of ``table1.tsv`` (CR13 Table 1 layout, plus weighted Fmax and coverage).
TABLE1_COLUMNS = (
    "namespace", "method", "fmax", "fmax_threshold", "fmax_coverage", "fmax_ru", "fmax_mi",
    "smin", "smin_threshold", "smin_ru", "smin_mi", "wfmax", "wfmax_threshold",
)
#: Names of the similarity measures in ``table1.tsv`` (value ``<name>``, threshold ``<name>_threshold``).
_SIMILARITY_NAMES = tuple(m.name for m in SIMILARITY_MEASURES)


@dataclass(kw_only=True)
class CrossValidation:
    """Result of :func:`cross_validate`.

    Attributes
    ----------
    result : EvaluationResult
        Pooled curves and optima, in the format of :func:`goeval.evaluate`.
    stats : dict of (method, namespace) to SweepStats
        The pooled sufficient statistics.
    table1 : list of dict
        One record per (namespace, method), columns :data:`TABLE1_COLUMNS`.
    information : dict of str to dict
        Per namespace: ``proteins``, ``mean`` and ``std`` (bits) of i(T) over
        the benchmark proteins, each with its fold's IA.
    proteins, folds : ndarray
        The annotated proteins and their folds (the assignment used).
    ia : dict of int to ndarray
        Fold -> information accretion (bits per term index).
    ic : dict of int to ndarray
        Fold -> term information content (bits per term index) of the
        similarity measures; empty when none is requested.
    predictions : dict of str to list of Annotations
        Per method, the per-(fold, namespace) predictions of the benchmark
        proteins (empty unless ``keep_predictions``); for naive, one row per
        (fold, namespace) named ``*`` holding the list every target got.
    diagnostics : Diagnostics
        Every count: proteins per fold, benchmark sizes, hits by reason.
    """

    result: EvaluationResult
    stats: dict[tuple[str, str], SweepStats]
    table1: list[dict[str, Any]]
    information: dict[str, dict[str, float]]
    proteins: np.ndarray
    folds: np.ndarray
    ia: dict[int, np.ndarray]
    predictions: dict[str, list[tuple[int, str, np.ndarray, Annotations]]] = field(default_factory=dict)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    ic: dict[int, np.ndarray] = field(default_factory=dict)


@dataclass(kw_only=True)
class _Setup:
    """Everything fixed across folds."""

    ontology: Ontology
    truth: Annotations  # propagated, annotated proteins only
    folds: np.ndarray  # per truth row
    in_ns: np.ndarray  # bool (n_proteins, n_namespaces): annotated in the namespace
    bench: np.ndarray  # bool (n_proteins,): has a sequence / listed
    labels: list[str]
    methods: list[str]
    options: EvaluationOptions
    allowed: np.ndarray
    hits: HitTable | None
    filters: dict[str, float | None]
    query_row: np.ndarray | None  # per hit row: truth row of its query (-1: none)


def _check_methods(methods: Any, hits: HitTable | None) -> list[str]:
    items = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in items if m not in METHODS]
    if not items or bad or len(set(items)) != len(items):
        raise InvalidParameterError(
            f"The 'methods' parameter of cross_validate must list distinct names among {', '.join(METHODS)}; got {items!r}.")
    if hits is None and any(m != "naive" for m in items):
        raise InvalidParameterError("The 'hits' parameter of cross_validate is needed for the methods "
                                    f"{[m for m in items if m != 'naive']}; got None.")
    return items


def _fold_table(folds: Any) -> tuple[np.ndarray, np.ndarray, str]:
    if hasattr(folds, "proteins") and hasattr(folds, "folds"):
        return np.asarray(folds.proteins, dtype=object), np.asarray(folds.folds, np.int64), str(getattr(folds, "source", ""))
    if isinstance(folds, Mapping):
        return np.asarray(list(folds), dtype=object), np.fromiter(folds.values(), np.int64, len(folds)), "<mapping>"
    raise InvalidParameterError(
        f"The 'folds' parameter of cross_validate must be a FoldTable or a mapping protein -> fold; got {type(folds).__name__}.")


def annotated_namespaces(truth: Annotations) -> np.ndarray:
    """Bool (n_proteins, n_namespaces): the protein has a term of the namespace."""
    m = truth.matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    out = np.zeros((m.shape[0], len(truth.ontology.namespaces)), bool)
    out[rows, truth.ontology.namespace_of[m.indices]] = True
    return out


def _setup(ontology: Ontology, annotations: Annotations, hits: HitTable | None, folds: Any, methods: Any,
           options: EvaluationOptions, benchmark: Any, filters: dict[str, float | None], diag: Diagnostics) -> _Setup:
    if annotations.ontology is not ontology or annotations.is_scores:
        raise InvalidParameterError("The 'annotations' parameter of cross_validate must hold truth annotations "
                                    "mapped on the given ontology.")
    methods = _check_methods(methods, hits)
    labels = [ontology.labels[ontology.namespace_index(n)] for n in (options.namespaces or ontology.labels)]
    tr = annotations if annotations.propagated else propagate(annotations)
    keep = np.flatnonzero(np.diff(tr.matrix.tocsr().indptr) > 0)
    tr = Annotations(proteins=tr.proteins[keep], matrix=tr.matrix.tocsr()[keep], ontology=ontology, propagated=True,
                     diagnostics=dict(annotations.diagnostics))
    fp, fv, source = _fold_table(folds)
    fold = fold_of(tr.proteins, fp, fv)
    missing = fold < 0
    if missing.any():
        ex = ", ".join(map(str, tr.proteins[missing][:5]))
        raise InvalidParameterError(f"{int(missing.sum()):,} of the {tr.proteins.size:,} annotated proteins have no fold "
                                    f"in {source} (e.g. {ex}); every annotated protein needs one.")
    if np.unique(fold).size < 2:
        raise InvalidParameterError(f"The folds of cross_validate ({source}) must give the annotated proteins at least "
                                    f"2 folds; got {np.unique(fold).tolist()}.")
    diag["folds"] = {"source": source, "proteins_listed": int(fp.size), "annotated_proteins": int(tr.proteins.size),
                     "listed_proteins_not_annotated": int(fp.size - np.isin(fp.astype(str), tr.proteins.astype(str)).sum()),
                     "k": int(np.unique(fold).size)}
    bench = _benchmark_mask(tr.proteins, hits, benchmark, diag)
    qrow = None
    if hits is not None:
        pos = fold_of(hits.ids, tr.proteins, np.arange(tr.proteins.size))
        qrow = pos[hits.query_codes]
    return _Setup(ontology=ontology, truth=tr, folds=fold, in_ns=annotated_namespaces(tr), bench=bench, labels=labels,
                  methods=methods, options=options, allowed=term_mask(ontology, None, None, options.exclude_roots),
                  hits=hits, filters=filters, query_row=qrow)


def _benchmark_mask(proteins: np.ndarray, hits: HitTable | None, benchmark: Any, diag: Diagnostics) -> np.ndarray:
    """Proteins with a sequence (queries of the hit table) or listed."""
    if benchmark is not None:
        listed = np.asarray(list(benchmark), dtype=object)
        mask = np.isin(proteins.astype(str), listed.astype(str))
        diag["benchmark_list"] = {"listed": int(np.unique(listed.astype(str)).size), "annotated": int(mask.sum())}
        return mask
    if hits is None:
        raise InvalidParameterError("cross_validate needs 'hits' or a 'benchmark' list to choose its benchmark proteins.")
    return np.isin(proteins.astype(str), hits.queries.astype(str))


def _subset(ann: Annotations, rows: np.ndarray) -> Annotations:
    return Annotations(proteins=ann.proteins[rows], matrix=ann.matrix[rows], ontology=ann.ontology,
                       propagated=ann.propagated, diagnostics={})


def _fold_hits(s: _Setup, f: int) -> HitTable:
    """The rows of the hit table whose query is a benchmark protein of fold f."""
    qr = s.query_row
    ok = qr >= 0
    sel = np.flatnonzero(ok & (s.folds[np.where(ok, qr, 0)] == f) & s.bench[np.where(ok, qr, 0)])
    h = s.hits
    return HitTable(query_codes=h.query_codes[sel], subject_codes=h.subject_codes[sel], ids=h.ids,
                    values={k: v[sel] for k, v in h.values.items()}, source=h.source, counts={"rows": int(sel.size)})


# ------------------------------------------------------------ predictions
@dataclass(kw_only=True)
class FoldPredictions:
    """One method's predictions for the benchmark proteins of one (fold, namespace).

    For naive, ``pred`` is None and ``cols``/``vals`` hold the list every
    protein gets (terms with a positive score).
    """

    fold: int
    label: str
    proteins: np.ndarray  # truth rows
    pred: Annotations | None = None
    cols: np.ndarray | None = None
    vals: np.ndarray | None = None


def _add_counts(total: dict[str, Any], part: Mapping[str, Any]) -> None:
    for k, v in part.items():
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            total[k] = total.get(k, 0) + int(v)


def _fold_blocks(s: _Setup, f: int, diag: Diagnostics) -> dict[str, list[FoldPredictions]]:
    """Predictions of every method for fold f, one block per namespace."""
    onto = s.ontology
    train = _subset(s.truth, np.flatnonzero(s.folds != f))
    hits_f = _fold_hits(s, f) if s.hits is not None else None
    out: dict[str, list[FoldPredictions]] = {m: [] for m in s.methods}
    fd = diag["folds"]["per_fold"][str(f)] = {"proteins": int((s.folds == f).sum()), "namespaces": {}}
    for label in s.labels:
        j = onto.namespace_index(label)
        rows = np.flatnonzero((s.folds == f) & s.bench & s.in_ns[:, j])
        fd["namespaces"][label] = {"benchmark_proteins": int(rows.size),
                                   "training_proteins": int((s.in_ns[:, j] & (s.folds != f)).sum())}
        for m in s.methods:
            if m == "naive":
                sc, _ = naive_scores(onto, train, [label])
                cols = np.flatnonzero(sc > 0)
                out[m].append(FoldPredictions(fold=f, label=label, proteins=rows, cols=cols, vals=sc[cols]))
                continue
            pred = HIT_METHODS[m](onto, train, hits_f, s.truth.proteins[rows], namespaces=[label],
                                  max_terms=s.options.max_terms, **s.filters)
            nd = pred.diagnostics["namespaces"][label]
            md = diag["methods"].setdefault(m, {}).setdefault(label, {})
            _add_counts(md.setdefault("hits", {}), nd["hits"])
            _add_counts(md, {k: nd[k] for k in ("targets_with_usable_hits", "targets_with_predictions", "predictions")})
            out[m].append(FoldPredictions(fold=f, label=label, proteins=rows, pred=pred))
    return out


# ------------------------------------------------------------ statistics
def _source(m: str, preds: list[FoldPredictions], feed: MethodFeed, floor: float, plan: Any) -> Any:
    """The engine's source of one method in one fold: its predictions of every namespace in turn."""
    if m != "naive":
        return AnnotationsSource(m, [b.pred for b in preds], feed)
    cols = np.concatenate([b.cols for b in preds]) if preds else np.zeros(0, np.int64)
    vals = np.concatenate([b.vals for b in preds]) if preds else np.zeros(0)
    keep = vals >= floor  # a score below the grid's first threshold is never predicted
    return SharedScoresSource(m, cols[keep], vals[keep], feed, plan=plan)


def _run_fold(engine: Engine, s: _Setup, f: int, fold: dict[str, list[FoldPredictions]], ia: np.ndarray,
              ic: np.ndarray | None, diag: Diagnostics, members: np.ndarray | None = None) -> None:
    """Fold f's benchmark (its proteins, IA and IC; only ``members``' with a group) and every method's leaves into
    the pooled blocks."""
    targets = s.truth.proteins[np.flatnonzero((s.folds == f) & s.bench)]
    if members is not None:
        targets = targets[np.isin(targets.astype(str), members)]
    bench = make_benchmark(s.ontology, s.truth, s.options, Diagnostics(), ia=ia, ic=ic, targets=targets,
                           allowed=s.allowed)
    floor = float(s.options.grid[0]) if s.options.grid is not None else 0.0
    for m in s.methods:
        feed = MethodFeed(bench, max_terms=s.options.max_terms)
        engine.run(_source(m, fold[m], feed, floor, engine.plan), m, bench)
        for label, c in feed.namespace_counts().items():
            _add_counts(diag["methods"].setdefault(m, {}).setdefault(label, {}),
                        {"proteins_with_predictions": c["proteins_with_predictions"]})


def _information(s: _Setup, ia: dict[int, np.ndarray]) -> dict[str, dict[str, float]]:
    """Mean and standard deviation of i(T) over the benchmark proteins (their fold's IA)."""
    out = {}
    for label in s.labels:
        j = s.ontology.namespace_index(label)
        lo, hi = int(s.ontology.bounds[j]), int(s.ontology.bounds[j + 1])
        cols_mask = np.zeros(s.ontology.n_terms)
        cols_mask[lo:hi] = s.allowed[lo:hi]
        vals = []
        for f, iav in ia.items():
            rows = np.flatnonzero((s.folds == f) & s.bench & s.in_ns[:, j])
            vals.append(information_content(iav * cols_mask, _subset(s.truth, rows)))
        v = np.concatenate(vals) if vals else np.zeros(0)
        out[label] = {"proteins": int(v.size), "mean": float(v.mean()) if v.size else float("nan"),
                      "std": float(v.std()) if v.size else float("nan")}
    return out


def table1_columns(summary_records: list[dict[str, Any]]) -> tuple[str, ...]:
    """:data:`TABLE1_COLUMNS`, then ``<name>`` and ``<name>_threshold`` of each similarity
    measure present in the records (registry order)."""
    present = {r["measure"] for r in summary_records}
    return TABLE1_COLUMNS + tuple(c for m in _SIMILARITY_NAMES if m in present for c in (m, f"{m}_threshold"))


def table1_records(summary_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (namespace, method) in the layout of CR13 Table 1 (:func:`table1_columns`).

    Fmax and Smin with their threshold, remaining uncertainty and
    misinformation at that threshold (bits), the weighted Fmax with its
    threshold, then each similarity measure present (value and threshold;
    its ru and mi are in the summary), from
    :func:`goeval.evaluation.summarize` records.
    """
    columns = table1_columns(summary_records)
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for r in summary_records:
        rec = by_key.setdefault((r["namespace"], r["method"]), {c: float("nan") for c in columns})
        rec["namespace"], rec["method"] = r["namespace"], r["method"]
        if r["measure"] == "fmax":
            rec.update(fmax=r["value"], fmax_threshold=r["threshold"], fmax_coverage=r["coverage"],
                       fmax_ru=r["ru"], fmax_mi=r["mi"])
        elif r["measure"] == "smin":
            rec.update(smin=r["value"], smin_threshold=r["threshold"], smin_ru=r["ru"], smin_mi=r["mi"])
        elif r["measure"] == "wfmax":
            rec.update(wfmax=r["value"], wfmax_threshold=r["threshold"])
        elif r["measure"] in _SIMILARITY_NAMES:
            rec[r["measure"]], rec[r["measure"] + "_threshold"] = r["value"], r["threshold"]
    return list(by_key.values())


def cross_validate(
    ontology: Ontology,
    annotations: Annotations,
    hits: HitTable | None,
    folds: Any,
    *,
    methods: Any = ("naive", "blast", "gotcha"),
    options: EvaluationOptions | None = None,
    pseudocount: float = 1.0,
    benchmark: Any = None,
    max_evalue: float | None = None,
    min_identity: float | None = None,
    min_coverage: float | None = None,
    keep_predictions: bool = False,
    groups: Any = None,
) -> CrossValidation:
    """Cross-validate baselines and evaluate them with pooled statistics (CR13 §4.1).

    Parameters
    ----------
    ontology : Ontology
    annotations : Annotations
        Annotations of every protein (truth and training; e.g. several
        species files merged by :func:`goeval.load_annotations`).
    hits : HitTable or None
        All-vs-all hits (:func:`goeval.io.hits.read_hits`); its queries are
        the proteins with a sequence. May be None for naive with ``benchmark``.
    folds : FoldTable or mapping of str to int
        Fold of every annotated protein (:func:`goeval.io.folds.read_folds`,
        or :func:`goeval.benchmarks.assign_folds`); proteins not annotated
        are counted and ignored.
    methods : sequence of str
        Among :data:`goeval.baselines.METHODS`.
    options : EvaluationOptions, optional
        As for :func:`goeval.evaluate` (thresholds ``'exact'`` or a step,
        namespaces, normalization, ``similarity`` and ``pairings``...).
    pseudocount : float
        Pseudo-count of the per-fold IA and IC (CR13 §4: 1).
    benchmark : sequence of str, optional
        Benchmark proteins instead of the queries of ``hits``.
    max_evalue, min_identity, min_coverage : float, optional
        Hit filters (off by default).
    keep_predictions : bool
        Keep every fold's predictions (for writing them).
    groups : mapping of str to proteins, or ProteinGroups, optional
        Each group's pooled result too (``result.result.groups``): the
        cross-validation whose benchmark is the group's proteins, on the
        predictions made once per fold.

    Returns
    -------
    CrossValidation

    Raises
    ------
    InvalidParameterError
        An unknown method, hits missing for a hit method, an annotated
        protein without a fold, fewer than two folds.
    """
    opts = EvaluationOptions.resolve(options)
    diag = Diagnostics()
    filters = {"max_evalue": max_evalue, "min_identity": min_identity, "min_coverage": min_coverage}
    with diag.capture():  # what lower-level functions warn about is a fact of this run
        s = _setup(ontology, annotations, hits, folds, methods, opts, benchmark, filters, diag)
        diag["folds"]["per_fold"] = {}
        diag["methods"] = {}
        _benchmark_counts(s, diag)
        if not any(d["benchmark_proteins"] for d in diag["benchmark"].values()):
            diag["nothing_evaluated"] = _no_benchmark_reason(s)
        with stage("estimating the IA of every fold (its training annotations)") as st:
            ia = fold_ia(ontology, s.truth, s.folds, pseudocount)
            st.note = f"{len(ia)} folds"
        ic = None if opts.similarity is None else {
            f: term_information_content(ontology, _subset(s.truth, np.flatnonzero(s.folds != f)), pseudocount).values
            for f in (int(f) for f in np.unique(s.folds))}
        named = None if groups is None else group_proteins(groups)
        stats, blocks, per_group = _pooled_folds(s, ia, ic, diag, keep_predictions, named)
        _hit_totals(s, diag)
        result = summarize(stats, opts, True, diagnostics=diag)
        if named is not None:
            result.groups = {g: summarize(st, opts, True, diagnostics=Diagnostics(d)) for g, (st, d) in per_group.items()}
    return CrossValidation(result=result, stats=stats, table1=table1_records(result.summary_records),
                           information=_information(s, ia), proteins=s.truth.proteins, folds=s.folds, ia=ia,
                           predictions=blocks, diagnostics=diag, ic=ic or {})


def _pooled_folds(s: _Setup, ia: dict[int, np.ndarray], ic: dict[int, np.ndarray] | None, diag: Diagnostics,
                  keep_predictions: bool, groups: dict[str, np.ndarray] | None = None) -> tuple[Any, Any, Any]:
    """Every fold's leaves into one pooled block per (method, namespace): the statistics, the predictions kept,
    and per group (an engine of its own, fed the same predictions of each fold) its statistics and counts."""
    blocks: dict[str, list[FoldPredictions]] = {m: [] for m in s.methods} if keep_predictions else {}
    plan = Plan(options=s.options, similarity=s.options.similarity is not None)
    engine = Engine(plan, Runner(), pooled=True)
    by_group = {g: (Engine(plan, Runner(), pooled=True), Diagnostics(methods={}), np.asarray(p, dtype=object).astype(str))
                for g, p in (groups or {}).items()}
    folds = [int(f) for f in np.unique(s.folds)]
    for i, f in enumerate(folds, 1):  # each fold's leaves swept at once, its predictions then dropped
        with within(f"fold {f} ({i} of {len(folds)})"):
            with stage(f"training and predicting ({', '.join(s.methods)})") as st:
                fb = _fold_blocks(s, f, diag)
                st.note = f"{int(((s.folds == f) & s.bench).sum()):,} benchmark proteins"
            with stage("sweeping"):
                _run_fold(engine, s, f, fb, ia[f], None if ic is None else ic[f], diag)
                for g_engine, g_diag, members in by_group.values():
                    _run_fold(g_engine, s, f, fb, ia[f], None if ic is None else ic[f], g_diag, members)
        for m in blocks:
            blocks[m].extend(fb[m])
    return _pooled_stats(s, engine), blocks, {g: (_pooled_stats(s, e), d) for g, (e, d, _) in by_group.items()}


def _pooled_stats(s: _Setup, engine: Engine) -> dict[tuple[str, str], SweepStats]:
    """The statistics of every pooled (method, namespace) block that was evaluated."""
    outcomes = engine.finish()
    return {(m, label): outcomes[(m, label)].stats for label in s.labels for m in s.methods
            if (m, label) in outcomes and outcomes[(m, label)].stats is not None}


def _benchmark_counts(s: _Setup, diag: Diagnostics) -> None:
    diag["benchmark"] = {}
    for label in s.labels:
        j = s.ontology.namespace_index(label)
        ann = s.in_ns[:, j]
        diag["benchmark"][label] = {"annotated_proteins": int(ann.sum()), "benchmark_proteins": int((ann & s.bench).sum()),
                                    "annotated_not_benchmark": int((ann & ~s.bench).sum())}


def _no_benchmark_reason(s: _Setup) -> str:
    """Why a cross-validation has no benchmark protein."""
    if s.hits is None:
        return "none of the proteins of the benchmark list is annotated in an evaluated namespace"
    return (f"none of the {s.hits.queries.size:,} queries of the hit table {s.hits.source} is an annotated protein "
            f"(e.g. {', '.join(map(str, s.hits.queries[:3]))}; annotated: "
            f"{', '.join(map(str, s.truth.proteins[:3]))}): are the identifiers of the same kind?")


def _hit_totals(s: _Setup, diag: Diagnostics) -> None:
    """Rows of the hit table whose query is no benchmark protein, and per-namespace gaps."""
    if s.hits is None:
        return
    qr = s.query_row
    ok = qr >= 0
    is_bench = ok & s.bench[np.where(ok, qr, 0)]
    diag["hits"] = {"rows": len(s.hits), "query_not_annotated_or_not_benchmark": int((~is_bench).sum()),
                    "query_of_a_benchmark_protein": int(is_bench.sum())}
    if is_bench.sum() < 0.5 * len(s.hits):
        diag.warn(f"{int((~is_bench).sum()):,} of the {len(s.hits):,} rows of the hit table {s.hits.source} have a "
                  "query that is no benchmark protein (not annotated in an evaluated namespace): they are not used.")
    for m, per_ns in diag["methods"].items():
        for label, d in per_ns.items():
            if "targets_with_usable_hits" in d:
                d["benchmark_proteins_without_usable_hits"] = (
                    diag["benchmark"][label]["benchmark_proteins"] - d["targets_with_usable_hits"])


def pooled_predictions(cv: CrossValidation, method: str, ontology: Ontology, min_score: float = 0.0) -> Annotations:
    """One method's predictions of every benchmark protein, pooled over folds and namespaces.

    Needs ``cross_validate(..., keep_predictions=True)``. Scores below
    ``min_score`` are left out (e.g. the lowest threshold of a grid: such
    scores are predicted at no threshold of the run).
    """
    blocks = cv.predictions.get(method)
    if blocks is None:
        raise InvalidParameterError(f"No predictions of {method!r} were kept; run cross_validate with keep_predictions=True.")
    names, cols, vals = [], [], []
    for b in blocks:
        if b.pred is None:
            keep = b.vals >= min_score
            k = int(keep.sum())
            names.append(np.repeat(cv.proteins[b.proteins], k))
            cols.append(np.tile(b.cols[keep], b.proteins.size))
            vals.append(np.tile(b.vals[keep], b.proteins.size))
            continue
        m = b.pred.matrix.tocsr()
        keep = m.data >= min_score
        names.append(np.repeat(b.pred.proteins, np.diff(m.indptr))[keep])
        cols.append(m.indices[keep])
        vals.append(m.data[keep])
    allp = np.concatenate(names) if names else np.zeros(0, object)
    uniq, first, inv = np.unique(allp.astype(str), return_index=True, return_inverse=True)
    c = np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, np.int64)
    v = np.concatenate(vals) if vals else np.zeros(0)
    m = sp.coo_array((v, (inv, c)), shape=(uniq.size, ontology.n_terms)).tocsr()
    m.sort_indices()
    return Annotations(proteins=np.asarray(uniq, dtype=object), matrix=sp.csr_array(m), ontology=ontology,
                       propagated=True, diagnostics={"method": method})
