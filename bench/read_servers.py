"""The read commands as a user runs them, on the embedded store and on Virtuoso, in one command.

Issue 26 asks each read under 1 s at 10k claims "on the embedded store, and
the same on Virtuoso". Per size: a synthetic ledger (bench/synthetic.py, two
runs) is loaded and evaluated into an on-disk embedded store and into a
private Virtuoso (tests/virtuoso.py, the evaluation on the server); then each
read command runs as a process, ``hopgate -q --store STORE ...`` and
``hopgate -q --endpoint URL ...``, alternating, for ``--rounds`` rounds: wall
seconds and the child's CPU seconds (user + system), the best of the rounds.
"same text" compares the two stores' printed bytes (the card ids carry the
evaluation's time, so the commands compared print none: JSON without them is
compared after dropping the ``card`` and ``evaluation`` keys).

The embedded store reads the answers its evaluation recorded (and the reader
rule's answers its load recorded); a remote store keeps no such files beside
it, so every read asks its queries of the server.

    python bench/read_servers.py --sizes 3300,10000

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from synthetic import write_ledger  # noqa: E402
from virtuoso import VirtuosoServer, missing  # noqa: E402

import hopgate  # noqa: E402

#: Each command, and whether its JSON is compared (the others print card ids).
COMMANDS: dict[str, tuple[list[str], bool]] = {
    "verdicts --format json": (["verdicts", "--format", "json"], True),
    "metrics --format json": (["metrics", "--format", "json"], True),
    "gate --run run0": (["gate", "--run", "run0"], False),
    "explain": (["explain", "run0/q17/o1"], False),
}


def _run(where: list[str], args: list[str]) -> tuple[bytes, float, float]:
    """The command's output, wall seconds and CPU seconds (the child's user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hopgate.cli", "-q", *where, *args],
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, wall, cpu


def _comparable(data: bytes) -> Any:
    """The printed JSON without what names one store's evaluation (card ids, times)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("card", "evaluation")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(data))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3300,10000")
    parser.add_argument("--rounds", type=int, default=2)
    options = parser.parse_args(argv)
    reason = missing()
    if reason:
        print(reason)
        return 1
    sizes = [int(size) for size in options.sizes.split(",") if size]
    print(
        "| claims | command | embedded, wall (CPU) | Virtuoso, wall (CPU) | ratio (wall) | same |"
    )
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="hopgate-read-servers-") as scratch:
        folder = Path(scratch)
        for claims in sizes:
            ledger = folder / f"ledger-{claims}.jsonl"
            write_ledger(ledger, claims, runs=2)
            server = VirtuosoServer(folder / f"virtuoso-{claims}")
            server.start()
            try:
                with hopgate.open_store(folder / f"store-{claims}") as store:
                    hopgate.load(store, ledger)
                    hopgate.evaluate(store)
                remote = server.remote_store(timeout=3600)
                hopgate.load(remote, ledger)
                hopgate.evaluate(remote)
                remote.close()
                places = {
                    "embedded": ["--store", str(folder / f"store-{claims}")],
                    "Virtuoso": ["--endpoint", server.endpoint],
                }
                for name, (args, compared) in COMMANDS.items():
                    times: dict[str, list[tuple[float, float]]] = {p: [] for p in places}
                    printed: dict[str, bytes] = {}
                    for _ in range(options.rounds):
                        for place, where in places.items():
                            printed[place], wall, cpu = _run(where, args)
                            times[place].append((wall, cpu))
                    (ew, ec), (vw, vc) = min(times["embedded"]), min(times["Virtuoso"])
                    same = "-"
                    if compared:
                        equal = _comparable(printed["embedded"]) == _comparable(printed["Virtuoso"])
                        same = "yes" if equal else "NO"
                    print(
                        f"| {claims:,} | `{name}` | {ew:.2f} ({ec:.2f}) | {vw:.2f} ({vc:.2f}) "
                        f"| {vw / ew:.2f}x | {same} |",
                        flush=True,
                    )
            finally:
                server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
