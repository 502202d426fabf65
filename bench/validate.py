"""Benchmark ``hopgate validate`` (shapes compiled to SPARQL, run in the store) on synthetic stores.

For each size (claims), in a fresh subprocess so that peak memory is per size:
write a synthetic JSON Lines ledger (``bench/synthetic.py``), load it into a
fresh on-disk store and evaluate it (not timed), close and reopen the store,
then time ``validate(store)`` with every shipped shape on the in-store engine
(wall time, and the process's CPU time, which other jobs disturb less).
At sizes up to ``--pyshacl-max`` claims the reference engine (pySHACL over the
store's export) runs on the same store in the same process, and the ratio of
the two is printed. Peak memory is the process's maximum resident set size.
A size that exceeds ``--timeout`` seconds is reported as such.

With ``--against REV`` each size is measured twice, one after the other:
with the package of git revision ``REV`` and with the working tree's
(``src/`` on ``PYTHONPATH`` for both, so neither uses an installed copy);
the two rows of a size ran under the same machine load.

It prints figures and asserts nothing::

    python bench/validate.py --sizes 50,1000,10000
    python bench/validate.py --sizes 100000 --timeout 3600
    python bench/validate.py --sizes 100,1000,10000 --against 47ffca1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.per_size import measure_sizes  # noqa: E402 - after the path is set


def measure(claims: int, pyshacl_max: int) -> dict[str, Any]:
    """Load, evaluate and validate one synthetic store of ``claims`` claims; return figures."""
    import hopgate
    from bench.synthetic import write_ledger
    from hopgate.decide.evaluation import evaluate
    from hopgate.shacl.validation import validate

    with tempfile.TemporaryDirectory(prefix="hopgate-bench-") as scratch:
        ledger = Path(scratch) / "ledger.jsonl"
        write_ledger(ledger, claims)
        store = hopgate.open_store(Path(scratch) / "store")
        hopgate.load(store, ledger)
        evaluate(store, force=True)
        store.close()
        store = hopgate.open_store(Path(scratch) / "store")
        quads = store.count()
        started, cpu = time.perf_counter(), time.process_time()
        result = validate(store, engine="store")
        store_seconds = time.perf_counter() - started
        # CPU time of the process: less sensitive than wall time to other jobs on the machine.
        store_cpu = time.process_time() - cpu
        reference_seconds = None
        agree = None
        if claims <= pyshacl_max:
            started = time.perf_counter()
            reference = validate(store, engine="pyshacl")
            reference_seconds = time.perf_counter() - started
            agree = sorted(map(repr, reference.results)) == sorted(map(repr, result.results))
        store.close()
    return {
        "claims": claims,
        "quads": quads,
        "store_s": round(store_seconds, 2),
        "store_cpu_s": round(store_cpu, 2),
        "pyshacl_s": None if reference_seconds is None else round(reference_seconds, 2),
        "pyshacl/store": None
        if reference_seconds is None
        else round(reference_seconds / store_seconds, 1),
        "same_results": agree,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "violations": len(result.violations),
        "warnings": len(result.warnings),
    }


def main(argv: list[str] | None = None) -> int:
    """Run each size in its own subprocess and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per size")
    parser.add_argument(
        "--pyshacl-max", type=int, default=50, help="largest size also run on pySHACL"
    )
    parser.add_argument(
        "--against", metavar="REV", help="also measure git revision REV, size by size (A/B)"
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, args.pyshacl_max)))
        return 0
    columns = [
        "claims",
        "quads",
        "store_s",
        "store_cpu_s",
        "pyshacl_s",
        "pyshacl/store",
        "same_results",
        "peak_rss_mb",
        "violations",
        "warnings",
    ]
    extra = ["--pyshacl-max", str(args.pyshacl_max)]
    if args.against:
        return _against(args.against, args.sizes, columns, extra, timeout=args.timeout)
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns), flush=True)
    for size, row in measure_sizes(__file__, args.sizes, extra, timeout=args.timeout):
        if row is None:
            print(f"| {size} | timed out after {args.timeout:.0f} s |", flush=True)
            continue
        print("| " + " | ".join(str(row[c]) for c in columns) + " |", flush=True)
    return 0


def _against(
    revision: str, sizes: str, columns: list[str], extra: list[str], *, timeout: float
) -> int:
    """Per size, measure ``revision``'s package, then the working tree's; print both rows."""
    print("| tree | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns), flush=True)
    with tempfile.TemporaryDirectory(prefix="hopgate-against-") as scratch:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        trees = [(revision, Path(scratch) / "src"), ("working tree", ROOT / "src")]
        for size in (int(s) for s in sizes.split(",")):
            for label, source in trees:
                env = {**os.environ, "PYTHONPATH": str(source)}
                command = [sys.executable, __file__, "--one", str(size), *extra]
                try:
                    done = subprocess.run(
                        command, capture_output=True, text=True, env=env, timeout=timeout
                    )
                except subprocess.TimeoutExpired:
                    print(f"| {label} | {size} | timed out after {timeout:.0f} s |", flush=True)
                    continue
                if done.returncode != 0:
                    print(f"{label}, {size} claims: failed\n{done.stderr[-2000:]}", file=sys.stderr)
                    continue
                row = json.loads(done.stdout.strip().splitlines()[-1])
                cells = " | ".join(str(row[c]) for c in columns)
                print(f"| {label} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
