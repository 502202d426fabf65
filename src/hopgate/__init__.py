"""hopgate: a provenance graph store for evidence-set tests of multi-hop RAG citations."""

from __future__ import annotations

from hopgate._version import __version__
from hopgate.api import (
    GateResult,
    RunMetrics,
    ValidationResult,
    VerdictRow,
    VerifyReport,
    baseline,
    build_report,
    diff,
    dump,
    evaluate,
    explain,
    export,
    gate,
    judge,
    load,
    metrics,
    query,
    review_changes,
    review_queue,
    sign,
    stats,
    validate,
    verdicts,
    verify,
)
from hopgate.errors import (
    ConflictError,
    HopgateError,
    LedgerError,
    MetricError,
    QueryError,
    StoreError,
    StoreLockedError,
)
from hopgate.loader import LoadResult
from hopgate.pipeline import LedgerBuilder, record
from hopgate.shacl_api import validate_graph
from hopgate.store import IRI, OxigraphStore, Store, open_store

__all__ = [
    "IRI",
    "ConflictError",
    "LedgerBuilder",
    "HopgateError",
    "LedgerError",
    "LoadResult",
    "MetricError",
    "OxigraphStore",
    "QueryError",
    "Store",
    "StoreError",
    "StoreLockedError",
    "__version__",
    "open_store",
    "record",
    "validate_graph",
    # The twin of each command (hopgate.api, docs/api.md), and its results.
    "GateResult",
    "RunMetrics",
    "ValidationResult",
    "VerdictRow",
    "VerifyReport",
    "baseline",
    "build_report",
    "diff",
    "dump",
    "evaluate",
    "explain",
    "export",
    "gate",
    "judge",
    "load",
    "metrics",
    "query",
    "review_changes",
    "review_queue",
    "sign",
    "stats",
    "validate",
    "verdicts",
    "verify",
]
