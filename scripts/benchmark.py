#!/usr/bin/env python3
"""Benchmark ``goeval evaluate`` side by side with CAFA-evaluator (cafaeval 1.3.0).

The protocol is the one of ``../shared/bench/BENCHMARK.md`` (see
``scripts/README.md``):

* inputs are synthetic, GO-like cases written by ``gen_synthetic.py``
  (generated on first use, reused afterwards);
* both tools run as cold command-line processes, on the same inputs, in the
  same run, interleaved (goeval, cafaeval, goeval, cafaeval, ...), each
  run under ``/usr/bin/time -v`` for wall time and peak RSS;
* the report gives medians with min/max over ``--repeats`` runs and the
  ratios cafaeval/goeval (time) and goeval/cafaeval (peak RSS);
* ``--parity`` compares goeval's ``curves.tsv`` with cafaeval's un-rounded
  in-memory results at every threshold the two grids share exactly.

Only the standard library, numpy and pandas are needed.  The script runs
from any directory; relative defaults are resolved against the repository
root (the parent of ``scripts/``).

Exit status: 0 when every requested run succeeded (and parity holds, when
asked), 1 when a run failed or parity could not be checked, 2 on a usage or
input error, 3 when parity was checked and some difference exceeds the tolerance.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_GENERATOR = REPO_ROOT / ".." / "shared" / "bench" / "gen_synthetic.py"
DEFAULT_WORK_DIR = REPO_ROOT / ".." / "bench"
TIME_BIN = Path("/usr/bin/time")
CAFAEVAL_REQUIREMENT = "cafaeval==1.3.0"
CAFAEVAL_VERSION = "1.3.0"

#: Case name -> (benchmark proteins, prediction lines per protein).
PRESETS: dict[str, tuple[int, int]] = {
    "synth750": (750, 1500),
    "synth1500": (1500, 1500),
    "synth3k": (3000, 1500),
    "synth6k": (6000, 1500),
    "synth3k-ppp300": (3000, 300),
    "synth3k-ppp750": (3000, 750),
    "synth3k-ppp3000": (3000, 3000),
    "synth25k": (25000, 1500),
    "synth50k": (50000, 1500),
    "synth100k": (100000, 1500),
}

#: Named series of presets.
SERIES: dict[str, list[str]] = {
    "scaling-proteins": ["synth750", "synth1500", "synth3k", "synth6k"],
    "scaling-preds": ["synth3k-ppp300", "synth3k-ppp750", "synth3k", "synth3k-ppp3000"],
    "linearity": ["synth25k", "synth50k", "synth100k"],
}
SERIES["scaling"] = list(dict.fromkeys(SERIES["scaling-proteins"] + SERIES["scaling-preds"]))

#: Generator options shared by every preset (BENCHMARK.md).
GENERATOR_FIXED = ["--methods", "good", "--n-train", "5000"]

#: goeval threshold modes and the speed-up each must reach (BENCHMARK.md, target 1).
TIME_TARGETS = {"0.01": 30.0, "exact": 20.0}
RSS_TARGET = 1.0 / 6.0

#: goeval curves.tsv column <- cafaeval column.
PARITY_COLUMNS: list[tuple[str, str]] = [
    ("n_covered", "n"),
    ("coverage", "cov"),
    ("precision", "pr"),
    ("recall", "rc"),
    ("f", "f"),
    ("precision_micro", "pr_micro"),
    ("recall_micro", "rc_micro"),
    ("f_micro", "f_micro"),
    ("wprecision", "pr_w"),
    ("wrecall", "rc_w"),
    ("wf", "f_w"),
    ("ru", "ru_w"),
    ("mi", "mi_w"),
    ("s", "s_w"),
]
#: Weighted coverage (proteins whose predicted set carries positive IA): optional
#: in goeval's curves; candidate goeval names <- cafaeval column.
PARITY_OPTIONAL: list[tuple[tuple[str, ...], str]] = [
    (("n_covered_w", "wn_covered"), "n_w"),
    (("coverage_w", "wcoverage"), "cov_w"),
]
GO_NAMESPACES = {
    "biological_process": "BPO",
    "molecular_function": "MFO",
    "cellular_component": "CCO",
}

#: Runs ``cafa_eval`` in cafaeval's own environment and writes its in-memory
#: frame with 17 significant digits (float64 round-trips exactly), so that the
#: rounded evaluation_all.tsv is never used and no pickle crosses pandas versions.
CAFAEVAL_DUMP = """\
import sys
from cafaeval.evaluation import cafa_eval
obo, pred_dir, gt, ia, out, th_step = sys.argv[1:7]
df, _ = cafa_eval(obo, pred_dir, gt, ia=ia, n_cpu=1, th_step=float(th_step))
if df is None:
    sys.exit("cafaeval evaluated no prediction file")
