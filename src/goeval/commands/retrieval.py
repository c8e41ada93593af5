"""``goeval retrieval``: per-term retrieval (TAP-k, AUC iP/R, ROC AUC, AP)."""

from __future__ import annotations

import argparse
from pathlib import Path

from goeval.commands._common import add_ontology, comma_list, show_warnings

NAME = "retrieval"
HELP = "term-centric evaluation: TAP-k per GO term, AUC of interpolated P/R, ROC AUC and AP"
DESCRIPTION = (
    "Each GO term is a query; its list is the benchmark proteins ranked by propagated score. "
    "Reports TAP-k (Carroll et al. 2010), the BioCreative II.5 AUC iP/R and CAFA's term-centric ROC AUC / AP, "
    "per method and namespace. Writes retrieval_summary.tsv, retrieval_terms.tsv, tap_curve.tsv, diagnostics."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--truth", required=True, metavar="TRUTH", help="ground truth: protein<TAB>term or GAF")
    p.add_argument("--predictions", required=True, nargs="+", metavar="FILE_OR_DIR")
    p.add_argument("-k", "--k", dest="k", type=int, action="append", help="TAP-k order (repeatable; default 20)")
    p.add_argument("--min-positives", type=int, default=1, help="truth proteins a term needs to be a query (default 1)")
    p.add_argument("--auc-min-positives", type=int, default=10, help="truth proteins for ROC AUC / AP (default 10, CAFA)")
    p.add_argument("--query-weights", choices=("uniform", "ia"), default="uniform", help="weight of each term query")
    p.add_argument("--ia", metavar="IA.tsv", help="information accretion (for --query-weights ia)")
    p.add_argument("--ia-annotations", metavar="FILE", help="estimate IA from these annotations (pseudo-count 1)")
    p.add_argument("--insufficient", choices=("lowest", "error", "pad"), default="lowest",
                   help="when fewer than half the queries reach k errors (default: cutoff at the lowest score)")
    p.add_argument("--propagation", choices=("max", "fill"), default="max")
    p.add_argument("--namespaces", type=comma_list, metavar="BPO,MFO,CCO")
    p.add_argument("--targets", metavar="LIST", help="benchmark proteins, one per line")
    p.add_argument("--out", default="goeval_retrieval", metavar="DIR", help="output directory")


def run(args: argparse.Namespace) -> int:
    from goeval.api import load_annotations, load_ia, load_ontology, load_predictions, load_targets
    from goeval.io.paths import prediction_files
    from goeval.ia import information_accretion
    from goeval.io.results import write_json
    from goeval.report.text import format_table
    from goeval.term_evaluation import evaluate_terms

    show_warnings()
    onto = load_ontology(args.ontology, args.relations)
    truth = load_annotations(args.truth, onto)
    preds = {name: load_predictions(path, onto) for name, path in prediction_files(args.predictions).items()}
    ia = None
    if args.ia:
        ia, _ = load_ia(args.ia, onto)
    elif args.ia_annotations:
        ia = information_accretion(onto, load_annotations(args.ia_annotations, onto)).values
    res = evaluate_terms(
        onto, truth, preds, k=args.k or [20], min_positives=args.min_positives,
        auc_min_positives=args.auc_min_positives, query_weights=args.query_weights, ia=ia,
        namespaces=args.namespaces, propagation=args.propagation,
        targets=load_targets(args.targets) if args.targets else None, insufficient=args.insufficient,
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res.summary.to_csv(out / "retrieval_summary.tsv", sep="\t", index=False, float_format="%.17g")
    res.terms.to_csv(out / "retrieval_terms.tsv", sep="\t", index=False, float_format="%.17g")
    res.curves.to_csv(out / "tap_curve.tsv", sep="\t", index=False, float_format="%.17g")
    write_json(out / "diagnostics.json", res.diagnostics)
    ks = args.k or [20]
    rows = []
    for r in res.summary.to_dict("records"):
        rows.append([r["method"], r["namespace"], str(r["queries"])]
                    + [f"{r.get(f'tap_{k}', float('nan')):.4f}" for k in ks]
                    + [f"{r.get('ipr_auc', float('nan')):.4f}", f"{r.get('peak_tap', float('nan')):.4f}",
                       str(r["auc_terms"]), f"{r['macro_roc_auc']:.4f}", f"{r['macro_average_precision']:.4f}"])
    print(format_table(rows, ["method", "ns", "queries", *(f"TAP-{k}" for k in ks), "AUC iP/R", "peak TAP",
                              "AUC terms", "ROC AUC", "AP"]))
    print(f"results in {out}/ (retrieval_summary.tsv, retrieval_terms.tsv, tap_curve.tsv, diagnostics.json)")
    return 0
