"""Wang's graph-based term similarity: the paper's worked example, GOSemSim's pairings, GO 2019 against an oracle."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import shared_path
from numpy.testing import assert_allclose

import goeval
from goeval.errors import InvalidParameterError
from goeval.metrics.similarity import pair_similarity, set_similarity, term_similarity
from goeval.metrics.wang import wang_pairs, wang_svalues, wang_weights
from tests.metrics.test_similarity import obo_parents, wang_oracle

# Wang et al. 2007, Fig. 1: the DAG of GO:0043231 "intracellular membrane-bounded organelle" (GO of 2007),
# as transcribed with the paper's Table 1 in goatools' tests/data/ssWang (fig1.obo, tbl1.py).
FIG1 = [("GO:0005623", "GO:0005575"), ("GO:0005622", "GO:0005623", "part_of"), ("GO:0043226", "GO:0005575"),
        ("GO:0043227", "GO:0043226"), ("GO:0043229", "GO:0043226"), ("GO:0043229", "GO:0005622", "part_of"),
        ("GO:0043231", "GO:0043229"), ("GO:0043231", "GO:0043227")]
# Table 1: the S-values of the terms of DAG(GO:0043231)
TABLE1 = {"GO:0043231": 1.0, "GO:0043229": 0.8, "GO:0043227": 0.8, "GO:0005622": 0.48, "GO:0005623": 0.288,
          "GO:0043226": 0.64, "GO:0005575": 0.512}


@pytest.fixture(scope="module")
def fig1():
    return goeval.ontology_from_edges(FIG1)


def test_paper_table1_svalues_and_similarity(fig1):
    sv = wang_svalues(fig1, 0, fig1.n_terms)
    row = sv.matrix[[fig1.index("GO:0043231")]]
    assert_allclose([row[0, fig1.index(t)] for t in TABLE1], list(TABLE1.values()), rtol=1e-15)
    assert row.nnz == len(TABLE1) and sv.total[fig1.index("GO:0043231")] == pytest.approx(4.52, rel=1e-15)
    # the paper's similarity of GO:0043231 and GO:0043229 "intracellular organelle": 0.7727
    got = term_similarity(fig1, None, "GO:0043231", "GO:0043229", "wang")
    assert got == pytest.approx((2.72 + 3.4) / (4.52 + 3.4), rel=1e-14) and round(got, 4) == 0.7727
    assert term_similarity(fig1, None, "GO:0043229", "GO:0043231", "wang") == got
    assert term_similarity(fig1, None, "GO:0043231", "GO:0043231", "wang") == 1.0


def test_weights_are_settable(fig1):
    # part_of = 0.8 too: S(GO:0005622) = 0.64, S(GO:0005623) = 0.512 for GO:0043231; 0.8 and 0.64 for GO:0043229
    got = term_similarity(fig1, None, "GO:0043231", "GO:0043229", "wang", wang_weights={"part_of": 0.8})
    a = {"GO:0043231": 1, "GO:0043229": .8, "GO:0043227": .8, "GO:0005622": .64, "GO:0005623": .512,
         "GO:0043226": .64, "GO:0005575": .512}
    b = {"GO:0043229": 1, "GO:0043226": .8, "GO:0005622": .8, "GO:0005623": .64, "GO:0005575": .64}
    assert got == pytest.approx(sum(a[t] + b[t] for t in b) / (sum(a.values()) + sum(b.values())), rel=1e-14)
    assert wang_weights("part_of=0.8") == (("is_a", 0.8), ("part_of", 0.8))
    assert wang_weights({"regulates": 0.7}) == (("is_a", 0.8), ("part_of", 0.6), ("regulates", 0.7))
    for bad, why in (("part_of:0.8", "RELATION=WEIGHT"), ("is_a=0", r"\(0, 1\]"), ("is_a=x", r"\(0, 1\]"),
                     ("is_a=0.5,is_a=0.6", "more than once")):
        with pytest.raises(InvalidParameterError, match=why):
            wang_weights(bad)


def test_followed_relation_without_weight_is_an_error(tiny_obo):
    onto = goeval.load_ontology(tiny_obo, cache=False, relations=("is_a", "part_of", "regulates"))
    with pytest.raises(InvalidParameterError, match=r"no weight for the relation\(s\) \['regulates'\]"):
        term_similarity(onto, None, "GO:0000004", "GO:0000005", "wang")
    assert 0 < term_similarity(onto, None, "GO:0000004", "GO:0000005", "wang", wang_weights="regulates=0.7") < 1


def _gosemsim(scores: np.ndarray, combine: str) -> float:
    """GOSemSim's combineScores (R/combineMethods.R) for a matrix without NA, unrounded."""
    if combine == "avg":
        return float(scores.mean())
    if combine == "max":
        return float(scores.max())
    rows, cols = scores.max(axis=1), scores.max(axis=0)
    if combine == "rcmax":
        return float(max(rows.mean(), cols.mean()))
    return float((rows.sum() + cols.sum()) / sum(scores.shape))  # BMA (rcmax.avg)


