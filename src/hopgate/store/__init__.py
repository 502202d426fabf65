"""The store: one small contract (:mod:`.base`), its embedded engine (:mod:`.oxigraph`), a remote
SPARQL 1.1 endpoint (:mod:`.remote`), and what every engine shares: the catalog of published
graphs (:mod:`.catalog`), digest-checked caches (:mod:`.snapshots` of quads and
:mod:`.answers` of the bundle queries' rows, :mod:`.reader_answers` of the reader rule's and
:mod:`.queue_answers` of the review queue's, the modules that know caches exist) and the
SPARQL dialect (:mod:`.dialect`).
"""

from __future__ import annotations

from hopgate.store.base import IRI, SCRATCH_SUFFIX, BNode, DumpFormat, Row, Store, Value
from hopgate.store.oxigraph import OxigraphStore, open_store
from hopgate.store.terms import INTEGER_TYPES, bind_outer, bind_values, term_ntriples

__all__ = [
    "INTEGER_TYPES",
    "IRI",
    "SCRATCH_SUFFIX",
    "BNode",
    "DumpFormat",
    "OxigraphStore",
    "Row",
    "Store",
    "Value",
    "bind_outer",
    "bind_values",
    "open_store",
    "term_ntriples",
]
