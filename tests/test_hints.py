"""goeval.hints: sentences that name the likely cause of a run that matched less than it should."""

from __future__ import annotations

from goeval.hints import id_form_hint, uniprot_accession


def test_uniprot_accession():
    assert uniprot_accession("sp|P12345|ABC_HUMAN") == "P12345"
    assert uniprot_accession("tr|A0A024R161|A0A024R161_HUMAN") == "A0A024R161"
    assert uniprot_accession("P12345") is None and uniprot_accession("xx|P1|N") is None


def test_fasta_header_ids_in_the_predictions():
    hint = id_form_hint(["sp|Q9|Q9_HUMAN", "sp|P2|P2_HUMAN"], ["P1", "P2"])
    assert "(sp|P2|P2_HUMAN) where the truth has plain accessions (P2 is a truth protein)" in hint
    assert "write the accession alone" in hint


def test_fasta_header_ids_in_the_truth():
    hint = id_form_hint(["P2"], ["sp|P1|P1_HUMAN", "sp|P2|P2_HUMAN"], "targets")
    assert hint.startswith("the truth writes protein ids as UniProt FASTA headers (sp|P2|P2_HUMAN) where the targets")


def test_no_hint_when_the_accessions_do_not_match_either():
    assert id_form_hint(["sp|Q9|Q9_HUMAN", "X1"], ["P1", "sp|P2|P2_HUMAN"]) is None
    assert id_form_hint([], ["P1"]) is None
