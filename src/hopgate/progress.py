"""Progress of long work (load, import, evaluate) on stderr.

A library function takes ``progress=`` (a :class:`Reporter`) or, without it,
reports to the ambient reporter that :func:`reporting` sets (the CLI sets one
per command: a bar with counts and ETA on a terminal, one line per phase
otherwise, nothing under ``--quiet``). The default ambient reporter is
silent, so library calls print nothing unless asked.

    with progress.phase("load: check", total=None) as step:
        for record in records:
            step()

    for record in progress.counted(records, "load: check"):
        ...
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO, TypeVar

from hopgate.escaping import terminal

T = TypeVar("T")


class Step(Protocol):
    """Advances the current phase by ``n`` items."""

    def __call__(self, n: int = 1) -> None: ...


class Reporter:
    """Where progress goes; this base class reports nothing."""

    def start(self, phase: str, total: int | None, unit: str) -> None:
        """A phase begins (``total`` items, when known)."""

    def advance(self, n: int) -> None:
        """``n`` more items of the current phase are done."""

    def finish(self) -> None:
        """The current phase ended."""

    def abort(self) -> None:
        """The current phase failed: its error says so, the progress says nothing more."""


class PhaseLines(Reporter):
    """One line per phase when it ends: its name, the items done and the time taken."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._phase = ""
        self._unit = ""
        self._done = 0
        self._started = 0.0

    def start(self, phase: str, total: int | None, unit: str) -> None:
        # A phase names a run: its id is data, shown on one line with no control character.
        self._phase, self._unit, self._done = terminal(phase), unit, 0
        self._started = time.monotonic()

    def advance(self, n: int) -> None:
        self._done += n

    def finish(self) -> None:
        seconds = time.monotonic() - self._started
        counted = f"{self._done} {self._unit} " if self._done else ""
        self.stream.write(f"hopgate: {self._phase}: {counted}in {seconds:.1f} s\n")
        self.stream.flush()


class TerminalBar(PhaseLines):
    """A bar redrawn in place: counts, percentage and ETA (when the total is known)."""

    WIDTH = 24

    def __init__(self, stream: TextIO, *, interval: float = 0.1) -> None:
        super().__init__(stream)
        self.interval = interval
        self._total: int | None = None
        self._drawn = 0.0
        self._lock = threading.Lock()
        self._stop: threading.Event | None = None

    def start(self, phase: str, total: int | None, unit: str) -> None:
        super().start(phase, total, unit)
        self._total = total
        self._drawn = 0.0
        self._draw()
        # A phase that advances rarely (one long query) still shows its clock.
        self._stop = threading.Event()
        threading.Thread(target=self._tick, args=(self._stop,), daemon=True).start()

    def _tick(self, stop: threading.Event) -> None:
        while not stop.wait(1.0):
            self._draw()

    def advance(self, n: int) -> None:
        super().advance(n)
        now = time.monotonic()
        if now - self._drawn >= self.interval:
            self._draw(now)

    def abort(self) -> None:
        if self._stop is not None:
            self._stop.set()
        with self._lock:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def finish(self) -> None:
        if self._stop is not None:
            self._stop.set()
        self._draw(force_total=True)
        with self._lock:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float | None = None, *, force_total: bool = False) -> None:
        with self._lock:
            self._draw_locked(now, force_total=force_total)

    def _draw_locked(self, now: float | None, *, force_total: bool) -> None:
        now = time.monotonic() if now is None else now
        self._drawn = now
        elapsed = now - self._started
        done = self._done
        if self._total:
            if force_total:
                done = max(done, self._total)
            share = min(done / self._total, 1.0)
            filled = int(share * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            if done and not force_total:
                eta = f"ETA {_clock(elapsed * (self._total - done) / done)}"
            else:
                eta = f"in {_clock(elapsed)}"
            line = (
                f"{self._phase} [{bar}] {done}/{self._total} {self._unit} {100 * share:3.0f}% {eta}"
            )
        else:
            line = f"{self._phase}: {done} {self._unit} {_clock(elapsed)}"
        self.stream.write("\r\x1b[K" + line)
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def for_stream(stream: TextIO | None = None, *, quiet: bool = False) -> Reporter:
    """The reporter for ``stream`` (default stderr): silent, a bar on a terminal, else lines."""
    if quiet:
        return Reporter()
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return TerminalBar(stream) if isatty is not None and isatty() else PhaseLines(stream)


_SILENT = Reporter()
_ambient: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar(
    "hopgate_progress", default=None
)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Make ``reporter`` the ambient one for the calls inside the block."""
    token = _ambient.set(reporter)
    try:
        yield reporter
    finally:
        _ambient.reset(token)


def current(progress: Reporter | None = None) -> Reporter:
    """``progress`` when given, else the ambient reporter."""
    if progress is not None:
        return progress
    return _ambient.get() or _SILENT


@contextmanager
def phase(
    name: str, total: int | None = None, *, unit: str = "items", progress: Reporter | None = None
) -> Iterator[Step]:
    """A phase of work: yields a step function that advances it."""
    reporter = current(progress)
    reporter.start(name, total, unit)

    def step(n: int = 1) -> None:
        reporter.advance(n)

    try:
        yield step
    except BaseException:
        reporter.abort()
        raise
    reporter.finish()


def counted(
    items: Iterable[T],
    name: str,
    total: int | None = None,
    *,
    unit: str = "items",
    progress: Reporter | None = None,
) -> Iterator[T]:
    """``items``, advancing the phase ``name`` by one for each."""
    with phase(name, total, unit=unit, progress=progress) as step:
        for item in items:
            yield item
            step()


__all__ = [
    "PhaseLines",
    "Reporter",
    "Step",
    "TerminalBar",
    "counted",
    "current",
    "for_stream",
    "phase",
    "reporting",
]
