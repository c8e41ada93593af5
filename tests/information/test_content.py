"""Term information content IC(v) = -log2((n(v) + c) / (N + c)) from annotations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import goeval
from goeval.errors import GoevalError, InvalidParameterError
from goeval.information.content import term_information_content

# Fig. 1 of Clark & Radivojac (2013): a -> b -> d, a -> c -> e; four proteins
EDGES = [("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")]
PROTEINS = ["p1", "p2", "p2", "p3", "p3", "p4"]
TERMS = ["e", "d", "c", "b", "c", "c"]


def _fig1():
    onto = goeval.ontology_from_edges(EDGES)
    return onto, goeval.Annotations.from_pairs(onto, PROTEINS, TERMS)


def test_hand_values_with_and_without_pseudocount():
    onto, truth = _fig1()
    # propagated: p1 {a,c,e}, p2 {a,b,c,d}, p3 {a,b,c}, p4 {a,c}: n = a4 b2 c4 d1 e1, N = 4
    ic0 = term_information_content(onto, truth, pseudocount=0)
    assert [ic0[t] for t in "abcde"] == [0.0, 1.0, 0.0, 2.0, 2.0]
    ic1 = term_information_content(onto, truth)
    expected = {"a": 0.0, "b": -math.log2(3 / 5), "c": 0.0, "d": -math.log2(2 / 5), "e": -math.log2(2 / 5)}
    for t, v in expected.items():
        assert ic1[t] == pytest.approx(v, rel=1e-15)
    assert_allclose(ic1.probability[[onto.index(t) for t in "abcde"]], [1, 3 / 5, 1, 2 / 5, 2 / 5])
    assert ic1.n_term[onto.index("b")] == 2 and set(ic1.n_namespace.tolist()) == {4}


def test_root_has_zero_ic_for_every_pseudocount_and_proteins_not_rows_are_counted():
    onto, _ = _fig1()
    # the same protein annotated twice with d (and its ancestors) counts once
    truth = goeval.Annotations.from_pairs(onto, ["p1", "p1", "p1", "p2"], ["d", "d", "b", "e"])
    for c in (0.0, 0.5, 1.0, 7.0):
        ic = term_information_content(onto, truth, pseudocount=c)
        assert ic["a"] == 0.0
        assert ic["d"] == pytest.approx(-math.log2((1 + c) / (2 + c)))


def test_several_roots():
    onto = goeval.ontology_from_edges([("b", "a"), ("y", "x")])  # two roots, one namespace
    truth = goeval.Annotations.from_pairs(onto, ["p1", "p2", "p3"], ["b", "a", "y"])
    ic = term_information_content(onto, truth, pseudocount=1)
    assert ic["a"] == pytest.approx(-math.log2(3 / 4))  # carried by 2 of the 3 proteins
    assert ic["x"] == pytest.approx(-math.log2(2 / 4))


def test_pseudocount_zero_with_unseen_term_is_an_error():
    onto, truth = _fig1()
    onto2 = goeval.ontology_from_edges(EDGES + [("f", "e")])
    truth2 = goeval.Annotations.from_pairs(onto2, PROTEINS, TERMS)
    with pytest.raises(GoevalError, match="infinite information content"):
        term_information_content(onto2, truth2, pseudocount=0)
    ic = term_information_content(onto2, truth2, pseudocount=1)
    assert ic["f"] == pytest.approx(math.log2(5))
    assert ic.diagnostics["terms_never_annotated"] == 1


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "1"])
def test_invalid_pseudocount(bad):
    onto, truth = _fig1()
    with pytest.raises(InvalidParameterError, match="'pseudocount' parameter of term_information_content"):
        term_information_content(onto, truth, pseudocount=bad)


def test_scores_are_refused():
    onto, _ = _fig1()
    scores = goeval.Annotations.from_pairs(onto, ["p1"], ["d"], [0.5])
    with pytest.raises(InvalidParameterError, match="truth annotations"):
        term_information_content(onto, scores)


def _oracle(onto, truth, c):
    """Python sets: propagate every protein, count proteins per term."""
    parents = {v: set(onto.parents_of(v).tolist()) for v in range(onto.n_terms)}

    def anc(v):
        seen, stack = {v}, [v]
        while stack:
            for p in parents[stack.pop()]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return seen

    m = truth.matrix.tocsr()
    sets = []
    for i in range(m.shape[0]):
        s = set()
        for v in m.indices[m.indptr[i] : m.indptr[i + 1]].tolist():
            s |= anc(v)
        if s:
            sets.append(s)
    n = len(sets)
    counts = {}
    for s in sets:
        for v in s:
            counts[v] = counts.get(v, 0) + 1
    return np.array([-math.log2((counts.get(v, 0) + c) / (n + c)) for v in range(onto.n_terms)])


def test_bundled_cafa2_mfo_against_slow_oracle():
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    ic = term_information_content(onto, truth)
    assert_allclose(ic.values, _oracle(onto, truth, 1.0), rtol=1e-13, atol=1e-13)
    assert ic.values[onto.roots()].tolist() == [0.0]
    # monotone: an ancestor is never more informative than its descendant
    a = onto.ancestors_csr.tocoo()
    assert (ic.values[a.col] <= ic.values[a.row] + 1e-12).all()
