"""Run a benchmark's ``--one SIZE`` mode in a fresh subprocess per size.

A fresh process per size keeps peak memory (``ru_maxrss``) a per-size figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from typing import Any


def measure_sizes(
    script: str, sizes: str, extra: Sequence[str] = (), *, timeout: float | None = None
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Yield (size, figures) per comma-separated size; figures is None when the run timed out.

    A run that fails is reported on stderr and skipped.
    """
    for size in (int(s) for s in sizes.split(",")):
        command = [sys.executable, script, "--one", str(size), *extra]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, check=False, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            yield size, None
            continue
        if done.returncode != 0:
            print(f"{size} claims: failed\n{done.stderr[-2000:]}", file=sys.stderr)
            continue
        yield size, json.loads(done.stdout.strip().splitlines()[-1])
