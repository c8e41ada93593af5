"""goeval.io.files: atomic replacement for regular files, writing through devices, links and FIFOs;
the background writer (forced on tiny inputs) and the gzip files of a set."""

from __future__ import annotations

import gzip
import os
import threading

import pytest

from goeval.errors import OutputError
from goeval.io.files import BackgroundWriter, OutputSet, open_text_out, replaced_atomically


def test_what_is_replaced_atomically_and_what_written_through(tmp_path):
    (tmp_path / "f.tsv").write_text("x")
    (tmp_path / "l.tsv").symlink_to("f.tsv")
    os.mkfifo(tmp_path / "p.fifo")
    assert replaced_atomically(tmp_path / "f.tsv") == (tmp_path / "f.tsv").resolve()
    assert replaced_atomically(tmp_path / "l.tsv") == (tmp_path / "f.tsv").resolve()  # the link's file
    assert replaced_atomically(tmp_path / "new.tsv") is not None
    assert replaced_atomically(tmp_path / "p.fifo") is None
    assert replaced_atomically("/dev/null") is None


def test_symlink_keeps_its_link_and_fifo_reader_gets_the_data(tmp_path):
    (tmp_path / "f.tsv").write_text("old")
    (tmp_path / "l.tsv").symlink_to("f.tsv")
    with open_text_out(tmp_path / "l.tsv") as fh:
        fh.write("new\n")
    assert (tmp_path / "l.tsv").is_symlink() and (tmp_path / "f.tsv").read_text() == "new\n"
    fifo = tmp_path / "p.gz"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    with open_text_out(fifo) as fh:  # compressed by its name, written through
        fh.write("through\n")
    reader.join(timeout=10)
    assert gzip.decompress(got[0]) == b"through\n" and fifo.is_fifo()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_full_device_is_a_clear_error():
    with pytest.raises(OutputError, match="no space left"):
        with open_text_out("/dev/full") as fh:
            fh.write("x" * 100_000)


def test_background_writer_keeps_order_and_raises_the_writers_error(tmp_path):
    out = tmp_path / "a.bin"
    with open(out, "wb") as fh, BackgroundWriter(fh, depth=1) as w:
        for i in range(200):
            w.write(f"{i}\n".encode())
    assert out.read_text().split() == [str(i) for i in range(200)]

    class Broken:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    w = BackgroundWriter(Broken())
    w.write(b"x")
    with pytest.raises(OSError):
        for _ in range(10):
            w.write(b"y")
        w.close()
    assert not w.thread.is_alive()


def test_gzip_of_a_set_is_reproducible_and_removed_on_failure(tmp_path):
    for name in ("a", "b"):
        with OutputSet(tmp_path) as out:
            with out.open_gzip(f"{name}.tsv.gz") as fh:
                fh.write(b"p\tGO:1\t0.5\n" * 1000)
    assert (tmp_path / "a.tsv.gz").read_bytes() == (tmp_path / "b.tsv.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.tsv.gz").read_bytes()) == b"p\tGO:1\t0.5\n" * 1000
    with pytest.raises(RuntimeError):
        with OutputSet(tmp_path) as out:
            with out.open_gzip("c.tsv.gz") as fh:
                fh.write(b"x")
                raise RuntimeError("boom")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.tsv.gz", "b.tsv.gz"]
