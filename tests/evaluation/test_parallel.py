"""Leaves, the fixed reduction tree and executors: every backend gives the serial bits.

The evaluation cuts each (method, namespace) into leaves (runs of proteins
in file order) and adds their partial sums in a fixed tree
(:mod:`goeval.evaluation.leaves`). These tests force many leaves and check that a
thread pool, a process pool and a 2-worker Dask ``LocalCluster`` give the
same statistics, curves and summary bits as the serial run, that the tree
is the same however the partials arrive, and that the leaf rule is the one
documented.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing

import numpy as np
import pytest
from oracles import random_case

import goeval
import goeval.evaluation.leaves as leaves
from goeval.evaluation import evaluate_annotations, namespace_stats
from goeval.options import EvaluationOptions
from goeval.sweep import SweepPartial, TreeSum, sweep, tree_sum

OPTION_SETS = [
    {"thresholds": "exact"},
    {"thresholds": 0.01},
    {"thresholds": "exact", "propagation": "fill", "normalization": "pred"},
    {"thresholds": "exact", "root_as_prediction": True},
    {"thresholds": 0.05, "exclude_roots": True, "k": 3},
]


def _inputs(seed: int = 4, n_proteins: int = 60):
    case = random_case(seed, n_proteins=n_proteins, max_pred=12, n_terms=(15, 40))
    onto = case.ontology()
    preds = {"a": case.predictions(onto), "b": case.predictions(onto, {k: min(1.0, v * 0.7 + 0.05)
                                                                        for k, v in case.scores.items()})}
    return onto, case.truth_annotations(onto), preds, case.ia_array(onto)


def _bits(records: list[dict]) -> list[dict]:
    """Summary records with every float as its exact text (NaN equal to NaN)."""
    return [{k: repr(v) for k, v in r.items()} for r in records]


def _assert_same_stats(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        assert np.array_equal(a[key].thresholds, b[key].thresholds)
        for name in a[key].sums:
            assert np.array_equal(a[key].sums[name], b[key].sums[name]), (key, name)
        assert (a[key].n, a[key].n_true, a[key].it_sum, a[key].it2_sum) == \
               (b[key].n, b[key].n_true, b[key].it_sum, b[key].it2_sum)


@pytest.fixture
def small_leaves(monkeypatch):
    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 7)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_thread_and_process_pools_give_the_serial_bits(small_leaves, options):
    onto, truth, preds, ia = _inputs()
    opts = EvaluationOptions.resolve(**options)
    serial = namespace_stats(onto, truth, preds, ia, opts)
    with cf.ThreadPoolExecutor(3) as pool:
        _assert_same_stats(serial, namespace_stats(onto, truth, preds, ia, opts, executor=pool))
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        # leaves are cut in this process (with the small size); the workers only sweep them
        _assert_same_stats(serial, namespace_stats(onto, truth, preds, ia, opts, executor=pool))


def test_many_leaves_are_really_used(small_leaves):
    onto, truth, preds, ia = _inputs()
    calls = []
    real = leaves.leaf_task

    class Counting(cf.Executor):
        def submit(self, fn, *args):
            calls.append(args[1])
            fut = cf.Future()
            fut.set_result(fn(*args))
            return fut

    namespace_stats(onto, truth, preds, ia, EvaluationOptions(), executor=Counting())
    assert len(calls) > 10 and all(isinstance(x, leaves.Leaf) for x in calls)
    assert real is leaves.leaf_task


def test_leaves_change_the_bits_only_within_rounding(small_leaves, monkeypatch):
    """Many leaves against one leaf: the same values up to rounding (the tree adds in another order)."""
    onto, truth, preds, ia = _inputs()
    many = namespace_stats(onto, truth, preds, ia, EvaluationOptions())
    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 1 << 40)
    one = namespace_stats(onto, truth, preds, ia, EvaluationOptions())
    for key in many:
        for name in many[key].sums:
            np.testing.assert_allclose(many[key].sums[name], one[key].sums[name], rtol=1e-12, atol=1e-12)


def test_one_leaf_is_the_whole_block_kernel(monkeypatch):
    """With a single leaf the statistics are those of the whole-block kernel (proteins in another order)."""
    from goeval.diagnostics import Diagnostics
    from goeval.evaluation.engine import Plan
    from goeval.evaluation.run import evaluate_blocks, prepare_benchmark

    monkeypatch.setattr(leaves, "LEAF_ENTRIES", 1 << 40)
    onto, truth, preds, ia = _inputs()
    preds = {"a": preds["a"]}
    opts = EvaluationOptions(thresholds=0.01)
    stats = namespace_stats(onto, truth, preds, ia, opts)
    bench = prepare_benchmark(onto, truth, ia, opts, Diagnostics())
    for (_, label), out in evaluate_blocks(bench, preds, Plan(options=opts, keep_scores=True), Diagnostics()).items():
        blk = out.whole
        lo, hi = int(onto.bounds[blk.index]), int(onto.bounds[blk.index + 1])
        ref = sweep(blk.pred_indptr, blk.pred_cols, blk.pred_scores, blk.truth_indptr, blk.truth_cols, hi - lo,
                    stats[("a", label)].thresholds, ia[lo:hi])
        for name in ref.sums:
            np.testing.assert_allclose(stats[("a", label)].sums[name], ref.sums[name], rtol=1e-13, atol=1e-13)


def test_tree_is_fixed_however_partials_arrive():
    rng = np.random.default_rng(0)
    parts = []
    for _ in range(37):
        bins = np.unique(rng.integers(0, 50, rng.integers(1, 20)))
        parts.append(SweepPartial(bins.astype(float), rng.normal(size=(bins.size, 20)) * 10.0 ** rng.integers(-8, 8)))
    ref = tree_sum(parts)
    acc = TreeSum()
    for p in parts:  # streamed one at a time
        acc.push(p)
    got = acc.result()
    assert np.array_equal(ref.keys, got.keys) and np.array_equal(ref.values, got.values)
    # the tree is (((p0+p1)+(p2+p3))+...): check a small case by hand
    small = parts[:3]
    by_hand = small[0] + small[1] + small[2]
    assert np.array_equal(tree_sum(small).values, ((small[0] + small[1]) + small[2]).values)
    assert np.allclose(tree_sum(small).values, by_hand.values)
    # sparse addition equals dense addition bit for bit
    a, b = parts[0], parts[1]
    dense = np.zeros((50, 20))
    dense[a.keys.astype(int)] += a.values
    dense2 = np.zeros((50, 20))
    dense2[b.keys.astype(int)] = b.values
    s = a + b
    assert np.array_equal((dense + dense2)[s.keys.astype(int)], s.values)


def test_leaf_rule_by_hand():
    """A leaf closes at the first protein where its raw entries reach the size, whatever the feeding."""
    def bounds(counts, size, pieces):
        cut, out, base = leaves.LeafCutter(size), [0], 0
        for piece in np.array_split(np.asarray(counts), pieces):
            out += [base + k for k in cut.cuts(piece)]
            base += piece.size
        return out + ([base] if out[-1] != base else [])

    for pieces in (1, 2, 5):
        assert bounds([3, 1, 2, 5, 1], 4, pieces) == [0, 2, 4, 5]
        assert bounds([10, 10], 4, min(pieces, 2)) == [0, 1, 2]
        assert bounds([1, 1, 1], 100, min(pieces, 3)) == [0, 3]
    cut = leaves.LeafCutter(4)
    assert cut.cuts(np.array([3])) == [] and cut.cuts(np.array([1, 2])) == [1] and cut.cuts(np.array([5, 1])) == [1]


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
def test_evaluate_with_a_pool_equals_serial_on_the_bundled_example(small_leaves):
    onto = goeval.load_ontology(goeval.example_path("ontology"), cache=False)
    kwargs = dict(ia=goeval.example_path("ia"), thresholds="exact")
    serial = goeval.evaluate(onto, goeval.example_path("truth"), [goeval.example_path("predictions")], **kwargs)
    with cf.ThreadPoolExecutor(2) as pool:
        par = goeval.evaluate(onto, goeval.example_path("truth"), [goeval.example_path("predictions")],
                              executor=pool, **kwargs)
    assert _bits(serial.summary_records) == _bits(par.summary_records)
    for c in serial.curve_columns:
        assert np.array_equal(np.asarray(serial.curve_columns[c]), np.asarray(par.curve_columns[c]))


@pytest.mark.filterwarnings("ignore::goeval.errors.GoevalWarning")
def test_bootstrap_known_and_targets_with_an_executor(small_leaves):
    onto, truth, preds, ia = _inputs(seed=9)
    known = goeval.annotations.Annotations.from_pairs(onto, truth.proteins[:5], [onto.ids[onto.roots()[0]]] * 5)
    targets = truth.proteins[::2]
    kw = dict(ia=ia, targets=targets, known=known, bootstrap=20, seed=3)
    serial = evaluate_annotations(onto, truth, preds, **kw)
    with cf.ThreadPoolExecutor(2) as pool:
        par = evaluate_annotations(onto, truth, preds, executor=pool, **kw)
    assert _bits(serial.summary_records) == _bits(par.summary_records)


def test_two_worker_local_dask_cluster_gives_the_serial_bits():
    distributed = pytest.importorskip("distributed")
    from goeval.evaluation.parallel import dask_executor

    onto, truth, preds, ia = _inputs(n_proteins=80)
    opts = EvaluationOptions(thresholds="exact")
    serial = namespace_stats(onto, truth, preds, ia, opts)
    with dask_executor("local:2") as ex:
        assert isinstance(ex, cf.Executor)
        got = namespace_stats(onto, truth, preds, ia, opts, executor=ex)
        assert len(ex._client.scheduler_info()["workers"]) == 2
    _assert_same_stats(serial, got)
    assert distributed is not None


def test_dask_address_errors():
    from goeval.errors import InvalidParameterError
    from goeval.evaluation.parallel import parse_dask_address

    assert parse_dask_address("local") == ("local", 2)
    for bad in ("local:0", "localhost", "http://x:1", ""):
        with pytest.raises(InvalidParameterError):
            parse_dask_address(bad)
