"""Hit-table reader: layouts, compression, tolerated variants and errors with file and line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.hits import STANDARD_COLUMNS, HitTable, hit_table_columns, read_hits

ROW12 = "A\tB\t45.5\t100\t50\t2\t1\t100\t3\t102\t1e-20\t88.2\n"
COLS6 = ("qseqid", "sseqid", "pident", "length", "evalue", "bitscore")


def write(tmp_path, text: str | bytes, name: str = "hits.tsv"):
    p = tmp_path / name
    data = text.encode() if isinstance(text, str) else text
    if name.endswith(".gz"):
        data = gzip.compress(data)
    p.write_bytes(data)
    return p


def test_standard_columns_and_shared_ids(tmp_path):
    p = write(tmp_path, ROW12 + "A\tA\t100\t100\t0\t0\t1\t100\t1\t100\t0\t200\n" + "C\tB\t30\t80\t50\t2\t1\t80\t3\t82\t0.001\t40\n")
    h = read_hits(p)
    assert len(h) == 3 and h.columns == STANDARD_COLUMNS[2:]
    assert h.ids[h.query_codes].tolist() == ["A", "A", "C"]
    assert h.ids[h.subject_codes].tolist() == ["B", "A", "B"]
    assert (h.query_codes == h.subject_codes).tolist() == [False, True, False]
    assert h.values["evalue"].tolist() == [1e-20, 0.0, 0.001]
    assert h.queries.tolist() == ["A", "C"]


def test_named_columns_gzip(tmp_path):
    p = write(tmp_path, "q1\ts1\t25.2\t1208\t3.41e-91\t333\n", "h.tsv.gz")
    h = read_hits(p, COLS6)
    assert h.values["bitscore"].tolist() == [333.0] and h.values["pident"].tolist() == [25.2]


def test_bom_whitespace_crlf_comments_header(tmp_path):
    text = ("\ufeff# BLASTP 2.12.0+\r\nqseqid\tsseqid\tpident\tlength\tevalue\tbitscore\r\n"
            " q1 \t s1\t 25.2\t10\t1e-5 \t33 \r\n# end\nq2\ts1\t30\t10\t1e-6\t34\n")
    h = read_hits(write(tmp_path, text), COLS6)
    assert h.ids[h.query_codes].tolist() == ["q1", "q2"] and h.ids[h.subject_codes].tolist() == ["s1", "s1"]
    assert h.counts["comment_lines"] == 2 and h.counts["header_lines"] == 1


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("q\ts\t25\t10\t1e-5\n", "expected 6 tab-separated columns"),
        ("q\ts\t25\t10\t1e-5\t3\t4\n", "expected 6 tab-separated columns"),
        ("q\ts\tabc\t10\t1e-5\t3\n", "the pident column is not a number"),
        ("q\ts\t25\t10\tsmall\t3\n", "the evalue column is not a number"),
        ("q\ts\t100.5\t10\t1e-5\t3\n", r"identity \(pident\) must lie in \[0, 100\]"),
        ("q\ts\t-1\t10\t1e-5\t3\n", r"identity \(pident\) must lie in \[0, 100\]"),
        ("q\ts\t25\t10\t-1e-5\t3\n", "E-value must not be negative"),
        ("q\ts\t25\t10\tnan\t3\n", "the evalue column is not a number"),
        ("\ts\t25\t10\t1e-5\t3\n", "empty query or subject"),
        ("q\ts\t25\t10\t1e-5\t3\rq2\ts\t25\t10\t1e-5\t3\n", "carriage return"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path, line, problem):
    good = "q0\ts0\t50\t10\t1e-9\t40\n"
    p = write(tmp_path, good + good + line + good)
    with pytest.raises(InputFormatError, match=problem) as exc:
        read_hits(p, COLS6)
    assert exc.value.line == 3 and exc.value.path == str(p)
    assert exc.value.text == line.rstrip("\n")


def test_error_line_counts_comment_lines_gz(tmp_path):
    p = write(tmp_path, "# c\n" + ROW12 + "A\tB\t45\n", "h.tsv.gz")
    with pytest.raises(InputFormatError, match="expected 12 tab-separated columns") as exc:
        read_hits(p)
    assert exc.value.line == 3


def test_empty_and_bad_columns(tmp_path):
    with pytest.raises(InputFormatError, match="empty"):
        read_hits(write(tmp_path, ""))
    with pytest.raises(InputFormatError, match="no hit rows"):
        read_hits(write(tmp_path, "# only a comment\n", "c.tsv"))
    with pytest.raises(InvalidParameterError, match="must start with 'qseqid', 'sseqid'"):
        read_hits(write(tmp_path, ROW12), ("sseqid", "qseqid", "pident"))
    with pytest.raises(InvalidParameterError, match="unknown names"):
        read_hits(write(tmp_path, ROW12), ("qseqid", "sseqid", "identity"))


def test_from_arrays_and_missing_column():
    h = HitTable.from_arrays(["a", "b"], ["b", "a"], pident=[10, 20])
    assert h.ids.tolist() == ["a", "b"] and h.values["pident"].dtype == np.float64
    with pytest.raises(InvalidParameterError, match="needs the 'evalue' column"):
        h.column("evalue", "gotcha")
    with pytest.raises(InvalidParameterError, match="must have 2 values"):
        HitTable.from_arrays(["a", "b"], ["b", "a"], pident=[10])


# ------------------------------------------------------------ layouts recognised without a column list
def test_six_and_twelve_columns_recognised_by_their_count(tmp_path):
    six = read_hits(write(tmp_path, "q1\ts1\t25.2\t120\t1e-5\t33\n", "six.tsv"))
    assert six.columns == COLS6[2:] and six.values["bitscore"].tolist() == [33.0]
    assert read_hits(write(tmp_path, ROW12, "twelve.tsv")).columns == STANDARD_COLUMNS[2:]
    with pytest.raises(InputFormatError, match="5 columns and no header line.*--hit-columns") as exc:
        read_hits(write(tmp_path, "# c\nq\ts\t25\t10\t1e-5\n", "five.tsv"))
    assert exc.value.line == 2


def test_header_line_recognised_by_its_content(tmp_path):
    p = write(tmp_path, "query\ttarget\tpident\tevalue\tbitscore\nq1\ts1\t25\t1e-5\t30\n")
    h = read_hits(p)
    assert h.columns == ("pident", "evalue", "bitscore") and h.counts["header_lines"] == 1
    assert hit_table_columns(p) == ("qseqid", "sseqid", "pident", "evalue", "bitscore")
    with pytest.raises(InputFormatError, match="the header line names the columns"):
        read_hits(p, COLS6)
    with pytest.raises(InvalidParameterError, match="unknown names"):
        read_hits(write(tmp_path, "qseqid\tsseqid\tidentity\nq\ts\t3\n", "u.tsv"))


def test_space_separated_tables_follow_the_line_rule(tmp_path):
    text = "q1  s1 25.2 120  1e-5 33\nq2\ts1\t30\t10\t1e-6\t34\n"
    h = read_hits(write(tmp_path, text))
    assert h.ids[h.query_codes].tolist() == ["q1", "q2"] and h.values["evalue"].tolist() == [1e-5, 1e-6]
    assert h.counts["space_separated_lines"] == 1


@pytest.mark.parametrize(("value", "column", "problem"), [
    ("-1", "bitscore", "bit score must not be negative"), ("inf", "bitscore", "bitscore column is infinite"),
    ("-inf", "evalue", "evalue column is infinite"), ("NaN", "bitscore", "bitscore column is not a number"),
])
def test_bitscore_and_evalue_ranges_are_checked_with_the_line(tmp_path, value, column, problem):
    row = {"evalue": f"q\ts\t25\t10\t{value}\t30\n", "bitscore": f"q\ts\t25\t10\t1e-5\t{value}\n"}[column]
    with pytest.raises(InputFormatError, match=problem) as exc:
        read_hits(write(tmp_path, "q0\ts0\t50\t10\t1e-9\t40\n" + row))
    assert exc.value.line == 2