df.reset_index().to_csv(out, sep="\\t", index=False, float_format="%.17g")
"""


class UsageError(Exception):
    """A problem with the command line or the inputs: reported in one line, exit status 2."""


def log(msg: str) -> None:
    print(f"[benchmark {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    directory: Path
    n_proteins: int | None = None
    pred_per_protein: int | None = None
    pred_lines: int | None = None
    preset: bool = True

    @property
    def obo(self) -> Path:
        found = sorted(self.directory.glob("*.obo")) + sorted(self.directory.glob("*.obo.gz"))
        return found[0] if found else self.directory / "go_synth.obo"

    @property
    def truth(self) -> Path:
        return self.directory / "ground_truth.tsv"

    @property
    def ia(self) -> Path:
        return self.directory / "IA.txt"

    @property
    def predictions(self) -> Path:
        return self.directory / "predictions"

    def missing_files(self) -> list[str]:
        out = [str(p) for p in (self.obo, self.truth, self.ia) if not p.is_file()]
        if not self.predictions.is_dir() or not any(self.predictions.iterdir()):
            out.append(f"{self.predictions}/ (no prediction file)")
        return out


def generator_command(args: argparse.Namespace, name: str, out: Path) -> list[str]:
    n_proteins, ppp = PRESETS[name]
    cmd = [sys.executable, str(Path(args.generator).resolve()), "--out", str(out),
           "--n-proteins", str(n_proteins), "--pred-per-protein", str(ppp)]
    return cmd + GENERATOR_FIXED + shlex.split(args.gen_args or "")


def count_lines(folder: Path) -> int:
    total = 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 24):
                total += chunk.count(b"\n")
    return total


def describe_case(case: Case) -> None:
    """Fill protein / line counts from gen_info.json, else from the files."""
    info_path = case.directory / "gen_info.json"
    if info_path.is_file():
        info = json.loads(info_path.read_text())
        gargs = info.get("args", {})
        case.n_proteins = case.n_proteins or gargs.get("n_proteins")
        case.pred_per_protein = case.pred_per_protein or gargs.get("pred_per_protein")
        if isinstance(info.get("pred_lines"), dict):
            case.pred_lines = int(sum(info["pred_lines"].values()))
    if case.n_proteins is None and case.truth.is_file():
        with open(case.truth) as fh:
            case.n_proteins = len({line.split(None, 1)[0] for line in fh if line.strip()})
    if case.pred_lines is None and case.predictions.is_dir():
        case.pred_lines = count_lines(case.predictions)


def prepare_case(args: argparse.Namespace, name: str) -> Case:
    """Reuse the preset's directory under --work-dir, or generate it."""
    n_proteins, ppp = PRESETS[name]
    directory = Path(args.work_dir).resolve() / name
    case = Case(name, directory, n_proteins, ppp)
    info_path = directory / "gen_info.json"
    if info_path.is_file() and not args.regenerate:
        gargs = json.loads(info_path.read_text()).get("args", {})
        got = (gargs.get("n_proteins"), gargs.get("pred_per_protein"))
        if got != (n_proteins, ppp):
            raise UsageError(
                f"{directory} was generated with n_proteins={got[0]}, "
                f"pred_per_protein={got[1]}, not the {name} preset ({n_proteins}, {ppp}); "
                "choose another --work-dir or pass --regenerate.")
        missing = case.missing_files()
        if missing:
            raise UsageError(f"case {name} in {directory} lacks: {', '.join(missing)}")
        log(f"case {name}: reusing {directory}")
        describe_case(case)
        return case
    if directory.exists() and not args.regenerate:
        if args.dry_run:
            print(f"# case {name}: {directory} exists without gen_info.json "
                  "(generation in progress or interrupted); the run would stop here")
            return case
        raise UsageError(
            f"{directory} exists but has no gen_info.json (generation still running, "
            "or interrupted); wait for it, or pass --regenerate to rebuild it.")
    partial = directory.with_name(directory.name + ".partial")
    cmd = generator_command(args, name, partial)
    if args.dry_run:
        print(f"# case {name}: generate ({n_proteins} proteins x {ppp} predictions/protein)")
        print(shlex.join(cmd))
        print(shlex.join(["mv", str(partial), str(directory)]))
        return case
    if not Path(args.generator).is_file():
        raise UsageError(f"generator not found: {args.generator} (use --generator PATH)")
    log(f"case {name}: generating into {directory} ({n_proteins} proteins x {ppp} lines/protein)")
    shutil.rmtree(partial, ignore_errors=True)
    directory.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=directory.parent)
    if result.returncode != 0:
        raise UsageError(f"generator failed (exit {result.returncode}): {shlex.join(cmd)}")
    if directory.exists():
        shutil.rmtree(directory)
    partial.rename(directory)
    log(f"case {name}: generated in {time.perf_counter() - t0:.0f} s")
    describe_case(case)
    return case


def select_cases(args: argparse.Namespace) -> list[Case]:
    names: list[str] = []
    for item in args.cases or ([] if args.case_dir else ["synth3k"]):
        for part in item.split(","):
            part = part.strip()
            if part in SERIES:
                names.extend(SERIES[part])
            elif part in PRESETS:
                names.append(part)
            elif part == "all":
                names.extend(SERIES["scaling"] + SERIES["linearity"])
            elif part:
                raise UsageError(
                    f"unknown case {part!r}; choose from presets "
                    f"{', '.join(PRESETS)} or series {', '.join(SERIES)}, all.")
    cases = [prepare_case(args, name) for name in dict.fromkeys(names)]
    for d in args.case_dir or []:
        directory = Path(d).resolve()
        case = Case(directory.name, directory, preset=False)
        missing = case.missing_files()
        if missing:
            raise UsageError(f"--case-dir {directory} lacks: {', '.join(missing)}")
        describe_case(case)
        cases.append(case)
    return cases


# --------------------------------------------------------------------------- tools


@dataclass
class Tools:
    goeval: list[str]
    goeval_found: bool
    goeval_version: str | None
    cafaeval: Path | None
    cafaeval_python: Path | None
    cafaeval_version: str | None
    cafaeval_problem: str | None = None


def _capture(cmd: list[str]) -> str | None:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0:
        return None
    return (res.stdout or res.stderr).strip() or None


