"""Invariance tests over the measure registry (scikit-learn ``test_common`` style).

Every registered protein-centric measure (:data:`PROTEIN_MEASURES`) and every
term-centric one (:data:`TERM_MEASURES`) is checked on random DAGs and
annotations: shuffling proteins or terms changes nothing, propagating twice
equals once, IA = 1 makes weighted precision/recall equal the unweighted
ones, a perfect prediction is optimal, and protein weights behave like
repeated proteins.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_dag_edges
from numpy.testing import assert_allclose, assert_array_equal

import goeval
from goeval.annotations import propagate
from goeval.errors import InvalidParameterError
from goeval.metrics import aupr_score, best_index, protein_curve, protein_curves
from goeval.metrics.registry import (
    PROTEIN_AGGREGATES,
    PROTEIN_AREAS,
    PROTEIN_CALIBRATION,
    PROTEIN_MEASURES,
    SIMILARITY_MEASURES,
    TERM_MEASURES,
    Measure,
    get_measure,
    measures,
    register,
)
from goeval.sweep import SweepStats, exact_thresholds, sweep

TOL = {"rtol": 1e-12, "atol": 1e-12}
SEEDS = range(6)
SCORES = (0.1, 0.25, 0.5, 0.75, 1.0)


# =====================================================================
# Random instances
# =====================================================================
def random_instance(seed: int, n_proteins: int = 9):
    """An ontology (one namespace), truth and score Annotations, IA (> 0 off the root)."""
    rng = np.random.default_rng(seed)
    n_terms = int(rng.integers(6, 18))
    onto = goeval.ontology_from_edges(random_dag_edges(rng, n_terms))
    terms = [f"t{i}" for i in range(1, n_terms)]
    truth, pred = [], []
    for i in range(n_proteins):
        for t in rng.choice(terms, size=int(rng.integers(1, 4)), replace=False):
            truth.append((f"P{i}", str(t)))
        for t in rng.choice(terms, size=int(rng.integers(0, 6)), replace=False):
            s = float(rng.choice(SCORES)) if rng.random() < 0.6 else float(1.0 - rng.random())
            pred.append((f"P{i}", str(t), s))
    ia = rng.choice([0.5, 1.0, 2.0, 3.0], size=onto.n_terms) * (rng.random(onto.n_terms) + 0.5)
    ia[onto.roots()] = 0.0
    return onto, truth, pred, ia


def relabel(seed: int, onto, truth, pred, ia):
    """The same instance with terms renamed at random (the ontology's indices reorder)."""
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, int(rng.integers(6, 18)))  # as in random_instance
    perm = np.random.default_rng(seed + 1000).permutation(onto.n_terms)
    names = {f"t{i}": f"x{int(j):03d}" for i, j in enumerate(perm)}
    onto2 = goeval.ontology_from_edges([(names[c], names[p]) for c, p in edges])
    ia2 = np.zeros(onto2.n_terms)
    for i, term in enumerate(onto.ids):
        ia2[onto2.index(names[term])] = ia[i]
    assert not np.array_equal(onto2.ids, [names[x] for x in onto.ids])  # the order really changed
    return onto2, [(p, names[x]) for p, x in truth], [(p, names[x], v) for p, x, v in pred], ia2


def annotations(onto, truth, pred):
    t = goeval.Annotations.from_pairs(onto, [p for p, _ in truth], [x for _, x in truth])
    s = goeval.Annotations.from_pairs(onto, [p for p, _, _ in pred], [x for _, x, _ in pred], [v for _, _, v in pred])
    return t, s


def matrices(onto, truth, pred):
    """Propagated truth and scores as sparse matrices over the same protein rows."""
    t, s = annotations(onto, truth, pred)
    t, s = propagate(t), propagate(s)
    index = {p: i for i, p in enumerate(s.proteins.tolist())}
    rows = [index.get(p, -1) for p in t.proteins.tolist()]
    sm = sp.vstack([s.matrix, sp.csr_array((1, onto.n_terms))], format="csr")[[r if r >= 0 else s.matrix.shape[0] for r in rows]]
    return t.matrix.tocsr(), sm


