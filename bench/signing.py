"""Benchmark signing, verifying and the report's signature check on synthetic stores.

For each size (claims), in a fresh subprocess:

1. write a synthetic JSON Lines ledger (``bench/synthetic.py``), load it into
   an in-memory store, evaluate its run, and export it with texts as TriG and
   PROV-N into a directory (not part of the figures);
2. time ``sign_directory`` (each file's bytes hashed, its dataset
   canonicalized with RDFC-1.0, one Ed25519 proof per file) and ``verify``
   (every proof, every digest, quote and PROV-CONSTRAINT);
3. time the report's signature check (``check_signature``: verify, then the
   store's export of the signed file's bundles compared with the file's
   canonical dataset), which is what ``report --signed-export`` adds.

Times are CPU seconds of the process (``time.process_time``): on a shared
machine the wall clock says more about the neighbours than about hopgate.
Most of the signing and verifying time of PROV-N is the ``prov`` package's
parser (bench/README.md "Figures behind the code").

It prints figures and asserts nothing::

    python bench/signing.py --sizes 1000
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.per_size import measure_sizes  # noqa: E402 - after the path is set


def measure(claims: int) -> dict[str, Any]:
    """Sign, verify and check one synthetic store's export of ``claims`` claims."""
    import hopgate
    from bench.synthetic import EVALUATION_READER, write_ledger
    from hopgate.bundles.export import export_bundle, write_export
    from hopgate.bundles.proofs import sign_directory
    from hopgate.bundles.signing import new_key
    from hopgate.bundles.verify import verify
    from hopgate.decide.evaluation import evaluate
    from hopgate.report.signature import check_signature
    from hopgate.store import catalog

    row: dict[str, Any] = {"claims": claims}
    with tempfile.TemporaryDirectory(prefix="hopgate-bench-") as scratch:
        ledger = Path(scratch) / "ledger.jsonl"
        write_ledger(ledger, claims)
        store = hopgate.open_store(None)
        hopgate.load(store, ledger)
        (record,) = evaluate(store)
        out = Path(scratch) / "out"
        for fmt in ("trig", "provn"):
            export = export_bundle(
                store, format=fmt, run=record.run, reader=EVALUATION_READER, with_text=True
            )
            row[f"{fmt}_mb"] = round(len(export.data) / 1e6, 1)
            write_export(export, out)
        key = new_key()
        started = time.process_time()
        sign_directory(out, key, by="Bench Signer")
        row["sign_cpu_s"] = round(time.process_time() - started, 2)
        started = time.process_time()
        report = verify(out, trusted=[key.public_multibase])
        row["verify_cpu_s"] = round(time.process_time() - started, 2)
        row["verify_ok"] = report.ok
        bundle = catalog.staleness(store, record.run).evaluation
        assert bundle is not None
        started = time.process_time()
        check = check_signature(
            store,
            out,
            bundle=bundle.bundle,
            reader=EVALUATION_READER,
            trusted=[key.public_multibase],
        )
        row["report_check_cpu_s"] = round(time.process_time() - started, 2)
        row["report_check_ok"] = not check.failed
    row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
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
    rows = []
    for _, row in measure_sizes(__file__, args.sizes):
        assert row is not None  # no timeout given
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    columns = list(rows[0]) if rows else []
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
