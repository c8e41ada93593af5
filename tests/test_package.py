"""goeval as a whole: one name for each thing (a block, a leaf) and records built by keyword."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import pathlib
import pkgutil

import goeval

#: Records of more than four fields still built by position (none: every one takes keywords only).
POSITIONAL: list[str] = []


def _dataclasses() -> dict[str, type]:
    out = {}
    for info in pkgutil.walk_packages(goeval.__path__, "goeval."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == mod.__name__:
                out[f"{mod.__name__}.{name}"] = obj
    return out


def test_records_of_more_than_four_fields_take_keywords_only():
    wide = {}
    for name, cls in _dataclasses().items():
        fields = [f for f in dataclasses.fields(cls) if f.init]
        if len(fields) > 4:
            wide[name] = all(f.kw_only for f in fields)
    assert "goeval.evaluation.leaves.Block" in wide and "goeval.evaluation.benchmark.NamespaceBenchmark" in wide
    assert sorted(name for name, kw_only in wide.items() if not kw_only) == POSITIONAL


def test_a_block_key_is_defined_once():
    from goeval.evaluation import BlockKey
    from goeval.sweep import BlockKey as sweep_key

    assert BlockKey is sweep_key
    src = pathlib.Path(goeval.__file__).parent
    defined = sorted(p.relative_to(src).as_posix() for p in src.rglob("*.py")
                     if "\nBlockKey = " in p.read_text(encoding="utf-8"))
    assert defined == ["sweep/stats.py"]


def _command_parsers() -> dict[str, argparse.ArgumentParser]:
    from goeval.cli import COMMANDS, get_parser

    out = {}
    for name in COMMANDS:
        parser = get_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        out[name] = sub.choices[name]
    return out


def test_the_help_calls_the_unit_of_work_a_leaf():
    """A leaf is the unit of work; "chunk" (a kernel's run of rows) never reaches a command's help."""
    helps = {name: p.format_help().lower() for name, p in _command_parsers().items()}
    assert not [name for name, text in helps.items() if "chunk" in text]
    assert "leaf" in helps["evaluate"]