def resolve_tools(args: argparse.Namespace) -> Tools:
    goeval = shlex.split(args.goeval)
    if goeval and os.sep not in goeval[0] and shutil.which(goeval[0]) is None:
        # not on PATH: try the bin directory of the interpreter running this script (its venv)
        sibling = Path(sys.executable).parent / goeval[0]
        if sibling.is_file() and os.access(sibling, os.X_OK):
            goeval[0] = str(sibling)
    goeval_found = bool(goeval) and shutil.which(goeval[0]) is not None
    goeval_version = _capture(goeval + ["--version"]) if goeval_found and args.only != "cafaeval" else None

    exe: Path | None = None
    python: Path | None = None
    problem = None
    if args.cafaeval_venv:
        venv = Path(args.cafaeval_venv).resolve()
        exe, python = venv / "bin" / "cafaeval", venv / "bin" / "python"
        need = args.only != "goeval" or args.parity
        if need and not exe.is_file():
            create = [[sys.executable, "-m", "venv", str(venv)]] if not python.is_file() else []
            install = [str(python), "-m", "pip", "install", CAFAEVAL_REQUIREMENT]
            if args.dry_run:
                print(f"# cafaeval missing in {venv}: install it")
                for cmd in create + [install]:
                    print(shlex.join(cmd))
            else:
                for cmd in create + [install]:
                    log("running " + shlex.join(cmd))
                    if subprocess.run(cmd).returncode != 0:
                        problem = f"could not install {CAFAEVAL_REQUIREMENT} into {venv}"
                        break
    else:
        found = shutil.which("cafaeval")
        if found:
            exe = Path(found)
            candidate = exe.parent / "python"
            python = candidate if candidate.is_file() else None
        else:
            problem = "no cafaeval on PATH; pass --cafaeval-venv DIR (created and installed if missing)"
    version = None
    if python is not None and python.is_file():
        version = _capture([str(python), "-c",
                            "import importlib.metadata as m; print(m.version('cafaeval'))"])
    if exe is not None and not exe.is_file() and problem is None and not args.dry_run:
        problem = f"{exe} does not exist"
    if version and version != CAFAEVAL_VERSION:
        log(f"warning: cafaeval {version} found, the protocol asks for {CAFAEVAL_VERSION}")
    return Tools(goeval, goeval_found, goeval_version, exe, python, version, problem)


def goeval_command(tools: Tools, case: Case, mode: str, out: Path) -> list[str]:
    return tools.goeval + [
        "evaluate", "--ontology", str(case.obo), "--truth", str(case.truth),
        "--predictions", str(case.predictions), "--ia", str(case.ia),
        "--out", str(out), "--thresholds", mode,
    ]


def cafaeval_command(tools: Tools, case: Case, out: Path) -> list[str]:
    exe = str(tools.cafaeval) if tools.cafaeval else "cafaeval"
    return [exe, str(case.obo), str(case.predictions), str(case.truth),
            "-ia", str(case.ia), "-out_dir", str(out), "-threads", "1", "-th_step", "0.01"]


# --------------------------------------------------------------------------- measuring


def time_v_available() -> bool:
    if not os.access(TIME_BIN, os.X_OK):
        return False
    res = subprocess.run([str(TIME_BIN), "-v", "true"], capture_output=True, text=True)
    return "Maximum resident set size" in res.stderr


def _parse_elapsed(text: str) -> float:
    parts = [float(p) for p in text.strip().split(":")]
    seconds = 0.0
    for p in parts:
        seconds = seconds * 60 + p
    return seconds


def parse_time_v(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    patterns = {
        "wall_s": r"Elapsed \(wall clock\) time \([^)]*\):\s*(\S+)",
        "max_rss_kb": r"Maximum resident set size \(kbytes\):\s*(\d+)",
        "user_s": r"User time \(seconds\):\s*([\d.]+)",
        "sys_s": r"System time \(seconds\):\s*([\d.]+)",
        "exit_status": r"Exit status:\s*(-?\d+)",
    }
    for key, pat in patterns.items():
        m = re.search(pat, text)
        if m:
            out[key] = _parse_elapsed(m.group(1)) if key == "wall_s" else float(m.group(1))
    return out


def tail(path: Path, n: int = 4) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-n:])


def measure(cmd: list[str], log_stem: Path, use_time_v: bool) -> dict:
    """Run ``cmd`` once; return wall time, peak RSS (kB), CPU times, exit code.

    Under /usr/bin/time -v the report goes to its own file (``-o``) so that the
    command's stderr stays clean.  The process is reaped with os.wait4, whose
    per-child rusage gives the peak RSS when /usr/bin/time is absent (unlike
    RUSAGE_CHILDREN it is not a maximum over every earlier child).
    """
    log_stem.parent.mkdir(parents=True, exist_ok=True)
    stdout_file, stderr_file, time_file = (Path(f"{log_stem}.{ext}") for ext in ("stdout", "stderr", "time"))
    full = ([str(TIME_BIN), "-v", "-o", str(time_file)] if use_time_v else []) + cmd
    with open(stdout_file, "wb") as so, open(stderr_file, "wb") as se:
        t0 = time.perf_counter()
        proc = subprocess.Popen(full, stdout=so, stderr=se)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    rec = {
        "exit": proc.returncode,
        "wall_s_runner": wall,
        "wall_s": wall,
        "max_rss_kb": float(usage.ru_maxrss),
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
        "source": "wait4",
        "stdout": str(stdout_file),
        "stderr": str(stderr_file),
    }
    if use_time_v:
        parsed = parse_time_v(time_file.read_text(errors="replace")) if time_file.is_file() else {}
        if "max_rss_kb" in parsed and "wall_s" in parsed:
            rec.update({k: v for k, v in parsed.items() if k != "exit_status"})
            rec["source"] = "/usr/bin/time -v"
            rec["time_file"] = str(time_file)
    if rec["exit"] != 0:
        rec["stderr_tail"] = tail(stderr_file)
    return rec


@dataclass
class Config:
    key: str  # goeval-0.01, goeval-exact, cafaeval
    tool: str  # goeval | cafaeval
    thresholds: str  # 0.01 | exact
    problem: str | None = None  # set when the configuration cannot (or can no longer) run
    runs: list[dict] = field(default_factory=list)


