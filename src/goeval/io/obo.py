"""Reading OBO 1.2 / 1.4 ontologies through obonet, line by line strictly.

Every line of the file is checked before anything is parsed: it must be a
blank line, a ``!`` comment, a stanza header (``[Term]``) or a
``tag: value`` line, and the values of the tags goeval builds the graph from
must have their OBO 1.4 form (``is_a: ID``, ``relationship: REL ID``,
``is_obsolete: true|false``, a non-empty ``namespace:``...). Anything else
is an :class:`~goeval.errors.InputFormatError` naming the file, the line and
its text: no line is skipped because it was not understood.

Only the lines goeval uses (``id``, ``namespace``, ``is_a``, ``relationship``,
``is_obsolete``, ``alt_id``, ``replaced_by``, ``consider``, ``subset``, stanza
headers and the header) are handed to obonet's stanza parser; ``name:`` lines are
set aside and parsed when a report asks for names; the other tags (``def``,
``synonym``, ``xref``...) are checked to be well-formed ``tag: value`` lines
and skipped. Loading the full GO that way is about three times faster than
parsing every line, with the same result for the tags kept.

Checking costs one regular-expression pass over the text (lines in their
usual form match at C speed; only unusual lines are looked at one by one),
about 0.15 s on GO 2019 (34 MB), and the filter passes are faster than the
ones they replace, so loading is as fast as before.

A ``[Term]`` stanza repeated with the same content (the same lines, blank
lines, comments and surrounding whitespace aside), as CAFA-evaluator-PK's
example ontology repeats one, is read once and listed in
``diagnostics['duplicate_stanzas_merged']`` (the id and both line numbers);
a repeated id whose stanzas differ is an error naming both lines.

Accepted beyond the common layout, as the OBO 1.4 specification (§3.1:
frames "should by convention be separated by an empty line, but this is not
enforced") and its reference parser (owlapi's ``OBOFormatParser``, which
skips whitespace, comments and blank lines between clauses) allow: stanzas
not separated by blank lines, blank lines inside a stanza, indented lines
(read as the same line unindented), a leading byte-order mark and ``\\r\\n``
line endings. Lines are split on ``\\n`` only (a lone ``\\r`` is an error).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from goeval.errors import DuplicateTermError, InputFormatError
from goeval.io.background import Background, should_fork, start
from goeval.io.files import PathLike, read_text

__all__ = ["RawOntology", "PendingOntology", "read_obo", "start_read_obo", "parse_obo_text"]

# obonet warns "got no header information" through logging; without a handler
# that lands on stderr. goeval reports what it needs itself.
logging.getLogger("obonet").addHandler(logging.NullHandler())

#: Tags whose lines are handed to obonet (the graph is built from them).
#: ``subset`` (e.g. GO's ``gocheck_do_not_annotate``) is kept for :meth:`goeval.ontology.Ontology.subset`.
STRUCTURAL_TAGS = ("id", "namespace", "is_a", "relationship", "is_obsolete", "alt_id", "replaced_by", "consider",
                   "subset")
_ONE_VALUE_TAGS = frozenset({"id", "namespace", "is_a", "alt_id", "replaced_by", "consider", "subset",
                             "default-namespace"})

#: Tags defined by OBO 1.0-1.4 (header and frames); other tags are legal but counted.
OBO_TAGS = frozenset("""
    format-version data-version version date saved-by auto-generated-by import subsetdef synonymtypedef
    default-namespace namespace-id-rule idspace id-mapping default-relationship-id-prefix
    treat-xrefs-as-equivalent treat-xrefs-as-genus-differentia treat-xrefs-as-reverse-genus-differentia
    treat-xrefs-as-relationship treat-xrefs-as-is_a treat-xrefs-as-has-subclass
    relax-unique-identifier-assumption-for-namespace relax-unique-label-assumption-for-namespace
    remark ontology owl-axioms logical-definition-view-relation
    id is_anonymous name namespace alt_id def comment subset synonym exact_synonym narrow_synonym
    broad_synonym related_synonym xref xref_analog xref_unk builtin property_value is_a intersection_of
    union_of equivalent_to disjoint_from relationship created_by creation_date is_obsolete replaced_by
    consider use_term domain range inverse_of transitive_over equivalent_to_chain disjoint_over
    holds_over_chain expand_assertion_to expand_expression_to is_cyclic is_reflexive is_symmetric
    is_asymmetric is_anti_symmetric is_transitive is_functional is_inverse_functional is_metadata_tag
    is_class_level is_metadata instance_of
