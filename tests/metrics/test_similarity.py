"""Term and set similarities (Resnik, Lin, Jiang-Conrath, Schlicker, Wang, Jaccard, simGIC, IA-Jaccard), their
pairings and their sweep."""

from __future__ import annotations

import gzip
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import goeval
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.information.content import term_information_content
from goeval.metrics.similarity import (
    PAIR_MEASURES,
    PAIRINGS,
    SimilarityStats,
    mica_information,
    most_informative_common_ancestor,
    pair_similarity,
    set_similarity,
    similarity_columns,
    similarity_curves,
    similarity_sweep,
    term_similarity,
)
from tests.conftest import random_dag_edges

# ---------------------------------------------------------------- small DAG
#        a (IC 0)
#       / \
#  (2) b   c (0.5)
#       \ / \
#   (3)  d   e (1.5)
EDGES = [("b", "a"), ("c", "a"), ("d", "b"), ("d", "c"), ("e", "c")]
IC = {"a": 0.0, "b": 2.0, "c": 0.5, "d": 3.0, "e": 1.5}
IA = {"a": 0.0, "b": 1.0, "c": 1.0, "d": 2.0, "e": 0.5}


@pytest.fixture
def dag():
    onto = goeval.ontology_from_edges(EDGES)
    ic = np.array([IC[t] for t in onto.ids])
    ia = np.array([IA[t] for t in onto.ids])
    return onto, ic, ia


def _rows(onto, *sets):
    m = np.zeros((len(sets), onto.n_terms), bool)
    for i, s in enumerate(sets):
        m[i, [onto.index(t) for t in s]] = True
    return sp.csr_array(m)


S1 = 1 - 2**-0.5  # 1 - p(c), p = 2**-IC


def test_term_measures_by_hand(dag):
    onto, ic, _ = dag
    # MICA(d, b) = b, MICA(d, c) = c, MICA(e, b) = a, MICA(e, c) = c, MICA(d, e) = c
    assert term_similarity(onto, ic, "d", "b", "resnik") == 2.0
    assert term_similarity(onto, ic, "d", "e", "resnik") == 0.5
    assert term_similarity(onto, ic, "d", "b", "lin") == pytest.approx(2 * 2 / (3 + 2))
    assert term_similarity(onto, ic, "e", "b", "lin") == 0.0
    assert term_similarity(onto, ic, "d", "c", "jc") == pytest.approx(3 + 0.5 - 1)
    assert term_similarity(onto, ic, "e", "b", "jc") == pytest.approx(3.5)
    assert term_similarity(onto, ic, "d", "b", "schlicker") == pytest.approx(0.8 * (1 - 0.25))
    assert term_similarity(onto, ic, "e", "c", "schlicker") == pytest.approx(0.5 * S1)
    # indices work as ids, identical terms: lin 1, jc 0; the root with itself: lin 0/0 := 1, schlicker 0
    d = onto.index("d")
    assert term_similarity(onto, ic, d, d, "lin") == 1.0 and term_similarity(onto, ic, d, d, "jc") == 0.0
    assert term_similarity(onto, ic, "a", "a", "lin") == 1.0
    assert term_similarity(onto, ic, "a", "a", "schlicker") == 0.0


def test_mica_is_most_informative_not_deepest():
    # z is deeper than y (z -> x -> r) but less informative: goatools' deepest common ancestor would be z
    onto = goeval.ontology_from_edges([("x", "r"), ("y", "r"), ("z", "x"), ("s", "z"), ("s", "y"),
                                       ("t", "z"), ("t", "y")])
    ic = np.zeros(onto.n_terms)
    for t, v in {"x": 0.2, "y": 2.5, "z": 0.4, "s": 4.0, "t": 3.0}.items():
        ic[onto.index(t)] = v
    assert most_informative_common_ancestor(onto, ic, "s", "t") == "y"
    assert term_similarity(onto, ic, "s", "t", "resnik") == 2.5


def test_no_common_ancestor_gives_zero():
    onto = goeval.ontology_from_edges([("b", "a"), ("y", "x")])
    ic = np.array([0.5, 0.5, 1.0, 1.0])
    assert most_informative_common_ancestor(onto, ic, "b", "y") is None
    assert mica_information(onto, ic, ["b"], ["y"]).tolist() == [0.0]
    assert term_similarity(onto, ic, "b", "y", "jc") == 2.0


