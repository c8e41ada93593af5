"""The data behind the figures: curves, marked optima, labels with units, contours, bars."""

from __future__ import annotations

from report_fixtures import small_split, two_methods  # noqa: F401 - fixtures

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


# ------------------------------------------------------------ the figures papers print
def _summary(values, *, measure="fmax", ns="MFO", ci=True, group=None):
    """A summary of one measure: method -> value (the interval value -/+ 0.02, the coverage 0.5 + value / 10)."""
    rows = [{"method": m, "namespace": ns, "measure": measure, "value": v, "threshold": 0.5, "coverage": 0.5 + v / 10,
             **({"ci_low": v - 0.02, "ci_high": v + 0.02} if ci else {}), **({"group": group} if group else {})}
            for m, v in values.items()]
    return pd.DataFrame(rows)


TWELVE = {f"m{i:02d}": 0.30 + 0.01 * ((i * 7) % 12) for i in range(12)}  # twelve methods, values in a shuffled order
BASES = {"naive": 0.41, "BLAST": 0.45, "mine": 0.60}


def _ticks(ax):
    return [t.get_text() for t in ax.get_xticklabels()]


def test_top_methods_are_the_n_best_then_the_baselines():
    s = _summary({**TWELVE, "undefined": float("nan"), **BASES})
    ranked, base, total = plots.top_methods(s, "MFO", "fmax", 10, baselines=["mine"])
    assert ranked == sorted(TWELVE, key=TWELVE.get, reverse=True)[:10] and total == 12  # nan: not ranked
    assert base == ["naive", "BLAST", "mine"]  # any case; 'mine' named; in the summary's order, never counted
    smin = _summary({**TWELVE, **BASES}, measure="smin")
    assert plots.top_methods(smin, "MFO", "smin", 3)[0] == sorted(TWELVE, key=TWELVE.get)[:3]  # lower is better
    tied = _summary({"b": 0.5, "a": 0.5, "c": 0.6})
    assert plots.top_methods(tied, "MFO", "fmax", 3)[0] == ["c", "b", "a"]  # ties in the summary's order
    with pytest.raises(InvalidParameterError, match="'n' parameter of top_methods"):
        plots.top_methods(s, "MFO", "fmax", 0)


def test_top_bars_sorted_with_intervals_and_the_baselines_after_the_gap():
    s = pd.concat([_summary({**TWELVE, **BASES}), _summary({**TWELVE, **BASES}, measure="smin")])
    fig = plots.top_methods_figure(s, "MFO", n=10, baselines=["mine"])
    assert len(fig.axes) == 2  # no weighted Fmax in this summary: Fmax and Smin
    colors = result_colors(s)
    for ax, measure in zip(fig.axes, ("fmax", "smin")):
        bars, base = _by_gid(ax, "bar:"), _by_gid(ax, "baseline:")
        order = sorted(bars, key=lambda m: bars[m].get_x())
        assert len(bars) == 10 and order == plots.top_methods(s, "MFO", measure, 10, ["mine"])[0] == _ticks(ax)[:10]
        heights = [bars[m].get_height() for m in order]
        assert heights == sorted(heights, reverse=measure == "fmax")  # best first: highest Fmax, lowest Smin
        (gap,) = [ln for ln in ax.get_lines() if ln.get_gid() == "gap"]
        assert max(b.get_x() + b.get_width() for b in bars.values()) < gap.get_xdata()[0]
        assert gap.get_xdata()[0] < min(b.get_x() for b in base.values())  # the baselines after the gap
        assert sorted(base, key=lambda m: base[m].get_x()) == ["naive", "BLAST", "mine"] == _ticks(ax)[10:]
        for m, b in base.items():
            assert b.get_hatch() == "///" and mcolors.to_hex(b.get_edgecolor()).upper() == colors[m].upper()
        assert all(mcolors.to_hex(bars[m].get_facecolor()).upper() == colors[m].upper() for m in bars)
        cis = _by_gid(ax, "ci:")
        assert sorted(cis) == sorted([*bars, *base])  # an interval on every bar
        for m, coll in cis.items():
            row = s[(s.method == m) & (s.measure == measure)].iloc[0]
            assert sorted(coll.get_segments()[0][:, 1]) == pytest.approx([row.ci_low, row.ci_high])
        cov = {t.get_gid().split(":", 1)[1]: t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("cov")}
        assert sorted(cov) == sorted([*bars, *base]) and cov[order[0]] == f" C={0.5 + TWELVE[order[0]] / 10:.2f}"
        assert "the 10 best of 12 methods (bootstrap CI)" in ax.get_title()
    assert fig.axes[0].get_ylabel() == "Fmax" and fig.axes[1].get_ylabel() == "Smin (bits), lower is better"
    assert fig.axes[0].get_ylim() == (0, 1)