def values(y_true, y_score, ia, **kw) -> dict[str, float]:
    """Every registered protein measure (optima and areas) from the curves of protein_curve."""
    cur = protein_curve(y_true, y_score, ia=ia, **kw)
    out = {}
    for ms in PROTEIN_MEASURES:
        i = best_index(cur[ms.column], ms.direction)
        out[ms.name] = float(cur[ms.column][i]) if i >= 0 else np.nan
    for ms in PROTEIN_AREAS:
        out[ms.name] = aupr_score(cur[ms.recall], cur[ms.column])
    return out


def assert_same_values(a: dict[str, float], b: dict[str, float]) -> None:
    assert list(a) == list(b)
    for name in a:
        assert_allclose(b[name], a[name], err_msg=name, **TOL)


NAMES = [m.name for m in PROTEIN_MEASURES]


# =====================================================================
# The registry itself
# =====================================================================
def test_protein_measures_in_summary_order():
    # the first five are the historical summary rows, in their order
    assert NAMES == ["fmax", "wfmax", "fmax_micro", "smin", "wsmin", "wfmax_micro", "smin_terms", "max_coverage"]
    assert [m.name for m in PROTEIN_AREAS] == ["aupr", "waupr"]
    assert [m.name for m in PROTEIN_AGGREGATES] == ["cafa5_score", "cafa6_metric_final", "cafa6_metric_final_micro"]
    sim = [m.name for m in SIMILARITY_MEASURES]
    assert sim[:3] == ["resnik_all", "resnik_bma", "resnik_bma_mean"] and sim[-3:] == ["jaccard", "simgic", "wjaccard"]
    assert len(sim) == 5 * 5 + 3 and sim[20:25] == ["wang_all", "wang_bma", "wang_bma_mean", "wang_max", "wang_rcmax"]
    assert [m.name for m in measures("protein")] == NAMES + ["aupr", "waupr", "ece", "brier", "wece", "wbrier",
                                                              "ic_aupr", "cafa5_score", "cafa6_metric_final",
                                                              "cafa6_metric_final_micro"] + sim + ["nr_fmax", "nr_fmax_micro"]
    assert {m.reduce for m in PROTEIN_MEASURES} == {"optimum"}
    assert {m.reduce for m in PROTEIN_AREAS} == {"area"}
    assert {m.reduce for m in PROTEIN_CALIBRATION} == {"curve"}
    assert all(m.kind == "term" for m in TERM_MEASURES)


def test_lookup_by_name_or_alias_case_insensitive():
    assert get_measure("Fmax") is get_measure("fmax")
    assert get_measure("wSmin").column == "ws"
    assert get_measure("TAP-k").kind == "term"
    with pytest.raises(InvalidParameterError, match="fmax"):
        get_measure("fmeasure")


def test_register_refuses_a_taken_name_and_checks_fields():
    with pytest.raises(InvalidParameterError):
        register(Measure(name="fmax", column="f", direction="max", needs_ia=False))
    with pytest.raises(InvalidParameterError):
        register(Measure(name="other", column="x", direction="max", needs_ia=False, aliases=("Smin",)))
    with pytest.raises(InvalidParameterError):
        Measure(name="x", column="f", direction="up", needs_ia=False)
    with pytest.raises(InvalidParameterError):
        Measure(name="x", column="f", direction="max", needs_ia=False, kind="gene")
    with pytest.raises(InvalidParameterError, match="'reduce' parameter of Measure"):
        Measure(name="x", column="f", direction="max", needs_ia=False, reduce="median")


def test_every_protein_measure_names_curve_columns():
    cols = set(goeval.metrics.CURVE_COLUMNS)
    ia_cols = set(goeval.metrics.protein.IA_COLUMNS)
    for m in PROTEIN_MEASURES:
        assert {m.column, m.precision, m.recall, m.ru, m.mi, m.coverage} <= cols, m.name
        assert m.needs_ia == (m.column in ia_cols), m.name
    for m in PROTEIN_AREAS + PROTEIN_AGGREGATES:
        assert {m.column, m.recall} <= cols, m.name
        assert m.needs_ia == (m.column in ia_cols), m.name


