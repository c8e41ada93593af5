"""Writing evaluation results: ``curves.tsv``, ``summary.tsv``, ``diagnostics.json``, IA files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from goeval.io._files import PathLike, open_text_out

__all__ = ["write_results", "write_ia", "write_pairs", "write_json"]


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


def write_results(out_dir: PathLike, curves: pd.DataFrame, summary: pd.DataFrame, diagnostics: dict[str, Any]) -> dict[str, Path]:
    """Write the three result files into ``out_dir`` (created); full float precision."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"curves": out / "curves.tsv", "summary": out / "summary.tsv", "diagnostics": out / "diagnostics.json"}
    curves.to_csv(paths["curves"], sep="\t", index=False, float_format="%.17g")
    summary.to_csv(paths["summary"], sep="\t", index=False, float_format="%.17g")
    write_json(paths["diagnostics"], diagnostics)
    return paths


def write_ia(path: PathLike, terms: np.ndarray, values: np.ndarray) -> None:
    """Write ``term<TAB>ia`` lines, no header, shortest round-trip float repr."""
    with open_text_out(path) as fh:
        fh.write("".join(f"{t}\t{float(v)!r}\n" for t, v in zip(terms, values)))


def write_pairs(path: PathLike, frame: pd.DataFrame) -> None:
    """Write a long table (``protein term [score]``) tab-separated, no header."""
    with open_text_out(path) as fh:
        frame.to_csv(fh, sep="\t", index=False, header=False, float_format="%.17g")
