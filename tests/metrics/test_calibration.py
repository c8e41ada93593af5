"""Calibration from cumulative sums equals a direct computation on the pairs."""

from pathlib import Path

import numpy as np
from numpy.testing import assert_allclose
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.errors import InvalidParameterError
from goeval.metrics.calibration import calibration_bins, calibration_from_pairs


def _direct(y, s, edges, w, n_true):
    """ECE and Brier pair by pair: each pair's bin by np.digitize, the squared errors summed."""
    b = np.clip(np.digitize(s, edges[1:-1], right=False), 0, edges.size - 2)
    ece, total = 0.0, w.sum()
    for k in range(edges.size - 1):
        inb = b == k
        if inb.any():
            nb = w[inb].sum()
            ece += nb / total * abs((w[inb] * y[inb]).sum() / nb - (w[inb] * s[inb]).sum() / nb)
    missed = n_true - (w * y).sum()
    brier = ((w * (s - y) ** 2).sum() + missed) / (total + missed)
    return ece, brier


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 100), st.booleans(), st.floats(0.1, 3.0)), min_size=1, max_size=60),
       st.integers(1, 12), st.integers(0, 5), st.booleans())
def test_ece_and_brier_equal_a_pair_by_pair_computation(pairs, n_bins, extra_true, weighted):
    s = np.array([p[0] / 100 for p in pairs])
    y = np.array([p[1] for p in pairs], dtype=np.float64)
    w = np.array([p[2] for p in pairs]) if weighted else np.ones(s.size)
    thresholds = np.unique(s)  # exact thresholds: every distinct score
    edges = calibration_bins(n_bins)
    n_true = (w * y).sum() + extra_true
    got = calibration_from_pairs(y, s, thresholds, edges, weights=w, n_true=n_true)
    ece, brier = _direct(y, s, edges, w, n_true)
    assert got["ece"] == pytest.approx(ece, rel=1e-12, abs=1e-14)
    assert got["brier"] == pytest.approx(brier, rel=1e-12)
    assert got["table"]["pairs"].sum() == pytest.approx(w.sum())


def test_a_calibrated_predictor_has_ece_near_zero_and_a_constant_one_does_not():
    rng = np.random.default_rng(7)
    s = rng.integers(1, 101, 200_000) / 100
    y = (rng.random(s.size) < s).astype(np.float64)  # true with probability s
    thresholds = np.unique(s)
    good = calibration_from_pairs(y, s, thresholds, calibration_bins(10))
    assert good["ece"] < 0.005
    over = calibration_from_pairs(y, np.minimum(1.0, s + 0.2), np.unique(np.minimum(1.0, s + 0.2)),
                                  calibration_bins(10))
    assert over["ece"] > 0.15


def test_the_reliability_table_of_a_small_case():
    s = np.array([0.05, 0.15, 0.15, 0.95, 1.0])
    y = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    got = calibration_from_pairs(y, s, np.unique(s), calibration_bins(10))
    t = got["table"]
    assert t["pairs"].tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    assert t["fraction_true"][1] == 0.5 and np.isnan(t["fraction_true"][2])
    assert t["mean_score"][9] == pytest.approx(0.975)
    # ECE: (1*0.05 + 2*0.35 + 2*0.025) / 5; Brier: (0.05^2 + 0.85^2 + 0.15^2 + 0.05^2 + 0) / 5
    assert got["ece"] == pytest.approx((0.05 + 0.7 + 0.05) / 5)
    assert got["brier"] == pytest.approx((0.0025 + 0.7225 + 0.0225 + 0.0025) / 5)


@pytest.mark.parametrize("spec", [0, 2.5, [0.5, 0.4], [0.0, 0.5], [1.0]])
def test_bad_bins_are_refused(spec):
    with pytest.raises(InvalidParameterError):
        calibration_bins(spec)


# --- through the evaluation: the sums declared in goeval.sweep.quantities, the measures in the registry ---

