"""The scikit-learn-shaped functions of goeval.metrics and its flat namespace."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import random_case

import goeval
import goeval.metrics
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.evaluation import evaluate_annotations
from goeval.metrics import CURVE_COLUMNS, fmax_score, protein_curve, smin_distance

TOL = {"rtol": 1e-12, "atol": 1e-12}

#: The tiny case of the docstrings: column 0 is the root.
Y_TRUE = sp.csr_array(np.array([[1, 1, 0], [1, 0, 1]], dtype=bool))
Y_SCORE = sp.csr_array(np.array([[1.0, 0.8, 0.3], [1.0, 0.4, 0.0]]))
IA = np.array([0.0, 1.0, 2.0])


@pytest.mark.parametrize("name", goeval.metrics.__all__)
def test_every_exported_name_imports(name):
    assert getattr(goeval.metrics, name) is not None


def test_previously_unreachable_names_import_directly():
    from goeval.metrics import (average_precision_lists, ipr_auc, mean_average_precision,  # noqa: F401
                                roc_n_scores, tap_curve, tap_k, term_centric_scores)

    with pytest.raises(AttributeError):
        goeval.metrics.no_such_measure  # noqa: B018


def test_importing_goeval_metrics_imports_no_measure_module():
    code = "import sys, goeval.metrics; print(sorted(m for m in sys.modules if m.startswith(('goeval.metrics.', 'scipy'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_tiny_case_by_hand():
    """Exact thresholds 0.3, 0.4, 0.8, 1 (see the docstrings):
    F = 21/32, 3/4, 6/7, 2/3; S = 1.8028, 1.1180, 1, 1.5 with ia = (0, 1, 2)."""
    cur = protein_curve(Y_TRUE, Y_SCORE, ia=IA)
    assert_array_equal(cur["threshold"], [0.3, 0.4, 0.8, 1.0])
    assert_allclose(cur["f"], [21 / 32, 3 / 4, 6 / 7, 2 / 3], **TOL)
    assert_allclose(cur["s"], [np.hypot(1, 1.5), np.hypot(1, 0.5), 1.0, 1.5], **TOL)
    assert set(cur) == set(CURVE_COLUMNS)
    assert fmax_score(Y_TRUE, Y_SCORE) == pytest.approx(6 / 7, abs=1e-15)
    assert smin_distance(Y_TRUE, Y_SCORE, ia=IA) == 1.0
    # without ia every term is one bit: ru 1/2, mi 0 at tau = 0.8
    assert smin_distance(Y_TRUE, Y_SCORE) == pytest.approx(0.5)
    assert set(protein_curve(Y_TRUE, Y_SCORE)) == {"threshold", "n_proteins", "n_covered", "coverage", "precision",
                                                   "recall", "f", "precision_micro", "recall_micro", "f_micro",
                                                   "tp", "fp", "fn", "ru_terms", "mi_terms", "s_terms"}


def test_grid_thresholds_and_weighting_options():
    cur = protein_curve(Y_TRUE, Y_SCORE, thresholds=0.1)
    assert cur["threshold"][0] == 0.1 and cur["threshold"][-1] == 1.0
    assert fmax_score(Y_TRUE, Y_SCORE, ia=IA, weighted=True) <= 1.0
    assert 0 < fmax_score(Y_TRUE, Y_SCORE, average="micro") <= 1.0
    assert smin_distance(Y_TRUE, Y_SCORE, ia=IA, weighted=True) >= 0


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("options", [{}, {"thresholds": 0.01, "normalization": "pred"},
                                     {"normalization": "gt", "protein_weighting": "information", "k": 3.0}])
def test_annotations_give_the_values_of_the_evaluation(seed, options):
    """Annotations (propagated here) give the summary of evaluate_annotations, namespace by namespace."""
    case = random_case(seed)
    onto = case.ontology()
    truth, pred, ia = case.truth_annotations(onto), case.predictions(onto), case.ia_array(onto)
    res = evaluate_annotations(onto, truth, {"m": pred}, ia=ia, **options)
    summary = res.summary.set_index(["namespace", "measure"])["value"]
    kw = {k: v for k, v in options.items() if k != "k"}
    k = options.get("k", 2.0)
    pw = kw.pop("protein_weighting", "none")
    for label in onto.labels:
        t = truth.namespace(label)
        if (label, "fmax") not in summary.index:
            continue
        assert_allclose(fmax_score(t, pred, **kw), summary[(label, "fmax")], **TOL)
        assert_allclose(fmax_score(t, pred, ia=ia, weighted=True, protein_weighting=pw, **kw),
                        summary[(label, "wfmax")], **TOL)
        assert_allclose(fmax_score(t, pred, average="micro", **kw), summary[(label, "fmax_micro")], **TOL)
        assert_allclose(smin_distance(t, pred, ia=ia, k=k, **kw), summary[(label, "smin")], **TOL)
        assert_allclose(smin_distance(t, pred, ia=ia, k=k, weighted=True, **kw), summary[(label, "wsmin")], **TOL)
        cur = protein_curve(t, pred, ia=ia, k=k, protein_weighting=pw, **kw)
        sub = res.curves[res.curves["namespace"] == label]
        for col in cur:
            assert_allclose(cur[col], sub[col].to_numpy(dtype=float), err_msg=col, **TOL)


def test_sample_weight_of_zero_removes_a_protein():
    w = np.array([1.0, 0.0])
    cur = protein_curve(Y_TRUE, Y_SCORE, sample_weight=w, thresholds=0.1)
    alone = protein_curve(Y_TRUE[[0]], Y_SCORE[[0]], thresholds=0.1)
    for col in ("precision", "recall", "f"):
        assert_allclose(cur[col], alone[col], err_msg=col, **TOL)


def test_nothing_predicted_is_nan_with_a_warning():
    with pytest.warns(GoevalWarning, match="undefined"):
        assert np.isnan(fmax_score(Y_TRUE, sp.csr_array((2, 3))))
    with pytest.warns(GoevalWarning, match="undefined"):
        assert np.isnan(smin_distance(Y_TRUE, sp.csr_array((2, 3))))


@pytest.mark.parametrize("kwargs,match", [
    ({"thresholds": "fine"}, "thresholds"),
    ({"thresholds": 0.03}, "divide 1"),
    ({"sample_weight": np.ones(3)}, "sample_weight"),
    ({"ia": np.ones(2)}, "ia"),
    ({"normalization": "all"}, "normalization"),
])
def test_bad_parameters_are_typed_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        protein_curve(Y_TRUE, Y_SCORE, **kwargs)


def test_bad_inputs_are_typed_errors():
    with pytest.raises(InvalidParameterError, match="shape"):
        fmax_score(Y_TRUE, sp.csr_array((2, 4)))
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        fmax_score(Y_TRUE, sp.csr_array(np.array([[1.5, 0, 0], [0, 0, 0]])))
    with pytest.raises(InvalidParameterError, match="weighted"):
        fmax_score(Y_TRUE, Y_SCORE, weighted=True)
    with pytest.raises(InvalidParameterError, match="average"):
        fmax_score(Y_TRUE, Y_SCORE, average="weighted")
    case = random_case(0)
    onto = case.ontology()
    with pytest.raises(InvalidParameterError, match="both"):
        fmax_score(case.truth_annotations(onto), Y_SCORE)
    with pytest.raises(InvalidParameterError, match="several namespaces"):
        fmax_score(case.truth_annotations(onto), case.predictions(onto))