# T = {a, b, c, d, e}: leaves d, e (m = 2)
# P1 = {a, b, c}: leaves b, c (n = 2);  P2 = {a, b}: leaf b (n = 1)
# rows t in (d, e), columns p in (b, c):
#   resnik [[2, .5], [0, .5]]   lin [[.8, 1/3.5], [0, .5]]   jc [[1, 2.5], [3.5, 1]]
#   schlicker [[.6, S1/3.5], [0, .5 S1]]
HAND = {
    ("resnik", "all"): ((2 + 0.5 + 0 + 0.5) / 4, (2 + 0) / 2),
    ("resnik", "bma"): ((2 + 0.5 + 2 + 0.5) / 4, (2 + 0 + 2) / 3),
    ("resnik", "bma-mean"): (((2 + 0.5) / 2 + (2 + 0.5) / 2) / 2, ((2 + 0) / 2 + 2) / 2),
    ("lin", "all"): ((0.8 + 1 / 3.5 + 0 + 0.5) / 4, 0.8 / 2),
    ("lin", "bma"): ((0.8 + 0.5 + 0.8 + 0.5) / 4, (0.8 + 0 + 0.8) / 3),
    ("lin", "bma-mean"): (((0.8 + 0.5) / 2 + (0.8 + 0.5) / 2) / 2, (0.8 / 2 + 0.8) / 2),
    ("jc", "all"): ((1 + 2.5 + 3.5 + 1) / 4, (1 + 3.5) / 2),
    ("jc", "bma"): ((1 + 1 + 1 + 1) / 4, (1 + 3.5 + 1) / 3),
    ("jc", "bma-mean"): (((1 + 1) / 2 + (1 + 1) / 2) / 2, ((1 + 3.5) / 2 + 1) / 2),
    ("schlicker", "all"): ((0.6 + S1 / 3.5 + 0 + 0.5 * S1) / 4, 0.6 / 2),
    ("schlicker", "bma"): ((0.6 + 0.5 * S1 + 0.6 + 0.5 * S1) / 4, (0.6 + 0 + 0.6) / 3),
    ("schlicker", "bma-mean"): (0.6 / 2 + 0.5 * S1 / 2, (0.6 / 2 + 0.6) / 2),
    # T ∩ P1 = {a, b, c}, T ∪ P1 = T;  T ∩ P2 = {a, b}
    ("jaccard", None): (3 / 5, 2 / 5),
    ("simgic", None): ((0 + 2 + 0.5) / 7, 2 / 7),
    ("wjaccard", None): ((0 + 1 + 1) / 4.5, 1 / 4.5),
}


@pytest.mark.parametrize(("measure", "pairing"), list(HAND))
def test_set_measures_by_hand(dag, measure, pairing):
    onto, ic, ia = dag
    T = _rows(onto, "abcde", "abcde")
    P = _rows(onto, "abc", "ab")
    got = set_similarity(onto, ic, T, P, measure, pairing or "all", ia=ia)
    assert_allclose(got, HAND[(measure, pairing)], rtol=1e-14)


def test_sweep_by_hand(dag):
    """P(0.5) = {a, b, c} (P1), P(0.8) = {a, b} (P2), P(0.95) empty: the sums and counts per threshold."""
    onto, ic, ia = dag
    loc = {t: onto.index(t) for t in "abcde"}
    cols = np.array([loc["a"], loc["b"], loc["c"]])
    scores = np.array([0.9, 0.9, 0.6])
    truth = np.array([loc[t] for t in "abcde"])
    st = similarity_sweep(np.array([0, 5]), truth, np.array([0, 3]), cols, scores, np.array([0.5, 0.8, 0.95]),
                          onto, 0, onto.n_terms, ic, ia)
    for (measure, pairing), (v1, v2) in HAND.items():
        col = measure if pairing is None else f"{measure}_{pairing.replace('-', '_')}"
        assert_allclose(st.sums[col], [v1, v2, 0.0], rtol=1e-13, atol=1e-15)
        assert st.defined[col].tolist() == [1, 1, 0]


