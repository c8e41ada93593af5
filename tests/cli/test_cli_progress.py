"""Live progress of the real ``goeval`` entry point: stage lines as they happen, bars on a terminal, ``-q``.

Off a terminal every stage says one line on stderr when it ends (ontology, truth, predictions, the sweeps,
then the results); on a terminal a bar with elapsed time and rate is drawn while it runs; ``-q`` silences
both. The benchmarks name the part of the run a stage belongs to (``NK:``, ``fold 0 (1 of 3):``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import goeval
from conftest import DATA

B = DATA / "benchmarks"
COLS = "qseqid,sseqid,pident,length,evalue,bitscore"
CODE = "import sys; from goeval.cli import console; sys.argv[0] = 'goeval'; console()"


def _evaluate_args(out: Path, *extra: str) -> list[str]:
    files = {k: str(goeval.example_path(k)) for k in ("ontology", "truth", "predictions", "ia")}
    return ["evaluate", "--ontology", files["ontology"], "--truth", files["truth"], "--predictions",
            files["predictions"], "--ia", files["ia"], "--out", str(out), *extra]


def _goeval(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GOEVAL_PROGRESS"}
    return subprocess.run([sys.executable, "-c", CODE, *args], capture_output=True, text=True, env=env, timeout=300)


def _index(lines: list[str], pattern: str) -> int:
    hits = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    assert hits, f"no line matches {pattern!r} in:\n" + "\n".join(lines)
    return hits[0]


def test_evaluate_says_each_stage_in_order_with_its_time(tmp_path):
    r = _goeval(*_evaluate_args(tmp_path / "r", "--bootstrap", "50"))
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    order = [_index(lines, p) for p in (r"^ontology .*: 9,571 terms", r"^truth .*lines read", r"^predictions: 1 prediction file",
                                        r"^evaluating .* on MFO: 1 of 1", r"^bootstrap: 50 resamples",
                                        r"^results in ")]
    assert order == sorted(order)
    for i in order[:-1]:
        assert re.search(r"\((\d+\.\d+ s|\d+ min \d+ s)\)$", lines[i]), lines[i]
    assert re.search(r"^BB4S_mfo_NK +MFO +fmax ", r.stdout, re.M) and "BB4S_mfo_NK  MFO" not in r.stderr  # table: stdout


def test_quiet_silences_stage_lines_and_bars(tmp_path):
    r = _goeval(*_evaluate_args(tmp_path / "r", "-q"))
    assert r.returncode == 0 and r.stderr == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_a_terminal_gets_bars_with_rate_and_elapsed_time(tmp_path):
    pytest.importorskip("tqdm")
    import pty

    out_fd, err_fd = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "GOEVAL_PROGRESS"}
    proc = subprocess.Popen([sys.executable, "-c", CODE, *_evaluate_args(tmp_path / "r", "--bootstrap", "200")],
                            stdout=subprocess.DEVNULL, stderr=err_fd, env=env)
    os.close(err_fd)
    chunks = []
    while True:
        try:
            data = os.read(out_fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0
    os.close(out_fd)
    screen = b"".join(chunks).decode("utf-8", "replace")
    assert re.search(r"evaluating .*protein/s", screen), screen[-2000:]
    assert re.search(r"bootstrap: 200 resamples.*resample/s", screen)
    assert re.search(r"\[\d\d:\d\d", screen)  # elapsed time
    assert "results in " in screen  # the stage lines are written around the bars


def test_benchmarks_name_the_kind_and_the_fold(tmp_path):
    r = _goeval("benchmark", "timesplit", "--ontology", str(B / "toy.obo"), "--t0", str(B / "t0.tsv"), "--t1",
                str(B / "t1.tsv"), "--methods", "naive", "--evaluate", "--out", str(tmp_path / "ts"))
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    order = [_index(lines, p) for p in (r"^ontology ", r"^t0 .*lines read", r"^t1 .*lines read", r"^finding the targets",
                                        r"^estimating the IA on t0", r"^NK: evaluating naive", r"^PK: evaluating naive",
                                        r"^results in ")]
    assert order == sorted(order)
    assert re.search(r"^NK targets:", r.stdout, re.M) and not re.search(r"^NK targets:", r.stderr, re.M)
    r = _goeval("benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "annotations.tsv"),
                "--hits", str(B / "hits.tsv"), "--hit-columns", COLS, "--k", "3", "--out", str(tmp_path / "cv"))
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert _index(lines, r"^estimating the IA of every fold") < _index(lines, r"^fold \d \(1 of 3\): training and "
                                                                               r"predicting \(naive, blast, gotcha\)")
    assert _index(lines, r"^fold \d \(3 of 3\): sweeping") < _index(lines, r"^results in ")
    assert re.search(r"^MFO\s+naive", r.stdout, re.M)  # the table on stdout


def test_baseline_says_what_it_read(tmp_path):
    (tmp_path / "targets.txt").write_text("a\nb\n")
    r = _goeval("baseline", "naive", "--ontology", str(B / "toy.obo"), "--train", str(B / "t0.tsv"), "--targets",
                str(tmp_path / "targets.txt"), "--out", str(tmp_path / "naive.tsv"), "-v")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert _index(lines, r"^reading|^ontology ") < _index(lines, r"^training set .*lines read") < _index(lines, "^wrote ")
