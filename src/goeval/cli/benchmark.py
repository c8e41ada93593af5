"""``goeval benchmark``: cross-validation (CR13 §4.1) and CAFA time splits of the baselines."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from goeval import __version__
from goeval.cli.common import (add_groups, add_plugin_argument, add_ontology, add_option_fields, add_run_fields, comma_list, read_annotations,
                               read_hit_table, read_ontology, report_lines, run_output, say, say_run_output, show,
                               show_warnings)
from goeval.cli.parsing import ExtendValues
from goeval.errors import InvalidParameterError

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Benchmarks of the baselines. 'cv': k-fold cross-validation with per-fold IA and statistics pooled "
    "over folds (Clark & Radivojac 2013). 'timesplit': no-, limited- and partial-knowledge targets "
    "between two annotation snapshots (CAFA), optionally evaluating the baselines trained on t0."
)

_HIT_COLUMNS_HELP = ("column names of the hit table (default: recognised from its header line, else 12 columns: "
                     "the standard -outfmt 6 ones, 6 columns: qseqid sseqid pident length evalue bitscore)")
#: The evaluation options a benchmark takes from their declarations (as ``goeval evaluate`` does).
_DECLARED = ("max_terms", "curves", "curve_tolerance", "curve_points", "wang_weights")


def _common(q: argparse.ArgumentParser) -> None:
    add_ontology(q)
    add_plugin_argument(q)
    q.add_argument("--methods", type=comma_list, action=ExtendValues, default=["naive", "blast", "gotcha"],
                   metavar="M1,M2",
                   help="baselines among naive, blast, gotcha, diamondscore, knn-identity (default naive,blast,gotcha)")
    q.add_argument("--namespaces", type=comma_list, action=ExtendValues, default=None, metavar="NS1,NS2",
                   help="namespaces (default all)")
    q.add_argument("--thresholds", default="exact", metavar="exact|STEP", help="'exact' (default) or a grid step such as 0.01")
    q.add_argument("--pseudocount", type=float, default=1.0, metavar="C", help="pseudo-count of the IA and IC (default 1)")
    q.add_argument("--similarity", type=comma_list, action=ExtendValues, default=None, metavar="M1,M2",
                   help="semantic-similarity measures among resnik, lin, jc, schlicker, wang, simgic, jaccard, "
                        "wjaccard (IC estimated like the IA, from the training annotations)")
    q.add_argument("--pairing", type=comma_list, action=ExtendValues, default="all,bma", metavar="P1,P2",
                   help="combination of term similarities over leaf pairs: all, bma, bma-mean, max, rcmax "
                        "(default all,bma)")
    q.add_argument("--root-as-prediction", action="store_true",
                   help="count the root as predicted for every protein (Clark & Radivojac 2013 §3.4): every protein "
                        "is then covered at every threshold")
    q.add_argument("--hit-columns", type=comma_list, action=ExtendValues, default=None, metavar="C1,C2,...",
                   help=_HIT_COLUMNS_HELP)
    for flag, text in (("--max-evalue", "drop hits with E-value > E"), ("--min-identity", "drop hits with pident < PCT"),
                       ("--min-coverage", "drop hits with query coverage < PCT")):
        q.add_argument(flag, type=float, default=None, help=text)
    from goeval.options import FIELDS

    add_option_fields(q, skip=tuple(f.name for f in FIELDS if f.name not in _DECLARED))
    q.set_defaults(curves="thin")  # as goeval evaluate: a curve longer than --curve-points rows is thinned
    q.add_argument("--curves-gzip", action="store_true", help="write the curves as curves.tsv.gz instead of curves.tsv")
    q.add_argument("--no-predictions", action="store_true",
                   help="do not write the baselines' predictions (large: millions of lines on real data)")
    q.add_argument("--plots", action="store_true",
                   help="also draw the figures (DIR/plots/) and write DIR/report.html and DIR/report.md "
                        "(needs the plot extra: pip install 'goeval[plot]')")
    q.add_argument("--out", required=True, metavar="DIR", help="output directory (a run replaces the files of an "
                                                               "earlier run there; see docs/conventions.md)")
    q.add_argument("-q", "--quiet", action="store_true",
                   help="print only warnings and errors: no progress; results (tables on stdout, files) as without")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="which", metavar="BENCHMARK", required=True)
    cv = sub.add_parser("cv", help="k-fold cross-validation of the baselines (CR13 §4.1)", description=(
        "Benchmark proteins per namespace: annotated proteins occurring as a query of the hit table (or --benchmark). "
        "Training set of fold f: every protein annotated in the namespace with another fold. IA per fold from the "
        "training annotations only; per-fold statistics added over one common threshold set."))
    _common(cv)
    cv.add_argument("--annotations", required=True, nargs="+", action=ExtendValues, metavar="FILE",
                    help="annotations (TSV or GAF), merged")
    cv.add_argument("--hits", metavar="HITS", help="all-vs-all BLAST/DIAMOND hits (-outfmt 6)")
    g = cv.add_mutually_exclusive_group(required=True)
    g.add_argument("--folds", metavar="FOLDS.tsv", help="protein<TAB>fold for every annotated protein")
    g.add_argument("--k", type=int, metavar="K", help="assign K folds at random (seeded; written to DIR/folds.tsv)")
    cv.add_argument("--seed", type=int, default=0, help="seed of --k (default 0)")
    cv.add_argument("--benchmark", metavar="LIST", help="benchmark proteins (default: the queries of --hits)")
    add_groups(cv, "files (the species of the --annotations files, by their names), taxa (GAF --annotations), "
                   "depth[:1,3,7] (bins of the number of annotated terms)")
    cv.add_argument("--no-curves", action="store_true", help="the same as --curves none")
    ts = sub.add_parser("timesplit", help="CAFA no-, limited- and partial-knowledge targets between t0 and t1")
    _common(ts)
    ts.add_argument("--t0", required=True, nargs="+", action=ExtendValues, metavar="FILE",
                    help="annotations at t0 (TSV or GAF)")
    ts.add_argument("--t1", required=True, nargs="+", action=ExtendValues, metavar="FILE",
                    help="annotations at t1 (TSV or GAF)")
    ts.add_argument("--sequences", metavar="FASTA", help="keep only targets with a sequence in FASTA")
    ts.add_argument("--hits", metavar="HITS", help="hits for the baselines; without --sequences their queries restrict the targets")
    ts.add_argument("--drop-binding-only", action="store_true",
                    help="drop targets whose only new term is protein binding (GO:0005515), as CAFA3")
    add_groups(ts, "files (the species of the --t1 files, by their names), taxa (GAF --t1 files' taxon column), "
                   "identity[:30,50,70,95] (each target's highest identity to a t0 protein in --hits, in bins), "
                   "depth[:1,3,7] (bins of the number of t1 terms)")
    ts.add_argument("--kinds", type=comma_list, action=ExtendValues, default=["NK", "LK", "PK"], metavar="NK,LK,PK",
                    help="target kinds evaluated with --hits/--methods (default NK,LK,PK)")
    ts.add_argument("--evaluate", action="store_true", help="train the baselines on t0 and evaluate them per kind")
    add_run_fields(ts, ("bootstrap", "seed", "confidence"))


def options(args: argparse.Namespace):  # noqa: ANN201 - EvaluationOptions
    """The evaluation options of a benchmark's arguments (validated)."""
    from goeval.options import EvaluationOptions

    declared = {name: getattr(args, name) for name in _DECLARED if hasattr(args, name)}
    if getattr(args, "no_curves", False):
        declared["curves"] = "none"
    return EvaluationOptions.resolve(thresholds=args.thresholds, namespaces=args.namespaces, pseudocount=args.pseudocount,
                                     similarity=args.similarity, pairings=args.pairing,
                                     root_as_prediction=args.root_as_prediction, **declared)


