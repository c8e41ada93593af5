"""The notebooks run top to bottom in a real Jupyter kernel (nbclient), and are stored without outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_the_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == ["benchmark.ipynb", "tutorial.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_without_outputs(path):
    cells = json.loads(path.read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)


def _execute(path: Path, workdir: Path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipykernel")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}}).execute()  # raises on a failing cell
    return nb


def _images(nb) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and any("image/png" in o.get("data", {}) for o in c.outputs)]


def _source_index(nb, text: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)


def _run_in(tmp_path: Path, monkeypatch, path: Path):
    """The notebook run in an empty directory, its temporary files under ``tmp_path/tmp``; it leaves nothing."""
    work, tmp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir(), tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))  # the kernel's tempfile directory
    nb = _execute(path, work)
    assert list(work.iterdir()) == []  # a notebook writes only under a temporary directory
    return nb, tmp


def _html(nb, text: str) -> str:
    """The HTML a code cell showed (its last expression's ``_repr_html_``)."""
    return "".join(o["data"]["text/html"] for o in nb.cells[_source_index(nb, text)].outputs
                   if "text/html" in o.get("data", {}))


def test_tutorial_runs(tmp_path, monkeypatch):
    nb, tmp = _run_in(tmp_path, monkeypatch, NOTEBOOKS[1])
    for text in ("information_content_figure", "res.plot(points=", 'res.plot(kind="optima"', "tap_curve_figure"):
        assert _source_index(nb, text) in _images(nb)
    table = _html(nb, "res = goeval.evaluate(")  # the result shows as its headline table, with its intervals
    assert table.startswith('<table class="goeval-headline">') and "<td>BLAST</td><td>0.4856 [" in table
    (out,) = tmp.glob("goeval_tutorial_*")
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 4 and "ci_low" not in page and "CI" in page  # + calibration_MFO
    assert (out / "plots" / "fig4_MFO.png").exists() and (out / "protein_stats.npz").exists()


def test_benchmark_runs(tmp_path, monkeypatch):
    nb, _ = _run_in(tmp_path, monkeypatch, NOTEBOOKS[0])
    assert _source_index(nb, "fig4_figure") in _images(nb)
    table1 = next(o for o in nb.cells[_source_index(nb, "cv.table1")].outputs if "data" in o)["data"]["text/plain"]
    assert all(m in table1 for m in ("naive", "blast", "gotcha"))
