"""``goeval evaluate``'s start: what its forked prediction reader and the command itself import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import goeval
from goeval.io.background import fork_supported

TINY = Path(__file__).resolve().parents[1] / "data" / "cafa6" / "pk_tiny"

# The command line run in a fresh process whose forked readers write the modules they import to a file.
CODE = """
import json, sys
import goeval.io.background as b
orig = b._child_stream
def watched(sock, fn, args, mask):
    before = set(sys.modules)
    def items(*a):
        yield from fn(*a)
        with open(sys.argv[1], "w") as fh:
            json.dump(sorted(set(sys.modules) - before), fh)
    return orig(sock, items, args, mask)
b._child_stream = watched
fork = b.Background._fork
def forking(self):
    with open(sys.argv[1] + ".parent", "w") as fh:
        json.dump(sorted(sys.modules), fh)
    return fork(self)
b.Background._fork = forking
import atexit
pid = __import__("os").getpid()
def at_exit():
    if __import__("os").getpid() == pid:
        with open(sys.argv[1] + ".end", "w") as fh:
            json.dump(sorted(sys.modules), fh)
atexit.register(at_exit)
from goeval.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _pandas(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] == "pandas"]


@pytest.mark.skipif(not fork_supported(), reason="forked reads need Linux")
def test_neither_the_command_nor_its_reader_imports_pandas(tmp_path):
    """pandas (0.13-0.15 s) is imported by neither process of ``goeval evaluate`` (pyarrow would import it with
    the first ``pa.array``, ``pa.scalar`` or ``to_numpy``: goeval.io.arrow makes its arrays); scipy, which the
    reader does not need, is loaded after the reader is forked."""
    files = {k: str(goeval.example_path(k)) for k in ("ontology", "truth", "predictions", "ia")}
    args = ["evaluate", "--ontology", files["ontology"], "--truth", files["truth"], "--predictions",
            files["predictions"], "--ia", files["ia"], "--out", str(tmp_path / "r"), "-q"]
    log = tmp_path / "modules.json"
    env = {**os.environ, "GOEVAL_FORK": "always"}
    r = subprocess.run([sys.executable, "-c", CODE, str(log), *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert not _pandas(json.loads(log.read_text())), "the reader imported pandas"
    parent = json.loads((tmp_path / "modules.json.parent").read_text())
    assert "pyarrow" in parent and not [m for m in parent if m.split(".")[0] in ("scipy", "pandas")], parent
    assert not _pandas(json.loads((tmp_path / "modules.json.end").read_text())), "the command imported pandas"
    assert (tmp_path / "r" / "summary.tsv").stat().st_size and (tmp_path / "r" / "curves.tsv").stat().st_size


def test_cafa6_scores_without_importing_pandas(tmp_path):
    """``goeval cafa6`` (three kinds, known terms, one submission) reads, scores and writes without pandas."""
    log = tmp_path / "modules.json"
    args = ["cafa6", "--ontology", str(TINY / "ont.obo"), "--ia", str(TINY / "ia.tsv"), "--truth-nk",
            str(TINY / "gt.tsv"), "--truth-pk", str(TINY / "gt.tsv"), "--known", str(TINY / "known.tsv"),
            "--predictions", str(TINY / "pred"), "--thresholds", "arange:0.1", "--out", str(tmp_path / "r"), "-q"]
    r = subprocess.run([sys.executable, "-c", CODE, str(log), *args], capture_output=True, text=True,
                       env={**os.environ, "GOEVAL_FORK": "always"}, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not _pandas(json.loads((tmp_path / "modules.json.end").read_text())), "the command imported pandas"
    assert (tmp_path / "r" / "cafa6.tsv").stat().st_size
