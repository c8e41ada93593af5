"""The reliability figure (goeval.report.reliability): the lines are calibration.tsv's bins, ECE in the legend."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import numpy as np
import pytest
from numpy.testing import assert_array_equal

pytest.importorskip("matplotlib")


def _artist(fig, gid, kind):
    found = [a for ax in fig.axes for a in getattr(ax, kind) if a.get_gid() == gid]
    assert len(found) == 1, gid
    return found[0]


def test_each_method_is_its_bins_mean_score_against_fraction_true(two_methods):
    from goeval.report.reliability import calibration_figures
    from goeval.report.style import result_colors

    res = two_methods[0]
    figs = calibration_figures(res)
    assert list(figs) == ["calibration_MFO"]
    fig, table, summary = figs["calibration_MFO"], res.calibration, res.summary
    colors = result_colors(summary, res.curves, table)
    for m in ("BLAST", "naive"):
        rows = table[table["method"] == m]
        full = rows["pairs"].to_numpy() > 0
        line = _artist(fig, f"curve:{m}", "lines")
        assert_array_equal(line.get_xdata(), rows["mean_score"].to_numpy()[full])
        assert_array_equal(line.get_ydata(), rows["fraction_true"].to_numpy()[full])
        assert line.get_color() == colors[m]
        ece = summary[(summary["method"] == m) & (summary["measure"] == "ece")]["value"].iloc[0]
        assert line.get_label() == f"{m} (ECE {ece:.3f})"
        steps = _artist(fig, f"bins:{m}", "patches")
        heights = steps.get_data().values
        assert_array_equal(np.nan_to_num(heights), rows["pairs"].to_numpy())  # an empty bin: no step
    diagonal = _artist(fig, "iso:diagonal", "lines")
    assert_array_equal(diagonal.get_xdata(), [0, 1]) and diagonal.get_label() == "calibrated"
    assert fig.axes[1].get_yscale() == "log" and fig.axes[0].get_title() == "MFO: reliability"


def test_a_result_without_calibration_draws_none(two_methods, tmp_path):
    """Rank thresholds (or a folder of an earlier goeval): no calibration.tsv, no figure; goeval plot draws it
    for a folder that has one."""
    from goeval.cli import main
    from goeval.report.reliability import calibration_figures

    class NoTable:
        calibration = None

    assert calibration_figures(NoTable()) == {}
    out = tmp_path / "r"
    two_methods[0].save(out)
    assert main(["plot", str(out)]) == 0
    assert (out / "plots" / "calibration_MFO.png").stat().st_size > 0