def test_top_bars_without_intervals_or_baselines_and_of_the_whole_benchmark_only():
    s = _summary({"a": 0.3, "b": 0.5}, ci=False)
    ax = plots.top_methods_figure(s, "mfo").axes[0]  # any case
    assert _ticks(ax) == ["b", "a"] and not _by_gid(ax, "ci:") and not _by_gid(ax, "baseline:")
    assert not [ln for ln in ax.get_lines() if ln.get_gid() == "gap"] and ax.get_title() == "MFO: Fmax, 2 methods"
    grouped = pd.concat([_summary({"a": 0.3, "b": 0.5}, group="all"), _summary({"a": 0.9, "b": 0.1}, group="g1")])
    bars = _by_gid(plots.top_methods_figure(grouped, "MFO").axes[0], "bar:")
    assert {m: b.get_height() for m, b in bars.items()} == {"a": 0.3, "b": 0.5}  # the group 'all'
    with pytest.raises(InvalidParameterError, match="'measures' parameter of top_methods_figure"):
        plots.top_methods_figure(s, "MFO", measures=("wfmax",))
    with pytest.raises(InvalidParameterError, match=r"namespaces \['MFO'\]; got 'BPO'"):
        plots.top_methods_figure(s, "BPO")


def _grouped(measure="fmax"):
    """Two namespaces x groups all, g1, 'x$\\foo{$' (a hostile name) of A, B and naive; B undefined in BPO's g1."""
    values = {"MFO": {"all": {"A": 0.4, "B": 0.5, "naive": 0.3}, "g1": {"A": 0.6, "B": 0.2, "naive": 0.35},
                      "x$\\foo{$": {"A": 0.1, "B": 0.7, "naive": 0.25}},
              "BPO": {"all": {"A": 0.45, "B": 0.35, "naive": 0.2}, "g1": {"A": 0.3, "B": float("nan"), "naive": 0.1},
                      "x$\\foo{$": {"A": 0.5, "B": 0.4, "naive": 0.3}}}
    summary = pd.concat([_summary(v, measure=measure, ns=ns, group=g) for ns, by in values.items() for g, v in by.items()])
    sizes = {("MFO", "all"): 30, ("MFO", "g1"): 20, ("MFO", "x$\\foo{$"): 10, ("BPO", "all"): 25, ("BPO", "g1"): 5,
             ("BPO", "x$\\foo{$"): 20}
    curves = pd.DataFrame([{"method": m, "namespace": ns, "group": g, "threshold": t, "n_proteins": n,
                            "coverage": 1.0, "precision": 0.5, "recall": 0.5}
                           for (ns, g), n in sizes.items() for m in ("A", "B", "naive") for t in (0.1, 0.5)])
    return summary, curves, sizes, values


def test_group_sizes_are_the_benchmark_proteins_of_each_group_and_namespace():
    summary, curves, sizes, _ = _grouped()
    assert plots.group_sizes(curves) == sizes
    assert plots.group_sizes(curves.drop(columns="group")) == {} and plots.group_sizes(None) == {}
    assert plots.result_groups(summary) == ["all", "g1", "x$\\foo{$"]
    assert plots.result_groups(summary[summary.group == "all"]) == [] == plots.result_groups(summary.drop(columns="group"))


