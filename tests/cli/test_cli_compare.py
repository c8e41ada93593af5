"""goeval compare RESULTS_DIR: the pairs table (and duels) from protein_stats.npz."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracles import random_case

import goeval
from goeval.cli import compare as cmd
from goeval.errors import InputFormatError
from goeval.evaluation import evaluate_annotations
from goeval.stats import PROTEIN_STATS_FILE, write_protein_stats
from goeval.stats.compare import PAIR_COLUMNS


def run_compare(argv: list[str]) -> int:
    from goeval.cli import COMMANDS

    if "compare" in COMMANDS:
        from goeval.cli import main

        return main(["compare", *argv])
    p = argparse.ArgumentParser()
    cmd.add_arguments(p)
    return cmd.run(p.parse_args(argv))


@pytest.fixture
def results_dir(tmp_path):
    case = random_case(5, n_proteins=25)
    onto = case.ontology()
    other = {k: min(1.0, v * 0.5 + 0.4) for k, v in case.scores.items()}
    preds = {"A": case.predictions(onto), "B": case.predictions(onto, other), "C": case.predictions(onto)}
    res = evaluate_annotations(onto, case.truth_annotations(onto), preds, ia=case.ia_array(onto), bootstrap=50)
    write_protein_stats(tmp_path / PROTEIN_STATS_FILE, res)
    return tmp_path


def test_two_methods_print_the_pairs_table_and_write_it(results_dir, capsys, tmp_path):
    out = tmp_path / "pairs.tsv"
    assert run_compare([str(results_dir), "--methods", "A,B", "--bootstrap", "100", "--permutations", "30",
                        "--format", "tsv", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split("\t") == list(PAIR_COLUMNS)
    rows = [dict(zip(PAIR_COLUMNS, x.split("\t"))) for x in lines[1:]]
    assert {r["method_a"] + r["method_b"] for r in rows} == {"AB"} and len(rows) == 2
    assert out.read_text().splitlines() == lines
    assert all(0 < float(r["p_value"]) <= 1 for r in rows)


def test_three_methods_add_the_duel_matrix(results_dir, capsys):
    assert run_compare([str(results_dir), "--bootstrap", "60", "--permutations", "0", "--measure", "smin"]) == 0
    text = capsys.readouterr().out
    assert "share of resamples in which the row beats the column (smin)" in text
    assert text.count("method_a") == 1


def test_identical_methods_tie(results_dir, capsys):
    run_compare([str(results_dir), "--methods", "A,C", "--bootstrap", "40", "--permutations", "10", "--format", "tsv"])
    for line in capsys.readouterr().out.strip().splitlines()[1:]:
        r = dict(zip(PAIR_COLUMNS, line.split("\t")))
        assert float(r["difference"]) == 0 and float(r["ties"]) == 1 and float(r["p_value"]) == 1


def test_a_directory_without_statistics_is_an_input_error(tmp_path, capsys):
    try:
        rc = run_compare([str(tmp_path)])
    except InputFormatError as exc:  # the module run on its own raises; goeval's main reports it
        assert "--bootstrap" in str(exc)
        return
    assert rc != 0 and "--bootstrap" in capsys.readouterr().err


def test_the_printed_table_is_rounded_for_reading_and_the_file_keeps_full_precision(results_dir, capsys, tmp_path):
    out = tmp_path / "pairs.tsv"
    assert run_compare([str(results_dir), "--methods", "A,B", "--bootstrap", "100", "--permutations", "30",
                        "--out", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "fmax: difference = value_a - value_b (100 resamples, 30 permutations; full precision: " \
                       "--format tsv or --out)"
    assert lines[1].split() == ["ns", "method_a", "method_b", "value_a", "value_b", "difference", "CI", "se", "wins_a",
                                "ties", "wins_b", "p", "p_holm"]
    assert all(len(line) <= 120 for line in lines)
    for line in lines[2:]:
        numbers = [x.strip("[],") for x in line.split()[3:]]
        assert all(len(x.split(".")[1]) in (3, 4) for x in numbers if "." in x), line  # 4 decimals (shares 3)
    written = out.read_text().splitlines()
    assert written[0].split("\t") == list(PAIR_COLUMNS)
    assert any(len(x) > 8 for x in written[1].split("\t")[4:7])  # full precision in the file


def _arrays(results_dir):
    return dict(np.load(results_dir / PROTEIN_STATS_FILE, allow_pickle=False))


def test_a_block_listed_twice_in_the_meta_is_refused_without_a_summary(results_dir, capsys):
    import json

    arrays = _arrays(results_dir)
    meta = json.loads(str(arrays["meta"]))
    meta["blocks"][1] = meta["blocks"][0]  # the second block's arrays read as the first's, silently
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(results_dir / PROTEIN_STATS_FILE, **arrays)
    assert not (results_dir / "summary.tsv").exists()
    from goeval.cli import main

    assert main(["compare", str(results_dir), "--bootstrap", "10", "--permutations", "0"]) == 2
    assert re.search(r"its 'meta' lists the block\(s\) A \(\w+\) twice", capsys.readouterr().err)


def test_a_meta_nested_too_deep_is_an_input_error(results_dir, capsys):
    from goeval.cli import main

    arrays = _arrays(results_dir)
    arrays["meta"] = np.array("[" * 200_000)
    np.savez_compressed(results_dir / PROTEIN_STATS_FILE, **arrays)
    assert main(["compare", str(results_dir), "--bootstrap", "10", "--permutations", "0"]) == 2
    err = capsys.readouterr().err
    assert "'meta' entry is not the list of blocks" in err and "Traceback" not in err


def test_a_summary_the_run_wrote_and_that_was_removed_does_not_skip_the_check(tmp_path, capsys):
    from goeval.cli import main
    from goeval.io.results import write_results
    from goeval.stats.store import protein_stats_arrays

    case = random_case(5, n_proteins=20)
    onto = case.ontology()
    res = evaluate_annotations(onto, case.truth_annotations(onto), {"A": case.predictions(onto),
                                                                   "B": case.predictions(onto)}, bootstrap=10)
    run = tmp_path / "run"
    write_results(run, res.curve_columns, res.summary_records, list(res.summary.columns), res.diagnostics,
                  extra_arrays={PROTEIN_STATS_FILE: protein_stats_arrays(res.stats, res.diagnostics["options"])})
    argv = ["compare", str(run), "--bootstrap", "10", "--permutations", "0"]
    assert main(argv) == 0
    (run / "summary.tsv").unlink()
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "summary.tsv is missing, though the run" in err and "manifest.json lists it" in err


def _saved_run(tmp_path, methods: tuple[str, ...], bootstrap: int = 40, seed: int = 3):
    """A results directory as EvaluationResult.save writes it (diagnostics.json records the run's bootstrap)."""
    case = random_case(5, n_proteins=25)
    onto = case.ontology()
    other = {k: min(1.0, v * 0.5 + 0.4) for k, v in case.scores.items()}
    preds = {m: case.predictions(onto, other if i % 2 else None) for i, m in enumerate(methods)}
    res = evaluate_annotations(onto, case.truth_annotations(onto), preds, ia=case.ia_array(onto), bootstrap=bootstrap,
                               seed=seed, confidence=0.9)
    res.save(tmp_path / "run")
    return res, tmp_path / "run"


def test_a_one_method_run_says_so_not_that_methods_were_named(tmp_path, capsys):
    from goeval.cli import main

    _res, run = _saved_run(tmp_path, ("BLAST",))
    assert main(["compare", str(run), "--permutations", "0"]) == 2
    err = capsys.readouterr().err
    assert ("A comparison needs at least two methods evaluated in one run; the statistics hold one method, 'BLAST'"
            in err) and "'methods' parameter" not in err


def test_the_run_s_own_resampling_by_default_and_bootstrap_to_change_it(tmp_path, capsys):
    """Without --bootstrap, --seed, --confidence: the run's (40 resamples, seed 3, 0.9), so the pairs are drawn from
    the resamples of its stored intervals; --bootstrap changes the count."""
    from goeval.cli import main
    from goeval.stats.compare import compare

    res, run = _saved_run(tmp_path, ("A", "B"))
    assert main(["compare", str(run), "--permutations", "20", "--format", "tsv"]) == 0
    out, err = capsys.readouterr()
    assert f"resampling: 40 resamples, seed 3, confidence 0.9, the run's own, from {run / 'diagnostics.json'}" in err
    rows = [dict(zip(PAIR_COLUMNS, x.split("\t"))) for x in out.strip().splitlines()[1:]]
    want = compare(res, n_resamples=40, seed=3, confidence=0.9, permutations=20).pairs
    assert [(r["ci_low"], r["ci_high"], r["n_resamples"]) for r in rows] == [
        (repr(w["ci_low"]), repr(w["ci_high"]), "40") for w in want]
    assert main(["compare", str(run), "--bootstrap", "60", "--permutations", "0", "--format", "tsv"]) == 0
    out, err = capsys.readouterr()
    assert "resampling: 60 resamples, seed 3" in err
    assert {x.split("\t")[PAIR_COLUMNS.index("n_resamples")] for x in out.strip().splitlines()[1:]} == {"60"}


def test_point_sums_that_are_not_finite_are_an_error_naming_the_file(results_dir, capsys):
    from goeval.cli import main

    arrays = _arrays(results_dir)
    arrays["0/sums/pr"] = np.full_like(arrays["0/sums/pr"], np.nan)
    np.savez_compressed(results_dir / PROTEIN_STATS_FILE, **arrays)
    assert main(["compare", str(results_dir), "--bootstrap", "10", "--permutations", "0"]) == 2
    err = capsys.readouterr().err
    assert f"{results_dir / PROTEIN_STATS_FILE}: the entry 0/sums/pr of block" in err and "not finite" in err


def test_groups_compare_one_method_between_two_groups_of_a_run(tmp_path, capsys):
    """--groups A,B reads groups/A/ and groups/B/ of an evaluate --groups --bootstrap run ('all': the run's own) and
    prints what goeval.stats.compare_groups gives; an unknown group or the same one twice is an error (status 2)."""
    import goeval
    from goeval.cli import main
    from goeval.stats import read_protein_stats
    from goeval.stats.compare import GROUP_PAIR_COLUMNS, compare_groups

    d = goeval.example_path
    prots = goeval.load_annotations(d("truth"), goeval.load_ontology(d("ontology"))).proteins.tolist()
    (tmp_path / "g.tsv").write_text("".join(f"{p}\tfirst\n" for p in prots[:150]) +
                                    "".join(f"{p}\tlater/x\n" for p in prots[100:300]))
    out = tmp_path / "run"
    assert main(["evaluate", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
                 str(d("predictions")), "--ia", str(d("ia")), "--groups", str(tmp_path / "g.tsv"), "--bootstrap", "20",
                 "-q", "--out", str(out)]) == 0
    capsys.readouterr()
    assert run_compare([str(out), "--groups", "first,later/x", "--format", "tsv", "--out", str(tmp_path / "p.tsv")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split("\t") == list(GROUP_PAIR_COLUMNS) and len(lines) == 2
    (a, oa), (b, _) = (read_protein_stats(out / "groups" / g / PROTEIN_STATS_FILE) for g in ("first", "later_x"))
    (want,) = compare_groups(a, b, names=("first", "later/x"), n_resamples=20, options=oa, with_ia=True)
    got = dict(zip(GROUP_PAIR_COLUMNS, lines[1].split("\t")))
    assert got["group_b"] == "later/x" and int(got["proteins_shared"]) == want["proteins_shared"] == 50
    assert float(got["ci_low"]) == want["ci_low"] and float(got["difference"]) == want["difference"]
    assert (tmp_path / "p.tsv").read_text().splitlines() == lines
    assert run_compare([str(out), "--groups", "all,first"]) == 0
    assert "all      first    421  150  150" in capsys.readouterr().out
    assert run_compare([str(out), "--groups", "first,nope"]) == 2
    err = capsys.readouterr().err
    assert "no group 'nope'" in err and "its groups: first, later_x" in err
    assert run_compare([str(out), "--groups", "first,first"]) == 2
    assert "two different groups" in capsys.readouterr().err


def test_groups_of_a_cafa6_run_are_compared_within_each_kind(tmp_path, capsys):
    """goeval cafa6 --groups --bootstrap writes KIND/groups/NAME/ per kind; compare --groups A,B on its folder compares
    the groups within each kind (namespace KIND/NS), as compare --groups on that kind's folder alone; the final score
    (a measure over the kinds) is refused with a clear error (status 2)."""
    import goeval
    from goeval.cli import main
    from goeval.stats.compare import GROUP_PAIR_COLUMNS

    d = goeval.example_path
    prots = goeval.load_annotations(d("truth"), goeval.load_ontology(d("ontology"))).proteins.tolist()
    (tmp_path / "g.tsv").write_text("".join(f"{p}\tfirst\n" for p in prots[:150]))
    out = tmp_path / "run"
    assert main(["cafa6", "--ontology", str(d("ontology")), "--truth-nk", str(d("truth")), "--truth-lk", str(d("truth")),
                 "--predictions", str(d("predictions")), "--ia", str(d("ia")), "--groups", str(tmp_path / "g.tsv"),
                 "--bootstrap", "20", "-q", "--out", str(out)]) == 0
    assert all((out / k / "groups" / "first" / "protein_stats.npz").is_file() for k in ("NK", "LK"))
    capsys.readouterr()
    assert run_compare([str(out), "--groups", "all,first", "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split("\t") == list(GROUP_PAIR_COLUMNS)
    rows = [dict(zip(GROUP_PAIR_COLUMNS, x.split("\t"))) for x in lines[1:]]
    assert [r["namespace"] for r in rows] == ["NK/MFO", "LK/MFO"]
    assert run_compare([str(out / "NK"), "--groups", "all,first", "--format", "tsv"]) == 0
    (alone,) = [dict(zip(GROUP_PAIR_COLUMNS, x.split("\t"))) for x in capsys.readouterr().out.strip().splitlines()[1:]]
    assert {**rows[0], "namespace": "MFO"} == alone and alone["proteins_shared"] == "150"
    assert run_compare([str(out), "--groups", "all,first", "--measure", "cafa6_metric_final"]) == 2
    assert "compares the groups within each kind (NK, LK)" in capsys.readouterr().err


@pytest.fixture(scope="module")
def wang_run(tmp_path_factory):
    """goeval evaluate --similarity wang --bootstrap 50 of the bundled example and a second method (its scores
    lowered on half of the proteins)."""
    import gzip

    import goeval
    from goeval.cli import main

    d = goeval.example_path
    tmp = tmp_path_factory.mktemp("wang")
    lines = gzip.open(d("predictions"), "rt").read().splitlines()
    proteins = sorted({x.split("\t")[0] for x in lines})
    low = set(proteins[::2])
    other = tmp / "other.tsv"
    other.write_text("".join(f"{p}\t{t}\t{float(s) * (0.5 if p in low else 1.0)}\n"
                             for p, t, s in (x.split("\t")[:3] for x in lines)))
    out = tmp / "run"
    assert main(["evaluate", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
                 str(d("predictions")), str(other), "--ia", str(d("ia")), "--thresholds", "0.02", "--similarity",
                 "wang", "--pairings", "bma,max", "--bootstrap", "50", "--out", str(out), "--quiet"]) == 0
    return out


def test_evaluate_with_wang_and_a_bootstrap_writes_intervals_for_wang(wang_run):
    import pandas as pd

    summary = pd.read_csv(wang_run / "summary.tsv", sep="\t")
    wang = summary[summary["measure"].isin(["wang_bma", "wang_max"])]
    assert len(wang) == 4  # two methods, one namespace
    assert wang["ci_low"].notna().all() and (wang["ci_low"] <= wang["value"]).all()
    assert (wang["value"] <= wang["ci_high"]).all() and (wang["se"] >= 0).all()


def test_compare_on_a_wang_measure_gives_a_paired_difference(wang_run, capsys):
    from goeval.cli import main
    from goeval.stats import read_protein_stats
    from goeval.stats.compare import compare

    assert main(["compare", str(wang_run), "--measure", "wang_bma", "--permutations", "40", "--format", "tsv"]) == 0
    rows = [dict(zip(PAIR_COLUMNS, x.split("\t"))) for x in capsys.readouterr().out.strip().splitlines()[1:]]
    assert len(rows) == 1 and rows[0]["measure"] == "wang_bma"
    stats, options = read_protein_stats(wang_run / PROTEIN_STATS_FILE)
    want = compare(stats, measure="wang_bma", n_resamples=50, permutations=40, options=options, with_ia=True).pairs[0]
    assert float(rows[0]["difference"]) == want["difference"] and float(rows[0]["ci_low"]) == want["ci_low"]
    assert float(rows[0]["ci_low"]) < float(rows[0]["ci_high"]) and 0 < float(rows[0]["p_value"]) <= 1
    # a similarity measure the run did not evaluate: a clear error, exit status 2
    assert main(["compare", str(wang_run), "--measure", "lin_bma", "--permutations", "0"]) == 2
    assert "hold no per-protein similarity statistics of lin_bma" in capsys.readouterr().err


def test_damaged_similarity_statistics_are_an_error_naming_the_file(wang_run, tmp_path, capsys):
    import shutil

    from goeval.cli import main

    run = tmp_path / "run"
    shutil.copytree(wang_run, run)
    (run / "manifest.json").unlink(missing_ok=True)
    arrays = _arrays(run)
    arrays["0/similarity/bins"] = arrays["0/similarity/bins"] + 1000  # beyond the thresholds
    np.savez_compressed(run / PROTEIN_STATS_FILE, **arrays)
    assert main(["compare", str(run), "--measure", "wang_max", "--bootstrap", "10", "--permutations", "0"]) == 2
    err = capsys.readouterr().err
    assert f"{run / PROTEIN_STATS_FILE}: the similarity statistics of block" in err and "out of range" in err


# ------------------------------------------------------------ a goeval retrieval directory (term-centric measures)
def _goeval(*args: str) -> subprocess.CompletedProcess:
    """The command line in a new process (the goeval imported here)."""
    src = str(Path(goeval.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    code = "import sys; from goeval.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def two_methods(tmp_path):
    """A retrieval run of two methods with a bootstrap: the example and the same scores made noisier."""
    import gzip

    from goeval.cli import main
    from goeval.data import example_path

    with gzip.open(example_path("predictions"), "rt") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if line.strip()]
    rng = np.random.default_rng(0)
    other = tmp_path / "noisy.tsv"
    other.write_text("".join(f"{p}\t{t}\t{min(1.0, float(v) * 0.7 + 0.3 * rng.random()):.3f}\n" for p, t, v in rows))
    out = tmp_path / "ret"
    assert main(["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth")),
                 "--predictions", str(example_path("predictions")), str(other), "-k", "5", "-k", "20",
                 "--bootstrap", "60", "--seed", "2", "--out", str(out), "-q"]) == 0
    return out


def test_compare_reads_a_retrieval_directory_in_another_process(two_methods):
    """compare --measure macro_roc_auc (and every term-centric measure) pairs the two methods' replicates."""
    from goeval.stats.bootstrap import percentile_interval
    from goeval.stats.store import read_term_replicates

    reps = read_term_replicates(two_methods / "term_replicates.npz")
    summary = pd.read_csv(two_methods / "retrieval_summary.tsv", sep="\t").set_index("method")
    for measure, column in (("macro_roc_auc", "macro_roc_auc"), ("average_precision", "macro_average_precision"),
                            ("tap_20", "tap_20"), ("ipr_auc", "ipr_auc"), ("peak_tap", "peak_tap")):
        done = _goeval("compare", str(two_methods), "--measure", measure, "--format", "tsv")
        assert done.returncode == 0, done.stderr
        assert "no permutation p-value" in done.stderr
        row = pd.read_csv(io.StringIO(done.stdout), sep="\t").iloc[0]
        a, b = row["method_a"], row["method_b"]
        assert (row["value_a"], row["value_b"]) == (summary.loc[a, column], summary.loc[b, column])
        j = reps.columns.index(column)
        lo, hi, se, _ = percentile_interval(reps.values[0][j] - reps.values[1][j], 0.95)
        assert (row["ci_low"], row["ci_high"], row["se"]) == pytest.approx((lo, hi, se), rel=1e-12)
        assert row["n_resamples"] == 60 and row["n_permutations"] == 0 and np.isnan(row["p_value"])
        assert row["wins_a"] + row["ties"] + row["wins_b"] == pytest.approx(1.0)


def test_compare_refuses_what_a_retrieval_directory_cannot_give(two_methods):
    for args, said in ((("--measure", "fmax"), "goeval retrieval directory"),
                       (("--measure", "tap_k"), "Name the TAP-k order: tap_5 or tap_20"),
                       (("--measure", "informative_roc_auc"), "--ia"),
                       (("--measure", "roc_auc", "--bootstrap", "100"), "needs a new run")):
        done = _goeval("compare", str(two_methods), *args)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)


def test_compare_of_a_one_method_retrieval_directory_names_the_command_to_run(tmp_path):
    """One method cannot be compared: the error names goeval retrieval --bootstrap too (it named only evaluate)."""
    from goeval.cli import main
    from goeval.data import example_path

    out = tmp_path / "ret"
    assert main(["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth")),
                 "--predictions", str(example_path("predictions")), "-k", "5", "--bootstrap", "20", "--out", str(out),
                 "-q"]) == 0
    done = _goeval("compare", str(out), "--measure", "roc_auc")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "at least two methods" in done.stderr and "goeval retrieval --bootstrap B" in done.stderr, done.stderr
