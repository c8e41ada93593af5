"""Mapping and propagation against a set-based oracle."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ancestors_oracle, random_dag_edges
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import goeval
from goeval.annotations import Annotations, is_consistent, propagate
from goeval.ontology import ontology_from_edges


def oracle_propagate(edges, scores: dict[tuple[str, str], float], mode: str) -> dict[tuple[str, str], float]:
    """Plain-Python propagation.

    max: s(v) = max over v and all its descendants' own scores.
    fill: f(v) = own(v) if v has an own score, else max over children c of f(c) (CAFA-evaluator).
    """
    terms = {t for e in edges for t in e[:2]}
    anc = {t: ancestors_oracle(edges, t) for t in terms}
    children: dict[str, list[str]] = {}
    for c, par in edges:
        children.setdefault(par, []).append(c)
    out: dict[tuple[str, str], float] = {}
    for p in {p for p, _ in scores}:
        own = {t: s for (q, t), s in scores.items() if q == p}
        if mode == "max":
            for v in terms:
                desc = [s for t, s in own.items() if v in anc[t]]
                if desc:
                    out[(p, v)] = max(desc)
            continue
        memo: dict[str, float | None] = {}

        def final(v: str) -> float | None:
            if v not in memo:
                if v in own:
                    memo[v] = own[v]
                else:
                    vals = [x for c in children.get(v, []) if (x := final(c)) is not None]
                    memo[v] = max(vals) if vals else None
            return memo[v]

        for v in terms:
            if final(v) is not None:
                out[(p, v)] = final(v)
    return out


def as_dict(ann: Annotations) -> dict[tuple[str, str], float]:
    m = ann.matrix.tocoo()
    vals = m.data if ann.is_scores else np.ones(m.nnz)
    return {(ann.proteins[r], ann.ontology.ids[c]): float(v) for r, c, v in zip(m.row, m.col, vals)}


def random_case(seed: int, n_terms: int = 40, n_prot: int = 12):
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, n_terms)
    onto = ontology_from_edges(edges)
    scores = {}
    for p in range(n_prot):
        for t in rng.choice(n_terms, size=int(rng.integers(0, 8)), replace=False):
            scores[(f"p{p}", f"t{t}")] = float(rng.choice([0.1, 0.25, 0.5, 0.75, 1.0, rng.random()]))
    return edges, onto, scores


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("mode", ["max", "fill"])
def test_propagation_matches_oracle(seed, mode):
    edges, onto, scores = random_case(seed)
    if not scores:
        return
    ann = Annotations.from_pairs(onto, [p for p, _ in scores], [t for _, t in scores], list(scores.values()))
    got = as_dict(propagate(ann, mode, buffer_cells=64))  # tiny buffer: many chunks
    want = oracle_propagate(edges, scores, mode)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == pytest.approx(want[k], abs=0)


@pytest.mark.parametrize("seed", range(4))
def test_truth_propagation_is_ancestor_closure(seed):
    edges, onto, scores = random_case(seed)
    ann = Annotations.from_pairs(onto, [p for p, _ in scores], [t for _, t in scores])
    got = set(as_dict(propagate(ann)))
    want = {(p, a) for (p, t) in scores for a in ancestors_oracle(edges, t)}
    assert got == want


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), mode=st.sampled_from(["max", "fill"]), cells=st.sampled_from([16, 1000, 1 << 22]))
def test_propagation_invariants(seed, mode, cells):
    """Idempotent, consistent (max), independent of the buffer size, scores only grow (max)."""
    _, onto, scores = random_case(seed, n_terms=30, n_prot=6)
    if not scores:
        return
    ann = Annotations.from_pairs(onto, [p for p, _ in scores], [t for _, t in scores], list(scores.values()))
    once = propagate(ann, mode, buffer_cells=cells)
    twice = propagate(once, mode, buffer_cells=cells)
    assert as_dict(once) == as_dict(twice)
    assert as_dict(once) == as_dict(propagate(ann, mode))
    if mode == "max":
        assert is_consistent(once)
        before = as_dict(ann)
        after = as_dict(once)
        assert all(after[k] >= v for k, v in before.items())


def test_mapping_counts(tiny_obo):
    onto = goeval.load_ontology(tiny_obo)
    ann = Annotations.from_pairs(
        onto,
        ["P1", "P1", "P1", "P2", "P2", "P3", "P3"],
        ["GO:0000012", "GO:0000002", "GO:0000006", "GO:0000007", "GO:9999999", "GO:0000004", "GO:0000004"],
        [0.2, 0.7, 0.5, 0.9, 0.9, 0.0, 0.3],
    )
    d = ann.diagnostics
    assert d["rows_by_term_status"] == {"primary": 3, "alt_id": 1, "replaced_by": 1, "obsolete": 1, "unknown": 1}
    assert d["unknown_terms"]["examples"] == ["GO:9999999"]
    assert d["duplicate_pairs"] == 1  # GO:0000012 is GO:0000002 for P1: max kept
    assert d["zero_scores_dropped"] == 1
    assert d["proteins_without_kept_rows"] == 1  # P2 only had dropped rows
    got = as_dict(ann)
    assert got == {("P1", "GO:0000002"): 0.7, ("P1", "GO:0000005"): 0.5, ("P3", "GO:0000004"): 0.3}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(1, 9)), max_size=40),
       st.booleans())
def test_mapped_rows_ascend_with_their_scores(tiny_obo, pairs, fallback):
    """Mapped rows hold their terms in ascending order with each its own score (duplicates: the maximum), the
    order propagation and the sweep read fastest, whichever order the pairs came in; also where the packed
    sort key would not fit (``fallback``)."""
    from goeval.annotations import core

    onto = goeval.load_ontology(tiny_obo)
    ids = onto.ids.tolist()
    proteins, terms, scores = [f"P{p}" for p, _, _ in pairs], [ids[t] for _, t, _ in pairs], [s / 10 for *_, s in pairs]
    want: dict = {}
    for p, t, s in zip(proteins, terms, scores):
        want[(p, t)] = max(want.get((p, t), 0.0), s)
    packed = core._packed_sort
    try:
        if fallback:
            core._packed_sort = lambda *_a: None
        ann = Annotations.from_pairs(onto, proteins, terms, scores)
    finally:
        core._packed_sort = packed
    m = ann.matrix
    assert as_dict(ann) == want
    assert all(np.all(np.diff(m.indices[m.indptr[i]:m.indptr[i + 1]]) > 0) for i in range(m.shape[0]))


def test_namespace_view(tiny_obo):
    onto = goeval.load_ontology(tiny_obo)
    ann = propagate(Annotations.from_pairs(onto, ["P1", "P2"], ["GO:0000004", "GO:0000011"]))
    mf = ann.namespace("MFO")
    assert mf.proteins.tolist() == ["P2"] and sorted(as_dict(mf)) == [("P2", "GO:0000010"), ("P2", "GO:0000011")]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("mode", ["max", "fill"])
@pytest.mark.parametrize("cells", [1, 64, 1 << 21])
def test_propagate_rows_is_the_kernel_of_propagate(seed, mode, cells):
    """The public per-namespace kernel gives the rows of propagate (any buffer size)."""
    from goeval.annotations import propagate_rows

    _, onto, scores = random_case(seed)
    ann = Annotations.from_pairs(onto, [p for p, _ in scores], [t for _, t in scores], list(scores.values()))
    m = ann.matrix.tocsr()
    m.sort_indices()
    counts, cols, vals = propagate_rows(m.indptr, m.indices.astype(np.int64), m.data, onto, 0, onto.n_terms, mode,
                                        buffer_cells=cells)
    want = propagate(ann, mode).matrix
    np.testing.assert_array_equal(np.r_[0, np.cumsum(counts)], want.indptr)
    np.testing.assert_array_equal(cols, want.indices)
    np.testing.assert_array_equal(vals, want.data)
    again = propagate_rows(np.r_[0, np.cumsum(counts)], cols.astype(np.int64), vals, onto, 0, onto.n_terms, mode)
    np.testing.assert_array_equal(again[2], vals)  # propagating twice equals once


def test_propagate_rows_rejects_an_unknown_mode():
    from goeval.annotations import propagate_rows
    from goeval.errors import InvalidParameterError

    onto = ontology_from_edges([("a", "r")])
    with pytest.raises(InvalidParameterError, match="mode"):
        propagate_rows(np.array([0, 1]), np.array([1]), np.array([0.5]), onto, 0, onto.n_terms, "min")
