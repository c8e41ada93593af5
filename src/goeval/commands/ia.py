"""``goeval ia``: information accretion from annotations (CR13 §2, §4)."""

from __future__ import annotations

import argparse

from goeval.commands._common import add_ontology, show_warnings

NAME = "ia"
HELP = "estimate information accretion ia(v) = -log2 Pr(v | parents) from annotations"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--annotations", required=True, metavar="FILE",
                   help="annotations: protein<TAB>term (header optional) or GAF (experimental codes kept)")
    p.add_argument("--pseudocount", type=float, default=1.0, help="pseudo-count c (default 1, as in the paper)")
    p.add_argument("--method", choices=("bayesian", "frequency"), default="bayesian",
                   help="bayesian: -log2((n(v)+c)/(n(Pa(v))+c)); frequency: the paper's term-frequency alternative")
    p.add_argument("--out", required=True, metavar="IA.tsv", help="output file term<TAB>ia (no header)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from goeval.api import load_annotations, load_ontology
    from goeval.ia import information_accretion
    from goeval.io.results import write_ia
    from goeval.report.text import format_diagnostics

    show_warnings()
    onto = load_ontology(args.ontology, args.relations)
    ann = load_annotations(args.annotations, onto)
    est = information_accretion(onto, ann, args.pseudocount, method=args.method)
    idx = est.terms()
    write_ia(args.out, onto.ids[idx], est.values[idx])
    d = ann.diagnostics
    st = d["rows_by_term_status"]
    print(f"{args.annotations}: {d['rows_read']} rows, {ann.matrix.shape[0]} proteins; "
          f"alt_id remapped {st['alt_id']}, obsolete replaced {st['replaced_by']}, "
          f"obsolete dropped {st['obsolete']}, unknown dropped {st['unknown']}, duplicates {d['duplicate_pairs']}")
    for label in est.namespaces:
        s = onto.namespace_slice(label)
        v = est.values[s]
        print(f"{label}: {s.stop - s.start} terms, annotated {int((est.n_term[s] > 0).sum())}, "
              f"ia mean {v.mean():.3f} max {v.max():.3f} bits")
    extra = format_diagnostics({k: v for k, v in est.diagnostics.items() if k in ("zero_parent_count", "negative")})
    if extra:
        print(extra)
    print(f"wrote {idx.size} terms to {args.out}")
    if not np.isfinite(est.values).all():  # pragma: no cover - guarded in information_accretion
        return 1
    return 0
