"""A full disk ends a command with one clear error, and leaves the store as it was.

docs/spec/records.md "Records": a write is all or nothing. A load of 1M
claims needs tens of GB beside the store (bench/README.md), so a disk that
fills is a case users meet: the temporary folder (the load's N-Quads), the
store's own disk (the bulk write, whose sorted files the engine leaves behind
when it fails), or standard output. Each ends with ``Error:``, exit status 2
and the free space of the places hopgate writes, never a traceback; nothing
half written is visible in the store, and nothing is left beside it.

The small disks are tmpfs mounts (root only); where mounting is not allowed
the tests that need one skip.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CEDAR, bench_module

import hopgate
from hopgate.cli.group import cli

ROOT = Path(__file__).parents[2]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """``small_disk(size)``: a folder on a tmpfs of ``size`` (``"2m"``), unmounted after."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        folder = tmp_path / f"disk-{len(mounted)}"
        folder.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _hopgate(store: Path, *args: str) -> tuple[int, str, str]:
    runner = CliRunner()
    result = runner.invoke(cli, ["-q", "--store", str(store), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback, not a clear error
    return result.exit_code, result.stdout, result.stderr


def _quads(store: Path) -> bytes:
    with hopgate.open_store(store) as opened:
        return "\n".join(sorted(opened.graphs())).encode() + b"|" + str(opened.count()).encode()


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2,000-claim ledger: 4.6 MB, about 60 MB of N-Quads."""
    path = tmp_path_factory.mktemp("disk-full") / "l2k.jsonl"
    bench_module("synthetic").write_ledger(path, 2_000)
    return path


def test_a_full_temporary_folder_ends_the_load_with_a_clear_error(
    tmp_path: Path, small_disk: Callable[[str], Path], ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    assert _hopgate(store, "load", str(CEDAR))[0] == 0
    before = _quads(store)
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk("2m")))
    code, _, err = _hopgate(store, "load", str(ledger))
    assert code == 2
    assert err.startswith("Error: ") and "Traceback" not in err
    assert str(ledger) in err and "temporary folder" in err and "nothing was loaded" in err
    assert "set TMPDIR" in err and "MB free" in err
    assert _quads(store) == before
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert _hopgate(store, "load", str(ledger))[0] == 0  # with room, the same load succeeds


def test_a_full_store_disk_keeps_nothing_of_the_load(
    small_disk: Callable[[str], Path], ledger: Path
) -> None:
    store = small_disk("40m") / "store"
    assert _hopgate(store, "load", str(CEDAR))[0] == 0
    assert _hopgate(store, "evaluate")[0] == 0
    before = _quads(store)
    code, _, err = _hopgate(store, "load", str(ledger))
    assert code == 2
    assert err.startswith("Error: ") or "\nError: " in err
    assert "Traceback" not in err
    assert f"{ledger}: the disk of the store at {store} is full" in err
    assert "nothing of it was kept" in err
    assert _quads(store) == before
    # The bulk loader's sorted files are not left filling the disk.
    assert not list(store.glob("bulk-*.sst"))
    # The store still answers and takes writes that fit.
    assert _hopgate(store, "gate", "--run", "sys-a")[0] == 1  # the worked example's gate fails
    assert _hopgate(store, "evaluate", "--force")[0] == 0


def test_a_writer_removes_what_a_killed_bulk_write_left_and_a_reader_does_not(
    tmp_path: Path,
) -> None:
    """A bulk write killed with SIGKILL leaves its sorted files beside the store; the next
    load or evaluation removes them (it holds the store's lock: nobody else is writing),
    and a read leaves the folder as it is (reads never write)."""
    store = tmp_path / "store"
    assert _hopgate(store, "load", str(CEDAR))[0] == 0
    leftover = store / "bulk-302524715337123595474231137416212849925.sst"
    leftover.write_bytes(b"\0" * 4096)
    assert _hopgate(store, "verdicts")[0] == 0
    assert leftover.exists()
    assert _hopgate(store, "evaluate")[0] == 0
    assert not leftover.exists()


def test_standard_output_on_a_full_disk_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    store = tmp_path / "store"
    assert _hopgate(store, "load", str(CEDAR))[0] == 0
    assert _hopgate(store, "evaluate")[0] == 0
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "hopgate.cli", "-q", "--store", str(store), "verdicts"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Error: no space left on the device"), done.stderr
    assert "Traceback" not in done.stderr