# =====================================================================
# Protein-centric invariances (every registered measure)
# =====================================================================
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("thresholds", ["exact", 0.05])
def test_shuffling_proteins_changes_nothing(seed, thresholds):
    onto, truth, pred, ia = random_instance(seed)
    rng = np.random.default_rng(seed)
    base = values(*annotations(onto, truth, pred), ia, thresholds=thresholds)
    shuffled = values(*annotations(onto, [truth[i] for i in rng.permutation(len(truth))],
                                   [pred[i] for i in rng.permutation(len(pred))]), ia, thresholds=thresholds)
    assert_same_values(base, shuffled)
    t, s = matrices(onto, truth, pred)
    perm = rng.permutation(t.shape[0])
    assert_same_values(values(t, s, ia, thresholds=thresholds), values(t[perm], s[perm], ia, thresholds=thresholds))


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffling_terms_changes_nothing(seed):
    onto, truth, pred, ia = random_instance(seed)
    t, s = matrices(onto, truth, pred)
    perm = np.random.default_rng(seed).permutation(onto.n_terms)
    assert_same_values(values(t, s, ia), values(t[:, perm], s[:, perm], ia[perm]))
    # and renamed terms, which reorders the ontology's own indices
    onto2, truth2, pred2, ia2 = relabel(seed, onto, truth, pred, ia)
    assert_same_values(values(*annotations(onto, truth, pred), ia), values(*annotations(onto2, truth2, pred2), ia2))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["max", "fill"])
def test_propagating_twice_equals_once(seed, mode):
    onto, truth, pred, ia = random_instance(seed)
    t, s = annotations(onto, truth, pred)
    once = propagate(s, mode)
    twice = propagate(once, mode)
    assert_array_equal(once.matrix.indptr, twice.matrix.indptr)
    assert_array_equal(once.matrix.indices, twice.matrix.indices)
    assert_array_equal(once.matrix.data, twice.matrix.data)
    if mode == "max":
        assert_same_values(values(t, s, ia), values(t, twice, ia))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("thresholds", ["exact", 0.05])
