"""goeval.cli.docs: docs/cli.md is the reference the parser and the writers give, never a stale copy."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from goeval.cli import docs, get_parser

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_docs_cli_md_is_what_the_generator_writes():
    assert PAGE.read_text(encoding="utf-8") == docs.reference(), \
        "docs/cli.md is stale: run python -m goeval.cli.docs --write docs/cli.md"


def test_check_says_when_a_page_is_stale(tmp_path, capsys):
    stale = tmp_path / "cli.md"
    stale.write_text(docs.reference().replace("--max-terms-total N", "--max-terms-all N"))
    assert docs.main(["--check", str(stale)]) == 1
    assert "stale" in capsys.readouterr().err
    assert docs.main(["--write", str(stale)]) == 0 and docs.main(["--check", str(stale)]) == 0


def _options(parser: argparse.ArgumentParser, name: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, p in action.choices.items():
                yield from _options(p, f"{name} {sub}".strip())
        elif action.option_strings and action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
            yield name, action


def test_every_option_of_every_command_is_on_the_page_with_its_help():
    page = docs.reference()
    sections = {}
    for block in page.split("\n#")[1:]:
        title = block.split("\n", 1)[0].strip("# ")
        sections[title] = block
    seen = 0
    top = page.split("## `goeval demo`")[0]
    for command, action in _options(get_parser()):
        if not command:
            continue  # goeval --version
        flag = f"| `{', '.join(action.option_strings)}"
        text = sections[f"`goeval {command}`"]
        if action.dest in ("verbose", "quiet", "log_level") and flag not in text:
            text = top  # the options every command takes: once, at the top
        row = next(line for line in text.splitlines() if line.startswith((flag + " ", flag + "`")))
        shown = re.sub(r"\\(.)", r"\1", row)  # the cell as it renders: every backslash escape undone
        assert " ".join((action.help or "").split()) in shown, row
        seen += 1
    assert seen > 200
    for flag in ("-v, --verbose", "-q, --quiet", "--log-level"):
        assert f"| `{flag}" in top


def test_an_example_naming_a_flag_its_command_lacks_stops_the_page(monkeypatch):
    monkeypatch.setattr(docs, "EXAMPLES", docs.EXAMPLES + ("goeval compare results/ --measures fmax",))
    with pytest.raises(RuntimeError, match="--measures, which its command does not take"):
        docs.reference()
    monkeypatch.setattr(docs, "EXAMPLES", ("goeval baseline naive|blast --hits h.tsv",))
    with pytest.raises(RuntimeError, match="--hits"):  # naive takes no hit table
        docs.reference()


def test_a_curve_column_without_its_text_stops_the_page(monkeypatch):
    monkeypatch.delitem(docs.CURVE_COLUMN_TEXT, "wf_micro")
    with pytest.raises(RuntimeError, match="wf_micro"):
        docs.reference()
