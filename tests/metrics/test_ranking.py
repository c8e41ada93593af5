"""Tests of goeval.metrics.ranking: ROC_n, pooled ROC_n, AP/MAP, term-centric AUC, informative AUC, weighted means."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.metrics import average_precision_score, roc_auc_score

from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.metrics.ranking import (
    average_precision_lists,
    depth_weights,
    informative_roc_auc,
    mean_average_precision,
    pooled_roc_n_score,
    roc_n_scores,
    term_centric_scores,
    weighted_term_mean,
)
from goeval.metrics.tapk import RetrievalList


# --------------------------------------------------------------------------
# Oracles (plain loops)
# --------------------------------------------------------------------------
def oracle_roc_n(rel_in_order, t, n):
    """Sum over the first n irrelevant records of the relevant ones ranked before, / (n T)."""
    found, total, fps = 0, 0, 0
    for r in rel_in_order:
        if r:
            found += 1
        else:
            fps += 1
            if fps <= n:
                total += found
    total += max(0, n - fps) * found  # the list continues with irrelevant records only
    return total / (n * t)


def oracle_ap(rel_in_order, t):
    found, summed = 0, 0.0
    for i, r in enumerate(rel_in_order, start=1):
        if r:
            found += 1
            summed += found / i
    return summed / t


def _ranked(lst, hib=True):
    order = sorted(range(len(lst.scores)), key=lambda i: -lst.scores[i] if hib else lst.scores[i])
    return [bool(lst.relevance[i]) for i in order]


def test_roc_n_by_hand():
    q = RetrievalList(id="q", n_relevant=3, scores=[0.9, 0.8, 0.7, 0.6, 0.5], relevance=[1, 0, 1, 0, 0])
    assert roc_n_scores([q], 2)[0] == pytest.approx((1 + 2) / (2 * 3))
    # only 3 irrelevant records: the two missing ones see both retrieved relevant records
    assert roc_n_scores([q], 5)[0] == pytest.approx((1 + 2 + 2 + 2 + 2) / (5 * 3))


def test_pooled_roc_n_is_dominated_by_one_query():
    """The paper's §3.2 effect: query B's early errors halve the pooled score."""
    a = RetrievalList(id="A", n_relevant=10, scores=np.r_[np.full(10, 1e-100), np.geomspace(1e-90, 1, 60)],
                      relevance=np.r_[np.ones(10), np.zeros(60)])
    b = RetrievalList(id="B", n_relevant=10,
                      scores=np.r_[np.full(2, 1e-200), np.geomspace(1e-150, 1e-140, 50), np.full(8, 1.0)],
                      relevance=np.r_[np.ones(2), np.zeros(50), np.ones(8)])
    per = roc_n_scores([a, b], 50, higher_is_better=False)
    assert per.tolist() == [1.0, pytest.approx(0.2)]
    pooled = pooled_roc_n_score([a, b], 50, higher_is_better=False)
    assert pooled == pytest.approx(0.1)
    assert pooled == pytest.approx(min(per) / 2)


@st.composite
def _lists(draw):
    out = []
    for i in range(draw(st.integers(1, 5))):
        rel = draw(st.lists(st.integers(0, 1), max_size=15))
        scores = draw(st.lists(st.sampled_from([0.1, 0.2, 0.4, 0.6, 0.8, 0.9]), min_size=len(rel), max_size=len(rel)))
        t = sum(rel) + draw(st.integers(0, 2))
        out.append(RetrievalList(id=f"q{i}", n_relevant=t, scores=scores, relevance=rel,
                                 weight=draw(st.sampled_from([1.0, 2.0]))))
    return out


@settings(max_examples=200, deadline=None)
@given(lists=_lists(), n=st.integers(1, 8), hib=st.booleans())
def test_roc_n_and_ap_match_oracles(lists, n, hib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        roc = roc_n_scores(lists, n, higher_is_better=hib)
        ap = average_precision_lists(lists, higher_is_better=hib)
        mp = mean_average_precision(lists, higher_is_better=hib)
    for lst, r, a in zip(lists, roc, ap):
        if lst.n_relevant == 0:
            assert math.isnan(r) and math.isnan(a)
            continue
        order = _ranked(lst, hib)
        assert r == pytest.approx(oracle_roc_n(order, lst.n_relevant, n), rel=1e-13)
        assert a == pytest.approx(oracle_ap(order, lst.n_relevant), rel=1e-13, abs=1e-15)
    kept = [(lst.weight, oracle_ap(_ranked(lst, hib), lst.n_relevant)) for lst in lists if lst.n_relevant]
    if kept:
        assert mp == pytest.approx(sum(w * a for w, a in kept) / sum(w for w, _ in kept), rel=1e-12)
    else:
        assert math.isnan(mp)
    # pooled: one list of everything, sorted on the score (stable)
    pooled_items = [(s, r) for lst in lists for s, r in zip(*_sorted_items(lst, hib))]
    pooled_items.sort(key=lambda it: -it[0] if hib else it[0])
    t = sum(lst.n_relevant for lst in lists)
    expected = oracle_roc_n([r for _, r in pooled_items], t, n) if t else math.nan
    got = pooled_roc_n_score(lists, n, higher_is_better=hib)
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, rel=1e-13)


def _sorted_items(lst, hib):
    order = sorted(range(len(lst.scores)), key=lambda i: -lst.scores[i] if hib else lst.scores[i])
    return [lst.scores[i] for i in order], [bool(lst.relevance[i]) for i in order]


def test_ap_equals_sklearn_when_everything_is_retrieved():
    rng = np.random.default_rng(3)
    for _ in range(30):
        rel = rng.integers(0, 2, 20)
        rel[0] = 1
        scores = rng.permutation(20) / 20.0  # distinct
        ap = average_precision_lists([RetrievalList(id="q", n_relevant=int(rel.sum()), scores=scores,
                                                    relevance=rel)])[0]
        assert ap == pytest.approx(average_precision_score(rel, scores), rel=1e-12)


def test_t_zero_warns():
    with pytest.warns(GoevalWarning, match="T\\(q\\) = 0"):
        assert math.isnan(roc_n_scores([RetrievalList(id="q", n_relevant=0, scores=[0.5], relevance=[0])], 5)[0])


def test_roc_n_parameter_error():
    with pytest.raises(InvalidParameterError, match="'n' parameter of roc_n_scores"):
        roc_n_scores([RetrievalList(id="q", n_relevant=1, scores=[0.5], relevance=[1])], 0)


# --------------------------------------------------------------------------
# Term-centric measures
# --------------------------------------------------------------------------
def oracle_term(y, s):
    """ROC AUC by pair counting (ties count 1/2); AP over distinct thresholds."""
    pos = [v for v, t in zip(s, y) if t]
    neg = [v for v, t in zip(s, y) if not t]
    auc = math.nan
    if pos and neg:
        wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
        auc = wins / (len(pos) * len(neg))
    ap, prev_recall = 0.0, 0.0
    for thr in sorted(set(s), reverse=True):
        tp = sum(1 for v, t in zip(s, y) if t and v >= thr)
        k = sum(1 for v in s if v >= thr)
        recall = tp / len(pos)
        ap += (recall - prev_recall) * tp / k
        prev_recall = recall
    return auc, ap


def _random_matrices(rng, n, m, density=0.5, decimals=1):
    truth = rng.random((n, m)) < rng.uniform(0.05, 0.6)
    scores = np.round(rng.random((n, m)), decimals) * (rng.random((n, m)) < density)
    return truth, scores


@pytest.mark.parametrize("seed", range(12))
def test_term_centric_matches_sklearn_and_oracle(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 40)), int(rng.integers(1, 15))
    truth, scores = _random_matrices(rng, n, m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        res = term_centric_scores(sp.csr_array(truth), sp.csc_matrix(scores), min_positives=1)
    assert res.term_index.tolist() == [j for j in range(m) if truth[:, j].sum() >= 1]
    for i, j in enumerate(res.term_index):
        y, s = truth[:, j], scores[:, j]
        auc, ap = oracle_term(y.tolist(), s.tolist())
        assert res.n_positives[i] == y.sum()
        assert res.average_precision[i] == pytest.approx(ap, rel=1e-12)
        assert res.average_precision[i] == pytest.approx(average_precision_score(y, s), rel=1e-12)
        if y.all():
            assert math.isnan(res.roc_auc[i])
        else:
            assert res.roc_auc[i] == pytest.approx(auc, rel=1e-12)
            assert res.roc_auc[i] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert res.macro_average_precision == pytest.approx(np.mean(res.average_precision))
    assert res.macro_roc_auc == pytest.approx(np.nanmean(res.roc_auc))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_term_centric_property(data):
    n = data.draw(st.integers(2, 12))
    m = data.draw(st.integers(1, 5))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))).reshape(n, m)
    vals = data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.3, 0.5, 1.0, -0.2]), min_size=n * m, max_size=n * m))
    s = np.array(vals).reshape(n, m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        res = term_centric_scores(sp.coo_array(y), sp.coo_array(s), min_positives=1)
    for i, j in enumerate(res.term_index):
        auc, ap = oracle_term(y[:, j].tolist(), s[:, j].tolist())
        assert res.average_precision[i] == pytest.approx(ap, rel=1e-12)
        assert (math.isnan(auc) and math.isnan(res.roc_auc[i])) or res.roc_auc[i] == pytest.approx(auc, rel=1e-12)


def test_term_centric_min_positives_and_explicit_zeros():
    truth = sp.csc_array(np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=bool))
    dense = np.array([[0.9, 0.0, 0.2], [0.4, 0.3, 0.0], [0.6, 0.0, 0.5], [0.0, 0.0, 0.1]])
    coo = sp.coo_array(dense)
    # the same scores with an explicitly stored 0 for protein 3, term 0
    with_zero = sp.coo_array((np.r_[coo.data, 0.0], (np.r_[coo.row, 3], np.r_[coo.col, 0])), shape=(4, 3))
    a = term_centric_scores(truth, coo, min_positives=2)
    b = term_centric_scores(truth, with_zero, min_positives=2)
    assert a.term_index.tolist() == [0, 2]
    assert_allclose(a.roc_auc, b.roc_auc)
    assert_allclose(a.average_precision, b.average_precision)
    assert a.roc_auc[0] == pytest.approx(roc_auc_score(truth.toarray()[:, 0], dense[:, 0]))


def test_term_centric_all_positive_warns():
    truth = sp.csc_array(np.ones((3, 1), dtype=bool))
    with pytest.warns(GoevalWarning, match="annotated to every protein"):
        res = term_centric_scores(truth, sp.csc_array(np.array([[0.2], [0.0], [0.9]])), min_positives=1)
    assert math.isnan(res.roc_auc[0]) and res.average_precision[0] == 1.0


def test_term_centric_errors():
    t = sp.csc_array(np.ones((3, 2), dtype=bool))
    with pytest.raises(InvalidParameterError, match="same shape"):
        term_centric_scores(t, sp.csc_array((3, 1)))
    with pytest.raises(InvalidParameterError, match="'min_positives'"):
        term_centric_scores(t, sp.csc_array((3, 2)), min_positives=0)


# --------------------------------------------------------------------------
# Informative-term ROC AUC (DeepGO-SE) and weighted term means (BeProf weights)
# --------------------------------------------------------------------------
def oracle_informative_auc(truth, scores, information, cutoff):
    """DeepGO-SE's evaluate_terms.py loop: skip ic < cutoff, keep 0 < positives < n, sklearn roc_curve + auc."""
    from sklearn.metrics import auc, roc_curve

    per = {}
    for j in range(truth.shape[1]):
        if information[j] < cutoff:
            continue
        pos_n = truth[:, j].sum()
        if 0 < pos_n < truth.shape[0]:
            fpr, tpr, _ = roc_curve(truth[:, j], scores[:, j])
            per[j] = auc(fpr, tpr)
    return per, (sum(per.values()) / len(per) if per else math.nan)


