"""Protein-centric evaluation: the engine, its sources and the summary.

One engine evaluates everything (:mod:`~goeval.evaluation.engine`): a
benchmark per evaluation (:mod:`~goeval.evaluation.benchmark`), leaves of
each (method, namespace) block from a source (:mod:`~goeval.evaluation.sources`:
predictions in memory, files streamed in batches, a shared score vector,
cross-validation folds), swept where a :class:`~goeval.evaluation.engine.Runner`
says (here, threads, processes, Dask) by :func:`~goeval.evaluation.leaves.leaf_task`,
added in fixed trees and summarized (:mod:`~goeval.evaluation.summary`).

* :func:`namespace_stats` - the sufficient statistics (:class:`~goeval.sweep.SweepStats`)
  of every (method, namespace);
* :func:`summarize` - curves and optima from such statistics;
* :func:`evaluate_annotations` - the two in a row; :func:`goeval.evaluate`
  is it with files.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from goeval.annotations import Annotations
from goeval.annotations.top_terms import keep_top_terms
from goeval.diagnostics import Diagnostics
from goeval.evaluation.benchmark import namespace_indices, term_mask
from goeval.evaluation.run import namespace_stats
from goeval.evaluation.summary import (BOOTSTRAP_COLUMNS, SUMMARY_COLUMNS, EvaluationResult, TimeSplitResult,
                                       area_records, optimum_records, summarize)
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.sweep import BlockKey

__all__ = [
    "EvaluationResult",
    "TimeSplitResult",
    "evaluate_annotations",
    "namespace_stats",
    "summarize",
    "optimum_records",
    "area_records",
    "keep_top_terms",
    "term_mask",
    "namespace_indices",
    "SUMMARY_COLUMNS",
    "BOOTSTRAP_COLUMNS",
    "BlockKey",
]


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
        ``se``) of every optimum and area of the summary, the similarity
        optima among them, from B resamples of each namespace's benchmark
        proteins shared by every method (:func:`goeval.stats.add_bootstrap_columns`;
        see ``docs/statistics.md``). The statistics then keep their per-protein
        step functions (``result.stats[key].protein_steps``, with the similarity
        ones in its ``similarity``).
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
        Where the leaves (runs of proteins of one (method, namespace)) are
        evaluated (:func:`namespace_stats`); the same bits as without.

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
        # deferred: the bootstrap (goeval.stats, ~40 ms of imports) only where it is asked for
        from goeval.stats.bootstrap import add_bootstrap_columns, check_bootstrap_parameters

        bootstrap, seed, confidence = check_bootstrap_parameters(bootstrap, seed, confidence, "evaluate")
    diag = Diagnostics(ontology={"source": ontology.source, **ontology.diagnostics})
    with diag.capture():  # what lower-level functions warn about is a fact of this run
        stats = namespace_stats(ontology, truth, predictions, ia, opts, targets=targets,
                                terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, diagnostics=diag,
                                per_protein=bootstrap is not None, ic=ic, known=known, executor=executor)
        result = summarize(stats, opts, ia is not None, diagnostics=diag)
        if bootstrap is not None:
            add_bootstrap_columns(result, bootstrap, seed, confidence)
    return result