""".split())
_STANZA_TYPES = ("Term", "Typedef", "Instance")

# One line in its usual form, followed by its newline. A line that does not
# match is looked at by _check_line (and accepted there, rewritten, or rejected).
_ID = r"[^\s!{]\S*"
_EOL = r"(?:[ \t]\{[^{}\n\r]*\})?(?:[ \t]![^\n\r]*)?[ \t]*"
_OTHER = sorted(OBO_TAGS - set(STRUCTURAL_TAGS) - {"default-namespace"}, key=len, reverse=True)
_USUAL_LINE = (
    r"(?:[ \t]*"
    r"|![^\n\r]*"
    r"|\[(?:Term|Typedef|Instance)\][ \t]*(?:![^\n\r]*)?"
    r"|(?:id|namespace|is_a|alt_id|replaced_by|consider|subset|default-namespace):[ \t]*" + _ID + _EOL
    + r"|relationship:[ \t]*" + _ID + r"[ \t]+" + _ID + _EOL
    + r"|is_obsolete:[ \t]*(?:true|false)" + _EOL
    + r"|(?:" + "|".join(re.escape(t) for t in _OTHER) + r"):[^\n\r]*"
    r")\n"
)
_USUAL_RUN = re.compile(r"(?:" + _USUAL_LINE + r")*+")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_VALUE = re.compile(r"[ \t]*(?P<value>.*?)(?:[ \t]+\{[^{}]*\})?(?:[ \t]+!.*)?[ \t]*")
_HEADER_LINE = re.compile(r"\[(?P<name>[A-Za-z][A-Za-z0-9_-]*)\][ \t]*(?:!.*)?")
_STANZA_OR_ID = re.compile(r"\n(\[|id:)")
_KEEP = re.compile(r"\n((?:\[|" + "|".join(t + ":" for t in STRUCTURAL_TAGS) + r")[^\n]*)")
_NAMES = re.compile(r"\n((?:\[|id:|name:)[^\n]*)")
_EXAMPLES = 5


class _LineProblem(Exception):
    """What is wrong with one line (turned into an InputFormatError by the caller)."""


@dataclass(kw_only=True)
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
    name_lines : list of str, optional
        Stanza headers, ``id:`` and ``name:`` lines, parsed by :meth:`names`.
    diagnostics : dict
        What the reader tolerated: ``unknown_tags`` (tag -> lines, for tags
        OBO does not define; such lines are skipped), ``unknown_tag_examples``
        (``"line N: text"``) and ``unknown_stanza_types`` (name -> stanzas,
        read like ``[Instance]``: ignored).
    """

    header: dict[str, Any]
    terms: list[dict[str, Any]]
    typedefs: list[dict[str, Any]] = field(default_factory=list)
    source: str = "<memory>"
    name_lines: list[str] | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def names(self) -> dict[str, str]:
        """``id -> name`` of every term, parsed by obonet on first call.

        ``name:`` tags are not needed to build the graph, so they are kept
        aside (``name_lines``) and parsed only when a report asks for names.
        """
        if self.name_lines is None:
            return {t["id"]: t.get("name", "") for t in self.terms}
        lines = "\n".join(self.name_lines).replace("\n[", "\n\n[").split("\n")
        _typedefs, terms, _inst, _header = _get_sections()(iter(["format-version: 1.2", ""] + lines))
        return {t["id"]: t.get("name", "") for t in terms if "id" in t}


@dataclass
class _Prepared:
    """A checked OBO text cut into what obonet needs."""

    header: list[str]
    lines: list[str]  # stanza headers and structural lines, a blank line before each stanza
    names: list[str]
    diagnostics: dict[str, Any]


