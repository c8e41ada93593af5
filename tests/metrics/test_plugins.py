"""goeval.metrics.plugins: measures of other packages reach every process (entry points, --plugin), and a results
folder records where its measures came from.

The installed plugin is a tiny distribution written to a folder (``NAME-1.0.dist-info`` with ``METADATA`` and
``entry_points.txt``) that is put on the ``PYTHONPATH`` of the ``goeval`` processes: for importlib.metadata that
is an installed distribution.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import goeval
from goeval.errors import GoevalError, GoevalWarning
from goeval.metrics import plugins
from goeval.metrics.registry import measures, registered_by, unregister

SRC = Path(goeval.__file__).resolve().parent.parent

#: The plugin's module: F-beta (beta = 3) of the averaged precision and recall, maximised over thresholds.
PLUGIN = '''
import numpy as np
from goeval.metrics.registry import Measure, register

def f3(c):
    pr, rc = c["precision"], c["recall"]
    den = 9 * pr + rc
    return np.divide(10 * pr * rc, den, out=np.zeros(np.shape(den)), where=den > 0)

register(Measure(name="{name}", column="{name}_col", direction="max", needs_ia=False, label="F3max", interval=True,
                 curve=f3, inputs=("precision", "recall")))
'''


def _module(folder: Path, module: str, measure: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{module}.py"
    path.write_text(PLUGIN.format(name=measure))
    return path


def _distribution(folder: Path, dist: str, entry_points: str) -> None:
    info = folder / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[goeval.measures]\n{entry_points}\n")


def _goeval(*args: str, path: Path | None = None) -> subprocess.CompletedProcess:
    """``goeval ARGS`` in a process of its own, ``path`` (a folder of plugins) on its PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC)] + ([str(path)] if path else []))}
    code = "import sys; from goeval.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=300)


def _evaluate(tmp_path: Path, out: Path, *extra: str, path: Path | None = None) -> subprocess.CompletedProcess:
    preds = tmp_path / "preds"
    if not preds.exists():
        preds.mkdir()
        for name in ("a", "b"):  # two methods, so that goeval compare has a pair
            shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    return _goeval("evaluate", "--ontology", goeval.example_path("ontology"), "--truth", goeval.example_path("truth"),
                   "--predictions", preds, "--thresholds", "0.01", "--bootstrap", "20", "--out", out, *extra, path=path)


def _summary_measures(out: Path) -> set[str]:
    lines = (out / "summary.tsv").read_text().splitlines()
    col = lines[0].split("\t").index("measure")
    return {line.split("\t")[col] for line in lines[1:]}


