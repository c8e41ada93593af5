"""Console lines of :mod:`goeval.report.text`."""

from __future__ import annotations

from goeval.report.text import describe_reading


def test_reading_line_counts_in_singular_and_plural():
    one = describe_reading("p.tsv", {"rows_read": 3, "rows_by_term_status": {"unknown": 1},
                                     "entries_of_proteins_not_in_truth": 1, "duplicate_pairs": 1})
    assert one == ("p.tsv: 3 lines read; dropped: 1 unknown term, 1 line of a protein without truth; "
                   "1 line repeats a (protein, term) pair already read (e.g. under another evidence code): each pair "
                   "counted once")
    many = describe_reading("p.tsv", {"rows_read": 10_432_895, "rows_by_term_status": {"unknown": 2},
                                      "entries_of_proteins_not_in_truth": 10_432_890, "zero_scores_dropped": 2,
                                      "duplicate_pairs": 3})
    assert ("2 unknown terms, 2 scores of 0, 10,432,890 lines of proteins without truth; "
            "3 lines repeat a (protein, term) pair (maximum score kept)") in many