# --------------------------------------------------------------- line checks
def _check_line(line: str) -> tuple[str, str | None]:
    """Check one line that is not in its usual form.

    Returns
    -------
    replacement : str
        The line as it must be handed on (unindented; a structural tag as
        ``tag: value`` without qualifiers and comment; an unknown stanza type
        as ``[Instance]``).
    note : str or None
        ``"tag:NAME"`` for a tag OBO does not define, ``"stanza:NAME"`` for an
        unknown stanza type, else None.

    Raises
    ------
    _LineProblem
        The line is neither blank, a comment, a stanza header nor a
        well-formed ``tag: value`` line.
    """
    if "\r" in line:
        raise _LineProblem("carriage return inside a line (lines end with '\\n' or '\\r\\n' only); "
                           "convert the file's line endings")
    s = line.strip(" \t")
    if not s or s[0] == "!":
        return s, None
    if s[0] == "[":
        m = _HEADER_LINE.fullmatch(s)
        if m is None:
            raise _LineProblem("malformed stanza header (expected a name in square brackets, e.g. '[Term]')")
        name = m["name"]
        if name in _STANZA_TYPES:
            return f"[{name}]", None
        return "[Instance]", f"stanza:{name}"
    colon = s.find(":")
    if colon <= 0 or _TAG.fullmatch(s, 0, colon) is None:
        raise _LineProblem("OBO tag line without a colon after the tag (expected 'tag: value'); "
                           "fix or remove the line")
    tag = s[:colon]
    if tag not in OBO_TAGS and s[colon + 1 : colon + 2] not in ("", " ", "\t"):
        raise _LineProblem(f"not a 'tag: value' line: {tag!r} is no OBO tag and the colon is not followed by "
                           "a space (a stray identifier?); fix or remove the line")
    value = _VALUE.fullmatch(s, colon + 1)["value"]  # type: ignore[index] - always matches
    return _check_value(tag, value, s)


def _check_value(tag: str, value: str, line: str) -> tuple[str, str | None]:
    """Check the value of a structural tag; see :func:`_check_line`."""
    if value[:1] in ("!", "{"):  # only a qualifier block or a comment
        value = ""
    if tag in _ONE_VALUE_TAGS:
        if not value:
            raise _LineProblem(f"empty value for '{tag}:' (expected an identifier)")
        if len(value.split()) != 1:
            raise _LineProblem(f"'{tag}:' takes one identifier (optionally followed by a {{...}} "
                               f"qualifier block and a ! comment); got {len(value.split())} words")
        return f"{tag}: {value}", None
    if tag == "relationship":
        parts = value.split()
        if len(parts) != 2:
            need = "needs a relation and a target" if len(parts) < 2 else "takes a relation and one target"
            raise _LineProblem(f"'relationship:' {need} (e.g. 'relationship: part_of GO:0005575'); "
                               f"got {len(parts)} word{'s' if len(parts) != 1 else ''}")
        return f"relationship: {parts[0]} {parts[1]}", None
    if tag == "is_obsolete":
        if value not in ("true", "false"):
            raise _LineProblem("'is_obsolete:' must be 'true' or 'false' (an OBO boolean)")
        return f"is_obsolete: {value}", None
    return line, (None if tag in OBO_TAGS else f"tag:{tag}")


