"""hopgate: a provenance graph store for evidence-set tests of multi-hop RAG citations."""

from __future__ import annotations

from hopgate._version import __version__
from hopgate.errors import (
    ConflictError,
    HopgateError,
    LedgerError,
    MetricError,
    QueryError,
    StoreError,
    StoreLockedError,
)
from hopgate.loader import LoadResult, load
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
    "load",
    "open_store",
    "record",
    "validate_graph",
]
