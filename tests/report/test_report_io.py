"""goeval.io.results_dir: reading a results directory back (exact floats, clear errors) and writing files as a set."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import numpy as np
import pytest

from goeval.errors import GoevalError, InputFormatError
from goeval.io.results_dir import read_results_dir, read_table, write_files


def test_reads_back_exact_values(two_methods):
    res, out = two_methods
    back = read_results_dir(out)
    assert back.files == ["curves.tsv", "summary.tsv", "diagnostics.json", "timings.json"]
    assert back.methods() == ["BLAST", "naive"] and back.namespaces() == ["MFO"]
    np.testing.assert_array_equal(back.summary["value"].to_numpy(), [r["value"] for r in res.summary_records])
    np.testing.assert_array_equal(back.summary["ci_low"].to_numpy(), res.summary["ci_low"].to_numpy())
    assert back.curves["precision"].to_numpy().tolist() == res.curve_columns["precision"].tolist()
    assert back.diagnostics["options"]["thresholds"] == res.diagnostics["options"]["thresholds"]
    assert back.timings == {"total": 1.0} and back.table1 is None and back.tap_curve is None


def test_text_columns_stay_text(tmp_path):
    (tmp_path / "summary.tsv").write_text("method\tnamespace\tmeasure\tvalue\tthreshold\tcoverage\n"
                                          "NA\tMFO\tfmax\t0.5\t0.1\t1.0\n1\tMFO\tfmax\tnan\tnan\tnan\n")
    s = read_results_dir(tmp_path).summary
    assert s["method"].tolist() == ["NA", "1"]
    assert s["value"].isna().tolist() == [False, True]


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(GoevalError, match="no such directory"):
        read_results_dir(tmp_path / "absent")
    (tmp_path / "notes.txt").write_text("x\n")
    with pytest.raises(GoevalError, match="no goeval results"):
        read_results_dir(tmp_path)
    (tmp_path / "curves.tsv").write_text("method\tthreshold\nm\t0.5\n")
    with pytest.raises(InputFormatError, match=r"curves.tsv, line 1: .*namespace, coverage, precision, recall"):
        read_results_dir(tmp_path)
    (tmp_path / "curves.tsv").unlink()
    (tmp_path / "tap_curve.tsv").write_text("method\tnamespace\tcutoff\ttap\nm\tMFO\t0.5\t0.1\n")
    (tmp_path / "diagnostics.json").write_text("{\"a\": 1,\n")
    with pytest.raises(InputFormatError, match="diagnostics.json.*not a valid JSON"):
        read_results_dir(tmp_path)
    (tmp_path / "diagnostics.json").write_text("[1]\n")
    with pytest.raises(InputFormatError, match="expected a JSON object"):
        read_results_dir(tmp_path)
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(InputFormatError, match="empty"):
        read_table(tmp_path / "empty.tsv")


def test_write_files_as_one_set(tmp_path):
    out = tmp_path / "plots"
    written = write_files(out, {"a.png": b"\x89PNG", "b.md": "text é"})
    assert sorted(written) == ["a.png", "b.md"]
    assert (out / "a.png").read_bytes() == b"\x89PNG" and (out / "b.md").read_text("utf-8") == "text é"

    class Boom(bytes):
        def __bytes__(self):  # noqa: D105
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_files(out, {"a.png": b"new", "c.png": Boom(b"")})
    assert (out / "a.png").read_bytes() == b"\x89PNG"  # unchanged: nothing moved into place
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "b.md"]  # no temporary file left


@pytest.mark.parametrize(("body", "line", "problem"), [
    ("m\tMFO\tfmax\t0.5\t0.1\n", 2, "5 tab-separated fields where the header has 6"),
    ("m\tMFO\tfmax\tabc\t0.1\t1\n", 2, "the value column holds 'abc', not a number"),
    ("m\tMFO\tfmax\t0.5\t0.1\t1\nm\tMFO\tsmin\tinf\t0.1\t1\n", 3, "infinite value"),
    ("m\tMFO\tfmax\t0.5\t0.1\t1\nm\tMFO\tsm", 3, "no line end: the file is truncated"),
])
def test_tables_are_validated_with_file_and_line(tmp_path, body, line, problem):
    (tmp_path / "summary.tsv").write_text("method\tnamespace\tmeasure\tvalue\tthreshold\tcoverage\n" + body)
    with pytest.raises(InputFormatError, match=problem) as exc:
        read_results_dir(tmp_path)
    assert exc.value.line == line and exc.value.path.endswith("summary.tsv")


def test_empty_cells_and_nan_are_undefined_values(tmp_path):
    (tmp_path / "summary.tsv").write_text("method\tnamespace\tmeasure\tvalue\tthreshold\tcoverage\n"
                                          "m\tMFO\taupr\t0.5\t\tnan\n")
    s = read_results_dir(tmp_path).summary
    assert s["threshold"].isna().all() and s["coverage"].isna().all()


def test_time_split_folder_read_as_parts(tmp_path):
    head = "method\tnamespace\tmeasure\tvalue\tthreshold\tcoverage\n"
    (tmp_path / "diagnostics.json").write_text('{"targets": {"NK": {"MFO": {"candidates": 3, "targets": 2}}}}\n')
    for kind in ("nk", "pk"):
        (tmp_path / kind).mkdir()
        (tmp_path / kind / "summary.tsv").write_text(head + f"{kind}m\tMFO\tfmax\t0.5\t0.1\t1.0\n")
    res = read_results_dir(tmp_path)
    assert list(res.parts) == ["NK", "PK"] and res.kind == "time split"
    assert res.methods() == ["nkm", "pkm"] and res.diagnostics["targets"]["NK"]["MFO"]["targets"] == 2
    assert any("no manifest.json" in n for n in res.notes)


def test_the_kind_folders_of_goeval_cafa6_are_read_as_a_time_splits(tmp_path):
    """goeval cafa6 writes NK/ LK/ PK/ (a time split nk/ lk/ pk/): both are read as the result's kinds, so
    goeval report takes a CAFA 6 folder."""
    import goeval
    from goeval.io.results_dir import read_results_dir

    res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
                          [goeval.example_path("predictions")], ia=goeval.example_path("ia"))
    res.save(tmp_path / "board" / "NK")
    res.save(tmp_path / "board" / "PK")
    res.save(tmp_path / "split" / "nk")
    assert list(read_results_dir(tmp_path / "board").parts) == ["NK", "PK"]
    assert list(read_results_dir(tmp_path / "split").parts) == ["NK"]


def test_a_rank_runs_threshold_all_is_read_and_plotted(tmp_path):
    """--thresholds top:...,all writes the threshold inf (every term): read back, plotted; inf elsewhere is refused."""
    pytest.importorskip("matplotlib")
    import goeval
    from goeval.cli import main

    d = goeval.example_path
    out = tmp_path / "r"
    assert main(["evaluate", "--ontology", str(d("ontology")), "--truth", str(d("truth")), "--predictions",
                 str(d("predictions")), "--ia", str(d("ia")), "--thresholds", "top:1,3,all", "--out", str(out),
                 "-q"]) == 0
    assert np.isinf(read_results_dir(out).curves["threshold"]).sum() == 1
    assert main(["plot", str(out), "-q"]) == 0 and (out / "plots" / "rank_MFO.png").is_file()
    text = (out / "curves.tsv").read_text().splitlines()
    cols = text[0].split("\t")
    row = text[1].split("\t")
    row[cols.index("precision")] = "inf"
    (out / "curves.tsv").write_text("\n".join([text[0], "\t".join(row), *text[2:]]) + "\n")
    (out / "manifest.json").unlink()
    with pytest.raises(InputFormatError, match="precision column holds an infinite value"):
        read_results_dir(out)
