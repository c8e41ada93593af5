"""What the console says a number means, and hints that name the real cause of a failed run."""

from __future__ import annotations

from pathlib import Path

from goeval.cli import main

HERE = Path(__file__).resolve().parent.parent
EVAL = HERE / "data" / "evaluation"


def _evaluate(tmp_path: Path, *args: str, truth: Path = EVAL / "truth.tsv", preds: Path | None = None) -> int:
    return main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(truth),
                 "--predictions", str(preds if preds is not None else EVAL / "cafa_format.txt"),
                 "--out", str(tmp_path / "o"), *args])


# ------------------------------------------------------------------ files in the wrong place
def test_ia_file_in_a_prediction_folder_is_named_as_such(tmp_path, capsys):
    folder = tmp_path / "preds"
    folder.mkdir()
    (folder / "IA.txt").write_text((EVAL / "ia.tsv").read_text())
    assert _evaluate(tmp_path, preds=folder) == 2
    err = capsys.readouterr().err
    assert "IA.txt, line 1:" in err and "information-accretion file (term, bits): give it with --ia" in err
    assert "truth file" not in err and "Traceback" not in err


def test_result_curves_in_a_prediction_folder_is_named_as_such(tmp_path, capsys):
    assert _evaluate(tmp_path) == 0
    folder = tmp_path / "preds"
    folder.mkdir()
    (folder / "curves.tsv").write_bytes((tmp_path / "o" / "curves.tsv").read_bytes())
    capsys.readouterr()
    assert main(["evaluate", "--ontology", str(EVAL / "small.obo"), "--truth", str(EVAL / "truth.tsv"),
                 "--predictions", str(folder), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert "curves.tsv, line 1:" in err
    assert "a goeval result file (curves.tsv of a result folder), not predictions" in err
    assert "GAF" not in err and "Traceback" not in err


# ------------------------------------------------------------------ identifiers written differently
def test_fasta_header_ids_in_the_predictions_are_named_in_the_error(tmp_path, capsys):
    preds = tmp_path / "sp.tsv"
    preds.write_text("sp|P1|P1_HUMAN\tGO:0000003\t0.5\nsp|P2|P2_HUMAN\tGO:0000002\t0.4\n")
    assert _evaluate(tmp_path, preds=preds) == 2
    err = capsys.readouterr().err
    error = next(ln for ln in err.splitlines() if ln.startswith("goeval evaluate: error:"))
    assert "nothing was evaluated" in error and "UniProt FASTA headers (sp|P" in error
    assert "write the accession alone, the part between the pipes" in error
    assert "Traceback" not in err and not (tmp_path / "o").exists()


def test_fasta_header_ids_in_the_truth_are_named_in_the_error(tmp_path, capsys):
    truth = tmp_path / "truth.tsv"
    truth.write_text("sp|P1|P1_HUMAN\tGO:0000003\nsp|P2|P2_HUMAN\tGO:0000002\n")
    preds = tmp_path / "p.tsv"
    preds.write_text("P1\tGO:0000003\t0.5\n")
    assert _evaluate(tmp_path, truth=truth, preds=preds) == 2
    err = capsys.readouterr().err
    assert "the truth writes protein ids as UniProt FASTA headers (sp|P1|P1_HUMAN)" in err


# ------------------------------------------------------------------ an ontology older than the annotations
def test_many_unknown_well_formed_terms_suggest_an_older_ontology(tmp_path, capsys):
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000003\nP2\tGO:0000002\n" + "".join(f"P{i}\tGO:{9000000 + i:07d}\n" for i in range(12)))
    assert _evaluate(tmp_path, truth=truth) == 0
    err = capsys.readouterr().err
    warning = next(ln for ln in err.splitlines() if "may be older" in ln)
    assert warning.startswith("goeval: warning: 12 lines of the truth name well-formed GO ids that the ontology "
                              "does not know (e.g. GO:9000000, GO:9000001, GO:9000002)")
    assert "small.obo (data-version goeval-tests/evaluation) may be older than the annotations" in warning


def test_a_few_unknown_terms_suggest_nothing(tmp_path, capsys):
    assert _evaluate(tmp_path) == 0  # truth.tsv: 2 unknown terms
    assert "may be older" not in capsys.readouterr().err


# ------------------------------------------------------------------ what a number means
def test_summary_table_says_what_smin_and_tau_mean(tmp_path, capsys):
    assert _evaluate(tmp_path, "--ia", str(EVAL / "ia.tsv")) == 0
    out = capsys.readouterr().out
    table, note = out.split("\nnote: ")
    assert " smin " in table and " smin_terms " in table
    assert note.startswith("smin is in bits (CAFA-evaluator's s_w); CAFA-evaluator's s counts terms: smin_terms here.")
    assert "tau: every distinct score (CAFA-evaluator: a 0.01 grid, -th_step)." in note
    assert note.rstrip().endswith("docs/cafaeval.md")


def test_no_threshold_note_under_a_cafaeval_preset_nor_in_tsv(tmp_path, capsys):
    assert _evaluate(tmp_path, "--ia", str(EVAL / "ia.tsv"), "--preset", "cafa5") == 0
    out = capsys.readouterr().out
    assert "smin is in bits" in out and "tau:" not in out
    assert _evaluate(tmp_path / "t", "--ia", str(EVAL / "ia.tsv"), "--format", "tsv") == 0
    assert "note:" not in capsys.readouterr().out


def test_the_fasta_header_hint_is_that_of_the_method_it_concerns(tmp_path, capsys):
    folder = tmp_path / "preds"
    folder.mkdir()
    (folder / "a_other.tsv").write_text("X1\tGO:0000003\t0.5\n")  # no hint: simply other proteins
    (folder / "b_sp.tsv").write_text("sp|P1|P1_HUMAN\tGO:0000003\t0.5\n")
    assert _evaluate(tmp_path, preds=folder) == 2
    err = capsys.readouterr().err.splitlines()
    assert "check the protein identifiers" in next(ln for ln in err if "method a_other:" in ln)
    assert "(sp|P1|P1_HUMAN)" in next(ln for ln in err if "method b_sp:" in ln)
    assert "(sp|P1|P1_HUMAN)" in next(ln for ln in err if ln.startswith("goeval evaluate: error:"))
