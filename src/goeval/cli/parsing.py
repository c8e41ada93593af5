"""How ``goeval``'s command line is parsed: one set of conventions for every command.

* ``-v``, ``-q``, ``--log-level`` (and ``--threads`` where a command has it)
  are accepted before or after the command: ``goeval -q baseline naive ...``
  and ``goeval baseline naive ... -q`` are the same (:func:`move_global_options`);
  every parser of a command, nested ones included (``baseline naive``,
  ``benchmark timesplit``), takes the message options (:func:`add_common_everywhere`);
* a misspelt option or command gets the closest names (``did you mean``),
  and CAFA-evaluator's spellings (``-th_step``, ``-ia``, ``-out_dir``, its
  positional ``OBO PRED_DIR GT``) get goeval's names (:class:`GoevalParser`);
* nothing given is dropped: a flag that takes several values (files, or a
  comma-separated list) adds the values of each repetition
  (``--predictions A --predictions B`` is both; ``action=ExtendValues``), and
  a flag that takes one value given twice with different values is an error
  naming both (:class:`StoreOnce`, the default action of :class:`GoevalParser`).
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

__all__ = ["GoevalParser", "ExtendValues", "StoreOnce", "CAFAEVAL_FLAGS", "move_global_options", "add_common_everywhere",
           "suggestions"]

#: CAFA-evaluator's (cafaeval) options and goeval's names for them.
CAFAEVAL_FLAGS: dict[str, str] = {
    "-out_dir": "--out DIR",
    "-ia": "--ia FILE",
    "-th_step": "--thresholds STEP (or --thresholds arange:STEP for its exact floats)",
    "-prop": "--propagation {max,fill}",
    "-norm": "--normalization {cafa,pred,gt,cafa-pk}",
    "-max_terms": "--max-terms N",
    "-no_orphans": "--exclude-roots (goeval also drops the roots from the truth)",
    "-known": "--known FILE",
    "-toi": "--terms-of-interest FILE",
    "-threads": "--threads N",
    "-log_level": "--log-level",
}

#: Options every command takes, before or after its name: (flag, takes a value).
GLOBAL_OPTIONS = {"-v": False, "--verbose": False, "-q": False, "--quiet": False, "--log-level": True,
                  "--threads": True}


def move_global_options(argv: Sequence[str], commands: Sequence[str]) -> list[str]:
    """``argv`` with the global options given before the command moved after the command's arguments.

    Examples
    --------
    >>> move_global_options(["-q", "--threads", "2", "evaluate", "--out", "r"], ["evaluate"])
    ['evaluate', '--out', 'r', '-q', '--threads', '2']
    """
    argv = list(argv)
    head: list[str] = []
    i = 0
    while i < len(argv) and argv[i] not in commands:
        flag = argv[i].split("=", 1)[0]
        if flag not in GLOBAL_OPTIONS:
            return argv  # not a global option before the command: leave it to the parser's message
        takes = GLOBAL_OPTIONS[flag] and "=" not in argv[i]
        head += argv[i:i + 1 + takes]
        i += 1 + takes
    return argv[i:] + head if head and i < len(argv) else argv


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parser and every parser nested under it (sub-commands, recursively)."""
    yield parser
    for action in parser._actions:  # argparse keeps its sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def add_common_everywhere(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """Give every parser nested under ``parser`` the options of ``common`` it lacks (``-v``, ``-q``...)."""
    for sub in list(_parsers(parser))[1:]:
        have = set(sub._option_string_actions)
        group = None
        for action in common._actions:
            if not action.option_strings or have & set(action.option_strings):
                continue
            group = group or sub.add_argument_group("messages (on stderr; results go to files or stdout)")
            group._add_action(action)


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({s for p in _parsers(parser) for s in p._option_string_actions if s.startswith("--")})


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({c for p in _parsers(parser) for a in p._actions
                   if isinstance(a, argparse._SubParsersAction) for c in a.choices})


