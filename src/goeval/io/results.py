"""Writing results: tables, JSON, IA files, propagated pairs.

Every writer is atomic (see :func:`goeval.io._files.open_text_out`), and
files that belong together (``curves.tsv``, ``summary.tsv``,
``diagnostics.json``) are committed together (:class:`OutputSet`). Floats
are written in the shortest form that reads back to the same double
(``repr``), everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from goeval.io._files import OutputSet, PathLike, open_text_out

__all__ = [
    "write_results",
    "write_table",
    "write_ia",
    "write_pairs",
    "write_json",
    "write_frames",
    "format_cell",
    "jsonable",
    "write_arrays",
    "read_arrays",
]


def jsonable(o: Any) -> Any:
    """``o`` with numpy scalars and arrays turned into plain Python values."""
    if isinstance(o, Mapping):
        return {str(k): jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [jsonable(v) for v in o]
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, np.ndarray):
        return jsonable(o.tolist())
    if isinstance(o, Path):
        return str(o)
    return o


_jsonable = jsonable  # older name, kept for callers outside this module


def _dump_json(fh: IO[str], obj: Any) -> None:
    json.dump(jsonable(obj), fh, indent=2, sort_keys=False)
    fh.write("\n")


def write_json(path: PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON (numpy values converted), atomically."""
    with open_text_out(path) as fh:
        _dump_json(fh, obj)


def format_cell(v: Any) -> str:
    """Text of one table cell: floats in shortest round-trip form (NaN as ``nan``)."""
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (np.integer,)):
        return str(int(v))
    if v is None:
        return ""
    return str(v)


def _column_text(col: Any) -> list[str]:
    arr = np.asarray(col)
    if arr.dtype.kind == "f":
        return [repr(x) for x in arr.tolist()]
    if arr.dtype.kind == "O":
        return [format_cell(x) for x in arr.tolist()]
    return [str(x) for x in arr.tolist()]


_CHUNK_ROWS = 1 << 16


def _table_chunks(columns: Mapping[str, Any] | Sequence[Mapping[str, Any]], names: Sequence[str] | None):
    """The text of a table (header line first) in pieces of at most ``_CHUNK_ROWS`` rows.

    Memory stays bounded by one chunk's text, however long the table.
    """
    if not isinstance(columns, Mapping):
        records = list(columns)
        names = list(names or (list(records[0]) if records else []))
        yield "\t".join(names) + "\n"
        for a in range(0, len(records), _CHUNK_ROWS):
            yield "".join("\t".join(format_cell(rec.get(n, "")) for n in names) + "\n"
                          for rec in records[a : a + _CHUNK_ROWS])
        return
    names = list(names or columns)
    yield "\t".join(names) + "\n"
    arrays = [np.asarray(columns[n]) for n in names]
    n_rows = len(arrays[0]) if arrays else 0
    for a in range(0, n_rows, _CHUNK_ROWS):
        cols = [_column_text(arr[a : a + _CHUNK_ROWS]) for arr in arrays]
        yield "".join("\t".join(r) + "\n" for r in zip(*cols))


def _write_table_to(fh: IO[str], columns: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    names: Sequence[str] | None) -> None:
    for piece in _table_chunks(columns, names):
        fh.write(piece)


def write_table(path: PathLike, columns: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                names: Sequence[str] | None = None) -> None:
    """Write a tab-separated table with a header line, atomically.

    ``columns`` is a mapping of column name to array (all the same length) or
    a list of records; floats are written with the shortest representation
    that reads back to the same double (full precision).
    """
    with open_text_out(path) as fh:
        _write_table_to(fh, columns, names)


def write_frames(out_dir: PathLike, tables: Mapping[str, Any], json_files: Mapping[str, Any] | None = None) -> dict[str, Path]:
    """Write several tables (name -> DataFrame, mapping of columns or records)
    and JSON documents into ``out_dir`` as one set: all appear, or none changes.

    DataFrames are written column by column with shortest round-trip floats.
    """
    out = Path(out_dir)
    with OutputSet(out) as files:
        for name, table in tables.items():
            if hasattr(table, "to_dict") and hasattr(table, "columns"):  # a DataFrame
                table = {c: table[c].to_numpy() for c in table.columns}
            with files.open(name) as fh:
                _write_table_to(fh, table, None)
        for name, obj in (json_files or {}).items():
            with files.open(name) as fh:
                _dump_json(fh, obj)
    return {name: out / name for name in [*tables, *(json_files or {})]}


