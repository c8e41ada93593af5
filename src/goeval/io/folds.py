"""Fold files of a cross-validation: ``protein<TAB>fold``.

One protein per line, two tab-separated columns: the protein identifier and
its fold, a non-negative integer (``0 .. k-1`` as written by goeval, any
non-negative integers when read). An optional header line (``protein<TAB>fold``,
recognised by a non-integer second field on the first data line whose first
field is ``protein``), blank lines and ``#`` comment lines are skipped and
counted; a UTF-8 byte-order mark and spaces around fields are stripped.

Errors name file, line and text: a line without two columns, a fold that
is not a non-negative integer, a protein listed twice with two different
folds (the same protein twice with the same fold is counted, not an error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.files import PathLike, read_text, text_out

__all__ = ["FoldTable", "read_folds", "write_folds"]


@dataclass
class FoldTable:
    """Fold of each protein, as read from a fold file.

    Attributes
    ----------
    proteins : ndarray of str, shape (n,)
        Distinct protein identifiers, in file order.
    folds : ndarray of int64, shape (n,)
        Fold of each protein (non-negative).
    source : str
        The file read (or ``"<memory>"``).
    counts : dict
        ``rows`` read, ``header_lines``, ``comment_lines``, ``blank_lines``
        and ``duplicate_rows`` (a protein repeated with the same fold).
    """

    proteins: np.ndarray
    folds: np.ndarray
    source: str = "<memory>"
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.proteins.size)

    def as_dict(self) -> dict[str, int]:
        """Protein -> fold."""
        return dict(zip(self.proteins.tolist(), self.folds.tolist()))


def _fold_value(text: str) -> int | None:
    """The fold as an int, or None when ``text`` is not a non-negative integer."""
    if not text.isascii() or not text.isdigit():
        return None
    return int(text)


def _parse_line(fields: list[str], path: PathLike, number: int, line: str, first: bool) -> tuple[str, int] | None:
    """(protein, fold) of one data line; None for a header line; raises on a bad line."""
    if len(fields) != 2 or not fields[0]:
        raise InputFormatError(path, number, f"expected 2 tab-separated columns (protein, fold), got {len(fields)}"
                               if len(fields) != 2 else "empty protein identifier", line)
    fold = _fold_value(fields[1])
    if fold is None:
        if first and fields[0].lower() == "protein":
            return None
        raise InputFormatError(path, number, "the fold must be a non-negative integer", line)
    return fields[0], fold


def read_folds(path: PathLike) -> FoldTable:
    """Read a fold file (``protein<TAB>fold``, plain or compressed).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    FoldTable

    Raises
    ------
    InputFormatError
        An empty file or a file without data lines, a line without exactly
        two columns, an empty protein, a fold that is not a non-negative
        integer, or a protein given two different folds (the message names
        both lines).
    """
    text = read_text(path).removeprefix("\ufeff")
    counts = {"rows": 0, "header_lines": 0, "comment_lines": 0, "blank_lines": 0, "duplicate_rows": 0}
    seen: dict[str, tuple[int, int]] = {}  # protein -> (fold, line)
    first = True
    lines = text.split("\n")
    if lines[-1] == "":  # the final line end
        lines.pop()
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            counts["blank_lines"] += 1
            continue
        if stripped.startswith("#"):
            counts["comment_lines"] += 1
            continue
        parsed = _parse_line([f.strip() for f in line.split("\t")], path, number, line, first)
        first = False
        if parsed is None:
            counts["header_lines"] += 1
            continue
        counts["rows"] += 1
        protein, fold = parsed
        before = seen.get(protein)
        if before is None:
            seen[protein] = (fold, number)
        elif before[0] == fold:
            counts["duplicate_rows"] += 1
        else:
            raise InputFormatError(path, number, f"protein {protein} is given fold {fold} here and fold "
                                   f"{before[0]} on line {before[1]}; a protein has one fold", line)
    if not seen:
        raise InputFormatError(path, None, "the fold file has no protein<TAB>fold lines")
    proteins = np.asarray(list(seen), dtype=object)
    folds = np.fromiter((v[0] for v in seen.values()), np.int64, len(seen))
    return FoldTable(proteins, folds, str(path), counts)


def write_folds(path: PathLike | IO[str], proteins: Any, folds: Any) -> None:
    """Write ``protein<TAB>fold`` lines under a ``protein<TAB>fold`` header to ``path`` (atomically) or an open text file.

    Raises
    ------
    InvalidParameterError
        ``proteins`` and ``folds`` of different lengths, or a negative fold.
    """
    prot = np.asarray(proteins, dtype=object)
    fv = np.asarray(folds, dtype=np.int64)
    if prot.shape != fv.shape or prot.ndim != 1:
        raise InvalidParameterError(
            f"The 'folds' parameter of write_folds must have one fold per protein ({prot.size}); got shape {fv.shape}.")
    if fv.size and fv.min() < 0:
        raise InvalidParameterError(f"The 'folds' parameter of write_folds must hold folds >= 0; got {int(fv.min())}.")
    with text_out(path) as fh:
        fh.write("protein\tfold\n")
        fh.write("".join(f"{p}\t{f}\n" for p, f in zip(prot.tolist(), fv.tolist())))
