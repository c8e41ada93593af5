"""EvaluationResult in a notebook: its headline as repr and HTML, its figures by namespace and kind; a time split's."""

from __future__ import annotations

import warnings

import pytest

import goeval
from goeval.evaluation import TimeSplitResult


@pytest.fixture(scope="module")
def two_methods():
    """(EvaluationResult,): BB4S and naive on the bundled CAFA2 MFO slice, grid 0.01, 40 resamples."""
    from goeval.baselines import naive

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    preds = {"BLAST": goeval.load_predictions(goeval.example_path("predictions"), onto),
             "naive": naive(onto, truth, truth.proteins)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (goeval.evaluate(onto, truth, preds, ia=goeval.example_path("ia"), thresholds=0.01, bootstrap=40,
                                seed=3),)


def test_the_repr_is_the_headline_table(two_methods):
    res = two_methods[0]
    lines = repr(res).splitlines()
    assert lines[0] == "<EvaluationResult: 2 methods x 1 namespace (MFO)>"
    assert lines[2].startswith("---------") and lines[3].split()[:3] == ["MFO", "BLAST", "0.4856"]
    assert lines[3].split()[3].startswith("[") and "bootstrap percentile interval (40 resamples)" in lines[-1]


def test_the_html_repr_is_the_headline_with_its_intervals(two_methods):
    page = two_methods[0]._repr_html_()
    assert page.startswith('<table class="goeval-headline">') and "<td>BLAST</td><td>0.4856 [" in page
    assert "<th>weighted Fmax</th>" in page and "<th>Smin (bits)</th>" in page


def test_plot_takes_a_namespace_of_the_result_and_names_those_it_holds(two_methods):
    pytest.importorskip("matplotlib")
    res = two_methods[0]
    assert res.namespaces == ["MFO"] and res.methods == ["BLAST", "naive"]
    assert len(res.plot().axes) == 4 and len(res.plot(kind="coverage").axes) == 1
    with pytest.raises(goeval.InvalidParameterError, match=r"namespaces \['MFO'\]; got 'HPO'"):
        res.plot("HPO")


def test_a_time_split_shows_one_table_with_its_kinds(two_methods):
    res = two_methods[0]
    split = TimeSplitResult({"NK": res, "LK": res})
    assert split == {"NK": res, "LK": res} and repr(split).splitlines()[0] == (
        "<TimeSplitResult: NK (2 methods), LK (2 methods)>")
    assert repr(split).splitlines()[1].split()[:3] == ["targets", "namespace", "method"]
    assert split._repr_html_().count("<td>NK</td>") == 2


def test_load_results_of_a_time_split_is_a_time_split_result(two_methods, tmp_path):
    res = two_methods[0]
    for kind in ("nk", "lk"):
        res.save(tmp_path / "ts" / kind)
    back = goeval.load_results(tmp_path / "ts")
    assert isinstance(back, TimeSplitResult) and list(back) == ["NK", "LK"]


def test_blocks_summarized_as_they_finish_give_the_same_result(two_methods):
    """summarize() of statistics and of the blocks summarize_block() made of them one by one (what an engine's
    on_block does as each block finishes): the same curves, rows, calibration and curve counts."""
    import dataclasses
    import functools

    import numpy as np

    from goeval.evaluation.summary import BlockSummary, summarize, summarize_block
    from goeval.options import EvaluationOptions

    res = two_methods[0]
    opts = EvaluationOptions.resolve(EvaluationOptions(thresholds=0.01, curves="thin"))
    whole = summarize(dict(res.stats), opts, True, diagnostics={})
    for release in (False, True):  # release: the statistics handed over, left without sums
        made = functools.partial(summarize_block, options=opts, with_ia=True, release=release)
        stats = {key: dataclasses.replace(st, sums=dict(st.sums)) for key, st in res.stats.items()}
        early = {key: made(key, st) for key, st in stats.items()}
        assert all(isinstance(b, BlockSummary) for b in early.values())
        assert all(bool(st.sums) != release for st in stats.values())
        given = summarize(early, opts, True, diagnostics={}, release=True)
        assert given.summary_records == whole.summary_records
        assert given.diagnostics["curves"] == whole.diagnostics["curves"]
        for col, values in whole.curve_columns.items():
            assert np.array_equal(given.curve_columns[col], values, equal_nan=values.dtype != object), col
        assert given.calibration.equals(whole.calibration)


def test_the_engine_hands_each_finished_block_to_on_block():
    """evaluate_blocks(on_block=...) keeps what the hook returns in place of each block's statistics."""
    import numpy as np

    from goeval.diagnostics import Diagnostics
    from goeval.evaluation.benchmark import make_benchmark
    from goeval.evaluation.engine import Plan
    from goeval.evaluation.run import evaluate_blocks
    from goeval.options import EvaluationOptions

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    preds = goeval.load_predictions(goeval.example_path("predictions"), onto)
    opts = EvaluationOptions.resolve(EvaluationOptions(thresholds=0.01))
    seen = []

    def hook(key, st):
        seen.append((key, int(st.thresholds.size)))
        return ("summarized", key)

    bench = make_benchmark(onto, truth, opts, Diagnostics())
    plain = evaluate_blocks(bench, {"BLAST": preds}, Plan(options=opts), Diagnostics())
    hooked = evaluate_blocks(bench, {"BLAST": preds}, Plan(options=opts), Diagnostics(), on_block=hook)
    assert [k for k, _ in seen] == [k for k, o in plain.items() if o.stats is not None] and seen
    for key, outcome in hooked.items():
        assert outcome.stats == ("summarized", key)
        assert outcome.counts == plain[key].counts
        assert np.array_equal(dict(seen)[key], plain[key].stats.thresholds.size)
