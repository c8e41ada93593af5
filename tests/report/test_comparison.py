"""goeval.report.comparison: the report's paired comparison, from the run's protein_stats.npz and its own settings."""

from __future__ import annotations

from report_fixtures import small_split, two_methods, with_stats  # noqa: F401 - fixtures

import csv
import re
import io
import shutil

import pytest

from goeval.cli import main
from goeval.errors import GoevalError, InputFormatError
from goeval.io.results_dir import read_results_dir
from goeval.report.comparison import paired_comparison
from goeval.report.html import report_html, report_markdown
from goeval.report.save import save_report
from goeval.stats.compare import PAIR_COLUMNS


def test_the_comparison_is_goeval_compare_with_the_runs_resamples_and_seed(with_stats, capsys):
    res = read_results_dir(with_stats)
    comparison = paired_comparison(res)
    (pair,) = comparison.pairs
    assert comparison.settings == {"": {"n_resamples": 40, "permutations": 40, "seed": 3, "confidence": 0.95}}
    capsys.readouterr()
    assert main(["compare", str(with_stats), "--bootstrap", "40", "--permutations", "40", "--seed", "3",
                 "--format", "tsv"]) == 0
    (printed,) = csv.DictReader(io.StringIO(capsys.readouterr().out), delimiter="\t")
    for column in PAIR_COLUMNS:  # the numbers the report's sentence promises
        assert str(pair[column]) == printed[column] or float(pair[column]) == pytest.approx(float(printed[column]),
                                                                                             rel=1e-12), column
    assert (pair["method_a"], pair["method_b"], pair["measure"]) == ("BLAST", "naive", "fmax")


def test_the_page_has_the_comparison_after_the_headline_when_protein_stats_is_there(with_stats, two_methods,
                                                                                      tmp_path):
    written = save_report(with_stats, tmp_path / "report.html")
    page = written["report.html"].read_text()
    heads = [h for h in re.findall(r'<h2 id="[^"]+">(.*?)</h2>', page)]
    assert heads[:2] == ["Headline: Fmax, weighted Fmax, Smin and coverage of every method",
                         "Paired comparison of the methods"]
    section = page[page.index('<h2 id="s2">'):page.index('<h2 id="s3"')]
    assert "<td>0.4856</td>" in section and "p (Holm)" in section and "40 bootstrap resamples (seed 3" in section
    assert "goeval compare on RESULTS_DIR with --bootstrap 40 --permutations 40 --seed 3 --confidence 0.95" in section
    assert "## Paired comparison of the methods" in written["report.md"].read_text()
    plain = report_html(read_results_dir(two_methods[1]), {})  # no protein_stats.npz: no comparison
    assert paired_comparison(read_results_dir(two_methods[1])) is None and "Paired comparison" not in plain


def test_a_time_split_is_compared_kind_by_kind(small_split):
    comparison = paired_comparison(read_results_dir(small_split), ("fmax", "smin"))
    assert [(p["targets"], p["measure"]) for p in comparison.pairs] == [
        (k, m) for k in ("NK", "LK", "PK") for m in ("fmax", "smin")]
    md = report_markdown(read_results_dir(small_split), comparison=comparison)
    assert "| PK | MFO | Smin (bits) | BLAST | naive |" in md


def test_a_kind_without_protein_stats_and_a_single_method_are_said(small_split, tmp_path):
    split = tmp_path / "ts"
    shutil.copytree(small_split, split)
    (split / "lk" / "protein_stats.npz").unlink()
    (split / "lk" / "manifest.json").unlink()  # a folder edited by hand: no manifest to list the file
    comparison = paired_comparison(read_results_dir(split))
    assert [p["targets"] for p in comparison.pairs] == ["NK", "PK"]
    assert any(n.startswith("LK targets: no protein_stats.npz") for n in comparison.notes)
    assert comparison.notes[-1] in comparison.sentences()


def test_a_linked_protein_stats_is_refused_naming_it(with_stats, tmp_path):
    folder = tmp_path / "r"
    shutil.copytree(with_stats, folder)
    elsewhere = tmp_path / "elsewhere.npz"
    (folder / "protein_stats.npz").rename(elsewhere)
    (folder / "protein_stats.npz").symlink_to(elsewhere)
    with pytest.raises(InputFormatError, match="protein_stats.npz"):
        save_report(folder, tmp_path / "out" / "report.html")
    assert not (tmp_path / "out").exists()


def test_protein_stats_of_another_run_is_refused_naming_it(with_stats, tmp_path):
    folder = tmp_path / "r"
    shutil.copytree(with_stats, folder)
    (folder / "manifest.json").unlink()
    summary = (folder / "summary.tsv").read_text().replace("naive\t", "other\t")
    (folder / "summary.tsv").write_text(summary)
    with pytest.raises(GoevalError, match=r"protein_stats.npz: holds naive \(MFO\), which summary.tsv"):
        paired_comparison(read_results_dir(folder))
