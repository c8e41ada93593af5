"""The streaming prediction reader against read_predictions: the same rows in
the same order, the same counts, the same errors (file, line, text), in
parts and batches of every size."""

from __future__ import annotations

import bz2
import gzip
import lzma
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goeval.errors import GoevalError, InputFormatError, InvalidParameterError, UngroupedPredictionsError
from goeval.io.predictions import iter_prediction_batches, read_predictions, scan_predictions

DATA = Path(__file__).resolve().parents[1] / "data"
SYNTH = Path("/work/bench/synth3k/predictions/good.tsv")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CAFA = "AUTHOR team\nMODEL 1\nKEYWORDS sequence alignment.\n"
BODY = "T1\tGO:1\t0.5\nT1\tGO:2\t0.25\nT2\tGO:1\t1\nT2\tGO:3\t0.125\nT3\tGO:2\t0\n"


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(path.suffix)
    if opener is None:
        path.write_bytes(raw)
    else:
        with opener(path, "wb") as fh:
            fh.write(raw)
    return path


def rows(table) -> list[tuple[str, str, float]]:
    """The rows of a PairTable in their order."""
    return list(zip(table.proteins[table.protein_codes].tolist(), table.terms[table.term_codes].tolist(),
                    table.scores.tolist()))


def batches(path: Path, **kw) -> list:
    return list(iter_prediction_batches(path, **kw))


def outcome(func):
    """The result, or the error as (type, str, line, text)."""
    try:
        return func()
    except GoevalError as exc:
        return (type(exc).__name__, str(exc), getattr(exc, "line", None), getattr(exc, "text", None))


def assert_same(path: Path, part_bytes: int = 1 << 24, batch_rows: int = 1 << 20) -> None:
    """scan and the batches give what read_predictions gives (or its error)."""
    ref = outcome(lambda: read_predictions(path))
    scan = outcome(lambda: scan_predictions(path, part_bytes=part_bytes))
    got = outcome(lambda: [r for b in batches(path, batch_rows=batch_rows, part_bytes=part_bytes) for r in rows(b)])
    if isinstance(ref, tuple):
        assert scan == ref
        assert got == ref or (isinstance(got, tuple) and got[0] == "UngroupedPredictionsError")
        return
    assert not isinstance(scan, tuple), scan
    assert scan.counts == ref.counts and scan.n_rows == len(ref) == ref.counts["rows"]
    np.testing.assert_array_equal(scan.scores, np.unique(ref.scores[ref.scores > 0]))
    assert scan.n_proteins == len(ref.proteins) and scan.n_zero_scores == int((ref.scores == 0).sum())
    if scan.grouped:
        assert got == rows(ref)
    else:
        assert got == rows(ref) or got[0] == "UngroupedPredictionsError"


# ------------------------------------------------------------ every fixture
FIXTURES = sorted(p for p in DATA.rglob("*") if p.is_file())


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(DATA)) for p in FIXTURES])
def test_every_fixture_reads_as_read_predictions(path):
    for part_bytes in (1 << 24, 64, 1):
        assert_same(path, part_bytes, batch_rows=3)


@pytest.mark.slow
@pytest.mark.skipif(not SYNTH.exists(), reason="the synthetic benchmark is not here")
def test_synthetic_benchmark():
    ref = read_predictions(SYNTH)
    scan = scan_predictions(SYNTH)
    assert scan.grouped and scan.counts == ref.counts and scan.n_proteins == len(ref.proteins)
    np.testing.assert_array_equal(scan.scores, np.unique(ref.scores[ref.scores > 0]))
    pos = 0
    for batch in iter_prediction_batches(SYNTH, batch_rows=300_000, part_bytes=1 << 22):
        n = len(batch)
        assert (batch.proteins[batch.protein_codes] == ref.proteins[ref.protein_codes[pos : pos + n]]).all()
        assert (batch.terms[batch.term_codes] == ref.terms[ref.term_codes[pos : pos + n]]).all()
        np.testing.assert_array_equal(batch.scores, ref.scores[pos : pos + n])
        pos += n
    assert pos == len(ref)


