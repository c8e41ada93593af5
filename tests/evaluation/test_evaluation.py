"""Evaluation options, file inputs and diagnostics (goeval.evaluate).

Options are checked against the set-based oracle of ``tests/oracles.py``;
the small GO-like fixture in ``tests/data/evaluation`` is checked by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA
from numpy.testing import assert_allclose, assert_array_equal
from oracles import (
    IA_CURVE_COLUMNS,
    PLAIN_COLUMNS,
    TOL,
    Case,
    assert_curves_equal,
    assert_summary_equal,
    oracle_evaluate,
    random_case,
    run_case,
)

import goeval
from goeval.errors import GoevalError, GoevalWarning, InputFormatError, InvalidParameterError
from goeval.evaluation import evaluate_annotations
from goeval.ontology import ontology_from_edges

EVAL = DATA / "evaluation"


def roots_of(case: Case) -> set[str]:
    return {t for t in case.namespace_of if not any(c == t for c, _ in case.edges)}


# =====================================================================
# Options against the oracle
# =====================================================================
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_exclude_roots(seed, thresholds):
    case = random_case(seed)
    res = run_case(case, thresholds=thresholds, exclude_roots=True)
    want = oracle_evaluate(case, thresholds=thresholds, exclude_roots=True)
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_fill_propagation(seed, thresholds):
    case = random_case(seed)
    res = run_case(case, thresholds=thresholds, propagation="fill")
    want = oracle_evaluate(case, thresholds=thresholds, propagation="fill")
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")


def test_fill_differs_from_max_by_hand():
    """r -> a -> c; own scores a 0.2, c 0.8.

    max:  c .8, a .8, r .8 -> at 0.8 P = {r, a, c}
    fill: c .8, a .2 (own score kept), r .2 (max of its child's final value)
          -> at 0.8 P = {c}, at 0.2 P = {r, a, c}
    Truth {c}: T = {r, a, c}.
    """
    case = Case([("a", "r"), ("c", "a")], {t: "x" for t in "rac"}, [("p", "c")],
                {("p", "a"): 0.2, ("p", "c"): 0.8}, {"r": 0.0, "a": 1.0, "c": 1.0})
    mx = run_case(case).curves
    assert_array_equal(mx["threshold"], [0.8])  # a's own 0.2 is overridden by c's 0.8
    assert_allclose(mx["recall"], [1.0], **TOL)
    fill = run_case(case, propagation="fill").curves
    assert_array_equal(fill["threshold"], [0.2, 0.8])
    assert_allclose(fill["recall"], [1.0, 1 / 3], **TOL)
    assert_allclose(fill["precision"], [1.0, 1.0], **TOL)
    assert_allclose(fill["ru"], [0.0, 1.0], **TOL)


@pytest.mark.parametrize("seed", range(6))
def test_targets_restrict_the_benchmark(seed):
    case = random_case(seed)
    targets = [f"P{i}" for i in range(0, 10, 2)] + ["ABSENT1", "ABSENT2", "P0"]
    res = run_case(case, targets=targets)
    want = oracle_evaluate(case, targets=set(targets))
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")
    d = res.diagnostics["targets"]
    assert d["listed"] == 7  # duplicates counted once
    absent = sorted(set(targets) - {p for p, _ in case.truth})
    assert d["without_truth"] == len(absent) >= 2
    assert sorted(d["examples_without_truth"]) == absent


def test_targets_from_a_file(tmp_path):
    path = tmp_path / "targets.txt"
    path.write_text("# no-knowledge targets\nP1\nP3\nNOT_BENCHMARKED\n")
    res = goeval.evaluate(EVAL / "small.obo", EVAL / "truth.tsv", [EVAL / "bp_only.tsv"], ia=EVAL / "ia.tsv",
                          targets=path)
    assert res.diagnostics["targets"]["without_truth"] == 1
    # BPO: only P1 (P3 has no BPO truth), whose scores are the thresholds:
    # at 0.7 P = T, at 0.9 P = {root, GO:0000002}
    bp = res.curves[res.curves["namespace"] == "BPO"]
    assert_array_equal(bp["threshold"], [0.7, 0.9])
    assert_array_equal(bp["n_proteins"], [1, 1])
    assert_allclose(bp["recall"], [1.0, 0.5], **TOL)
    assert_allclose(bp["precision"], [1.0, 1.0], **TOL)


@pytest.mark.parametrize("seed", range(6))
def test_terms_of_interest_and_excluded_terms(seed):
    case = random_case(seed)
    rng = np.random.default_rng(seed)
    terms = list(case.namespace_of)
    toi = set(rng.choice(terms, size=2 * len(terms) // 3, replace=False).tolist())
    excluded = set(rng.choice(terms, size=5, replace=False).tolist())
    for opts in ({"terms_of_interest": toi}, {"excluded_terms": excluded},
                 {"terms_of_interest": toi, "excluded_terms": excluded, "exclude_roots": True}):
        res = run_case(case, **dict(opts))
        want = oracle_evaluate(case, **opts)
        assert_curves_equal(res.curves, want, "m")
        assert_summary_equal(res.summary, want, "m")


def test_term_options_take_ids_and_count_unknown_ones():
    kw = dict(ia=EVAL / "ia.tsv")
    with pytest.warns(GoevalWarning, match="not in the ontology"):
        res = goeval.evaluate(EVAL / "small.obo", EVAL / "truth.tsv", [EVAL / "bp_only.tsv"],
                              excluded_terms=["GO:0000002", "GO:7777777"], **kw)
    assert res.diagnostics["excluded terms_unknown"] == 1
    # without GO:0000002: T1 = {root, 1, 3}, T2 = {root, 1}; P2(0.6) = {root, 1}
    bp = res.curves[res.curves["namespace"] == "BPO"]
    assert_array_equal(bp["threshold"], [0.6, 0.7, 0.9])
    assert_allclose(bp["precision"], [1.0, 1.0, 1.0], **TOL)
    assert_allclose(bp["recall"], [1.0, 0.5, 1 / 6], **TOL)


@pytest.mark.parametrize("seed", range(4))
def test_namespaces_option(seed):
    case = random_case(seed, namespaces=("alpha", "beta", "gamma"))
    res = run_case(case, namespaces=["gamma", "alpha"])
    want = oracle_evaluate(case, namespaces=["gamma", "alpha"])
    assert set(res.curves["namespace"]) <= {"alpha", "gamma"}
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")


def test_namespaces_by_label_or_obo_name():
    paths = (EVAL / "small.obo", EVAL / "truth.tsv", [EVAL / "cafa_format.txt"])
    for names in (["MFO"], ["molecular_function"], ["mfo"]):
        res = goeval.evaluate(*paths, namespaces=names)
        assert set(res.curves["namespace"]) == {"MFO"}
        assert set(res.summary["namespace"]) == {"MFO"}
    with pytest.raises(InvalidParameterError, match="Unknown namespace"):
        goeval.evaluate(*paths, namespaces=["XYZ"])


# =====================================================================
# root_as_prediction (CR13 §3.4: the root counts as predicted for every protein)
# =====================================================================
def test_root_as_prediction_by_hand():
    """r -> a, r -> b; p1 truth {a} predicts a at 0.3; p2 truth {b} predicts nothing.

    With the root predicted for every protein at every threshold:
    tau = 0.25: P1 = {r, a} (pr 1, rc 1), P2 = {r} (pr 1, rc 1/2)
    tau >= 0.5: P1 = {r}    (pr 1, rc 1/2), P2 = {r} (pr 1, rc 1/2)
    Coverage is 1 everywhere and the root is a true positive.
    """
    onto = ontology_from_edges([("a", "r"), ("b", "r")])
    truth = goeval.Annotations.from_pairs(onto, ["p1", "p2"], ["a", "b"])
    pred = goeval.Annotations.from_pairs(onto, ["p1"], ["a"], [0.3])
    res = evaluate_annotations(onto, truth, {"m": pred}, thresholds=0.25, root_as_prediction=True)
    cur = res.curves
    assert_array_equal(cur["threshold"], [0.25, 0.5, 0.75, 1.0])
    assert_array_equal(cur["n_covered"], [2, 2, 2, 2])
    assert_allclose(cur["coverage"], 1.0, **TOL)
    assert_allclose(cur["precision"], [1.0, 1.0, 1.0, 1.0], **TOL)
    assert_allclose(cur["recall"], [0.75, 0.5, 0.5, 0.5], **TOL)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_root_as_prediction_matches_oracle(seed, thresholds):
    case = random_case(seed)
    res = run_case(case, thresholds=thresholds, root_as_prediction=True)
    want = oracle_evaluate(case, thresholds=thresholds, root_as_prediction=True)
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")
    assert (res.curves["coverage"] == 1.0).all()


def test_root_as_prediction_with_roots_excluded_changes_nothing():
    case = random_case(5)
    a = run_case(case, exclude_roots=True).curves
    b = run_case(case, exclude_roots=True, root_as_prediction=True).curves
    for col in ("threshold",) + PLAIN_COLUMNS + IA_CURVE_COLUMNS:
        assert_allclose(b[col].to_numpy(dtype=float), a[col].to_numpy(dtype=float), err_msg=col, **TOL)


# =====================================================================
# Files: a small GO-like fixture checked by hand
# =====================================================================
def evaluate_fixture(*names: str, **options):
    return goeval.evaluate(EVAL / "small.obo", EVAL / "truth.tsv", [EVAL / n for n in names],
                           ia=EVAL / "ia.tsv", **options)


def test_fixture_by_hand():
    """BPO: root GO:0008150, 1 and 2 below it, 3 below both; ia 0, 1, 2, 0.5.

    P1: T = {root, 1, 2, 3} (i = 3.5); predicts 3 (via obsolete GO:0000098) 0.7,
        2 at 0.9 (and 0.4, a duplicate) -> root .9, 2 .9, 1 .7, 3 .7
    P2: T = {root, 1} (truth via alt_id GO:0000091, i = 1); predicts 1 (via the
        alt_id) 0.6 and 2 at 0.6 -> root .6, 1 .6, 2 .6
    tau 0.6: P1 = T1 (pr 1, rc 1); P2 = {root, 1, 2} (pr 2/3, rc 1)
             precision 5/6, recall 1, F = 10/11; wpr2 = 1/3, mi = (0 + 2) / 2 = 1
    tau 0.7: P1 = T1; P2 = {}: precision 1, recall 1/2, ru = (0 + 1) / 2
    tau 0.9: P1 = {root, 2}: pr 1, rc 1/2; ru1 = 1.5, ru2 = 1 -> ru 1.25
    MFO: P1 T = {root, 11}; P3 T = {root, 12}; P3 predicts 11 at 0.3:
    tau 0.3: P3 = {root, 11}: pr 1/2, rc 1/2 -> precision 1/2, recall 1/4, F = 1/3;
             wpr3 = 0 (covered_w), ru = (1.5 + 0.5) / 2 = 1, mi = 1.5 / 2,
             wru = (1.5 * 1.5 + 0.5 * 0.5) / 2 = 1.25, wmi = (0.5 * 1.5) / 2 = 0.375
    """
    res = evaluate_fixture("cafa_format.txt")
    bp = res.curves[res.curves["namespace"] == "BPO"]
    assert_array_equal(bp["threshold"], [0.6, 0.7, 0.9])
    assert_array_equal(bp["n_covered"], [2, 1, 1])
    assert_allclose(bp["precision"], [5 / 6, 1.0, 1.0], **TOL)
    assert_allclose(bp["recall"], [1.0, 0.5, 0.25], **TOL)
    assert_allclose(bp["f"], [10 / 11, 2 / 3, 0.4], **TOL)
    assert_allclose(bp["precision_micro"], [6 / 7, 1.0, 1.0], **TOL)
    assert_allclose(bp["recall_micro"], [1.0, 4 / 6, 2 / 6], **TOL)
    assert_allclose(bp["wprecision"], [(1 + 1 / 3) / 2, 1.0, 1.0], **TOL)
    assert_allclose(bp["wrecall"], [1.0, 0.5, (2 / 3.5) / 2], **TOL)
    assert_allclose(bp["ru"], [0.0, 0.5, 1.25], **TOL)
    assert_allclose(bp["mi"], [1.0, 0.0, 0.0], **TOL)
    assert_allclose(bp["wru"], [0.0, 1 / 4.5, (3.5 * 1.5 + 1) / 4.5], **TOL)
    assert_allclose(bp["wmi"], [2 / 4.5, 0.0, 0.0], **TOL)
    mf = res.curves[res.curves["namespace"] == "MFO"]
    assert_array_equal(mf["threshold"], [0.3])
    assert_allclose(mf[["precision", "recall", "f", "wprecision", "wrecall", "ru", "mi", "wru", "wmi"]].to_numpy()[0],
                    [0.5, 0.25, 1 / 3, 0.0, 0.0, 1.0, 0.75, 1.25, 0.375], **TOL)
    summary = res.summary.set_index(["namespace", "measure"])
    assert_allclose(summary.loc[("BPO", "fmax"), ["value", "threshold", "coverage"]].to_numpy(dtype=float),
                    [10 / 11, 0.6, 1.0], **TOL)
    assert_allclose(summary.loc[("BPO", "smin"), ["value", "threshold", "ru", "mi"]].to_numpy(dtype=float),
                    [0.5, 0.7, 0.5, 0.0], **TOL)
    assert_allclose(summary.loc[("MFO", "wsmin"), ["value", "ru", "mi"]].to_numpy(dtype=float),
                    [np.hypot(1.25, 0.375), 1.25, 0.375], **TOL)


def test_fixture_diagnostics():
    """Duplicates, unknown, obsolete and alt_id terms, proteins without truth: all counted."""
    res = evaluate_fixture("cafa_format.txt")
    d = res.diagnostics["methods"]["cafa_format"]
    assert d["rows_read"] == 9
    assert d["cafa_header_lines"] == 3 and d["end_line"]
    # the terms of the benchmark proteins' lines; X9's line (no truth) is counted, its term not read
    assert d["rows_by_term_status"] == {"primary": 4, "alt_id": 1, "replaced_by": 1, "obsolete": 1, "unknown": 1}
    assert d["lines_not_parsed"] == {"rows": 1, "other_lines": 0} and d["entries_of_proteins_not_in_truth"] == 1
    assert d["unknown_terms"]["examples"] == ["GO:9999999"]
    assert d["obsolete_terms_dropped"]["examples"] == ["GO:0000099"]
    assert d["obsolete_replaced"]["examples"] == ["GO:0000098"]
    assert d["alt_id_remapped"]["examples"] == ["GO:0000091"]
    assert d["duplicate_pairs"] == 1
    assert d["proteins_not_in_truth"] == 1
    assert d["proteins_not_in_truth_examples"] == ["X9"]
    assert res.diagnostics["truth"]["rows_by_term_status"]["alt_id"] == 1


def test_remapped_terms_evaluate_like_their_primary_ids():
    """cafa_format.txt (alt_id, replaced_by, duplicate, junk rows) and bp_only.tsv
    (the same BPO predictions with primary ids) give the same BPO curves."""
    res = evaluate_fixture("cafa_format.txt", "bp_only.tsv")
    a = res.curves[(res.curves["method"] == "cafa_format") & (res.curves["namespace"] == "BPO")]
    b = res.curves[(res.curves["method"] == "bp_only") & (res.curves["namespace"] == "BPO")]
    for col in ("threshold",) + PLAIN_COLUMNS + IA_CURVE_COLUMNS:
        assert_array_equal(a[col].to_numpy(), b[col].to_numpy(), err_msg=col)


def test_method_without_predictions_in_a_namespace_is_absent_there():
    res = evaluate_fixture("cafa_format.txt", "bp_only.tsv")
    assert set(res.curves.loc[res.curves["method"] == "bp_only", "namespace"]) == {"BPO"}
    assert set(res.summary.loc[res.summary["method"] == "bp_only", "namespace"]) == {"BPO"}
    assert set(res.summary.loc[res.summary["method"] == "cafa_format", "namespace"]) == {"BPO", "MFO"}
    assert res.diagnostics["methods"]["bp_only"]["namespaces"]["MFO"]["evaluated"] is False
    best = res.best("fmax")
    assert np.isnan(best.loc["bp_only", "MFO"]) and not np.isnan(best.loc["bp_only", "BPO"])


def test_file_without_predictions_gives_no_rows():
    """A CAFA file with its header and END but no prediction line: nothing evaluated, an error as for the command;
    ``allow_empty`` returns the result without rows."""
    with pytest.raises(GoevalError, match="nothing was evaluated: no method has a prediction for a benchmark protein"):
        evaluate_fixture("no_predictions.txt")
    res = evaluate_fixture("no_predictions.txt", allow_empty=True)  # the caller says it
    assert len(res.curves) == 0 and len(res.summary) == 0
    assert res.diagnostics["nothing_evaluated"] == "no method has a prediction for a benchmark protein"
    assert list(res.curves.columns[:3]) == ["method", "namespace", "threshold"]
    res = evaluate_fixture("no_predictions.txt", "bp_only.tsv")
    assert set(res.curves["method"]) == {"bp_only"}
    assert res.diagnostics["methods"]["no_predictions"]["rows_read"] == 0


def test_zero_byte_prediction_file_is_a_clear_input_error(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    with pytest.raises(InputFormatError, match="empty"):
        goeval.evaluate(EVAL / "small.obo", EVAL / "truth.tsv", [empty])


def write_case(case: Case, folder, rng: np.random.Generator | None = None) -> tuple:
    """OBO, truth, predictions and IA files of a Case (lines shuffled when rng is given)."""
    folder.mkdir(parents=True, exist_ok=True)
    parents: dict[str, list[str]] = {}
    for c, p in case.edges:
        parents.setdefault(c, []).append(p)
    terms = list(case.namespace_of)
    truth = list(case.truth)
    preds = list(case.scores.items())
    if rng is not None:
        terms = [terms[i] for i in rng.permutation(len(terms))]
        truth = [truth[i] for i in rng.permutation(len(truth))]
        preds = [preds[i] for i in rng.permutation(len(preds))]
    stanzas = []
    for t in terms:
        lines = ["[Term]", f"id: {t}", f"name: term {t}", f"namespace: {case.namespace_of[t]}"]
        lines += [f"is_a: {p}" for p in parents.get(t, [])]
        stanzas.append("\n".join(lines))
    (folder / "onto.obo").write_text("format-version: 1.2\n\n" + "\n\n".join(stanzas) + "\n")
    (folder / "truth.tsv").write_text("".join(f"{p}\t{t}\n" for p, t in truth))
    (folder / "m.tsv").write_text("".join(f"{p}\t{t}\t{s!r}\n" for (p, t), s in preds))
    (folder / "ia.tsv").write_text("".join(f"{t}\t{case.ia[t]!r}\n" for t in terms))
    return folder / "onto.obo", folder / "truth.tsv", [folder / "m.tsv"]


@pytest.mark.parametrize("seed", range(3))
def test_input_line_order_changes_nothing(tmp_path, seed):
    case = random_case(seed + 40)
    o, t, p = write_case(case, tmp_path / "plain")
    base = goeval.evaluate(o, t, p, ia=tmp_path / "plain" / "ia.tsv", thresholds=0.01)
    o2, t2, p2 = write_case(case, tmp_path / "shuffled", np.random.default_rng(seed))
    other = goeval.evaluate(o2, t2, p2, ia=tmp_path / "shuffled" / "ia.tsv", thresholds=0.01)
    assert len(base.curves)
    # namespaces other than GO's come in order of first appearance in the OBO file
    base.curves = base.curves.sort_values(["namespace", "threshold"], kind="stable", ignore_index=True)
    other.curves = other.curves.sort_values(["namespace", "threshold"], kind="stable", ignore_index=True)
    base.summary = base.summary.sort_values(["namespace", "measure"], kind="stable", ignore_index=True)
    other.summary = other.summary.sort_values(["namespace", "measure"], kind="stable", ignore_index=True)
    for col in ("threshold",) + PLAIN_COLUMNS + IA_CURVE_COLUMNS:
        assert_allclose(other.curves[col].to_numpy(dtype=float), base.curves[col].to_numpy(dtype=float),
                        err_msg=col, **TOL)
    assert_array_equal(other.summary[["namespace", "measure"]], base.summary[["namespace", "measure"]])
    assert_allclose(other.summary["value"], base.summary["value"], **TOL)
    # and the files evaluate like the in-memory objects (the oracle)
    want = oracle_evaluate(case, thresholds=0.01)
    assert_curves_equal(base.curves, want, "m")


# =====================================================================
# The bundled CAFA2 MFO example
# =====================================================================
def test_bundled_example():
    res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                          [goeval.example_path("predictions")], ia=goeval.example_path("ia"), thresholds=0.01)
    summary = res.summary.set_index("measure")
    assert set(summary["namespace"]) == {"MFO"}
    fmax = summary.loc["fmax"]
    assert round(float(fmax["value"]), 4) == 0.4856
    assert round(float(fmax["value"]), 3) == 0.486
    assert float(fmax["threshold"]) == 0.46
    row = res.curves[res.curves["threshold"] == 0.46].iloc[0]
    assert int(row["n_covered"]) == 262
    assert float(fmax["coverage"]) == pytest.approx(262 / int(row["n_proteins"]), abs=1e-15)
    assert round(float(summary.loc["wfmax", "value"]), 3) == 0.407
    assert res.curves["threshold"].max() <= 1.0
    assert_array_equal(np.diff(res.curves["threshold"]) > 0, True)


# =====================================================================
# Staged API: namespace_stats + summarize, options object
# =====================================================================
def _inputs(seed):
    case = random_case(seed)
    onto = case.ontology()
    return onto, case.truth_annotations(onto), {"m": case.predictions(onto)}, case.ia_array(onto)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_evaluate_annotations_is_namespace_stats_then_summarize(seed, thresholds):
    from goeval.evaluation import namespace_stats, summarize
    from goeval.options import EvaluationOptions

    onto, truth, preds, ia = _inputs(seed)
    opts = EvaluationOptions(thresholds=thresholds, normalization="pred")
    whole = evaluate_annotations(onto, truth, preds, opts, ia=ia)
    staged = summarize(namespace_stats(onto, truth, preds, ia, opts), opts, with_ia=True)
    assert staged.summary_records == whole.summary_records
    for col, arr in whole.curve_columns.items():
        assert_array_equal(staged.curve_columns[col], arr, err_msg=col)


@pytest.mark.parametrize("seed", range(4))
def test_folds_pooled_over_common_thresholds_equal_the_whole(seed):
    """Statistics of two protein folds over one common threshold set add up
    to those of the whole benchmark (how cross-validation pools its folds)."""
    from goeval.evaluation import namespace_stats, summarize
    from goeval.sweep import SweepStats

    onto, truth, preds, ia = _inputs(seed)
    proteins = truth.proteins.tolist()
    folds = [proteins[::2], proteins[1::2]]
    taus = np.unique(preds["m"].matrix.data)  # a superset of every fold's propagated scores
    parts = [namespace_stats(onto, truth, preds, ia, thresholds=taus, targets=f) for f in folds]
    whole = namespace_stats(onto, truth, preds, ia, thresholds=taus)
    keys = [k for k in whole if all(k in p for p in parts)]
    assert keys
    pooled = {k: SweepStats.combine([p[k] for p in parts]) for k in keys}
    a = summarize(pooled).summary.set_index(["namespace", "measure"])
    b = summarize({k: whole[k] for k in keys}).summary.set_index(["namespace", "measure"])
    assert_allclose(a["value"], b["value"], **TOL)
    assert_array_equal(a["threshold"], b["threshold"])


def test_option_overrides_are_validated_by_the_options_object():
    from goeval.options import EvaluationOptions

    onto, truth, preds, ia = _inputs(0)
    with pytest.raises(InvalidParameterError, match="Unknown evaluation option"):
        evaluate_annotations(onto, truth, preds, ia=ia, treshold=0.01)
    with pytest.raises(InvalidParameterError, match="thresholds"):
        evaluate_annotations(onto, truth, preds, EvaluationOptions(), thresholds="fine")
    res = evaluate_annotations(onto, truth, preds, EvaluationOptions(thresholds=0.1), k=3.0)
    assert res.diagnostics["options"]["k"] == 3.0 and res.diagnostics["options"]["thresholds"].startswith("grid")


def test_common_thresholds_are_checked():
    from goeval.evaluation import namespace_stats

    onto, truth, preds, ia = _inputs(0)
    for bad in ([0.5, 0.2], [0.0, 0.5], [[0.5]], [0.5, np.nan]):
        with pytest.raises(InvalidParameterError, match="thresholds"):
            namespace_stats(onto, truth, preds, ia, thresholds=np.array(bad))


# =====================================================================
# max_terms: the N best scores per protein and namespace, before propagation
# =====================================================================
def oracle_top(scores: dict[tuple[str, str], float], case: Case, n: int) -> dict[tuple[str, str], float]:
    """Each protein's n best own scores per namespace; ties by depth (longest path from a root),
    then term id."""
    parents: dict[str, set[str]] = {}
    for c, p in case.edges:
        parents.setdefault(c, set()).add(p)

    def depth(t: str) -> int:
        return 1 + max((depth(p) for p in parents.get(t, ())), default=-1)

    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for (p, t) in scores:
        groups.setdefault((p, case.namespace_of[t]), []).append((p, t))
    kept = {}
    for keys in groups.values():
        for key in sorted(keys, key=lambda k: (-scores[k], depth(k[1]), k[1]))[:n]:
            kept[key] = scores[key]
    return kept


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [1, 2, 5])
def test_max_terms_equals_evaluating_the_best_scores_only(seed, n):
    case = random_case(seed)
    res = run_case(case, thresholds=0.01, max_terms=n)
    want = oracle_evaluate(case, thresholds=0.01, scores=oracle_top(case.scores, case, n))
    assert_curves_equal(res.curves, want, "m")
    assert_summary_equal(res.summary, want, "m")
    dropped = len(case.scores) - len(oracle_top(case.scores, case, n))
    assert res.diagnostics["methods"]["m"]["max_terms_dropped"] == dropped


def test_summarize_releases_statistics_block_by_block_with_the_same_result():
    from oracles import random_case

    from goeval.evaluation import namespace_stats, summarize

    case = random_case(3, n_proteins=30)
    onto = case.ontology()
    stats = namespace_stats(onto, case.truth_annotations(onto), {"m": case.predictions(onto)}, case.ia_array(onto))
    kept = summarize(dict(stats))
    handed = dict(stats)
    released = summarize(handed, release=True)
    assert handed == {} and released.stats is None and kept.stats is not None
    assert [repr(r) for r in released.summary_records] == [repr(r) for r in kept.summary_records]
