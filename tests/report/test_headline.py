"""The headline of a result: per (kind,) namespace and method, Fmax (threshold, coverage), weighted Fmax, Smin."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import math

from goeval.io.results_dir import read_results_dir
from goeval.report.headline import headline_html, headline_matrix, headline_text


def _row(method, ns, measure, value, ci=None, threshold=0.5, coverage=0.9):
    r = {"method": method, "namespace": ns, "measure": measure, "value": value, "threshold": threshold,
         "coverage": coverage}
    return {**r, "ci_low": ci[0], "ci_high": ci[1]} if ci else r


def test_one_row_per_namespace_and_method_with_the_headline_measures():
    records = [_row("A", "BPO", "fmax", 0.41234, (0.4, 0.43), 0.0002), _row("A", "BPO", "smin", 12.3456, (11, 13)),
               _row("B", "BPO", "fmax", 0.3), _row("A", "MFO", "fmax", 0.5), _row("A", "MFO", "wfmax", math.nan),
               _row("A", "BPO", "aupr", 0.2), _row("A", "all", "fmax", 0.45)]
    rows = headline_matrix(records)
    assert [(r["namespace"], r["method"]) for r in rows] == [("BPO", "A"), ("BPO", "B"), ("MFO", "A")]
    assert rows[0] == {"namespace": "BPO", "method": "A", "Fmax": "0.4123 [0.4000, 0.4300]", "threshold": "<0.001",
                       "coverage": "0.900", "Smin (bits)": "12.346 [11.000, 13.000]"}
    assert rows[1]["Fmax"] == "0.3000" and rows[2]["weighted Fmax"] == "nan"


def test_the_result_and_its_directory_show_the_same_headline(two_methods):
    res, out = two_methods
    assert headline_matrix(res) == headline_matrix(read_results_dir(out))
    text = headline_text(res)
    assert text.splitlines()[0].split() == ["namespace", "method", "Fmax", "threshold", "coverage", "weighted", "Fmax",
                                            "Smin", "(bits)"]
    assert text.splitlines()[-1] == "[low, high]: the 95 % bootstrap percentile interval (40 resamples)"


def test_a_time_split_has_a_targets_column_and_the_html_escapes_names(two_methods):
    res = two_methods[0]
    rows = headline_matrix({"NK": res, "LK": res})
    assert [r["targets"] for r in rows] == ["NK", "NK", "LK", "LK"] and rows[0]["method"] == "BLAST"
    page = headline_html([_row("<b>", "MFO", "fmax", 0.5)], "R & D")
    assert "&lt;b&gt;" in page and "<b>" not in page and "R &amp; D" in page and "<th>Fmax</th>" in page
    assert "nothing evaluated" in headline_html([], "empty")
