"""Running the engine over methods: sources per method, diagnostics per method, statistics in order.

:func:`evaluate_blocks` is the one place where an evaluation's methods
become sources (predictions in memory, or files streamed in batches, here
or on an executor's workers), are run by the :class:`~goeval.evaluation.engine.Engine`
and get their diagnostics; :func:`namespace_stats` and
:func:`goeval.evaluation.evaluate_annotations` are it with a benchmark made
from in-memory annotations, and cross-validation and time splits run the
engine on their own sources (:mod:`goeval.benchmarks`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from goeval.annotations import Annotations, propagate
from goeval.diagnostics import Diagnostics
from goeval.errors import InvalidParameterError, UngroupedPredictionsError
from goeval.evaluation.benchmark import Benchmark, check_term_values, make_benchmark, term_mask
from goeval.evaluation.engine import BlockOutcome, Engine, Plan, Runner, executor_workers, shippable, \
    file_task
from goeval.evaluation.sources import source_for
from goeval.information.content import term_information_content
from goeval.io.readers import BATCH_ROWS, PredictionInput
from goeval.metrics.registry import IC_MEASURES
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.progress import Stage, stage
from goeval.sweep import BlockKey, SweepStats

__all__ = ["BATCH_ROWS", "similarity_ic", "evaluate_blocks", "evaluated", "prepare_benchmark", "namespace_stats", "method_diagnostics"]

def similarity_ic(ontology: Ontology, truth: Annotations, ic: Any, ia: np.ndarray | None,
                  opts: EvaluationOptions, diag: Diagnostics) -> np.ndarray | None:
    """Validated IC values (bits per term) for ``opts.similarity``, or None when no similarity is requested.

    Without ``ic``, the IC is estimated from ``truth`` (pseudo-count
    ``opts.pseudocount``), and the run says so (a warning in ``diag``):
    the test annotations then inform the measures. When none of the
    requested measures reads IC (``wang``, ``jaccard``, ``wjaccard``), none
    is estimated.
    """
    if opts.similarity is None:
        return None
    if ic is None and not IC_MEASURES.intersection(opts.similarity):
        return None

    from goeval.metrics.similarity import similarity_columns  # deferred: the similarity measures' modules (~25 ms of imports) only in runs that ask for them

    similarity_columns(opts.similarity, opts.pairings, func="evaluate")
    if "wjaccard" in opts.similarity and ia is None:
        raise InvalidParameterError("The 'wjaccard' similarity of evaluate needs information accretion ('ia'); got None.")
    if ic is None:
        tic = term_information_content(ontology, truth, opts.pseudocount)
        diag.warn("The information content of the similarity measures is estimated from the truth annotations, so the "
                  "test annotations inform the measures; give it from other annotations (ic, --ic-annotations).")
        diag["information_content"] = {"source": "truth", **tic.diagnostics}
        return tic.values
    if getattr(ic, "ontology", ontology) is not ontology:
        raise InvalidParameterError("The 'ic' parameter of evaluate was computed on another Ontology object.")
    v = check_term_values(ic, ontology, "ic")
    if not np.isfinite(v).all() or (v < 0).any():
        raise InvalidParameterError(f"The 'ic' parameter of evaluate must hold one finite value >= 0 per term "
                                    f"({ontology.n_terms}); got an array of shape {v.shape}.")
    diag["information_content"] = {"source": "given", **dict(getattr(ic, "diagnostics", {}))}
    return v


def method_diagnostics(counts: dict[str, Any], namespaces: dict[str, dict[str, Any]],
                       outcomes: Mapping[BlockKey, BlockOutcome], method: str, n_proteins: int) -> dict[str, Any]:
    """A method's diagnostics: its reading counts, per namespace its feed and block counts, its proteins."""
    per = {label: {**c, **outcomes[(method, label)].counts} for label, c in namespaces.items()
           if (method, label) in outcomes}
    return {**counts, "namespaces": per, "n_proteins": n_proteins}


def _run(source: Any, engine: Engine, benchmark: Benchmark) -> tuple[dict[str, Any], dict[str, Any], int]:
    """Submit a source's leaves: the method's counts, its namespaces' counts and its proteins."""
    engine.run(source, source.method, benchmark)
    return source.diagnostics(), source.feed.namespace_counts(), source.feed.counts.n_proteins


def _run_streamed(method: str, pred: PredictionInput, engine: Engine, benchmark: Benchmark, opts: EvaluationOptions,
                  batch_rows: int, streaming: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], int]:
    """A file streamed in batches; read whole instead when a protein comes back in a later batch."""
    try:
        out = _run(source_for(method, pred, benchmark, opts, stream=True, batch_rows=batch_rows), engine, benchmark)
    except UngroupedPredictionsError as exc:
        engine.discard(method)
        streaming["in_memory"][method] = f"not grouped by protein: {exc.protein} comes back at line {exc.line}"
        return _run(source_for(method, pred, benchmark, opts), engine, benchmark)
    streaming["streamed"].append(method)
    return out


