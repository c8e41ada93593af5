"""The evaluation entry point: :func:`evaluate` loads the inputs (:mod:`goeval.inputs`), runs the engine
(:mod:`goeval.evaluation`), and says what the run could not use (:mod:`goeval.checks`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np

from goeval.annotations import Annotations
from goeval.checks import check_result, check_targets, say_methods
from goeval.diagnostics import Diagnostics
from goeval.errors import GoevalError, InvalidParameterError
from goeval.inputs import (Inputs, cancel_started, check_inputs, deferred_files, load_extra, load_inputs,
                           resolve_predictions)
from goeval.io.files import PathLike
from goeval.io.ontology_cache import start_ontology
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions, RunOptions
from goeval.progress import stage

__all__ = ["evaluate", "protein_groups"]


def evaluate(
    ontology: Ontology | PathLike,
    truth: Annotations | PathLike,
    predictions: Mapping[str, Annotations] | Sequence[PathLike] | PathLike,
    *,
    options: EvaluationOptions | None = None,
    ia: np.ndarray | PathLike | None = None,
    ia_annotations: Annotations | PathLike | None = None,
    targets: Sequence[str] | PathLike | None = None,
    terms_of_interest: Sequence[str] | PathLike | None = None,
    excluded_terms: Sequence[str] | PathLike | None = None,
    pattern: str | None = None,
    preset: str | None = None,
    threads: int | None = None,
    bootstrap: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    known: Annotations | PathLike | Sequence[PathLike] | None = None,
    ic_annotations: Annotations | PathLike | Sequence[PathLike] | None = None,
    executor: Any = None,
    stream: bool = False,
    run: RunOptions | None = None,
    allow_empty: bool = False,
    groups: Any = None,
    **option_overrides: Any,
):  # noqa: ANN201 - EvaluationResult
    """Protein-centric evaluation: curves over thresholds and their optima.

    Parameters
    ----------
    ontology : Ontology or path
        The ontology (an OBO path is loaded with ``options.relations``,
        through the compiled-ontology cache; give
        ``load_ontology(path, cache=False)`` to bypass it).
    truth : Annotations or path
        Ground truth (``protein<TAB>term`` or GAF); propagated here.
    predictions : mapping name -> Annotations, or paths
        Files and directories (walked; non-prediction files are skipped and
        reported) give one method per file.
    options : EvaluationOptions, optional
        How to evaluate; single fields can be given as keywords instead
        (``thresholds=0.01``, ``normalization='cafa'``, ``propagation``,
        ``exclude_roots``, ``root_as_prediction``, ``k``, ``namespaces``,
        ``protein_weighting``, ``relations``, ``pseudocount``), validated the
        same way (see :class:`~goeval.options.EvaluationOptions`).
    ia : ndarray of shape (n_terms,) or path, optional
        Information accretion (bits). Without it (and without
        ``ia_annotations``) the IA-based measures are not computed.
    ia_annotations : Annotations or path, optional
        Estimate IA from these annotations instead (``options.pseudocount``).
    targets : list of str or path, optional
        Benchmark proteins (e.g. no-knowledge targets).
    terms_of_interest, excluded_terms : list of str or path, optional
        Restrict the evaluation to / remove these terms.
    pattern : str, optional
        Glob choosing the prediction files in directories (``*.tsv.gz``).
    preset : {'cafa5', 'cafa6'}, optional
        Start from a named option set (:data:`goeval.options.PRESETS`);
        ``options`` must then be None, keywords override the preset.
        Both need IA.
    threads : int, optional
        Threads reading prediction files and evaluating methods (default: all
        cores). Results do not depend on it, bit for bit.
    bootstrap : int, optional
        B >= 2: add bootstrap percentile intervals (``ci_low``, ``ci_high``,
        ``se``) of the optima, from B resamples of each namespace's benchmark
        proteins shared by every method (``docs/statistics.md``).
    seed : int, default 0
        Seed of the resamples (the same seed gives the same bits).
    confidence : float, default 0.95
        Coverage of the intervals.
    known : Annotations or path(s), optional
        Each protein's known terms (e.g. its annotations at t0, CAFA's
        partial-knowledge evaluation): they are propagated and removed from
        that protein's truth and predictions.
    ic_annotations : Annotations or path(s), optional
        Annotations the term information content of ``similarity`` measures
        is estimated from (default: the source of an estimated IA, else the
        truth, with a warning that test annotations then inform the measure).
    executor : concurrent.futures.Executor, optional
        Where the evaluation's leaves (the rows of about a fixed number of proteins of one (method, namespace) block)
        run: a ``ProcessPoolExecutor``, a Dask ``Client.get_executor()``
        (:func:`goeval.evaluation.parallel.dask_executor`), anything with ``submit``.
        The leaves and the order their sums are added in are fixed, so the
        result is the serial one, bit for bit (``threads`` then only reads).
    stream : bool, default False
        Read prediction files in batches and evaluate them leaf by leaf
        (:mod:`goeval.evaluation.sources`): memory no longer grows with the
        files. A file not grouped by protein is read whole instead, with a
        warning. The same bits either way, with every option.
    run : RunOptions, optional
        The run options (``threads``, ``executor``, ``stream``, ``bootstrap``,
        ``seed``, ``confidence``, ``pattern``, ``preset``) as one validated
        object, instead of one by one.
    allow_empty : bool, default False
        When nothing at all is evaluated, return the result without rows
        (``diagnostics["nothing_evaluated"]`` says why: the caller says it)
        instead of raising: for a caller that evaluates parts of a larger
        run, one of which may legitimately hold nothing.

    Returns
    -------
    EvaluationResult
        ``.curves``, ``.summary`` (pandas) and ``.diagnostics``
        (a :class:`~goeval.diagnostics.Diagnostics`).

    Raises
    ------
    InvalidParameterError
        An invalid option, before any file is read.
    InputFormatError
        A missing or malformed input, naming file and line.
    GoevalError
        Nothing at all was evaluated ("nothing was evaluated: " and why: no
        prediction of a benchmark protein, no truth in the evaluated
        namespaces, no target with truth...), as ``goeval evaluate`` fails;
        ``allow_empty=True`` returns the empty result instead.

    Warns
    -----
    GoevalWarning
        About inputs the run could not use (an IA file for another
        namespace, predictions for none of the benchmark proteins, targets
        without truth), an ontology that looks older or newer than the
        annotations, and (with ``allow_empty``) when nothing at all was
        evaluated. Each names the line of the caller's code that ran the
        evaluation.

    Examples
    --------
    >>> import goeval
    >>> res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
    ...                       [goeval.example_path("predictions")], ia=goeval.example_path("ia"),
    ...                       thresholds=0.01)
    >>> row = res.summary.set_index("measure").loc["fmax"]
    >>> round(float(row["value"]), 3), float(row["threshold"])
    (0.486, 0.46)
    """
    run = _run_options(run, threads=threads, executor=executor, stream=stream, bootstrap=bootstrap, seed=seed,
                       confidence=confidence, pattern=pattern, preset=preset)
    opts = run.options(options, with_ia=ia is not None or ia_annotations is not None, **option_overrides)
    diag = Diagnostics()
    check_inputs(ontology=ontology, truth=truth, ia=ia, ia_annotations=ia_annotations, targets=targets,
                 terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, known=known,
                 ic_annotations=ic_annotations)
    with diag.capture():  # what lower-level functions warn about is a fact of this run
        preds = resolve_predictions(predictions, run.pattern, diag)
        # with groups the files are read once here (or spilled once, streamed) for every group
        preds, stream_files = deferred_files(preds, run.stream, None if groups is not None else run.executor, diag)
        # (batches being read already are the engine's, read after the inputs: stopped by their starter)
        started = [v for v in [ontology, *preds.values()] if hasattr(v, "cancel") and not getattr(v, "started", False)]
        if isinstance(ontology, (str, Path)):
            ontology = start_ontology(ontology, opts.relations)
            started.append(ontology)
        try:
            inputs = load_inputs(ontology, truth, preds, opts, ia=ia, ia_annotations=ia_annotations, targets=targets,
                                  terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, diag=diag,
                                  threads=run.threads)
        finally:
            for s in started:
                cancel_started(s)
        load_extra(inputs, known, ic_annotations if ic_annotations is not None else (
            ia_annotations if opts.similarity else None), opts)
        if groups is None:
            res = _evaluate_inputs(inputs, opts, run, stream_files)
        else:
            res = _evaluate_groups(inputs, opts, run, stream_files, protein_groups(groups))
    why = res.diagnostics.get("nothing_evaluated")
    if why and not allow_empty:
        raise GoevalError(f"nothing was evaluated: {why}.")
    return res


def protein_groups(groups: Any) -> dict[str, np.ndarray]:
    """Group name -> its proteins: a groups file (:func:`goeval.benchmarks.groups.read_groups`), a mapping or a
    :class:`~goeval.benchmarks.groups.ProteinGroups` (:func:`goeval.evaluation.benchmark.group_proteins`)."""
    from goeval.evaluation.benchmark import group_proteins

    if isinstance(groups, (str, Path)):
        from goeval.benchmarks.groups import read_groups

        groups = read_groups(groups)
    return group_proteins(groups)


def _evaluate_groups(inputs: Inputs, opts: EvaluationOptions, run: RunOptions, stream_files: dict[str, Any] | None,
                     groups: dict[str, np.ndarray]):  # noqa: ANN202
    """Every group evaluated as a run restricted to its proteins (the same bits as that run with ``targets``), on
    the inputs read once; the whole benchmark's result, with the groups' under ``result.groups``.

    Streamed files are read once: the truth proteins' lines spilled (:class:`~goeval.io.readers.SpilledPredictions`)
    and replayed for every group.
    """
    from dataclasses import replace

    from goeval.io.predictions.keep import ProteinFilter
    from goeval.io.readers import SpilledPredictions
    from goeval.evaluation.benchmark import group_targets
    from goeval.progress import within

    spills = None
    if stream_files is not None:
        keep = ProteinFilter(inputs.truth.proteins.tolist())
        spills = {n: SpilledPredictions(p, keep) for n, p in stream_files.items()}
    base = inputs.diagnostics
    out = {}
    try:
        for name, proteins in [("all", None), *groups.items()]:
            diag = Diagnostics(base)
            diag.said = set(base.said)
            diag["warnings"] = list(base.get("warnings", []))  # each group's own list
            part = replace(inputs, targets=group_targets(inputs.targets, proteins), diagnostics=diag)
            with contextlib.nullcontext() if proteins is None else within(f"group {name}"):
                out[name] = _evaluate_inputs(part, opts, run, spills, quiet_targets=proteins is not None)
    finally:
        for spill in (spills or {}).values():
            spill.close()
    res = out.pop("all")
    res.groups = out
    res.diagnostics["groups"] = {name: {"proteins": int(groups[name].size),
                                        "benchmark_proteins": {k: int(v.get("benchmark_proteins", 0)) for k, v in
                                                               r.diagnostics.get("namespaces", {}).items()},
                                        "evaluated": not r.diagnostics.get("nothing_evaluated")}
                                 for name, r in out.items()}
    for name, r in out.items():
        if r.diagnostics.get("nothing_evaluated"):
            res.diagnostics.warn(f"group {name}: nothing was evaluated ({r.diagnostics['nothing_evaluated']}).")
    return res


def _run_options(run: RunOptions | None, **given: Any) -> RunOptions:
    """``run``, or the run options given one by one (not both)."""
    if run is None:
        return RunOptions(**given)
    defaults = RunOptions()
    if any(v != getattr(defaults, k) for k, v in given.items()):
        raise InvalidParameterError("Give the run options either as 'run' or one by one, not both.")
    if not isinstance(run, RunOptions):
        raise InvalidParameterError(f"The 'run' parameter of evaluate must be a RunOptions; got {type(run).__name__}.")
    return run


def _leaf_executor(executor: Any, threads: int | None, parallel: bool) -> Any:
    """Where the leaves run: the given executor, else ``threads`` threads when there is more than one method
    or a file is streamed or evaluated batch by batch as it is read (one method in memory is swept here: the
    same speed in less memory), else here."""
    if executor is not None:
        return contextlib.nullcontext(executor)
    n = threads or os.cpu_count() or 1
    if n > 1 and parallel:
        return ThreadPoolExecutor(max_workers=n, thread_name_prefix="goeval-leaf")
    return contextlib.nullcontext(None)


def _evaluate_inputs(inputs: Inputs, opts: EvaluationOptions, run: RunOptions,
                     stream_files: dict[str, Any] | None = None, quiet_targets: bool = False):  # noqa: ANN202
    """The loaded inputs through the engine (:mod:`goeval.evaluation`), then summarized and checked; the files
    of ``stream_files`` (left to the engine) read there, streamed with ``run.stream``."""
    # deferred: the engine and the bootstrap (~40 ms) load after the command line has forked its readers
    # (goeval evaluate imports this module to check its inputs first); goeval ia and propagate never need them
    from goeval.evaluation import summarize
    from goeval.evaluation.engine import Plan  # deferred: as summarize
    from goeval.evaluation.run import evaluate_blocks, evaluated, prepare_benchmark  # deferred: as summarize

    diag = inputs.diagnostics
    clock = perf_counter()
    check_targets(inputs, diag, quiet=quiet_targets)
    onto = inputs.ontology
    diag["ontology"] = {"source": onto.source, **onto.diagnostics}
    bench = prepare_benchmark(onto, inputs.truth, inputs.ia, opts, diag, targets=inputs.targets,
                              terms_of_interest=inputs.terms_of_interest, excluded_terms=inputs.excluded_terms,
                              ic=inputs.ic, known=inputs.known)
    plan = Plan(options=opts, per_protein=run.bootstrap is not None, similarity=opts.similarity is not None)
    preds = inputs.predictions if stream_files is None else stream_files
    batched = stream_files is not None or len(preds) > 1 or any(getattr(p, "started", False) for p in preds.values())
    with _leaf_executor(run.executor, run.threads, batched) as ex:
        stats = evaluated(evaluate_blocks(bench, preds, plan, diag, executor=ex,
                                          stream=run.stream and stream_files is not None))
    for name, why in diag.get("streaming", {}).get("in_memory", {}).items():
        what = f"{stream_files[name]} is read whole, not streamed" if stream_files else \
            "its file is read a second time, whole, not evaluated as it is read"
        diag.warn(f"method {name}: {what} ({why}).")
    say_methods(diag)
    with stage("summarizing", min_seconds=1.0) as st:
        res = summarize(stats, opts, inputs.ia is not None, diagnostics=diag)
        st.note = f"{len(res.summary_records):,} optima"
    if run.bootstrap is not None:
        from goeval.stats.bootstrap import add_bootstrap_columns  # deferred: as summarize

        add_bootstrap_columns(res, run.bootstrap, run.seed, run.confidence, threads=run.threads)
    diag.add_timing("evaluation", perf_counter() - clock)
    if "truth" in diag:
        diag["truth"]["n_proteins"] = int(inputs.truth.proteins.size)
    check_result(res, inputs, opts)
    return res
