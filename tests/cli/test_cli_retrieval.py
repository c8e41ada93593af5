"""goeval retrieval --bootstrap: intervals of the term-centric measures, on the console and in the files
(goeval compare reads them back: tests/cli/test_cli_compare.py)."""

from __future__ import annotations

import pandas as pd

from goeval.cli import main
from goeval.data import example_path

MEASURES = ("tap_5", "ipr_auc", "peak_tap", "macro_roc_auc", "macro_average_precision")


def _common() -> list[str]:
    return ["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth"))]


def test_bootstrap_intervals_in_the_summary_and_on_the_console(tmp_path, capsys):
    out = tmp_path / "ret"
    assert main([*_common(), "--predictions", str(example_path("predictions")), "-k", "5", "--bootstrap", "30",
                 "--seed", "4", "--confidence", "0.9", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    s = pd.read_csv(out / "retrieval_summary.tsv", sep="\t").iloc[0]
    for c in MEASURES:  # the precision-based ones are shifted up by resampling (docs/conventions.md): no point inside
        assert s[f"{c}_ci_low"] < s[f"{c}_ci_high"] and s[f"{c}_se"] > 0
    assert s["macro_roc_auc_ci_low"] < s["macro_roc_auc"] < s["macro_roc_auc_ci_high"]
    assert f"{s['macro_roc_auc']:.4f} [{s['macro_roc_auc_ci_low']:.4f}, {s['macro_roc_auc_ci_high']:.4f}]" in printed
    assert (out / "term_replicates.npz").is_file()
    assert "term_replicates.npz" in (out / "manifest.json").read_text()
    assert '"n_resamples": 30' in (out / "diagnostics.json").read_text()


def test_bad_bootstrap_is_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "ret"
    assert main([*_common(), "--predictions", str(example_path("predictions")), "--bootstrap", "0",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "retrieval: error: The option --bootstrap must be an integer >= 2; got '0'" in err and not out.exists()
    assert "of evaluate" not in err  # the flag the user typed, not a parameter of another command's function
