"""Benchmark the importers on the real samples in ``../shared/data``, and FEVER against its scorer.

For each data set present: import it to a JSON Lines ledger, load it into a
fresh on-disk store, make a BM25 baseline run where the data has no system
outputs (HotpotQA, MultiHop-RAG), evaluate, and read hopgate's metrics with
the peer figures. It prints records, triples and the time of each step. For
WiCE (no run) it times the shapes' two family checks as SPARQL in the store.

For FEVER it also times the FEVER scorer's own ``fever_score`` on the same
files (reading them included). The scorer comes from PyPI (``fever-scorer``
2.0.39), whose setup.py passes Python's builtin ``license`` object as the
licence and so fails to build; ``bench/install_fever_scorer.sh`` installs it
with that one line patched. Without it the comparison is skipped.

It prints figures and asserts nothing::

    python bench/real.py                 # every data set present
    python bench/real.py --only fever
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
DATA = ROOT.parent / "shared" / "data"

SETS: dict[str, tuple[str, list[str], dict[str, Any], bool]] = {
    # name: (format, inputs under DATA, import options, needs a baseline run)
    "fever": (
        "fever",
        ["fever-scorer-testdata/actual.jsonl"],
        {"predictions": "fever-scorer-testdata/predictions.jsonl"},
        False,
    ),
    "hotpotqa": ("hotpotqa", ["hotpotqa-sample/hotpotqa_train_100.json"], {}, True),
    "multihop-rag": ("multihop-rag", ["multihop-rag/multihoprag_subset500.json"], {}, True),
    "wice-dev": ("wice", ["wice/claim/dev.jsonl"], {"drop_empty": True}, False),
    "wice-test": ("wice", ["wice/claim/test.jsonl"], {"drop_empty": True}, False),
}


def _clock() -> float:
    return time.perf_counter()


def run_set(name: str, scratch: Path) -> None:
    """Import, load, (baseline,) evaluate and read metrics of one data set; print figures."""
    import hopgate
    from hopgate.audit.peers import peer_metrics
    from hopgate.audit.results import metrics
    from hopgate.decide.evaluation import evaluate
    from hopgate.ingest.adapters import import_files
    from hopgate.ingest.baseline import baseline

    format, inputs, options, needs_baseline = SETS[name]
    paths = [DATA / p for p in inputs]
    if not all(p.exists() for p in paths):
        print(f"{name}: data absent, skipped")
        return
    opts = {k: (DATA / v if k == "predictions" else v) for k, v in options.items()}
    ledger = scratch / f"{name}.jsonl"
    t = _clock()
    imported = import_files(format, paths, output=ledger, **opts)
    import_s = _clock() - t
    store = hopgate.open_store(scratch / f"{name}-store")
    t = _clock()
    loaded = hopgate.load(store, ledger)
    load_s = _clock() - t
    records = sum(imported.records.values())
    line = (
        f"{name}: {records} records ({dict(sorted(imported.records.items()))}), "
        f"{loaded.triples} triples; import {import_s:.2f} s, load {load_s:.2f} s"
    )
    if imported.dropped:
        line += f"; dropped {dict(imported.dropped)}"
    print(line)
    if needs_baseline:
        t = _clock()
        made = baseline(store, k=10, citer="top1")
        print(f"  baseline {made.run}: {_clock() - t:.2f} s ({made.spans} spans indexed)")
    if format == "wice":
        _wice_checks(store)
        store.close()
        return
    t = _clock()
    evaluate(store, force=True)
    evaluate_s = _clock() - t
    t = _clock()
    result = metrics(store)
    metrics_s = _clock() - t
    t = _clock()
    peers = peer_metrics(store)
    peers_s = _clock() - t
    print(f"  evaluate {evaluate_s:.2f} s, metrics {metrics_s:.2f} s, peer metrics {peers_s:.2f} s")
    for run, m in result.items():
        r = m.complete_set_recall
        figures = ", ".join(
            f"{p.name} {p.numerator:g}/{p.denominator}"
            for p in peers[run]
            if p.name in ("hits@10", "strict score", "evidence precision", "supporting-fact f1")
        )
        print(f"  {run}: complete-set recall {r.numerator}/{r.denominator}; {figures}")
    store.close()
    if name == "fever":
        _fever_scorer(paths[0], DATA / options["predictions"], evaluate_s)


def _wice_checks(store: Any) -> None:
    import rdflib

    from hopgate.library.artefacts import artefact

    for file, constraint in (
        ("evidence-sets-warnings.ttl", "ClaimFamily-minimal"),
        ("evidence-sets.ttl", "ClaimFamily-distinct"),
    ):
        graph = rdflib.Graph().parse(
            data=(artefact("shapes") / file).read_text(encoding="utf-8"), format="turtle"
        )
        select = graph.value(
            rdflib.URIRef("https://w3id.org/hopgate/shapes#" + constraint),
            rdflib.URIRef("http://www.w3.org/ns/shacl#select"),
        )
        t = _clock()
        rows = store.select(str(select).replace("$this", "?this"))
        claims = len({str(row["this"]) for row in rows})
        print(
            f"  {constraint} (shape SPARQL in the store): {claims} claims in {_clock() - t:.2f} s"
        )


def _fever_scorer(gold: Path, predictions: Path, evaluate_s: float) -> None:
    try:
        from fever.scorer import fever_score
    except ImportError:
        print("  FEVER scorer not installed (bench/install_fever_scorer.sh): comparison skipped")
        return
    t = _clock()
    with gold.open(encoding="utf-8") as handle:
        actual = [json.loads(line) for line in handle]
    with predictions.open(encoding="utf-8") as handle:
        predicted = [json.loads(line) for line in handle]
    scores = fever_score(predicted, actual, max_evidence=5)
    scorer_s = _clock() - t
    print(
        f"  FEVER scorer 2.0.39: {scorer_s:.2f} s (strict {scores[0]:.6f}, recall {scores[3]:.6f}) "
        f"against hopgate evaluate {evaluate_s:.2f} s"
    )


def main() -> None:
    """Parse arguments and run the benchmark for each data set present."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SETS), action="append")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"no data at {DATA}")
        return
    sys.path.insert(0, str(ROOT / "src"))
    with tempfile.TemporaryDirectory(prefix="hopgate-bench-real-") as scratch:
        for name in args.only or list(SETS):
            run_set(name, Path(scratch))


if __name__ == "__main__":
    main()
