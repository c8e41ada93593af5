"""Protein-centric evaluation of one or more methods (orchestration).

Takes already-loaded objects (an :class:`~goeval.ontology.Ontology`, truth
:class:`~goeval.annotations.Annotations`, predictions per method, optional
IA) and returns curves and optima (pandas DataFrames on demand); the arithmetic is in
:mod:`goeval.sweep` and :mod:`goeval.metrics.protein`. See
:func:`goeval.evaluate` for the path-taking entry point.

The evaluation has two stages, usable separately (e.g. to pool the folds
of a cross-validation before the optima are taken):

* :func:`namespace_stats` - the sufficient statistics
  (:class:`~goeval.sweep.SweepStats`) of every (method, namespace), over
  per-block thresholds or one common threshold set;
* :func:`summarize` - curves and optima (the measures of
  :data:`goeval.metrics.registry.PROTEIN_MEASURES`) from such statistics,
  possibly added over folds first (``SweepStats.combine``).

:func:`evaluate_annotations` is the two in a row.
"""

from __future__ import annotations

import warnings
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping

import numpy as np
import scipy.sparse as sp

from goeval.sparse import column_block, select_columns
from goeval.evaluation.chunked import (BlockAccumulator, BlockSpec, LeafDispatch, NamespaceGraph, add_roots, leaf_scores,
                             make_leaves, map_leaves)
from goeval.annotations import Annotations, in_pairs, pair_keys, propagate, propagate_rows
from goeval.evaluation.curve_policy import apply_curve_policy, curves_diagnostics, optimum_rows
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.annotations.top_terms import keep_top_terms
from goeval.metrics.protein import CURVE_COLUMNS, IA_COLUMNS, aupr_score, best_index, protein_curves
from goeval.metrics.registry import PROTEIN_AREAS, PROTEIN_MEASURES, SIMILARITY_MEASURES
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.sweep import SweepStats, protein_steps, truth_totals

__all__ = [
    "EvaluationResult",
    "evaluate_annotations",
    "namespace_stats",
    "summarize",
    "optimum_records",
    "area_records",
    "keep_top_terms",
    "SUMMARY_COLUMNS",
    "BOOTSTRAP_COLUMNS",
]

#: Key of the statistics of one method in one namespace: (method, namespace label).
BlockKey = tuple[str, str]

SUMMARY_COLUMNS = ("method", "namespace", "measure", "value", "threshold", "coverage", "precision", "recall", "ru", "mi")
#: Columns a bootstrap adds to the summary (:func:`goeval.stats.add_bootstrap_columns`).
BOOTSTRAP_COLUMNS = ("ci_low", "ci_high", "se")


class EvaluationResult:
    """Result of :func:`goeval.evaluate`.

    Attributes
    ----------
    curves : pandas.DataFrame or None
        One row per (method, namespace, threshold) with coverage > 0: every
        threshold with ``curves='full'`` (the default), the rows kept by
        ``curves='thin'`` (:mod:`goeval.evaluation.curve_policy`), ``None`` with
        ``curves='none'``.
    summary : pandas.DataFrame
        One row per (method, namespace, measure): the optima of
        :data:`~goeval.metrics.registry.PROTEIN_MEASURES` (``fmax``,
        ``wfmax``, ``fmax_micro``, ``smin``, ``wsmin``, ``wfmax_micro``,
        ``smin_terms``, ``max_coverage``) with the values at the optimum,
        then, when requested, the similarity optima of
        :data:`~goeval.metrics.registry.SIMILARITY_MEASURES` (``lin_all``,
        ``jc_bma``, ``jaccard``, ...), then the areas of
        :data:`~goeval.metrics.registry.PROTEIN_AREAS` (``aupr``,
        ``waupr``; no threshold).
    diagnostics : dict
        Every count from reading, mapping and propagation; ``curves``: the
        curve policy and each curve's rows before and after it.
    curve_columns : dict of str to ndarray, or None
        The curves as plain arrays (what ``curves`` is built from).
    summary_records : list of dict
        The summary rows as plain records (with :data:`BOOTSTRAP_COLUMNS`
        after a bootstrap; setting them rebuilds ``summary``).
    stats : dict of (method, namespace) to SweepStats, or None
        The sufficient statistics the curves were computed from (what
        :mod:`goeval.compat` reads to build CAFA-evaluator's columns).

    Notes
    -----
    The DataFrames are built on first access, so the command line, which
    writes the arrays directly, never imports pandas.
    """

    def __init__(self, curve_columns: dict[str, np.ndarray] | None, summary_records: list[dict[str, Any]],
                 diagnostics: dict[str, Any] | None = None,
                 stats: Mapping[BlockKey, SweepStats] | None = None) -> None:
        self.curve_columns = curve_columns
        self._summary_records = summary_records
        self.diagnostics = diagnostics if diagnostics is not None else {}
        self.stats = None if stats is None else dict(stats)
        self._frames: dict[str, Any] = {}

    @property
    def summary_records(self) -> list[dict[str, Any]]:
        return self._summary_records

    @summary_records.setter
    def summary_records(self, records: list[dict[str, Any]]) -> None:
        self._summary_records = records
        self._frames.pop("summary", None)

    @property
    def summary_columns(self) -> tuple[str, ...]:
        """:data:`SUMMARY_COLUMNS`, then :data:`BOOTSTRAP_COLUMNS` when the rows have them."""
        extra = BOOTSTRAP_COLUMNS if any("ci_low" in r for r in self._summary_records) else ()
        return SUMMARY_COLUMNS + extra

    @property
    def curves(self):  # noqa: ANN201 - pandas.DataFrame or None
        if "curves" not in self._frames:
            if self.curve_columns is None:
                return None
            import pandas as pd

            self._frames["curves"] = pd.DataFrame(self.curve_columns)
        return self._frames["curves"]

    @property
    def summary(self):  # noqa: ANN201 - pandas.DataFrame
        if "summary" not in self._frames:
            import pandas as pd

            self._frames["summary"] = pd.DataFrame(self.summary_records, columns=list(self.summary_columns))
        return self._frames["summary"]

    @curves.setter
    def curves(self, frame) -> None:  # noqa: ANN001 - pandas.DataFrame
        self._frames["curves"] = frame

    @summary.setter
    def summary(self, frame) -> None:  # noqa: ANN001 - pandas.DataFrame
        self._frames["summary"] = frame

    def best(self, measure: str = "fmax"):  # noqa: ANN201 - pandas.DataFrame
        """Summary rows of one measure, as a method x namespace table of values."""
        sub = self.summary[self.summary["measure"] == measure]
        return sub.pivot(index="method", columns="namespace", values="value")

    def __repr__(self) -> str:
        methods = sorted({r["method"] for r in self.summary_records})
        return f"<EvaluationResult: {len(methods)} methods, {len(self.summary_records)} optima>"


