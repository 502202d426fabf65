"""Named step boundaries of the writes, where the crash tests kill the process.

A load, an evaluation and an intervention plan each publish in the same steps
(bulk write, snapshots, catalog entry: :func:`hopgate.store.publish.publish`);
``judge`` writes its one-judgment ledger (``judge:written``) before it loads it. The crash-safety tests (tests/store/test_crash.py) run a real
``hopgate`` process with ``HOPGATE_KILL_AT=<step>`` in its environment; at
that boundary the process kills itself with SIGKILL (no cleanup, no
``finally``), exactly as a power cut or an OOM kill would leave the store.
Without the variable this is a dictionary lookup and nothing else.
"""

from __future__ import annotations

import os
import signal

#: The step boundaries, in the order each kind of write passes them.
STEPS = ("judge:written",) + tuple(
    f"{kind}:{boundary}"
    for kind in ("load", "evaluate", "plan")
    for boundary in ("graph-added", "snapshots-kept", "published")
)


def step(name: str) -> None:
    """Mark the boundary ``name``; the process dies here when the crash tests ask for it."""
    assert name in STEPS, name
    if os.environ.get("HOPGATE_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
