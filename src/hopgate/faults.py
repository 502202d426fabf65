"""Named step boundaries of the writes, where the crash tests kill the process.

A load and an evaluation each publish in steps (bulk write, snapshots,
catalog entry); ``judge`` writes its one-judgment ledger before it loads it. The crash-safety tests (tests/test_crash.py) run a real
``hopgate`` process with ``HOPGATE_KILL_AT=<step>`` in its environment; at
that boundary the process kills itself with SIGKILL (no cleanup, no
``finally``), exactly as a power cut or an OOM kill would leave the store.
Without the variable this is a dictionary lookup and nothing else.
"""

from __future__ import annotations

import os
import signal

#: The step boundaries, in the order a load or an evaluation passes them.
STEPS = (
    "judge:written",
    "load:graph-added",
    "load:snapshots-kept",
    "load:published",
    "evaluate:bundle-added",
    "evaluate:snapshot-kept",
    "evaluate:published",
)


def step(name: str) -> None:
    """Mark the boundary ``name``; the process dies here when the crash tests ask for it."""
    assert name in STEPS, name
    if os.environ.get("HOPGATE_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
