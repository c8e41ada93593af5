"""``goeval ia``: information accretion from annotations (CR13 §2, §4)."""

from __future__ import annotations

import argparse

from goeval.cli.common import add_ontology, read_ontology, report_lines, say, show, show_warnings
from goeval.cli.parsing import ExtendValues

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--annotations", required=True, nargs="+", action=ExtendValues, metavar="FILE",
                   help="annotations: protein<TAB>term (header optional) or GAF (experimental codes kept); "
                        "several files (e.g. one per species) are merged")
    p.add_argument("--pseudocount", type=float, default=1.0, help="pseudo-count c (default 1, as in the paper)")
    p.add_argument("--method", choices=("bayesian", "frequency"), default="bayesian",
                   help="bayesian: -log2((n(v)+c)/(n(Pa(v))+c)); frequency: the paper's term-frequency alternative")
    p.add_argument("--out", required=True, metavar="IA.tsv", help="output file term<TAB>ia (no header)")


def run(args: argparse.Namespace) -> int:
    from goeval.io.files import check_input, check_output_file
    from goeval.options import EvaluationOptions

    EvaluationOptions.resolve(pseudocount=args.pseudocount, relations=args.relations)  # validated before work
    check_input(args.ontology, "ontology")
    for path in args.annotations:
        check_input(path, "annotations")
    check_output_file(args.out)

    from goeval.inputs import load_annotations
    from goeval.information.accretion import information_accretion
    from goeval.io.results import write_ia
    from goeval.report.text import describe_reading, plural

    show_warnings()
    onto = read_ontology(args)
    ann = load_annotations(args.annotations, onto)
    est = information_accretion(onto, ann, args.pseudocount, method=args.method)
    idx = est.terms()
    write_ia(args.out, onto.ids[idx], est.values[idx])
    d = dict(ann.diagnostics, n_proteins=int(ann.matrix.shape[0]))
    for part in d.get("parts", []):
        say(args, describe_reading(f"  {part.get('source')}", part))
    report_lines(args, {})
    say(args, describe_reading(", ".join(map(str, args.annotations)) if len(args.annotations) > 1 else args.annotations[0], d))
    for label in est.namespaces:
        s = onto.namespace_slice(label)
        v = est.values[s]
        show(args, f"{label}: {plural(s.stop - s.start, 'term')}, annotated {int((est.n_term[s] > 0).sum())}, "
                  f"ia mean {v.mean():.3f} max {v.max():.3f} bits")
    say(args, *special_cases(est.diagnostics, args.method))
    say(args, f"wrote {plural(idx.size, 'term')} to {args.out}")
    return 0


def special_cases(diag: dict, method: str) -> list[str]:
    """Lines naming, in words, the special cases an IA estimate counted (``zero_parent_count``, ``negative``).

    Parameters
    ----------
    diag : dict
        :attr:`InformationAccretion.diagnostics`.
    method : str
        The estimate's method (``bayesian`` gives such a term ia 0).

    Returns
    -------
    list of str
        One line per non-zero count.

    Examples
    --------
    >>> special_cases({"zero_parent_count": 3, "negative": 0}, "bayesian")
    ['3 terms have no protein annotated with all their parents (n(Pa(v)) = 0); ia 0']
    """
    zero, negative = int(diag.get("zero_parent_count", 0)), int(diag.get("negative", 0))
    lines = []
    if zero:
        lines.append(f"{zero:,} term{'s have' if zero != 1 else ' has'} no protein annotated with all "
                     f"{'their' if zero != 1 else 'its'} parents (n(Pa(v)) = 0)"
                     + ("; ia 0" if method == "bayesian" else ""))
    if negative:
        lines.append(f"{negative:,} term{'s have' if negative != 1 else ' has'} a negative ia (kept, not clamped)")
    return lines
