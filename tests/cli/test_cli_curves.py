"""goeval evaluate's curves: thin by default (said on the console), full, none, gzip; plot and report read them."""

from __future__ import annotations

import gzip
import json

import numpy as np

from goeval.cli import main
from goeval.io.results_dir import read_results_dir


def _inputs(tmp_path, tiny_obo):
    truth = tmp_path / "truth.tsv"
    truth.write_text("".join(f"P{i}\tGO:000000{4 + i % 2}\n" for i in range(12)))
    rng = np.random.default_rng(0)
    pred = tmp_path / "m.tsv"
    pred.write_text("".join(f"P{i}\tGO:000000{t}\t{rng.random():.6f}\n" for i in range(12) for t in (4, 5)))
    return ["--ontology", str(tiny_obo), "--truth", str(truth), "--predictions", str(pred)]


def _run(args, out, *extra):
    assert main(["evaluate", *args, "--out", str(out), *extra]) == 0
    return json.loads((out / "diagnostics.json").read_text())["curves"]


def test_thin_by_default_full_none_and_gzip(tiny_obo, tmp_path, capsys):
    args = _inputs(tmp_path, tiny_obo)
    full = _run(args, tmp_path / "full", "--curves", "full")
    assert full["policy"] == "full" and full["written"] == full["rows"] > 6
    capsys.readouterr()
    thin = _run(args, tmp_path / "thin", "--curve-points", "5", "--curve-tolerance", "0.01")
    err = capsys.readouterr().err
    assert thin["policy"] == "thin" and thin["max_points"] == 5 and thin["tolerance"] == 0.01
    assert thin["rows"] == full["rows"] and thin["written"] < thin["rows"]
    assert "curves thinned:" in err and f"{thin['rows']:,} rows -> {thin['written']:,} written" in err
    a, b = read_results_dir(tmp_path / "full"), read_results_dir(tmp_path / "thin")
    assert a.summary.equals(b.summary) and len(b.curves) == thin["written"]
    assert set(b.curves["threshold"]) <= set(a.curves["threshold"])
    default = _run(args, tmp_path / "default")  # short curves: thin keeps them whole, says nothing
    assert default["policy"] == "thin" and default["written"] == default["rows"]
    assert "curves thinned" not in capsys.readouterr().err
    none = _run(args, tmp_path / "none", "--curves", "none")
    assert none["written"] == 0 and not (tmp_path / "none" / "curves.tsv").exists()
    _run(args, tmp_path / "gz", "--curves", "full", "--curves-gzip")
    assert gzip.decompress((tmp_path / "gz" / "curves.tsv.gz").read_bytes()) == \
        (tmp_path / "full" / "curves.tsv").read_bytes()


def test_report_reads_gzip_and_absent_curves(tiny_obo, tmp_path):
    args = _inputs(tmp_path, tiny_obo)
    for name, extra in (("gz", ["--curves-gzip"]), ("none", ["--curves", "none"])):
        out = tmp_path / name
        _run(args, out, *extra)
        assert main(["report", str(out)]) == 0
        assert (out / "report.html").exists()