def _propagated(ia_path=None):
    """Every benchmark protein's propagated (score, is true, ia) pairs, and the weight of every true pair."""
    import goeval

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.propagate(goeval.load_annotations(goeval.example_path("truth"), onto))
    preds = goeval.propagate(goeval.load_predictions(goeval.example_path("predictions"), onto))
    ia = goeval.load_ia(goeval.example_path("ia"), onto)[0] if ia_path else np.ones(onto.n_terms)
    tm, pm = truth.matrix.tocsr(), preds.matrix.tocsr()
    index = {p: i for i, p in enumerate(preds.proteins.tolist())}
    scores, true, weights, n_true, i_true = [], [], [], 0.0, 0.0
    for r, protein in enumerate(truth.proteins.tolist()):
        t_cols = tm.indices[tm.indptr[r]:tm.indptr[r + 1]]
        n_true, i_true = n_true + t_cols.size, i_true + ia[t_cols].sum()
        if protein not in index or not t_cols.size:
            continue
        row = pm[[index[protein]]]
        scores.append(row.data)
        true.append(np.isin(row.indices, t_cols))
        weights.append(ia[row.indices])
    return (np.concatenate(scores), np.concatenate(true).astype(np.float64), np.concatenate(weights), n_true,
            i_true)


def _two_method_run(tmp_path: Path, *extra: str) -> Path:
    """``goeval evaluate`` of two copies of the bundled example (methods ``a`` and ``b``) with IA and 7
    calibration bins (and ``extra`` flags); its results folder."""
    import shutil

    import goeval
    from goeval.cli import main

    out, preds = tmp_path / "r", tmp_path / "preds"
    preds.mkdir()
    for name in ("a", "b"):
        shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    assert main(["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth",
                 str(goeval.example_path("truth")), "--predictions", str(preds), "--ia", str(goeval.example_path("ia")),
                 "--calibration-bins", "7", *extra, "-q", "--out", str(out)]) == 0
    return out


def test_ece_and_brier_of_goeval_evaluate_equal_numpy_on_the_propagated_pairs(tmp_path):
    """Summary values against the pair-by-pair oracle; bootstrap intervals; goeval compare --measure ece."""
    pd = pytest.importorskip("pandas")
    from goeval.cli import main

    out = _two_method_run(tmp_path, "--bootstrap", "30")
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    a = summary[summary["method"] == "a"].set_index("measure")
    s, y, w, n_true, i_true = _propagated(ia_path=True)
    edges = calibration_bins(7)
    ece, brier = _direct(y, s, edges, np.ones(s.size), n_true)
    wece, wbrier = _direct(y, s, edges, w, i_true)
    assert a.loc["ece", "value"] == pytest.approx(ece, rel=1e-12)
    assert a.loc["brier", "value"] == pytest.approx(brier, rel=1e-12)
    assert a.loc["wece", "value"] == pytest.approx(wece, rel=1e-10)
    assert a.loc["wbrier", "value"] == pytest.approx(wbrier, rel=1e-10)
    for m in ("ece", "brier", "wece", "wbrier"):  # bootstrap intervals
        assert a.loc[m, "ci_low"] <= a.loc[m, "value"] <= a.loc[m, "ci_high"] and a.loc[m, "se"] > 0
    assert main(["compare", str(out), "--measure", "ece", "--bootstrap", "20", "--out", str(tmp_path / "c.tsv")]) == 0
    pairs = pd.read_csv(tmp_path / "c.tsv", sep="\t")
    assert set(pairs["measure"]) == {"ece"} and (pairs["difference"] == 0).all()