def _remote_files(files: Mapping[str, Any], engine: Engine, benchmark: Benchmark, batch_rows: int,
                  streaming: dict[str, Any], stream: bool) -> dict[str, Any]:
    """Whole files on the executor's workers, one task each (each reads its own file, streamed or whole); an
    ungrouped streamed one is left out (to be read whole here)."""
    executor = engine.runner.executor
    setup = shippable(benchmark)
    futures = {name: executor.submit(file_task, name, path, engine.plan, setup, batch_rows, stream)
               for name, path in files.items()}
    out = {}
    for name, fut in futures.items():
        outcomes, counts = fut.result()
        if counts is None:
            streaming["in_memory"][name] = f"not grouped by protein: {outcomes[0]} comes back at line {outcomes[1]}"
            continue
        if stream:
            streaming["streamed"].append(name)
        engine.done.update(outcomes)
        out[name] = counts
    return out


def _method_counts(name: str, pred: Any, engine: Engine, benchmark: Benchmark, plan: Plan, stream: bool,
                   batch_rows: int, streaming: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], int]:
    """Run one method here: in memory, streamed (or its batches being read already), or its file read whole."""
    if isinstance(pred, PredictionInput) and (stream or pred.started):
        return _run_streamed(name, pred, engine, benchmark, plan.options, batch_rows, streaming)
    return _run(source_for(name, pred, benchmark, plan.options), engine, benchmark)


def evaluate_blocks(benchmark: Benchmark, predictions: Mapping[str, Any], plan: Plan, diag: Diagnostics, *,
                    executor: Any = None, stream: bool = False, batch_rows: int | None = None,
                    on_block: Callable[[BlockKey, SweepStats], Any] | None = None) -> dict[BlockKey, BlockOutcome]:
    """Evaluate every method on the benchmark: the outcome of every block, in namespace then method order.

    Parameters
    ----------
    benchmark : Benchmark
    predictions : mapping of str to Annotations, PredictionInput or source
        Per method, its predictions in memory, its file
        (:func:`goeval.io.readers.prediction_file`; read whole, or in
        batches with ``stream``), or a source of its own
        (:mod:`~goeval.evaluation.sources`, made with ``benchmark``).
    plan : Plan
    diag : Diagnostics
        Gets ``methods`` (per method its counts and, per namespace, its
        blocks' counts) and, with ``stream``, ``streaming``.
    executor : concurrent.futures.Executor, optional
        Where the leaves run (threads, processes, Dask); with at least as
        many files as workers, whole files run there instead, one task each
        (read there, streamed with ``stream``).
    stream : bool
        Prediction paths are read in batches of ``batch_rows`` rows.
    on_block : callable, optional
        What a block's outcome keeps in place of its statistics (:class:`~goeval.evaluation.engine.Engine`'s).
    """
    batch_rows = BATCH_ROWS if batch_rows is None else batch_rows
    engine = Engine(plan, Runner(executor), on_block=on_block)
    streaming: dict[str, Any] = {"streamed": [], "in_memory": {}}
    paths = {n: p for n, p in predictions.items() if isinstance(p, PredictionInput) and p.shippable}
    remote = bool(executor is not None and paths and len(paths) >= executor_workers(executor))
    per_method = sum(nb.n for nb in benchmark.namespaces)
    with stage(_stage_name(predictions, benchmark, stream), total=per_method * len(predictions), unit="protein",
               unit_scale=True) as progress:
        try:
            methods = _methods(predictions, engine, benchmark, plan, stream, batch_rows, streaming,
                               paths if remote else {}, progress, per_method)
            outcomes = engine.finish()
        except BaseException:
            engine.abort()
            raise
        n_eval = sum(o.stats is not None or o.whole is not None for o in outcomes.values())
        progress.note = f"{n_eval} of {len(outcomes)} (method, namespace) blocks evaluated"
    out = diag.setdefault("methods", {})
    for name in predictions:
        counts, per_ns, n_proteins = methods[name]
        out[name] = method_diagnostics(counts, per_ns, outcomes, name, n_proteins)
    if stream or streaming["in_memory"]:  # (a large first file evaluated as it was read may be read again, whole)
        diag["streaming"] = streaming
    return {(m, nb.label): outcomes[(m, nb.label)] for nb in benchmark.namespaces for m in predictions
            if (m, nb.label) in outcomes}


def _stage_name(predictions: Mapping[str, Any], benchmark: Benchmark, stream: bool) -> str:
    n = len(predictions)
    what = next(iter(predictions)) if n == 1 else f"{n} methods"
    labels = "/".join(nb.label for nb in benchmark.namespaces)
    return f"{'streaming and evaluating' if stream else 'evaluating'} {what} on {labels}"


