"""The Kaggle CAFA 6 score (``cafa6_metric_final``): one submission against NK, LK and PK targets.

What the competition defines (its Evaluation page; scored with
CAFA-evaluator-PK, the partial-knowledge fork of CAFA-evaluator):

* targets of three kinds per namespace: no knowledge (NK), limited
  knowledge (LK) and partial knowledge (PK: proteins already annotated in
  the namespace, whose earlier terms are *known* and removed before scoring);
* per kind and namespace the IA-weighted Fmax ("full mode", Jiang et al.
  2016), with the organizers' IA file; the mean over MF, BP and CC per kind;
  the final score is the mean of the three kinds' means.

A *cell* is CAFA 6's word for one (kind of target, namespace) of the score
and its value, a method's optimum there (:func:`~goeval.metrics.registry.cell_measure`):
the score's table is cells, kind means and the final score. Within each
kind's evaluation the unit is, as everywhere in goeval, the *block* (method,
namespace).

Each kind is one evaluation (:func:`goeval.evaluate` with the ``cafa6``
preset: max propagation, CAFA-evaluator-PK's counting ``cafa-pk`` and
thresholds ``np.arange(0.001, 1, 0.001)``; PK with its known terms), so every
other measure comes as usual. The "maximum F-measure based on the weighted
precision and recall" is read as CAFA-evaluator-PK's ``f_w`` (the page's
text: the F-measure of the protein-averaged weighted precision and recall,
:data:`~goeval.metrics.registry.PROTEIN_AGGREGATES` ``cafa6_metric_final``);
``cafa6_metric_final_micro`` reads it as ``f_micro_w`` (pooled terms), which
some public reproductions of the leaderboard use. A namespace with targets of
a kind where a method predicts nothing counts 0 (the reference writes no row
for it; the page does not say); a kind without targets is left out of the
mean.

* :func:`cafa6_eval` - the whole run from files (or objects in memory);
* :func:`cafa6_score`, :func:`cafa6_records` - the score and its table from
  per-kind results;
* bootstrap intervals of every cell, kind mean and final score from
  :func:`goeval.stats.aggregate.aggregate_replicates`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from goeval.benchmarks.timesplit import KINDS
from goeval.compat.cafaeval import benchmark_namespaces
from goeval.diagnostics import Diagnostics
from goeval.errors import InvalidParameterError
from goeval.evaluation.summary import merge_results, ranked
from goeval.memory import release_freed_memory
from goeval.metrics.registry import Measure, cell_measure, get_measure

__all__ = ["KINDS", "CAFA6_COLUMNS", "Cafa6Result", "cafa6_eval", "cafa6_score", "cafa6_records", "cafa6_measure",
           "cafa6_leaderboard"]

#: Columns of the score table (``cafa6.tsv``); ``ci_low ci_high se`` follow with a bootstrap.
CAFA6_COLUMNS: tuple[str, ...] = ("method", "kind", "namespace", "measure", "value", "threshold", "coverage",
                                  "precision", "recall")
_CELL_COLUMNS = ("threshold", "coverage", "precision", "recall")


def cafa6_measure(name: str | Measure) -> Measure:
    """The registered CAFA 6 aggregate called ``name`` (``cafa6_metric_final`` or ``..._micro``).

    Raises
    ------
    InvalidParameterError
        For a measure that is not a mean over target kinds.
    """
    m = name if isinstance(name, Measure) else get_measure(name)
    if m.reduce != "kind_mean":
        raise InvalidParameterError(f"The 'measure' parameter of cafa6_eval must be a mean over target kinds "
                                    f"(cafa6_metric_final or cafa6_metric_final_micro); got {m.name!r}.")
    return m


@dataclass(kw_only=True)
class Cafa6Result:
    """A CAFA 6 run: one evaluation per kind of target, and the score.

    Attributes
    ----------
    kinds : dict of str to EvaluationResult
        ``NK``, ``LK``, ``PK`` (those given), each a complete evaluation.
    measure : str
        ``cafa6_metric_final`` (weighted Fmax) or ``cafa6_metric_final_micro``.
    records : list of dict
        The score table (:data:`CAFA6_COLUMNS`): per method the cells (kind,
        namespace), each kind's mean (namespace ``mean``) and the final score
        (kind and namespace ``all``).
    diagnostics : Diagnostics
        The score's facts (kinds, namespaces, cells counted 0, bootstrap).
    replicates : dict, optional
        With a bootstrap: method -> ``all``, kind or ``kind/namespace`` ->
        replicate values (:func:`~goeval.stats.aggregate.aggregate_replicates`).
    """

    kinds: dict[str, Any]
    measure: str
    records: list[dict[str, Any]]
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    replicates: dict[str, dict[str, np.ndarray]] | None = None
    #: Group name -> the score of the group's targets alone (``groups=``), else None.
    groups: dict[str, "Cafa6Result"] | None = None

    @property
    def methods(self) -> list[str]:
        """The methods, in order of appearance."""
        return list(dict.fromkeys(r["method"] for r in self.records))

    def score(self, method: str | None = None) -> float:
        """The final score of ``method`` (the only one when None)."""
        return cafa6_score(self.kinds, method, self.measure)[0]

    @property
    def summary(self) -> Any:
        """The score table as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.records)