def test_groups_heatmap_cells_rows_and_group_sizes():
    summary, curves, sizes, values = _grouped()
    fig = plots.groups_figure(summary, "fmax", sizes=plots.group_sizes(curves))
    panels = [ax for ax in fig.axes if ax.get_images()]
    assert [ax.get_title() for ax in panels] == ["MFO: Fmax per group", "BPO: Fmax per group"]
    groups = ["all", "g1", "x$\\foo{$"]
    for ax, ns, rows in zip(panels, ("MFO", "BPO"), (["B", "A", "naive"], ["A", "B", "naive"])):
        (image,) = ax.get_images()
        assert image.get_gid() == f"heatmap:{ns}"
        assert [t.get_text() for t in ax.get_yticklabels()] == rows  # best first on 'all', the baseline last
        expect = np.array([[values[ns][g][m] for g in groups] for m in rows])
        np.testing.assert_array_equal(image.get_array().filled(np.nan), expect)
        assert image.get_array().mask.sum() == np.isnan(expect).sum()
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == [f"{g.replace('$', chr(92) + '$')}\nn = {sizes[(ns, g)]}" for g in groups]
        cells = [t.get_text() for t in ax.texts if t.get_gid() == "cell"]
        assert cells == ["nan" if v != v else f"{v:.3f}" for v in expect.ravel()]
        assert [ln.get_ydata()[0] for ln in ax.get_lines() if ln.get_gid() == "baseline-line"] == [1.5]
    assert figure_bytes_ok(fig)
    smin = plots.groups_figure(_grouped("smin")[0], "smin")
    ax = [a for a in smin.axes if a.get_images()][0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "naive"]  # lower is better
    assert [t.get_text() for t in ax.get_xticklabels()] == ["all", "g1", "x\\$\\foo{\\$"]  # no sizes: names alone
    assert ax.get_images()[0].get_cmap().name == "viridis_r"
    assert "lower is better" in smin.axes[-1].get_ylabel()  # the colour bar


def figure_bytes_ok(fig):
    return plots.figure_bytes(fig).startswith(b"\x89PNG")


def test_groups_heatmap_needs_groups_and_a_measure_of_the_summary():
    summary = _grouped()[0]
    with pytest.raises(InvalidParameterError, match="evaluated per group .*no group column"):
        plots.groups_figure(summary.drop(columns="group"))
    with pytest.raises(InvalidParameterError, match="the group 'all' alone"):
        plots.groups_figure(summary[summary.group == "all"])
    with pytest.raises(InvalidParameterError, match="'measure' parameter of groups_figure .*'smin'"):
        plots.groups_figure(summary, "smin")


def _rank_frames():
    ks = [1.0, 3.0, 5.0, 10.0, float("inf")]
    f = {"A": [0.2, 0.4, 0.5, 0.45, 0.3], "naive": [0.1, 0.2, 0.25, 0.3, 0.28]}
    curves = pd.DataFrame([{"method": m, "namespace": "MFO", "threshold": k, "coverage": 1.0, "precision": 0.5,
                            "recall": 0.5, "f": v, "s": 10 - 5 * v} for m, vs in f.items() for k, v in zip(ks, vs)])
    curves = curves.iloc[::-1]  # as written: all first
    best = {"A": 5.0, "naive": 10.0}
    summary = pd.DataFrame([{"method": m, "namespace": "MFO", "measure": "fmax", "value": max(f[m]),
                             "threshold": best[m], "coverage": 1.0, "precision": 0.5, "recall": 0.5} for m in f])
    return curves, summary, f


def test_f_against_k_one_line_per_method_on_a_k_axis_ending_with_all():
    curves, summary, f = _rank_frames()
    fig = plots.rank_figure(curves, summary, "MFO")
    assert len(fig.axes) == 2  # F and S: no weighted F in these curves
    ax = fig.axes[0]
    assert _ticks(ax) == ["1", "3", "5", "10", "all"]
    assert ax.get_xlabel().startswith("k (") and ax.get_ylabel() == "F" and ax.get_title() == "MFO: F against k"
    lines = _by_gid(ax, "curve:")
    assert sorted(lines) == ["A", "naive"]
    for m, line in lines.items():
        assert list(line.get_xdata()) == [0, 1, 2, 3, 4] and list(line.get_ydata()) == f[m]
    marks = _by_gid(ax, "optimum:")
    assert (marks["A"].get_xdata()[0], marks["A"].get_ydata()[0]) == (2, 0.5)  # Fmax at k = 5
    assert (marks["naive"].get_xdata()[0], marks["naive"].get_ydata()[0]) == (3, 0.3)  # at k = 10
    assert lines["A"].get_label() == "A: Fmax 0.500 at k = 5"
    assert fig.axes[1].get_ylabel() == "S (bits)" and not _by_gid(fig.axes[1], "optimum:")  # no Smin in the summary
    assert figure_bytes_ok(fig)
    with pytest.raises(InvalidParameterError, match="'measures' parameter of rank_figure"):
        plots.rank_figure(curves, summary, "MFO", measures=("wfmax",))


