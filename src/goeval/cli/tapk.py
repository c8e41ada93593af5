"""``goeval tapk``: TAP-k of retrieval lists in the reference tool's format."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import numpy as np

from goeval.io.retrieval_lists import read_retrieval_lists
from goeval.metrics.ranking import average_precision_lists, mean_average_precision, pooled_roc_n_score, roc_n_scores
from goeval.metrics.tapk import RetrievalLists, TapCurve, TapkResult, tap_curve, tap_k

DESCRIPTION = """\
Threshold Average Precision at a median of k errors per query (Carroll et al.
2010) of the retrieval lists in FILE, in the reference TAP-k tool's format:
lists separated by blank lines, each 'query_id [weight]', then T(q) (the
number of relevant records), then one 'relevance<TAB>score' line per record,
best first. Prints a summary line per k (or threshold) and a line per query.
"""

_FORMATS = ("text", "tsv", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``goeval tapk`` to ``parser``."""
    parser.add_argument("file", metavar="FILE", help="retrieval lists (plain, .gz, .bz2 or .xz)")
    cut = parser.add_mutually_exclusive_group(required=True)
    cut.add_argument("-k", type=int, action="append", metavar="K",
                     help="errors per query at the quantile defining the cutoff E_k (repeat for several k)")
    cut.add_argument("--threshold", type=float, action="append", metavar="X",
                     help="fixed cutoff instead of E_k (repeatable); inclusive")
    parser.add_argument("--evalue", action="store_true",
                        help="values are E-values: lower is better and lists ascend")
    parser.add_argument("--quantile", type=float, default=0.5, metavar="Q",
                        help="fraction of queries (by weight) with >= k errors at E_k (default 0.5, the median)")
    parser.add_argument("--insufficient", choices=("lowest", "error", "pad"), default="lowest",
                        help="when too few lists have k errors: cutoff at the lowest score (default), "
                             "fail, or no cutoff and no terminal term")
    parser.add_argument("--zero-relevant", choices=("paper", "perl", "skip"), default="paper",
                        help="queries with T(q) = 0: APCP 0 (default), 1/(n+1) as the reference tool, "
                             "or left out of the mean")
    parser.add_argument("--unweighted", action="store_true", help="ignore the query weights of FILE")
    parser.add_argument("--roc", type=int, metavar="N",
                        help="also report ROC_N per query, pooled ROC_N, and average precision / MAP")
    parser.add_argument("--curve", action="store_true",
                        help="also report the mean TAP at every cutoff and its peak (E0*)")
    parser.add_argument("--format", choices=_FORMATS, default="text", help="output format (default text)")


