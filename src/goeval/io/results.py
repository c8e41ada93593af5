"""Writing results: tables, JSON, IA files, propagated pairs.

Every writer is atomic (see :func:`goeval.io.files.open_text_out`), and
files that belong together (``curves.tsv``, ``summary.tsv``,
``diagnostics.json``) are committed together (:class:`OutputSet`). Floats
are written in the shortest form that reads back to the same double
(``repr``), everywhere; tables of arrays are formatted vectorized by Arrow,
in chunks, with the cells where Arrow's layout differs from ``repr``
rewritten (:func:`format_floats`), so memory does not grow with the table.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from goeval.errors import InputFormatError
from goeval.io.files import OutputSet, PathLike, open_text_out, text_out

__all__ = [
    "write_results",
    "write_result_tree",
    "ResultFiles",
    "write_table",
    "write_table_to",
    "write_ia",
    "write_pairs",
    "write_json",
    "write_frames",
    "format_cell",
    "decimal_value",
    "format_floats",
    "jsonable",
    "write_arrays",
    "read_arrays",
    "CURVES_FILES",
    "CALIBRATION_FILE",
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


def _dump_json(fh: IO[str], obj: Any) -> None:
    json.dump(jsonable(obj), fh, indent=2, sort_keys=False)
    fh.write("\n")


def write_json(path: PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON (numpy values converted), atomically."""
    with open_text_out(path) as fh:
        _dump_json(fh, obj)


def decimal_value(v: Any) -> Any:
    """A float rounded to 15 significant digits (other values as they are): the decimal a person reads.

    A double holds any decimal of 15 significant digits exactly enough to
    give it back, so a value computed from a decimal input comes back as
    that decimal: ``45.3 / 100`` (0.45299999999999996) is 0.453. For tables
    read by people (``table1.tsv``); the data files keep every bit.

    Examples
    --------
    >>> decimal_value(45.3 / 100), decimal_value(0.1 + 0.2), decimal_value("MFO")
    (0.453, 0.3, 'MFO')
    """
    if isinstance(v, (float, np.floating)) and np.isfinite(v):
        return float(format(float(v), ".15g"))
    return v


def format_cell(v: Any) -> str:
    """Text of one table cell: floats in shortest round-trip form (NaN as ``nan``)."""
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (np.integer,)):
        return str(int(v))
    if v is None:
        return ""
    return str(v)


# Arrow writes a double with the same shortest round-trip digits as ``repr``
# but lays them out differently: fixed notation for decimal exponents -6..9
# (``repr``: -4..15), no ``.0`` after an integer, one-digit exponents
# (``1e-7``). Each difference is a class of magnitudes, found with numpy and
# rewritten with Arrow's regular expressions on those cells only.
_INTEGRAL_MAX = 1e10  # below: Arrow writes an integral value without ".0"
_SCI_SMALL = ((r"^(-?)0\.0000([1-9])(\d*)$", r"\1\2.\3e-05"), (r"^(-?)0\.00000([1-9])(\d*)$", r"\1\2.\3e-06"),
              (r"\.e-", "e-"))
_ZEROS = "0" * 16


def _regex(arr: Any, rules: Sequence[tuple[str, str]]) -> Any:
    import pyarrow.compute as pc  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it

    for pattern, replacement in rules:
        arr = pc.replace_substring_regex(arr, pattern, replacement)
    return arr


def _fixed_from_scientific(arr: Any) -> Any:
    """``d.ddde+EE`` (EE in 10..15) as ``repr`` writes it: ``dddd...d.ddd`` or ``dddd...d.0``."""
    rules = [(r"^(-?\d)(?:\.(\d*))?e\+(\d\d)$", r"\1\2" + _ZEROS + r"|\3")]
    rules += [(rf"^(-?\d{{{e + 1}}})(\d*)\|{e}$", r"\1.\2") for e in range(10, 16)]
    rules += [(r"0+$", ""), (r"\.$", ".0")]
    return _regex(arr, rules)


