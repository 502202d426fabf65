"""`make install-user` puts `hopgate` on PATH for a new shell (README, Quick start)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    shutil.which("make") is None or not (ROOT / ".venv" / "bin" / "hopgate").exists(),
    reason="needs make and the project's .venv (make install)",
)
def test_install_user_links_the_command_for_a_new_shell(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    made = subprocess.run(
        ["make", "--no-print-directory", "install-user"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(home / ".local" / "bin" / "hopgate") in made.stdout
    # A new login shell whose PATH has ~/.local/bin, as most Linux profiles set it.
    shell = subprocess.run(
        ["bash", "-c", 'export PATH="$HOME/.local/bin:/usr/bin:/bin"; hopgate --version'],
        env={"HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert shell.stdout.startswith("hopgate, version")