@dataclass
class Prepared:
    """Propagated truth and predictions aligned on truth rows (see :func:`prepare`)."""

    ontology: Ontology
    truth: Any  # csr (truth proteins x terms), sorted
    proteins: np.ndarray
    rows: np.ndarray  # truth rows in the benchmark (after ``targets``)
    aligned: dict[str, tuple[Any, np.ndarray]]
    known_keys: np.ndarray | None = None  # sorted ``truth row * n_terms + term`` of the known pairs
    #: per method, each aligned row's position in the method's own order (first appearance in its file)
    file_rank: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class NamespaceBlock:
    """One method's propagated predictions and the truth of one namespace.

    Rows are the benchmark proteins of the namespace (non-empty truth);
    columns are local to the namespace (``term - lo``).
    """

    namespace: int
    label: str
    method: str
    proteins: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    pred_indptr: np.ndarray
    pred_cols: np.ndarray
    pred_scores: np.ndarray
    rows: np.ndarray | None = None  # rows of the benchmark proteins in the prepared truth

    @property
    def n_bench(self) -> int:
        return int(self.proteins.size)


def term_mask(ontology: Ontology, terms_of_interest: Any, excluded_terms: Any, exclude_roots: bool) -> np.ndarray:
    """Boolean mask of the terms kept in an evaluation."""
    allowed = np.ones(ontology.n_terms, bool)
    if terms_of_interest is not None:
        allowed[:] = False
        allowed[np.asarray(terms_of_interest, dtype=np.int64)] = True
    if excluded_terms is not None:
        allowed[np.asarray(excluded_terms, dtype=np.int64)] = False
    if exclude_roots:
        allowed[ontology.roots()] = False
    return allowed


def namespace_indices(ontology: Ontology, namespaces: Any) -> list[int]:
    """Indices of the namespaces to evaluate (labels or OBO names; None or empty: all)."""
    if not namespaces:
        return list(range(len(ontology.namespaces)))
    return [ontology.namespace_index(x) for x in namespaces]


def _targets_rows(t_index: dict[str, int], targets: Any, diag: dict[str, Any]) -> np.ndarray:
    """Truth rows of the listed targets (sorted); targets without truth are counted."""
    tg = np.asarray(list(dict.fromkeys(np.asarray(targets, dtype=object).tolist())), dtype=object)
    pos = np.fromiter((t_index.get(p, -1) for p in tg), np.int64, len(tg))
    diag["targets"] = {"listed": int(tg.size), "without_truth": int((pos < 0).sum()),
                       "examples_without_truth": tg[pos < 0][:10].tolist()}
    return np.sort(pos[pos >= 0])


def _align_method(name: str, pred: Annotations,
                  t_index: dict[str, int]) -> tuple[Any, np.ndarray, dict[str, Any], np.ndarray]:
    """A method's score rows reordered by truth row (proteins without truth left out), and
    each kept row's position in the method's own row order (its file order)."""
    pos = np.fromiter((t_index.get(p, -1) for p in pred.proteins), np.int64, len(pred.proteins))
    d = dict(pred.diagnostics)
    missing = pos < 0
    d["proteins_not_in_truth"] = int(missing.sum())
    if missing.any():
        d["proteins_not_in_truth_examples"] = pred.proteins[missing][:10].tolist()
        d["entries_of_proteins_not_in_truth"] = int(np.diff(pred.matrix.indptr)[missing].sum())
    pm = pred.matrix.tocsr()
    present = np.flatnonzero(~missing)
    order = present[np.argsort(pos[present], kind="stable")]
    same = order.size == pm.shape[0] and bool((order == np.arange(order.size)).all())
    return (pm if same else pm[order]), pos[order], d, order


