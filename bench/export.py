"""Benchmark ``export_bundle`` per format on synthetic stores, and prov's own RDF writer.

For each size (claims), in a fresh subprocess:

1. write a synthetic JSON Lines ledger (``bench/synthetic.py``), load it into
   an in-memory store and evaluate its run (not part of the figures);
2. time the reader filter (the SPARQL CONSTRUCTs, ``export_quads``) once, then
   the serialisation of those quads in every format (TriG and JSON-LD by
   Oxigraph; PROV-N, PROV-JSON and PROV-XML through a ``prov`` document built
   from the quads, building included);
3. time the ``prov`` package's own RDF (PROV-O TriG) writer on the same
   document, and print its ratio to Oxigraph's TriG writer.

It prints figures and asserts nothing::

    python bench/export.py --sizes 1000,10000,100000
    python bench/export.py --sizes 1000 --no-prov-rdf   # skip prov's slow RDF writer
"""

from __future__ import annotations

import argparse
import io
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

FORMATS = ("trig", "jsonld", "provn", "provjson", "provxml")


def measure(claims: int, *, prov_rdf: bool) -> dict[str, Any]:
    """Export one synthetic store of ``claims`` claims in every format; return the figures."""
    import hopgate
    from bench.synthetic import EVALUATION_READER, write_ledger
    from hopgate.bundles.formats import serialize
    from hopgate.bundles.provdoc import build_document
    from hopgate.bundles.quads import export_quads
    from hopgate.bundles.scope import resolve_scope
    from hopgate.decide.evaluation import evaluate

    row: dict[str, Any] = {"claims": claims}
    with tempfile.TemporaryDirectory(prefix="hopgate-bench-") as scratch:
        ledger = Path(scratch) / "ledger.jsonl"
        write_ledger(ledger, claims)
        store = hopgate.open_store(None)
        started = time.perf_counter()
        hopgate.load(store, ledger)
        (record,) = evaluate(store)
        row["load_evaluate_s"] = round(time.perf_counter() - started, 1)
        scope = resolve_scope(store, run=record.run, reader=EVALUATION_READER)
        started = time.perf_counter()
        quads = export_quads(store, scope, with_text=True)
        row["filter_s"] = round(time.perf_counter() - started, 2)
        row["quads"] = len(quads.quads)
        for fmt in FORMATS:
            started = time.perf_counter()
            data = serialize(quads, fmt)
            row[f"{fmt}_s"] = round(time.perf_counter() - started, 2)
            row[f"{fmt}_mb"] = round(len(data) / 1e6, 1)
        if prov_rdf:
            document = build_document(quads.quads)
            started = time.perf_counter()
            buffer = io.StringIO()
            document.serialize(buffer, format="rdf", rdf_format="trig")
            row["prov_rdf_trig_s"] = round(time.perf_counter() - started, 2)
            row["prov_rdf_to_oxigraph"] = (
                round(row["prov_rdf_trig_s"] / row["trig_s"], 1) if row["trig_s"] else None
            )
    row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return row


def main(argv: list[str] | None = None) -> int:
    """Run each size in its own subprocess and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-prov-rdf", action="store_true", help="skip prov's RDF writer")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, prov_rdf=not args.no_prov_rdf)))
        return 0
    rows = []
    extra = ["--no-prov-rdf"] if args.no_prov_rdf else []
    for _, row in measure_sizes(__file__, args.sizes, extra):
        assert row is not None  # no timeout given
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    columns = sorted({key for row in rows for key in row}, key=_order)
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    return 0


def _order(column: str) -> tuple[int, str]:
    fixed = ["claims", "quads", "load_evaluate_s", "filter_s"]
    if column in fixed:
        return fixed.index(column), column
    return len(fixed), column


if __name__ == "__main__":
    sys.exit(main())
