"""Finding prediction files in directories (issue 7, defect 7)."""

from __future__ import annotations

import pytest

from goeval.errors import InvalidParameterError
from goeval.io.paths import PredictionFiles, find_prediction_files, prediction_files


def touch(root, *names):
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("T1\tGO:1\t0.5\n")


def test_readme_log_and_hidden_folders_are_skipped_and_reported(tmp_path):
    touch(tmp_path, "blast.tsv", "naive.tsv.gz", "model_1_9606", "team_2.txt", "README.md", "README", "run.log",
          "notes.json", "plot.png", "eval.ipynb", ".hidden.tsv", ".ipynb_checkpoints/blast-checkpoint.tsv",
          ".git/objects/ab")
    found = find_prediction_files([tmp_path])
    assert isinstance(found, PredictionFiles)
    assert sorted(found.files) == ["blast", "model_1_9606", "naive", "team_2"]
    reasons = {p.relative_to(tmp_path).as_posix(): why for p, why in found.skipped}
    assert set(reasons) == {"README.md", "README", "run.log", "notes.json", "plot.png", "eval.ipynb", ".hidden.tsv",
                            ".ipynb_checkpoints", ".git"}
    assert reasons[".git"] == "hidden directory" and "'.log'" in reasons["run.log"]
    assert prediction_files([tmp_path]) == found.files  # the old interface


def test_pattern_selects_exactly_the_matching_files(tmp_path):
    touch(tmp_path, "a.tsv.gz", "b.tsv", "sub/c.tsv.gz", "README.md")
    found = find_prediction_files([tmp_path], pattern="*.tsv.gz")
    assert sorted(found.files) == ["a", "sub/c"]
    assert sorted(p.name for p, _ in found.skipped) == ["README.md", "b.tsv"]
    with pytest.raises(InvalidParameterError, match="no prediction file"):
        find_prediction_files([tmp_path], pattern="*.csv")


def test_same_stem_in_two_subfolders(tmp_path):
    touch(tmp_path, "teamA/model1.txt", "teamB/model1.txt", "model1.tsv", "m.9606", "m.10090")
    files = prediction_files([tmp_path])
    assert sorted(files) == ["m.10090", "m.9606", "model1", "teamA/model1", "teamB/model1"]
    assert files["teamB/model1"] == tmp_path / "teamB" / "model1.txt"


def test_explicit_files_are_always_taken_and_clashes_are_errors(tmp_path):
    touch(tmp_path, "x/model.log", "y/model.tsv")
    assert prediction_files([tmp_path / "x" / "model.log"]) == {"model": tmp_path / "x" / "model.log"}
    with pytest.raises(InvalidParameterError, match="give the method name"):
        prediction_files([tmp_path / "x" / "model.log", tmp_path / "y" / "model.tsv"])
    with pytest.raises(InvalidParameterError, match="no such"):
        prediction_files([tmp_path / "missing"])