def test_all_pair_anomaly_single_leaf_beats_two_leaves():
    """CR13 §2: under all-pair averaging an exact prediction of {u} scores higher than an exact
    prediction of {u, v} with IC(u) = IC(v); best-match averaging scores both 1."""
    onto = goeval.ontology_from_edges([("u", "r"), ("v", "r"), ("w", "r")])
    # u and v each carried by 2 of 6 proteins: equal information content
    truth = goeval.Annotations.from_pairs(onto, ["p1", "p2", "p3", "p4", "p5", "p6"], ["u", "u", "v", "v", "w", "w"])
    ic = term_information_content(onto, truth)
    assert ic["u"] == ic["v"] > 0
    one, two = _rows(onto, "ru"), _rows(onto, "ruv")
    T = sp.vstack([one, two]).tocsr()
    for measure in ("lin", "resnik", "schlicker"):
        exact = set_similarity(onto, ic, T, T, measure, "all")
        assert exact[0] > exact[1]
        assert exact[1] == pytest.approx(exact[0] / 2)
        assert_allclose(set_similarity(onto, ic, T, T, measure, "bma"), [exact[0], exact[0]])
    assert_allclose(set_similarity(onto, ic, T, T, "lin", "all"), [1.0, 0.5])
    jc = set_similarity(onto, ic, T, T, "jc", "all")
    assert jc[0] == 0 < jc[1]  # the distance of an exact two-leaf prediction is positive


def test_undefined_policy_warns(dag):
    onto, ic, _ = dag
    T = _rows(onto, "abd", "ab")
    P = _rows(onto, "ab", "")
    with pytest.warns(GoevalWarning, match="1 of 2 proteins has no predicted term"):
        got = set_similarity(onto, ic, T, P, "lin", "bma")
    assert got[0] == pytest.approx((0.8 + 0.8) / 2) and math.isnan(got[1])
    with pytest.warns(GoevalWarning):
        assert set_similarity(onto, ic, T, P, "jaccard", undefined=0.0)[1] == 0.0


def test_parameter_errors(dag):
    onto, ic, ia = dag
    T = _rows(onto, "ab")
    with pytest.raises(InvalidParameterError, match="'measure' parameter of set_similarity"):
        set_similarity(onto, ic, T, T, "cosine")
    with pytest.raises(InvalidParameterError, match="'pairing' parameter of set_similarity"):
        set_similarity(onto, ic, T, T, "lin", "median")
    with pytest.raises(InvalidParameterError, match="needs information accretion"):
        set_similarity(onto, ic, T, T, "wjaccard")
    with pytest.raises(InvalidParameterError, match="'ic' parameter"):
        term_similarity(onto, ic[:3], "a", "b")
    with pytest.raises(InvalidParameterError, match="'measure' parameter of pair_similarity"):
        pair_similarity(onto, ic, ["a"], ["b"], "jaccard")
    with pytest.raises(InvalidParameterError, match="Unknown term"):
        term_similarity(onto, ic, "a", "zz")
    with pytest.raises(InvalidParameterError, match="'normalization' parameter of similarity_curves"):
        similarity_curves(SimilarityStats(np.ones(1), {}, {}, 0), "foo")


# ------------------------------------------------------------ slow oracles
def _anc_oracle(parents):
    cache = {}

    def anc(v):
        if v not in cache:
            seen, stack = {v}, [v]
            while stack:
                for p in parents.get(stack.pop(), ()):
                    if p not in seen:
                        seen.add(p)
                        stack.append(p)
            cache[v] = seen
        return cache[v]

    return anc


def wang_oracle(parents_rel, weights=None):
    """Wang's similarity by its definition: S-values by recursion over the parents (the max over them of
    weight x the parent's S-value, memoized), sums over the common ancestors (loops, dicts)."""
    weights = weights or {"is_a": 0.8, "part_of": 0.6}
    memo = {}

    def svalues(t):
        if t not in memo:
            s = {t: 1.0}
            for q, rel in parents_rel.get(t, ()):
                for a, v in svalues(q).items():
                    s[a] = max(s.get(a, 0.0), weights[rel] * v)
            memo[t] = s
        return memo[t]

    def sim(t, p):
        a, b = svalues(t), svalues(p)
        return sum(a[x] + b[x] for x in a.keys() & b.keys()) / (sum(a.values()) + sum(b.values()))

    return sim


