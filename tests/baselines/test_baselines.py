"""Baselines: hand-computed toy values, slow set-based oracles, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import goeval
from goeval.baselines import (
    blast, combine_annotations, diamondscore, gotcha, gotcha_weight, knn_identity, naive, naive_scores, top_terms,
)
from goeval.errors import InvalidParameterError
from goeval.io.hits import HitTable, read_hits
from conftest import DATA, ancestors_oracle, random_dag_edges

D = DATA / "baselines"
COLS6 = ("qseqid", "sseqid", "pident", "length", "evalue", "bitscore")


@pytest.fixture(scope="module")
def toy():
    onto = goeval.load_ontology(D / "toy.obo")
    train = goeval.load_annotations(D / "train.tsv", onto)
    hits = read_hits(D / "hits6.tsv", COLS6)
    return onto, train, hits


def as_dict(pred) -> dict[tuple[str, str], float]:
    f = pred.to_frame()
    return {(p, t): s for p, t, s in zip(f["protein"], f["term"], f["score"])}


def g(n: int) -> str:
    return f"GO:{n:07d}"


# ------------------------------------------------------------- hand-computed
def test_naive_toy(toy):
    onto, train, _ = toy
    pred = naive(onto, train, ["x1", "x3"])
    got = as_dict(pred)
    # MFO: p1 {1,2,4}, p2 {1,2,3,5}, p3 {1,3}: N = 3; BPO: p1 {10,11,12}, p4 {10,11}: N = 2
    want = {g(1): 1.0, g(2): 2 / 3, g(3): 2 / 3, g(4): 1 / 3, g(5): 1 / 3, g(10): 1.0, g(11): 1.0, g(12): 0.5}
    for x in ("x1", "x3"):
        assert {t: s for (p, t), s in got.items() if p == x} == want
    assert (("x1", g(6)) not in got)  # never seen in training: not predicted
    assert pred.propagated and pred.proteins.tolist() == ["x1", "x3"]
    s, diag = naive_scores(onto, train, ["MFO"])
    assert diag["MFO"] == {"training_proteins": 3, "terms_seen": 5}
    assert s[onto.index(g(10))] == 0.0  # namespace not requested


def test_blast_toy(toy):
    onto, train, hits = toy
    pred = blast(onto, train, hits, ["x1", "x2", "x3"])
    got = as_dict(pred)
    want = {
        # x1: p1 (pident 100 -> exactly 1.0), p2 (0.5); self hit and q9 (not in training) removed
        ("x1", g(1)): 1.0, ("x1", g(2)): 1.0, ("x1", g(3)): 0.5, ("x1", g(4)): 1.0, ("x1", g(5)): 0.5,
        # BPO: p1 (1.0), p4 (0.4, annotated only in BPO)
        ("x1", g(10)): 1.0, ("x1", g(11)): 1.0, ("x1", g(12)): 1.0,
        # x2: p3 (0.3), p2 (0.6); neither is annotated in BPO
        ("x2", g(1)): 0.6, ("x2", g(2)): 0.6, ("x2", g(3)): 0.6, ("x2", g(5)): 0.6,
    }
    assert got == want
    assert pred.matrix[2].nnz == 0  # x3: no hits, an empty row
    h = pred.diagnostics["namespaces"]["MFO"]["hits"]
    assert h["self_hit"] == 1 and h["subject_not_in_training_set"] == 1
    assert h["subject_not_annotated_in_namespace"] == 1 and h["usable"] == 4
    assert pred.diagnostics["namespaces"]["BPO"]["hits"]["subject_not_annotated_in_namespace"] == 3


def test_gotcha_toy(toy):
    onto, train, hits = toy
    got = as_dict(gotcha(onto, train, hits, ["x1", "x2", "x3"]))
    # x1 MFO: w(p1) = 500 (E = 0), w(p2) = 10; r_root = 2 + 510
    assert got[("x1", g(1))] == 1.0 and got[("x1", g(2))] == 1.0  # supported by every usable hit
    assert_allclose(got[("x1", g(3))], 12 / 512)
    assert_allclose(got[("x1", g(4))], 502 / 512)
    assert_allclose(got[("x1", g(5))], 12 / 512)
    # x1 BPO: p1 (500), p4 (5)
    assert got[("x1", g(10))] == 1.0 and got[("x1", g(11))] == 1.0
    assert_allclose(got[("x1", g(12))], 502 / 507)
    # x2 MFO: p3 (E = 1e-3: 3), p2 (E = 1e-50: 50)
    assert got[("x2", g(1))] == 1.0 and got[("x2", g(3))] == 1.0
    assert_allclose(got[("x2", g(2))], 52 / 55)
    assert_allclose(got[("x2", g(5))], 52 / 55)
    assert ("x2", g(4)) not in got and not any(p == "x3" for p, _ in got)


def test_gotcha_weight_cap_and_zero():
    assert gotcha_weight(np.array([0.0]))[0] == 500.0
    assert gotcha_weight(np.array([1e-300]))[0] == 300.0
    assert gotcha_weight(np.array([5.0]))[0] == 0.0


def test_gotcha_zero_weight_hits_still_predict():
    onto = goeval.ontology_from_edges([("b", "a"), ("c", "a")])
    train = goeval.Annotations.from_pairs(onto, ["s1", "s2"], ["b", "c"])
    hits = HitTable.from_arrays(["x", "x"], ["s1", "s2"], pident=[50.0, 50.0], evalue=[2.0, 1e-4])
    got = as_dict(gotcha(onto, train, hits))
    assert_allclose(got[("x", "b")], 2 / 6)  # supported by a hit of weight 0: predicted, c / r_root
    assert_allclose(got[("x", "c")], 6 / 6)


def test_diamondscore_and_knn_toy(toy):
    onto, train, hits = toy
    ds = as_dict(diamondscore(onto, train, hits, ["x1"], namespaces=["MFO"]))
    assert ds[("x1", g(1))] == 1.0
    assert_allclose([ds[("x1", g(3))], ds[("x1", g(4))]], [80 / 260, 180 / 260])
    kn = as_dict(knn_identity(onto, train, hits, ["x1"], namespaces=["MFO"]))
    assert kn[("x1", g(2))] == 1.0
    assert_allclose([kn[("x1", g(3))], kn[("x1", g(4))]], [50 / 150, 100 / 150])
    assert all(t.startswith("GO:000000") for _, t in kn)  # MFO only


def test_filters_toy(toy):
    onto, train, hits = toy
    pred = blast(onto, train, hits, ["x2"], namespaces=["MFO"], max_evalue=1e-4)
    assert as_dict(pred) == {("x2", g(1)): 0.6, ("x2", g(2)): 0.6, ("x2", g(3)): 0.6, ("x2", g(5)): 0.6}
    h = pred.diagnostics["namespaces"]["MFO"]["hits"]
    assert h["query_not_target"] == 5 and h["evalue_above_max"] == 1 and h["usable"] == 1
    pred = blast(onto, train, hits, ["x2"], namespaces=["MFO"], min_identity=50)
    assert pred.diagnostics["namespaces"]["MFO"]["hits"]["identity_below_min"] == 1
    with pytest.raises(InvalidParameterError, match="qcovhsp"):
        blast(onto, train, hits, min_coverage=50)


def test_hits_to_other_fold_removed(toy):
    onto, train, hits = toy
    fold = train.namespace("MFO")
    keep = fold.proteins != "p1"  # p1 in the test fold: not in the training set
    sub = goeval.Annotations(proteins=fold.proteins[keep], matrix=fold.matrix[np.flatnonzero(keep)], ontology=onto)
    got = as_dict(blast(onto, sub, hits, ["x1"], namespaces=["MFO"]))
    assert got == {("x1", g(1)): 0.5, ("x1", g(2)): 0.5, ("x1", g(3)): 0.5, ("x1", g(5)): 0.5}


def test_top_terms_ties_keep_ancestors(toy):
    onto, train, hits = toy
    pred = blast(onto, train, hits, ["x1", "x2"])
    top = top_terms(pred, 2)
    got = as_dict(top)
    # x1 MFO: 1, 2, 4 tie at 1.0 -> the shallower (1, 2) are kept; BPO 10, 11, 12 tie -> 10, 11
    assert {t for p, t in got if p == "x1"} == {g(1), g(2), g(10), g(11)}
    assert {t for p, t in got if p == "x2"} == {g(1), g(2)}  # depth ties: 2 and 3 -> term id
    assert top.diagnostics["max_terms_dropped"] == pred.matrix.nnz - top.matrix.nnz
    assert goeval.is_consistent(top)
    with pytest.raises(InvalidParameterError, match="'n' parameter of keep_top_terms"):
        top_terms(pred, 0)


def test_training_checks(toy):
    onto, train, hits = toy
    other = goeval.load_ontology(D / "toy.obo")
    with pytest.raises(InvalidParameterError, match="another Ontology"):
        blast(other, train, hits)
    scores = goeval.Annotations.from_pairs(onto, ["a"], [g(1)], [0.5])
    with pytest.raises(InvalidParameterError, match="not prediction scores"):
        naive(onto, scores, ["x"])
    with pytest.raises(InvalidParameterError, match="needs the 'bitscore' column"):
        diamondscore(onto, train, HitTable.from_arrays(["x1"], ["p1"], pident=[50.0]))


def test_combine_annotations(toy):
    onto, train, _ = toy
    a = goeval.Annotations.from_pairs(onto, ["p1", "p9"], [g(4), g(5)])
    both = combine_annotations([train, a])
    assert both.diagnostics["proteins_in_several_parts"] == 1
    assert both.proteins.tolist() == ["p1", "p2", "p3", "p4", "p9"]
    assert both.matrix.nnz == train.matrix.nnz + 1


# ------------------------------------------------------------------ oracles
def _random_case(seed: int, n_terms: int = 25, n_train: int = 30, n_query: int = 12):
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, n_terms)
    onto = goeval.ontology_from_edges(edges)
    prots = [f"s{i}" for i in range(n_train)]
    ann: dict[str, set[str]] = {}
    pairs_p, pairs_t = [], []
    for p in prots[: n_train - 4]:  # the last four have no annotation (not in training)
        terms = {f"t{int(t)}" for t in rng.choice(np.arange(1, n_terms), size=int(rng.integers(1, 4)), replace=False)}
        ann[p] = set().union(*(ancestors_oracle(edges, t) for t in terms))
        pairs_p += [p] * len(terms)
        pairs_t += sorted(terms)
    train = goeval.Annotations.from_pairs(onto, pairs_p, pairs_t)
    queries = [f"s{i}" for i in rng.choice(n_train, size=n_query // 2, replace=False)] + [f"q{i}" for i in range(n_query // 2)]
    n_hits = 80
    q = [queries[int(i)] for i in rng.integers(0, len(queries), n_hits)]
    s = [f"s{int(i)}" for i in rng.integers(0, n_train + 3, n_hits)]  # s30..s32: unknown
    pid = np.round(rng.uniform(0, 100, n_hits), 1)
    pid[rng.random(n_hits) < 0.1] = 100.0
    ev = 10.0 ** -rng.uniform(0, 200, n_hits)
    ev[rng.random(n_hits) < 0.15] = 0.0
    bits = np.round(rng.uniform(20, 500, n_hits), 1)
    hits = HitTable.from_arrays(q, s, pident=pid, evalue=ev, bitscore=bits)
    rows = list(zip(q, s, pid.tolist(), ev.tolist(), bits.tolist()))
    return onto, train, hits, ann, rows, queries


def _oracle(method: str, ann, rows, targets):
    """Plain loops over dicts and sets; the first row of a (query, subject) pair is used."""
    out: dict[tuple[str, str], float] = {}
    for x in targets:
        seen, usable = set(), []
        for q, s, pid, ev, bits in rows:
            if q != x or s == x or s not in ann or (q, s) in seen:
                continue
            seen.add((q, s))
            usable.append((s, pid, ev, bits))
        if not usable:
            continue
        terms = set().union(*(ann[s] for s, *_ in usable))
        for v in terms:
            sup = [u for u in usable if v in ann[u[0]]]
            if method == "blast":
                out[(x, v)] = max(pid / 100 for _, pid, _, _ in sup)
            elif method == "gotcha":
                w = lambda e: 500.0 if e == 0 else min(500.0, max(0.0, -math.log10(e)))  # noqa: E731
                out[(x, v)] = (2 + sum(w(e) for *_, e, _ in sup)) / (2 + sum(w(e) for *_, e, _ in usable))
            elif method == "diamondscore":
                out[(x, v)] = sum(b for *_, b in sup) / sum(b for *_, b in usable)
            else:
                out[(x, v)] = sum(p for _, p, _, _ in sup) / sum(p for _, p, _, _ in usable)
    return out


FUNCS = {"blast": blast, "gotcha": gotcha, "diamondscore": diamondscore, "knn-identity": knn_identity}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", list(FUNCS))
def test_homology_matches_oracle(method, seed):
    onto, train, hits, ann, rows, queries = _random_case(seed)
    pred = FUNCS[method](onto, train, hits)
    got = as_dict(pred)
    want = _oracle(method, ann, rows, list(pred.proteins))
    assert set(got) == set(want)
    keys = sorted(want)
    assert_allclose([got[k] for k in keys], [want[k] for k in keys], rtol=1e-12)
    assert all(0.0 <= v <= 1.0 for v in got.values())


@pytest.mark.parametrize("seed", range(4))
def test_naive_matches_oracle(seed):
    onto, train, _, ann, _, _ = _random_case(seed)
    got = as_dict(naive(onto, train, ["a", "b"]))
    terms = set().union(*ann.values())
    want = {(x, v): sum(v in a for a in ann.values()) / len(ann) for x in ("a", "b") for v in terms}
    assert set(got) == set(want)
    assert_allclose([got[k] for k in sorted(want)], [want[k] for k in sorted(want)], rtol=1e-15)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["naive", *FUNCS])
def test_max_consistent(method, seed):
    onto, train, hits, _, _, queries = _random_case(seed, n_terms=40)
    pred = naive(onto, train, queries) if method == "naive" else FUNCS[method](onto, train, hits, queries)
    m = pred.matrix.tocsr()
    again = goeval.propagate(goeval.Annotations(proteins=pred.proteins, matrix=m.copy(), ontology=onto,
                                                propagated=False))
    assert (again.matrix != m).nnz == 0  # propagating with max changes nothing: ancestor >= descendant
    top = top_terms(pred, 3)
    again = goeval.propagate(goeval.Annotations(proteins=top.proteins, matrix=top.matrix.copy(), ontology=onto,
                                                propagated=False))
    assert (again.matrix != top.matrix).nnz == 0  # the top-N cut keeps ancestors


def test_gotcha_all_supported_exactly_one():
    onto, train, hits, ann, rows, queries = _random_case(3)
    pred = gotcha(onto, train, hits)
    root = onto.roots()[0]
    m = pred.matrix.tocsr()
    has = np.diff(m.indptr) > 0
    assert has.any() and (m[np.flatnonzero(has)][:, [root]].toarray() == 1.0).all()
