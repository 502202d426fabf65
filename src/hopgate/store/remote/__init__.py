"""The remote store: the same :class:`~hopgate.store.Store` on any SPARQL 1.1 endpoint.

An evaluation runs on the server itself (:meth:`RemoteStore.scoped`): its
rule files as SPARQL Update into a scratch graph there, read through the
run's load graphs only, nothing of them copied to the client; with
``evaluate_on_server=False``, on an in-memory copy of the run's load graphs.

:class:`RemoteStore` (:mod:`hopgate.store.remote.store`) is built from one module
per concern:

- :mod:`hopgate.store.remote.transport`: HTTP requests, authentication, timeouts,
  retries of idempotent requests, and server failures as hopgate errors;
- :mod:`hopgate.store.remote.uploads`: writes in bounded batches, N-Quads split by
  graph, each checked whole (a new graph written in place and published by its
  catalog entry; triples added to existing graphs staged and added in one request);
- :mod:`hopgate.store.remote.reads`: whole graphs read by predicate in pages,
  checked against the server's counts (dump, working copies);
- :mod:`hopgate.store.remote.values`: SPARQL JSON results as Python values, and
  update parameters written in as escaped terms.
"""

from __future__ import annotations

from hopgate.store.remote.store import RemoteStore
from hopgate.store.remote.uploads import STAGING_BASE, staging_graph
from hopgate.store.remote.values import bind_update

__all__ = ["STAGING_BASE", "RemoteStore", "bind_update", "staging_graph"]
