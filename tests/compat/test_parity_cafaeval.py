"""Parity with the incumbent CAFA-evaluator (``cafaeval`` 1.3.0).

cafaeval builds its thresholds with ``np.arange(0.01, 1, 0.01)``, which drifts:
25 of its 99 values are not the double nearest to j/100 (0.06 is
0.060000000000000005), so at those thresholds it drops every score of exactly
j/100 (CONVENTIONS §4). The curves are compared where cafaeval's float tau
equals j/100 exactly, and, through cafaeval's own parsing and metric
functions, on the exact grid j/100 as well.

Column mapping (goeval <- cafaeval): cafaeval's unweighted ``ru``/``mi``/``s``
are term counts (goeval's ``ru_terms``/``mi_terms``/``s_terms``); the
information-based ones are ``ru_w``/``mi_w``/``s_w``. cafaeval's ``tp``,
``fp``, ``fn`` are goeval's sums over proteins divided by the number of
benchmark proteins (``-norm pred``: by the covered ones).
"""

from __future__ import annotations

import gzip
import importlib.resources
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

cafaeval = pytest.importorskip("cafaeval")
from cafaeval.evaluation import cafa_eval, evaluate_prediction  # noqa: E402
from cafaeval.parser import gt_parser, obo_parser, pred_parser  # noqa: E402

import goeval  # noqa: E402
from goeval.evaluation import keep_top_terms  # noqa: E402

# cafaeval 1.3.0 calls DataFrame.set_index(inplace=True), deprecated in recent pandas
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")

PLAIN = {
    "n_covered": "n", "coverage": "cov", "precision": "pr", "recall": "rc", "f": "f",
    "precision_micro": "pr_micro", "recall_micro": "rc_micro", "f_micro": "f_micro",
    "ru_terms": "ru", "mi_terms": "mi", "s_terms": "s", "tp_mean": "tp", "fp_mean": "fp", "fn_mean": "fn",
}
WEIGHTED = {
    "n_covered_w": "n_w", "coverage_w": "cov_w", "wprecision": "pr_w", "wrecall": "rc_w", "wf": "f_w",
    "ru": "ru_w", "mi": "mi_w", "s": "s_w",
    "wprecision_micro": "pr_micro_w", "wrecall_micro": "rc_micro_w", "wf_micro": "f_micro_w",
}
NAMESPACES = {"biological_process": "BPO", "molecular_function": "MFO", "cellular_component": "CCO"}
TOL = {"rtol": 1e-9, "atol": 1e-9}

#: cafaeval's grid, and the j (tau = j/100) where it is exact
CAFA_TAUS = np.arange(0.01, 1, 0.01)
EXACT_J = {j for j, tau in enumerate(CAFA_TAUS, start=1) if tau == j / 100}

#: Fmax of the five example methods in cafaeval's README
README_FMAX = {"pred_1": 0.517, "pred_2": 0.540, "pred_3": 0.669, "pred_4": 0.776, "pred_5": 0.675}


def example_dir() -> Path:
    return Path(str(importlib.resources.files("cafaeval") / "data" / "example"))


def tidy(df: pd.DataFrame, exact_grid: bool) -> pd.DataFrame:
    """cafaeval's frame with goeval's method and namespace names and j = round(100 tau)."""
    df = df.reset_index() if "tau" not in df.columns else df.reset_index(drop=True)
    out = df.copy()
    out["method"] = [Path(f).name.split(".")[0] for f in out["filename"]]
    out["namespace"] = [NAMESPACES.get(ns, ns) for ns in out["ns"]]
    j = np.rint(out["tau"].to_numpy() * 100).astype(int)
    out["j"] = j
    if not exact_grid:
        out = out[out["tau"].to_numpy() == j / 100]
    return out


def run_cafa_eval(obo, pred_dir, gt, ia=None, norm="cafa") -> pd.DataFrame:
    """cafaeval's entry point, in-process (un-rounded frame, rows with coverage > 0)."""
    df, _ = cafa_eval(str(obo), str(pred_dir), str(gt), ia=None if ia is None else str(ia), norm=norm,
                      n_cpu=1, th_step=0.01)
    return tidy(df, exact_grid=False)