def _float_strings(values: np.ndarray) -> Any:
    """``repr`` of every value of a float array, as an Arrow string array (vectorized).

    The digits are Arrow's shortest round-trip digits (as ``repr``'s); the
    cells whose layout differs from ``repr`` are rewritten class by class.
    """
    import pyarrow as pa  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it
    import pyarrow.compute as pc  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it

    from goeval.io.arrow import arrow_array, arrow_scalar

    x = np.asarray(values, dtype=np.float64)
    text = pc.cast(arrow_array(x), pa.string())
    dot0, empty = arrow_scalar(".0", pa.string()), arrow_scalar("", pa.string())
    with np.errstate(invalid="ignore"):
        ax = np.abs(x)
        classes = (
            ((ax < _INTEGRAL_MAX) & (x == np.trunc(x)), lambda a: pc.binary_join_element_wise(a, dot0, empty)),
            ((ax >= 1e-6) & (ax < 1e-4), lambda a: _regex(a, _SCI_SMALL)),
            ((ax >= 1e-9) & (ax < 1e-6), lambda a: _regex(a, [(r"e-(\d)$", r"e-0\1")])),
            ((ax >= _INTEGRAL_MAX) & (ax < 1e16), _fixed_from_scientific),
        )
    for mask, fix in classes:
        if mask.any():
            on = arrow_array(mask)
            text = pc.replace_with_mask(text, on, fix(text.filter(on)))
    return text


def format_floats(values: Any) -> list[str]:
    """The text of each float, exactly ``repr(float(v))``, formatted vectorized.

    Examples
    --------
    >>> format_floats([3.0, 1e-05, 0.1 + 0.2, float("nan"), -0.0, 1e16])
    ['3.0', '1e-05', '0.30000000000000004', 'nan', '-0.0', '1e+16']
    """
    return _float_strings(np.asarray(values, dtype=np.float64)).to_pylist()


def _is_arrow(col: Any) -> bool:
    """Whether a column is an Arrow array (pyarrow is loaded if it is one)."""
    module = type(col).__module__
    return module.startswith("pyarrow")


def _column_strings(col: Any) -> Any:
    """The cells of one column as an Arrow string array (see :func:`format_cell`)."""
    import pyarrow as pa  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it
    import pyarrow.compute as pc  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it

    from goeval.io.arrow import arrow_array, arrow_scalar, string_array

    if _is_arrow(col):
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            raise TypeError(f"an Arrow column of a table is text; got {col.type}")
        return pc.fill_null(col, arrow_scalar("", col.type)) if col.null_count else col
    arr = np.asarray(col)
    if arr.dtype.kind == "f":
        return _float_strings(arr)
    if arr.dtype.kind in "iu":
        return pc.cast(arrow_array(arr), pa.string())
    if arr.dtype.kind == "b":
        return string_array(np.where(arr, "True", "False"))
    if arr.dtype.kind in "OU":
        cells = arr.tolist()
        if all(x is None or isinstance(x, str) for x in cells):  # text (and None): as it is
            return pc.fill_null(string_array(cells), arrow_scalar("", pa.string()))
        return string_array([format_cell(x) for x in cells])  # anything else cell by cell
    return string_array([str(x) for x in arr.tolist()])


def _lines_bytes(cols: Sequence[Any]) -> memoryview:
    """The UTF-8 text of rows whose cells are ``cols`` (Arrow string arrays): tab-joined, each line ended."""
    import pyarrow as pa  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it
    import pyarrow.compute as pc  # deferred: pyarrow (~60 ms); goeval info and compare use this module without it

    from goeval.io.arrow import arrow_scalar

    tab, end, empty = (arrow_scalar(t, pa.string()) for t in ("\t", "\n", ""))
    last = pc.binary_join_element_wise(cols[-1], end, empty)
    lines = pc.binary_join_element_wise(*cols[:-1], last, tab) if len(cols) > 1 else last
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32, count=len(lines) + 1, offset=4 * lines.offset)
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


