"""Information accretion: the paper's Fig. 1, pseudo-counts, a counting oracle, real data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import ancestors_oracle, random_dag_edges, shared_path

import goeval
from goeval.annotations import Annotations
from goeval.errors import GoevalError, InvalidParameterError
from goeval.information.accretion import information_accretion, information_content
from goeval.ontology import ontology_from_edges

FIG1_EDGES = [("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")]
# a data set consistent with Fig. 1A: Pr(b|a) = 1/2, Pr(c|a) = 1, Pr(d|b) = 1/2, Pr(e|c) = 1/4
FIG1_DATA = {"p1": ["e"], "p2": ["d", "c"], "p3": ["b", "c"], "p4": ["c"]}


def fig1():
    onto = ontology_from_edges(FIG1_EDGES)
    prots = [p for p, ts in FIG1_DATA.items() for _ in ts]
    terms = [t for ts in FIG1_DATA.values() for t in ts]
    return onto, Annotations.from_pairs(onto, prots, terms)


def test_fig1_without_pseudocount():
    onto, truth = fig1()
    ia = information_accretion(onto, truth, pseudocount=0)
    assert [ia[t] for t in "abcde"] == [0.0, 1.0, 0.0, 1.0, 2.0]
    # i(ace) = 2, i(ab) = 1, i(abcde) = 4 (Fig. 1C and caption)
    sets = Annotations.from_pairs(onto, ["x"] * 3 + ["y"] * 2 + ["z"] * 5, list("ace") + list("ab") + list("abcde"))
    np.testing.assert_allclose(information_content(ia.values, sets), [2.0, 1.0, 4.0])


def test_fig1_with_pseudocount():
    onto, truth = fig1()
    ia = information_accretion(onto, truth)  # c = 1
    # ia(e) = -log2((n(e)+1)/(n(c)+1)) = -log2(2/5); roots stay 0
    assert ia["e"] == pytest.approx(-math.log2(2 / 5))
    assert ia["b"] == pytest.approx(-math.log2(3 / 5))
    assert ia["c"] == 0.0
    assert ia["d"] == pytest.approx(-math.log2(2 / 3))
    assert ia["a"] == 0.0


def test_unseen_term_finite_with_pseudocount_and_error_without():
    onto = ontology_from_edges(FIG1_EDGES + [("f", "e")])
    _, truth = fig1()
    truth = Annotations.from_pairs(onto, ["p1", "p2", "p2", "p3", "p3", "p4"], ["e", "d", "c", "b", "c", "c"])
    ia = information_accretion(onto, truth)
    assert ia["f"] == pytest.approx(-math.log2(1 / 2))
    with pytest.raises(GoevalError, match="pseudocount"):
        information_accretion(onto, truth, pseudocount=0)


def test_frequency_method_keeps_term_information():
    onto, truth = fig1()
    ia = information_accretion(onto, truth, pseudocount=0, method="frequency")
    # i({v} U anc(v)) must equal -log2(n(v)/N)
    n = {"a": 4, "b": 2, "c": 4, "d": 1, "e": 1}
    for v, nv in n.items():
        anc = ancestors_oracle(FIG1_EDGES, v)
        assert sum(ia[u] for u in anc) == pytest.approx(-math.log2(nv / 4))


def test_bad_parameters():
    onto, truth = fig1()
    with pytest.raises(InvalidParameterError, match="pseudocount"):
        information_accretion(onto, truth, pseudocount=-1)
    with pytest.raises(InvalidParameterError, match="method"):
        information_accretion(onto, truth, method="magic")


@pytest.mark.parametrize("seed", range(6))
def test_counting_oracle(seed):
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, 35)
    onto = ontology_from_edges(edges)
    prots, terms = [], []
    for p in range(25):
        for t in rng.choice(35, size=int(rng.integers(1, 4)), replace=False):
            prots.append(f"p{p}")
            terms.append(f"t{t}")
    truth = Annotations.from_pairs(onto, prots, terms)
    sets: dict[str, set[str]] = {}
    for p, t in zip(prots, terms):
        sets.setdefault(p, set()).update(ancestors_oracle(edges, t))
    parents: dict[str, set[str]] = {}
    for c, par in edges:
        parents.setdefault(c, set()).add(par)
    ia = information_accretion(onto, truth, pseudocount=1.0)
    for v in onto.ids:
        if v == "t0":
            assert ia[v] == 0
            continue
        nv = sum(v in s for s in sets.values())
        npa = sum(parents[v] <= s for s in sets.values())
        assert ia[v] == pytest.approx(-math.log2((nv + 1) / (npa + 1)), rel=1e-12)
    itc = information_content(ia.values, goeval.propagate(truth))
    for i, p in enumerate(goeval.propagate(truth).proteins):
        assert itc[i] == pytest.approx(sum(ia[v] for v in sets[p]))


def test_real_human_2014():
    onto = goeval.load_ontology(shared_path("data", "go", "go_2014-10-27.obo.gz"))
    truth = goeval.load_annotations(shared_path("data", "goa", "exp_human_2014-10-12.tsv.gz"), onto)
    assert truth.diagnostics["rows_by_term_status"]["unknown"] == 0
    ia = information_accretion(onto, truth)
    assert np.isfinite(ia.values).all() and (ia.values >= 0).all()
    assert (ia.values[onto.roots()] == 0).all()
    assert ia.namespaces == ("BPO", "MFO", "CCO")
    assert ia.values.max() > 10
