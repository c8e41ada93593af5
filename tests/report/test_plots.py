"""The data behind the figures: curves, marked optima, labels with units, contours, bars."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import types

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import matplotlib.colors as mcolors  # noqa: E402

from goeval.errors import InvalidParameterError  # noqa: E402
from goeval.io.results_dir import read_results_dir  # noqa: E402
from goeval.report import plots  # noqa: E402
from goeval.report.style import BASELINE_COLORS, PALETTE, PANELS, method_colors, result_colors  # noqa: E402


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
            if panel.iso == "f":  # precision is undefined without coverage: those rows are not drawn
                c = c[c["coverage" if panel.name == "pr" else "coverage_w"] > 0]
            np.testing.assert_array_equal(line.get_xdata(), c[panel.x].to_numpy())
            np.testing.assert_array_equal(line.get_ydata(), c[panel.y].to_numpy())


def test_no_line_to_the_origin_from_rows_without_coverage(results):
    """The naive baseline's tau = 1 row has weighted coverage 0 (precision undefined, written 0): not drawn."""
    c = results.curves
    tau1 = c[(c.method == "naive") & (c.threshold == 1.0)].iloc[0]
    assert tau1.coverage_w == 0 and (tau1.wrecall, tau1.wprecision) == (0, 0)
    assert (c[c.method == "naive"].coverage_w == 0).sum() > 1  # every threshold above the naive's top weighted score
    fig = plots.fig4_figure(c, results.summary, "MFO", panels=["pr", "wpr"])
    for ax in fig.axes:
        for line in _by_gid(ax, "curve:").values():
            xy = np.column_stack([line.get_xdata(), line.get_ydata()])
            assert len(xy) and not ((xy[:, 0] == 0) & (xy[:, 1] == 0)).any()
    drawn = plots.drawn_rows(c[c.method == "naive"], "wpr")
    assert drawn.coverage_w.min() > 0 and len(drawn) == (c[c.method == "naive"].coverage_w > 0).sum()
    assert len(plots.drawn_rows(c[c.method == "naive"], "rumi")) == (c.method == "naive").sum()  # ru, mi defined


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
    assert f"Fmax {row.value:.3f}" in label and f"coverage {row.coverage:.2f}" in label
    wrow = results.summary.query("method == 'BLAST' and measure == 'wfmax'").iloc[0]
    wlabel = _by_gid(fig.axes[1], "curve:")["BLAST"].get_label()
    assert f"weighted coverage {wrow.coverage:.2f}" in wlabel and ", C " not in label + wlabel
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
    assert method_colors(["a", "b"], {"b": PALETTE[0]}) == {"b": PALETTE[0], "a": PALETTE[1]}  # fixed: never reused


def test_okabe_ito_palette_and_baselines():
    okabe_ito = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
    assert set(PALETTE) | set(BASELINE_COLORS.values()) == okabe_ito and len(PALETTE) == 6
    c = method_colors(["m1", "Naive", "m2", "BLAST"])
    assert c == {"m1": PALETTE[0], "Naive": BASELINE_COLORS["naive"], "m2": PALETTE[1], "BLAST": BASELINE_COLORS["blast"]}
    assert method_colors([f"m{i}" for i in range(8)])["m6"] == PALETTE[0]  # cycles after six


def test_a_method_keeps_its_colour_in_every_figure_and_subset(results):
    """Colours come from the whole result (summary, then curves): a subset or a new order changes none."""
    c, s = results.curves, results.summary
    two = c.assign(method=c.method.replace({"BLAST": "mine"}))
    extra = pd.concat([two.assign(method=two.method.replace({"mine": "other"})), two])  # 'other' first
    summ = s.assign(method=s.method.replace({"BLAST": "mine"}))
    whole = _by_gid(plots.fig4_figure(two, summ, "MFO").axes[0], "curve:")
    only = _by_gid(plots.fig4_figure(two, summ, "MFO", methods=["naive", "mine"]).axes[0], "curve:")
    alone = _by_gid(plots.fig4_figure(two, summ, "MFO", methods=["mine"]).axes[0], "curve:")
    assert whole["mine"].get_color() == only["mine"].get_color() == alone["mine"].get_color() == PALETTE[0]
    assert whole["naive"].get_color() == only["naive"].get_color() == BASELINE_COLORS["naive"]
    cov = _by_gid(plots.coverage_figure(two).axes[0], "curve:")
    bars = _by_gid(plots.optima_figure(summ).axes[0], "bar:")
    assert cov["mine"].get_color() == PALETTE[0] and mcolors.to_hex(bars["mine"].get_facecolor()).upper() == PALETTE[0]
    assert result_colors(summ, extra) == {"mine": PALETTE[0], "naive": BASELINE_COLORS["naive"], "other": PALETTE[1]}
    figs = plots.results_figures(types.SimpleNamespace(curves=extra, summary=summ))
    for name in ("fig4_MFO", "coverage"):
        lines = _by_gid(figs[name].axes[0], "curve:")
        assert {m: lines[m].get_color() for m in lines} == result_colors(summ, extra)
    assert mcolors.to_hex(_by_gid(figs["optima"].axes[0], "bar:")["mine"].get_facecolor()).upper() == PALETTE[0]


def _extent(artist, renderer):
    return artist.get_window_extent(renderer)


