"""Run a benchmark's ``--one SIZE`` mode in a fresh subprocess per size.

A fresh process per size keeps peak memory (``ru_maxrss``) a per-size figure.
It runs on the memory allocator the ``hopgate`` command starts on
(:mod:`hopgate.cli.launch`: mimalloc where the system has it), so that the
figures are what a user's commands cost; ``HOPGATE_ALLOCATOR=system`` measures
the C library's. A plain-Python reference timed in the same process runs on
the same allocator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from hopgate.cli.launch import preloaded_environment


def allocator_environment() -> dict[str, str]:
    """This process's environment with the allocator library ``hopgate`` would start on
    preloaded, by the command's own rule (:func:`hopgate.cli.launch.preloaded_environment`),
    for a child."""
    changed = preloaded_environment(os.environ)
    environ = dict(os.environ) if changed is None else changed
    shown = "the allocator the process starts with" if changed is None else changed["LD_PRELOAD"]
    print(f"per-size processes on {shown}", file=sys.stderr)
    return environ


def measure_sizes(
    script: str, sizes: str, extra: Sequence[str] = (), *, timeout: float | None = None
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Yield (size, figures) per comma-separated size; figures is None when the run timed out.

    A run that fails is reported on stderr and skipped.
    """
    environ = allocator_environment()
    for size in (int(s) for s in sizes.split(",")):
        command = [sys.executable, script, "--one", str(size), *extra]
        try:
            done = subprocess.run(
                command, env=environ, capture_output=True, text=True, check=False, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            yield size, None
            continue
        if done.returncode != 0:
            print(f"{size} claims: failed\n{done.stderr[-2000:]}", file=sys.stderr)
            continue
        yield size, json.loads(done.stdout.strip().splitlines()[-1])
