"""Benchmark the one reader filter (``hopgate.audit.withholding``) on synthetic stores.

For each size (claims), in a fresh subprocess: write a synthetic JSON Lines
ledger (``bench/synthetic.py``), load it in memory and evaluate its run (not
part of the figures); then, for the evaluation's reader and for ``public``,
the CPU seconds of the export's quads with texts (``export_quads``) and of
the report's data and JSON (``build_report`` with no pictures), and how many
``hg:withheldFor`` markers the export carries. It prints figures and asserts
nothing::

    python bench/reader_filter.py --sizes 1000
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.per_size import measure_sizes  # noqa: E402 - after the path is set


def measure(claims: int) -> dict[str, Any]:
    """The filter's figures on one synthetic store of ``claims`` claims."""
    import hopgate
    from bench.synthetic import EVALUATION_READER, write_ledger
    from hopgate.bundles.quads import export_quads
    from hopgate.bundles.scope import resolve_scope
    from hopgate.decide.evaluation import evaluate
    from hopgate.report.build import build_report
    from hopgate.report.pages import render

    row: dict[str, Any] = {"claims": claims}
    with tempfile.TemporaryDirectory(prefix="hopgate-bench-") as scratch:
        ledger = Path(scratch) / "ledger.jsonl"
        write_ledger(ledger, claims)
        store = hopgate.open_store(None)
        hopgate.load(store, ledger)
        (record,) = evaluate(store)
        for reader in (EVALUATION_READER, "public"):
            scope = resolve_scope(store, run=record.run, reader=reader)
            started = time.process_time()
            quads = export_quads(store, scope, with_text=True)
            row[f"export_{reader}_cpu_s"] = round(time.process_time() - started, 2)
            row[f"markers_{reader}"] = sum(b"withheldFor" in line for line in quads.lines)
            started = time.process_time()
            render(build_report(store, run=record.run, reader=reader, pictures=0), "json")
            row[f"report_{reader}_cpu_s"] = round(time.process_time() - started, 2)
    return row


def main(argv: list[str] | None = None) -> int:
    """Run each size in its own subprocess and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one)))
        return 0
    rows = [row for _, row in measure_sizes(__file__, args.sizes) if row is not None]
    columns = sorted({key for row in rows for key in row}, key=lambda c: (c != "claims", c))
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