# ------------------------------------------------------------ formats
@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_compressed_with_crlf(tmp_path, suffix):
    path = write(tmp_path, "p.tsv" + suffix, (CAFA + BODY + "END\n").replace("\n", "\r\n"))
    assert_same(path)
    assert_same(path, part_bytes=16, batch_rows=1)
    assert rows(next(iter(batches(path)))) == rows(read_predictions(write(tmp_path, "q.tsv", BODY)))


@pytest.mark.parametrize("text", [
    CAFA + BODY + "END\n",
    CAFA + BODY + "END\n\n  \n",
    CAFA + BODY,  # missing END
    "target\tterm\tscore\n" + BODY,
    CAFA + BODY.replace("\t", " ") + "END\n",
    CAFA + BODY.replace("\t", "  ").replace("\n", " \n") + "end\n",
    "\ufeff" + BODY.replace("\n", "\r\n"),
    "\ufeffAUTHOR x\r\n" + BODY + "\n\n\t\t\n" + "END\r\n",
    BODY.replace("T2\tGO:1\t1", "T2 GO:1  1"),  # one space-separated line in a tab file
    BODY.replace("\t", "\t ").replace("\n", "\t\n"),
    "AUTHOR x\nMODEL 1\nEND\n",
    "T1\tGO:1\t0.5",  # no final newline
])
def test_accepted_variants(tmp_path, text):
    path = write(tmp_path, "p.tsv", text)
    for part_bytes in (1 << 20, 30, 1):
        for batch_rows in (1, 2, 100):
            assert_same(path, part_bytes, batch_rows)


def test_header_only_file(tmp_path):
    """A plain file without data lines reads as its .gz does (the reader once looked at zero padding)."""
    plain = write(tmp_path, "p.tsv", "target term score\n")
    assert scan_predictions(plain).counts == read_predictions(write(tmp_path, "p.tsv.gz", "target term score\n")).counts
    assert_same(plain)


def test_counts_of_a_cafa_file(tmp_path):
    scan = scan_predictions(write(tmp_path, "p.txt", CAFA + BODY))
    assert scan.counts["missing_end"] == 1 and scan.counts["cafa_header_lines"] == 3 and not scan.counts["end_line"]
    assert scan.counts == read_predictions(tmp_path / "p.txt").counts
    assert scan.scores.tolist() == [0.125, 0.25, 0.5, 1.0] and scan.n_zero_scores == 1
    assert (scan.n_rows, scan.n_proteins, scan.grouped) == (5, 3, True)


# ------------------------------------------------------------ errors
@pytest.mark.parametrize("bad,problem", [
    ("T9\tGO:1", "3 columns"), ("T9\tGO:1\t1.5", "[0, 1]"), ("T9\tGO:1\tnan", "finite"),
    ("T9\tGO:1\thigh", "not a number"), ("T9\tGO:1\t0x1", "not a number"), ("\tGO:1\t0.5", "3 columns"),
    ("T9\tGO:1\tNA", "not a number"), ("T9\tGO:1\t1_0", "not a number"), ("END", "after the END"),
    ("T9 GO:1 x\t0.5", "3 columns"),
])
@pytest.mark.parametrize("at", [1, 2, 500, 1001])
def test_malformed_line_names_its_absolute_line(tmp_path, bad, problem, at):
    lines = [f"T{k // 4}\tGO:{k % 4}\t0.5" for k in range(1000)]
    lines.insert(at - 1, bad)
    path = write(tmp_path, "p.tsv", CAFA + "\n".join(lines) + "\nEND\n")
    ref = outcome(lambda: read_predictions(path))
    if bad == "END":  # the line after it is the error
        assert ref[2] == at + 4 and "END" in ref[1] and f"line {at + 3})" in ref[1]
    else:
        assert ref[2] == at + 3 and problem in ref[1] and ref[3] == bad
    for part_bytes in (1 << 20, 4096, 100):
        assert outcome(lambda: scan_predictions(path, part_bytes=part_bytes)) == ref
        assert outcome(lambda: batches(path, batch_rows=64, part_bytes=part_bytes)) == ref