def _term_oracle(anc, ic, t, p, measure, wang=None):
    if measure == "wang":
        return wang(t, p)
    common = anc(t) & anc(p)
    mic = max((ic[a] for a in common), default=0.0)
    lin = 1.0 if ic[t] + ic[p] == 0 else 2 * mic / (ic[t] + ic[p])
    return {"resnik": mic, "lin": lin, "jc": ic[t] + ic[p] - 2 * mic, "schlicker": lin * (1 - 2.0**-mic)}[measure]


def _set_oracle(anc, ic, ia, T, P, measure, pairing, wang=None):
    """Leaves by definition, every pair by the term oracle, pairings by their formulas (loops)."""
    if not P or not T:
        return math.nan
    if measure in ("jaccard", "simgic", "wjaccard"):
        w = (lambda v: 1.0) if measure == "jaccard" else (lambda v: (ic if measure == "simgic" else ia)[v])
        num, den = sum(w(v) for v in T & P), sum(w(v) for v in T | P)
        return 1.0 if den == 0 else num / den
    lt = [t for t in T if not any(t != u and t in anc(u) for u in T)]
    lp = [p for p in P if not any(p != u and p in anc(u) for u in P)]
    s = [[_term_oracle(anc, ic, t, p, measure, wang) for p in lp] for t in lt]
    best = min if measure == "jc" else max
    rows = [best(r) for r in s]
    cols = [best(s[i][j] for i in range(len(lt))) for j in range(len(lp))]
    if pairing == "all":
        return sum(map(sum, s)) / (len(lt) * len(lp))
    if pairing == "bma":
        return (sum(rows) + sum(cols)) / (len(lt) + len(lp))
    if pairing == "max":
        return best(rows)
    if pairing == "rcmax":
        return best(sum(rows) / len(rows), sum(cols) / len(cols))
    return (sum(rows) / len(rows) + sum(cols) / len(cols)) / 2


@pytest.fixture(scope="module")
def mfo():
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    ic = term_information_content(onto, truth)
    parents = {v: set(onto.parents_of(v).tolist()) for v in range(onto.n_terms)}
    rel = obo_parents(goeval.example_path("ontology"))
    parents_rel = {onto.index(c): [(onto.index(q), r) for q, r in ps] for c, ps in rel.items()}
    return onto, truth, ic, _anc_oracle(parents), wang_oracle(parents_rel)


