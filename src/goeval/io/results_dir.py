"""Reading a results directory back, and writing figures and pages into one.

A results directory holds what ``goeval evaluate`` (``curves.tsv``,
``summary.tsv``, ``diagnostics.json``, ``timings.json``), ``goeval
retrieval`` (``retrieval_summary.tsv``, ``retrieval_terms.tsv``,
``tap_curve.tsv``) or ``goeval benchmark cv`` (``curves.tsv``,
``summary.tsv``, ``table1.tsv``) wrote. :func:`read_results_dir` reads
every file present into DataFrames with the exact floats that were written
(shortest round-trip text reads back to the same double), and reads a time
split's ``nk/``, ``lk/`` and ``pk/`` as the parts of one result. Every file
read is checked: it belongs to the run that wrote the directory
(``manifest.json``, :func:`goeval.io.manifest.check_run_file`), it is not a
symbolic link and lies in no linked folder (goeval writes none), its lines
are complete and have the header's columns, its text holds no control
character but the tab and the line end (:mod:`goeval.io.names`), its
numbers are numbers and finite (``nan`` stands for an undefined value) and
each bootstrap interval runs from low to high; a directory without any
result, a file without its required columns or a damaged, too large or too
deeply nested JSON document is an error naming the file (and the line).

:func:`write_files` writes rendered figures and report pages (bytes or
text) into a directory as one set: all appear, or none changes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from goeval.errors import GoevalError, InputFormatError
from goeval.io.files import OutputSet, PathLike, read_bytes, read_json, write_failed
from goeval.io.names import check_table_text

__all__ = ["ResultsDir", "read_results_dir", "read_table", "read_json_document", "write_files", "TABLE_FILES",
           "ALTERNATIVE_FILES", "REQUIRED_COLUMNS", "KIND_DIRS", "kind_dirs"]

#: Attribute of :class:`ResultsDir` -> file name, for the tables it may hold.
TABLE_FILES: dict[str, str] = {
    "curves": "curves.tsv",
    "summary": "summary.tsv",
    "table1": "table1.tsv",
    "retrieval_summary": "retrieval_summary.tsv",
    "retrieval_terms": "retrieval_terms.tsv",
    "tap_curve": "tap_curve.tsv",
    "group_summary": "groups.tsv",
    "metric_check": "metric_check.tsv",
    "metric_check_values": "metric_check_values.tsv",
    "calibration": "calibration.tsv",
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
    "group_summary": ("method", "group", "namespace", "measure", "value"),
    "metric_check": ("namespace", "measure", "rc", "fps"),
    "metric_check_values": ("namespace", "measure", "set", "signal", "replicate", "value"),
    "calibration": ("method", "namespace", "bin", "lower", "upper", "pairs", "true", "mean_score", "fraction_true"),
}

_TEXT_COLUMNS = ("method", "namespace", "measure", "term", "name", "group", "label", "direction", "set")


#: The sub-directories of a time split's kinds, in report order.
KIND_DIRS: tuple[str, ...] = ("nk", "lk", "pk")


def kind_dirs(folder: PathLike) -> list[Path]:
    """The kinds' folders of a results folder, in kind order: a time split's ``nk/``... or ``goeval cafa6``'s
    ``NK/``... (either case; directories only)."""
    p = Path(folder)
    found = []
    for d in KIND_DIRS:
        hit = next((p / n for n in (d, d.upper()) if (p / n).is_dir()), None)
        if hit is not None:
            found.append(hit)
    return found


@dataclass(kw_only=True)
class ResultsDir:
    """The tables and documents of one results directory.

    Attributes
    ----------
    path : Path
        The directory.
    curves, summary, table1, retrieval_summary, retrieval_terms, tap_curve : pandas.DataFrame or None
    group_summary : pandas.DataFrame or None
        ``groups.tsv`` of a run with groups: every group's optima, a ``group`` column (``all`` first).
    metric_check, metric_check_values : pandas.DataFrame or None
        ``metric_check.tsv`` and ``metric_check_values.tsv`` of ``goeval metric-check``.
    calibration : pandas.DataFrame or None
        ``calibration.tsv``: the reliability table (per method, namespace and score bin).
        The tables present (``None`` for a file that is absent; the curves
        are read from ``curves.tsv`` or ``curves.tsv.gz``), read with
        exact floats; ``method``, ``namespace``, ``measure`` and ``term``
        are strings.
    diagnostics, timings : dict
        ``diagnostics.json`` and ``timings.json`` (empty when absent).
    files : list of str
        The names of the files read, in the order above.
    parts : dict of str to ResultsDir
        A time split's kinds (``NK``, ``LK``, ``PK``: ``nk/``, ``lk/``,
        ``pk/``), each a result of its own; empty otherwise.
    notes : list of str
        What a reader should say about the directory (no manifest, no summary).
    """

    path: Path
    curves: Any = None
    summary: Any = None
    table1: Any = None
    retrieval_summary: Any = None
    retrieval_terms: Any = None
    tap_curve: Any = None
    group_summary: Any = None
    metric_check: Any = None
    metric_check_values: Any = None
    calibration: Any = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    parts: dict[str, "ResultsDir"] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def methods(self) -> list[str]:
        """Method names in order of first appearance (summary, curves, retrieval, Table 1; then the parts')."""
        seen: dict[str, None] = {}
        for frame in (self.summary, self.curves, self.retrieval_summary, self.table1):
            if frame is not None and "method" in frame:
                seen.update(dict.fromkeys(frame["method"].tolist()))
        for part in self.parts.values():
            seen.update(dict.fromkeys(part.methods()))
        return list(seen)

    def namespaces(self) -> list[str]:
        """Namespace labels in order of first appearance (``all`` excluded)."""
        seen: dict[str, None] = {}
        for frame in (self.summary, self.curves, self.retrieval_summary, self.table1):
            if frame is not None and "namespace" in frame:
                seen.update(dict.fromkeys(n for n in frame["namespace"].tolist() if n != "all"))
        for part in self.parts.values():
            seen.update(dict.fromkeys(part.namespaces()))
        return list(seen)

    @property
    def kind(self) -> str:
        """What wrote the directory: ``time split``, ``time split kind``, ``cross-validation``, ``retrieval`` or
        ``evaluation``."""
        if self.parts:
            return "time split"
        if "kind" in self.diagnostics and "targets" in self.diagnostics:
            return "time split kind"
        if "folds" in self.diagnostics:
            return "cross-validation"
        if self.metric_check is not None:
            return "metric check"
        return "retrieval" if self.retrieval_summary is not None else "evaluation"


def _lines_problem(data: bytes) -> tuple[int, str] | None:
    """(line, problem) of the first line whose field count differs from the header's, or of a last line without
    its line end (a truncated file); None when every line is whole."""
    if not data.endswith(b"\n"):
        return data.count(b"\n") + 1, "the last line has no line end: the file is truncated"
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == 10)
    tabs = np.bincount(np.searchsorted(ends, np.flatnonzero(buf == 9)), minlength=ends.size)
    bad = np.flatnonzero(tabs != tabs[0])
    if bad.size:
        k = int(bad[0])
        return k + 1, f"{int(tabs[k]) + 1} tab-separated fields where the header has {int(tabs[0]) + 1}"
    return None


