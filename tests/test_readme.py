"""The README's examples print what the code prints, and each number says which thresholds gave it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import goeval

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(section: str) -> list[str]:
    """The fenced blocks of the README section whose heading starts with ``section``."""
    start = README.index(section)
    end = README.find("\n#", start + len(section))
    return re.findall(r"```[a-z]*\n(.*?)```", README[start:end if end > 0 else None], re.S)


def _printed(block: str, measure: str) -> str:
    (row,) = [line for line in block.splitlines() if re.match(rf"BB4S_mfo_NK\s+MFO\s+{measure}\s", line)]
    return row.split()[3]


@pytest.fixture(scope="module")
def example():
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    preds = [goeval.example_path("predictions")]
    return {t: goeval.evaluate(onto, truth, preds, ia=goeval.example_path("ia"), thresholds=t).best
            for t in (0.01, "exact")}


def test_the_set_up_commands_are_the_two_the_ci_runs():
    commands = re.findall(r"```\n(python3 -m venv .*?)\n```", README)
    assert commands == ['python3 -m venv .venv && . .venv/bin/activate && pip install ".[plot]" && goeval demo',
                        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && python -m pytest']
    last = (ROOT / ".ci" / "run").read_text().rstrip().splitlines()[-1]
    assert last.replace(" --quiet", "") == commands[1].split(" && ", 2)[2]  # the CI runs command 2, quietly


def test_the_demo_and_the_evaluate_example_print_the_codes_numbers_with_their_thresholds(example):
    demo = _blocks("## Set up")[1]
    assert "(thresholds: 0.01)" in demo
    evaluate = _blocks("### Evaluate predictions")[1]
    for block, thresholds in ((demo, 0.01), (evaluate, "exact")):
        best = example[thresholds]
        for measure in ("fmax", "wfmax", "smin"):
            assert _printed(block, measure) == f"{best(measure).iloc[0, 0]:.4f}", (thresholds, measure)
    assert "tau: every distinct score" in evaluate  # the table says its thresholds too
    said = README[README.index("### Evaluate predictions"):README.index("### CAFA 6")]
    # each number of the two runs is named with its thresholds next to it
    assert re.search(r"\*\*exact thresholds\*\* \(the default\): F<sub>max</sub> 0\.4872", said)
    assert re.search(r"\*\*0\.01 grid\*\* gives 0\.4856 and\s+0\.4068", said)
    setup = README[README.index("## Set up"):README.index("## One example per job")]
    assert re.search(r"weighted F<sub>max</sub> 0\.4068, on the\s+0\.01 grid", setup)


def test_the_notebook_example_prints_the_exact_optimum(example):
    printed = _blocks("### In a notebook")[1]
    assert f"{example['exact']('fmax').iloc[0, 0]:.6f}" in printed


def test_every_file_the_readme_names_exists():
    named = set(re.findall(r"\]\(([^)#\s]+)\)", README))  # Markdown links and images
    named |= {p.rstrip(".,;") for p in re.findall(r"`((?:docs|scripts|notebooks|ontologies|src)/[^` ]+)`", README)}
    named |= set(re.findall(r"`([A-Z]+\.md)`", README))
    assert {"docs/cli.md", "docs/img/demo_fig4.png", "docs/python.md"} <= named
    assert sorted(p for p in named if not (ROOT / p).exists()) == []



def test_the_metric_check_rows_are_what_the_code_prints(tmp_path, capsys):
    """The rows the README shows of ``goeval metric-check`` on the bundled example are the rows it prints."""
    from goeval.cli import main

    d = goeval.example_path
    assert main(["metric-check", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--ia", str(d("ia")),
                 "-q", "--out", str(tmp_path / "mc")]) == 0
    printed = capsys.readouterr().out.splitlines()
    shown = [line for line in _blocks("### Which measures can be gamed")[1].splitlines() if line != "..."]
    assert shown[:3] == printed[:3]
    for line in shown[3:]:
        assert line in printed, line
