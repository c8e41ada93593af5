"""goeval.hints: sentences that name the likely cause of a run that matched less than it should."""

from __future__ import annotations

from goeval.hints import id_form_hint, id_pattern, newer_ontology_hint, stale_ontology_hint, uniprot_accession


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


def _reading(read: int, unknown: int, examples: list[str]) -> dict:
    return {"rows_read": read, "rows_by_term_status": {"primary": read - unknown, "unknown": unknown},
            "unknown_terms": {"distinct": len(examples), "examples": examples}}


GO_IDS = ["GO:0008150", "GO:0003674", "GO:0005575", "GO:0000001"]


def test_id_pattern_is_the_usual_form_of_the_ontology_ids():
    prefix, pattern = id_pattern(GO_IDS + ["part_of", "HP:0000118"])
    assert prefix == "GO" and pattern.fullmatch("GO:0061630") and not pattern.fullmatch("GO:123")
    assert id_pattern(["root", "a"]) is None


def test_stale_ontology_names_the_inputs_and_the_release():
    diag = {"truth": _reading(7649, 199, ["GO:0002950", "GO:0044877"]),
            "methods": {"blast": _reading(2550, 67, ["GO:0044877", "GO:0061768"]), "ok": _reading(100, 0, [])}}
    hint = stale_ontology_hint(diag, GO_IDS, "/data/go_2014-10-27.obo.gz", "releases/2014-10-27")
    assert hint.startswith("199 lines of the truth and 67 lines of method blast name well-formed GO ids")
    assert "(e.g. GO:0002950, GO:0044877, GO:0061768)" in hint
    assert "go_2014-10-27.obo.gz (data-version releases/2014-10-27) may be older than the annotations" in hint
    assert "no data-version in its header" in stale_ontology_hint(diag, GO_IDS, "go.obo", None)


def test_stale_ontology_stays_silent_on_few_or_malformed_unknown_terms():
    few = {"truth": _reading(7649, 9, ["GO:0002950"])}  # under 10 lines
    rare = {"truth": _reading(100_000, 500, ["GO:0002950"])}  # under 1 % of the lines
    typos = {"truth": _reading(1000, 50, ["GO:12", "go_0002950", "XYZ", "GO:0002950"])}  # not well formed
    for diag in (few, rare, typos, {}):
        assert stale_ontology_hint(diag, GO_IDS, "go.obo", "x") is None
    assert stale_ontology_hint({"truth": _reading(100, 50, ["GO:0002950"])}, ["root"], "go.obo", "x") is None


def _merged(read: int, alt: int, obsolete: int) -> dict:
    return {"rows_read": read, "rows_by_term_status": {"primary": read - alt - obsolete, "alt_id": alt,
                                                       "obsolete": obsolete},
            "alt_id_remapped": {"examples": ["GO:0000975", "GO:0000982"]},
            "obsolete_terms_dropped": {"examples": ["GO:0000988"]}}


def test_newer_ontology_names_the_inputs_the_terms_and_the_release():
    """The CAFA2 MFO slice under GO 2019: alt_id remaps and obsolete terms in the truth and the predictions."""
    diag = {"truth": _merged(643, 30, 2), "methods": {"blast": _merged(27021, 1314, 637), "ok": _merged(100, 0, 0)}}
    hint = newer_ontology_hint(diag, "/data/go_2019-01-29.obo.gz", "releases/2019-01-27")
    assert hint.startswith("32 lines of the truth and 1,951 lines of method blast name terms the ontology has since "
                           "merged or made obsolete (1,344 remapped through an alt_id or replaced_by, 639 obsolete and "
                           "dropped; e.g. obsolete GO:0000988, merged GO:0000975, merged GO:0000982)")
    assert "go_2019-01-29.obo.gz (data-version releases/2019-01-27) may be newer than the annotations" in hint


def test_newer_ontology_stays_silent_on_few_merged_terms():
    """The same slice under GO 2014-10-27 (5 of 27,021 lines), or under 10 lines."""
    for diag in ({"methods": {"blast": _merged(27021, 4, 1)}}, {"truth": _merged(50, 5, 4)}, {}):
        assert newer_ontology_hint(diag, "go.obo", "x") is None