def check_before_work(args: argparse.Namespace, inputs: list[tuple[Any, str]]) -> Any:
    """Options, inputs and output directory, before any work."""
    from goeval.baselines import METHODS
    from goeval.io.files import check_input, check_output_dir

    opts = options(args)
    bad = [m for m in args.methods if m not in METHODS]
    if bad:
        raise InvalidParameterError(f"The '--methods' option of benchmark must name methods among {', '.join(METHODS)}; got {bad}.")
    for path, what in inputs:
        if path is not None:
            check_input(path, what)
    if getattr(args, "hits", None) is not None:
        from goeval.io.hits import hit_table_columns

        hit_table_columns(args.hits, args.hit_columns)  # its layout, from the first lines, before any work
    check_output_dir(args.out, ("plots",) if getattr(args, "plots", False) else ())
    return opts


def readme(args: argparse.Namespace, title: str, lines: list[str]) -> str:
    """The README.md of a benchmark directory: the command, the versions, then ``lines``."""
    import platform
    import shlex

    import numpy
    import scipy

    argv = getattr(args, "_argv", None)
    cmd = " ".join(shlex.quote(a) for a in argv) if argv else f"goeval benchmark {args.which} (called from Python)"
    return "\n".join([f"# {title}", "", "Command:", "", "```", cmd, "```", "",
                      f"goeval {__version__}, Python {platform.python_version()}, numpy {numpy.__version__}, "
                      f"scipy {scipy.__version__}.", "", *lines, ""])