def _check_lines(text: str, path: PathLike | None) -> tuple[str, dict[str, Any]]:
    """Check every line of ``text`` (which starts and ends with a newline).

    Returns the text with unusual lines rewritten (see :func:`_check_line`;
    the number of lines never changes) and the diagnostics of the reader.
    """
    edits: list[tuple[int, int, str]] = []
    unknown_tags: Counter[str] = Counter()
    unknown_stanzas: Counter[str] = Counter()
    examples: list[str] = []
    pos, line_no, counted_to = 1, 1, 1
    while True:
        pos = _USUAL_RUN.match(text, pos).end()  # type: ignore[union-attr] - always matches
        if pos >= len(text):
            break
        end = text.index("\n", pos)
        line_no += text.count("\n", counted_to, pos)
        counted_to = pos
        line = text[pos:end]
        try:
            replacement, note = _check_line(line)
        except _LineProblem as exc:
            raise InputFormatError(path, line_no, str(exc), line) from None
        if replacement != line:
            edits.append((pos, end, replacement))
        if note is not None:
            kind, name = note.split(":", 1)
            (unknown_tags if kind == "tag" else unknown_stanzas)[name] += 1
            if kind == "tag" and len(examples) < _EXAMPLES:
                examples.append(f"line {line_no}: {line.strip()}")
        pos = end + 1
    diagnostics = {
        "unknown_tags": dict(unknown_tags),
        "unknown_tag_examples": examples,
        "unknown_stanza_types": dict(unknown_stanzas),
    }
    return _apply(text, edits), diagnostics


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    if not edits:
        return text
    parts, last = [], 0
    for begin, end, replacement in edits:
        parts += [text[last:begin], replacement]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _check_stanzas(text: str, first: int, path: PathLike | None, original: str) -> None:
    """Every stanza has exactly one ``id:`` line (one C pass; the slow walk only on failure).

    ``original`` is the text before unusual lines were rewritten (same line
    numbers), quoted in the messages.
    """
    kinds = _STANZA_OR_ID.findall(text, first)
    if kinds == ["[", "id:"] * (len(kinds) // 2):
        return
    header_line, has_id = 0, True
    for m in _STANZA_OR_ID.finditer(text, first):
        number = text.count("\n", 0, m.start() + 1)
        if m[1] == "[":
            if not has_id:
                break
            header_line, has_id = number, False
        elif has_id:
            raise InputFormatError(
                path, number, f"a second 'id:' in the stanza that starts on line {header_line} "
                "(one stanza describes one term: add the missing stanza header or remove the line)",
                _nth_line(original, number))
        else:
            has_id = True
    raise InputFormatError(path, header_line, "stanza without an 'id:' tag", _nth_line(original, header_line))


def _nth_line(text: str, number: int) -> str:
    """Line ``number`` (1-based) of a text that starts with an extra newline."""
    start = 0
    for _ in range(number):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


# ------------------------------------------------------------------- parsing
def _prepare(text: str, path: PathLike | None) -> _Prepared:
    """Check ``text`` and cut it into the lines obonet needs.

    Raises
    ------
    InputFormatError
        On the first line that is not blank, a comment, a stanza header or a
        well-formed ``tag: value`` line, or a stanza without exactly one ``id:``.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    original = "".join(("\n", text, "" if text.endswith("\n") else "\n"))
    text, diagnostics = _check_lines(original, path)
    first = text.find("\n[")
    if first < 0:
        first = len(text) - 1
    _check_stanzas(text, first, path, original)
    del original
    header = [ln for ln in text[1 : first + 1].split("\n") if ln and ln[0] != "!" and not ln.isspace()]
    kept = _KEEP.findall(text, first)
    lines = "\n".join(kept).replace("\n[", "\n\n[").split("\n") if kept else []
    return _Prepared(header, lines, _NAMES.findall(text, first), diagnostics)


def _get_sections() -> Callable[..., Any]:
    """obonet's stanza parser, imported when an OBO file is parsed (with networkx, about 0.1 s: a run that
    reads the compiled ontology never needs it)."""
    from obonet.read import get_sections

    return get_sections


def _sections(lines: list[str], path: str | None):  # noqa: ANN202 - obonet's 4-tuple
    try:
        return _get_sections()(iter(lines))
    except ValueError as exc:  # pragma: no cover - every line was checked before
        raise InputFormatError(path, None, f"OBO syntax error: {exc}") from None


def _assemble(parts: list[tuple], path: PathLike | None, prepared: _Prepared,
              text: Callable[[], str]) -> RawOntology:
    typedefs = [t for p in parts for t in p[0]]
    terms = [t for p in parts for t in p[1]]
    diagnostics = dict(prepared.diagnostics)
    if len({t.get("id") for t in terms}) < len(terms):
        terms, diagnostics["duplicate_stanzas_merged"] = _merge_duplicates(terms, text(), path)
    return RawOntology(header=parts[0][3], terms=terms, typedefs=typedefs, source=str(path or "<memory>"),
                       name_lines=prepared.names, diagnostics=diagnostics)


def _term_stanzas(text: str, ids: set[str]) -> dict[str, list[tuple[int, list[str]]]]:
    """The ``[Term]`` stanzas of ``ids`` in ``text``: per id, (line of its header, its lines without
    surrounding whitespace, blank lines and comments) in file order."""
    out: dict[str, list[tuple[int, list[str]]]] = {}
    kind, start, body = "", 0, []

    def close() -> None:
        tid = next((ln.split(":", 1)[1].split("!")[0].split()[0] for ln in body if ln.startswith("id:")), None)
        if kind == "Term" and tid in ids:
            out.setdefault(tid, []).append((start, body))

    for no, line in enumerate(text.lstrip("\ufeff").split("\n"), 1):
        s = line.strip()
        if s.startswith("["):
            close()
            kind, start, body = s[1:].split("]")[0], no, []
        elif s and not s.startswith("!"):
            body.append(s)
    close()
    return out


def _merge_duplicates(terms: list[dict[str, Any]], text: str,
                      path: PathLike | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``terms`` with each repeated identical ``[Term]`` stanza kept once (the first), and the merges.

    Raises
    ------
    InputFormatError
        A repeated id whose stanzas differ, naming the line of each.
    """
    counts = Counter(t.get("id") for t in terms)
    repeated = {tid for tid, n in counts.items() if n > 1}
    merged = []
    for tid, stanzas in _term_stanzas(text, repeated).items():
        (first, body), rest = stanzas[0], stanzas[1:]
        for line, other in rest:
            if other != body:
                raise DuplicateTermError(path, line, f"term {tid} is defined by more than one [Term] stanza, with "
                                         f"different content (lines {first} and {line}); keep one of them",
                                         _nth_line("\n" + text, line))
            merged.append({"id": tid, "lines": [first, line]})
    seen: set[str] = set()
    kept = []
    for t in terms:
        if t.get("id") not in seen:
            kept.append(t)
        seen.add(t.get("id"))
    return kept, merged


