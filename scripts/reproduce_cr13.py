#!/usr/bin/env python3
"""Reproduce Clark & Radivojac (2013), §4 / Table 1, on the shared 2014 data, end to end.

Usage::

    python scripts/reproduce_cr13.py DATA_DIR OUT_DIR [--repeat 2] [--predictions]

DATA_DIR is the shared evaluation data set (go/, goa/, hits/, seq/, splits/).
The script runs, each as its own process (wall time and peak memory measured
per run with ``os.wait4``):

1. ``goeval benchmark cv`` for naive, blast, gotcha on MFO, BPO, CCO with
   ``splits/folds10.tsv`` at the CAFA grid (``--thresholds 0.01``), ``--repeat`` times;
2. the same with exact thresholds;
3. the grid run again with every similarity measure and pairing (``--similarity``, IC per
   training fold), for the rest of Table 1: with the root counted as predicted for every
   protein (``--root-as-prediction``, the paper's §3.4 setting), and without;
4. ``goeval benchmark timesplit`` 2014 -> 2019 (NK and LK targets among the proteins of
   seq/, the three baselines trained on 2014 with the DIAMOND hits);

then writes OUT_DIR/tables.md: Table 1 rows next to the paper's, the average
information content per protein, the qualitative findings checked one by one,
the time-split table, and the comparison of the NK/LK lists with splits/.
"""

from __future__ import annotations

import argparse
import csv
import glob
import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

HIT_COLUMNS = "qseqid,sseqid,pident,length,evalue,bitscore"
NS = ("MFO", "BPO", "CCO")
METHODS = ("naive", "blast", "gotcha")

#: CR13 Table 1, Fmax and S2 blocks: (value, threshold, ru, mi) per method and namespace.
PAPER = {
    "fmax": {"gotcha": [(0.72, 0.43, 6.12, 3.68), (0.49, 0.32, 21.84, 16.69), (0.73, 0.43, 6.31, 3.56)],
             "blast": [(0.64, 0.48, 5.42, 17.89), (0.49, 0.50, 19.68, 76.98), (0.63, 0.45, 5.57, 19.42)],
             "naive": [(0.60, 0.29, 9.87, 1.44), (0.33, 0.19, 27.53, 9.22), (0.64, 0.33, 9.22, 0.80)]},
    "smin": {"gotcha": [(7.11, 0.47, 6.34, 3.20), (26.14, 0.43, 23.91, 10.56), (7.23, 0.46, 6.48, 3.21)],
             "blast": [(9.13, 0.77, 8.25, 3.90), (29.89, 0.88, 28.28, 9.69), (9.08, 0.78, 8.51, 3.15)],
             "naive": [(9.98, 0.10, 9.72, 2.80), (29.00, 0.22, 27.67, 8.72), (8.79, 0.21, 7.71, 4.95)]},
}
PAPER_IC = {"MFO": (10.9, 10.2), "BPO": (32.0, 33.6), "CCO": (10.4, 9.2)}

#: CR13 Table 1, similarity blocks (all-pair averaging for the term measures): (value, threshold, ru, mi)
#: per method, namespaces MFO, BPO, CCO. Lord et al. (2003) is Resnik's similarity averaged over all pairs.
PAPER_SIM = {
    "resnik_all": {"gotcha": [(2.34, 0.47, 6.34, 3.20), (1.95, 0.40, 23.36, 11.90), (1.80, 0.36, 5.88, 4.58)],
                   "blast": [(1.61, 0.43, 4.69, 27.90), (1.40, 0.43, 16.73, 139.57), (1.27, 0.38, 4.42, 37.24)],
                   "naive": [(0.46, 0.09, 9.56, 4.23), (0.63, 0.01, 10.35, 504.88), (0.75, 0.07, 5.81, 16.34)]},
    "lin_all": {"gotcha": [(0.44, 0.52, 6.67, 2.67), (0.26, 0.46, 24.43, 9.40), (0.41, 0.50, 6.71, 2.76)],
                "blast": [(0.22, 0.43, 4.69, 27.90), (0.16, 0.43, 16.73, 139.57), (0.23, 0.40, 4.78, 30.45)],
                "naive": [(0.37, 0.30, 10.39, 0.21), (0.12, 0.12, 24.92, 23.14), (0.26, 0.31, 8.98, 1.32)]},
    "schlicker_all": {"gotcha": [(0.29, 0.51, 6.60, 2.76), (0.23, 0.42, 23.73, 10.99), (0.30, 0.43, 6.31, 3.56)],
                      "blast": [(0.17, 0.44, 4.83, 25.39), (0.14, 0.43, 16.73, 139.57), (0.18, 0.43, 5.26, 23.26)],
                      "naive": [(0.14, 0.30, 10.39, 0.21), (0.08, 0.12, 24.92, 23.14), (0.13, 0.31, 8.98, 1.32)]},
    "jc_all": {"gotcha": [(5.74, 0.75, 8.20, 1.27), (8.38, 0.98, 30.88, 1.22), (4.83, 0.76, 8.21, 1.19)],
               "blast": [(6.34, 1.00, 10.62, 0.43), (8.39, 1.00, 31.31, 1.40), (5.20, 1.00, 10.16, 0.35)],
               "naive": [(6.19, 0.63, 10.53, 0.13), (8.24, 0.50, 31.75, 0.07), (5.01, 0.61, 10.13, 0.08)]},
    "jaccard": {"gotcha": [(0.57, 0.46, 6.29, 3.32), (0.31, 0.34, 22.24, 15.24), (0.56, 0.43, 6.31, 3.56)],
                "blast": [(0.37, 0.50, 5.74, 14.72), (0.19, 0.50, 19.68, 76.98), (0.34, 0.43, 5.26, 23.26)],
                "naive": [(0.46, 0.30, 10.39, 0.21), (0.17, 0.19, 27.53, 9.22), (0.47, 0.31, 8.98, 1.32)]},
}
SIM_TITLES = {"resnik_all": "Lord et al. (2003): Resnik, all-pair", "lin_all": "Lin (1998), all-pair",
              "schlicker_all": "Schlicker et al. (2006), all-pair", "jc_all": "Jiang and Conrath (1997), all-pair (min)",
              "jaccard": "Jaccard"}
