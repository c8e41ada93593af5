"""The cafa6 preset and the CAFA 6 score: the reference's numbers on a hand-checked case, the score's
arithmetic, its bootstrap and paired comparison against oracles, the command line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

import goeval
from goeval.cli import main
from goeval.compat import cafa6_eval, cafa6_records, cafa6_score, cafaeval_frames
from goeval.errors import InvalidParameterError
from goeval.metrics.registry import get_measure
from goeval.options import EvaluationOptions, RunOptions
from goeval.stats import bootstrap_replicates, percentile_interval
from goeval.stats.aggregate import aggregate_replicates, compare_aggregate
from goeval.stats.replicates import curve_settings

TINY = Path(__file__).resolve().parents[1] / "data" / "cafa6" / "pk_tiny"


def _read(path: Path) -> list[dict]:
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_the_preset_is_the_reference_scorers_settings():
    opts = EvaluationOptions.preset("cafa6")
    assert (opts.propagation, opts.normalization, opts.thresholds) == ("max", "cafa-pk", "arange:0.001")
    assert opts.grid.size == 999 and opts.grid[9] > 0.01 and opts.max_terms is None and opts.max_terms_total is None
    with pytest.raises(InvalidParameterError, match="cafa6 preset scores the IA-weighted Fmax"):
        RunOptions(preset="cafa6").options(with_ia=False)
    assert EvaluationOptions.preset("cafa6", max_terms_total=1500).max_terms_total == 1500


@pytest.mark.parametrize("stream", [False, True])
def test_every_column_of_the_reference_on_a_fully_known_protein(stream):
    """pk_tiny with the preset (its 0.1 grid): every cell of the reference's evaluation_all.tsv (printed with
    two decimals), coverage 1.5 included."""
    res = goeval.evaluate(TINY / "ont.obo", TINY / "gt.tsv", [TINY / "pred" / "m.tsv"], ia=TINY / "ia.tsv",
                          known=TINY / "known.tsv", preset="cafa6", thresholds="arange:0.1", stream=stream)
    df, best = cafaeval_frames(res, below_one=True)
    expected = _read(TINY / "expected" / "evaluation_all.tsv")
    assert len(df) == len(expected) == 9
    for got, want in zip(df.reset_index().to_dict("records"), expected):
        for col, text in want.items():
            if col not in ("filename", "ns"):
                assert abs(got[col] - float(text)) <= 0.005 + 1e-12, (col, got[col], text)
    row = best["f_w"].iloc[0]
    assert (row["f_w"], row["cov_max"]) == pytest.approx((0.8, 1.5))


def _kinds(stream: bool = False, bootstrap: int | None = None, **kw):
    """A three-kind case from pk_tiny: NK and LK from P3 and P1, PK all three with their known terms."""
    return cafa6_eval(TINY / "ont.obo", {"NK": TINY / "gt.tsv", "LK": TINY / "gt.tsv", "PK": TINY / "gt.tsv"},
                      [TINY / "pred" / "m.tsv"], ia=TINY / "ia.tsv", known=TINY / "known.tsv", stream=stream,
                      bootstrap=bootstrap, thresholds="arange:0.1", **kw)


def test_the_score_is_the_mean_of_the_kind_means():
    res = _kinds()
    final, per_kind, cells = cafa6_score(res.kinds)
    nk = goeval.evaluate(TINY / "ont.obo", TINY / "gt.tsv", [TINY / "pred" / "m.tsv"], ia=TINY / "ia.tsv",
                         preset="cafa6", thresholds="arange:0.1")
    wf = {r["namespace"]: r["value"] for r in nk.summary_records if r["measure"] == "wfmax"}
    assert cells[("NK", "BPO")] == cells[("LK", "BPO")] == wf["BPO"]
    assert cells[("PK", "BPO")] == pytest.approx(0.8)  # the known terms removed
    assert per_kind == {k: cells[(k, "BPO")] for k in ("NK", "LK", "PK")}
    assert final == pytest.approx(np.mean(list(per_kind.values()))) and res.score() == final
    rows = {(r["kind"], r["namespace"]): r for r in res.records}
    assert rows[("all", "all")]["measure"] == "cafa6_metric_final" and rows[("all", "all")]["value"] == final
    assert rows[("PK", "BPO")]["coverage"] == pytest.approx(1.5) and rows[("PK", "mean")]["measure"] == "wfmax"
    micro = cafa6_score(res.kinds, measure="cafa6_metric_final_micro")[2]
    assert micro[("PK", "BPO")] == pytest.approx(0.75)
    assert _kinds(stream=True).summary.equals(res.summary)


def test_a_namespace_without_predictions_counts_zero_and_is_said():
    onto = goeval.ontology_from_edges([("GO:2", "GO:1"), ("GO:3", "GO:1")], namespace="biological_process")
    mf = goeval.ontology_from_edges([("GO:5", "GO:4")], namespace="molecular_function")
    del mf
    truth = goeval.Annotations.from_pairs(onto, ["P1", "P2"], ["GO:2", "GO:3"])
    pred = goeval.Annotations.from_pairs(onto, ["P1"], ["GO:2"], [0.5])
    ia = np.ones(onto.n_terms)
    a = goeval.evaluate(onto, truth, {"m": pred}, ia=ia, preset="cafa6")
    b = goeval.evaluate(onto, truth, {"m": goeval.Annotations.from_pairs(onto, ["P9"], ["GO:2"], [0.5])}, ia=ia,
                        preset="cafa6", allow_empty=True)
    final, per_kind, cells = cafa6_score({"NK": a, "LK": b})
    assert cells[("LK", "BPO")] == 0.0 and per_kind["LK"] == 0.0 and final == pytest.approx(per_kind["NK"] / 2)
    with pytest.raises(InvalidParameterError, match="mean over target kinds"):
        cafa6_records({"NK": a}, "cafa5_score")


def test_a_kind_whose_targets_no_submission_predicts_counts_zero(tmp_path):
    """The LK truth names a protein no submission predicts: that kind evaluates nothing (no error, as the library's
    evaluate raises for a run that evaluates nothing), its cells count 0 and the other kinds are scored."""
    lk = tmp_path / "lk.tsv"
    lk.write_text("P9\tGO:0000004\n")
    res = cafa6_eval(TINY / "ont.obo", {"NK": TINY / "gt.tsv", "LK": lk}, [TINY / "pred" / "m.tsv"],
                     ia=TINY / "ia.tsv", thresholds="arange:0.1")
    assert res.kinds["LK"].summary_records == [] and res.kinds["LK"].diagnostics["nothing_evaluated"]
    assert res.score("m") == pytest.approx(res.kinds["NK"].best("wfmax").loc["m"].mean() / 2)


def test_the_final_interval_comes_from_the_kinds_own_resamples():
    """Replicate b's final score is the mean over kinds of the mean over namespaces of that replicate's wfmax,
    each (kind, namespace) resampled as its own evaluation's intervals resample it."""
    res = _kinds(bootstrap=200, seed=3)
    reps = res.replicates["m"]
    per = {k: bootstrap_replicates(r.stats, 200, 3, ["wfmax"], curve_settings(r)) for k, r in res.kinds.items()}
    cell = {k: np.nan_to_num(per[k][("m", "BPO")]["wfmax"]) for k in per}
    assert_allclose(reps["PK/BPO"], cell["PK"])
    assert_allclose(reps["all"], np.mean([cell[k] for k in ("NK", "LK", "PK")], axis=0))
    final = next(r for r in res.records if r["kind"] == "all")
    lo, hi, se, _ = percentile_interval(reps["all"], 0.95)
    assert (final["ci_low"], final["ci_high"], final["se"]) == (lo, hi, se) and lo <= final["value"] <= hi
    pk = next(r for r in res.kinds["PK"].summary_records if r["measure"] == "wfmax")
    assert (pk["ci_low"], pk["ci_high"]) == percentile_interval(per["PK"][("m", "BPO")]["wfmax"], 0.95)[:2]


