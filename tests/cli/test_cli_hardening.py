"""Regression tests of issue "hardening": failed or interrupted runs leave nothing behind,
everything is checked before any work, outputs are atomic, and the console says what
was dropped. Runs the real ``goeval`` entry point in subprocesses where processes matter.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goeval.cli import main

HERE = Path(__file__).resolve().parent.parent
EVAL = HERE / "data" / "evaluation"
LINUX = sys.platform.startswith("linux")


def _goeval(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    """Start the installed entry point (``console``: main + os._exit) in a new session."""
    code = "import sys; from goeval.cli import console; sys.argv[0] = 'goeval'; console()"
    return subprocess.Popen([sys.executable, "-c", code, *args], env={**os.environ, "GOEVAL_FORK": "always", **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, text=True, **kw)


def _session_processes(sid: int) -> list[int]:
    """Processes of session ``sid`` (zombies included: a child not reaped is a leak too).

    A zombie handed to init (parent 1: a worker's own child, orphaned when its parent ended) has ended
    and is init's to reap, not goeval's: under load init may reap it a moment after goeval exits, so
    it does not count. A live process, or a zombie whose parent lives on, does.
    """
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and not (fields[0] == "Z" and int(fields[1]) == 1):
            out.append(int(entry))
    return out


def _shm() -> set[str]:
    """goeval's files in /dev/shm (other programs may come and go meanwhile)."""
    return {f for f in os.listdir("/dev/shm") if "goeval" in f} if os.path.isdir("/dev/shm") else set()


def _big_predictions(path: Path, n_proteins: int = 400) -> None:
    terms = ["GO:0000001", "GO:0000002", "GO:0000003", "GO:0000011", "GO:0000012"]
    with path.open("w") as fh:
        for i in range(n_proteins):
            for j, t in enumerate(terms):
                fh.write(f"P{i}\t{t}\t{(i * 7 + j) % 100 / 100 + 0.01:.2f}\n")


def _kill_session(proc: subprocess.Popen) -> None:
    """Kill whatever is left of a test's run (only reached when the test already failed)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rindex(")") + 2:].split()[0]


def _wait_for_children(proc: subprocess.Popen, n: int, timeout: float = 30.0, *, blocked: bool = False) -> None:
    """Wait until the session has ``n`` processes (``blocked``: and goeval itself sleeps, e.g. on a FIFO)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if len(_session_processes(proc.pid)) >= n and (not blocked or _state(proc.pid) == "S"):
            return
        if proc.poll() is not None:
            raise AssertionError(f"goeval ended early: {proc.communicate()}")
        time.sleep(0.05)
    raise AssertionError("the forked readers never started")


# ------------------------------------------------------- defect 1: processes
@pytest.mark.skipif(not LINUX, reason="forked readers and /proc are Linux-only")
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_interrupted_run_leaves_no_process_and_no_file(tmp_path, sig, status):
    """The truth is a FIFO nobody writes: the run blocks after both readers were forked."""
    fifo = tmp_path / "truth.tsv"
    os.mkfifo(fifo)
    preds = tmp_path / "preds.tsv"
    _big_predictions(preds)
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.tsv").write_text("old summary\n")
    shm = _shm()
    proc = _goeval("evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(fifo), "--predictions",
                   str(preds), "--out", str(out))
    try:
        # goeval blocked on the truth with a forked reader (the ontology parser may be done and reaped already)
        _wait_for_children(proc, 2, blocked=True)
        if sig == signal.SIGINT:  # Ctrl-C reaches the whole foreground group
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        stdout, stderr = proc.communicate(timeout=30)  # returns only when no process holds the pipes
    finally:
        _kill_session(proc)
    assert proc.returncode == status, stderr
    assert "Traceback" not in stderr
    assert _session_processes(proc.pid) == []
    assert sorted(p.name for p in out.iterdir()) == ["summary.tsv"]
    assert (out / "summary.tsv").read_text() == "old summary\n"
    assert _shm() == shm


@pytest.mark.skipif(not LINUX, reason="forked readers and /proc are Linux-only")
@pytest.mark.parametrize("broken", ["truth", "ontology_missing_after_start", "ia"])
def test_failed_run_after_start_up_leaves_no_process(tmp_path, broken):
    preds = tmp_path / "preds.tsv"
    _big_predictions(preds)
    truth = EVAL / "truth.tsv"
    ia = EVAL / "ia.tsv"
    if broken == "truth":
        truth = tmp_path / "truth.tsv"
        truth.write_text("P1\tGO:0000003\nP2\n")
    elif broken == "ia":
        ia = tmp_path / "ia.tsv"
        ia.write_text("GO:0000001\t1\nGO:0000001\t2\n")
    ontology = EVAL / "small.obo"
    if broken == "ontology_missing_after_start":
        ontology = tmp_path / "broken.obo"
        ontology.write_text("format-version: 1.2\n\n[Term]\nid: GO:1\nis_a GO:2\n")
    proc = _goeval("evaluate", "--ontology", str(ontology), "--truth", str(truth), "--predictions", str(preds),
                   "--ia", str(ia), "--out", str(tmp_path / "out"))
    try:
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        _kill_session(proc)
    assert proc.returncode == 2, stderr
    assert "error:" in stderr and "Traceback" not in stderr and "line" in stderr
    assert _session_processes(proc.pid) == []
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.skipif(not LINUX, reason="forked readers are Linux-only")
def test_successful_forked_run_equals_in_process_run(tmp_path):
    preds = tmp_path / "preds.tsv"
    _big_predictions(preds)
    outs = {}
    for mode in ("always", "never"):
        out = tmp_path / mode
        proc = _goeval("evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                       "--predictions", str(preds), "--ia", str(EVAL / "ia.tsv"), "--out", str(out),
                       env={"GOEVAL_FORK": mode})
        try:
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            _kill_session(proc)
        assert proc.returncode == 0, stderr
        assert _session_processes(proc.pid) == []
        diag = json.loads((out / "diagnostics.json").read_text())
        diag.pop("command")  # names the output directory
        outs[mode] = [(out / f).read_bytes() for f in ("curves.tsv", "summary.tsv")] + [diag]
    assert outs["always"] == outs["never"]


# ------------------------------------------------ defect 2: validate first
@pytest.mark.parametrize(("option", "message"), [
    (["--thresholds", "0.3"], "divide 1 exactly"),
    (["--thresholds", "1e-9"], "thresholds (at most"),
    (["--k", "-1"], "option --k must"),
    (["--k", "0.5"], "option --k must"),
    (["--namespaces", ""], "comma-separated, no empty item"),
    (["--namespaces", "BPO,BPO"], "more than once"),
    (["--namespaces", "BPO,,MFO"], "comma-separated, no empty item"),
])
def test_bad_options_fail_before_reading(tmp_path, capsys, option, message):
    fifo = tmp_path / "truth.tsv"  # reading it would block: the options must fail first
    if LINUX:
        os.mkfifo(fifo)
    else:
        fifo.write_text("P1\tGO:0000003\n")
    try:
        code = main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(fifo), "--predictions",
                     str(EVAL / "bp_only.tsv"), "--out", str(tmp_path / "out"), *option])
    except SystemExit as exc:  # argparse's own checks (empty list item)
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_output_path_that_is_a_file_fails_before_reading(tmp_path, capsys):
    out = tmp_path / "results"
    out.write_text("not a directory")
    fifo = tmp_path / "truth.tsv"
    if LINUX:
        os.mkfifo(fifo)
    else:
        fifo.write_text("P1\tGO:0000003\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(fifo), "--predictions",
                 str(EVAL / "bp_only.tsv"), "--out", str(out)]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_output_fails_before_reading(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(EVAL / "bp_only.tsv"), "--out", str(locked / "out")]) == 2
    assert "not writable" in capsys.readouterr().err


