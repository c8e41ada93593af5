"""``goeval biocreative``: validate and score BioCreative II.5 result files."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from goeval.cli.common import say
from goeval.io.biocreative import TASKS, read_gold, read_results
from goeval.metrics.iprauc import act_ipr_auc, ipr_auc_by_document

DESCRIPTION = """\
Validate a BioCreative II.5 result file as the evaluation page requires (tab
-separated columns per task, ranks 1, 2, 3, ... per document, confidence in
]0..1] and not increasing with rank, unique hits, IPT pairs unique in either
order) and score it against the gold standard with the area under the
interpolated precision/recall curve. Every problem of an invalid file is
listed with its line (exit status 2). INT and IPT are scored per gold
document (documents without results score 0) and averaged; ACT ranks the
positive classifications followed by the negative ones inverted.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``goeval biocreative`` to ``parser``."""
    parser.add_argument("--task", required=True, choices=TASKS, help="INT, IPT or ACT")
    parser.add_argument("--gold", required=True, metavar="GOLD", help="gold-standard file")
    parser.add_argument("--results", required=True, metavar="RESULTS", help="result file to validate and score")
    parser.add_argument("--rank-check", choices=("sequence", "set"), default="sequence",
                        help="ranks consecutive in file order (default), or only forming 1..N per document")
    parser.add_argument("--skip-empty", action="store_true",
                        help="average over gold documents with results only (INT, IPT)")
    parser.add_argument("--format", choices=("text", "tsv", "json"), default="text",
                        help="output format (default text)")


def run(args: argparse.Namespace) -> int:
    """Run ``goeval biocreative``; return the exit status."""
    from goeval.report.text import plural

    gold = read_gold(args.gold, args.task)
    if gold.n_duplicates:
        what = {"INT": "document and accession", "IPT": "document and pair, in either order",
                "ACT": "document and class"}[args.task]
        say(args, f"{args.gold}: {plural(gold.n_duplicates, 'repeated gold line')} (the same {what}) counted once")
    results = read_results(args.results, args.task, rank_file_order=args.rank_check == "sequence")
    if args.task == "ACT":
        act = act_ipr_auc(results.positives, results.negatives, gold.classes)
        summary = {"task": "ACT", "auc_ipr": act.auc, "n_gold_positive": act.n_gold_positive,
                   "n_ranked": act.n_ranked, "ignored_documents": list(act.ignored_documents),
                   "gold_duplicates": gold.n_duplicates}
        if args.format == "json":
            sys.stdout.write(json.dumps(summary, indent=1) + "\n")
        elif args.format == "tsv":
            sys.stdout.write("task\tn_gold_positive\tn_ranked\tauc_ipr\n"
                             f"ACT\t{act.n_gold_positive}\t{act.n_ranked}\t{act.auc!r}\n")
        else:
            lines = [f"ACT: AUC iP/R = {act.auc:.6f} over {act.n_ranked} ranked documents "
                     f"({act.n_gold_positive} gold positives)"]
            if act.ignored_documents:
                lines.append(f"{len(act.ignored_documents)} ranked documents not in the gold standard were ignored")
            sys.stdout.write("\n".join(lines) + "\n")
        return 0

    scored = ipr_auc_by_document(results.hits, gold.answers, skip_empty=args.skip_empty,
                                 undirected_pairs=args.task == "IPT")
    rows: list[dict[str, Any]] = [
        {"document": doc, "n_gold": len(gold.answers[doc]), "n_hits": len(results.hits.get(doc, ())),
         "auc_ipr": auc}
        for doc, auc in scored.per_document.items()
    ]
    if args.format == "json":
        doc = {"task": args.task, "mean_auc_ipr": scored.mean, "skip_empty": args.skip_empty,
               "n_documents": len(rows), "n_without_results": scored.n_without_results,
               "ignored_documents": list(scored.ignored_documents), "gold_duplicates": gold.n_duplicates,
               "documents": rows}
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    elif args.format == "tsv":
        out = ["document\tn_gold\tn_hits\tauc_ipr"]
        out += [f"{r['document']}\t{r['n_gold']}\t{r['n_hits']}\t{r['auc_ipr']!r}" for r in rows]
        out.append(f"*mean*\t\t\t{scored.mean!r}")
        sys.stdout.write("\n".join(out) + "\n")
    else:
        width = max([8] + [len(r["document"]) for r in rows])
        out = [f"{args.task}: {len(rows)} gold documents, {scored.n_without_results} without results"
               + (f", {len(scored.ignored_documents)} result documents not in the gold standard (ignored)"
                  if scored.ignored_documents else "")]
        out.append(f"{'document':<{width}}  {'n_gold':>6}  {'n_hits':>6}  {'AUC iP/R':>8}")
        out += [f"{r['document']:<{width}}  {r['n_gold']:>6}  {r['n_hits']:>6}  {r['auc_ipr']:>8.6f}" for r in rows]
        what = "gold documents with results" if args.skip_empty else "gold documents"
        out.append(f"mean AUC iP/R = {scored.mean:.6f} over {what}")
        sys.stdout.write("\n".join(out) + "\n")
    return 0