def test_an_installed_plugin_reaches_compare_in_another_process(tmp_path):
    """evaluate computes the entry point's measure, records its source, and compare (a new process) compares on it."""
    site = tmp_path / "site"
    _module(site, "goeval_test_f3", "f3max")
    _distribution(site, "goeval_test_f3", "f3 = goeval_test_f3")
    out = tmp_path / "r"
    done = _evaluate(tmp_path, out, path=site)
    assert done.returncode == 0, done.stderr
    assert "measures of plugins: f3max from goeval_test_f3 (distribution goeval_test_f3 1.0, entry point f3 = " \
           "goeval_test_f3)" in done.stderr
    assert "f3max" in _summary_measures(out)
    recorded = json.loads((out / "manifest.json").read_text())["measures"]
    assert recorded == {"f3max": {"module": "goeval_test_f3", "loaded_by": "entry point f3 = goeval_test_f3",
                                  "distribution": "goeval_test_f3", "version": "1.0"}}
    done = _goeval("compare", out, "--measure", "f3max", "--permutations", "0", path=site)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("f3max: difference = value_a - value_b")
    assert "\nMFO  a         b " in done.stdout
    # without the distribution, the error names it and how to load it
    done = _goeval("compare", out, "--measure", "f3max", "--permutations", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the run that wrote it loaded it from the module 'goeval_test_f3' of the distribution goeval_test_f3 1.0; " \
           "load it with --plugin goeval_test_f3, or install goeval_test_f3" in done.stderr


def test_plugin_flag_takes_a_module_or_a_file(tmp_path):
    """--plugin MODULE (importable) at evaluate; --plugin FILE.py at compare; without it, the error names the module."""
    site = tmp_path / "site"
    path = _module(site, "goeval_test_f3b", "f3bmax")
    out = tmp_path / "r"
    done = _evaluate(tmp_path, out, "--plugin", "goeval_test_f3b", path=site)
    assert done.returncode == 0, done.stderr
    assert "f3bmax" in _summary_measures(out)
    recorded = json.loads((out / "manifest.json").read_text())["measures"]
    assert recorded == {"f3bmax": {"module": "goeval_test_f3b", "loaded_by": "--plugin goeval_test_f3b"}}
    done = _goeval("compare", out, "--measure", "f3bmax", "--permutations", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "loaded it from the module 'goeval_test_f3b'; load it with --plugin goeval_test_f3b." in done.stderr
    done = _goeval("compare", out, "--measure", "f3bmax", "--permutations", "0", "--plugin", path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("f3bmax: difference")
    assert f"f3bmax from goeval_test_f3b (--plugin {path})" in done.stderr


def test_a_failing_plugin_is_an_error_naming_it_and_nothing_is_written(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "goeval_test_broken.py").write_text("raise RuntimeError('no such table')\n")
    _distribution(site, "goeval_test_broken", "broken = goeval_test_broken")
    out = tmp_path / "r"
    done = _evaluate(tmp_path, out, path=site)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "goeval evaluate: error: the plugin 'broken' (entry point broken = goeval_test_broken of the group " \
           "goeval.measures, distribution goeval_test_broken 1.0) could not be loaded: RuntimeError: no such table " \
           "(fix or uninstall goeval_test_broken)." in done.stderr
    assert not out.exists()
    done = _goeval("compare", tmp_path, "--plugin", "goeval_test_missing")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the plugin 'goeval_test_missing' (--plugin) could not be loaded: ModuleNotFoundError: No module named " \
           "'goeval_test_missing'" in done.stderr


@pytest.fixture
def clean_registry():
    """Measures registered by a test are removed after it (the registry is per process)."""
    before = {m.name for m in measures()}
    yield
    for m in measures():
        if m.name not in before:
            unregister(m.name)


def test_load_plugins_from_python_records_sources_and_is_idempotent(tmp_path, clean_registry, monkeypatch):
    path = _module(tmp_path, "goeval_test_f3c", "f3cmax")
    monkeypatch.delitem(sys.modules, "goeval_test_f3c", raising=False)
    (plugin,) = plugins.load_plugins([str(path)], entry_points=False)
    assert plugin.measures == ("f3cmax",) and plugin.module == "goeval_test_f3c" and plugin.file == str(path)
    assert registered_by("F3CMAX") == "goeval_test_f3c" and not plugins.is_built_in("f3cmax")
    assert plugins.load_plugins([str(path)], entry_points=False) == (plugin,)  # loaded once
    assert plugins.measure_sources() == {"f3cmax": {"module": "goeval_test_f3c", "loaded_by": f"--plugin {path}",
                                                    "file": str(path)}}
    assert plugins.is_built_in("fmax") and plugins.measure_sources(["fmax"]) == {}
    res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                          [goeval.example_path("predictions")], thresholds=0.1)
    res.save(tmp_path / "r")  # a result saved from Python records its plugin's measure too
    assert "f3cmax" in {r["measure"] for r in res.summary_records}
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["measures"] == plugins.measure_sources()
    sys.modules.pop("goeval_test_f3c", None)


def test_a_plugin_failing_halfway_leaves_no_measure(tmp_path, clean_registry):
    path = _module(tmp_path, "goeval_test_half", "halfmax")
    path.write_text(path.read_text() + "\nraise ValueError('second measure: bad column')\n")
    with pytest.raises(GoevalError, match=r"the plugin '.*goeval_test_half.py' \(--plugin\) could not be loaded: "
                                          r"ValueError: second measure: bad column"):
        plugins.load_plugins([str(path)], entry_points=False)
    assert "halfmax" not in {m.name for m in measures()} and "goeval_test_half" not in sys.modules


def test_entry_points_are_read_only_when_a_distribution_names_the_group(tmp_path, monkeypatch):
    """The cheap look at sys.path: no distribution naming goeval.measures, no parse of the metadata."""
    other = tmp_path / "other"
    (other / "x-1.0.dist-info").mkdir(parents=True)
    (other / "x-1.0.dist-info" / "entry_points.txt").write_text("[console_scripts]\nx = x:main\n")
    monkeypatch.setattr(sys, "path", [str(other)])
    assert plugins.installed_plugins() == ()
    site = tmp_path / "site"
    _distribution(site, "goeval_test_ep", "ep = goeval_test_ep:setup")
    monkeypatch.setattr(sys, "path", [str(other), str(site)])
    (ep,) = plugins.installed_plugins()
    assert (ep.name, ep.value, ep.dist.name) == ("ep", "goeval_test_ep:setup", "goeval_test_ep")


def test_a_folder_measure_not_registered_is_named_with_its_plugin(tmp_path):
    """report and plot warn about a summary measure the registry does not know, naming the plugin recorded."""
    from goeval.cli.common import check_measure_names, say_unregistered
    from goeval.io.manifest import RunOutput
    from goeval.io.results_dir import read_results_dir

    header = "method\tnamespace\tmeasure\tvalue\tthreshold\tcoverage\n"
    with RunOutput(tmp_path, measures={"gonemax": {"module": "lab_measures", "file": "/x/lab_measures.py"}}) as out:
        with out.open("summary.tsv") as fh:
            fh.write(header + "a\tMFO\tfmax\t0.5\t0.4\t1.0\na\tMFO\tgonemax\t0.5\t0.4\t1.0\n")
    with pytest.warns(GoevalWarning) as said:
        say_unregistered(read_results_dir(tmp_path))
    (w,) = said
    assert str(w.message) == (f"{tmp_path}/summary.tsv holds the measure 'gonemax', which is not registered here: the "
                              "run that wrote it loaded it from the module 'lab_measures' (/x/lab_measures.py); load "
                              "it with --plugin /x/lab_measures.py.")
    with pytest.raises(GoevalError, match=r"holds the measure 'gonemax', which is not registered here: .* load it with "
                                          r"--plugin /x/lab_measures.py"):
        check_measure_names(["fmax", "gonemax"], tmp_path)  # compare --measure, report --compare
    check_measure_names(["fmax", "nosuch"], tmp_path)  # not the folder's: left to the registry's own message


#: A plugin of a new per-protein quantity (the recipe's score sum): its sums are made where the leaves run.
QUANTITY_PLUGIN = '''
import numpy as np
from goeval.metrics.protein import CurveColumn, register_column
from goeval.metrics.registry import Measure, register
from goeval.sweep.quantities import Quantity, RunningTotal, register_quantity, register_total

register_total(RunningTotal(name="plug_score_sum", entry=lambda e: np.minimum(e.scores, 1.0), scores=True))
register_quantity(Quantity(name="plug_score_sum", value=lambda s: s["plug_score_sum"], totals=("plug_score_sum",),
                           sums={"plug_score_sum": 0},
                           shared=lambda v, p: v.level_sum(np.minimum(v.scores, 1.0)) * v.total(p)))
register_column(CurveColumn(name="plug_mean_score", formula=lambda c: np.divide(
    c.sums["plug_score_sum"], c.sums["npred"], out=np.zeros(np.shape(c.sums["npred"])), where=c.sums["npred"] > 0)))
register(Measure(name="plug_mean_score_at_fmax", column="plug_mean_score", direction="max", needs_ia=False,
                 at="fmax"))
'''


@pytest.mark.parametrize("workers, files", [(1, 2), (2, 1)])
def test_a_plugin_quantity_reaches_dask_workers(tmp_path, workers, files):
    """A quantity registered by --plugin is known to Dask's spawned workers (the task carries the plugins, a worker
    loads them once): whole files on the workers (1 worker, 2 files) and leaves (2 workers, 1 file) give the
    serial run's summary, bit for bit. Before, the workers swept without it and the measure's rows were missing."""
    pytest.importorskip("distributed")
    plugin = tmp_path / "plug_quantity.py"
    plugin.write_text(QUANTITY_PLUGIN)
    preds = tmp_path / "preds"
    preds.mkdir()
    for name in "ab"[:files]:
        shutil.copy(goeval.example_path("predictions"), preds / f"{name}.tsv.gz")
    common = ("evaluate", "--ontology", goeval.example_path("ontology"), "--truth", goeval.example_path("truth"),
              "--predictions", preds, "--thresholds", "0.01", "--plugin", plugin, "-q")
    serial = _goeval(*common, "--out", tmp_path / "serial")
    dask = _goeval(*common, "--dask", f"local:{workers}", "--out", tmp_path / "dask")
    assert serial.returncode == 0 and dask.returncode == 0, serial.stderr + dask.stderr
    assert "plug_mean_score_at_fmax" in _summary_measures(tmp_path / "serial")
    assert (tmp_path / "dask" / "summary.tsv").read_text() == (tmp_path / "serial" / "summary.tsv").read_text()


def test_a_plugin_set_loads_its_plugins_where_it_is_unpickled(tmp_path):
    """current_plugins() names the plugins loaded here; unpickled in a fresh process it loads them there."""
    import pickle

    plugin = tmp_path / "plug_set.py"
    plugin.write_text(PLUGIN.format(name="plug_set_f3"))
    code = ("import pickle, sys; from goeval.metrics.registry import measures; pickle.loads(sys.stdin.buffer.read()); "
            "print('plug_set_f3' in {m.name for m in measures()})")
    blob = pickle.dumps(plugins.PluginSet((str(plugin),), False))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    got = subprocess.run([sys.executable, "-c", code], input=blob, env=env, capture_output=True, timeout=120)
    assert got.stdout.decode().strip() == "True", got.stderr.decode()
