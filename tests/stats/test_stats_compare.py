"""Paired comparisons (goeval.stats.compare): differences, duels, permutation p-values, Holm.

The permutation statistics are checked against a slow oracle that builds
each pair of mixed methods explicitly (every swapped protein's predictions
exchanged) and evaluates them from scratch.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from helpers_stats import SIMILARITY, block_stats, slow_optima
from numpy.testing import assert_allclose, assert_array_equal
from oracles import random_case

from goeval.errors import InvalidParameterError
from goeval.metrics.registry import get_measure
from goeval.stats import CurveSettings, bootstrap_replicates, compare, holm, read_protein_stats, write_protein_stats
from goeval.stats.compare import PairedBlocks
from goeval.stats.resample import resample_key, swap_flags


def _two_methods(seed, n_proteins=10):
    case = random_case(seed, n_proteins=n_proteins)
    rng = np.random.default_rng(seed + 100)
    other = {k: float(rng.choice([0.2, 0.5, 0.8, 1.0])) for k in case.scores}
    other.update({(p, t): 0.6 for p, t in case.truth[::3]})  # some true terms B finds and A may not
    return case, {"A": case.scores, "B": other}


def test_identical_methods_differ_by_zero_in_every_resample_and_tie():
    case = random_case(1, n_proteins=15)
    stats, _res, _ = block_stats(case, {"A": None, "B": None})
    for measure in ("fmax", "smin"):
        cmp = compare(stats, ["A", "B"], measure, n_resamples=200, permutations=50, with_ia=True)
        for r in cmp.pairs:
            assert r["difference"] == 0 and r["ci_low"] == 0 and r["ci_high"] == 0 and r["se"] == 0
            assert (r["wins_a"], r["ties"], r["wins_b"]) == (0, 1, 0)
            assert r["p_value"] == 1 and r["p_holm"] == 1


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("measure", ["fmax", "wsmin", "wang_bma", "jc_rcmax", "jaccard"])
def test_permutation_statistics_match_explicitly_mixed_methods(seed, measure):
    """The similarity optima too: each protein's similarity step functions are swapped with its other ones."""
    case, methods = _two_methods(seed)
    options = SIMILARITY if measure not in ("fmax", "wsmin") else {}
    stats, _res, _ = block_stats(case, methods, **options)
    settings = CurveSettings()
    ms = get_measure(measure)
    P = 10
    for label in sorted({lab for _m, lab in stats}):
        blocks = {m: stats[(m, label)].protein_steps for m in ("A", "B") if (m, label) in stats}
        if len(blocks) < 2:
            continue
        ns = PairedBlocks.of(label, blocks, ms, settings)
        got = ns.permuted(seed, 0, P)["A\0B"]
        proteins = ns.steps["A"].proteins
        union = ns.steps["A"].thresholds
        swap = swap_flags(seed, resample_key(label, proteins), len(proteins), 0, P)
        for r in range(P):
            flip = {str(p) for p, s in zip(proteins, swap[r]) if s}
            a_mix = {k: v for k, v in methods["A"].items() if k[0] not in flip}
            a_mix.update({k: v for k, v in methods["B"].items() if k[0] in flip})
            b_mix = {k: v for k, v in methods["B"].items() if k[0] not in flip}
            b_mix.update({k: v for k, v in methods["A"].items() if k[0] in flip})
            va = slow_optima(case, label, union, a_mix, **options).get(measure, np.nan)
            vb = slow_optima(case, label, union, b_mix, **options).get(measure, np.nan)
            assert_allclose(got[r], abs(va - vb), rtol=1e-12, atol=1e-12, err_msg=f"{label} permutation {r}")
        # the p-value counts the permutations at least as extreme as the observed difference
        row = next(x for x in compare(stats, ["A", "B"], measure, n_resamples=10, permutations=P, seed=seed,
                                      with_ia=True).pairs if x["namespace"] == label)
        obs = abs(row["value_a"] - row["value_b"])
        assert row["p_value"] == (1 + np.count_nonzero(got >= obs - 1e-12 * max(1.0, obs))) / (1 + P)