def _check_numbers(frame: Any, path: PathLike) -> None:
    """Every column but the text ones holds numbers, none infinite (``nan``: undefined) but a rank threshold's
    ``threshold`` of ``inf`` (``--thresholds top:...,all``: every term)."""
    import pandas as pd

    for col in frame.columns:
        if col in _TEXT_COLUMNS:
            continue
        values = frame[col]
        if not pd.api.types.is_numeric_dtype(values):
            numbers = pd.to_numeric(values, errors="coerce")
            k = int(np.flatnonzero((numbers.isna() & values.notna()).to_numpy())[0])
            raise InputFormatError(path, k + 2, f"the {col} column holds {values.iloc[k]!r}, not a number")
        bad = np.isinf(values.to_numpy()) if values.dtype.kind == "f" else np.zeros(0, bool)
        if col == "threshold":
            bad &= values.to_numpy() < 0  # +inf: the rank threshold 'all'
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise InputFormatError(path, k + 2, f"the {col} column holds an infinite value (undefined is nan)")


def _check_intervals(frame: Any, path: PathLike) -> None:
    """Every ``ci_low`` is at most its ``ci_high`` (percentiles of one sample; the value itself may lie outside)."""
    if not {"ci_low", "ci_high"} <= set(frame.columns):
        return
    with np.errstate(invalid="ignore"):
        bad = np.flatnonzero((frame["ci_low"] > frame["ci_high"]).to_numpy())
    if bad.size:
        row = frame.iloc[int(bad[0])]
        what = ", ".join(f"{c} {row[c]}" for c in ("method", "namespace", "measure") if c in frame.columns)
        lo, hi = float(row["ci_low"]), float(row["ci_high"])
        raise InputFormatError(path, int(bad[0]) + 2, f"the interval of {what} runs from ci_low {lo!r} down to "
                                                      f"ci_high {hi!r} (a damaged or edited file)")


