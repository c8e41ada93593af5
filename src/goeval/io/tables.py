"""Readers and writers of the tabular inputs: truth, GAF, predictions, IA.

Parsing is vectorized (pyarrow's multi-threaded CSV reader over the whole
decompressed file); when the fast reader rejects a file, a line-by-line
pass finds the first offending line so the error names file, line and text.
Identifiers come back dictionary-encoded (integer codes + unique strings), so
later stages map each distinct term once.
"""

from __future__ import annotations

import io
import math
import multiprocessing as mp
import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from goeval.errors import InputFormatError
from goeval.io._files import PathLike, decode_utf8, read_bytes

__all__ = [
    "PairTable",
    "read_truth",
    "read_gaf",
    "read_predictions",
    "read_ia",
    "read_id_list",
    "start_read_predictions",
    "DEFAULT_EVIDENCE",
]

#: Experimental evidence codes kept from GAF files by default (CAFA).
DEFAULT_EVIDENCE = ("EXP", "IDA", "IPI", "IMP", "IGI", "IEP", "TAS", "IC")

_CAFA_HEADER = (b"AUTHOR", b"MODEL", b"KEYWORDS", b"ACCURACY")
_PROTEIN_HEADERS = {"protein", "proteins", "target", "targets", "entryid", "entry", "protein_id",
                    "accession", "id", "gene", "db_object_id", "uniprot", "sequence"}
_TERM_HEADERS = {"term", "terms", "go", "go_id", "goid", "term_id", "go_term", "hpo", "hpo_id", "annotation"}
_SCORE_HEADERS = {"score", "scores", "prob", "probability", "confidence", "value"}


@dataclass
class PairTable:
    """(protein, term[, score]) rows with dictionary-encoded identifiers.

    Attributes
    ----------
    protein_codes, term_codes : ndarray of int32, shape (n_rows,)
        Codes into ``proteins`` and ``terms``.
    proteins, terms : ndarray of str
        Distinct identifiers.
    scores : ndarray of float64, shape (n_rows,) or None
        Scores (predictions only).
    source : str
        The file read.
    counts : dict
        What the reader skipped or noticed (header lines, GAF rows filtered...).
    """

    protein_codes: np.ndarray
    proteins: np.ndarray
    term_codes: np.ndarray
    terms: np.ndarray
    scores: np.ndarray | None = None
    source: str = "<memory>"
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.protein_codes.shape[0])

    @classmethod
    def from_arrays(cls, proteins: Any, terms: Any, scores: Any = None, source: str = "<memory>") -> "PairTable":
        """Build a table from plain sequences (for notebooks and tests)."""
        pcodes, puniq = _encode(pa.chunked_array([pa.array(list(proteins), pa.string())]))
        tcodes, tuniq = _encode(pa.chunked_array([pa.array(list(terms), pa.string())]))
        sc = None if scores is None else np.asarray(scores, dtype=np.float64)
        return cls(pcodes, puniq, tcodes, tuniq, sc, source)