def configs_for(case: Case, args: argparse.Namespace, tools: Tools) -> list[Config]:
    out: list[Config] = []
    if args.only != "cafaeval":
        for mode in args.goeval_thresholds:
            cfg = Config(f"goeval-{mode}", "goeval", mode)
            if not tools.goeval_found:
                cfg.problem = (f"goeval command {tools.goeval[0]!r} not found on PATH; install the "
                               "package (pip install -e .) or pass --goeval CMD")
            out.append(cfg)
    if args.only != "goeval":
        cfg = Config("cafaeval", "cafaeval", "0.01")
        if case.n_proteins is not None and case.n_proteins > args.cafaeval_max_proteins:
            cfg.problem = (f"skipped: {case.n_proteins} proteins > --cafaeval-max-proteins "
                           f"{args.cafaeval_max_proteins} (dense matrices: ~60 GB at 100k)")
        elif tools.cafaeval_problem:
            cfg.problem = tools.cafaeval_problem
        out.append(cfg)
    return out


def run_case(case: Case, args: argparse.Namespace, tools: Tools, use_time_v: bool) -> list[Config]:
    configs = configs_for(case, args, tools)
    run_dir = Path(args.out_root).resolve() / case.name
    for cfg in configs:
        if cfg.problem and not args.dry_run:
            log(f"{case.name} {cfg.key}: {cfg.problem}")
    for rep in range(1, args.repeats + 1):
        for cfg in configs:
            out = run_dir / cfg.key
            cmd = (goeval_command(tools, case, cfg.thresholds, out) if cfg.tool == "goeval"
                   else cafaeval_command(tools, case, out))
            if args.dry_run:
                if rep == 1:
                    note = f"   # not run: {cfg.problem}" if cfg.problem else ""
                    prefix = [str(TIME_BIN), "-v"] if use_time_v else []
                    print(f"# {case.name} {cfg.key} (x{args.repeats}, interleaved){note}")
                    print(shlex.join(prefix + cmd))
                continue
            if cfg.problem:
                continue
            if out.exists():
                shutil.rmtree(out)
            out.parent.mkdir(parents=True, exist_ok=True)
            if args.settle > 0:  # let the system settle (page reclaim after a large process)
                time.sleep(args.settle)
            log(f"{case.name} {cfg.key} run {rep}/{args.repeats}: {shlex.join(cmd)}")
            rec = measure(cmd, run_dir / "logs" / f"{cfg.key}.rep{rep}", use_time_v)
            rec.update({"case": case.name, "config": cfg.key, "tool": cfg.tool,
                        "thresholds": cfg.thresholds, "repeat": rep, "cmd": cmd, "out": str(out),
                        "loadavg_after": os.getloadavg()[0]})
            cfg.runs.append(rec)
            if rec["exit"] != 0:
                cfg.problem = (f"{cfg.tool} failed (exit {rec['exit']}); stderr: "
                               + (rec.get("stderr_tail") or "(empty)").replace("\n", " | "))
                log(f"{case.name} {cfg.key}: {cfg.problem}; not repeating it")
            else:
                log(f"{case.name} {cfg.key} run {rep}: {rec['wall_s']:.2f} s, "
                    f"{rec['max_rss_kb'] / 1024:.0f} MiB")
    return configs


# --------------------------------------------------------------------------- summary


def summarize(case: Case, configs: list[Config]) -> dict:
    rows = {}
    for cfg in configs:
        ok = [r for r in cfg.runs if r["exit"] == 0]
        row: dict = {"config": cfg.key, "tool": cfg.tool, "thresholds": cfg.thresholds,
                     "n_ok": len(ok), "n_runs": len(cfg.runs), "problem": cfg.problem}
        if ok:
            for key in ("wall_s", "max_rss_kb", "user_s", "sys_s"):
                vals = [float(r[key]) for r in ok]
                row[key] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}
        rows[cfg.key] = row
    ratios = []
    caf = rows.get("cafaeval", {})
    for key, row in rows.items():
        if row["tool"] != "goeval":
            continue
        entry = {"goeval": key, "thresholds": row["thresholds"]}
        if "wall_s" in row and "wall_s" in caf:
            entry["time_cafaeval_over_goeval"] = caf["wall_s"]["median"] / row["wall_s"]["median"]
            entry["rss_goeval_over_cafaeval"] = row["max_rss_kb"]["median"] / caf["max_rss_kb"]["median"]
            target = TIME_TARGETS.get(row["thresholds"])
            entry["time_target"] = target
            entry["time_target_met"] = None if target is None else entry["time_cafaeval_over_goeval"] >= target
            entry["rss_target_met"] = entry["rss_goeval_over_cafaeval"] <= RSS_TARGET
        ratios.append(entry)
    return {"case": case.name, "directory": str(case.directory), "n_proteins": case.n_proteins,
            "pred_per_protein": case.pred_per_protein, "pred_lines": case.pred_lines,
            "configs": rows, "ratios": ratios}


def linearity(summaries: list[dict]) -> list[dict]:
    """Per goeval mode: cost per million prediction lines over the cases that ran."""
    out = []
    modes = dict.fromkeys(k for s in summaries for k, r in s["configs"].items() if r["tool"] == "goeval")
    for mode in modes:
        pts = [(s["case"], s["pred_lines"], s["configs"][mode]) for s in summaries
               if mode in s["configs"] and "wall_s" in s["configs"][mode] and s["pred_lines"]]
        if len(pts) < 2:
            continue
        pts.sort(key=lambda p: p[1])
        rows = [{"case": c, "pred_lines": n, "wall_s": r["wall_s"]["median"],
                 "max_rss_kb": r["max_rss_kb"]["median"],
                 "s_per_mline": r["wall_s"]["median"] / (n / 1e6)} for c, n, r in pts]
        xs = [r["pred_lines"] for r in rows]
        ys = [r["wall_s"] for r in rows]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")
        out.append({"config": mode, "rows": rows, "fit_s_per_mline": slope * 1e6,
                    "fit_intercept_s": my - slope * mx,
                    "cost_ratio_largest_vs_smallest": rows[-1]["s_per_mline"] / rows[0]["s_per_mline"]})
    return out


