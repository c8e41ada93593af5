"""``goeval metric-check``: which measures can be gamed on this benchmark (the Artificial Dilution Series).

Writes into ``--out``, as one set listed in ``manifest.json``::

    metric_check.tsv         one row per (namespace, measure): RC, FPS (highest over the FP sets), FPS per FP set,
                             medians at signal 0 and 1, the FP sets' values; sorted by FPS
    metric_check_values.tsv  every set's value of every measure (the figure's points)
    diagnostics.json         the construction's counts, the measures not rated and why, the evaluation's diagnostics

``goeval plot DIR`` draws each measure against the signal level (``metric_check_<NS>``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from goeval.cli.parsing import ExtendValues
from goeval.cli.common import (add_ontology, add_option_fields, add_run_fields, positive_int, read_annotations,
                               read_ontology, run_output, say, say_run_output, show)

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Rates every registered protein-centric measure (those of a plugin too) on this benchmark with the Artificial "
    "Dilution Series of Plyusnin, Holm & Toronen (2019): prediction sets of known signal level made from the truth "
    "by shuffling terms between proteins (--levels, --replicates, --seed), and false-positive sets (naive, "
    "all-positive, random). RC: Spearman correlation of a measure with the signal (1 is best); FPS: the signal "
    "level at which a false-positive set scores (0 is best). Writes metric_check.tsv (sorted by FPS), "
    "metric_check_values.tsv and diagnostics.json; goeval plot draws each measure against the signal. The "
    "construction: docs/metric_check.md."
)


def _levels(text: str) -> list[float]:
    """``0,0.5,1`` -> signal levels (numbers in [0, 1]); a repeated ``--levels`` adds its levels, and the run
    refuses fewer than two or levels not increasing (``goeval.benchmarks.ads.metric_check``)."""
    try:
        levels = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers in [0, 1]; got {text!r}") from None
    if any(not 0 <= x <= 1 for x in levels):
        raise argparse.ArgumentTypeError(f"expected signal levels in [0, 1]; got {text!r}")
    return levels


def add_arguments(p: argparse.ArgumentParser) -> None:
    from goeval.benchmarks.ads import LEVELS

    add_ontology(p)
    p.add_argument("--truth", required=True, metavar="FILE", help="the benchmark's ground truth (protein<TAB>term or GAF)")
    p.add_argument("--ia", metavar="FILE", help="information accretion (term<TAB>ia): rates the measures that need it")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--levels", type=_levels, action=ExtendValues, default=list(LEVELS), metavar="S1,S2,...",
                   help="signal levels (default 0,0.1,...,1)")
    p.add_argument("--replicates", type=positive_int, default=5, metavar="N",
                   help="prediction sets per signal level, each from its own permutation (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the construction (default 0): the same seed, the same sets")
    add_run_fields(p, ("threads",))
    add_option_fields(p)


def _options(args: argparse.Namespace) -> Any:
    """The evaluation options given; every similarity measure with every pairing unless --similarity is given, every
    optional measure unless --measures is given."""
    from dataclasses import replace

    from goeval.cli.common import options_from_args
    from goeval.options import OPTIONAL_MEASURES, PAIRING_NAMES, SIMILARITY_NAMES

    opts = options_from_args(args, with_ia=args.ia is not None)
    if not hasattr(args, "similarity"):
        opts = replace(opts, similarity=SIMILARITY_NAMES,
                       pairings=opts.pairings if hasattr(args, "pairings") else PAIRING_NAMES)
    if not hasattr(args, "measures"):
        opts = replace(opts, measures=OPTIONAL_MEASURES)
    return opts


def format_check_table(table: Any) -> str:
    """The console table: per namespace, each measure's RC and FPS (overall and per FP set), sorted by FPS."""
    from goeval.benchmarks.ads import FP_SETS
    from goeval.report.text import format_table

    def cell(v: float) -> str:
        return "nan" if v != v else f"{v:.3f}"

    rows = [[r["namespace"], r["label"], cell(r["rc"]), cell(r["fps"]), *(cell(r[f"fps_{s}"]) for s in FP_SETS)]
            for r in table.to_dict("records")]
    return format_table(rows, ["namespace", "measure", "RC", "FPS", *(f"FPS {s.replace('_', '-')}" for s in FP_SETS)])


def run(args: argparse.Namespace) -> int:
    from goeval.benchmarks.ads import metric_check
    from goeval.cli.benchmark import provenance
    from goeval.inputs import load_ia
    from goeval.io.files import check_input, check_output_dir
    from goeval.io.results import write_frames
    from goeval.progress import stage
    from goeval.report.text import plural

    from goeval.benchmarks.ads import check_levels

    t0 = time.perf_counter()
    check_levels(args.levels)  # before any input is read
    opts = _options(args)
    for path, what in ((args.ontology, "ontology"), (args.truth, "truth"), (args.ia, "IA")):
        if path is not None:
            check_input(path, what)
    check_output_dir(args.out)
    onto = read_ontology(args)
    truth = read_annotations(args, args.truth, onto, "truth")
    ia = None if args.ia is None else load_ia(args.ia, onto)[0]
    with stage("diluting the truth and evaluating every set") as st:
        check = metric_check(onto, truth, ia=ia, levels=args.levels, replicates=args.replicates, seed=args.seed,
                             options=opts, threads=args.threads)
        st.note = (f"{plural(len(args.levels) * args.replicates, 'AP set')} and 3 FP sets, "
                   f"{plural(check.table['measure'].nunique(), 'measure')} rated")
    diag = {**check.diagnostics, "truth": truth.diagnostics, **provenance(args)}
    for name, why in diag["not_rated"].items():
        say(args, f"{name}: not rated ({why})")
    with run_output(args, args.out) as out:
        write_frames(args.out, {"metric_check.tsv": check.table, "metric_check_values.tsv": check.values},
                     {"diagnostics.json": diag}, files=out)
    say_run_output(args, out)
    show(args, format_check_table(check.table))
    say(args, f"results in {Path(args.out)}/ ({time.perf_counter() - t0:.1f} s)")
    return 0
