"""keep_top_terms: the N best scores per protein and namespace, ties by depth then term id."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import random_case

import goeval
from goeval.baselines import top_terms
from goeval.errors import InvalidParameterError
from goeval.annotations.top_terms import keep_top_terms, tie_rank
from goeval.ontology import ontology_from_edges


def test_ties_are_broken_by_depth_then_id():
    onto = ontology_from_edges([("a", "r"), ("b", "r"), ("c", "a"), ("d", "r")])
    pred = goeval.Annotations.from_pairs(onto, ["P"] * 4, ["c", "d", "b", "a"], [0.5, 0.5, 0.5, 0.9])
    top = keep_top_terms(pred, 3)
    assert sorted(onto.ids[top.matrix.indices].tolist()) == ["a", "b", "d"]  # c is deeper
    assert top.diagnostics["max_terms"] == 3 and top.diagnostics["max_terms_dropped"] == 1
    assert [onto.ids[i] for i in np.argsort(tie_rank(onto))] == ["r", "a", "b", "d", "c"]
    whole = keep_top_terms(pred, 10)
    assert whole.matrix.nnz == 4 and whole.diagnostics["max_terms_dropped"] == 0


def test_parameters_are_checked():
    onto = ontology_from_edges([("a", "r")])
    pred = goeval.Annotations.from_pairs(onto, ["P"], ["a"], [0.5])
    for bad in (0, -1, 2.5, True, None):
        with pytest.raises(InvalidParameterError, match="'n' parameter of keep_top_terms"):
            keep_top_terms(pred, bad)
    with pytest.raises(InvalidParameterError, match="prediction scores"):
        keep_top_terms(goeval.Annotations.from_pairs(onto, ["P"], ["a"]), 2)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_same_cut_as_the_baselines(seed, n):
    """Random DAGs over several namespaces, scores with many ties: the same cells as
    goeval.baselines.top_terms (a lexsort over every cell), and independent of row order."""
    case = random_case(seed)
    onto = case.ontology()
    pred = case.predictions(onto)
    a, b = keep_top_terms(pred, n).matrix.tocsr(), top_terms(pred, n).matrix.tocsr()
    a.sort_indices(), b.sort_indices()
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    assert np.array_equal(a.data, b.data)
    perm = np.random.default_rng(seed).permutation(pred.proteins.size)
    shuffled = goeval.Annotations(proteins=pred.proteins[perm], matrix=pred.matrix.tocsr()[perm], ontology=onto)
    c = keep_top_terms(shuffled, n).matrix.tocsr()[np.argsort(perm)]
    c.sort_indices()
    assert (c != a).nnz == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [1, 3, 9])
def test_cap_over_all_namespaces_keeps_the_best_of_each_protein(seed, n):
    """per_namespace=False (CAFA 6's 1500 terms per protein over MF, BP and CC): an oracle sorting each
    protein's cells by (score descending, depth, term id) over every namespace."""
    case = random_case(seed)
    onto = case.ontology()
    pred = case.predictions(onto)
    top = keep_top_terms(pred, n, per_namespace=False)
    m, rank = pred.matrix.tocsr(), tie_rank(onto)
    got = top.matrix.tocsr()
    for i in range(m.shape[0]):
        cols, vals = m.indices[m.indptr[i]:m.indptr[i + 1]], m.data[m.indptr[i]:m.indptr[i + 1]]
        best = sorted(zip(-vals, rank[cols], cols))[:n]
        assert sorted(c for *_, c in best) == sorted(got.indices[got.indptr[i]:got.indptr[i + 1]].tolist())
    assert top.diagnostics["max_terms_total"] == n
    assert top.diagnostics["max_terms_total_dropped"] == m.nnz - got.nnz
    assert len({onto.namespace_of[c] for c in m.indices}) > 1  # the cut spans namespaces


def test_the_console_says_what_the_cap_dropped():
    from goeval.report.text import describe_reading

    line = describe_reading("m", {"rows_read": 4, "max_terms_total": 1500, "max_terms_total_dropped": 7})
    assert "7 score(s) beyond 1,500 terms per protein dropped" in line