_CHUNK_ROWS = 1 << 15  # about 55 MiB of Arrow buffers for a 32-column table


def _table_chunks(columns: Mapping[str, Any] | Sequence[Mapping[str, Any]], names: Sequence[str] | None,
                  header: bool = True):
    """The UTF-8 text of a table (header line first, unless ``header`` is False) in pieces of at most
    ``_CHUNK_ROWS`` rows.

    Memory stays bounded by one chunk's text, however long the table. Columns
    of arrays are formatted vectorized (Arrow), records cell by cell; both
    give exactly :func:`format_cell`'s text. A column may also be an Arrow
    string array (written as it is, a null as an empty cell): a writer of
    many identifiers gives them so (e.g. taken from the distinct ones).
    """
    if not isinstance(columns, Mapping):
        records = list(columns)
        names = list(names or (list(records[0]) if records else []))
        if header:
            yield ("\t".join(names) + "\n").encode()
        for a in range(0, len(records), _CHUNK_ROWS):
            yield "".join("\t".join(format_cell(rec.get(n, "")) for n in names) + "\n"
                          for rec in records[a : a + _CHUNK_ROWS]).encode()
        return
    names = list(names or columns)
    if header:
        yield ("\t".join(names) + "\n").encode()
    arrays = [c if _is_arrow(c) else np.asarray(c) for c in (columns[n] for n in names)]
    n_rows = len(arrays[0]) if arrays else 0
    for a in range(0, n_rows, _CHUNK_ROWS):
        yield _lines_bytes([_column_strings(arr[a : a + _CHUNK_ROWS]) for arr in arrays])


def write_table_to(fh: IO[Any], columns: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                   names: Sequence[str] | None = None, *, header: bool = True) -> None:
    """Write a tab-separated table (shortest round-trip floats) to an open binary or text file.

    Columns of arrays are formatted vectorized, in chunks (memory does not
    grow with the table); ``header=False`` leaves out the header line.
    """
    raw = getattr(fh, "buffer", None)
    if raw is not None:
        fh.flush()
    elif isinstance(fh, io.TextIOBase):
        for piece in _table_chunks(columns, names, header):
            fh.write(bytes(piece).decode("utf-8"))
        return
    out = raw if raw is not None else fh
    for piece in _table_chunks(columns, names, header):
        out.write(piece)


def write_table(path: PathLike, columns: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                names: Sequence[str] | None = None) -> None:
    """Write a tab-separated table with a header line, atomically.

    ``columns`` is a mapping of column name to array (all the same length) or
    a list of records; floats are written with the shortest representation
    that reads back to the same double (full precision).
    """
    with open_text_out(path) as fh:
        write_table_to(fh, columns, names)


def write_frames(out_dir: PathLike, tables: Mapping[str, Any], json_files: Mapping[str, Any] | None = None, *,
                 files: OutputSet | None = None) -> dict[str, Path]:
    """Write several tables (name -> DataFrame, mapping of columns or records;
    ``None`` writes nothing) and JSON documents into ``out_dir`` as one set:
    all appear, or none changes.

    DataFrames are written column by column with shortest round-trip floats.
    ``files``: the set (e.g. a run's :class:`~goeval.io.manifest.RunOutput`)
    the files are added to, committed by the caller.
    """
    from contextlib import nullcontext

    out = Path(out_dir)
    with (OutputSet(out) if files is None else nullcontext(files)) as fs:
        for name, table in tables.items():
            if table is None:  # e.g. curves not kept (--curves none)
                continue
            if hasattr(table, "to_dict") and hasattr(table, "columns"):  # a DataFrame
                table = {c: table[c].to_numpy() for c in table.columns}
            with fs.open(name) as fh:
                write_table_to(fh, table, None)
        for name, obj in (json_files or {}).items():
            with fs.open(name) as fh:
                _dump_json(fh, obj)
    return {name: out / name for name in [*(t for t, v in tables.items() if v is not None), *(json_files or {})]}