def test_error_after_batches_were_given(tmp_path):
    text = "".join(f"T{k}\tGO:1\t0.5\n" for k in range(100)) + "T100\tGO:1\t2\n"
    path = write(tmp_path, "p.tsv", text)
    it = iter_prediction_batches(path, batch_rows=10, part_bytes=200)
    first = next(it)
    assert rows(first) == [(f"T{k}", "GO:1", 0.5) for k in range(10)]
    with pytest.raises(InputFormatError) as e:
        list(it)
    assert e.value.line == 101 and "[0, 1]" in e.value.problem


@pytest.mark.parametrize("data", [
    b"T1\tGO:1\t0.5\nT1\tGO:2\n" + b"T1\tGO:3\t0.5\n" * 300 + b"T2\t\xff\t0.1\n",  # UTF-8 beats the line
    b"T1\tGO:1\t0.5\nT1\tGO:2\n" + b"T1\tGO:3\t0.5\n" * 300 + b"T2\tGO:1\t0.1\rx\n",  # so does a lone CR
    b"T1\tGO:1\t0.5\r\n" * 300 + b"T2\tGO:1\t0.1\rx\n" + b"T3\t\xfe\t0.1\n",  # UTF-8 beats a lone CR
    b"AUTHOR \xff\nT1\tGO:1\t0.5\nT1 GO:2 0.5\n",  # a header that is not UTF-8, once the line reader runs
    b"AUTHOR \xff\nT1\tGO:1\t0.5\nT1\tGO:2\t0.5\n",  # ... and not when the fast reader succeeds
    b"AUTHOR x\rMODEL\nT1\tGO:1\t0.5\n",
    b"T1\tGO:1\t0.5\nEND\nEND\n", b"T1\tGO:1\t0.5\nEND\n\n\nT2\tGO:1\t0.5\n", b"END\nT1\tGO:1\t0.5\n",
    b"", b"\xef\xbb\xbf \n\t\n", b"P1\tGO:1\nP2\tGO:2\n", b"T1\tGO:1\t0.5\tx\n",
])
def test_errors_and_their_precedence(tmp_path, data):
    path = write(tmp_path, "p.tsv", data)
    for part_bytes in (1 << 20, 64, 1):
        assert_same(path, part_bytes, batch_rows=2)


def test_gaf_and_truth_files_are_refused_as_read_predictions_does(tmp_path):
    for path in (DATA / "tables" / "annotations.gaf", DATA / "tables" / "truth.tsv", DATA / "evaluation" / "truth.tsv"):
        ref = outcome(lambda: read_predictions(path))
        assert isinstance(ref, tuple) and ref[2] == 1
        assert outcome(lambda: scan_predictions(path)) == ref
    path = write(tmp_path, "t.tsv", "P1\tGO:1\nP2\tGO:2\n")
    with pytest.raises(InputFormatError, match="truth file") as e:
        scan_predictions(path)
    assert e.value.line == 1


def test_empty_missing_and_corrupt_files(tmp_path):
    for name, data in [("e.tsv", b""), ("e.tsv.gz", b""), ("b.tsv", b"\xef\xbb\xbf\n  \n")]:
        path = write(tmp_path, name, data)
        with pytest.raises(InputFormatError, match="empty"):
            scan_predictions(path)
        with pytest.raises(InputFormatError, match="empty"):
            batches(path)
    corrupt = tmp_path / "c.tsv.gz"
    corrupt.write_bytes(gzip.compress(("T1\tGO:1\t0.5\n" * 10000).encode())[:-100])
    assert outcome(lambda: scan_predictions(corrupt, part_bytes=1000)) == outcome(lambda: read_predictions(corrupt))
    assert "decompress" in outcome(lambda: scan_predictions(corrupt))[1]
    assert outcome(lambda: scan_predictions(tmp_path / "nope.tsv")) == outcome(lambda: read_predictions(tmp_path / "nope.tsv"))


