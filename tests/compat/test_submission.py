"""goeval validate: every CAFA 6 submission rule, each violation named with its line; the same report from the
fast part reader and the line-by-line one, in any part size, with the pairs in memory or spilled to disk."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import goeval
import goeval.io.predictions.submission as lenient
from goeval.cli import main
from goeval.compat.submission import CAFA6_RULES, RULES, validate_submission
from goeval.compat.submission_pairs import PairLedger

OBO = """format-version: 1.2

[Term]
id: GO:0000001
namespace: biological_process

[Term]
id: GO:0000002
namespace: biological_process
alt_id: GO:0000012
is_a: GO:0000001

[Term]
id: GO:0000003
namespace: biological_process
is_a: GO:0000001

[Term]
id: GO:0000004
namespace: molecular_function

[Term]
id: GO:0000009
namespace: biological_process
is_obsolete: true
"""

#: One violation of each rule (with max_terms 3), and the line it must be reported at.
BAD = [
    ("EntryID\tterm\tscore", "header"),
    ("P1\tGO:0000002\t0.5", None),
    ("P1 GO:0000003 0.5", "format"),
    ("P1\tGO:0000003\thigh", "score_not_number"),
    ("P2\tGO:0000002\t0", "score_zero"),
    ("P2\tGO:0000003\t-0.5", "score_negative"),
    ("P2\tGO:0000004\t1.5", "score_above_1"),
    ("P3\tGO:0000002\t0.1234", "significant_figures"),
    ("P3\tGO:9999999\t0.5", "unknown_term"),
    ("P3\tGO:0000009\t0.5", "obsolete_term"),
    ("P1\tGO:0000002\t0.25", "duplicate"),
    ("P1\tGO:0000004\t0.5", None),
    ("P1\tGO:0000012\t0.5", None),  # an alt_id: the fourth distinct id (the cap is counted on ids as written)
    ("P1\tText\t0.5\tcaf\u00e9", "text_line"),
    ("P4\tGO:0000002\t1", None),
    *[(f"P4\tText\t0.9\tnote {k}", "text_lines_per_protein" if k == 5 else None) for k in range(6)],
    ("P5\tText\t0.5\t" + "x" * 2999, None),
    ("P5\tText\t0.5\tyy", "text_length"),
    ("P9\tGO:0000002\t0.5", "not_a_target"),
    ("END", "header"),
]
TARGETS = ["P1", "P2", "P3", "P4", "P5"]


@pytest.fixture
def onto(tmp_path) -> goeval.Ontology:
    (tmp_path / "go.obo").write_text(OBO)
    return goeval.load_ontology(tmp_path / "go.obo", cache=False)


def _file(tmp_path: Path, lines: list[str], name: str = "sub.tsv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _expected() -> list[tuple[int, str]]:
    want = [(k + 1, rule) for k, (_, rule) in enumerate(BAD) if rule]
    return sorted(want + [(13, "too_many_terms")])


@pytest.mark.parametrize("part_bytes", [1 << 20, 64, 1])
def test_one_violation_of_each_rule_is_named_at_its_line(tmp_path, onto, part_bytes):
    path = _file(tmp_path, [text for text, _ in BAD])
    rules = replace(CAFA6_RULES, max_terms=3)
    report = validate_submission(path, onto, TARGETS, rules=rules, part_bytes=part_bytes)
    assert [(v.line, v.rule) for v in report.shown] == _expected()
    assert set(report.by_rule) == set(RULES) and all(n == 1 for r, n in report.by_rule.items() if r != "header")
    assert report.by_rule["header"] == 2 and not report.valid
    got = {v.rule: v for v in report.shown}
    assert got["too_many_terms"].problem.startswith("protein P1 has 4 terms (more than 3)")
    assert got["too_many_terms"].text == "P1\tGO:0000012\t0.5"  # read back from the file
    assert got["duplicate"].problem == "protein P1, term GO:0000002 again (first at line 2)"
    assert got["text_line"].problem == "the character U+00E9 is not printable ASCII"
    assert "P4 has more than 5 free-text lines" in got["text_lines_per_protein"].problem
    assert got["not_a_target"].problem == "protein P9 is not a target"
    assert report.counts == {"lines": len(BAD), "go_lines": 13, "text_lines": 9, "alt_id_lines": 1, "proteins": 6}


def test_cafa_header_lines_written_with_spaces_are_header_lines(tmp_path, onto):
    """``AUTHOR team`` (the CAFA format's header, space-separated) is a header line, not "fields separated by
    spaces"; ``END`` is a footer line."""
    path = _file(tmp_path, ["AUTHOR team", "MODEL 1", "KEYWORDS sequence alignment.", "P1\tGO:0000002\t0.5", "END"])
    report = validate_submission(path, onto)
    assert [(v.line, v.rule) for v in report.shown] == [(1, "header"), (2, "header"), (3, "header"), (5, "header")]
    assert report.shown[0].problem == "a header line (a submission has no header or footer lines)"
    assert report.shown[-1].problem == "a footer line (a submission has no header or footer lines)"


def test_the_command_counts_in_words_of_the_right_number(tmp_path, capsys):
    (tmp_path / "go.obo").write_text(OBO)
    one = _file(tmp_path, ["P1\tGO:0000002\t0.5"], "one.tsv")
    assert main(["validate", "--ontology", str(tmp_path / "go.obo"), str(one), "--no-cache"]) == 0
    assert "one.tsv: 1 line (1 GO line, 0 free-text lines), 1 protein\n" in capsys.readouterr().err
    bad = _file(tmp_path, ["P1\tGO:0000002\thigh"], "bad.tsv")
    assert main(["validate", "--ontology", str(tmp_path / "go.obo"), str(bad), "--no-cache"]) == 2
    assert "INVALID: 1 violation of 1 rule (cafa6 rules)" in capsys.readouterr().out


def test_a_clean_file_is_valid_and_the_line_reader_agrees(tmp_path, onto, monkeypatch):
    lines = [f"P{i}\tGO:000000{2 + i % 2}\t0.{i % 9 + 1}" for i in range(500)] + ["P1\tText\t0.5\tA note."]
    path = _file(tmp_path, lines)
    report = validate_submission(path, onto, part_bytes=256)
    assert report.valid and report.by_rule == {} and report.counts["go_lines"] == 500
    bad = _file(tmp_path, [text for text, _ in BAD], "bad.tsv")
    fast = validate_submission(bad, onto, TARGETS, rules=replace(CAFA6_RULES, max_terms=3), part_bytes=128)
    monkeypatch.setattr(lenient, "_fast_part", lambda data, line0: None)
    slow = validate_submission(bad, onto, TARGETS, rules=replace(CAFA6_RULES, max_terms=3), part_bytes=128)
    assert fast == slow


def test_pairs_spilled_to_disk_give_the_same_findings(tmp_path, onto, monkeypatch):
    """Proteins whose lines come back (one model per namespace joined), the pairs held in memory or in parts."""
    rng = np.random.default_rng(0)
    ids = ["GO:0000002", "GO:0000003", "GO:0000004", "GO:0000012"]
    lines = [f"P{int(p)}\t{ids[int(t)]}\t0.5" for p, t in zip(rng.integers(0, 40, 3000), rng.integers(0, 4, 3000))]
    path = _file(tmp_path, lines)
    rules = replace(CAFA6_RULES, max_terms=2)
    whole = validate_submission(path, onto, rules=rules, show=None)
    monkeypatch.setattr("goeval.compat.submission.PairLedger", lambda budget: PairLedger(budget=50, parts=7))
    spilled = validate_submission(path, onto, rules=rules, show=None, part_bytes=512)
    assert whole == spilled and whole.by_rule["too_many_terms"] == 40
    seen: set[tuple[str, str]] = set()
    dups = [k + 1 for k, line in enumerate(lines) if tuple(line.split("\t")[:2]) in seen or seen.add(
        tuple(line.split("\t")[:2]))]
    assert [v.line for v in whole.shown if v.rule == "duplicate"] == dups


def test_the_command_prints_each_violation_and_fails(tmp_path, onto, capsys):
    (tmp_path / "go.obo").write_text(OBO)
    bad = _file(tmp_path, [text for text, _ in BAD])
    (tmp_path / "targets.fasta").write_text("".join(f">{t}\nMKV\n" for t in TARGETS))
    args = ["validate", "--preset", "cafa6", "--ontology", str(tmp_path / "go.obo"), str(bad), "--no-cache"]
    assert main(args + ["--targets", str(tmp_path / "targets.fasta")]) == 2
    out = capsys.readouterr().out
    assert f"{bad}:4: score_not_number: the score 'high' is not a finite number: P1\tGO:0000003\thigh" in out
    assert "not_a_target" in out and "INVALID: 15 violations of 14 rules" in out
    good = _file(tmp_path, ["P1\tGO:0000002\t0.5", "P1\tText\t0.9\tok"], "good.tsv")
    assert main(["validate", "--ontology", str(tmp_path / "go.obo"), str(good), "--no-cache"]) == 0
    assert "valid (cafa6 rules)" in capsys.readouterr().out
    assert main(["validate", "--ontology", str(tmp_path / "go.obo"), str(tmp_path / "none.tsv"), "--no-cache"]) == 2
    assert "none.tsv" in capsys.readouterr().err


_SPILL_THEN_WAIT = """
import signal, sys, time
from pathlib import Path
import goeval.compat.submission as submission
import goeval.compat.submission_pairs as pairs
from goeval.cli import main

signal.signal(signal.SIGINT, signal.default_int_handler)  # as on a terminal (a background job ignores it)
spill = pairs.PairLedger._spill

def spill_then_wait(self):
    spill(self)
    Path(sys.argv[1]).write_text("spilled")
    time.sleep(60)

pairs.PairLedger._spill = spill_then_wait
submission.PairLedger = lambda budget: pairs.PairLedger(budget=10, parts=7)
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGKILL, -9)])
def test_spilled_pairs_leave_nothing_in_the_temporary_folder_when_killed(tmp_path, sig, status):
    """The spilled pairs are anonymous files: nothing named in $TMPDIR while they exist, nothing left after
    SIGTERM, Ctrl-C or even SIGKILL."""
    (tmp_path / "go.obo").write_text(OBO)
    sub = _file(tmp_path, [f"P{i}\tGO:000000{2 + i % 2}\t0.5" for i in range(200)])
    scratch, ready = tmp_path / "tmp", tmp_path / "ready"
    scratch.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", _SPILL_THEN_WAIT, str(ready), "validate", "--ontology", str(tmp_path / "go.obo"),
         str(sub), "--no-cache"], env={**os.environ, "TMPDIR": str(scratch)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 60
        while not ready.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        assert ready.exists(), proc.communicate()
        assert list(scratch.iterdir()) == []  # spilled, and no name to find or replace
        os.kill(proc.pid, sig)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == status, err
    assert "Traceback" not in err
    assert list(scratch.iterdir()) == []
