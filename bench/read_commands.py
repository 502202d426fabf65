"""The read commands as a user runs them, this checkout beside an earlier one, in one command.

Per size, two stores of the same synthetic ledger (two runs): one loaded and
evaluated by the earlier checkout (``--before``, a git worktree), one by this
one (each records its evaluation's answers in its own file format). Each
read command then runs as a process, ``hopgate -q --store STORE ...``,
alternating: the earlier checkout on its store, this one on its store, for
``--rounds`` rounds; wall seconds and the child's CPU seconds (user + system),
the best of the rounds. "same text" runs this checkout on the earlier store too
(whose answer file it does not read: it runs the queries) and compares the
printed bytes with the earlier checkout's: the same store, so the same card ids.

    git worktree add /tmp/before f52d4a4
    python bench/read_commands.py --before /tmp/before --sizes 3300,10000

On servers (``--endpoints BEFORE,AFTER``, one size): two SPARQL endpoints
whose stores each checkout loaded and evaluated beforehand (nothing is built);
each command runs as ``hopgate -q --endpoint URL ...``, and "same text" runs
this checkout on the earlier server. ``--commands`` picks commands by name
(comma-separated prefixes, e.g. ``verdicts,metrics --format,gate,explain``).

Each store is built by its checkout's own commands, ``hopgate load``,
``hopgate evaluate`` and ``hopgate evaluate --run run0 --force`` (a second
evaluation, for ``diff``), timed the same way (printed first, so that what a read
gains can be set beside what the evaluation pays for it). Stores are kept
under ``--stores`` (default /tmp/hopgate-read-commands) and reused when present
(their build then is not timed).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env(checkout: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout / "src")}


def _build(checkout: Path, ledger: Path, path: Path) -> list[tuple[float, float]]:
    """Load and evaluate ``ledger`` into a new store at ``path`` with ``checkout``'s commands;
    the (wall, CPU) seconds of each (none when the store was already there)."""
    if (path / "store").is_dir():
        return []
    times = []
    # run0 evaluated twice, so that `diff` has two evaluations to compare.
    for args in (["load", str(ledger)], ["evaluate"], ["evaluate", "--run", "run0", "--force"]):
        _, wall, cpu = run_command(checkout, path, args)
        times.append((wall, cpu))
    return times


def run_command(checkout: Path, store: Path | str, args: list[str]) -> tuple[bytes, float, float]:
    """``hopgate -q --store STORE/store ARGS`` (``--endpoint STORE`` for a URL) as a process of
    ``checkout``: its output, wall seconds and CPU seconds (the child's user + system)."""
    where = ["--endpoint", store] if isinstance(store, str) else ["--store", str(store / "store")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hopgate.cli", "-q", *where, *args],
        env=_env(checkout),
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):  # gate exits 1 when it fails
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.decode()[-2000:]}")
    return done.stdout, wall, cpu


def _output(checkout: Path, store: Path | str) -> str:
    found, _, _ = run_command(checkout, store, ["verdicts", "--run", "run0", "--format", "json"])
    return found.split(b'"output": "', 1)[1].split(b'"', 1)[0].decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the earlier checkout")
    parser.add_argument("--sizes", default="3300,10000")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stores", type=Path, default=Path("/tmp/hopgate-read-commands"))
    parser.add_argument("--endpoints", help="BEFORE,AFTER: two servers' SPARQL endpoints")
    parser.add_argument("--commands", help="comma-separated prefixes of the commands to run")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",") if size]
    if options.endpoints:
        before_url, after_url = options.endpoints.split(",")
        print(_HEADER)
        _compare(options, sizes[0], before_url, after_url, _output(ROOT, after_url))
        return
    outputs = {}
    print("| claims | build step | before, wall (CPU) | after, wall (CPU) | ratio (wall) |")
    print("|---|---|---|---|---|")
    for claims in sizes:
        sys.path.insert(0, str(ROOT))
        from bench.synthetic import write_ledger

        ledger = options.stores / f"ledger-{claims}.jsonl"
        if not ledger.is_file():
            ledger.parent.mkdir(parents=True, exist_ok=True)
            write_ledger(ledger, claims, runs=2)
        old, new = options.stores / f"before-{claims}", options.stores / f"after-{claims}"
        built = zip(
            ("load", "evaluate", "evaluate --run run0 --force"),
            _build(options.before, ledger, old),
            _build(ROOT, ledger, new),
            strict=False,
        )
        for step, (bw, bc), (aw, ac) in built:
            print(
                f"| {claims:,} | `{step}` | {bw:.2f} ({bc:.2f}) | {aw:.2f} ({ac:.2f}) "
                f"| {aw / bw:.2f}x |",
                flush=True,
            )
        outputs[claims] = _output(ROOT, new)
    print()
    print(_HEADER)
    for claims in sizes:
        old, new = options.stores / f"before-{claims}", options.stores / f"after-{claims}"
        _compare(options, claims, old, new, outputs[claims])


_HEADER = (
    "| claims | command | before, wall (CPU) | after, wall (CPU) | ratio (wall) | same text |\n"
    "|---|---|---|---|---|---|"
)


def _compare(
    options: argparse.Namespace, claims: int, old: Path | str, new: Path | str, output: str
) -> None:
    """Each read command on the earlier checkout's store and on this one's, alternating."""
    commands = {
        "verdicts": ["verdicts"],
        "verdicts --format csv": ["verdicts", "--format", "csv"],
        "verdicts --format json": ["verdicts", "--format", "json"],
        "metrics --format json": ["metrics", "--format", "json"],
        "metrics --peers --format json": ["metrics", "--peers", "--format", "json"],
        "gate --run run0": ["gate", "--run", "run0"],
        "explain": ["explain", output],
        "diff --run run0 --format json": ["diff", "--run", "run0", "--format", "json"],
        "report --format json": [
            "report",
            "--run",
            "run0",
            "--format",
            "json",
            "--pictures",
            "0",
        ],
        # The default page, as a committee gets it: 50 cards drawn with graphviz.
        "report (HTML, 50 pictures)": ["report", "--run", "run0"],
    }
    wanted = options.commands.split(",") if options.commands else [""]
    for name, args in commands.items():
        if not any(name.startswith(prefix) for prefix in wanted):
            continue
        times: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
        for _ in range(options.rounds):
            first, wall, cpu = run_command(options.before, old, args)
            times["before"].append((wall, cpu))
            _, wall, cpu = run_command(ROOT, new, args)
            times["after"].append((wall, cpu))
        # The explained output's id is the same in both stores (same ledger).
        again, _, _ = run_command(ROOT, old, args)
        (bw, bc), (aw, ac) = min(times["before"]), min(times["after"])
        print(
            f"| {claims:,} | `{name}` | {bw:.2f} ({bc:.2f}) | {aw:.2f} ({ac:.2f}) "
            f"| {aw / bw:.2f}x | {'yes' if again == first else 'NO'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