def read_table(path: PathLike, required: tuple[str, ...] = ()) -> Any:
    """Read one tab-separated results table (header line) into a DataFrame.

    Floats are parsed with round-trip precision (the value written is the
    value read), ``nan`` (or an empty cell) is NaN, and the text columns
    (method, namespace, measure, term, name) stay strings even when a method
    is called ``1`` or ``NA``.

    Raises
    ------
    InputFormatError
        The file is missing, empty, not UTF-8, not a table, truncated (a
        last line without its line end), has a line with another number of
        fields than its header, lacks a ``required`` column (the message
        names the missing columns and the header line), holds a cell that
        is not a number, or infinite, in a numeric column, a control character
        other than the tab and the line end (:mod:`goeval.io.names`), or a
        ``ci_low`` above its ``ci_high`` (each with its line).
    """
    import pandas as pd  # deferred: pandas (~0.1 s to import) only for reading a table

    from goeval.io.files import decode_utf8

    data = read_bytes(path)
    text = decode_utf8(data, path)
    check_table_text(data, text, path)
    header = text.split("\n", 1)[0].rstrip("\r").split("\t")
    missing = [c for c in required if c not in header]
    if missing:
        raise InputFormatError(path, 1, f"not a goeval results table: the header lacks the column(s) "
                                        f"{', '.join(missing)}", "\t".join(header))
    problem = _lines_problem(data)
    if problem is not None:
        line = text.split("\n")[problem[0] - 1]
        raise InputFormatError(path, problem[0], problem[1], line)
    dtype = {c: str for c in _TEXT_COLUMNS if c in header}
    # pandas >= 3 parses floats with round-trip precision by default (and deprecates the option)
    exact = {} if int(pd.__version__.split(".", 1)[0]) >= 3 else {"float_precision": "round_trip"}
    try:
        frame = pd.read_csv(io.StringIO(text), sep="\t", dtype=dtype, keep_default_na=False,
                            na_values=["nan", "NaN", ""], **exact)
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputFormatError(path, None, f"cannot read the table: {exc}") from None
    _check_numbers(frame, path)
    _check_intervals(frame, path)
    return frame


def read_json_document(path: PathLike, manifest: Any = None, *, folder: PathLike | None = None) -> dict[str, Any]:
    """A JSON document of a results folder (``diagnostics.json``, ``timings.json``): checked, bounded, an object.

    The file must be its run's (:func:`goeval.io.manifest.check_run_file`:
    listed, unchanged, not a link) and is read within the size and nesting
    bounds of :func:`goeval.io.files.read_json`. ``manifest`` and
    ``folder``: as for :func:`~goeval.io.manifest.check_run_file`.

    Raises
    ------
    InputFormatError
        Naming the file: a link, too large, nested too deep, not JSON, not
        an object, or a ``versions`` entry that is not names to versions.
    GoevalError
        The file is not the run's.
    """
    from goeval.io.manifest import check_run_file

    check_run_file(path, manifest, folder=folder)
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise InputFormatError(path, 1, f"expected a JSON object, found a {type(doc).__name__}")
    versions = doc.get("versions")
    if versions is not None and not (isinstance(versions, dict) and all(isinstance(v, str) for v in versions.values())):
        raise InputFormatError(path, None, "its 'versions' entry is not a mapping of package names to versions")
    return doc


def _present(p: Path) -> bool:
    """Whether ``p`` is there to be read: a file, or a link (refused by the check of every file read)."""
    return p.is_file() or p.is_symlink()


