"""Reading a results directory back, and writing figures and pages into one.

A results directory holds what ``goeval evaluate`` (``curves.tsv``,
``summary.tsv``, ``diagnostics.json``, ``timings.json``), ``goeval
retrieval`` (``retrieval_summary.tsv``, ``retrieval_terms.tsv``,
``tap_curve.tsv``) or ``goeval benchmark cv`` (``curves.tsv``,
``summary.tsv``, ``table1.tsv``) wrote. :func:`read_results_dir` reads
every file present into DataFrames with the exact floats that were written
(shortest round-trip text reads back to the same double); a directory
without any of them, a file without its required columns or a damaged JSON
document is an error naming the file.

:func:`write_files` writes rendered figures and report pages (bytes or
text) into a directory as one set: all appear, or none changes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goeval.errors import GoevalError, InputFormatError, OutputError
from goeval.io.files import PathLike, temporary_name, unlink_quietly, write_failed, read_bytes

__all__ = ["ResultsDir", "read_results_dir", "read_table", "write_files", "TABLE_FILES", "ALTERNATIVE_FILES",
           "REQUIRED_COLUMNS"]

#: Attribute of :class:`ResultsDir` -> file name, for the tables it may hold.
TABLE_FILES: dict[str, str] = {
    "curves": "curves.tsv",
    "summary": "summary.tsv",
    "table1": "table1.tsv",
    "retrieval_summary": "retrieval_summary.tsv",
    "retrieval_terms": "retrieval_terms.tsv",
    "tap_curve": "tap_curve.tsv",
}

#: Other names a table may have (compressed); a directory holds at most one name of each table.
ALTERNATIVE_FILES: dict[str, tuple[str, ...]] = {"curves": ("curves.tsv.gz",)}

#: Columns each table must have to be usable (others are kept as they are).
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "curves": ("method", "namespace", "threshold", "coverage", "precision", "recall"),
    "summary": ("method", "namespace", "measure", "value", "threshold", "coverage"),
    "table1": ("namespace", "method"),
    "retrieval_summary": ("method", "namespace"),
    "retrieval_terms": ("method", "namespace", "term"),
    "tap_curve": ("method", "namespace", "cutoff", "tap"),
}

_TEXT_COLUMNS = ("method", "namespace", "measure", "term", "name")


@dataclass
class ResultsDir:
    """The tables and documents of one results directory.

    Attributes
    ----------
    path : Path
        The directory.
    curves, summary, table1, retrieval_summary, retrieval_terms, tap_curve : pandas.DataFrame or None
        The tables present (``None`` for a file that is absent; the curves
        are read from ``curves.tsv`` or ``curves.tsv.gz``), read with
        exact floats; ``method``, ``namespace``, ``measure`` and ``term``
        are strings.
    diagnostics, timings : dict
        ``diagnostics.json`` and ``timings.json`` (empty when absent).
    files : list of str
        The names of the files read, in the order above.
    """

    path: Path
    curves: Any = None
    summary: Any = None
    table1: Any = None
    retrieval_summary: Any = None
    retrieval_terms: Any = None
    tap_curve: Any = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def methods(self) -> list[str]:
        """Method names in order of first appearance (summary, curves, retrieval, Table 1)."""
        seen: dict[str, None] = {}
        for frame in (self.summary, self.curves, self.retrieval_summary, self.table1):
            if frame is not None and "method" in frame:
                seen.update(dict.fromkeys(frame["method"].tolist()))
        return list(seen)

    def namespaces(self) -> list[str]:
        """Namespace labels in order of first appearance (``all`` excluded)."""
        seen: dict[str, None] = {}
        for frame in (self.summary, self.curves, self.retrieval_summary, self.table1):
            if frame is not None and "namespace" in frame:
                seen.update(dict.fromkeys(n for n in frame["namespace"].tolist() if n != "all"))
        return list(seen)


def read_table(path: PathLike, required: tuple[str, ...] = ()) -> Any:
    """Read one tab-separated results table (header line) into a DataFrame.

    Floats are parsed with round-trip precision (the value written is the
    value read), ``nan`` is NaN, and the text columns (method, namespace,
    measure, term, name) stay strings even when a method is called ``1``
    or ``NA``.

    Raises
    ------
    InputFormatError
        The file is missing, empty, not a table, or lacks a ``required``
        column (the message names the missing columns and the header line).
    """
    import io

    import pandas as pd

    data = read_bytes(path)
    text = data.decode("utf-8", errors="replace")
    header = text.split("\n", 1)[0].rstrip("\r").split("\t")
    missing = [c for c in required if c not in header]
    if missing:
        raise InputFormatError(path, 1, f"not a goeval results table: the header lacks the column(s) "
                                        f"{', '.join(missing)}", "\t".join(header))
    dtype = {c: str for c in _TEXT_COLUMNS if c in header}
    # pandas >= 3 parses floats with round-trip precision by default (and deprecates the option)
    exact = {} if int(pd.__version__.split(".", 1)[0]) >= 3 else {"float_precision": "round_trip"}
    try:
        return pd.read_csv(io.StringIO(text), sep="\t", dtype=dtype, keep_default_na=False,
                           na_values=["nan", "NaN"], **exact)
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputFormatError(path, None, f"cannot read the table: {exc}") from None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(read_bytes(path).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputFormatError(path, line, f"not a valid JSON document: {exc}") from None
    if not isinstance(doc, dict):
        raise InputFormatError(path, 1, f"expected a JSON object, found a {type(doc).__name__}")
    return doc


def read_results_dir(path: PathLike) -> ResultsDir:
    """Read every goeval table and JSON document present in directory ``path``.

    Parameters
    ----------
    path : str or path-like
        A directory written by ``goeval evaluate``, ``goeval retrieval`` or
        ``goeval benchmark cv`` (or several of them into one directory).

    Returns
    -------
    ResultsDir

    Raises
    ------
    GoevalError
        ``path`` is not a directory, or holds none of the known files.
    InputFormatError
        A file present cannot be read (named with the problem).
    """
    p = Path(path)
    if not p.is_dir():
        raise GoevalError(f"{p}: not a results directory ({'not a directory' if p.exists() else 'no such directory'}).")
    out = ResultsDir(path=p)
    for attr, name in TABLE_FILES.items():
        present = [n for n in (name, *ALTERNATIVE_FILES.get(attr, ())) if (p / n).is_file()]
        if len(present) > 1:
            raise GoevalError(f"{p}: both {' and '.join(present)} are present and may disagree; "
                              "remove the one that is not from the run of summary.tsv.")
        if present:
            setattr(out, attr, read_table(p / present[0], REQUIRED_COLUMNS[attr]))
            out.files.append(present[0])
    for attr in ("diagnostics", "timings"):
        f = p / f"{attr}.json"
        if f.is_file():
            setattr(out, attr, _read_json(f))
            out.files.append(f.name)
    if not any(getattr(out, a) is not None for a in TABLE_FILES):
        known = ", ".join(TABLE_FILES.values())
        raise GoevalError(f"{p}: no goeval results in this directory (expected one of {known}); "
                          "give the --out directory of goeval evaluate, retrieval or benchmark cv.")
    return out


def write_files(out_dir: PathLike, files: Mapping[str, bytes | str], added_by: str | None = None) -> dict[str, Path]:
    """Write ``files`` (name -> bytes, or text written as UTF-8) into ``out_dir`` as one set.

    Each file goes to a hidden temporary name first; all are renamed into
    place only when every one is complete, so a failure leaves the
    directory as it was. With ``added_by``, the files are added to the
    manifest of the results directory they land in, if any
    (:func:`goeval.io.manifest.add_to_manifest`).

    Raises
    ------
    OutputError
        The directory cannot be created or a file cannot be written.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_failed(out, exc) from None
    pending: list[tuple[Path, Path]] = []
    try:
        for name, content in files.items():
            target = out / name
            tmp = temporary_name(target)
            pending.append((tmp, target))
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(tmp, "wb") as fh:
                    fh.write(data)
            except OSError as exc:
                raise write_failed(target, exc) from None
        for tmp, target in pending:
            os.replace(tmp, target)
    except (OutputError, OSError, KeyboardInterrupt):
        for tmp, _target in pending:
            unlink_quietly(tmp)
        raise
    written = {t.name: t for _tmp, t in pending}
    if added_by is not None:
        from goeval.io.manifest import add_to_manifest

        add_to_manifest(out, written, added_by)
    return written
