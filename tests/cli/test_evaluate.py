"""``goeval evaluate``'s start: what its forked prediction reader has to import."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import goeval
from goeval.io.background import fork_supported

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
from goeval.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.skipif(not fork_supported(), reason="forked reads need Linux")
def test_forked_reader_imports_no_module_the_command_imports_anyway(tmp_path):
    """pandas (which pyarrow imports with the reader's first array, and the results need) is imported once,
    before the reader is forked, not in both processes; scipy, which the reader does not need, after."""
    files = {k: str(goeval.example_path(k)) for k in ("ontology", "truth", "predictions", "ia")}
    args = ["evaluate", "--ontology", files["ontology"], "--truth", files["truth"], "--predictions",
            files["predictions"], "--ia", files["ia"], "--out", str(tmp_path / "r"), "-q"]
    log = tmp_path / "modules.json"
    env = {**os.environ, "GOEVAL_FORK": "always"}
    r = subprocess.run([sys.executable, "-c", CODE, str(log), *args], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    new = json.loads(log.read_text())
    assert not [m for m in new if m.split(".")[0] == "pandas"], new
    # scipy (0.13 s) and the pipeline are not loaded yet when the reader is forked: they load meanwhile
    parent = json.loads((tmp_path / "modules.json.parent").read_text())
    assert "pyarrow" in parent and not [m for m in parent if m.split(".")[0] == "scipy"], parent