def _flat_benchmark(tmp_path, n_proteins=400, n_leaves=60, seed=3, distort=None):
    """A root and ``n_leaves`` leaves; every protein scores every leaf, the leaf true with probability its score."""
    rng = np.random.default_rng(seed)
    terms = [f"GO:{i:07d}" for i in range(1, n_leaves + 2)]
    obo = ["format-version: 1.2", "", "[Term]", f"id: {terms[0]}", "name: root", "namespace: molecular_function", ""]
    for t in terms[1:]:
        obo += ["[Term]", f"id: {t}", f"name: leaf {t}", "namespace: molecular_function", f"is_a: {terms[0]}", ""]
    (tmp_path / "flat.obo").write_text("\n".join(obo))
    truth, preds = [], []
    for p in range(n_proteins):
        s = rng.choice(np.arange(5, 100, 10) / 100, size=n_leaves)
        true = rng.random(n_leaves) < s
        true[rng.integers(n_leaves)] = True  # every protein in the benchmark (a vanishing bias)
        shown = s if distort is None else distort(s)
        preds += [f"P{p}\t{t}\t{v:.4f}" for t, v in zip(terms[1:], shown)]
        truth += [f"P{p}\t{t}" for t, k in zip(terms[1:], true) if k]
    (tmp_path / "truth.tsv").write_text("\n".join(truth) + "\n")
    (tmp_path / "preds.tsv").write_text("\n".join(preds) + "\n")
    return tmp_path / "flat.obo", tmp_path / "truth.tsv", tmp_path / "preds.tsv"


@pytest.mark.parametrize("distort, calibrated", [(None, True), (np.sqrt, False)])
def test_a_perfectly_calibrated_predictor_has_ece_near_zero_through_the_evaluation(tmp_path, distort, calibrated):
    """Leaves true with probability their score, the root left out (--exclude-roots): the propagated scores are the
    leaves' own, so ECE is sampling noise (~0.005 for 24,000 pairs) and Brier is E[s(1 - s)]; over-confident scores
    (the square root of the same) are not calibrated."""
    import goeval

    obo, truth, preds = _flat_benchmark(tmp_path, distort=distort)
    res = goeval.evaluate(obo, truth, [preds], exclude_roots=True)
    values = {r["measure"]: r["value"] for r in res.summary_records}
    if calibrated:
        assert values["ece"] < 0.015
        assert values["brier"] == pytest.approx(np.mean([v * (1 - v) for v in np.arange(5, 100, 10) / 100]), abs=0.01)
    else:
        assert values["ece"] > 0.1


def test_the_shared_rules_of_the_score_sums_give_the_sums_of_the_rows():
    """The naive baseline's fast path: each calibration sum's rule equals the rows made for every protein."""
    from goeval.metrics.calibration import CALIBRATION_SUMS
    from goeval.sweep import finish_partial, sweep_partial, truth_totals
    from goeval.sweep.shared import shared_partial, shared_supported

    assert shared_supported()
    rng = np.random.default_rng(5)
    n, n_cols = 30, 20
    cols = np.arange(0, n_cols, 2)
    vec = np.round(rng.random(cols.size), 2) + 0.01
    vec[0] = np.inf  # a root predicted at every threshold counts as a score of 1
    ia = rng.random(n_cols) * 3
    truth = [np.sort(rng.choice(n_cols, size=int(rng.integers(1, 6)), replace=False)) for _ in range(n)]
    t_ptr, t_cols = np.r_[0, np.cumsum([t.size for t in truth])], np.concatenate(truth)
    taus = np.unique(vec[np.isfinite(vec)])
    n_t, i_t = truth_totals(t_ptr, t_cols, ia, n_cols)
    shared = finish_partial(shared_partial(cols, vec, t_ptr, t_cols, n_cols, taus, ia), taus, n_t, i_t)
    rows = finish_partial(sweep_partial(np.arange(n + 1) * cols.size, np.tile(cols, n), np.tile(vec, n), t_ptr, t_cols,
                                        n_cols, taus, ia), taus, n_t, i_t)
    names = [v for group in CALIBRATION_SUMS.values() for v in group.values()]
    for name in names:
        assert_allclose(shared.sums[name], rows.sums[name], rtol=1e-12, err_msg=name)
    capped = np.minimum(vec, 1.0)
    tp = np.array([[c in t for c in cols] for t in truth])
    want = [(np.tile(capped, n) * tp.ravel() * np.tile(ia[cols], n))[np.tile(vec >= t, n)].sum() for t in taus]
    assert_allclose(rows.sums["ia_score_tp"], want, rtol=1e-12)


