"""A result folder from someone else: a run touches nothing outside its folder, and reads no planted link.

Each test prepares a hostile folder in ``tmp_path`` from a real run (``goeval evaluate --bootstrap``)
and runs the command a user would run on it: the clean-up of ``evaluate --out`` with manifest entries
outside the folder, a ``plots/`` linked to another folder, result files linked to files elsewhere, and
JSON documents nested 200,000 levels deep.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from goeval.cli import main
from goeval.errors import InputFormatError
from goeval.io.manifest import MANIFEST_FILE, file_digest
from goeval.io.results_dir import read_results_dir

EX = Path(__file__).resolve().parents[2] / "src" / "goeval" / "data" / "cafa2_mfo"
DEEP = "[" * 200_000 + "]" * 200_000


def evaluate(out: Path, *extra: str, predictions: tuple[Path, ...] = (EX / "BB4S_mfo_NK.tsv.gz",)) -> list[str]:
    return ["evaluate", "--ontology", str(EX / "mfo_from_mfoa_mat.obo.gz"), "--truth",
            str(EX / "groundtruth_leafonly_MFO_NK.tsv"), "--predictions", *map(str, predictions),
            "--thresholds", "0.01", "--out", str(out), "-q", *extra]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """One run of two methods (BB4S and half its lines, A) with a bootstrap: what compare reads."""
    top = tmp_path_factory.mktemp("template")
    half = top / "A.tsv"
    with gzip.open(EX / "BB4S_mfo_NK.tsv.gz", "rt") as fh:
        half.write_text("".join(line for i, line in enumerate(fh) if i % 2 == 0))
    assert main(evaluate(top / "R", "--bootstrap", "10", predictions=(EX / "BB4S_mfo_NK.tsv.gz", half))) == 0
    return top / "R"


@pytest.fixture
def folder(template, tmp_path) -> Path:
    """A copy of one run's results folder, to be made hostile."""
    return Path(shutil.copytree(template, tmp_path / "R", symlinks=True))


def relist(d: Path, entries: dict[str, Path]) -> None:
    """List ``entries`` (name -> the file whose size and digest it gets) in ``d``'s manifest, as an attacker can."""
    doc = json.loads((d / MANIFEST_FILE).read_text())
    doc["files"].update({name: file_digest(path) for name, path in entries.items()})
    (d / MANIFEST_FILE).write_text(json.dumps(doc))


def replace_by_link(link: Path, target: Path) -> None:
    link.unlink()
    link.symlink_to(target)


# ------------------------------------------------------------ finding 1: the clean-up deletes nothing outside
def test_evaluate_out_removes_no_file_outside_its_folder(folder, tmp_path, capsys):
    """Entries ``../victim``, ``/abs/victim`` and ``plots/fig.png`` (``plots`` a link to another folder), each
    with its file's SHA-256: refused with a warning naming the entry, nothing deleted."""
    other = tmp_path / "other"
    other.mkdir()
    victims = {"../victim": tmp_path / "victim", "/abs": other / "abs.txt", "plots/fig.png": other / "fig.png"}
    for path in victims.values():
        path.write_text(f"the user's own {path.name}\n")
    (folder / "plots").symlink_to(other)
    relist(folder, {"../victim": victims["../victim"], str(victims["/abs"]): victims["/abs"],
                    "plots/fig.png": victims["plots/fig.png"]})
    capsys.readouterr()
    assert main(evaluate(folder)[:-1]) == 0  # not quiet: the console says what was removed
    err = capsys.readouterr().err
    for path in victims.values():
        assert path.read_text() == f"the user's own {path.name}\n"
    assert "'../victim' goes up out of the folder" in err and f"{str(victims['/abs'])!r} is an absolute path" in err
    assert "'plots/fig.png' passes through 'plots', which is a symbolic link" in err
    removed = next(line for line in err.splitlines() if "removed" in line)
    assert removed.endswith("that this run did not write: protein_stats.npz")  # the earlier run's own file goes


