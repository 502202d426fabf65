"""Benchmark: what a later run's evaluation pays for the runs loaded before it.

An inline span is defined by the first load that delivers it
(docs/spec/ledger.md "Delivered spans"), so a run citing a chunk an earlier
run delivered depends on that run's load (docs/spec/records.md "Staleness").
This loads ``--runs`` runs of ``--claims`` claims (``bench/synthetic.py``,
split as ``bench/history.py`` splits them) into one on-disk store and
evaluates the last run; then loads only the evidence and the last run's
cases into another and evaluates it there. Prints each store's input graphs
for that run and the CPU seconds of each evaluation, and their ratio;
asserts nothing::

    python bench/history_inputs.py --claims 3000 --runs 6
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.history import split  # noqa: E402
from bench.synthetic import write_ledger  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args(argv)

    import hopgate
    from hopgate.store import catalog

    last = f"run{args.runs - 1}"
    with tempfile.TemporaryDirectory(prefix="hopgate-inputs-") as scratch:
        folder = Path(scratch)
        write_ledger(folder / "all.jsonl", args.claims, runs=args.runs)
        first, others = split(folder / "all.jsonl", folder, args.runs)
        figures = []
        for name, ledgers in (("history", [first, *others]), ("alone", [first, others[-1]])):
            with hopgate.open_store(folder / name) as store:
                for ledger in ledgers:
                    hopgate.load(store, ledger)
                inputs = len(catalog.run_inputs(store, last))
                clock = time.process_time()
                hopgate.evaluate(store, run=last)
                figures.append((name, len(ledgers), inputs, time.process_time() - clock))
    for name, loads, inputs, seconds in figures:
        print(
            f"{last} in a store of {loads} loads ({name}): {inputs} input graphs, "
            f"evaluate {seconds:.1f} CPU s"
        )
    print(f"history / alone: {figures[0][3] / figures[1][3]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
