"""The data behind the figures: curves, marked optima, labels with units, contours, bars."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from goeval.errors import InvalidParameterError  # noqa: E402
from goeval.io.results_dir import read_results_dir  # noqa: E402
from goeval.report import plots  # noqa: E402
from goeval.report.style import PANELS, method_colors  # noqa: E402


def _by_gid(ax, prefix):
    return {a.get_gid().split(":", 1)[1]: a for a in ax.get_children() if (a.get_gid() or "").startswith(prefix)}


@pytest.fixture(scope="module")
def results(two_methods):
    return read_results_dir(two_methods[1])


def test_fig4_one_line_per_method_with_curve_data(results):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO")
    assert len(fig.axes) == 4
    for ax, panel in zip(fig.axes, PANELS):
        curves = _by_gid(ax, "curve:")
        assert sorted(curves) == ["BLAST", "naive"]
        for m, line in curves.items():
            c = results.curves[(results.curves.method == m) & (results.curves.namespace == "MFO")].sort_values("threshold")
            np.testing.assert_array_equal(line.get_xdata(), c[panel.x].to_numpy())
            np.testing.assert_array_equal(line.get_ydata(), c[panel.y].to_numpy())


@pytest.mark.parametrize("panel", PANELS, ids=[p.name for p in PANELS])
def test_marked_optimum_is_the_summary_value(results, panel):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO", panels=[panel.name])
    ax = fig.axes[0]
    marks = _by_gid(ax, "optimum:")
    assert sorted(marks) == ["BLAST", "naive"]
    s = results.summary
    for m, mark in marks.items():
        row = s[(s.method == m) & (s.namespace == "MFO") & (s.measure == panel.measure)].iloc[0]
        assert mark.get_xdata()[0] == row[panel.at_x] and mark.get_ydata()[0] == row[panel.at_y]
        # the optimum lies on the curve: the curve row at the optimum's threshold has these coordinates
        c = results.curves[(results.curves.method == m) & (results.curves.threshold == row.threshold)]
        assert c[panel.x].iloc[0] == row[panel.at_x] and c[panel.y].iloc[0] == row[panel.at_y]
        # F: the measure is the harmonic mean at the mark; S: the 2-norm
        x, y = row[panel.at_x], row[panel.at_y]
        expect = 2 * x * y / (x + y) if panel.iso == "f" else np.hypot(x, y)
        assert expect == pytest.approx(row.value, rel=1e-12)


def test_labels_units_and_legend_text(results):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO")
    xl = [ax.get_xlabel() for ax in fig.axes]
    yl = [ax.get_ylabel() for ax in fig.axes]
    assert xl[:2] == ["recall", "weighted recall"] and yl[:2] == ["precision", "weighted precision"]
    assert all("(bits)" in t for t in xl[2:] + yl[2:])
    row = results.summary.query("method == 'BLAST' and measure == 'fmax'").iloc[0]
    label = _by_gid(fig.axes[0], "curve:")["BLAST"].get_label()
    assert f"Fmax {row.value:.3f}" in label and f"C {row.coverage:.2f}" in label
    assert f"[{row.ci_low:.3f}, {row.ci_high:.3f}]" in label
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()][0] == label


def test_iso_contours_and_limits(results):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO")
    kinds = [{a.get_gid() for a in ax.get_children() if (a.get_gid() or "").startswith("iso:")} for ax in fig.axes]
    assert kinds == [{"iso:f"}, {"iso:f"}, {"iso:s"}, {"iso:s"}]
    iso_f = next(a for a in fig.axes[0].get_children() if a.get_gid() == "iso:f")
    np.testing.assert_allclose(iso_f.levels, np.arange(1, 10) / 10)
    assert fig.axes[0].get_xlim() == (0, 1) and fig.axes[0].get_ylim() == (0, 1)
    # the ru-mi view shows every optimum
    for ax, panel in zip(fig.axes[2:], PANELS[2:]):
        for mark in _by_gid(ax, "optimum:").values():
            assert mark.get_ydata()[0] <= ax.get_ylim()[1] and mark.get_xdata()[0] <= ax.get_xlim()[1]


def test_consistent_colours_and_points(results):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO",
                            points={"GO vs Swiss-Prot": {"pr": (0.7, 0.8), ("MFO", "rumi"): (2.0, 1.0)}})
    colors = [{m: line.get_color() for m, line in _by_gid(ax, "curve:").items()} for ax in fig.axes]
    assert all(c == colors[0] for c in colors) and colors[0]["BLAST"] != colors[0]["naive"]
    pts = [_by_gid(ax, "point:") for ax in fig.axes]
    assert [sorted(p) for p in pts] == [["GO vs Swiss-Prot"], [], ["GO vs Swiss-Prot"], []]
    assert (pts[0]["GO vs Swiss-Prot"].get_xdata()[0], pts[0]["GO vs Swiss-Prot"].get_ydata()[0]) == (0.7, 0.8)
    assert pts[0]["GO vs Swiss-Prot"].get_color() not in colors[0].values()
    assert method_colors(["a", "b"], {"b": "#000000"}) == {"b": "#000000", "a": method_colors(["x", "a"])["a"]}


def test_panels_without_ia_are_left_out(results):
    keep = ["method", "namespace", "threshold", "coverage", "precision", "recall"]
    fig = plots.fig4_figure(results.curves[keep], results.summary, "MFO")
    assert len(fig.axes) == 1 and fig.axes[0].get_xlabel() == "recall"
    with pytest.raises(InvalidParameterError, match="panels"):
        plots.fig4_figure(results.curves, results.summary, "MFO", panels=["nope"])


def test_optima_bars_with_bootstrap_intervals(results):
    fig = plots.optima_figure(results.summary)
    s = results.summary
    for ax, measure in zip(fig.axes, ("fmax", "smin")):
        bars = _by_gid(ax, "bar:")
        assert sorted(bars) == ["BLAST", "naive"]
        for m, bar in bars.items():
            row = s[(s.method == m) & (s.measure == measure)].iloc[0]
            assert bar.get_height() == pytest.approx(row.value)
        segs = [seg for coll in ax.collections for seg in coll.get_segments()]
        lows = sorted(min(seg[:, 1]) for seg in segs)
        assert lows == pytest.approx(sorted(s[s.measure == measure].ci_low))
    assert "(bits)" in fig.axes[1].get_ylabel()


def test_coverage_and_information_content(two_methods, results):
    fig = plots.coverage_figure(results.curves)
    lines = _by_gid(fig.axes[0], "curve:")
    assert sorted(lines) == ["BLAST", "naive"] and fig.axes[0].get_xlabel().startswith("threshold")
    import goeval
    from goeval.information.accretion import information_content

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.propagate(goeval.load_annotations(goeval.example_path("truth"), onto))
    ia, _ = goeval.load_ia(goeval.example_path("ia"), onto)
    fig = plots.information_content_figure(truth, ia)
    ax = fig.axes[0]
    assert sum(p.get_height() for p in ax.patches) == truth.matrix.shape[0] == 421
    it = information_content(ia, truth)
    assert f"mean {it.mean():.1f}" in ax.get_title() and ax.get_xlabel() == "information content i(T) (bits)"
    with pytest.raises(InvalidParameterError, match="'ia'"):
        plots.information_content_figure(truth)


def test_tap_curve_marks_the_peak():
    import pandas as pd

    curve = pd.DataFrame({"method": ["a"] * 3, "namespace": ["MFO"] * 3, "cutoff": [0.9, 0.5, 0.1],
                          "tap": [0.2, 0.4, 0.3]})
    summ = pd.DataFrame({"method": ["a"], "namespace": ["MFO"], "peak_tap": [0.4], "peak_cutoff": [0.5]})
    ax = plots.tap_curve_figure(curve, summ).axes[0]
    mark = _by_gid(ax, "optimum:")["a"]
    assert (mark.get_xdata()[0], mark.get_ydata()[0]) == (0.5, 0.4)
    assert ax.xaxis_inverted() and "TAP" in ax.get_ylabel()


def test_results_figures_and_bytes(results):
    figs = plots.results_figures(results, panels=True)
    assert list(figs) == ["fig4_MFO", "fig4_MFO_pr", "fig4_MFO_wpr", "fig4_MFO_rumi", "fig4_MFO_wrumi",
                          "coverage", "optima"]
    png = plots.figure_bytes(figs["optima"])
    assert png.startswith(b"\x89PNG")
    one, two = plots.results_figures(results), plots.results_figures(results)  # fresh figures: same bytes
    assert plots.figure_bytes(one["optima"], "svg") == plots.figure_bytes(two["optima"], "svg")
    with pytest.raises(InvalidParameterError, match="format"):
        plots.figure_bytes(figs["optima"], "gif")