def test_compare_on_the_aggregate_is_paired():
    onto = goeval.load_ontology(TINY / "ont.obo")
    truth = goeval.load_annotations(TINY / "gt.tsv", onto)
    known = goeval.load_annotations(TINY / "known.tsv", onto)
    ia, _ = goeval.load_ia(TINY / "ia.tsv", onto)
    good = goeval.load_predictions(TINY / "pred" / "m.tsv", onto)
    bad = goeval.Annotations.from_pairs(onto, ["P1", "P2", "P3"], ["GO:0000005", "GO:0000004", "GO:0000004"],
                                        [0.9, 0.8, 0.6])
    kinds = {k: goeval.evaluate(onto, truth, {"good": good, "bad": bad, "same": good}, ia=ia, preset="cafa6",
                                known=known if k == "PK" else None, bootstrap=50) for k in ("NK", "PK")}
    stats = {k: r.stats for k, r in kinds.items()}
    ms, settings = get_measure("wfmax"), curve_settings(kinds["NK"])
    rows = compare_aggregate(stats, ["good", "bad", "same"], ms, settings, name="cafa6_metric_final",
                             n_resamples=300, permutations=200, seed=1)
    by = {(r["method_a"], r["method_b"]): r for r in rows}
    reps = aggregate_replicates(stats, ms, settings, 300, 1)
    gb = by[("good", "bad")]
    assert gb["value_a"] == pytest.approx(cafa6_score(kinds, "good")[0])
    assert gb["value_b"] == pytest.approx(cafa6_score(kinds, "bad")[0])
    assert (gb["ci_low"], gb["ci_high"]) == percentile_interval(reps["good"]["all"] - reps["bad"]["all"], 0.95)[:2]
    assert gb["wins_a"] > 0.5 and 0 < gb["p_value"] <= 1 and gb["measure"] == "cafa6_metric_final"
    same = by[("good", "same")]
    assert (same["difference"], same["ties"], same["p_value"]) == (0.0, 1.0, 1.0)