def _without_known(ontology: Ontology, tm: Any, proteins: np.ndarray, known: Annotations,
                   diag: dict[str, Any]) -> tuple[Any, np.ndarray]:
    """The truth matrix without each protein's known (propagated) pairs, and the keys of those pairs."""
    if known.ontology is not ontology or known.is_scores:
        raise InvalidParameterError("The 'known' parameter of evaluate must hold annotations (not scores) mapped on "
                                    "the same Ontology object as the truth.")
    kp = known if known.propagated else propagate(known)
    keys = pair_keys(kp, proteins)
    rows = np.repeat(np.arange(tm.shape[0], dtype=np.int64), np.diff(tm.indptr))
    gone = in_pairs(rows, tm.indices, keys, ontology.n_terms)
    before = np.diff(tm.indptr)
    counts = np.bincount(rows[~gone], minlength=tm.shape[0])
    out = sp.csr_array((tm.data[~gone], tm.indices[~gone], np.r_[0, np.cumsum(counts)]), shape=tm.shape)
    known_in_truth = np.isin(kp.proteins.astype(str), np.asarray(proteins, dtype=object).astype(str))
    diag["known"] = {"source": kp.diagnostics.get("source"), "proteins": int(kp.proteins.size),
                     "pairs_propagated": int(kp.matrix.nnz), "proteins_not_in_truth": int((~known_in_truth).sum()),
                     "truth_pairs_removed": int(gone.sum()),
                     "proteins_left_without_truth": int(((before > 0) & (counts == 0)).sum())}
    return out, keys


def prepare(
    ontology: Ontology,
    truth: Annotations,
    predictions: Mapping[str, Annotations],
    targets: Any,
    diag: dict[str, Any],
    max_terms: int | None = None,
    known: Annotations | None = None,
) -> Prepared:
    """Propagate the truth once (without the ``known`` pairs) and align every
    method's rows with it (after keeping each method's ``max_terms`` best
    terms, if given)."""
    if truth.ontology is not ontology:
        raise InvalidParameterError("truth was mapped on another Ontology object; load both with the same one.")
    tr = truth if truth.propagated else propagate(truth)
    tm = tr.matrix.tocsr()
    tm.sort_indices()
    diag["truth"] = dict(tr.diagnostics)
    keys = None
    if known is not None:
        tm, keys = _without_known(ontology, tm, tr.proteins, known, diag)
    t_index = {p: i for i, p in enumerate(tr.proteins.tolist())}
    rows_all = np.arange(tm.shape[0]) if targets is None else _targets_rows(t_index, targets, diag)
    aligned: dict[str, tuple[Any, np.ndarray]] = {}
    file_rank: dict[str, np.ndarray] = {}
    diag["methods"] = {}
    for name, pred in predictions.items():
        if pred.ontology is not ontology:
            raise InvalidParameterError(f"predictions of {name!r} were mapped on another Ontology object.")
        if max_terms is not None:
            pred = keep_top_terms(pred, max_terms)
        pm, target_row, diag["methods"][name], file_rank[name] = _align_method(name, pred, t_index)
        aligned[name] = (pm, target_row)
    return Prepared(ontology, tm, tr.proteins, rows_all, aligned, keys, file_rank)


