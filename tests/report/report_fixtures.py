"""Shared fixture of the report tests: a two-method result of the bundled example (BLAST and naive, with bootstrap intervals).

Imported by the test modules (a conftest.py here would shadow the top-level one).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def two_methods():
    """(EvaluationResult, results directory) of BB4S and naive on the bundled CAFA2 MFO slice, grid 0.01."""
    import tempfile
    from pathlib import Path

    import goeval
    from goeval.baselines import naive
    from goeval.io.results import write_results

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    preds = {"BLAST": goeval.load_predictions(goeval.example_path("predictions"), onto),
             "naive": naive(onto, truth, truth.proteins)}
    res = goeval.evaluate(onto, truth, preds, ia=goeval.example_path("ia"), thresholds=0.01, bootstrap=40, seed=3)
    out = Path(tempfile.mkdtemp(prefix="goeval_report_")) / "results"
    write_results(out, res.curve_columns, res.summary_records, list(res.summary.columns), res.diagnostics,
                  {"total": 1.0})
    return res, out


@pytest.fixture(scope="session")
def with_stats(two_methods, tmp_path_factory):
    """The two-method result saved as ``goeval evaluate --bootstrap 40 --seed 3`` saves it: with ``protein_stats.npz``."""
    out = tmp_path_factory.mktemp("with_stats") / "results"
    two_methods[0].save(out)
    return out


@pytest.fixture(scope="session")
def small_split(two_methods, tmp_path_factory):
    """A time split's folder of three kinds (``nk/``, ``lk/``, ``pk/``), each the two-method result with its
    ``protein_stats.npz``."""
    out = tmp_path_factory.mktemp("split") / "ts"
    for kind in ("nk", "lk", "pk"):
        two_methods[0].save(out / kind)
    return out
