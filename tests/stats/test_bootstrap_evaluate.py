"""evaluate_annotations(bootstrap=B): interval columns in the summary, reproducible from the seed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracles import random_case

from goeval.errors import InvalidParameterError
from goeval.evaluation import BOOTSTRAP_COLUMNS, SUMMARY_COLUMNS, evaluate_annotations

FIVE = ("fmax", "wfmax", "fmax_micro", "smin", "wsmin")
#: Every optimum and area of the summary (with IA).
ALL = FIVE + ("wfmax_micro", "smin_terms", "max_coverage", "aupr", "waupr", "ece", "brier", "wece", "wbrier", "ic_aupr")


def run(case, **kw):
    onto = case.ontology()
    return evaluate_annotations(onto, case.truth_annotations(onto), {"m": case.predictions(onto)},
                                ia=case.ia_array(onto), **kw)


def test_bootstrap_adds_interval_columns_to_every_optimum_and_area():
    case = random_case(3, n_proteins=40)
    plain = run(case)
    res = run(case, bootstrap=300, seed=5)
    assert [r["value"] for r in res.summary_records] == [r["value"] for r in plain.summary_records]
    assert tuple(res.summary.columns) == SUMMARY_COLUMNS + BOOTSTRAP_COLUMNS
    assert tuple(plain.summary.columns) == SUMMARY_COLUMNS
    assert list(dict.fromkeys(r["measure"] for r in res.summary_records)) == list(ALL)
    for r in res.summary_records:
        assert r["ci_low"] <= r["value"] <= r["ci_high"] and r["se"] >= 0, r
    assert res.diagnostics["bootstrap"]["n_resamples"] == 300 and res.diagnostics["bootstrap"]["seed"] == 5
    assert "without_interval" not in res.diagnostics["bootstrap"]
    assert all(st.protein_steps is not None for st in res.stats.values())


def test_an_area_in_a_replicate_is_taken_as_the_summary_takes_it():
    """Under unit weights the replicate's AUPR and weighted AUPR are the summary's, bit for bit."""
    from goeval.stats import bootstrap

    res = run(random_case(4, n_proteins=40), bootstrap=20)
    point = {(r["namespace"], r["measure"]): r["value"] for r in bootstrap(res, 20)}
    for r in res.summary_records:
        assert point[(r["namespace"], r["measure"])] == r["value"], r["measure"]


def test_similarity_optima_get_intervals_around_their_value():
    """The similarity sums are kept per protein: every similarity optimum of the summary gets an interval."""
    case = random_case(6, n_proteins=30)
    res = run(case, bootstrap=50, similarity=("lin", "jaccard", "wang"), pairings=("bma", "max"),
              ic=case.ia_array(case.ontology()))
    sim = {"lin_bma", "lin_max", "wang_bma", "wang_max", "jaccard"}
    assert sim <= {r["measure"] for r in res.summary_records}
    for r in res.summary_records:
        assert r["ci_low"] <= r["value"] <= r["ci_high"] and r["se"] >= 0, r
    assert "without_interval" not in res.diagnostics["bootstrap"]
    assert all(st.protein_steps.similarity is not None for st in res.stats.values())


def test_the_optima_without_an_interval_are_said_with_the_reason(caplog):
    """A measure registered without an interval: NaN interval columns and a console note naming it."""
    from goeval.metrics.registry import Measure, register, unregister

    register(Measure(name="p_at_fmax", column="precision", direction="max", needs_ia=False, at="fmax"))
    try:
        with caplog.at_level("INFO", logger="goeval.progress"):
            res = run(random_case(6, n_proteins=30), bootstrap=50, similarity=("lin",),
                      ic=case_ic(random_case(6, n_proteins=30)))
    finally:
        unregister("p_at_fmax")
    for r in res.summary_records:
        assert math.isnan(r["ci_low"]) == (r["measure"] == "p_at_fmax"), r["measure"]
    assert res.diagnostics["bootstrap"]["without_interval"] == {
        "p_at_fmax": "registered without an interval (interval=False)"}
    notes = [m.getMessage() for m in caplog.records if "no interval for" in m.getMessage()]
    assert notes == ["bootstrap: no interval for p_at_fmax: registered without an interval (interval=False)"]


def case_ic(case):
    return case.ia_array(case.ontology())


def test_same_seed_same_bits_other_seed_other_intervals():
    case = random_case(8, n_proteins=30)
    a, b, c = (run(case, bootstrap=200, seed=s) for s in (1, 1, 2))
    key = lambda res: [(r["ci_low"], r["ci_high"], r["se"]) for r in res.summary_records if r["measure"] in FIVE]
    assert key(a) == key(b)
    assert key(a) != key(c)


def test_confidence_widens_the_interval():
    case = random_case(9, n_proteins=40)
    narrow, wide = run(case, bootstrap=400, confidence=0.5), run(case, bootstrap=400, confidence=0.99)
    for x, y in zip(narrow.summary_records, wide.summary_records):
        if x["measure"] in FIVE:
            assert y["ci_low"] <= x["ci_low"] and x["ci_high"] <= y["ci_high"]


@pytest.mark.parametrize("kw", [{"bootstrap": 0}, {"bootstrap": 10, "seed": "x"}, {"bootstrap": 10, "confidence": 95}])
def test_bootstrap_parameters_are_checked_before_work(kw):
    with pytest.raises(InvalidParameterError, match="of evaluate"):
        run(random_case(0), **kw)


def test_without_ia_only_the_plain_measures_get_intervals():
    case = random_case(2, n_proteins=30)
    onto = case.ontology()
    res = evaluate_annotations(onto, case.truth_annotations(onto), {"m": case.predictions(onto)}, bootstrap=100)
    got = {r["measure"] for r in res.summary_records if not np.isnan(r["ci_low"])}
    assert got == {r["measure"] for r in res.summary_records} == {"fmax", "fmax_micro", "smin_terms", "max_coverage",
                                                                   "aupr", "ece", "brier"}