# --------------------------------------------------------------------------- parity


def _signature(case: Case) -> dict:
    files = [case.obo, case.truth, case.ia] + sorted(p for p in case.predictions.rglob("*") if p.is_file())
    return {str(p): [p.stat().st_size, p.stat().st_mtime_ns] for p in files}


def cafaeval_frame(case: Case, tools: Tools, args: argparse.Namespace):
    """cafaeval's un-rounded per-threshold frame for ``case`` (cached per case)."""
    cache_dir = Path(args.out_root).resolve() / case.name
    cache, sig_file = cache_dir / "cafaeval-parity.tsv", cache_dir / "cafaeval-parity.json"
    sig = {"inputs": _signature(case), "cafaeval": tools.cafaeval_version, "th_step": 0.01}
    if cache.is_file() and sig_file.is_file() and json.loads(sig_file.read_text()) == sig:
        log(f"{case.name} parity: reusing cafaeval results {cache}")
    else:
        if tools.cafaeval_python is None or not tools.cafaeval_python.is_file():
            raise RuntimeError("no Python interpreter for cafaeval; pass --cafaeval-venv DIR")
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cache_dir, suffix=".tsv", delete=False) as tmp:
            tmp_path = Path(tmp.name)
        cmd = [str(tools.cafaeval_python), "-c", CAFAEVAL_DUMP, str(case.obo), str(case.predictions),
               str(case.truth), str(case.ia), str(tmp_path), "0.01"]
        log(f"{case.name} parity: running cafa_eval in-process in cafaeval's environment")
        res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            tmp_path.unlink(missing_ok=True)
            raise RuntimeError("cafa_eval failed: " + " | ".join(res.stderr.strip().splitlines()[-4:]))
        tmp_path.replace(cache)
        sig_file.write_text(json.dumps(sig))
    return _read_tsv(cache)


def _read_tsv(path: Path):
    """Read a TSV with float64 parsed exactly (pandas >= 3 does it by default)."""
    import pandas as pd

    extra = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    return pd.read_csv(path, sep="\t", **extra)


def _grid_key(values):
    """Integer j where the float equals j/100 exactly, else -1."""
    import numpy as np

    vals = np.asarray(values, dtype=float)
    j = np.rint(vals * 100).astype(np.int64)
    return np.where(vals == j / 100, j, -1)


def compare(goeval_curves, caf, tol: float, step: bool = False) -> dict:
    """Compare goeval curves with cafaeval's frame at the thresholds equal to j/100.

    ``step=True`` (goeval ``--thresholds exact``): a j/100 that is not one of
    goeval's thresholds takes the row of the next threshold above it.
    """
    import numpy as np
    import pandas as pd

    caf = caf.copy()
    caf["method"] = [os.path.splitext(str(f))[0] for f in caf["filename"]]
    # goeval labels the GO namespaces BPO/MFO/CCO; other ontologies keep their names
    short = bool(set(goeval_curves["namespace"].astype(str)) & set(GO_NAMESPACES.values()))
    caf["namespace"] = [GO_NAMESPACES.get(ns, ns) if short else ns for ns in caf["ns"].astype(str)]
    caf["j"] = _grid_key(caf["tau"])
    n_caf_total = len(caf)
    caf = caf[caf["j"] >= 0]
    g = goeval_curves.copy()
    g["method"] = g["method"].astype(str)
    g["namespace"] = g["namespace"].astype(str)
    g["threshold"] = g["threshold"].astype(float)
    keys = ["method", "namespace", "j"]
    if step:
        # exact thresholds are the distinct scores s_1 < s_2 < ...; for tau in (s_{k-1}, s_k]
        # the predicted sets {v : s(v) >= tau} are those at s_k, so tau = j/100 takes the row
        # of the smallest goeval threshold >= j/100
        caf["tau_grid"] = caf["j"] / 100
        g = g.drop(columns=[c for c in ("j", "_merge") if c in g.columns])
        merged = pd.merge_asof(caf.sort_values("tau_grid"), g.sort_values("threshold"),
                               left_on="tau_grid", right_on="threshold", by=["method", "namespace"],
                               direction="forward", suffixes=("_caf", ""))
        found = merged["threshold"].notna().to_numpy()
        unmatched, merged = merged[~found], merged[found]
        n_next = int((merged["threshold"] != merged["tau_grid"]).sum())
    else:
        g["j"] = _grid_key(g["threshold"])
        g = g[g["j"] >= 0]
        merged = caf.merge(g, on=keys, how="left", suffixes=("_caf", ""), indicator=True)
        unmatched = merged[merged["_merge"] == "left_only"]
        merged = merged[merged["_merge"] == "both"]
        n_next = 0

    result: dict = {"cafaeval_rows": n_caf_total, "cafaeval_rows_on_exact_grid": len(caf),
                    "compared_rows": len(merged), "rows_from_next_score": n_next,
                    "unmatched_cafaeval_rows": len(unmatched),
                    "unmatched_examples": unmatched[keys].head(5).astype(str).values.tolist(),
                    "columns": [], "tolerance": tol}
    pairs = [(gc, cc, True) for gc, cc in PARITY_COLUMNS]
    for candidates, cc in PARITY_OPTIONAL:
        found = next((c for c in candidates if c in goeval_curves.columns), None)
        pairs.append((found or candidates[0], cc, found is not None))
    ok = len(merged) > 0 and len(unmatched) == 0
    for gcol, ccol, present in pairs:
        entry = {"goeval": gcol, "cafaeval": ccol}
        if not present:
            entry["status"] = "absent from goeval curves (optional, skipped)"
        elif gcol not in goeval_curves.columns:
            entry["status"] = "missing from goeval curves"
            ok = False
        elif ccol not in caf.columns:
            entry["status"] = "missing from cafaeval results"
            ok = False
        elif len(merged):
            # on a name clash the merge renamed cafaeval's column (suffix _caf), not goeval's
            a = merged[gcol].to_numpy(dtype=float)
            b = merged[ccol + "_caf" if ccol in g.columns else ccol].to_numpy(dtype=float)
            diff = np.abs(a - b)
            both_nan = np.isnan(a) & np.isnan(b)
            diff = np.where(both_nan, 0.0, np.where(np.isnan(diff), np.inf, diff))
            i = int(np.argmax(diff))
            entry.update({"max_abs_diff": float(diff[i]),
                          "worst": {"method": merged["method"].iloc[i],
                                    "namespace": merged["namespace"].iloc[i],
                                    "threshold": int(merged["j"].iloc[i]) / 100,
                                    "goeval": float(a[i]), "cafaeval": float(b[i])}})
            entry["status"] = "ok" if diff[i] <= tol else "DIFFERS"
            ok = ok and diff[i] <= tol
        result["columns"].append(entry)
    result["ok"] = bool(ok)
    return result


