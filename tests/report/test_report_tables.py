"""goeval.report.tables: the report's tables as text, against the summary they come from."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import types

import numpy as np
import pandas as pd

from goeval.io.results_dir import read_results_dir
from goeval.metrics.registry import get_measure
from goeval.report.tables import (HEADLINE_MEASURES, comparison_records, frame_records, headline_matrix, headline_note,
                                  optima_records, other_matrix, provenance, ranking_records, diagnostics_lines)

LABELS = {"fmax": "Fmax", "wfmax": "weighted Fmax", "smin": "Smin (bits)", "max_coverage": "maximum coverage"}


def _cell(row, fmt):
    """The oracle of a matrix cell: the value, and its interval when both ends are numbers."""
    text = format(row.value, fmt)
    return text + (f" [{row.ci_low:{fmt}}, {row.ci_high:{fmt}}]" if np.isfinite([row.ci_low, row.ci_high]).all() else "")


def test_ranking_is_best_first_with_intervals(two_methods):
    res = read_results_dir(two_methods[1])
    fmax = ranking_records(res.summary, "MFO", "fmax")
    assert [r["method"] for r in fmax] == ["BLAST", "naive"]  # 0.4856 > 0.4592
    smin = ranking_records(res.summary, "MFO", "smin")
    values = [float(r["value"]) for r in smin]
    assert values == sorted(values)  # lower is better
    assert list(fmax[0]) == ["rank", "method", "value", "CI", "se", "threshold", "coverage", "precision", "recall",
                             "ru", "mi"]
    row = res.summary.query("method == 'BLAST' and measure == 'fmax'").iloc[0]
    assert fmax[0]["CI"] == f"[{row.ci_low:.4f}, {row.ci_high:.4f}]" and fmax[0]["threshold"] == "0.460"
    assert fmax[0]["ru"] == f"{row.ru:.3f}" and fmax[0]["mi"] == f"{row.mi:.3f}"
    assert ranking_records(res.summary, "BPO", "fmax") == []


def test_optima_records_hold_every_ranking_of_a_namespace_in_one_table(two_methods):
    res = read_results_dir(two_methods[1])
    rows = optima_records(res.summary, "MFO")
    assert [r["measure"] for r in rows] == ["Fmax"] * 2 + ["weighted Fmax"] * 2 + ["Smin (bits)"] * 2 + \
        ["weighted Smin (bits)"] * 2
    assert rows[4:6] == [{"measure": "Smin (bits)", **r} for r in ranking_records(res.summary, "MFO", "smin")]


def test_rankings_of_a_rank_threshold_run_read_k_not_a_score(two_methods):
    """With ``ranks`` the threshold is the k of a rank threshold: ``5``, ``all`` for every term (inf), not ``5.000``
    and ``inf``; an undefined one stays empty."""
    s = read_results_dir(two_methods[1]).summary.copy()
    s.loc[s.measure == "fmax", "threshold"] = [5.0, np.inf]
    s.loc[s.measure == "smin", "threshold"] = [1.0, np.nan]
    rows = optima_records(s, "MFO", ranks=True)
    assert sorted(r["threshold"] for r in rows if r["measure"] == "Fmax") == ["5", "all"]
    assert sorted(r["threshold"] for r in rows if r["measure"] == "Smin (bits)") == ["", "1"]
    assert {r["threshold"] for r in optima_records(s, "MFO") if r["measure"] == "Fmax"} == {"5.000", "inf"}


def test_headline_matrix_is_namespace_by_method_with_intervals_and_the_best_marked(two_methods):
    res = read_results_dir(two_methods[1])
    s = res.summary
    m = headline_matrix(res)
    assert [(r["namespace"], r["method"]) for r in m.records] == [("MFO", "BLAST"), ("MFO", "naive")]
    assert list(m.records[0]) == ["namespace", "method", *LABELS.values()]
    best = set()
    for i, rec in enumerate(m.records):
        for measure in HEADLINE_MEASURES:
            fmt = ".3f" if get_measure(measure).unit else ".4f"
            row = s[(s.method == rec["method"]) & (s.measure == measure)].iloc[0]
            assert rec[LABELS[measure]] == _cell(row, fmt)
            sub = s[s.measure == measure]
            want = sub.value.min() if get_measure(measure).direction == "min" else sub.value.max()
            if row.value == want:
                best.add((i, LABELS[measure]))
    assert m.best == best
    assert (0, "Fmax") in m.best and (1, "Fmax") not in m.best  # BLAST 0.4856 > naive 0.4592
    assert "[" in m.records[0]["Fmax"]  # the fixture has intervals


def test_headline_matrix_ties_minimised_measures_and_time_split_kinds(two_methods):
    res = read_results_dir(two_methods[1])
    s = res.summary
    tied = s.assign(value=np.where(s.measure == "smin", 5.0, s.value))
    tied = tied.assign(value=np.where((tied.measure == "fmax") & (tied.method == "naive"), 0.9, tied.value))
    m = headline_matrix(types.SimpleNamespace(summary=tied))
    assert {(0, "Smin (bits)"), (1, "Smin (bits)"), (1, "Fmax")} <= m.best and (0, "Fmax") not in m.best
    split = types.SimpleNamespace(parts={"NK": types.SimpleNamespace(summary=s), "LK": types.SimpleNamespace(summary=tied)})
    m = headline_matrix(split)
    assert [(r["targets"], r["method"]) for r in m.records] == [("NK", "BLAST"), ("NK", "naive"), ("LK", "BLAST"),
                                                                ("LK", "naive")]
    assert list(m.records[0])[:3] == ["targets", "namespace", "method"]
    assert (0, "Fmax") in m.best and (3, "Fmax") in m.best and (2, "Fmax") not in m.best  # per kind
    nan = s.assign(value=np.where(s.measure == "fmax", np.nan, s.value))
    m = headline_matrix(types.SimpleNamespace(summary=nan))
    assert m.records[0]["Fmax"].startswith("nan (undefined)") and not {c for c in m.best if c[1] == "Fmax"}


def test_other_measures_are_a_matrix_with_cafaeval_names(two_methods):
    res = read_results_dir(two_methods[1])
    records, names = other_matrix(res.summary)
    shown = {"fmax", "wfmax", "smin", "wsmin", "max_coverage"}
    others = [m for m in dict.fromkeys(res.summary.measure) if m not in shown]
    assert [(r["namespace"], r["method"]) for r in records] == [("MFO", "BLAST"), ("MFO", "naive")]
    assert len(records[0]) == 2 + len(others) and "Smin (terms)" in records[0]
    row = res.summary.query("method == 'naive' and measure == 'smin_terms'").iloc[0]
    assert records[1]["Smin (terms)"] == _cell(row, ".3f")
    assert "Smin (terms): s" in names


def test_tables_are_rounded_for_reading(two_methods):
    res = read_results_dir(two_methods[1])
    s = res.summary.copy()
    s.loc[s.measure == "wfmax", "threshold"] = 2.58e-05
    s.loc[s.measure == "fmax", "threshold"] = 0.09976
    rows = optima_records(s, "MFO")
    assert {r["threshold"] for r in rows if r["measure"] == "weighted Fmax"} == {"<0.001"}
    assert {r["threshold"] for r in rows if r["measure"] == "Fmax"} == {"0.100"}
    for r in rows:
        assert all(len(v.split(".")[1]) <= 4 for k, v in r.items() if k in ("value", "coverage", "precision"))
    smin = s[(s.method == "BLAST") & (s.measure == "smin")].value.iloc[0]
    assert next(r for r in rows if r["measure"] == "Smin (bits)")["value"] == f"{smin:.3f}"  # bits: 3 decimals
    note = " ".join(headline_note(res))
    assert "docs/cafaeval.md" in note and "smin_terms" in note and "0.01 grid" in note
    assert "this run's thresholds: grid step 0.01" in note  # the fixture's grid
    exact = types.SimpleNamespace(summary=s, diagnostics={"options": {"thresholds": "exact"}})
    assert any("exact thresholds (every distinct score)" in x for x in headline_note(exact))


def test_table1_and_retrieval_cells_are_rounded_too():
    t1 = pd.DataFrame({"namespace": ["MFO"], "method": ["naive"], "fmax": [0.45912345], "fmax_threshold": [2.58e-05],
                       "smin": [8.554321], "smin_threshold": [0.41876], "tap_10": [0.123456789]})
    (row,) = frame_records(t1)
    assert row == {"namespace": "MFO", "method": "naive", "fmax": "0.4591", "fmax_threshold": "<0.001",
                   "smin": "8.554", "smin_threshold": "0.419", "tap_10": "0.1235"}


def test_comparison_records_round_and_keep_the_kind():
    pair = {"targets": "NK", "namespace": "MFO", "measure": "smin", "method_a": "A", "method_b": "B", "value_a": 7.12345,
            "value_b": 8.5, "difference": -1.37655, "ci_low": -2.0001, "ci_high": -0.5, "se": 0.3, "wins_a": 0.99,
            "ties": 0.0, "wins_b": 0.01, "p_value": 0.0009990, "p_holm": 0.001998, "n_resamples": 1000,
            "n_permutations": 1000}
    (row,) = comparison_records([pair])
    assert row == {"targets": "NK", "namespace": "MFO", "measure": "Smin (bits)", "method A": "A", "method B": "B",
                   "A": "7.123", "B": "8.500", "A - B": "-1.377", "CI": "[-2.000, -0.500]", "A better": "0.990",
                   "B better": "0.010", "p": "0.0010", "p (Holm)": "0.0020"}
    assert "targets" not in comparison_records([{k: v for k, v in pair.items() if k != "targets"}])[0]


def test_provenance_reads_command_and_versions():
    prov = provenance({"command": ["goeval", "evaluate", "--out", "my dir"], "versions": {"goeval": "0.1.0"},
                       "options": {"k": 2.0}, "truth": {"source": "t.tsv"}, "methods": {"m": {"source": "m.tsv"}}})
    assert prov["command"] == "goeval evaluate --out 'my dir'"
    assert prov["inputs"] == {"truth": "t.tsv", "method m": "m.tsv"} and prov["versions"] == {"goeval": "0.1.0"}


def test_diagnostics_say_when_curves_were_thinned_or_not_written():
    thin = {"policy": "thin", "tolerance": 0.001, "max_points": 2000, "rows": 1_227_704, "written": 1040,
            "thinned": 3, "capped": 1}
    (line,) = diagnostics_lines({"curves": thin})[0]
    assert "1,040 of 1,227,704 rows" in line and "3 curves" in line and "1 curves capped at 2000" in line
    assert "every threshold" in line
    assert diagnostics_lines({"curves": {"policy": "none"}})[0] == [
        "curves: not written (--curves none); the optima were taken over every threshold"]
    assert diagnostics_lines({"curves": {"policy": "thin", "rows": 100, "written": 100, "thinned": 0}})[0] == []