def test_difference_interval_and_wins_come_from_the_shared_resamples():
    case, methods = _two_methods(4, n_proteins=25)
    stats, res, _ = block_stats(case, methods)
    cmp = compare(stats, ["A", "B"], "fmax", n_resamples=300, permutations=0, seed=3, with_ia=True)
    reps = bootstrap_replicates(stats, 300, seed=3, measures=["fmax"])
    for r in cmp.pairs:
        a, b = reps[("A", r["namespace"])]["fmax"], reps[("B", r["namespace"])]["fmax"]
        d = a - b
        assert_allclose([r["ci_low"], r["ci_high"]], np.quantile(d, [0.025, 0.975]), rtol=1e-12, atol=1e-15)
        assert r["wins_a"] == np.mean(d > 1e-12 * np.maximum(1, np.maximum(abs(a), abs(b))))
        assert_allclose(r["wins_a"] + r["ties"] + r["wins_b"], 1.0)
        want = {x["measure"]: x["value"] for x in res.summary_records if x["namespace"] == r["namespace"]}
        assert np.isnan(r["p_value"]) and r["n_permutations"] == 0
        assert r["value_a"] == want["fmax"] or r["method_a"] == "A"


def test_lower_is_better_for_smin_and_the_duel_matrix_is_complementary():
    case, methods = _two_methods(6, n_proteins=25)
    methods["C"] = {k: min(1.0, v + 0.1) for k, v in methods["A"].items()}
    stats, _res, _ = block_stats(case, methods)
    cmp = compare(stats, None, "smin", n_resamples=200, permutations=20, with_ia=True)
    for r in cmp.pairs:
        if r["value_a"] < r["value_b"]:
            assert r["wins_a"] >= r["wins_b"] or r["ci_high"] > 0
    names, mat = cmp.duel_matrix(cmp.pairs[0]["namespace"])
    assert names == ["A", "B", "C"] and np.isnan(np.diag(mat)).all()
    ties = {(r["method_a"], r["method_b"]): r["ties"] for r in cmp.pairs if r["namespace"] == cmp.pairs[0]["namespace"]}
    for (a, b), t in ties.items():
        i, j = names.index(a), names.index(b)
        assert_allclose(mat[i, j] + mat[j, i] + t, 1.0)
    per_ns = [r for r in cmp.pairs if r["namespace"] == cmp.pairs[0]["namespace"]]
    assert_allclose([r["p_holm"] for r in per_ns], holm([r["p_value"] for r in per_ns]))