# ------------------------------------------------------------ finding 3: a linked plots/ gets no figure
def test_a_linked_plots_folder_is_refused_by_plot_and_evaluate_plots(folder, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    other = tmp_path / "other"
    other.mkdir()
    (folder / "plots").symlink_to(other)
    assert main(["plot", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{folder}/: 'plots' is a symbolic link (to {str(other)!r})" in err and "Traceback" not in err
    assert main(evaluate(folder, "--plots")) == 2  # before any work
    assert "'plots' is a symbolic link" in capsys.readouterr().err
    assert list(other.iterdir()) == []
    (folder / "plots").unlink()  # the link removed: the figures go into a folder of its own, and are listed
    assert main(["plot", str(folder)]) == 0
    figures = sorted(p.name for p in (folder / "plots").iterdir())
    listed = json.loads((folder / MANIFEST_FILE).read_text())["files"]
    assert figures and all(f"plots/{name}" in listed for name in figures)


# ------------------------------------------------------------ finding 6: linked result files are not read
def test_linked_result_files_are_refused_by_report_plot_and_compare(folder, tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    edited = elsewhere / "edited.tsv"
    edited.write_text((folder / "summary.tsv").read_text().replace("BB4S", "EDITED"))
    replace_by_link(folder / "summary.tsv", edited)
    commands = [["report", str(folder)], ["compare", str(folder)]]
    try:
        import matplotlib  # noqa: F401
        commands.append(["plot", str(folder)])
    except ImportError:
        pass
    for command in commands:
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert f"{folder / 'summary.tsv'}: 'summary.tsv' is a symbolic link (to {str(edited)!r})" in err, command
    assert not (folder / "report.md").exists()


def test_a_linked_diagnostics_file_is_not_pulled_into_a_report(folder, tmp_path, capsys):
    secret = tmp_path / "secret.json"
    secret.write_text('{"private": "ssh key"}\n')
    replace_by_link(folder / "diagnostics.json", secret)
    relist(folder, {"diagnostics.json": secret})  # even listed with the right digest
    assert main(["report", str(folder)]) == 2
    assert "diagnostics.json: 'diagnostics.json' is a symbolic link" in capsys.readouterr().err
    assert not (folder / "report.html").exists()


def test_a_linked_protein_stats_file_is_refused_by_compare(folder, tmp_path, capsys):
    moved = tmp_path / "stats.npz"
    shutil.copy(folder / "protein_stats.npz", moved)
    replace_by_link(folder / "protein_stats.npz", moved)
    assert main(["compare", str(folder)]) == 2
    assert "protein_stats.npz' is a symbolic link" in capsys.readouterr().err


def test_a_linked_kind_folder_is_not_read_even_without_a_manifest(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "summary.tsv").write_text("method\tnamespace\tmeasure\tvalue\tthreshold\tcoverage\n"
                                          "m\tMFO\tfmax\t0.9\t0.5\t1\n")
    (tmp_path / "ts").mkdir()
    (tmp_path / "ts" / "nk").symlink_to(elsewhere)  # a time split's kind folder planted as a link
    with pytest.raises(InputFormatError, match="'nk/summary.tsv' passes through 'nk', which is a symbolic link"):
        read_results_dir(tmp_path / "ts")


# ------------------------------------------------------------ finding 8 (JSON): nested 200,000 levels
def test_a_manifest_nested_200000_levels_is_a_named_error_in_report_and_evaluate(folder, capsys):
    (folder / MANIFEST_FILE).write_text(DEEP)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json: not a goeval manifest: arrays or objects nested deeper than 64 levels" in err
    assert main(evaluate(folder)) == 2
    err = capsys.readouterr().err
    assert "manifest.json: exists and is not a goeval manifest" in err and "nested deeper" in err


def test_a_diagnostics_file_nested_200000_levels_is_a_named_error_in_report(folder, capsys):
    (folder / "diagnostics.json").write_text(DEEP)
    relist(folder, {"diagnostics.json": folder / "diagnostics.json"})
    assert main(["report", str(folder)]) == 2
    assert "diagnostics.json: arrays or objects nested deeper than 64 levels" in capsys.readouterr().err
