"""``goeval cafa6``: a CAFA 6 submission scored against NK, LK and PK targets, with the final score."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from goeval.cli.common import (add_ontology, add_plugin_argument, groups_from_args, add_option_fields, add_run_fields, read_ontology, options_from_args,
                               run_options_from_args, run_output, say, say_run_output, show, show_warnings)
from goeval.cli.parsing import ExtendValues

DESCRIPTION = (
    "The Kaggle CAFA 6 score (cafa6_metric_final): each kind of target (no-, limited-, partial-knowledge) is one "
    "evaluation with the cafa6 preset (CAFA-evaluator-PK's settings: max propagation, its counting of partial "
    "knowledge, thresholds np.arange(0.001, 1, 0.001); IA required; PK with its known terms), then the weighted "
    "Fmax of MF, BP and CC is averaged per kind and the three kinds are averaged. Writes DIR/cafa6.tsv (the nine "
    "values, the three means and the final score), DIR/diagnostics.json and one results directory per kind "
    "(DIR/NK/, DIR/LK/, DIR/PK/, as goeval evaluate writes them). See docs/cafa6.md."
)

_KIND_FLAGS = (("NK", "--truth-nk", "no-knowledge"), ("LK", "--truth-lk", "limited-knowledge"),
               ("PK", "--truth-pk", "partial-knowledge"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--ia", required=True, metavar="IA.tsv", help="the organizers' information accretion, term<TAB>ia")
    for kind, flag, what in _KIND_FLAGS:
        p.add_argument(flag, nargs="+", action=ExtendValues, metavar="FILE", dest=f"truth_{kind.lower()}",
                       help=f"ground truth of the {what} targets ({kind}): protein<TAB>term (a header and further "
                            "columns are ignored); several files are merged")
    p.add_argument("--known", nargs="+", action=ExtendValues, metavar="FILE",
                   help="the known terms of the PK targets (e.g. their earlier annotations), removed with their "
                        "ancestors from the PK truth and predictions")
    p.add_argument("--predictions", required=True, nargs="+", action=ExtendValues, metavar="SUBMISSION",
                   help="submission files (each one a method; directories are walked); free-text 'Text' lines are "
                        "skipped and counted")
    p.add_argument("--terms-of-interest", metavar="LIST", help="score only these terms (one per line), every kind")
    p.add_argument("--measure", choices=("cafa6_metric_final", "cafa6_metric_final_micro"),
                   default="cafa6_metric_final",
                   help="the final score from the weighted Fmax (CAFA-evaluator-PK's f_w, the Evaluation page's text; "
                        "default) or from the micro-averaged one (f_micro_w)")
    p.add_argument("--out", default="goeval_cafa6", metavar="DIR", help="output directory (default goeval_cafa6/)")
    p.add_argument("--format", choices=("table", "tsv"), default="table", help="the score printed on stdout")
    add_option_fields(p)
    p.set_defaults(curves="thin", preset="cafa6")
    add_run_fields(p, ("stream", "threads", "bootstrap", "seed", "confidence", "pattern"))
    add_plugin_argument(p)
    p.add_argument("--groups", metavar="FILE",
                   help="score every group of proteins too (protein<TAB>group lines; a protein may be in several "
                        "groups): each group's score is that of its targets alone, over the kinds where it has "
                        "targets (groups.tsv, the final score per group on the console)")
    p.add_argument("--dask", metavar="local:N|tcp://HOST:PORT",
                   help="score the submissions on Dask, one submission per task (read and scored for every kind on "
                        "a worker): local:N starts a local cluster of N worker processes, an address uses a running "
                        "scheduler; the same scores as without (needs the dask extra: pip install 'goeval[dask]')")


def _check(args: argparse.Namespace) -> tuple[Any, dict[str, list[str]]]:
    """Options, inputs and the output directory, before anything is read."""
    from goeval.errors import InvalidParameterError
    from goeval.io.files import check_inputs, check_output_dir

    run = run_options_from_args(args)
    args.threads, args.bootstrap, args.seed, args.confidence = run.threads, run.bootstrap, run.seed, run.confidence
    opts = options_from_args(args, with_ia=True)
    truths = {kind: getattr(args, f"truth_{kind.lower()}") for kind, _, _ in _KIND_FLAGS}
    truths = {k: v for k, v in truths.items() if v}
    if not truths:
        raise InvalidParameterError("goeval cafa6 needs the ground truth of at least one kind of target: "
                                    "--truth-nk, --truth-lk, --truth-pk.")
    if args.known and "PK" not in truths:
        raise InvalidParameterError("--known gives the known terms of the PK targets: give --truth-pk too.")
    check_inputs(ontology=args.ontology, truth=[f for v in truths.values() for f in v], ia=args.ia, known=args.known,
                 terms_of_interest=args.terms_of_interest)
    check_output_dir(args.out)
    return opts, truths


def run(args: argparse.Namespace) -> int:
    from goeval.compat.cafa6 import cafa6_eval

    t0 = time.perf_counter()
    show_warnings()
    opts, truths = _check(args)
    from goeval.cli.evaluate import dask_context

    with dask_context(args) as executor:  # one submission per task, the ontology loaded on the workers
        onto = args.ontology if executor is not None else read_ontology(args, opts.relations)
        res = cafa6_eval(onto, truths, args.predictions, ia=args.ia, known=args.known,
                         terms_of_interest=args.terms_of_interest, measure=args.measure, options=opts,
                         bootstrap=args.bootstrap, seed=args.seed, confidence=args.confidence, threads=args.threads,
                         stream=args.stream, pattern=args.pattern, executor=executor,
                         groups=groups_from_args(args))
    from goeval.report.text import format_report

    for kind, kres in res.kinds.items():
        say(args, *(f"{kind}: {line}" for line in format_report(kres.diagnostics)))
    paths = _write(args, res, time.perf_counter() - t0)
    show(args, _printed(res, args.format))
    if res.groups and args.format == "table":
        show(args, "", _group_scores(res))
    say(args, f"results in {Path(args.out)}/ (cafa6.tsv, leaderboard.tsv, {'groups.tsv, ' if res.groups else ''}"
        f"diagnostics.json, "
        f"{', '.join(k + '/' for k in res.kinds)}); "
        f"{time.perf_counter() - t0:.2f} s")
    return 0 if paths else 1


def _write(args: argparse.Namespace, res: Any, seconds: float) -> dict[str, Path]:
    """``cafa6.tsv``, ``diagnostics.json`` and one results directory per kind, as one set."""
    from goeval.diagnostics import package_versions
    from goeval.compat.cafa6 import CAFA6_COLUMNS, cafa6_leaderboard
    from goeval.evaluation import SUMMARY_COLUMNS
    from goeval.io.results import ResultFiles, write_result_tree
    from goeval.report.save import group_parts
    from goeval.stats.bootstrap import BOOTSTRAP_COLUMNS

    parts = {}
    for kind, kres in res.kinds.items():
        diag = kres.diagnostics
        diag["command"] = list(getattr(args, "_argv", []))
        arrays = None
        if args.bootstrap is not None:
            from goeval.stats.store import PROTEIN_STATS_FILE, protein_stats_arrays

            arrays = {PROTEIN_STATS_FILE: protein_stats_arrays(kres.stats, diag.get("options", {}))}
        columns = list(getattr(kres, "summary_columns", SUMMARY_COLUMNS))
        parts[kind] = ResultFiles(curves=kres.curve_columns, summary=kres.summary_records, summary_columns=columns,
                                  diagnostics=diag, timings=dict(diag.timings), extra_arrays=arrays,
                                  curves_gzip=getattr(args, "curves_gzip", False),
                                  calibration=getattr(kres, "calibration_columns", None))
        parts.update(group_parts(kres, kind, getattr(args, "curves_gzip", False)))  # KIND/groups/NAME/
    columns = list(CAFA6_COLUMNS) + (list(BOOTSTRAP_COLUMNS) if args.bootstrap is not None else [])
    table = [{c: r.get(c) for c in columns} for r in res.records]
    top = dict(res.diagnostics, command=list(getattr(args, "_argv", [])), versions=package_versions())
    tables = {"cafa6.tsv": table, "leaderboard.tsv": cafa6_leaderboard(res.records)}
    if res.groups:  # every group's score table, a group column after the method (all: every target)
        parts_of = [("all", res), *res.groups.items()]
        tables["groups.tsv"] = [{"method": r["method"], "group": name, **{c: r.get(c) for c in columns[1:]}}
                                for name, gres in parts_of for r in gres.records]
    with run_output(args, args.out) as run:
        paths = write_result_tree(args.out, parts, tables, {"diagnostics.json": top}, files=run)
    say_run_output(args, run)
    return paths


def _group_scores(res: Any) -> str:
    """Per group (with its targets per kind), each submission's final score."""
    from goeval.report.text import format_table

    methods = res.methods
    rows = []
    for name, gres in [("all", res), *res.groups.items()]:
        targets = ", ".join(f"{k} {sum(v.values()):,}" for k, v in gres.diagnostics.get("targets", {}).items())
        finals = {r["method"]: r["value"] for r in gres.records if r["kind"] == "all"}
        rows.append([name, targets] + [f"{finals[m]:.4f}" if m in finals else "-" for m in methods])
    return format_table(rows, ["group", "targets", *methods]) + f"\n({res.measure} per group)"