def provenance(args: argparse.Namespace) -> dict[str, Any]:
    """The command line and versions a benchmark records in its diagnostics."""
    from goeval.diagnostics import package_versions

    return {"command": list(getattr(args, "_argv", []) or []), "versions": package_versions()}


def format_table1(records: list[dict[str, Any]]) -> str:
    """Table 1 (Fmax, Smin with their ru and mi, weighted Fmax) as a text table."""
    from goeval.report.text import format_table

    def num(v: Any, fmt: str) -> str:
        return "nan" if v != v else format(v, fmt)

    rows = [[r["namespace"], r["method"], num(r["fmax"], ".3f"), num(r["fmax_threshold"], ".2f"),
             num(r["fmax_ru"], ".2f"), num(r["fmax_mi"], ".2f"), num(r["smin"], ".2f"), num(r["smin_threshold"], ".2f"),
             num(r["smin_ru"], ".2f"), num(r["smin_mi"], ".2f"), num(r["wfmax"], ".3f")] for r in records]
    return format_table(rows, ["ns", "method", "Fmax", "tau", "ru", "mi", "Smin", "tau", "ru", "mi", "wFmax"])


def write_figures(args: argparse.Namespace) -> None:
    """``--plots``: the figures and the report of the directory just written."""
    if getattr(args, "plots", False):
        from goeval.cli.evaluate import write_figures as figures

        figures(args, Path(args.out))


# ---------------------------------------------------------------------- cv
def _run_cv(args: argparse.Namespace) -> int:
    from goeval.benchmarks import assign_folds, cross_validate
    from goeval.errors import GoevalError
    from goeval.io.folds import FoldTable, read_folds
    from goeval.io.idlist import read_id_list

    t0 = time.perf_counter()
    opts = check_before_work(args, [(args.ontology, "ontology"), *((a, "annotations") for a in args.annotations),
                                    (args.hits, "hits"), (args.folds, "folds"), (args.benchmark, "benchmark")])
    onto = read_ontology(args)
    ann = read_annotations(args, args.annotations, onto, "annotations")
    hits = read_hit_table(args)
    if args.folds is not None:
        folds = read_folds(args.folds)
    else:
        import numpy as np

        annotated = ann.proteins[np.diff(ann.matrix.tocsr().indptr) > 0]
        folds = FoldTable(annotated, assign_folds(annotated, args.k, args.seed), f"--k {args.k} --seed {args.seed}")
    say_folds(args, folds)
    bench = None if args.benchmark is None else read_id_list(args.benchmark)
    cv = cross_validate(onto, ann, hits, folds, methods=args.methods, options=opts, pseudocount=args.pseudocount,
                        benchmark=bench, max_evalue=args.max_evalue, min_identity=args.min_identity,
                        min_coverage=args.min_coverage, keep_predictions=not args.no_predictions,
                        groups=_cv_groups(args, ann))
    cv.diagnostics["annotations"] = ann.diagnostics
    cv.diagnostics.update(provenance(args))
    _say_fold_proteins(args, cv.diagnostics["folds"])
    if cv.diagnostics.get("nothing_evaluated"):
        raise GoevalError(f"nothing was evaluated: {cv.diagnostics['nothing_evaluated']}; no result was written.")
    t_write = time.perf_counter()
    with run_output(args, args.out) as run:
        _write_cv(args, onto, cv, opts, run)
    say_run_output(args, run)
    show(args, format_table1(cv.table1))
    if getattr(cv.result, "groups", None):
        from goeval.report.text import format_group_table

        show(args, "", format_group_table(cv.result))
    say(args, f"results in {Path(args.out)}/ ({time.perf_counter() - t0:.1f} s, "
        f"writing {time.perf_counter() - t_write:.1f} s)")
    write_figures(args)
    return 0


