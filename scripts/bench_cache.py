#!/usr/bin/env python3
"""Time the compiled-ontology cache: ``goeval evaluate`` without it, cold, warm, next to CAFA-evaluator.

On a synthetic case (default ``../bench/synth3k``) four configurations run
as cold command-line processes, interleaved round by round, each under
``/usr/bin/time -v`` (wall time, peak RSS; helpers of ``benchmark.py``):

* ``goeval --no-cache``: parse the OBO (as before the cache existed);
* ``goeval cold cache``: the cache file is removed first, so the run parses
  the OBO and writes the cache;
* ``goeval warm cache``: the cache file written by the previous run is read;
* ``cafaeval OBO PRED_DIR GT -ia IA -out_dir OUT -threads 1 -th_step 0.01``.

goeval runs ``evaluate --thresholds 0.01``. The report gives medians (min-max)
and the ratios cafaeval / goeval of the median wall times. On GO 2019
(``--go``) it also times ``goeval info`` (no cache, cold, warm) as processes
and ``goeval.load_ontology`` inside one process (``cache=False``, a cold cache,
a warm cache).

Only the standard library and numpy are needed::

    python scripts/bench_cache.py --case ../bench/synth3k --repeats 3 --markdown cache.md --json cache.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark import REPO_ROOT, machine_info, measure, time_v_available  # noqa: E402

LOAD_SNIPPET = """\
import json, sys, time
import goeval
go, cache, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
goeval.load_ontology(goeval.example_path("ontology"), cache=False)  # imports done
out = {}
for name, arg in (("no cache", False), ("cold cache", cache), ("warm cache", cache)):
    times = []
    for _ in range(repeats):
        if name == "cold cache":
            import os
            if os.path.exists(cache):
                os.unlink(cache)
        t = time.perf_counter()
        goeval.load_ontology(go, cache=arg)
        times.append(time.perf_counter() - t)
    out[name] = times
