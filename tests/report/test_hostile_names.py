"""Names from someone else's files: refused when they hold a control character, escaped for every output.

Every hostile file is made here, in the test's own temporary folder.
"""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import json
import re

import numpy as np
import pytest
from oracles import random_case

from goeval.cli import main
from goeval.errors import InputFormatError
from goeval.evaluation import evaluate_annotations
from goeval.io.paths import find_prediction_files
from goeval.io.results_dir import read_results_dir
from goeval.report.html import report_markdown
from goeval.stats.store import PROTEIN_STATS_FILE, protein_stats_arrays

CONTROLS = ["\t", "\n", "\r", "\x1b[2J", "\x85", "\u2028", "\u202e"]


def stats_file(path, methods=("A", "B")):
    """A ``protein_stats.npz`` whose ``meta`` names ``methods`` (written as numpy does, not as goeval would)."""
    case = random_case(5, n_proteins=20)
    onto = case.ontology()
    res = evaluate_annotations(onto, case.truth_annotations(onto), {m: case.predictions(onto) for m in ("A", "B")},
                               ia=case.ia_array(onto), bootstrap=10)
    arrays = protein_stats_arrays(res.stats, res.diagnostics["options"])
    meta = json.loads(str(arrays["meta"]))
    rename = dict(zip(("A", "B"), methods))
    meta["blocks"] = [[rename[m], ns] for m, ns in meta["blocks"]]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **arrays)
    return path


def results_copy(src, dst, old="naive", new="naive"):
    """A results folder whose tables name the method ``old`` ``new`` (no manifest: a folder made by hand)."""
    dst.mkdir()
    for name in ("summary.tsv", "curves.tsv"):
        (dst / name).write_bytes((src / name).read_bytes().replace(old.encode(), new.encode()))
    (dst / "diagnostics.json").write_bytes((src / "diagnostics.json").read_bytes())
    return dst


# ------------------------------------------------------------ finding 2: names from protein_stats.npz
def test_a_newline_in_a_method_of_protein_stats_is_refused_before_the_planted_out_link_is_followed(
        tmp_path, capsys):
    folder = tmp_path / "shared"
    folder.mkdir()
    stats_file(folder / PROTEIN_STATS_FILE, ("A\ntouch /tmp/PWNED #", "B"))
    victim = tmp_path / "bashrc"
    victim.write_text("# mine\n")
    (folder / "pairs.tsv").symlink_to(victim)
    rc = main(["compare", str(folder), "--bootstrap", "10", "--permutations", "0", "--out", str(folder / "pairs.tsv")])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert str(folder / PROTEIN_STATS_FILE) in err and "'A\\ntouch /tmp/PWNED #'" in err  # escaped: one line
    assert victim.read_text() == "# mine\n"


@pytest.mark.parametrize("bad", CONTROLS)
def test_method_and_namespace_names_of_protein_stats_hold_no_control_character(tmp_path, bad):
    from goeval.stats import read_protein_stats

    with pytest.raises(InputFormatError, match="method name holds the control character") as info:
        read_protein_stats(stats_file(tmp_path / PROTEIN_STATS_FILE, (f"A{bad}x", "B")))
    assert repr(f"A{bad}x") in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------ names from file names
@pytest.mark.parametrize("bad", CONTROLS)
def test_a_prediction_file_whose_name_holds_a_control_character_is_an_error_naming_it(tmp_path, bad):
    ordinary = ["x$\\foo{", "<b>", "[a](b)", "é ü"]  # any other character is a name's own
    for name in ordinary:
        (tmp_path / f"{name}.tsv").write_text("T1\tGO:1\t0.5\n")
    assert sorted(find_prediction_files([tmp_path]).files) == sorted(ordinary)
    (tmp_path / f"te{bad}am.tsv").write_text("T1\tGO:1\t0.5\n")
    with pytest.raises(InputFormatError, match="method name holds the control character") as info:
        find_prediction_files([tmp_path])
    assert repr(f"te{bad}am") in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------ names from summary.tsv rows
