"""``goeval retrieval``: per-term retrieval (TAP-k, AUC iP/R, ROC AUC, AP)."""

from __future__ import annotations

import argparse
import math

from goeval.cli.common import (add_groups, add_ontology, add_run_fields, groups_from_args, read_ontology, comma_list,
                               report_lines, run_options_from_args, run_output, say, say_run_output, show, show_warnings)
from goeval.cli.parsing import ExtendValues
from goeval.errors import InvalidParameterError

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Each GO term is a query; its list is the benchmark proteins ranked by propagated score. "
    "Reports TAP-k (Carroll et al. 2010), the BioCreative II.5 AUC iP/R and CAFA's term-centric ROC AUC / AP, "
    "per method and namespace; with --ia also DeepGO-SE's ROC AUC over informative terms and the AP weighted by "
    "term information or by BeProf's depth weight. Writes retrieval_summary.tsv, retrieval_terms.tsv, "
    "tap_curve.tsv, diagnostics; with --bootstrap B, percentile intervals of every measure (COLUMN_ci_low, "
    "COLUMN_ci_high, COLUMN_se) from B resamples of the benchmark proteins (the resamples of goeval evaluate "
    "--bootstrap for the same seed) and term_replicates.npz, which goeval compare reads."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--truth", required=True, metavar="TRUTH", help="ground truth: protein<TAB>term or GAF")
    p.add_argument("--predictions", required=True, nargs="+", action=ExtendValues, metavar="FILE_OR_DIR")
    p.add_argument("-k", "--k", dest="k", type=int, action="append", help="TAP-k order (repeatable; default 20)")
    p.add_argument("--min-positives", type=int, default=1, help="truth proteins a term needs to be a query (default 1)")
    p.add_argument("--auc-min-positives", type=int, default=10, help="truth proteins for ROC AUC / AP (default 10, CAFA)")
    p.add_argument("--query-weights", choices=("uniform", "ia"), default=None,
                   help="weight of each term query (default: ia when --ia or --ia-annotations is given, else uniform)")
    p.add_argument("--ia", metavar="IA.tsv",
                   help="information accretion: query weights, informative terms and the weighted AP")
    p.add_argument("--informative-ia", type=float, default=None, metavar="BITS",
                   help="ia from which a term (with a positive and a negative protein) counts in the informative-term "
                        "ROC AUC (default 0.5, DeepGO-SE; needs --ia or --ia-annotations)")
    p.add_argument("--ia-annotations", metavar="FILE", help="estimate IA from these annotations (pseudo-count 1)")
    p.add_argument("--insufficient", choices=("lowest", "error", "pad"), default="lowest",
                   help="when fewer than half the queries reach k errors (default: cutoff at the lowest score)")
    p.add_argument("--propagation", choices=("max", "fill"), default="max")
    p.add_argument("--namespaces", type=comma_list, action=ExtendValues, metavar="BPO,MFO,CCO")
    p.add_argument("--targets", metavar="LIST", help="benchmark proteins, one per line")
    add_groups(p, "depth[:1,3,7] (bins of the number of truth terms)")
    p.add_argument("--pattern", metavar="GLOB", help="in prediction directories, take exactly the files matching GLOB")
    p.add_argument("--out", default="goeval_retrieval", metavar="DIR", help="output directory")
    add_run_fields(p, ("bootstrap", "seed", "confidence"))


def _check_before_work(args: argparse.Namespace):  # noqa: ANN202 - PredictionFiles
    """Options, inputs and the output directory, before anything is parsed."""
    from goeval.io.files import check_input, check_output_dir
    from goeval.io.paths import find_prediction_files

    run = run_options_from_args(args)  # the bootstrap's parameters, validated as goeval evaluate's
    args.bootstrap, args.seed, args.confidence = run.bootstrap, run.seed, run.confidence
    with_ia = bool(args.ia or args.ia_annotations)
    if args.ia and args.ia_annotations:
        raise InvalidParameterError("Give either --ia or --ia-annotations, not both.")
    if args.query_weights is None:
        args.query_weights = "ia" if with_ia else "uniform"
    elif args.query_weights == "ia" and not with_ia:
        raise InvalidParameterError("--query-weights ia needs --ia or --ia-annotations.")
    if args.informative_ia is not None and not with_ia:
        raise InvalidParameterError("--informative-ia needs --ia or --ia-annotations (a term is informative by "
                                    "its ia).")
    if args.informative_ia is not None and not math.isfinite(args.informative_ia):
        raise InvalidParameterError(f"The '--informative-ia' parameter of retrieval must be a finite number of bits; "
                                    f"got {args.informative_ia}.")
    if any(k < 1 for k in (args.k or [20])):
        raise InvalidParameterError(f"The '-k' parameter of retrieval must be >= 1; got {args.k}.")
    for path, what in ((args.ontology, "ontology"), (args.truth, "truth"), (args.ia, "IA"),
                       (args.ia_annotations, "IA annotations"), (args.targets, "targets")):
        if path is not None:
            check_input(path, what)
    found = find_prediction_files(args.predictions, args.pattern)
    for path in found.files.values():
        check_input(path, "prediction")
    check_output_dir(args.out)
    return found


