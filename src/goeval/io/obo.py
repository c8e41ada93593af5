"""Reading OBO 1.2 / 1.4 ontologies through obonet.

Only the tags goeval uses to build the graph are handed to obonet's stanza
parser (``id``, ``namespace``, ``is_a``, ``relationship``, ``is_obsolete``,
``alt_id``, ``replaced_by``, ``consider`` and the header); term names are
set aside and parsed by obonet when first needed; definitions, synonyms and
cross-references are skipped, which makes loading the full GO about three
times faster than parsing every line, with the same result for the tags
kept.
"""

from __future__ import annotations

import logging
import os
import multiprocessing as mp
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from obonet.read import get_sections

from goeval.errors import InputFormatError
from goeval.io._files import PathLike, read_text

__all__ = ["RawOntology", "read_obo", "start_read_obo", "parse_obo_text"]

# obonet warns "got no header information" through logging; without a handler
# that lands on stderr. goeval reports what it needs itself.
logging.getLogger("obonet").addHandler(logging.NullHandler())

_KEEP_TAGS = (
    "id:",
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
    name_lines: list[str] | None = None

    def names(self) -> dict[str, str]:
        """``id -> name`` of every term, parsed by obonet on first call.

        ``name:`` tags are not needed to build the graph, so they are kept
        aside (``name_lines``) and parsed only when a report asks for names.
        """
        if self.name_lines is None:
            return {t["id"]: t.get("name", "") for t in self.terms}
        _typedefs, terms, _inst, _header = get_sections(iter(self.name_lines))
        return {t["id"]: t.get("name", "") for t in terms if "id" in t}


_KEEP_RE = re.compile(
    r"^(?:\[[^\n]*|(?:" + "|".join(re.escape(t) for t in _KEEP_TAGS) + r")[^\n]*|[ \t\r]*)$", re.M
)
_NAME_RE = re.compile(r"^(?:\[Term\][^\n]*|id:[^\n]*|name:[^\n]*|[ \t\r]*)$", re.M)
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


def _sections(lines: list[str], path: PathLike | None):  # noqa: ANN202
    try:
        return get_sections(iter(lines))
    except ValueError as exc:  # obonet: a tag line its grammar rejects
        raise InputFormatError(path, None, f"OBO syntax error: {exc}") from None


def _child(lines: list[str], path: str, conn) -> None:  # noqa: ANN001 - multiprocessing connection
    try:
        conn.send(("ok", _sections(lines, path)))
    except BaseException as exc:  # noqa: BLE001 - forwarded to the parent
        conn.send(("error", exc))
    finally:
        conn.close()


def _assemble(parts: list[tuple], path: PathLike | None, name_lines: list[str] | None = None) -> RawOntology:
    typedefs = [t for p in parts for t in p[0]]
    terms = [t for p in parts for t in p[1]]
    header = parts[0][3]
    for i, term in enumerate(terms):
        if "id" not in term:
            raise InputFormatError(path, None, f"[Term] stanza number {i + 1} has no 'id:' tag")
    return RawOntology(header=header, terms=terms, typedefs=typedefs, source=str(path or "<memory>"), name_lines=name_lines)


def start_read_obo(path: PathLike, *, workers: int | None = None) -> Callable[[], RawOntology]:
    """Start reading an OBO file; return a function that finishes and returns it.

    The file is decoded and filtered at once. With ``workers >= 2`` on a
    platform with ``fork`` and a large file, the last 60 % of the stanzas
    are parsed by obonet in a forked child process while the caller goes on
    (importing modules, reading predictions) and the first 40 % are parsed
    when the returned function is called, so a cold load of GO takes about
    half the time. Any failure of the child falls back to parsing in-process.
    """
    if workers is None:
        workers = int(os.environ.get("GOEVAL_OBO_WORKERS", "2"))
    text = read_text(path)
    lines = _filtered_lines(text, path)
    first_stanza = re.search(r"^\[", text, re.M)
    names = ["format-version: 1.2", ""] + _NAME_RE.findall(text, first_stanza.start() if first_stanza else len(text))
    del text
    if workers < 2 or len(lines) < 60_000 or "fork" not in mp.get_all_start_methods():
        return lambda: _assemble([_sections(lines, path)], path, names)
    # the caller parses the first 40 %: it also imports modules meanwhile
    cut = int(len(lines) * 0.4)
    while cut < len(lines) and not lines[cut].startswith("["):
        cut += 1
    first, second = lines[:cut], ["format-version: 1.2", ""] + lines[cut:]
    try:
        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(second, str(path), send), daemon=True)
        proc.start()
        send.close()
    except (OSError, ValueError):  # pragma: no cover - no fork possible here
        return lambda: _assemble([_sections(lines, path)], path, names)

    def finish() -> RawOntology:
        part1 = _sections(first, path)
        try:
            status, part2 = recv.recv()
        except (EOFError, OSError):  # pragma: no cover - child died: parse here
            status, part2 = "ok", _sections(second, path)
        finally:
            recv.close()
            proc.join()
        if status != "ok":
            raise part2
        return _assemble([part1, part2], path, names)

    return finish


def parse_obo_text(text: str, path: PathLike | None = None) -> RawOntology:
    """Parse OBO text (already decoded) into a :class:`RawOntology`."""
    first = re.search(r"^\[", text, re.M)
    names = ["format-version: 1.2", ""] + _NAME_RE.findall(text, first.start() if first else len(text))
    return _assemble([_sections(_filtered_lines(text, path), path)], path, names)


def read_obo(path: PathLike, *, workers: int | None = None) -> RawOntology:
    """Read an OBO file (plain, ``.gz``, ``.bz2`` or ``.xz``).

    Parameters
    ----------
    path : str or path-like
        The OBO file.
    workers : int, optional
        Processes used for large files (default 2, or the environment
        variable ``GOEVAL_OBO_WORKERS``; see :func:`start_read_obo`).

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
    return start_read_obo(path, workers=workers)()
