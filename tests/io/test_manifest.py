"""goeval.io.manifest: a run owns its output directory (manifest, earlier files removed, reads checked)."""

from __future__ import annotations

import json

import pytest

from goeval.errors import GoevalError, OutputError
from goeval.io.files import check_output_dir
from goeval.io.manifest import (MANIFEST_FILE, RunOutput, add_to_manifest, check_run_file, file_digest,
                                find_manifest, read_manifest)


def run(d, names: dict[str, str], command=("goeval", "x")) -> RunOutput:
    with RunOutput(d, command) as out:
        for name, text in names.items():
            with out.open(name) as fh:
                fh.write(text)
    return out


def test_manifest_lists_every_file_with_size_and_digest(tmp_path):
    run(tmp_path, {"summary.tsv": "a\n", "nk/curves.tsv": "b\n"})
    m = read_manifest(tmp_path)
    assert m is not None and m.command == ["goeval", "x"]
    assert sorted(m.files) == ["nk/curves.tsv", "summary.tsv"]
    assert m.files["summary.tsv"] == file_digest(tmp_path / "summary.tsv") == {"bytes": 2, "sha256": m.files[
        "summary.tsv"]["sha256"]}
    assert find_manifest(tmp_path / "nk").directory == tmp_path


def test_earlier_files_are_removed_changed_and_foreign_ones_kept(tmp_path):
    run(tmp_path, {"summary.tsv": "1\n", "protein_stats.npz": "x\n", "plots/a.png": "p\n", "edited.tsv": "e\n"})
    (tmp_path / "edited.tsv").write_text("changed by hand\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    out = run(tmp_path, {"summary.tsv": "2\n"})
    assert out.removed == ["plots/a.png", "protein_stats.npz"]
    assert sorted(out.foreign) == ["edited.tsv", "notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edited.tsv", MANIFEST_FILE, "notes.txt", "summary.tsv"]


def test_a_failed_run_leaves_the_earlier_one(tmp_path):
    run(tmp_path, {"summary.tsv": "1\n", "extra.tsv": "x\n"})
    with pytest.raises(RuntimeError):
        with RunOutput(tmp_path) as out:
            with out.open("summary.tsv") as fh:
                fh.write("2\n")
            raise RuntimeError("boom")
    assert (tmp_path / "summary.tsv").read_text() == "1\n" and (tmp_path / "extra.tsv").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_reads_are_checked_against_the_run(tmp_path):
    run(tmp_path, {"summary.tsv": "1\n"})
    check_run_file(tmp_path / "summary.tsv")
    (tmp_path / "stray.npz").write_text("x")
    with pytest.raises(GoevalError, match="stray.npz: not written by the run"):
        check_run_file(tmp_path / "stray.npz")
    (tmp_path / "summary.tsv").write_text("3\n")
    with pytest.raises(GoevalError, match="summary.tsv: changed since the run"):
        check_run_file(tmp_path / "summary.tsv")


def test_files_added_later_join_the_manifest(tmp_path):
    run(tmp_path, {"summary.tsv": "1\n"})
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / "f.png").write_bytes(b"png")
    assert add_to_manifest(tmp_path / "plots", {"f.png": tmp_path / "plots" / "f.png"}, "goeval plot")
    assert read_manifest(tmp_path).files["plots/f.png"]["added_by"] == "goeval plot"
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)  # no manifest within two levels up
    assert not add_to_manifest(tmp_path / "a" / "b" / "c", {}, "goeval plot")


def test_another_programs_manifest_stops_the_run_before_any_work(tmp_path):
    (tmp_path / MANIFEST_FILE).write_text(json.dumps({"files": []}))
    with pytest.raises(OutputError, match="is not a goeval manifest"):
        check_output_dir(tmp_path)
