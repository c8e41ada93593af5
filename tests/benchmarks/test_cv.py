"""Cross-validation: hand-checked folds and IA, pooled statistics against a slow set-based oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import goeval
from goeval.benchmarks import assign_folds, cross_validate, fold_ia, pooled_predictions
from goeval.errors import InvalidParameterError
from goeval.io.folds import read_folds
from goeval.io.hits import HitTable, read_hits
from goeval.options import EvaluationOptions
from conftest import DATA, ancestors_oracle, random_dag_edges

D = DATA / "benchmarks"
COLS6 = ("qseqid", "sseqid", "pident", "length", "evalue", "bitscore")
EDGES = [("GO:0000002", "GO:0000001"), ("GO:0000003", "GO:0000001"), ("GO:0000004", "GO:0000002"),
         ("GO:0005515", "GO:0000001"), ("GO:0000011", "GO:0000010"), ("GO:0000012", "GO:0000011")]


@pytest.fixture(scope="module")
def toy():
    onto = goeval.load_ontology(D / "toy.obo")
    ann = goeval.load_annotations(D / "annotations.tsv", onto)
    return onto, ann, read_hits(D / "hits.tsv", COLS6), read_folds(D / "folds.tsv")


# ---------------------------------------------------------------- the oracle
def oracle_cv(edges, ns_of, ann, folds, hits, method, ns, thresholds=None, c=1.0):
    """Fmax, Smin, wFmax (value, threshold) of a pooled cross-validation, with sets and loops.

    ann: protein -> set of terms; folds: protein -> fold; hits: list of (q, s, pident, evalue).
    """
    prop = {p: set().union(*(ancestors_oracle(edges, t) for t in ts)) for p, ts in ann.items()}
    in_ns = {p: {t for t in ts if ns_of[t] == ns} for p, ts in prop.items()}
    queries = {q for q, *_ in hits}
    bench = [p for p in sorted(prop) if in_ns[p] and p in queries]
    root = next(t for t in ns_of if ns_of[t] == ns and not any(ch == t for ch, _ in edges))
    terms = [t for t in ns_of if ns_of[t] == ns]
    parents = {t: {p for ch, p in edges if ch == t} for t in terms}
    ia_f, scores = {}, {}
    for f in set(folds.values()):
        train = [p for p in prop if folds[p] != f and in_ns[p]]
        n = lambda s: sum(1 for p in train if s <= in_ns[p])  # noqa: E731 - proteins with every term of s
        ia_f[f] = {t: 0.0 if t == root else -math.log2((n({t}) + c) / (n(parents[t]) + c)) for t in terms}
    for x in bench:
        f = folds[x]
        train = {p for p in prop if folds[p] != f and in_ns[p]}
        if method == "naive":
            scores[x] = {t: sum(t in in_ns[p] for p in train) / len(train) for t in terms}
            scores[x] = {t: s for t, s in scores[x].items() if s > 0}
            continue
        usable = {}
        for q, s, pid, ev in hits:  # first row of a pair only
            if q == x and s != x and s in train and (s not in usable):
                usable[s] = (pid, ev)
        sc = {}
        for t in terms:
            sup = [s for s in usable if t in in_ns[s]]
            if not sup:
                continue
            if method == "blast":
                sc[t] = max(usable[s][0] / 100 for s in sup)
            else:
                w = lambda e: 500.0 if e == 0 else min(500.0, max(0.0, -math.log10(e)))  # noqa: E731
                sc[t] = (2 + sum(w(usable[s][1]) for s in sup)) / (2 + sum(w(usable[s][1]) for s in usable))
        scores[x] = sc
    taus = sorted({v for sc in scores.values() for v in sc.values()}) if thresholds is None else list(thresholds)
    best = {"fmax": (-1, None), "smin": (math.inf, None), "wfmax": (-1, None)}
    for tau in taus:
        pr, rc, wpr, wrc, ru, mi, m, mw = [], [], [], [], 0.0, 0.0, 0, 0
        for x in bench:
            ia = ia_f[folds[x]]
            T = in_ns[x]
            P = {t for t, s in scores[x].items() if s >= tau}
            iT, iP, iTP = (sum(ia[t] for t in S) for S in (T, P, T & P))
            rc.append(len(T & P) / len(T))
            wrc.append(iTP / iT if iT > 0 else 0.0)
            ru += iT - iTP
            mi += iP - iTP
            if P:
                m += 1
                pr.append(len(T & P) / len(P))
            if iP > 0:
                mw += 1
                wpr.append(iTP / iP)
        if m == 0:
            continue
        n = len(bench)
        p_, r_ = sum(pr) / m, sum(rc) / n
        f = 2 * p_ * r_ / (p_ + r_) if p_ + r_ > 0 else 0.0
        s2 = math.hypot(ru / n, mi / n)
        wp, wr = (sum(wpr) / mw if mw else 0.0), sum(wrc) / n
        wf = 2 * wp * wr / (wp + wr) if wp + wr > 0 else 0.0
        if f > best["fmax"][0] + 1e-12:
            best["fmax"] = (f, tau)
        if s2 < best["smin"][0] - 1e-12:
            best["smin"] = (s2, tau)
        if wf > best["wfmax"][0] + 1e-12 and mw:
            best["wfmax"] = (wf, tau)
    return best, len(bench)


def _toy_sets(ann, onto):
    f = ann.to_frame()
    out = {}
    for p, t in zip(f["protein"], f["term"]):
        out.setdefault(p, set()).add(t)
    return out


def _hit_rows(hits):
    return [(hits.ids[q], hits.ids[s], pid, ev) for q, s, pid, ev in zip(
        hits.query_codes, hits.subject_codes, hits.values["pident"], hits.values["evalue"])]


# ------------------------------------------------------------------- tests
def test_folds_benchmark_and_counts_by_hand(toy):
    onto, ann, hits, folds = toy
    cv = cross_validate(onto, ann, hits, folds, methods=["naive", "blast"])
    d = cv.diagnostics
    # p7 has no sequence: a training protein only; BPO benchmark: p1, p3, p5
    assert d["benchmark"]["MFO"] == {"annotated_proteins": 7, "benchmark_proteins": 6, "annotated_not_benchmark": 1}
    assert d["benchmark"]["BPO"] == {"annotated_proteins": 4, "benchmark_proteins": 3, "annotated_not_benchmark": 1}
    per = d["folds"]["per_fold"]
    assert per["0"]["namespaces"]["MFO"] == {"benchmark_proteins": 2, "training_proteins": 5}
    assert per["2"]["namespaces"]["BPO"] == {"benchmark_proteins": 1, "training_proteins": 2}
    # hits: x9 (not annotated) has 2 rows; MFO rows of benchmark queries: 13
    assert d["hits"] == {"rows": 15, "query_not_annotated_or_not_benchmark": 2, "query_of_a_benchmark_protein": 13}
    h = d["methods"]["blast"]["MFO"]["hits"]
    # self hits 6; p1->p2 same fold; p2->p4 usable; p1->p3, p3->p1, p3->p5, p4->p6, p6->p4 usable
    assert h["self_hit"] == 6 and h["subject_not_in_training_set"] == 1 and h["usable"] == 6
    assert sum(v for k, v in h.items() if k != "rows") == h["rows"] == 13
    # BPO: only p1, p3, p5 are targets: rows of p2, p4, p6 (6) are not targets; p3->p5 usable, p1->p3, p3->p1
    hb = d["methods"]["blast"]["BPO"]["hits"]
    assert hb["query_not_target"] == 6 and hb["self_hit"] == 3 and hb["usable"] == 3
    assert hb["subject_not_in_training_set"] == 1  # p1 -> p2: same fold (first reason tested)
    assert d["methods"]["blast"]["MFO"]["benchmark_proteins_without_usable_hits"] == 1  # p5


def test_ia_per_fold_by_hand(toy):
    onto, ann, hits, folds = toy
    fv = np.array([folds.as_dict()[p] for p in ann.proteins])
    ia = fold_ia(onto, ann, fv)
    # fold 0: training p3..p7. MFO: root 5, GO:2 4 (p3, p4, p6, p7), GO:3 2, GO:4 2
    want = {"GO:0000002": math.log2(6 / 5), "GO:0000003": math.log2(6 / 3), "GO:0000004": math.log2(5 / 3),
            "GO:0000001": 0.0, "GO:0005515": math.log2(6 / 1)}
    for t, v in want.items():
        assert ia[0][onto.index(t)] == pytest.approx(v, abs=1e-15)
    for f in (0, 1, 2):  # the count subtraction equals a direct estimate on the training rows
        rows = np.flatnonzero(fv != f)
        train = goeval.Annotations(proteins=ann.proteins[rows], matrix=ann.matrix[rows], ontology=onto)
        assert_allclose(ia[f], goeval.information_accretion(onto, train, 1.0).values, rtol=0, atol=0)


@pytest.mark.parametrize("thresholds", ["exact", 0.01])
@pytest.mark.parametrize("method", ["naive", "blast", "gotcha"])
@pytest.mark.parametrize("ns", ["MFO", "BPO"])
def test_pooled_statistics_equal_the_oracle(toy, method, ns, thresholds):
    onto, ann, hits, folds = toy
    opts = EvaluationOptions.resolve(thresholds=thresholds, namespaces=[ns])
    cv = cross_validate(onto, ann, hits, folds, methods=[method], options=opts)
    ns_of = {t: onto.labels[onto.namespace_of[onto.index(t)]] for t in onto.ids.tolist()}
    grid = None if thresholds == "exact" else opts.grid
    best, n = oracle_cv(EDGES, ns_of, _toy_sets(ann, onto), folds.as_dict(), _hit_rows(hits), method, ns, grid)
    got = {r["measure"]: r for r in cv.result.summary_records}
    for measure in ("fmax", "smin", "wfmax"):
        assert got[measure]["value"] == pytest.approx(best[measure][0], abs=1e-12), measure
        assert got[measure]["threshold"] == pytest.approx(best[measure][1], abs=1e-15), measure
    assert cv.stats[(method, ns)].n == n  # proteins without usable hits stay in the denominators


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_cross_validation_equals_the_oracle(tmp_path, seed):
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, 12)
    terms = sorted({t for e in edges for t in e})
    onto = goeval.ontology_from_edges(edges)
    prots = [f"q{i}" for i in range(14)]
    pairs = [(p, terms[int(rng.integers(1, len(terms)))]) for p in prots for _ in range(int(rng.integers(1, 3)))]
    ann = goeval.Annotations.from_pairs(onto, [p for p, _ in pairs], [t for _, t in pairs])
    q, s, pid, ev = [], [], [], []
    for x in prots[:12]:  # q12, q13: no sequence
        for y in [x, *rng.choice(prots, size=3, replace=False).tolist()]:
            q.append(x), s.append(y), pid.append(float(rng.integers(20, 101))), ev.append(float(10.0 ** -rng.integers(0, 60)))
    hits = HitTable.from_arrays(q, s, pident=pid, evalue=ev)
    folds = dict(zip(prots, assign_folds(prots, 3, seed).tolist()))
    ns = onto.labels[0]
    ns_of = {t: ns for t in terms}
    for method in ("naive", "blast", "gotcha"):
        cv = cross_validate(onto, ann, hits, folds, methods=[method])
        best, n = oracle_cv(edges, ns_of, _toy_sets(ann, onto), folds, _hit_rows(hits), method, ns)
        got = {r["measure"]: r for r in cv.result.summary_records}
        for measure in ("fmax", "smin", "wfmax"):
            assert got[measure]["value"] == pytest.approx(best[measure][0], abs=1e-12), (method, measure)
            assert got[measure]["threshold"] == best[measure][1], (method, measure)


def test_pooled_predictions_and_table1(toy):
    onto, ann, hits, folds = toy
    cv = cross_validate(onto, ann, hits, folds, methods=["naive", "blast"], keep_predictions=True)
    pred = pooled_predictions(cv, "blast", onto)
    f = pred.to_frame()
    got = {(p, t): s for p, t, s in zip(f["protein"], f["term"], f["score"])}
    # p1 (fold 0): usable hit p3 (80 %): p3's MFO {1, 2, 4} and BPO {10, 11, 12}; p1 -> p2 is in its own fold
    assert {t for (p, t) in got if p == "p1"} == {"GO:0000001", "GO:0000002", "GO:0000004", "GO:0000010",
                                                  "GO:0000011", "GO:0000012"}
    assert got[("p1", "GO:0000004")] == 0.8 and "p5" not in set(f["protein"])
    naive = pooled_predictions(cv, "naive", onto, 0.5).to_frame()
    # fold 0 MFO training p3..p7: root 5/5, GO:2 4/5, GO:3 2/5, GO:4 2/5 -> kept >= 0.5: root, GO:2
    assert sorted(naive[naive["protein"] == "p2"]["term"]) == ["GO:0000001", "GO:0000002"]
    rows = {(r["namespace"], r["method"]) for r in cv.table1}
    assert rows == {("MFO", "naive"), ("MFO", "blast"), ("BPO", "naive"), ("BPO", "blast")}


def test_errors(toy):
    onto, ann, hits, folds = toy
    with pytest.raises(InvalidParameterError, match="have no fold"):
        cross_validate(onto, ann, hits, {"p1": 0, "p2": 1})
    with pytest.raises(InvalidParameterError, match="'methods' parameter"):
        cross_validate(onto, ann, hits, folds, methods=["blast", "psiblast"])
    with pytest.raises(InvalidParameterError, match="'hits' parameter"):
        cross_validate(onto, ann, None, folds, methods=["blast"])
    with pytest.raises(InvalidParameterError, match="at least 2 folds"):
        cross_validate(onto, ann, hits, {p: 0 for p in ann.proteins.tolist()})


def test_benchmark_cv_command_with_similarity(tmp_path):
    from goeval.cli import main

    out = tmp_path / "cv"
    rc = main(["benchmark", "cv", "--ontology", str(D / "toy.obo"), "--annotations", str(D / "annotations.tsv"),
               "--hits", str(D / "hits.tsv"), "--hit-columns", ",".join(COLS6), "--folds", str(D / "folds.tsv"),
               "--methods", "naive,blast", "--thresholds", "0.25", "--similarity", "lin,jaccard", "--pairing", "all",
               "--root-as-prediction", "--no-predictions", "--out", str(out), "-q"])
    assert rc == 0
    head = (out / "table1.tsv").read_text().splitlines()[0].split("\t")
    assert head[-4:] == ["lin_all", "lin_all_threshold", "jaccard", "jaccard_threshold"]
    assert (out / "curves.tsv").read_text().splitlines()[0].split("\t")[-2:] == ["lin_all", "jaccard"]
    assert sorted(p.name for p in (out / "ic").iterdir()) == sorted(p.name for p in (out / "ia").iterdir())


def test_each_group_of_a_cross_validation_is_the_cross_validation_of_its_proteins(toy):
    """groups=: each group's pooled summary and curves are those of benchmark= its proteins (the same folds,
    IA and predictions), to the last bit."""
    onto, ann, hits, folds = toy
    queries = sorted(set(hits.ids[hits.query_codes].astype(str)))
    groups = {"first": queries[: len(queries) // 2 + 1], "rest": queries[len(queries) // 2:]}
    cv = cross_validate(onto, ann, hits, folds, methods=["naive", "blast"], groups=groups)
    for name, proteins in groups.items():
        alone = cross_validate(onto, ann, hits, folds, methods=["naive", "blast"], benchmark=proteins)
        assert cv.result.groups[name].summary.equals(alone.result.summary), name
        assert cv.result.groups[name].curves.equals(alone.result.curves), name