# ----------------------------------------------------------------- helpers
def _encode(col: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Dictionary-encode a string column: (int32 codes, unique strings)."""
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    return _encode_chunks(list(col.chunks), len(col))


def _encode_chunks(chunks: list, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Global codes for dictionary-encoded chunks, releasing each chunk when done.

    The chunk dictionaries are small: they are merged into one dictionary and
    every chunk's indices are translated through ``index_in``.
    """
    if not chunks:
        return np.zeros(0, np.int32), np.zeros(0, dtype=object)
    merged = pc.unique(pa.concat_arrays([c.dictionary for c in chunks]))
    codes = np.empty(n_rows, dtype=np.int32)
    pos = 0
    for i, c in enumerate(chunks):
        trans = pc.index_in(c.dictionary, value_set=merged).to_numpy(zero_copy_only=False).astype(np.int32)
        idx = c.indices
        local = _numpy(idx, np.int32) if idx.null_count == 0 else idx.fill_null(0).to_numpy()
        codes[pos : pos + len(c)] = trans[local]
        pos += len(c)
        chunks[i] = None
    return codes, np.asarray(merged.to_pylist(), dtype=object)


def _line_offset(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, pos)


def _strip_cafa(data: bytes) -> tuple[bytes, int, dict[str, Any]]:
    """Remove CAFA header lines and the final END; return (body, lines skipped, info)."""
    info: dict[str, Any] = {}
    pos = 0
    skipped = 0
    while True:
        end = data.find(b"\n", pos)
        line = data[pos : end if end >= 0 else len(data)]
        head = line.split(None, 1)
        if head and head[0].upper() in _CAFA_HEADER:
            info.setdefault("cafa_header", []).append(line.decode("utf-8", "replace").strip())
            skipped += 1
            if end < 0:
                pos = len(data)
                break
            pos = end + 1
            continue
        break
    body = data[pos:]
    tail = body.rstrip()
    nl = tail.rfind(b"\n")
    if tail[nl + 1 :].strip().upper() == b"END":
        body = tail[: nl + 1]
        info["end_line"] = True
    return body, skipped, info


def _whitespace_to_tab(body: bytes) -> bytes:
    body = re.sub(rb"(?m)^[ \t]+|[ \t\r]+$", b"", body)
    return re.sub(rb"[ \t]+", b"\t", body)


def _first_line(body: bytes) -> bytes:
    for line in body.split(b"\n", 20):
        if line.strip():
            return line
    return b""


def _slow_scan(data: bytes, path: PathLike, first_line: int, check) -> None:  # noqa: ANN001
    """Walk the lines, call ``check(fields, line)``; it raises on the first bad one."""
    text = decode_utf8(data, path)
    for k, raw in enumerate(text.split("\n")):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        check(line, first_line + k)


def _read_arrow(body: bytes, ncols: int, names: list[str], types: dict[str, pa.DataType]) -> pa.Table:
    return pacsv.read_csv(
        io.BytesIO(body),
        read_options=pacsv.ReadOptions(column_names=names, use_threads=True, block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=names[:ncols], strings_can_be_null=False, quoted_strings_can_be_null=False),
    )


def _is_header(fields: list[str], kinds: tuple[set[str], ...]) -> bool:
    low = [f.strip().lower() for f in fields]
    return any(low[i] in kinds[i] for i in range(min(len(low), len(kinds))))


# ------------------------------------------------------------------ truth
def read_truth(path: PathLike) -> PairTable:
    """Read a ground-truth file ``protein<TAB>term[<TAB>...]``.

    Further columns are ignored; an optional header line (``protein term ...``,
    ``EntryID term aspect``...) is detected and counted. Files without a tab
    on their first line are split on runs of whitespace. A GAF file (first
    line ``!gaf-version``) is read with :func:`read_gaf`'s defaults.

    Raises
    ------
    InputFormatError
        Empty file, non-UTF-8 bytes, a line with fewer than two columns.
    """
    data = read_bytes(path)
    if data.lstrip().startswith(b"!gaf-version") or data.lstrip().startswith(b"!GAF"):
        return read_gaf(path, _data=data)
    body = data
    first = _first_line(body)
    if b"\t" not in first:
        body = _whitespace_to_tab(body)
        first = _first_line(body)
    fields = first.decode("utf-8", "replace").split("\t")
    ncols = len(fields)
    counts: dict[str, Any] = {"header_lines": 0}
    start_line = 1
    if _is_header(fields, (_PROTEIN_HEADERS, _TERM_HEADERS)):
        counts["header_lines"] = 1
        counts["header"] = first.decode("utf-8", "replace").strip()
        cut = body.find(first) + len(first) + 1
        start_line = 1 + _line_offset(body, cut)
        body = body[cut:]

    def check(line: str, number: int) -> None:
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0] or not parts[1]:
            raise InputFormatError(path, number, "expected 'protein<TAB>term' (two columns)", line)
        if len(parts) != ncols:
            raise InputFormatError(path, number, f"expected {ncols} columns like the first line, got {len(parts)}", line)

    if ncols < 2:
        _slow_scan(body, path, start_line, check)
    names = [f"c{i}" for i in range(ncols)]
    try:
        table = _read_arrow(body, 2, names, {n: pa.string() for n in names})
    except (pa.ArrowInvalid, UnicodeDecodeError):
        _slow_scan(body, path, start_line, check)
        raise
    pcodes, puniq = _encode(table.column("c0"))
    tcodes, tuniq = _encode(table.column("c1"))
    if (puniq == "").any() or (tuniq == "").any():
        _slow_scan(body, path, start_line, check)
    counts["rows"] = int(table.num_rows)
    return PairTable(pcodes, puniq, tcodes, tuniq, None, str(path), counts)


