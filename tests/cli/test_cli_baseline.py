"""``goeval baseline`` and ``goeval align`` run in-process through their command modules."""

from __future__ import annotations

import argparse
import gzip

import numpy as np
import pytest

import goeval
from conftest import DATA
from goeval.baselines import blast, gotcha, naive
from goeval.cli import align as align_cmd
from goeval.cli import main
from goeval.cli import baseline as baseline_cmd
from goeval.io.aligners import available
from goeval.io.hits import read_hits

D = DATA / "baselines"
COLS6 = "qseqid,sseqid,pident,length,evalue,bitscore"


def run(mod, argv: list[str]) -> int:
    """The command through goeval's entry point (messages configured, errors as exit status 2)."""
    name = "baseline" if mod is baseline_cmd else "align"
    return main([name, *argv])


def base(method: str, out, *extra: str) -> list[str]:
    argv = [method, "--ontology", str(D / "toy.obo"), "--train", str(D / "train.tsv"), "--out", str(out), *extra]
    if method != "naive":
        argv += ["--hits", str(D / "hits6.tsv"), "--hit-columns", COLS6]
    return argv


def frame(pred) -> dict:
    f = pred.to_frame()
    return {(p, t): s for p, t, s in zip(f["protein"], f["term"], f["score"])}


@pytest.fixture(scope="module")
def toy():
    onto = goeval.load_ontology(D / "toy.obo")
    return onto, goeval.load_annotations(D / "train.tsv", onto), read_hits(D / "hits6.tsv", COLS6.split(","))


@pytest.mark.parametrize("method", ["blast", "gotcha"])
def test_hit_methods_write_what_the_library_computes(tmp_path, capsys, toy, method):
    out = tmp_path / "pred.tsv.gz"
    assert run(baseline_cmd, base(method, out, "--targets", str(D / "targets.txt"))) == 0
    onto, train, hits = toy
    want = frame({"blast": blast, "gotcha": gotcha}[method](onto, train, hits, ["x1", "x2", "x3"]))
    got = frame(goeval.load_predictions(out, onto))
    assert got == want  # exact: scores written with repr(float)
    text = capsys.readouterr().err
    assert "hits 7: usable 4; dropped: query not target 0, self hit 1, subject not in training set 1, " \
           "subject not annotated in namespace 1" in text
    assert "3 targets" in text and f"wrote {len(want)} predictions" in text


def test_cafa_format_max_terms_and_filters(tmp_path, capsys):
    out = tmp_path / "pred.txt"
    argv = base("blast", out, "--format", "cafa", "--max-terms", "2", "--namespaces", "MFO", "--max-evalue", "1e-4",
                "--model", "2")
    assert run(baseline_cmd, argv) == 0
    lines = out.read_text().splitlines()
    assert lines[:3] == ["AUTHOR\tgoeval", "MODEL\t2", "KEYWORDS\tgoeval baseline blast."] and lines[-1] == "END"
    rows = [ln.split("\t") for ln in lines[3:-1]]
    assert rows == [["x1", "GO:0000001", "1.0"], ["x1", "GO:0000002", "1.0"],
                    ["x2", "GO:0000001", "0.6"], ["x2", "GO:0000002", "0.6"]]
    assert "evalue above max 1" in capsys.readouterr().err


def test_naive_streamed_equals_library(tmp_path, toy):
    out = tmp_path / "naive.tsv"
    assert run(baseline_cmd, base("naive", out, "--targets", str(D / "targets.txt"))) == 0
    onto, train, _ = toy
    assert frame(goeval.load_predictions(out, onto)) == frame(naive(onto, train, ["x1", "x2", "x3"]))
    out2 = tmp_path / "naive_top.tsv"
    assert run(baseline_cmd, base("naive", out2, "--targets", str(D / "targets.txt"), "--max-terms", "3")) == 0
    got = frame(goeval.load_predictions(out2, onto))
    assert len(got) == 3 * 6  # 3 per namespace and target


def test_errors(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("x1\tp1\t100\t100\t0\t180\nx1\tp2\t150\t100\t0\t180\n")
    argv = base("blast", tmp_path / "o.tsv")
    argv[argv.index(str(D / "hits6.tsv"))] = str(bad)
    assert run(baseline_cmd, argv) == 2
    assert "bad.tsv, line 2: the percent identity" in capsys.readouterr().err
    p = argparse.ArgumentParser()
    baseline_cmd.add_arguments(p)
    with pytest.raises(SystemExit):  # naive needs --targets; hit methods need --hits
        p.parse_args(["naive", "--ontology", "o", "--train", "t", "--out", "x"])
    with pytest.raises(SystemExit):
        p.parse_args(["blast", "--ontology", "o", "--train", "t", "--out", "x"])


def test_align_command(tmp_path, capsys):
    if not available("diamond"):
        pytest.skip("diamond is not installed")
    out = tmp_path / "hits.tsv.gz"
    fasta = str(D / "swissprot_sample.fasta")
    assert run(align_cmd, ["--query", fasta, "--db", fasta, "--out", str(out), "--threads", "1"]) == 0
    text = capsys.readouterr().err
    assert "35 sequences" in text and "wrote" in text
    with gzip.open(out, "rt") as fh:
        assert len(fh.readline().split("\t")) == 12
    assert np.unique(read_hits(out).query_codes).size == 35
