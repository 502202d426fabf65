"""The console script's first step: the ``hopgate`` process started on a faster memory allocator.

An evaluation spends most of its CPU in Oxigraph (Rust), which allocates a
node per quad of its in-memory copies and frees them again; under glibc's
allocator a sixth of an evaluation's CPU was malloc and free themselves
(``perf`` at 10k claims; bench/README.md "``allocator.py``"). mimalloc does
the same work in less: at 10k claims a run's evaluation takes 0.80x its time
and the first evaluation of two runs 0.93x; loads and reads are unchanged.
The answers are the same (an allocator decides where memory is, never what is
in it).

No wheel on PyPI carries mimalloc, so hopgate uses the system's copy where
one is installed (Debian and Ubuntu: ``apt install libmimalloc2.0``) and
changes nothing where none is: before anything else is imported, the
process starts itself again with the library preloaded (``LD_PRELOAD``; the
same process id, arguments, input and output). That process restores
``LD_PRELOAD`` as it was, so that the programs hopgate runs (a system under
test, graphviz, a browser) start on their own allocator.

``HOPGATE_ALLOCATOR`` chooses (README.md "Quick start"):
unset or ``auto``, mimalloc where found; ``system``, the C library's own;
a path, that library (jemalloc, say). A process started with ``LD_PRELOAD``
set is left alone unless a path is named. Linux only; elsewhere nothing changes.
Seen from the outside, ``MIMALLOC_VERBOSE=1 hopgate --version`` prints mimalloc's
settings on stderr when it runs on mimalloc.
Only the console script and ``python -m hopgate.cli`` start this way; a
program calling ``hopgate`` as a library runs on its own allocator.
"""

from __future__ import annotations

import contextlib
import os
import sys
import sysconfig
from collections.abc import Mapping, MutableMapping
from pathlib import Path

#: The variable that chooses the allocator.
CHOICE = "HOPGATE_ALLOCATOR"
#: Set for the restarted process: ``<pid>:`` (LD_PRELOAD was unset) or ``<pid>:=<value>``
#: (it was ``<value>``). The restarted process keeps the id, so it knows the marker is its
#: own and restores LD_PRELOAD; a hopgate it starts has another id and chooses for itself.
_RESTARTED = "_HOPGATE_ALLOCATOR_RESTARTED"
#: Whether this process has asked for its restart already (see restart_on_allocator).
_asked = False
#: mimalloc's library as distributions install it.
_MIMALLOC = ("libmimalloc.so.2", "libmimalloc.so")


def _library_dirs() -> list[Path]:
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = [Path("/usr/lib") / multiarch] if multiarch else []
    return [*dirs, Path("/usr/lib64"), Path("/usr/lib"), Path("/usr/local/lib")]


def allocator_library(environ: Mapping[str, str]) -> Path | None:
    """The allocator library the process should start on, or None (the C library's own).

    ``environ[HOPGATE_ALLOCATOR]``: unset or ``auto`` finds mimalloc in the
    system's library folders; ``system`` is None; anything else is the path
    of a library, used when it is an ELF file of this interpreter's word size
    (a relative path from the working folder: ld.so would look a bare name up
    in the system's folders).
    """
    choice = environ.get(CHOICE, "auto").strip() or "auto"
    if choice == "system":
        return None
    if choice != "auto":
        library = Path(choice).absolute()
        if _preloadable(library):
            return library
        # A typo (mimaloc) or a missing file would run on another allocator unseen.
        sys.stderr.write(
            f"hopgate: note: {CHOICE}={ascii(choice)} is neither auto, system nor the path "
            "of a shared library ld.so can preload; running on the C library's allocator\n"
        )
        return None
    found = [folder / name for folder in _library_dirs() for name in _MIMALLOC]
    return next((path for path in found if _preloadable(path)), None)


#: The start of an ELF file of this interpreter's word size (``EI_CLASS``: 1 for 32 bits,
#: 2 for 64): what ld.so can preload into it.
_ELF = b"\x7fELF" + (b"\x02" if sys.maxsize > 2**32 else b"\x01")


