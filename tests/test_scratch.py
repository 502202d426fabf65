"""The temporary folder a killed command leaves is removed by the next writer, a live one's never.

hopgate.scratch: SIGKILL (the out-of-memory killer among others) leaves a
load's temporary folder behind, 32 GB of N-Quads at 1M claims. Each folder's
lock file is held while its command runs; the next load, evaluation or plan
removes the folders whose lock is free.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CEDAR

import hopgate
from hopgate import scratch

#: A command that makes its folder, says where, and waits to be killed.
_HOLDER = """
import sys, time
from hopgate import scratch
with scratch.folder("load") as path:
    (path / "records.nq").write_bytes(b"x" * 4096)
    print(path, flush=True)
    time.sleep(600)
"""


def _killed_folder(base: Path) -> Path:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(base)},
    )
    assert holder.stdout is not None
    path = Path(holder.stdout.readline().strip())
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    assert path.is_dir()  # SIGKILL cannot unwind: the folder stays
    return path


def test_a_killed_commands_folder_goes_and_a_running_ones_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scratch, "GRACE_SECONDS", 0.0)
    left = _killed_folder(tmp_path)
    unrelated = tmp_path / "hopgate-notes"  # not a command's folder: no lock file
    unrelated.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with scratch.folder("eval") as running:
        assert scratch.remove_abandoned() == [left]
        assert running.is_dir() and not left.exists() and unrelated.is_dir()
    assert not running.exists()


def test_a_young_folder_is_left_for_its_command_to_lock(tmp_path: Path) -> None:
    """Between making its folder and locking it a command holds no lock: a folder younger
    than the grace period is left alone."""
    left = _killed_folder(tmp_path)
    assert scratch.remove_abandoned(tmp_path) == []
    old = time.time() - scratch.GRACE_SECONDS - 1
    os.utime(left / scratch.OWNER, (old, old))
    assert scratch.remove_abandoned(tmp_path) == [left]


def test_a_load_removes_what_a_killed_load_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "tmp"
    base.mkdir()
    left = _killed_folder(base)
    old = time.time() - scratch.GRACE_SECONDS - 1
    os.utime(left / scratch.OWNER, (old, old))
    monkeypatch.setattr("tempfile.tempdir", str(base))
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
    assert not left.exists()
    assert list(base.iterdir()) == []  # the load's own folder is gone too