#: The names a curves table may have in a results directory (one at a time).
CURVES_FILES = ("curves.tsv", "curves.tsv.gz")


def _write_curves(files: OutputSet, name: str, curves: Mapping[str, Any]) -> None:
    """``curves.tsv``, or ``curves.tsv.gz`` compressed reproducibly (no name, time 0 in the header)."""
    with files.open_binary(name) as fh:
        if name.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", fileobj=fh, compresslevel=6, mtime=0) as gz:
                write_table_to(gz, curves, None)
        else:
            write_table_to(fh, curves, None)


#: The reliability table of a results directory (:data:`goeval.metrics.calibration.CALIBRATION_COLUMNS`).
CALIBRATION_FILE = "calibration.tsv"


@dataclass(kw_only=True)
class ResultFiles:
    """What :func:`write_results` writes into one results directory (see there); ``calibration``: the columns of
    ``calibration.tsv`` (None: no such file, e.g. rank thresholds)."""

    curves: Mapping[str, Any] | None
    summary: Sequence[Mapping[str, Any]]
    summary_columns: Sequence[str]
    diagnostics: Mapping[str, Any]
    timings: Mapping[str, Any] | None = None
    extra_tables: Mapping[str, Mapping[str, Any]] | None = None
    extra_arrays: Mapping[str, Mapping[str, np.ndarray]] | None = None
    curves_gzip: bool = False
    calibration: Mapping[str, Any] | None = None


def write_results(out_dir: PathLike, curves: Mapping[str, Any] | None, summary: Sequence[Mapping[str, Any]],
                  summary_columns: Sequence[str], diagnostics: Mapping[str, Any],
                  timings: Mapping[str, Any] | None = None,
                  extra_tables: Mapping[str, Mapping[str, Any]] | None = None,
                  extra_arrays: Mapping[str, Mapping[str, np.ndarray]] | None = None,
                  *, curves_gzip: bool = False, files: Any = None) -> dict[str, Path]:
    """Write ``curves.tsv``, ``summary.tsv``, ``diagnostics.json`` (and
    ``timings.json``, ``extra_tables``: file name -> columns, and
    ``extra_arrays``: file name -> named arrays, as compressed ``.npz``) into
    ``out_dir`` (created) as one set.

    ``diagnostics.json`` holds only what the inputs and options determine
    (the same run writes the same bytes); the stage timings, which vary from
    run to run, go to ``timings.json``.

    ``curves=None`` writes no curves table (``--curves none``);
    ``curves_gzip`` writes ``curves.tsv.gz`` (gzip level 6, no file name and
    time 0 in its header, so the same curves give the same bytes) instead of
    ``curves.tsv``. A curves table of an earlier run that this one does not
    replace (the other name, or either with ``curves=None``) is removed once
    the new set is in place, so the directory never holds curves that
    disagree with its summary.

    ``files``: the run's :class:`~goeval.io.manifest.RunOutput` the files
    are added to, committed by the caller; by default a run of their own,
    with its manifest.
    """
    part = ResultFiles(curves=curves, summary=summary, summary_columns=summary_columns, diagnostics=diagnostics,
                       timings=timings, extra_tables=extra_tables, extra_arrays=extra_arrays, curves_gzip=curves_gzip)
    return write_result_tree(out_dir, {"": part}, files=files)


