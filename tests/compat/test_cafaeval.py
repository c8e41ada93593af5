"""goeval.compat and the cafaeval file layout: CAFA-evaluator's frames, files and the CAFA 5 score.

The comparisons with the real CAFA-evaluator 1.3.0 run on its bundled example
(IDPO disorder function, five methods) and skip when it is not installed.
"""

from __future__ import annotations

import importlib.resources
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import goeval
from goeval.compat import (
    CAFAEVAL_BEST,
    CAFAEVAL_COLUMNS,
    cafa5_records,
    cafa5_score,
    cafa_eval,
    cafaeval_frames,
)
from goeval.errors import InvalidParameterError
from goeval.evaluation import EvaluationResult
from goeval.io.cafaeval_layout import cafaeval_layout_tables, write_cafaeval_layout

TOL = {"rtol": 1e-9, "atol": 1e-9}


def example_dir() -> Path:
    cafaeval = pytest.importorskip("cafaeval")
    return Path(str(importlib.resources.files(cafaeval) / "data" / "example"))


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """cafaeval's example and an IA file estimated by goeval from its truth."""
    d = example_dir()
    obo, gt = d / "IDPO_disorder_function.obo", d / "ground_truth.tsv"
    onto = goeval.load_ontology(obo)
    ia = goeval.information_accretion(onto, goeval.load_annotations(gt, onto))
    path = tmp_path_factory.mktemp("ia") / "ia.tsv"
    path.write_text("".join(f"{t}\t{float(v)!r}\n" for t, v in zip(onto.ids, ia.values)))
    return obo, d / "predictions", gt, path


def run_cafaeval(obo, preds, gt, ia):
    from cafaeval.evaluation import cafa_eval as their_cafa_eval

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DataFrame.set_index(inplace=True) in cafaeval 1.3.0
        return their_cafa_eval(str(obo), str(preds), str(gt), ia=str(ia), n_cpu=1, th_step=0.01)


def common_rows(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows of both frames at the thresholds where cafaeval's float tau is the decimal j/100."""
    a, b = a.reset_index(), b.reset_index()
    for f in (a, b):
        f["j"] = np.rint(f["tau"].to_numpy() * 100).astype(int)
    a = a[a["tau"].to_numpy() == a["j"].to_numpy() / 100]
    m = a.merge(b, on=["filename", "ns", "j"], suffixes=("_c", "_g"))
    return m, a


# =====================================================================
# cafa_eval against the real cafaeval
# =====================================================================
def test_cafa_eval_is_shaped_like_cafaeval_and_equal_at_common_thresholds(example):
    theirs, theirs_best = run_cafaeval(*example)
    ours, ours_best = cafa_eval(*[str(x) for x in example[:3]], ia=str(example[3]))
    assert ours.index.names == theirs.index.names == ["filename", "ns", "tau"]
    assert list(ours.columns) == list(theirs.columns) == [*CAFAEVAL_COLUMNS, *(c + "_w" for c in CAFAEVAL_COLUMNS)]
    assert (ours.dtypes == np.float64).all()
    assert list(ours_best) == list(theirs_best) == [m for m, _ in CAFAEVAL_BEST]
    for metric in ours_best:
        assert list(ours_best[metric].columns) == list(theirs_best[metric].columns) == [*ours.columns, "cov_max"]
    assert sorted(set(ours.index.get_level_values("filename"))) == [f"pred_{i}.tsv" for i in range(1, 6)]
    # same rows: the thresholds below 1 with coverage (cafaeval's drifted floats aside)
    assert len(ours) == len(theirs) == 352
    m, their_common = common_rows(theirs, ours)
    assert len(m) == len(their_common) == 262
    for col in ours.columns:
        np.testing.assert_allclose(m[f"{col}_g"], m[f"{col}_c"], err_msg=col, **TOL)
    for metric in ours_best:  # the largest coverage is the same in both
        np.testing.assert_allclose(np.sort(ours_best[metric]["cov_max"]), np.sort(theirs_best[metric]["cov_max"]),
                                   **TOL)


def test_cafa_eval_optima_differ_only_through_cafaevals_drifting_thresholds(example):
    """Where the optimum's threshold is a decimal in both, the rows are equal; elsewhere goeval's
    optimum is at least as good (it sees the scores cafaeval drops at its drifted floats)."""
    theirs_best = run_cafaeval(*example)[1]
    ours_best = cafa_eval(*[str(x) for x in example[:3]], ia=str(example[3]))[1]
    for metric, direction in CAFAEVAL_BEST:
        a = theirs_best[metric].reset_index().set_index("filename")
        b = ours_best[metric].reset_index().set_index("filename")
        for name in a.index:
            ta, va, vb = float(a.loc[name, "tau"]), float(a.loc[name, metric]), float(b.loc[name, metric])
            if ta == round(ta, 2) and float(b.loc[name, "tau"]) == ta:
                np.testing.assert_allclose(vb, va, err_msg=f"{metric} {name}", **TOL)
            elif direction == "max":
                assert vb >= va - 1e-12, (metric, name)
            else:
                assert vb <= va + 1e-12, (metric, name)


def test_layout_files_read_back_like_cafaevals(example, tmp_path):
    from cafaeval.evaluation import write_results

    theirs, theirs_best = run_cafaeval(*example)
    write_results(theirs, theirs_best, out_dir=str(tmp_path / "cafaeval"), th_step=0.01)
    ours, ours_best = cafa_eval(*[str(x) for x in example[:3]], ia=str(example[3]))
    paths = write_cafaeval_layout(tmp_path / "goeval", ours, ours_best)
    names = sorted(p.name for p in (tmp_path / "cafaeval").iterdir())
    assert sorted(paths) == names == ["evaluation_all.tsv", "evaluation_best_f.tsv", "evaluation_best_f_micro.tsv",
                                      "evaluation_best_f_micro_w.tsv", "evaluation_best_f_w.tsv",
                                      "evaluation_best_s.tsv"]
    for name in names:
        a = pd.read_csv(tmp_path / "cafaeval" / name, sep="\t")
        b = pd.read_csv(tmp_path / "goeval" / name, sep="\t")
        assert list(a.columns) == list(b.columns), name
        assert a.dtypes.tolist() == b.dtypes.tolist(), name
    # evaluation_all.tsv: cafaeval rounds to 3 decimals (its drifted 0.060000000000000005 is
    # written 0.060), goeval writes every digit; compared where cafaeval's float is j/100
    exact_j = [j for j, tau in enumerate(np.arange(0.01, 1, 0.01), start=1) if tau == j / 100]
    a = pd.read_csv(tmp_path / "cafaeval" / "evaluation_all.tsv", sep="\t")
    a = a[np.isin(np.rint(a["tau"] * 100), exact_j)]
    m, _ = common_rows(a, pd.read_csv(tmp_path / "goeval" / "evaluation_all.tsv", sep="\t"))
    assert len(m) == 262
    for col in ours.columns:
        np.testing.assert_allclose(m[f"{col}_g"], m[f"{col}_c"], atol=5e-4 + 1e-12, rtol=0, err_msg=col)
    back = pd.read_csv(tmp_path / "goeval" / "evaluation_all.tsv", sep="\t").set_index(["filename", "ns", "tau"])
    pd.testing.assert_frame_equal(back, ours, check_exact=True)


# =====================================================================
# frames and files from a goeval result
# =====================================================================
@pytest.fixture(scope="module")
def demo():
    return goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                           [goeval.example_path("predictions")], ia=goeval.example_path("ia"), thresholds=0.01)


