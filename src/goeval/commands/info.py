"""``goeval info ONTOLOGY``: what the loader made of an OBO file."""

from __future__ import annotations

import argparse
import json

from goeval.commands._common import relations_arg

NAME = "info"
HELP = "summarize an ontology: terms, roots, edges, alt_ids, obsolete terms per namespace"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ontology", metavar="ONTOLOGY", help="OBO file (.obo, .gz, .bz2, .xz)")
    p.add_argument("--relations", type=relations_arg, default=("is_a", "part_of"), metavar="R1,R2",
                   help="relations to follow (default: is_a,part_of)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    from goeval.api import load_ontology
    from goeval.io.results import _jsonable
    from goeval.report.text import format_table

    onto = load_ontology(args.ontology, args.relations)
    if args.format == "json":
        print(json.dumps(_jsonable({
            "source": onto.source, "data_version": onto.data_version, "relations": list(onto.relations),
            "namespaces": [s.__dict__ for s in onto.stats], "diagnostics": onto.diagnostics,
        }), indent=2))
        return 0
    print(f"{onto.source}  (data-version: {onto.data_version or 'n/a'}; relations: {', '.join(onto.relations)})")
    rows = []
    for s in onto.stats:
        rows.append([
            s.label, s.namespace, str(s.terms), ",".join(s.roots) if len(s.roots) <= 3 else f"{len(s.roots)} roots",
            *(str(s.edges[r]) for r in onto.relations),
            str(sum(s.cross_namespace_edges_dropped.values())), str(s.alt_ids), str(s.obsolete_terms),
            str(s.max_generation),
        ])
    header = ["ns", "namespace", "terms", "roots", *(f"{r} edges" for r in onto.relations),
              "cross-ns dropped", "alt_ids", "obsolete", "depth"]
    print(format_table(rows, header))
    d = onto.diagnostics
    print(
        f"\nobsolete terms: {d['obsolete_terms']} ({d['obsolete_with_single_replacement']} with a single replaced_by, "
        f"mapped; {d['obsolete_without_replacement'] + d['obsolete_with_several_replacements']} dropped when used)"
    )
    if d["relations_not_followed"]:
        print("relations not followed: " + ", ".join(f"{k} {v}" for k, v in d["relations_not_followed"].items()))
    if d["edges_to_unknown_or_obsolete_terms_dropped"]:
        print("edges to unknown or obsolete terms dropped: " + ", ".join(
            f"{k} {v}" for k, v in d["edges_to_unknown_or_obsolete_terms_dropped"].items()))
    return 0