def write_results(out_dir: PathLike, curves: Mapping[str, Any], summary: Sequence[Mapping[str, Any]],
                  summary_columns: Sequence[str], diagnostics: Mapping[str, Any],
                  timings: Mapping[str, Any] | None = None,
                  extra_tables: Mapping[str, Mapping[str, Any]] | None = None,
                  extra_arrays: Mapping[str, Mapping[str, np.ndarray]] | None = None) -> dict[str, Path]:
    """Write ``curves.tsv``, ``summary.tsv``, ``diagnostics.json`` (and
    ``timings.json``, ``extra_tables``: file name -> columns, and
    ``extra_arrays``: file name -> named arrays, as compressed ``.npz``) into
    ``out_dir`` (created) as one set.

    ``diagnostics.json`` holds only what the inputs and options determine
    (the same run writes the same bytes); the stage timings, which vary from
    run to run, go to ``timings.json``.
    """
    out = Path(out_dir)
    paths = {"curves": out / "curves.tsv", "summary": out / "summary.tsv", "diagnostics": out / "diagnostics.json"}
    with OutputSet(out) as files:
        with files.open("curves.tsv") as fh:
            _write_table_to(fh, curves, None)
        with files.open("summary.tsv") as fh:
            _write_table_to(fh, summary, summary_columns)
        with files.open("diagnostics.json") as fh:
            _dump_json(fh, diagnostics)
        if timings is not None:
            paths["timings"] = out / "timings.json"
            with files.open("timings.json") as fh:
                _dump_json(fh, timings)
        for name, columns in (extra_tables or {}).items():
            paths[name] = out / name
            with files.open(name) as fh:
                _write_table_to(fh, columns, None)
        for name, arrays in (extra_arrays or {}).items():
            paths[name] = out / name
            with files.open_binary(name) as fh:
                np.savez_compressed(fh, **arrays)
    return paths


def write_arrays(path: PathLike, arrays: Mapping[str, np.ndarray]) -> Path:
    """Write named arrays as a compressed ``.npz`` file, atomically."""
    p = Path(path)
    with OutputSet(p.parent if str(p.parent) else Path(".")) as files:
        with files.open_binary(p.name) as fh:
            np.savez_compressed(fh, **arrays)
    return p


def read_arrays(path: PathLike, fmt: str, what: str) -> dict[str, np.ndarray]:
    """Named arrays of an ``.npz`` file written by goeval, checked by its ``format`` entry.

    Raises
    ------
    InputFormatError
        If the file is missing, unreadable, or not a ``fmt`` file.
    """
    from goeval.errors import InputFormatError

    p = Path(path)
    if not p.is_file():
        raise InputFormatError(p, None, f"no such file; {what}")
    try:
        with np.load(p, allow_pickle=False) as z:
            if "format" not in z.files or str(z["format"]) != fmt:
                raise InputFormatError(p, None, f"not a {fmt!r} file")
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise InputFormatError(p, None, f"cannot read the file: {exc}") from None


def write_ia(path: PathLike, terms: np.ndarray, values: np.ndarray) -> None:
    """Write ``term<TAB>ia`` lines, no header, shortest round-trip floats."""
    with open_text_out(path) as fh:
        fh.write("".join(f"{t}\t{float(v)!r}\n" for t, v in zip(terms, values)))


def write_pairs(path: PathLike, proteins: np.ndarray, terms: np.ndarray, scores: np.ndarray | None = None) -> None:
    """Write ``protein<TAB>term[<TAB>score]`` lines, no header, shortest round-trip floats."""
    cols = [np.asarray(proteins, dtype=object).tolist(), np.asarray(terms, dtype=object).tolist()]
    if scores is not None:
        cols.append([repr(x) for x in np.asarray(scores, dtype=np.float64).tolist()])
    with open_text_out(path) as fh:
        fh.write("".join("\t".join(map(str, r)) + "\n" for r in zip(*cols)))
