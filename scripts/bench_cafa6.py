#!/usr/bin/env python
"""Time `goeval cafa6` on a CAFA 6-shaped case against a plain Arrow parse of the same file and the reference.

Whole processes, interleaved (goeval, the parse, the reference's runs, again), wall time and peak
memory of each from ``/usr/bin/time -v``; medians over ``--repeats``. The case is what
``scripts/cafa6_case.py`` writes (``--full-size`` for the 140 M-line submission).

* ``goeval``: ``goeval cafa6`` with NK, LK and PK, the compiled ontology cached (a warm-up run first);
* ``arrow``: a streaming pyarrow read of the file's three columns as strings, nothing else - the
  floor of reading it;
* ``reference`` (with ``--reference-python``, a Python where cafaeval-protea 0.1.0 is installed): the
  CAFA 6 scorer run once per kind, as the metric is defined (``-th_step 0.001 -prop max -norm cafa``,
  ``-known`` for PK), the three runs' times added and their largest peak.

    python scripts/bench_cafa6.py case/ --submission submission_full.tsv [--reference-python ../protea/bin/python]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ARROW = """
import sys, pyarrow as pa, pyarrow.csv as c
r = c.open_csv(sys.argv[1], read_options=c.ReadOptions(column_names=["p", "t", "s"], block_size=1 << 24),
               parse_options=c.ParseOptions(delimiter="\\t", quote_char=False, invalid_row_handler=lambda r: "skip"),
               convert_options=c.ConvertOptions(column_types={k: pa.string() for k in "pts"}))
print(sum(b.num_rows for b in r))
"""


def timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak MiB) of one process tree, from /usr/bin/time -v."""
    out = subprocess.run(["/usr/bin/time", "-v", *cmd], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", out.stderr)
    h, m, s = (float(g or 0) for g in wall.groups())
    rss = float(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1)) / 1024
    return h * 3600 + m * 60 + s, rss


def goeval_cmd(case: Path, submission: str, out: Path) -> list[str]:
    return ["goeval", "cafa6", "--ontology", str(case / "go.obo.gz"), "--ia", str(case / "IA.tsv"),
            "--truth-nk", str(case / "truth_NK.tsv"), "--truth-lk", str(case / "truth_LK.tsv"),
            "--truth-pk", str(case / "truth_PK.tsv"), "--known", str(case / "known.tsv"),
            "--predictions", str(case / submission), "--out", str(out), "-q"]


def reference_runs(python: str, case: Path, work: Path, submission: str) -> list[list[str]]:
    """The reference's three runs (NK, LK, PK) on a folder holding only the submission."""
    pred = work / "pred"
    pred.mkdir(exist_ok=True)
    link = pred / submission
    if not link.exists():
        link.symlink_to((case / submission).resolve())
    obo = work / "go.obo"
    if not obo.exists():
        with gzip.open(case / "go.obo.gz", "rb") as src, open(obo, "wb") as dst:
            shutil.copyfileobj(src, dst)
    runs = []
    for kind in ("NK", "LK", "PK"):
        cmd = [python, "-m", "cafaeval", str(obo), str(pred), str(case / f"truth_{kind}.tsv"), "-ia",
               str(case / "IA.tsv"), "-th_step", "0.001", "-prop", "max", "-norm", "cafa", "-threads", "1",
               "-out_dir", str(work / f"out_{kind}")]
        runs.append(cmd + (["-known", str(case / "known.tsv")] if kind == "PK" else []))
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", type=Path)
    ap.add_argument("--submission", default="submission_full.tsv")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--reference-python", default=os.environ.get("GOEVAL_PROTEA_PYTHON"))
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-cafa6-"))
    try:
        subprocess.run(goeval_cmd(args.case, args.submission, work / "warm"), check=True)
        figures: dict[str, list[tuple[float, float]]] = {"goeval": [], "arrow": [], "reference": []}
        for _ in range(args.repeats):
            figures["goeval"].append(timed(goeval_cmd(args.case, args.submission, work / "g")))
            figures["arrow"].append(timed([sys.executable, "-c", ARROW, str(args.case / args.submission)]))
            if args.reference_python:
                runs = [timed(cmd) for cmd in reference_runs(args.reference_python, args.case, work, args.submission)]
                figures["reference"].append((sum(w for w, _ in runs), max(m for _, m in runs)))
        for name, rows in figures.items():
            if rows:
                print(f"{name}: wall {statistics.median(w for w, _ in rows):.2f} s "
                      f"(runs {', '.join(f'{w:.1f}' for w, _ in rows)}), peak {statistics.median(m for _, m in rows):,.0f} MiB")
        g = figures["goeval"]
        for name in ("arrow", "reference"):
            rows = figures[name]
            if rows:
                ratios = [a[0] / b[0] for a, b in zip(g, rows)]
                print(f"goeval / {name}: time {statistics.median(ratios):.3f} (pairs {', '.join(f'{r:.3f}' for r in ratios)})"
                      f", memory {statistics.median(a[1] / b[1] for a, b in zip(g, rows)):.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