def run_cafa_exact_grid(obo, pred_dir, gt, ia=None, norm="cafa") -> pd.DataFrame:
    """cafaeval's parsers and metric functions on the grid j/100, j = 1..99."""
    ontologies = obo_parser(str(obo), ("is_a", "part_of"), None if ia is None else str(ia), True)
    truth = gt_parser(str(gt), ontologies)
    frames = []
    for path in sorted(Path(pred_dir).rglob("*")):
        if not path.is_file():
            continue
        prediction = pred_parser(str(path), ontologies, truth, "max", None)
        if prediction:
            df = evaluate_prediction(prediction, truth, ontologies, np.arange(1, 100) / 100, normalization=norm,
                                     n_cpu=1)
            df["filename"] = path.name
            frames.append(df)
    df = pd.concat(frames)
    return tidy(df[df["cov"] > 0], exact_grid=True)


def assert_parity(curves: pd.DataFrame, cafa: pd.DataFrame, *, with_ia: bool, js=None, skip=(),
                  norm: str = "cafa") -> int:
    """Every mapped column at every common (method, namespace, threshold).

    goeval's ``tp``/``fp``/``fn`` (sums) are divided as cafaeval divides them:
    by the benchmark proteins, or the covered ones for ``pred``.
    """
    js = EXACT_J if js is None else js
    den = curves["n_covered" if norm == "pred" else "n_proteins"].to_numpy(dtype=float)
    curves = curves.assign(**{f"{c}_mean": curves[c].to_numpy() / den for c in ("tp", "fp", "fn")})
    g = curves.assign(j=np.rint(curves["threshold"].to_numpy() * 100).astype(int))
    g = g[g["j"].isin(js)]
    cols = {**PLAIN, **(WEIGHTED if with_ia else {})}
    cols = {k: v for k, v in cols.items() if k not in skip}
    c = cafa[["method", "namespace", "j", *cols.values()]].rename(columns={v: f"cafa_{v}" for v in cols.values()})
    merged = g.merge(c, on=["method", "namespace", "j"], how="outer", indicator=True)
    unmatched = merged[merged["_merge"] != "both"]
    assert unmatched.empty, unmatched[["method", "namespace", "j", "_merge"]].head(10).to_string()
    for ours, theirs in cols.items():
        np.testing.assert_allclose(merged[ours].to_numpy(dtype=float), merged[f"cafa_{theirs}"].to_numpy(dtype=float),
                                   err_msg=f"{ours} <- {theirs}", **TOL)
    return len(merged)


def write_ia(obo, gt, path: Path) -> Path:
    """IA estimated by goeval from the ground truth, as ``term<TAB>value``."""
    onto = goeval.load_ontology(obo)
    ia = goeval.information_accretion(onto, goeval.load_annotations(gt, onto))
    path.write_text("".join(f"{t}\t{float(v)!r}\n" for t, v in zip(onto.ids, ia.values)))
    return path


def test_cafaeval_grid_drifts_at_25_thresholds():
    assert len(EXACT_J) == 74
    assert 6 not in EXACT_J and CAFA_TAUS[5] == 0.060000000000000005


# =====================================================================
# (a) cafaeval's bundled example (IDPO disorder function)
# =====================================================================
@pytest.fixture(scope="module")
def example():
    d = example_dir()
    return d / "IDPO_disorder_function.obo", d / "predictions", d / "ground_truth.tsv"


