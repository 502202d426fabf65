"""The ``hopgate`` command on the C library's allocator and on mimalloc, side by side, in one command.

The console script starts on mimalloc where the system has it
(``src/hopgate/cli/launch.py``); ``HOPGATE_ALLOCATOR=system`` keeps glibc's.
For one synthetic ledger (two runs), per round and per allocator, alternating:
``load`` into a fresh store, ``evaluate`` (both runs), ``evaluate --run run0
--force``, then the reads on that store (``verdicts --format json``,
``metrics``, ``gate``, ``report --format json``). Each is a process as a user
runs it; wall seconds and CPU seconds (the child's user + system).
The best round of each is printed, with the ratio mimalloc / glibc, and
whether both printed the same verdicts (card ids differ between stores, so
the rows are compared without them).

    python bench/allocator.py --claims 10000 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from bench.synthetic import write_ledger  # noqa: E402 - after the path is set
from hopgate.cli.launch import allocator_library  # noqa: E402

ALLOCATORS = ("system", "auto")
BUILD = (
    ("load", ["load", "{ledger}"]),
    ("evaluate", ["evaluate"]),
    ("evaluate --run run0 --force", ["evaluate", "--run", "run0", "--force"]),
)
READS = (
    ("verdicts --format json", ["verdicts", "--format", "json"]),
    ("metrics", ["metrics"]),
    ("gate --run run0", ["gate", "--run", "run0"]),
    ("report --format json", ["report", "--run", "run0", "--format", "json", "--pictures", "0"]),
)


def _run(allocator: str, store: Path, args: list[str]) -> tuple[bytes, float, float]:
    """(output, wall s, CPU s) of ``hopgate -q --store STORE ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hopgate.cli", "-q", "--store", str(store), *args],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOPGATE_ALLOCATOR": allocator},
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # gate exits 1 when it fails
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, wall, cpu


def _rows(verdicts: bytes) -> list[dict[str, object]]:
    return [{k: v for k, v in row.items() if k != "card"} for row in json.loads(verdicts)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/hopgate-allocator"))
    args = parser.parse_args()
    library = allocator_library({})
    if library is None:
        raise SystemExit("no mimalloc on this system (apt install libmimalloc2.0)")
    args.work.mkdir(parents=True, exist_ok=True)
    ledger = args.work / f"ledger-{args.claims}.jsonl"
    if not ledger.exists():
        write_ledger(ledger, args.claims, runs=2)
    best: dict[tuple[str, str], tuple[float, float]] = {}
    printed: dict[str, list[dict[str, object]]] = {}
    for _ in range(args.rounds):
        for allocator in ALLOCATORS:
            store = args.work / f"store-{allocator}"
            shutil.rmtree(store, ignore_errors=True)
            for name, command in (*BUILD, *READS):
                out, wall, cpu = _run(allocator, store, [a.format(ledger=ledger) for a in command])
                seen = best.get((name, allocator))
                best[name, allocator] = (wall, cpu) if seen is None or wall < seen[0] else seen
                if name.startswith("verdicts"):
                    printed[allocator] = _rows(out)
    print(f"{args.claims} claims, two runs; mimalloc: {library}; best of {args.rounds} rounds\n")
    print("| command | glibc, wall (CPU) | mimalloc, wall (CPU) | ratio (wall) |")
    print("|---|---|---|---|")
    for name, _ in (*BUILD, *READS):
        (gw, gc), (mw, mc) = best[name, "system"], best[name, "auto"]
        print(f"| `{name}` | {gw:.2f} ({gc:.2f}) | {mw:.2f} ({mc:.2f}) | {mw / gw:.2f}x |")
    same = printed["system"] == printed["auto"]
    print(f"\nthe same verdict rows on both: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
