"""The temporary folders commands write their large files in, and the ones a killed command left.

A load of 1M claims writes 32 GB of N-Quads into its temporary folder
(bench/README.md). An error or SIGTERM unwinds and removes it
(hopgate.cli.group), but SIGKILL, the kernel's out-of-memory killer among
others, cannot: the folder stays. So each folder holds a lock file its
command keeps locked (``flock``) while it runs; the kernel releases the lock
when the process ends, however it ends. A writer (load, evaluate, plan) first
removes every hopgate folder in the temporary folder whose lock it can take
(:func:`remove_abandoned`): their commands have ended. The lock works across
processes, users and containers that share the folder, where a process id
would not.
"""

from __future__ import annotations

import fcntl
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The lock file in each folder.
OWNER = ".hopgate-owner"
#: A folder younger than this is left alone: its command may not have locked it yet.
GRACE_SECONDS = 60.0


@contextmanager
def folder(kind: str) -> Iterator[Path]:
    """A new temporary folder ``hopgate-<kind>-*``, locked as this command's until the block
    ends, then removed."""
    with tempfile.TemporaryDirectory(prefix=f"hopgate-{kind}-", ignore_cleanup_errors=True) as name:
        path = Path(name)
        with (path / OWNER).open("w") as owner:
            fcntl.flock(owner, fcntl.LOCK_EX)
            yield path


def remove_abandoned(base: Path | None = None) -> list[Path]:
    """Remove the hopgate folders in the temporary folder (``base``) whose command has ended
    (their lock is free and they are older than :data:`GRACE_SECONDS`); the folders removed."""
    removed = []
    for path in (base or Path(tempfile.gettempdir())).glob("hopgate-*"):
        owner = path / OWNER
        try:
            if time.time() - owner.stat().st_mtime < GRACE_SECONDS:
                continue
            with owner.open("a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                # Taken: nobody holds it, so the command that made the folder has ended.
                shutil.rmtree(path, ignore_errors=True)
        except OSError:  # held by a running command, not ours to open, or gone meanwhile
            continue
        removed.append(path)
    return removed


__all__ = ["GRACE_SECONDS", "OWNER", "folder", "remove_abandoned"]
