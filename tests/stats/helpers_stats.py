"""Shared builders of the statistics tests: explicit resamples evaluated the slow way."""

from __future__ import annotations

import numpy as np
from oracles import Case

from goeval.evaluation import namespace_stats, summarize
from goeval.options import EvaluationOptions

FIVE = ("fmax", "wfmax", "fmax_micro", "smin", "wsmin")
#: Every optimum and area a bootstrap gives an interval (with IA).
ALL = FIVE + ("wfmax_micro", "smin_terms", "max_coverage", "aupr", "waupr")


#: Similarity options of the tests: term measures of IC and of the graph, a set measure, every pairing.
SIMILARITY = {"similarity": ("lin", "jc", "wang", "jaccard"), "pairings": ("all", "bma", "bma-mean", "max", "rcmax")}


def case_ic(case: Case) -> np.ndarray:
    """A fixed term information content (the case's IA), so that a resample's similarity uses the same IC."""
    return case.ia_array(case.ontology())


def block_stats(case: Case, methods: dict[str, dict] | None = None, **options):
    """namespace_stats with per-protein statistics for the case's methods (default: one, 'm'); with similarity
    options, of :func:`case_ic`."""
    onto = case.ontology()
    preds = {name: case.predictions(onto, sc) for name, sc in (methods or {"m": None}).items()}
    opts = EvaluationOptions.resolve(**options)
    ic = case_ic(case) if opts.similarity else None
    stats = namespace_stats(onto, case.truth_annotations(onto), preds, case.ia_array(onto), opts, per_protein=True,
                            ic=ic)
    return stats, summarize(stats, opts, True), opts


def explicit_resample(case: Case, proteins: np.ndarray, idx: np.ndarray, scores: dict | None = None) -> Case:
    """The case with the benchmark rebuilt from draws ``proteins[idx]`` (copy k of a protein renamed ``p#k``)."""
    sc = case.scores if scores is None else scores
    truth_of: dict[str, list[str]] = {}
    for p, t in case.truth:
        truth_of.setdefault(p, []).append(t)
    pred_of: dict[str, list[tuple[str, float]]] = {}
    for (p, t), s in sc.items():
        pred_of.setdefault(p, []).append((t, s))
    truth, scores_out = [], {}
    for k, i in enumerate(idx.tolist()):
        p = str(proteins[i])
        name = f"{p}#{k}"
        truth += [(name, t) for t in truth_of[p]]
        scores_out.update({(name, t): s for t, s in pred_of.get(p, [])})
    return Case(case.edges, case.namespace_of, truth, scores_out, case.ia)


def slow_optima(case: Case, label: str, thresholds: np.ndarray, scores: dict | None = None, **options) -> dict[str, float]:
    """The summary values of one namespace, evaluated from scratch over given thresholds."""
    onto = case.ontology()
    opts = EvaluationOptions.resolve(namespaces=(label,), **options)
    stats = namespace_stats(onto, case.truth_annotations(onto), {"m": case.predictions(onto, scores)},
                            case.ia_array(onto), opts, thresholds, ic=case_ic(case) if opts.similarity else None)
    res = summarize(stats, opts, True)
    return {r["measure"]: r["value"] for r in res.summary_records if r["namespace"] == label}