def test_example_fmax_as_in_the_readme(example):
    obo, preds, gt = example
    res = goeval.evaluate(obo, gt, [preds], thresholds=0.01)
    fmax = res.summary[res.summary["measure"] == "fmax"].set_index("method")["value"]
    assert sorted(fmax.index) == sorted(README_FMAX)
    for method in ("pred_2", "pred_3", "pred_4", "pred_5"):
        assert round(float(fmax[method]), 3) == README_FMAX[method], method
    # pred_1: the README's 0.517 (at 0.04) is an artefact of the drifting grid:
    # at the true 0.06 the scores of exactly 0.06 count, and F is 0.541 - as
    # cafaeval's own metric code says on the exact grid.
    cur = res.curves.set_index(["method", "threshold"])
    assert round(float(cur.loc[("pred_1", 0.04), "f"]), 3) == 0.517
    assert round(float(fmax["pred_1"]), 3) == 0.541
    exact = run_cafa_exact_grid(obo, preds, gt)
    best = exact.groupby("method")["f"].max()
    for method, value in fmax.items():
        np.testing.assert_allclose(value, best[method], **TOL)


def test_example_parity(example):
    obo, preds, gt = example
    res = goeval.evaluate(obo, gt, [preds], thresholds=0.01)
    assert assert_parity(res.curves, run_cafa_eval(obo, preds, gt), with_ia=False) == 262
    exact = run_cafa_exact_grid(obo, preds, gt)
    assert assert_parity(res.curves, exact, with_ia=False, js=set(range(1, 100))) == 352


def test_example_parity_with_ia(example, tmp_path):
    obo, preds, gt = example
    ia = write_ia(obo, gt, tmp_path / "ia.tsv")
    res = goeval.evaluate(obo, gt, [preds], ia=ia, thresholds=0.01)
    assert assert_parity(res.curves, run_cafa_eval(obo, preds, gt, ia), with_ia=True) == 262
    exact = run_cafa_exact_grid(obo, preds, gt, ia)
    assert_parity(res.curves, exact, with_ia=True, js=set(range(1, 100)))


@pytest.mark.parametrize("norm", ["gt", "pred"])
def test_example_parity_other_normalizations(example, tmp_path, norm):
    """'gt' agrees everywhere. 'pred' differs on purpose in three places:
    goeval averages ru over the covered proteins only (cafaeval divides the
    sum over all proteins by the number of covered ones, so its ru can exceed
    any protein's), and pools the micro recall over the covered proteins."""
    obo, preds, gt = example
    ia = write_ia(obo, gt, tmp_path / "ia.tsv")
    res = goeval.evaluate(obo, gt, [preds], ia=ia, thresholds=0.01, normalization=norm)
    skip = ("ru", "s", "recall_micro", "f_micro", "ru_terms", "s_terms", "fn_mean", "wrecall_micro",
            "wf_micro") if norm == "pred" else ()
    assert_parity(res.curves, run_cafa_exact_grid(obo, preds, gt, ia, norm), with_ia=True,
                  js=set(range(1, 100)), skip=skip, norm=norm)


# =====================================================================
# (b) the CAFA2 MFO slice bundled with goeval
# =====================================================================
@pytest.fixture(scope="module")
def cafa2_mfo(tmp_path_factory):
    """The example files, decompressed (cafaeval reads plain text only)."""
    d = tmp_path_factory.mktemp("cafa2_mfo")
    (d / "predictions").mkdir()
    out = {"ontology": d / "mfo.obo", "predictions": d / "predictions" / "BB4S_mfo_NK.tsv", "ia": d / "ia.tsv"}
    for name, target in out.items():
        with gzip.open(goeval.example_path(name), "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    shutil.copy(goeval.example_path("truth"), d / "truth.tsv")
    return d


def test_cafa2_mfo_parity(cafa2_mfo):
    d = cafa2_mfo
    cafa = run_cafa_eval(d / "mfo.obo", d / "predictions", d / "truth.tsv", d / "ia.tsv")
    # goeval reads the compressed originals
    res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                          [goeval.example_path("predictions")], ia=goeval.example_path("ia"), thresholds=0.01)
    curves = res.curves.assign(method="BB4S_mfo_NK")
    assert assert_parity(curves, cafa, with_ia=True) >= 70
    fmax = res.summary.set_index("measure").loc["fmax"]
    row = cafa[cafa["j"] == 46].iloc[0]
    assert float(fmax["threshold"]) == 0.46 and int(row["n"]) == 262
    np.testing.assert_allclose(float(fmax["value"]), row["f"], **TOL)


