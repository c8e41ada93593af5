"""The rule for names goeval writes into tables: methods, namespaces, measures, kinds.

A name is one cell of a tab-separated table and one line of text on a
console, in a report or in a figure, so it may hold any character but a
control character: no tab, line feed, carriage return or other C0/C1
control (``U+0000``-``U+001F``, ``U+007F``-``U+009F``), no Unicode line or
paragraph separator (``U+2028``, ``U+2029``; Python splits lines there) and
no bidirectional embedding, override or isolate (``U+202A``-``U+202E``,
``U+2066``-``U+2069``: they reorder the text shown after them). An empty
name is refused too.

Names come from file names (a prediction file's method), from
``protein_stats.npz`` (its ``meta``) and from the text cells of results
tables (``summary.tsv``...); each entry point calls :func:`check_name` (or,
for a whole table, :func:`check_table_text`), so a name that reaches a
writer holds none of these characters. Everything else is escaped by the
writer of each format (HTML, Markdown, matplotlib text).

Errors show a bad name the way ``repr`` does (``'a\\nb'``), so the message
itself stays one line.

A namespace is looked up by name on a result through one rule,
:func:`held_namespace`: its label in any case, or a GO namespace's OBO name
(:data:`GO_LABELS`); any other name is an error listing the namespaces the
result holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.files import PathLike

__all__ = ["check_name", "check_table_text", "bad_character", "shown", "GO_LABELS", "held_namespace"]

#: The characters a name may not hold, as the body of a regular-expression class.
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_BAD = re.compile(f"[{_CONTROLS}]")
#: In a table's text: the same but the tab and the line feed, which separate cells and lines (a carriage
#: return only before a line feed: a lone one would end a row where pandas reads it).
_BAD_IN_TABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)")
#: The bytes a table's UTF-8 text may hold without a closer look: every byte but the ASCII controls
#: other than tab, line feed and carriage return (deleted by ``bytes.translate``, leaving the suspects).
_PLAIN_BYTES = bytes(b for b in range(256) if not (b < 32 or b == 127) or b in (9, 10, 13))


def bad_character(text: str) -> str | None:
    """The first character of ``text`` that a name may not hold, or None.

    Examples
    --------
    >>> bad_character("teamA/model 1"), bad_character("A\\ttouch x")
    (None, '\\t')
    """
    m = _BAD.search(text)
    return None if m is None else m.group()


def shown(text: str) -> str:
    """``text`` as it can be printed on one line: itself, or escaped as ``repr`` does when it holds a control
    character (without the quotes).

    Examples
    --------
    >>> shown("plain"), shown("a\\nb")
    ('plain', 'a\\\\nb')
    """
    return text if bad_character(text) is None else repr(text)[1:-1]


def check_name(name: object, what: str, source: PathLike | None = None, line: int | None = None) -> str:
    """``name`` if it is a name goeval may write into a table, else an error naming ``source`` and the name.

    Parameters
    ----------
    name : object
        The name read (anything but a non-empty string is refused).
    what : str
        What it names, for the message: ``method``, ``namespace``, ``measure``...
    source : str or path-like, optional
        The file it comes from (shown escaped when its own path holds a control character).
    line : int, optional
        The line of ``source`` it was read from.

    Returns
    -------
    str
        ``name``.

    Raises
    ------
    InputFormatError
        ``name`` is not a string, is empty, or holds a control character (see the module).
    """
    where = None if source is None else shown(str(source))
    if not isinstance(name, str) or not name:
        raise InputFormatError(where, line, f"a {what} name must be a non-empty text; got {name!r}")
    bad = bad_character(name)
    if bad is not None:
        raise InputFormatError(where, line, f"the {what} name holds the control character {bad!r} (a {what} name "
                                            "is one table cell and one line: no tab, line end or other control "
                                            "character)", name)
    return name


def check_table_text(data: bytes, text: str, source: PathLike) -> None:
    """Refuse a results table whose text holds a control character other than the tab and the line end.

    ``data`` is the file's bytes and ``text`` the same decoded; the common
    case (ASCII without suspects) is decided on the bytes at C speed.

    Raises
    ------
    InputFormatError
        Naming the file, the line and the character (a carriage return is allowed only before a line feed).
    """
    suspect = bool(data.translate(None, _PLAIN_BYTES)) or b"\r" in data or not data.isascii()
    m = _BAD_IN_TABLE.search(text) if suspect else None
    if m is None:
        return
    line = text.count("\n", 0, m.start()) + 1
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.start())
    raise InputFormatError(shown(str(source)), line, f"a cell holds the control character {m.group()!r} (results "
                           "tables hold names and numbers: no control character but the tab between cells and the "
                           "line end)", text[start : end if end >= 0 else len(text)])


#: Short labels of the three GO namespaces (CAFA convention).
GO_LABELS = {
    "biological_process": "BPO",
    "molecular_function": "MFO",
    "cellular_component": "CCO",
}


def held_namespace(name: str, held: Sequence[str], func: str) -> str:
    """The namespace label of ``held`` (a result's namespaces) that ``name`` names.

    ``name`` is a label as held, in any case, or a GO namespace's OBO name
    for its label (``molecular_function`` for ``MFO``) and the reverse.
    Nothing else is guessed: ``HPO`` does not name ``human_phenotype``.

    Raises
    ------
    InvalidParameterError
        For any other name; the message lists the namespaces held.

    Examples
    --------
    >>> held_namespace("mfo", ["BPO", "MFO"], "plot"), held_namespace("molecular_function", ["MFO"], "plot")
    ('MFO', 'MFO')
    >>> held_namespace("HPO", ["human_phenotype"], "plot")
    Traceback (most recent call last):
    ...
    goeval.errors.InvalidParameterError: The 'namespace' parameter of plot must be one of this result's namespaces ['human_phenotype']; got 'HPO'.
    """
    key = str(name).lower()
    aliases = {**GO_LABELS, **{v.lower(): k for k, v in GO_LABELS.items()}}
    for label in held:
        if key == label.lower() or aliases.get(key, "").lower() == label.lower():
            return label
    raise InvalidParameterError(f"The 'namespace' parameter of {func} must be one of this result's namespaces "
                                f"{list(held)}; got {name!r}.")