def _printed(res: Any, fmt: str) -> str:
    """The score on stdout: per method a kinds x namespaces grid with the means and the final score."""
    if fmt == "tsv":
        from goeval.io.results import format_cell

        cols = list(res.records[0]) if res.records else []
        return "\n".join(["\t".join(cols)] + ["\t".join(format_cell(r[c]) for c in cols) for r in res.records])
    from goeval.report.text import format_table

    if len(res.methods) > _GRIDS:
        return _leaderboard_text(res)
    blocks = []
    for method in res.methods:
        rows = [r for r in res.records if r["method"] == method]
        labels = list(dict.fromkeys(r["namespace"] for r in rows if r["namespace"] not in ("mean", "all")))
        value = {(r["kind"], r["namespace"]): r for r in rows}
        lines = []
        for kind in res.kinds:
            lines.append([kind, *(_cell(value.get((kind, ns))) for ns in labels), _cell(value.get((kind, "mean")))])
        final = value[("all", "all")]
        lines.append(["final", *([""] * len(labels)), _cell(final)])
        cell = rows[0]["measure"]
        blocks.append(f"{method}: {final['measure']} = {final['value']:.4f} (mean over kinds of the mean {cell} "
                      "over namespaces)\n" + format_table(lines, ["kind", *labels, "mean"]))
    return "\n\n".join(blocks)


#: Methods shown each as a grid of kinds x namespaces; with more, the leaderboard (every grid is in cafa6.tsv).
_GRIDS = 3


def _leaderboard_text(res: Any) -> str:
    """One line per submission, best first (``leaderboard.tsv``)."""
    from goeval.compat.cafa6 import cafa6_leaderboard
    from goeval.report.text import format_table

    board = cafa6_leaderboard(res.records)
    kinds = list(res.kinds)
    lines = [[str(r["rank"]), r["method"], _cell(r), *(f"{r[k]:.4f}" if r[k] == r[k] else "" for k in kinds)]
             for r in board]
    measure = board[0]["measure"] if board else ""
    return (f"{len(board)} submissions by {measure} (the grids of each are in cafa6.tsv):\n"
            + format_table(lines, ["rank", "method", measure, *kinds]))


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return ""
    text = f"{r['value']:.4f}"
    lo, hi = r.get("ci_low"), r.get("ci_high")
    return text if lo is None or lo != lo else f"{text} [{lo:.4f}, {hi:.4f}]"