def write_result_tree(out_dir: PathLike, parts: Mapping[str, ResultFiles],
                      tables: Mapping[str, Any] | None = None,
                      json_files: Mapping[str, Any] | None = None, *, files: Any = None) -> dict[str, Path]:
    """Several results directories (``out_dir/NAME`` per part, ``""`` for ``out_dir`` itself, each as
    :func:`write_results` writes it) and further tables and JSON documents of ``out_dir``, as one set.

    ``files``: the run's :class:`~goeval.io.manifest.RunOutput` the files
    are added to, committed by the caller; by default a run of their own,
    with its manifest (a curves table of an earlier run that this one does
    not write again is removed once the set is in place).

    Returns
    -------
    dict of str to Path
        ``NAME/curves``, ``NAME/summary``... (``curves``, ``summary``... for ``""``) and each table's name.
    """
    from contextlib import nullcontext

    from goeval.io.manifest import RunOutput  # deferred: the manifest module imports this one

    out = Path(out_dir)
    paths: dict[str, Path] = {}
    with (RunOutput(out) if files is None else nullcontext(files)) as fs:
        for name, part in parts.items():
            fs.replaces.update(f"{name}/{c}" if name else c for c in CURVES_FILES)
            paths.update(_add_results(fs, name, part))
        for table, columns in (tables or {}).items():
            paths[table] = out / table
            with fs.open(table) as fh:
                write_table_to(fh, columns, None)
        for name, obj in (json_files or {}).items():
            paths[name] = out / name
            with fs.open(name) as fh:
                _dump_json(fh, obj)
    return paths


def _add_results(files: OutputSet, prefix: str, part: ResultFiles) -> dict[str, Path]:
    """Put one results directory's files into ``files`` (names below ``prefix``)."""
    def at(name: str) -> str:  # the file's name in the set, and the returned path's key: "summary", "NK/summary"
        return f"{prefix}/{name}" if prefix else name

    name = CURVES_FILES[1] if part.curves_gzip else CURVES_FILES[0]
    paths = {}
    if part.curves is not None:
        paths[at("curves")] = files.directory / at(name)
        _write_curves(files, at(name), part.curves)
    if part.calibration is not None:
        paths[at("calibration")] = files.directory / at(CALIBRATION_FILE)
        with files.open(at(CALIBRATION_FILE)) as fh:
            write_table_to(fh, part.calibration, None)
    docs = {"summary": ("summary.tsv", part.summary), "diagnostics": ("diagnostics.json", part.diagnostics),
            "timings": ("timings.json", part.timings)}
    for k, (file, content) in docs.items():
        if content is None:
            continue
        paths[at(k)] = files.directory / at(file)
        with files.open(at(file)) as fh:
            if k == "summary":
                write_table_to(fh, content, part.summary_columns)
            else:
                _dump_json(fh, content)
    for table, columns in (part.extra_tables or {}).items():
        paths[at(table)] = files.directory / at(table)
        with files.open(at(table)) as fh:
            write_table_to(fh, columns, None)
    for table, arrays in (part.extra_arrays or {}).items():
        paths[at(table)] = files.directory / at(table)
        with files.open_binary(at(table)) as fh:
            np.savez_compressed(fh, **arrays)
    return paths


def write_arrays(path: PathLike, arrays: Mapping[str, np.ndarray]) -> Path:
    """Write named arrays as a compressed ``.npz`` file, atomically."""
    p = Path(path)
    with OutputSet(p.parent if str(p.parent) else Path(".")) as files:
        with files.open_binary(p.name) as fh:
            np.savez_compressed(fh, **arrays)
    return p


#: The most that deflate expands (RFC 1951: a 258-byte match from as little as two bits, about 1032 times).
_DEFLATE_MAX_RATIO = 1032


