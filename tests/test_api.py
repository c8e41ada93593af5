"""The path-taking API: presets, threads, several annotation files."""

from __future__ import annotations

import numpy as np
import pytest

import goeval
from goeval.errors import InvalidParameterError
from goeval.options import EvaluationOptions


def _methods(tmp_path, n: int = 3):
    rng = np.random.default_rng(0)
    lines = goeval.example_path("predictions").read_bytes()
    import gzip

    rows = [ln.split() for ln in gzip.decompress(lines).decode().splitlines()]
    rows = [r for r in rows if len(r) == 3 and r[2].replace(".", "", 1).isdigit()]
    for k in range(n):
        with open(tmp_path / f"m{k}.tsv", "w") as fh:
            for p, t, s in rows:
                v = min(1.0, max(0.01, round(float(s) * rng.uniform(0.5, 1.5), 2)))
                fh.write(f"{p}\t{t}\t{v}\n")
    return tmp_path


@pytest.mark.parametrize("thresholds", ["exact", 0.01])
def test_threads_change_no_bit(tmp_path, thresholds):
    preds = _methods(tmp_path)
    args = (goeval.example_path("ontology"), goeval.example_path("truth"), [preds])
    one = goeval.evaluate(*args, ia=goeval.example_path("ia"), thresholds=thresholds, threads=1)
    three = goeval.evaluate(*args, ia=goeval.example_path("ia"), thresholds=thresholds, threads=3)
    assert one.summary_records == three.summary_records
    assert list(one.curve_columns) == list(three.curve_columns)
    for col in one.curve_columns:
        assert np.array_equal(one.curve_columns[col], three.curve_columns[col]), col
    assert one.diagnostics["methods"] == three.diagnostics["methods"]


def test_cafa5_preset_options_and_ia_required():
    opts = EvaluationOptions.preset("cafa5")
    assert (opts.propagation, opts.normalization, opts.thresholds, opts.max_terms) == ("fill", "cafa", 0.001, 500)
    assert EvaluationOptions.preset("cafa5", max_terms=None).max_terms is None
    with pytest.raises(InvalidParameterError, match="cafa5 preset"):
        goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                        [goeval.example_path("predictions")], preset="cafa5")
    with pytest.raises(InvalidParameterError, match="'preset' parameter"):
        EvaluationOptions.preset("cafa9")


def test_load_annotations_merges_several_files(tmp_path):
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("P1\tGO:0003674\nP2\tGO:0005488\n")
    b.write_text("P2\tGO:0003824\nP3\tGO:0005488\nP1\tGO:0003674\n")
    ann = goeval.load_annotations([a, b], onto)
    assert ann.proteins.tolist() == ["P1", "P2", "P3"]
    got = {(p, onto.ids[c]) for p, row in zip(ann.proteins, ann.matrix.tolil().rows) for c in row}
    assert got == {("P1", "GO:0003674"), ("P2", "GO:0005488"), ("P2", "GO:0003824"), ("P3", "GO:0005488")}
    assert ann.diagnostics["rows_read"] == 5 and len(ann.diagnostics["parts"]) == 2


def test_annotations_are_read_by_their_content_not_their_name(tmp_path):
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    term = str(onto.ids[1])
    gaf_line = "\t".join(["UniProtKB", "P1", "P1_HUMAN", "", term, "PMID:1", "IEA", "", "F", "", "", "protein",
                          "taxon:9606", "20200101", "UniProt", "", ""])
    gaf = tmp_path / "annotations.tsv"  # a GAF file under a table's name
    gaf.write_text("!gaf-version: 2.2\n" + gaf_line + "\n" + gaf_line.replace("IEA", "IDA").replace("P1", "P2") + "\n")
    pairs = tmp_path / "pairs.gaf"  # pairs under a GAF name
    pairs.write_text(f"P1\t{term}\n")
    assert goeval.load_annotations(gaf, onto).proteins.tolist() == ["P2"]  # IEA is not experimental
    assert sorted(goeval.load_annotations(gaf, onto, evidence=None).proteins.tolist()) == ["P1", "P2"]
    assert goeval.load_annotations(pairs, onto).proteins.tolist() == ["P1"]
    with pytest.raises(goeval.errors.InputFormatError):
        goeval.load_annotations(pairs, onto, gaf=True)  # forced


def test_annotations_from_a_pipe_are_read_whole(tmp_path):
    import os
    import threading

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    fifo = tmp_path / "truth.tsv"
    os.mkfifo(fifo)
    lines = "".join(f"P{k}\t{onto.ids[1 + k % 5]}\n" for k in range(20000))  # more than a sniffed head

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(lines)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    ann = goeval.load_annotations(fifo, onto)
    writer.join(timeout=10)
    assert ann.proteins.size == 20000


def test_ia_in_every_form_a_user_holds_it(tmp_path):
    """A path, what load_ia returns, a mapping term -> bits, an array, an InformationAccretion: the same bits."""
    import warnings

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    values, _ = goeval.load_ia(goeval.example_path("ia"), onto)
    mapping = {t: float(v) for t, v in zip(onto.ids.tolist(), values.tolist()) if v}
    est = goeval.information_accretion(onto, truth)
    preds = [goeval.example_path("predictions")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = goeval.evaluate(onto, truth, preds, ia=goeval.example_path("ia"), thresholds=0.01).summary_records
        for form in (goeval.load_ia(goeval.example_path("ia"), onto), mapping, values, list(values)):
            assert goeval.evaluate(onto, truth, preds, ia=form, thresholds=0.01).summary_records == ref
        by_object = goeval.evaluate(onto, truth, preds, ia=est, thresholds=0.01).summary_records
        assert by_object == goeval.evaluate(onto, truth, preds, ia=est.values, thresholds=0.01).summary_records
    with pytest.raises(goeval.InvalidParameterError, match="one value per term"):
        goeval.evaluate(onto, truth, preds, ia=values[:-1])
    with pytest.raises(goeval.InvalidParameterError, match="an IA file, a mapping"):
        goeval.evaluate(onto, truth, preds, ia=object())


def test_best_takes_aliases_in_any_case_and_names_what_it_holds():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                              [goeval.example_path("predictions")], ia=goeval.example_path("ia"), thresholds=0.01)
    assert res.best("Fmax").equals(res.best("fmax")) and res.best("SMIN").equals(res.best("smin"))
    with pytest.raises(goeval.InvalidParameterError, match=r"'fmax', 'wfmax'.*got 'Fmaxx'"):
        res.best("Fmaxx")
    with pytest.raises(goeval.InvalidParameterError, match="this result's measures"):
        res.best("lin_bma")  # registered, but not computed in this run
