"""Reader and writer of protein FASTA files.

Identifiers are the first word after ``>``; UniProt headers
``>sp|P12345|NAME_HUMAN ...`` / ``>tr|...`` are reduced to the accession
(``P12345``), the identifier used by GO annotation files and by goeval's hit
tables, and each such reduction is counted. A sequence line holds amino-acid
letters, stops (``*``) and gaps (``-``) only: any other character (a digit,
a ``;``) is an error, as every error, naming file, line and text; every
command that reads a FASTA file (``align``, ``benchmark timesplit``,
``validate``) follows this one rule.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from goeval.errors import InputFormatError, InvalidParameterError, check_choice
from goeval.io.files import PathLike, open_text_out, read_text

__all__ = ["FastaRecords", "read_fasta", "write_fasta", "AMINO_ACIDS"]

#: Letters accepted as residues: the 20 standard amino acids and the IUPAC
#: codes B, J, O (pyrrolysine), U (selenocysteine), X, Z; upper or lower case.
AMINO_ACIDS = frozenset("ACDEFGHIKLMNPQRSTVWYBJOUXZ")

_UNIPROT = re.compile(r"^(?:sp|tr)\|([^|]+)\|")
#: A character of a sequence line that is neither an amino-acid letter nor a stop (``*``) or gap (``-``).
_NOT_RESIDUE = re.compile("[^" + "".join(sorted(AMINO_ACIDS)) + "".join(sorted(AMINO_ACIDS)).lower() + r"*\-\s]")


@dataclass
class FastaRecords:
    """Sequences read from a FASTA file.

    Attributes
    ----------
    ids : ndarray of str, shape (n,)
        Identifiers in file order (distinct).
    sequences : list of str, length n
        Residues in upper case, line breaks and blanks removed; stops (``*``)
        and gaps (``-``) are kept as they are (and counted).
    source : str
    counts : dict
        ``records``, ``residues``, ``uniprot_ids_reduced`` (``sp|ACC|NAME`` ->
        ``ACC``), ``non_amino_acid`` (stops and gaps, count per character),
        ``lowercase_residues``, ``blank_lines``.
    """

    ids: np.ndarray
    sequences: list[str]
    source: str = "<memory>"
    counts: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.sequences)


def _header_id(line: str, ids: str, path: PathLike, number: int) -> tuple[str, bool]:
    words = line[1:].split()
    if not words:
        raise InputFormatError(path, number, "empty identifier after '>'", line)
    ident = words[0]
    if ids == "accession":
        m = _UNIPROT.match(ident)
        if m and m.group(1):
            return m.group(1), True
    return ident, False


def read_fasta(path: PathLike, *, ids: str = "accession") -> FastaRecords:
    """Read a protein FASTA file (plain, ``.gz``, ``.bz2``, ``.xz``).

    Parameters
    ----------
    path : str or path-like
    ids : {'accession', 'first-word'}
        ``accession`` (default) reduces UniProt ``db|ACC|NAME`` identifiers to
        ``ACC``; ``first-word`` keeps the first word after ``>`` as it is.

    Returns
    -------
    FastaRecords

    Raises
    ------
    InputFormatError
        Empty file or not UTF-8; sequence text before the first header; a
        header without identifier; a record without residues; an identifier
        seen twice (naming the line of its first occurrence); a character of
        a sequence line that is neither an amino-acid letter nor a stop
        (``*``) or gap (``-``): the file is no protein FASTA.
    """
    check_choice(ids, "ids", "read_fasta", ("accession", "first-word"))
    text = read_text(path)
    if text.startswith("\ufeff"):
        text = text[1:]
    out_ids: list[str] = []
    seqs: list[str] = []
    first_line: dict[str, int] = {}
    parts: list[str] = []
    counts: dict[str, Any] = {"blank_lines": 0, "uniprot_ids_reduced": 0}
    header_line = 0

    def close() -> None:
        if not out_ids:
            return
        seq = "".join(parts)
        if not seq:
            raise InputFormatError(path, header_line, "a record without sequence", f">{out_ids[-1]}")
        seqs.append(seq)
        parts.clear()

    for k, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            counts["blank_lines"] += 1
            continue
        if line.startswith(">"):
            close()
            ident, reduced = _header_id(line, ids, path, k)
            if ident in first_line:
                raise InputFormatError(path, k, f"duplicate identifier {ident!r} (first seen on line {first_line[ident]})", line)
            first_line[ident] = k
            counts["uniprot_ids_reduced"] += reduced
            out_ids.append(ident)
            header_line = k
        elif line.startswith(";"):
            counts["comment_lines"] = counts.get("comment_lines", 0) + 1
        elif not out_ids:
            raise InputFormatError(path, k, "sequence text before the first '>' header line", line)
        else:
            bad = _NOT_RESIDUE.search(line)
            if bad:
                raise InputFormatError(path, k, f"{bad.group()!r} is not an amino-acid letter (nor * or -): "
                                                "not a protein sequence", line)
            parts.append("".join(line.split()))
    close()
    if not out_ids:
        raise InputFormatError(path, None, "no '>' header line: not a FASTA file")
    _count_residues(seqs, counts)
    return FastaRecords(np.asarray(out_ids, dtype=object), [s.upper() for s in seqs], str(path), counts)


def _count_residues(seqs: list[str], counts: dict[str, Any]) -> None:
    """Residue totals, lower-case letters and stops and gaps (by character)."""
    chars: Counter[str] = Counter()
    for s in seqs:
        chars.update(s)
    counts["records"] = len(seqs)
    counts["residues"] = int(sum(chars.values()))
    counts["lowercase_residues"] = int(sum(n for c, n in chars.items() if c.islower()))
    bad = {c: n for c, n in sorted(chars.items()) if c.upper() not in AMINO_ACIDS}
    counts["non_amino_acid"] = bad
    counts["non_amino_acid_total"] = int(sum(bad.values()))


def write_fasta(path: PathLike, ids: Any, sequences: Any, *, width: int = 60) -> None:
    """Write records as FASTA (``>id`` lines, residues wrapped at ``width``)."""
    if width < 1:
        raise InvalidParameterError(f"The 'width' parameter of write_fasta must be >= 1; got {width!r}.")
    with open_text_out(path) as fh:
        for ident, seq in zip(ids, sequences):
            fh.write(f">{ident}\n")
            fh.write("\n".join(seq[i : i + width] for i in range(0, len(seq), width)))
            fh.write("\n")
