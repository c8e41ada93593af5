"""Proteins read and proteins only counted: the filter a prediction reader is given.

A CAFA submission covers every protein of the test superset, of which about
1 % have truth. An evaluation needs only the benchmark proteins' lines, so
it gives the reader a :class:`ProteinFilter`: the reader parses the protein
field of every line and the rest of a line only for the proteins kept. The
lines of other proteins are counted (:class:`Unread`: their data lines, the
distinct proteins, the first of them, their free-text lines and their
lines of another shape) and never parsed further, so a malformed term or
score on such a line is not an error (``goeval validate`` checks every
line). A malformed line of a kept protein is an error naming its file and
line, as without a filter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from goeval.io.arrow import arrow_array, numpy_values, string_array
from goeval.io.text import STRIP

__all__ = ["ProteinFilter", "Unread", "EXAMPLES", "FILTERED_TYPES", "filtered_table"]

#: Proteins of the unread lines named in the counts (the first ones, in file order).
EXAMPLES = 10


class ProteinFilter:
    """The proteins whose lines a reader parses.

    Parameters
    ----------
    proteins : iterable of str
        Protein identifiers as the line rule reads them (fields stripped of
        spaces and byte-order marks).

    Examples
    --------
    >>> keep = ProteinFilter(["P1", "P2"])
    >>> "P1" in keep, "P3" in keep, len(keep)
    (True, False, 2)
    """

    def __init__(self, proteins: Iterable[Any]) -> None:
        self.names = frozenset(str(p) for p in proteins)
        self.values = string_array(sorted(self.names))

    @classmethod
    def of(cls, parts: Iterable[Any]) -> "ProteinFilter":
        """The proteins of annotation tables or annotations (anything with ``proteins``): a truth's."""
        return cls(p for part in parts for p in part.proteins.tolist())

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __len__(self) -> int:
        return len(self.names)

    def rows(self, column: pa.ChunkedArray, unread: "Unread") -> np.ndarray:
        """Which rows of a dictionary-encoded protein column are kept (bool); the others' proteins counted in
        ``unread``. An empty name is kept (it is an error the line rule names)."""
        chunks = column.chunks
        if not chunks:
            return np.zeros(0, bool)
        names = pa.concat_arrays([c.dictionary for c in chunks])
        kept = pc.is_in(names, value_set=self.values)
        others = names.filter(pc.invert(kept)).to_pylist()
        if any(not n or n != n.strip(STRIP) for n in others):  # a name to trim, or empty: decided one by one
            stripped = [n.strip(STRIP) for n in names.to_pylist()]
            keep = [s in self.names or not s for s in stripped]
            kept = arrow_array(np.array(keep, dtype=bool))
            others = [s for s, k in zip(stripped, keep) if not k]
        unread.add_proteins(others)
        out, offset = [], 0
        for c in chunks:
            n = len(c.dictionary)
            out.append(numpy_values(pc.take(kept.slice(offset, n), c.indices)))
            offset += n
        return np.concatenate(out)


@dataclass
class Unread:
    """What a reader skipped without parsing: the lines of proteins outside its :class:`ProteinFilter`.

    Attributes
    ----------
    rows : int
        Their lines with three fields (data lines, their term and score not parsed).
    other_lines : int
        Their lines with another number of fields (not free-text lines): not checked.
    proteins : set of str
        The distinct proteins.
    examples : list of str
        The first :data:`EXAMPLES` of them, in file order.
    """

    rows: int = 0
    other_lines: int = 0
    proteins: set[str] = field(default_factory=set)
    examples: list[str] = field(default_factory=list)

    def add_proteins(self, names: list[str]) -> None:
        """Note proteins met on unread lines (in file order)."""
        if len(self.examples) < EXAMPLES:
            for name in names:
                if name not in self.proteins and name not in self.examples:
                    self.examples.append(name)
                    if len(self.examples) == EXAMPLES:
                        break
        self.proteins.update(names)

    def counts(self) -> dict[str, Any]:
        """The reader's count ``unread``: lines, other lines, proteins and the first of them."""
        return {"rows": self.rows, "other_lines": self.other_lines, "proteins": len(self.proteins),
                "examples": list(self.examples)}


    def merge(self, other: "Unread") -> None:
        """Add the counts of a later part of the file."""
        self.rows += other.rows
        self.other_lines += other.other_lines
        self.add_proteins(other.examples)
        self.proteins |= other.proteins


#: The Arrow types a filtered part is read with: the protein dictionary-encoded (it is looked up),
#: the term and score as text (converted for the kept rows only).
FILTERED_TYPES = {"p": pa.dictionary(pa.int32(), pa.string()), "t": pa.string(), "s": pa.string()}


def filtered_table(table: pa.Table, keep: ProteinFilter, unread: Unread) -> pa.Table | None:
    """The kept rows of a part read with :data:`FILTERED_TYPES` (or, when most rows are kept, with the
    unfiltered reader's types), their scores as float64; the others counted in ``unread``. None when a kept
    score is not a number (the line rule decides)."""
    mask = keep.rows(table.column("p"), unread)
    unread.rows += int(mask.size - np.count_nonzero(mask))
    kept = table.filter(arrow_array(mask)) if not mask.all() else table
    scores, terms = kept.column("s"), kept.column("t")
    if not pa.types.is_floating(scores.type):  # read as text (the usual case: few rows kept): converted here
        text = pc.utf8_trim(scores, STRIP)
        if len(kept) and not pc.all(pc.match_substring_regex(text, _NUMBER)).as_py():
            return None
        try:
            scores = pc.cast(text, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
    if not pa.types.is_dictionary(terms.type):
        terms = pc.dictionary_encode(terms)
    if mask.all():
        return pa.table({"p": kept.column("p"), "t": terms, "s": scores})
    proteins = pc.dictionary_encode(pc.cast(kept.column("p"), pa.string()))  # only the kept proteins' names
    return pa.table({"p": proteins, "t": terms, "s": scores})


#: A score by the line rule (:func:`goeval.io.text.is_number`), whole field.
_NUMBER = r"^(?:[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:nan|inf|infinity))$"
