"""``-q`` quiets messages and progress, never results: every command that prints results prints the same
stdout with and without it (``goeval evaluate ... -q --format tsv > out.tsv`` writes the table)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA

import goeval
from goeval.cli import main

EVAL = DATA / "evaluation"
B = DATA / "benchmarks"
PK = DATA / "cafa6" / "pk_tiny"
SHORT = DATA / "external" / "tapk_retlists" / "short.tsv"


def _evaluate(tmp: Path) -> list[str]:
    return ["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"), "--predictions",
            str(EVAL / "cafa_format.txt"), "--format", "tsv", "--out", str(tmp / "r")]


def _compare(tmp: Path) -> list[str]:
    (tmp / "b.tsv").write_text("P1\tGO:0000003\t0.4\nP2\tGO:0000004\t0.7\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(EVAL / "cafa_format.txt"), str(tmp / "b.tsv"), "--bootstrap", "20",
                 "--out", str(tmp / "two"), "-q"]) == 0
    return ["compare", str(tmp / "two"), "--bootstrap", "20", "--permutations", "20"]


def _biocreative(tmp: Path) -> list[str]:
    (tmp / "gold.tsv").write_text("A\tG1\nA\tG2\n")
    (tmp / "results.tsv").write_text("A\tG1\t1\t0.9\nA\tX\t2\t0.5\n")
    return ["biocreative", "--task", "INT", "--gold", str(tmp / "gold.tsv"), "--results", str(tmp / "results.tsv")]


def _ia(tmp: Path) -> list[str]:
    (tmp / "ann.tsv").write_text("P1\tGO:0000004\nP2\tGO:0000005\n")
    return ["ia", "--ontology", str(DATA / "core" / "tiny.obo"), "--annotations", str(tmp / "ann.tsv"), "--out",
            str(tmp / "ia.tsv")]


COMMANDS = {
    "demo": lambda tmp: ["demo", "--out", str(tmp / "d")],
    "evaluate": _evaluate,
    "cafa6": lambda tmp: ["cafa6", "--ontology", str(PK / "ont.obo"), "--ia", str(PK / "ia.tsv"), "--truth-nk",
                          str(PK / "gt.tsv"), "--predictions", str(PK / "pred"), "--thresholds", "arange:0.1",
                          "--out", str(tmp / "c6")],
    "validate": lambda tmp: ["validate", "--ontology", str(PK / "ont.obo"), str(PK / "pred" / "m.tsv")],
    "info": lambda tmp: ["info", str(DATA / "core" / "tiny.obo")],
    "ia": _ia,
    "retrieval": lambda tmp: ["retrieval", "--ontology", str(goeval.example_path("ontology")), "--truth",
                              str(goeval.example_path("truth")), "--predictions", str(goeval.example_path("predictions")),
                              "-k", "5", "--out", str(tmp / "ret")],
    "tapk": lambda tmp: ["tapk", str(SHORT), "-k", "5"],
    "biocreative": _biocreative,
    "compare": _compare,
    "benchmark cv": lambda tmp: ["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations",
                                 str(B / "annotations.tsv"), "--hits", str(B / "hits.tsv"), "--folds",
                                 str(B / "folds.tsv"), "--out", str(tmp / "cv")],
    "benchmark timesplit": lambda tmp: ["benchmark", "timesplit", "--ontology", str(B / "toy.obo"), "--t0",
                                        str(B / "t0.tsv"), "--t1", str(B / "t1.tsv"), "--methods", "naive",
                                        "--evaluate", "--out", str(tmp / "ts")],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_quiet_keeps_the_results_on_stdout(command, tmp_path, capsys):
    argv = COMMANDS[command](tmp_path)
    capsys.readouterr()
    code = main(argv)
    loud = capsys.readouterr()
    assert code in (0, 2) and loud.out.strip(), loud.err  # validate: 2 for an invalid submission, its report printed
    assert main([*argv, "-q"]) == code
    quiet = capsys.readouterr()
    assert quiet.out == loud.out
    assert all(line.startswith("goeval: warning:") for line in quiet.err.splitlines()), quiet.err


def test_evaluate_quiet_tsv_redirected_is_the_summary(tmp_path, capsys):
    argv = [*_evaluate(tmp_path), "-q"]
    assert main(argv) == 0
    assert capsys.readouterr().out == (tmp_path / "r" / "summary.tsv").read_text()
