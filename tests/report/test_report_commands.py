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