class PendingOntology:
    """An OBO read under way: call it for the :class:`RawOntology`.

    Returned by :func:`start_read_obo`. The first call finishes the parse and
    reaps the background child (also when the parse fails); later calls
    return the same object. ``cancel()`` stops the background parse (if any)
    and releases it: call it when the result is no longer wanted (it is
    idempotent; a call after a cancel parses everything in this process).
    """

    def __init__(self, finish: Callable[[], RawOntology], background: Background | None) -> None:
        self._finish = finish
        self._background = background
        self._value: RawOntology | None = None

    def __call__(self) -> RawOntology:
        if self._value is None:
            try:
                self._value = self._finish()
                self._finish = None  # let go of the checked lines (tens of MB for GO)
            finally:
                self.cancel()
        return self._value

    def cancel(self) -> None:
        """Stop and reap the background parse; does nothing when there is none."""
        if self._background is not None:
            self._background.cancel()
            self._background = None

    @property
    def forked(self) -> bool:
        """Whether part of the parse runs in a forked child process."""
        return self._background is not None and self._background.forked


def _split(lines: list[str], share: float = 0.4) -> tuple[list[str], list[str]]:
    """Cut the stanza lines at a stanza header near ``share`` of them."""
    cut = int(len(lines) * share)
    while cut < len(lines) and not lines[cut].startswith("["):
        cut += 1
    return lines[:cut], lines[cut:]


def start_read_obo(path: PathLike) -> PendingOntology:
    """Start reading an OBO file; return a :class:`PendingOntology` that finishes it.

    The file is decoded and checked at once (errors are raised here). The
    stanzas are then parsed by obonet in two parts: the last 60 % in a
    forked child process (see :mod:`goeval.io.background`; by default only
    for files of more than 60,000 kept lines, ``GOEVAL_FORK=always`` forces
    it, ``never`` turns it off) while the caller goes on (importing modules,
    reading predictions), the first 40 % when the returned object is called
    (see ``docs/benchmarks.md`` for the gain in ``goeval evaluate``).

    Raises
    ------
    InputFormatError
        As :func:`read_obo`, before anything is started.
    """
    text = read_text(path)
    prepared = _prepare(text, path)
    del text
    head, tail = _split(prepared.lines)
    fork = should_fork(large=len(prepared.lines) >= 60_000)
    _get_sections()  # imported before the fork: both parsers have it
    background = start(_sections, ["format-version: 1.2", ""] + tail, str(path), name="ontology parser", fork=fork)

    def finish() -> RawOntology:
        part1 = _sections(prepared.header + [""] + head, str(path))
        return _assemble([part1, background.result()], path, prepared, lambda: read_text(path))

    return PendingOntology(finish, background)


def parse_obo_text(text: str, path: PathLike | None = None) -> RawOntology:
    """Parse OBO text (already decoded) into a :class:`RawOntology`.

    Raises
    ------
    InputFormatError
        As :func:`read_obo`.
    """
    prepared = _prepare(text, path)
    where = None if path is None else str(path)
    return _assemble([_sections(prepared.header + [""] + prepared.lines, where)], path, prepared, lambda: text)


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
        Missing or empty file, bytes that are not UTF-8, and, with the line
        number and text: a line that is not blank, a ``!`` comment, a stanza
        header or a ``tag: value`` line; an empty or multi-word value of
        ``id``, ``namespace``, ``is_a``, ``alt_id``, ``replaced_by`` or
        ``consider``; a ``relationship`` without exactly a relation and a
        target; ``is_obsolete`` other than ``true``/``false``; a stanza
        without ``id`` (its header line) or with a second one; a ``[Term]``
        id repeated with other content (the second stanza's line, naming
        the first's).

    Examples
    --------
    >>> import goeval
    >>> raw = read_obo(goeval.example_path("ontology"))
    >>> raw.header["format-version"], len(raw.terms) > 1000
    ('1.2', True)
    """
    return start_read_obo(path)()
