"""Reading OBO 1.2 / 1.4 ontologies through obonet.

Only the tags goeval uses are handed to obonet's stanza parser
(``id``, ``name``, ``namespace``, ``is_a``, ``relationship``, ``is_obsolete``,
``alt_id``, ``replaced_by``, ``consider`` and the header); definitions,
synonyms and cross-references are skipped before parsing, which makes
loading the full GO about 2.5 times faster than parsing every line, with
the same result for the tags kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from obonet.read import get_sections

from goeval.errors import InputFormatError
from goeval.io._files import PathLike, read_text

__all__ = ["RawOntology", "read_obo"]

_KEEP_TAGS = (
    "id:",
    "name:",
    "namespace:",
    "is_a:",
    "relationship:",
    "is_obsolete:",
    "alt_id:",
    "replaced_by:",
    "consider:",
)


@dataclass
class RawOntology:
    """Stanzas of an OBO file as parsed by obonet (lists of tag dictionaries).

    Attributes
    ----------
    header : dict
        Header tags (``format-version``, ``data-version``, ``default-namespace``...).
    terms : list of dict
        One dictionary per ``[Term]`` stanza, obsolete ones included.
    typedefs : list of dict
        One dictionary per ``[Typedef]`` stanza.
    source : str
        The path the ontology was read from.
    """

    header: dict[str, Any]
    terms: list[dict[str, Any]]
    typedefs: list[dict[str, Any]] = field(default_factory=list)
    source: str = "<memory>"


_KEEP_RE = re.compile(
    r"^(?:\[[^\n]*|(?:" + "|".join(re.escape(t) for t in _KEEP_TAGS) + r")[^\n]*|[ \t\r]*)$", re.M
)
_NO_COLON_RE = re.compile(r"^[^!\[\s\n][^:\n]*$", re.M)


def _filtered_lines(text: str, path: PathLike | None) -> list[str]:
    """The lines obonet needs (header, stanza lines, kept tags, blanks).

    Raises on the first tag line without a colon, naming its line number.
    """
    bad = _NO_COLON_RE.search(text)
    if bad is not None:
        number = text.count("\n", 0, bad.start()) + 1
        raise InputFormatError(
            path, number, "OBO tag line without a colon (expected 'tag: value'); fix or remove the line",
            bad.group(0),
        )
    first = re.search(r"^\[", text, re.M)
    cut = first.start() if first else len(text)
    header = [ln for ln in text[:cut].splitlines() if not ln.startswith("!")]
    return header + _KEEP_RE.findall(text, cut)


def parse_obo_text(text: str, path: PathLike | None = None) -> RawOntology:
    """Parse OBO text (already decoded) into a :class:`RawOntology`."""
    try:
        typedefs, terms, _instances, header = get_sections(_filtered_lines(text, path))
    except ValueError as exc:  # obonet: a tag line its grammar rejects
        raise InputFormatError(path, None, f"OBO syntax error: {exc}") from None
    for i, term in enumerate(terms):
        if "id" not in term:
            raise InputFormatError(path, None, f"[Term] stanza number {i + 1} has no 'id:' tag")
    return RawOntology(header=header, terms=terms, typedefs=typedefs, source=str(path or "<memory>"))


def read_obo(path: PathLike) -> RawOntology:
    """Read an OBO file (plain, ``.gz``, ``.bz2`` or ``.xz``).

    Parameters
    ----------
    path : str or path-like
        The OBO file.

    Returns
    -------
    RawOntology
        Header, term and typedef stanzas.

    Raises
    ------
    InputFormatError
        Missing or empty file, bytes that are not UTF-8, a tag line without a
        colon (with its line number), a ``[Term]`` without ``id``.
    """
    return parse_obo_text(read_text(path), path)