@pytest.mark.parametrize(("ours", "theirs"), [("max", "max"), ("all", "avg"), ("rcmax", "rcmax"), ("bma", "BMA")])
def test_pairings_are_gosemsim_combinations(fig1, ours, theirs):
    """Leaves of T: GO:0043227, GO:0005622; of P: GO:0043229, GO:0043227 (and a 2 x 1 case): goeval's
    pairing of the Wang matrix over the leaves equals GOSemSim's combination of the same matrix."""
    def closed(*terms):
        row = np.zeros(fig1.n_terms, bool)
        for t in terms:
            row[fig1.ancestors(t)] = True
        return row

    T = sp.csr_array(np.array([closed("GO:0043227", "GO:0005622"), closed("GO:0043227", "GO:0005622")]))
    P = sp.csr_array(np.array([closed("GO:0043229", "GO:0043227"), closed("GO:0043229")]))
    want = []
    for leaves in (["GO:0043229", "GO:0043227"], ["GO:0043229"]):
        m = np.array([[term_similarity(fig1, None, t, p, "wang") for p in leaves]
                      for t in ("GO:0043227", "GO:0005622")])
        want.append(_gosemsim(m, theirs))
    assert_allclose(set_similarity(fig1, None, T, P, "wang", ours), want, rtol=1e-14)
    if ours == "rcmax":  # the two directions differ here: rcmax is neither of the best-match averages
        assert want[0] not in (_gosemsim(m, "BMA"),)


def test_go_2019_random_pairs_against_slow_oracle():
    path = shared_path("data", "go", "go_2019-01-29.obo.gz")
    onto = goeval.load_ontology(path, cache=False)
    rel = obo_parents(path)
    sim = wang_oracle({onto.index(c): [(onto.index(q), r) for q, r in ps] for c, ps in rel.items()})
    rng = np.random.default_rng(2019)
    t, p = [], []
    for j in range(len(onto.namespaces)):
        lo, hi = int(onto.bounds[j]), int(onto.bounds[j + 1])
        t.append(rng.integers(lo, hi, 700))
        p.append(rng.integers(lo, hi, 700))
    t, p = np.concatenate(t), np.concatenate(p)
    p[:20] = t[:20]  # identical terms
    t[-10:] = rng.integers(0, int(onto.bounds[1]), 10)  # across namespaces: no common ancestor, 0
    p[-10:] = rng.integers(int(onto.bounds[1]), onto.n_terms, 10)
    got = pair_similarity(onto, None, t, p, "wang")
    want = [0.0 if onto.namespace_of[a] != onto.namespace_of[b] else sim(a, b) for a, b in zip(t.tolist(), p.tolist())]
    assert_allclose(got, want, rtol=0, atol=1e-12)
    assert (got[:20] == 1.0).all() and (got[-10:] == 0.0).all()
    j = 0  # the vectorized pairs of one namespace, in several chunks, equal the whole
    lo, hi = int(onto.bounds[j]), int(onto.bounds[j + 1])
    sel = (onto.namespace_of[t] == j) & (onto.namespace_of[p] == j)
    sv = wang_svalues(onto, lo, hi)
    assert_allclose(wang_pairs(sv, t[sel] - lo, p[sel] - lo, chunk_cells=hi - lo), got[sel], rtol=0, atol=1e-15)
