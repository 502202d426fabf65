"""Progress on stderr: a bar on a terminal (tested through a pseudo-terminal), one line per
phase otherwise, nothing under --quiet."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hopgate import progress

ROOT = Path(__file__).resolve().parents[1]
LEDGER = ROOT / "examples" / "cedar.yaml"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _hopgate(tmp_path: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "hopgate.cli", "--store", str(tmp_path / "store"), *args]


def test_bar_on_a_pseudo_terminal(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            _hopgate(tmp_path, "load", str(LEDGER)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=120,
            check=False,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 0
    shown = b"".join(chunks).decode("utf-8")
    assert "\r" in shown  # redrawn in place
    assert re.search(r"load cedar\.yaml: write \[#+\] (\d+)/\1 records 100%", shown), shown
    assert b"hopgate:" not in done.stdout


def test_one_line_per_phase_when_not_a_terminal(tmp_path: Path) -> None:
    done = subprocess.run(
        _hopgate(tmp_path, "load", str(LEDGER)), capture_output=True, text=True, check=True
    )
    lines = done.stderr.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["load cedar.yaml"] * 3
    assert all(re.search(r" in \d+\.\d s$", line) for line in lines)
    assert "\r" not in done.stderr
    assert "check: " in lines[0] and " records in " in lines[0]


def test_quiet_prints_no_progress(tmp_path: Path) -> None:
    done = subprocess.run(
        _hopgate(tmp_path, "--quiet", "load", str(LEDGER)),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == ""
    assert "loaded" in done.stdout


def test_bar_shows_counts_and_eta() -> None:
    screen = _Terminal()
    bar = progress.for_stream(screen)
    assert isinstance(bar, progress.TerminalBar)
    bar.interval = 0.0
    with progress.phase("evaluate x: write cards", 10, unit="cards", progress=bar) as step:
        step(5)
    text = screen.getvalue()
    assert "5/10 cards  50% ETA 0:00:00" in text
    assert text.endswith("10/10 cards 100% in 0:00:00\n")


def test_library_calls_are_silent_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hopgate

    store = hopgate.open_store(None)
    hopgate.load(store, LEDGER)
    assert capsys.readouterr().err == ""
    lines = io.StringIO()
    hopgate.load(store, ROOT / "examples" / "withheld.yaml", progress=progress.PhaseLines(lines))
    assert "hopgate: load withheld.yaml: check:" in lines.getvalue()
