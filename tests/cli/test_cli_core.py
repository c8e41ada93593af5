"""The core subcommands run in-process through goeval.cli.main."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from goeval.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and "goeval" in capsys.readouterr().out


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_info(tiny_obo, capsys):
    assert main(["info", str(tiny_obo)]) == 0
    cap = capsys.readouterr()
    assert "BPO" in cap.out and "GO:0000001" in cap.out  # the table: stdout
    assert "obsolete terms: 2" in cap.err and "BPO" not in cap.err  # what was read: messages on stderr
    # the table's "cross-ns dropped" column is said under it
    assert "note: cross-ns dropped: the is_a and part_of edges from a term of the namespace to a parent in another\n" \
           "      namespace, not followed" in cap.out
    assert main(["info", str(tiny_obo), "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["namespaces"][0]["terms"] == 5


def test_info_bad_obo_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.obo"
    bad.write_text("[Term]\nid: X:1\nname X\n")
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.obo, line 3" in err and "Traceback" not in err


def test_info_cycle_exit_2(tmp_path, capsys):
    cyc = tmp_path / "cyc.obo"
    cyc.write_text("[Term]\nid: X:1\nis_a: X:2\n\n[Term]\nid: X:2\nis_a: X:1\n")
    assert main(["info", str(cyc)]) == 2
    assert "cycle" in capsys.readouterr().err


def test_missing_file_exit_2(tmp_path, capsys):
    assert main(["info", str(tmp_path / "none.obo")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_ia_command(tiny_obo, tmp_path, capsys):
    ann = tmp_path / "ann.tsv"
    ann.write_text("protein\tterm\nP1\tGO:0000004\nP2\tGO:0000005\nP3\tGO:0000012\nP4\tGO:0000006\nP5\tGO:9999999\n")
    out = tmp_path / "ia.tsv"
    assert main(["ia", "--ontology", str(tiny_obo), "--annotations", str(ann), "--out", str(out)]) == 0
    text = capsys.readouterr().err  # messages go to stderr
    assert "remapped: 1 alt_id -> primary id, 1 obsolete -> replaced_by" in text and "dropped: 1 unknown term" in text
    ia = pd.read_csv(out, sep="\t", header=None, names=["term", "ia"])
    # every live term of the annotated namespace (BPO), unseen ones included
    assert sorted(ia["term"]) == ["GO:0000001", "GO:0000002", "GO:0000003", "GO:0000004", "GO:0000005"]
    assert ia.set_index("term").loc["GO:0000001", "ia"] == 0.0
    assert (ia["ia"] >= 0).all()


def test_ia_command_says_repeated_pairs_as_nothing_lost(tiny_obo, tmp_path, capsys):
    """One pair under two evidence codes is one pair: not "dropped", not a "duplicate" loss."""
    gaf = tmp_path / "ann.gaf"
    row = "UniProtKB\tP1\tP1\t\tGO:0000004\tPMID:1\t{}\t\tP\t\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t\n"
    gaf.write_text("!gaf-version: 2.2\n" + row.format("EXP") + row.format("IDA") + row.format("EXP").replace("P1", "P2"))
    assert main(["ia", "--ontology", str(tiny_obo), "--annotations", str(gaf), "--out", str(tmp_path / "ia.tsv")]) == 0
    err = capsys.readouterr().err
    assert "3 lines read, 2 proteins; 1 line repeats a (protein, term) pair already read (e.g. under another " \
           "evidence code): each pair counted once" in err and "dropped" not in err


def test_ia_command_says_its_special_cases_in_words(tmp_path, capsys):
    obo = tmp_path / "o.obo"
    obo.write_text("[Term]\nid: X:1\nnamespace: n\n\n[Term]\nid: X:2\nnamespace: n\nis_a: X:1\n\n"
                   "[Term]\nid: X:3\nnamespace: n\nis_a: X:2\n")
    ann = tmp_path / "ann.tsv"
    ann.write_text("P1\tX:1\n")  # X:3's parent X:2 annotates no protein
    assert main(["ia", "--ontology", str(obo), "--annotations", str(ann), "--out", str(tmp_path / "ia.tsv")]) == 0
    text = capsys.readouterr().err
    assert "1 term has no protein annotated with all its parents (n(Pa(v)) = 0); ia 0" in text
    assert "zero_parent_count" not in text


def test_propagate_command(tiny_obo, tmp_path):
    pred = tmp_path / "pred.tsv"
    pred.write_text("P1\tGO:0000004\t0.7\nP1\tGO:0000005\t0.4\n")
    out = tmp_path / "out.tsv"
    assert main(["propagate", "--ontology", str(tiny_obo), "--input", str(pred), "--out", str(out)]) == 0
    got = pd.read_csv(out, sep="\t", header=None, names=["p", "t", "s"]).set_index("t")["s"].to_dict()
    assert got == {"GO:0000001": 0.7, "GO:0000002": 0.7, "GO:0000003": 0.4, "GO:0000004": 0.7, "GO:0000005": 0.4}


def test_evaluate_command(tiny_obo, tmp_path, capsys):
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000004\nP2\tGO:0000005\n")
    preds = tmp_path / "preds"
    preds.mkdir()
    (preds / "good.tsv").write_text("P1\tGO:0000004\t0.9\nP2\tGO:0000005\t0.8\nP9\tGO:0000005\t0.8\n")
    (preds / "bad.tsv.gz").write_bytes(__import__("gzip").compress(b"P1\tGO:0000005\t0.9\n"))
    out = tmp_path / "res"
    assert main(["evaluate", "--ontology", str(tiny_obo), "--truth", str(truth), "--predictions", str(preds),
                 "--out", str(out), "--thresholds", "0.1"]) == 0
    text = capsys.readouterr().err  # messages on stderr
    assert "1 protein without truth ignored" in text
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    fmax = summary[summary.measure == "fmax"].set_index("method")["value"]
    assert fmax["good"] == 1.0 and fmax["bad"] < 1.0
    curves = pd.read_csv(out / "curves.tsv", sep="\t")
    assert {"method", "namespace", "threshold", "precision", "recall", "f"} <= set(curves.columns)
    assert "ru" not in curves.columns  # no IA given
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["methods"]["good"]["proteins_not_in_truth"] == 1


def test_evaluate_bad_prediction_exit_2(tiny_obo, tmp_path, capsys):
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000004\n")
    pred = tmp_path / "p.tsv"
    pred.write_text("P1\tGO:0000004\t0.9\nP1\tGO:0000005\t1.5\n")
    assert main(["evaluate", "--ontology", str(tiny_obo), "--truth", str(truth), "--predictions", str(pred),
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "p.tsv, line 2" in err and "[0, 1]" in err and "Traceback" not in err


def test_evaluate_bad_option_values(tiny_obo, tmp_path, capsys):
    assert main(["evaluate", "--ontology", str(tiny_obo), "--truth", "t", "--predictions", "p",
                 "--thresholds", "often"]) == 2
    assert "The option --thresholds must be 'exact', a step" in capsys.readouterr().err
    truth = tmp_path / "truth.tsv"
    truth.write_text("P1\tGO:0000004\n")
    assert main(["evaluate", "--ontology", str(tiny_obo), "--truth", str(truth), "--predictions", str(truth),
                 "--thresholds", "0.3", "--out", str(tmp_path / "o")]) == 2
    assert "divide 1" in capsys.readouterr().err


def test_demo(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "fmax" in out and "0.4856" in out
    s = pd.read_csv(tmp_path / "demo" / "summary.tsv", sep="\t").set_index("measure")
    assert round(s.loc["fmax", "value"], 3) == 0.486 and s.loc["fmax", "threshold"] == 0.46
    assert round(s.loc["wfmax", "value"], 3) == 0.407


def test_retrieval_command(tmp_path, capsys):
    from goeval.data import example_path

    out = tmp_path / "ret"
    assert main(["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth")),
                 "--predictions", str(example_path("predictions")), "-k", "5", "-k", "20", "--out", str(out)]) == 0
    s = pd.read_csv(out / "retrieval_summary.tsv", sep="\t")
    assert s.loc[0, "queries"] > 100 and 0 < s.loc[0, "tap_5"] < 1 and 0.5 < s.loc[0, "macro_roc_auc"] <= 1
    terms = pd.read_csv(out / "retrieval_terms.tsv", sep="\t")
    assert {"apcp_5", "apcp_20", "ipr_auc"} <= set(terms.columns)


def test_retrieval_with_ia_reports_the_informative_auc_and_weighted_ap(tmp_path, capsys):
    from goeval.data import example_path

    common = ["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth")),
              "--predictions", str(example_path("predictions"))]
    assert main([*common, "--ia", str(example_path("ia")), "--informative-ia", "1", "--query-weights", "uniform",
                 "--out", str(tmp_path / "ia")]) == 0
    printed = capsys.readouterr().out
    assert main([*common, "--out", str(tmp_path / "plain"), "--quiet"]) == 0
    s = pd.read_csv(tmp_path / "ia" / "retrieval_summary.tsv", sep="\t")
    plain = pd.read_csv(tmp_path / "plain" / "retrieval_summary.tsv", sep="\t")
    pd.testing.assert_frame_equal(s[plain.columns], plain)  # the other columns do not change
    terms = pd.read_csv(tmp_path / "ia" / "retrieval_terms.tsv", sep="\t")
    inf = terms["informative_roc_auc"].dropna()
    assert s.loc[0, "informative_terms"] == inf.size > 0
    assert s.loc[0, "informative_roc_auc"] == pytest.approx(inf.mean(), rel=1e-9)
    assert 0 < s.loc[0, "ia_weighted_average_precision"] < 1 and 0 < s.loc[0, "depth_weighted_average_precision"] < 1
    assert "inf. ROC AUC" in printed and f"{s.loc[0, 'informative_roc_auc']:.4f}" in printed
    assert json.loads((tmp_path / "ia" / "diagnostics.json").read_text())["options"]["informative_cutoff"] == 1.0
    assert main([*common, "--informative-ia", "1", "--out", str(tmp_path / "no")]) == 2
    assert "--informative-ia needs --ia or --ia-annotations" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_retrieval_table_says_when_a_tap_cutoff_fell_to_the_lowest_score(tmp_path, capsys):
    from goeval.data import example_path

    out = tmp_path / "ret"
    assert main(["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth")),
                 "--predictions", str(example_path("predictions")), "-k", "1", "-k", "20", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    s = pd.read_csv(out / "retrieval_summary.tsv", sep="\t")
    diag = json.loads((out / "diagnostics.json").read_text())
    assert diag["tap_cutoff_fallback"] == [{"method": "BB4S_mfo_NK", "namespace": "MFO", "k": [20],
                                            "cutoff": s.loc[0, "cutoff_20"]}]  # k = 1 has its median cutoff
    assert ("note: BB4S_mfo_NK MFO: TAP-20: fewer than half the term queries reach k errors,\n"
            f"      so the cutoff fell to the lowest score ({s.loc[0, 'cutoff_20']:g})") in printed
    assert "TAP-1," not in printed


@pytest.mark.parametrize("name,text,scored", [
    ("cafa.txt", "AUTHOR me\nMODEL 1\nKEYWORDS x.\nP1 GO:0000004 0.7\nEND\n", True),
    ("truth.tsv", "EntryID\tterm\taspect\nP1\tGO:0000004\tBPO\n", False),
    ("misnamed.gaf", "P1\tGO:0000004\t0.7\n", True),
])
def test_propagate_tells_predictions_from_annotations_by_content(tiny_obo, tmp_path, name, text, scored):
    src = tmp_path / name
    src.write_text(text)
    out = tmp_path / "out.tsv"
    assert main(["propagate", "--ontology", str(tiny_obo), "--input", str(src), "--out", str(out)]) == 0
    columns = {len(line.split("\t")) for line in out.read_text().splitlines()}
    assert columns == ({3} if scored else {2})


def test_evaluate_writes_a_leaderboard_of_its_submissions_best_first(tmp_path):
    """leaderboard.tsv: one row per submission, sorted by the mean weighted Fmax over namespaces, with each
    namespace's value and, after a bootstrap, its interval."""
    import goeval

    from goeval.io.predictions import read_predictions

    src = goeval.example_path("predictions")
    t = read_predictions(src)
    worse = tmp_path / "half.tsv"
    worse.write_text("".join(f"{p}\t{term}\t{s / 2:.4f}\n" for p, term, s in
                             zip(t.proteins[t.protein_codes], t.terms[t.term_codes], t.scores)))
    out = tmp_path / "res"
    assert main(["evaluate", "--ontology", str(goeval.example_path("ontology")), "--truth",
                 str(goeval.example_path("truth")), "--ia", str(goeval.example_path("ia")), "--predictions", str(src),
                 str(worse), "--bootstrap", "20", "--out", str(out), "-q"]) == 0
    board = pd.read_csv(out / "leaderboard.tsv", sep="\t")
    summary = pd.read_csv(out / "summary.tsv", sep="\t")
    wf = summary[summary.measure == "wfmax"].set_index("method")["value"]
    assert list(board["method"]) == list(wf.sort_values(ascending=False).index)
    assert list(board["rank"]) == [1, 2] and set(board["measure"]) == {"wfmax"}
    assert board["value"].tolist() == pytest.approx(wf.sort_values(ascending=False).tolist())  # one namespace
    assert {"MFO", "MFO_ci_low", "MFO_ci_high"} <= set(board.columns)