print(json.dumps(out))
"""


def _next_to_python(name: str) -> list[str]:
    exe = Path(sys.executable).parent / name
    return [str(exe)] if exe.exists() else [name]


def _stat(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def _configs(args: argparse.Namespace, root: Path) -> list[tuple[str, list[str], Path | None]]:
    """(name, command, cache file to remove before the run or None)."""
    case = Path(args.case)
    obo = next(case.glob("*.obo"))
    goeval = shlex.split(args.goeval) if args.goeval else _next_to_python("goeval")
    cafaeval = shlex.split(args.cafaeval) if args.cafaeval else _next_to_python("cafaeval")
    cache = root / "cache" / "ontology.npz"
    base = [*goeval, "evaluate", "--ontology", str(obo), "--truth", str(case / "ground_truth.tsv"),
            "--predictions", str(case / "predictions"), "--ia", str(case / "IA.txt"), "--thresholds", "0.01", "-q"]
    out = []
    out.append(("goeval --no-cache", [*base, "--out", str(root / "out-nocache"), "--no-cache"], None))
    out.append(("goeval cold cache", [*base, "--out", str(root / "out-cold"), "--ontology-cache", str(cache)], cache))
    out.append(("goeval warm cache", [*base, "--out", str(root / "out-warm"), "--ontology-cache", str(cache)], None))
    if not args.skip_cafaeval:
        out.append(("cafaeval", [*cafaeval, str(obo), str(case / "predictions"), str(case / "ground_truth.tsv"),
                                 "-ia", str(case / "IA.txt"), "-out_dir", str(root / "out-cafaeval"), "-threads", "1",
                                 "-th_step", "0.01"], None))
    return out


def _out_dir(cmd: list[str]) -> Path:
    flag = "--out" if "--out" in cmd else "-out_dir"
    return Path(cmd[cmd.index(flag) + 1])


def run_evaluate(args: argparse.Namespace, root: Path, use_time_v: bool) -> dict:
    configs = _configs(args, root)
    runs: dict[str, list[dict]] = {name: [] for name, _cmd, _c in configs}
    for r in range(args.repeats):
        for name, cmd, remove in configs:
            if remove is not None and remove.exists():
                remove.unlink()
            shutil.rmtree(_out_dir(cmd), ignore_errors=True)
            time.sleep(args.pause)
            rec = measure(cmd, root / "logs" / f"{name.replace(' ', '_')}.{r}", use_time_v)
            print(f"round {r + 1}: {name}: {rec['wall_s']:.2f} s, {rec['max_rss_kb'] / 1024:.0f} MiB, "
                  f"exit {rec['exit']}", file=sys.stderr)
            runs[name].append(rec)
    same = {}
    for f in ("summary.tsv", "curves.tsv"):
        texts = {(root / d / f).read_bytes() for d in ("out-nocache", "out-cold", "out-warm") if (root / d / f).exists()}
        same[f] = len(texts) == 1
    summary = {}
    for name, recs in runs.items():
        ok = [x for x in recs if x["exit"] == 0]
        summary[name] = {"wall_s": _stat([x["wall_s"] for x in ok]) if ok else None,
                         "max_rss_mib": _stat([x["max_rss_kb"] / 1024 for x in ok]) if ok else None,
                         "failed": len(recs) - len(ok)}
    ratios = {}
    caf = summary.get("cafaeval", {}).get("wall_s")
    if caf:
        for name in ("goeval --no-cache", "goeval cold cache", "goeval warm cache"):
            if summary[name]["wall_s"]:
                ratios[name] = caf["median"] / summary[name]["wall_s"]["median"]
    return {"runs": runs, "summary": summary, "ratios": ratios, "same_results": same}


def run_go(args: argparse.Namespace, root: Path, use_time_v: bool) -> dict:
    go = Path(args.go)
    goeval = shlex.split(args.goeval) if args.goeval else _next_to_python("goeval")
    cache = root / "cache" / "go.npz"
    info: dict[str, list[float]] = {"no cache": [], "cold cache": [], "warm cache": []}
    for r in range(args.repeats):
        for name in info:
            if name == "cold cache" and cache.exists():
                cache.unlink()
            flags = ["--no-cache"] if name == "no cache" else ["--ontology-cache", str(cache)]
            rec = measure([*goeval, "info", str(go), *flags], root / "logs" / f"info_{name.replace(' ', '_')}.{r}",
                          use_time_v)
            info[name].append(rec["wall_s"])
    python = args.python or sys.executable
    res = subprocess.run([python, "-c", LOAD_SNIPPET, str(go), str(root / "cache" / "go_api.npz"), str(args.repeats)],
                         capture_output=True, text=True, check=True)
    load = json.loads(res.stdout.strip().splitlines()[-1])
    return {"info_wall_s": {k: _stat(v) for k, v in info.items()},
            "load_ontology_s": {k: _stat(v) for k, v in load.items()}}


def _fmt(stat: dict | None, unit: str = "s", digits: int = 2) -> str:
    if not stat:
        return "failed"
    return f"{stat['median']:.{digits}f} {unit} ({stat['min']:.{digits}f}-{stat['max']:.{digits}f})"


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = [f"Machine: {m.get('cpu', '?')}, {m.get('cpus')} cores, {m.get('mem_total_gib', '?')} GiB; "
             f"{m['date']}; load average {report['load_start']} at the start, {report['load_end']} at the end.", ""]
    ev = report.get("evaluate")
    if ev:
        lines += [f"`goeval evaluate --thresholds 0.01` on {report['case']}, medians of {report['repeats']} "
                  "interleaved runs (min-max):", "",
                  "| configuration | wall | peak RSS | CAFA-evaluator / goeval |", "|---|---:|---:|---:|"]
        for name, s in ev["summary"].items():
            ratio = ev["ratios"].get(name)
            lines.append(f"| {name} | {_fmt(s['wall_s'])} | {_fmt(s['max_rss_mib'], 'MiB', 0)} | "
                         f"{f'{ratio:.1f}x' if ratio else ''} |")
        lines += ["", "Same summary.tsv and curves.tsv bytes in the three goeval configurations: "
                  + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in ev["same_results"].items()), ""]
    go = report.get("go")
    if go:
        lines += [f"GO ({report['go_file']}), medians (min-max):", "",
                  "| | no cache | cold cache (parse + write) | warm cache |", "|---|---:|---:|---:|"]
        i, ld = go["info_wall_s"], go["load_ontology_s"]
        lines.append(f"| `goeval info` (process) | {_fmt(i['no cache'])} | {_fmt(i['cold cache'])} | "
                     f"{_fmt(i['warm cache'])} |")
        lines.append(f"| `load_ontology` (in process) | {_fmt(ld['no cache'], digits=3)} | "
                     f"{_fmt(ld['cold cache'], digits=3)} | {_fmt(ld['warm cache'], digits=3)} |")
        lines.append("")
    return "\n".join(lines)


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def get_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", default=str(REPO_ROOT / ".." / "bench" / "synth3k"), help="synthetic case directory")
    p.add_argument("--go", default=str(REPO_ROOT / "ontologies" / "go_2019-01-29.obo.gz"), help="GO file for the load timings")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--pause", type=float, default=5.0, help="seconds of pause before each timed run (default 5)")
    p.add_argument("--goeval", help="goeval command (default: the one next to this Python)")
    p.add_argument("--cafaeval", help="cafaeval command (default: the one next to this Python)")
    p.add_argument("--python", help="Python with goeval installed, for the in-process load timings")
    p.add_argument("--skip-cafaeval", action="store_true")
    p.add_argument("--skip-evaluate", action="store_true", help="only the GO load timings")
    p.add_argument("--skip-go", action="store_true", help="only the evaluate timings")
    p.add_argument("--out-root", default=None, help="runs, logs and cache files (default: a temporary directory)")
    p.add_argument("--markdown", help="also write the report here")
    p.add_argument("--json", help="write every run here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = get_parser().parse_args(argv)
    import tempfile

    root = Path(args.out_root) if args.out_root else Path(tempfile.mkdtemp(prefix="bench_cache_"))
    root.mkdir(parents=True, exist_ok=True)
    use_time_v = time_v_available()
    report = {"machine": machine_info(), "load_start": _load(), "case": str(args.case), "repeats": args.repeats,
              "go_file": str(args.go), "time_source": "/usr/bin/time -v" if use_time_v else "wait4"}
    if not args.skip_evaluate:
        report["evaluate"] = run_evaluate(args, root, use_time_v)
    if not args.skip_go:
        report["go"] = run_go(args, root, use_time_v)
    report["load_end"] = _load()
    text = markdown(report)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    failed = any(s["failed"] for s in report.get("evaluate", {}).get("summary", {}).values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
