"""Hints that name the likely cause of a run that matched less than it should.

Pure functions of what a run has already read (identifiers, diagnostics,
the ontology): each returns one sentence for a warning or an error, or None
when it has nothing to suggest. They never change what is evaluated.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

__all__ = ["uniprot_accession", "id_form_hint", "id_pattern", "stale_ontology_hint", "newer_ontology_hint",
           "STALE_MIN_LINES", "STALE_MIN_SHARE"]

#: Lines of one input naming unknown terms before an older ontology is suggested (and :data:`STALE_MIN_SHARE`);
#: lines naming merged or obsolete terms before a newer one is.
STALE_MIN_LINES = 10
#: Share of one input's lines naming unknown terms before an older ontology is suggested (merged or obsolete
#: terms: a newer one).
STALE_MIN_SHARE = 0.01

#: A UniProt FASTA header id ``sp|ACC|NAME`` (or ``tr|...``): the accession is the part between the pipes.
_UNIPROT = re.compile(r"^(?:sp|tr)\|([^|]+)\|")


def uniprot_accession(protein: str) -> str | None:
    """The accession of a UniProt FASTA header id, or None when ``protein`` is not one.

    Examples
    --------
    >>> uniprot_accession("sp|P12345|ABC_HUMAN"), uniprot_accession("P12345")
    ('P12345', None)
    """
    m = _UNIPROT.match(protein)
    return m.group(1) if m else None


def id_form_hint(unmatched: Sequence[str], truth_proteins: Iterable[str], what: str = "predictions") -> str | None:
    """Whether proteins that matched no truth protein would match once written as plain accessions.

    Parameters
    ----------
    unmatched : sequence of str
        Examples of proteins of ``what`` found in no truth line.
    truth_proteins : iterable of str
        The proteins of the truth.
    what : str, default 'predictions'
        What ``unmatched`` come from, for the sentence.

    Returns
    -------
    str or None
        A sentence when the accession between the pipes of ``sp|ACC|NAME``
        ids on one side is a protein id on the other (for one of the
        examples at least), else None.

    Examples
    --------
    >>> id_form_hint(["sp|P1|A_HUMAN"], ["P1", "P2"])
    'the predictions write protein ids as UniProt FASTA headers (sp|P1|A_HUMAN) where the truth has plain accessions (P1 is a truth protein): write the accession alone, the part between the pipes'
    >>> id_form_hint(["P3"], ["P1", "P2"]) is None
    True
    """
    truth = set(truth_proteins)
    for protein in unmatched:
        acc = uniprot_accession(protein)
        if acc is not None and acc in truth:
            return (f"the {what} write protein ids as UniProt FASTA headers ({protein}) where the truth has plain "
                    f"accessions ({acc} is a truth protein): write the accession alone, the part between the pipes")
    headers = {acc: p for p in truth if (acc := uniprot_accession(p)) is not None}
    for protein in unmatched:
        if protein in headers:
            return (f"the truth writes protein ids as UniProt FASTA headers ({headers[protein]}) where the {what} "
                    f"have plain accessions ({protein}): write the truth's accessions alone, the part between the pipes")
    return None


def id_pattern(ids: Iterable[str]) -> tuple[str, re.Pattern[str]] | None:
    """The prefix and the pattern of most of an ontology's term ids (``GO`` and ``GO:[0-9]{7}``), or None.

    Examples
    --------
    >>> prefix, pattern = id_pattern(["GO:0008150", "GO:0003674", "GO:0005575"])
    >>> prefix, bool(pattern.fullmatch("GO:0061630")), bool(pattern.fullmatch("GO:61630"))
    ('GO', True, False)
    """
    shapes = Counter((pre, len(local)) for pre, _, local in (str(t).partition(":") for t in ids) if local.isdigit())
    if not shapes:
        return None
    (prefix, width), _ = shapes.most_common(1)[0]
    return prefix, re.compile(re.escape(prefix) + ":[0-9]{%d}" % width)


def _inputs(diag: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(label, reading counts) of the truth and of every method's predictions."""
    sources = [("truth", diag.get("truth", {}))] + [(f"method {k}", v) for k, v in diag.get("methods", {}).items()]
    return [(label, d) for label, d in sources if isinstance(d, Mapping)]


def _many(d: Mapping[str, Any], lines: int) -> bool:
    """Whether ``lines`` of an input are at least :data:`STALE_MIN_LINES` and :data:`STALE_MIN_SHARE` of its lines."""
    return lines >= max(STALE_MIN_LINES, STALE_MIN_SHARE * int(d.get("rows_read", 0)))


def _label(label: str) -> str:
    return f"{'the ' if label == 'truth' else ''}{label}"


def _many_unknown(diag: Mapping[str, Any]) -> list[tuple[str, int, list[str]]]:
    """(input, unknown lines, examples) of the inputs with at least the minimum lines and share of unknown terms."""
    out = []
    for label, d in _inputs(diag):
        lost = int(d.get("rows_by_term_status", {}).get("unknown", 0))
        if _many(d, lost):
            out.append((label, lost, list(d.get("unknown_terms", {}).get("examples", []))))
    return out