# =====================================================================
# (c) a synthetic GO-like benchmark (alt_ids in use, three namespaces)
# =====================================================================
@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    script = shared_path("bench", "gen_synthetic.py")
    out = tmp_path_factory.mktemp("synthetic")
    subprocess.run(
        [sys.executable, str(script), "--out", str(out), "--seed", "7", "--n-proteins", "150",
         "--pred-per-protein", "200", "--n-terms", "3000", "--n-train", "500", "--methods", "good,weak",
         "--alt-use-frac", "0.2", "--extra-pred-proteins", "10"],
        check=True, capture_output=True, timeout=120,
    )
    return out


@pytest.mark.parametrize("norm", ["cafa", "gt"])
def test_synthetic_parity(synthetic, norm):
    """Truth and predictions use alt_ids (mapped alike by both tools); the
    obsolete stanzas carry replaced_by but no input line uses them, where
    cafaeval would drop what goeval remaps."""
    d = synthetic
    args = (d / "go_synth.obo", d / "ground_truth.tsv")
    res = goeval.evaluate(*args, [d / "predictions"], ia=d / "IA.txt", thresholds=0.01, normalization=norm)
    diag = res.diagnostics["methods"]["good"]
    assert diag["rows_by_term_status"]["alt_id"] > 0
    assert diag["rows_by_term_status"]["replaced_by"] == diag["rows_by_term_status"]["obsolete"] == 0
    assert diag["proteins_not_in_truth"] == 10
    assert set(res.curves["namespace"]) == {"BPO", "MFO", "CCO"}
    cafa = run_cafa_eval(d / "go_synth.obo", d / "predictions", d / "ground_truth.tsv", d / "IA.txt", norm)
    assert assert_parity(res.curves, cafa, with_ia=True, norm=norm) > 2 * 3 * 60


# =====================================================================
# (d) --max-terms: the N best scores, not the first N + 1 lines
# =====================================================================
MAX_TERMS_OBO = "format-version: 1.2\n" + "".join(
    f"\n[Term]\nid: GO:000000{i}\nname: {name}\nnamespace: molecular_function\n"
    + ("" if i == 1 else "is_a: GO:0000001 ! root\n")
    for i, name in enumerate(["root", "a", "b", "c", "d"], start=1)
)
#: file order differs from score order
MAX_TERMS_LINES = [
    ("P1", "b", 0.10), ("P1", "c", 0.20), ("P1", "a", 0.90), ("P1", "d", 0.80),
    ("P2", "d", 0.30), ("P2", "b", 0.95), ("P2", "c", 0.60),
]
TERM_ID = {"root": "GO:0000001", "a": "GO:0000002", "b": "GO:0000003", "c": "GO:0000004", "d": "GO:0000005"}


@pytest.fixture()
def max_terms_case(tmp_path):
    (tmp_path / "toy.obo").write_text(MAX_TERMS_OBO)
    (tmp_path / "truth.tsv").write_text(f"P1\t{TERM_ID['a']}\nP2\t{TERM_ID['b']}\n")
    (tmp_path / "all").mkdir()
    (tmp_path / "all" / "m.tsv").write_text("".join(f"{p}\t{TERM_ID[t]}\t{s}\n" for p, t, s in MAX_TERMS_LINES))
    return tmp_path