def _read_files(p: Path, out: ResultsDir, manifest: Any, folder: Path) -> None:
    """The tables and JSON documents present in ``p`` (``folder`` or a kind's folder in it), each checked against
    the run's manifest."""
    from goeval.io.manifest import check_run_file

    for attr, name in TABLE_FILES.items():
        present = [n for n in (name, *ALTERNATIVE_FILES.get(attr, ())) if _present(p / n)]
        if len(present) > 1:
            raise GoevalError(f"{p}: both {' and '.join(present)} are present and may disagree; "
                              "remove the one that is not from the run of summary.tsv.")
        if present:
            check_run_file(p / present[0], manifest, folder=folder)
            setattr(out, attr, read_table(p / present[0], REQUIRED_COLUMNS[attr]))
            out.files.append(present[0])
    for attr in ("diagnostics", "timings"):
        f = p / f"{attr}.json"
        if _present(f):
            setattr(out, attr, read_json_document(f, manifest, folder=folder))
            out.files.append(f.name)


def _has_results(p: Path) -> bool:
    return any((p / n).is_file() for n in (*TABLE_FILES.values(), *ALTERNATIVE_FILES["curves"]))


def read_results_dir(path: PathLike) -> ResultsDir:
    """Read every goeval table and JSON document present in directory ``path``.

    Parameters
    ----------
    path : str or path-like
        A directory written by ``goeval evaluate``, ``goeval retrieval`` or
        ``goeval benchmark cv`` / ``timesplit`` (a time split's kinds, in
        ``nk/``, ``lk/``, ``pk/``, are read as its ``parts``).

    Returns
    -------
    ResultsDir

    Raises
    ------
    GoevalError
        ``path`` is not a directory, holds none of the known files, or
        holds a file that the run of its manifest did not write (or that
        changed since).
    InputFormatError
        A file present cannot be read (named with the problem).
    """
    from goeval.io.manifest import find_manifest

    p = Path(path)
    if not p.is_dir():
        raise GoevalError(f"{p}: not a results directory ({'not a directory' if p.exists() else 'no such directory'}).")
    manifest = find_manifest(p)
    out = ResultsDir(path=p)
    if manifest is None:
        out.notes.append(f"{p} has no manifest.json (written by an earlier goeval, or by hand): its files could not be "
                         "checked to come from one run")
    _read_files(p, out, manifest, p)
    if not _has_results(p):
        for d in kind_dirs(p):
            if _has_results(d):
                part = ResultsDir(path=d)
                _read_files(d, part, manifest, p)
                _note_summary(part)
                out.parts[d.name.upper()] = part
    if not any(getattr(out, a) is not None for a in TABLE_FILES) and not out.parts:
        known = ", ".join(TABLE_FILES.values())
        raise GoevalError(f"{p}: no goeval results in this directory (expected one of {known}); "
                          "give the --out directory of goeval evaluate, retrieval or benchmark cv / timesplit.")
    _note_summary(out)
    return out


def _note_summary(res: ResultsDir) -> None:
    if res.summary is None and not res.parts and (res.curves is not None or res.table1 is not None):
        res.notes.append(f"{res.path}/summary.tsv is missing: no rankings and no optima (the run wrote none, or it "
                         "was removed)")


def write_files(out_dir: PathLike, files: Mapping[str, bytes | str], added_by: str | None = None) -> dict[str, Path]:
    """Write ``files`` (name -> bytes, or text written as UTF-8) into ``out_dir`` as one set.

    Each file goes to a hidden temporary name first; all are renamed into
    place only when every one is complete, so a failure leaves the
    directory as it was (an :class:`~goeval.io.files.OutputSet`). Every name
    is a path inside ``out_dir`` (:func:`goeval.io.files.inside_output`):
    ``plots/fig.png`` with ``plots`` a symbolic link is refused, not written
    through. With ``added_by``, the files are added to the manifest of the
    results directory they land in, if any
    (:func:`goeval.io.manifest.add_to_manifest`).

    Raises
    ------
    OutputError
        The directory cannot be created, a name is not inside it, or a file
        cannot be written.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_failed(out, exc) from None
    with OutputSet(out) as fs:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            with fs.open_binary(name) as fh:
                fh.write(data)
        written = fs.commit()
    if added_by is not None:
        from goeval.io.manifest import add_to_manifest

        add_to_manifest(out, written, added_by)
    return written
