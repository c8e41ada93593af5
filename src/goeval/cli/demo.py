"""``goeval demo``: the whole pipeline on the bundled real example (CAFA2 MFO)."""

from __future__ import annotations

import argparse

from goeval.cli.common import say
from goeval.cli.evaluate import add_evaluation_options, run_evaluation
from goeval.data import example_path

DESCRIPTION = (
    "Runs goeval evaluate on the bundled CAFA2 molecular-function no-knowledge slice (MIT licence): "
    "ontology, ground truth of 421 targets, the BLAST baseline BB4S and CAFA2's information accretion. "
    "Published CAFA-evaluator values at step 0.01: Fmax 0.486 at tau 0.46, weighted Fmax 0.407."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_evaluation_options(p, out="goeval_demo")


def run(args: argparse.Namespace) -> int:
    args.plots = True  # the demo always draws its figures and report (when matplotlib is installed)
    if not hasattr(args, "thresholds") and not args.preset:
        args.thresholds = 0.01  # the grid of the published values
    if args.ia is None and args.ia_annotations is None:
        args.ia = str(example_path("ia"))
    say(args, f"goeval demo: CAFA2 MFO no-knowledge targets, BLAST baseline BB4S (thresholds: {getattr(args, 'thresholds', args.preset)})")
    return run_evaluation(args, str(example_path("ontology")), str(example_path("truth")), [str(example_path("predictions"))])
