"""Finding input files (prediction files in directories).

A directory of predictions often holds more than predictions: a README, a
log, a notebook's ``.ipynb_checkpoints``, a ``.git`` folder. Walking a
directory therefore keeps only what looks like a prediction file and
returns every other file with the reason it was skipped, so the caller can
report them; it never fails because of them.

Rules (for files found in a directory; a file named on its own is always
taken):

* hidden files and everything under a hidden directory (name starting with
  ``.``) are skipped;
* without ``pattern``: a file is a prediction file when, after removing a
  compression suffix (``.gz``, ``.bz2``, ``.xz``), it has no extension, an
  extension of a prediction kind (:func:`goeval.io.kinds.prediction_extensions`) or a numeric one (CAFA names
  such as ``model_1_9606`` or ``model_1.9606``); names starting with
  README, LICENSE, CHANGELOG or NOTES are skipped;
* with ``pattern`` (a glob such as ``*.tsv.gz``): exactly the files whose
  name, or path relative to the directory, matches it.

The method name is the path relative to the directory without extensions,
``/``-separated: ``blast.tsv.gz`` -> ``blast``, ``teamA/model1.txt`` ->
``teamA/model1``, so one stem in two subfolders gives two methods (a
numeric extension is kept: ``model_1.9606``). A method name follows
:mod:`goeval.io.names` (no tab, line end or other control character): a file
whose name gives another is an error naming it.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from goeval.errors import InvalidParameterError
from goeval.io.files import PathLike, strip_compression
from goeval.io.kinds import prediction_extensions
from goeval.io.names import check_name

__all__ = ["PredictionFiles", "find_prediction_files", "prediction_files", "name_stem"]

_NOT_PREDICTIONS = ("readme", "license", "licence", "changelog", "notes")


@dataclass(frozen=True)
class PredictionFiles:
    """Prediction files found, and the files passed over.

    Attributes
    ----------
    files : dict of str to Path
        Method name -> file, in sorted order within each argument.
    skipped : list of (Path, str)
        Each skipped file (or hidden directory, once) and why.
    """

    files: dict[str, Path] = field(default_factory=dict)
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def name_stem(name: str) -> str:
    """A file name without its compression suffix and its extension (a numeric extension is kept).

    Examples
    --------
    >>> name_stem("blast.tsv.gz"), name_stem("model_1.9606"), name_stem("exp_human_2019-01-29.tsv.gz")
    ('blast', 'model_1.9606', 'exp_human_2019-01-29')
    """
    stem = strip_compression(name)
    base, ext = os.path.splitext(stem)
    return base if ext and not ext[1:].isdigit() else stem  # model_1.9606 keeps its taxon


def _method_name(rel: PurePosixPath) -> str:
    """Relative path without extensions: ``a/b.tsv.gz`` -> ``a/b``."""
    stem = name_stem(rel.name)
    return str(rel.parent / stem) if str(rel.parent) != "." else stem


def _why_not(rel: PurePosixPath, pattern: str | None) -> str | None:
    """Why a file found in a directory is not a prediction file (None: it is)."""
    if pattern is not None:
        ok = fnmatch.fnmatch(rel.name, pattern) or fnmatch.fnmatch(str(rel), pattern)
        return None if ok else f"does not match --pattern {pattern!r}"
    name = strip_compression(rel.name)
    if name.lower().startswith(_NOT_PREDICTIONS):
        return "not a prediction file (README, LICENSE, ...)"
    ext, known = os.path.splitext(name)[1].lower(), prediction_extensions()
    if ext in ("", *known) or ext[1:].isdigit():
        return None
    return f"extension {ext!r} is not one of a prediction file ({', '.join(known)}, none)"


def _walk(root: Path, pattern: str | None, out: PredictionFiles) -> list[tuple[str, Path]]:
    """(method name, file) of the prediction files under ``root``; skipped ones go to ``out``."""
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for d in sorted(dirnames):
            if d.startswith("."):
                out.skipped.append((here / d, "hidden directory"))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            path = here / f
            rel = PurePosixPath(path.relative_to(root).as_posix())
            reason = "hidden file" if f.startswith(".") else _why_not(rel, pattern)
            if reason is None and not path.is_file():
                reason = "not a regular file"
            if reason is None:
                found.append((_method_name(rel), path))
            else:
                out.skipped.append((path, reason))
    return found


def find_prediction_files(paths: Sequence[PathLike], pattern: str | None = None) -> PredictionFiles:
    """Prediction files given as files or (recursively walked) directories.

    Parameters
    ----------
    paths : sequence of str or path-like
        Files (always taken) and directories (walked; see the module's rules).
    pattern : str, optional
        A glob (``*.tsv.gz``): in directories, take exactly the matching files.

    Returns
    -------
    PredictionFiles
        Method name -> file, and the skipped files with their reasons.

    Raises
    ------
    InvalidParameterError
        A path that does not exist, a directory without any prediction file,
        or two files giving the same method name.
    InputFormatError
        A file whose name gives a method name with a control character (a tab, a line end...).
    """
    out = PredictionFiles()
    for p in map(Path, paths):
        if p.is_dir():
            n_skipped = len(out.skipped)
            found = _walk(p, pattern, out)
            if not found:
                raise InvalidParameterError(
                    f"{p}: the prediction directory contains no prediction file "
                    f"({len(out.skipped) - n_skipped} skipped; use --pattern to choose the files).")
        elif p.exists():
            found = [(_method_name(PurePosixPath(p.name)), p)]
        else:
            raise InvalidParameterError(f"{p}: no such prediction file or directory.")
        for name, f in found:
            check_name(name, "method", f)
            if name in out.files and out.files[name] != f:
                raise InvalidParameterError(
                    f"Two prediction files give the method name {name!r}: {out.files[name]} and {f}; rename one.")
            out.files[name] = f
    return out


def prediction_files(paths: Sequence[PathLike], pattern: str | None = None) -> dict[str, Path]:
    """Method name -> file for files and (recursively walked) directories.

    The skipped files are dropped here; use :func:`find_prediction_files` to
    report them.
    """
    return find_prediction_files(paths, pattern).files
