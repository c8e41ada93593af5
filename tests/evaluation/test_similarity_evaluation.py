"""Similarity measures inside the evaluation: curves, summary optima, IC source, pooling, cross-validation.

The per-threshold curves are checked against an oracle that thresholds the
propagated predictions and calls :func:`set_similarity` protein by protein;
the existing columns and rows must not change when similarity is requested.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA, random_dag_edges
from numpy.testing import assert_allclose, assert_array_equal

import goeval
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.evaluation import evaluate_annotations, namespace_stats, summarize
from goeval.information.content import term_information_content
from goeval.metrics.registry import SIMILARITY_MEASURES, get_measure
from goeval.metrics.similarity import set_similarity
from goeval.options import EvaluationOptions
from goeval.sweep import SweepStats

MEASURES = ("resnik", "lin", "jc", "schlicker", "wang", "simgic", "jaccard", "wjaccard")
PAIRINGS = ("all", "bma", "bma-mean", "max", "rcmax")


def instance(seed: int, n_proteins: int = 12):
    rng = np.random.default_rng(seed)
    n_terms = int(rng.integers(7, 16))
    edges = random_dag_edges(rng, n_terms)  # every third edge part_of (Wang weighs it 0.6, is_a 0.8)
    onto = goeval.ontology_from_edges([(c, q, "part_of" if k % 3 == 2 else "is_a") for k, (c, q) in enumerate(edges)])
    terms = [f"t{i}" for i in range(1, n_terms)]
    tp, tt, pp, pt, ps = [], [], [], [], []
    for i in range(n_proteins):
        for t in rng.choice(terms, size=int(rng.integers(1, 4)), replace=False):
            tp.append(f"P{i}")
            tt.append(str(t))
        for t in rng.choice(terms, size=int(rng.integers(0, 6)), replace=False):
            pp.append(f"P{i}")
            pt.append(str(t))
            ps.append(float(rng.choice([0.25, 0.5, 0.75, 1.0])) if rng.random() < 0.5 else float(rng.random()))
    truth = goeval.Annotations.from_pairs(onto, tp, tt)
    pred = goeval.Annotations.from_pairs(onto, pp, pt, ps)
    ia = rng.random(onto.n_terms) * 2
    ia[onto.roots()] = 0
    ic = term_information_content(onto, truth).values * (1 + rng.random(onto.n_terms))  # not the truth's own
    return onto, truth, pred, ia, ic


def oracle_curves(onto, truth, pred, ia, ic, thresholds, columns):
    """Mean over covered proteins of set_similarity of T and P(tau), tau by tau."""
    t = truth if truth.propagated else goeval.propagate(truth)
    p = pred if pred.propagated else goeval.propagate(pred)
    index = {x: i for i, x in enumerate(p.proteins.tolist())}
    pm = p.matrix.tocsr()
    rows = [index.get(x, -1) for x in t.proteins.tolist()]
    full = sp.vstack([pm, sp.csr_array((1, onto.n_terms))], format="csr")[[r if r >= 0 else pm.shape[0] for r in rows]]
    out = {c: np.zeros(thresholds.size) for c in columns}
    for j, tau in enumerate(thresholds):
        pt = sp.csr_array(full.multiply(full >= tau).astype(bool))
        covered = np.diff(pt.indptr) > 0
        if not covered.any():
            continue
        for c in columns:
            measure, _, pairing = c.partition("_")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GoevalWarning)
                v = set_similarity(onto, ic, t.matrix[covered], pt[covered], measure, pairing.replace("_", "-") or "bma",
                                   ia=ia)
            out[c][j] = v.mean()
    return out


@pytest.mark.parametrize("seed", range(6))
def test_curves_equal_the_per_threshold_oracle(seed):
    onto, truth, pred, ia, ic = instance(seed)
    res = evaluate_annotations(onto, truth, {"m": pred}, ia=ia, ic=ic, similarity=MEASURES, pairings=PAIRINGS)
    cols = [c for c in res.curve_columns if c in {m.column for m in SIMILARITY_MEASURES}]
    assert len(cols) == 5 * 5 + 3
    want = oracle_curves(onto, truth, pred, ia, ic, res.curve_columns["threshold"], cols)
    for c in cols:
        assert_allclose(res.curve_columns[c], want[c], err_msg=c, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_summary_optima_follow_the_registry(seed):
    onto, truth, pred, ia, ic = instance(seed)
    res = evaluate_annotations(onto, truth, {"m": pred}, ia=ia, ic=ic, similarity=MEASURES, pairings=PAIRINGS)
    cur = res.curve_columns
    rows = {r["measure"]: r for r in res.summary_records}
    for ms in SIMILARITY_MEASURES:
        v = cur[ms.column]
        best = v.min() if ms.direction == "min" else v.max()
        r = rows[ms.name]
        assert r["value"] == pytest.approx(best, abs=1e-12), ms.name
        i = np.flatnonzero(cur["threshold"] == r["threshold"])[0]
        assert r["coverage"] == cur["coverage"][i] and r["ru"] == cur["ru"][i] and r["mi"] == cur["mi"][i]
    assert get_measure("jc_bma").direction == "min" and get_measure("lin_all").direction == "max"


def test_existing_columns_and_rows_unchanged_bit_for_bit():
    onto, truth, pred, ia, ic = instance(3)
    a = evaluate_annotations(onto, truth, {"m": pred}, ia=ia)
    b = evaluate_annotations(onto, truth, {"m": pred}, ia=ia, ic=ic, similarity=("lin", "jaccard"))
    assert list(b.curve_columns)[: len(a.curve_columns)] == list(a.curve_columns)
    assert list(b.curve_columns)[len(a.curve_columns):] == ["lin_all", "lin_bma", "jaccard"]
    for c in a.curve_columns:
        assert_array_equal(a.curve_columns[c], b.curve_columns[c], err_msg=c)
    names = {r["measure"] for r in a.summary_records}
    assert [r for r in b.summary_records if r["measure"] in names] == a.summary_records
    assert [r["measure"] for r in b.summary_records if r["measure"] not in names] == ["lin_all", "lin_bma", "jaccard"]


def test_information_content_source():
    onto, truth, pred, ia, ic = instance(1)
    with pytest.warns(GoevalWarning, match="test annotations inform"):
        res = evaluate_annotations(onto, truth, {"m": pred}, similarity=("resnik",))
    assert res.diagnostics["information_content"]["source"] == "truth"
    own = term_information_content(onto, truth)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GoevalWarning)
        res2 = evaluate_annotations(onto, truth, {"m": pred}, similarity=("resnik",), ic=own)
    assert res2.diagnostics["information_content"]["source"] == "given"
    assert_array_equal(res.curve_columns["resnik_all"], res2.curve_columns["resnik_all"])


def test_invalid_similarity_inputs():
    onto, truth, pred, ia, ic = instance(2)
    with pytest.raises(InvalidParameterError, match="'similarity' parameter of evaluate"):
        EvaluationOptions(similarity=("lord",))
    with pytest.raises(InvalidParameterError, match="'pairings' parameter of evaluate"):
        EvaluationOptions(pairings=("best",))
    assert EvaluationOptions(similarity="lin,jc", pairings="bma_mean").pairings == ("bma-mean",)
    with pytest.raises(InvalidParameterError, match="wjaccard"):
        evaluate_annotations(onto, truth, {"m": pred}, ic=ic, similarity=("wjaccard",))
    with pytest.raises(InvalidParameterError, match="'ic' parameter"):
        evaluate_annotations(onto, truth, {"m": pred}, ic=ic[:-1], similarity=("lin",))
    with pytest.raises(InvalidParameterError, match="'ic' parameter"):
        evaluate_annotations(onto, truth, {"m": pred}, ic=-ic - 1, similarity=("lin",))


def test_statistics_of_protein_halves_add_up():
    onto, truth, pred, ia, ic = instance(5, n_proteins=20)
    opts = EvaluationOptions(similarity=MEASURES, pairings=PAIRINGS)
    taus = np.unique(pred.matrix.data)
    whole = namespace_stats(onto, truth, {"m": pred}, ia, opts, taus, ic=ic)
    halves = [namespace_stats(onto, truth, {"m": pred}, ia, opts, taus, ic=ic, targets=truth.proteins[s])
              for s in (slice(0, 10), slice(10, None))]
    for key, st in whole.items():
        pooled = SweepStats.combine([h[key] for h in halves])
        for c, v in st.similarity.sums.items():
            assert_allclose(pooled.similarity.sums[c], v, err_msg=c, atol=1e-9)
            assert_array_equal(pooled.similarity.defined[c], st.similarity.defined[c])
        a = summarize({key: pooled}, opts).summary_records
        b = summarize({key: st}, opts).summary_records
        assert [r["measure"] for r in a] == [r["measure"] for r in b]
    with pytest.raises(InvalidParameterError, match="similarity"):
        plain = namespace_stats(onto, truth, {"m": pred}, ia, None, taus)
        next(iter(plain.values())) + next(iter(whole.values()))


def test_known_pairs_leave_the_similarity_sets_too():
    onto, truth, pred, ia, ic = instance(4)
    known = goeval.Annotations.from_pairs(onto, truth.proteins[:3].tolist(), ["t1", "t1", "t1"])
    from goeval.benchmarks.timesplit import remove_known

    tr, pr = remove_known(truth, {"m": pred}, known)
    res = evaluate_annotations(onto, truth, {"m": pred}, ic=ic, known=known, similarity=("jaccard", "simgic"))
    want = oracle_curves(onto, tr, pr["m"], None, ic, res.curve_columns["threshold"], ["jaccard", "simgic"])
    for c in ("jaccard", "simgic"):
        assert_allclose(res.curve_columns[c], want[c], err_msg=c, atol=1e-12)


def test_cross_validation_uses_a_per_fold_information_content():
    from goeval.benchmarks import cross_validate
    from goeval.io.folds import read_folds
    from goeval.io.hits import read_hits

    d = DATA / "benchmarks"
    onto = goeval.load_ontology(d / "toy.obo")
    ann = goeval.load_annotations(d / "annotations.tsv", onto)
    hits = read_hits(d / "hits.tsv", ("qseqid", "sseqid", "pident", "length", "evalue", "bitscore"))
    folds = read_folds(d / "folds.tsv")
    opts = EvaluationOptions(thresholds=0.25, similarity=("lin", "jaccard"), pairings=("all",))
    cv = cross_validate(onto, ann, hits, folds, methods=["naive", "blast"], options=opts)
    assert set(cv.ic) == set(cv.ia)
    for f, v in cv.ic.items():
        train = ann.proteins[np.isin(ann.proteins, folds.proteins[folds.folds != f])]
        sub = goeval.Annotations(proteins=train, matrix=ann.matrix.tocsr()[np.isin(ann.proteins, train)], ontology=onto)
        assert_allclose(v, term_information_content(onto, sub).values, err_msg=str(f))
    rec = cv.table1[0]
    assert {"lin_all", "lin_all_threshold", "jaccard", "jaccard_threshold"} <= set(rec)
    rows = {(r["namespace"], r["method"], r["measure"]): r for r in cv.result.summary_records}
    for r in cv.table1:
        assert r["jaccard"] == rows[(r["namespace"], r["method"], "jaccard")]["value"]
    assert "jaccard" in cv.result.curve_columns


def test_run_diagnostics_do_not_depend_on_threads_or_streaming(tmp_path):
    """The IC estimated from the truth is reported once, the same way, whatever the scheduling (a former bug:
    one path warned through Python only and kept a shorter information_content block)."""
    import json
    import shutil

    import goeval
    from goeval.io.results import jsonable

    preds = tmp_path / "preds"
    preds.mkdir()
    for name in ("a", "b"):
        shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    kw = dict(ia=goeval.example_path("ia"), similarity=("lin",), pairings=("bma",), thresholds=0.01)
    runs = []
    for extra in ({"threads": 1}, {"threads": 2}, {"stream": True, "threads": 2}):
        with pytest.warns(goeval.errors.GoevalWarning, match="estimated from the truth annotations"):
            res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"), [preds], **kw, **extra)
        runs.append(json.dumps(jsonable({k: v for k, v in res.diagnostics.items() if k != "streaming"})))
    assert runs[0] == runs[1] == runs[2]
    diag = json.loads(runs[0])
    assert diag["information_content"]["source"] == "truth" and "proteins" in diag["information_content"]
    assert sum("estimated from the truth annotations" in w for w in diag["warnings"]) == 1


def test_lower_level_warnings_are_kept_in_the_run_diagnostics():
    """A warning said by a function below the run (here the distance under 'gt') is a fact of the run."""
    import goeval

    with pytest.warns(goeval.errors.GoevalWarning, match="a distance has no value"):
        res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                              [goeval.example_path("predictions")], ia=goeval.example_path("ia"), similarity=("jc",),
                              pairings=("bma",), normalization="gt", thresholds=0.01,
                              ic_annotations=goeval.example_path("truth"))
    assert any("a distance has no value" in w for w in res.diagnostics["warnings"])


def test_wang_needs_no_ic_and_its_weights_are_options():
    """Wang alone: no IC estimated (nor its warning); the weights are recorded in the run's options and
    change the values; GOSemSim's pairing names avg and rcmax.avg are read as all and bma."""
    onto, truth, pred, ia, _ = instance(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GoevalWarning)
        res = evaluate_annotations(onto, truth, {"m": pred}, similarity=("wang",), pairings=("avg", "rcmax.avg"))
    assert "information_content" not in res.diagnostics
    assert res.diagnostics["options"]["wang_weights"] == {"is_a": 0.8, "part_of": 0.6}
    assert res.diagnostics["options"]["pairings"] == ["all", "bma"]
    other = evaluate_annotations(onto, truth, {"m": pred}, similarity=("wang",), pairings=("all",),
                                 wang_weights="part_of=0.3")
    assert other.diagnostics["options"]["wang_weights"] == {"is_a": 0.8, "part_of": 0.3}
    assert not np.allclose(other.curve_columns["wang_all"], res.curve_columns["wang_all"])
    with pytest.raises(InvalidParameterError, match="'wang_weights' parameter of evaluate"):
        EvaluationOptions(wang_weights="is_a=1.5")
