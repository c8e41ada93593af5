"""Opening files: compression by extension, strict UTF-8 with line numbers.

This module and its siblings in :mod:`goeval.io` are the only code of goeval
that touches the file system. :func:`inside_output` is the one rule of what a
run may touch: it creates, replaces and removes only paths inside its output
folder (see SECURITY.md); :func:`read_json` is the one reader of the JSON
documents of a results folder, bounded in size and nesting.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import lzma
import os
import re
import secrets
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PureWindowsPath
from typing import IO, Any, Union

from goeval.errors import InputFormatError, InvalidParameterError, OutputError

PathLike = Union[str, "os.PathLike[str]"]

__all__ = [
    "PathLike", "COMPRESSED_SUFFIXES", "MAX_LINE_BYTES", "is_compressed", "strip_compression", "open_binary", "read_bytes",
    "read_head", "read_failure", "long_line_error",
    "decode_utf8", "read_text", "check_input", "check_inputs", "check_output_dir", "check_output_file", "temporary_name",
    "write_failed", "unlink_quietly", "open_text_out", "text_out", "replaced_atomically", "BackgroundWriter",
    "OutputSet", "inside_output", "outside_problem", "read_json", "JSON_MAX_BYTES", "JSON_MAX_DEPTH",
]

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}

#: Suffixes of the compressed files read and written (decompressed by suffix).
COMPRESSED_SUFFIXES = tuple(_OPENERS)


def _opener(path: PathLike):  # noqa: ANN202
    return _OPENERS.get(Path(path).suffix.lower(), open)


def is_compressed(path: PathLike) -> bool:
    """Whether ``path`` is read through a decompressor (its suffix is one of :data:`COMPRESSED_SUFFIXES`)."""
    return Path(path).suffix.lower() in _OPENERS


def strip_compression(name: str) -> str:
    """``name`` without a compression suffix: ``p.tsv.gz`` -> ``p.tsv`` (the case of the rest is kept).

    Examples
    --------
    >>> strip_compression("Model_1.TSV.GZ"), strip_compression("IA.txt")
    ('Model_1.TSV', 'IA.txt')
    """
    for ext in COMPRESSED_SUFFIXES:
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return name


def open_binary(path: PathLike) -> IO[bytes]:
    """Open ``path`` for binary reading, decompressing ``.gz``, ``.bz2``, ``.xz``."""
    p = Path(path)
    if p.is_dir():
        raise InputFormatError(p, None, "is a directory, expected a file")
    if not p.exists():
        raise InputFormatError(p, None, "no such file; check the path")
    return _opener(p)(p, "rb")


def read_failure(path: PathLike, exc: BaseException) -> InputFormatError:
    """The error for a file that cannot be read or whose compressed stream is corrupt.

    Parameters
    ----------
    path : str or path-like
        The file.
    exc : BaseException
        What reading it raised (``OSError``, ``EOFError``, ``lzma.LZMAError``).

    Returns
    -------
    InputFormatError
        "cannot read the file: ..." for a missing, directory or forbidden
        file, "cannot decompress the file: ..." otherwise.
    """
    if isinstance(exc, (FileNotFoundError, IsADirectoryError, PermissionError)):
        return InputFormatError(path, None, f"cannot read the file: {exc.strerror}")
    return InputFormatError(path, None, f"cannot decompress the file: {exc}")


#: The longest line a text reader takes, in bytes: a longer one is an error as soon as that much is read, so a
#: file without line ends, or a small file that decompresses to one huge line, costs no more memory than this.
MAX_LINE_BYTES = 1 << 24


def long_line_error(path: PathLike, line: int, limit: int) -> InputFormatError:
    """The error of a line longer than ``limit`` bytes (:data:`MAX_LINE_BYTES`), said as soon as it is read."""
    return InputFormatError(path, line, f"a line longer than {limit:,} bytes without a line end: this is not a "
                                        "text table (a binary file, or a stream that decompresses to one huge line)")


def _read_lines_bounded(fh: IO[bytes], path: PathLike) -> bytes:
    """All of ``fh``, read 8 MiB at a time; a line longer than :data:`MAX_LINE_BYTES` is an error at once."""
    pieces, since, lines = [], 0, 0
    while chunk := fh.read(1 << 23):
        first = chunk.find(b"\n")
        if since + (len(chunk) if first < 0 else first) > MAX_LINE_BYTES:
            raise long_line_error(path, lines + 1, MAX_LINE_BYTES)
        if first >= 0:
            lines += chunk.count(b"\n")
            since = len(chunk) - chunk.rfind(b"\n") - 1
        else:
            since += len(chunk)
        pieces.append(chunk)
    return b"".join(pieces)


def read_bytes(path: PathLike) -> bytes:
    """Return the whole (decompressed) content of ``path``.

    Raises
    ------
    InputFormatError
        If the file is missing, empty, or its compressed stream is corrupt, or
        a line is longer than :data:`MAX_LINE_BYTES` (said as soon as it is read).
    """
    try:
        with open_binary(path) as fh:
            data = _read_lines_bounded(fh, path)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise read_failure(path, exc) from None
    if not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise InputFormatError(path, None, "the file is empty")
    return data


def read_head(path: PathLike, size: int = 1 << 16) -> tuple[bytes, bool]:
    """The first ``size`` (decompressed) bytes of ``path``, and whether that is the whole file.

    A compressed file is decompressed only as far as ``size`` bytes need,
    whatever its length; an empty file gives ``(b"", True)``.

    Raises
    ------
    InputFormatError
        If the file is missing or unreadable, or the start of its
        compressed stream is corrupt (the errors of :func:`read_bytes`).
    """
    try:
        with open_binary(path) as fh:
            head = fh.read(size)
            whole = len(head) < size or not fh.read(1)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise read_failure(path, exc) from None
    return head, whole


def decode_utf8(data: bytes, path: PathLike | None) -> str:
    """Decode ``data`` as strict UTF-8; on failure name the line and the bytes.

    Raises
    ------
    InputFormatError
        With the 1-based line number of the first byte that is not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        text = data[start : end if end >= 0 else len(data)].decode("utf-8", "backslashreplace")
        raise InputFormatError(
            path,
            line,
            f"byte 0x{data[exc.start]:02x} is not valid UTF-8; save the file as UTF-8",
            text,
        ) from None


