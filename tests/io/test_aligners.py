"""Aligner runner: real DIAMOND / BLAST+ runs on the fixture, missing binaries, failures, cleanup."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import DATA
from goeval.errors import GoevalError, InvalidParameterError
from goeval.io import aligners
from goeval.io.aligners import AlignerError, AlignerNotFoundError, align, available
from goeval.io.hits import read_hits

FASTA = DATA / "baselines" / "swissprot_sample.fasta"


def _leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("goeval-align-*")}


@pytest.mark.parametrize("tool", ["diamond", "blastp"])
def test_real_alignment(tmp_path, tool):
    if not available(tool):
        pytest.skip(f"{tool} is not installed")
    before = _leftovers()
    out = tmp_path / "hits.tsv.gz"
    res = align(FASTA, FASTA, out, tool=tool, sensitive=True)
    h = read_hits(out)
    assert len(h) == res.hits > 35
    self_hit = h.query_codes == h.subject_codes
    assert set(h.ids[h.query_codes[self_hit]]) == set(h.ids)  # every sequence finds itself
    assert (h.values["pident"][self_hit] == 100).all()
    assert (~self_hit).sum() > 0 and (h.values["evalue"] <= 1e-3).all()
    assert _leftovers() == before  # the temporary directory is removed


def test_uniprot_headers_reduced(tmp_path):
    if not available("diamond"):
        pytest.skip("diamond is not installed")
    text = FASTA.read_text().replace(">", ">sp|", 1).replace("\n", "|X_HUMAN desc\n", 1)
    q = tmp_path / "q.fasta"
    q.write_text(text)
    res = align(q, FASTA, tmp_path / "h.tsv")
    assert res.counts["query"]["uniprot_ids_reduced"] == 1
    h = read_hits(tmp_path / "h.tsv")
    assert not any("|" in i for i in h.ids)


def test_missing_binary_hint(tmp_path, monkeypatch):
    monkeypatch.setattr(aligners.shutil, "which", lambda exe: None)
    with pytest.raises(AlignerNotFoundError, match="apt-get install diamond-aligner.*conda install -c bioconda diamond"):
        align(FASTA, FASTA, tmp_path / "h.tsv")
    with pytest.raises(AlignerNotFoundError, match="apt-get install ncbi-blast\\+"):
        align(FASTA, FASTA, tmp_path / "h.tsv", tool="blastp")
    assert issubclass(AlignerNotFoundError, GoevalError)


def test_failure_and_interrupt_kill_child(tmp_path, monkeypatch):
    log = tmp_path / "log"
    with pytest.raises(AlignerError, match="exit status 3"):
        aligners._run(["sh", "-c", "echo boom >&2; exit 3"], log)
    assert "boom" in str(log.read_text())
    started = []
    real_popen = subprocess.Popen

    class Interrupted(real_popen):  # the wait is interrupted (Ctrl-C) while the child runs
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            started.append(self)

        def wait(self, timeout=None):
            if not getattr(self, "_interrupted", False):
                self._interrupted = True
                raise KeyboardInterrupt
            return super().wait(timeout)

    monkeypatch.setattr(aligners.subprocess, "Popen", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        aligners._run(["sleep", "30"], log)
    assert started and started[0].returncode is not None  # killed and reaped


def test_parameter_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="'tool' parameter of align"):
        align(FASTA, FASTA, tmp_path / "h", tool="mmseqs")
    with pytest.raises(InvalidParameterError, match="'threads' parameter of align"):
        align(FASTA, FASTA, tmp_path / "h", threads=0)
    with pytest.raises(InvalidParameterError, match="'columns' parameter of align"):
        align(FASTA, FASTA, tmp_path / "h", columns=("qseqid", "sseqid", "bogus"))


def test_a_sequence_with_digits_or_semicolons_is_refused_with_its_line_as_a_time_split_does(tmp_path, capsys):
    """goeval align used to strip digits and ';' from a sequence with a notice where benchmark timesplit refused
    the same file: both now say the FASTA reader's error (file, line, text), and no aligner runs."""
    from goeval.cli import main
    from goeval.errors import InputFormatError

    bad = tmp_path / "bad.fasta"
    bad.write_text(FASTA.read_text().split("\n>", 1)[0] + "\n>odd\nMKV12;LL\n")
    before = _leftovers()
    with pytest.raises(InputFormatError, match="'1' is not an amino-acid letter") as exc:
        align(bad, FASTA, tmp_path / "h.tsv")
    assert exc.value.line is not None and not (tmp_path / "h.tsv").exists() and _leftovers() == before
    said = f"bad.fasta, line {exc.value.line}: '1' is not an amino-acid letter (nor * or -)"
    assert main(["align", "--query", str(bad), "--db", str(FASTA), "--out", str(tmp_path / "h.tsv")]) == 2
    assert said in capsys.readouterr().err
    b = DATA / "benchmarks"
    assert main(["benchmark", "timesplit", "--ontology", str(b / "toy.obo"), "--t0", str(b / "t0.tsv"), "--t1",
                 str(b / "t1.tsv"), "--sequences", str(bad), "--out", str(tmp_path / "ts")]) == 2
    assert said in capsys.readouterr().err
