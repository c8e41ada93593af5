"""``goeval benchmark``: cross-validation (CR13 §4.1) and CAFA time splits of the baselines."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from goeval import __version__
from goeval.cli.common import add_ontology, cache_arg, comma_list, say, show_warnings
from goeval.errors import InvalidParameterError

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Benchmarks of the baselines. 'cv': k-fold cross-validation with per-fold IA and statistics pooled "
    "over folds (Clark & Radivojac 2013). 'timesplit': no-, limited- and partial-knowledge targets "
    "between two annotation snapshots (CAFA), optionally evaluating the baselines trained on t0."
)

_HIT_COLUMNS_HELP = "column names of the hit table (default: the 12 standard -outfmt 6 columns)"


def _common(q: argparse.ArgumentParser) -> None:
    add_ontology(q)
    q.add_argument("--methods", type=comma_list, default=["naive", "blast", "gotcha"], metavar="M1,M2",
                   help="baselines among naive, blast, gotcha, diamondscore, knn-identity (default naive,blast,gotcha)")
    q.add_argument("--namespaces", type=comma_list, default=None, metavar="NS1,NS2", help="namespaces (default all)")
    q.add_argument("--thresholds", default="exact", metavar="exact|STEP", help="'exact' (default) or a grid step such as 0.01")
    q.add_argument("--pseudocount", type=float, default=1.0, metavar="C", help="pseudo-count of the IA and IC (default 1)")
    q.add_argument("--similarity", default=None, metavar="M1,M2",
                   help="semantic-similarity measures among resnik, lin, jc, schlicker, simgic, jaccard, wjaccard "
                        "(IC estimated like the IA, from the training annotations)")
    q.add_argument("--pairing", default="all,bma", metavar="P1,P2",
                   help="averaging of term similarities over leaf pairs: all, bma, bma-mean (default all,bma)")
    q.add_argument("--root-as-prediction", action="store_true",
                   help="count the root as predicted for every protein (Clark & Radivojac 2013 §3.4): every protein "
                        "is then covered at every threshold")
    q.add_argument("--hit-columns", type=comma_list, default=None, metavar="C1,C2,...", help=_HIT_COLUMNS_HELP)
    for flag, text in (("--max-evalue", "drop hits with E-value > E"), ("--min-identity", "drop hits with pident < PCT"),
                       ("--min-coverage", "drop hits with query coverage < PCT")):
        q.add_argument(flag, type=float, default=None, help=text)
    q.add_argument("--out", required=True, metavar="DIR", help="output directory")
    q.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="which", metavar="BENCHMARK", required=True)
    cv = sub.add_parser("cv", help="k-fold cross-validation of the baselines (CR13 §4.1)", description=(
        "Benchmark proteins per namespace: annotated proteins occurring as a query of the hit table (or --benchmark). "
        "Training set of fold f: every protein annotated in the namespace with another fold. IA per fold from the "
        "training annotations only; per-fold statistics added over one common threshold set."))
    _common(cv)
    cv.add_argument("--annotations", required=True, nargs="+", metavar="FILE", help="annotations (TSV or GAF), merged")
    cv.add_argument("--hits", metavar="HITS", help="all-vs-all BLAST/DIAMOND hits (-outfmt 6)")
    g = cv.add_mutually_exclusive_group(required=True)
    g.add_argument("--folds", metavar="FOLDS.tsv", help="protein<TAB>fold for every annotated protein")
    g.add_argument("--k", type=int, metavar="K", help="assign K folds at random (seeded; written to DIR/folds.tsv)")
    cv.add_argument("--seed", type=int, default=0, help="seed of --k (default 0)")
    cv.add_argument("--benchmark", metavar="LIST", help="benchmark proteins (default: the queries of --hits)")
    cv.add_argument("--no-curves", action="store_true",
                    help="do not write DIR/curves.tsv (exact thresholds of GOtcha give millions of curve rows)")
    cv.add_argument("--no-predictions", action="store_true",
                    help="do not write DIR/predictions/<method>.tsv.gz (large: tens of millions of lines on real data)")
    ts = sub.add_parser("timesplit", help="CAFA no-, limited- and partial-knowledge targets between t0 and t1")
    _common(ts)
    ts.add_argument("--t0", required=True, nargs="+", metavar="FILE", help="annotations at t0 (TSV or GAF)")
    ts.add_argument("--t1", required=True, nargs="+", metavar="FILE", help="annotations at t1 (TSV or GAF)")
    ts.add_argument("--sequences", metavar="FASTA", help="keep only targets with a sequence in FASTA")
    ts.add_argument("--hits", metavar="HITS", help="hits for the baselines; without --sequences their queries restrict the targets")
    ts.add_argument("--drop-binding-only", action="store_true",
                    help="drop targets whose only new term is protein binding (GO:0005515), as CAFA3")
    ts.add_argument("--kinds", type=comma_list, default=["NK", "LK", "PK"], metavar="NK,LK,PK",
                    help="target kinds evaluated with --hits/--methods (default NK,LK,PK)")
    ts.add_argument("--evaluate", action="store_true", help="train the baselines on t0 and evaluate them per kind")


def _options(args: argparse.Namespace):  # noqa: ANN202 - EvaluationOptions
    from goeval.options import EvaluationOptions

    return EvaluationOptions.resolve(thresholds=args.thresholds, namespaces=args.namespaces, pseudocount=args.pseudocount,
                                     similarity=args.similarity, pairings=args.pairing,
                                     root_as_prediction=args.root_as_prediction)


def _check(args: argparse.Namespace, inputs: list[tuple[Any, str]]) -> Any:
    """Options, inputs and output directory, before any work."""
    from goeval.baselines import METHODS
    from goeval.io.files import check_input, check_output_dir

    opts = _options(args)
    bad = [m for m in args.methods if m not in METHODS]
    if bad:
        raise InvalidParameterError(f"The '--methods' option of benchmark must name methods among {', '.join(METHODS)}; got {bad}.")
    for path, what in inputs:
        if path is not None:
            check_input(path, what)
    check_output_dir(args.out)
    return opts


def _load_hits(args: argparse.Namespace) -> Any:
    if args.hits is None:
        return None
    from goeval.io.hits import read_hits

    hits = read_hits(args.hits, args.hit_columns)
    say(args, f"{args.hits}: {len(hits):,} hits, {hits.queries.size:,} queries")
    return hits


def _readme(args: argparse.Namespace, title: str, lines: list[str]) -> str:
    import platform

    import numpy
    import scipy

    cmd = " ".join(["goeval", "benchmark", *sys.argv[sys.argv.index("benchmark") + 1:]]) if "benchmark" in sys.argv else \
        f"goeval benchmark {args.which} (called from Python)"
    return "\n".join([f"# {title}", "", "Command:", "", "```", cmd, "```", "",
                      f"goeval {__version__}, Python {platform.python_version()}, numpy {numpy.__version__}, "
                      f"scipy {scipy.__version__}.", "", *lines, ""])


# ---------------------------------------------------------------------- cv
def _run_cv(args: argparse.Namespace) -> int:
    from goeval.api import load_annotations, load_ontology
    from goeval.benchmarks import assign_folds, cross_validate, table1_columns
    from goeval.evaluation import SUMMARY_COLUMNS
    from goeval.io.folds import FoldTable, read_folds
    from goeval.io.idlist import read_id_list

    t0 = time.perf_counter()
    opts = _check(args, [(args.ontology, "ontology"), *((a, "annotations") for a in args.annotations),
                         (args.hits, "hits"), (args.folds, "folds"), (args.benchmark, "benchmark")])
    onto = load_ontology(args.ontology, args.relations, cache_arg(args))
    ann = load_annotations(args.annotations, onto)
    hits = _load_hits(args)
    if args.folds is not None:
        folds = read_folds(args.folds)
    else:
        import numpy as np

        annotated = ann.proteins[np.diff(ann.matrix.tocsr().indptr) > 0]
        folds = FoldTable(annotated, assign_folds(annotated, args.k, args.seed), f"--k {args.k} --seed {args.seed}")
    bench = None if args.benchmark is None else read_id_list(args.benchmark)
    cv = cross_validate(onto, ann, hits, folds, methods=args.methods, options=opts, pseudocount=args.pseudocount,
                        benchmark=bench, max_evalue=args.max_evalue, min_identity=args.min_identity,
                        min_coverage=args.min_coverage, keep_predictions=not args.no_predictions)
    cv.diagnostics["annotations"] = ann.diagnostics
    t_write = time.perf_counter()
    _write_cv(args, onto, cv, opts, SUMMARY_COLUMNS, table1_columns(cv.result.summary_records))
    say(args, _format_table1(cv.table1), f"results in {args.out}/ ({time.perf_counter() - t0:.1f} s, "
        f"writing {time.perf_counter() - t_write:.1f} s)")
    return 0


def _write_cv(args: argparse.Namespace, onto: Any, cv: Any, opts: Any, summary_columns: Any, table1_columns: Any) -> None:
    import numpy as np

    from goeval.benchmarks.cv import pooled_predictions
    from goeval.io.folds import write_folds
    from goeval.io.predictions_out import write_predictions
    from goeval.io.results import write_frames, write_ia

    out = Path(args.out)
    write_folds(out / "folds.tsv", cv.proteins, cv.folds)
    labels = list(cv.information)
    for f, ia in cv.ia.items():
        cols = np.concatenate([np.arange(*onto.bounds[onto.namespace_index(x):][:2]) for x in labels])
        write_ia(out / "ia" / f"{f}.tsv", onto.ids[cols], ia[cols])
        if f in cv.ic:
            write_ia(out / "ic" / f"{f}.tsv", onto.ids[cols], cv.ic[f][cols])
    if not args.no_predictions:
        floor = float(opts.grid[0]) if opts.grid is not None else 0.0
        for m in cv.predictions:
            pred = pooled_predictions(cv, m, onto, floor)
            write_predictions(out / "predictions" / f"{m}.tsv.gz", pred.proteins, onto.ids, pred.matrix)
    res = cv.result
    cv.diagnostics["information_content"] = cv.information
    text = {} if args.no_curves else {"curves.tsv": res.curve_columns}
    text |= {"summary.tsv": [{c: r[c] for c in summary_columns} for r in res.summary_records],
            "table1.tsv": [{c: r[c] for c in table1_columns} for r in cv.table1]}
    info = [f"- {k}: {v['proteins']:,} benchmark proteins, mean i(T) {v['mean']:.2f} bits (std {v['std']:.2f})"
            for k, v in cv.information.items()]
    write_frames(out, text, {"diagnostics.json": dict(cv.diagnostics)})
    write_text = _readme(args, "Cross-validation of the baselines", ["Average information content per benchmark "
                         "protein (each protein with its fold's IA):", "", *info])
    from goeval.io.files import open_text_out

    with open_text_out(out / "README.md") as fh:
        fh.write(write_text)


def _format_table1(records: list[dict[str, Any]]) -> str:
    from goeval.report.text import format_table

    rows = [[r["namespace"], r["method"], f"{r['fmax']:.3f}", f"{r['fmax_threshold']:.2f}", f"{r['fmax_ru']:.2f}",
             f"{r['fmax_mi']:.2f}", f"{r['smin']:.2f}", f"{r['smin_threshold']:.2f}", f"{r['smin_ru']:.2f}",
             f"{r['smin_mi']:.2f}", f"{r['wfmax']:.3f}"] for r in records]
    return format_table(rows, ["ns", "method", "Fmax", "tau", "ru", "mi", "Smin", "tau", "ru", "mi", "wFmax"])


# --------------------------------------------------------------- timesplit
def _run_timesplit(args: argparse.Namespace) -> int:
    from goeval.api import load_annotations, load_ontology
    from goeval.benchmarks.timesplit import evaluate_time_split, time_split_targets

    t0 = time.perf_counter()
    opts = _check(args, [(args.ontology, "ontology"), *((a, "t0 annotations") for a in args.t0),
                         *((a, "t1 annotations") for a in args.t1), (args.hits, "hits"), (args.sequences, "sequences")])
    onto = load_ontology(args.ontology, args.relations, cache_arg(args))
    a0, a1 = load_annotations(args.t0, onto), load_annotations(args.t1, onto)
    hits = _load_hits(args)
    seqs = None
    if args.sequences is not None:
        from goeval.io.fasta import read_fasta

        seqs = read_fasta(args.sequences).ids
    elif hits is not None:
        seqs = hits.queries
    split = time_split_targets(onto, a0, a1, namespaces=opts.namespaces, sequences=seqs,
                               drop_binding_only=args.drop_binding_only)
    split.diagnostics["t0"], split.diagnostics["t1"] = a0.diagnostics, a1.diagnostics
    results = {}
    if args.evaluate:
        results = evaluate_time_split(onto, a0, split, hits, methods=args.methods, options=opts, kinds=args.kinds,
                                      pseudocount=args.pseudocount, max_evalue=args.max_evalue,
                                      min_identity=args.min_identity, min_coverage=args.min_coverage)
    _write_timesplit(args, onto, split, results)
    for kind, per_ns in split.diagnostics["targets"].items():
        say(args, f"{kind}: " + ", ".join(f"{ns} {d['targets']:,} (of {d['candidates']:,} candidates)" for ns, d in per_ns.items()))
    for kind, res in results.items():
        from goeval.benchmarks import table1_records

        say(args, f"{kind} targets:", _format_table1(table1_records(res.summary_records)))
    say(args, f"results in {args.out}/ ({time.perf_counter() - t0:.1f} s)")
    return 0


def _write_timesplit(args: argparse.Namespace, onto: Any, split: Any, results: dict[str, Any]) -> None:
    from goeval.benchmarks import table1_columns, table1_records
    from goeval.evaluation import SUMMARY_COLUMNS
    from goeval.io.files import open_text_out
    from goeval.io.results import write_frames, write_pairs

    out = Path(args.out)
    for kind, per_ns in split.targets.items():
        for ns, prots in per_ns.items():
            with open_text_out(out / f"{kind.lower()}_{ns}.txt") as fh:
                fh.write("".join(f"{p}\n" for p in prots.tolist()))
            t = split.truth_of(kind).namespace(ns)
            coo = t.matrix.tocoo()
            write_pairs(out / f"truth_{kind.lower()}_{ns}.tsv", t.proteins[coo.row], onto.ids[coo.col])
    tables: dict[str, Any] = {}
    for kind, res in results.items():
        tables[f"{kind.lower()}/curves.tsv"] = res.curve_columns
        tables[f"{kind.lower()}/summary.tsv"] = [{c: r[c] for c in SUMMARY_COLUMNS} for r in res.summary_records]
        cols = table1_columns(res.summary_records)
        tables[f"{kind.lower()}/table1.tsv"] = [{c: r[c] for c in cols} for r in table1_records(res.summary_records)]
    write_frames(out, tables, {"diagnostics.json": split.diagnostics})
    with open_text_out(out / "README.md") as fh:
        fh.write(_readme(args, "Time split", ["Target lists `<kind>_<NS>.txt`, truth `truth_<kind>_<NS>.tsv` "
                                              "(t1 annotations as given; PK: evaluated with the t0 terms as known)."]))


def run(args: argparse.Namespace) -> int:
    show_warnings()
    return _run_cv(args) if args.which == "cv" else _run_timesplit(args)
