"""One set of conventions for every command: global options anywhere, suggestions for misspellings."""

from __future__ import annotations

import argparse

import pandas as pd
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
    cap = capsys.readouterr()
    assert cap.err == "" and "MFO" in cap.out  # -q: no messages, the table on stdout as without
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


# ------------------------------------------------------------ repeated flags: nothing given is dropped
def _leaf_parsers() -> list:
    """Every command's parser that parses arguments (nested ones included), with its command words."""
    parser = get_parser()
    out = []

    def walk(p, words):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out.append((p, words))
        for sub in subs:
            for name, child in sub.choices.items():
                walk(child, [*words, name])

    walk(parser, [])
    return out


def _flags(p) -> list:
    """The flags of ``p`` that take values (not help, switches or version)."""
    return [a for a in p._actions if a.option_strings and a.nargs != 0 and a.dest != "help"]


def _takes_several(action) -> bool:
    """A flag of several values: files (``nargs='+'``), a comma-separated list (its metavar ``A,B``), or ``-k``
    repeated by design (``append``)."""
    return action.nargs in ("+", "*") or "," in str(action.metavar or "") or isinstance(action, argparse._AppendAction)


def _base(p, words, leave_out) -> list[str]:
    """The command words and a value for each required argument (but ``leave_out``)."""
    argv = list(words)
    for a in p._actions:
        if a is leave_out or not a.required:
            continue
        value = str(a.choices[0]) if a.choices else "1"
        argv += [value] if not a.option_strings else [a.option_strings[0], value]
    for g in p._mutually_exclusive_groups:
        if g.required and leave_out not in g._group_actions:
            argv += [g._group_actions[0].option_strings[0], "1"]
    return argv


def _two_values(action) -> tuple[str, str]:
    """Two values the flag accepts (each written back as given: ``0.5``, not ``1`` read as ``1.0``); a flag of
    a single choice gives it twice."""
    if action.choices:
        return tuple(map(str, action.choices))[:2] if len(action.choices) > 1 else (str(action.choices[0]),) * 2
    try:
        (action.type or str)("0.5")
    except (ValueError, TypeError, argparse.ArgumentTypeError):
        return "1", "2"
    return "0.5", "0.25"


_ALL_FLAGS = [(words, p, a) for p, words in _leaf_parsers() for a in _flags(p)]


@pytest.mark.parametrize("words,parser,action", _ALL_FLAGS,
                         ids=[f"{' '.join(w)} {a.option_strings[-1]}" for w, _p, a in _ALL_FLAGS])
def test_a_repeated_flag_keeps_every_value_or_says_which_it_would_drop(words, parser, action, capsys):
    """Every flag of every command: one of several values adds each repetition's values; one of one value
    given twice with different values is an error naming the flag and both values (never the last kept)."""
    flag = action.option_strings[-1]
    a, b = _two_values(action)
    argv = _base(parser, words, action) + [flag, a, flag, b]
    if _takes_several(action):
        got = getattr(parser.parse_args(argv[len(words):]), action.dest)
        assert [float(x) for x in got] == [float(a), float(b)], (flag, got)
        return
    if a != b:
        with pytest.raises(SystemExit) as exc:
            parser.parse_args(argv[len(words):])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and flag in err and f"'{a}'" in err and f"'{b}'" in err, err
    once = _base(parser, words, action)[len(words):] + [flag, a]
    twice = getattr(parser.parse_args([*once, flag, a]), action.dest)  # the same value twice loses nothing
    assert twice == getattr(parser.parse_args(once), action.dest)


def test_evaluate_with_predictions_given_twice_evaluates_both(tiny_obo, tmp_path, capsys):
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000004\nP2\tGO:0000005\n")
    (tmp_path / "a.tsv").write_text("P1\tGO:0000004\t0.9\nP2\tGO:0000005\t0.8\n")
    (tmp_path / "b.tsv").write_text("P1\tGO:0000005\t0.9\n")
    out = tmp_path / "res"
    assert main(["evaluate", "--ontology", str(tiny_obo), "--truth", str(truth), "--predictions",
                 str(tmp_path / "a.tsv"), "--predictions", str(tmp_path / "b.tsv"), "--out", str(out)]) == 0
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    assert sorted(set(summary["method"])) == ["a", "b"]


def test_evaluate_with_truth_given_twice_names_both_files(tiny_obo, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--ontology", str(tiny_obo), "--truth", "human.tsv", "--truth", "mouse.tsv",
              "--predictions", "p.tsv"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "argument --truth: given twice, as 'human.tsv' and as 'mouse.tsv'" in err


def test_ia_with_annotations_given_twice_uses_both(tiny_obo, tmp_path, capsys):
    human, mouse = tmp_path / "human.tsv", tmp_path / "mouse.tsv"
    human.write_text("P1\tGO:0000004\n")
    mouse.write_text("M1\tGO:0000005\nM2\tGO:0000005\n")
    both, twice = tmp_path / "both.tsv", tmp_path / "twice.tsv"
    base = ["ia", "--ontology", str(tiny_obo), "--out"]
    assert main([*base, str(both), "--annotations", str(human), str(mouse)]) == 0
    assert main([*base, str(twice), "--annotations", str(human), "--annotations", str(mouse)]) == 0
    assert "human.tsv, " in capsys.readouterr().err  # the reading line names both files
    assert twice.read_text() == both.read_text()
    alone = tmp_path / "mouse_only.tsv"
    assert main([*base, str(alone), "--annotations", str(mouse)]) == 0
    assert alone.read_text() != twice.read_text()