def test_max_terms_keeps_the_best_scores_where_cafaeval_keeps_the_first_lines(max_terms_case):
    """cafaeval -max_terms 2 keeps a line while the protein's row holds <= 2 scores: the
    first 3 lines of each protein, whatever their scores. goeval keeps the 2 best scores."""
    d = max_terms_case
    ontologies = obo_parser(str(d / "toy.obo"), ("is_a", "part_of"), None, True)
    truth = gt_parser(str(d / "truth.tsv"), ontologies)
    pred = pred_parser(str(d / "all" / "m.tsv"), ontologies, truth, "max", 2)["molecular_function"]
    onto = ontologies["molecular_function"]
    name = {onto.terms_dict[TERM_ID[t]]["index"]: t for t in "abcd"}
    kept_cafaeval = {p: {name[j] for j in np.flatnonzero(pred.matrix[i]) if j in name} for p, i in pred.ids.items()}
    assert kept_cafaeval == {"P1": {"b", "c", "a"}, "P2": {"d", "b", "c"}}  # N + 1 terms, in file order

    g_onto = goeval.load_ontology(d / "toy.obo")
    top = keep_top_terms(goeval.load_predictions(d / "all" / "m.tsv", g_onto), 2)
    m = top.matrix.tocsr()
    kept_goeval = {p: {g_onto.ids[j] for j in m.indices[m.indptr[i]:m.indptr[i + 1]]} for i, p in enumerate(top.proteins)}
    assert kept_goeval == {"P1": {TERM_ID["a"], TERM_ID["d"]}, "P2": {TERM_ID["b"], TERM_ID["c"]}}
    assert top.diagnostics["max_terms_dropped"] == 3


def test_max_terms_equals_cafaeval_on_the_file_cut_to_the_best_scores(max_terms_case):
    """goeval --max-terms 2 on the whole file = cafaeval without -max_terms on the file holding
    only each protein's 2 best lines; cafaeval's -max_terms 2 on the whole file differs."""
    d = max_terms_case
    best = sorted(MAX_TERMS_LINES, key=lambda x: (x[0], -x[2]))
    cut = [x for x in best if sum(1 for y in best if y[0] == x[0] and y[2] > x[2]) < 2]
    (d / "cut").mkdir()
    (d / "cut" / "m.tsv").write_text("".join(f"{p}\t{TERM_ID[t]}\t{s}\n" for p, t, s in cut))
    res = goeval.evaluate(d / "toy.obo", d / "truth.tsv", [d / "all"], thresholds=0.01, max_terms=2)
    on_cut = run_cafa_eval(d / "toy.obo", d / "cut", d / "truth.tsv")
    assert assert_parity(res.curves, on_cut, with_ia=False) > 0
    # at tau = 0.05: P1 predicts {root, a, b, c} with cafaeval (precision 1/2), {root, a, d} with
    # goeval (2/3); P2 {root, b, c, d} (1/2) and {root, b, c} (2/3)
    theirs = run_cafa_eval_max_terms(d / "toy.obo", d / "all", d / "truth.tsv", 2).set_index("j")
    ours = res.curves.set_index("threshold")
    assert theirs.loc[5, "pr"] == pytest.approx(0.5) and ours.loc[0.05, "precision"] == pytest.approx(2 / 3)


def run_cafa_eval_max_terms(obo, pred_dir, gt, max_terms: int) -> pd.DataFrame:
    df, _ = cafa_eval(str(obo), str(pred_dir), str(gt), max_terms=max_terms, n_cpu=1, th_step=0.01)
    return tidy(df, exact_grid=False)


# =====================================================================
# (e) the CAFA 5 preset (fill, cafa, step 0.001, 500 terms, IA) on the CAFA2 MFO slice
# =====================================================================
CAFA_TAUS_1000 = np.arange(0.001, 1, 0.001)  # cafaeval's grid at -th_step 0.001 (170 of 999 drift)
PRESET_COLUMNS = {**PLAIN, **WEIGHTED}


