"""What a run could not use, said: the checks made after an evaluation (and the lines said during it).

An IA file for another namespace, truth lines dropped as unknown or
obsolete, an ontology older or newer than the annotations, known terms
missing a namespace, targets without truth, a method that predicts none of
the benchmark proteins: each is a warning in the run's
:class:`~goeval.diagnostics.Diagnostics`; a run that evaluated nothing at
all says why under ``diagnostics["nothing_evaluated"]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from goeval.diagnostics import Diagnostics
from goeval.hints import id_form_hint, newer_ontology_hint, stale_ontology_hint
from goeval.inputs import Inputs
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.progress import say_stage
from goeval.report.text import describe_methods, describe_targets

__all__ = ["IA_COVERAGE_WARNING", "TRUTH_DROP_WARNING", "check_targets", "check_result", "say_methods",
           "dropped_terms_warning"]


#: Share of an evaluated namespace's terms an IA file must cover before a warning.
IA_COVERAGE_WARNING = 0.5


#: Share of truth lines dropped (unknown, obsolete) before a warning.
TRUTH_DROP_WARNING = 0.1


def say_methods(diag: Diagnostics) -> None:
    """Say, as soon as they are known, the targets kept and each method's lines read, remapped and dropped."""
    if isinstance(diag.get("targets"), dict) and "listed" in diag["targets"]:
        say_stage(describe_targets(diag["targets"]))
    for line in describe_methods(diag.get("methods", {})):
        say_stage(line)
    diag.said.update(("targets", "methods"))


def check_targets(inputs: Inputs, diag: Diagnostics, quiet: bool = False) -> None:
    """Say targets without truth (``quiet``: a group's proteins, many without truth by design: not said)."""
    if inputs.targets is None:
        return
    known = set(inputs.truth.proteins.tolist())
    tg = list(dict.fromkeys(inputs.targets.tolist()))
    hits = sum(t in known for t in tg)
    if hits == 0:
        diag["nothing_evaluated"] = (
            f"none of the {len(tg):,} targets has a truth annotation (e.g. {', '.join(map(str, tg[:3]))}); "
            "check that the targets and the truth use the same protein identifiers")
    elif hits < len(tg) and not quiet:
        diag.warn(f"{len(tg) - hits:,} of the {len(tg):,} targets have no truth annotation and are not evaluated.")


def check_result(res: Any, inputs: Inputs, opts: EvaluationOptions) -> None:
    """Warn about what a run could not use; say why under ``diagnostics["nothing_evaluated"]`` when it evaluated
    nothing at all (:func:`evaluate` then fails with that message)."""
    diag = res.diagnostics
    _check_truth_drops(diag)
    _check_ontology_release(diag, inputs.ontology)
    _check_ia_coverage(diag, inputs)
    _check_known(diag, inputs)
    methods, hints = diag.get("methods", {}), {}
    for name, d in methods.items():
        if d.get("missing_end"):
            diag.warn(f"method {name}: {d.get('source')} has CAFA header lines but no final END line; "
                      "the file may be truncated.")
        n = sum(ns.get("proteins_with_predictions", 0) for ns in d.get("namespaces", {}).values())
        if n == 0 and "nothing_evaluated" not in diag:
            hint = id_form_hint(d.get("proteins_not_in_truth_examples", ()), inputs.truth.proteins)
            if hint:
                hints.setdefault("ids", hint)
            diag.warn(f"method {name}: none of its {int(d.get('n_proteins', 0)):,} proteins is a benchmark protein "
                      f"of an evaluated namespace ({hint or 'check the protein identifiers and namespaces'}).")
    if res.summary_records:
        return
    if "nothing_evaluated" not in diag:
        bench = {k: v.get("benchmark_proteins", 0) for k, v in diag.get("namespaces", {}).items()}
        if not methods:
            diag["nothing_evaluated"] = "no prediction file was given"
        elif not any(bench.values()):
            diag["nothing_evaluated"] = "no benchmark protein has a truth annotation in the evaluated namespaces"
        else:
            diag["nothing_evaluated"] = "no method has a prediction for a benchmark protein" + (
                f"; {hints['ids']}" if hints.get("ids") else "")


def dropped_terms_warning(counts: dict[str, Any], what: str) -> str | None:
    """The warning for annotations more than 10 % of whose lines name unknown or obsolete terms (None otherwise).

    ``counts`` are the reading diagnostics of the annotations
    (:func:`goeval.annotations.map_table`); ``what`` names them ("truth", "t0").
    """
    st = counts.get("rows_by_term_status", {})
    read = int(counts.get("rows_read", 0))
    lost = int(st.get("unknown", 0)) + int(st.get("obsolete", 0))
    if read and lost > TRUTH_DROP_WARNING * read:
        return (f"{lost:,} of the {read:,} {what} lines ({lost / read:.0%}) name terms that are unknown or obsolete "
                f"in this ontology and were dropped (is it the ontology release the {what} was made with?).")
    return None


def _check_truth_drops(diag: Diagnostics) -> None:
    message = dropped_terms_warning(diag.get("truth", {}), "truth")
    if message:
        diag.warn(message)


def _check_ontology_release(diag: Diagnostics, onto: Ontology) -> None:
    """Warn when the inputs' terms look like those of an older release of the ontology (unknown ids of its form)
    or of a newer one (merged and obsolete ids): :mod:`goeval.hints`."""
    stale = stale_ontology_hint(diag, onto.ids, onto.source, onto.data_version)
    newer = newer_ontology_hint(diag, onto.source, onto.data_version)
    for hint in (stale, newer):
        if hint:
            diag.warn(f"{hint}.")


def _check_known(diag: Diagnostics, inputs: Inputs) -> None:
    """Warn about evaluated namespaces where the known terms hold nothing (CAFA-evaluator-PK stops there)."""
    if inputs.known is None:
        return
    onto = inputs.ontology
    cols = inputs.known.matrix.tocsr().indices
    present = set(np.unique(onto.namespace_of[cols]).tolist()) if cols.size else set()
    for label, counts in diag.get("namespaces", {}).items():
        if counts.get("benchmark_proteins") and onto.namespace_index(label) not in present:
            diag.warn(f"the known terms hold no {label} term, so nothing is known in {label} "
                      f"({counts['benchmark_proteins']:,} benchmark proteins); CAFA-evaluator-PK stops with a "
                      "KeyError on such a known file (it must cover every namespace of the ground truth).")


def _check_ia_coverage(diag: Diagnostics, inputs: Inputs) -> None:
    info = diag.get("ia", {})
    for label, m in info.get("missing_by_namespace", {}).items():
        if not diag.get("namespaces", {}).get(label, {}).get("benchmark_proteins"):
            continue  # not evaluated: no benchmark protein there
        have = m["terms"] - m["missing"]
        if m["terms"] and have < IA_COVERAGE_WARNING * m["terms"]:
            diag.warn(f"the IA file {info.get('source')} gives values for only {have:,} of the {m['terms']:,} "
                      f"{label} terms; the others count 0 bits, so {label}'s weighted measures and S are not "
                      "meaningful (an IA file for another namespace?).")
