"""``goeval propagate``: close annotations or predictions under ancestors."""

from __future__ import annotations

import argparse

from goeval.cli.common import add_ontology, read_ontology, say

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--input", required=True, metavar="FILE", help="annotations (2 columns) or predictions (3 columns)")
    p.add_argument("--out", required=True, metavar="FILE", help="output (.gz compresses)")
    p.add_argument("--mode", choices=("max", "fill"), default="max", help="score propagation for predictions")
    p.add_argument("--kind", choices=("auto", "annotations", "predictions"), default="auto",
                   help="input kind (auto: from the content; CAFA header lines or 3 columns with a score = predictions)")


def run(args: argparse.Namespace) -> int:
    from goeval.io.files import check_input, check_output_file

    check_input(args.ontology, "ontology")
    check_input(args.input, "input")
    check_output_file(args.out)

    import numpy as np

    from goeval.annotations import map_table, propagate
    from goeval.io.kinds import sniff
    from goeval.io.readers import prediction_file
    from goeval.io.results import write_pairs
    from goeval.io.truth import read_truth
    from goeval.report.text import describe_reading

    onto = read_ontology(args)
    preds = args.kind == "predictions" or (args.kind == "auto" and sniff(args.input).predictions)
    table = prediction_file(args.input).read() if preds else read_truth(args.input)
    ann = map_table(table, onto)
    out = propagate(ann, args.mode)
    m = out.matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    write_pairs(args.out, out.proteins[rows], onto.ids[m.indices], m.data if preds else None)
    d = out.diagnostics
    say(args, describe_reading(args.input, d),
        f"{d['entries_before_propagation']:,} mapped entries -> {d['entries_after_propagation']:,} after propagation "
        f"({'predictions, ' + args.mode if preds else 'annotations'}); wrote {args.out}")
    return 0
