"""Hints that name the likely cause of a run that matched less than it should.

Pure functions of what a run has already read (identifiers, diagnostics,
the ontology): each returns one sentence for a warning or an error, or None
when it has nothing to suggest. They never change what is evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["uniprot_accession", "id_form_hint"]

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