@pytest.mark.parametrize("bad", ["\r", "\x1b[2J", "\x0b", "\u2028", "\u202e"])
def test_a_results_table_with_a_control_character_in_a_cell_is_an_error_with_its_line(two_methods, tmp_path, bad):
    windows = results_copy(two_methods[1], tmp_path / "w")  # a carriage return before the line feed is a line end
    (windows / "summary.tsv").write_bytes((windows / "summary.tsv").read_bytes().replace(b"\n", b"\r\n"))
    assert set(read_results_dir(windows).summary.method) == {"BLAST", "naive"}
    folder = results_copy(two_methods[1], tmp_path / "r", "naive", f"nai{bad}ve")
    with pytest.raises(InputFormatError, match="control character") as info:
        read_results_dir(folder)
    msg = str(info.value)
    assert ("curves.tsv, line " in msg or "summary.tsv, line " in msg) and repr(bad)[1:-1] in msg
    assert "\n" not in msg and "\r" not in msg


# ------------------------------------------------------------ finding 7: report.md
@pytest.mark.parametrize("name, raw", [("<img src=x onerror=alert(1)>", "<img"),
                                       ("[a](javascript:alert(1))", "](javascript:"),
                                       ("![i](http://x/y.png)", "](http:"),
                                       ("**bold** `code` $x$", "`code`")])
def test_report_md_shows_a_hostile_method_name_as_its_text(two_methods, tmp_path, name, raw):
    md = report_markdown(read_results_dir(results_copy(two_methods[1], tmp_path / "r", "naive", name)))
    assert re.search(r"(?<!\\)" + re.escape(raw), md) is None  # only escaped: \<img, \](javascript:
    escaped = "".join("\\" + c if c in "\\`*_[]{}<>&|~$#!" else c for c in name)
    assert f"| {escaped} |" in md  # every markup character escaped: it renders as the name


def test_report_md_keeps_a_command_with_backticks_in_its_code_span(two_methods, tmp_path):
    folder = results_copy(two_methods[1], tmp_path / "r")
    diag = json.loads((folder / "diagnostics.json").read_text())
    diag["command"] = ["goeval", "evaluate", "`<img src=x>`", "a\nb"]
    (folder / "diagnostics.json").write_text(json.dumps(diag))
    md = report_markdown(read_results_dir(folder))
    line = next(x for x in md.splitlines() if x.startswith("Command:"))
    assert line == "Command: ``goeval evaluate '`<img src=x>`' 'a\\nb'``"  # a longer fence, the newline shown


# ------------------------------------------------------------ finding 8: figures
def _figure_texts(fig):
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_text()]


def test_a_dollar_in_a_method_name_is_drawn_as_a_dollar(two_methods, tmp_path):
    pytest.importorskip("matplotlib")
    from goeval.report.plots import figure_bytes, results_figures

    name = "x$\\foo{$"
    res = read_results_dir(results_copy(two_methods[1], tmp_path / "r", "naive", name))
    figs = results_figures(res)
    shown = set()
    for fig in figs.values():
        assert figure_bytes(fig).startswith(b"\x89PNG")
        for t in _figure_texts(fig):
            text, math = t._preprocess_math(t.get_text())
            assert not math
            shown.add(text)
    assert name in shown and any(t.startswith(name + ": Fmax") for t in shown)  # a tick label and a legend entry


def test_a_value_outside_its_percentile_interval_is_drawn_with_the_interval(two_methods, tmp_path):
    pytest.importorskip("matplotlib")
    from goeval.report.plots import figure_bytes, optima_figure

    res = read_results_dir(two_methods[1])
    s = res.summary.copy()
    row = (s.method == "naive") & (s.measure == "fmax")
    s.loc[row, "ci_low"] = s.loc[row, "value"] + 0.01  # a percentile interval need not hold the estimate
    s.loc[row, "ci_high"] = s.loc[row, "value"] + 0.05
    fig = optima_figure(s)
    segment = [c for c in fig.axes[0].collections if c.get_gid() == "ci:naive"][0].get_segments()[0]
    assert sorted(segment[:, 1]) == pytest.approx([s.loc[row, "ci_low"].iloc[0], s.loc[row, "ci_high"].iloc[0]])
    assert figure_bytes(fig).startswith(b"\x89PNG")


