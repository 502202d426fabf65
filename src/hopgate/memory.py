"""Python's cyclic garbage collector paused while a command builds many small objects.

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

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