def test_unit_ia_makes_weighted_equal_unweighted(seed, thresholds):
    onto, truth, pred, _ = random_instance(seed)
    t, s = matrices(onto, truth, pred)
    cur = protein_curve(t, s, ia=np.ones(onto.n_terms), thresholds=thresholds)
    for w, u in (("n_covered_w", "n_covered"), ("coverage_w", "coverage"), ("wprecision", "precision"),
                 ("wrecall", "recall"), ("wf", "f")):
        assert_allclose(cur[w], cur[u], err_msg=w, **TOL)
    v = values(t, s, np.ones(onto.n_terms), thresholds=thresholds)
    assert_allclose(v["wfmax"], v["fmax"], **TOL)
    # ru and mi become term counts: mean over n proteins of |T - P| and |P - T|
    n = cur["n_proteins"][0]
    for col in ("ru", "mi"):
        assert_allclose(cur[col] * n, np.rint(cur[col] * n), atol=1e-9)
    t_sets = [set(t.indices[t.indptr[i]:t.indptr[i + 1]].tolist()) for i in range(t.shape[0])]
    for j, tau in enumerate(cur["threshold"]):
        p_sets = [{c for c, x in zip(s.indices[s.indptr[i]:s.indptr[i + 1]], s.data[s.indptr[i]:s.indptr[i + 1]]) if x >= tau}
                  for i in range(s.shape[0])]
        assert cur["ru"][j] * n == pytest.approx(sum(len(a - b) for a, b in zip(t_sets, p_sets)))
        assert cur["mi"][j] * n == pytest.approx(sum(len(b - a) for a, b in zip(t_sets, p_sets)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("normalization", ["cafa", "pred", "gt"])
@pytest.mark.parametrize("protein_weighting", ["none", "information"])
def test_perfect_prediction_is_optimal(seed, normalization, protein_weighting):
    onto, truth, _, ia = random_instance(seed)
    perfect = [(p, x, 1.0) for p, x in truth]
    v = values(*annotations(onto, truth, perfect), ia, normalization=normalization,
               protein_weighting=protein_weighting)
    for ms in PROTEIN_MEASURES:
        assert v[ms.name] == pytest.approx(1.0 if ms.direction == "max" else 0.0, abs=1e-12), ms.name
    for ms in PROTEIN_AREAS:
        assert v[ms.name] == pytest.approx(1.0, abs=1e-12), ms.name


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("normalization", ["cafa", "pred", "gt"])
def test_weights_of_one_equal_no_weights_bit_for_bit(seed, normalization):
    onto, truth, pred, ia = random_instance(seed)
    t, s = matrices(onto, truth, pred)
    for pw in ("none", "information"):
        a = protein_curve(t, s, ia=ia, normalization=normalization, protein_weighting=pw)
        b = protein_curve(t, s, ia=ia, normalization=normalization, protein_weighting=pw,
                          sample_weight=np.ones(t.shape[0]))
        assert list(a) == list(b)
        for col in a:
            assert_array_equal(a[col], b[col], err_msg=col)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("thresholds", ["exact", 0.05])
def test_integer_weights_equal_repeated_proteins(seed, thresholds):
    onto, truth, pred, ia = random_instance(seed)
    t, s = matrices(onto, truth, pred)
    w = np.random.default_rng(seed).integers(1, 4, size=t.shape[0])
    rep = np.repeat(np.arange(t.shape[0]), w)
    for pw in ("none", "information"):
        a = protein_curve(t, s, ia=ia, sample_weight=w, thresholds=thresholds, protein_weighting=pw)
        b = protein_curve(t[rep], s[rep], ia=ia, thresholds=thresholds, protein_weighting=pw)
        for col in a:
            assert_allclose(a[col], b[col], err_msg=col, **TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_batched_weights_equal_separate_sweeps(seed):
    onto, truth, pred, ia = random_instance(seed)
    t, s = matrices(onto, truth, pred)
    bench = np.flatnonzero(np.diff(t.indptr) > 0)
    t, s = t[bench], s[bench]
    rng = np.random.default_rng(seed)
    W = rng.integers(0, 3, size=(5, t.shape[0])).astype(float)
    W[1] = rng.random(t.shape[0])
    taus = exact_thresholds(s.data)

    def run(w):
        return sweep(s.indptr, s.indices, s.data, t.indptr, t.indices, onto.n_terms, taus, ia, weights=w, chunk_entries=7)

    batched = run(W)
    assert batched.n_replicates == 5
    for b in range(W.shape[0]):
        one, row = run(W[b]), batched.replicate(b)
        for key in one.sums:
            assert_allclose(row.sums[key], one.sums[key], err_msg=key, **TOL)
        assert_allclose([row.n, row.n_true, row.it_sum, row.it2_sum], [one.n, one.n_true, one.it_sum, one.it2_sum], **TOL)
        c1 = protein_curves(one, normalization="pred")
        cb = protein_curves(batched, normalization="pred")
        for ms in PROTEIN_MEASURES:
            assert_allclose(cb[ms.column][b], c1[ms.column], err_msg=ms.name, **TOL)


# =====================================================================
# Term-centric measures
# =====================================================================
def term_values(onto, truth, pred, ia, k: int = 2) -> dict[str, float]:
    t, s = annotations(onto, truth, pred)
    res = goeval.evaluate_terms(onto, t, {"m": s}, k=(k,), auc_min_positives=1, ia=ia, query_weights="uniform")
    row = res.summary.iloc[0]
    return {m.name: float(row[m.column.format(k=k)]) for m in TERM_MEASURES}


@pytest.mark.filterwarnings("ignore:ROC AUC is undefined")
@pytest.mark.parametrize("seed", SEEDS)
def test_term_measures_ignore_protein_and_term_order(seed):
    onto, truth, pred, ia = random_instance(seed)
    rng = np.random.default_rng(seed)
    base = term_values(onto, truth, pred, ia)
    assert_same_values(base, term_values(onto, [truth[i] for i in rng.permutation(len(truth))],
                                         [pred[i] for i in rng.permutation(len(pred))], ia))
    onto2, truth2, pred2, ia2 = relabel(seed, onto, truth, pred, ia)
    assert_same_values(base, term_values(onto2, truth2, pred2, ia2))


@pytest.mark.filterwarnings("ignore:ROC AUC is undefined")
@pytest.mark.parametrize("seed", SEEDS)
def test_term_measures_of_a_perfect_prediction_are_one(seed):
    onto, truth, _, ia = random_instance(seed)
    v = term_values(onto, truth, [(p, x, 1.0) for p, x in truth], ia)
    for ms in TERM_MEASURES:
        assert v[ms.name] == pytest.approx(1.0, abs=1e-12), ms.name


def test_sweep_stats_combine_is_the_sum_of_chunks():
    onto, truth, pred, ia = random_instance(3)
    t, s = matrices(onto, truth, pred)
    bench = np.flatnonzero(np.diff(t.indptr) > 0)
    t, s = t[bench], s[bench]
    taus = exact_thresholds(s.data)

    def run(rows):
        return sweep(s[rows].indptr, s[rows].indices, s[rows].data, t[rows].indptr, t[rows].indices,
                     onto.n_terms, taus, ia)

    whole = run(np.arange(t.shape[0]))
    parts = [run(np.arange(0, 3)), run(np.arange(3, 6)), run(np.arange(6, t.shape[0]))]
    total = SweepStats.combine(parts)
    assert total.n == whole.n and total.n_true == whole.n_true
    for key in whole.sums:
        assert_allclose(total.sums[key], whole.sums[key], err_msg=key, **TOL)
    before = parts[0].sums["pr"].copy()
    _ = parts[0] + parts[1]
    assert_array_equal(parts[0].sums["pr"], before)  # + does not modify its operands


def test_registry_agrees_with_the_independent_oracle_table():
    """The set-based oracle of tests/oracles.py declares the same optima by hand."""
    from oracles import ORACLE_OPTIMA

    assert NAMES == list(ORACLE_OPTIMA)
    for m in PROTEIN_MEASURES:
        assert (m.column, m.direction, m.coverage, m.precision, m.recall, m.ru, m.mi) == ORACLE_OPTIMA[m.name], m.name


# =====================================================================
# A measure registered by a user reaches the summary, the bootstrap and the report
# =====================================================================
def _f2(curves):
    """F-beta with beta = 2 of the averaged precision and recall (recall weighted 4 times)."""
    pr, rc = np.asarray(curves["precision"]), np.asarray(curves["recall"])
    den = 4 * pr + rc
    return np.divide(5 * pr * rc, den, out=np.zeros(np.shape(den)), where=den > 0)


@pytest.fixture
def f2max():
    """The documented recipe (docs/architecture.md): one register call, removed after the test."""
    from goeval.metrics.registry import unregister

    ms = register(Measure(name="f2max", column="f2", direction="max", needs_ia=False, label="F2max", interval=True,
                          ranked=True, curve=_f2, inputs=("precision", "recall"),
                          description="maximum over thresholds of F-beta (beta = 2) of precision and recall"))
    yield ms
    unregister("f2max")


def test_user_measure_reaches_summary_bootstrap_and_report(f2max, tmp_path):
    pytest.importorskip("matplotlib")
    import pandas as pd

    from goeval.cli import main

    import shutil

    out, preds = tmp_path / "r", tmp_path / "preds"
    preds.mkdir()
    for name in ("a", "b"):  # two methods, so that goeval compare has a pair
        shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    args = ["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth",
            str(goeval.example_path("truth")), "--predictions", str(preds), "--ia",
            str(goeval.example_path("ia")), "--thresholds", "0.01", "--bootstrap", "40", "--plots", "-q",
            "--out", str(out)]
    assert main(args) == 0
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    row = summary[(summary["measure"] == "f2max") & (summary["method"] == "a")].iloc[0]
    curves = pd.read_csv(out / "curves.tsv", sep="\t")
    curves = curves[curves["method"] == "a"].reset_index(drop=True)
    want = _f2(curves)
    i = int(np.argmax(want))  # the oracle: F2 from the curves' own precision and recall, lowest threshold on ties
    assert_allclose(row["value"], want[i], rtol=1e-12)
    assert row["threshold"] == curves["threshold"][i]
    assert_allclose(curves["f2"], want, rtol=1e-12)  # its curve is written too
    assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["se"] > 0  # bootstrap interval
    html = (out / "report.html").read_text()
    assert '<td class="t">F2max</td><td>1</td>' in html  # the report ranks by it under its label
    assert main(["compare", str(out), "--measure", "f2max", "--bootstrap", "30", "--out", str(tmp_path / "c.tsv")]) == 0
    pairs = pd.read_csv(tmp_path / "c.tsv", sep="\t")
    assert set(pairs["measure"]) == {"f2max"} and (pairs["difference"] == 0).all()
    assert get_measure("F2MAX") is f2max


def test_measure_declares_its_sums():
    """Each measure says which per-protein sums its optimum reads; a derived one, those of its inputs."""
    assert get_measure("smin").sums() == ("covered", "mi", "ru")
    assert get_measure("wfmax").sums("cafa", "information") == ("covered", "it_cov_w", "it_wpr", "it_wrc")
    ms = Measure(name="x", column="x", direction="max", needs_ia=False, curve=lambda c: c["f"], inputs=("f",))
    assert ms.sums() == ("covered", "pr", "rc")
    with pytest.raises(InvalidParameterError, match="both 'curve' and 'inputs'"):
        Measure(name="y", column="y", direction="max", needs_ia=False, curve=lambda c: c["f"])


def test_ic_aupr_reaches_summary_bootstrap_compare_and_report(tmp_path, capsys):
    """BeProf's IC_AUPR through the registry alone: a summary row with a bootstrap interval, the area of the weighted
    curve of curves.tsv at BeProf's cuts, goeval compare and the report's table."""
    import shutil

    import numpy as np
    import pandas as pd

    import goeval
    from goeval.cli import main
    from goeval.metrics.protein import beprof_aupr

    d = goeval.example_path
    preds = tmp_path / "preds"
    preds.mkdir()
    for name in ("a", "b"):
        shutil.copy(d("predictions"), preds / f"{name}.tsv.gz")
    out = tmp_path / "run"
    assert main([str(x) for x in ("evaluate", "--ontology", d("ontology"), "--truth", d("truth"), "--ia", d("ia"),
                                  "--predictions", preds, "--thresholds", "0.01", "--curves", "full", "--bootstrap",
                                  "20", "-q", "--out", out)]) == 0
    summary = pd.read_csv(out / "summary.tsv", sep="\t").set_index(["method", "measure"])
    curves = pd.read_csv(out / "curves.tsv", sep="\t")
    a = curves[curves["method"] == "a"]
    row = summary.loc[("a", "ic_aupr")]
    want = float(beprof_aupr(a["threshold"].to_numpy(), a["wrecall"].to_numpy(), a["wprecision"].to_numpy()))
    assert row["value"] == pytest.approx(want, rel=1e-12)
    assert row["value"] != pytest.approx(summary.loc[("a", "waupr"), "value"], rel=1e-3)  # another area
    assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["se"] > 0
    capsys.readouterr()
    assert main(["compare", str(out), "--measure", "ic_aupr", "--out", str(tmp_path / "c.tsv")]) == 0
    pairs = pd.read_csv(tmp_path / "c.tsv", sep="\t")
    assert set(pairs["measure"]) == {"ic_aupr"} and (pairs["difference"] == 0).all()
    assert main(["report", str(out)]) == 0
    assert "IC-AUPR (BeProf)" in (out / "report.md").read_text()
    assert np.isfinite(row["value"])