def _num(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NA"
    return f"{x:.6f}"


def _cut(x: float | None) -> str:
    return "none" if x is None else f"{x:.6g}"


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    return x


def _label(r: TapkResult) -> str:
    return f"TAP-{r.k}" if r.k is not None else f"TAP@{_cut(r.cutoff)}"


def _text(path: str, lists: RetrievalLists, hib: bool, runs: list[TapkResult],
          roc: dict[str, Any] | None, curve: TapCurve | None) -> list[str]:
    out = [f"# {path}: {len(lists)} queries, {lists.scores.size} records, "
           f"{'higher scores' if hib else 'lower E-values'} are better"]
    width = max([5] + [len(q) for q in lists.ids])
    for r in runs:
        note = "  (fallback: too few lists have k errors)" if r.fallback_used else ""
        out.append(f"{_label(r)} = {_num(r.tap)}  cutoff {_cut(r.cutoff)}  "
                   f"median errors/query {r.median_fp}  quantile {r.quantile:g}{note}")
        out.append(f"  {'query':<{width}}  {'weight':>8}  {'T':>6}  {'within':>6}  {'errors':>6}  {'APCP':>8}")
        for q, w, t, n, fp, a in zip(r.ids, r.weights, r.n_relevant, r.n_within, r.fp_at_cutoff, r.apcp):
            out.append(f"  {q:<{width}}  {w:>8g}  {t:>6d}  {n:>6d}  {fp:>6d}  {_num(float(a)):>8}")
    if roc is not None:
        n = roc["n"]
        out.append(f"ROC_{n}: pooled {_num(roc['pooled'])}  mean over queries {_num(roc['mean'])}  "
                   f"MAP {_num(roc['map'])}")
        out.append(f"  {'query':<{width}}  {'AP':>8}  {'ROC_' + str(n):>8}")
        for q, ap, rc in zip(lists.ids, roc["ap"], roc["roc"]):
            out.append(f"  {q:<{width}}  {_num(float(ap)):>8}  {_num(float(rc)):>8}")
    if curve is not None:
        out.append(f"peak TAP = {_num(curve.peak_tap)} at cutoff E0* = {_cut(curve.peak_cutoff)} "
                   f"({curve.cutoffs.size} cutoffs)")
        out.append(f"  {'cutoff':>12}  {'TAP':>8}")
        out.extend(f"  {c:>12.6g}  {_num(float(t)):>8}" for c, t in zip(curve.cutoffs, curve.tap))
    return out


def _tsv(lists: RetrievalLists, runs: list[TapkResult], roc: dict[str, Any] | None,
         curve: TapCurve | None) -> list[str]:
    cols = ("measure", "k", "query", "weight", "T", "n_within", "errors", "value", "cutoff")
    out = ["\t".join(cols)]

    def row(*v: object) -> None:
        out.append("\t".join("" if x is None else (repr(x) if isinstance(x, float) else str(x)) for x in v))

    for r in runs:
        k = "" if r.k is None else r.k
        row("TAP", k, "", float(r.weights.sum()), "", "", r.median_fp, r.tap, r.cutoff)
        for q, w, t, n, fp, a in zip(r.ids, r.weights, r.n_relevant, r.n_within, r.fp_at_cutoff, r.apcp):
            row("APCP", k, q, float(w), int(t), int(n), int(fp), float(a), r.cutoff)
    if roc is not None:
        n = roc["n"]
        row(f"pooled_ROC_{n}", "", "", "", "", "", "", roc["pooled"], "")
        row(f"mean_ROC_{n}", "", "", "", "", "", "", roc["mean"], "")
        row("MAP", "", "", "", "", "", "", roc["map"], "")
        for q, w, t, ap, rc in zip(lists.ids, lists.weights, lists.n_relevant, roc["ap"], roc["roc"]):
            row("AP", "", q, float(w), int(t), "", "", float(ap), "")
            row(f"ROC_{n}", "", q, float(w), int(t), "", "", float(rc), "")
    if curve is not None:
        row("peak_TAP", "", "", "", "", "", "", curve.peak_tap, curve.peak_cutoff)
        for c, t in zip(curve.cutoffs, curve.tap):
            row("TAP_curve", "", "", "", "", "", "", float(t), float(c))
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``goeval tapk``; return the exit status."""
    hib = not args.evalue
    lists = read_retrieval_lists(args.file, higher_is_better=hib)
    weights = np.ones(len(lists)) if args.unweighted else None
    common = dict(higher_is_better=hib, quantile=args.quantile, weights=weights,
                  insufficient=args.insufficient, zero_relevant=args.zero_relevant)
    if args.threshold:
        runs = [tap_k(lists, None, threshold=x, **common) for x in args.threshold]
    else:
        runs = [tap_k(lists, k, **common) for k in args.k]
    roc = None
    if args.roc is not None:
        rc = roc_n_scores(lists, args.roc, higher_is_better=hib)
        ok = ~np.isnan(rc)
        roc = {
            "n": args.roc,
            "roc": rc,
            "ap": average_precision_lists(lists, higher_is_better=hib),
            "pooled": pooled_roc_n_score(lists, args.roc, higher_is_better=hib),
            "mean": float(rc[ok].mean()) if ok.any() else float("nan"),
            "map": mean_average_precision(lists, higher_is_better=hib, weights=weights),
        }
    curve = tap_curve(lists, higher_is_better=hib, weights=weights, zero_relevant=args.zero_relevant) \
        if args.curve else None
    if args.format == "json":
        doc: dict[str, Any] = {
            "file": str(args.file),
            "higher_is_better": hib,
            "n_queries": len(lists),
            "n_records": int(lists.scores.size),
            "runs": [r.as_dict() for r in runs],
        }
        if roc is not None:
            doc["roc"] = {
                "n": roc["n"], "pooled": _jsonable(roc["pooled"]), "mean": _jsonable(roc["mean"]),
                "map": _jsonable(roc["map"]),
                "queries": [{"query": q, "ap": _jsonable(float(a)), "roc": _jsonable(float(c))}
                            for q, a, c in zip(lists.ids, roc["ap"], roc["roc"])],
            }
        if curve is not None:
            doc["curve"] = {"cutoffs": _jsonable(curve.cutoffs), "tap": _jsonable(curve.tap),
                            "peak_tap": _jsonable(curve.peak_tap), "peak_cutoff": curve.peak_cutoff}
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    else:
        lines = _tsv(lists, runs, roc, curve) if args.format == "tsv" else \
            _text(str(args.file), lists, hib, runs, roc, curve)
        sys.stdout.write("\n".join(lines) + "\n")
    return 0
