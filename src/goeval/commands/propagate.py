"""``goeval propagate``: close annotations or predictions under ancestors."""

from __future__ import annotations

import argparse

from goeval.commands._common import add_ontology

NAME = "propagate"
HELP = "propagate annotations (ancestor closure) or predictions (max / fill) through the ontology"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--input", required=True, metavar="FILE", help="annotations (2 columns) or predictions (3 columns)")
    p.add_argument("--out", required=True, metavar="FILE", help="output (.gz compresses)")
    p.add_argument("--mode", choices=("max", "fill"), default="max", help="score propagation for predictions")
    p.add_argument("--kind", choices=("auto", "annotations", "predictions"), default="auto",
                   help="input kind (auto: 3 columns = predictions)")


def _is_predictions(path: str) -> bool:
    from goeval.io._files import read_bytes

    data = read_bytes(path)[:65536]
    for line in data.split(b"\n"):
        f = line.split()
        if f and f[0].upper() not in (b"AUTHOR", b"MODEL", b"KEYWORDS", b"ACCURACY"):
            if len(f) == 3:
                try:
                    float(f[2])
                    return True
                except ValueError:
                    continue
            return False
    return False


def run(args: argparse.Namespace) -> int:
    from goeval.annotations import map_table, propagate
    from goeval.api import load_ontology
    from goeval.io.results import write_pairs
    from goeval.io.tables import read_predictions, read_truth

    onto = load_ontology(args.ontology, args.relations)
    preds = args.kind == "predictions" or (args.kind == "auto" and _is_predictions(args.input))
    table = read_predictions(args.input) if preds else read_truth(args.input)
    ann = map_table(table, onto)
    out = propagate(ann, args.mode)
    write_pairs(args.out, out.to_frame())
    d = out.diagnostics
    st = d["rows_by_term_status"]
    print(f"{args.input}: {d['rows_read']} rows -> {d['entries_before_propagation']} mapped entries -> "
          f"{d['entries_after_propagation']} after propagation ({'predictions, ' + args.mode if preds else 'annotations'}); "
          f"alt_id remapped {st['alt_id']}, obsolete replaced {st['replaced_by']}, dropped: obsolete {st['obsolete']}, "
          f"unknown {st['unknown']}, duplicates {d['duplicate_pairs']}")
    print(f"wrote {args.out}")
    return 0