def _methods(kinds: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys(r["method"] for res in kinds.values() for r in res.summary_records))


def _cells(kinds: Mapping[str, Any], method: str, cell: str) -> dict[tuple[str, str], dict[str, Any] | None]:
    """The summary row of ``cell`` for each (kind, namespace with benchmark proteins); None where missing."""
    out: dict[tuple[str, str], dict[str, Any] | None] = {}
    for kind, res in kinds.items():
        rows = {r["namespace"]: r for r in res.summary_records if r["method"] == method and r["measure"] == cell}
        for label in benchmark_namespaces(res):
            out[(kind, label)] = rows.get(label)
    return out


def cafa6_score(kinds: Mapping[str, Any], method: str | None = None,
                measure: str = "cafa6_metric_final") -> tuple[float, dict[str, float], dict[tuple[str, str], float]]:
    """The CAFA 6 score of one method from its per-kind results.

    Parameters
    ----------
    kinds : mapping of str to EvaluationResult
        Kind (``NK``, ``LK``, ``PK``) -> evaluation with IA.
    method : str, optional
        Needed when the results hold several methods.
    measure : {'cafa6_metric_final', 'cafa6_metric_final_micro'}

    Returns
    -------
    final : float
        Mean over the kinds of their means.
    per_kind : dict of str to float
        Mean over the kind's namespaces with targets of the cell measure.
    cells : dict of (kind, namespace) to float
        The cells (CAFA 6's word for a kind and namespace of the score):
        ``wfmax`` (or ``wfmax_micro``); 0 where the method predicts nothing.

    Examples
    --------
    >>> import goeval
    >>> ex = goeval.example_path
    >>> res = goeval.evaluate(ex("ontology"), ex("truth"), [ex("predictions")], ia=ex("ia"), preset="cafa6")
    >>> final, per_kind, cells = cafa6_score({"NK": res})
    >>> round(final, 4) == round(cells[("NK", "MFO")], 4), list(per_kind)
    (True, ['NK'])
    """
    cell = cell_measure(cafa6_measure(measure)).name
    methods = _methods(kinds)
    if method is None and len(methods) == 1:
        method = methods[0]
    if method not in methods:
        raise InvalidParameterError(f"The 'method' parameter of cafa6_score must be one of {methods}; got {method!r}.")
    cells = {k: (float(r["value"]) if r is not None else 0.0) for k, r in _cells(kinds, method, cell).items()}
    per_kind = {kind: float(np.mean([v for (k, _), v in cells.items() if k == kind]))
                for kind in kinds if any(k == kind for k, _ in cells)}
    final = float(np.mean(list(per_kind.values()))) if per_kind else float("nan")
    return final, per_kind, cells


def _interval(values: np.ndarray | None, confidence: float) -> dict[str, float]:
    from goeval.stats.bootstrap import percentile_interval

    if values is None:
        return {"ci_low": float("nan"), "ci_high": float("nan"), "se": float("nan")}
    lo, hi, se, _ = percentile_interval(values, confidence)
    return {"ci_low": lo, "ci_high": hi, "se": se}


