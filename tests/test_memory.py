"""goeval.memory: freed heap memory under a block still in use is given back to the system."""

from __future__ import annotations

import os
import platform

import pytest

from goeval.memory import release_freed_memory

glibc = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                           reason="malloc_trim is glibc's")


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@glibc
def test_freed_pages_under_a_live_block_go_back():
    blocks = [bytearray(b"x" * 65536) for _ in range(2000)]  # 128 MB on the heap, touched
    pinned = bytearray(b"y" * 65536)  # above them: the heap cannot shrink from its top
    del blocks
    before = _rss()
    assert release_freed_memory()
    assert before - _rss() > 64 * 2**20
    assert pinned[0] == ord("y")  # (nothing in use moved or changed)


def test_elsewhere_it_says_so(monkeypatch):
    import goeval.memory as memory

    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)  # (what another C library gives)
    assert release_freed_memory() is False
