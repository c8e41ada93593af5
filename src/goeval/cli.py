"""Command-line interface: ``goeval <command> ...``.

Each subcommand lives in a module of :mod:`goeval.commands` that defines
``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
User errors (:class:`goeval.errors.GoevalError`, missing files) end with a
one-paragraph message on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from goeval import __version__
from goeval.errors import GoevalError

__all__ = ["get_parser", "main"]

#: Subcommand modules, in the order ``goeval --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "demo",
    "evaluate",
    "info",
    "ia",
    "propagate",
    "retrieval",
    "tapk",
    "biocreative",
)


def _load(name: str):  # noqa: ANN202 - module
    return importlib.import_module(f"goeval.commands.{name}")


def get_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``goeval`` command."""
    parser = argparse.ArgumentParser(
        prog="goeval",
        description="Ontology-aware evaluation of protein function prediction.",
    )
    parser.add_argument("--version", action="version", version=f"goeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = _load(name)
        except ModuleNotFoundError as exc:  # a command not built in this version
            if exc.name == f"goeval.commands.{name}":
                continue
            raise
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``goeval`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = get_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "_run"):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except GoevalError as exc:
        print(f"goeval {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        name = getattr(exc, "filename", None) or ""
        print(f"goeval {args.command}: error: cannot read {name!s}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("goeval: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