def obo_parents(path):
    """{term: [(parent, relation)]} of the is_a and part_of lines of an OBO file, read here line by line
    (live terms; edges within a namespace, as goeval follows them)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    terms, cur = {}, None
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line.startswith("["):
                cur = {"edges": []} if line == "[Term]" else None
                continue
            if cur is None or ":" not in line:
                continue
            tag, value = (x.strip() for x in line.split(":", 1))
            value = value.split("!")[0].strip()
            if tag == "id" and "id" not in cur:
                cur["id"] = value
                terms[value] = cur
            elif tag in ("namespace", "is_obsolete"):
                cur[tag] = value
            elif tag == "is_a":
                cur["edges"].append((value, "is_a"))
            elif tag == "relationship" and value.split()[0] == "part_of":
                cur["edges"].append((value.split()[1], "part_of"))
    live = {t: d for t, d in terms.items() if d.get("is_obsolete") != "true"}
    return {t: [(q, r) for q, r in d["edges"] if q in live and live[q].get("namespace") == d.get("namespace")]
            for t, d in live.items()}


@pytest.mark.parametrize("measure", PAIR_MEASURES)
def test_go_term_pairs_against_slow_oracle(mfo, measure):
    onto, truth, ic, anc, wang = mfo
    rng = np.random.default_rng(11)
    annotated = np.flatnonzero(ic.n_term > 0)
    t = rng.choice(annotated, 400)
    p = np.r_[rng.choice(annotated, 300), rng.integers(0, onto.n_terms, 100)]  # also never-annotated terms
    got = pair_similarity(onto, ic, t, p, measure)
    want = [_term_oracle(anc, ic.values, a, b, measure, wang) for a, b in zip(t.tolist(), p.tolist())]
    assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert term_similarity(onto, ic, onto.ids[t[0]], onto.ids[p[0]], measure) == pytest.approx(want[0], rel=1e-13)


def test_go_sets_against_slow_oracle(mfo):
    """Set level on the bundled truth against itself shuffled (closed sets), every measure and pairing."""
    onto, truth, ic, anc, wang = mfo
    tr = goeval.propagate(truth).matrix.tocsr()[:120]
    perm = np.random.default_rng(3).permutation(tr.shape[0])
    pr = tr[perm]
    ia = np.random.default_rng(4).random(onto.n_terms)
    sets_t = [set(tr.indices[tr.indptr[i] : tr.indptr[i + 1]].tolist()) for i in range(tr.shape[0])]
    sets_p = [sets_t[j] for j in perm]
    for col in similarity_columns(("resnik", "lin", "jc", "schlicker", "wang", "jaccard", "simgic", "wjaccard")):
        measure, _, pairing = col.partition("_")
        pairing = pairing.replace("_", "-") or "all"
        got = set_similarity(onto, ic, tr, pr, measure, pairing, ia=ia)
        want = [_set_oracle(anc, ic.values, ia, a, b, measure, pairing, wang) for a, b in zip(sets_t, sets_p)]
        assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=col)


def _random_case(seed, n_terms=14, n_prot=7, closed=True):
    rng = np.random.default_rng(seed)
    edges = [(c, q, str(rng.choice(["is_a", "part_of"]))) for c, q in random_dag_edges(rng, n_terms)]
    onto = goeval.ontology_from_edges(edges)
    parents = {v: set(onto.parents_of(v).tolist()) for v in range(onto.n_terms)}
    anc = _anc_oracle(parents)
    parents_rel = {}
    for c, q, r in edges:
        parents_rel.setdefault(onto.index(c), []).append((onto.index(q), r))
    ic = np.round(rng.random(onto.n_terms) * 4, 1)
    ic[onto.roots()] = 0.0
    for v in np.argsort(onto.generation):  # keep IC monotone along the DAG, as from annotations
        ic[v] = max([ic[v]] + [ic[u] for u in anc(int(v))])
    ia = np.round(rng.random(onto.n_terms), 2)
    truth, preds = [], []
    for _ in range(n_prot):
        t = set()
        for v in rng.choice(onto.n_terms, rng.integers(1, 4), replace=False).tolist():
            t |= anc(v)
        truth.append(t)
        s = {}
        for v in rng.choice(onto.n_terms, rng.integers(0, 6), replace=False).tolist():
            s[v] = float(rng.choice([0.1, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0]))
        if closed:  # max propagation
            s = {u: max(sc for w, sc in s.items() if u in anc(w)) for w in list(s) for u in anc(w)}
        preds.append(s)
    return onto, anc, ic, ia, truth, preds, wang_oracle(parents_rel)


def _csr(onto, sets_or_scores):
    ptr, cols, vals = [0], [], []
    for s in sets_or_scores:
        items = sorted(s.items()) if isinstance(s, dict) else [(v, 1.0) for v in sorted(s)]
        cols += [v for v, _ in items]
        vals += [x for _, x in items]
        ptr.append(len(cols))
    return np.array(ptr), np.array(cols, np.int64), np.array(vals)


@pytest.mark.parametrize("seed", range(12))
def test_sweep_against_per_threshold_oracle(seed):
    closed = seed % 3 != 0  # every third case: predictions not closed under ancestors (e.g. fill propagation)
    onto, anc, ic, ia, truth, preds, wang = _random_case(seed, closed=closed)
    t_ptr, t_cols, _ = _csr(onto, truth)
    p_ptr, p_cols, p_sc = _csr(onto, preds)
    grid = seed % 2 == 0
    taus = np.arange(1, 11) / 10 if grid else np.unique(p_sc)
    st = similarity_sweep(t_ptr, t_cols, p_ptr, p_cols, p_sc, taus, onto, 0, onto.n_terms, ic, ia,
                          chunk_items=7 + seed)  # several chunks
    n = len(truth)
    T = sp.csr_array((np.ones(t_cols.size, bool), t_cols, t_ptr), shape=(n, onto.n_terms))
    for j, tau in enumerate(taus.tolist()):
        Pj = [{v for v, sc in s.items() if sc >= tau} for s in preds]
        P = sp.csr_array(_csr_bool(Pj, onto.n_terms))
        for col in st.sums:
            measure, _, pairing = col.partition("_")
            pairing = pairing.replace("_", "-") or "all"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GoevalWarning)
                vals = set_similarity(onto, ic, T, P, measure, pairing, ia=ia)
            want = [_set_oracle(anc, ic, ia, a, b, measure, pairing, wang) for a, b in zip(truth, Pj)]
            assert_allclose(vals, want, rtol=1e-12, atol=1e-12, err_msg=f"{col} tau={tau}")
            ok = ~np.isnan(vals)
            assert st.defined[col][j] == ok.sum(), (col, tau)
            assert st.sums[col][j] == pytest.approx(vals[ok].sum(), rel=1e-9, abs=1e-9), (col, tau)


def _csr_bool(sets, n_terms):
    m = np.zeros((len(sets), n_terms), bool)
    for i, s in enumerate(sets):
        m[i, sorted(s)] = True
    return m


def test_sweep_is_additive_and_curves_normalize():
    onto, _, ic, ia, truth, preds, _ = _random_case(5)
    t_ptr, t_cols, _ = _csr(onto, truth)
    p_ptr, p_cols, p_sc = _csr(onto, preds)
    taus = np.arange(1, 11) / 10
    whole = similarity_sweep(t_ptr, t_cols, p_ptr, p_cols, p_sc, taus, onto, 0, onto.n_terms, ic, ia)
    k = 3
    a = similarity_sweep(t_ptr[: k + 1], t_cols[: t_ptr[k]], p_ptr[: k + 1], p_cols[: p_ptr[k]], p_sc[: p_ptr[k]],
                         taus, onto, 0, onto.n_terms, ic, ia)
    b = similarity_sweep(t_ptr[k:] - t_ptr[k], t_cols[t_ptr[k]:], p_ptr[k:] - p_ptr[k], p_cols[p_ptr[k]:],
                         p_sc[p_ptr[k]:], taus, onto, 0, onto.n_terms, ic, ia)
    both = SimilarityStats.combine([a, b])
    assert both.n == whole.n == len(truth)
    for col in whole.sums:
        assert_allclose(both.sums[col], whole.sums[col], rtol=1e-12, atol=1e-12)
        assert_allclose(both.defined[col], whole.defined[col])
    cafa = similarity_curves(whole, "cafa")
    cov = whole.defined["lin_bma"]
    assert_allclose(cafa["lin_bma"], np.divide(whole.sums["lin_bma"], cov, out=np.zeros(10), where=cov > 0))
    assert_allclose(similarity_curves(whole, "pred")["jaccard"], cafa["jaccard"])
    with pytest.warns(GoevalWarning, match="distance has no value for an empty prediction"):
        gt = similarity_curves(whole, "gt")
    assert_allclose(gt["lin_all"], whole.sums["lin_all"] / whole.n)
    assert_allclose(gt["jc_bma"], cafa["jc_bma"])


def test_perfect_prediction_is_best(dag):
    """An exact prediction gives bma similarity lin/schlicker-ish 1, jc 0, jaccard 1 at every threshold."""
    onto, ic, ia = dag
    T = _rows(onto, "abcde", "abd", "ace")
    got = {c: set_similarity(onto, ic, T, T, c.split("_")[0], "bma", ia=ia) for c in ("lin", "jc", "jaccard", "simgic", "wjaccard")}
    assert_allclose(got["lin"], 1.0)
    assert_allclose(got["jc"], 0.0)
    for c in ("jaccard", "simgic", "wjaccard"):
        assert_allclose(got[c], 1.0)


def test_columns_and_public_exports():
    assert similarity_columns(["lin", "jaccard"], ["all", "bma-mean"]) == ["lin_all", "lin_bma_mean", "jaccard"]
    assert set(PAIRINGS) == {"all", "bma", "bma-mean", "max", "rcmax"}
    assert similarity_columns(["wang"], ["max", "rcmax"]) == ["wang_max", "wang_rcmax"]
    with pytest.raises(InvalidParameterError, match="'pairings' parameter"):
        similarity_columns(["lin"], ["avg"])  # GOSemSim's avg is 'all' (an alias of the options only)