def run(args: argparse.Namespace) -> int:
    found = _check_before_work(args)
    from goeval.inputs import load_annotations, load_ia, load_predictions, load_targets
    from goeval.information.accretion import information_accretion
    from goeval.io.results import write_frames

    show_warnings()
    onto = read_ontology(args)
    truth = load_annotations(args.truth, onto)
    preds = {name: load_predictions(path, onto) for name, path in found.files.items()}
    ia = None
    if args.ia:
        ia, _ = load_ia(args.ia, onto)
    elif args.ia_annotations:
        ia = information_accretion(onto, load_annotations(args.ia_annotations, onto)).values
    res = evaluate_terms_from_args(args, onto, truth, preds, ia, load_targets)
    diag = dict(res.diagnostics)
    diag.setdefault("truth", truth.diagnostics)
    diag.setdefault("methods", {n: p.diagnostics for n, p in preds.items()})
    if found.skipped:
        diag["skipped_files"] = [(str(p), why) for p, why in found.skipped]
    diag["command"] = list(getattr(args, "_argv", []))
    tables = {"retrieval_summary.tsv": res.summary, "retrieval_terms.tsv": res.terms, "tap_curve.tsv": res.curves}
    jsons = {"diagnostics.json": diag}
    arrays = {}
    if res.groups:  # groups/NAME/ as the run of the group's proteins; retrieval_groups.tsv: every group's summary
        _add_groups(res, tables, jsons, arrays)
    if res.replicates is not None:
        arrays[""] = res.replicates
    with run_output(args, args.out) as out:
        write_frames(args.out, tables, jsons, files=out)
        _write_replicates(out, arrays)
    report_lines(args, diag)
    say_run_output(args, out)
    show(args, _summary_table(res.summary, args.k or [20]))
    show(args, *fallback_notes(diag.get("tap_cutoff_fallback", [])))
    from pathlib import Path

    said = ", term_replicates.npz" if res.replicates is not None else ""
    say(args, f"results in {Path(args.out)}/ (retrieval_summary.tsv, retrieval_terms.tsv, tap_curve.tsv, "
              f"diagnostics.json{said})")
    return 0


def _write_replicates(out, arrays: dict) -> None:  # noqa: ANN001 - RunOutput
    """``term_replicates.npz`` of the run (key ``""``) and of each group (key ``groups/NAME``) into the run's set."""
    import numpy as np

    from goeval.stats.store import TERM_REPLICATES_FILE, term_replicates_arrays

    for folder, reps in arrays.items():
        with out.open_binary(f"{folder}/{TERM_REPLICATES_FILE}" if folder else TERM_REPLICATES_FILE) as fh:
            np.savez_compressed(fh, **term_replicates_arrays(reps))


#: The informative-term and weighted columns of the summary (with IA) as printed: (header, column).
_WEIGHTED_VIEW = (("inf. terms", "informative_terms"), ("inf. ROC AUC", "informative_roc_auc"),
                  ("ia AP", "ia_weighted_average_precision"), ("depth AP", "depth_weighted_average_precision"))


def _cell(r: dict, c: str) -> str:
    """A measure's value (4 decimals), with its bootstrap interval ``[lo, hi]`` when the summary has one."""
    text = f"{r.get(c, float('nan')):.4f}"
    lo, hi = r.get(f"{c}_ci_low"), r.get(f"{c}_ci_high")
    return text if lo is None else f"{text} [{lo:.4f}, {hi:.4f}]"