def say_folds(args: argparse.Namespace, folds: Any) -> None:
    """What the fold table held besides one fold per protein (repeated lines, counted by its reader)."""
    from goeval.report.text import plural

    c = getattr(folds, "counts", {}) or {}
    if c.get("duplicate_rows"):
        say(args, f"{folds.source}: {plural(c['duplicate_rows'], 'repeated line')} (a protein listed again with the "
                  "same fold) read once")


def _say_fold_proteins(args: argparse.Namespace, d: dict[str, Any]) -> None:
    """The fold table's proteins that are not annotated (ignored), said with the counts."""
    from goeval.report.text import plural

    extra = d.get("listed_proteins_not_annotated", 0)
    if extra:
        are = "is" if extra == 1 else "are"
        say(args, f"{d['source']}: {extra:,} of its {plural(d['proteins_listed'], 'protein')} {are} not annotated in "
                  f"{'the evaluated namespaces' if d.get('annotated_proteins') else 'any namespace'} (ignored)")


def _cv_groups(args: argparse.Namespace, ann: Any) -> Any:
    """``--groups`` / ``--groups-from`` of a cross-validation (species from the --annotations files), said."""
    from goeval.cli.common import groups_from_args
    from goeval.io.kinds import FileKind, sniff
    from goeval.report.text import plural

    gaf = all(sniff(f) is FileKind.GAF for f in args.annotations)
    groups = groups_from_args(args, files=list(args.annotations), taxa=list(args.annotations) if gaf else None,
                              depth=ann)
    if groups is not None:
        say(args, f"groups ({groups.rule}): {plural(len(groups.groups), 'group')}")
    return groups


def _write_cv(args: argparse.Namespace, onto: Any, cv: Any, opts: Any, run: Any) -> None:
    import numpy as np

    from goeval.benchmarks import table1_columns
    from goeval.benchmarks.cv import pooled_predictions
    from goeval.evaluation import SUMMARY_COLUMNS
    from goeval.io.folds import write_folds
    from goeval.io.predictions_out import write_predictions
    from goeval.io.results import CALIBRATION_FILE, decimal_value, write_frames, write_ia

    with run.open("folds.tsv") as fh:
        write_folds(fh, cv.proteins, cv.folds)
    labels = list(cv.information)
    cols = np.concatenate([np.arange(*onto.bounds[onto.namespace_index(x):][:2]) for x in labels])
    for f, ia in cv.ia.items():
        with run.open(f"ia/{f}.tsv") as fh:
            write_ia(fh, onto.ids[cols], ia[cols])
        if f in cv.ic:
            with run.open(f"ic/{f}.tsv") as fh:
                write_ia(fh, onto.ids[cols], cv.ic[f][cols])
    if not args.no_predictions:
        floor = float(opts.grid[0]) if opts.grid is not None else 0.0
        for m in cv.predictions:
            pred = pooled_predictions(cv, m, onto, floor)
            with run.open(f"predictions/{m}.tsv.gz") as fh:
                write_predictions(fh, pred.proteins, onto.ids, pred.matrix)
    res = cv.result
    cv.diagnostics["information_content"] = cv.information
    curves = "curves.tsv.gz" if args.curves_gzip else "curves.tsv"
    text = {curves: res.curve_columns} if res.curve_columns is not None else {}
    if res.calibration_columns is not None:  # the reliability table of the pooled folds
        text[CALIBRATION_FILE] = res.calibration_columns
    text |= {"summary.tsv": [{c: r[c] for c in SUMMARY_COLUMNS} for r in res.summary_records],
             "table1.tsv": [{c: decimal_value(r[c]) for c in table1_columns(res.summary_records)} for r in cv.table1]}
    if getattr(res, "groups", None):  # every group's pooled optima, a group column (all: every benchmark protein)
        from goeval.report.save import GROUPS_TABLE, group_table

        text[GROUPS_TABLE] = group_table(res)
    write_frames(args.out, text, {"diagnostics.json": dict(cv.diagnostics)}, files=run)
    info = [f"- {k}: {v['proteins']:,} benchmark proteins, mean i(T) {v['mean']:.2f} bits (std {v['std']:.2f})"
            for k, v in cv.information.items()]
    with run.open("README.md") as fh:
        fh.write(readme(args, "Cross-validation of the baselines", [
            "Average information content per benchmark protein (each protein with its fold's IA):", "", *info]))
    report_lines(args, cv.diagnostics)


def run(args: argparse.Namespace) -> int:
    show_warnings()
    if args.which == "cv":
        return _run_cv(args)
    from goeval.cli.benchmark_timesplit import run_timesplit

    return run_timesplit(args)
