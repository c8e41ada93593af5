"""Prediction writers: one line per stored score, identifiers and ``repr`` scores, read back unchanged."""

from __future__ import annotations

import io

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.io.predictions import read_predictions
from goeval.io.predictions_out import write_predictions


def _lines(proteins, terms, m) -> list[str]:
    """The slow oracle: every stored entry in row order, as ``format_cell`` writes it."""
    m = sp.csr_array(m)
    out = []
    for r in range(m.shape[0]):
        for k in range(m.indptr[r], m.indptr[r + 1]):
            p = proteins[r]
            out.append(f"{p if isinstance(p, str) else str(p)}\t{terms[m.indices[k]]}\t{float(m.data[k])!r}")
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_every_entry_is_one_line_in_row_order(n, k, seed):
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, k)) < 0.5, rng.random((n, k)), 0.0)
    proteins = [f"P{i}" if i % 3 else 10 + i for i in range(n)]  # an integer identifier is written as its text
    terms = [f"GO:{j:07d}" for j in range(k)]
    fh = io.StringIO()
    assert write_predictions(fh, proteins, terms, sp.csr_array(dense)) == int((dense != 0).sum())
    assert fh.getvalue().splitlines() == _lines(proteins, terms, dense)


def test_a_cafa_file_reads_back_with_the_same_pairs_and_scores(tmp_path):
    rng = np.random.default_rng(5)
    dense = np.where(rng.random((40, 9)) < 0.3, rng.random((40, 9)).round(3) + 0.001, 0.0)
    proteins, terms = [f"Q{i:03d}" for i in range(40)], [f"GO:{j:07d}" for j in range(9)]
    path = tmp_path / "p.tsv"
    write_predictions(path, proteins, terms, sp.csr_array(dense), fmt="cafa", author="me", model=2)
    text = path.read_text()
    assert text.startswith("AUTHOR\tme\nMODEL\t2\n") and text.endswith("END\n")
    table = read_predictions(path)
    got = {(table.proteins[p], table.terms[t]): s for p, t, s in zip(table.protein_codes, table.term_codes,
                                                                      table.scores)}
    r, c = np.nonzero(dense)
    assert got == {(proteins[i], terms[j]): dense[i, j] for i, j in zip(r, c)}