def test_holm_by_hand():
    assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    assert_allclose(holm([0.5, 0.9]), [1.0, 1.0])
    assert holm([]).size == 0


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
def test_stored_statistics_give_the_same_comparison(tmp_path):
    from goeval.evaluation import evaluate_annotations

    case, methods = _two_methods(2, n_proteins=20)
    onto = case.ontology()
    res = evaluate_annotations(onto, case.truth_annotations(onto), {k: case.predictions(onto, v) for k, v in methods.items()},
                               ia=case.ia_array(onto), bootstrap=50, normalization="pred")
    path = write_protein_stats(tmp_path / "protein_stats.npz", res)
    stats, options = read_protein_stats(path)
    assert options["normalization"] == "pred" and options["ia"] is True
    for key, st in res.stats.items():
        for name, arr in st.sums.items():
            assert_array_equal(stats[key].sums[name], arr)
        assert_array_equal(stats[key].protein_steps.proteins, st.protein_steps.proteins)
    a = compare(res, n_resamples=100, permutations=20).pairs
    b = compare(stats, n_resamples=100, permutations=20, options=options, with_ia=True).pairs
    assert a == b


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
def test_stored_similarity_statistics_give_the_same_comparison_and_older_files_say_they_hold_none(tmp_path):
    from goeval.evaluation import evaluate_annotations
    from goeval.io.results import read_arrays, write_arrays
    from goeval.stats.store import FORMAT

    case, methods = _two_methods(4, n_proteins=20)
    onto = case.ontology()
    res = evaluate_annotations(onto, case.truth_annotations(onto), {k: case.predictions(onto, v) for k, v in methods.items()},
                               ia=case.ia_array(onto), bootstrap=50, normalization="gt", ic=case.ia_array(onto),
                               **SIMILARITY)
    path = write_protein_stats(tmp_path / "protein_stats.npz", res)
    stats, options = read_protein_stats(path)
    for key, st in res.stats.items():
        for col in st.similarity.sums:  # the evaluation's own sums, and the steps kept
            assert_array_equal(stats[key].similarity.sums[col], st.similarity.sums[col])
            assert_array_equal(stats[key].similarity.defined[col], st.similarity.defined[col])
        assert_array_equal(stats[key].protein_steps.similarity.sums, st.protein_steps.similarity.sums)
    for measure in ("wang_bma", "lin_max", "jaccard"):
        a = compare(res, measure=measure, n_resamples=100, permutations=20).pairs
        b = compare(stats, measure=measure, n_resamples=100, permutations=20, options=options, with_ia=True).pairs
        assert a == b and a[0]["measure"] == measure and np.isfinite(a[0]["ci_low"])
    # a file written before the similarity statistics were kept: read as before, a similarity optimum refused
    arrays = {k: v for k, v in read_arrays(path, FORMAT, "").items() if "/similarity/" not in k}
    old = tmp_path / "old" / "protein_stats.npz"
    old.parent.mkdir()
    write_arrays(old, arrays)
    stats, options = read_protein_stats(old)
    assert compare(stats, n_resamples=20, permutations=0, options=options, with_ia=True).pairs
    with pytest.raises(InvalidParameterError, match="no per-protein similarity statistics of wang_bma.*--bootstrap"):
        compare(stats, measure="wang_bma", n_resamples=20, permutations=0, options=options, with_ia=True)


def test_bad_inputs_are_parameter_errors():
    case, methods = _two_methods(0)
    stats, _res, _ = block_stats(case, methods)
    with pytest.raises(InvalidParameterError, match="methods"):
        compare(stats, ["A"], n_resamples=10)
    with pytest.raises(InvalidParameterError, match="methods"):
        compare(stats, ["A", "Z"], n_resamples=10)
    with pytest.raises(InvalidParameterError, match="permutations"):
        compare(stats, ["A", "B"], n_resamples=10, permutations=-1)
    with pytest.raises(InvalidParameterError, match="measure"):
        compare(stats, ["A", "B"], "aupr", n_resamples=10)


# ------------------------------------------------------------ one method, a group against another
def _grouped(groups, **kw):
    """The bundled example evaluated per group with a bootstrap (the groups' statistics kept)."""
    import goeval

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    prots = truth.proteins.tolist()
    named = {k: [prots[i] for i in v] for k, v in groups.items()}
    return goeval.evaluate(onto, truth, [d("predictions")], ia=d("ia"), groups=named, bootstrap=10, seed=3, **kw), named


def _copies_evaluated(proteins_drawn, folder):
    """Fmax of the multiset ``proteins_drawn`` evaluated directly: each draw a renamed copy of the protein
    (its truth and predictions), every copy a benchmark protein of its own."""
    import pandas as pd

    import goeval

    d = goeval.example_path
    truth = pd.read_csv(d("truth"), sep="\t", header=None, names=["p", "t"])
    pred = pd.read_csv(d("predictions"), sep="\t", header=None, names=["p", "t", "s"])
    t_parts, p_parts = [], []
    for i, p in enumerate(proteins_drawn):
        t_parts.append(truth[truth.p == p].assign(p=f"{p}#{i}"))
        p_parts.append(pred[pred.p == p].assign(p=f"{p}#{i}"))
    pd.concat(t_parts).to_csv(folder / "truth.tsv", sep="\t", header=False, index=False)
    pd.concat(p_parts).to_csv(folder / "pred.tsv", sep="\t", header=False, index=False)
    res = goeval.evaluate(d("ontology"), folder / "truth.tsv", [folder / "pred.tsv"], ia=d("ia"))
    s = res.summary
    return float(s[(s.measure == "fmax") & (s.namespace == "MFO")].value.iloc[0])