def _stale_inputs(many: list[tuple[str, int, list[str]]], pattern: re.Pattern[str]) -> list[tuple[str, int, list[str]]]:
    """Of ``many``, the inputs whose unknown terms look well formed (at least 80 % of the examples)."""
    out = []
    for label, lost, examples in many:
        good = [t for t in examples if pattern.fullmatch(str(t))]
        if good and len(good) >= 0.8 * len(examples):
            out.append((label, lost, good))
    return out


def stale_ontology_hint(diag: Mapping[str, Any], ids: Iterable[str], source: str,
                        data_version: str | None) -> str | None:
    """Whether many unknown terms of a run look like ids of a newer release of its ontology.

    Parameters
    ----------
    diag : mapping
        The run's diagnostics (``truth`` and ``methods``: ``rows_read``,
        ``rows_by_term_status``, ``unknown_terms``).
    ids : iterable of str
        The ontology's term ids (their usual form: ``GO:`` and 7 digits).
    source, data_version : str
        The ontology's file and its header's ``data-version`` (or None).

    Returns
    -------
    str or None
        A sentence when an input has at least :data:`STALE_MIN_LINES`
        lines and :data:`STALE_MIN_SHARE` of its lines naming terms unknown
        to the ontology, most of them well-formed ids of its prefix
        (unknown, not obsolete: an older ontology has never heard of them).
    """
    many = _many_unknown(diag)  # first: most runs have no such input, and the ids' pattern need not be read
    shape = id_pattern(ids) if many else None
    if shape is None:
        return None
    stale = _stale_inputs(many, shape[1])
    if not stale:
        return None
    counts = " and ".join(f"{lost:,} lines of {_label(label)}" for label, lost, _ in stale)
    examples = list(dict.fromkeys(t for _, _, good in stale for t in good))[:3]
    version = f"data-version {data_version}" if data_version else "no data-version in its header"
    return (f"{counts} name well-formed {shape[0]} ids that the ontology does not know (e.g. {', '.join(examples)}): "
            f"the ontology {PurePath(source).name} ({version}) may be older than the annotations; "
            "give the release they were made with (or a later one)")


def newer_ontology_hint(diag: Mapping[str, Any], source: str, data_version: str | None) -> str | None:
    """Whether many terms of a run's inputs are ones its ontology has since merged (alt_ids) or made obsolete.

    The counterpart of :func:`stale_ontology_hint`: an ontology released
    after the annotations knows their ids, but as alt_ids of merged terms
    (remapped to the primary id: counted, not lost) and as obsolete terms
    (dropped when no single ``replaced_by`` names their successor).

    Parameters
    ----------
    diag : mapping
        The run's diagnostics (``truth`` and ``methods``: ``rows_read``,
        ``rows_by_term_status``, ``alt_id_remapped``, ``obsolete_replaced``,
        ``obsolete_terms_dropped``).
    source, data_version : str
        The ontology's file and its header's ``data-version`` (or None).

    Returns
    -------
    str or None
        A sentence, with examples of the terms, when an input has at least
        :data:`STALE_MIN_LINES` lines and :data:`STALE_MIN_SHARE` of its
        lines naming merged or obsolete terms.

    Examples
    --------
    >>> d = {"truth": {"rows_read": 100, "rows_by_term_status": {"alt_id": 8, "obsolete": 4},
    ...                "alt_id_remapped": {"examples": ["GO:0000975"]}, "obsolete_terms_dropped": {"examples": ["GO:0000988"]}}}
    >>> print(newer_ontology_hint(d, "go.obo", "releases/2019-01-27"))
    12 lines of the truth name terms the ontology has since merged or made obsolete (8 remapped through an alt_id or replaced_by, 4 obsolete and dropped; e.g. obsolete GO:0000988, merged GO:0000975): the ontology go.obo (data-version releases/2019-01-27) may be newer than the annotations; give the release they were made with (or one closer to it)
    """
    found = []
    for label, d in _inputs(diag):
        st = d.get("rows_by_term_status", {})
        remapped, dropped = int(st.get("alt_id", 0)) + int(st.get("replaced_by", 0)), int(st.get("obsolete", 0))
        if _many(d, remapped + dropped):
            found.append((label, remapped, dropped, d))
    if not found:
        return None
    counts = " and ".join(f"{r + o:,} lines of {_label(label)}" for label, r, o, _ in found)
    remapped, dropped = sum(r for _, r, _, _ in found), sum(o for _, _, o, _ in found)
    examples = [f"obsolete {t}" for t in _examples(found, ("obsolete_terms_dropped",))]
    examples += [f"merged {t}" for t in _examples(found, ("alt_id_remapped", "obsolete_replaced"))]
    version = f"data-version {data_version}" if data_version else "no data-version in its header"
    eg = f"; e.g. {', '.join(examples)}" if examples else ""
    return (f"{counts} name terms the ontology has since merged or made obsolete ({remapped:,} remapped through an "
            f"alt_id or replaced_by, {dropped:,} obsolete and dropped{eg}): the ontology "
            f"{PurePath(source).name} ({version}) may be newer than the annotations; give the release they were "
            "made with (or one closer to it)")


def _examples(found: list[tuple[str, int, int, Mapping[str, Any]]], keys: tuple[str, ...], n: int = 3) -> list[str]:
    """Up to ``n`` distinct example terms listed under ``keys`` by the inputs found."""
    terms = (t for *_, d in found for k in keys for t in (d.get(k) or {}).get("examples", []))
    return list(dict.fromkeys(terms))[:n]
