"""``goeval metric-check`` on the bundled CAFA2 MFO slice, in-process."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import goeval
from goeval.cli import main


def args(out, *extra):
    return ["metric-check", "--ontology", str(goeval.example_path("ontology")),
            "--truth", str(goeval.example_path("truth")), "--ia", str(goeval.example_path("ia")),
            "--levels", "0,0.5,1", "--replicates", "2", "--similarity", "simgic", "--out", str(out), "-q", *extra]


def test_metric_check_writes_the_table_sorted_by_fps(tmp_path, capsys):
    out = tmp_path / "mc"
    assert main(args(out)) == 0
    table = pd.read_csv(out / "metric_check.tsv", sep="\t")
    values = pd.read_csv(out / "metric_check_values.tsv", sep="\t")
    assert {"fmax", "smin", "wfmax", "aupr", "simgic"} <= set(table["measure"])
    assert {"rc", "fps", "fps_naive", "fps_all_positive", "fps_random"} <= set(table.columns)
    fps = table["fps"].to_numpy()
    assert np.all(np.diff(fps[np.isfinite(fps)]) >= 0)
    assert set(values["set"]) == {"s0_r1", "s0.5_r1", "s1_r1", "s0_r2", "s0.5_r2", "s1_r2",
                                  "naive", "all_positive", "random"}
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["construction"]["MFO"]["leaf_pairs"] == 643 and diag["replicates"] == 2
    assert {"metric_check.tsv", "metric_check_values.tsv"} <= set(json.loads((out / "manifest.json").read_text())["files"])
    printed = capsys.readouterr().out
    assert "FPS naive" in printed and "Fmax" in printed
    # the same seed gives the same bytes
    again = tmp_path / "again"
    assert main(args(again)) == 0
    assert (again / "metric_check_values.tsv").read_bytes() == (out / "metric_check_values.tsv").read_bytes()


def test_bad_input_exits_2_without_output(tmp_path, capsys):
    out = tmp_path / "mc"
    bad = tmp_path / "truth.tsv"
    bad.write_text("P1\n")
    argv = args(out)
    argv[argv.index("--truth") + 1] = str(bad)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "truth.tsv" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())


def test_bad_levels_exit_2(tmp_path, capsys):
    argv = args(tmp_path / "mc")
    argv[argv.index("--levels") + 1] = "0,0.5,0.4"
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage error
        code = exc.code
    assert code == 2
    assert "increasing signal levels" in capsys.readouterr().err


def test_plot_draws_each_measure_against_the_signal(tmp_path):
    import pytest

    pytest.importorskip("matplotlib")
    out = tmp_path / "mc"
    assert main(args(out)) == 0
    assert main(["plot", str(out), "-q"]) == 0
    assert (out / "plots" / "metric_check_MFO.png").stat().st_size > 0
