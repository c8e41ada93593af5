"""Writing evaluation results: ``curves.tsv``, ``summary.tsv``, ``diagnostics.json``, IA files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from goeval.io._files import PathLike, open_text_out

__all__ = ["write_results", "write_table", "write_ia", "write_pairs", "write_json"]


def _jsonable(o: Any) -> Any:
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return _jsonable(o.tolist())
    return o


def write_json(path: PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON (numpy scalars converted)."""
    with open_text_out(path) as fh:
        json.dump(_jsonable(obj), fh, indent=2, sort_keys=False)
        fh.write("\n")


def _cell(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return repr(float(v))  # shortest text that reads back to the same double
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v)


def write_table(path: PathLike, columns: dict[str, Any] | list[dict[str, Any]], names: list[str] | None = None) -> None:
    """Write a tab-separated table with a header line.

    ``columns`` is a mapping of column name to array (all the same length) or
    a list of records; floats are written with the shortest representation
    that reads back to the same double (full precision).
    """
    if isinstance(columns, list):
        names = names or (list(columns[0]) if columns else [])
        rows = [[_cell(rec.get(n, "")) for n in names] for rec in columns]
    else:
        names = names or list(columns)
        cols = [np.asarray(columns[n]) for n in names]
        rows = []
        for col in cols:
            if col.dtype.kind == "f":
                rows.append([repr(x) for x in col.tolist()])
            else:
                rows.append([str(x) for x in col.tolist()])
        rows = list(zip(*rows)) if rows else []
    with open_text_out(path) as fh:
        fh.write("\t".join(names) + "\n")
        fh.write("".join("\t".join(r) + "\n" for r in rows))


def write_results(out_dir: PathLike, result: Any) -> dict[str, Path]:
    """Write ``curves.tsv``, ``summary.tsv`` and ``diagnostics.json`` of an
    :class:`~goeval.evaluation.EvaluationResult` into ``out_dir`` (created)."""
    from goeval.evaluation import SUMMARY_COLUMNS

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"curves": out / "curves.tsv", "summary": out / "summary.tsv", "diagnostics": out / "diagnostics.json"}
    write_table(paths["curves"], result.curve_columns)
    write_table(paths["summary"], result.summary_records, list(SUMMARY_COLUMNS))
    write_json(paths["diagnostics"], result.diagnostics)
    return paths


def write_ia(path: PathLike, terms: np.ndarray, values: np.ndarray) -> None:
    """Write ``term<TAB>ia`` lines, no header, shortest round-trip float repr."""
    with open_text_out(path) as fh:
        fh.write("".join(f"{t}\t{float(v)!r}\n" for t, v in zip(terms, values)))


def write_pairs(path: PathLike, frame: Any) -> None:
    """Write a long table (``protein term [score]``) tab-separated, no header."""
    with open_text_out(path) as fh:
        frame.to_csv(fh, sep="\t", index=False, header=False, float_format="%.17g")
