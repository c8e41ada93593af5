"""``goeval evaluate``: protein-centric evaluation (Fmax, weighted Fmax, Smin...)."""

from __future__ import annotations

import argparse
import os
import time

from goeval.commands._common import add_ontology, comma_list, show_warnings

NAME = "evaluate"
HELP = "evaluate predictions against a ground truth: curves, Fmax, weighted Fmax, Smin"
DESCRIPTION = (
    "Protein-centric evaluation (Clark & Radivojac 2013; CAFA). Each prediction file is a method "
    "(directories are walked). Writes curves.tsv, summary.tsv and diagnostics.json to --out."
)


def thresholds_arg(text: str) -> str | float:
    if text == "exact":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'exact' or a step such as 0.01; got {text!r}") from None


def add_evaluation_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ia", metavar="IA.tsv", help="information accretion file term<TAB>ia (enables ru/mi/S and weighted measures)")
    p.add_argument("--ia-annotations", metavar="FILE", help="estimate IA from these annotations instead (pseudo-count --pseudocount)")
    p.add_argument("--pseudocount", type=float, default=1.0, help="pseudo-count for --ia-annotations (default 1)")
    p.add_argument("--out", default="goeval_results", metavar="DIR", help="output directory (default goeval_results/)")
    p.add_argument("--thresholds", type=thresholds_arg, default="exact", metavar="exact|STEP",
                   help="'exact' (every distinct score, default) or a grid step such as 0.01")
    p.add_argument("--normalization", choices=("cafa", "pred", "gt"), default="cafa",
                   help="cafa: precision over covered proteins, the rest over all (default)")
    p.add_argument("--propagation", choices=("max", "fill"), default="max", help="prediction propagation (default max)")
    p.add_argument("--exclude-roots", action="store_true", help="drop root terms from truth and predictions")
    p.add_argument("--root-as-prediction", action="store_true",
                   help="count the root as predicted for every protein (Clark & Radivojac 2013 §3.4)")
    p.add_argument("--k", type=float, default=2.0, help="order of the semantic distance S_k (default 2)")
    p.add_argument("--namespaces", type=comma_list, metavar="BPO,MFO,CCO", help="namespaces to evaluate (default all)")
    p.add_argument("--targets", metavar="LIST", help="benchmark proteins, one per line (e.g. no-knowledge targets)")
    p.add_argument("--protein-weighting", choices=("none", "information"), default="none",
                   help="average weighted precision/recall plainly (CAFA) or weighted by i(T)")
    p.add_argument("--terms-of-interest", metavar="LIST", help="evaluate only these terms (one per line)")
    p.add_argument("--exclude-terms", metavar="LIST", help="remove these terms (one per line)")
    p.add_argument("--quiet", action="store_true", help="do not print the summary table")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--truth", required=True, metavar="TRUTH", help="ground truth: protein<TAB>term or GAF")
    p.add_argument("--predictions", required=True, nargs="+", metavar="FILE_OR_DIR", help="prediction files or directories")
    add_evaluation_options(p)


def run_evaluation(args: argparse.Namespace, ontology, truth, predictions) -> int:  # noqa: ANN001
    t0 = time.perf_counter()
    # While this process is still small, fork a reader for the first prediction
    # file and start parsing the ontology (half of it in another forked process);
    # only then import the heavy modules and read the other inputs.
    from goeval.io.paths import prediction_files
    from goeval.io.tables import start_read_predictions

    files = prediction_files(predictions)
    first = next(iter(files), None)
    preds: dict = {name: path for name, path in files.items()}
    if first is not None and os.environ.get("GOEVAL_READER", "process") == "process":
        preds[first] = start_read_predictions(files[first])

    from goeval.io.obo import start_read_obo

    t_reader = time.perf_counter()
    pending = start_read_obo(ontology) if isinstance(ontology, str) else ontology
    t_obo = time.perf_counter()

    from goeval.api import evaluate, load_targets
    from goeval.io.results import write_results
    from goeval.report.text import format_summary

    t_imports = time.perf_counter()
    show_warnings()
    res = evaluate(
        pending, truth, preds, ia=args.ia, ia_annotations=args.ia_annotations, pseudocount=args.pseudocount,
        relations=getattr(args, "relations", ("is_a", "part_of")), thresholds=args.thresholds,
        normalization=args.normalization, propagation=args.propagation, exclude_roots=args.exclude_roots,
        root_as_prediction=args.root_as_prediction, k=args.k, namespaces=args.namespaces, targets=args.targets,
        protein_weighting=args.protein_weighting,
        terms_of_interest=None if not args.terms_of_interest else list(load_targets(args.terms_of_interest)),
        excluded_terms=None if not args.exclude_terms else list(load_targets(args.exclude_terms)),
    )
    t_eval = time.perf_counter()
    timings = res.diagnostics.setdefault("timings_seconds", {})
    startup = {"start readers": t_reader - t0, "start ontology parse": t_obo - t_reader, "imports": t_imports - t_obo}
    res.diagnostics["timings_seconds"] = {**startup, **timings}
    paths = write_results(args.out, res)
    if not args.quiet:
        print(format_summary(res.summary_records) if res.summary_records else "no method had predictions for benchmark proteins")
        for name, d in res.diagnostics.get("methods", {}).items():
            st = d.get("rows_by_term_status", {})
            notes = [f"{d.get('rows_read', 0)} lines"]
            for key, label in (("alt_id", "alt_id remapped"), ("replaced_by", "obsolete replaced"),
                               ("obsolete", "obsolete dropped"), ("unknown", "unknown terms dropped")):
                if st.get(key):
                    notes.append(f"{label} {st[key]}")
            for key, label in (("duplicate_pairs", "duplicates (max kept)"), ("proteins_not_in_truth", "proteins not in truth"),
                               ("zero_scores_dropped", "zero scores")):
                if d.get(key):
                    notes.append(f"{label} {d[key]}")
            print(f"{name}: " + ", ".join(notes))
        print(f"results in {paths['curves'].parent}/ (curves.tsv, summary.tsv, diagnostics.json); "
              f"{time.perf_counter() - t0:.2f} s (writing {time.perf_counter() - t_eval:.2f} s)")
    return 0


def run(args: argparse.Namespace) -> int:
    return run_evaluation(args, args.ontology, args.truth, args.predictions)
