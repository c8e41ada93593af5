"""Bootstrap intervals from per-protein statistics (goeval.stats.bootstrap, goeval.stats.replicates).

The one-pass replicates are checked against a slow oracle that builds every
resample explicitly (proteins duplicated per their counts) and evaluates it
from scratch; the identity resample against the summary, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_stats import ALL, FIVE, SIMILARITY, block_stats, explicit_resample, slow_optima
from numpy.testing import assert_allclose, assert_array_equal
from oracles import random_case

from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.metrics.registry import get_measure
from goeval.stats import CurveSettings, bootstrap, bootstrap_replicates, percentile_interval, replicate_optima
from goeval.stats.replicates import optima_of_stats, row_optima, sums_needed
from goeval.stats.resample import resample_indices, resample_key


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
@pytest.mark.parametrize("normalization,weighting", [("cafa", "none"), ("pred", "none"), ("gt", "information")])
def test_identity_resample_reproduces_the_summary_bit_for_bit(seed, thresholds, normalization, weighting):
    case = random_case(seed, n_proteins=12)
    stats, res, _ = block_stats(case, thresholds=thresholds, normalization=normalization, protein_weighting=weighting)
    settings = CurveSettings(normalization=normalization, k=2.0, protein_weighting=weighting, with_ia=True)
    for (method, label), st in stats.items():
        got = replicate_optima(st.protein_steps, np.ones((1, st.protein_steps.n_proteins)), ALL, settings)
        want = {r["measure"]: r["value"] for r in res.summary_records if r["namespace"] == label}
        for name in ALL:
            assert got[name][0] == want[name], (label, name)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("thresholds", ["exact", 0.05])
def test_one_pass_replicates_match_explicitly_resampled_evaluations(seed, thresholds):
    case = random_case(seed, n_proteins=9)
    stats, _res, _ = block_stats(case, thresholds=thresholds)
    B = 12
    reps = bootstrap_replicates(stats, B, seed=seed)
    for (method, label), st in stats.items():
        steps = st.protein_steps
        idx = resample_indices(seed, resample_key(label, steps.proteins), steps.n_proteins, 0, B)
        for b in range(B):
            want = slow_optima(explicit_resample(case, steps.proteins, idx[b]), label, steps.thresholds)
            for name in ALL:
                # no covered protein in the resample: no summary row, NaN in the replicate
                assert_allclose(reps[(method, label)][name][b], want.get(name, np.nan), rtol=1e-12, atol=1e-12,
                                err_msg=f"{label} {name} resample {b}")


def _similarity_optima(res) -> list[str]:
    from goeval.metrics.registry import SIMILARITY_MEASURES

    held = {r["measure"] for r in res.summary_records}
    return [m.name for m in SIMILARITY_MEASURES if m.name in held]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("thresholds,normalization", [("exact", "cafa"), (0.05, "gt"), (0.05, "pred")])
def test_similarity_replicates_match_explicitly_resampled_evaluations(seed, thresholds, normalization):
    """Every similarity optimum of every replicate is that of the drawn proteins evaluated from scratch, and a
    row of ones gives the summary's bits."""
    case = random_case(seed, n_proteins=9)
    opts = dict(thresholds=thresholds, normalization=normalization, **SIMILARITY)
    stats, res, _ = block_stats(case, **opts)
    names = _similarity_optima(res)
    assert {"lin_bma", "jc_rcmax", "wang_max", "wang_bma_mean", "jaccard"} <= set(names)
    settings = CurveSettings(normalization=normalization, k=2.0, protein_weighting="none", with_ia=True)
    B = 6
    reps = bootstrap_replicates(stats, B, seed=seed, measures=names, settings=settings)
    for (method, label), st in stats.items():
        steps = st.protein_steps
        point = replicate_optima(steps, np.ones((1, steps.n_proteins)), names, settings)
        summary = {r["measure"]: r["value"] for r in res.summary_records if r["namespace"] == label}
        assert {x: point[x][0] for x in names if x in summary} == {x: summary[x] for x in names if x in summary}
        idx = resample_indices(seed, resample_key(label, steps.proteins), steps.n_proteins, 0, B)
        for b in range(B):
            want = slow_optima(explicit_resample(case, steps.proteins, idx[b]), label, steps.thresholds,
                               normalization=normalization, **SIMILARITY)
            for name in names:
                assert_allclose(reps[(method, label)][name][b], want.get(name, np.nan), rtol=1e-12, atol=1e-12,
                                err_msg=f"{label} {name} resample {b}")


