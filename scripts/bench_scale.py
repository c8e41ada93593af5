#!/usr/bin/env python3
"""Benchmarks of goeval at scale: streaming against in-memory, and 1 against 2 Dask workers.

Each configuration runs as a cold ``goeval evaluate`` process, interleaved
round by round with the others (``--repeats`` rounds), under
``/usr/bin/time -v`` (wall time, peak RSS of the goeval process); the
report gives medians and the ratios between configurations measured in
the same run, and checks that every configuration wrote the same
``summary.tsv`` bytes.

* ``stream CASE_DIR``: ``--stream`` against the in-memory reader, on the
  0.01 grid and with exact thresholds (the streamed exact run makes a first
  pass for the distinct scores).
* ``workers CASE_DIR --methods K``: K methods (K links to the case's
  prediction file under other names), evaluated serially (``--threads 1``,
  and streamed), and streamed on a local Dask cluster of 1 worker and of 2
  workers (``--stream --dask local:N``: one task per file, each worker reads
  its own files).
  The peak RSS is that of the driver process (the workers are separate
  processes).

A case directory is what ``gen_synthetic.py`` writes (``go_synth.obo``,
``ground_truth.tsv``, ``IA.txt``, ``predictions/``). Only the standard
library is needed; the timing helpers are those of ``benchmark.py``.

Examples
--------
    python scripts/bench_scale.py stream ../bench/synth100k --repeats 3 --markdown stream.md
    python scripts/bench_scale.py workers ../bench/synth3k --methods 8 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark import machine_info, measure, time_v_available  # noqa: E402


def _goeval() -> list[str]:
    exe = shutil.which("goeval") or str(Path(sys.executable).with_name("goeval"))
    return [exe]


def _base(case: Path, preds: Path, out: Path, thresholds: str) -> list[str]:
    obo = next(case.glob("*.obo"))
    return _goeval() + ["evaluate", "--ontology", str(obo), "--truth", str(case / "ground_truth.tsv"),
                        "--predictions", str(preds), "--ia", str(case / "IA.txt"), "--out", str(out),
                        "--thresholds", thresholds, "-q", "--no-cache"]


def _configs(kind: str, case: Path, preds: Path, work: Path) -> dict[str, list[str]]:
    if kind == "stream":
        out = {}
        for th in ("0.01", "exact"):
            out[f"in-memory {th}"] = _base(case, preds, work / f"mem-{th}", th)
            out[f"streamed {th}"] = _base(case, preds, work / f"stream-{th}", th) + ["--stream"]
        return out
    return {"serial": _base(case, preds, work / "serial", "0.01") + ["--threads", "1"],
            "serial streamed": _base(case, preds, work / "serial-stream", "0.01") + ["--stream"],
            "dask 1 worker": _base(case, preds, work / "dask1", "0.01") + ["--stream", "--dask", "local:1"],
            "dask 2 workers": _base(case, preds, work / "dask2", "0.01") + ["--stream", "--dask", "local:2"]}


def _methods_dir(case: Path, k: int, work: Path) -> Path:
    src = next((case / "predictions").iterdir())
    d = work / "methods"
    d.mkdir(parents=True, exist_ok=True)
    for i in range(k):
        link = d / f"m{i:02d}{src.suffix}"
        if not link.exists():
            link.symlink_to(src.resolve())
    return d


def _run(configs: dict[str, list[str]], repeats: int, work: Path) -> dict[str, list[dict]]:
    use_time_v = time_v_available()
    runs: dict[str, list[dict]] = {k: [] for k in configs}
    for r in range(repeats):
        for key, cmd in configs.items():
            rec = measure(cmd, work / "logs" / f"{key.replace(' ', '_')}.{r}", use_time_v)
            print(f"  round {r + 1} {key}: {rec['wall_s']:.2f} s, {rec['max_rss_kb'] / 1024:.0f} MiB"
                  + ("" if rec["exit"] == 0 else f" (exit {rec['exit']}: {rec.get('stderr_tail', '')})"),
                  file=sys.stderr)
            runs[key].append(rec)
    return runs


def _outputs_identical(configs: dict[str, list[str]]) -> bool:
    """Every configuration with the same thresholds wrote the same summary.tsv bytes."""
    texts: dict[str, set[bytes]] = {}
    for cmd in configs.values():
        out = Path(cmd[cmd.index("--out") + 1])
        texts.setdefault(cmd[cmd.index("--thresholds") + 1], set()).add((out / "summary.tsv").read_bytes())
    return all(len(t) == 1 for t in texts.values())


def _report(kind: str, case: Path, runs: dict[str, list[dict]], identical: bool, extra: str) -> str:
    med = {k: (statistics.median(r["wall_s"] for r in v), statistics.median(r["max_rss_kb"] for r in v) / 1024)
           for k, v in runs.items()}
    lines = [f"## {kind}: {case.name}{extra}", "", f"machine: {json.dumps(machine_info())}", "",
             "| configuration | wall s (median, min–max) | peak RSS MiB |", "|---|---:|---:|"]
    for k, v in runs.items():
        walls = [r["wall_s"] for r in v]
        lines.append(f"| {k} | {med[k][0]:.2f} ({min(walls):.2f}–{max(walls):.2f}) | {med[k][1]:.0f} |")
    lines += ["", "Ratios (medians, same run):", ""]
    if kind == "stream":
        for th in ("0.01", "exact"):
            m, s = med[f"in-memory {th}"], med[f"streamed {th}"]
            lines.append(f"* {th}: streamed / in-memory time {s[0] / m[0]:.2f}, memory {s[1] / m[1]:.2f}")
    else:
        s, ss, d1, d2 = med["serial"], med["serial streamed"], med["dask 1 worker"], med["dask 2 workers"]
        lines.append(f"* 2 workers against 1: speed-up {d1[0] / d2[0]:.2f}x; against serial in memory: "
                     f"{s[0] / d2[0]:.2f}x; against serial streamed: {ss[0] / d2[0]:.2f}x")
    lines += ["", f"summary.tsv identical for the same thresholds in every configuration: "
                  f"{'yes' if identical else 'NO'}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=("stream", "workers"))
    p.add_argument("case", type=Path, help="a gen_synthetic.py case directory")
    p.add_argument("--methods", type=int, default=8, help="methods for 'workers' (default 8)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--work-dir", type=Path, default=None, help="outputs and logs (default: a temporary directory)")
    p.add_argument("--markdown", type=Path, help="also write the report here")
    args = p.parse_args(argv)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix=f"goeval-bench-{args.kind}-"))
    preds = args.case / "predictions" if args.kind == "stream" else _methods_dir(args.case, args.methods, work)
    configs = _configs(args.kind, args.case, preds, work)
    runs = _run(configs, args.repeats, work)
    failed = [k for k, v in runs.items() if any(r["exit"] != 0 for r in v)]
    identical = not failed and _outputs_identical(configs)
    text = _report(args.kind, args.case, runs, identical, f", {args.methods} methods" if args.kind == "workers" else "")
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 1 if failed or not identical else 0


if __name__ == "__main__":
    sys.exit(main())
