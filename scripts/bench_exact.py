#!/usr/bin/env python3
"""Exact thresholds at scale: ``goeval evaluate`` on the 0.01 grid, exact with thin curves, exact with full curves.

On a large synthetic case with many distinct scores (``gen_synthetic.py
--decimals 6``, generated into ``--work-dir/<case>`` when absent) the three
configurations run as cold command-line processes, interleaved (grid,
exact-thin, exact-full, grid, ...), each under ``/usr/bin/time -v`` for wall
time and peak RSS (helpers of ``scripts/benchmark.py``). One untimed grid
run first fills the ontology cache and the page cache, so every timed run
starts from the same state.

The report gives, per configuration, the median (min-max) wall time and
peak RSS over ``--repeats`` runs, the size of the curves file and its rows
(from ``diagnostics.json``: rows before and after the curve policy), and the
ratios exact/grid of the medians; the target is exact-thin within 1.5x of
the grid in time and in memory.

Only the standard library and numpy are needed.

Exit status: 0 when every run succeeded, 1 when one failed, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark import DEFAULT_GENERATOR, DEFAULT_WORK_DIR, GENERATOR_FIXED, log, measure, time_v_available  # noqa: E402

#: Configuration name -> options of goeval evaluate.
CONFIGS: dict[str, list[str]] = {
    "grid 0.01": ["--thresholds", "0.01"],
    "exact, thin curves": ["--thresholds", "exact"],
    "exact, full curves": ["--thresholds", "exact", "--curves", "full"],
}
TARGET = 1.5


def prepare_case(args: argparse.Namespace) -> Path:
    """The case directory, generated with ``--decimals 6`` when absent."""
    case = Path(args.work_dir) / args.case
    if (case / "predictions" / "good.tsv").is_file():
        return case
    cmd = [sys.executable, str(args.generator), "--out", str(case), "--n-proteins", str(args.n_proteins),
           "--pred-per-protein", str(args.pred_per_protein), "--decimals", "6", *GENERATOR_FIXED]
    log("generating: " + shlex.join(cmd))
    if subprocess.run(cmd).returncode != 0:
        raise SystemExit(f"bench_exact: the generator failed: {shlex.join(cmd)}")
    return case


def command(args: argparse.Namespace, case: Path, out: Path, options: list[str]) -> list[str]:
    return shlex.split(args.goeval) + [
        "evaluate", "--ontology", str(case / "go_synth.obo"), "--truth", str(case / "ground_truth.tsv"),
        "--predictions", str(case / "predictions" / "good.tsv"), "--ia", str(case / "IA.txt"),
        "--out", str(out), "--quiet", *options]


def curves_facts(out: Path) -> dict:
    """Size of the curves file and the rows before and after the policy."""
    facts: dict = {"curves_bytes": 0}
    for name in ("curves.tsv", "curves.tsv.gz"):
        if (out / name).is_file():
            facts["curves_bytes"] = (out / name).stat().st_size
    diag = out / "diagnostics.json"
    if diag.is_file():
        cur = json.loads(diag.read_text()).get("curves", {})
        facts.update(rows=cur.get("rows"), written=cur.get("written"),
                     per_curve=[(b["namespace"], b["rows"], b["written"]) for b in cur.get("blocks", [])])
    return facts


def run(args: argparse.Namespace) -> int:
    case = prepare_case(args)
    logs = Path(args.log_dir)
    use_time_v = time_v_available()
    if not use_time_v:
        log("warning: /usr/bin/time is missing; peak RSS from wait4")
    warm = logs / "out-warmup"
    log("warm-up run (not timed): grid 0.01")
    rec = measure(command(args, case, warm, CONFIGS["grid 0.01"]), logs / "warmup", use_time_v)
    if rec["exit"] != 0:
        log(f"the warm-up run failed: {rec.get('stderr_tail', '')}")
        return 1
    shutil.rmtree(warm, ignore_errors=True)
    results: dict[str, list[dict]] = {name: [] for name in CONFIGS}
    facts: dict[str, dict] = {}
    for r in range(args.repeats):
        for i, (name, options) in enumerate(CONFIGS.items()):
            out = logs / f"out-{i}"
            shutil.rmtree(out, ignore_errors=True)
            rec = measure(command(args, case, out, options), logs / f"run{r}-{i}", use_time_v)
            if rec["exit"] != 0:
                log(f"{name}: run {r + 1} failed: {rec.get('stderr_tail', '')}")
                return 1
            log(f"{name}: run {r + 1}: {rec['wall_s']:.2f} s, {rec['max_rss_kb'] / 1024:.0f} MiB")
            results[name].append(rec)
            facts[name] = curves_facts(out)
            shutil.rmtree(out, ignore_errors=True)
    print(report(case, results, facts, args.repeats))
    return 0


def _stat(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def report(case: Path, results: dict[str, list[dict]], facts: dict[str, dict], repeats: int) -> str:
    info = json.loads((case / "gen_info.json").read_text()) if (case / "gen_info.json").is_file() else {}
    a = info.get("args", {})
    lines = [f"case {case.name}: {a.get('n_proteins', '?')} proteins, {a.get('pred_per_protein', '?')} lines per "
             f"protein, --decimals {a.get('decimals', '?')}; median (min-max) of {repeats} interleaved cold runs", "",
             "| configuration | wall s | peak RSS MiB | curves file MB | curve rows written / computed |",
             "|---|---|---|---|---|"]
    med = {}
    for name, recs in results.items():
        w, r = _stat([x["wall_s"] for x in recs]), _stat([x["max_rss_kb"] / 1024 for x in recs])
        med[name] = (w[0], r[0])
        f = facts.get(name, {})
        lines.append(f"| {name} | {w[0]:.2f} ({w[1]:.2f}-{w[2]:.2f}) | {r[0]:.0f} ({r[1]:.0f}-{r[2]:.0f}) | "
                     f"{f.get('curves_bytes', 0) / 1e6:.1f} | {f.get('written', 0):,} / {f.get('rows', 0):,} |")
    g = med["grid 0.01"]
    lines += ["", "ratios to the 0.01 grid (medians):"]
    for name in list(CONFIGS)[1:]:
        t, m = med[name][0] / g[0], med[name][1] / g[1]
        lines.append(f"  {name}: time {t:.2f}x, peak RSS {m:.2f}x")
    t, m = med["exact, thin curves"][0] / g[0], med["exact, thin curves"][1] / g[1]
    lines.append(f"target exact-thin <= {TARGET}x the grid: time {'met' if t <= TARGET else 'NOT met'}, "
                 f"memory {'met' if m <= TARGET else 'NOT met'}")
    per = facts.get("exact, thin curves", {}).get("per_curve", [])
    if per:
        lines.append("exact, thin curves, rows per curve (computed -> written): "
                     + ", ".join(f"{ns} {n:,} -> {k:,}" for ns, n, k in per))
    return "\n".join(lines)


def get_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", default="synth30k_d6", help="case directory name under --work-dir (default synth30k_d6)")
    p.add_argument("--n-proteins", type=int, default=30000, help="proteins of a generated case (default 30000)")
    p.add_argument("--pred-per-protein", type=int, default=1500, help="prediction lines per protein (default 1500)")
    p.add_argument("--work-dir", default=str(DEFAULT_WORK_DIR), help="where cases live (default ../bench)")
    p.add_argument("--generator", default=str(DEFAULT_GENERATOR), help="gen_synthetic.py")
    p.add_argument("--goeval", default=str(Path(sys.executable).parent / "goeval"),
                   help="the goeval command (default: the one beside this Python)")
    p.add_argument("--repeats", type=int, default=3, help="runs per configuration (default 3)")
    p.add_argument("--log-dir", default="bench_exact_logs", help="logs and outputs of the runs (default ./bench_exact_logs)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = get_parser().parse_args(argv)
    if args.repeats < 1:
        print("bench_exact: --repeats must be >= 1", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
