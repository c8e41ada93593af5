"""goeval.report.text: the console's tables and what they say about their numbers."""

from __future__ import annotations

from goeval.report.text import cafaeval_note, format_column, format_summary


def test_cafaeval_note_says_smin_is_bits_and_points_to_the_page():
    lines = cafaeval_note(["fmax", "smin", "smin_terms"], "exact")
    assert lines[0] == "note: smin is in bits (CAFA-evaluator's s_w); CAFA-evaluator's s counts terms: smin_terms here."
    assert lines[1] == "      tau: every distinct score (CAFA-evaluator: a 0.01 grid, -th_step)."
    assert lines[-1].endswith("docs/cafaeval.md") and len(lines) == 3
    assert all(len(line) <= 100 for line in lines)


def test_cafaeval_note_on_a_grid():
    lines = cafaeval_note(["fmax"], 0.01)
    assert lines[0] == "note: tau: exact multiples of 0.01 (CAFA-evaluator's np.arange has 0.48000000000000004 for 0.48)."


def test_cafaeval_note_under_cafaeval_thresholds():
    assert cafaeval_note(["fmax", "wfmax"], 0.001, "cafa5") == []  # the preset's grid: nothing differs here
    assert cafaeval_note(["fmax"], "arange:0.01") == []
    lines = cafaeval_note(["wfmax", "smin"], "arange:0.001", "cafa6")  # the names still differ
    assert len(lines) == 2 and "smin is in bits" in lines[0] and "tau" not in "".join(lines)


def test_format_column_has_one_format():
    assert format_column([0.8, 0.419, 0.63634, 2.58e-05, 0.0, None, float("nan")]) == [
        "0.8000", "0.4190", "0.6363", "<0.0001", "0.0000", "", ""]
    assert format_column([-1e-9, 12.5], 2, "-") == ["-<0.01", "12.50"]
    assert format_column([None], missing="-") == ["-"]


def test_summary_tau_column_in_one_format():
    records = [{"method": "m", "namespace": "MFO", "measure": ms, "value": 0.5, "threshold": tau, "coverage": 1.0,
                "precision": 0.5, "recall": 0.5, "ru": None, "mi": None}
               for ms, tau in (("fmax", 0.8), ("wfmax", 0.419), ("smin", 0.63634), ("max_coverage", 2.58e-05))]
    rows = format_summary(records).splitlines()[2:]
    assert [r.split()[4] for r in rows] == ["0.8000", "0.4190", "0.6363", "<0.0001"]
