"""Benchmark ``evaluate`` + ``metrics`` on synthetic stores against a plain-Python model.

For each size (claims), in a fresh subprocess so that peak memory is per size:

1. write a synthetic JSON Lines ledger (``bench/synthetic.py``) and load it
   into a fresh on-disk store (load time is printed but not part of the figure);
2. time ``hopgate.evaluate(store, force=True)`` followed by
   ``hopgate.metrics(store)``: the SPARQL engine inside the store;
3. in the same process, time the plain-Python model of the spec
   (``tests/spec_model.py``) computing the same metrics from the same ledger,
   read into memory, and check that both agree.

It prints figures and asserts nothing::

    python bench/evaluate.py --sizes 1000,10000,100000
    python bench/evaluate.py --sizes 1000000 --memory   # in-memory store
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


def _ledger_dict(path: Path) -> dict[str, Any]:
    """A JSON Lines ledger as the one-document dict the spec model reads."""
    from hopgate.ingest.ledger import KINDS

    plural = {kind: key for key, kind in KINDS.items()}
    ledger: dict[str, Any] = {"ledger": 1}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            kind = record.pop("type")
            if kind != "ledger":
                ledger.setdefault(plural[kind], []).append(record)
    return ledger


def measure(claims: int, *, memory: bool) -> dict[str, Any]:
    """Evaluate one synthetic store of ``claims`` claims; return the figures."""
    import hopgate
    from bench.synthetic import write_ledger
    from hopgate.audit.results import metrics
    from hopgate.decide.evaluation import evaluate
    from tests import spec_model

    with tempfile.TemporaryDirectory(prefix="hopgate-bench-") as scratch:
        ledger = Path(scratch) / "ledger.jsonl"
        write_ledger(ledger, claims)
        store = hopgate.open_store(None if memory else Path(scratch) / "store")
        started = time.perf_counter()
        loaded = hopgate.load(store, ledger)
        load_seconds = time.perf_counter() - started
        if not memory:  # reopen, as a user's next command would
            store.close()
            store = hopgate.open_store(Path(scratch) / "store")

        started = time.perf_counter()
        records = evaluate(store, force=True)
        figures = metrics(store)
        engine_seconds = time.perf_counter() - started
        store.close()

        started = time.perf_counter()
        model = spec_model.metrics(_ledger_dict(ledger))
        model_seconds = time.perf_counter() - started

    run = next(iter(figures))
    agree = all(
        getattr(figures[run], name).numerator == model[run][name]["numerator"]
        and getattr(figures[run], name).denominator == model[run][name]["denominator"]
        for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness")
    )
    recall = figures[run].complete_set_recall
    return {
        "claims": claims,
        "store": "memory" if memory else "disk",
        "triples": loaded.triples,
        "load_s": round(load_seconds, 2),
        "evaluate_metrics_s": round(engine_seconds, 2),
        "cards": sum(r.cards for r in records),
        "model_s": round(model_seconds, 2),
        "ratio_to_model": round(engine_seconds / model_seconds, 2) if model_seconds else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "recall": f"{recall.numerator}/{recall.denominator}",
        "agrees_with_model": agree,
    }


def main(argv: list[str] | None = None) -> int:
    """Run each size in its own subprocess and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--memory", action="store_true", help="use the in-memory store")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, memory=args.memory)))
        return 0
    rows = []
    extra = ["--memory"] if args.memory else []
    for _, row in measure_sizes(__file__, args.sizes, extra):
        assert row is not None  # no timeout given
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    columns = [
        "claims",
        "store",
        "triples",
        "load_s",
        "evaluate_metrics_s",
        "cards",
        "model_s",
        "ratio_to_model",
        "peak_rss_mb",
        "recall",
        "agrees_with_model",
    ]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
