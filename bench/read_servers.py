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

Both stores read the answers their evaluation recorded (hopgate.store.answers:
beside the embedded store as files, on the server in a graph outside every
query's dataset). On the server each run is evaluated twice, so that the
price of recording is measured in the same command: first without recording
(``Recorder.record_written`` returning nothing), then again with ``force``,
recording. After the reads, the server's recorded answers are removed and
the reads run again, asking every query of the server ("Virtuoso, asking"):
what a store an earlier hopgate evaluated costs.

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
from hopgate.store import answers, catalog  # noqa: E402

#: Each command, and whether its JSON is compared (the others print card ids).
COMMANDS: dict[str, tuple[list[str], bool]] = {
    "verdicts --format json": (["verdicts", "--format", "json"], True),
    "metrics --format json": (["metrics", "--format", "json"], True),
    "gate --run run0": (["gate", "--run", "run0"], False),
    "explain": (["explain", "run0/q17/o1"], False),
    "report --format json": (
        ["report", "--run", "run0", "--format", "json", "--pictures", "0"],
        False,
    ),
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


def _timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _measure(
    places: dict[str, list[str]], rounds: int
) -> dict[str, tuple[dict[str, list[tuple[float, float]]], dict[str, bytes]]]:
    """Each command's (wall, CPU) per place and round, and what each place printed."""
    found = {}
    for name, (args, _) in COMMANDS.items():
        times: dict[str, list[tuple[float, float]]] = {p: [] for p in places}
        printed: dict[str, bytes] = {}
        for _ in range(rounds):
            for place, where in places.items():
                printed[place], wall, cpu = _run(where, args)
                times[place].append((wall, cpu))
        found[name] = (times, printed)
    return found


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
        "| claims | command | embedded, wall (CPU) | Virtuoso, wall (CPU) | ratio (wall) "
        "| Virtuoso, asking, wall (CPU) | same |"
    )
    print("|---|---|---|---|---|---|---|")
    evaluations: list[str] = []
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
                shipped = answers.Recorder.record_written
                answers.Recorder.record_written = lambda *a, **k: []  # type: ignore[method-assign]
                try:
                    plain = _timed(lambda r=remote: hopgate.evaluate(r))
                finally:
                    answers.Recorder.record_written = shipped  # type: ignore[method-assign]
                recording = _timed(lambda r=remote: hopgate.evaluate(r, force=True))
                evaluations.append(
                    f"{claims:,} claims, both runs on Virtuoso: evaluate {plain:.1f} s "
                    f"without recording the answers, {recording:.1f} s recording them "
                    f"({recording / plain:.2f}x)"
                )
                bundles = [catalog.latest(remote, run) for run in catalog.runs(remote)]
                places = {
                    "embedded": ["--store", str(folder / f"store-{claims}")],
                    "Virtuoso": ["--endpoint", server.endpoint],
                }
                measured = _measure(places, options.rounds)
                for found in bundles:
                    assert found is not None
                    remote.remove_caches(found.bundle)
                remote.close()
                asking = _measure({"Virtuoso": places["Virtuoso"]}, options.rounds)
                for name, (_, compared) in COMMANDS.items():
                    times, printed = measured[name]
                    (ew, ec), (vw, vc) = min(times["embedded"]), min(times["Virtuoso"])
                    aw, ac = min(asking[name][0]["Virtuoso"])
                    same = "-"
                    if compared:
                        texts = [printed["embedded"], printed["Virtuoso"]]
                        texts.append(asking[name][1]["Virtuoso"])
                        equal = all(_comparable(t) == _comparable(texts[0]) for t in texts)
                        same = "yes" if equal else "NO"
                    print(
                        f"| {claims:,} | `{name}` | {ew:.2f} ({ec:.2f}) | {vw:.2f} ({vc:.2f}) "
                        f"| {vw / ew:.2f}x | {aw:.2f} ({ac:.2f}) | {same} |",
                        flush=True,
                    )
            finally:
                server.stop()
    print()
    for line in evaluations:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
