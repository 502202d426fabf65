"""The shared lock a store opened for reading only holds (Linux).

A store opened for writing holds RocksDB's exclusive lock on its ``LOCK`` file
(a POSIX record lock, owned by the process). A reader takes a shared lock on
the same file as an *open file description* lock (``F_OFD_SETLK``), which that
exclusive lock conflicts with even inside one process: while any reader holds
one, no writer opens the store, and while a writer has it open, no reader does;
readers share it (docs/spec/records.md "Writes and reads").

Three traps of POSIX locks shape this module:

- closing *any* descriptor of a file drops every POSIX record lock the process
  holds on it, RocksDB's included: a descriptor whose lock was refused (the
  process, or another, has the store open for writing) is never closed;
- an open file description lock is shared by the descriptors a ``fork`` copies:
  a forked child (pySHACL's reference run) closes its copies at once, so that a
  child outliving its parent does not keep the store locked;
- the lock lasts as long as its holder (:class:`ReadLock`): the store, its
  views and its pending rows hold it, so the store stays locked while any of
  them can still read the engine's files, and no longer.
"""

from __future__ import annotations

import errno
import os
import struct
import weakref
from pathlib import Path

from hopgate.errors import StoreError, StoreLockedError

try:
    import fcntl
except ImportError:  # Windows: no such lock; a store is opened as for writing
    fcntl = None  # type: ignore[assignment]

#: Whether the system has open file description locks (Linux 3.15 and later).
AVAILABLE = fcntl is not None and hasattr(fcntl, "F_OFD_SETLK")

#: Descriptors whose lock was refused, by their file's (device, inode): kept open for the
#: process's life (see above), and tried again by the next reader of the same store.
_REFUSED: dict[tuple[int, int], int] = {}
#: Errors of a system or file system without such locks: the store is opened as before.
_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP})


class ReadLock:
    """A shared lock on one store's ``LOCK`` file, released when no holder is left.

    ``descriptor`` None: a store copy without a ``LOCK`` file in a folder this
    process may not write, which no writer can open either.
    """

    _live: weakref.WeakSet[ReadLock] = weakref.WeakSet()

    def __init__(self, descriptor: int | None) -> None:
        self.descriptor = descriptor
        if descriptor is not None:
            self._release = weakref.finalize(self, os.close, descriptor)
            ReadLock._live.add(self)

    @classmethod
    def _after_fork_in_child(cls) -> None:
        # The child's copies only: the parent's descriptor keeps its lock.
        for lock in list(cls._live):
            lock._release()


if AVAILABLE:
    os.register_at_fork(after_in_child=ReadLock._after_fork_in_child)


def _in_use(path: Path, *, here: bool = False) -> StoreLockedError:
    if here:
        return StoreLockedError(
            f"the store at {path} is open for writing in this process; close it first"
        )
    return StoreLockedError(
        f"the store at {path} is in use by another process; "
        "wait for it to finish or use another --store"
    )


def _flock(kind: int) -> bytes:
    # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for a file description lock)
    return struct.pack("hhqqi", kind, os.SEEK_SET, 0, 0, 0)


def _held_here(descriptor: int) -> bool:
    """True when the lock that refused ours is this process's own (its writing store)."""
    assert fcntl is not None
    try:
        found = fcntl.fcntl(descriptor, fcntl.F_OFD_GETLK, _flock(fcntl.F_RDLCK))
    except OSError:
        return False
    owner: int = struct.unpack("hhqqi", found[: struct.calcsize("hhqqi")])[4]
    return owner == os.getpid()


def acquire(path: Path) -> ReadLock | None:
    """A shared lock on the store at ``path``; None where the system has no such lock
    (the caller opens the store as for writing, as before).

    Raises:
        StoreLockedError: the store is open for writing (here or in another process).
        StoreError: the folder holds no store, or cannot be locked.
    """
    if not AVAILABLE:
        return None
    assert fcntl is not None
    lock_file = path / "LOCK"
    try:
        known = os.stat(lock_file)
        kept = _REFUSED.pop((known.st_dev, known.st_ino), None)
        descriptor = os.open(lock_file, os.O_RDONLY) if kept is None else kept
    except FileNotFoundError:
        if not (path / "CURRENT").is_file():
            raise StoreError(f"cannot open the store at {path}: it holds no store") from None
        # A copy without its lock file (a backup): made now, as a writer's open would.
        try:
            descriptor = os.open(lock_file, os.O_RDONLY | os.O_CREAT, 0o644)
        except PermissionError:
            return ReadLock(None)
        except OSError as exc:
            raise StoreError(f"cannot open the store at {path}: {exc}") from None
    except OSError as exc:
        raise StoreError(f"cannot open the store at {path}: {exc}") from None
    try:
        fcntl.fcntl(descriptor, fcntl.F_OFD_SETLK, _flock(fcntl.F_RDLCK))
    except OSError as exc:
        # Never closed: see the module's docstring.
        opened = os.fstat(descriptor)
        _REFUSED[opened.st_dev, opened.st_ino] = descriptor
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            raise _in_use(path, here=_held_here(descriptor)) from None
        if exc.errno in _UNSUPPORTED:
            return None
        raise StoreError(f"cannot lock the store at {path}: {exc}") from None
    return ReadLock(descriptor)