def test_results_figures_draw_the_paper_figures_only_where_they_apply(results):
    """Top-N bars when a method is not a baseline; heat maps for groups; F against k (and no coverage against the
    score) for rank thresholds; the other figures of a result evaluated per group are those of its group 'all'."""
    assert "top_MFO" not in plots.results_figures(results)  # BLAST and naive: baselines only
    c, s = results.curves, results.summary
    mine = types.SimpleNamespace(curves=c.assign(method=c.method.replace({"BLAST": "mine"})),
                                 summary=s.assign(method=s.method.replace({"BLAST": "mine"})), diagnostics={})
    assert list(plots.results_figures(mine)) == ["fig4_MFO", "coverage", "optima", "top_MFO"]
    assert list(plots.results_figures(mine, baselines=["mine"])) == ["fig4_MFO", "coverage", "optima"]
    bars = _by_gid(plots.results_figures(mine, top=1)["top_MFO"].axes[0], "bar:")
    assert list(bars) == ["mine"] and _by_gid(plots.results_figures(mine)["top_MFO"].axes[0], "baseline:").keys() == {"naive"}
    other = mine.curves.assign(recall=0.0, precision=0.0)  # a group's curves: not drawn in Fig. 4
    grouped = types.SimpleNamespace(
        curves=pd.concat([mine.curves.assign(group="all"), other.assign(group="g1", n_proteins=7)]),
        summary=pd.concat([mine.summary.assign(group="all"), mine.summary.assign(group="g1", value=0.1)]),
        diagnostics={})
    figs = plots.results_figures(grouped)
    assert list(figs) == ["fig4_MFO", "coverage", "optima", "top_MFO", "groups_fmax", "groups_wfmax", "groups_smin"]
    lines = _by_gid(figs["fig4_MFO"].axes[0], "curve:")
    whole = _by_gid(plots.results_figures(mine)["fig4_MFO"].axes[0], "curve:")
    for m in lines:
        np.testing.assert_array_equal(lines[m].get_xydata(), whole[m].get_xydata())
    heat = [ax for ax in figs["groups_fmax"].axes if ax.get_images()][0]
    assert [t.get_text() for t in heat.get_xticklabels()] == ["all\nn = 421", "g1\nn = 7"]
    curves, summary, _ = _rank_frames()
    ranks = types.SimpleNamespace(curves=curves, summary=summary,
                                  diagnostics={"options": {"thresholds": "the top 1, 3, 5, 10, all terms (5 rank thresholds)"}})
    assert list(plots.results_figures(ranks)) == ["fig4_MFO", "rank_MFO", "optima", "top_MFO"]
    assert plots.rank_thresholds_run(types.SimpleNamespace(diagnostics={"options": {"thresholds": "top:1,3"}}))
    assert not plots.rank_thresholds_run(types.SimpleNamespace(diagnostics={"options": {"thresholds": "exact"}}))


def test_a_time_split_draws_each_kind_of_the_paper_figures(small_split):
    res = read_results_dir(small_split)
    for part in res.parts.values():
        part.summary = part.summary.assign(method=part.summary.method.replace({"BLAST": "mine"}))
    figs = plots.results_figures(res)
    assert [n for n in figs if "top_" in n] == ["nk_top_MFO", "lk_top_MFO", "pk_top_MFO"]
    assert figs["lk_top_MFO"].get_suptitle() == "LK targets"