@pytest.mark.parametrize("missing", ["--ontology", "--truth", "--predictions", "--ia", "--targets"])
def test_missing_inputs_are_named(tmp_path, capsys, missing):
    args = {"--ontology": str(EVAL / "small.obo"), "--truth": str(EVAL / "truth.tsv"),
            "--predictions": str(EVAL / "bp_only.tsv"), "--ia": str(EVAL / "ia.tsv"), "--targets": None}
    args[missing] = str(tmp_path / "nope.tsv")
    argv = ["evaluate", "--out", str(tmp_path / "out")]
    for k, v in args.items():
        if v is not None:
            argv += [k, v]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "nope.tsv" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_disk_full_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    import errno

    from goeval.errors import OutputError
    from goeval.io import files

    class Full:
        def __init__(self, path, *args, **kwargs):  # noqa: ANN001
            self.path = path
            Path(path).write_text("")

        def write(self, text):  # noqa: ANN001
            raise OSError(errno.ENOSPC, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):  # noqa: ANN002
            return False

    monkeypatch.setattr(files, "_opener", lambda p: Full)
    target = tmp_path / "x.tsv"
    with pytest.raises(OutputError, match="no space left"):
        with files.open_text_out(target) as fh:
            fh.write("x" * 100)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------- defect 5: loud warnings