def read_text(path: PathLike) -> str:
    """Return the decompressed, strictly UTF-8-decoded content of ``path``."""
    return decode_utf8(read_bytes(path), path)


#: Largest JSON document of a results folder that goeval reads (``manifest.json``, ``diagnostics.json``...).
JSON_MAX_BYTES = 32 << 20
#: Deepest nesting of arrays and objects in it (goeval writes fewer than ten levels).
JSON_MAX_DEPTH = 64

# An escaped character (so that \" is not a quote), a quote or a bracket: the tokens that decide nesting.
_JSON_TOKENS = re.compile(rb'\\.|["\[\]{}]', re.S)


def _json_too_deep(data: bytes, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in ``data`` (brackets in strings skipped).

    A linear scan without recursion, so that a document nested 200,000
    levels is refused before the parser would recurse into it.
    """
    depth, in_string = 0, False
    for m in _JSON_TOKENS.finditer(data):
        c = data[m.start()]
        if c == 0x22:  # "
            in_string = not in_string
        elif in_string or c == 0x5C:  # a bracket in a string, or an escape
            continue
        elif c in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _read_bounded(p: Path, max_bytes: int) -> bytes:
    """The bytes of regular file ``p``, refused past ``max_bytes`` (a FIFO or device is refused unopened-for-long)."""
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise read_failure(p, exc) from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFormatError(p, None, "not a regular file")
        if st.st_size > max_bytes:
            raise InputFormatError(p, None, f"{st.st_size:,} bytes, more than the {max_bytes:,} a goeval JSON "
                                            "document may have: not read")
        try:
            data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise read_failure(p, exc) from None
    if len(data) > max_bytes:
        raise InputFormatError(p, None, f"more than the {max_bytes:,} bytes a goeval JSON document may have: not read")
    return data


def read_json(path: PathLike, *, max_bytes: int | None = None, max_depth: int | None = None) -> Any:
    """The JSON document in file ``path``, read within bounds: the one reader of a results folder's JSON.

    Parameters
    ----------
    path : str or path-like
        A regular file (a FIFO or device is refused, not waited on).
    max_bytes : int, optional
        Largest size read (default :data:`JSON_MAX_BYTES`), checked before reading.
    max_depth : int, optional
        Deepest nesting of arrays and objects (default :data:`JSON_MAX_DEPTH`),
        checked before parsing: a document nested 200,000 levels is an error,
        not a ``RecursionError``.

    Raises
    ------
    InputFormatError
        Naming the file (and the line): unreadable, too large, nested too
        deep, not UTF-8 or not JSON.
    """
    p = Path(path)
    max_bytes = JSON_MAX_BYTES if max_bytes is None else max_bytes
    max_depth = JSON_MAX_DEPTH if max_depth is None else max_depth
    data = _read_bounded(p, max_bytes)
    if _json_too_deep(data, max_depth):
        raise InputFormatError(p, None, f"arrays or objects nested deeper than {max_depth} levels: not a document "
                                        "goeval wrote, not read")
    text = decode_utf8(data, p)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(p, exc.lineno, f"not a valid JSON document: {exc}") from None
    except RecursionError:  # pragma: no cover - refused by the depth scan above
        raise InputFormatError(p, None, "nested too deep to read") from None


def check_input(path: PathLike, what: str = "input") -> Path:
    """Check, before any work, that ``path`` is an existing readable file.

    Raises
    ------
    InputFormatError
        Naming the file and the problem (missing, a directory, unreadable).
    """
    p = Path(path)
    if p.is_dir():
        raise InputFormatError(p, None, f"the {what} is a directory, expected a file")
    if not p.exists():
        raise InputFormatError(p, None, f"no such {what} file; check the path")
    if not os.access(p, os.R_OK):
        raise InputFormatError(p, None, f"the {what} file is not readable (permission denied)")
    return p


def _name_problem(name: object) -> str | None:
    """What makes ``name`` other than a plain ``/``-separated relative path, or None."""
    if not isinstance(name, str) or not name:
        return "is not a file name"
    if "\0" in name:
        return "holds a NUL character"
    if name.startswith("/") or os.path.isabs(name) or PureWindowsPath(name).anchor:
        return "is an absolute path"
    parts = name.split("/")
    if ".." in parts:
        return "goes up out of the folder ('..')"
    if any(part in ("", ".") for part in parts):
        return "is not a plain relative path (an empty or '.' component)"
    return None


def outside_problem(directory: PathLike, name: object, *, link_ok: bool = True) -> str | None:
    """Why ``directory/name`` is not a path a run may touch inside ``directory``, or None when it is.

    The rule (:func:`inside_output`): ``name`` is a ``/``-separated relative
    path without ``..``, ``.`` or empty components, and none of the folders
    it passes through inside ``directory`` is a symbolic link (or not a
    folder). Its last component may be a symbolic link only with
    ``link_ok`` (a file written there replaces the link itself, not the
    file it points to). ``directory`` itself is not checked: it is the
    folder the user named. Nothing is created.

    Returns
    -------
    str or None
        A phrase to follow the name (``"is a symbolic link (to '/x')"``).
    """
    problem = _name_problem(name)
    if problem is not None:
        return problem
    parts = str(name).split("/")
    here = Path(directory)
    for i, part in enumerate(parts):
        here = here / part
        last = i == len(parts) - 1
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return None  # nothing below exists: the folders are created as real folders
        except OSError as exc:
            return f"cannot be checked ({exc.strerror or exc})"
        through = "" if last else f"passes through {'/'.join(parts[: i + 1])!r}, which "
        if stat.S_ISLNK(mode) and not (last and link_ok):
            try:
                target = os.readlink(here)
            except OSError:
                target = "?"
            return f"{through}is a symbolic link (to {target!r})"
        if not last and not stat.S_ISDIR(mode):
            return f"{through}is not a folder"
    return None


def inside_output(directory: PathLike, name: str, *, link_ok: bool = True) -> Path:
    """The path of ``name`` inside output folder ``directory``, checked by the one rule of what a run touches.

    A run creates, replaces and removes only paths inside its output folder:
    ``name`` is relative, without ``..``, and no folder it passes through is
    a symbolic link (:func:`outside_problem`). A symbolic link as the last
    component is replaced as a link (``link_ok``, the default); give
    ``link_ok=False`` for a folder the run writes into (``plots``). The
    folder the user named (``directory``), and a single ``--out FILE``, may
    themselves be links.

    Parameters
    ----------
    directory : str or path-like
        The output folder.
    name : str
        A ``/``-separated path relative to it.
    link_ok : bool
        Whether the last component may be a symbolic link.

    Returns
    -------
    Path
        ``directory/name``.

    Raises
    ------
    OutputError
        Naming the folder, the entry and what is wrong with it.

    Examples
    --------
    >>> str(inside_output("out", "plots/fig.png"))
    'out/plots/fig.png'
    >>> inside_output("out", "../victim")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    goeval.errors.OutputError: out/: '../victim' goes up out of the folder ('..'): a run creates, replaces and ...
    """
    problem = outside_problem(directory, name, link_ok=link_ok)
    if problem is not None:
        raise OutputError(f"{directory}/: {name!r} {problem}: a run creates, replaces and removes files only inside "
                          "its output folder, never through a link to elsewhere.")
    return Path(directory).joinpath(*name.split("/"))


def check_inputs(**inputs: Any) -> None:
    """The inputs of an evaluation, before anything is read: every path exists and is readable, and
    exclusive inputs are not both given (``ia`` and ``ia_annotations``).

    Keywords are :func:`evaluate`'s input names (``ontology``, ``truth``,
    ``ia``, ``ia_annotations``, ``targets``, ``terms_of_interest``,
    ``excluded_terms``, ``known``, ``ic_annotations``); a value may be a path, a
    list of paths or an object already in memory (not checked).

    Raises
    ------
    InvalidParameterError
        ``ia`` and ``ia_annotations`` both given.
    InputFormatError, FileNotFoundError, PermissionError
        A path that cannot be read (naming it and what it is for).
    """
    if inputs.get("ia") is not None and inputs.get("ia_annotations") is not None:
        raise InvalidParameterError("Give either 'ia' (--ia) or 'ia_annotations' (--ia-annotations), not both.")
    for name, value in inputs.items():
        several = name in _PATH_LISTS and isinstance(value, (list, tuple))  # else a list holds ids, not files
        values = value if several else [value]
        for v in values:
            if isinstance(v, (str, Path)):
                check_input(v, _INPUT_NAMES.get(name, name))


#: Inputs that may be several files (merged); the other inputs given as a list hold identifiers.
_PATH_LISTS = frozenset({"truth", "ia_annotations", "known", "ic_annotations"})


#: How the error messages name each input.
_INPUT_NAMES = {"ia": "IA", "ia_annotations": "IA annotations", "terms_of_interest": "terms of interest",
                "excluded_terms": "excluded terms", "known": "known terms", "ic_annotations": "IC annotations"}


def check_output_dir(path: PathLike, inside: tuple[str, ...] = ()) -> Path:
    """Check, before any work, that results can be written into directory ``path``.

    The directory may not exist yet (it is created when the results are
    written); its nearest existing ancestor must then be a writable
    directory. An existing ``manifest.json`` must be goeval's (a run
    replaces it). ``inside`` names folders inside ``path`` the run will
    write into (``plots``), each checked by :func:`inside_output`.

    Raises
    ------
    OutputError
        ``path`` exists and is not a directory, or cannot be written, or a
        folder of ``inside`` is a symbolic link.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{p}: the output path exists and is not a directory; choose another --out.")
    probe = p
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise OutputError(f"{p}: cannot create the output directory: {probe} is not a directory.")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"{p}: the output directory is not writable ({probe}: permission denied).")
    if p.is_dir():
        from goeval.io.manifest import check_manifest_slot

        check_manifest_slot(p)
    for name in inside:
        inside_output(p, name, link_ok=False)
    return p


