"""Reads as the tests of decisions use them: evaluate the stale runs, then read.

The library's reads never evaluate (docs/spec/records.md "Writes and reads"); tests
that check what an evaluation decides call these, which run ``evaluate``
first, as a user does with ``hopgate evaluate`` before ``hopgate verdicts``.
Tests of the read-only contract import the library's functions directly.
"""

from __future__ import annotations

from typing import Any

from hopgate.audit import results
from hopgate.audit.peers import PeerMetric
from hopgate.audit.peers import peer_metrics as _peer_metrics
from hopgate.audit.results import VERDICT_COLUMNS
from hopgate.bundles.export import export_bundle as _export_bundle
from hopgate.decide.evaluation import evaluate
from hopgate.store import Store
from hopgate.store.catalog import runs

#: The columns of a verdict row that the spec's model (tests/spec_model.py) computes too:
#: the JSON contract's columns and the inadmissible citations.
MODEL_COLUMNS = (*VERDICT_COLUMNS, "inadmissible_citations")


def evaluated(store: Store, run: str | None = None) -> Store:
    """Evaluate ``run`` (or every stale run) when it is known; return the store."""
    if run is None and runs(store):
        evaluate(store)
    elif run is not None and run in runs(store):
        evaluate(store, run=run)
    return store


def verdicts(store: Store, *, run: str | None = None) -> list[results.VerdictRow]:
    """Evaluate, then read the verdict rows."""
    return results.verdicts(evaluated(store, run), run=run)


def metrics(store: Store, *, run: str | None = None) -> dict[str, results.RunMetrics]:
    """Evaluate, then read the metrics."""
    return results.metrics(evaluated(store, run), run=run)


def gate(store: Store, *, run: str) -> results.GateResult:
    """Evaluate, then read the gate."""
    return results.gate(evaluated(store, run), run=run)


def peer_metrics(store: Store, *, run: str | None = None) -> dict[str, list[PeerMetric]]:
    """Evaluate, then read the peer metrics."""
    return _peer_metrics(evaluated(store, run), run=run)


def export_bundle(store: Store, **options: Any) -> Any:
    """Evaluate the run asked for (or every run), then export."""
    evaluated(store, options.get("run"))
    return _export_bundle(store, **options)
