"""Memory the process has freed, given back to the system between large independent pieces of work.

The C allocator keeps freed memory that lies below blocks still in use (glibc's heaps only shrink
from their top). Scoring many submissions one group after another leaves each group's results
(small, long-lived) above the large, freed buffers of its reads, so without giving the pages back
the process would grow with the number of submissions that never needed them at once
(``docs/benchmarks.md``: 20 full-size CAFA 6 submissions, 1,086 MiB without, 946 MiB with).
"""

from __future__ import annotations

import ctypes
import functools
import os
from typing import Any

__all__ = ["release_freed_memory"]


def release_freed_memory() -> bool:
    """Give the free pages of the C allocator's heaps back to the system.

    glibc's ``malloc_trim(0)``: every whole free page of every heap, not
    only the top, is returned (``madvise``); nothing in use moves, so no
    result changes. A few milliseconds; call it between large pieces of
    work, not in a loop.

    Returns
    -------
    bool
        Whether memory could be given back (False where the C library has
        no such call: not glibc).
    """
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, looked up once (None with another C library: ``confstr`` names glibc without
    reading a file, unlike ``platform.libc_ver``)."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        return ctypes.CDLL(None).malloc_trim
    except (ValueError, OSError, AttributeError):  # no such name (not glibc, not POSIX), or no such symbol
        return None