# ------------------------------------------------------------ grouping
def test_ungrouped_file(tmp_path):
    text = "A\tGO:1\t0.5\nA\tGO:2\t0.5\nB\tGO:1\t0.5\n\nA\tGO:3\t0.25\nC\tGO:1\t1\n"
    path = write(tmp_path, "p.tsv", text)
    scan = scan_predictions(path)
    assert not scan.grouped and (scan.reappearing_protein, scan.reappearing_line) == ("A", 5)
    assert scan.n_proteins == 3 and scan.n_rows == 5
    with pytest.raises(UngroupedPredictionsError) as e:
        batches(path, batch_rows=2)
    assert e.value.protein == "A" and e.value.line == 5 and str(path) in str(e.value)
    assert isinstance(e.value, InputFormatError)
    # within one batch a reappearance is harmless: the batch holds all of A
    assert [r for b in batches(path, batch_rows=10) for r in rows(b)] == rows(read_predictions(path))


@pytest.mark.parametrize("part_bytes", [1, 13, 1 << 20])
def test_reappearance_across_parts_names_the_first_one(tmp_path, part_bytes):
    lines = [f"P{k}\tGO:1\t0.5" for k in range(50)] + ["P7\tGO:2\t0.5", "P3\tGO:2\t0.5"]
    scan = scan_predictions(write(tmp_path, "p.tsv", "\n".join(lines) + "\n"), part_bytes=part_bytes)
    assert (scan.grouped, scan.reappearing_protein, scan.reappearing_line) == (False, "P7", 51)


def test_batches_end_at_protein_boundaries(tmp_path):
    sizes = [3, 1, 7, 2, 2, 1, 9, 1]
    text = "".join(f"P{i}\tGO:{j}\t0.5\n" for i, n in enumerate(sizes) for j in range(n))
    path = write(tmp_path, "p.tsv", text)
    for batch_rows in (1, 2, 4, 8, 100):
        got = batches(path, batch_rows=batch_rows, part_bytes=40)
        assert [r for b in got for r in rows(b)] == rows(read_predictions(path))
        for b in got:
            assert len(b) <= batch_rows or len(b.proteins) == 1
            assert b.counts["rows"] == len(b)
        names = [p for b in got for p in b.proteins.tolist()]
        assert names == [f"P{i}" for i in range(len(sizes))]  # no protein split between batches


def test_parameters_and_pickling(tmp_path):
    path = write(tmp_path, "p.tsv", BODY)
    with pytest.raises(InvalidParameterError, match="'batch_rows' parameter of iter_prediction_batches"):
        batches(path, batch_rows=0)
    with pytest.raises(InvalidParameterError, match="'part_bytes' parameter of scan_predictions"):
        scan_predictions(path, part_bytes=0)
    err = pickle.loads(pickle.dumps(UngroupedPredictionsError("f.tsv", 3, "P1")))
    assert (err.path, err.line, err.protein, str(err)) == ("f.tsv", 3, "P1", str(UngroupedPredictionsError("f.tsv", 3, "P1")))


# ------------------------------------------------------------ properties
@st.composite
def prediction_files(draw):
    """A random small prediction file, grouped by protein or not, with its variants of form."""
    n = draw(st.integers(1, 40))
    proteins = draw(st.lists(st.sampled_from(["P1", "P2", "P3", "Q", "\u20ac5"]), min_size=n, max_size=n))
    if draw(st.booleans()):
        proteins = sorted(proteins, key=list(dict.fromkeys(proteins)).index)  # grouped
    terms = draw(st.lists(st.sampled_from(["GO:1", "GO:2", "GO:3", "HP:9"]), min_size=n, max_size=n))
    scores = draw(st.lists(st.sampled_from(["0", "1", "0.5", "0.25", ".125", "1e-3", "0.50"]), min_size=n, max_size=n))
    sep = draw(st.sampled_from(["\t", " ", "  \t"]))
    lines = [sep.join(f) for f in zip(proteins, terms, scores)]
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", " ", "\t"])))
    head = draw(st.sampled_from(["", CAFA, "target\tterm\tscore\n", "\ufeff"]))
    tail = draw(st.sampled_from(["", "END\n", "END\n\n"]))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = (head + "\n".join(lines) + "\n" + tail).replace("\n", eol)
    return text.encode(), draw(st.integers(1, n + 1)), draw(st.sampled_from([1, 7, 50, 1 << 20]))


