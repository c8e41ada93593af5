"""Finding input files (prediction files in directories)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from goeval.errors import InvalidParameterError
from goeval.io._files import PathLike

__all__ = ["prediction_files"]


def prediction_files(paths: Sequence[PathLike]) -> dict[str, Path]:
    """Method name -> file for files and (recursively walked) directories.

    The method name is the file name without its extensions
    (``blast.tsv.gz`` -> ``blast``); hidden files are skipped.

    Raises
    ------
    InvalidParameterError
        A path that does not exist, an empty directory, or two files giving
        the same method name.
    """
    out: dict[str, Path] = {}
    for p in map(Path, paths):
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith("."))
            if not files:
                raise InvalidParameterError(f"{p}: the prediction directory contains no file.")
        elif p.exists():
            files = [p]
        else:
            raise InvalidParameterError(f"{p}: no such prediction file or directory.")
        for f in files:
            name = f.name
            for ext in (".gz", ".bz2", ".xz"):
                name = name.removesuffix(ext)
            name = name.rsplit(".", 1)[0] if "." in name else name
            if name in out and out[name] != f:
                raise InvalidParameterError(f"Two prediction files give the method name {name!r}: {out[name]} and {f}; rename one.")
            out[name] = f
    return out