def _summary_table(summary, ks: list[int]) -> str:  # noqa: ANN001 - pandas.DataFrame
    """The retrieval summary as printed: one row per (method, namespace), the weighted columns when present,
    each measure with its interval after a bootstrap."""
    from goeval.report.text import format_table

    extra = [(h, c) for h, c in _WEIGHTED_VIEW if c in summary.columns]
    rows = []
    for r in summary.to_dict("records"):
        rows.append([r["method"], r["namespace"], str(r["queries"])]
                    + [_cell(r, f"tap_{k}") for k in ks] + [_cell(r, "ipr_auc"), _cell(r, "peak_tap"),
                                                            str(r["auc_terms"]), _cell(r, "macro_roc_auc"),
                                                            _cell(r, "macro_average_precision")]
                    + [str(r[c]) if c == "informative_terms" else _cell(r, c) for _, c in extra])
    return format_table(rows, ["method", "ns", "queries", *(f"TAP-{k}" for k in ks), "AUC iP/R", "peak TAP",
                               "AUC terms", "ROC AUC", "AP", *(h for h, _ in extra)])


def _add_groups(res, tables: dict, jsons: dict, arrays: dict) -> None:  # noqa: ANN001 - TermEvaluationResult
    """Each group's files under ``groups/NAME/`` (its replicates into ``arrays`` after a bootstrap) and
    ``retrieval_groups.tsv`` (a ``group`` column, ``all`` first)."""
    import pandas as pd

    from goeval.report.save import group_dir

    for name, g in res.groups.items():
        d = f"groups/{group_dir(name)}"
        tables.update({f"{d}/retrieval_summary.tsv": g.summary, f"{d}/retrieval_terms.tsv": g.terms,
                       f"{d}/tap_curve.tsv": g.curves})
        jsons[f"{d}/diagnostics.json"] = dict(g.diagnostics)
        if g.replicates is not None:
            arrays[d] = g.replicates
    table = pd.concat([res.summary.assign(group="all"), *(g.summary.assign(group=n) for n, g in res.groups.items())],
                      ignore_index=True)
    tables["retrieval_groups.tsv"] = table[["method", "group", *[c for c in table.columns if c not in ("method",
                                                                                                        "group")]]]


def fallback_notes(blocks: list) -> list[str]:
    """Lines under the table for the TAP-k whose cutoff E_k fell to the lowest score (or to none).

    Parameters
    ----------
    blocks : list of dict
        ``diagnostics["tap_cutoff_fallback"]`` of :func:`goeval.evaluation.terms.evaluate_terms`.

    Returns
    -------
    list of str
        Two lines per (method, namespace): such TAP-k values count every
        retrieved record and may be equal for several k.

    Examples
    --------
    >>> fallback_notes([{"method": "m", "namespace": "MFO", "k": [5, 20], "cutoff": 0.1}])[1]
    '      so the cutoff fell to the lowest score (0.1) (Carroll et al. 2010; --insufficient)'
    """
    lines = []
    for b in blocks:
        taps = ", ".join(f"TAP-{k}" for k in b["k"])
        where = "fell to the lowest score ({:g})".format(b["cutoff"]) if b.get("cutoff") is not None else "is none"
        lines += [f"note: {b['method']} {b['namespace']}: {taps}: fewer than half the term queries reach k errors,",
                  f"      so the cutoff {where} (Carroll et al. 2010; --insufficient)"]
    return lines


def evaluate_terms_from_args(args, onto, truth, preds, ia, load_targets):  # noqa: ANN001, ANN201
    from goeval.evaluation.terms import evaluate_terms

    return evaluate_terms(
        onto, truth, preds, k=args.k or [20], min_positives=args.min_positives,
        auc_min_positives=args.auc_min_positives, query_weights=args.query_weights, ia=ia,
        namespaces=args.namespaces, propagation=args.propagation,
        targets=load_targets(args.targets) if args.targets else None, insufficient=args.insufficient,
        groups=groups_from_args(args, depth=truth if str(getattr(args, "groups_from", "") or "").startswith("depth")
                                else None),
        informative_cutoff=0.5 if args.informative_ia is None else args.informative_ia,
        bootstrap=args.bootstrap, seed=args.seed, confidence=args.confidence,
    )