def _truth_block(prep: Prepared, lo: int, hi: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truth of the namespace [lo, hi): benchmark rows (non-empty truth), indptr, global cols."""
    t_ptr, t_cols, _ = column_block(prep.truth, lo, hi, prep.rows)
    t_ptr, t_cols, _ = select_columns(t_ptr, t_cols, None, allowed)
    has = np.diff(t_ptr) > 0
    return prep.rows[has], np.r_[0, np.cumsum(np.diff(t_ptr)[has])], t_cols


def _raw_block(prep: Prepared, name: str, bench: np.ndarray, lo: int, hi: int,
               md: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One method's raw scores on the benchmark rows: indptr over every benchmark row, global
    cols, scores, and the rows with predictions in the method's file order."""
    pm, target_row = prep.aligned[name]
    n_bench = int(bench.size)
    bench_pos = np.full(prep.truth.shape[0], -1, dtype=np.int64)
    bench_pos[bench] = np.arange(n_bench)
    brow = bench_pos[target_row]
    sel = np.flatnonzero(brow >= 0)  # increasing benchmark rows
    p_ptr, p_cols, p_data = column_block(pm, lo, hi, sel)
    md["proteins_with_predictions"] = int((np.diff(p_ptr) > 0).sum())
    md["entries"] = int(p_cols.size)
    counts = np.zeros(n_bench, dtype=np.int64)
    counts[brow[sel]] = np.diff(p_ptr)
    rank = prep.file_rank.get(name)
    seq = brow[sel] if rank is None else brow[sel][np.argsort(rank[sel], kind="stable")]
    return np.r_[0, np.cumsum(counts)], p_cols, p_data, seq[counts[seq] > 0]


def _prediction_block(
    prep: Prepared, name: str, bench: np.ndarray, lo: int, hi: int, allowed: np.ndarray, propagation: str,
    md: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One method's propagated scores on the benchmark rows (indptr, local cols, scores)."""
    full_ptr, p_cols, p_data, _ = _raw_block(prep, name, bench, lo, hi, md)
    cnt, c, v = propagate_rows(full_ptr, p_cols, p_data, prep.ontology, lo, hi, propagation)
    del p_cols, p_data
    c -= lo  # local columns (int32, in place)
    md["entries_after_propagation"] = int(c.size)
    ptr = np.r_[0, np.cumsum(cnt)]
    return select_columns(ptr, c, v, allowed[lo:hi])


def namespace_benchmarks(prep: Prepared, ns_list: list[int], allowed: np.ndarray,
                         diag: dict[str, Any]) -> Iterator[tuple[int, int, int, str, np.ndarray, np.ndarray, np.ndarray]]:
    """``(j, lo, hi, label, bench, truth indptr, global truth cols)`` of every namespace with a benchmark.

    Each namespace's counts go to ``diag["namespaces"]``; one without a
    benchmark protein is counted and skipped.
    """
    ontology = prep.ontology
    for j in ns_list:
        lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
        label = ontology.labels[j]
        bench, t_ptr, t_cols = _truth_block(prep, lo, hi, allowed)
        diag.setdefault("namespaces", {})[label] = {"benchmark_proteins": int(bench.size), "truth_entries": int(t_cols.size)}
        if bench.size:
            yield j, lo, hi, label, bench, t_ptr, t_cols


def namespace_blocks(
    prep: Prepared, ns_list: list[int], allowed: np.ndarray, propagation: str, diag: dict[str, Any]
) -> Iterator[NamespaceBlock]:
    """Yield a :class:`NamespaceBlock` per (namespace, method), predictions propagated."""
    for j, lo, hi, label, bench, t_ptr, t_cols in namespace_benchmarks(prep, ns_list, allowed, diag):
        for name in prep.aligned:
            md = diag["methods"][name].setdefault("namespaces", {}).setdefault(label, {})
            ptr, c, v = _prediction_block(prep, name, bench, lo, hi, allowed, propagation, md)
            yield NamespaceBlock(j, label, name, prep.proteins[bench], t_ptr, t_cols - lo, ptr, c, v, bench)
            del c, v


def with_root_predictions(blk: NamespaceBlock, ontology: Ontology, allowed: np.ndarray) -> NamespaceBlock:
    """The block with the namespace's (kept) roots predicted for every protein (CR13 §3.4).

    A root is given the score ``+inf``, so it is predicted at every threshold;
    the roots come first so that, for a root also predicted with a score,
    the stable sort keeps the ``+inf`` entry.
    """
    j = blk.namespace
    lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
    ptr, c, v = add_roots(blk.pred_indptr, blk.pred_cols, blk.pred_scores, _kept_roots(ontology, j, allowed), hi - lo)
    return replace(blk, pred_indptr=ptr, pred_cols=c, pred_scores=v)


def _kept_roots(ontology: Ontology, j: int, allowed: np.ndarray) -> np.ndarray:
    """The allowed roots of namespace ``j``, local indices."""
    roots = ontology.roots(j)
    return roots[allowed[roots]] - int(ontology.bounds[j])


def without_known_pairs(blk: NamespaceBlock, keys: np.ndarray, ontology: Ontology) -> tuple[NamespaceBlock, int]:
    """The block without the predicted entries whose (protein, term) is a known pair, and their number.

    ``keys`` are those of :attr:`Prepared.known_keys` (truth rows); the
    block's ``rows`` say which truth row each of its proteins is.
    """
    lo = int(ontology.bounds[blk.namespace])
    ptr = blk.pred_indptr
    r = np.repeat(blk.rows, np.diff(ptr))
    gone = in_pairs(r, blk.pred_cols.astype(np.int64) + lo, keys, ontology.n_terms)
    if not gone.any():
        return blk, 0
    counts = np.bincount(np.repeat(np.arange(blk.n_bench), np.diff(ptr))[~gone], minlength=blk.n_bench)
    return replace(blk, pred_indptr=np.r_[0, np.cumsum(counts)], pred_cols=blk.pred_cols[~gone],
                   pred_scores=blk.pred_scores[~gone]), int(gone.sum())


def _check_ia(ia: np.ndarray | None, ontology: Ontology) -> np.ndarray | None:
    if ia is None:
        return None
    iav = np.asarray(ia, dtype=np.float64)
    if iav.shape != (ontology.n_terms,):
        raise InvalidParameterError(f"ia must have one value per term ({ontology.n_terms}); got shape {iav.shape}.")
    return iav


def _similarity_ic(ontology: Ontology, truth: Annotations, ic: Any, ia: np.ndarray | None,
                   opts: EvaluationOptions, diag: dict[str, Any]) -> np.ndarray | None:
    """Validated IC values (bits per term) for ``opts.similarity``, or None when no similarity is requested.

    Without ``ic``, the IC is estimated from ``truth`` (pseudo-count
    ``opts.pseudocount``), with a :class:`~goeval.errors.GoevalWarning`:
    the test annotations then inform the measures.
    """
    if opts.similarity is None:
        return None
    from goeval.metrics.similarity import similarity_columns

    similarity_columns(opts.similarity, opts.pairings, func="evaluate")
    if "wjaccard" in opts.similarity and ia is None:
        raise InvalidParameterError("The 'wjaccard' similarity of evaluate needs information accretion ('ia'); got None.")
    if ic is None:
        from goeval.information.content import term_information_content

        tic = term_information_content(ontology, truth, opts.pseudocount)
        warnings.warn("The information content of the similarity measures is estimated from the truth annotations, so "
                      "the test annotations inform the measures; give it from other annotations (ic, --ic-annotations).",
                      GoevalWarning, stacklevel=3)
        diag["information_content"] = {"source": "truth", **tic.diagnostics}
        return tic.values
    if getattr(ic, "ontology", ontology) is not ontology:
        raise InvalidParameterError("The 'ic' parameter of evaluate was computed on another Ontology object.")
    v = np.asarray(getattr(ic, "values", ic), dtype=np.float64)
    if v.shape != (ontology.n_terms,) or not np.isfinite(v).all() or (v < 0).any():
        raise InvalidParameterError(f"The 'ic' parameter of evaluate must hold one finite value >= 0 per term "
                                    f"({ontology.n_terms}); got an array of shape {v.shape}.")
    diag["information_content"] = {"source": "given", **dict(getattr(ic, "diagnostics", {}))}
    return v


def _check_common_thresholds(thresholds: Any) -> np.ndarray | None:
    if thresholds is None:
        return None
    t = np.asarray(thresholds, dtype=np.float64)
    if t.ndim != 1 or not np.isfinite(t).all() or (t <= 0).any() or (t.size > 1 and (np.diff(t) <= 0).any()):
        raise InvalidParameterError(
            "The 'thresholds' parameter of namespace_stats must be a strictly increasing 1-d array of "
            f"positive finite values; got an array of shape {t.shape}."
        )
    return t


def namespace_stats(
    ontology: Ontology,
    truth: Annotations,
    predictions: Mapping[str, Annotations],
    ia: np.ndarray | None = None,
    options: EvaluationOptions | None = None,
    thresholds: np.ndarray | None = None,
    *,
    targets: Any = None,
    terms_of_interest: np.ndarray | None = None,
    excluded_terms: np.ndarray | None = None,
    diagnostics: dict[str, Any] | None = None,
    per_protein: bool = False,
    ic: Any = None,
    known: Annotations | None = None,
    executor: Any = None,
) -> dict[BlockKey, SweepStats]:
    """Sufficient statistics of every (method, namespace) evaluated.

    Parameters
    ----------
    ontology, truth, predictions
        As for :func:`evaluate_annotations` (same Ontology object).
    ia : ndarray of shape (n_terms,), optional
        Information accretion (bits).
    options : EvaluationOptions, optional
        Thresholds, propagation, roots, namespaces, ``max_terms`` (the
        best terms kept per protein and namespace before propagation,
        :func:`keep_top_terms`) (defaults if None).
    thresholds : ndarray of float64, optional
        One common, strictly increasing threshold set used for every block
        instead of ``options.thresholds`` - e.g. the union of the distinct
        scores of every fold, or a grid - so that statistics of several
        calls can be added (``SweepStats.combine``) before :func:`summarize`.
    targets : sequence of str, optional
        Benchmark proteins.
    terms_of_interest, excluded_terms : ndarray of int, optional
        Term indices kept / removed.
    diagnostics : dict, optional
        Filled with every count (reading, mapping, propagation).
    per_protein : bool, default False
        Keep every protein's step functions with the sums
        (``SweepStats.protein_steps``, :func:`~goeval.sweep.protein_steps`;
        the same sums, bit for bit): what a bootstrap or a paired comparison
        (:mod:`goeval.stats`) reads.
    ic : TermInformationContent or ndarray of shape (n_terms,), optional
        Term information content (bits) of the similarity measures
        (``options.similarity``), e.g.
        :func:`goeval.information.content.term_information_content` of
        training annotations. Without it (and with similarity requested) it
        is estimated from ``truth`` with a warning. Ignored without
        similarity.
    known : Annotations, optional
        Known annotations (partial knowledge, CAFA3): after propagation,
        each protein's known pairs (propagated) leave its truth - a protein
        whose truth in a namespace becomes empty leaves that namespace's
        benchmark - and its propagated predictions (also the roots of
        ``root_as_prediction``). Counted in ``diagnostics['known']`` and
        per method and namespace (``known_pairs_removed``).
    executor : concurrent.futures.Executor, optional
        Where the leaves (chunks of proteins, :mod:`goeval.evaluation.chunked`) are
        propagated and swept: a process pool, a Dask ``Client.get_executor()``
        or anything with ``submit``. The leaves and the tree their sums are
        added in do not depend on it, so the statistics are the same bits.

    Returns
    -------
    dict of (method, namespace label) to SweepStats
        In namespace order, then method order. A method without any
        prediction in a namespace is absent (``diagnostics`` says
        ``evaluated: False``). With ``options.similarity``, each holds its
        :class:`~goeval.metrics.similarity.SimilarityStats` in
        ``similarity`` (same proteins, same thresholds).
    """
    opts = EvaluationOptions.resolve(options)
    diag = {} if diagnostics is None else diagnostics
    diag.setdefault("ontology", {"source": ontology.source, **ontology.diagnostics})
    iav = _check_ia(ia, ontology)
    common = _check_common_thresholds(thresholds)
    allowed = term_mask(ontology, terms_of_interest, excluded_terms, opts.exclude_roots)
    ns_list = namespace_indices(ontology, opts.namespaces)  # unknown names fail before any work
    if opts.similarity is not None and ic is None and not truth.propagated:
        truth = propagate(truth)  # once, for the IC and the evaluation
    icv = _similarity_ic(ontology, truth, ic, iav, opts, diag)
    prepared = prepare(ontology, truth, predictions, targets, diag, getattr(opts, "max_terms", None), known)
    plans = _block_plans(prepared, ns_list, allowed, opts, iav, common, diag, executor)
    out: dict[BlockKey, SweepStats] = {}
    waiting: deque[tuple[_Plan, BlockAccumulator]] = deque()
    dispatch = LeafDispatch(executor)
    try:
        for plan in plans:  # every leaf submitted as soon as its block is planned; blocks finished in order
            acc = BlockAccumulator()
            for leaf in plan.leaves:
                dispatch.submit(acc, plan.spec, leaf)
            waiting.append((plan, acc))
            while waiting and waiting[0][1].complete:
                _finish_plan(*waiting.popleft(), prepared, allowed, opts, icv, per_protein, out)
        dispatch.drain()
    finally:
        dispatch.cancel()
    while waiting:
        _finish_plan(*waiting.popleft(), prepared, allowed, opts, icv, per_protein, out)
    return out


def _finish_plan(plan: "_Plan", acc: BlockAccumulator, prepared: Prepared, allowed: np.ndarray,
                 opts: EvaluationOptions, icv: np.ndarray | None, per_protein: bool,
                 out: dict[BlockKey, SweepStats]) -> None:
    """A block's statistics from its leaves' sums (with per-protein and similarity sums when asked)."""
    st, counts = acc.finish(plan.spec, plan.n_t, plan.i_t)
    md = plan.md
    md["entries_after_propagation"] = counts["entries_after_propagation"]
    if prepared.known_keys is not None:
        md["known_pairs_removed"] = counts["known_pairs_removed"]
    if st is None:
        md["evaluated"] = False
        return
    if per_protein or icv is not None:
        _add_per_protein(st, prepared, plan, allowed, opts, icv, per_protein)
    out[(plan.spec.method, plan.spec.label)] = st
    md["evaluated"] = True
    md["thresholds"] = int(st.thresholds.size)


@dataclass
class _Plan:
    """One (method, namespace) ready to be swept in leaves (:mod:`goeval.evaluation.chunked`)."""

    namespace: int
    spec: BlockSpec
    leaves: Any  # iterable of Leaf
    n_t: np.ndarray
    i_t: np.ndarray
    md: dict[str, Any]
    bench: np.ndarray
    truth: tuple[np.ndarray, np.ndarray]  # indptr, local cols of every benchmark row


def namespace_spec(prep: Prepared, j: int, allowed: np.ndarray, ia_ns: np.ndarray | None,
                   opts: EvaluationOptions) -> BlockSpec:
    """What every leaf of namespace ``j`` shares (method and thresholds still to be set)."""
    ontology = prep.ontology
    lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
    return BlockSpec("", ontology.labels[j], hi - lo, NamespaceGraph.of(ontology, lo, hi), opts.propagation,
                     None if allowed[lo:hi].all() else allowed[lo:hi], ia_ns, np.zeros(0),
                     _kept_roots(ontology, j, allowed) if opts.root_as_prediction else None,
                     None if prep.known_keys is None else (prep.known_keys, lo, ontology.n_terms))


def _block_plans(prep: Prepared, ns_list: list[int], allowed: np.ndarray, opts: EvaluationOptions,
                 iav: np.ndarray | None, common: np.ndarray | None, diag: dict[str, Any],
                 executor: Any = None) -> Iterator[_Plan]:
    """A :class:`_Plan` per (namespace, method), in namespace order then method order."""
    for j, lo, hi, label, bench, t_ptr, t_cols in namespace_benchmarks(prep, ns_list, allowed, diag):
        t_local = t_cols - lo
        ia_ns = None if iav is None else iav[lo:hi]
        n_t, i_t = truth_totals(t_ptr, t_local, ia_ns, hi - lo)
        base = namespace_spec(prep, j, allowed, ia_ns, opts)
        for name in prep.aligned:
            md = diag["methods"][name].setdefault("namespaces", {}).setdefault(label, {})
            ptr, cols, scores, seq = _raw_block(prep, name, bench, lo, hi, md)
            if base.roots is not None:  # every benchmark protein is predicted (its roots): unpredicted ones last
                seq = np.r_[seq, np.setdiff1d(np.arange(bench.size), seq)]
            leaves = make_leaves((ptr, (cols - lo).astype(np.int32), scores), seq, (t_ptr, t_local), bench)
            spec = replace(base, method=name)
            spec, leaves = _with_thresholds(spec, leaves, opts, common, executor)
            yield _Plan(j, spec, leaves, n_t, i_t, md, bench, (t_ptr, t_local))


def _with_thresholds(spec: BlockSpec, leaves: Any, opts: EvaluationOptions, common: np.ndarray | None,
                     executor: Any) -> tuple[BlockSpec, Any]:
    """The block's thresholds: common, the grid, or exact (None: each leaf's own distinct scores).

    Roots predicted at ``+inf`` belong to the highest threshold of the whole
    block, so with them the distinct scores are first collected leaf by leaf.
    """
    if common is not None:
        return replace(spec, thresholds=common), leaves
    if opts.grid is not None:
        return replace(spec, thresholds=opts.grid), leaves
    if spec.roots is None:
        return replace(spec, thresholds=None), leaves
    leaves = list(leaves)
    found = list(map_leaves(leaf_scores, [(spec, leaf) for leaf in leaves], executor))
    taus = np.unique(np.concatenate(found)) if found else np.zeros(0)
    return replace(spec, thresholds=taus), leaves


def _add_per_protein(st: SweepStats, prep: Prepared, plan: _Plan, allowed: np.ndarray, opts: EvaluationOptions,
                     icv: np.ndarray | None, per_protein: bool) -> None:
    """Per-protein step functions (bootstrap) and similarity sums of a block, over ``st``'s thresholds.

    These need the whole block in benchmark (truth) order, so the block is
    propagated once more as a whole.
    """
    ontology, spec, j = prep.ontology, plan.spec, plan.namespace
    lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
    ptr, c, v = _prediction_block(prep, spec.method, plan.bench, lo, hi, allowed, opts.propagation, {})
    blk = NamespaceBlock(j, spec.label, spec.method, prep.proteins[plan.bench], plan.truth[0], plan.truth[1],
                         ptr, c, v, plan.bench)
    if opts.root_as_prediction:
        blk = with_root_predictions(blk, ontology, allowed)
    if prep.known_keys is not None:
        blk, _ = without_known_pairs(blk, prep.known_keys, ontology)
    if per_protein:
        args = (blk.pred_indptr, blk.pred_cols, blk.pred_scores, blk.truth_indptr, blk.truth_cols, hi - lo,
                st.thresholds, spec.ia)
        st.protein_steps = protein_steps(*args, proteins=blk.proteins)
    if icv is not None:
        st.similarity = _similarity_stats(blk, ontology, lo, hi, st.thresholds, icv, spec.ia, opts)


def _similarity_stats(blk: NamespaceBlock, ontology: Ontology, lo: int, hi: int, taus: np.ndarray,
                      icv: np.ndarray, ia: np.ndarray | None, opts: EvaluationOptions) -> Any:
    """The block's :class:`~goeval.metrics.similarity.SimilarityStats` over the thresholds of its sweep."""
    from goeval.metrics.similarity import similarity_sweep

    return similarity_sweep(blk.truth_indptr, blk.truth_cols, blk.pred_indptr, blk.pred_cols, blk.pred_scores, taus,
                            ontology, lo, hi, icv, ia, measures=opts.similarity, pairings=opts.pairings)


def optimum_records(method: str, namespace: str, curves: Mapping[str, np.ndarray],
                    valid: np.ndarray) -> list[dict[str, Any]]:
    """Summary rows (:data:`SUMMARY_COLUMNS`) of every registered protein measure present in ``curves``.

    The measures of :data:`PROTEIN_MEASURES`, then those of
    :data:`SIMILARITY_MEASURES` (present when requested). The optimum is
    taken over the ``valid`` thresholds (coverage > 0); ties within
    rounding go to the lowest threshold (:func:`best_index`).
    """
    rows = []
    for ms in PROTEIN_MEASURES + SIMILARITY_MEASURES:
        col = ms.column
        if col not in curves:
            continue
        i = best_index(curves[col], ms.direction, valid)
        if i < 0:
            continue
        rows.append({
            "method": method, "namespace": namespace, "measure": ms.name, "value": float(curves[col][i]),
            "threshold": float(curves["threshold"][i]), "coverage": float(curves[ms.coverage][i]),
            "precision": float(curves[ms.precision][i]), "recall": float(curves[ms.recall][i]),
            "ru": float(curves[ms.ru][i]) if ms.ru in curves else np.nan,
            "mi": float(curves[ms.mi][i]) if ms.mi in curves else np.nan,
        })
    return rows


def area_records(method: str, namespace: str, curves: Mapping[str, np.ndarray],
                 valid: np.ndarray) -> list[dict[str, Any]]:
    """Summary rows of every registered area (:data:`PROTEIN_AREAS`) present in ``curves``.

    The area is taken over the ``valid`` thresholds (coverage > 0),
    ascending (:func:`~goeval.metrics.protein.aupr_score`); the columns
    that describe one threshold are NaN.
    """
    rows = []
    for ms in PROTEIN_AREAS:
        if ms.column not in curves or ms.recall not in curves or not valid.any():
            continue
        value = aupr_score(curves[ms.recall][valid], curves[ms.column][valid])
        rows.append({"method": method, "namespace": namespace, "measure": ms.name, "value": value,
                     **{c: np.nan for c in SUMMARY_COLUMNS[4:]}})
    return rows


def _concat_curves(frames: list[dict[str, np.ndarray]], with_ia: bool, extra: list[str]) -> dict[str, np.ndarray]:
    """The frames one after the other; ``extra`` (similarity) columns last, NaN where a frame lacks one."""
    cols = ["method", "namespace"] + [c for c in CURVE_COLUMNS if with_ia or c not in IA_COLUMNS] + extra
    if frames:
        return {c: np.concatenate([f[c] if c in f else np.full(f["method"].size, np.nan) for f in frames])
                for c in cols}
    return {c: np.zeros(0, dtype=object if c in ("method", "namespace") else float) for c in cols}


def summarize(
    stats: Mapping[BlockKey, SweepStats],
    options: EvaluationOptions | None = None,
    with_ia: bool = True,
    *,
    diagnostics: dict[str, Any] | None = None,
) -> EvaluationResult:
    """Curves and optima from sufficient statistics (e.g. pooled over folds).

    Parameters
    ----------
    stats : mapping of (method, namespace label) to SweepStats
        As returned by :func:`namespace_stats` (or sums of such mappings).
    options : EvaluationOptions, optional
        ``normalization``, ``k`` and ``protein_weighting`` are used here, and
        ``curves``, ``curve_tolerance``, ``curve_points``: the rows of each
        block's curve that are kept (:mod:`goeval.evaluation.curve_policy`), chosen
        right after the block's optima are taken on every threshold, so
        that only one block's full curves are in memory at a time.
    with_ia : bool
        Whether the statistics were computed with IA (IA-based columns and
        measures are then reported).
    diagnostics : dict, optional
        Becomes ``result.diagnostics``, with ``options`` and ``curves`` (the
        policy and each curve's rows before and after it) added.

    Returns
    -------
    EvaluationResult
        Curves at the thresholds with coverage > 0 (those the policy keeps;
        ``None`` with ``curves='none'``); one summary row per (method,
        namespace, registered protein measure), always over every threshold.
    """
    opts = EvaluationOptions.resolve(options)
    frames: list[dict[str, np.ndarray]] = []
    records: list[dict[str, Any]] = []
    kept: list[tuple[str, str, dict[str, Any]]] = []  # rows before and after the curve policy, per block
    extra: dict[str, None] = {}  # similarity columns, in order of appearance
    for (name, label), st in stats.items():
        cur = protein_curves(st, normalization=opts.normalization, k=opts.k,
                             protein_weighting=opts.protein_weighting, with_ia=with_ia)
        sim = {} if st.similarity is None else _similarity_curves(st.similarity, opts.normalization)
        cur.update(sim)
        extra.update(dict.fromkeys(sim))
        ok = cur["n_covered"] > 0
        n_ok = int(ok.sum())
        records.extend(optimum_records(name, label, cur, ok))
        records.extend(area_records(name, label, cur, ok))
        frame = {"method": np.full(n_ok, name, dtype=object), "namespace": np.full(n_ok, label, dtype=object)}
        if opts.curves != "none":
            frame.update({col: cur[col][ok] for col in CURVE_COLUMNS if col in cur})
            frame.update({col: v[ok] for col, v in sim.items()})
        else:
            frame["threshold"] = cur["threshold"][ok]
        # the optima's rows among the covered thresholds (kept by 'thin')
        optima = np.cumsum(ok)[optimum_rows(cur, ok)] - 1
        del cur, sim  # one block's full curves alive at a time
        frame, info = apply_curve_policy(frame, opts.curves, tolerance=opts.curve_tolerance,
                                         max_points=opts.curve_points, keep=optima)
        kept.append((name, label, info))
        if frame is not None:
            frames.append(frame)
        del frame
    diag = {} if diagnostics is None else diagnostics
    diag["options"] = {**opts.as_dict(), "ia": with_ia}
    diag["curves"] = curves_diagnostics(opts.curves, opts.curve_tolerance, opts.curve_points, kept)
    curves = None if opts.curves == "none" else _concat_curves(frames, with_ia, list(extra))
    return EvaluationResult(curves, records, diag, stats)


def _similarity_curves(stats: Any, normalization: str) -> dict[str, np.ndarray]:
    from goeval.metrics.similarity import similarity_curves

    return similarity_curves(stats, normalization)


def evaluate_annotations(
    ontology: Ontology,
    truth: Annotations,
    predictions: Mapping[str, Annotations],
    options: EvaluationOptions | None = None,
    *,
    ia: np.ndarray | None = None,
    targets: np.ndarray | list[str] | None = None,
    terms_of_interest: np.ndarray | None = None,
    excluded_terms: np.ndarray | None = None,
    bootstrap: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    ic: Any = None,
    known: Annotations | None = None,
    executor: Any = None,
    **option_overrides: Any,
) -> EvaluationResult:
    """Evaluate methods against truth, per namespace (see :func:`goeval.evaluate`).

    Parameters
    ----------
    ontology : Ontology
    truth : Annotations
        Truth sets mapped on ``ontology`` (propagated here if needed).
    predictions : mapping of str to Annotations
        Scores per method, mapped on ``ontology``.
    options : EvaluationOptions, optional
        The options; ``option_overrides`` (``thresholds=0.01``, ...) replace
        single fields and are validated the same way.
    ia : ndarray of shape (n_terms,), optional
        Information accretion (bits); without it the IA-based measures are
        not reported.
    targets, terms_of_interest, excluded_terms
        As for :func:`namespace_stats`.
    bootstrap : int, optional
        B: add bootstrap percentile intervals (``ci_low``, ``ci_high``,
        ``se``) of fmax, wfmax, fmax_micro, smin and wsmin to the summary,
        from B resamples of each namespace's benchmark proteins shared by
        every method (:func:`goeval.stats.add_bootstrap_columns`; see
        ``docs/statistics.md``). The statistics then keep their per-protein
        step functions (``result.stats[key].protein_steps``).
    seed : int, default 0
        Seed of the resamples (the same seed gives the same bits).
    confidence : float, default 0.95
        Coverage of the interval.
    ic : TermInformationContent or ndarray of shape (n_terms,), optional
        Term information content (bits) of the similarity measures
        (``similarity=...``); estimated from ``truth`` with a warning when
        not given (see :func:`namespace_stats`).
    known : Annotations, optional
        Known annotations whose propagated pairs leave each protein's
        truth and predictions (partial knowledge; :func:`namespace_stats`).
    executor : concurrent.futures.Executor, optional
        Where the chunks of proteins are evaluated (:func:`namespace_stats`);
        the same bits as without.

    Returns
    -------
    EvaluationResult

    Raises
    ------
    InvalidParameterError
        An unknown option or an invalid value (before any work).
    """
    opts = EvaluationOptions.resolve(options, **option_overrides)
    if bootstrap is not None:
        from goeval.stats.bootstrap import check_bootstrap_parameters

        bootstrap, seed, confidence = check_bootstrap_parameters(bootstrap, seed, confidence, "evaluate")
    diag: dict[str, Any] = {"ontology": {"source": ontology.source, **ontology.diagnostics}}
    stats = namespace_stats(ontology, truth, predictions, ia, opts, targets=targets,
                            terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, diagnostics=diag,
                            per_protein=bootstrap is not None, ic=ic, known=known, executor=executor)
    result = summarize(stats, opts, ia is not None, diagnostics=diag)
    if bootstrap is not None:
        from goeval.stats.bootstrap import add_bootstrap_columns

        add_bootstrap_columns(result, bootstrap, seed, confidence)
    return result

