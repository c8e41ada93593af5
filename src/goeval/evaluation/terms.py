"""Term-centric evaluation: each GO term is a query over the benchmark proteins.

Per method and namespace: TAP-k (Carroll et al. 2010) for one or more ``k``,
the BioCreative II.5 AUC of the interpolated P/R curve, and the CAFA2/3
term-centric ROC AUC and average precision; with information accretion also
DeepGO-SE's ROC AUC over informative terms and the average precision
weighted by term information or by BeProf's depth weight; also TAP as a
function of the cutoff (Fig. 5 of the TAP-k paper). Predictions and truth are propagated as
in the protein-centric evaluation (:mod:`goeval.evaluation`).

The summary columns of the registered term-centric measures are named in
:data:`goeval.metrics.registry.TERM_MEASURES` (``tap_{k}``, ``ipr_auc``,
``peak_tap``, ``macro_roc_auc``, ``macro_average_precision``,
``informative_roc_auc``, ``ia_weighted_average_precision``,
``depth_weighted_average_precision``); with ``bootstrap=B`` each gets a
percentile interval (``COLUMN_ci_low``, ``COLUMN_ci_high``, ``COLUMN_se``)
from B resamples of the benchmark proteins (:mod:`goeval.stats.term_bootstrap`).

Queries (CONVENTIONS §5): term ``v`` with at least ``min_positives`` truth
proteins among the benchmark proteins of its namespace; its list is the
benchmark proteins with a propagated score for ``v`` ranked by score
(descending; ties by protein id); ``T(q)`` is the number of truth proteins
with ``v``. Proteins without truth in the namespace are not queried.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

from goeval.annotations import Annotations
from goeval.errors import InvalidParameterError, check_choice
from goeval.diagnostics import Diagnostics
from goeval.evaluation.benchmark import group_proteins, group_targets, make_benchmark
from goeval.evaluation.engine import BlockScores, Plan
from goeval.evaluation.run import evaluate_blocks
from goeval.options import EvaluationOptions
from goeval.metrics.iprauc import ipr_auc_segments
from goeval.metrics.ranking import (TermCentricResult, depth_weights, informative_roc_auc, term_centric_scores,
                                    weighted_term_mean)
from goeval.metrics.retrieval import term_queries
from goeval.metrics.tapk import InsufficientErrorsError, tap_curve, tap_k
from goeval.ontology import Ontology
from goeval.ontology.dag import shortest_depths

__all__ = ["TermBlock", "TermEvaluationResult", "evaluate_terms"]


@dataclass(kw_only=True)
class TermEvaluationResult:
    """Result of :func:`evaluate_terms`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per (method, namespace): number of queries, TAP-k and its
        cutoff per ``k``, mean AUC iP/R, peak TAP and its cutoff, macro ROC
        AUC and macro average precision (terms with >= ``auc_min_positives``);
        with ``ia``: ``informative_terms``, ``informative_roc_auc`` and the
        average precision of those terms weighted by ia
        (``ia_weighted_average_precision``) or by BeProf's depth weight
        (``depth_weighted_average_precision``).
    terms : pandas.DataFrame
        One row per (method, namespace, term).
    curves : pandas.DataFrame
        TAP as a function of the cutoff: method, namespace, cutoff, tap.
    diagnostics : dict
        ``tap_cutoff_fallback``: the (method, namespace) blocks whose TAP-k
        cutoff E_k is undefined (fewer than half the queries reach ``k``
        errors) and fell back to the ``insufficient`` policy, with those
        ``k`` and the cutoff used (the lowest score, or None: no cutoff).
    """

    summary: pd.DataFrame
    terms: pd.DataFrame
    curves: pd.DataFrame
    diagnostics: dict[str, Any] = field(default_factory=dict)
    #: Group name -> the result of the group's proteins alone (``groups=``), else None.
    groups: dict[str, "TermEvaluationResult"] | None = None
    #: The bootstrap replicates (``bootstrap=``; :class:`goeval.stats.term_bootstrap.TermReplicates`), else None.
    replicates: Any = None


def evaluate_terms(
    ontology: Ontology,
    truth: Annotations,
    predictions: Mapping[str, Annotations],
    *,
    k: Sequence[int] = (20,),
    min_positives: int = 1,
    auc_min_positives: int = 10,
    query_weights: str = "uniform",
    ia: np.ndarray | None = None,
    namespaces: Sequence[str] | None = None,
    propagation: str = "max",
    targets: Any = None,
    insufficient: str = "lowest",
    curve: bool = True,
    groups: Any = None,
    informative_cutoff: float = 0.5,
    bootstrap: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
) -> TermEvaluationResult:
    """TAP-k, AUC iP/R and term-centric ROC AUC / AP per method and namespace.

    Parameters
    ----------
    ontology, truth, predictions
        As for :func:`goeval.evaluation.evaluate_annotations`.
    k : sequence of int
        TAP-k orders (errors allowed before the cutoff).
    min_positives : int, default 1
        Minimum truth proteins for a term to be a TAP-k / AUC iP/R query.
    auc_min_positives : int, default 10
        Minimum truth proteins for the ROC AUC / AP macro averages (CAFA).
    query_weights : {'uniform', 'ia'}
        Weight of each term query in the means; ``ia`` needs ``ia``.
    ia : ndarray of shape (n_terms,), optional
        Information accretion: the query weights (``query_weights='ia'``),
        and, whatever the query weights, the information that makes a term
        informative and weighs the average precision of each term.
    insufficient : {'lowest', 'error', 'pad'}
        TAP-k when fewer than half the queries reach ``k`` errors (C4).
    groups : mapping of str to proteins, or ProteinGroups, optional
        Each group's result too (``result.groups``): the evaluation whose
        benchmark proteins are the group's among ``targets`` (the same result
        as ``targets=`` them), on the same predictions.
    informative_cutoff : float, default 0.5
        Information (bits of ``ia``) from which a term with a positive and a
        negative protein is informative for ``informative_roc_auc``
        (DeepGO-SE's 0.5).
    bootstrap : int, optional
        B: percentile intervals of every term-centric summary measure from B
        resamples of each namespace's benchmark proteins (the resamples of
        the protein-centric bootstrap for the same ``seed``;
        :mod:`goeval.stats.term_bootstrap`): columns ``COLUMN_ci_low``,
        ``COLUMN_ci_high``, ``COLUMN_se`` after each measure's column, and
        the replicates in ``result.replicates``.
    seed : int, default 0
        Seed of the resamples.
    confidence : float, default 0.95
        Coverage of the intervals.
    """
    check_choice(query_weights, "query_weights", "evaluate_terms", ("uniform", "ia"))
    check_choice(propagation, "propagation", "evaluate_terms", ("max", "fill"))
    if query_weights == "ia" and ia is None:
        raise InvalidParameterError("query_weights='ia' needs information accretion (--ia or --ia-annotations).")
    if isinstance(informative_cutoff, bool) or not isinstance(informative_cutoff, (int, float, np.number)) \
            or not np.isfinite(informative_cutoff):
        raise InvalidParameterError("The 'informative_cutoff' parameter of evaluate_terms must be a finite number; "
                                    f"got {informative_cutoff!r}.")
    ks = [int(x) for x in k]
    if not ks or min(ks) < 1:
        raise InvalidParameterError(f"The 'k' parameter of evaluate_terms must be integers >= 1; got {list(k)!r}.")
    boot = None
    if bootstrap is not None:
        from goeval.stats.bootstrap import check_bootstrap_parameters

        boot = check_bootstrap_parameters(bootstrap, seed, confidence, "evaluate_terms")
    diag = Diagnostics(ontology={"source": ontology.source})
    opts = EvaluationOptions(propagation=propagation, namespaces=namespaces)  # unknown names fail before any work
    args = (ks, min_positives, auc_min_positives, query_weights, ia, insufficient, curve, float(informative_cutoff),
            boot)
    with diag.capture():
        res = _evaluate_term_blocks(ontology, truth, predictions, opts, diag, targets, *args)
    if groups is not None:
        res.groups = {}
        for name, proteins in group_proteins(groups).items():
            g_diag = Diagnostics(ontology={"source": ontology.source})
            with diag.capture():
                res.groups[name] = _evaluate_term_blocks(ontology, truth, predictions, opts, g_diag,
                                                         group_targets(targets, proteins), *args)
    return res


def _evaluate_term_blocks(ontology: Ontology, truth: Annotations, predictions: Mapping[str, Annotations],
                          opts: EvaluationOptions, diag: Diagnostics, targets: Any, ks: list[int], min_positives: int,
                          auc_min_positives: int, query_weights: str, ia: Any, insufficient: str,
                          curve: bool, informative_cutoff: float,
                          boot: tuple[int, int, float] | None = None) -> TermEvaluationResult:
    """The term-centric measures of every (method, namespace) block, propagated by the engine."""
    propagation = opts.propagation
    bench = make_benchmark(ontology, truth, opts, diag, targets=targets)
    outcomes = evaluate_blocks(bench, predictions, Plan(options=opts, keep_scores=True, sweep=False), diag)
    info = None if ia is None else np.asarray(ia, dtype=np.float64)
    w_all = None if query_weights == "uniform" else info
    weights = None if info is None else _TermWeights(info, shortest_depths(ontology.parents), informative_cutoff)
    summary, terms, curves = [], [], []
    blocks = [_term_block(o.whole, ontology, ks, min_positives, auc_min_positives, w_all, insufficient, curve, weights)
              for o in outcomes.values()]
    for blk, outcome in zip(blocks, outcomes.values()):
        lo = int(ontology.bounds[outcome.whole.index])
        row, per, cv = _evaluate_block(blk, ontology.names[lo : lo + blk.ids.size])
        if fallback := row.pop("_fallback", None):
            diag.setdefault("tap_cutoff_fallback", []).append(
                {"method": row["method"], "namespace": row["namespace"], "k": fallback,
                 "cutoff": row[f"cutoff_{fallback[0]}"]})
        summary.append(row)
        terms.append(per)
        if cv is not None:
            curves.append(cv)
    diag["options"] = {"k": ks, "min_positives": min_positives, "auc_min_positives": auc_min_positives,
                       "query_weights": query_weights, "propagation": propagation, "insufficient": insufficient,
                       "informative_cutoff": informative_cutoff if info is not None else None}
    replicates = None if boot is None else _bootstrap(blocks, summary, ks, boot, diag)
    return TermEvaluationResult(
        summary=pd.DataFrame(summary),
        terms=pd.concat(terms, ignore_index=True) if terms else pd.DataFrame(),
        curves=pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(
            columns=["method", "namespace", "cutoff", "tap"]),
        diagnostics=diag,
        replicates=replicates,
    )


def _bootstrap(blocks: list["TermBlock"], summary: list[dict[str, Any]], ks: list[int], boot: tuple[int, int, float],
               diag: Diagnostics) -> Any:
    """Intervals of the term-centric measures into the ``summary`` rows (in place); the replicates
    (:class:`goeval.stats.term_bootstrap.TermReplicates`)."""
    from goeval.stats.term_bootstrap import bootstrap_terms

    n_resamples, seed, confidence = boot
    reps, undefined = bootstrap_terms(blocks, summary, ks, n_resamples, seed, confidence)
    diag["bootstrap"] = {"n_resamples": n_resamples, "seed": seed, "confidence": confidence,
                         "unit": "benchmark proteins (the protein-centric bootstrap's resamples)",
                         "interval": "percentile (numpy quantile, method='linear')", "se": "standard deviation, ddof=1",
                         "undefined_resamples": undefined}
    return reps


@dataclass(frozen=True, kw_only=True)
class TermBlock:
    """One (method, namespace) of a term-centric evaluation: its matrices and the measures' parameters.

    Rows are the namespace's benchmark proteins (``proteins``), columns its
    terms (``ids``). :meth:`values` evaluates the block on any list of its
    rows (a bootstrap resample: a protein drawn twice is two rows).
    """

    method: str
    label: str
    truth: sp.csr_array
    scores: sp.csr_array
    proteins: np.ndarray
    ids: np.ndarray
    ks: tuple[int, ...]
    min_positives: int
    auc_min_positives: int
    insufficient: str
    curve: bool
    query_weights: np.ndarray | None = None
    weights: "_TermWeights | None" = None

    def values(self, rows: np.ndarray | None = None, *, strict: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
        """The summary values of the block (and its per-term results) on ``rows`` (default: every protein).

        With ``strict=False`` a TAP-k whose cutoff is undefined under
        ``insufficient='error'`` is NaN instead of an error (a bootstrap
        replicate).
        """
        t, s, prot = self.truth, self.scores, self.proteins
        if rows is not None:
            t, s, prot = t[rows], s[rows], prot[rows]
        row: dict[str, Any] = {}
        lists, tidx = term_queries(t, s, prot, min_positives=self.min_positives, query_weights=self.query_weights,
                                   term_ids=list(self.ids))
        row["queries"] = int(tidx.size)
        per: dict[str, Any] = {"lists": lists, "tidx": tidx}
        if tidx.size:
            _retrieval_values(self, lists, row, per, strict)
        tc = term_centric_scores(t, s, min_positives=self.auc_min_positives)
        row["auc_terms"] = int(tc.term_index.size)
        row["macro_roc_auc"] = tc.macro_roc_auc
        row["macro_average_precision"] = tc.macro_average_precision
        per["tc"] = tc
        if self.weights is not None:
            per["inf"] = _informative_and_weighted(row, t, s, tc, self.weights)
        return row, per


def _retrieval_values(b: TermBlock, lists: Any, row: dict[str, Any], per: dict[str, Any], strict: bool) -> None:
    """TAP-k per k, AUC iP/R and peak TAP of the term queries ``lists`` into ``row`` (per term into ``per``)."""
    for kk in b.ks:
        try:
            res = tap_k(lists, kk, insufficient=b.insufficient)
        except InsufficientErrorsError:
            if strict:
                raise
            row[f"tap_{kk}"], row[f"cutoff_{kk}"] = float("nan"), None
            continue
        row[f"tap_{kk}"] = res.tap
        row[f"cutoff_{kk}"] = res.cutoff
        if res.fallback_used:
            row.setdefault("_fallback", []).append(kk)
        per[f"apcp_{kk}"] = res.apcp
    auc = ipr_auc_segments(lists.relevance, lists.offsets, lists.n_relevant)
    per["ipr_auc"] = auc
    wts = lists.weights
    row["ipr_auc"] = float(np.dot(wts, auc) / wts.sum()) if wts.sum() > 0 else float("nan")
    if b.curve:
        cv = tap_curve(lists)
        row["peak_tap"], row["peak_cutoff"] = cv.peak_tap, cv.peak_cutoff
        per["curve"] = cv


def _term_block(blk: BlockScores, ontology: Ontology, ks: list[int], min_positives: int, auc_min_positives: int,
                ia: np.ndarray | None, insufficient: str, curve: bool,
                weights: _TermWeights | None = None) -> TermBlock:
    """The :class:`TermBlock` of one propagated (method, namespace)."""
    lo = int(ontology.bounds[blk.index])
    width = int(ontology.bounds[blk.index + 1]) - lo
    n = blk.n_bench
    t = sp.csr_array((np.ones(blk.truth_cols.size, bool), blk.truth_cols, blk.truth_indptr), shape=(n, width))
    s = sp.csr_array((blk.pred_scores, blk.pred_cols, blk.pred_indptr), shape=(n, width))
    return TermBlock(method=blk.method, label=blk.label, truth=t, scores=s, proteins=np.asarray(blk.proteins),
                     ids=ontology.ids[lo : lo + width], ks=tuple(ks), min_positives=min_positives,
                     auc_min_positives=auc_min_positives, insufficient=insufficient, curve=curve,
                     query_weights=None if ia is None else ia[lo : lo + width],
                     weights=None if weights is None else weights.part(lo, width))


def _evaluate_block(b: TermBlock, names: np.ndarray) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame | None]:
    """Summary row, per-term rows and TAP curve of one (method, namespace) (``names``: its terms' names)."""
    values, got = b.values()
    row: dict[str, Any] = {"method": b.method, "namespace": b.label, **values}
    lists, tidx, ids = got["lists"], got["tidx"], b.ids
    per = pd.DataFrame({
        "method": b.method, "namespace": b.label, "term": ids[tidx], "name": names[tidx],
        "n_positives": lists.n_relevant, "n_retrieved": np.diff(lists.offsets),
    })
    for c in [f"apcp_{kk}" for kk in b.ks] + ["ipr_auc"]:
        if c in got:
            per[c] = got[c]
    cv = got.get("curve")
    cv_frame = None if cv is None else pd.DataFrame({"method": b.method, "namespace": b.label, "cutoff": cv.cutoffs,
                                                     "tap": cv.tap})
    tc = got["tc"]
    if tc.term_index.size:
        extra = pd.DataFrame({"term": ids[tc.term_index], "roc_auc": tc.roc_auc, "average_precision": tc.average_precision})
        per = per.merge(extra, on="term", how="outer")
        per["method"], per["namespace"] = b.method, b.label
    if "inf" in got:
        per = _informative_frame(per, got["inf"], ids, b)
    return row, per, cv_frame


@dataclass(frozen=True)
class _TermWeights:
    """Information accretion and BeProf depth of every term, and the informative cutoff."""

    ia: np.ndarray
    depth: np.ndarray
    cutoff: float

    def part(self, lo: int, width: int) -> "_TermWeights":
        """The terms ``lo:lo + width`` (one namespace)."""
        return _TermWeights(self.ia[lo : lo + width], self.depth[lo : lo + width], self.cutoff)


def _informative_and_weighted(row: dict[str, Any], t: sp.csr_array, s: sp.csr_array, tc: TermCentricResult,
                              w: _TermWeights) -> TermCentricResult:
    """Add the informative-term ROC AUC and the ia- and depth-weighted average precision to ``row``; returns
    the informative terms' result."""
    inf = informative_roc_auc(t, s, w.ia, w.cutoff)
    row["informative_terms"] = int(inf.term_index.size)
    row["informative_roc_auc"] = inf.macro_roc_auc
    ap, at = tc.average_precision, tc.term_index
    row["ia_weighted_average_precision"] = weighted_term_mean(ap, w.ia[at])
    row["depth_weighted_average_precision"] = weighted_term_mean(ap, depth_weights(w.ia, w.depth)[at])
    return inf


def _informative_frame(per: pd.DataFrame, inf: TermCentricResult, ids: np.ndarray, b: TermBlock) -> pd.DataFrame:
    """``per`` with the ``informative_roc_auc`` column of the informative terms."""
    if not inf.term_index.size:
        return per.assign(informative_roc_auc=np.nan) if len(per) else per
    extra = pd.DataFrame({"term": ids[inf.term_index], "informative_roc_auc": inf.roc_auc})
    per = per.merge(extra, on="term", how="outer")
    per["method"], per["namespace"] = b.method, b.label
    return per
