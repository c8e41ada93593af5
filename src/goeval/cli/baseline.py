"""``goeval baseline``: Naive, BLAST, GOtcha, DIAMONDScore and kNN-identity predictions (CR13 §4.1)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from goeval.cli.common import (add_ontology, comma_list, non_negative_float, positive_int, read_annotations,
                               read_hit_table, read_ontology, say)
from goeval.cli.parsing import ExtendValues

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Make baseline predictions from training annotations (and, except for naive, a BLAST/DIAMOND "
    "hit table): scores in [0, 1], max-consistent, per namespace, written as target<TAB>term<TAB>score "
    "or in CAFA format."
)

_METHOD_HELP = {
    "naive": "n_train(v) / N_train: the training frequency of each term, the same list for every target",
    "blast": "max pident / 100 over the usable hits annotated with the term",
    "gotcha": "(2 + sum of w) / (2 + sum of w over all usable hits), w = min(500, -log10 E)",
    "diamondscore": "DeepGOPlus: sum of bitscores of hits with the term / sum over all usable hits",
    "knn-identity": "sum of pident of hits with the term / sum over all usable hits",
}


def _common(p: argparse.ArgumentParser, targets_required: bool) -> None:
    add_ontology(p)
    p.add_argument("--train", required=True, nargs="+", action=ExtendValues, metavar="ANNOTATIONS",
                   help="training annotations: protein<TAB>term (header optional) or GAF; several files are joined")
    p.add_argument("--targets", required=targets_required, metavar="LIST",
                   help="proteins to predict, one per line" + ("" if targets_required else " (default: every query of the hit table)"))
    p.add_argument("--namespaces", type=comma_list, action=ExtendValues, default=None, metavar="NS1,NS2",
                   help="namespaces to predict, e.g. MFO,BPO,CCO (default: all)")
    p.add_argument("--max-terms", type=positive_int, default=None, metavar="N",
                   help="keep the N best terms per target and namespace (ties: shallower term, then term id)")
    p.add_argument("--format", choices=("tsv", "cafa"), default="tsv",
                   help="tsv: target<TAB>term<TAB>score; cafa: AUTHOR/MODEL/KEYWORDS header and END")
    p.add_argument("--author", default="goeval", help="CAFA AUTHOR line (default goeval)")
    p.add_argument("--model", default="1", help="CAFA MODEL line (default 1)")
    p.add_argument("--out", required=True, metavar="PRED", help="output file (.gz compresses)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="method", metavar="METHOD", required=True)
    for method, text in _METHOD_HELP.items():
        q = sub.add_parser(method, help=text, description=text)
        _common(q, targets_required=method == "naive")
        if method == "naive":
            continue
        q.add_argument("--hits", required=True, metavar="HITS",
                       help="BLAST/DIAMOND tabular hits (-outfmt 6), .gz accepted")
        q.add_argument("--hit-columns", type=comma_list, action=ExtendValues, default=None, metavar="C1,C2,...",
                       help="column names of the hit table (default: the 12 standard -outfmt 6 columns)")
        q.add_argument("--max-evalue", type=non_negative_float, default=None, metavar="E", help="drop hits with E-value > E")
        q.add_argument("--min-identity", type=non_negative_float, default=None, metavar="PCT", help="drop hits with pident < PCT")
        q.add_argument("--min-coverage", type=non_negative_float, default=None, metavar="PCT",
                       help="drop hits with query coverage < PCT (needs qcovhsp, or qstart, qend, qlen)")


def _load_training(args: argparse.Namespace, onto: Any) -> Any:
    from goeval.checks import dropped_terms_warning
    from goeval.report.text import plural

    train = read_annotations(args, args.train, onto, "training set")
    d = dict(train.diagnostics, n_proteins=int(train.matrix.shape[0]))
    message = dropped_terms_warning(d, "training")
    if message:
        import warnings

        from goeval.errors import GoevalWarning

        warnings.warn(message, GoevalWarning, stacklevel=2)
    if d.get("proteins_in_several_parts"):
        say(args, f"training set: {plural(d['proteins_in_several_parts'], 'protein')} found in more than one file "
                  "(terms merged)")
    return train


def _print_namespaces(args: argparse.Namespace, diag: dict[str, Any]) -> None:
    from goeval.baselines import REASONS
    from goeval.report.text import plural

    for label, d in diag["namespaces"].items():
        h = d.get("hits")
        training = plural(d["training_proteins"], "training protein")
        if h is None:
            say(args, f"{label}: {training}, {plural(d['terms_seen'], 'term')} seen")
            continue
        dropped = ", ".join(f"{r.replace('_', ' ')} {h[r]}" for r in REASONS)
        say(args, f"{label}: {training}; hits {h['rows']}: usable {h['usable']}; dropped: {dropped}")
        extra = f", {d['targets_with_zero_total_weight']} with zero total weight" if "targets_with_zero_total_weight" in d else ""
        say(args, f"{label}: targets with usable hits {d['targets_with_usable_hits']}, with predictions "
              f"{d['targets_with_predictions']}{extra}; {plural(d['predictions'], 'score')}")


def _nothing_predicted(args: argparse.Namespace, train: Any, why: str) -> None:
    """A baseline that predicts nothing fails with the reason (nothing is written)."""
    from goeval.errors import GoevalError

    st = train.diagnostics.get("rows_by_term_status", {})
    read = train.diagnostics.get("rows_read", 0)
    lost = int(st.get("unknown", 0)) + int(st.get("obsolete", 0))
    detail = f" ({lost:,} of its {read:,} lines name unknown or obsolete terms)" if lost else ""
    raise GoevalError(f"baseline {args.method} predicts nothing: {why}{detail}; nothing was written to {args.out}.")


def _write(args: argparse.Namespace, onto: Any, pred: Any, train: Any) -> int:
    from goeval.io.predictions_out import write_predictions

    if not pred.matrix.nnz:
        per = pred.diagnostics.get("namespaces", {})
        usable = sum(d.get("hits", {}).get("usable", 0) for d in per.values() if isinstance(d, dict))
        _nothing_predicted(args, train, "no target has a usable hit" if "hits" in next(iter(per.values()), {})
                           and not usable else "no target gets a term (empty training set or target list)")

    return write_predictions(args.out, pred.proteins, onto.ids, pred.matrix, fmt=args.format,
                             author=args.author, model=args.model, keywords=[f"goeval baseline {args.method}"])


def _run_naive(args: argparse.Namespace, onto: Any, train: Any, targets: Any) -> int:
    import numpy as np

    from goeval.baselines import naive, naive_scores
    from goeval.io.predictions_out import write_naive
    from goeval.report.text import plural

    if args.max_terms is not None:
        pred = naive(onto, train, targets, args.namespaces, max_terms=args.max_terms)
        _print_namespaces(args, pred.diagnostics)
        return _write(args, onto, pred, train)
    scores, per_ns = naive_scores(onto, train, args.namespaces)
    _print_namespaces(args, {"namespaces": per_ns})
    from goeval.baselines.hits import unique_targets

    tlist, repeated = unique_targets(targets)
    if repeated:
        say(args, f"targets: {plural(repeated, 'repeated id')} dropped")
    cols = np.flatnonzero(scores > 0)
    if not cols.size or not tlist.size:
        _nothing_predicted(args, train, "the training annotations hold no term of the evaluated namespaces"
                           if not cols.size else "the target list is empty")
    return write_naive(args.out, tlist, onto.ids[cols], scores[cols], fmt=args.format, author=args.author,
                       model=args.model, keywords=["goeval baseline naive"])


def _check_before_work(args: argparse.Namespace) -> None:
    """Every input exists and the output can be written, before anything is parsed."""
    from goeval.io.files import check_input, check_output_file

    check_input(args.ontology, "ontology")
    for path in args.train:
        check_input(path, "training annotations")
    for path, what in ((getattr(args, "hits", None), "hits"), (args.targets, "targets")):
        if path is not None:
            check_input(path, what)
    if getattr(args, "hits", None) is not None:
        from goeval.io.hits import hit_table_columns

        hit_table_columns(args.hits, args.hit_columns)  # the layout, from the first lines
    check_output_file(args.out)


def run(args: argparse.Namespace) -> int:
    _check_before_work(args)
    from goeval.baselines import HIT_METHODS
    from goeval.io.idlist import read_id_list
    from goeval.report.text import plural

    t0 = time.perf_counter()
    onto = read_ontology(args)
    train = _load_training(args, onto)
    targets = None
    if args.targets is not None:
        targets = read_id_list(args.targets)
        say(args, f"{args.targets}: {plural(targets.size, 'target')}")
    if args.method == "naive":
        n = _run_naive(args, onto, train, targets)
    else:
        hits = read_hit_table(args)
        pred = HIT_METHODS[args.method](
            onto, train, hits, targets, namespaces=args.namespaces, max_evalue=args.max_evalue,
            min_identity=args.min_identity, min_coverage=args.min_coverage, max_terms=args.max_terms)
        _print_namespaces(args, pred.diagnostics)
        if "max_terms_dropped" in pred.diagnostics:
            dropped = plural(pred.diagnostics["max_terms_dropped"], "score")
            say(args, f"--max-terms {args.max_terms}: {dropped} dropped")
        n = _write(args, onto, pred, train)
    say(args, f"wrote {plural(n, 'prediction')} to {args.out} ({time.perf_counter() - t0:.1f} s)")
    return 0