def _preloadable(path: Path) -> bool:
    """Whether ld.so can preload ``path``: an ELF file of this word size, named without
    a space or colon (LD_PRELOAD separates libraries by both). Anything else would
    be restarted on in vain, ld.so printing that it cannot be preloaded before
    every command."""
    if set(str(path)) & {" ", ":"}:
        return False
    try:
        with path.open("rb") as file:
            return file.read(len(_ELF)) == _ELF
    except OSError:  # missing, a folder, unreadable
        return False


def preloaded_environment(environ: Mapping[str, str]) -> dict[str, str] | None:
    """``environ`` with the allocator library preloaded, or None where nothing is to change.

    None off Linux, when no allocator library is chosen or found, and when it is
    preloaded already. Unless ``HOPGATE_ALLOCATOR`` names a library, also None
    when ``LD_PRELOAD`` is set: a sanitizer's runtime must come first,
    valgrind's and a profiler's preloads would be escaped by the restart, and
    an operator's own allocator is their choice.
    """
    if not sys.platform.startswith("linux"):
        return None
    preloaded = environ.get("LD_PRELOAD")
    if preloaded and environ.get(CHOICE, "auto").strip() in ("", "auto"):
        return None
    library = allocator_library(environ)
    if library is None:
        return None
    if preloaded is not None and str(library) in preloaded.replace(":", " ").split():
        return None
    return {**environ, "LD_PRELOAD": f"{library} {preloaded}" if preloaded else str(library)}


def restart_environment(environ: Mapping[str, str], pid: int) -> dict[str, str] | None:
    """The environment to start process ``pid`` again in (:func:`preloaded_environment`,
    marked as this process's restart), or None to go on as it is: also in the
    restarted process itself (then ``environ`` is not changed here:
    :func:`restore_environment` does it).
    """
    if not sys.executable or environ.get(_RESTARTED, "").partition(":")[0] == str(pid):
        return None
    changed = preloaded_environment(environ)
    if changed is None:
        return None
    before = environ.get("LD_PRELOAD")
    changed[_RESTARTED] = f"{pid}:{'' if before is None else '=' + before}"
    return changed


def restore_environment(environ: MutableMapping[str, str], pid: int) -> None:
    """In the restarted process: ``LD_PRELOAD`` as it was before, the marker removed."""
    marker = environ.get(_RESTARTED)
    if marker is None:
        return
    owner, _, before = marker.partition(":")
    if owner != str(pid):
        return  # another hopgate's: this process was not restarted
    del environ[_RESTARTED]
    if before.startswith("="):
        environ["LD_PRELOAD"] = before[1:]
    else:
        environ.pop("LD_PRELOAD", None)


def restart_on_allocator() -> None:
    """Start this process again on the chosen allocator (:func:`allocator_library`), once.

    Returns in the restarted process, with ``LD_PRELOAD`` as it was; returns at
    once where nothing is to change, when the restart fails (the C library's
    allocator then), and when called again in the same process (the marker
    is gone by then, so it would restart without end). Call it before
    anything is imported or read: the process starts over from its command
    line.
    """
    global _asked
    if _asked:
        return
    _asked = True
    pid = os.getpid()
    changed = restart_environment(os.environ, pid)
    if changed is not None:
        # The interpreter's options and the command's arguments as given; the interpreter
        # named by its path, so that the same one starts (a bare "python" would be looked
        # up on PATH again). Not restarted (an OSError, or a ValueError for an environment
        # entry execve refuses): the C library's allocator.
        with contextlib.suppress(OSError, ValueError):
            os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], changed)
    restore_environment(os.environ, pid)


def main() -> None:
    """Entry point of the ``hopgate`` console script: the allocator, then the command."""
    restart_on_allocator()
    from hopgate.cli.group import main as run

    run()


__all__ = [
    "CHOICE",
    "allocator_library",
    "main",
    "preloaded_environment",
    "restart_environment",
    "restart_on_allocator",
    "restore_environment",
]