def _member_problem(zf: Any, info: Any) -> str | None:
    """What is wrong with one member of an ``.npz`` archive, before it is read (None: nothing).

    A member's uncompressed size must be one its compressed bytes can give (stored: equal; deflated: at most
    :data:`_DEFLATE_MAX_RATIO` times), and an array's header must declare a shape and dtype that fill exactly
    the rest of the member, so that no array is allocated larger than the data that backs it.
    """
    import math
    import zipfile

    name = repr(info.filename)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return f"its member {name} is compressed with method {info.compress_type}, not stored or deflated as numpy does"
    limit = info.compress_size * (1 if info.compress_type == zipfile.ZIP_STORED else _DEFLATE_MAX_RATIO) + 64
    if info.file_size > limit:
        return (f"its member {name} claims {info.file_size:,} bytes from {info.compress_size:,} compressed bytes, "
                "more than the compression can give")
    if not info.filename.endswith(".npy"):
        return None
    fmt = np.lib.format
    with zf.open(info) as fh:
        version = fmt.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            return f"its array {name} is in .npy format version {version}, which goeval does not write"
        read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, _fortran, dtype = read_header(fh)
        header = fh.tell()
    if dtype.hasobject:
        return None  # refused by np.load(allow_pickle=False)
    declared = math.prod(shape) * dtype.itemsize
    if header + declared != info.file_size:
        return (f"its array {name} declares shape {shape} of {dtype} ({declared:,} bytes) but its member holds "
                f"{info.file_size - header:,} bytes")
    return None


def _check_npz(p: Path) -> None:
    """Every member of the ``.npz`` file ``p`` is what it says it is (:func:`_member_problem`), and no two members
    share compressed bytes (their compressed sizes add up to at most the file's size).

    Raises
    ------
    InputFormatError
        Naming the file and the member: a damaged or crafted file.
    """
    import zipfile

    with zipfile.ZipFile(p) as zf:
        infos = zf.infolist()
        if sum(i.compress_size for i in infos) > p.stat().st_size:
            raise InputFormatError(p, None, "its members overlap (their compressed sizes add up to more than the "
                                            "file): a crafted file")
        for info in infos:
            problem = _member_problem(zf, info)
            if problem is not None:
                raise InputFormatError(p, None, f"{problem}: a damaged or crafted file")


def read_arrays(path: PathLike, fmt: str, what: str) -> dict[str, np.ndarray]:
    """Named arrays of an ``.npz`` file written by goeval, checked by its ``format`` entry.

    Before any array is read, each member's declared shape and dtype are
    checked against the member's size, and that size against its compressed
    size (:func:`_check_npz`): an array is never allocated larger than the
    data in the file can fill, and memory stays within what deflate can
    expand the file to (about 1000 times its size).

    Raises
    ------
    InputFormatError
        If the file is missing, unreadable, not a ``fmt`` file, or holds an
        array whose declared shape its member cannot fill.
    """
    import zipfile

    p = Path(path)
    if not p.is_file():
        raise InputFormatError(p, None, f"no such file; {what}")
    try:
        _check_npz(p)
        with np.load(p, allow_pickle=False) as z:
            if "format" not in z.files or str(z["format"]) != fmt:
                found = str(z["format"]) if "format" in z.files else "no format entry"
                raise InputFormatError(p, None, f"not a {fmt!r} file ({found}; written by another goeval version?)")
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        raise InputFormatError(p, None, f"cannot read the file (truncated or damaged?): {exc}") from None
    except MemoryError:
        raise InputFormatError(p, None, "its arrays do not fit in memory (a crafted file, or too large for this "
                                        "machine)") from None


def write_ia(path: PathLike | IO[str], terms: np.ndarray, values: np.ndarray) -> None:
    """Write ``term<TAB>ia`` lines, no header, shortest round-trip floats, to ``path`` (atomically) or an open text file."""
    with text_out(path) as fh:
        fh.write("".join(f"{t}\t{float(v)!r}\n" for t, v in zip(terms, values)))


def write_pairs(path: PathLike | IO[str], proteins: np.ndarray, terms: np.ndarray, scores: np.ndarray | None = None) -> None:
    """Write ``protein<TAB>term[<TAB>score]`` lines, no header, shortest round-trip floats, to ``path``
    (atomically) or an open text file."""
    cols = [np.asarray(proteins, dtype=object).tolist(), np.asarray(terms, dtype=object).tolist()]
    if scores is not None:
        cols.append([repr(x) for x in np.asarray(scores, dtype=np.float64).tolist()])
    with text_out(path) as fh:
        fh.write("".join("\t".join(map(str, r)) + "\n" for r in zip(*cols)))
