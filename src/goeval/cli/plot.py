"""``goeval plot``: the figures of a results directory."""

from __future__ import annotations

import argparse

from goeval.cli.common import add_figure_arguments, add_plugin_argument, say, say_notes, say_unregistered

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Draws the figures of a results directory written by goeval evaluate, retrieval or benchmark cv: per namespace "
    "the four panels of Clark & Radivojac (2013) Fig. 4 (precision-recall, weighted precision-recall, ru-mi and "
    "weighted ru-mi in bits, each curve marked at its optimum, iso-F and iso-S contours) as one figure and one file "
    "per panel, coverage against the score threshold, Fmax and Smin bars (with bootstrap intervals when computed) and "
    "TAP against the cutoff when retrieval curves are present; the figures CAFA papers print: per namespace the "
    "--top best methods by Fmax, weighted Fmax and Smin with their intervals, the baselines apart (top_NS), F "
    "against k for rank thresholds (rank_NS), and a methods x groups heat map of each of those measures with the "
    "groups' sizes for a result evaluated per group (groups_MEASURE); a time split's per kind (nk_...). Needs "
    "matplotlib (pip install 'goeval[plot]')."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", metavar="RESULTS_DIR", help="directory of curves.tsv, summary.tsv (and tap_curve.tsv ...)")
    p.add_argument("--format", choices=("png", "svg", "pdf"), default="png", help="figure format (default png)")
    p.add_argument("--out", metavar="DIR", help="output directory (default RESULTS_DIR/plots)")
    p.add_argument("--no-panels", dest="panels", action="store_false",
                   help="only the four-panel figure per namespace, not one file per panel")
    add_figure_arguments(p)
    add_plugin_argument(p)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from goeval.io.files import check_output_dir
    from goeval.io.results_dir import read_results_dir
    from goeval.progress import set_enabled
    from goeval.report.style import require_matplotlib

    if getattr(args, "quiet", False):
        set_enabled(False)
    require_matplotlib()
    res = read_results_dir(args.results)
    say_notes(res)
    say_unregistered(res)
    out = Path(args.out) if args.out else res.path / "plots"
    check_output_dir(Path(args.out) if args.out else res.path, () if args.out else ("plots",))

    from goeval.report.save import save_plots

    written = save_plots(res, args.out, args.format, panels=args.panels, top=args.top, baselines=args.baselines)
    from goeval.report.text import plural

    say(args, f"wrote {plural(len(written), 'figure')} to {out}/ ({', '.join(sorted(written))})")
    return 0
