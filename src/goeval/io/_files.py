"""Opening files: compression by extension, strict UTF-8 with line numbers.

This module and its siblings in :mod:`goeval.io` are the only code of goeval
that touches the file system.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path
from typing import IO, Union

from goeval.errors import InputFormatError

PathLike = Union[str, "os.PathLike[str]"]

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _opener(path: PathLike):  # noqa: ANN202
    return _OPENERS.get(Path(path).suffix.lower(), open)


def open_binary(path: PathLike) -> IO[bytes]:
    """Open ``path`` for binary reading, decompressing ``.gz``, ``.bz2``, ``.xz``."""
    p = Path(path)
    if p.is_dir():
        raise InputFormatError(p, None, "is a directory, expected a file")
    if not p.exists():
        raise InputFormatError(p, None, "no such file; check the path")
    return _opener(p)(p, "rb")


def read_bytes(path: PathLike) -> bytes:
    """Return the whole (decompressed) content of ``path``.

    Raises
    ------
    InputFormatError
        If the file is missing, empty, or its compressed stream is corrupt.
    """
    try:
        with open_binary(path) as fh:
            data = fh.read()
    except (OSError, EOFError, lzma.LZMAError) as exc:
        if isinstance(exc, (FileNotFoundError, IsADirectoryError, PermissionError)):
            raise InputFormatError(path, None, f"cannot read the file: {exc.strerror}") from None
        raise InputFormatError(path, None, f"cannot decompress the file: {exc}") from None
    if not data.strip():
        raise InputFormatError(path, None, "the file is empty")
    return data


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


def open_text_out(path: PathLike) -> IO[str]:
    """Open ``path`` for writing text (UTF-8, ``\\n``), compressing by extension."""
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    return _opener(p)(p, "wt", encoding="utf-8", newline="\n")
