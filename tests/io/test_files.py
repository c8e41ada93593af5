"""goeval.io.files: atomic replacement for regular files, writing through devices, links and FIFOs;
the background writer (forced on tiny inputs) and the gzip files of a set; the rule of what a run may
touch (inside its output folder) and the bounded JSON reader."""

from __future__ import annotations

import gzip
import os
import threading

import pytest

from goeval.errors import InputFormatError, OutputError
from goeval.io.files import (BackgroundWriter, OutputSet, inside_output, open_text_out, read_json,
                             replaced_atomically)


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


# ------------------------------------------------------------ a run touches only paths inside its output folder
def _folder_with_links(tmp_path):
    out, other = tmp_path / "out", tmp_path / "other"
    out.mkdir()
    other.mkdir()
    (out / "plots").symlink_to(other)  # a folder planted as a link to elsewhere
    (other / "victim.txt").write_text("keep\n")
    (out / "summary.tsv").symlink_to(other / "victim.txt")  # a file planted as a link
    return out, other


@pytest.mark.parametrize(("name", "problem"), [
    ("../victim", "goes up out of the folder"),
    ("a/../../victim", "goes up out of the folder"),
    ("/abs/victim", "is an absolute path"),
    ("plots/fig.png", "passes through 'plots', which is a symbolic link"),
    ("a//b", "not a plain relative path"),
    ("", "is not a file name"),
])
def test_inside_output_refuses_paths_outside_the_folder(tmp_path, name, problem):
    out, _other = _folder_with_links(tmp_path)
    with pytest.raises(OutputError, match=f"{out}/: .* {problem}"):
        inside_output(out, name)


def test_inside_output_allows_a_file_link_only_where_it_is_replaced_as_a_link(tmp_path):
    out, other = _folder_with_links(tmp_path)
    assert inside_output(out, "summary.tsv") == out / "summary.tsv"
    assert inside_output(out, "nk/new/curves.tsv") == out / "nk" / "new" / "curves.tsv"  # created as real folders
    with pytest.raises(OutputError, match="'plots' is a symbolic link"):
        inside_output(out, "plots", link_ok=False)
    (out / "file").write_text("x")
    with pytest.raises(OutputError, match="passes through 'file', which is not a folder"):
        inside_output(out, "file/x")


def test_output_set_never_writes_through_a_linked_folder(tmp_path):
    out, other = _folder_with_links(tmp_path)
    for name in ("plots/fig.png", "../escaped.tsv", str(other / "abs.tsv")):
        with pytest.raises(OutputError):
            with OutputSet(out) as files:
                with files.open(name) as fh:
                    fh.write("x\n")
    assert sorted(p.name for p in other.iterdir()) == ["victim.txt"] and not (tmp_path / "escaped.tsv").exists()
    with OutputSet(out) as files:  # a planted file link is replaced as a link: its target is untouched
        with files.open("summary.tsv") as fh:
            fh.write("new\n")
    assert not (out / "summary.tsv").is_symlink() and (out / "summary.tsv").read_text() == "new\n"
    assert (other / "victim.txt").read_text() == "keep\n"


# ------------------------------------------------------------ the bounded JSON reader
def test_read_json_refuses_deep_nesting_before_parsing(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(InputFormatError, match="deep.json: arrays or objects nested deeper than 64 levels"):
        read_json(deep)
    brackets_in_strings = tmp_path / "ok.json"
    brackets_in_strings.write_text('{"a": ["[[[[\\"{{{{", {"b": 1}]}')
    assert read_json(brackets_in_strings, max_depth=3) == {"a": ['[[[["{{{{', {"b": 1}]}


def test_read_json_refuses_large_files_and_fifos_without_reading_them(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate((32 << 20) + 1)  # sparse: nothing is written
    with pytest.raises(InputFormatError, match="big.json: 33,554,433 bytes, more than the 33,554,432"):
        read_json(big)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # no writer: opening it for reading would wait forever
    with pytest.raises(InputFormatError, match="fifo.json: not a regular file"):
        read_json(fifo)