def run_parity(case: Case, configs: list[Config], tools: Tools, args: argparse.Namespace) -> list[dict]:
    out = []
    goeval_cfgs = [c for c in configs if c.tool == "goeval"]
    usable = []
    for cfg in goeval_cfgs:
        curves = Path(args.out_root).resolve() / case.name / cfg.key / "curves.tsv"
        if cfg.problem or not cfg.runs:
            out.append({"case": case.name, "goeval": cfg.key, "ok": False,
                        "status": "not checked: goeval did not run successfully (see above)"})
        elif not curves.is_file():
            out.append({"case": case.name, "goeval": cfg.key, "ok": False,
                        "status": f"not checked: {curves} was not written"})
        else:
            usable.append((cfg, curves))
    if not usable:
        return out
    if case.n_proteins is not None and case.n_proteins > args.cafaeval_max_proteins:
        return out + [{"case": case.name, "goeval": c.key, "ok": True,
                       "status": f"skipped: {case.n_proteins} proteins > --cafaeval-max-proteins "
                                 f"{args.cafaeval_max_proteins}, too large for cafaeval"}
                      for c, _ in usable]
    try:
        caf = cafaeval_frame(case, tools, args)
    except RuntimeError as exc:
        return out + [{"case": case.name, "goeval": c.key, "ok": False, "status": f"not checked: {exc}"}
                      for c, _ in usable]
    for cfg, curves in usable:
        g = _read_tsv(curves)
        missing = {"method", "namespace", "threshold"} - set(g.columns)
        if missing:
            out.append({"case": case.name, "goeval": cfg.key, "ok": False,
                        "status": f"not checked: {curves} lacks column(s) {sorted(missing)}"})
            continue
        res = compare(g, caf, args.parity_tol, step=cfg.thresholds == "exact")
        res.update({"case": case.name, "goeval": cfg.key, "curves": str(curves),
                    "status": "ok" if res["ok"] else "FAILED"})
        log(f"{case.name} parity {cfg.key}: {res['compared_rows']} rows, {res['status']}")
        out.append(res)
    return out


# --------------------------------------------------------------------------- reports


