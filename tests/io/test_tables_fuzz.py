"""Property tests of the table readers: random bytes and random mutations of
valid files give a typed error or a table, never another exception; neutral
changes (BOM, CRLF, spaces around fields, trailing tabs, blank lines) give
the same rows; the fast reader agrees with the line-by-line reader."""

from __future__ import annotations

import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goeval.errors import GoevalError, InputFormatError
from goeval.io import tsv
from goeval.io.gaf import read_gaf
from goeval.io.ia import read_ia
from goeval.io.predictions import read_predictions
from goeval.io.truth import read_truth

DATA = Path(__file__).resolve().parents[1] / "data" / "tables"
SEEDS = {
    read_truth: (DATA / "truth.tsv").read_bytes(),
    read_predictions: (DATA / "predictions_cafa.txt").read_bytes(),
    read_ia: (DATA / "ia.tsv").read_bytes(),
}
READERS = list(SEEDS)
MUTATED = [*SEEDS.items(), (read_predictions, SEEDS[read_predictions].replace(b"\t", b" ")),
           (read_gaf, (DATA / "annotations.gaf").read_bytes())]
FILE_LEVEL = ("the file is empty", "header line but no", "has no annotation lines")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHARS = st.sampled_from(list("\t \n\r\ufeff\x85\u2028#!ENDGO:0.15-eAUTHOR") + ["\xff", "nan", "END\n", "1e9"])


def rows(result):
    """Comparable rows of a reader's result (PairTable or IA triple)."""
    if isinstance(result, tuple):
        terms, ia, _ = result
        return sorted(zip(terms.tolist(), ia.tolist()))
    cols = [result.proteins[result.protein_codes].tolist(), result.terms[result.term_codes].tolist()]
    if result.scores is not None:
        cols.append(result.scores.tolist())
    return sorted(zip(*cols))


def run(reader, data: bytes, name: str = "input.tsv"):
    """The reader's rows, or the GoevalError it raised (any other exception fails)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            return rows(reader(path))
        except GoevalError as exc:
            if isinstance(exc, InputFormatError) and exc.line is None:
                assert any(s in exc.problem for s in FILE_LEVEL), exc
            return exc


def same_outcome(a, b) -> bool:
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and getattr(a, "line", None) == getattr(b, "line", None)
    return a == b


@st.composite
def mutated(draw):
    reader, seed = draw(st.sampled_from(MUTATED))
    text = seed.decode()
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["del_char", "ins_char", "rep_char", "dup_line", "del_line", "swap_lines"]))
        text = "\n".join(lines)
        if kind.endswith("char") and text:
            i = draw(st.integers(0, len(text) - 1))
            c = draw(CHARS) if kind != "del_char" else ""
            text = text[:i] + c + text[i + (kind != "ins_char") :]
            lines = text.split("\n")
        elif lines:
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "dup_line":
                lines.insert(j, lines[i])
            elif kind == "del_line":
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
    return reader, "\n".join(lines).encode("utf-8", "surrogatepass")


@SETTINGS
@given(st.sampled_from([*READERS, read_gaf]), st.binary(max_size=300))
def test_random_bytes(reader, data):
    run(reader, data)


@SETTINGS
@given(mutated())
def test_mutations_give_an_error_naming_a_line_or_a_table(case):
    reader, data = case
    fast = run(reader, data)
    with mock.patch.object(tsv, "parse_tsv", lambda *a, **k: None):
        slow = run(reader, data)
    assert same_outcome(fast, slow), (fast, slow)


@st.composite
def neutral(draw):
    reader = draw(st.sampled_from(READERS))
    out = []
    for line in SEEDS[reader].decode().split("\n"):
        if draw(st.booleans()):
            out.append(draw(st.sampled_from(["", " ", "\t", " \t "])))  # a blank line
        fields = line.split("\t")
        pad = st.sampled_from(["", " ", "  ", "\ufeff"])
        fields = [draw(pad) + f + draw(pad) for f in fields]
        out.append("\t".join(fields) + (draw(st.sampled_from(["", "\t", " \t", " "])) if line else ""))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    return reader, (bom + eol.join(out)).encode()


@SETTINGS
@given(neutral())
def test_neutral_changes_keep_the_rows(case):
    reader, data = case
    expected = run(reader, SEEDS[reader])
    assert not isinstance(expected, Exception)
    assert run(reader, data) == expected


@pytest.mark.parametrize("reader", READERS)
def test_seeds_are_read(reader):
    got = run(reader, SEEDS[reader])
    assert isinstance(got, list) and len(got) == 4
    assert np.isfinite([r[-1] for r in got if isinstance(r[-1], float)]).all()
