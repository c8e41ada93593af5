"""The command-line side of CAFA-evaluator compatibility: preset, layout, printed formats, messages."""

from __future__ import annotations

import json

import pandas as pd

from goeval.cli import main


def test_preset_cafa5_writes_and_prints_the_score(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["demo", "--preset", "cafa5", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    row = summary[summary.measure == "cafa5_score"].iloc[0]
    wf = summary[(summary.measure == "wfmax") & (summary.namespace == "MFO")]["value"].iloc[0]
    assert row["namespace"] == "all" and row["value"] == wf  # one namespace: the score is its weighted Fmax
    assert "CAFA 5 score of BB4S_mfo_NK" in captured.err and "cafa5_score" in captured.out
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["options"]["thresholds"] == "grid step 0.001 (1000 thresholds)"
    assert diag["options"]["propagation"] == "fill" and diag["options"]["max_terms"] == 500


def test_explicit_options_override_the_preset(tmp_path):
    out = tmp_path / "o"
    assert main(["demo", "--preset", "cafa5", "--thresholds", "0.01", "--max-terms", "100", "--out", str(out),
                 "-q"]) == 0
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["options"]["thresholds"] == "grid step 0.01 (100 thresholds)" and diag["options"]["max_terms"] == 100


def test_layout_cafaeval_writes_its_files_beside_goevals(tmp_path):
    out = tmp_path / "o"
    assert main(["demo", "--layout", "cafaeval", "--out", str(out), "-q"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "evaluation_all.tsv" in names and "evaluation_best_f.tsv" in names and "curves.tsv" in names
    df = pd.read_csv(out / "evaluation_all.tsv", sep="\t")
    assert list(df.columns[:13]) == ["filename", "ns", "tau", "n", "tp", "fp", "fn", "pr", "rc", "cov", "mi", "ru", "f"]
    best = pd.read_csv(out / "evaluation_best_f.tsv", sep="\t")
    summary = pd.read_csv(out / "summary.tsv", sep="\t").set_index("measure")
    assert abs(best["f"].iloc[0] - summary.loc["fmax", "value"]) < 1e-12


def test_printed_summary_formats_and_quiet(tmp_path, capsys):
    assert main(["demo", "--format", "json", "--out", str(tmp_path / "a")]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["measure"] for r in records} >= {"fmax", "wfmax", "smin"}
    assert main(["demo", "--format", "tsv", "--out", str(tmp_path / "b")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split("\t")[:4] == ["method", "namespace", "measure", "value"]
    assert text == (tmp_path / "b" / "summary.tsv").read_text()
    assert main(["demo", "-q", "--out", str(tmp_path / "c")]) == 0
    captured = capsys.readouterr()
    assert "fmax" in captured.out and captured.err == ""  # -q: the table, no messages
    assert main(["demo", "--log-level", "warning", "--out", str(tmp_path / "d")]) == 0
    assert capsys.readouterr().err == ""


def test_every_command_takes_the_message_options():
    for command in ("demo", "evaluate", "info", "ia", "propagate", "retrieval", "tapk", "biocreative", "baseline",
                    "align"):
        from goeval.cli import get_parser

        parser = get_parser(only=command)
        sub = next(a for a in parser._actions if a.dest == "command").choices[command]
        flags = {s for a in sub._actions for s in a.option_strings}
        assert {"-v", "--verbose", "-q", "--quiet", "--log-level"} <= flags, command


def test_bootstrap_columns_and_compare_from_the_results_directory(tmp_path, capsys):
    import gzip

    import goeval

    preds = tmp_path / "preds"
    preds.mkdir()
    rows = [ln.split() for ln in gzip.decompress(goeval.example_path("predictions").read_bytes()).decode().splitlines()]
    rows = [r for r in rows if len(r) == 3 and r[2].replace(".", "", 1).isdigit()]
    (preds / "a.tsv").write_text("".join(f"{p}\t{t}\t{s}\n" for p, t, s in rows))
    (preds / "b.tsv").write_text("".join(f"{p}\t{t}\t{max(0.01, round(float(s) * 0.9, 2))}\n" for p, t, s in rows))
    out = tmp_path / "o"
    args = ["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth", str(goeval.example_path("truth")),
            "--predictions", str(preds), "--ia", str(goeval.example_path("ia")), "--thresholds", "0.01",
            "--out", str(out), "-q"]
    assert main([*args, "--bootstrap", "200", "--seed", "3"]) == 0
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    fmax = summary[summary.measure == "fmax"]
    assert (fmax.ci_low <= fmax.value).all() and (fmax.value <= fmax.ci_high).all() and (fmax.se > 0).all()
    assert (out / "protein_stats.npz").exists()
    again = tmp_path / "again"
    assert main([*args[:-3], "--out", str(again), "-q", "--bootstrap", "200", "--seed", "3", "--threads", "1"]) == 0
    assert (again / "summary.tsv").read_text() == (out / "summary.tsv").read_text()  # seeded, any thread count
    capsys.readouterr()  # the two summaries (-q prints the results)
    assert main(["compare", str(out), "--methods", "a,b", "--bootstrap", "300", "--permutations", "99",
                 "--format", "tsv"]) == 0
    table = capsys.readouterr().out
    assert "difference" in table.splitlines()[0] and "\ta\tb\t" in table
    assert main([*args, "--bootstrap", "1"]) == 2
    assert "option --bootstrap must be an integer >= 2; got '1'" in capsys.readouterr().err
