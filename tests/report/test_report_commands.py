"""goeval plot and goeval report, run in-process."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

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
    assert out.read_text().count("<h2>") >= 4 and (tmp_path / "r" / "page.md").read_text().startswith("# demo")


def test_bad_results_dir_is_an_error(tmp_path):
    from goeval.errors import GoevalError

    with pytest.raises(GoevalError, match="no goeval results"):
        _run(report, [str(tmp_path)])
