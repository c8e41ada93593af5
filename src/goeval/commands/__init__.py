"""Subcommands of the ``goeval`` command, one module each.

Each module defines ``add_arguments(parser)`` and ``run(args) -> int`` (and
optionally ``DESCRIPTION``); its one-line help is declared once, here, so
that ``goeval --help`` lists every command without importing any of them.
"""

#: Command name -> one-line help, in the order ``goeval --help`` lists them.
COMMANDS: dict[str, str] = {
    "demo": "evaluate the bundled CAFA2 MFO BLAST baseline (no arguments needed)",
    "evaluate": "evaluate predictions against a ground truth: curves, Fmax, weighted Fmax, Smin",
    "info": "summarize an ontology: terms, roots, edges, alt_ids, obsolete terms per namespace",
    "ia": "estimate information accretion ia(v) = -log2 Pr(v | parents) from annotations",
    "propagate": "propagate annotations (ancestor closure) or predictions (max / fill) through the ontology",
    "retrieval": "term-centric evaluation: TAP-k per GO term, AUC of interpolated P/R, ROC AUC and AP",
    "tapk": "TAP-k (and ROC_n, MAP, TAP curve) of retrieval lists in the reference tool's format",
    "biocreative": "validate a BioCreative II.5 result file and compute its AUC of the interpolated P/R curve",
    "baseline": "baseline predictions: naive, blast, gotcha, diamondscore, knn-identity",
    "align": "align protein sequences with DIAMOND or BLAST+ and write a hit table",
    "benchmark": "benchmarks of the baselines: k-fold cross-validation (Clark & Radivojac 2013) and CAFA time splits",
    "compare": "paired comparison of methods: bootstrap interval of the difference, win fractions (duels), "
               "permutation p-value with Holm's correction",
    "plot": "figures of a results directory: Clark & Radivojac Fig. 4 panels, coverage, Fmax/Smin with CIs, "
            "TAP vs cutoff",
    "report": "one self-contained HTML page and a Markdown summary of a results directory: rankings, CIs, "
              "figures, diagnostics",
}