def test_a_similarity_optimum_not_evaluated_is_refused_when_asked():
    case = random_case(2, n_proteins=9)
    stats, _res, _ = block_stats(case)
    with pytest.raises(InvalidParameterError, match="no per-protein similarity statistics of wang_bma"):
        bootstrap_replicates(stats, 5, measures=["fmax", "wang_bma"])
    assert set(next(iter(bootstrap_replicates(stats, 5).values()))) == set(ALL) | {"ece", "brier", "wece", "wbrier", "ic_aupr"}  # by default: those held


def test_same_seed_gives_the_same_bits_whatever_the_batches_and_threads():
    case = random_case(3, n_proteins=30)
    stats, _res, _ = block_stats(case)
    a = bootstrap_replicates(stats, 50, seed=7, threads=1)
    b = bootstrap_replicates(stats, 50, seed=7, threads=2, batch_size=7)
    c = bootstrap_replicates(stats, 50, seed=8)
    for key in a:
        for name in FIVE:
            assert_array_equal(a[key][name], b[key][name])
    assert any(not np.array_equal(a[k]["fmax"], c[k]["fmax"]) for k in a)


def test_every_method_gets_the_same_resamples():
    case = random_case(5, n_proteins=15)
    other = {k: min(1.0, v * 0.5 + 0.3) for k, v in case.scores.items()}
    stats, _res, _ = block_stats(case, {"A": None, "B": other})
    for label in {lab for _m, lab in stats}:
        pa, pb = stats[("A", label)].protein_steps.proteins, stats[("B", label)].protein_steps.proteins
        assert_array_equal(pa, pb)
        assert resample_key(label, pa) == resample_key(label, pb)
    assert resample_key("alpha", ["P1", "P2"]) != resample_key("alpha", ["P1", "P3"])


def test_resample_indices_do_not_depend_on_the_batches():
    key = resample_key("MFO", ["a", "b", "c"])
    whole = resample_indices(0, key, 13, 0, 10)
    parts = np.vstack([resample_indices(0, key, 13, 0, 3), resample_indices(0, key, 13, 3, 10)])
    assert_array_equal(whole, parts)
    assert whole.min() >= 0 and whole.max() < 13


def _replicated(case, times):
    """The case with every protein present ``times`` times (renamed copies)."""
    from oracles import Case

    truth = [(f"{p}~{k}", t) for k in range(times) for p, t in case.truth]
    scores = {(f"{p}~{k}", t): s for k in range(times) for (p, t), s in case.scores.items()}
    return Case(case.edges, case.namespace_of, truth, scores, case.ia)


def test_interval_contains_the_point_and_shrinks_as_one_over_sqrt_n():
    case = random_case(11, n_proteins=60, max_truth=4, max_pred=10)
    widths = {}
    for times in (1, 4):
        stats, res, _ = block_stats(_replicated(case, times))
        rows = bootstrap(res, 2000, seed=1)
        for r in rows:
            assert r["ci_low"] <= r["value"] <= r["ci_high"], r
            widths[(times, r["namespace"], r["measure"])] = r["ci_high"] - r["ci_low"]
    ratios = [widths[(4, ns, m)] / widths[(1, ns, m)] for (t, ns, m) in widths if t == 1 and widths[(1, ns, m)] > 0]
    assert len(ratios) >= 8
    assert 0.4 < np.median(ratios) < 0.62  # 1/sqrt(4) = 0.5
    assert all(0.25 < x < 0.8 for x in ratios), ratios


