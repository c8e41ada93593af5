"""The path-taking API: presets, threads, several annotation files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
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


def _small_case(tmp_path, truth_lines: list[str], ia_lines: list[str]):
    """small.obo (BPO and MFO) with the given truth, predictions of every truth pair at 0.5, and the given IA."""
    onto_path = Path(__file__).parent / "data" / "evaluation" / "small.obo"
    (tmp_path / "truth.tsv").write_text("".join(f"{x}\n" for x in truth_lines))
    (tmp_path / "pred.tsv").write_text("".join(f"{x}\t0.5\n" for x in truth_lines))
    (tmp_path / "ia.tsv").write_text("".join(f"{x}\n" for x in ia_lines))
    return onto_path, tmp_path / "truth.tsv", [tmp_path / "pred.tsv"], tmp_path / "ia.tsv"


def _warned(call) -> list[str]:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = call()
    return res, [str(w.message) for w in caught if issubclass(w.category, goeval.GoevalWarning)]


def test_ia_coverage_is_checked_in_the_evaluated_namespaces_only(tmp_path):
    """An MFO truth with an MFO IA file: no warning about BPO, whose terms the IA file lacks (not evaluated there),
    and the IA's missing terms counted in MFO only; an IA file of BPO terms still warns about MFO."""
    mf = ["GO:0003674\t0", "GO:0000011\t1.5", "GO:0000012\t0.5"]
    case = _small_case(tmp_path, ["P1\tGO:0000011", "P3\tGO:0000012"], mf)
    res, said = _warned(lambda: goeval.evaluate(case[0], case[1], case[2], ia=case[3]))
    assert not [w for w in said if "gives values for only" in w]
    assert list(res.diagnostics["ia"]["missing_by_namespace"]) == ["MFO"]
    case = _small_case(tmp_path, ["P1\tGO:0000011", "P3\tGO:0000012"], ["GO:0008150\t0", "GO:0000001\t1"])
    _res, said = _warned(lambda: goeval.evaluate(case[0], case[1], case[2], ia=case[3]))
    assert [w for w in said if "gives values for only" in w] == [
        f"the IA file {case[3]} gives values for only 0 of the 3 MFO terms; the others count 0 bits, so MFO's weighted "
        "measures and S are not meaningful (an IA file for another namespace?)."]


def test_an_ontology_newer_than_the_annotations_is_said(tmp_path):
    """Truth and predictions naming GO:0000091 (an alt_id of GO:0000001 in small.obo) and GO:0000099 (obsolete):
    remapped and dropped lines counted, with examples and the ontology's data-version."""
    lines = [f"P{i}\tGO:0000091" for i in range(8)] + [f"P{i}\tGO:0000099" for i in range(4)] + ["P9\tGO:0000002"]
    case = _small_case(tmp_path, lines, ["GO:0000001\t1", "GO:0000002\t2"])
    _res, said = _warned(lambda: goeval.evaluate(case[0], case[1], case[2], ia=case[3]))
    newer = [w for w in said if "may be newer than the annotations" in w]
    assert newer == ["12 lines of the truth and 12 lines of method pred name terms the ontology has since merged or "
                     "made obsolete (16 remapped through an alt_id or replaced_by, 8 obsolete and dropped; e.g. "
                     "obsolete GO:0000099, merged GO:0000091): the ontology small.obo (data-version "
                     "goeval-tests/evaluation) may be newer than the annotations; give the release they were made "
                     "with (or one closer to it)."]


def test_in_memory_predictions_are_said_given_in_memory_not_zero_lines_read(caplog):
    from goeval.baselines import naive

    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    preds = {"naive": naive(onto, truth, truth.proteins),
             "BLAST": goeval.load_predictions(goeval.example_path("predictions"), onto)}
    with caplog.at_level("INFO", logger="goeval.progress"):
        goeval.evaluate(onto, truth, preds, thresholds=0.01)
    lines = [r.getMessage() for r in caplog.records]
    assert "naive: given in memory, 421 proteins" in lines and "BLAST: 27,021 lines read, 411 proteins" in lines


def _group_case():
    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    prots = truth.proteins.tolist()
    return d, onto, truth, {"first": prots[:150], "overlap": prots[100:300], "none": ["not-a-protein"]}


@pytest.mark.parametrize("stream,similarity", [(False, None), (True, None), (False, ("wang", "jaccard"))])
def test_each_group_is_the_run_restricted_to_its_proteins_to_the_last_bit(stream, similarity):
    """groups=: every group's summary (bootstrap intervals included, those of the similarity optima too) and
    curves are those of a run with targets= its proteins and the same seed; a protein may be in two groups; a
    group without truth is said."""
    d, onto, truth, groups = _group_case()
    with pytest.warns(goeval.GoevalWarning, match="group none: nothing was evaluated"):
        res = goeval.evaluate(onto, truth, [d("predictions")], ia=d("ia"), groups=groups, bootstrap=30, seed=4,
                              stream=stream, similarity=similarity)
    whole = goeval.evaluate(onto, truth, [d("predictions")], ia=d("ia"), bootstrap=30, seed=4, similarity=similarity)
    pd.testing.assert_frame_equal(res.summary, whole.summary, check_exact=True)
    for name in ("first", "overlap"):
        alone = goeval.evaluate(onto, truth, [d("predictions")], ia=d("ia"), targets=groups[name], bootstrap=30,
                                seed=4, similarity=similarity)
        pd.testing.assert_frame_equal(res.groups[name].summary, alone.summary, check_exact=True)
        if similarity:
            sim = res.groups[name].summary[res.groups[name].summary["measure"].isin(["wang_bma", "jaccard"])]
            assert len(sim) == 2 and sim["ci_low"].notna().all()
        pd.testing.assert_frame_equal(res.groups[name].curves, alone.curves, check_exact=True)
    assert res.diagnostics["groups"]["first"] == {"proteins": 150, "benchmark_proteins": {"MFO": 150},
                                                  "evaluated": True}
    assert res.diagnostics["groups"]["none"]["evaluated"] is False


def test_streamed_groups_read_the_file_once(monkeypatch):
    from goeval.io import readers

    d, onto, truth, groups = _group_case()
    passes = []
    real = readers.PredictionFile.batches
    monkeypatch.setattr(readers.PredictionFile, "batches", lambda self, *a, **k: passes.append(1) or real(self, *a, **k))
    goeval.evaluate(onto, truth, [d("predictions")], ia=d("ia"), groups={"first": groups["first"]}, stream=True)
    assert passes == [1]


def test_a_group_named_all_is_refused():
    d, onto, truth, _ = _group_case()
    with pytest.raises(InvalidParameterError, match="'all'"):
        goeval.evaluate(onto, truth, [d("predictions")], groups={"all": ["x"]})
