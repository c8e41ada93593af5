"""Options and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import sys
import warnings

from goeval.errors import GoevalWarning, InvalidParameterError

__all__ = ["add_ontology", "relations_arg", "comma_list", "show_warnings"]


def comma_list(text: str) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]`` (blank items dropped)."""
    return [x.strip() for x in text.split(",") if x.strip()]


def relations_arg(text: str) -> tuple[str, ...]:
    rel = tuple(comma_list(text))
    if not rel:
        raise argparse.ArgumentTypeError("give at least one relation, e.g. is_a,part_of")
    return rel


def add_ontology(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--ontology", required=required, metavar="OBO", help="ontology in OBO format (.obo, .gz, .bz2, .xz)")
    p.add_argument("--relations", type=relations_arg, default=("is_a", "part_of"), metavar="R1,R2",
                   help="relations to follow (default: is_a,part_of)")


def positive_float(name: str):  # noqa: ANN201
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number; got {text!r}") from None
        return v
    return parse


def show_warnings() -> None:
    """Print goeval warnings as one line each on stderr."""

    def fmt(message, category, filename, lineno, line=None):  # noqa: ANN001, ANN202
        return f"goeval: warning: {message}\n"

    warnings.formatwarning = fmt  # type: ignore[assignment]
    warnings.simplefilter("always", GoevalWarning)


def fail(message: str) -> None:
    raise InvalidParameterError(message)


def stderr(msg: str) -> None:
    print(msg, file=sys.stderr)
