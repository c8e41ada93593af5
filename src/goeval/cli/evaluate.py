"""``goeval evaluate``: protein-centric evaluation (Fmax, weighted Fmax, Smin...)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import time
from typing import Any
from pathlib import Path

from goeval.cli.common import (add_groups, add_plugin_argument, groups_from_args, add_ontology, add_option_fields, add_run_fields, cache_arg, options_from_args, report_lines,
                               run_options_from_args, run_output, say, say_run_output, show, show_warnings)
from goeval.cli.parsing import ExtendValues
from goeval.errors import GoevalError

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Protein-centric evaluation (Clark & Radivojac 2013; CAFA). Each prediction file is a method "
    "(directories are walked; README, logs and hidden folders are skipped and listed). "
    "Writes curves.tsv, summary.tsv, calibration.tsv, diagnostics.json and timings.json to --out."
)


def add_evaluation_options(p: argparse.ArgumentParser, out: str = "goeval_results") -> None:
    """The options of ``evaluate`` (and ``demo``, whose folder is ``out``) besides the inputs."""
    p.add_argument("--ia", metavar="IA.tsv", help="information accretion file term<TAB>ia (enables ru/mi/S and weighted measures)")
    p.add_argument("--ia-annotations", metavar="FILE", help="estimate IA from these annotations instead (pseudo-count --pseudocount)")
    p.add_argument("--out", default=out, metavar="DIR", help=f"output directory (default {out}/)")
    add_option_fields(p)
    # the library keeps every threshold; the command line writes thin curves unless told otherwise
    p.set_defaults(curves="thin")
    p.add_argument("--curves-gzip", action="store_true",
                   help="write the curves as curves.tsv.gz (gzip, reproducible bytes) instead of curves.tsv")
    p.add_argument("--dask", metavar="local:N|tcp://HOST:PORT",
                   help="evaluate the leaves (the units of work: runs of proteins of one method in one namespace) "
                        "on Dask: local:N starts a local cluster of N worker processes, an address uses a running "
                        "scheduler; the results are the same bits as without (needs the dask extra: pip install "
                        "'goeval[dask]')")
    p.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                   help="format of the summary printed on stdout (default: a table)")
    p.add_argument("--plots", action="store_true",
                   help="also draw the figures (DIR/plots/: Fig. 4 panels, coverage, optima) and write DIR/report.html "
                        "and DIR/report.md (needs the plot extra: pip install 'goeval[plot]')")
    p.add_argument("--layout", choices=("goeval", "cafaeval"), default="goeval",
                   help="cafaeval: also write CAFA-evaluator's evaluation_all.tsv and evaluation_best_<measure>.tsv "
                        "(its column names and order), for notebooks that read them")
    p.add_argument("--targets", metavar="LIST", help="benchmark proteins, one per line (e.g. no-knowledge targets)")
    add_groups(p, "depth[:1,3,7] (bins of the number of truth terms), taxa (a GAF truth's taxon column)")
    p.add_argument("--terms-of-interest", metavar="LIST", help="evaluate only these terms (one per line)")
    p.add_argument("--exclude-terms", metavar="LIST", help="remove these terms (one per line)")
    p.add_argument("--known", nargs="+", action=ExtendValues, metavar="FILE",
                   help="each protein's known terms (e.g. its t0 annotations, CAFA partial knowledge): removed, "
                        "propagated, from its truth and predictions")
    p.add_argument("--ic-annotations", nargs="+", action=ExtendValues, metavar="FILE",
                   help="annotations the information content of --similarity is estimated from (default: "
                        "--ia-annotations, else the truth, with a warning)")
    add_run_fields(p, ("preset", "stream", "threads", "bootstrap", "seed", "confidence", "pattern"))
    add_plugin_argument(p)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_ontology(p)
    p.add_argument("--truth", required=True, metavar="TRUTH", help="ground truth: protein<TAB>term or GAF")
    p.add_argument("--predictions", required=True, nargs="+", action=ExtendValues, metavar="FILE_OR_DIR",
                   help="prediction files or directories")
    add_evaluation_options(p)


def _check_before_work(args: argparse.Namespace, ontology: str, truth: str):  # noqa: ANN202 - (options, files)
    """Options, every input and the output directory, before anything is parsed."""
    from goeval.io.files import check_input, check_inputs, check_output_dir
    from goeval.io.paths import find_prediction_files

    run = run_options_from_args(args)  # validated here, before any work; evaluate receives it whole
    args.threads, args.bootstrap, args.seed, args.confidence = run.threads, run.bootstrap, run.seed, run.confidence
    opts = options_from_args(args, with_ia=bool(args.ia or args.ia_annotations))
    if getattr(args, "dask", None):
        from goeval.evaluation.parallel import parse_dask_address, require_distributed

        parse_dask_address(args.dask)
        require_distributed()
    check_inputs(ontology=ontology, truth=truth, ia=args.ia, ia_annotations=args.ia_annotations, targets=args.targets,
                 terms_of_interest=args.terms_of_interest, excluded_terms=args.exclude_terms, known=args.known,
                 ic_annotations=args.ic_annotations)
    found = find_prediction_files(args.predictions, args.pattern)
    for path in found.files.values():
        check_input(path, "prediction")
    check_output_dir(args.out, ("plots",) if getattr(args, "plots", False) else ())
    return opts, found


def run_evaluation(args: argparse.Namespace, ontology: str, truth: str, predictions: list[str]) -> int:
    t0 = time.perf_counter()
    args.predictions = predictions
    opts, found = _check_before_work(args, ontology, truth)
    # While this process is still small, start the first prediction file's read and the ontology's parse
    # (forked children for large inputs; a compiled-cache hit skips the parse). The reader reads the truth
    # first and parses only its proteins' lines; the other files are read meanwhile (goeval.evaluate). A large
    # file's reader sends its rows in batches, evaluated as they come, unless groups evaluate them several times.
    from goeval.io.predictions import start_read_predictions
    from goeval.io.readers import BATCH_ROWS

    files: dict = dict(found.files)
    started = []
    try:
        first = next(iter(files), None)
        truths = [truth] if isinstance(truth, (str, Path)) else list(truth)
        # (not with --dask: with enough workers each file is read by the worker that evaluates it)
        if first is not None and not getattr(args, "stream", False) and not getattr(args, "dask", None) \
                and all(map(_regular, truths)):
            grouped = getattr(args, "groups", None) or getattr(args, "groups_from", None)
            files[first] = start_read_predictions(files[first], truth=truth, batch_rows=None if grouped else BATCH_ROWS)
            started.append(files[first])
        from goeval.io.ontology_cache import start_ontology

        pending = start_ontology(ontology, opts.relations, cache_arg(args))
        started.append(pending)
        return _evaluate_and_write(args, opts, pending, truth, files, found, t0)
    finally:
        for s in started:
            s.cancel()


def _regular(path: Any) -> bool:
    """Whether ``path`` is a regular file: one that two readers can both read (not a FIFO such as ``<(zcat ...)``)."""
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _evaluate_and_write(args, opts, pending, truth, files, found, t0) -> int:  # noqa: ANN001
    from dataclasses import replace

    from goeval.api import evaluate
    from goeval.diagnostics import package_versions
    from goeval.report.save import save_results

    show_warnings()
    with dask_context(args) as executor:
        # the options resolved (preset included) and the files found (pattern applied) once, here
        run = replace(run_options_from_args(args), executor=executor, preset=None, pattern=None)
        res = evaluate(pending, truth, files, options=opts, run=run, ia=args.ia, ia_annotations=args.ia_annotations,
                       targets=args.targets, terms_of_interest=args.terms_of_interest,
                       excluded_terms=args.exclude_terms, known=args.known, ic_annotations=args.ic_annotations,
                       groups=_groups(args, truth, pending), allow_empty=True)  # said below, with the counts
    streamed = res.diagnostics.get("streaming", {}).get("streamed")
    if streamed:
        say(args, f"streamed in batches: {', '.join(streamed)}")
    diag = res.diagnostics
    for stage, seconds in pending.record.timings.items():  # the cache's use: timings.json and the console
        diag.add_timing(stage, seconds)
    logging.getLogger("goeval.cli").debug(pending.record.describe())  # its stage line said where it came from
    _warn_stale_ontology(diag, pending())
    diag["command"] = list(getattr(args, "_argv", []))
    diag["versions"] = package_versions()  # also in an API run's save(); here before the checks below
    if diag.get("nothing_evaluated"):
        report_lines(args, diag)
        raise GoevalError(f"nothing was evaluated: {diag['nothing_evaluated']}; no result was written.")
    if found.skipped:
        diag["skipped_files"] = [(str(p), why) for p, why in found.skipped]
    records = list(res.summary_records)
    if getattr(args, "preset", None) == "cafa5":
        records += _cafa5(args, res)
    extra = None
    if args.layout == "cafaeval":
        from goeval.compat import cafaeval_frames
        from goeval.io.cafaeval_layout import cafaeval_layout_tables

        df, best = cafaeval_frames(res)
        extra = cafaeval_layout_tables(df, best) if df is not None else None
    columns = list(res.summary_columns)
    t_write = time.perf_counter()
    with run_output(args, args.out) as run:  # the files an API run's save() writes, and what the command adds
        paths = save_results(res, args.out, records=records, extra_tables=extra, files=run,
                             timings={**diag.timings, "total before writing": t_write - t0},
                             curves_gzip=getattr(args, "curves_gzip", False))
    report_lines(args, diag)
    say_run_output(args, run)
    if diag.get("curves", {}).get("thinned"):
        say(args, _thinned_line(diag["curves"]))
    if getattr(args, "plots", False):
        write_figures(args, Path(args.out))
    show(args, _printed_summary(records, args.format, columns))
    if args.format == "table" and getattr(res, "groups", None):
        from goeval.report.text import format_group_table

        show(args, "", format_group_table(res))
    if args.format == "table":
        from goeval.report.text import cafaeval_note

        show(args, *cafaeval_note({r["measure"] for r in records}, opts.thresholds, getattr(args, "preset", None)))
    written = [Path(p).name for k, p in paths.items() if not k.startswith("groups/")]
    if getattr(res, "groups", None):
        written.append(f"groups/ ({len(res.groups)} groups)")
    say(args, f"results in {Path(args.out)}/ ({', '.join(written)}); "
        f"{time.perf_counter() - t0:.2f} s (writing {time.perf_counter() - t_write:.2f} s)")
    return 0


def _groups(args: argparse.Namespace, truth: Any, pending: Any) -> Any:
    """``--groups`` / ``--groups-from`` (depth: from the truth, read here once more; taxa: a GAF truth's)."""
    from goeval.io.kinds import FileKind, sniff

    if not getattr(args, "groups", None) and not getattr(args, "groups_from", None):
        return None
    depth = taxa = None
    if str(args.groups_from or "").startswith("depth"):
        from goeval.inputs import load_annotations

        depth = load_annotations(truth, pending())
    if str(args.groups_from or "").startswith("taxa") and isinstance(truth, (str, Path)) and sniff(truth) is FileKind.GAF:
        taxa = truth
    return groups_from_args(args, depth=depth, taxa=taxa)


def _warn_stale_ontology(diag, onto) -> None:  # noqa: ANN001 - Diagnostics, Ontology
    """Warn when many unknown terms look like ids of a newer release of the ontology (:mod:`goeval.hints`)."""
    from goeval.hints import stale_ontology_hint

    hint = stale_ontology_hint(diag, onto.ids, onto.source, onto.data_version)
    if hint:
        diag.warn(f"{hint}.")


def _thinned_line(cur: dict) -> str:  # noqa: ANN001
    """One line saying how the curves were thinned (``diagnostics["curves"]``)."""
    from goeval.report.text import plural

    needed = "curve needed" if cur["capped"] == 1 else "curves needed"
    capped = (f"; {cur['capped']} {needed} more than {cur['max_points']} rows for the tolerance and "
              f"{'was' if cur['capped'] == 1 else 'were'} cut at that cap (largest deviation "
              f"{max(b['max_deviation'] for b in cur['blocks'] if b['capped']):.3g})" if cur["capped"] else "")
    return (f"curves thinned: {cur['thinned']} of {plural(len(cur['blocks']), 'curve')}, "
            f"{plural(cur['rows'], 'row')} -> "
            f"{cur['written']:,} written (at most {cur['max_points']} per curve, within {cur['tolerance']:g} of each "
            f"column's range; optima and end points kept){capped}; --curves full writes every threshold")


def dask_context(args: argparse.Namespace):  # noqa: ANN202 - a context manager of an executor or None
    """The Dask executor of ``--dask`` (closed, cluster stopped, when the run ends), or None."""
    if not getattr(args, "dask", None):
        return contextlib.nullcontext(None)
    from goeval.evaluation.parallel import dask_executor

    say(args, f"evaluating on Dask ({args.dask})")
    return dask_executor(args.dask)


def write_figures(args: argparse.Namespace, out: Path) -> None:
    """The figures (``out/plots/``) and the report (``out/report.html``, ``.md``) of a results directory."""
    try:
        from goeval.report.style import require_matplotlib

        require_matplotlib()
    except Exception as exc:  # noqa: BLE001 - the figures are an extra: say why they are missing
        say(args, f"no figures: {exc}")
        return
    from goeval.report import save_plots, save_report

    figures = save_plots(out)
    page = save_report(out)
    from goeval.report.text import plural

    say(args, f"figures in {out / 'plots'}/ ({plural(len(figures), 'file')}); report: "
              f"{', '.join(str(p) for p in page.values())}")


def _cafa5(args: argparse.Namespace, res) -> list:  # noqa: ANN001
    """The CAFA 5 score rows (namespace ``all``), said on the console too."""
    from goeval.compat import cafa5_records, cafa5_score

    rows = cafa5_records(res)
    for r in rows:
        _score, per = cafa5_score(res, r["method"])
        parts = ", ".join(f"{ns} {v:.4f}" for ns, v in per.items())
        say(args, f"CAFA 5 score of {r['method']}: {r['value']:.4f} (mean weighted Fmax over {parts})")
    return rows


def _printed_summary(records: list, fmt: str, columns) -> str:  # noqa: ANN001
    """The summary for stdout: a table, ``summary.tsv``'s text, or JSON records."""
    if fmt == "json":
        import json

        from goeval.io.results import jsonable

        return json.dumps(jsonable([{c: r.get(c) for c in columns} for r in records]), indent=1)
    if fmt == "tsv":
        from goeval.io.results import format_cell

        return "\n".join(["\t".join(columns)] + ["\t".join(format_cell(r.get(c)) for c in columns) for r in records])
    from goeval.report.text import format_summary

    return format_summary(records)


def run(args: argparse.Namespace) -> int:
    return run_evaluation(args, args.ontology, args.truth, args.predictions)