def suggestions(message: str, parser: argparse.ArgumentParser, argv: Sequence[str] = ()) -> list[str]:
    """Hints for an argparse error: close option and command names, goeval's names for CAFA-evaluator's.

    ``argv`` (the arguments given) lets an error about missing options
    recognise a command written the CAFA-evaluator way.
    """
    bad = re.search(r"unrecognized arguments: (.*)", message)
    words = bad.group(1).split() if bad else list(argv)
    hints = [_hint(w.split("=", 1)[0], parser, unrecognized=bad is not None) for w in words if w.startswith("-")]
    hints = [h for h in hints if h]
    if _looks_like_cafaeval(words, message):
        hints.append("goeval takes named options, not CAFA-evaluator's positional OBO PRED_DIR GT: "
                     "goeval evaluate --ontology OBO --predictions PRED_DIR --truth GT (see docs/cafaeval.md)")
    choice = re.search(r"invalid choice: '([^']*)'", message)
    if choice:
        close = difflib.get_close_matches(choice.group(1), _choices(parser), n=2, cutoff=0.6)
        if close:
            hints.append(f"did you mean {' or '.join(close)}?")
    return list(dict.fromkeys(hints))


def _hint(flag: str, parser: argparse.ArgumentParser, unrecognized: bool) -> str | None:
    """A hint for ``flag`` of the command line (``unrecognized``: argparse named it as not understood)."""
    if flag in CAFAEVAL_FLAGS:
        return f"{flag} is CAFA-evaluator's spelling; goeval's is {CAFAEVAL_FLAGS[flag]}"
    known = _option_strings(parser)
    if flag in known:
        return None
    if flag in GLOBAL_OPTIONS:  # taken before the subcommand: only wrong where argparse did not understand it
        return f"this command has no {flag}" if unrecognized else None
    close = difflib.get_close_matches(flag, known, n=2, cutoff=0.75)
    return f"{flag}: did you mean {' or '.join(close)}?" if close else None


def _looks_like_cafaeval(words: Sequence[str], message: str) -> bool:
    """Positional words where goeval wants options, or CAFA-evaluator's flags among the arguments."""
    if any(w in CAFAEVAL_FLAGS for w in words):
        return True
    return "unrecognized arguments" in message and bool(words) and not words[0].startswith("-")


_GIVEN = "_flags_given"  # the namespace attribute recording which destinations a flag has set in this parse


def _given_before(namespace: argparse.Namespace, dest: str) -> bool:
    """Whether a flag already set ``dest`` in this parse (recording that it has now)."""
    given = namespace.__dict__.setdefault(_GIVEN, set())
    seen = dest in given
    given.add(dest)
    return seen


class ExtendValues(argparse.Action):
    """A flag of several values whose repetitions add up: ``--t0 a b --t0 c`` is ``[a, b, c]``.

    Takes the values of ``nargs="+"`` or one list made by ``type`` (a comma-separated list). The first
    occurrence replaces the default (argparse's own ``extend`` would add to a list default).
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        items = list(values) if isinstance(values, (list, tuple)) else [values]
        before = list(getattr(namespace, self.dest)) if _given_before(namespace, self.dest) else []
        setattr(namespace, self.dest, before + items)


class StoreOnce(argparse._StoreAction):
    """A flag of one value: given twice with different values, an error naming both (no value is dropped
    silently); the same value twice is that value."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if _given_before(namespace, self.dest):
            old = getattr(namespace, self.dest)
            if old != values:
                raise argparse.ArgumentError(self, f"given twice, as {_text(old)} and as {_text(values)}: it takes "
                                                   "one value; give it once")
        setattr(namespace, self.dest, values)


def _text(value: Any) -> str:
    return repr(" ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value))


class GoevalParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors suggest the right spelling, and whose flags never drop
    a value given: the default action is :class:`StoreOnce`, and ``action="extend"`` is :class:`ExtendValues`
    (argparse's own would add to a list default)."""

    #: The arguments being parsed (set by the command line), for the hints of an error.
    given: Sequence[str] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in (None, "store"):
            self.register("action", name, StoreOnce)
        self.register("action", "extend", ExtendValues)

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        hints = suggestions(message, self, GoevalParser.given)
        text = message + "".join(f"\n  hint: {h}" for h in hints)
        self.print_usage()
        self.exit(2, f"{self.prog}: error: {text}\n")
