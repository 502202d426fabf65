"""The one way a graph becomes visible: bulk-written, then published by its catalog entry.

docs/spec/records.md "Records": a load's graph, an evaluation's bundle and an
intervention plan are each added to the store in bulk as a graph of their
own (removed again on failure), hidden from every query until the catalog
entry that publishes them is added, in one small transaction, after their
snapshots (the caches :mod:`hopgate.store.snapshots` keeps) are written and
their digests put in that entry. A process killed between two steps leaves
an unpublished graph, which the next write discards
(:func:`hopgate.store.snapshots.discard_unpublished`); the crash tests kill
the process at each step (:mod:`hopgate.faults`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hopgate import faults
from hopgate.library.projection import Projection
from hopgate.store import snapshots
from hopgate.store.base import Store


def publish(
    store: Store,
    graph: str,
    quads: Path,
    *,
    catalog_entry: Callable[[list[str]], Path],
    kind: str,
    projections: Sequence[Projection] = (),
    whole: bool = False,
    trusted: bool = False,
) -> None:
    """Add the graph ``graph`` from the N-Quads file ``quads``, then publish it.

    ``catalog_entry`` receives the snapshot lines to record (N-Triples
    statements without a graph term, possibly none) and returns the N-Quads
    file of the whole catalog entry, which is added last. ``kind`` names the
    crash-test steps (``load``, ``evaluate`` or ``plan``); ``projections``
    are the snapshots to keep (``whole``: one file holding every line);
    ``trusted``: hopgate wrote ``quads`` from terms the store already holds.
    On any failure the graph and its snapshots are removed and the error
    raised: the store is as it was.
    """
    store.add_graph(quads, graph, trusted=trusted)
    faults.step(f"{kind}:graph-added")
    try:
        kept = snapshots.keep(store, quads, graph, list(projections), whole=whole)
        faults.step(f"{kind}:snapshots-kept")
        store.add_nquads(catalog_entry(kept))
    except BaseException:
        store.remove_graph(graph)
        snapshots.remove(store, graph)
        raise
    faults.step(f"{kind}:published")


__all__ = ["publish"]
