"""``EvaluationResult.save`` writes what ``goeval evaluate --out`` writes; ``goeval.load_results`` reads it back."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import goeval
from goeval.cli import main
from goeval.errors import GoevalError

FILES = {k: str(goeval.example_path(k)) for k in ("ontology", "truth", "predictions", "ia")}


@pytest.fixture(scope="module")
def boot():
    return goeval.evaluate(FILES["ontology"], FILES["truth"], [FILES["predictions"]], ia=FILES["ia"], bootstrap=20, seed=3)


def _cli(out, *extra) -> None:
    assert main(["evaluate", "--ontology", FILES["ontology"], "--truth", FILES["truth"], "--predictions",
                 FILES["predictions"], "--ia", FILES["ia"], "--out", str(out), "-q", *extra]) == 0


def _names(d) -> set[str]:
    return {p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file()}


def test_save_writes_the_files_and_bytes_of_the_command_line(tmp_path, boot):
    boot.save(tmp_path / "api")
    _cli(tmp_path / "cli", "--bootstrap", "20", "--seed", "3", "--curves", "full")
    assert _names(tmp_path / "api") == _names(tmp_path / "cli") == {
        "curves.tsv", "summary.tsv", "diagnostics.json", "timings.json", "protein_stats.npz", "manifest.json",
        "leaderboard.tsv", "calibration.tsv"}
    for name in ("summary.tsv", "curves.tsv", "leaderboard.tsv", "calibration.tsv"):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    api, cli = (json.loads((tmp_path / d / "diagnostics.json").read_text()) for d in ("api", "cli"))
    assert set(cli) - set(api) == {"command"} and api["versions"] == cli["versions"]


def test_load_results_gives_the_result_back_exactly(tmp_path, boot):
    boot.save(tmp_path / "r")
    back = goeval.load_results(tmp_path / "r")
    assert isinstance(back, goeval.EvaluationResult) and back.stats is None
    assert list(back.summary.columns) == list(boot.summary.columns)
    for a, b in zip(back.summary_records, boot.summary_records):
        for k, v in b.items():
            both_nan = isinstance(v, float) and math.isnan(v) and isinstance(a[k], float) and math.isnan(a[k])
            assert both_nan or (a[k] == v and type(a[k]) is type(v)), (k, a[k], v)
    for col, values in boot.curve_columns.items():
        assert np.array_equal(back.curve_columns[col], values), col  # the floats written read back exactly
    assert back.best("fmax").equals(boot.best("Fmax"))
    assert back.diagnostics["options"] == json.loads(json.dumps(boot.diagnostics["options"]))


def test_a_second_save_owns_the_folder(tmp_path, boot):
    out = tmp_path / "r"
    boot.save(out)
    plain = goeval.evaluate(FILES["ontology"], FILES["truth"], [FILES["predictions"]], ia=FILES["ia"])
    plain.save(out, curves_gzip=True)
    assert _names(out) == {"curves.tsv.gz", "summary.tsv", "calibration.tsv", "diagnostics.json", "timings.json",
                           "manifest.json", "leaderboard.tsv"}
    assert "ci_low" not in goeval.load_results(out).summary.columns


def test_compare_reads_a_folder_saved_from_python(tmp_path, capsys):
    two = goeval.evaluate(FILES["ontology"], FILES["truth"], {"A": FILES["predictions"], "B": FILES["predictions"]},
                          ia=FILES["ia"], bootstrap=20, seed=3)
    two.save(tmp_path / "r")
    assert main(["compare", str(tmp_path / "r"), "--measure", "fmax"]) == 0
    out = capsys.readouterr().out
    assert "A" in out and "B" in out


def test_load_results_of_a_time_split_gives_its_kinds(tmp_path):
    from conftest import DATA

    b = DATA / "benchmarks"
    assert main(["benchmark", "timesplit", "--ontology", str(b / "toy.obo"), "--t0", str(b / "t0.tsv"), "--t1",
                 str(b / "t1.tsv"), "--methods", "naive", "--evaluate", "--out", str(tmp_path / "ts"), "-q"]) == 0
    parts = goeval.load_results(tmp_path / "ts")
    assert sorted(parts) == ["LK", "NK", "PK"] and all(isinstance(r, goeval.EvaluationResult) for r in parts.values())
    assert set(parts["NK"].summary["method"]) == {"naive"}


def test_load_results_refuses_what_is_not_an_evaluation(tmp_path):
    with pytest.raises(GoevalError, match="no such directory"):
        goeval.load_results(tmp_path / "missing")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "tap_curve.tsv").write_text("method\tnamespace\tcutoff\ttap\nm\tMFO\t1\t0.5\n")
    with pytest.raises(GoevalError, match="no summary.tsv"):
        goeval.load_results(tmp_path / "t")


def test_a_run_with_groups_writes_groups_tsv_and_a_folder_per_group(tmp_path):
    """groups.tsv holds every group's optima with a group column (all first); groups/NAME/ is each group's own
    results folder (goeval compare reads it as any); a '/' in a group's name does not make a path."""
    import goeval
    from goeval.report.save import save_results
    from goeval.io.results_dir import read_results_dir

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    prots = truth.proteins.tolist()
    res = goeval.evaluate(onto, truth, [d("predictions")], ia=d("ia"), groups={"a": prots[:150], "b/x": prots[200:]},
                          bootstrap=20)
    save_results(res, tmp_path / "r")
    table = (tmp_path / "r" / "groups.tsv").read_text().splitlines()
    assert table[0].split("\t")[:3] == ["method", "group", "namespace"]
    groups = [line.split("\t")[1] for line in table[1:]]
    assert list(dict.fromkeys(groups)) == ["all", "a", "b/x"]
    assert len(groups) == 3 * len(res.summary_records)
    assert sorted(p.name for p in (tmp_path / "r" / "groups").iterdir()) == ["a", "b_x"]
    sub = read_results_dir(tmp_path / "r" / "groups" / "a")
    assert (tmp_path / "r" / "groups" / "a" / "protein_stats.npz").exists()
    assert sub.summary["value"].tolist() == res.groups["a"].summary["value"].tolist()


def test_a_group_named_dot_dot_gets_a_folder_inside_groups(tmp_path):
    """A group named '..' or '.' (text read from a groups file) is a folder name under groups/, never a path step."""
    import goeval
    from goeval.report.save import save_results

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    prots = truth.proteins.tolist()
    res = goeval.evaluate(onto, truth, [d("predictions")], groups={"..": prots[:50], ".": prots[50:100]})
    save_results(res, tmp_path / "r")
    assert sorted(p.name for p in (tmp_path / "r" / "groups").iterdir()) == ["_.", "_.."]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