def read_gaf(path: PathLike, evidence: tuple[str, ...] | None = DEFAULT_EVIDENCE, *, _data: bytes | None = None) -> PairTable:
    """Read a GAF 2.x annotation file, keeping experimental annotations.

    Rows are kept when column 7 (evidence) is in ``evidence`` (``None`` keeps
    all) and column 4 (qualifier, split on ``|``) has no ``NOT``. The protein
    is column 2 (DB object ID), the term column 5. Filtered rows are counted.

    Raises
    ------
    InputFormatError
        A data line with fewer than 15 tab-separated columns.
    """
    data = read_bytes(path) if _data is None else _data
    # drop comment lines ('!') wherever they are
    lines_removed = 0
    if data.startswith(b"!") or b"\n!" in data:
        kept = []
        for chunk in data.split(b"\n"):
            if chunk.startswith(b"!"):
                lines_removed += 1
                kept.append(b"")  # keep line numbering for errors
            else:
                kept.append(chunk)
        data = b"\n".join(kept)

    def check(line: str, number: int) -> None:
        if len(line.split("\t")) < 15:
            raise InputFormatError(path, number, "a GAF line needs at least 15 tab-separated columns", line)

    names = [f"c{i}" for i in range(17)]
    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=True),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, invalid_row_handler=None),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, include_columns=["c1", "c3", "c4", "c6"]),
        )
    except pa.ArrowInvalid:
        # GAF 2.x has 17 columns; older files 15: retry with the actual count
        first = _first_line(data).split(b"\t")
        if len(first) < 15:
            _slow_scan(data, path, 1, check)
        names = [f"c{i}" for i in range(len(first))]
        try:
            table = pacsv.read_csv(
                io.BytesIO(data),
                read_options=pacsv.ReadOptions(column_names=names, use_threads=True),
                parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
                convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, include_columns=["c1", "c3", "c4", "c6"]),
            )
        except pa.ArrowInvalid:
            _slow_scan(data, path, 1, check)
            raise
    n = table.num_rows
    qual = pc.utf8_lower(table.column("c3"))
    is_not = pc.match_substring_regex(qual, r"(^|\|)not(\||$)")
    keep = pc.invert(is_not)
    ev_ok = None
    if evidence is not None:
        ev_ok = pc.is_in(table.column("c6"), value_set=pa.array(list(evidence)))
        keep = pc.and_(keep, ev_ok)
    counts = {
        "gaf_comment_lines": lines_removed,
        "gaf_rows": n,
        "gaf_rows_NOT_qualifier": int(pc.sum(is_not).as_py() or 0),
        "gaf_rows_other_evidence": 0 if ev_ok is None else int(n - (pc.sum(ev_ok).as_py() or 0)),
        "evidence_codes": None if evidence is None else list(evidence),
    }
    table = table.filter(keep)
    counts["rows"] = table.num_rows
    pcodes, puniq = _encode(table.column("c1"))
    tcodes, tuniq = _encode(table.column("c4"))
    return PairTable(pcodes, puniq, tcodes, tuniq, None, str(path), counts)


