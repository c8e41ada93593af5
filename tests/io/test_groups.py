"""Readers behind groups of proteins: groups files, the proteins of annotation files, a GAF's taxa."""

from __future__ import annotations

import gzip

import pytest

from goeval.errors import InputFormatError
from goeval.io import tsv
from goeval.io.groups import is_groups_header, read_annotated_proteins, read_gaf_taxa, read_group_table


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def pairs(table):
    return list(zip(table.proteins[table.protein_codes].tolist(), table.terms[table.term_codes].tolist()))


@pytest.fixture(params=["fast", "by line"])
def reader_path(request, monkeypatch):
    """Every reader test runs on the vectorized parser and on the line reader (which must agree)."""
    if request.param == "by line":
        monkeypatch.setattr(tsv, "parse_tsv", lambda *a, **k: None)
    return request.param


# ------------------------------------------------------------------ groups files
def test_groups_file_header_repeats_and_several_groups(tmp_path, reader_path):
    p = write(tmp_path, "g.tsv", "protein\tgroup\nP1\thuman\nP2\thuman\nP1\tkinases\nP1\thuman\nP3\tHomo sapiens\n")
    t = read_group_table(p)
    assert pairs(t) == [("P1", "human"), ("P2", "human"), ("P1", "kinases"), ("P1", "human"),
                        ("P3", "Homo sapiens")]
    assert t.counts["header_lines"] == 1 and t.counts["header"] == "protein\tgroup"
    assert t.counts["rows"] == 5 and t.counts["duplicate_rows"] == 1 and not t.counts["space_separated"]


def test_groups_file_without_header_space_separated_compressed(tmp_path, reader_path):
    p = tmp_path / "g.txt.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("\ufeffP1  9606\nP2 10090 \n\nP3\t9606\n")
    t = read_group_table(p)
    assert pairs(t) == [("P1", "9606"), ("P2", "10090"), ("P3", "9606")]  # numbers are names, not IA values
    assert t.counts["header_lines"] == 0 and t.counts["duplicate_rows"] == 0 and t.counts["space_separated"]


@pytest.mark.parametrize("text, line, problem", [
    ("P1\thuman\nP2\nP3\tmouse\n", 2, "expected 'protein<TAB>group' (two columns)"),
    ("P1\thuman\nP2\tmouse\textra\n", 2, "got 3 columns"),
    ("P1 human\nP2 Homo sapiens\n", 2, "a group holding spaces needs a tab-separated file"),
    ("protein\tgroup\nP1\thuman\nP2\tall\n", 3, "the group name 'all' is the name of the whole benchmark"),
    ("P1\thuman\nP2\tmo\x07use\n", 2, "control character '\\x07'"),
])
def test_malformed_groups_lines_name_file_line_and_text(tmp_path, reader_path, text, line, problem):
    p = write(tmp_path, "g.tsv", text)
    with pytest.raises(InputFormatError) as e:
        read_group_table(p)
    assert e.value.path == str(p) and e.value.line == line and problem in e.value.problem
    assert e.value.text == text.split("\n")[line - 1]
    assert f"g.tsv, line {line}:" in str(e.value)


@pytest.mark.parametrize("text, what", [
    ("P1\tGO:0005515\t0.5\n", "a prediction file (3 columns with a score)"),
    ("q1\ts1\t98.5\t120\t1e-30\t200\n", "a hit table"),
    ("AUTHOR\tteam\nMODEL\t1\n", "a prediction file (a CAFA header line)"),
    ("\t".join(["UniProtKB", "P1", "X", "", "GO:1", "R", "IDA", "", "F", "", "", "protein", "taxon:9606", "2019",
                "UniProt", "", ""]) + "\n", "a GAF annotation file"),
])
def test_other_files_given_as_groups_are_named(tmp_path, text, what):
    with pytest.raises(InputFormatError) as e:
        read_group_table(write(tmp_path, "g.tsv", text))
    assert e.value.line == 1 and what in e.value.problem and "not a groups file" in e.value.problem


def test_empty_and_header_only_groups_files(tmp_path):
    with pytest.raises(InputFormatError, match="the file is empty"):
        read_group_table(write(tmp_path, "e.tsv", "\n\n"))
    with pytest.raises(InputFormatError, match="header line but no protein<TAB>group lines") as e:
        read_group_table(write(tmp_path, "h.tsv", "protein\tgroup\n"))
    assert e.value.line == 1


def test_groups_header_rule():
    assert is_groups_header(["EntryID", "species"]) and is_groups_header(["protein", "x"])
    assert not is_groups_header(["P1", "human"]) and not is_groups_header(["P1"])


# ------------------------------------------------------------------ annotation files and GAF taxa
def gaf_line(protein, taxon, evidence="IDA", qualifier=""):
    return "\t".join(["UniProtKB", protein, "X", qualifier, "GO:0005515", "PMID:1", evidence, "", "F", "", "",
                      "protein", taxon, "20190101", "UniProt", "", ""]) + "\n"


def test_gaf_taxa_first_taxon_every_row(tmp_path, reader_path):
    p = write(tmp_path, "a.gaf", "!gaf-version: 2.1\n" + gaf_line("P1", "taxon:9606") +
              gaf_line("P2", "taxon:10090|taxon:9606", "IEA") + gaf_line("P3", "taxon:9606", qualifier="NOT") +
              "! a comment\n" + gaf_line("P1", "taxon:9606"))
    t = read_gaf_taxa(p)
    assert pairs(t) == [("P1", "9606"), ("P2", "10090"), ("P3", "9606"), ("P1", "9606")]
    assert t.counts["rows"] == 4 and t.counts["gaf_comment_lines"] == 2


@pytest.mark.parametrize("taxon", ["9606", "taxon:", "taxon:96x6", "TAXON 9606"])
def test_gaf_bad_taxon_names_its_line(tmp_path, reader_path, taxon):
    p = write(tmp_path, "a.gaf", "!gaf-version: 2.1\n" + gaf_line("P1", "taxon:9606") + gaf_line("P2", taxon))
    with pytest.raises(InputFormatError) as e:
        read_gaf_taxa(p)
    assert e.value.line == 3 and "the taxon (column 13) must be 'taxon:<id>'" in e.value.problem


def test_gaf_empty_taxon_names_its_line(tmp_path, reader_path):
    p = write(tmp_path, "a.gaf", gaf_line("P1", "taxon:9606") + gaf_line("P2", ""))
    with pytest.raises(InputFormatError, match="empty taxon") as e:
        read_gaf_taxa(p)
    assert e.value.line == 2


def test_annotated_proteins_of_tables_and_gaf(tmp_path):
    prots, counts = read_annotated_proteins(write(tmp_path, "t.tsv", "protein\tterm\nP2\tGO:1\nP1\tGO:1\nP2\tGO:2\n"))
    assert prots.tolist() == ["P2", "P1"] and counts["rows"] == 3
    gaf = write(tmp_path, "a.gaf", gaf_line("P1", "taxon:9606", "IEA") + gaf_line("P2", "taxon:9606"))
    prots, counts = read_annotated_proteins(gaf)
    assert prots.tolist() == ["P1", "P2"] and counts["gaf_rows_other_evidence"] == 0  # every evidence code counts
