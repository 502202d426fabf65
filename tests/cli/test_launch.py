"""The console script starts on mimalloc where the system has it, and hides that from its children.

docs/install.md "The memory allocator": ``hopgate`` starts itself again with
the allocator preloaded, before importing anything; ``HOPGATE_ALLOCATOR``
chooses it (``system``: the C library's own); the programs hopgate runs
inherit ``LD_PRELOAD`` as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import required

from hopgate.cli import launch

#: A script that restarts as the console script does, then reports what it runs on and
#: what a program it starts would inherit.
_PROBE = """
import os, sys
from hopgate.cli import launch
launch.restart_on_allocator()
maps = open("/proc/self/maps").read()
print(repr(os.environ.get("LD_PRELOAD")))
print("mimalloc" in maps)
print(os.environ.get("_HOPGATE_ALLOCATOR_RESTARTED"))
"""


def _mimalloc() -> Path:
    found = launch.allocator_library({})
    if found is None or not sys.platform.startswith("linux"):
        required("no mimalloc library on this system (apt install libmimalloc2.0)")
    assert found is not None
    return found


def _probe(tmp_path: Path, **env: str | None) -> list[str]:
    script = tmp_path / "probe.py"
    script.write_text(_PROBE, encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if k not in env}
    environ.update({k: v for k, v in env.items() if v is not None})
    done = subprocess.run(
        [sys.executable, str(script)], env=environ, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_the_process_runs_on_mimalloc_and_its_children_do_not_inherit_it(tmp_path: Path) -> None:
    _mimalloc()
    assert _probe(tmp_path, LD_PRELOAD=None, HOPGATE_ALLOCATOR=None) == ["None", "True", "None"]


def test_a_preload_set_before_is_kept_for_the_children(tmp_path: Path) -> None:
    library = _mimalloc()
    # A library that is loaded already (the C library itself) keeps the test harmless.
    libc = next(
        line.split()[-1]
        for line in Path("/proc/self/maps").read_text().splitlines()
        if "/libc.so" in line or "/libc-" in line
    )
    shown = _probe(tmp_path, LD_PRELOAD=libc, HOPGATE_ALLOCATOR=str(library))
    assert shown == [repr(libc), "True", "None"]


def test_system_keeps_the_c_library_allocator(tmp_path: Path) -> None:
    _mimalloc()
    assert _probe(tmp_path, LD_PRELOAD=None, HOPGATE_ALLOCATOR="system") == [
        "None",
        "False",
        "None",
    ]


def test_the_console_script_restarts_on_it() -> None:
    _mimalloc()
    script = Path(sys.executable).with_name("hopgate")
    if not script.exists():
        pytest.skip("the hopgate console script is not installed beside this Python")
    # mimalloc says it is there when asked to be verbose; the C library says nothing.
    environ = {**os.environ, "MIMALLOC_VERBOSE": "1"}
    environ.pop("HOPGATE_ALLOCATOR", None)
    done = subprocess.run(
        [str(script), "--version"], env=environ, capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("hopgate, version")
    assert "mimalloc" in done.stderr
    # python -m hopgate.cli starts the same way.
    done = subprocess.run(
        [sys.executable, "-m", "hopgate.cli", "--version"],
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "mimalloc" in done.stderr
    environ["HOPGATE_ALLOCATOR"] = "system"
    done = subprocess.run(
        [str(script), "--version"], env=environ, capture_output=True, text=True, check=True
    )
    assert "mimalloc" not in done.stderr


def test_the_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": "system"}) is None
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": "/no/such/library.so"}) is None
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": sys.executable}) == Path(sys.executable)
    # A relative path is made absolute: ld.so would look a bare name up elsewhere.
    (tmp_path / "liballoc.so").write_bytes(Path(sys.executable).read_bytes()[:64])
    monkeypatch.chdir(tmp_path)
    assert (
        launch.allocator_library({"HOPGATE_ALLOCATOR": "liballoc.so"}) == tmp_path / "liballoc.so"
    )
    # A path LD_PRELOAD cannot hold (it separates libraries by spaces and colons).
    (tmp_path / "lib alloc.so").write_bytes(Path(sys.executable).read_bytes()[:64])
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": str(tmp_path / "lib alloc.so")}) is None
    # Not an ELF file, or one of the other word size: ld.so cannot preload it.
    (tmp_path / "notes.so").write_text("not a library", encoding="utf-8")
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": str(tmp_path / "notes.so")}) is None
    other = bytearray(Path(sys.executable).read_bytes()[:64])
    other[4] = 3 - other[4]
    (tmp_path / "other.so").write_bytes(bytes(other))
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": str(tmp_path / "other.so")}) is None
    assert launch.allocator_library({"HOPGATE_ALLOCATOR": str(tmp_path)}) is None


def test_a_file_ld_so_cannot_preload_starts_no_restart(tmp_path: Path) -> None:
    """A chosen file that is not a library is not preloaded: no restart, and no ld.so
    warning on the command's stderr."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the allocator is chosen on Linux only")
    (tmp_path / "notes.so").write_text("not a library", encoding="utf-8")
    script = tmp_path / "probe.py"
    script.write_text(_PROBE, encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    environ["HOPGATE_ALLOCATOR"] = str(tmp_path / "notes.so")
    done = subprocess.run(
        [sys.executable, str(script)], env=environ, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["None", "False", "None"]
    assert (
        "cannot be preloaded" not in done.stderr
    )  # ld.so: "... cannot be preloaded ...: ignored."
    # The choice that could not be used is said once, as a note.
    assert done.stderr.count("HOPGATE_ALLOCATOR=") == 1 and "notes.so" in done.stderr


def test_asking_twice_in_one_process_restarts_once(tmp_path: Path) -> None:
    _mimalloc()
    script = tmp_path / "twice.py"
    script.write_text(
        "import os\nfrom hopgate.cli import launch\n"
        "launch.restart_on_allocator()\nlaunch.restart_on_allocator()\n"
        "print('mimalloc' in open('/proc/self/maps').read())\n",
        encoding="utf-8",
    )
    environ = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HOPGATE_ALLOCATOR")}
    done = subprocess.run(
        [sys.executable, str(script)], env=environ, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines() == ["True"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux's")
def test_the_restart_happens_once_per_process() -> None:
    library = sys.executable  # a file that exists stands in for the library
    environ = {"HOPGATE_ALLOCATOR": library, "LD_PRELOAD": "libother.so"}
    changed = launch.restart_environment(environ, 4242)
    assert changed is not None
    assert changed["LD_PRELOAD"] == f"{library} libother.so"
    # The restarted process (the same id) goes on.
    assert launch.restart_environment(changed, 4242) is None
    # Preloaded already (by the operator): no restart.
    assert launch.restart_environment({**environ, "LD_PRELOAD": library}, 4242) is None
    # Another preload (a sanitizer, valgrind, an allocator of the operator's) and no
    # library named: no restart, the preload stays first.
    assert launch.restart_environment({"LD_PRELOAD": "libasan.so.8"}, 4242) is None
    assert (
        launch.restart_environment({"LD_PRELOAD": "x.so", "HOPGATE_ALLOCATOR": "auto"}, 1) is None
    )
    # The restarted process restores LD_PRELOAD; another process leaves the marker alone.
    other = dict(changed)
    launch.restore_environment(other, 4243)
    assert other == changed
    launch.restore_environment(changed, 4242)
    assert changed == environ
    # What it then starts sees the environment as it was: another hopgate restarts itself.
    assert launch.restart_environment(changed, 4243) is not None
    unset = launch.restart_environment({"HOPGATE_ALLOCATOR": library}, 7)
    assert unset is not None
    launch.restore_environment(unset, 7)
    assert unset == {"HOPGATE_ALLOCATOR": library}