def test_evaluate_with_groups_writes_each_group_and_says_a_table(tmp_path, capsys):
    """--groups FILE: groups.tsv and groups/NAME/ (each group's folder as a run on its proteins alone), the
    compact table on stdout; --groups-from depth derives bins of truth terms; a kind evaluate cannot derive is
    refused naming what it takes."""
    import goeval
    from goeval.io.truth import read_truth

    d = goeval.example_path
    proteins = read_truth(d("truth")).proteins.tolist()
    groups = tmp_path / "groups.tsv"
    groups.write_text("protein\tgroup\n" + "".join(f"{p}\t{'odd' if k % 2 else 'even'}\n"
                                                   for k, p in enumerate(proteins)))
    common = ["evaluate", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
              str(d("predictions")), "--ia", str(d("ia"))]
    assert main([*common, "--groups", str(groups), "--out", str(tmp_path / "g")]) == 0
    out = capsys.readouterr().out
    assert "(wfmax per group)" in out and "\neven" not in out and "MFO  odd" in out
    table = pd.read_csv(tmp_path / "g" / "groups.tsv", sep="\t")
    assert list(dict.fromkeys(table["group"])) == ["all", "even", "odd"]
    assert (tmp_path / "g" / "groups" / "odd" / "summary.tsv").is_file()
    assert main([*common, "--groups-from", "depth:1,2", "--out", str(tmp_path / "depth"), "-q"]) == 0
    depth = pd.read_csv(tmp_path / "depth" / "groups.tsv", sep="\t")
    assert set(depth["group"]) <= {"all", "1", "2", "3+"} and "1" in set(depth["group"])
    assert main([*common, "--groups-from", "identity", "--out", str(tmp_path / "x")]) == 2
    assert "--groups-from identity is not available in this command" in capsys.readouterr().err


def test_retrieval_with_groups_writes_each_group(tmp_path):
    """goeval retrieval --groups: retrieval_groups.tsv (a group column, all first) and groups/NAME/."""
    import goeval
    from goeval.io.truth import read_truth

    d = goeval.example_path
    proteins = read_truth(d("truth")).proteins.tolist()
    groups = tmp_path / "g.tsv"
    groups.write_text("".join(f"{p}\t{'a' if k < 200 else 'b'}\n" for k, p in enumerate(proteins)))
    out = tmp_path / "r"
    assert main(["retrieval", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
                 str(d("predictions")), "--groups", str(groups), "--out", str(out), "-q"]) == 0
    table = pd.read_csv(out / "retrieval_groups.tsv", sep="\t")
    assert list(table.columns[:3]) == ["method", "group", "namespace"] and list(table["group"]) == ["all", "a", "b"]
    assert (out / "groups" / "b" / "retrieval_summary.tsv").is_file()
