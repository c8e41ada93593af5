"""goeval plot and goeval report, run in-process."""

from __future__ import annotations

from report_fixtures import two_methods, with_stats  # noqa: F401 - fixtures

import argparse

import pytest

from goeval.cli import plot, report


def _run(mod, argv):
    p = argparse.ArgumentParser()
    mod.add_arguments(p)
    args = p.parse_args(argv)
    args.quiet = True
    return mod.run(args)


def test_plot_writes_every_figure(two_methods, tmp_path):
    pytest.importorskip("matplotlib")
    assert _run(plot, [str(two_methods[1]), "--out", str(tmp_path / "p")]) == 0
    names = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert names == ["coverage.png", "fig4_MFO.png", "fig4_MFO_pr.png", "fig4_MFO_rumi.png", "fig4_MFO_wpr.png",
                     "fig4_MFO_wrumi.png", "optima.png"]
    assert all((tmp_path / "p" / n).read_bytes().startswith(b"\x89PNG") for n in names)
    assert _run(plot, [str(two_methods[1]), "--out", str(tmp_path / "s"), "--format", "svg", "--no-panels"]) == 0
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["coverage.svg", "fig4_MFO.svg", "optima.svg"]


def test_report_writes_page_and_summary(two_methods, tmp_path):
    out = tmp_path / "r" / "page.html"
    assert _run(report, [str(two_methods[1]), "--out", str(out), "--title", "demo"]) == 0
    assert out.read_text().count("<h2 id=") >= 4 and (tmp_path / "r" / "page.md").read_text().startswith("# demo")


def test_bad_results_dir_is_an_error(tmp_path):
    from goeval.errors import GoevalError

    with pytest.raises(GoevalError, match="no goeval results"):
        _run(report, [str(tmp_path)])


def test_report_compares_the_measures_asked_and_checks_them_first(with_stats, tmp_path, capsys):
    from goeval.cli import main

    out = tmp_path / "r.html"
    assert main(["report", str(with_stats), "--out", str(out), "--compare", "fmax", "--compare", "Smin,wfmax",
                 "-q"]) == 0
    page = out.read_text()
    start = page.index(">Paired comparison of the methods</h2>")
    section = page[start:page.index("<h2 ", start)]
    assert all(f'<td class="t">{m}</td>' in section for m in ("Fmax", "Smin (bits)", "weighted Fmax"))
    assert main(["report", str(with_stats), "--out", str(tmp_path / "n.html"), "--no-compare", "-q"]) == 0
    assert "Paired comparison" not in (tmp_path / "n.html").read_text()
    capsys.readouterr()
    assert main(["report", str(tmp_path / "absent"), "--compare", "aupr"]) == 2  # the option, before the folder
    err = capsys.readouterr().err
    assert "aupr" in err and "absent" not in err and "Traceback" not in err


# ------------------------------------------------------------ the figures papers print, from real runs
@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    """``goeval evaluate`` on the bundled example, BB4S beside the naive baseline: ``--bootstrap 50``, and
    ``--thresholds top:1,3,5,10``."""
    import goeval
    from goeval.baselines import naive
    from goeval.cli import main

    d = tmp_path_factory.mktemp("real")
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    naive(onto, truth, truth.proteins).to_frame().to_csv(d / "naive.tsv", sep="\t", header=False, index=False)
    common = ["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth", str(goeval.example_path("truth")),
              "--predictions", str(goeval.example_path("predictions")), str(d / "naive.tsv"),
              "--ia", str(goeval.example_path("ia")), "-q"]
    assert main([*common, "--out", str(d / "boot"), "--bootstrap", "50"]) == 0
    assert main([*common, "--out", str(d / "rank"), "--thresholds", "top:1,3,5,10"]) == 0
    return d


def _section(page, title):
    start = page.index(f">{title}</h2>")
    end = page.find("<h2 ", start)
    return page[start:end if end > 0 else None]


