#!/usr/bin/env python3
"""Time ``goeval retrieval`` (TAP-k, AUC iP/R, ROC AUC / AP per GO term).

Runs the command as a cold process on a synthetic case made by the shared
generator (``../shared/bench/gen_synthetic.py``; tens of thousands of terms x
thousands of proteins) and reports the median wall time and peak RSS.

    python scripts/bench_retrieval.py --case ../bench/synth3k --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one run, from /usr/bin/time -v when present."""
    timer = shutil.which("time") or "/usr/bin/time"
    if os.path.exists(timer):
        proc = subprocess.run([timer, "-v", *cmd], capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", proc.stderr).group(1)
        parts = [float(x) for x in wall.split(":")]
        seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024
        return seconds, rss
    import time

    t = time.perf_counter()
    pid = os.spawnvp(os.P_NOWAIT, cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    if status:
        sys.exit(f"failed: {' '.join(cmd)}")
    return time.perf_counter() - t, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", required=True, type=Path, help="directory with go_synth.obo, ground_truth.tsv, IA.txt, predictions/")
    p.add_argument("--goeval", default=shutil.which("goeval") or "goeval", help="goeval executable")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("-k", type=int, action="append", help="TAP-k orders (default 5 and 20)")
    p.add_argument("--json", type=Path, help="write the runs as JSON")
    args = p.parse_args(argv)
    case = args.case
    obo = next(case.glob("*.obo"))
    out = Path(tempfile.mkdtemp(prefix="goeval-retrieval-"))
    cmd = [args.goeval, "retrieval", "--ontology", str(obo), "--truth", str(case / "ground_truth.tsv"),
           "--predictions", str(case / "predictions"), "--ia", str(case / "IA.txt"), "--out", str(out)]
    for k in args.k or [5, 20]:
        cmd += ["-k", str(k)]
    runs = [run_once(cmd) for _ in range(args.repeats)]
    walls, rss = [r[0] for r in runs], [r[1] for r in runs]
    summary = (out / "retrieval_summary.tsv").read_text().splitlines()
    queries = sum(int(line.split("\t")[2]) for line in summary[1:])
    print(f"goeval retrieval on {case.name}: {queries} term queries over {len(summary) - 1} method x namespace; "
          f"median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}), "
          f"peak RSS {statistics.median(rss):.0f} MiB")
    if args.json:
        args.json.write_text(json.dumps({"case": str(case), "command": cmd, "wall_s": walls, "rss_mib": rss,
                                         "queries": queries}, indent=2))
    shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