def test_the_command_writes_the_score_and_one_directory_per_kind(tmp_path, capsys):
    out = tmp_path / "c6"
    args = ["cafa6", "--ontology", str(TINY / "ont.obo"), "--ia", str(TINY / "ia.tsv"),
            "--truth-nk", str(TINY / "gt.tsv"), "--truth-pk", str(TINY / "gt.tsv"),
            "--known", str(TINY / "known.tsv"), "--predictions", str(TINY / "pred"), "--thresholds", "arange:0.1",
            "--bootstrap", "50", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr()
    assert "m: cafa6_metric_final = " in printed.out and "PK: truth" in printed.err
    rows = _read(out / "cafa6.tsv")
    assert [(r["kind"], r["namespace"]) for r in rows] == [("NK", "BPO"), ("PK", "BPO"), ("NK", "mean"),
                                                            ("PK", "mean"), ("all", "all")]
    assert float(rows[1]["value"]) == pytest.approx(0.8) and rows[-1]["ci_low"]
    for kind in ("NK", "PK"):
        assert (out / kind / "summary.tsv").exists() and (out / kind / "protein_stats.npz").exists()
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["kinds"] == ["NK", "PK"] and diag["bootstrap"]["n_resamples"] == 50
    assert main(["compare", str(out), "--measure", "cafa6_metric_final", "--bootstrap", "50",
                 "--permutations", "0"]) == 2  # one method: nothing to compare
    assert "at least two" in capsys.readouterr().err
    (tmp_path / "b.tsv").write_text("P1\tGO:0000005\t0.9\nP2\tGO:0000004\t0.8\nP3\tGO:0000004\t0.6\n")
    args[args.index("--predictions") + 1] = str(TINY / "pred" / "m.tsv")
    args.insert(args.index("--predictions") + 2, str(tmp_path / "b.tsv"))
    assert main(args) == 0
    capsys.readouterr()
    assert main(["compare", str(out), "--measure", "cafa6_metric_final", "--bootstrap", "100",
                 "--permutations", "100", "--format", "tsv"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].startswith("all\tcafa6_metric_final\tm\tb\t") and len(table) == 2
    assert main(["compare", str(out), "--measure", "wfmax", "--bootstrap", "100", "--format", "tsv"]) == 0
    kinds = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert kinds == ["NK/BPO", "PK/BPO"]


def test_the_command_checks_its_inputs_first(tmp_path, capsys):
    base = ["cafa6", "--ontology", str(TINY / "ont.obo"), "--ia", str(TINY / "ia.tsv"),
            "--predictions", str(TINY / "pred"), "--out", str(tmp_path / "o")]
    assert main(base) == 2
    assert "at least one kind of target" in capsys.readouterr().err
    assert main(base + ["--truth-nk", str(TINY / "gt.tsv"), "--known", str(TINY / "known.tsv")]) == 2
    assert "--truth-pk" in capsys.readouterr().err
    assert main(base + ["--truth-nk", str(tmp_path / "missing.tsv")]) == 2
    assert "missing.tsv" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_a_known_file_without_a_namespace_of_the_truth_is_said():
    onto = goeval.ontology_from_edges([("GO:2", "GO:1")], namespace="biological_process")
    truth = goeval.Annotations.from_pairs(onto, ["P1"], ["GO:2"])
    known = goeval.Annotations.from_pairs(onto, ["P9"], ["GO:2"]).namespace("BPO")
    empty = goeval.Annotations(proteins=known.proteins[:0], matrix=known.matrix.tocsr()[:0], ontology=onto)
    res = goeval.evaluate(onto, truth, {"m": goeval.Annotations.from_pairs(onto, ["P1"], ["GO:2"], [0.5])},
                          ia=np.ones(onto.n_terms), known=empty, preset="cafa6")
    assert any("known terms hold no BPO term" in w for w in res.diagnostics.warnings)


def test_max_terms_total_is_the_same_whole_and_streamed(tmp_path):
    lines = [f"P{i}\tGO:000000{k}\t{(k + i) % 9 / 10 + 0.05:.2f}" for i in range(1, 4) for k in range(2, 6)]
    (tmp_path / "p.tsv").write_text("\n".join(lines) + "\n")
    runs = [goeval.evaluate(TINY / "ont.obo", TINY / "gt.tsv", [tmp_path / "p.tsv"], ia=TINY / "ia.tsv",
                            preset="cafa6", max_terms_total=2, stream=s) for s in (False, True)]
    assert runs[0].summary_records == runs[1].summary_records
    d = runs[0].diagnostics["methods"]["p"]
    assert d["max_terms_total"] == 2 and d["max_terms_total_dropped"] == 6


def _same_records(a: list[dict], b: list[dict]) -> bool:
    """Records equal, NaN equal to NaN."""
    same = lambda x, y: x == y or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)  # noqa: E731
    return len(a) == len(b) and all(r.keys() == s.keys() and all(same(r[k], s[k]) for k in r) for r, s in zip(a, b))


def _submissions(tmp_path: Path, n: int) -> list[Path]:
    rng = np.random.default_rng(3)
    lines = (TINY / "pred" / "m.tsv").read_text().splitlines()
    paths = []
    for k in range(n):
        path = tmp_path / f"s{k}.tsv"
        path.write_text("".join(f"{p}\t{t}\t{min(1.0, float(s) * rng.uniform(0.5, 1.5)):.3f}\n"
                                for p, t, s in (line.split() for line in lines)))
        paths.append(path)
    return paths


def test_many_submissions_a_group_at_a_time_give_the_scores_of_one_run(tmp_path):
    """Read and evaluated two at a time (threads=2) or all at once: the same bits, bootstrap intervals included;
    the leaderboard is one row per submission, best first."""
    from goeval.compat.cafa6 import cafa6_leaderboard

    paths = _submissions(tmp_path, 5)
    truths = {"NK": TINY / "gt.tsv", "LK": TINY / "gt.tsv", "PK": TINY / "gt.tsv"}
    kw = dict(ia=TINY / "ia.tsv", known=TINY / "known.tsv", bootstrap=30, thresholds="arange:0.1")
    grouped = cafa6_eval(TINY / "ont.obo", truths, paths, threads=2, **kw)
    whole = cafa6_eval(TINY / "ont.obo", truths, paths, threads=8, **kw)
    assert _same_records(grouped.records, whole.records)
    for kind in truths:
        assert _same_records(grouped.kinds[kind].summary_records, whole.kinds[kind].summary_records)
        assert list(grouped.kinds[kind].diagnostics["methods"]) == [p.stem for p in paths]
    board = cafa6_leaderboard(grouped.records)
    assert [r["method"] for r in board] == sorted((p.stem for p in paths), key=lambda m: -grouped.score(m))
    assert [r["value"] for r in board] == sorted((grouped.score(p.stem) for p in paths), reverse=True)
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in board)