@pytest.mark.parametrize("seed", range(12))
def test_informative_roc_auc_matches_deepgo_se_loop(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 40)), int(rng.integers(1, 20))
    truth, scores = _random_matrices(rng, n, m)
    truth[:, 0] = True  # a term annotated to every protein: never informative, no warning
    information = np.round(rng.uniform(-0.2, 2.0, m), 1)  # ties with the cutoff included
    cutoff = float(rng.choice([0.0, 0.5, 1.0]))
    want, mean = oracle_informative_auc(truth, scores, information, cutoff)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GoevalWarning)
        res = informative_roc_auc(sp.csr_array(truth), sp.csc_matrix(scores), information, cutoff)
    assert res.term_index.tolist() == sorted(want)
    for i, j in enumerate(res.term_index):
        assert res.roc_auc[i] == pytest.approx(want[j], rel=1e-12)
        assert res.roc_auc[i] == pytest.approx(oracle_term(truth[:, j].tolist(), scores[:, j].tolist())[0], rel=1e-12)
    assert (math.isnan(mean) and math.isnan(res.macro_roc_auc)) or res.macro_roc_auc == pytest.approx(mean, rel=1e-12)


def test_informative_roc_auc_edge_cases():
    # columns: no positive; every protein positive; ties only; informative; below the cutoff; exactly at it
    truth = np.array([[0, 1, 1, 1, 1, 1], [0, 1, 0, 0, 1, 0], [0, 1, 1, 1, 0, 0], [0, 1, 0, 0, 0, 1]], dtype=bool)
    scores = np.array([[0.5, 0.9, 0.3, 0.8, 0.8, 0.1], [0.2, 0.1, 0.3, 0.1, 0.4, 0.0],
                       [0.0, 0.4, 0.3, 0.9, 0.0, 0.7], [0.0, 0.0, 0.3, 0.0, 0.1, 0.2]])
    info = np.array([3.0, 3.0, 3.0, 3.0, 0.49, 0.5])
    res = informative_roc_auc(sp.csc_array(truth), sp.csc_array(scores), info, 0.5)
    assert res.term_index.tolist() == [2, 3, 5]
    assert res.roc_auc.tolist() == [0.5, 1.0, roc_auc_score(truth[:, 5], scores[:, 5])]
    assert res.n_positives.tolist() == [2, 2, 2]
    none = informative_roc_auc(sp.csc_array(truth), sp.csc_array(scores), info, 10.0)
    assert none.term_index.size == 0 and math.isnan(none.macro_roc_auc)