def _drawn(fig):
    """The figure laid out (constrained layout) and drawn; its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return renderer


def test_legends_sit_below_the_axes_clear_of_curves_labels_and_contours(results):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO")
    renderer = _drawn(fig)
    for ax in fig.axes:
        leg = ax.get_legend()
        box, frame = _extent(leg, renderer), ax.get_window_extent(renderer)
        assert box.y1 <= frame.y0 and not box.overlaps(frame)  # wholly under the frame
        assert not box.overlaps(_extent(ax.xaxis.label, renderer))
        assert all(not box.overlaps(_extent(t, renderer)) for t in ax.get_xticklabels() if t.get_text())
        assert [t.get_text() for t in leg.get_texts()] == [ln.get_label() for ln in _by_gid(ax, "curve:").values()]
    for one in (fig, plots.panel_figure(results.curves, results.summary, "MFO", "wrumi")):  # nothing clipped
        renderer = _drawn(one)
        page = one.bbox
        for ax in one.axes:
            box = _extent(ax.get_legend(), renderer)
            assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0
    cov = plots.coverage_figure(results.curves)
    renderer = _drawn(cov)
    ax = cov.axes[0]
    assert not _extent(ax.get_legend(), renderer).overlaps(ax.get_window_extent(renderer))


def test_the_ru_mi_panels_say_what_the_axis_cuts(results):
    fig = plots.fig4_figure(results.curves, results.summary, "MFO")
    mi = results.curves[results.curves.namespace == "MFO"][["mi", "wmi"]].max()
    for ax, col in zip(fig.axes[2:], ("mi", "wmi")):
        top = ax.get_ylim()[1]
        assert top < mi[col]
        (note,) = [t for t in ax.texts if t.get_gid() == "cut"]
        assert f"{col} shown up to {top:.1f} bits" in note.get_text() and f"reach {mi[col]:.1f} bits" in note.get_text()
    full = plots.fig4_figure(results.curves, results.summary, "MFO", panels=["rumi"], mi_limit=None)
    assert not [t for t in full.axes[0].texts if t.get_gid() == "cut"]  # the whole curve: nothing to say
    assert not [t for t in fig.axes[0].texts if t.get_gid() == "cut"]


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


def test_a_namespace_the_curves_do_not_hold_is_an_error_listing_those_they_hold(results):
    """'HPO' for a result of MFO (and 'human_phenotype' for one of HPO): an error, never four empty panels."""
    for call in (lambda: plots.fig4_figure(results.curves, results.summary, "HPO"),
                 lambda: plots.panel_figure(results.curves, results.summary, "BPO", "pr"),
                 lambda: plots.coverage_figure(results.curves, namespaces=["HPO"])):
        with pytest.raises(InvalidParameterError, match=r"of this result's namespaces \['MFO'\]; got '(HPO|BPO)'"):
            call()
    hpo = results.curves.assign(namespace="HPO")
    with pytest.raises(InvalidParameterError, match=r"namespaces \['HPO'\]; got 'human_phenotype'"):
        plots.fig4_figure(hpo, results.summary.assign(namespace="HPO"), "human_phenotype")
    fig = plots.fig4_figure(results.curves, results.summary, "molecular_function")  # a GO namespace's OBO name
    assert fig.axes[0].get_title() == "MFO: precision-recall" and len(_by_gid(fig.axes[0], "curve:")) == 2


def test_result_figure_draws_each_kind_of_the_result(two_methods):
    res = two_methods[0]
    fig4 = plots.result_figure(res)  # one namespace: no need to name it
    assert [ax.get_title() for ax in fig4.axes] == [f"MFO: {p.title}" for p in PANELS]
    assert [ax.get_title() for ax in plots.result_figure(res, "wrumi", "mfo").axes] == ["MFO: weighted ru-mi"]
    assert sorted(_by_gid(plots.result_figure(res, "coverage").axes[0], "curve:")) == ["BLAST", "naive"]
    optima = plots.result_figure(res, "optima", measures=("fmax", "aupr"))
    assert [ax.get_title() for ax in optima.axes] == ["MFO: Fmax (bootstrap CI)", "MFO: AUPR (bootstrap CI)"]
    assert sorted(_by_gid(optima.axes[1], "ci:")) == ["BLAST", "naive"]  # the areas have intervals too
    with pytest.raises(InvalidParameterError, match=r"'kind' parameter of plot must be one of \{'fig4', 'pr'"):
        plots.result_figure(res, "fig5")


def test_result_figure_needs_a_namespace_for_fig4_of_several(two_methods):
    res = two_methods[0]
    two = types.SimpleNamespace(curves=pd.concat([res.curves, res.curves.assign(namespace="BPO")]),
                                summary=pd.concat([res.summary, res.summary.assign(namespace="BPO")]), diagnostics={})
    with pytest.raises(InvalidParameterError, match=r"namespaces \['MFO', 'BPO'\] for kind='fig4'"):
        plots.result_figure(two)
    assert plots.result_figure(two, namespace="BPO").axes[0].get_title() == "BPO: precision-recall"
    assert len(plots.result_figure(two, "coverage").axes) == 2


def test_without_matplotlib_a_figure_is_a_clear_error(two_methods, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    from goeval.errors import GoevalError

    with pytest.raises(GoevalError, match=r"plots need matplotlib: install it with pip install 'goeval\[plot\]'"):
        two_methods[0].plot()
