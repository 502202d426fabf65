"""Benchmark: does a load cost what its ledger is, however many runs the store already holds?

A team loads one run's cases after another over the same evidence. Each load
should cost what its ledger is; whatever a load asks of the whole store (a
record of the reader rule's answers, once of the review queue's) grows with
the history instead. This loads run0 (the evidence and its cases), then each
other run's cases in a ledger of its own, into a fresh on-disk store, and
prints each load's seconds. With ``--before DIR`` it runs the same loads with
the hopgate of another checkout (``git worktree add DIR COMMIT``) first, in a
process of its own, on the same ledgers::

    python bench/load_history.py --claims 3000 --runs 13 --before /tmp/before

It asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.history import split  # noqa: E402 - after the path is set
from bench.synthetic import write_ledger  # noqa: E402


def _loads(ledgers: list[Path], store: Path) -> list[float]:
    """Each ledger loaded in turn into the store at ``store``: each load's seconds."""
    import hopgate

    seconds = []
    with hopgate.open_store(store) as opened:
        for ledger in ledgers:
            clock = time.perf_counter()
            hopgate.load(opened, ledger)
            seconds.append(time.perf_counter() - clock)
    return seconds


def _run(checkout: Path, ledgers: list[Path], scratch: Path) -> list[float]:
    """:func:`_loads` in a process importing the hopgate of ``checkout``."""
    store = Path(tempfile.mkdtemp(prefix="store-", dir=scratch))
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "from bench.load_history import _loads\n"
        "from pathlib import Path\n"
        "print(' '.join(f'{s:.3f}' for s in _loads([Path(p) for p in sys.argv[4:]], "
        "Path(sys.argv[3]))))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code, str(checkout / "src"), str(ROOT), str(store / "s")]
        + [str(p) for p in ledgers],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(s) for s in done.stdout.split()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=13)
    parser.add_argument("--before", type=Path, help="another checkout, loaded first")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hopgate-load-history-") as folder:
        scratch = Path(folder)
        write_ledger(scratch / "all.jsonl", args.claims, runs=args.runs)
        first, others = split(scratch / "all.jsonl", scratch, args.runs)
        ledgers = [first, *others]
        found = {}
        if args.before is not None:
            found["before"] = _run(args.before.resolve(), ledgers, scratch)
        found["this"] = _run(ROOT, ledgers, scratch)
        print(f"{args.claims} claims a run, {args.runs} runs loaded one after another (s):")
        print("| run | " + " | ".join(found) + (" | ratio |" if len(found) == 2 else ""))
        print("|---" * (len(found) + 1 + (len(found) == 2)) + "|")
        for number in range(args.runs):
            cells = [f"{found[name][number]:.2f}" for name in found]
            ratio = ""
            if len(found) == 2:
                ratio = f" | {found['this'][number] / found['before'][number]:.2f}x"
            print(f"| run{number} | " + " | ".join(cells) + ratio + " |")
        for name, seconds in found.items():
            print(f"{name}: run1 {seconds[1]:.2f} s, the last {seconds[-1]:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
