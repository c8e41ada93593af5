"""The public helpers the format modules share: the line rule, headers, Arrow parsing, encoding, files."""

from __future__ import annotations

import pyarrow as pa
import pytest

from goeval.errors import InputFormatError
from goeval.io import files, text, tsv
from goeval.io.pairs import PairTable, encode_strings, has_empty
from goeval.io.predictions.rules import LineParser, check_prediction, prediction_layout


@pytest.mark.parametrize("line,tab,fields", [
    ("", True, []),
    ("  \t ", True, []),
    ("\ufeffP1\tGO:1", True, ["P1", "GO:1"]),
    ("P1\t GO:1 \t\t", True, ["P1", "GO:1"]),  # trailing tabs add no column
    ("P1\t\tGO:1", True, ["P1", "", "GO:1"]),  # an empty field inside is kept
    ("P1  GO:1\t0.5", False, ["P1", "GO:1", "0.5"]),
    ("P1 GO:1 0.5", True, ["P1", "GO:1", "0.5"]),  # no tab: runs of spaces
    ("P1\u2028x\tGO:1", True, ["P1\u2028x", "GO:1"]),  # U+2028 is an ordinary character
])
def test_split_fields(line, tab, fields):
    assert text.split_fields(line, tab) == fields


def test_text_lines_strict_decoding_and_carriage_returns():
    assert text.text_lines(b"a\r\nb\n", "f") == ["a", "b", ""]
    with pytest.raises(InputFormatError) as e:
        text.text_lines(b"a\nb\rc\n", "f")
    assert (e.value.line, e.value.text, e.value.problem) == (2, "b\rc", text.LONE_CR)
    with pytest.raises(InputFormatError) as e:
        text.text_lines(b"a\n\xff\n", "f")
    assert e.value.line == 2


def test_lone_cr_raw_lines_and_whitespace():
    assert text.has_lone_cr(b"a\r\nb\r\n") is False
    assert text.has_lone_cr(b"a\rb") is True
    assert text.has_lone_cr(b"a\r\nb\r", 4) is False  # the first 4 bytes only
    assert list(text.raw_lines(b"a\r\n\nb")) == [(1, 3, "a"), (2, 4, ""), (3, 6, "b")]
    assert text.whitespace_to_tab(b"  a  b\t c \r\nd\n") == b"a\tb\tc\r\nd\n"
    assert list(text.numbered_fields(["x y", "", "z"], 1, True)) == [(1, "x y", ["x", "y"]), (3, "z", ["z"])]


@pytest.mark.parametrize("value,ok", [("0", True), ("-1.5e-3", True), (".5", True), ("5.", True), ("inf", True),
                                      ("NaN", True), ("1_0", False), ("0x1", False), ("", False), (" 1", False)])
def test_is_number(value, ok):
    assert text.is_number(value) is ok


def test_header_helpers():
    assert text.is_end(["end"]) and not text.is_end(["END", "x"])
    assert text.is_cafa_header(["keywords", "x"]) and not text.is_cafa_header(["P1", "GO:1"])
    assert text.is_truth_header(["EntryID", "term", "aspect"]) and text.is_truth_header(["x", "GO_ID"])
    assert not text.is_truth_header(["P1", "GO:1"])
    assert text.is_score_header(["a", "b", "Score"]) and not text.is_score_header(["a", "score"])
    assert text.is_ia_header(["term", "ia"]) and not text.is_ia_header(["term", "ia", "x"])


def test_table_layout_and_no_data_error():
    lay = text.table_layout(b"\nprotein term\nP1 GO:1\n", text.is_truth_header)
    assert (lay.offset, lay.start, lay.tab, lay.header) == (14, 3, False, "protein term")
    assert lay.first == (3, "P1 GO:1", ["P1", "GO:1"]) and lay.counts == {"header_lines": 1}
    only_header = text.table_layout(b"protein\tterm\n", text.is_truth_header)
    assert only_header.first is None
    assert text.no_data_error("f", only_header, "annotation").line == 1
    assert text.no_data_error("f", text.table_layout(b"", text.is_truth_header), "x").problem == "the file is empty"


