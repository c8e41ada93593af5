"""The recipe "a measure over a new per-protein quantity" (docs/architecture.md) done for real, in this one module.

The quantity: the sum of a protein's predicted scores at >= tau. Its columns: the pooled mean score of
the predicted terms and its gap to the pooled precision (how far the scores are from the fraction of
predicted terms that are true). The measure: that gap at the Fmax threshold (``at="fmax"``). Three
declarations through public functions; no other file changes. Checked against a direct numpy
computation on the propagated pairs, through the summary, the bootstrap, ``goeval compare`` and the report.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from numpy.testing import assert_allclose

import goeval
from goeval.metrics.protein import CurveColumn, register_column, unregister_column
from goeval.metrics.registry import Measure, register, unregister
from goeval.sweep.quantities import Quantity, RunningTotal, register_quantity, register_total, unregister_quantity

# 1. the per-protein quantity (goeval.sweep.quantities): a running total of a per-entry value (a root
#    counted as predicted at every threshold scores +inf: it counts 1), its value per protein, its sum
#    and its rule for one score vector shared by every protein (the naive baseline)
SCORE_SUM = RunningTotal(name="score_sum", entry=lambda e: np.minimum(e.scores, 1.0), scores=True)
QUANTITY = Quantity(name="score_sum", value=lambda s: s["score_sum"], totals=("score_sum",), sums={"score_sum": 0},
                    shared=lambda v, p: v.level_sum(np.minimum(v.scores, 1.0)) * v.total(p),
                    description="sum of the predicted scores at >= tau")
# 2. its curve columns (goeval.metrics.protein): formulas over the sums and other columns
COLUMNS = (
    CurveColumn(name="mean_score", formula=lambda c: np.divide(c.sums["score_sum"], c.sums["npred"],
                                                               out=np.zeros(np.shape(c.sums["npred"])),
                                                               where=c.sums["npred"] > 0),
                description="pooled mean score of the predicted terms"),
    CurveColumn(name="calibration_gap", formula=lambda c: np.abs(c["mean_score"] - c["precision_micro"]),
                description="|pooled mean score - pooled precision|"),
)
# 3. the measure (goeval.metrics.registry): the gap where Fmax is reached
MEASURE = Measure(name="gap_at_fmax", column="calibration_gap", direction="min", needs_ia=False, at="fmax",
                  label="calibration gap at Fmax", interval=True, ranked=True,
                  description="|mean predicted score - precision| over the predicted terms at the Fmax threshold")


@pytest.fixture
def recipe():
    register_total(SCORE_SUM)
    register_quantity(QUANTITY)
    for col in COLUMNS:
        register_column(col)
    register(MEASURE)
    yield MEASURE
    unregister(MEASURE.name)
    for col in COLUMNS:
        unregister_column(col.name)
    unregister_quantity(QUANTITY.name)


def _propagated_pairs():
    """The oracle's input: every benchmark protein's propagated (score, is true) pairs, straight from the files."""
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.propagate(goeval.load_annotations(goeval.example_path("truth"), onto))
    preds = goeval.propagate(goeval.load_predictions(goeval.example_path("predictions"), onto))
    tm, pm = truth.matrix.tocsr(), preds.matrix.tocsr()
    index = {p: i for i, p in enumerate(preds.proteins.tolist())}
    scores, true = [], []
    for r, protein in enumerate(truth.proteins.tolist()):
        if protein not in index or tm.indptr[r] == tm.indptr[r + 1]:
            continue
        row = pm[[index[protein]]]
        scores.append(row.data)
        true.append(np.isin(row.indices, tm.indices[tm.indptr[r]:tm.indptr[r + 1]]))
    return np.concatenate(scores), np.concatenate(true)


def test_a_new_quantity_reaches_summary_bootstrap_compare_and_report(recipe, tmp_path):
    pytest.importorskip("matplotlib")
    import pandas as pd

    from goeval.cli import main

    out, preds = tmp_path / "r", tmp_path / "preds"
    preds.mkdir()
    for name in ("a", "b"):  # two methods, so that goeval compare has a pair
        shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    assert main(["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth",
                 str(goeval.example_path("truth")), "--predictions", str(preds), "--ia", str(goeval.example_path("ia")),
                 "--thresholds", "0.01", "--bootstrap", "40", "--plots", "-q", "--out", str(out)]) == 0
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    a = summary[summary["method"] == "a"].set_index("measure")
    row, fmax = a.loc["gap_at_fmax"], a.loc["fmax"]
    assert row["threshold"] == fmax["threshold"] and row["precision"] == fmax["precision"]  # read at Fmax's threshold
    scores, true = _propagated_pairs()
    at = scores >= row["threshold"]
    assert_allclose(row["value"], abs(scores[at].mean() - true[at].mean()), rtol=1e-12)  # the numpy oracle
    curves = pd.read_csv(out / "curves.tsv", sep="\t")
    cur = curves[curves["method"] == "a"]
    want = [scores[scores >= t].mean() for t in cur["threshold"]]
    assert_allclose(cur["mean_score"], want, rtol=1e-12)  # its columns are written
    assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["se"] > 0  # bootstrap interval
    assert "calibration gap at Fmax" in (out / "report.html").read_text()
    assert main(["compare", str(out), "--measure", "gap_at_fmax", "--bootstrap", "30",
                 "--out", str(tmp_path / "c.tsv")]) == 0
    pairs = pd.read_csv(tmp_path / "c.tsv", sep="\t")
    assert set(pairs["measure"]) == {"gap_at_fmax"} and (pairs["difference"] == 0).all()


def test_the_shared_rule_gives_the_sums_of_the_rows(recipe):
    """The naive baseline's fast path: the rule equals the rows made for every protein."""
    from goeval.sweep import finish_partial, sweep_partial, truth_totals
    from goeval.sweep.shared import shared_partial, shared_supported

    assert shared_supported()
    rng = np.random.default_rng(4)
    n, n_cols = 30, 20
    cols = np.arange(0, n_cols, 2)
    vec = np.round(rng.random(cols.size), 2) + 0.01
    truth = [np.sort(rng.choice(n_cols, size=int(rng.integers(1, 6)), replace=False)) for _ in range(n)]
    t_ptr, t_cols = np.r_[0, np.cumsum([t.size for t in truth])], np.concatenate(truth)
    taus = np.unique(vec)
    n_t, i_t = truth_totals(t_ptr, t_cols, None, n_cols)
    shared = finish_partial(shared_partial(cols, vec, t_ptr, t_cols, n_cols, taus), taus, n_t, i_t)
    rows = finish_partial(sweep_partial(np.arange(n + 1) * cols.size, np.tile(cols, n), np.tile(vec, n), t_ptr, t_cols,
                                        n_cols, taus), taus, n_t, i_t)
    assert_allclose(shared.sums["score_sum"], rows.sums["score_sum"], rtol=1e-13)
    assert_allclose(rows.sums["score_sum"], [n * vec[vec >= t].sum() for t in taus], rtol=1e-13)
