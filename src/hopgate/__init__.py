"""hopgate: a provenance graph store for evidence-set tests of multi-hop RAG citations."""

from __future__ import annotations

__version__ = "0.1.0"

from hopgate.errors import (  # noqa: E402
    ConflictError,
    HopgateError,
    LedgerError,
    QueryError,
    StoreError,
    StoreLockedError,
)
from hopgate.loader import LoadResult, load  # noqa: E402
from hopgate.shacl_api import validate_graph  # noqa: E402
from hopgate.store import IRI, OxigraphStore, Store, open_store  # noqa: E402

__all__ = [
    "IRI",
    "ConflictError",
    "HopgateError",
    "LedgerError",
    "LoadResult",
    "OxigraphStore",
    "QueryError",
    "Store",
    "StoreError",
    "StoreLockedError",
    "__version__",
    "load",
    "open_store",
    "validate_graph",
]
