"""Benchmark: a run's evaluation costs what the run is, not what the store holds.

docs/spec/records.md "Staleness": an evaluation reads only the load graphs its
run depends on. This benchmark evaluates one run of N claims in a store
holding only it, then loads and evaluates K other runs of the same size (their
cases in ledgers of their own, over the same evidence), and evaluates the
first run again (``--force``) in that store. It prints both times and their
ratio; it asserts nothing::

    python bench/history.py --claims 10000 --others 20

In one process, on-disk stores under a temporary folder. The ledger comes
from ``bench/synthetic.py`` with K+1 runs; the cases of every run but the
first are split into a ledger of their own.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.synthetic import write_ledger  # noqa: E402 - after the path is set


def split(source: Path, folder: Path, runs: int) -> tuple[Path, list[Path]]:
    """The evidence with run0's cases, and one ledger per other run (its run record and cases)."""
    main = folder / "run0.jsonl"
    others = [folder / f"run{k}.jsonl" for k in range(1, runs)]
    outs = {f"run{k}": path.open("w", encoding="utf-8") for k, path in enumerate(others, 1)}
    header = '{"type":"ledger","ledger":1}\n'
    for out in outs.values():
        out.write(header)
    with source.open(encoding="utf-8") as lines, main.open("w", encoding="utf-8") as first:
        for line in lines:
            record = json.loads(line)
            owner = record.get("run") if record.get("type") == "case" else None
            if record.get("type") == "run" and record["id"] != "run0":
                owner = record["id"]
            if owner is not None and owner != "run0":
                outs[owner].write(line)
            else:
                first.write(line)
    for out in outs.values():
        out.close()
    return main, others


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--others", type=int, default=20)
    args = parser.parse_args(argv)

    import hopgate
    from hopgate.decide.evaluation import evaluate

    with tempfile.TemporaryDirectory(prefix="hopgate-history-") as scratch:
        folder = Path(scratch)
        clock = time.perf_counter()
        write_ledger(folder / "all.jsonl", args.claims, runs=args.others + 1)
        first, others = split(folder / "all.jsonl", folder, args.others + 1)
        print(
            f"{args.claims} claims, {args.others} other runs: ledgers written in "
            f"{time.perf_counter() - clock:.1f} s"
        )
        store = hopgate.open_store(folder / "store")
        clock = time.perf_counter()
        hopgate.load(store, first)
        print(f"load run0 (evidence and its cases): {time.perf_counter() - clock:.1f} s")
        clock = time.perf_counter()
        evaluate(store, run="run0")
        first = time.perf_counter() - clock
        clock = time.perf_counter()
        evaluate(store, run="run0", force=True)
        alone = time.perf_counter() - clock
        print(
            f"evaluate run0 in a store holding only it: {first:.2f} s the first time "
            f"(its inputs found by queries/run-inputs.rq), {alone:.2f} s again (--force)"
        )
        clock = time.perf_counter()
        for path in others:
            hopgate.load(store, path)
        print(f"load {len(others)} other runs: {time.perf_counter() - clock:.1f} s")
        clock = time.perf_counter()
        records = evaluate(store)
        reused = sum(r.reused for r in records)
        print(
            f"evaluate the stale runs: {len(records) - reused} evaluated, {reused} current "
            f"(run0 stayed current: {records[0].reused}) in {time.perf_counter() - clock:.1f} s"
        )
        clock = time.perf_counter()
        evaluate(store, run="run0", force=True)
        crowded = time.perf_counter() - clock
        print(f"evaluate run0 again among {len(others)} evaluated runs: {crowded:.2f} s")
        # Once more: the graphs published since run0's last evaluation have been
        # classified (relevant or not) by the evaluation just timed.
        clock = time.perf_counter()
        evaluate(store, run="run0", force=True)
        steady = time.perf_counter() - clock
        print(f"and once more (nothing published since): {steady:.2f} s")
        print(
            f"ratio crowded / alone (both --force): {crowded / alone:.2f}x, "
            f"{steady / alone:.2f}x once more; quads in the store: {store.count()}"
        )
        store.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