def test_frames_from_a_result_use_the_curves(demo):
    df, best = cafaeval_frames(demo)
    cur = demo.curves
    assert df.index.get_level_values("filename").unique().tolist() == ["BB4S_mfo_NK.tsv.gz"]
    assert df.index.get_level_values("ns").unique().tolist() == ["molecular_function"]
    assert len(df) == len(cur) == 100  # tau = 1.0 included
    mapping = {"pr": "precision", "rc": "recall", "f": "f", "cov": "coverage", "ru": "ru_terms", "mi": "mi_terms",
               "s": "s_terms", "fn": "ru_terms", "fp": "mi_terms", "pr_w": "wprecision", "rc_w": "wrecall",
               "f_w": "wf", "ru_w": "ru", "mi_w": "mi", "s_w": "s", "f_micro_w": "wf_micro", "n_w": "n_covered_w"}
    for theirs, ours in mapping.items():
        np.testing.assert_array_equal(df[theirs].to_numpy(), cur[ours].to_numpy(dtype=float), err_msg=theirs)
    np.testing.assert_allclose(df["tp"].to_numpy(), cur["tp"] / cur["n_proteins"], **TOL)
    # tp_w + fn_w is the mean information of the truth, the same at every threshold
    total = (df["tp_w"] + df["fn_w"]).to_numpy()
    np.testing.assert_allclose(total, total[0], **TOL)
    assert len(cafaeval_frames(demo, below_one=True)[0]) == 99
    summary = demo.summary.set_index("measure")
    row = best["f_w"].reset_index().iloc[0]
    assert row["tau"] == summary.loc["wfmax", "threshold"] and row["f_w"] == summary.loc["wfmax", "value"]
    assert row["cov_max"] == summary.loc["max_coverage", "value"]
    row = best["s"].reset_index().iloc[0]
    assert row["tau"] == summary.loc["smin_terms", "threshold"] and row["s"] == summary.loc["smin_terms", "value"]


def test_filenames_follow_cafaevals_rule():
    from goeval.compat.cafaeval import _filename

    diag = {"methods": {"team/model_1": {"source": "/p/team/model_1.tsv"}, "x": {}}}
    assert _filename("team/model_1", diag) == "team_model_1.tsv"
    assert _filename("x", diag) == "x"