def test_bootstrap_of_the_bundled_example_contains_the_point_estimate():
    import goeval
    from goeval.evaluation import namespace_stats

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    preds = {"blast": goeval.load_predictions(goeval.example_path("predictions"), onto)}
    ia, _ = goeval.load_ia(goeval.example_path("ia"), onto)
    stats = namespace_stats(onto, truth, preds, ia, per_protein=True)
    rows = bootstrap(stats, 500, seed=0)
    assert [r["measure"] for r in rows] == [*ALL, "ece", "brier", "wece", "wbrier", "ic_aupr"]
    for r in rows:
        assert r["ci_low"] < r["value"] < r["ci_high"] and r["se"] > 0, r


@pytest.mark.parametrize("normalization", ["cafa", "pred", "gt"])
@pytest.mark.parametrize("weighting", ["none", "information"])
def test_the_sums_read_are_enough_for_each_measure(normalization, weighting):
    case = random_case(2, n_proteins=20)
    stats, _res, _ = block_stats(case, normalization=normalization, protein_weighting=weighting)
    settings = CurveSettings(normalization=normalization, k=2.0, protein_weighting=weighting, with_ia=True)
    rng = np.random.default_rng(0)
    names = ALL
    for st in stats.values():
        w = rng.integers(0, 3, size=(5, st.protein_steps.n_proteins)).astype(float)
        full = st.protein_steps.stats(w)
        for name in names:
            ms = get_measure(name)
            part = st.protein_steps.stats(w, sums_needed([ms], settings))
            assert_array_equal(optima_of_stats(part, [ms], settings)[name], optima_of_stats(full, [ms], settings)[name])


def test_row_optima_take_the_lowest_threshold_within_rounding_and_nan_without_coverage():
    v = np.array([[0.5, 0.7, 0.7 - 1e-15, 0.2], [0.1, 0.9, 0.3, 0.95]])
    valid = np.array([[True, True, True, True], [False, False, False, False]])
    got = row_optima(v, valid, "max")
    assert got[0] == 0.7 and np.isnan(got[1])
    assert row_optima(v, np.ones_like(valid), "min").tolist() == [0.2, 0.1]


def test_percentile_interval_is_numpy_linear_and_se_has_ddof_1():
    x = np.random.default_rng(0).normal(size=1001)
    lo, hi, se, bad = percentile_interval(x, 0.9)
    assert (lo, hi) == tuple(np.quantile(x, [(1 - 0.9) / 2, (1 + 0.9) / 2], method="linear"))
    assert se == np.std(x, ddof=1) and bad == 0
    s = np.sort(x)  # type 7: position (B - 1) q = 50 and 950
    assert_allclose([lo, hi], [s[50], s[950]], rtol=1e-12)
    assert all(np.isnan(percentile_interval(np.array([1.0, np.nan]), 0.9)[:3]))


def test_undefined_resamples_are_left_out_with_a_warning():
    case = random_case(4, n_proteins=6)
    # a single predicted protein: resamples that miss it cover nothing
    keep = sorted({p for p, _ in case.scores})[0]
    scores = {k: v for k, v in case.scores.items() if k[0] == keep}
    stats, _res, _ = block_stats(case, {"m": scores})
    with pytest.warns(GoevalWarning, match="cover no protein"):
        rows = bootstrap(stats, 200, seed=0, with_ia=True)
    assert any(r["n_undefined"] > 0 for r in rows)


@pytest.mark.parametrize("kwargs,match", [({"n_resamples": 1}, "n_resamples"), ({"n_resamples": 2.5}, "n_resamples"),
                                          ({"seed": -1}, "seed"), ({"confidence": 1.0}, "confidence"),
                                          ({"confidence": True}, "confidence")])
def test_bad_parameters_are_parameter_errors(kwargs, match):
    case = random_case(0)
    stats, _res, _ = block_stats(case)
    with pytest.raises(InvalidParameterError, match=match):
        bootstrap(stats, **{"n_resamples": 10, **kwargs})


def test_statistics_without_per_protein_steps_are_refused():
    from goeval.evaluation import evaluate_annotations

    case = random_case(0)
    onto = case.ontology()
    res = evaluate_annotations(onto, case.truth_annotations(onto), {"m": case.predictions(onto)}, ia=case.ia_array(onto))
    with pytest.raises(InvalidParameterError, match="per-protein"):
        bootstrap(res, 10)
