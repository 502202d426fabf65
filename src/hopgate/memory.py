"""Memory: Python's cyclic garbage collector paused while a command builds many small
objects, and freed memory given back to the system between two large copies.

An evaluation or a read turns hundreds of thousands of result rows into
tuples, strings and dataclasses, none of which form reference cycles; the
cyclic collector nevertheless scans them again and again as they survive its
generations. Pausing it for the duration is measured at 8-12 % of an
evaluation's CPU at 1k claims and a third of the plain-Python reference's time
(bench/speed-design.md "D7"). Reference counting still frees everything; the
collector runs once when the pause ends, so cycles made meanwhile (none are
expected) are freed too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block (nested pauses are fine).

    Example:
        >>> with paused_gc():
        ...     gc.isenabled()
        False
        >>> gc.isenabled()
        True
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@functools.cache
def _trim() -> Any:
    """glibc's ``malloc_trim``, or None (another C library or system)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None)
    except OSError:
        return None


def return_freed_memory() -> None:
    """Give the pages the C allocator holds free back to the system (glibc; elsewhere nothing).

    glibc keeps an arena per thread and reuses a freed page only in its own
    arena: an evaluation's working copy freed by the main thread and the
    answers' copy then parsed in another thread (hopgate.store.answers) were
    both counted in the process's memory (10k claims: 1.74 GB against 1.47 GB
    before the second copy moved to a thread; bench/README.md).
    """
    trim = _trim()
    if trim is not None:
        trim(0)