def _methods(predictions: Mapping[str, Any], engine: Engine, benchmark: Benchmark, plan: Plan, stream: bool,
             batch_rows: int, streaming: dict[str, Any], remote: Mapping[str, Any], progress: Stage,
             per_method: int) -> dict[str, Any]:
    """Every method's counts (``remote``: files run whole on the executor's workers).

    The bar advances by the proteins of each leaf, and by a method's
    proteins without predictions once it is submitted.
    """
    engine.runner.on_proteins = progress.update
    submitted = 0
    methods = _remote_files(remote, engine, benchmark, batch_rows, streaming, stream) if remote else {}
    progress.update(per_method * len(methods))
    for name, pred in predictions.items():
        if name not in methods:
            methods[name] = _method_counts(name, pred, engine, benchmark, plan, stream, batch_rows, streaming)
            # proteins without predictions take no leaf: counted as done once the method is submitted
            progress.update(per_method - (engine.submitted_proteins - submitted))
            submitted = engine.submitted_proteins
    return methods


def evaluated(outcomes: Mapping[BlockKey, BlockOutcome]) -> dict[BlockKey, SweepStats]:
    """The statistics of the blocks that were evaluated (in the outcomes' order)."""
    return {k: o.stats for k, o in outcomes.items() if o.stats is not None}


def _check_common_thresholds(thresholds: Any) -> np.ndarray | None:
    if thresholds is None:
        return None
    t = np.asarray(thresholds, dtype=np.float64)
    if t.ndim != 1 or not np.isfinite(t).all() or (t <= 0).any() or (t.size > 1 and (np.diff(t) <= 0).any()):
        raise InvalidParameterError(
            "The 'thresholds' parameter of namespace_stats must be a strictly increasing 1-d array of "
            f"positive finite values; got an array of shape {t.shape}.")
    return t


def prepare_benchmark(ontology: Ontology, truth: Annotations, ia: Any, opts: EvaluationOptions, diag: Diagnostics, *,
                      targets: Any = None, terms_of_interest: Any = None, excluded_terms: Any = None, ic: Any = None,
                      known: Annotations | None = None) -> Benchmark:
    """The benchmark of an in-memory evaluation, with the IC of its similarity measures (once, reported)."""
    diag.setdefault("ontology", {"source": ontology.source, **ontology.diagnostics})
    iav = check_term_values(ia, ontology, "ia")
    allowed = term_mask(ontology, terms_of_interest, excluded_terms, opts.exclude_roots)
    if truth.ontology is not ontology:
        raise InvalidParameterError("truth was mapped on another Ontology object; load both with the same one.")
    if opts.similarity is not None and ic is None and not truth.propagated:
        truth = propagate(truth)  # once, for the IC and the evaluation
    icv = similarity_ic(ontology, truth, ic, iav, opts, diag)
    return make_benchmark(ontology, truth, opts, diag, ia=iav, ic=icv, targets=targets, known=known, allowed=allowed)


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
        As for :func:`goeval.evaluation.evaluate_annotations` (same Ontology object).
    ia : ndarray of shape (n_terms,), optional
        Information accretion (bits).
    options : EvaluationOptions, optional
        Thresholds, propagation, roots, namespaces, ``max_terms`` (the best
        terms kept per protein and namespace before propagation).
    thresholds : ndarray of float64, optional
        One common, strictly increasing threshold set used for every block
        instead of ``options.thresholds``, so that statistics of several
        calls can be added (``SweepStats.combine``) before
        :func:`~goeval.evaluation.summarize`.
    targets : sequence of str, optional
        Benchmark proteins.
    terms_of_interest, excluded_terms : ndarray of int, optional
        Term indices kept / removed.
    diagnostics : dict, optional
        Filled with every count (reading, mapping, propagation).
    per_protein : bool, default False
        Keep every protein's step functions (``SweepStats.protein_steps``):
        what a bootstrap or a paired comparison (:mod:`goeval.stats`) reads.
    ic : TermInformationContent or ndarray of shape (n_terms,), optional
        Term information content (bits) of the similarity measures
        (``options.similarity``); estimated from ``truth`` with a warning
        when not given.
    known : Annotations, optional
        Known annotations (partial knowledge): their propagated pairs leave
        each protein's truth and its propagated predictions.
    executor : concurrent.futures.Executor, optional
        Where the leaves are propagated and swept; the same bits as without.

    Returns
    -------
    dict of (method, namespace label) to SweepStats
        In namespace order, then method order; a method without any
        prediction in a namespace is absent (``diagnostics`` says
        ``evaluated: False``).
    """
    opts = EvaluationOptions.resolve(options)
    diag = Diagnostics.wrap(diagnostics) if diagnostics is not None else Diagnostics()
    common = _check_common_thresholds(thresholds)
    for name, pred in predictions.items():
        if not isinstance(pred, Annotations) or pred.ontology is not ontology:
            raise InvalidParameterError(f"predictions of {name!r} were mapped on another Ontology object.")
    bench = prepare_benchmark(ontology, truth, ia, opts, diag, targets=targets, terms_of_interest=terms_of_interest,
                              excluded_terms=excluded_terms, ic=ic, known=known)
    plan = Plan(options=opts, thresholds=common, per_protein=per_protein, similarity=opts.similarity is not None)
    stats = evaluated(evaluate_blocks(bench, predictions, plan, diag, executor=executor))
    if diagnostics is not None and diag is not diagnostics:
        diagnostics.update(diag)
    return stats