def test_informative_roc_auc_errors():
    t = sp.csc_array(np.ones((3, 2), dtype=bool))
    with pytest.raises(InvalidParameterError, match="same shape"):
        informative_roc_auc(t, sp.csc_array((3, 1)), [1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="'information'.*one number per term"):
        informative_roc_auc(t, sp.csc_array((3, 2)), [1.0])
    with pytest.raises(InvalidParameterError, match="'information'"):
        informative_roc_auc(t, sp.csc_array((3, 2)), [1.0, np.nan])
    with pytest.raises(InvalidParameterError, match="'cutoff'"):
        informative_roc_auc(t, sp.csc_array((3, 2)), [1.0, 1.0], cutoff=np.inf)


@pytest.mark.parametrize("seed", range(8))
def test_weighted_term_mean_and_depth_weights_match_a_loop(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 30))
    values = np.where(rng.random(m) < 0.2, np.nan, rng.random(m))
    info = rng.uniform(-0.5, 4.0, m)
    depth = rng.integers(0, 12, m)
    num = den = dnum = dden = 0.0
    for x, i, d in zip(values, info, depth):
        w = max(i, 0.0)
        dw = math.log2(d) * w if d >= 1 else 0.0
        if not math.isnan(x):
            num, den, dnum, dden = num + w * x, den + w, dnum + dw * x, dden + dw
    dws = depth_weights(info, depth)
    assert dws.tolist() == pytest.approx([math.log2(d) * max(i, 0.0) if d >= 1 else 0.0
                                          for i, d in zip(info, depth)], rel=1e-12)
    for got, n_, d_ in ((weighted_term_mean(values, info), num, den), (weighted_term_mean(values, dws), dnum, dden)):
        assert (d_ == 0 and math.isnan(got)) or got == pytest.approx(n_ / d_, rel=1e-12)


def test_weighted_term_mean_edge_cases():
    assert weighted_term_mean([0.2, 0.8], [1.0, 3.0]) == pytest.approx(0.65)
    assert weighted_term_mean([0.2, 0.8], [-1.0, 3.0]) == pytest.approx(0.8)  # a negative weight counts as 0
    assert math.isnan(weighted_term_mean([0.2, np.nan], [0.0, 1.0]))  # the only weighted value is missing
    assert math.isnan(weighted_term_mean([], []))
    assert depth_weights([2.0, 2.0, 2.0], [1, 2, 4]).tolist() == [0.0, 2.0, 4.0]  # a root weighs 0
    with pytest.raises(InvalidParameterError, match="'weights'"):
        weighted_term_mean([0.2, 0.8], [1.0])
    with pytest.raises(InvalidParameterError, match="'depth'"):
        depth_weights([1.0, 1.0], [1])
