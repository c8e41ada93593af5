"""goeval.io.manifest: a run owns its output directory (manifest, earlier files removed, reads checked)."""

from __future__ import annotations

import json
import shutil

import pytest

from goeval.errors import GoevalError, GoevalWarning, InputFormatError, OutputError
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


# ------------------------------------------------------------ the manifest of someone else's folder is untrusted
def relist(d, entries: dict[str, object]) -> None:
    """Add ``entries`` (name -> the file whose digest it gets, or a raw entry) to ``d``'s manifest."""
    doc = json.loads((d / MANIFEST_FILE).read_text())
    for name, what in entries.items():
        doc["files"][name] = file_digest(what) if hasattr(what, "read_bytes") else what
    (d / MANIFEST_FILE).write_text(json.dumps(doc))


@pytest.mark.parametrize("kind", ["up", "absolute", "linked folder"])
def test_the_clean_up_removes_nothing_outside_the_folder(tmp_path, kind):
    r, other = tmp_path / "R", tmp_path / "other"
    other.mkdir()
    victim = other / "fig.png"
    victim.write_bytes(b"someone's figure")
    run(r, {"summary.tsv": "1\n"})
    if kind == "linked folder":
        (r / "plots").symlink_to(other)
    name = {"up": "../other/fig.png", "absolute": str(victim), "linked folder": "plots/fig.png"}[kind]
    relist(r, {name: victim})
    with pytest.warns(GoevalWarning, match=f"'{name}' .*(goes up|absolute path|symbolic link)"):
        out = run(r, {"summary.tsv": "2\n"})
    assert out.removed == [] and victim.read_bytes() == b"someone's figure"


def test_bad_manifest_entries_are_refused_one_by_one_and_the_rest_used(tmp_path):
    run(tmp_path, {"summary.tsv": "1\n"})
    good = read_manifest(tmp_path).files["summary.tsv"]
    relist(tmp_path, {"a.tsv": {"bytes": "12", "sha256": good["sha256"]},
                      "b.tsv": {"bytes": 2, "sha256": "not hex"},
                      "c.tsv": [1, 2],
                      "d/./e.tsv": good})
    with pytest.warns(GoevalWarning) as seen:
        m = read_manifest(tmp_path)
    assert sorted(m.files) == ["summary.tsv"]
    said = " ".join(str(w.message) for w in seen)
    for entry in ("'a.tsv' has a size", "'b.tsv' has a sha256", "'c.tsv' is not an object",
                  "'d/./e.tsv' is not a plain"):
        assert entry in said
    check_run_file(tmp_path / "summary.tsv", m)  # the valid entry still checks its file


def test_a_manifest_nested_200000_levels_is_a_named_error(tmp_path):
    (tmp_path / MANIFEST_FILE).write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(InputFormatError, match="manifest.json: not a goeval manifest: arrays or objects nested deeper"):
        read_manifest(tmp_path)
    with pytest.raises(OutputError, match="manifest.json: exists and is not a goeval manifest .*nested deeper"):
        check_output_dir(tmp_path)


@pytest.mark.filterwarnings("ignore:.*entry 'nk/summary.tsv' passes through:goeval.errors.GoevalWarning")
@pytest.mark.parametrize("with_manifest", [True, False])
def test_linked_result_files_are_refused_by_the_read_check(tmp_path, with_manifest):
    r, elsewhere = tmp_path / "R", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "edited.tsv").write_text("1\n")
    run(r, {"summary.tsv": "1\n", "nk/summary.tsv": "1\n"})
    (r / "summary.tsv").unlink()
    (r / "summary.tsv").symlink_to(elsewhere / "edited.tsv")  # same content: the digest would match
    shutil.rmtree(r / "nk")
    (r / "nk").symlink_to(elsewhere)
    (elsewhere / "summary.tsv").write_text("1\n")
    if not with_manifest:
        (r / MANIFEST_FILE).unlink()
    with pytest.raises(InputFormatError, match="summary.tsv: 'summary.tsv' is a symbolic link .*edited.tsv"):
        check_run_file(r / "summary.tsv")
    if with_manifest:
        with pytest.raises(InputFormatError, match="'nk/summary.tsv' passes through 'nk', which is a symbolic link"):
            check_run_file(r / "nk" / "summary.tsv")


def test_files_reached_through_a_linked_folder_are_not_listed(tmp_path):
    run(tmp_path / "R", {"summary.tsv": "1\n"})
    (tmp_path / "other").mkdir()
    (tmp_path / "R" / "plots").symlink_to(tmp_path / "other")
    (tmp_path / "other" / "f.png").write_bytes(b"png")
    add_to_manifest(tmp_path / "R" / "plots", {"f.png": tmp_path / "R" / "plots" / "f.png"}, "goeval plot")
    assert "plots/f.png" not in read_manifest(tmp_path / "R").files


def test_a_linked_manifest_is_not_read_and_is_replaced_as_a_link(tmp_path):
    theirs = tmp_path / "theirs.json"
    theirs.write_text('{"another": "program"}\n')
    r = tmp_path / "R"
    r.mkdir()
    (r / MANIFEST_FILE).symlink_to(theirs)
    with pytest.raises(InputFormatError, match="manifest.json: is a symbolic link"):
        read_manifest(r)  # what report, plot and compare read: refused
    check_output_dir(r)  # a run may go on: the link is replaced, its target untouched
    with pytest.warns(GoevalWarning, match="is a symbolic link .*the files of the earlier run are not removed"):
        run(r, {"summary.tsv": "1\n"})
    assert not (r / MANIFEST_FILE).is_symlink() and theirs.read_text() == '{"another": "program"}\n'


def test_measures_of_plugins_are_recorded_kept_by_later_files_and_checked(tmp_path):
    """Where the run's measures that are not goeval's own came from: in the manifest, kept when plot or report add
    their files, a malformed entry refused with a warning naming it."""
    src = {"f3max": {"module": "lab", "distribution": "lab", "version": "1.0", "loaded_by": "entry point f3 = lab"}}
    with RunOutput(tmp_path, ("goeval", "x"), measures=src) as out:
        with out.open("summary.tsv") as fh:
            fh.write("a\n")
    assert read_manifest(tmp_path).measures == src
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / "a.png").write_bytes(b"png")
    add_to_manifest(tmp_path, {"plots/a.png": tmp_path / "plots" / "a.png"}, "goeval plot")
    assert read_manifest(tmp_path).measures == src
    run(tmp_path, {"summary.tsv": "b\n"})  # a run of built-in measures only records none
    assert "measures" not in json.loads((tmp_path / MANIFEST_FILE).read_text())
    doc = json.loads((tmp_path / MANIFEST_FILE).read_text())
    doc["measures"] = {"good": {"module": "m"}, "bad": {"module": 3}}
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(doc))
    with pytest.warns(GoevalWarning, match="the source of the measure 'bad' is not a mapping of text fields"):
        assert read_manifest(tmp_path).measures == {"good": {"module": "m"}}


def test_a_measure_source_holding_a_control_character_is_refused(tmp_path):
    """The sources are printed in hints: a crafted manifest cannot put terminal escapes on the console."""
    run(tmp_path, {"summary.tsv": "b\n"})
    doc = json.loads((tmp_path / MANIFEST_FILE).read_text())
    doc["measures"] = {"good": {"module": "m"}, "esc": {"module": "m\x1b[2J"}, "x\n": {"module": "m"}}
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(doc))
    with pytest.warns(GoevalWarning, match="holds a control character"):
        assert read_manifest(tmp_path).measures == {"good": {"module": "m"}}
