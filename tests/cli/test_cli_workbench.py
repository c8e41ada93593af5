"""The workbench as trustworthy as the evaluator: every case of its problem list, run in-process.

Time splits with every option, result folders that never mix runs, benchmarks that fail loudly,
undefined measures written as nan, hit tables as users have them, result folders read
defensively, and the other cases (folds, FASTA, OBO, ``--out`` devices, BioCreative gold).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from goeval.cli import main
from conftest import DATA

B = DATA / "benchmarks"
EX = Path(__file__).resolve().parents[2] / "src" / "goeval" / "data" / "cafa2_mfo"
COLS = "qseqid,sseqid,pident,length,evalue,bitscore"


def timesplit(out: Path, *extra: str) -> list[str]:
    return ["benchmark", "timesplit", "--ontology", str(B / "toy.obo"), "--t0", str(B / "t0.tsv"), "--t1",
            str(B / "t1.tsv"), "--hits", str(B / "hits_ts.tsv"), "--sequences", str(B / "seqs.fasta"),
            "--evaluate", "--out", str(out), *extra]


def timesplit_with(out: Path, inputs: dict[str, Path], *extra: str) -> list[str]:
    """:func:`timesplit` with some of its input files replaced (option -> file)."""
    args = timesplit(out, *extra)
    for option, path in inputs.items():
        args[args.index(option) + 1] = str(path)
    return args


def evaluate(out: Path, *extra: str, predictions: Path | None = None, quiet: bool = True,
             thresholds: str = "0.01") -> list[str]:
    return ["evaluate", "--ontology", str(EX / "mfo_from_mfoa_mat.obo.gz"), "--truth",
            str(EX / "groundtruth_leafonly_MFO_NK.tsv"), "--predictions", str(predictions or EX / "BB4S_mfo_NK.tsv.gz"),
            "--thresholds", thresholds, "--out", str(out), *(["-q"] if quiet else []), *extra]


def files(d: Path) -> list[str]:
    return sorted(p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file())


# ------------------------------------------------------------ 1. time splits on a laptop
def test_timesplit_has_what_cv_and_evaluate_have(tmp_path, capsys):
    """--curves (thin by default), --max-terms, --bootstrap, --plots, saved predictions, IA, README with the command."""
    pytest.importorskip("matplotlib")
    out = tmp_path / "ts"
    assert main(timesplit(out, "--bootstrap", "20", "--plots", "--max-terms", "3", "--curve-points", "3")) == 0
    got = files(out)
    for kind in ("nk", "lk", "pk"):
        assert {f"{kind}/summary.tsv", f"{kind}/table1.tsv", f"{kind}/curves.tsv", f"{kind}/diagnostics.json",
                f"{kind}/protein_stats.npz", f"{kind}/predictions/blast.tsv.gz"} <= set(got)
    assert {"ia.tsv", "naive_scores.tsv", "README.md", "manifest.json", "report.html", "report.md",
            "plots/nk_optima.png"} <= set(got)
    readme = (out / "README.md").read_text()
    assert "--bootstrap 20 --plots --max-terms 3" in readme and "goeval benchmark timesplit" in readme
    diag = json.loads((out / "nk" / "diagnostics.json").read_text())
    assert diag["options"]["curves"] == "thin" and diag["options"]["max_terms"] == 3
    assert diag["command"][:3] == ["goeval", "benchmark", "timesplit"] and "numpy" in diag["versions"]
    assert "ci_low" in (out / "nk" / "summary.tsv").read_text().split("\n")[0]
    with gzip.open(out / "nk" / "predictions" / "gotcha.tsv.gz", "rt") as fh:
        assert all(len(line.split("\t")) == 3 for line in fh)
    assert main(["compare", str(out / "nk")]) == 0


def test_timesplit_says_the_targets_source_first_and_opts_out_of_predictions(tmp_path, capsys):
    out = tmp_path / "ts"
    assert main(timesplit(out, "--no-predictions")) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("targets: proteins with a sequence in") and "--sequences" in first
    assert not [f for f in files(out) if "predictions/" in f or f == "naive_scores.tsv"]


def test_project_readme_time_split_names_its_sequences():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "benchmark timesplit" in x)
    assert "--sequences" in line


# ------------------------------------------------------------ 2. a run owns its output folder
def test_reused_output_folder_compare_report_plot_see_only_the_second_run(tmp_path, capsys):
    """evaluate --bootstrap --plots into R, then evaluate A into R: the first run's files are gone, and
    compare/report/plot read the second run only."""
    pytest.importorskip("matplotlib")
    r = tmp_path / "R"
    assert main(evaluate(r, "--bootstrap", "20", "--plots")) == 0
    assert {"protein_stats.npz", "report.html", "plots/optima.png"} <= set(files(r))
    a = tmp_path / "A.tsv"
    with gzip.open(EX / "BB4S_mfo_NK.tsv.gz", "rt") as fh:
        a.write_text("".join(line for i, line in enumerate(fh) if i % 2 == 0))
    capsys.readouterr()
    assert main(evaluate(r, predictions=a, quiet=False)) == 0
    err = capsys.readouterr().err
    assert "removed 9 files of the earlier run" in err  # protein_stats.npz, report.html, report.md and 6 figures
    assert files(r) == ["calibration.tsv", "curves.tsv", "diagnostics.json", "leaderboard.tsv", "manifest.json",
                        "summary.tsv", "timings.json"]
    assert main(["compare", str(r)]) == 2
    assert "protein_stats.npz: no such file" in capsys.readouterr().err
    assert main(["report", str(r)]) == 0 and main(["plot", str(r)]) == 0
    md = (r / "report.md").read_text()
    assert "| Fmax | 1 | A |" in md and "| naive |" not in md
    assert "BB4S_mfo_NK" not in md.split("## Diagnostics")[0]
    manifest = json.loads((r / "manifest.json").read_text())
    assert "report.html" in manifest["files"] and "plots/optima.png" in manifest["files"]


def test_a_file_the_run_did_not_write_is_named_by_compare_report_and_plot(tmp_path, capsys):
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(evaluate(one, "--bootstrap", "20")) == 0
    assert main(evaluate(two, thresholds="0.05")) == 0
    shutil.copy(one / "protein_stats.npz", two / "protein_stats.npz")  # a stray file of another run
    assert main(["compare", str(two)]) == 2
    assert "protein_stats.npz: not written by the run" in capsys.readouterr().err
    shutil.copy(one / "summary.tsv", two / "summary.tsv")  # a listed file replaced by another run's
    for command in (["report", str(two)], ["plot", str(two)]):
        if command[0] == "plot":
            pytest.importorskip("matplotlib")
        assert main(command) == 2
        assert "summary.tsv: changed since the run" in capsys.readouterr().err


def test_files_no_run_wrote_are_left_and_said(tmp_path, capsys):
    r = tmp_path / "R"
    r.mkdir()
    (r / "notes.txt").write_text("mine\n")
    assert main(evaluate(r, quiet=False)) == 0
    assert (r / "notes.txt").read_text() == "mine\n"
    assert "left 1 file that this run did not write" in capsys.readouterr().err
    (r / "manifest.json").write_text("{\"not\": \"goeval\"}\n")
    assert main(evaluate(r)) == 2
    assert "not a goeval manifest" in capsys.readouterr().err


# ------------------------------------------------------------ 3. benchmarks that evaluate nothing fail
def test_cross_validation_whose_hits_name_no_benchmark_protein_fails(tmp_path, capsys):
    hits = tmp_path / "hits.tsv"
    hits.write_text("".join("z" + line for line in (B / "hits.tsv").read_text().splitlines(True)))
    out = tmp_path / "cv"
    assert main(["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "annotations.tsv"),
                 "--hits", str(hits), "--folds", str(B / "folds.tsv"), "--out", str(out), "-q"]) == 2
    assert "nothing was evaluated: none of the 7 queries" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize(("t0", "t1", "message"), [
    (None, None, "t1 adds no annotation to t0"),
    ("exp_2019-01-29.tsv", "exp_2014-10-12.tsv", "t1 is older than t0: t1 2014-10-12"),
    ("exp_2019-01-29.tsv", "exp_2019-01-29b.tsv", "t1 is the same date as t0"),
])
def test_time_split_without_a_later_t1_fails(tmp_path, capsys, t0, t1, message):
    if t0 is None:  # t1 is t0
        inputs = {"--t0": B / "t0.tsv", "--t1": B / "t0.tsv"}
    else:
        shutil.copy(B / "t0.tsv", tmp_path / t0)
        shutil.copy(B / "t1.tsv", tmp_path / t1)
        inputs = {"--t0": tmp_path / t0, "--t1": tmp_path / t1}
    assert main(timesplit_with(tmp_path / "ts", inputs)) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "ts").exists()


def test_fasta_matching_no_target_fails(tmp_path, capsys):
    fasta = tmp_path / "other.fasta"
    fasta.write_text(">zz1\nMKV\n>zz2\nMKL\n")
    assert main(timesplit_with(tmp_path / "ts", {"--sequences": fasta})) == 2
    assert "none of the 8 candidate targets has a sequence in" in capsys.readouterr().err


def test_t0_of_unknown_terms_warns_and_fails_when_nothing_is_learnt(tmp_path, capsys):
    t0 = tmp_path / "t0.tsv"
    t0.write_text((B / "t0.tsv").read_text().replace("GO:00000", "GO:99999"))
    assert main(timesplit_with(tmp_path / "ts", {"--t0": t0}, "--methods", "naive")) == 2
    err = capsys.readouterr().err
    assert "5 of the 5 t0 lines (100%) name terms that are unknown" in err
    assert "method naive predicts no term" in err and "nothing was evaluated" in err
    assert not (tmp_path / "ts").exists()  # a failed run leaves no half-written result, not even its directory


def test_naive_baseline_trained_on_unknown_terms_fails(tmp_path, capsys):
    train = tmp_path / "train.tsv"
    train.write_text((B / "t0.tsv").read_text().replace("GO:00000", "GO:99999"))
    (tmp_path / "targets.txt").write_text("a\n")
    out = tmp_path / "naive.tsv"
    assert main(["baseline", "naive", "--ontology", str(B / "toy.obo"), "--train", str(train), "--targets",
                 str(tmp_path / "targets.txt"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "baseline naive predicts nothing" in err and "5 of its 5 lines name unknown" in err and not out.exists()


# ------------------------------------------------------------ 4. an undefined measure is nan, never 0
def test_ia_covering_none_of_the_terms_gives_nan_not_zero(tmp_path, capsys):
    ia = tmp_path / "ia.tsv"
    ia.write_text("HP:0000001\t1.5\nHP:0000002\t2.0\n")
    out = tmp_path / "r"
    assert main(evaluate(out, "--ia", str(ia), quiet=False)) == 0
    captured = capsys.readouterr()
    assert "undefined and written as nan" in captured.err
    rows = {line.split("\t")[2]: line.split("\t")[3] for line in (out / "summary.tsv").read_text().splitlines()[1:]}
    assert rows["smin"] == "nan" and rows["wfmax"] == "nan" and rows["fmax"] != "nan"
    assert "smin          nan" in captured.out


# ------------------------------------------------------------ 5. hit tables as users have them
def test_six_column_table_without_hit_columns_and_header_by_content(tmp_path):
    out = tmp_path / "cv"
    assert main(["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "annotations.tsv"),
                 "--hits", str(B / "hits.tsv"), "--folds", str(B / "folds.tsv"), "--out", str(out), "-q"]) == 0
    header = tmp_path / "h.tsv"
    header.write_text("qseqid sseqid pident length evalue bitscore\n" + (B / "hits.tsv").read_text().replace("\t", " "))
    assert main(["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "annotations.tsv"),
                 "--hits", str(header), "--folds", str(B / "folds.tsv"), "--out", str(tmp_path / "cv2"), "-q"]) == 0
    assert (out / "summary.tsv").read_text() == (tmp_path / "cv2" / "summary.tsv").read_text()


@pytest.mark.parametrize(("value", "column", "problem"), [
    ("-5", "bitscore", "bit score must not be negative"), ("inf", "bitscore", "bitscore column is infinite"),
    ("nan", "bitscore", "bitscore column is not a number"), ("inf", "evalue", "evalue column is infinite"),
])
def test_bad_bitscore_or_evalue_is_an_error_with_its_line_before_any_work(tmp_path, capsys, value, column, problem):
    lines = (B / "hits.tsv").read_text().splitlines(True)
    f = lines[2].rstrip("\n").split("\t")
    f[{"evalue": 4, "bitscore": 5}[column]] = value
    lines[2] = "\t".join(f) + "\n"
    hits = tmp_path / "hits.tsv"
    hits.write_text("".join(lines))
    assert main(["baseline", "diamondscore", "--ontology", str(B / "toy.obo"), "--train",
                 str(B / "annotations.tsv"), "--hits", str(hits), "--out", str(tmp_path / "p.tsv")]) == 2
    err = capsys.readouterr().err
    assert f"hits.tsv, line 3: the {problem}" in err or f"line 3: {problem}" in err


def test_unrecognised_column_count_says_what_to_do_before_reading_annotations(tmp_path, capsys):
    hits = tmp_path / "hits.tsv"
    hits.write_text("p1\tp2\t90\t100\t1e-40\n")
    bad = tmp_path / "annotations.tsv"
    bad.write_text("p1\n")  # would fail if read: the hit table is checked first
    assert main(["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(bad), "--hits", str(hits),
                 "--k", "2", "--out", str(tmp_path / "cv"), "-q"]) == 2
    assert "5 columns and no header line" in capsys.readouterr().err


# ------------------------------------------------------------ 6. result folders read defensively
def test_truncated_protein_stats_and_summary_are_errors_naming_the_file(tmp_path, capsys):
    r = tmp_path / "r"
    assert main(evaluate(r, "--bootstrap", "10")) == 0
    data = (r / "protein_stats.npz").read_bytes()
    (r / "manifest.json").unlink()  # a folder of an earlier goeval: nothing to check membership against
    (r / "protein_stats.npz").write_bytes(data[: len(data) // 2])
    assert main(["compare", str(r)]) == 2
    assert "protein_stats.npz: cannot read the file (truncated or damaged?)" in capsys.readouterr().err
    text = (r / "summary.tsv").read_text()
    (r / "summary.tsv").write_text(text[: len(text) - 7])
    assert main(["report", str(r)]) == 2
    err = capsys.readouterr().err
    assert "summary.tsv, line" in err and "truncated" in err and "Traceback" not in err


def test_nan_in_a_summary_is_said_and_a_missing_summary_noted(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    ia = tmp_path / "ia.tsv"
    ia.write_text("HP:0000001\t1.5\n")
    r = tmp_path / "r"
    assert main(evaluate(r, "--ia", str(ia), "--plots")) == 0
    assert "nan (undefined)" in (r / "report.md").read_text()
    (r / "manifest.json").unlink()
    (r / "summary.tsv").unlink()
    capsys.readouterr()
    assert main(["report", str(r)]) == 0
    assert "summary.tsv is missing: no rankings" in capsys.readouterr().err
    assert "summary.tsv is missing" in (r / "report.md").read_text()


def test_report_and_plot_of_a_time_split_folder(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "ts"
    assert main(timesplit(out, "-q")) == 0
    assert main(["report", str(out)]) == 0 and main(["plot", str(out)]) == 0
    md = (out / "report.md").read_text()
    kinds = md[md.index("## NK targets"):md.index("## Table 1")]
    ranked = {"NK": ("BPO", "MFO"), "LK": ("BPO", "MFO"), "PK": ("MFO",)}  # PK: only MFO has known terms here
    assert re.findall(r"^##+ (.*)$", kinds, re.M) == [x for k, nss in ranked.items() for x in (
        f"{k} targets", *(f"{ns}: methods ranked" for ns in nss), "Coverage and other measures")]
    table1 = md[md.index("## Table 1"):md.index("## Diagnostics")]
    rows = [line.split(" | ")[0] for line in table1.splitlines() if line.startswith("| ") and " | MFO | " in line]
    assert list(dict.fromkeys(rows)) == ["| NK", "| LK", "| PK"]  # one Table 1, each kind's rows
    assert "cross-validation" not in md and "not recorded" not in md and "No diagnostics recorded" not in md
    assert "Command: `goeval benchmark timesplit" in md and "NK targets: BPO 2 of 2 candidates" in md
    assert {"nk_optima.png", "lk_optima.png", "pk_optima.png"} <= set(os.listdir(out / "plots"))
    assert main(["compare", str(out)]) == 2
    assert "compare one kind" in capsys.readouterr().err


def test_table1_floats_in_their_shortest_decimal_form(tmp_path):
    out = tmp_path / "ts"
    assert main(timesplit(out, "-q", "--methods", "blast")) == 0
    cells = [c for line in (out / "nk" / "table1.tsv").read_text().splitlines()[1:] for c in line.split("\t")[2:]]
    assert all(len(c.replace("0.", "").replace("-", "")) <= 16 for c in cells)
    assert "0.8" in cells and "0.7999999999999999" not in cells  # pident 80 / 100


# ------------------------------------------------------------ 7. others
def test_one_fold_error_names_the_file(tmp_path, capsys):
    folds = tmp_path / "folds.tsv"
    folds.write_text("".join(f"p{i}\t0\n" for i in range(1, 8)))
    assert main(["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "annotations.tsv"),
                 "--hits", str(B / "hits.tsv"), "--folds", str(folds), "--out", str(tmp_path / "cv"), "-q"]) == 2
    assert str(folds) in capsys.readouterr().err


def test_repeated_fold_lines_and_extra_proteins_are_said(tmp_path, capsys):
    folds = tmp_path / "folds.tsv"
    folds.write_text((B / "folds.tsv").read_text() + "p1\t0\nx1\t2\nx2\t1\n")
    assert main(["benchmark", "cv", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "annotations.tsv"),
                 "--hits", str(B / "hits.tsv"), "--folds", str(folds), "--out", str(tmp_path / "cv")]) == 0
    err = capsys.readouterr().err
    assert "1 repeated line (" in err and "2 of its 9 proteins are not annotated" in err


def test_invalid_fasta_residues_in_timesplit_are_an_error_with_the_line(tmp_path, capsys):
    fasta = tmp_path / "seqs.fasta"
    fasta.write_text((B / "seqs.fasta").read_text().replace("MKVLS", "MK1LS"))
    assert main(timesplit_with(tmp_path / "ts", {"--sequences": fasta})) == 2
    assert "seqs.fasta, line 6: '1' is not an amino-acid letter" in capsys.readouterr().err


def test_obo_duplicate_id_error_names_its_lines(tmp_path, capsys):
    obo = tmp_path / "dup.obo"
    obo.write_text("format-version: 1.2\n\n[Term]\nid: X:1\nname: a\n\n[Term]\nid: X:2\nis_a: X:1\n\n"
                   "[Term]\nid: X:1\nname: b\n")
    assert main(["info", str(obo), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "dup.obo, line 11: term X:1 is defined by more than one [Term] stanza, with different content (lines 3 " \
           "and 11)" in err


def _ia_args(out: str) -> list[str]:
    return ["ia", "--ontology", str(B / "toy.obo"), "--annotations", str(B / "t0.tsv"), "--out", out, "-q"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_out_to_a_full_device_fails_with_no_space_left(capsys):
    assert main(_ia_args("/dev/full")) == 2
    assert "no space left" in capsys.readouterr().err


def test_out_through_a_symlink_keeps_the_link(tmp_path):
    (tmp_path / "real.tsv").write_text("old\n")
    (tmp_path / "link.tsv").symlink_to("real.tsv")
    assert main(_ia_args(str(tmp_path / "link.tsv"))) == 0
    assert (tmp_path / "link.tsv").is_symlink() and "GO:0000001" in (tmp_path / "real.tsv").read_text()


def test_out_to_a_fifo_reaches_its_reader(tmp_path):
    fifo = tmp_path / "ia.fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    assert main(_ia_args(str(fifo))) == 0
    reader.join(timeout=10)
    assert not reader.is_alive() and "GO:0000001" in got[0] and fifo.is_fifo()


def test_biocreative_gold_duplicates_are_counted(tmp_path, capsys):
    gold = tmp_path / "gold.tsv"
    gold.write_text("d1\tP1\nd1\tP1\nd1\tP2\n")
    res = tmp_path / "run.tsv"
    res.write_text("d1\tP1\t1\t0.9\n")
    assert main(["biocreative", "--task", "INT", "--gold", str(gold), "--results", str(res), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["gold_duplicates"] == 1
    assert "1 repeated gold line (" in captured.err
