"""The Artificial Dilution Series: construction properties, RC and FPS by hand, every registered measure rated."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import goeval
from goeval.annotations import propagate
from goeval.benchmarks.ads import (FP_SETS, dilution_series, false_positive_signal, leaf_pairs, metric_check,
                                   rank_correlation, rate_measures)
from goeval.errors import InvalidParameterError
from goeval.metrics.registry import Measure, measures, register, unregister


@pytest.fixture(scope="module")
def cafa2():
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    ia, _ = goeval.inputs.load_ia(goeval.example_path("ia"), onto)
    return onto, truth, ia


def pairs(ann):
    coo = ann.matrix.tocoo()
    return set(zip(ann.proteins[coo.row].tolist(), coo.col.tolist()))


def test_leaf_pairs_drop_implied_terms():
    onto = goeval.ontology_from_edges([("b", "a"), ("c", "b"), ("d", "a")])
    truth = goeval.Annotations.from_pairs(onto, ["p", "p", "p", "q"], ["a", "b", "c", "b"])
    rows, terms = leaf_pairs(truth, onto.labels[0])
    got = sorted((truth.proteins[r], onto.ids[t]) for r, t in zip(rows, terms))
    assert got == [("p", "c"), ("q", "b")]  # p's a and b lie above its c


def test_signal_one_is_the_truth(cafa2):
    onto, truth, _ = cafa2
    ads = dilution_series(truth, levels=[0, 1], replicates=2, seed=3)
    for r in (1, 2):
        top = ads.sets[f"s1_r{r}"]
        assert pairs(propagate(top)) == pairs(propagate(truth))
        assert np.all((top.matrix.data > 0) & (top.matrix.data <= 1))


def test_signal_zero_has_no_true_leaf_and_keeps_the_margins(cafa2):
    onto, truth, _ = cafa2
    ads = dilution_series(truth, levels=[0, 1], replicates=3, seed=1)
    true = pairs(propagate(truth))
    rows, terms = leaf_pairs(truth, "MFO")
    for r in (1, 2, 3):
        zero = ads.sets[f"s0_r{r}"]
        assert not (pairs(zero) & true)  # no predicted (most specific) term is in its protein's truth
        m = zero.matrix.tocsr()
        assert np.array_equal(np.diff(m.indptr), np.bincount(rows, minlength=truth.proteins.size))
        if ads.diagnostics["MFO"]["replaced"] == 0:  # every term keeps its frequency
            assert np.array_equal(np.bincount(m.indices, minlength=onto.n_terms),
                                  np.bincount(terms, minlength=onto.n_terms))


def test_levels_keep_nested_shares_of_the_truth(cafa2):
    onto, truth, _ = cafa2
    levels = [0, 0.1, 0.25, 0.5, 0.9, 1]
    ads = dilution_series(truth, levels=levels, replicates=2, seed=7)
    rows, terms = leaf_pairs(truth, "MFO")
    leaves = set(zip(truth.proteins[rows].tolist(), terms.tolist()))
    for r in (1, 2):
        kept = [pairs(ads.sets[f"s{s:g}_r{r}"]) & leaves for s in levels]
        assert [len(k) for k in kept] == [round(s * len(leaves)) for s in levels]
        assert all(a <= b for a, b in zip(kept, kept[1:]))  # a pair kept at a level is kept at every higher one


def test_seeded_reproducibility(cafa2):
    onto, truth, _ = cafa2
    a, b = (dilution_series(truth, levels=[0, 0.5, 1], replicates=2, seed=11) for _ in range(2))
    c = dilution_series(truth, levels=[0, 0.5, 1], replicates=2, seed=12)
    for name in a.sets:
        assert (a.sets[name].matrix != b.sets[name].matrix).nnz == 0
    assert any((a.sets[n].matrix != c.sets[n].matrix).nnz for n in ("s0.5_r1", "s0_r2", "random"))


def test_false_positive_sets(cafa2):
    onto, truth, _ = cafa2
    ads = dilution_series(truth, levels=[0, 1], replicates=1)
    universe = np.flatnonzero(propagate(truth).matrix.sum(axis=0))
    naive, allpos, rnd = (ads.sets[s].matrix.tocsr() for s in FP_SETS)
    assert np.array_equal(np.unique(allpos.indices), universe) and np.all(allpos.data == 1)
    assert np.array_equal(naive.indices, allpos.indices)
    root = onto.roots("MFO")[0]
    assert np.allclose(naive[:, [root]].toarray(), 1.0)  # every protein with MFO truth holds the root
    rows, _ = leaf_pairs(truth, "MFO")
    assert np.array_equal(np.diff(rnd.indptr), np.bincount(rows, minlength=truth.proteins.size))


def test_rank_correlation_by_hand():
    # ranks 1.5 1.5 3.5 3.5 and 1 2 3 4: centred products 1.5 + 0.5 + 0.5 + 1.5 = 4, norms sqrt(4 * 5)
    assert rank_correlation([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == pytest.approx(4 / np.sqrt(20))
    assert rank_correlation([0, 1, 2], [3, 2, 1]) == pytest.approx(-1)
    assert np.isnan(rank_correlation([0, 1, 2], [1, 1, 1]))


def test_false_positive_signal_by_hand():
    assert false_positive_signal([0, 0.5, 1], [0.1, 0.3, 0.9], 0.6) == pytest.approx(0.75)
    assert false_positive_signal([0, 0.5, 1], [0.1, 0.3, 0.9], 0.05) == 0.0
    assert false_positive_signal([0, 0.5, 1], [0.1, 0.3, 0.9], 0.95) == 1.0
    # not monotone: the highest crossing counts (0.4 is reached again between 2/3 and 1)
    assert false_positive_signal([0, 1 / 3, 2 / 3, 1], [0.1, 0.5, 0.3, 0.9], 0.4) == pytest.approx(2 / 3 + 1 / 18)


def test_rate_measures_by_hand():
    rows = []
    for s, fm, sm in [(0, 0.2, 9.0), (0, 0.3, 8.0), (1, 0.8, 2.0), (1, 1.0, 0.0)]:
        rows += [{"namespace": "MFO", "measure": "fmax", "set": f"s{s}", "signal": s, "replicate": 1, "value": fm},
                 {"namespace": "MFO", "measure": "smin", "set": f"s{s}", "signal": s, "replicate": 1, "value": sm}]
    for name, fm, sm in [("naive", 0.6, 8.5), ("all_positive", 0.1, 20.0), ("random", 0.25, 9.5)]:
        rows += [{"namespace": "MFO", "measure": "fmax", "set": name, "signal": np.nan, "replicate": 0, "value": fm},
                 {"namespace": "MFO", "measure": "smin", "set": name, "signal": np.nan, "replicate": 0, "value": sm}]
    table = rate_measures(pd.DataFrame(rows), [0, 1]).set_index("measure")
    # fmax medians 0.25 and 0.9: naive 0.6 sits at (0.6 - 0.25) / 0.65; smin (negated) -8.5, -1: naive at 0
    assert table.loc["fmax", "fps_naive"] == pytest.approx(0.35 / 0.65)
    assert table.loc["fmax", "fps_all_positive"] == 0 and table.loc["fmax", "fps_random"] == 0
    assert table.loc["fmax", "fps"] == pytest.approx(0.35 / 0.65)
    assert table.loc["smin", "fps"] == 0  # 8.5 is exactly the median at signal 0
    assert table.loc["fmax", "rc"] == pytest.approx(4 / np.sqrt(20)) and table.loc["smin", "rc"] == pytest.approx(4 / np.sqrt(20))
    assert list(table.index) == ["smin", "fmax"]  # sorted by FPS


def test_invalid_arguments(cafa2):
    onto, truth, _ = cafa2
    for levels in ([0.5], [0, 0.5, 0.5], [0, 1.5], [1, 0]):
        with pytest.raises(InvalidParameterError, match="levels"):
            dilution_series(truth, levels=levels)
    with pytest.raises(InvalidParameterError, match="replicates"):
        dilution_series(truth, replicates=0)


def test_every_registered_measure_is_rated(cafa2):
    onto, truth, ia = cafa2
    user = register(Measure(name="f2max_ads_test", column="f2_ads_test", direction="max", needs_ia=False,
                            curve=lambda c: 5 * c["precision"] * c["recall"] / (4 * c["precision"] + c["recall"]),
                            inputs=("precision", "recall")))
    try:
        check = metric_check(onto, truth, ia=ia, levels=[0, 0.5, 1], replicates=2)
    finally:
        unregister(user.name)
    expected = {m.name for m in measures("protein") if m.reduce in ("optimum", "area", "curve")} | {user.name}
    assert set(check.table["measure"]) == expected and not check.diagnostics["not_rated"]
    t = check.table.set_index("measure")
    assert t.loc["fmax", "rc"] > 0.9 and 0 < t.loc["fmax", "fps"] < 1
    assert np.isfinite(t.loc[user.name, "rc"])
    fps = check.table["fps"].to_numpy()
    assert np.all(np.diff(fps[np.isfinite(fps)]) >= 0)
    assert len(check.values) == len(expected) * (3 * 2 + 3)
