"""SharedScoresSource: the vector swept from the truth equals its rows made leaf by leaf."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose
from oracles import random_case, random_score

from goeval.diagnostics import Diagnostics
from goeval.evaluation import summarize
from goeval.evaluation.benchmark import make_benchmark, term_mask
from goeval.evaluation.engine import Plan
from goeval.evaluation.run import evaluate_blocks, evaluated
from goeval.evaluation.sources import MethodFeed, SharedScoresSource
from goeval.options import EvaluationOptions

OPTION_SETS = [
    {"thresholds": "exact"},
    {"thresholds": 0.01},
    {"thresholds": "exact", "propagation": "fill", "root_as_prediction": True},
    {"thresholds": 0.05, "exclude_roots": True, "normalization": "gt", "max_terms": 3},
    {"thresholds": "exact", "protein_weighting": "information", "normalization": "pred"},
]


def _setup(seed: int, **options):
    case = random_case(seed, n_proteins=40, max_truth=4, n_terms=(12, 30))
    onto = case.ontology()
    opts = EvaluationOptions.resolve(**options)
    rng = np.random.default_rng(seed)
    cols = np.sort(rng.choice(onto.n_terms, size=onto.n_terms // 2, replace=False))
    scores = np.array([random_score(rng) for _ in cols])
    bench = make_benchmark(onto, case.truth_annotations(onto), opts, Diagnostics(), ia=case.ia_array(onto),
                           allowed=term_mask(onto, None, None, opts.exclude_roots))
    return opts, bench, cols, scores


def _run(opts, bench, cols, scores, shared: bool, leaf_entries: int = 7):
    plan = Plan(options=opts)
    diag = Diagnostics()
    source = SharedScoresSource("naive", cols, scores, MethodFeed(bench, max_terms=opts.max_terms,
                                                                  leaf_entries=leaf_entries),
                                plan=plan if shared else None)
    assert source.shared is shared
    res = summarize(evaluated(evaluate_blocks(bench, {"naive": source}, plan, diag)), opts, True, diagnostics=diag)
    return res, diag


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_swept_from_the_truth_equals_the_rows(options, seed):
    opts, bench, cols, scores = _setup(seed, **options)
    a, da = _run(opts, bench, cols, scores, True)
    b, db = _run(opts, bench, cols, scores, False)
    assert da["methods"] == db["methods"]  # the same counts: proteins, entries, thresholds
    assert [(r["method"], r["namespace"], r["measure"]) for r in a.summary_records] == \
        [(r["method"], r["namespace"], r["measure"]) for r in b.summary_records]
    for ra, rb in zip(a.summary_records, b.summary_records):
        for key in ("value", "threshold", "coverage", "precision", "recall", "ru", "mi"):
            assert_allclose(ra[key], rb[key], rtol=1e-11, atol=1e-12, err_msg=f"{ra['measure']} {key}")
    for col, values in a.curve_columns.items():
        if values.dtype.kind == "f":
            assert_allclose(values, b.curve_columns[col], rtol=1e-10, atol=1e-12, err_msg=col)


def test_rows_are_made_when_a_protein_needs_its_own():
    """Per-protein steps (bootstrap), similarity, and known pairs with an event source (the non-redundant F)
    keep the rows; known pairs alone do not (swept from the vector's levels)."""
    opts, bench, cols, scores = _setup(0)
    feed = MethodFeed(bench)
    assert SharedScoresSource("n", cols, scores, feed, plan=Plan(options=opts)).shared
    assert not SharedScoresSource("n", cols, scores, feed, plan=Plan(options=opts, per_protein=True)).shared
    assert not SharedScoresSource("n", cols, scores, feed, plan=Plan(options=opts, similarity=True)).shared
    known = MethodFeed(replace(bench, known_keys=np.zeros(1, np.int64)))
    assert SharedScoresSource("n", cols, scores, known, plan=Plan(options=opts)).shared
    assert not SharedScoresSource("n", cols, scores, known, plan=Plan(options=opts, per_protein=True)).shared
    events = Plan(options=replace(opts, measures=("nonredundant",)))
    assert not SharedScoresSource("n", cols, scores, known, plan=events).shared


def _tiled(onto, bench, cols, scores):
    """The vector as prediction rows of every truth protein (the plain path)."""
    from goeval.annotations import Annotations

    n = bench.proteins.size
    return Annotations.from_pairs(onto, np.repeat(bench.proteins, cols.size).tolist(),
                                  np.tile(onto.ids[cols], n).tolist(), np.tile(scores, n).tolist())


@pytest.mark.parametrize("normalization", ["cafa", "cafa-pk"])
@pytest.mark.parametrize("thresholds", ["exact", 0.05])
@pytest.mark.parametrize("per_protein", [False, True])
def test_rows_with_known_pairs_equal_the_plain_rows(thresholds, per_protein, normalization):
    """Known pairs (partial knowledge): the vector swept from its levels (without per-protein steps) or given
    to each protein of a leaf, its known pairs removed, equals the same predictions read as rows (exact
    thresholds renumbered over the scores left): the same thresholds and counts, the sums to 1e-12."""
    from goeval.annotations import Annotations
    from goeval.evaluation.sources import AnnotationsSource

    case = random_case(5, n_proteins=40, max_truth=5, n_terms=(12, 30))
    onto = case.ontology()
    opts = EvaluationOptions.resolve(thresholds=thresholds, normalization=normalization)
    rng = np.random.default_rng(5)
    cols = np.sort(rng.choice(onto.n_terms, size=onto.n_terms // 2, replace=False))
    scores = np.array([random_score(rng) for _ in cols])
    truth = case.truth_annotations(onto)
    pairs = [(p, t) for p, t in case.truth[::3]]
    known = Annotations.from_pairs(onto, [p for p, _ in pairs], [t for _, t in pairs])
    bench = make_benchmark(onto, truth, opts, Diagnostics(), ia=case.ia_array(onto), known=known)
    plan = Plan(options=opts, per_protein=per_protein)
    shared = SharedScoresSource("m", cols, scores, MethodFeed(bench, leaf_entries=9), plan=plan)
    assert shared.shared is not per_protein
    plain = AnnotationsSource("m", _tiled(onto, bench, cols, scores), MethodFeed(bench, leaf_entries=9))
    da, db = Diagnostics(), Diagnostics()
    a = evaluated(evaluate_blocks(bench, {"m": shared}, plan, da))
    b = evaluated(evaluate_blocks(bench, {"m": plain}, plan, db))
    assert list(a) == list(b)
    removed = [d["known_pairs_removed"] for d in da["methods"]["m"]["namespaces"].values()]
    assert sum(removed) > 0 and removed == [d["known_pairs_removed"] for d in db["methods"]["m"]["namespaces"].values()]
    for key in a:
        np.testing.assert_array_equal(a[key].thresholds, b[key].thresholds)
        for name, values in a[key].sums.items():
            assert_allclose(values, b[key].sums[name], rtol=1e-12, atol=1e-12, err_msg=name)
        if per_protein:
            assert_allclose(a[key].protein_steps.stats().sums["tp"], b[key].protein_steps.stats().sums["tp"])