def test_a_group_against_another_resamples_the_shared_proteins_once_for_both(tmp_path):
    """Groups sharing 40 proteins: each replicate is, on each side, Fmax of the multiset drawn by the documented
    rule (each stratum - A alone, both, B alone - drawn with replacement, keyed by the namespace and its proteins),
    evaluated directly as renamed copies; a shared protein is drawn the same number of times on both sides."""
    from goeval.stats.compare import GroupPair, compare_groups
    from goeval.stats.replicates import curve_settings
    from goeval.stats.resample import resample_indices

    res, _ = _grouped({"a": range(0, 90), "b": range(50, 130)})
    a, b = res.groups["a"], res.groups["b"]
    (rec,) = compare_groups(a, b, names=("a", "b"), n_resamples=40, seed=7)
    value = {g: float(r.summary[(r.summary.measure == "fmax")].value.iloc[0]) for g, r in (("a", a), ("b", b))}
    assert (rec["value_a"], rec["value_b"], rec["proteins_shared"]) == (value["a"], value["b"], 40)
    key = next(iter(a.stats))
    pair = GroupPair(label="MFO", a=a.stats[key].protein_steps, b=b.stats[key].protein_steps,
                     measure=get_measure("fmax"), settings=curve_settings(a, None, None))
    got = pair.resampled(7, 0, 3)
    pa, pb = [str(p) for p in pair.a.proteins], [str(p) for p in pair.b.proteins]
    strata = [[p for p in pa if p not in pb], [p for p in pa if p in pb], [p for p in pb if p not in pa]]
    for r in range(3):
        drawn = [[s[i] for i in resample_indices(7, resample_key("MFO", s), len(s), r, r + 1)[0]] for s in strata]
        assert got["a"][r] == pytest.approx(_copies_evaluated(drawn[0] + drawn[1], tmp_path), rel=1e-12)
        assert got["b"][r] == pytest.approx(_copies_evaluated(drawn[1] + drawn[2], tmp_path), rel=1e-12)


def test_disjoint_groups_are_resampled_as_their_own_bootstraps_and_equal_ones_fully_paired():
    from goeval.stats.bootstrap import percentile_interval
    from goeval.stats.compare import compare_groups

    res, _ = _grouped({"a": range(0, 60), "b": range(60, 140), "same": range(0, 60)})
    a, b = res.groups["a"], res.groups["b"]
    (rec,) = compare_groups(a, b, n_resamples=25, seed=3)
    boot = {g: bootstrap_replicates(r.stats, 25, 3, measures=["fmax"]) for g, r in (("a", a), ("b", b))}
    key = next(iter(a.stats))
    diff = boot["a"][key]["fmax"] - boot["b"][key]["fmax"]  # each group's own bootstrap, unpaired
    assert (rec["ci_low"], rec["ci_high"], rec["se"]) == percentile_interval(diff, 0.95)[:3]
    assert rec["proteins_shared"] == 0
    (same,) = compare_groups(a, res.groups["same"], n_resamples=25, seed=3)
    assert (same["difference"], same["ci_low"], same["ci_high"], same["ties"]) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(InvalidParameterError, match="both groups"):
        compare_groups(a, b, ["nope"])
    with pytest.raises(InvalidParameterError, match="evaluate with bootstrap"):
        compare_groups(a, types.SimpleNamespace(stats=None))