def test_frames_need_the_sweep_statistics(demo):
    bare = EvaluationResult(demo.curve_columns, demo.summary_records, demo.diagnostics)
    with pytest.raises(InvalidParameterError, match="sweep statistics"):
        cafaeval_frames(bare)


def test_layout_tables_put_the_index_first(demo):
    df, best = cafaeval_frames(demo)
    tables = cafaeval_layout_tables(df, best)
    assert list(tables) == ["evaluation_all.tsv", *(f"evaluation_best_{m}.tsv" for m in best)]
    assert list(tables["evaluation_all.tsv"])[:4] == ["filename", "ns", "tau", "n"]
    assert list(tables["evaluation_best_f.tsv"])[-1] == "cov_max"


def notebook_area(frame: pd.DataFrame, rc: str, pr: str, coverage_threshold: float = 0.0) -> float:
    """CAFA-evaluator's plotting notebook, restated: rows with cov >= coverage_threshold in
    ascending tau, precision replaced by its cumulative maximum, (tau 0, rc 1, pr 0) prepended and
    (tau 1.1, rc 0, pr 1) appended, then sum of (rc[i-1] - rc[i]) * pr[i]."""
    f = frame[frame["cov"] >= coverage_threshold].sort_values("tau")
    pr_env = f[pr].cummax()
    r = pd.concat([pd.Series([1.0]), f[rc], pd.Series([0.0])], ignore_index=True)
    p = pd.concat([pd.Series([0.0]), pr_env, pd.Series([1.0])], ignore_index=True)
    return float((r.shift(1) - r).mul(p).sum())


def test_aupr_is_the_notebooks_area_of_the_written_curve(demo, tmp_path):
    write_cafaeval_layout(tmp_path, *cafaeval_frames(demo))
    frame = pd.read_csv(tmp_path / "evaluation_all.tsv", sep="\t")
    summary = demo.summary.set_index("measure")["value"]
    np.testing.assert_allclose(summary["aupr"], notebook_area(frame, "rc", "pr"), rtol=1e-12)
    np.testing.assert_allclose(summary["waupr"], notebook_area(frame, "rc_w", "pr_w"), rtol=1e-12)
    # the notebook's default coverage_threshold = 0.3 drops the high thresholds first
    assert notebook_area(frame, "rc", "pr", 0.3) != pytest.approx(summary["aupr"], abs=1e-6)


# =====================================================================
# The CAFA 5 score
# =====================================================================
def test_cafa5_score_is_the_mean_weighted_fmax(demo):
    score, per = cafa5_score(demo)
    wfmax = demo.summary.set_index("measure").loc["wfmax", "value"]
    assert per == {"MFO": wfmax} and score == wfmax
    rec = cafa5_records(demo)
    assert rec == [{"method": "BB4S_mfo_NK", "namespace": "all", "measure": "cafa5_score", "value": score,
                    "threshold": rec[0]["threshold"], "coverage": rec[0]["coverage"],
                    "precision": rec[0]["precision"], "recall": rec[0]["recall"], "ru": rec[0]["ru"],
                    "mi": rec[0]["mi"]}]
    assert np.isnan([rec[0][k] for k in ("threshold", "coverage", "precision", "recall", "ru", "mi")]).all()


def _records(rows):
    return [{"method": m, "namespace": ns, "measure": ms, "value": v} for m, ns, ms, v in rows]


def test_cafa5_score_counts_a_namespace_without_predictions_as_zero():
    rows = _records([("a", "BPO", "wfmax", 0.3), ("a", "MFO", "wfmax", 0.6), ("a", "CCO", "wfmax", 0.9),
                     ("b", "MFO", "wfmax", 0.6), ("b", "MFO", "fmax", 0.7)])
    diag = {"namespaces": {"BPO": {"benchmark_proteins": 5}, "MFO": {"benchmark_proteins": 4},
                           "CCO": {"benchmark_proteins": 3}}}
    res = EvaluationResult({}, rows, diag)
    assert cafa5_score(res, "a") == (pytest.approx(0.6), {"BPO": 0.3, "MFO": 0.6, "CCO": 0.9})
    assert cafa5_score(res, "b") == (pytest.approx(0.2), {"BPO": 0.0, "MFO": 0.6, "CCO": 0.0})
    assert [r["value"] for r in cafa5_records(res)] == [pytest.approx(0.6), pytest.approx(0.2)]
    with pytest.raises(InvalidParameterError, match="'method' parameter of cafa5_score"):
        cafa5_score(res)
    with pytest.raises(InvalidParameterError, match="'method' parameter of cafa5_score"):
        cafa5_score(res, "c")


def test_cafa5_score_needs_ia():
    res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                          [goeval.example_path("predictions")], thresholds=0.1)
    with pytest.raises(InvalidParameterError, match="IA"):
        cafa5_score(res)