def _two_namespace_truth(tmp_path: Path) -> Path:
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000003\nP1\tGO:0000011\nP2\tGO:0000002\nP3\tGO:0000012\n")
    return truth


def test_ia_file_for_another_namespace_is_a_warning_on_the_console(tmp_path, capsys):
    ia = tmp_path / "mf_ia.tsv"
    ia.write_text("GO:0000011\t1.5\nGO:0000012\t2\n")  # molecular function terms only
    preds = tmp_path / "p.tsv"
    preds.write_text("P1\tGO:0000003\t0.5\nP1\tGO:0000011\t0.4\nP3\tGO:0000012\t0.9\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(_two_namespace_truth(tmp_path)),
                 "--predictions", str(preds), "--ia", str(ia), "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert "goeval: warning: the IA file" in err and "BPO terms" in err
    assert "MFO terms" not in err
    assert "GoevalWarning" not in err and "warnings.warn" not in err  # one line each, no source lines
    assert all(ln.startswith("goeval: warning: ") for ln in err.splitlines() if "warning" in ln.lower())


def test_counts_refer_to_the_evaluated_namespaces(tmp_path):
    import goeval

    res = goeval.evaluate(EVAL / "small.obo", _two_namespace_truth(tmp_path), [EVAL / "bp_only.tsv"],
                          ia=EVAL / "ia.tsv", namespaces=["BPO"])
    assert set(res.diagnostics["ia"]["missing_by_namespace"]) == {"BPO"}


def test_targets_matching_no_truth_protein_fail_with_that_message(tmp_path, capsys):
    targets = tmp_path / "targets.txt"
    targets.write_text("Q9\nQ8\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(EVAL / "bp_only.tsv"), "--targets", str(targets),
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "none of the 2 targets has a truth annotation" in err
    assert "no method had predictions" not in err
    assert not (tmp_path / "o").exists()


def test_predictions_for_no_benchmark_protein_warn_and_fail(tmp_path, capsys):
    preds = tmp_path / "other.tsv"
    preds.write_text("X1\tGO:0000003\t0.5\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(preds), "--out", str(tmp_path / "o")]) == 2
    captured = capsys.readouterr()
    assert "method other: none of its 1 proteins is a benchmark protein" in captured.err
    assert "nothing was evaluated" in captured.err
    assert "1 protein without truth ignored" in captured.err


def test_console_states_drops_and_remaps_by_reason(tmp_path, capsys):
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000003\nP1\tGO:0000003\nP2\tGO:0000002\nP3\tGO:7654321\n")
    preds = tmp_path / "p.tsv"
    preds.write_text("P1\tGO:0000003\t0.5\nP1\tGO:9999999\t0.4\nP4\tGO:0000002\t0.3\nP2\tGO:0000002\t0\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(truth),
                 "--predictions", str(preds), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().err  # messages on stderr, the summary table on stdout
    truth_line = next(ln for ln in out.splitlines() if ln.startswith("truth "))
    assert "1 unknown term" in truth_line and "1 line repeats a (protein, term) pair" in truth_line
    method_line = next(ln for ln in out.splitlines() if ln.startswith("p: "))
    assert "1 unknown term" in method_line and "1 score of 0" in method_line
    assert "1 protein without truth ignored" in method_line


# ------------------------------------------------------ defect 6: outputs
def test_diagnostics_are_deterministic_and_timings_apart(tmp_path):
    runs = []
    for _ in range(2):
        out = tmp_path / "o"  # the same invocation twice (the command is recorded)
        assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                     "--predictions", str(EVAL / "bp_only.tsv"), "--ia", str(EVAL / "ia.tsv"), "--out", str(out),
                     "--quiet"]) == 0
        runs.append((out / "diagnostics.json").read_bytes())
        assert "timings_seconds" not in json.loads(runs[-1])
        assert json.loads((out / "timings.json").read_text())
    assert runs[0] == runs[1]


def test_result_set_is_all_or_nothing(tmp_path):
    from goeval.io.files import OutputSet

    (tmp_path / "curves.tsv").write_text("old curves\n")
    (tmp_path / "summary.tsv").write_text("old summary\n")
    with pytest.raises(RuntimeError):
        with OutputSet(tmp_path) as out:
            with out.open("curves.tsv") as fh:
                fh.write("new curves\n")
            with out.open("summary.tsv") as fh:
                fh.write("new su")
                raise RuntimeError("interrupted while writing")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.tsv", "summary.tsv"]
    assert (tmp_path / "curves.tsv").read_text() == "old curves\n"
    with OutputSet(tmp_path) as out:
        for name in ("curves.tsv", "summary.tsv"):
            with out.open(name) as fh:
                fh.write(f"new {name}\n")
    assert (tmp_path / "curves.tsv").read_text() == "new curves.tsv\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.tsv", "summary.tsv"]


def _floats_are_shortest(path: Path) -> None:
    for line in path.read_text().splitlines()[1:]:
        for cell in line.split("\t"):
            try:
                v = float(cell)
            except ValueError:
                continue
            if "e" not in cell and "." in cell:
                assert cell == repr(v), (path, cell)


def test_retrieval_and_propagate_write_shortest_floats(tmp_path):
    preds = tmp_path / "p.tsv"
    preds.write_text("P1\tGO:0000003\t0.48\nP2\tGO:0000002\t0.1\nP3\tGO:0000012\t0.3\n")
    assert main(["retrieval", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(preds), "--out", str(tmp_path / "r"), "-k", "1", "--quiet"]) == 0
    for name in ("retrieval_summary.tsv", "retrieval_terms.tsv", "tap_curve.tsv"):
        _floats_are_shortest(tmp_path / "r" / name)
    out = tmp_path / "prop.tsv"
    assert main(["propagate", "--ontology", str(EVAL / "small.obo"), "--input", str(preds), "--out", str(out),
                 "--quiet"]) == 0
    assert "0.48\n" in out.read_text() and "0.47999999999999998" not in out.read_text()


# ---------------------------------------------- defect 7: real input layouts
def test_prediction_directory_with_readme_and_checkpoints(tmp_path, capsys):
    d = tmp_path / "preds"
    (d / ".ipynb_checkpoints").mkdir(parents=True)
    (d / "teamA").mkdir()
    (d / "teamB").mkdir()
    (d / "README.md").write_text("# our predictions\n")
    (d / "run.log").write_text("started\n")
    (d / ".ipynb_checkpoints" / "m-checkpoint.tsv").write_text("garbage\n")
    (d / "teamA" / "m.tsv").write_text("P1\tGO:0000003\t0.5\n")
    (d / "teamB" / "m.tsv").write_text("P1\tGO:0000003\t0.7\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(d), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().err
    assert "skipped" in out and "README.md" in out and "run.log" in out and ".ipynb_checkpoints" in out
    summary = (tmp_path / "o" / "summary.tsv").read_text()
    assert "teamA/m\t" in summary and "teamB/m\t" in summary


def test_ia_command_takes_several_files_and_gaf(tmp_path, capsys):
    a = tmp_path / "a.tsv"
    a.write_text("P1\tGO:0000003\n")
    gaf = tmp_path / "b.gaf"
    gaf.write_text("!gaf-version: 2.1\n" + "\t".join(
        ["UniProtKB", "P2", "X", "", "GO:0000002", "PMID:1", "IDA", "", "P", "", "", "protein", "taxon:1",
         "20200101", "UniProt", "", ""]) + "\n")
    out = tmp_path / "ia.tsv"
    assert main(["ia", "--ontology", str(EVAL / "small.obo"), "--annotations", str(a), str(gaf),
                 "--out", str(out)]) == 0
    assert "2 proteins" in capsys.readouterr().err
    values = dict(line.split("\t") for line in out.read_text().splitlines())
    assert float(values["GO:0000001"]) >= 0


def test_retrieval_ia_without_query_weights_is_honoured_and_with_uniform_weights_still_used(tmp_path, capsys):
    common = ["retrieval", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
              "--predictions", str(EVAL / "bp_only.tsv"), "--ia", str(EVAL / "ia.tsv")]
    assert main([*common, "--out", str(tmp_path / "r"), "--quiet"]) == 0
    diag = json.loads((tmp_path / "r" / "diagnostics.json").read_text())
    assert diag["options"]["query_weights"] == "ia"
    # uniform query weights: the IA still makes the informative terms and weighs the average precision
    assert main([*common, "--query-weights", "uniform", "--out", str(tmp_path / "r2"), "--quiet"]) == 0
    diag = json.loads((tmp_path / "r2" / "diagnostics.json").read_text())
    assert diag["options"]["query_weights"] == "uniform" and diag["options"]["informative_cutoff"] == 0.5
    assert "informative_roc_auc" in (tmp_path / "r2" / "retrieval_summary.tsv").read_text()


def test_cafa_file_without_end_warns_about_truncation(tmp_path, capsys):
    preds = tmp_path / "cut.txt"
    preds.write_text("AUTHOR team\nMODEL 1\nKEYWORDS homolog\nP1\tGO:0000003\t0.5\nP2\tGO:0000002\t0.4\n")
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(preds), "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert "goeval: warning: method cut:" in err and "no final END line; the file may be truncated" in err


@pytest.mark.skipif(not LINUX, reason="/proc is Linux-only")
@pytest.mark.parametrize(("stream", "delay"), [(False, 0.0), (False, 0.15), (True, 0.3), (False, 2.0), (True, 2.0)])
def test_interrupted_dask_run_stops_its_cluster(tmp_path, stream, delay):
    """SIGTERM while the cluster starts or once the run waits for its truth: no process, file or
    scratch directory is left (the cluster's workers and multiprocessing's tracker included)."""
    pytest.importorskip("distributed")

    fifo = tmp_path / "truth.tsv"
    os.mkfifo(fifo)
    preds = tmp_path / "preds.tsv"
    _big_predictions(preds)
    out = tmp_path / "out"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = _goeval("evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(fifo), "--predictions",
                   str(preds), "--out", str(out), "--dask", "local:2", *(["--stream"] if stream else []),
                   env={"TMPDIR": str(scratch)})
    try:
        _wait_for_children(proc, 3, timeout=60)  # goeval and the cluster's first worker processes
        time.sleep(delay)  # while the cluster starts, or once it waits for the truth
        os.kill(proc.pid, signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        _kill_session(proc)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert _session_processes(proc.pid) == []
    assert not out.exists() or not any(out.iterdir())
    assert list(scratch.iterdir()) == []  # the cluster's scratch space is gone


@pytest.mark.skipif(not LINUX, reason="/proc is Linux-only")
def test_failed_streamed_dask_run_leaves_no_process(tmp_path):
    pytest.importorskip("distributed")
    preds = tmp_path / "preds.tsv"
    _big_predictions(preds)
    with preds.open("a") as fh:
        fh.write("P1\tGO:0000001\n")  # a malformed last line: found while streaming
    proc = _goeval("evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                   "--predictions", str(preds), "--out", str(tmp_path / "out"), "--dask", "local:2", "--stream")
    try:
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        _kill_session(proc)
    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr and "line 2001" in stderr
    assert _session_processes(proc.pid) == []
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_truth_given_as_a_fifo_is_read_once_and_whole(tmp_path):
    """`--truth <(zcat truth.gz)`: the truth is a FIFO, which only one reader can drain; the early reader of the
    predictions (which reads a regular truth file itself, for its filter) leaves it to the evaluation."""
    import threading

    truth = (EVAL / "truth.tsv").read_bytes()
    fifo = tmp_path / "truth_fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(truth), daemon=True)
    writer.start()
    args = ["evaluate", "--ontology", str(EVAL / "small.obo"), "--predictions", str(EVAL / "cafa_format.txt"), "-q"]
    assert main([*args, "--truth", str(fifo), "--out", str(tmp_path / "a")]) == 0
    writer.join(5)
    assert main([*args, "--truth", str(EVAL / "truth.tsv"), "--out", str(tmp_path / "b")]) == 0
    assert (tmp_path / "a" / "summary.tsv").read_text() == (tmp_path / "b" / "summary.tsv").read_text()
