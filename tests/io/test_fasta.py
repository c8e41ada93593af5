"""FASTA reader and writer: identifiers, counts, errors with line numbers."""

from __future__ import annotations

import pytest

from conftest import DATA
from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.fasta import read_fasta, write_fasta


def write(tmp_path, text: str, name: str = "s.fasta"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_ids_sequences_counts(tmp_path):
    p = write(tmp_path, ">sp|P12345|NAME_HUMAN some protein\nMKV\nlaY*\n\n>Q1 desc\nAC-D\n>tr|A0A0|X_Y\nXU\n")
    r = read_fasta(p)
    assert r.ids.tolist() == ["P12345", "Q1", "A0A0"]
    assert r.sequences == ["MKVLAY*", "AC-D", "XU"]
    c = r.counts
    assert c["records"] == 3 and c["residues"] == 13 and c["uniprot_ids_reduced"] == 2
    assert c["non_amino_acid"] == {"*": 1, "-": 1} and c["non_amino_acid_total"] == 2
    assert c["lowercase_residues"] == 2 and c["blank_lines"] == 2
    assert read_fasta(p, ids="first-word").ids.tolist()[0] == "sp|P12345|NAME_HUMAN"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("MKV\n>a\nMK\n", 1, "before the first '>' header"),
        (">a\nMK\n>\nMK\n", 3, "empty identifier"),
        (">a\nMK\n>b\n>c\nMK\n", 3, "record without sequence"),
        (">a\nMK\n>b\nMK\n>a\nMV\n", 5, r"duplicate identifier 'a' \(first seen on line 1\)"),
        (">a\nMK\n>b x\n", 3, "record without sequence"),
    ],
)
def test_errors_name_line(tmp_path, text, line, problem):
    p = write(tmp_path, text)
    with pytest.raises(InputFormatError, match=problem) as exc:
        read_fasta(p)
    assert exc.value.line == line and exc.value.path == str(p)


def test_not_fasta_and_bad_options(tmp_path):
    with pytest.raises(InputFormatError, match="empty"):
        read_fasta(write(tmp_path, "\n\n"))
    with pytest.raises(InvalidParameterError, match="'ids' parameter of read_fasta"):
        read_fasta(write(tmp_path, ">a\nM\n"), ids="full")


def test_roundtrip_gz_and_fixture(tmp_path):
    r = read_fasta(DATA / "baselines" / "swissprot_sample.fasta")
    assert len(r) == 35 and r.counts["non_amino_acid_total"] == 0
    out = tmp_path / "x.fasta.gz"
    write_fasta(out, r.ids, r.sequences, width=7)
    again = read_fasta(out)
    assert again.ids.tolist() == r.ids.tolist() and again.sequences == r.sequences


@pytest.mark.parametrize("residues", ["MK1V", "MK;V", "MKV 12"])
def test_a_character_that_is_no_residue_is_an_error_with_its_line(tmp_path, residues):
    """One rule for every reader of a FASTA file: stops and gaps are kept (and counted), anything else is an
    error naming the line (nothing is stripped)."""
    from goeval.errors import InputFormatError
    from goeval.io.fasta import read_fasta

    p = tmp_path / "s.fasta"
    p.write_text(">a\nMKV*\n>b\nMK-V\n")
    assert read_fasta(p).counts["non_amino_acid"] == {"*": 1, "-": 1}
    p.write_text(f">a\nMKV*\n>b\nMK-V\n>c\n{residues}\n")
    with pytest.raises(InputFormatError, match="is not an amino-acid letter") as exc:
        read_fasta(p)
    assert exc.value.line == 6