def test_parse_tsv_sets_rows_aside_and_gives_up():
    names = ["a", "b"]
    types = {"a": pa.string(), "b": pa.string()}
    table, aside = tsv.parse_tsv(tsv.buffer_reader(b"x\ty\nlonely\nz\tw\n"), names, types, names, True)
    assert table.column("a").to_pylist() == ["x", "z"] and aside == [["lonely"]]
    many = b"".join(b"row%d\n" % k for k in range(tsv.MAX_SET_ASIDE + 1))
    assert tsv.parse_tsv(tsv.buffer_reader(b"x\ty\n" + many), names, types, names, True) is None
    assert tsv.buffer_reader(b"abcdef", 2).read() == b"cdef"


def test_encoding_and_pair_tables():
    codes, uniq = encode_strings(pa.chunked_array([["b", "a"], ["a ", "\ufeffb", "c"]]))
    assert uniq[codes].tolist() == ["b", "a", "a", "b", "c"] and uniq.tolist() == ["b", "a", "c"]
    assert has_empty(encode_strings(pa.chunked_array([["", "x"]]))[1])
    table = PairTable.from_arrays(["P1", "P1"], ["GO:1", "GO:2"], [0.5, 1])
    assert len(table) == 2 and table.scores.dtype.name == "float64" and table.proteins.tolist() == ["P1"]


def test_file_helpers(tmp_path):
    assert files.strip_compression("a.TSV.Gz") == "a.TSV" and files.strip_compression("a.gzip") == "a.gzip"
    assert files.is_compressed("x.xz") and not files.is_compressed("x.txt")
    missing = files.read_failure("f", FileNotFoundError(2, "No such file or directory"))
    assert missing.problem == "cannot read the file: No such file or directory"
    assert files.read_failure("f", EOFError("cut")).problem == "cannot decompress the file: cut"
    target = tmp_path / "out.tsv"
    tmp = files.temporary_name(target)
    assert tmp.parent == tmp_path and tmp.name.startswith(".out.tsv.") and tmp.suffix == ".part"
    files.unlink_quietly(tmp)  # missing: nothing happens
    assert "no space left" in str(files.write_failed(target, OSError(28, "No space left on device")))


def test_one_line_parser_for_predictions():
    lines = ["AUTHOR x", "P1\tGO:1\t0.5", "P1 GO:2 1", "", "END"]
    parser = LineParser("f", True)
    p, t, s, nos = parser.parse(lines, 1, skip=1, numbers=True)
    assert (p, t, s, nos) == (["P1", "P1"], ["GO:1", "GO:2"], [0.5, 1.0], [2, 3])
    assert (parser.end_line, parser.spaced) == (5, 1)
    with pytest.raises(InputFormatError, match="data after the END line") as e:
        parser.parse(["P2\tGO:1\t0.1"], 6)
    assert e.value.line == 6
    with pytest.raises(InputFormatError, match="looks like a truth file"):
        LineParser("f", True).parse(["P1\tGO:1"], 1)
    with pytest.raises(InputFormatError, match="expected 3 columns"):
        LineParser("f", True).parse(["P1\tGO:1"], 1, rows_before=1)  # not the first data line: no hint
    with pytest.raises(InputFormatError, match="must lie in"):
        check_prediction(["P1", "GO:1", "1.5"], "f", 1, "P1 GO:1 1.5", True)


def test_prediction_layout():
    lay = prediction_layout(b"AUTHOR a\nMODEL 1\ntarget term score\nP1 GO:1 0.5\n", "f")
    assert (lay.start, lay.tab) == (4, False)
    assert lay.counts == {"cafa_header_lines": 2, "cafa_header": ["AUTHOR a", "MODEL 1"], "header_lines": 1,
                          "whitespace_separated": True}
    with pytest.raises(InputFormatError, match="GAF annotation file"):
        prediction_layout(b"!gaf-version: 2.2\n", "f")