def test_an_interval_whose_low_end_is_above_its_high_end_is_an_error_naming_it(two_methods, tmp_path, capsys):
    folder = results_copy(two_methods[1], tmp_path / "r")
    lines = (folder / "summary.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    k = next(i for i, x in enumerate(lines) if x.startswith("naive\tMFO\tfmax\t"))
    cells = lines[k].split("\t")
    cells[head.index("ci_low")], cells[head.index("ci_high")] = "0.6", "0.4"
    lines[k] = "\t".join(cells)
    (folder / "summary.tsv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFormatError, match=f"summary.tsv, line {k + 1}: the interval of method naive, "
                                               "namespace MFO, measure fmax runs from ci_low 0.6"):
        read_results_dir(folder)
    assert main(["plot", str(folder), "--out", str(tmp_path / "p")]) == 2
    assert "Traceback" not in capsys.readouterr().err and not (tmp_path / "p").exists()


def test_a_namespace_that_looks_like_a_path_names_a_figure_inside_the_folder(two_methods, tmp_path):
    pytest.importorskip("matplotlib")
    folder = results_copy(two_methods[1], tmp_path / "r", "\tMFO\t", "\t/../../../escaped\t")
    assert main(["plot", str(folder), "--out", str(folder / "plots"), "-q"]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.png"))
    assert "r/plots/fig4__.._.._.._escaped.png" in written and all(p.startswith("r/plots/") for p in written)


def test_a_hostile_namespace_is_text_in_the_contents_headings_and_anchors(two_methods, tmp_path):
    from goeval.report.html import report_html

    name = '<img src=x onerror=alert(1)> "#s1'
    res = read_results_dir(results_copy(two_methods[1], tmp_path / "r", "\tMFO\t", f"\t{name}\t"))
    page = report_html(res, {"fig4_" + name: b"\x89PNG"})
    assert "<img src=x" not in page and 'onerror=alert(1)>' not in page
    shown = '&lt;img src=x onerror=alert(1)&gt; &quot;#s1: methods ranked'
    anchors = re.findall(r'<a href="#([^"]+)">' + re.escape(shown) + "</a>", page)
    assert anchors and all(re.fullmatch(r"s[0-9-]+", a) for a in anchors)  # numbered, never the name
    assert f'<h2 id="{anchors[0]}">{shown}</h2>' in page
    md = report_markdown(res)
    assert "- \\<img src=x onerror=alert(1)\\> \"\\#s1: methods ranked" in md  # the contents entry, escaped


def test_the_top_bars_of_a_namespace_that_looks_like_a_path_stay_inside_the_folder(two_methods, tmp_path):
    pytest.importorskip("matplotlib")
    folder = results_copy(two_methods[1], tmp_path / "r", "\tMFO\t", "\t/../../../escaped\t")
    for name in ("summary.tsv", "curves.tsv"):  # a method that is not a baseline, so that the top-N bars are drawn
        (folder / name).write_bytes((folder / name).read_bytes().replace(b"BLAST\t", b"x$\\foo{$\t"))
    assert main(["plot", str(folder), "--out", str(folder / "plots"), "-q", "--no-panels"]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.png"))
    assert "r/plots/top__.._.._.._escaped.png" in written and all(p.startswith("r/plots/") for p in written)
    from goeval.report.plots import top_methods_figure

    fig = top_methods_figure(read_results_dir(folder).summary, "/../../../escaped")
    texts = {t._preprocess_math(t.get_text()) for t in _figure_texts(fig)}
    assert ("x$\\foo{$", False) in texts and all(not math for _, math in texts)  # drawn as written, never as math
