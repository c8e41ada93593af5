"""Result writers: shortest round-trip floats, chunked text equal to the whole, atomic sets."""

from __future__ import annotations

import numpy as np

from goeval.io import results


def test_chunked_table_equals_whole_and_floats_round_trip(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    cols = {"method": np.array(["a"] * 10, dtype=object), "threshold": rng.random(10),
            "n": np.arange(10), "x": np.r_[0.1 + 0.2, 0.47999999999999998, np.nan, rng.random(7)]}
    results.write_table(tmp_path / "whole.tsv", cols)
    monkeypatch.setattr(results, "_CHUNK_ROWS", 3)
    results.write_table(tmp_path / "chunks.tsv", cols)
    text = (tmp_path / "chunks.tsv").read_text()
    assert text == (tmp_path / "whole.tsv").read_text()
    lines = text.splitlines()
    assert lines[0] == "method\tthreshold\tn\tx" and len(lines) == 11
    assert lines[1].split("\t")[3] == "0.30000000000000004" and lines[2].split("\t")[3] == "0.48"
    back = np.array([float(ln.split("\t")[1]) for ln in lines[1:]])
    assert np.array_equal(back, cols["threshold"])  # every float reads back to the same double


def test_records_table_and_missing_cells(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "_CHUNK_ROWS", 2)
    recs = [{"a": 1, "b": 0.5}, {"a": 2, "b": None}, {"a": 3}]
    results.write_table(tmp_path / "r.tsv", recs, ["a", "b"])
    assert (tmp_path / "r.tsv").read_text() == "a\tb\n1\t0.5\n2\t\n3\t\n"


def _npz_with_member(path, name, header, data=b"\0" * 64):
    """An ``.npz`` (deflated, as numpy writes it): a ``format`` entry and one array ``name`` with a hand-made header."""
    import io
    import zipfile

    fmt = io.BytesIO()
    np.save(fmt, np.array("goeval-test 1"))
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, header)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("format.npy", fmt.getvalue())
        zf.writestr(f"{name}.npy", member.getvalue() + data)
    return path


def test_an_array_declaring_more_than_its_member_holds_is_refused_before_allocating(tmp_path):
    import pytest

    from goeval.errors import InputFormatError

    path = _npz_with_member(tmp_path / "stats.npz", "0/rows",
                            {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    with pytest.raises(InputFormatError, match=r"its array '0/rows.npy' declares shape \(1000000000000,\) of float64 "
                                               r"\(8,000,000,000,000 bytes\) but its member holds 64 bytes"):
        results.read_arrays(path, "goeval-test 1", "")
    ok = _npz_with_member(tmp_path / "ok.npz", "0/rows", {"descr": "<f8", "fortran_order": False, "shape": (8,)})
    assert results.read_arrays(ok, "goeval-test 1", "")["0/rows"].tolist() == [0.0] * 8


def test_a_member_claiming_more_than_deflate_can_give_is_refused(tmp_path):
    import struct

    import pytest

    from goeval.errors import InputFormatError

    path = _npz_with_member(tmp_path / "stats.npz", "0/rows", {"descr": "<f8", "fortran_order": False, "shape": (8,)})
    data = bytearray(path.read_bytes())
    entry = data.rindex(b"PK\x01\x02")  # the central directory entry of 0/rows.npy (the last member)
    data[entry + 24 : entry + 28] = struct.pack("<I", 2**31)  # its uncompressed size, as a zip bomb would claim
    path.write_bytes(bytes(data))
    with pytest.raises(InputFormatError, match=r"its member '0/rows.npy' claims 2,147,483,648 bytes from \d+ "
                                               "compressed bytes, more than the compression can give"):
        results.read_arrays(path, "goeval-test 1", "")
