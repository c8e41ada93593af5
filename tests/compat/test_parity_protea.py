"""Parity with the reference scorer of CAFA 6 (CAFA-evaluator-PK's scoring, as cafaeval-protea 0.1.0 computes it).

The reference is GPL and installs the module ``cafaeval``, as cafaeval 1.3.0 of the test extra does, so it
runs in an environment of its own: ``GOEVAL_PROTEA_PYTHON`` names a Python with ``cafaeval-protea==0.1.0``
(``.ci/run`` creates it); the tests skip without it. ``tests/compat/protea_runner.py`` runs it there and prints
its frames at full precision. CAFA-evaluator-PK's own example directory (GPL too, never copied here) is read
from the shared folder (``external/cafa_evaluator_pk_example``, with its licence; see ``GOEVAL_SHARED_DATA`` in
``tests/conftest.py``), or from ``GOEVAL_PK_EXAMPLE`` when that names another copy of its ``example/``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path

import goeval
from goeval.compat import cafa6_eval, cafaeval_frames

HERE = Path(__file__).resolve().parent
TINY = HERE.parents[0] / "data" / "cafa6" / "pk_tiny"
SCRIPT = HERE.parents[1] / "scripts" / "cafa6_case.py"
NS = {"BPO": "biological_process", "MFO": "molecular_function", "CCO": "cellular_component"}
COLUMNS = ("n", "tp", "fp", "fn", "pr", "rc", "cov", "mi", "ru", "f", "s", "pr_micro", "rc_micro", "f_micro")


def _python() -> str:
    python = os.environ.get("GOEVAL_PROTEA_PYTHON")
    if not python or not shutil.which(python):
        pytest.skip("the reference scorer is not installed (set GOEVAL_PROTEA_PYTHON to a Python with "
                    "cafaeval-protea==0.1.0)")
    return python


def reference(obo: Path, pred_dir: Path, gt: Path, *, th_step: float, ia: Path | None = None,
              known: Path | None = None, toi: Path | None = None, prop: str = "max") -> dict:
    """The reference's frames (``all`` and each best metric) for one ground truth.

    With ``prop='fill'`` it runs its dense kernels (``CAFAEVAL_SPARSE=0``): cafaeval-protea 0.1.0's default
    sparse fill lets an ancestor with a score of its own take a higher descendant score, which
    CAFA-evaluator-PK's fill (and goeval's) does not.
    """
    cmd = [_python(), str(HERE / "protea_runner.py"), str(obo), str(pred_dir), str(gt), "--th-step", str(th_step),
           "--prop", prop]
    for flag, path in (("--ia", ia), ("--known", known), ("--toi", toi)):
        if path is not None:
            cmd += [flag, str(path)]
    env = {**os.environ, "CAFAEVAL_SPARSE": "0"} if prop == "fill" else None
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def assert_same_frames(res, ref: dict, columns: tuple[str, ...], atol: float = 1e-9) -> None:
    """Every row (filename, ns, tau) and column of evaluation_all, and every optimum with its threshold."""
    df, best = cafaeval_frames(res, below_one=True)
    got = {(r["filename"], r["ns"], r["tau"]): r for r in df.reset_index().to_dict("records")}
    want = {(r["filename"], r["ns"], r["tau"]): r for r in ref["all"]}
    assert set(got) == set(want)
    for key, row in want.items():
        for col in columns:
            assert abs(got[key][col] - row[col]) <= atol, (key, col, got[key][col], row[col])
    for metric, rows in ref.items():
        if metric == "all":
            continue
        mine = best[metric].reset_index().set_index(["filename", "ns"])
        for row in rows:
            g = mine.loc[(row["filename"], row["ns"])]
            assert abs(g[metric] - row[metric]) <= atol and abs(g["cov_max"] - row["cov_max"]) <= atol
            assert g["tau"] == row["tau"], (metric, row["ns"], g["tau"], row["tau"])


def test_a_fully_known_protein_as_the_reference_counts_it():
    ref = reference(TINY / "ont.obo", TINY / "pred", TINY / "gt.tsv", th_step=0.1, ia=TINY / "ia.tsv",
                    known=TINY / "known.tsv")
    res = goeval.evaluate(TINY / "ont.obo", TINY / "gt.tsv", {"m.tsv": TINY / "pred" / "m.tsv"},
                          ia=TINY / "ia.tsv", known=TINY / "known.tsv", preset="cafa6", thresholds="arange:0.1")
    assert_same_frames(res, ref, COLUMNS + tuple(c + "_w" for c in COLUMNS))


# ------------------------------------------------- CAFA-evaluator-PK's example
#: An IA for the example's nine terms (the example ships none); written for these tests.
EXAMPLE_IA = {"GO:0008150": 0, "GO:0032501": 0.5, "GO:0040011": 0.25, "GO:0050879": 1.5, "GO:0031987": 2,
              "GO:0033058": 1, "GO:0071965": 3, "GO:0043056": 2.5, "GO:0043057": 4}


def _example() -> Path:
    """CAFA-evaluator-PK's example directory: ``$GOEVAL_PK_EXAMPLE``, else the shared folder's copy."""
    path = os.environ.get("GOEVAL_PK_EXAMPLE")
    example = Path(path) if path else shared_path("external", "cafa_evaluator_pk_example")
    if not (example / "go-sample.obo").exists():
        pytest.skip(f"CAFA-evaluator-PK's example is not in {example} (set GOEVAL_PK_EXAMPLE to its example/ "
                    "directory)")
    return example


def test_the_example_is_read_from_the_shared_folder_without_the_variable(tmp_path, monkeypatch):
    copy = tmp_path / "external" / "cafa_evaluator_pk_example"
    copy.mkdir(parents=True)
    (copy / "go-sample.obo").write_text("format-version: 1.2\n")
    monkeypatch.delenv("GOEVAL_PK_EXAMPLE", raising=False)
    monkeypatch.setenv("GOEVAL_SHARED_DATA", str(tmp_path))
    try:
        assert _example() == copy
    except pytest.skip.Exception as exc:  # a skip here is the failure: the shared copy was not found
        pytest.fail(f"the shared copy was not used: {exc}")
    monkeypatch.setenv("GOEVAL_PK_EXAMPLE", str(tmp_path / "elsewhere"))  # the variable still overrides
    with pytest.raises(pytest.skip.Exception, match="elsewhere"):
        _example()


def test_the_example_scores_as_its_readme_says():
    """README: both files reach pr = rc = f = 1 at tau 0.01 with n 2, tp 2.5, fp = fn = 0, cov 1, f_micro 1."""
    ex = _example()
    res = goeval.evaluate(ex / "go-sample.obo", ex / "ground_truth_partial.tsv", [ex / "predictions"],
                          known=ex / "known_t0.tsv", terms_of_interest=ex / "toi.tsv", normalization="cafa-pk",
                          thresholds="arange:0.01")
    _df, best = cafaeval_frames(res, below_one=True)
    for name, row in best["f"].reset_index().set_index("filename").iterrows():
        assert row["tau"] == 0.01 and (row["n"], row["tp"], row["fp"], row["fn"]) == (2, 2.5, 0, 0), name
        assert (row["pr"], row["rc"], row["f"], row["cov"], row["f_micro"], row["cov_max"]) == (1, 1, 1, 1, 1, 1)
    assert res.diagnostics["ontology"]["duplicate_stanzas_merged"][0]["id"] == "GO:0032501"


@pytest.mark.parametrize("variant", ["readme", "known", "no_known", "ia_fill_0.001"])
def test_the_example_against_the_reference(tmp_path, variant):
    ex = _example()
    ia = tmp_path / "ia.tsv"
    ia.write_text("".join(f"{t}\t{v}\n" for t, v in EXAMPLE_IA.items()))
    kw = {"readme": dict(known=ex / "known_t0.tsv", toi=ex / "toi.tsv", ia=ia),
          "known": dict(known=ex / "known_t0.tsv", ia=ia), "no_known": dict(ia=ia),
          "ia_fill_0.001": dict(known=ex / "known_t0.tsv", ia=ia)}[variant]
    step, prop = (0.001, "fill") if variant.endswith("0.001") else (0.01, "max")
    ref = reference(ex / "go-sample.obo", ex / "predictions", ex / "ground_truth_partial.tsv", th_step=step,
                    prop=prop, **kw)
    res = goeval.evaluate(ex / "go-sample.obo", ex / "ground_truth_partial.tsv",
                          {p.name: p for p in sorted((ex / "predictions").iterdir())}, ia=kw["ia"],
                          known=kw.get("known"), terms_of_interest=kw.get("toi"), preset="cafa6",
                          thresholds=f"arange:{step}", propagation=prop)
    assert_same_frames(res, ref, COLUMNS + tuple(c + "_w" for c in COLUMNS))


# ------------------------------------------ a real partial-knowledge case (2014 -> 2019)
@pytest.fixture(scope="module")
def real_case(tmp_path_factory) -> Path:
    """A CAFA 6-shaped case from the shared GO data: one species, at most 120 targets per kind and namespace,
    a BLAST submission with three-significant-figure scores and free-text lines."""
    data = shared_path("data")
    _python()
    out = tmp_path_factory.mktemp("cafa6_case")
    proc = subprocess.run([sys.executable, str(SCRIPT), str(data), str(out), "--species", "rat",
                           "--max-targets", "120"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import gzip

    (out / "go.obo").write_bytes(gzip.decompress((out / "go.obo.gz").read_bytes()))
    (out / "pred").mkdir()
    shutil.copy(out / "submission.tsv", out / "pred" / "submission.tsv")
    return out


def test_the_nine_weighted_fmax_and_the_final_score_on_real_data(real_case):
    case = real_case
    res = cafa6_eval(case / "go.obo", {k: case / f"truth_{k}.tsv" for k in ("NK", "LK", "PK")},
                     {"submission.tsv": case / "pred" / "submission.tsv"}, ia=case / "IA.tsv",
                     known=case / "known.tsv")
    cells = {(r["kind"], r["namespace"]): r for r in res.records}
    for kind in ("NK", "LK", "PK"):
        ref = reference(case / "go.obo", case / "pred", case / f"truth_{kind}.tsv", th_step=0.001,
                        ia=case / "IA.tsv", known=case / "known.tsv" if kind == "PK" else None)
        assert_same_frames(res.kinds[kind], ref, COLUMNS + tuple(c + "_w" for c in COLUMNS))
        for row in ref["f_w"]:
            label = next(k for k, v in NS.items() if v == row["ns"])
            assert abs(cells[(kind, label)]["value"] - row["f_w"]) <= 1e-9
    nine = [r["value"] for r in res.records if r["namespace"] in NS]
    assert len(nine) == 9 and res.score() == pytest.approx(np.mean(nine), abs=1e-15)
