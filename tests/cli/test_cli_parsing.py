"""One set of conventions for every command: global options anywhere, suggestions for misspellings."""

from __future__ import annotations

import pytest

import goeval
from goeval.cli import COMMANDS, get_parser, main
from goeval.cli.parsing import CAFAEVAL_FLAGS, _parsers, move_global_options


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_and_subcommand_takes_the_message_options(name):
    parser = get_parser(only=name)
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices[name]
    for p in _parsers(sub):
        assert {"-v", "-q", "--log-level"} <= set(p._option_string_actions), p.prog


@pytest.mark.parametrize("where", ["before", "after"])
def test_global_options_before_or_after_the_command(where, capsys):
    onto = str(goeval.example_path("ontology"))
    args = ["info", onto, "--no-cache"]
    argv = ["-q", *args] if where == "before" else [*args, "-q"]
    assert main(argv) == 0
    assert capsys.readouterr().out == ""  # -q: no table on stdout
    assert main(["--log-level", "error", *args]) == 0


def test_move_global_options_leaves_other_words_alone():
    assert move_global_options(["--threads=2", "-v", "evaluate", "--out", "r"], ["evaluate"]) == \
        ["evaluate", "--out", "r", "--threads=2", "-v"]
    assert move_global_options(["--bogus", "evaluate"], ["evaluate"]) == ["--bogus", "evaluate"]


def test_misspelt_option_and_command_get_a_suggestion(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--ontology", "o", "--truth", "t", "--predictions", "p", "--bootstap", "9"])
    assert exc.value.code == 2
    assert "did you mean --bootstrap?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evalute"])
    assert "did you mean evaluate" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["-q", "--threads", "2", "info", "x"])
    assert "this command has no --threads" in capsys.readouterr().err


@pytest.mark.parametrize("flag", sorted(CAFAEVAL_FLAGS))
def test_cafaeval_spellings_point_to_goeval_names(flag, capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "go.obo", "preds/", "gt.tsv", flag, "x"])
    err = capsys.readouterr().err
    assert f"{flag} is CAFA-evaluator's spelling; goeval's is {CAFAEVAL_FLAGS[flag]}" in err
    assert "goeval evaluate --ontology OBO --predictions PRED_DIR --truth GT" in err
