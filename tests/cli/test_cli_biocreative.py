"""Tests of ``goeval biocreative`` (run in-process through goeval.cli.main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goeval.cli import main

CASES = Path(__file__).resolve().parents[1] / "data" / "cases" / "iprauc"
GOLD_LINE = {"INT": "d1\tP11111\n", "IPT": "d1\tA\tB\n", "ACT": "d1\t1\n"}


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def int_files(tmp_path: Path) -> tuple[str, str]:
    # the page's §4.5 example as document "A" (system A's ranking) plus the
    # macro example's doc1 and a gold document without results
    gold = "A\tG1\nA\tG2\nA\tG3\nA\tG4\ndoc1\tP1\ndoc1\tP2\ndoc1\tP3\ndoc3\tZ\n"
    hits = ["G1"] + [f"X{i}" for i in range(8)] + ["G2"]
    lines = [f"A\t{h}\t{r}\t{1 - r / 20:.2f}" for r, h in enumerate(hits, start=1)]
    lines += ["doc1\tP1\t1\t0.9", "doc1\tP9\t2\t0.8", "doc1\tP2\t3\t0.7", "doc4\tX\t1\t0.5"]
    return _write(tmp_path, "gold.tsv", gold), _write(tmp_path, "results.tsv", "\n".join(lines) + "\n")


def test_int_text(capsys, int_files):
    gold, results = int_files
    assert main(["biocreative", "--task", "INT", "--gold", gold, "--results", results]) == 0
    out = capsys.readouterr().out
    assert "3 gold documents, 1 without results, 1 result documents not in the gold standard" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:-1]}
    assert rows == {"A": ["4", "10", "0.300000"], "doc1": ["3", "3", "0.555556"], "doc3": ["1", "0", "0.000000"]}
    mean = (0.3 + 5 / 9 + 0) / 3
    assert f"mean AUC iP/R = {mean:.6f} over gold documents" in out


def test_int_json_and_tsv(capsys, int_files):
    gold, results = int_files
    assert main(["biocreative", "--task", "INT", "--gold", gold, "--results", results, "--format", "json",
                 "--skip-empty"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mean_auc_ipr"] == pytest.approx((0.3 + 5 / 9) / 2)
    assert [d["document"] for d in doc["documents"]] == ["A", "doc1", "doc3"]
    assert doc["ignored_documents"] == ["doc4"]
    assert main(["biocreative", "--task", "INT", "--gold", gold, "--results", results, "--format", "tsv"]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["document", "n_gold", "n_hits", "auc_ipr"]
    assert float(rows[1][3]) == pytest.approx(0.3) and rows[-1][0] == "*mean*"


def test_ipt_pairs_are_undirected(capsys, tmp_path):
    gold = _write(tmp_path, "gold.tsv", "doc2\tB\tA\n")
    results = _write(tmp_path, "res.tsv", "doc2\tA\tB\t1\t0.9\ndoc2\tC\tD\t2\t0.8\n")
    assert main(["biocreative", "--task", "IPT", "--gold", gold, "--results", results, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["mean_auc_ipr"] == 1.0


def test_act(capsys, tmp_path):
    gold = _write(tmp_path, "gold.tsv", "p1\t1\np2\t1\nn1\t0\nn2\t0\n")
    results = _write(tmp_path, "res.tsv", "n1\t1\t1\t0.9\np1\t1\t2\t0.8\nn2\t0\t1\t0.9\np2\t0\t2\t0.6\n")
    assert main(["biocreative", "--task", "ACT", "--gold", gold, "--results", results, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # ranking n1, p1, p2, n2: precisions 1/2 and 2/3 -> (2/3 + 2/3) / 2
    assert doc["auc_ipr"] == pytest.approx(2 / 3)
    assert main(["biocreative", "--task", "ACT", "--gold", gold, "--results", results]) == 0
    assert "ACT: AUC iP/R = 0.666667 over 4 ranked documents (2 gold positives)" in capsys.readouterr().out


@pytest.mark.parametrize("case", json.loads((CASES / "result_file_validation_cases.json").read_text())["cases"],
                         ids=lambda c: c["name"])
def test_invalid_results_list_every_error(capsys, tmp_path, case):
    gold = _write(tmp_path, "gold.tsv", GOLD_LINE[case["task"]])
    results = _write(tmp_path, "res.tsv", case["text"])
    status = main(["biocreative", "--task", case["task"], "--gold", gold, "--results", results])
    captured = capsys.readouterr()
    if not case["expected_errors"]:
        assert status == 0
        return
    assert status == 2
    for (line, code), message in zip(case["expected_errors"], case["expected_messages"]):
        assert f"line {line}: {code}: {message}" in captured.err
    assert f"{len(case['expected_errors'])} problem" in captured.err


def test_rank_check_set(capsys, tmp_path):
    gold = _write(tmp_path, "gold.tsv", "d1\tP1\n")
    results = _write(tmp_path, "res.tsv", "d1\tP2\t2\t0.5\nd1\tP1\t1\t0.9\n")
    assert main(["biocreative", "--task", "INT", "--gold", gold, "--results", results]) == 2
    assert "RANK_SEQUENCE" in capsys.readouterr().err
    assert main(["biocreative", "--task", "INT", "--gold", gold, "--results", results, "--rank-check", "set"]) == 0
    assert "mean AUC iP/R = 1.000000" in capsys.readouterr().out


def test_missing_file_exits_2(capsys, tmp_path):
    gold = _write(tmp_path, "gold.tsv", "d1\tP1\n")
    assert main(["biocreative", "--task", "INT", "--gold", gold, "--results", str(tmp_path / "none.tsv")]) == 2
    assert "none.tsv" in capsys.readouterr().err
