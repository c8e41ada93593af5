"""Tests of ``goeval tapk`` (run in-process through goeval.cli.main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goeval.cli import main

RETLISTS = Path(__file__).resolve().parents[1] / "data" / "external" / "tapk_retlists"
SHORT = str(RETLISTS / "short.tsv")

# Worked example 1 of the "What is TAP-k?" page in the reference tool's format.
EXAMPLE1 = """\
Q1
5
1\t0.900
1\t0.738
0\t0.605
1\t0.496
1\t0.407
0\t0.334
0\t0.274
0\t0.224
1\t0.184
0\t0.151

Q4
3
0\t0.2
0\t0.187
0\t0.174
0\t0.163

Q5
5
1\t0.980
0\t0.788
0\t0.633
1\t0.509
1\t0.409
0\t0.329
0\t0.265
0\t0.213
0\t0.171
1\t0.138
"""


@pytest.fixture
def example(tmp_path: Path) -> str:
    path = tmp_path / "example.tsv"
    path.write_text(EXAMPLE1)
    return str(path)


def test_text_summary_and_query_lines(capsys):
    assert main(["tapk", SHORT, "-k", "5", "-k", "12"]) == 0
    out = capsys.readouterr().out
    assert "TAP-5 = 0.566389  cutoff 0.654552" in out
    assert "TAP-12 = 0.431944" in out
    assert out.count("18618250") == 2


def test_json_output(capsys, example):
    assert main(["tapk", example, "-k", "2", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    run = doc["runs"][0]
    assert doc["n_queries"] == 3 and run["k"] == 2
    # 2nd errors: Q1 0.334, Q4 0.187, Q5 0.633 -> median of three: 0.334
    assert run["cutoff"] == 0.334
    q1 = run["queries"][0]
    assert q1["apcp"] == pytest.approx((1 + 1 + 3 / 4 + 4 / 5 + 4 / 6) / 6)


def test_tsv_output_with_comparison_measures(capsys):
    assert main(["tapk", SHORT, "-k", "5", "--format", "tsv", "--roc", "50", "--curve"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows[0][:3] == ["measure", "k", "query"]
    measures = {r[0] for r in rows[1:]}
    assert {"TAP", "APCP", "AP", "ROC_50", "pooled_ROC_50", "MAP", "peak_TAP", "TAP_curve"} <= measures
    tap = next(r for r in rows if r[0] == "TAP")
    assert float(tap[7]) == pytest.approx(0.5663888888888888)
    assert sum(r[0] == "APCP" for r in rows) == 5


def test_evalues_and_threshold(capsys):
    asc = str(RETLISTS / "asc.tsv")
    assert main(["tapk", asc, "-k", "5"]) == 2
    assert "use --evalue" in capsys.readouterr().err
    assert main(["tapk", asc, "-k", "5", "--evalue"]) == 0
    assert "TAP-5 = 0.650794" in capsys.readouterr().out
    assert main(["tapk", asc, "--threshold", "0.5", "--evalue", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["k"] is None and run["cutoff"] == 0.5


def test_insufficient_and_zero_relevant_options(capsys):
    assert main(["tapk", SHORT, "-k", "50", "--insufficient", "error"]) == 2
    assert "Fewer than 0.5 of the retrieval lists have 50 errors" in capsys.readouterr().err
    assert main(["tapk", SHORT, "-k", "50", "--insufficient", "pad", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["cutoff"] is None and run["fallback_used"] is True
    no_t = str(RETLISTS / "no_T_q.tsv")
    assert main(["tapk", no_t, "-k", "5", "--zero-relevant", "perl", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert all(q["apcp"] > 0 for q in run["queries"])


def test_malformed_file_exits_2(capsys):
    assert main(["tapk", str(RETLISTS / "toomanyrelevant.tsv"), "-k", "5"]) == 2
    err = capsys.readouterr().err
    assert "toomanyrelevant.tsv, line 11" in err and "T(q)" in err


def test_bad_parameter_exits_2(capsys):
    assert main(["tapk", SHORT, "-k", "0"]) == 2
    assert "'k' parameter of tap_k" in capsys.readouterr().err


def test_k_or_threshold_is_required():
    with pytest.raises(SystemExit) as info:
        main(["tapk", SHORT])
    assert info.value.code == 2


def test_curve_text(capsys, example):
    assert main(["tapk", example, "-k", "1", "--curve", "--roc", "2", "--unweighted"]) == 0
    out = capsys.readouterr().out
    assert "peak TAP =" in out and "ROC_2: pooled" in out
