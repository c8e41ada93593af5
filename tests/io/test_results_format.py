"""The vectorized table writer: exactly ``repr``'s text for every double, gzip curves, the reader's names."""

from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.errors import GoevalError
from goeval.io import results
from goeval.io.results import format_floats, write_results, write_table
from goeval.io.results_dir import read_results_dir

EDGES = [0.0, -0.0, 1.0, 3.0, -3.0, 0.1, 1e-05, -1e-05, 1.5e-06, 1e-06, 9.999999999999999e-05, 1e-4, 1e-07, 1e-09,
         1e-10, 5e-324, 2.2250738585072014e-308, 1e16, 1e15, 9999999999999998.0, 2.0 ** 53, 1e10, 9999999999.5,
         98765432101.2, 1.5e15 + 0.5, 123456789012345.67, 1e22, 1.7976931348623157e308, float("nan"), float("inf"),
         -float("inf"), 0.30000000000000004, 1 / 3, 0.47999999999999998, 12345.0, 1e-300]


def test_edge_values_are_written_as_repr():
    assert format_floats(EDGES) == [repr(float(v)) for v in EDGES]


def test_negative_nan_is_nan():
    x = np.array([np.nan]).view(np.uint64) | np.uint64(1 << 63)
    assert format_floats(x.view(np.float64)) == ["nan"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True), max_size=50))
def test_format_floats_equals_repr(values):
    assert format_floats(np.array(values, dtype=np.float64)) == [repr(float(v)) for v in values]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2 ** 64 - 1), min_size=1, max_size=50))
def test_format_floats_equals_repr_on_any_bit_pattern(bits):
    values = [struct.unpack("<d", struct.pack("<Q", b))[0] for b in bits]
    assert format_floats(np.array(values)) == [repr(v) for v in values]


@settings(max_examples=100, deadline=None)
@given(st.integers(-12, 18), st.lists(st.integers(1, 10 ** 17), min_size=1, max_size=20))
def test_format_floats_equals_repr_at_every_decimal_exponent(exp, digits):
    values = [float(f"{d}e{exp - len(str(d)) + 1}") for d in digits]
    assert format_floats(values) == [repr(v) for v in values]


def repr_table(columns):
    """The table text the writer must give, cell by cell with ``repr``/``str``."""
    names = list(columns)
    lines = ["\t".join(names)]
    for i in range(len(columns[names[0]])):
        cells = []
        for n in names:
            v = columns[n][i]
            if isinstance(v, (float, np.floating)):
                cells.append(repr(float(v)))
            elif v is None:
                cells.append("")
            else:
                cells.append(str(v))
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def test_table_bytes_equal_repr_in_chunks(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    n = 50
    cols = {"method": np.array([f"m{i % 3}" for i in range(n)], dtype=object),
            "namespace": np.array(["BPO", None] * (n // 2), dtype=object),
            "threshold": np.round(rng.random(n), 6),
            "count": np.arange(n, dtype=np.int64) - 7,
            "flag": rng.random(n) < 0.5,
            "x": np.r_[EDGES, rng.normal(size=n - len(EDGES)) * 10.0 ** rng.integers(-8, 17, n - len(EDGES))],
            "f32": rng.random(n).astype(np.float32),
            "mixed": np.array([1.5, "a", 2] * 16 + [None, 0.25], dtype=object),
            "raw": np.array([b"ab", b"c"] * (n // 2)), "none": np.array([None] * n, dtype=object),
            "text": np.array(["x", "yy"] * (n // 2))}
    monkeypatch.setattr(results, "_CHUNK_ROWS", 7)
    write_table(tmp_path / "t.tsv", cols)
    assert (tmp_path / "t.tsv").read_bytes() == repr_table(cols).encode()


def test_empty_table_is_its_header(tmp_path):
    write_table(tmp_path / "e.tsv", {"a": np.zeros(0), "b": np.zeros(0, dtype=object)})
    assert (tmp_path / "e.tsv").read_text() == "a\tb\n"


def _curves(n=20):
    rng = np.random.default_rng(0)
    return {"method": np.array(["m"] * n, dtype=object), "namespace": np.array(["BPO"] * n, dtype=object),
            "threshold": np.sort(rng.random(n)), "coverage": rng.random(n), "precision": rng.random(n),
            "recall": rng.random(n)}


def _write(out, curves, gz):
    summary = [{"method": "m", "namespace": "BPO", "measure": "fmax", "value": 0.5, "threshold": 0.25,
                "coverage": 1.0}]
    return write_results(out, curves, summary, ["method", "namespace", "measure", "value", "threshold", "coverage"],
                         {"k": 1}, curves_gzip=gz)


def test_gzip_curves_round_trip_and_reproducible_bytes(tmp_path):
    curves = _curves()
    _write(tmp_path / "plain", curves, False)
    paths = _write(tmp_path / "gz", curves, True)
    gz = tmp_path / "gz" / "curves.tsv.gz"
    assert paths["curves"] == gz and not (tmp_path / "gz" / "curves.tsv").exists()
    data = gz.read_bytes()
    assert data[:4] == b"\x1f\x8b\x08\x00"  # no FNAME flag: no file name in the header
    assert data[4:8] == b"\x00\x00\x00\x00"  # mtime 0
    assert gzip.decompress(data) == (tmp_path / "plain" / "curves.tsv").read_bytes()
    _write(tmp_path / "gz2", curves, True)
    assert (tmp_path / "gz2" / "curves.tsv.gz").read_bytes() == data
    a, b = read_results_dir(tmp_path / "plain"), read_results_dir(tmp_path / "gz")
    assert b.files[0] == "curves.tsv.gz" and a.curves.equals(b.curves)
    assert np.array_equal(b.curves["threshold"].to_numpy(), curves["threshold"])


def test_a_new_run_removes_the_other_curves_file(tmp_path):
    _write(tmp_path, _curves(), False)
    _write(tmp_path, _curves(), True)
    assert not (tmp_path / "curves.tsv").exists() and (tmp_path / "curves.tsv.gz").exists()
    _write(tmp_path, _curves(), False)
    assert (tmp_path / "curves.tsv").exists() and not (tmp_path / "curves.tsv.gz").exists()
    _write(tmp_path, None, False)
    assert not (tmp_path / "curves.tsv").exists() and read_results_dir(tmp_path).curves is None


def test_reader_refuses_two_curves_files(tmp_path):
    _write(tmp_path, _curves(), True)
    (tmp_path / "curves.tsv").write_bytes(gzip.decompress((tmp_path / "curves.tsv.gz").read_bytes()))
    with pytest.raises(GoevalError, match="both curves.tsv and curves.tsv.gz"):
        read_results_dir(tmp_path)


def test_an_arrow_text_column_is_written_as_the_same_text_in_an_array(tmp_path, monkeypatch):
    """A writer may give a column as an Arrow string array (taken from distinct identifiers): the same bytes."""
    from goeval.io.arrow import arrow_array, string_array

    text = np.array(["P1", None, "é", "", "GO:0008150"] * 3, dtype=object)
    cols = {"target": text, "score": np.linspace(0, 1, text.size)}
    monkeypatch.setattr(results, "_CHUNK_ROWS", 4)
    write_table(tmp_path / "a.tsv", cols)
    write_table(tmp_path / "b.tsv", {**cols, "target": string_array(text)})
    assert (tmp_path / "b.tsv").read_bytes() == (tmp_path / "a.tsv").read_bytes() == repr_table(cols).encode()
    with pytest.raises(TypeError, match="Arrow column of a table is text"):
        write_table(tmp_path / "c.tsv", {"n": arrow_array(np.arange(3))})
