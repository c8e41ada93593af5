"""``goeval evaluate --known``, ``--similarity`` and ``--ic-annotations`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from goeval.cli import main

EVAL = Path(__file__).resolve().parent.parent / "data" / "evaluation"


def _run(tmp_path: Path, *extra: str) -> int:
    return main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(EVAL / "bp_only.tsv"), "--ia", str(EVAL / "ia.tsv"), "-q", *extra])


def test_known_terms_leave_truth_and_predictions(tmp_path, capsys):
    assert _run(tmp_path, "--out", str(tmp_path / "all")) == 0
    known = tmp_path / "known.tsv"
    known.write_text("P1\tGO:0000003\n")  # P1's truth GO:0000003 (and its ancestors) become known
    assert _run(tmp_path, "--known", str(known), "--out", str(tmp_path / "pk")) == 0
    before = json.loads((tmp_path / "all" / "diagnostics.json").read_text())
    after = json.loads((tmp_path / "pk" / "diagnostics.json").read_text())
    assert after["known"]["rows_read"] == 1
    assert after["namespaces"]["BPO"]["truth_entries"] < before["namespaces"]["BPO"]["truth_entries"]
    s0 = pd.read_csv(tmp_path / "all" / "summary.tsv", sep="\t").set_index(["namespace", "measure"])
    s1 = pd.read_csv(tmp_path / "pk" / "summary.tsv", sep="\t").set_index(["namespace", "measure"])
    assert s0.loc[("BPO", "fmax"), "value"] != s1.loc[("BPO", "fmax"), "value"]
    everything = tmp_path / "everything.tsv"
    everything.write_text((EVAL / "truth.tsv").read_text())
    assert _run(tmp_path, "--known", str(everything), "--out", str(tmp_path / "none")) == 2
    assert "nothing was evaluated" in capsys.readouterr().err


def test_similarity_columns_and_ic_source(tmp_path, capsys):
    assert _run(tmp_path, "--similarity", "lin,jaccard", "--pairings", "all,bma", "--out", str(tmp_path / "s")) == 0
    assert "test annotations inform the measures" in capsys.readouterr().err
    curves = pd.read_csv(tmp_path / "s" / "curves.tsv", sep="\t")
    assert {"lin_all", "lin_bma", "jaccard"} <= set(curves.columns)
    summary = pd.read_csv(tmp_path / "s" / "summary.tsv", sep="\t")
    assert {"lin_all", "lin_bma", "jaccard"} <= set(summary.measure)
    assert _run(tmp_path, "--similarity", "lin", "--ic-annotations", str(EVAL / "truth.tsv"),
                "--out", str(tmp_path / "t")) == 0
    assert "inform the measures" not in capsys.readouterr().err
    assert _run(tmp_path, "--similarity", "lin,wu", "--out", str(tmp_path / "u")) == 2
    assert "similarity" in capsys.readouterr().err