def machine_info() -> dict:
    info = {"hostname": platform.node(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds")}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_total_gib"] = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    return info


def _fmt_s(stat: dict | None) -> str:
    if not stat:
        return "–"
    return f"{stat['median']:.2f} ({stat['min']:.2f}–{stat['max']:.2f})"


def _fmt_mib(stat: dict | None) -> str:
    if not stat:
        return "–"
    return f"{stat['median'] / 1024:.0f} ({stat['min'] / 1024:.0f}–{stat['max'] / 1024:.0f})"


def _fmt_int(v) -> str:
    return f"{v:,}" if isinstance(v, int) else "?"


def markdown_report(report: dict) -> str:
    meta = report["meta"]
    m = meta["machine"]
    goeval = (f"`{meta['goeval_cmd']}` ({meta.get('goeval_version') or 'version unknown'})"
              if meta.get("only") != "cafaeval" else "not run (--only cafaeval)")
    cafaeval = (f"{meta.get('cafaeval_version') or 'version unknown'} (`{meta.get('cafaeval')}`, "
                "`-threads 1 -th_step 0.01`)" if meta.get("only") != "goeval" else "not run (--only goeval)")
    lines = [
        "# goeval vs cafaeval benchmark",
        "",
        f"- date: {m.get('date')}; host: {m.get('hostname')}; CPU: {m.get('cpu', '?')} "
        f"x {m.get('cpus')}; memory: {m.get('mem_total_gib', '?')} GiB",
        f"- goeval: {goeval}; cafaeval: {cafaeval}",
        f"- {meta['repeats']} run(s) per configuration, interleaved, {meta.get('settle', 0):g} s pause before "
        f"each; wall time and peak RSS from "
        f"{meta['measured_with']}; load average {meta['loadavg_start']:.2f} at start, "
        f"{meta.get('loadavg_end', 0.0):.2f} at end",
        "- cells: median (min–max); ratios use medians",
        "",
        "## Runs",
        "",
        "| case | proteins | preds/protein | prediction lines | tool | thresholds | ok runs "
        "| wall s | peak RSS MiB | user+sys s |",
        "|---|---:|---:|---:|---|---|---:|---:|---:|---:|",
    ]
    notes = []
    for s in report["summaries"]:
        for key, r in s["configs"].items():
            cpu = None
            if "user_s" in r:
                cpu = {k: r["user_s"][k] + r["sys_s"][k] for k in ("median", "min", "max")}
            wall = _fmt_s(r.get("wall_s"))
            if r.get("problem") and "wall_s" not in r:
                wall = ("skipped" if r["problem"].startswith("skipped") else "not run") if r["n_runs"] == 0 \
                    else "failed"
                notes.append(f"- {s['case']} / {key}: {r['problem']}")
            elif r.get("problem"):
                notes.append(f"- {s['case']} / {key}: {r['problem']}")
            lines.append(
                f"| {s['case']} | {_fmt_int(s['n_proteins'])} | {_fmt_int(s['pred_per_protein'])} "
                f"| {_fmt_int(s['pred_lines'])} | {r['tool']} | {r['thresholds']} "
                f"| {r['n_ok']}/{r['n_runs']} | {wall} | {_fmt_mib(r.get('max_rss_kb'))} | {_fmt_s(cpu)} |")
    if notes:
        lines += ["", "Skipped, not run or failed:", ""] + notes
    ratio_rows = [(s["case"], e) for s in report["summaries"] for e in s["ratios"]
                  if "time_cafaeval_over_goeval" in e]
    if ratio_rows:
        lines += ["", "## Ratios", "",
                  "| case | goeval thresholds | time cafaeval/goeval | target | peak RSS goeval/cafaeval "
                  "| target <= 1/6 |",
                  "|---|---|---:|---|---:|---|"]
        for case, e in ratio_rows:
            tt = "–" if e["time_target"] is None else (
                f">= {e['time_target']:.0f}x: {'yes' if e['time_target_met'] else 'NO'}")
            lines.append(f"| {case} | {e['thresholds']} | {e['time_cafaeval_over_goeval']:.1f}x | {tt} "
                         f"| {e['rss_goeval_over_cafaeval']:.3f} | {'yes' if e['rss_target_met'] else 'NO'} |")
    if report.get("linearity"):
        lines += ["", "## Linearity (goeval)", "",
                  "| goeval | case | prediction lines | wall s | s per M lines | peak RSS MiB |",
                  "|---|---|---:|---:|---:|---:|"]
        for lin in report["linearity"]:
            for r in lin["rows"]:
                lines.append(f"| {lin['config']} | {r['case']} | {r['pred_lines']:,} | {r['wall_s']:.2f} "
                             f"| {r['s_per_mline']:.3f} | {r['max_rss_kb'] / 1024:.0f} |")
        lines.append("")
        for lin in report["linearity"]:
            lines.append(f"- {lin['config']}: least-squares fit {lin['fit_s_per_mline']:.3f} s per M lines "
                         f"+ {lin['fit_intercept_s']:.2f} s; cost per line, largest vs smallest case: "
                         f"{lin['cost_ratio_largest_vs_smallest']:.2f}")
    if report.get("parity") is not None:
        lines += ["", f"## Parity (|goeval - cafaeval| <= {meta['parity_tol']:g})", ""]
        for p in report["parity"]:
            if "columns" not in p:
                lines.append(f"- {p['case']} / {p.get('goeval')}: {p['status']}")
                continue
            lines += [
                f"**{p['case']} / {p['goeval']}**: {p['status']}; {p['compared_rows']} rows compared "
                f"(method x namespace x threshold; cafaeval rows {p['cafaeval_rows']}, of which "
                f"{p['cafaeval_rows_on_exact_grid']} at a threshold equal to j/100"
                + (f", {p['rows_from_next_score']} taken from goeval's next threshold above j/100"
                   if p.get("rows_from_next_score") else "")
                + f", {p['unmatched_cafaeval_rows']} without a goeval row"
                + (f", e.g. {p['unmatched_examples']}" if p["unmatched_examples"] else "") + ")",
                "",
                "| goeval column | cafaeval column | max abs diff | status | worst row |",
                "|---|---|---:|---|---|",
            ]
            for c in p["columns"]:
                w = c.get("worst") if c.get("max_abs_diff") else None
                worst = (f"{w['method']} {w['namespace']} tau={w['threshold']:.2f}: "
                         f"{w['goeval']!r} vs {w['cafaeval']!r}") if w else ""
                d = f"{c['max_abs_diff']:.3g}" if "max_abs_diff" in c else "–"
                lines.append(f"| {c['goeval']} | {c['cafaeval']} | {d} | {c['status']} | {worst} |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- main


def get_parser() -> argparse.ArgumentParser:
    presets = "\n".join(f"  {k:<16} {p:>6} proteins x {q:>4} predictions/protein"
                        for k, (p, q) in PRESETS.items())
    series = "\n".join(f"  {k:<16} {', '.join(v)}" for k, v in SERIES.items())
    parser = argparse.ArgumentParser(
        prog="benchmark.py",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Time `goeval evaluate` (th 0.01 and exact) and cafaeval 1.3.0 (-threads 1 -th_step 0.01)\n"
            "side by side on synthetic GO-like cases, as cold CLI processes, interleaved, each under\n"
            "/usr/bin/time -v; report medians, min/max and the ratios cafaeval/goeval (time) and\n"
            "goeval/cafaeval (peak RSS). With --parity, also compare the values."),
        epilog=(
            f"presets (generated under --work-dir on first use, then reused):\n{presets}\n\n"
            f"series:\n{series}\n  all              every preset\n\n"
            "examples:\n"
            "  python scripts/benchmark.py synth3k --parity --markdown bench.md --json bench.json\n"
            "  python scripts/benchmark.py scaling --cafaeval-venv ../cafaenv --markdown scaling.md\n"
            "  python scripts/benchmark.py linearity --only goeval --repeats 1\n"
            "  python scripts/benchmark.py synth3k --dry-run\n\n"
            "exit status: 0 ok; 1 a run failed or parity could not be checked; 2 usage or input\n"
            "error (unknown case, incomplete case directory, generator failure);\n"
            "3 parity checked and a difference exceeds --parity-tol."),
    )
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help="preset or series names, comma- or space-separated (default: synth3k)")
    parser.add_argument("--case-dir", action="append", metavar="DIR",
                        help="also benchmark an existing case directory in the generator's layout "
                             "(*.obo, ground_truth.tsv, IA.txt, predictions/); repeatable")
    parser.add_argument("--work-dir", default=str(DEFAULT_WORK_DIR), metavar="DIR",
                        help="where preset cases live (default: ../bench from the repository root)")
    parser.add_argument("--out-root", metavar="DIR",
                        help="run outputs and logs, per case and configuration (default: WORK_DIR/runs)")
    parser.add_argument("--generator", default=str(DEFAULT_GENERATOR), metavar="PATH",
                        help="gen_synthetic.py (default: ../shared/bench/gen_synthetic.py from the "
                             "repository root)")
    parser.add_argument("--gen-args", metavar="ARGS",
                        help="extra generator options, one quoted string (e.g. \"--seed 2\")")
    parser.add_argument("--regenerate", action="store_true",
                        help="rebuild preset cases even when their directory exists")
    parser.add_argument("--goeval", default="goeval", metavar="CMD",
                        help="goeval executable, may include arguments (default: goeval on PATH, else "
                             "next to the Python running this script)")
    parser.add_argument("--goeval-thresholds", default="0.01,exact", metavar="LIST",
                        help="comma list of goeval --thresholds values to time (default: 0.01,exact)")
    parser.add_argument("--cafaeval-venv", metavar="DIR",
                        help=f"virtual environment holding cafaeval; created with "
                             f"`pip install {CAFAEVAL_REQUIREMENT}` if it has no cafaeval "
                             "(default: the cafaeval found on PATH)")
    parser.add_argument("--cafaeval-max-proteins", type=int, default=6000, metavar="N",
                        help="skip cafaeval on cases with more benchmark proteins than N; its "
                             "dense matrices need ~60 GB at 100k (default: 6000)")
    parser.add_argument("--only", choices=["goeval", "cafaeval"], help="run only one tool")
    parser.add_argument("--repeats", type=int, default=3, metavar="N",
                        help="runs per configuration, interleaved (default: 3)")
    parser.add_argument("--settle", type=float, default=5.0, metavar="SECONDS",
                        help="pause before every timed run, the same for both tools, so that one "
                             "run does not pay for the memory the previous one gave back (default: 5)")
    parser.add_argument("--parity", action="store_true",
                        help="compare goeval's curves.tsv with cafaeval's un-rounded results at the "
                             "thresholds both grids share exactly")
    parser.add_argument("--parity-tol", type=float, default=1e-9, metavar="TOL",
                        help="largest accepted |difference| (default: 1e-9)")
    parser.add_argument("--markdown", metavar="FILE", help="write the Markdown report to FILE")
    parser.add_argument("--json", metavar="FILE", help="write all raw runs and summaries as JSON")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the commands (generation, installation, runs) and exit")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = get_parser()
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.parity and args.only == "cafaeval":
        parser.error("--parity compares goeval's output with cafaeval; it needs the goeval runs "
                     "(drop --only cafaeval)")
    args.goeval_thresholds = [t.strip() for t in args.goeval_thresholds.split(",") if t.strip()]
    args.out_root = args.out_root or str(Path(args.work_dir) / "runs")
    if args.dry_run:
        print("# dry run: commands that would be executed")

    try:
        cases = select_cases(args)
    except UsageError as exc:
        print(f"benchmark.py: error: {exc}", file=sys.stderr)
        return 2
    tools = resolve_tools(args)
    use_time_v = time_v_available()
    if not use_time_v:
        log("/usr/bin/time -v is not available (Debian/Ubuntu: apt-get install time); "
            "peak RSS from the per-child rusage of wait4")

    meta = {
        "machine": machine_info(),
        "argv": sys.argv,
        "goeval_cmd": shlex.join(tools.goeval),
        "goeval_found": tools.goeval_found,
        "goeval_version": tools.goeval_version,
        "cafaeval": str(tools.cafaeval) if tools.cafaeval else None,
        "cafaeval_version": tools.cafaeval_version,
        "repeats": args.repeats,
        "settle": args.settle,
        "only": args.only,
        "measured_with": "/usr/bin/time -v" if use_time_v else "os.wait4 rusage",
        "loadavg_start": os.getloadavg()[0],
        "parity_tol": args.parity_tol,
    }
    summaries, raw, parity = [], [], ([] if args.parity else None)
    any_failed = False
    for case in cases:
        configs = run_case(case, args, tools, use_time_v)
        if args.dry_run:
            if args.parity and args.only != "cafaeval":
                print(f"# {case.name} parity: {tools.cafaeval_python or 'CAFAEVAL_VENV/bin/python'} "
                      "-c '<cafa_eval(..., n_cpu=1, th_step=0.01) -> df with %.17g>' "
                      f"{case.obo} {case.predictions} {case.truth} {case.ia} OUT.tsv 0.01; "
                      "then compare with each goeval-*/curves.tsv")
            continue
        any_failed |= any(c.problem and not c.problem.startswith("skipped") for c in configs)
        raw.extend(r for c in configs for r in c.runs)
        summaries.append(summarize(case, configs))
        if args.parity:
            parity.extend(run_parity(case, configs, tools, args))
    if args.dry_run:
        return 0

    meta["loadavg_end"] = os.getloadavg()[0]
    report = {"meta": meta, "summaries": summaries, "linearity": linearity(summaries),
              "parity": parity, "runs": raw}
    text = markdown_report(report)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
        log(f"wrote {args.markdown}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n")
        log(f"wrote {args.json}")

    if parity and any("columns" in p and not p["ok"] for p in parity):
        return 3
    if any_failed or (parity is not None and any(not p["ok"] for p in parity)):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