def _reliability_direct(y, s, edges, w):
    """Per bin (np.digitize on the edges): pairs, true pairs, mean score and fraction true, pair by pair."""
    b = np.clip(np.digitize(s, edges[1:-1], right=False), 0, edges.size - 2)
    rows = []
    for k in range(edges.size - 1):
        inb = b == k
        n, t = w[inb].sum(), (w[inb] * y[inb]).sum()
        rows.append((n, t, (w[inb] * s[inb]).sum() / n if n else np.nan, t / n if n else np.nan))
    return np.array(rows)


def test_calibration_tsv_of_goeval_evaluate_equals_numpy_on_the_propagated_pairs(tmp_path):
    """calibration.tsv: per method and bin, the pairs, true pairs, mean score and fraction true (and IA-weighted)
    of the propagated pairs, listed in the manifest, read back by load_results and the results reader."""
    pd = pytest.importorskip("pandas")
    import json

    import goeval
    from goeval.io.results_dir import read_results_dir

    out = _two_method_run(tmp_path)
    table = pd.read_csv(out / "calibration.tsv", sep="\t")
    assert list(table.columns) == ["method", "namespace", "bin", "lower", "upper", "pairs", "true", "mean_score",
                                   "fraction_true", "wpairs", "wtrue", "wmean_score", "wfraction_true"]
    assert table["method"].tolist() == ["a"] * 7 + ["b"] * 7 and table["bin"].tolist() == list(range(7)) * 2
    s, y, w, _, _ = _propagated(ia_path=True)
    edges = calibration_bins(7)
    a = table[table["method"] == "a"]
    assert_allclose(a[["lower", "upper"]].to_numpy(), np.c_[edges[:-1], edges[1:]])
    assert_allclose(a[["pairs", "true", "mean_score", "fraction_true"]].to_numpy(),
                    _reliability_direct(y, s, edges, np.ones(s.size)), rtol=1e-12, equal_nan=True)
    assert_allclose(a[["wpairs", "wtrue", "wmean_score", "wfraction_true"]].to_numpy(),
                    _reliability_direct(y, s, edges, w), rtol=1e-10, equal_nan=True)
    assert "calibration.tsv" in json.loads((out / "manifest.json").read_text())["files"]
    back = goeval.load_results(out)
    assert_allclose(back.calibration["mean_score"].to_numpy(), table["mean_score"].to_numpy(), rtol=0, equal_nan=True)
    assert read_results_dir(out).calibration["pairs"].tolist() == table["pairs"].tolist()


def test_rank_thresholds_write_no_calibration_and_say_so(tmp_path, capsys):
    """--thresholds top:...: scores are 1 / rank, so no ece/brier rows, no calibration.tsv, one line said."""
    pd = pytest.importorskip("pandas")
    import goeval
    from goeval.cli import main

    out = tmp_path / "r"
    assert main(["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth",
                 str(goeval.example_path("truth")), "--predictions", str(goeval.example_path("predictions")),
                 "--ia", str(goeval.example_path("ia")), "--thresholds", "top:1,5,all", "--out", str(out)]) == 0
    measures = set(pd.read_csv(out / "summary.tsv", sep="\t")["measure"])
    assert "fmax" in measures and not measures & {"ece", "brier", "wece", "wbrier"}
    assert not (out / "calibration.tsv").exists()
    said = capsys.readouterr()
    assert (said.out + said.err).count("calibration (ECE, Brier, calibration.tsv) not computed") == 1
    assert goeval.load_results(out).calibration is None


def test_a_score_on_a_bin_edge_opens_the_bin_above():
    """0.3 is in [0.3, 0.4), as a reader of the table expects (linspace's edge is 0.30000000000000004)."""
    s = np.array([0.3, 0.7])
    got = calibration_from_pairs(np.array([1.0, 0.0]), s, np.unique(s), calibration_bins(10))
    assert got["table"]["pairs"].tolist() == [0, 0, 0, 1, 0, 0, 0, 1, 0, 0]