def test_the_command_writes_a_leaderboard_and_shows_it_for_many_submissions(tmp_path, capsys):
    paths = _submissions(tmp_path, 4)
    out = tmp_path / "c6"
    assert main(["cafa6", "--ontology", str(TINY / "ont.obo"), "--ia", str(TINY / "ia.tsv"), "--truth-nk",
                 str(TINY / "gt.tsv"), "--truth-pk", str(TINY / "gt.tsv"), "--known", str(TINY / "known.tsv"),
                 "--predictions", *map(str, paths), "--thresholds", "arange:0.1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("4 submissions by cafa6_metric_final") and "rank" in printed
    board = _read(out / "leaderboard.tsv")
    assert [r["rank"] for r in board][0] == "1" and len(board) == 4
    assert list(board[0]) == ["rank", "method", "measure", "value", "NK", "PK"]


def test_streamed_each_submission_is_read_once_for_every_kind(tmp_path, monkeypatch):
    """--stream parses each file once (its kept batches spilled and replayed per kind): the same bits as read
    whole, and one pass of the reader per file."""
    from goeval.io import readers

    paths = _submissions(tmp_path, 3)
    truths = {"NK": TINY / "gt.tsv", "LK": TINY / "gt.tsv", "PK": TINY / "gt.tsv"}
    kw = dict(ia=TINY / "ia.tsv", known=TINY / "known.tsv", bootstrap=20, thresholds="arange:0.1")
    whole = cafa6_eval(TINY / "ont.obo", truths, paths, **kw)
    passes = []
    real = readers.PredictionFile.batches
    monkeypatch.setattr(readers.PredictionFile, "batches",
                        lambda self, *a, **k: passes.append(self.path) or real(self, *a, **k))
    streamed = cafa6_eval(TINY / "ont.obo", truths, paths, stream=True, **kw)
    assert sorted(passes) == sorted(map(str, paths))  # once per file, not once per kind
    assert _same_records(streamed.records, whole.records)
    for kind in truths:
        assert _same_records(streamed.kinds[kind].summary_records, whole.kinds[kind].summary_records)
        assert streamed.kinds[kind].diagnostics["streaming"]["streamed"] == [p.stem for p in paths]


def test_on_an_executor_each_submission_is_one_task_with_the_same_scores(tmp_path):
    """executor= (what --dask gives): one task per submission file, read and scored on a worker process."""
    from concurrent.futures import ProcessPoolExecutor
    from goeval.compat.cafa6 import cafa6_leaderboard

    paths = _submissions(tmp_path, 3)
    truths = {"NK": TINY / "gt.tsv", "PK": TINY / "gt.tsv"}
    kw = dict(ia=TINY / "ia.tsv", known=TINY / "known.tsv", bootstrap=20, thresholds="arange:0.1")
    here = cafa6_eval(TINY / "ont.obo", truths, paths, **kw)

    class Counting(ProcessPoolExecutor):
        tasks = 0

        def submit(self, fn, *args, **kwargs):
            Counting.tasks += 1
            return super().submit(fn, *args, **kwargs)

    with Counting(2) as pool:
        there = cafa6_eval(TINY / "ont.obo", truths, paths, executor=pool, **kw)
    assert Counting.tasks == len(paths)
    assert _same_records(there.records, here.records)
    assert cafa6_leaderboard(there.records) == cafa6_leaderboard(here.records)
    for kind in truths:
        assert list(there.kinds[kind].diagnostics["methods"]) == [p.stem for p in paths]


def test_the_command_on_dask_writes_the_same_leaderboard(tmp_path):
    pytest.importorskip("distributed")
    paths = _submissions(tmp_path, 3)
    common = ["cafa6", "--ontology", str(TINY / "ont.obo"), "--ia", str(TINY / "ia.tsv"), "--truth-nk",
              str(TINY / "gt.tsv"), "--truth-pk", str(TINY / "gt.tsv"), "--known", str(TINY / "known.tsv"),
              "--predictions", *map(str, paths), "--thresholds", "arange:0.1", "-q"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    assert main([*common, "--out", str(tmp_path / "b"), "--dask", "local:2"]) == 0
    for name in ("leaderboard.tsv", "cafa6.tsv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_each_group_scores_as_a_run_on_its_targets_alone(tmp_path):
    """groups=: a group's CAFA 6 records (cells, kind means, final score, intervals) are those of a run whose
    truths hold the group's targets only; a group with targets in one kind is scored over that kind."""
    from goeval.io.truth import read_truth

    ex = goeval.example_path
    proteins = read_truth(ex("truth")).proteins.tolist()
    first = proteins[:200]
    lines = [line for line in open(ex("truth")) if line.split("\t")[0] in set(first)]
    sub = tmp_path / "first.tsv"
    sub.write_text("".join(lines))
    kw = dict(ia=ex("ia"), bootstrap=20, seed=5, thresholds="arange:0.01")
    res = cafa6_eval(ex("ontology"), {"NK": ex("truth"), "LK": ex("truth")}, [ex("predictions")],
                     groups={"first": first}, **kw)
    alone = cafa6_eval(ex("ontology"), {"NK": sub, "LK": sub}, [ex("predictions")], **kw)
    assert _same_records(res.groups["first"].records, alone.records)
    assert res.groups["first"].score() == alone.score() != res.score()
