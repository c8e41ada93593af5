"""``goeval report``: one self-contained HTML page (and a Markdown summary) of a results directory."""

from __future__ import annotations

import argparse

from goeval.cli.common import add_figure_arguments, add_plugin_argument, check_measure_names, comma_list, say, say_notes, say_unregistered

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Writes one HTML page that needs nothing else (tables as HTML, figures embedded as data URIs, no external "
    "style, script or font: it opens offline) and a Markdown summary beside it. After its contents: the headline, "
    "(kind of target x) namespace x method of Fmax, weighted Fmax, Smin and coverage with bootstrap intervals when "
    "present, the best values in bold, and per namespace the --top best methods as bars beside the baselines; "
    "the paired comparison of the methods (differences, intervals, p-values) "
    "when RESULTS_DIR holds protein_stats.npz (goeval evaluate --bootstrap), with the run's resamples and seed; "
    "per namespace the methods ranked by each measure beside its figure (and F against k for rank thresholds); "
    "methods x groups heat maps for a result evaluated per group; the other measures; retrieval and "
    "Table 1 when present; what was read, remapped and dropped; the options, inputs and versions that produced "
    "the results. Without matplotlib the page has no figures. See docs/report.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", metavar="RESULTS_DIR", help="directory of curves.tsv, summary.tsv, diagnostics.json ...")
    p.add_argument("--out", metavar="report.html", help="the HTML page (default RESULTS_DIR/report.html); "
                                                        "the Markdown summary takes the same name with .md")
    p.add_argument("--no-markdown", dest="markdown", action="store_false", help="do not write the Markdown summary")
    p.add_argument("--title", help="page title (default: goeval results: <directory name>)")
    p.add_argument("--compare", type=comma_list, action="extend", metavar="MEASURE[,MEASURE]",
                   help="measures of the paired comparison, made when RESULTS_DIR holds protein_stats.npz "
                        "(default fmax; repeat or give a list: --compare fmax,wfmax,smin)")
    p.add_argument("--no-compare", dest="compare", action="store_const", const=[],
                   help="no paired comparison, even with protein_stats.npz")
    add_figure_arguments(p)
    add_plugin_argument(p)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from goeval.io.files import check_output_file
    from goeval.io.results_dir import read_results_dir
    from goeval.progress import set_enabled
    from goeval.report.comparison import COMPARED_MEASURES, compared_measures

    if getattr(args, "quiet", False):
        set_enabled(False)
    asked = COMPARED_MEASURES if args.compare is None else args.compare
    check_measure_names(asked, args.results)  # a plugin's measure not loaded: named with the plugin to load
    compare = compared_measures(asked)  # before any reading
    res = read_results_dir(args.results)
    say_notes(res)
    say_unregistered(res)
    out = Path(args.out) if args.out else res.path / "report.html"
    check_output_file(out)
    try:
        import matplotlib  # noqa: F401 - optional (plot extra): only whether it is installed
    except ImportError:
        say(args, "matplotlib is not installed: the report has tables but no figures (pip install 'goeval[plot]')")

    from goeval.report.save import save_report

    written = save_report(res, out, markdown=args.markdown, title=args.title, compare=compare, top=args.top,
                          baselines=args.baselines)
    say(args, "wrote " + ", ".join(str(p) for p in written.values()))
    return 0