@SETTINGS
@given(prediction_files())
def test_batches_put_together_are_read_predictions(case):
    data, batch_rows, part_bytes = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.tsv"
        path.write_bytes(data)
        ref = read_predictions(path)
        scan = scan_predictions(path, part_bytes=part_bytes)
        assert scan.counts == ref.counts
        got = outcome(lambda: batches(path, batch_rows=batch_rows, part_bytes=part_bytes))
        if scan.grouped:
            assert [r for b in got for r in rows(b)] == rows(ref)
            for b in got:  # each batch encoded in first-appearance order
                first = np.unique(b.protein_codes, return_index=True)[1]
                assert (b.protein_codes[np.sort(first)] == np.arange(len(b.proteins))).all()
        elif isinstance(got, tuple):
            assert got[0] == "UngroupedPredictionsError"
            lines = data.decode().replace("\r", "").split("\n")
            assert lines[got[2] - 1].split()[0].lstrip("\ufeff") in got[1]


CHARS = st.sampled_from(list("\t \n\r\ufeff\x85#!ENDGO:0.15-eAUTHOR") + ["\xff", "nan", "END\n", "1e9"])


@st.composite
def mutated(draw):
    """A valid file with a few random edits: a character or a line added, removed or moved."""
    text = (CAFA + BODY * 3 + "END\n").replace("\t", draw(st.sampled_from(["\t", " "])))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["del", "ins", "rep", "dup_line", "swap_lines"]))
        if kind in ("del", "ins", "rep") and text:
            i = draw(st.integers(0, len(text) - 1))
            c = "" if kind == "del" else draw(CHARS)
            text = text[:i] + c + text[i + (kind != "ins") :]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "dup_line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text.encode("utf-8", "surrogatepass").replace("\xff".encode(), b"\xff"), draw(st.sampled_from([1, 9, 1 << 20]))


@SETTINGS
@given(mutated())
def test_mutations_give_the_same_error_or_the_same_rows(case):
    data, part_bytes = case
    with tempfile.TemporaryDirectory() as tmp:
        assert_same(write(Path(tmp), "p.tsv", data), part_bytes, batch_rows=2)


def test_one_pass_batches_record_the_scan(tmp_path):
    """PredictionBatches: the batches of iter_prediction_batches, then the scan's counts and grouping."""
    from goeval.io.predictions import PredictionBatches

    for name, text in (("p.txt", CAFA + BODY), ("q.tsv", "P1\tGO:1\t0.5\nP1\tGO:2\t0\nP2\tGO:1\t0.5\n")):
        path = write(tmp_path, name, text)
        batches = PredictionBatches(path, batch_rows=2)
        got = [(b.proteins.tolist(), b.terms.tolist(), b.scores.tolist()) for b in batches]
        ref = [(b.proteins.tolist(), b.terms.tolist(), b.scores.tolist()) for b in iter_prediction_batches(path, batch_rows=2)]
        assert got == ref
        full = scan_predictions(path)
        assert batches.scan.counts == full.counts == read_predictions(path).counts
        assert (batches.scan.grouped, batches.scan.n_rows, batches.scan.n_proteins, batches.scan.n_zero_scores) == \
               (full.grouped, full.n_rows, full.n_proteins, full.n_zero_scores)


@st.composite
def code_pieces(draw):
    """Pieces (codes, dictionary) as a batch takes them: slices of parts encoded in first-appearance order."""
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        names = draw(st.lists(st.sampled_from("ABCDEFGH"), max_size=30))
        uniq = list(dict.fromkeys(names))
        codes = np.array([uniq.index(n) for n in names], np.int32)
        a = draw(st.integers(0, len(names)))
        b = draw(st.integers(a, len(names)))
        pieces.append((codes[a:b], np.array(uniq, dtype=object)))
    return pieces


@SETTINGS
@given(code_pieces())
def test_merged_codes_are_the_first_appearance_encoding_of_the_pieces(pieces):
    from goeval.io.predictions.batches import _merge_codes

    names = [str(u[c]) for codes, u in pieces for c in codes]
    codes, uniq = _merge_codes(pieces)
    assert codes.dtype == np.int32 and uniq.dtype == object
    assert uniq.tolist() == list(dict.fromkeys(names))  # oracle: a dict keeps first appearances in order
    assert [uniq[c] for c in codes] == names