def test_plot_and_report_of_a_bootstrap_run_draw_the_top_methods_beside_the_baseline(real_runs, tmp_path):
    pytest.importorskip("matplotlib")
    from goeval.cli import main
    from goeval.io.results_dir import read_results_dir
    from goeval.report.outline import HEADLINE_TITLE
    from goeval.report.plots import results_figures

    assert main(["plot", str(real_runs / "boot"), "--out", str(tmp_path / "p"), "--no-panels", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["calibration_MFO.png", "coverage.png",
                                                                  "fig4_MFO.png", "optima.png", "top_MFO.png"]
    res = read_results_dir(real_runs / "boot")
    fig = results_figures(res)["top_MFO"]
    assert [ax.get_ylabel() for ax in fig.axes] == ["Fmax", "weighted Fmax", "Smin (bits), lower is better"]
    for ax, measure in zip(fig.axes, ("fmax", "wfmax", "smin")):
        kinds = {a.get_gid() for a in ax.get_children() if a.get_gid()}
        assert {"bar:BB4S_mfo_NK", "baseline:naive", "gap", "ci:BB4S_mfo_NK", "ci:naive"} <= kinds
        assert [t.get_text() for t in ax.get_xticklabels()] == ["BB4S_mfo_NK", "naive"]
        s = res.summary[(res.summary.measure == measure) & (res.summary.method == "BB4S_mfo_NK")].iloc[0]
        (ci,) = [c for c in ax.collections if c.get_gid() == "ci:BB4S_mfo_NK"]
        assert sorted(ci.get_segments()[0][:, 1]) == pytest.approx([s.ci_low, s.ci_high])
        assert ax.get_title().endswith(", 1 method (bootstrap CI)")
    out = tmp_path / "r.html"
    assert main(["report", str(real_runs / "boot"), "--out", str(out), "--no-compare", "-q"]) == 0
    page = out.read_text()
    assert 'id="fig-top_MFO"' in _section(page, HEADLINE_TITLE.replace("'", "&#x27;"))
    assert main(["report", str(real_runs / "boot"), "--out", str(tmp_path / "b.html"), "--baselines", "BB4S_mfo_NK",
                 "--no-compare", "-q"]) == 0  # every method a baseline: nothing to rank, no top-N bars
    assert "fig-top_MFO" not in (tmp_path / "b.html").read_text()


def test_plot_and_report_of_a_rank_threshold_run_draw_f_against_k(real_runs, tmp_path):
    pytest.importorskip("matplotlib")
    from goeval.cli import main
    from goeval.io.results_dir import read_results_dir
    from goeval.report.plots import results_figures

    assert main(["plot", str(real_runs / "rank"), "--out", str(tmp_path / "p"), "--no-panels", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["fig4_MFO.png", "optima.png", "rank_MFO.png",
                                                                  "top_MFO.png"]  # no coverage against a score
    res = read_results_dir(real_runs / "rank")
    ax = results_figures(res)["rank_MFO"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "3", "5", "10"] and ax.get_ylabel() == "F"
    c = res.curves[res.curves.method == "BB4S_mfo_NK"].sort_values("threshold")
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "curve:BB4S_mfo_NK"]
    assert list(line.get_ydata()) == c.f.tolist()
    best = res.summary[(res.summary.method == "BB4S_mfo_NK") & (res.summary.measure == "fmax")].iloc[0]
    (mark,) = [ln for ln in ax.get_lines() if ln.get_gid() == "optimum:BB4S_mfo_NK"]
    assert mark.get_ydata()[0] == best.value == c.f.max() and mark.get_xdata()[0] == [1, 3, 5, 10].index(best.threshold)
    out = tmp_path / "r.html"
    assert main(["report", str(real_runs / "rank"), "--out", str(out), "--no-compare", "-q"]) == 0
    ranked = _section(out.read_text(), "MFO: methods ranked")
    assert 'id="fig-rank_MFO"' in ranked
    assert f"<td>{best.threshold:g}</td>" in ranked and f"<td>{best.threshold:.3f}</td>" not in ranked  # 5, not 5.000


def test_f_against_k_of_an_evaluation_with_every_term_ends_with_all():
    """``top:...,all``: the threshold ``inf`` of the result drawn as 'all' (the evaluation, in memory)."""
    pytest.importorskip("matplotlib")
    import warnings

    import goeval
    from goeval.report.plots import results_figures

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 1 / the smallest float: the evaluation's own
        res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                              [goeval.example_path("predictions")], ia=goeval.example_path("ia"),
                              thresholds="top:1,3,5,10,all")
    figs = results_figures(res)
    assert "coverage" not in figs
    ax = figs["rank_MFO"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "3", "5", "10", "all"]
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "curve:BB4S_mfo_NK"]
    assert list(line.get_xdata()) == [0, 1, 2, 3, 4]
    assert line.get_ydata()[-1] == res.curves.loc[res.curves.threshold == float("inf"), "f"].iloc[0]


def test_plot_and_report_of_an_evaluate_run_with_groups_draw_the_heat_maps(tmp_path):
    """goeval evaluate --groups writes groups.tsv; plot and report read it: heat maps with the groups' sizes
    (from diagnostics.json) and a groups section in the report."""
    pytest.importorskip("matplotlib")
    import goeval
    from goeval.cli import main
    from goeval.io.results_dir import read_results_dir
    from goeval.io.truth import read_truth
    from goeval.report.plots import diagnostic_group_sizes

    d = goeval.example_path
    proteins = read_truth(d("truth")).proteins.tolist()
    groups = tmp_path / "g.tsv"
    groups.write_text("".join(f"{p}\t{'a' if k < 200 else 'b'}\n" for k, p in enumerate(proteins)))
    out = tmp_path / "r"
    assert main(["evaluate", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
                 str(d("predictions")), "--ia", str(d("ia")), "--groups", str(groups), "--out", str(out), "-q"]) == 0
    res = read_results_dir(out)
    assert list(dict.fromkeys(res.group_summary["group"])) == ["all", "a", "b"]
    assert diagnostic_group_sizes(res) == {("MFO", "all"): 421, ("MFO", "a"): 200, ("MFO", "b"): 221}
    assert main(["plot", str(out), "-q"]) == 0
    assert (out / "plots" / "groups_wfmax.png").is_file()
    assert main(["report", str(out), "-q"]) == 0
    assert "per group" in (out / "report.html").read_text()