SIMILARITY = "resnik,lin,jc,schlicker,simgic,jaccard,wjaccard"
PAIRINGS = "all,bma,bma-mean"

_RUN = """
import argparse, sys
from goeval.cli import benchmark
p = argparse.ArgumentParser(prog="goeval benchmark")
benchmark.add_arguments(p)
sys.argv = ["goeval", "benchmark", *sys.argv[1:]]
sys.exit(benchmark.run(p.parse_args(sys.argv[2:])))
"""


def goeval_benchmark(args: list[str]) -> tuple[float, float]:
    """Run ``goeval benchmark ARGS`` in a child process; (wall seconds, peak RSS MiB)."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _RUN, *args])
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"goeval benchmark {' '.join(args)} failed with status {proc.returncode}")
    return time.perf_counter() - t, usage.ru_maxrss / 1024


def read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def cv_runs(data: Path, out: Path, repeat: int, predictions: bool) -> dict[str, list[tuple[float, float]]]:
    common = ["cv", "--ontology", str(data / "go/go_2014-10-27.obo.gz"),
              "--annotations", *sorted(glob.glob(str(data / "goa/exp_*_2014-10-12.tsv.gz"))),
              "--hits", str(data / "hits/diamond_allvsall_2014.tsv.gz"), "--hit-columns", HIT_COLUMNS,
              "--folds", str(data / "splits/folds10.tsv"), "--methods", ",".join(METHODS),
              "--namespaces", ",".join(NS), "-q"]
    times: dict[str, list[tuple[float, float]]] = {"grid": [], "exact": []}
    for i in range(repeat):
        extra = [] if predictions and i == 0 else ["--no-predictions"]
        times["grid"].append(goeval_benchmark(common + ["--thresholds", "0.01", "--out", str(out / "cv_grid"), *extra]))
    for _ in range(1):  # one exact run: millions of GOtcha thresholds, minutes
        times["exact"].append(goeval_benchmark(common + ["--thresholds", "exact", "--out", str(out / "cv_exact"),
                                                         "--no-predictions", "--no-curves"]))
    sim = common + ["--thresholds", "0.01", "--similarity", SIMILARITY, "--pairing", PAIRINGS, "--no-predictions"]
    times["grid, every similarity measure and pairing, root as prediction (CR13 §3.4)"] = [
        goeval_benchmark(sim + ["--root-as-prediction", "--out", str(out / "cv_similarity")])]
    times["grid, every similarity measure and pairing, covered proteins only"] = [
        goeval_benchmark(sim + ["--out", str(out / "cv_similarity_covered")])]
    return times


def timesplit_run(data: Path, out: Path) -> tuple[float, float]:
    return goeval_benchmark([
        "timesplit", "--ontology", str(data / "go/go_2014-10-27.obo.gz"),
        "--t0", *sorted(glob.glob(str(data / "goa/exp_*_2014-10-12.tsv.gz"))),
        "--t1", *sorted(glob.glob(str(data / "goa/exp_*_2019-01-29.tsv.gz"))),
        "--sequences", str(data / "seq/swissprot_2014-01_exp.fasta.gz"),
        "--hits", str(data / "hits/diamond_allvsall_2014.tsv.gz"), "--hit-columns", HIT_COLUMNS,
        "--methods", ",".join(METHODS), "--kinds", "NK,LK", "--evaluate", "--thresholds", "0.01",
        "--no-predictions", "--out", str(out / "timesplit"), "-q"])


# ------------------------------------------------------------------ tables
def f2(x: str | float, d: int = 2) -> str:
    return f"{float(x):.{d}f}"


def table1_md(rows: list[dict[str, str]], title: str) -> list[str]:
    out = [f"#### {title}", "",
           "| ns | method | Fmax (paper) | τ (paper) | ru (paper) | mi (paper) | S2 (paper) | τ (paper) | ru (paper) "
           "| mi (paper) | wFmax (τ) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for ns in NS:
        for m in ("gotcha", "blast", "naive"):
            r = next(x for x in rows if x["namespace"] == ns and x["method"] == m)
            pf, ps = PAPER["fmax"][m][NS.index(ns)], PAPER["smin"][m][NS.index(ns)]
            out.append(f"| {ns} | {m} | {f2(r['fmax'], 3)} ({pf[0]:.2f}) | {f2(r['fmax_threshold'])} ({pf[1]:.2f}) "
                       f"| {f2(r['fmax_ru'])} ({pf[2]:.2f}) | {f2(r['fmax_mi'])} ({pf[3]:.2f}) "
                       f"| {f2(r['smin'])} ({ps[0]:.2f}) | {f2(r['smin_threshold'])} ({ps[1]:.2f}) "
                       f"| {f2(r['smin_ru'])} ({ps[2]:.2f}) | {f2(r['smin_mi'])} ({ps[3]:.2f}) "
                       f"| {f2(r['wfmax'], 3)} ({f2(r['wfmax_threshold'])}) |")
    return out + [""]


def findings(rows: list[dict[str, str]]) -> list[str]:
    g = {(r["namespace"], r["method"]): {k: float(v) for k, v in r.items() if k not in ("namespace", "method")}
         for r in rows}
    out = ["#### Findings of the paper, checked", ""]
    for ns in ("MFO", "CCO"):
        a, b = g[(ns, "naive")]["fmax"], g[(ns, "blast")]["fmax"]
        out.append(f"- Naive's Fmax close to BLAST's in {ns}: naive {a:.3f}, blast {b:.3f} (difference {a - b:+.3f}).")
    for ns in NS:
        order = sorted(("gotcha", "blast", "naive"), key=lambda m: g[(ns, m)]["smin"])
        out.append(f"- S2 ranking in {ns} (best first): " + " < ".join(f"{m} {g[(ns, m)]['smin']:.2f}" for m in order))
    out.append("- BLAST's S2-optimal threshold vs its Fmax-optimal one: " + "; ".join(
        f"{ns} {g[(ns, 'blast')]['smin_threshold']:.2f} vs {g[(ns, 'blast')]['fmax_threshold']:.2f}" for ns in NS))
    out.append("- BLAST's misinformation at its Fmax threshold (bits): " + "; ".join(
        f"{ns} {g[(ns, 'blast')]['fmax_mi']:.2f} (gotcha {g[(ns, 'gotcha')]['fmax_mi']:.2f}, naive "
        f"{g[(ns, 'naive')]['fmax_mi']:.2f})" for ns in NS))
    return out + [""]


def similarity_md(summary: list[dict[str, str]]) -> list[str]:
    """The similarity blocks of Table 1 (paper in parentheses where it has the measure), then the other pairings."""
    g = {(r["namespace"], r["method"], r["measure"]): r for r in summary}
    head = "| method | " + " | ".join(f"{ns} max | τ | ru | mi" for ns in NS) + " |"
    rule = "|---|" + "---|" * 4 * len(NS)
    out = ["#### Table 1, similarity measures, grid 0.01, root as prediction (paper in parentheses; IC per training fold)", ""]
    measures = list(PAPER_SIM) + sorted({r["measure"] for r in summary if r["measure"] not in PAPER_SIM
                                         and ("_" in r["measure"] and r["measure"].split("_")[0] in
                                              ("resnik", "lin", "jc", "schlicker") or r["measure"] in ("simgic", "wjaccard"))})
    for ms in measures:
        out += [f"{SIM_TITLES.get(ms, ms)} (`{ms}`)", "", head, rule]
        for m in ("gotcha", "blast", "naive"):
            cells = []
            for k, ns in enumerate(NS):
                r = g.get((ns, m, ms))
                if r is None:
                    cells += ["-"] * 4
                    continue
                p = PAPER_SIM.get(ms, {}).get(m, [None] * 3)[k]
                vals = [float(r["value"]), float(r["threshold"]), float(r["ru"]), float(r["mi"])]
                cells += [f"{v:.2f}" + (f" ({q:.2f})" if p else "") for v, q in zip(vals, p or [0] * 4)]
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def information_md(diag_path: Path) -> list[str]:
    import json

    info = json.loads(diag_path.read_text())["information_content"]
    out = ["#### Average information content per benchmark protein (bits; each protein with its fold's IA)", "",
           "| ns | proteins | mean (paper) | std (paper) |", "|---|---|---|---|"]
    for ns in NS:
        v = info[ns]
        out.append(f"| {ns} | {v['proteins']:,} | {v['mean']:.1f} ({PAPER_IC[ns][0]}) | {v['std']:.1f} ({PAPER_IC[ns][1]}) |")
    return out + [""]


def timesplit_md(out: Path) -> list[str]:
    lines = ["#### Time split 2014 -> 2019 (baselines trained on 2014, grid 0.01)", "",
             "| kind | ns | method | Fmax | τ | cov | ru | mi | S2 | τ | wFmax |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind in ("nk", "lk"):
        for r in read_tsv(out / "timesplit" / kind / "table1.tsv"):
            lines.append(f"| {kind.upper()} | {r['namespace']} | {r['method']} | {f2(r['fmax'], 3)} | {f2(r['fmax_threshold'])} "
                         f"| {f2(r['fmax_coverage'])} | {f2(r['fmax_ru'])} | {f2(r['fmax_mi'])} | {f2(r['smin'])} "
                         f"| {f2(r['smin_threshold'])} | {f2(r['wfmax'], 3)} |")
    return lines + [""]


def split_lists_md(data: Path, out: Path) -> list[str]:
    """NK/LK lists against splits/, with the reason of every difference."""
    import goeval

    onto = goeval.load_ontology(data / "go/go_2014-10-27.obo.gz")
    t1_terms: dict[tuple[str, str], set[str]] = {}
    for path in sorted(glob.glob(str(data / "goa/exp_*_2019-01-29.tsv.gz"))):
        with gzip.open(path, "rt") as fh:
            next(fh)
            for line in fh:
                p, t, a, _ = line.rstrip("\n").split("\t")
                t1_terms.setdefault((p, {"F": "MFO", "P": "BPO", "C": "CCO"}[a]), set()).add(t)
    lines = ["#### NK / LK lists against splits/", "",
             "| list | splits/ | goeval | only in splits/ | only in goeval | of which all t1 terms of the aspect unknown in GO 2014 |",
             "|---|---|---|---|---|---|"]
    for kind in ("nk", "lk"):
        for ns in NS:
            ref = set((data / "splits" / f"{kind}_{ns}.txt").read_text().split())
            mine = set((out / "timesplit" / f"{kind}_{ns}.txt").read_text().split())
            unknown = sum(all(onto.resolve([t])[0][0] < 0 for t in t1_terms.get((p, ns), ())) for p in ref - mine)
            lines.append(f"| {kind.upper()} {ns} | {len(ref):,} | {len(mine):,} | {len(ref - mine):,} | {len(mine - ref):,} | {unknown:,} |")
    return lines + [""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path, help="the shared data directory")
    ap.add_argument("out", type=Path, help="output directory")
    ap.add_argument("--repeat", type=int, default=2, help="runs of the grid cross-validation (timings; default 2)")
    ap.add_argument("--predictions", action="store_true", help="also write predictions/<method>.tsv.gz (slow: gzip)")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    times = cv_runs(a.data, a.out, a.repeat, a.predictions)
    ts = timesplit_run(a.data, a.out)
    md = ["# Reproduction of Clark & Radivojac (2013) on the 2014 data", "",
          "#### Run time and peak memory (each run its own process)", ""]
    for k, v in times.items():
        md.append(f"- cross-validation, {k} thresholds: " + "; ".join(f"{t:.1f} s, {m:.0f} MiB" for t, m in v))
    md += [f"- time split (targets + three baselines, NK and LK): {ts[0]:.1f} s, {ts[1]:.0f} MiB", ""]
    md += table1_md(read_tsv(a.out / "cv_grid" / "table1.tsv"), "Table 1, grid 0.01 (paper in parentheses)")
    md += table1_md(read_tsv(a.out / "cv_exact" / "table1.tsv"), "Table 1, exact thresholds (paper in parentheses)")
    md += similarity_md(read_tsv(a.out / "cv_similarity" / "summary.tsv"))
    md += ["Covered proteins only (no root prediction):", ""]
    md += similarity_md(read_tsv(a.out / "cv_similarity_covered" / "summary.tsv"))[2:]
    md += information_md(a.out / "cv_grid" / "diagnostics.json")
    md += findings(read_tsv(a.out / "cv_grid" / "table1.tsv"))
    md += timesplit_md(a.out) + split_lists_md(a.data, a.out)
    (a.out / "tables.md").write_text("\n".join(md))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