def cafa6_records(kinds: Mapping[str, Any], measure: str = "cafa6_metric_final",
                  replicates: Mapping[str, Mapping[str, np.ndarray]] | None = None,
                  confidence: float = 0.95) -> list[dict[str, Any]]:
    """The score table: per method each cell, each kind's mean and the final score.

    Parameters
    ----------
    kinds : mapping of str to EvaluationResult
    measure : {'cafa6_metric_final', 'cafa6_metric_final_micro'}
    replicates : mapping, optional
        Method -> ``all``, kind or ``kind/namespace`` -> bootstrap replicate
        values; adds ``ci_low``, ``ci_high`` and ``se`` (percentile interval).
    confidence : float

    Returns
    -------
    list of dict
        Columns :data:`CAFA6_COLUMNS` (and the interval's); a cell where the
        method predicts nothing has value 0 and no threshold.
    """
    agg = cafa6_measure(measure)
    rows = []
    for method in _methods(kinds):
        method_rows = _method_rows(kinds, method, agg)
        if replicates is not None:
            reps = replicates.get(method, {})
            for row in method_rows:
                row.update(_interval(reps.get(_replicate_key(row)), confidence))
        rows += method_rows
    return rows


def cafa6_leaderboard(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per submission, best first: ``rank``, ``method``, the final score (``value``, and ``ci_low``,
    ``ci_high``, ``se`` with a bootstrap), then each kind's mean.

    Ties share the better rank (``1, 2, 2, 4``); equal scores are listed by method name.

    Examples
    --------
    >>> rows = [{"method": m, "kind": "all", "namespace": "all", "measure": "f", "value": v}
    ...         for m, v in (("a", 0.2), ("b", 0.3), ("c", 0.2))]
    >>> [(r["rank"], r["method"]) for r in cafa6_leaderboard(rows)]
    [(1, 'b'), (2, 'a'), (2, 'c')]
    """
    finals = [r for r in records if r["kind"] == "all"]
    means = {(r["method"], r["kind"]): r["value"] for r in records if r["namespace"] == "mean"}
    kinds = list(dict.fromkeys(k for _, k in means))
    rows = []
    for r in finals:
        row = {"rank": 0, "method": r["method"], "measure": r["measure"], "value": r["value"]}
        row.update({c: r[c] for c in ("ci_low", "ci_high", "se") if c in r})
        row.update({kind: means.get((r["method"], kind), float("nan")) for kind in kinds})
        rows.append(row)
    return ranked(rows)


def _replicate_key(row: Mapping[str, Any]) -> str:
    """The replicates of a score-table row: ``all``, a kind, or ``kind/namespace``."""
    if row["kind"] == "all":
        return "all"
    return row["kind"] if row["namespace"] == "mean" else f"{row['kind']}/{row['namespace']}"


def _method_rows(kinds: Mapping[str, Any], method: str, agg: Measure) -> list[dict[str, Any]]:
    """One method's cells, kind means and final score (threshold columns NaN where they mean nothing)."""
    cell = cell_measure(agg).name
    final, per_kind, _ = cafa6_score(kinds, method, agg.name)
    nan = float("nan")
    rows = []
    for (kind, label), r in _cells(kinds, method, cell).items():
        rows.append({"method": method, "kind": kind, "namespace": label, "measure": cell,
                     "value": float(r["value"]) if r is not None else 0.0,
                     **{c: (float(r[c]) if r is not None else nan) for c in _CELL_COLUMNS}})
    for kind, value in per_kind.items():
        rows.append({"method": method, "kind": kind, "namespace": "mean", "measure": cell, "value": value,
                     **dict.fromkeys(_CELL_COLUMNS, nan)})
    rows.append({"method": method, "kind": "all", "namespace": "all", "measure": agg.name, "value": final,
                 **dict.fromkeys(_CELL_COLUMNS, nan)})
    return rows


def _prediction_inputs(predictions: Any, pattern: str | None, diag: Diagnostics) -> dict[str, Any]:
    """Method -> prediction file (checked) or Annotations given, in order (directories walked)."""
    from goeval.io.files import check_input
    from goeval.io.paths import find_prediction_files

    if isinstance(predictions, Mapping):
        inputs = dict(predictions)
    else:
        found = find_prediction_files([predictions] if isinstance(predictions, (str, Path)) else list(predictions),
                                      pattern)
        if found.skipped:
            diag["skipped_files"] = [(str(p), why) for p, why in found.skipped]
        inputs = dict(found.files)
    for path in inputs.values():
        if isinstance(path, (str, Path)):
            check_input(path, "prediction")
    return inputs


def _read_group(inputs: Mapping[str, Any], ontology: Any, keep: Any, threads: int | None,
                stream: bool) -> dict[str, Any]:
    """Method -> Annotations (or, with ``stream``, its kept batches spilled): the files read at once in threads,
    each once for every kind (only the lines of the proteins of some kind's truth parsed)."""
    from goeval.annotations import map_table
    from goeval.inputs import PredictionReads
    from goeval.io.readers import BATCH_ROWS

    files = {n: p for n, p in inputs.items() if isinstance(p, (str, Path))}
    tables = PredictionReads(files, keep, threads, spill=BATCH_ROWS if stream else None).tables()
    if stream:
        return {name: tables.pop(name) if name in files else value for name, value in inputs.items()}
    return {name: map_table(tables.pop(name), ontology) if name in files else value for name, value in inputs.items()}


class _Submissions:
    """Submissions scored for every kind: read once (only the truth proteins' lines), evaluated per kind.

    Called here with a group of submissions read in threads, or on an executor's worker with one
    submission (the worker reads its file; an ontology given as a path is loaded there, once per worker).
    """

    def __init__(self, ontology: Any, truths: Mapping[str, Any], inputs: dict[str, Any], options: Any,
                 run: Any) -> None:
        self.ontology, self.truths, self.inputs, self.options, self.run = ontology, truths, inputs, options, run

    def __call__(self, group: Mapping[str, Any], threads: int | None, executor: Any = None) -> dict[str, Any]:
        from goeval.api import evaluate

        onto = _worker_ontology(self.ontology, self.options.relations)
        preds = _read_group(group, onto, _truth_proteins(self.truths), threads, self.run.stream)
        kw = self.inputs
        run = replace(self.run, threads=threads, executor=executor)
        try:
            return {kind: evaluate(onto, t, preds, options=self.options, run=run, ia=kw["ia"],
                                   known=kw["known"] if kind == "PK" else None, terms_of_interest=kw["terms_of_interest"],
                                   groups=kw.get("groups"),
                                   allow_empty=True)  # a group may predict none of a kind's targets: cells 0
                    for kind, t in self.truths.items()}
        finally:
            for p in preds.values():
                getattr(p, "close", lambda: None)()


_WORKER_ONTOLOGIES: dict[tuple[str, tuple[str, ...]], Any] = {}


def _worker_ontology(ontology: Any, relations: Any) -> Any:
    """The ontology object, or the one loaded from a path (once per process: a worker scores many files)."""
    if not isinstance(ontology, (str, Path)):
        return ontology
    from goeval.inputs import load_ontology

    key = (str(ontology), tuple(relations))
    if key not in _WORKER_ONTOLOGIES:
        _WORKER_ONTOLOGIES[key] = load_ontology(ontology, relations)
    return _WORKER_ONTOLOGIES[key]


def _quiet_task(job: _Submissions, group: dict[str, Any]) -> dict[str, Any]:
    """A submission scored as a task: its stages not said (a worker's console is not the user's)."""
    from goeval.progress import _STATE, set_enabled

    before = _STATE["enabled"]
    set_enabled(False)
    try:
        return job(group, 1)
    finally:
        set_enabled(before)


def _on_executor(executor: Any, job: _Submissions, files: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One task per submission file on the executor (a Dask cluster: ``--dask``); results in the files' order."""
    from goeval.progress import stage

    futures = {name: executor.submit(_quiet_task, job, {name: path}) for name, path in files.items()}
    parts = []
    with stage(f"scoring {len(files)} submission{'s' if len(files) != 1 else ''} on the executor",
               total=len(files), unit="file") as st:
        try:
            for fut in futures.values():
                parts.append(fut.result())
                st.update(1)
        except BaseException:
            for fut in futures.values():
                fut.cancel()
            raise
    return parts


def _groups(inputs: Mapping[str, Any], size: int) -> list[dict[str, Any]]:
    """The methods in groups of ``size``, in order: read and evaluated a group at a time."""
    items = list(inputs.items())
    return [dict(items[k : k + size]) for k in range(0, len(items), size)] or [{}]


def _truth_proteins(truths: Mapping[str, Any]) -> Any:
    """The proteins of every kind's truth (files read as tables, not mapped): the prediction reader's filter."""
    from goeval.annotations import Annotations
    from goeval.io.predictions.keep import ProteinFilter
    from goeval.io.truth import read_annotation_tables

    parts: list[Any] = []
    for value in truths.values():
        parts += [value] if isinstance(value, Annotations) else read_annotation_tables(value)
    return ProteinFilter.of(parts)


def _kind_truths(truth: Mapping[str, Any]) -> dict[str, Any]:
    """``truth`` in kind order, checked: kinds among NK, LK, PK."""
    if not isinstance(truth, Mapping) or not truth:
        raise InvalidParameterError("The 'truth' parameter of cafa6_eval must map target kinds (NK, LK, PK) to their "
                                    f"ground truth; got {truth!r}.")
    bad = [k for k in truth if k not in KINDS]
    if bad:
        raise InvalidParameterError(f"The 'truth' parameter of cafa6_eval must map kinds among {', '.join(KINDS)}; "
                                    f"got {bad}.")
    return {k: truth[k] for k in KINDS if k in truth}


def cafa6_eval(ontology: Any, truth: Mapping[str, Any], predictions: Any, *, ia: Any, known: Any = None,
               terms_of_interest: Any = None, measure: str = "cafa6_metric_final", options: Any = None,
               bootstrap: int | None = None, seed: int = 0, confidence: float = 0.95, threads: int | None = None,
               executor: Any = None, stream: bool = False, pattern: str | None = None, groups: Any = None,
               **option_overrides: Any) -> Cafa6Result:
    """Score submissions against NK, LK and PK targets as CAFA 6 does: one evaluation per kind, then the mean.

    Parameters
    ----------
    ontology : Ontology or path
        The GO release of the competition (``go-basic.obo``).
    truth : mapping of str to Annotations, path or list of paths
        ``{"NK": ..., "LK": ..., "PK": ...}``: each kind's ground truth; a
        protein's targets of a kind are its namespaces there.
    predictions : path, paths or mapping of name to Annotations or path
        Submission files (each a method; directories are walked), or methods
        by name.
    ia : ndarray or path
        The organizers' information accretion (bits per term).
    known : Annotations, path or list of paths, optional
        The known terms of the PK targets (e.g. their annotations at t0);
        used for PK only, as the reference's ``-known``.
    terms_of_interest : list of str or path, optional
        Terms scored (the reference's ``-toi``), for every kind.
    measure : {'cafa6_metric_final', 'cafa6_metric_final_micro'}
        The score from ``wfmax`` (f_w, default) or ``wfmax_micro`` (f_micro_w).
    options : EvaluationOptions, optional
        Instead of the ``cafa6`` preset (keywords override either).
    bootstrap, seed, confidence
        B resamples of every (kind, namespace)'s targets: intervals of every
        cell, kind mean and the final score (and of each kind's usual measures).
    groups : mapping of str to proteins, or ProteinGroups, optional
        Each group's score too (``result.groups``): every kind evaluated on the group's targets alone
        (:func:`goeval.evaluate`'s ``groups``), over the kinds where the group has targets.
    threads, executor, stream, pattern
        As for :func:`goeval.evaluate`, but with an ``executor`` (a Dask cluster: ``--dask``) and
        submissions given as files, every submission is one task, read and scored for every kind on a
        worker (an ontology given as a path is loaded there, once per worker), the results merged in the
        submissions' order. Otherwise the prediction files are read once for every kind, ``threads``
        (default: all cores) at a time: a group of that many submissions is read in parallel, evaluated for
        every kind and released before the next, so memory does not grow with the number of submissions.
        With ``stream`` the kept lines of each file are not held but spilled, in batches, to an anonymous
        temporary file that every kind streams (:class:`~goeval.io.readers.SpilledPredictions`).

    Returns
    -------
    Cafa6Result

    Raises
    ------
    InvalidParameterError
        An unknown kind or measure, an invalid option, no IA.
    """

    from goeval.inputs import check_inputs, load_ontology
    from goeval.options import EvaluationOptions, RunOptions

    agg = cafa6_measure(measure)
    truths = _kind_truths(truth)
    if ia is None:
        raise InvalidParameterError("The CAFA 6 score is IA-weighted: give 'ia' (--ia, the organizers' IA file).")
    opts = EvaluationOptions.resolve(options, **option_overrides) if options is not None else \
        EvaluationOptions.preset("cafa6", **option_overrides)
    check_inputs(ontology=ontology, truth=[t for v in truths.values() for t in (v if isinstance(v, list) else [v])],
                 ia=ia, known=known, terms_of_interest=terms_of_interest)
    diag = Diagnostics(measure=agg.name, kinds=list(truths))
    inputs = _prediction_inputs(predictions, pattern, diag)
    per_task = executor is not None and bool(inputs) and all(isinstance(p, (str, Path)) for p in inputs.values())
    if not per_task and isinstance(ontology, (str, Path)):
        ontology = load_ontology(ontology, opts.relations)
    run = RunOptions(threads=threads, stream=stream, bootstrap=bootstrap, seed=seed, confidence=confidence)
    job = _Submissions(ontology, truths, dict(ia=ia, known=known, terms_of_interest=terms_of_interest,
                                              groups=groups), opts, run)
    if per_task:
        parts = _on_executor(executor, job, inputs)
    else:
        parts = []
        for group in _groups(inputs, max(1, threads or os.cpu_count() or 1)):
            parts.append(job(group, threads))
            release_freed_memory()  # (the group's reads lie under its results: memory would grow with groups)
    results = {kind: merge_results([part[kind] for part in parts]) for kind in truths}
    out = _finish(results, agg, diag, run)
    if groups is not None:
        out.groups = {name: _finish(kinds, agg, Diagnostics(measure=agg.name, kinds=list(kinds)), run)
                      for name, kinds in _group_kinds(results).items()}
    return out


def _group_kinds(results: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Group -> its per-kind results, the kinds where the group has a benchmark protein."""
    names = list(dict.fromkeys(g for r in results.values() for g in (r.groups or {})))
    out = {}
    for name in names:
        kinds = {k: r.groups[name] for k, r in results.items() if name in (r.groups or {})
                 and any(v.get("benchmark_proteins") for v in r.groups[name].diagnostics.get("namespaces", {}).values())}
        if kinds:
            out[name] = kinds
    return out


def _finish(results: dict[str, Any], agg: Measure, diag: Diagnostics, run: Any) -> Cafa6Result:
    """The score of per-kind results, with its facts and, with a bootstrap, its replicates."""
    layout = {kind: benchmark_namespaces(res) for kind, res in results.items()}
    diag["targets"] = {kind: {label: int(res.diagnostics["namespaces"][label]["benchmark_proteins"])
                              for label in layout[kind]} for kind, res in results.items()}
    cell = cell_measure(agg).name
    for method in _methods(results):
        missing = [f"{k} {ns}" for (k, ns), r in _cells(results, method, cell).items() if r is None]
        if missing:
            diag.warn(f"method {method} predicts nothing for the targets of {', '.join(missing)}: "
                      f"{'that cell counts' if len(missing) == 1 else 'those cells count'} 0 in the CAFA 6 score.")
    reps = None
    if run.bootstrap is not None:
        from goeval.stats.aggregate import aggregate_replicates
        from goeval.stats.replicates import curve_settings

        first = next(iter(results.values()))
        reps = aggregate_replicates({k: r.stats for k, r in results.items()}, cell_measure(agg),
                                    curve_settings(first), run.bootstrap, run.seed, namespaces=layout,
                                    threads=run.threads)
        diag["bootstrap"] = {"n_resamples": run.bootstrap, "seed": run.seed, "confidence": run.confidence,
                             "resampled": "the targets of every (kind, namespace), independently; a cell without "
                                          "coverage in a replicate counts 0"}
    return Cafa6Result(kinds=results, measure=agg.name, records=cafa6_records(results, agg.name, reps, run.confidence),
                       diagnostics=diag, replicates=reps)
