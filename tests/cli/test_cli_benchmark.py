"""``goeval benchmark cv`` and ``goeval benchmark timesplit`` run in-process."""

from __future__ import annotations

import argparse
import json

import pytest

from goeval.cli import benchmark
from goeval.errors import GoevalError, InputFormatError
from conftest import DATA

D = DATA / "benchmarks"
COLS = "qseqid,sseqid,pident,length,evalue,bitscore"


def run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="goeval benchmark")
    benchmark.add_arguments(p)
    return benchmark.run(p.parse_args(argv))


def cv_args(out, *extra):
    return ["cv", "--ontology", str(D / "toy.obo"), "--annotations", str(D / "annotations.tsv"),
            "--hits", str(D / "hits.tsv"), "--hit-columns", COLS, "--out", str(out), "-q", *extra]


def test_cv_writes_every_output(tmp_path):
    out = tmp_path / "cv"
    assert run(cv_args(out, "--folds", str(D / "folds.tsv"), "--thresholds", "0.01")) == 0
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert names == ["README.md", "calibration.tsv", "curves.tsv", "diagnostics.json", "folds.tsv", "ia/0.tsv", "ia/1.tsv", "ia/2.tsv",
                     "manifest.json", "predictions/blast.tsv.gz", "predictions/gotcha.tsv.gz", "predictions/naive.tsv.gz",
                     "summary.tsv", "table1.tsv"]
    head = (out / "summary.tsv").read_text().split("\n")[0].split("\t")
    assert head == ["method", "namespace", "measure", "value", "threshold", "coverage", "precision", "recall", "ru", "mi"]
    t1 = (out / "table1.tsv").read_text().splitlines()
    assert len(t1) == 1 + 2 * 3 and t1[0].startswith("namespace\tmethod\tfmax\tfmax_threshold")
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["benchmark"]["MFO"]["benchmark_proteins"] == 6 and "information_content" in diag
    assert "goeval benchmark" in (out / "README.md").read_text()


def test_cv_with_random_folds_writes_them(tmp_path):
    out = tmp_path / "k"
    assert run(cv_args(out, "--k", "3", "--seed", "5", "--methods", "naive,blast", "--no-predictions")) == 0
    lines = (out / "folds.tsv").read_text().splitlines()
    assert lines[0] == "protein\tfold" and len(lines) == 8
    assert not (out / "predictions").exists()


def test_cv_errors_before_work(tmp_path):
    bad = tmp_path / "folds.tsv"
    bad.write_text("p1\t0\np2\tzero\n")
    with pytest.raises(InputFormatError, match="line 2"):
        run(cv_args(tmp_path / "o", "--folds", str(bad)))
    with pytest.raises(GoevalError, match="--methods"):
        run(cv_args(tmp_path / "o", "--k", "2", "--methods", "naive,psiblast"))
    with pytest.raises(GoevalError, match="threshold"):
        run(cv_args(tmp_path / "o", "--k", "2", "--thresholds", "0.3"))
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("which", ["timesplit", "cv"])
def test_an_out_folder_given_with_a_slash_is_said_with_one(tmp_path, capsys, which):
    from goeval.cli import main

    out = f"{tmp_path / which}/"
    argv = (["timesplit", "--t0", str(D / "t0.tsv"), "--t1", str(D / "t1.tsv"), "--evaluate"] if which == "timesplit"
            else ["cv", "--annotations", str(D / "annotations.tsv"), "--hits", str(D / "hits.tsv"), "--hit-columns",
                  COLS, "--folds", str(D / "folds.tsv")])
    assert main(["benchmark", *argv, "--ontology", str(D / "toy.obo"), "--methods", "naive", "--out", out]) == 0
    err = capsys.readouterr().err
    assert f"results in {tmp_path / which}/ (" in err and "//" not in err


def test_timesplit_lists_truth_and_evaluation(tmp_path):
    out = tmp_path / "ts"
    argv = ["timesplit", "--ontology", str(D / "toy.obo"), "--t0", str(D / "t0.tsv"), "--t1", str(D / "t1.tsv"),
            "--methods", "naive", "--evaluate", "--drop-binding-only", "--out", str(out), "-q"]
    assert run(argv) == 0
    assert (out / "nk_MFO.txt").read_text() == "e\n"
    assert (out / "truth_nk_MFO.tsv").read_text() == "e\tGO:0000003\n"
    assert (out / "pk" / "table1.tsv").exists() and (out / "nk" / "summary.tsv").exists()
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["targets"]["NK"]["MFO"]["binding_only_dropped"] == 1


def test_cv_with_groups_writes_every_groups_pooled_optima(tmp_path):
    """benchmark cv --groups: groups.tsv with a group column (all first), each group pooled over the folds."""
    out = tmp_path / "cv"
    proteins = [line.split("\t")[0] for line in (D / "annotations.tsv").read_text().splitlines() if line.strip()]
    proteins = list(dict.fromkeys(proteins))
    groups = tmp_path / "g.tsv"
    groups.write_text("".join(f"{p}\t{'x' if k % 2 else 'y'}\n" for k, p in enumerate(proteins)))
    assert run(cv_args(out, "--folds", str(D / "folds.tsv"), "--thresholds", "0.01", "--groups", str(groups))) == 0
    rows = (out / "groups.tsv").read_text().splitlines()
    assert rows[0].split("\t")[:3] == ["method", "group", "namespace"]
    order = list(dict.fromkeys(r.split("\t")[1] for r in rows[1:]))
    assert order[0] == "all" and sorted(order[1:]) == ["x", "y"]


def test_timesplit_with_groups_writes_each_kinds_group_folders_that_compare_reads(tmp_path, capsys):
    """benchmark timesplit --groups --bootstrap: KIND/groups/NAME/ per group (as evaluate and cafa6 write them), so
    compare --groups A,B works on a kind's folder; two groups of the same proteins differ by exactly 0."""
    from goeval.cli import main

    out = tmp_path / "ts"
    proteins = sorted({line.split("\t")[0] for line in (D / "t1.tsv").read_text().splitlines() if line.strip()})
    groups = tmp_path / "g.tsv"
    groups.write_text("".join(f"{p}\t{g}\n" for p in proteins for g in ("x", "y")))
    argv = ["timesplit", "--ontology", str(D / "toy.obo"), "--t0", str(D / "t0.tsv"), "--t1", str(D / "t1.tsv"),
            "--methods", "naive", "--evaluate", "--groups", str(groups), "--bootstrap", "20", "--out", str(out), "-q"]
    assert run(argv) == 0
    for kind in ("nk", "lk", "pk"):
        for g in ("x", "y"):
            assert (out / kind / "groups" / g / "summary.tsv").exists()
            assert (out / kind / "groups" / g / "protein_stats.npz").exists()
    capsys.readouterr()
    assert main(["compare", str(out / "nk"), "--groups", "x,y", "--format", "tsv"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.strip().splitlines()]
    head = rows[0]
    assert rows[1:] and all(float(r[head.index("difference")]) == 0.0 for r in rows[1:])