# ------------------------------------------------------------- predictions
def _score_problem(text: str) -> str | None:
    try:
        v = float(text)
    except ValueError:
        return "the score is not a number"
    if not math.isfinite(v):
        return "the score must be a finite number in [0, 1]"
    if v < 0 or v > 1:
        return "the score must lie in [0, 1]"
    return None


def _peek(path: PathLike, size: int = 1 << 16) -> bytes:
    """The first ``size`` decompressed bytes of a file."""
    from goeval.io._files import open_binary

    try:
        with open_binary(path) as fh:
            return fh.read(size)
    except (OSError, EOFError) as exc:
        raise InputFormatError(path, None, f"cannot read the file: {exc}") from None


_DICT = pa.dictionary(pa.int32(), pa.string())


def _block_size(path: PathLike) -> int:
    """CSV block size: 4 MiB, growing with the file so that it splits into at
    most ~32 blocks (fewer dictionary merges), capped at 64 MiB."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return 1 << 22
    return int(min(1 << 26, max(1 << 22, size // 32)))


def _numpy(arr: pa.Array, dtype: type) -> np.ndarray:
    """Zero-copy view of a primitive Arrow array without nulls (fast path)."""
    width = np.dtype(dtype).itemsize
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * width)


def _scores_column(table: pa.Table, name: str) -> np.ndarray:
    """Concatenate a float64 column; nulls (empty fields) become NaN."""
    col = table.column(name)
    out = np.empty(table.num_rows)
    pos = 0
    for c in col.chunks:
        n = len(c)
        out[pos : pos + n] = _numpy(c, np.float64) if c.null_count == 0 else c.to_numpy(zero_copy_only=False)
        pos += n
    return out


def read_predictions(path: PathLike) -> PairTable:
    """Read a prediction file: CAFA format or a plain 3-column table.

    CAFA header lines (``AUTHOR``, ``MODEL``, ``KEYWORDS``, ``ACCURACY``) and a
    final ``END`` are skipped; data lines are ``target term score`` separated
    by a tab or by spaces. A header line ``target term score`` is accepted.

    Raises
    ------
    InputFormatError
        Empty file, bytes that are not UTF-8, a line without exactly three
        columns, a score that is not a finite number in [0, 1] - with the
        line number and the line.
    """
    head = _peek(path)
    if not head.strip():
        read_bytes(path)  # raises the 'empty file' error with the usual wording
    counts: dict[str, Any] = {}
    lines = head.split(b"\n")
    skip = 0
    while skip < len(lines) - 1 and (lines[skip].split(None, 1)[:1] or [b""])[0].upper() in _CAFA_HEADER:
        counts.setdefault("cafa_header", []).append(lines[skip].decode("utf-8", "replace").strip())
        skip += 1
    counts["cafa_header_lines"] = skip
    first = next((ln for ln in lines[skip:] if ln.strip()), b"")
    header = 0
    fields = first.decode("utf-8", "replace").replace(" ", "\t").split("\t")
    fields = [f for f in fields if f]
    if len(fields) == 3 and fields[2].strip().lower() in _SCORE_HEADERS:
        header = 1
        counts["header_lines"] = 1
    tab = b"\t" in first or not first.strip()
    start_line = skip + header + 1

    def check(line: str, number: int) -> None:
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0] or not parts[1]:
            if number > 1 and line.strip().upper() == "END":
                return
            raise InputFormatError(path, number, f"expected 3 columns 'target term score', got {len(parts)}", line)
        problem = _score_problem(parts[2])
        if problem:
            raise InputFormatError(path, number, problem, line)

    types = {"p": _DICT, "t": _DICT, "s": pa.float64()}
    if tab and not str(path).lower().endswith(".xz"):
        invalid: list[tuple[int | None, str]] = []

        def handler(row) -> str:  # noqa: ANN001 - pyarrow InvalidRow
            invalid.append((row.number, row.text))
            return "skip"

        try:
            table = pacsv.read_csv(
                str(path),
                read_options=pacsv.ReadOptions(column_names=["p", "t", "s"], skip_rows=skip + header, block_size=_block_size(path)),
                parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False, invalid_row_handler=handler),
                convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False),
            )
        except (pa.ArrowInvalid, UnicodeDecodeError, OSError):
            body = read_bytes(path)
            _slow_scan(body, path, 1, lambda line, n: None if n < start_line else check(line, n))
            raise InputFormatError(path, None, "the file could not be parsed as 'target<TAB>term<TAB>score' lines") from None
        bad_rows = [t for _n, t in invalid if t.strip().upper() != "END"]
        ends = len(invalid) - len(bad_rows)
        if ends:
            counts["end_line"] = True
        if bad_rows or ends > 1:
            body = read_bytes(path)
            _slow_scan(body, path, 1, lambda line, n: None if n < start_line else check(line, n))
    else:
        data = read_bytes(path)
        body, skipped, info = _strip_cafa(data)
        counts.update(info)
        body = _whitespace_to_tab(body)
        counts["whitespace_separated"] = not tab
        if header:
            cut = body.find(b"\n") + 1
            body = body[cut:]
        if not body.strip():
            table = pa.table({"p": pa.array([], _DICT), "t": pa.array([], _DICT), "s": pa.array([], pa.float64())})
        else:
            try:
                table = _read_arrow(body, 3, ["p", "t", "s"], types)
            except (pa.ArrowInvalid, UnicodeDecodeError):
                data2 = _whitespace_to_tab(data)
                _slow_scan(data2, path, 1, lambda line, n: None if n < start_line else check(line, n))
                raise InputFormatError(path, None, "the file could not be parsed as 'target term score' lines") from None
    n_rows = int(table.num_rows)
    # convert chunk by chunk, releasing each Arrow chunk once copied (peak memory)
    cols = {name: list(table.column(name).chunks) for name in ("p", "t", "s")}
    del table
    scores = np.empty(n_rows)
    pos = 0
    chunks = cols.pop("s")
    for i, c in enumerate(chunks):
        scores[pos : pos + len(c)] = _numpy(c, np.float64) if c.null_count == 0 else c.to_numpy(zero_copy_only=False)
        pos += len(c)
        chunks[i] = None
    pcodes, puniq = _encode_chunks(cols.pop("p"), n_rows)
    tcodes, tuniq = _encode_chunks(cols.pop("t"), n_rows)
    if not ((scores >= 0) & (scores <= 1)).all() or (puniq == "").any() or (tuniq == "").any():
        body = read_bytes(path)
        if not tab:
            body = _whitespace_to_tab(body)
        _slow_scan(body, path, 1, lambda line, n: None if n < start_line else check(line, n))
    counts["rows"] = n_rows
    return PairTable(pcodes, puniq, tcodes, tuniq, scores, str(path), counts)


def _shm_dir() -> str:
    import tempfile

    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


def _read_child(path: str, conn) -> None:  # noqa: ANN001 - multiprocessing connection
    """Read in a child process; hand the big arrays over through memory-mapped files."""
    try:
        table = read_predictions(path)
        base = os.path.join(_shm_dir(), f"goeval-{os.getpid()}-{id(table)}")
        files = {}
        for name in ("protein_codes", "term_codes", "scores"):
            np.save(base + f"-{name}.npy", getattr(table, name), allow_pickle=False)
            files[name] = base + f"-{name}.npy"
            setattr(table, name, None)
        conn.send(("ok", (table, files)))
    except BaseException as exc:  # noqa: BLE001 - forwarded to the parent
        conn.send(("error", exc))
    finally:
        conn.close()


def _receive(payload) -> PairTable:  # noqa: ANN001
    table, files = payload
    try:
        for name, file in files.items():
            setattr(table, name, np.load(file, mmap_mode="r", allow_pickle=False))
    finally:
        for file in files.values():
            try:
                os.unlink(file)  # the mapping keeps the data while it is used
            except OSError:
                pass
    return table


def start_read_predictions(path: PathLike, *, process: bool = True):  # noqa: ANN201 - Callable[[], PairTable]
    """Start reading a prediction file; return a function that returns the table.

    With ``process=True`` on a platform with ``fork``, the file is parsed in
    a child process forked now, which sends back only the final arrays: the
    CSV reader's working memory never counts against the caller, and the
    caller goes on (parsing the ontology, importing modules) meanwhile. Call
    it early, while the caller is still small. Otherwise the file is read
    when the returned function is called.
    """
    if not process or "fork" not in mp.get_all_start_methods():
        return lambda: read_predictions(path)
    try:
        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_read_child, args=(str(path), send), daemon=True)
        proc.start()
        send.close()
    except (OSError, ValueError):  # pragma: no cover - no fork possible here
        return lambda: read_predictions(path)

    def finish() -> PairTable:
        try:
            status, payload = recv.recv()
        except (EOFError, OSError):  # pragma: no cover - the child died: read here
            status, payload = "ok", read_predictions(path)
        finally:
            recv.close()
            proc.join()
        if status != "ok":
            raise payload
        return _receive(payload) if isinstance(payload, tuple) else payload

    return finish


# ---------------------------------------------------------------------- IA
def read_ia(path: PathLike) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Read an information-accretion file ``term<TAB>ia`` (header optional).

    Returns
    -------
    terms : ndarray of str
    ia : ndarray of float64 (bits)
    counts : dict
        Header lines, non-finite values (set to 0, as CAFA-evaluator does),
        negative values (kept).

    Raises
    ------
    InputFormatError
        A line without two columns or with a value that is not a number.
    """
    data = read_bytes(path)
    body = data
    first = _first_line(body)
    if b"\t" not in first:
        body = _whitespace_to_tab(body)
        first = _first_line(body)
    counts: dict[str, Any] = {"header_lines": 0}
    start = 1
    f = first.decode("utf-8", "replace").split("\t")
    if len(f) >= 2:
        try:
            float(f[1])
        except ValueError:
            counts["header_lines"] = 1
            cut = body.find(first) + len(first) + 1
            start = 1 + _line_offset(body, cut)
            body = body[cut:]

    def check(line: str, number: int) -> None:
        parts = line.split("\t")
        if len(parts) != 2:
            raise InputFormatError(path, number, "expected 'term<TAB>ia' (two columns)", line)
        try:
            float(parts[1])
        except ValueError:
            raise InputFormatError(path, number, "the information accretion is not a number", line) from None

    try:
        table = _read_arrow(body, 2, ["t", "v"], {"t": pa.string(), "v": pa.float64()})
    except (pa.ArrowInvalid, UnicodeDecodeError):
        _slow_scan(body, path, start, check)
        raise
    terms = np.asarray(table.column("t").to_pylist(), dtype=object)
    ia = _scores_column(table, "v")  # (ChunkedArray.to_numpy would import pandas)
    nonfinite = ~np.isfinite(ia)
    counts["non_finite_set_to_zero"] = int(nonfinite.sum())
    counts["negative"] = int((ia < 0).sum())
    ia[nonfinite] = 0.0
    counts["rows"] = int(terms.size)
    return terms, ia, counts


def read_id_list(path: PathLike) -> np.ndarray:
    """Read a list of identifiers, one per line (first column; ``#`` comments)."""
    text = decode_utf8(read_bytes(path), path)
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            out.append(s.split()[0])
    return np.asarray(out, dtype=object)