def explain_rows(cafa: pd.DataFrame, grid: pd.DataFrame, exact: pd.DataFrame, step: int = 1000) -> dict[str, int]:
    """Every cafaeval row equals goeval's row at the same decimal threshold (where cafaeval's
    float tau is that decimal) and, always, goeval's exact-threshold row at the smallest
    distinct score >= cafaeval's float tau (P(tau) only changes at scores)."""
    cols = {k: v for k, v in PRESET_COLUMNS.items() if not k.endswith("_mean")}
    g = grid.set_index(np.rint(grid["threshold"].to_numpy() * step).astype(int))
    taus = exact["threshold"].to_numpy()
    counts = {"rows": 0, "decimal": 0, "drifted": 0}
    for _, row in cafa.iterrows():
        tau = float(row["tau"])
        j = int(round(tau * step))
        k = int(np.searchsorted(taus, tau, side="left"))
        assert k < taus.size, tau
        for ours, theirs in cols.items():
            np.testing.assert_allclose(exact[ours].iloc[k], row[theirs], err_msg=f"{tau!r} {ours}", **TOL)
            if tau == j / step:
                np.testing.assert_allclose(g.loc[j, ours], row[theirs], err_msg=f"{tau!r} {ours}", **TOL)
        counts["rows"] += 1
        counts["decimal" if tau == j / step else "drifted"] += 1
    return counts


def run_preset(**overrides):
    return goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                           [goeval.example_path("predictions")], ia=goeval.example_path("ia"), preset="cafa5",
                           **overrides)


def test_cafa5_preset_against_cafaeval_metric_code(cafa2_mfo):
    """cafaeval's parsers (-prop fill, -max_terms 500, IA) and metric code at a sample of its own
    float thresholds (every 10th, and 0.465..0.480 around the optimum): equal to goeval's preset
    where the float is the decimal, and to goeval's exact-threshold curve everywhere."""
    from goeval.compat import cafa5_score

    d = cafa2_mfo
    ontologies = obo_parser(str(d / "mfo.obo"), ("is_a", "part_of"), str(d / "ia.tsv"), True)
    truth = gt_parser(str(d / "truth.tsv"), ontologies)
    prediction = pred_parser(str(d / "predictions" / "BB4S_mfo_NK.tsv"), ontologies, truth, "fill", 500)
    idx = np.unique(np.r_[np.arange(0, 999, 10), np.arange(464, 480)])
    df = evaluate_prediction(prediction, truth, ontologies, CAFA_TAUS_1000[idx], normalization="cafa", n_cpu=1)
    df = df[df["cov"] > 0]
    grid, exact = run_preset(), run_preset(thresholds="exact")
    counts = explain_rows(df, grid.curves, exact.curves)
    assert counts["drifted"] > 10 and counts["decimal"] > 80
    # the score: goeval's weighted Fmax on the grid is at exactly 0.473; cafaeval's "0.473"
    # (0.47300000000000003) drops the two scores of exactly 0.473 and gives the value of the
    # next distinct score; the true optimum (exact thresholds) is at 0.4737
    score, per = cafa5_score(grid)
    wf = grid.summary.set_index("measure").loc["wfmax"]
    assert per == {"MFO": score} and float(wf["threshold"]) == 0.473 and score == pytest.approx(0.411646, abs=1e-6)
    row = df[df["tau"] == CAFA_TAUS_1000[472]].iloc[0]
    assert row["tau"] != 0.473 and row["f_w"] == pytest.approx(0.411680, abs=1e-6)
    ex = exact.curves
    np.testing.assert_allclose(ex.loc[ex["threshold"] > 0.473, "wf"].iloc[0], row["f_w"], **TOL)
    best_exact = exact.summary.set_index("measure").loc["wfmax"]
    assert float(best_exact["threshold"]) == 0.4737 and float(best_exact["value"]) == pytest.approx(0.411809, abs=1e-6)


@pytest.mark.slow
def test_cafa5_preset_against_cafaeval_command(cafa2_mfo):
    """The whole cafa_eval run with CAFA 5's flags (999 thresholds): every row explained."""
    d = cafa2_mfo
    df, best = cafa_eval(str(d / "mfo.obo"), str(d / "predictions"), str(d / "truth.tsv"), ia=str(d / "ia.tsv"),
                         norm="cafa", prop="fill", max_terms=500, th_step=0.001, n_cpu=1)
    counts = explain_rows(df.reset_index(), run_preset().curves, run_preset(thresholds="exact").curves)
    assert counts == {"rows": 999, "decimal": 829, "drifted": 170}
    assert float(best["f_w"]["f_w"].iloc[0]) == pytest.approx(0.411680, abs=1e-6)
