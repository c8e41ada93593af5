"""Rank thresholds (``thresholds='top:1,3,5'``): every protein-centric measure at k equals a brute-force oracle.

The oracle keeps, for each k, the k best terms of each protein and namespace
(:func:`~goeval.annotations.top_terms.keep_top_terms`: ties by depth, then
identifier), gives them all the score 1, and evaluates that at one
threshold; the rank run sweeps every k at once on the scores ``1 / rank``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import goeval
from goeval.annotations import Annotations
from goeval.annotations.top_terms import keep_top_terms, rank_scores
from goeval.errors import InvalidParameterError

COLUMNS = ["n_proteins", "n_covered", "coverage", "precision", "recall", "f", "ru", "mi", "s", "wprecision",
           "wrecall", "wf"]


def _binary(pred: Annotations, k: float) -> Annotations:
    """The oracle's predictions at k: the k best terms (all of them for inf), each scored 1."""
    top = pred if np.isinf(k) else keep_top_terms(pred, int(k))
    m = top.matrix.tocsr()
    m = sp.csr_array((np.ones_like(m.data), m.indices, m.indptr), shape=m.shape)
    return Annotations(proteins=top.proteins, matrix=m, ontology=pred.ontology, propagated=False, diagnostics={})


def _oracle_rows(onto, truth, pred, ia, ks) -> pd.DataFrame:
    rows = []
    for k in ks:
        res = goeval.evaluate(onto, truth, {"m": _binary(pred, k)}, ia=ia, thresholds=0.5, allow_empty=True)
        c = res.curves
        rows.append(c[c["threshold"] == 1.0].assign(threshold=float(k)))
    return pd.concat(rows, ignore_index=True)


def _case(seed: int, n_proteins: int = 30, ties: bool = True):
    rng = np.random.default_rng(seed)
    edges = [(f"GO:{i:04d}", f"GO:{int(rng.integers(0, i)):04d}") for i in range(1, 60)]
    onto = goeval.ontology_from_edges(edges)
    proteins = [f"P{i}" for i in range(n_proteins)]
    t_p, t_t = [], []
    for p in proteins:
        for t in rng.choice(60, size=int(rng.integers(1, 4)), replace=False):
            t_p.append(p), t_t.append(f"GO:{t:04d}")
    truth = Annotations.from_pairs(onto, t_p, t_t)
    p_p, p_t, p_s = [], [], []
    for p in proteins[: n_proteins - 2]:  # two proteins without predictions
        n = int(rng.integers(1, 15))
        for t in rng.choice(60, size=n, replace=False):
            p_p.append(p), p_t.append(f"GO:{t:04d}")
            p_s.append(float(rng.choice([0.25, 0.5, 0.75])) if ties else float(rng.uniform(0.01, 1)))
    pred = Annotations.from_pairs(onto, p_p, p_t, p_s)
    ia = rng.uniform(0, 3, onto.n_terms)
    return onto, truth, pred, ia


@pytest.mark.parametrize("seed,ties", [(0, True), (1, True), (2, False)])
def test_every_measure_at_k_equals_the_oracle_ties_included(seed, ties):
    onto, truth, pred, ia = _case(seed, ties=ties)
    ks = (1.0, 2.0, 3.0, 5.0, 8.0, np.inf)
    res = goeval.evaluate(onto, truth, {"m": pred}, ia=ia, thresholds="top:1,2,3,5,8,all")
    got = res.curves.sort_values("threshold").reset_index(drop=True)
    want = _oracle_rows(onto, truth, pred, ia, ks).sort_values("threshold").reset_index(drop=True)
    assert got["threshold"].tolist() == list(ks)
    pd.testing.assert_frame_equal(got[COLUMNS], want[COLUMNS], rtol=1e-12, atol=1e-12)
    f = res.summary.set_index("measure").loc["fmax"]
    assert f["value"] == pytest.approx(got["f"].max(), abs=0) and f["threshold"] in ks


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_ranks_follow_the_cut_of_max_terms(seed):
    """The terms of rank <= k are exactly those keep_top_terms keeps, for every k (ties included)."""
    _, _, pred, _ = _case(seed, n_proteins=8)
    r = rank_scores(pred).matrix.tocsr()
    for k in (1, 2, 4):
        kept = keep_top_terms(pred, k).matrix.tocsr()
        mask = r.data >= 1.0 / k
        by_rank = sp.csr_array((mask.astype(float), r.indices.copy(), r.indptr.copy()), shape=r.shape)
        by_rank.eliminate_zeros()
        assert (by_rank != (kept > 0)).nnz == 0


def test_rank_thresholds_are_refused_with_fill_propagation_and_malformed_lists():
    with pytest.raises(InvalidParameterError, match="max propagation"):
        goeval.options.EvaluationOptions.resolve(thresholds="top:1,3", propagation="fill")
    for bad in ("top:", "top:0", "top:1,1", "top:a"):
        with pytest.raises(InvalidParameterError, match="rank"):
            goeval.options.EvaluationOptions.resolve(thresholds=bad)


def test_the_command_prints_k_and_streams_to_the_same_bits(tmp_path):
    from goeval.cli import main

    d = goeval.example_path
    common = ["evaluate", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
              str(d("predictions")), "--ia", str(d("ia")), "--thresholds", "top:1,3,5,10,all", "-q"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    assert main([*common, "--out", str(tmp_path / "b"), "--stream"]) == 0
    a = pd.read_csv(tmp_path / "a" / "curves.tsv", sep="\t")
    assert sorted(a["threshold"].tolist()) == [1.0, 3.0, 5.0, 10.0, np.inf]
    assert (tmp_path / "a" / "summary.tsv").read_bytes() == (tmp_path / "b" / "summary.tsv").read_bytes()
