"""A command the user names runs contained (hopgate.processes; docs/spec/interventions.md).

Issue 25: the system command inherited the whole environment (it saw the
remote store's password variable), a timeout killed the shell but not its
child, and 400 MB of output took 1.2 GB of memory. Each is held here, for the
module and for ``interventions run`` through it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

import hopgate
from hopgate.decide.evaluation import evaluate
from hopgate.errors import CommandError
from hopgate.interventions.plan import plan
from hopgate.interventions.run import run_plan
from hopgate.processes import Limits, run_command

ROOT = Path(__file__).resolve().parents[1]
SECRET = "HOPGATE_TEST_STORE_PASSWORD"


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for init to reap it is not running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_only_the_minimal_environment_and_the_names_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SECRET, "hunter2")
    shown = run_command("env", stdin=b"", limits=Limits(timeout=10)).stdout.decode()
    names = {line.split("=", 1)[0] for line in shown.splitlines()}
    assert SECRET not in names and "hunter2" not in shown
    assert names <= {"PATH", "HOME", "LANG", "TMPDIR", "PWD", "SHLVL", "_"}  # sh adds the last 3
    passed = run_command("env", stdin=b"", limits=Limits(timeout=10, pass_env=(SECRET,)))
    assert f"{SECRET}=hunter2" in passed.stdout.decode()


def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    with pytest.raises(CommandError, match=r"timeout after 0.5 s"):
        run_command(f"sleep 60 & echo $! > {pidfile}; wait", stdin=b"", limits=Limits(timeout=0.5))
    assert time.monotonic() - started < 10
    assert _gone(int(pidfile.read_text())), "the shell's child outlived the timeout"


def test_a_child_left_behind_after_answering_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    done = run_command(
        f"sleep 60 & echo $! > {pidfile}; echo answered", stdin=b"", limits=Limits(timeout=10)
    )
    assert done.stdout == b"answered\n" and done.returncode == 0
    assert _gone(int(pidfile.read_text()))


def test_output_over_the_cap_is_an_error_naming_the_cap() -> None:
    with pytest.raises(CommandError, match=r"output over the cap of 100,000 bytes"):
        run_command("yes", stdin=b"", limits=Limits(timeout=10, output_cap=100_000))
    done = run_command(
        "head -c 100000 /dev/zero", stdin=b"", limits=Limits(timeout=10, output_cap=100_000)
    )
    assert len(done.stdout) == 100_000  # at the cap is within it


def test_stdin_larger_than_a_pipe_and_exit_status() -> None:
    data = b"x" * 1_000_000
    done = run_command("cat", stdin=data, limits=Limits(timeout=10, output_cap=2_000_000))
    assert done.stdout == data
    failed = run_command("echo oops >&2; exit 3", stdin=b"{}", limits=Limits(timeout=10))
    assert (failed.returncode, failed.last_error_line()) == (3, "oops")
    # A command that stops reading early is not an error of hopgate's.
    assert run_command("true", stdin=data, limits=Limits(timeout=10)).returncode == 0


# ---- interventions run goes through it ---------------------------------------------


def _plan_items() -> list[dict[str, object]]:
    store = hopgate.open_store(None)
    hopgate.load(store, ROOT / "examples" / "cedar.yaml")
    evaluate(store)
    return plan(store, "sys-a", variants=("gold-only",), max_sets=1).variants[:1]


def _system(tmp_path: Path, body: str) -> str:
    script = tmp_path / "system.py"
    script.write_text("import json, os, sys\nrequest = json.load(sys.stdin)\n" + body)
    return f"{sys.executable} {script}"


def test_interventions_run_system_sees_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET, "hunter2")
    system = _system(
        tmp_path,
        f'json.dump({{"answer": os.environ.get("{SECRET}", "none"), "cites": [], '
        '"correct": False}, sys.stdout)\n',
    )
    items = _plan_items()
    answers = tmp_path / "answers.jsonl"
    run_plan(items, system, answers)
    assert "hunter2" not in answers.read_text("utf-8")
    run_plan(items, system, answers, pass_env=(SECRET,))
    assert "hunter2" in answers.read_text("utf-8")


def test_interventions_run_timeout_and_cap_are_failed_variants(tmp_path: Path) -> None:
    items = _plan_items()
    pidfile = tmp_path / "grandchild.pid"
    sleeper = f"sleep 60 & echo $! > {pidfile}; sleep 60"
    ran = run_plan(items, sleeper, tmp_path / "a.jsonl", timeout=0.5)
    assert [f["reason"] for f in ran.failed] == ["timeout after 0.5 s"]
    assert _gone(int(pidfile.read_text())), "the system's child outlived its timeout"
    loud = _system(tmp_path, 'sys.stdout.write(" " * 5000 + json.dumps({"cites": []}))\n')
    ran = run_plan(items, loud, tmp_path / "b.jsonl", output_cap=1000)
    assert [f["reason"] for f in ran.failed] == [
        "output over the cap of 1,000 bytes (the command's standard output is read up to the "
        "cap only)"
    ]
    assert json.loads((tmp_path / "b.jsonl.failed.jsonl").read_text("utf-8").splitlines()[0])[
        "reason"
    ].startswith("output over the cap")