def check_output_file(path: PathLike) -> Path:
    """Check, before any work, that file ``path`` can be written (see :func:`check_output_dir`)."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{p}: the output path is a directory, expected a file name.")
    check_output_dir(p.parent if str(p.parent) else Path("."))
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputError(f"{p}: the output file exists and is not writable.")
    return p


def temporary_name(p: Path) -> Path:
    """A hidden, unique name next to ``p`` for writing it atomically (``.name.<pid>.<hex>.part``)."""
    return p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.part")


def write_failed(p: Path, exc: OSError) -> OutputError:
    """The :class:`OutputError` for a failed write of ``p`` (a full disk is said as such)."""
    if exc.errno == errno.ENOSPC:
        return OutputError(f"{p}: no space left on the device while writing; nothing was written.")
    return OutputError(f"{p}: cannot write: {exc.strerror or exc}.")


def replaced_atomically(path: PathLike) -> Path | None:
    """The regular file an output ``path`` is written to by atomic replacement, or None to write through.

    A regular file (or a new name) is replaced atomically; a symbolic link
    is followed, so the file it points to is replaced and the link kept; a
    device (``/dev/full``, ``/dev/stdout``), a FIFO or a socket is written
    through (renaming a temporary file over it would replace it by a regular
    file: a full device would not fail, a FIFO's reader would wait forever).
    """
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return real  # not there yet (or a dangling link: its target is created)
    return real if stat.S_ISREG(mode) else None


@contextmanager
def open_text_out(path: PathLike, *, commit: bool = True) -> Iterator[IO[str]]:
    """Write text (UTF-8, ``\\n``) to ``path`` atomically, compressing by extension.

    The text goes to a hidden temporary file next to ``path``, renamed over
    ``path`` only when the block ends without an exception; on any error or
    interruption the temporary file is removed and ``path`` is untouched.
    With ``commit=False`` the temporary file is kept and its path is
    available as ``fh.temporary_path`` (see :class:`OutputSet`). A symbolic
    link keeps its link (the file it points to is replaced); a device, FIFO
    or socket is written through, not replaced (:func:`replaced_atomically`).

    Raises
    ------
    OutputError
        The file cannot be written (permission, full disk).
    """
    p = Path(path)
    target = replaced_atomically(p) if commit else p
    if target is None:
        with _written_through(p) as fh:
            yield fh
        return
    with _temporary_file(target, _open_text) as (tmp, fh):
        fh.temporary_path = tmp  # type: ignore[union-attr]
        yield fh
    if commit:
        try:
            os.replace(tmp, target)
        except OSError as exc:
            unlink_quietly(tmp)
            raise write_failed(p, exc) from None


@contextmanager
def text_out(target: PathLike | IO[str]) -> Iterator[IO[str]]:
    """A text file to write to: ``target`` itself when it is an open file (e.g. of an :class:`OutputSet`),
    else ``open_text_out(target)``."""
    if hasattr(target, "write"):
        yield target  # type: ignore[misc]
        return
    with open_text_out(target) as fh:  # type: ignore[arg-type]
        yield fh


@contextmanager
def _written_through(p: Path) -> Iterator[IO[str]]:
    """``p`` (a device, FIFO or socket) opened for text as it is, compressed by its extension."""
    try:
        with _open_text(p, p) as fh:
            yield fh
    except OSError as exc:
        raise write_failed(p, exc) from None


@contextmanager
def _temporary_file(target: Path, opener) -> Iterator[tuple[Path, IO]]:  # noqa: ANN001
    """``(temporary path, file)`` next to ``target``; on any failure the file is removed
    (an ``OSError`` becomes an :class:`OutputError` naming ``target``)."""
    tmp = temporary_name(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with opener(target, tmp) as fh:
            yield tmp, fh
    except OSError as exc:
        unlink_quietly(tmp)
        raise write_failed(target, exc) from None
    except BaseException:
        unlink_quietly(tmp)
        raise


def _open_text(target: Path, tmp: Path) -> IO[str]:
    """``tmp`` opened for UTF-8 text, compressed as ``target``'s extension says.

    gzip uses level 6 (as the ``gzip`` command): level 9 is several times
    slower for a few per cent smaller prediction files.
    """
    opener = _opener(target)
    if opener is gzip.open:
        return gzip.open(tmp, "wt", encoding="utf-8", newline="\n", compresslevel=6)
    return opener(tmp, "wt", encoding="utf-8", newline="\n")


def unlink_quietly(p: Path) -> None:
    """Remove ``p`` if it can be removed; a missing file or any other ``OSError`` is ignored."""
    try:
        os.unlink(p)
    except OSError:
        pass


class BackgroundWriter:
    """Bytes written here are written to ``fh`` by one thread, in order (``fh.write`` may then run while the
    caller works: zlib releases the GIL while it compresses).

    At most ``depth`` pieces wait. An error of ``fh.write`` is raised by
    the next :meth:`write` or by :meth:`close`; :meth:`close` (also on
    leaving a ``with`` block, on any exception) writes what waits and joins
    the thread, so no thread outlives the file.
    """

    def __init__(self, fh: IO[bytes], depth: int = 4) -> None:
        import queue
        import threading

        self.fh = fh
        self.pending: queue.Queue = queue.Queue(maxsize=depth)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._drain, name="goeval-writer", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            item = self.pending.get()
            if item is None:
                return
            if self.error is None:
                try:
                    self.fh.write(item)
                except BaseException as exc:  # noqa: BLE001 - handed to the writing thread
                    self.error = exc

    def write(self, data: bytes | memoryview) -> int:
        if self.error is not None:
            self.close()  # the thread stops, the error is raised
        self.pending.put(bytes(data))
        return len(data)

    def close(self) -> None:
        if self.thread.is_alive():
            self.pending.put(None)
            self.thread.join()
        if self.error is not None:
            raise self.error

    def __enter__(self) -> "BackgroundWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:  # noqa: ANN001
        self.close()


class OutputSet:
    """Files written together: all appear, or none changes.

    Each file is written to a temporary name; :meth:`commit` then replaces
    the targets with signals blocked, so an interrupted run never leaves a
    new ``curves.tsv`` beside an old ``summary.tsv``. Used as a context
    manager, a failure removes every temporary file. Every name is a path
    inside the directory (:func:`inside_output`: no ``..``, no absolute
    path, no linked folder); a symbolic link planted at a name is replaced
    as a link, the file it points to untouched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with OutputSet(d) as out:
    ...     with out.open("a.tsv") as fh:
    ...         _ = fh.write("x\\n")
    >>> sorted(p.name for p in d.iterdir())
    ['a.tsv']
    """

    def __init__(self, directory: PathLike) -> None:
        self.directory = Path(directory)
        self._pending: list[tuple[Path, Path]] = []
        self._made: list[Path] = []  # directories this set created (removed again by discard when empty)

    def _target(self, name: str) -> Path:
        """The path of ``name`` (``/``-separated, inside the directory by :func:`inside_output`), noting the
        directories its writing will create."""
        target = inside_output(self.directory, name)
        missing = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
        self._made.extend(d for d in missing if d not in self._made)
        return target

    @contextmanager
    def open(self, name: str) -> Iterator[IO[str]]:
        """A text file ``name`` in the directory, kept aside until :meth:`commit`."""
        target = self._target(name)
        with open_text_out(target, commit=False) as fh:
            self._pending.append((fh.temporary_path, target))  # type: ignore[union-attr]
            yield fh

    @contextmanager
    def open_binary(self, name: str) -> Iterator[IO[bytes]]:
        """A binary file ``name`` in the directory, kept aside until :meth:`commit`."""
        target = self._target(name)
        with _temporary_file(target, lambda _target, tmp: open(tmp, "wb")) as (tmp, fh):
            self._pending.append((tmp, target))
            yield fh

    @contextmanager
    def open_gzip(self, name: str) -> Iterator[IO[bytes]]:
        """A binary file ``name`` (``.gz``) whose bytes are gzip-compressed (level 1, time 0 in the header) by a
        thread, while the caller formats the next ones (:class:`BackgroundWriter`).

        The files are a benchmark's predictions (the 2014 -> 2019 time split:
        720 MB of prediction lines). Level 1 makes the split's whole output 195 MB
        instead of the 164 MB of level 6 and costs a fifth of its processor time
        (about 4 s instead of 18 s), which the evaluation did not hide: the whole
        time split in 0.75x.
        """
        with self.open_binary(name) as raw:
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=1, mtime=0)
            try:
                with BackgroundWriter(gz) as fh:
                    yield fh
            finally:
                gz.close()

    def commit(self) -> dict[str, Path]:
        """Move every file into place (signals blocked meanwhile); return name -> path."""
        blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        old = signal.pthread_sigmask(signal.SIG_BLOCK, blocked) if hasattr(signal, "pthread_sigmask") else None
        try:
            for tmp, target in self._pending:
                os.replace(tmp, target)
        finally:
            if old is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
        done = {t.name: t for _tmp, t in self._pending}
        self._pending = []
        return done

    def discard(self) -> None:
        """Remove every temporary file not committed, and the directories the set created that are left empty."""
        for tmp, _target in self._pending:
            unlink_quietly(tmp)
        self._pending = []
        for d in sorted(self._made, key=lambda p: len(p.parts), reverse=True):
            try:
                d.rmdir()
            except OSError:
                pass
        self._made = []

    def __enter__(self) -> "OutputSet":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:  # noqa: ANN001
        if exc_type is None:
            self.commit()
        else:
            self.discard()
