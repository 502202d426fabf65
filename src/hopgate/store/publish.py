"""The one way a graph becomes visible: bulk-written, then published by its catalog entry.

docs/spec/records.md "Records": a load's graph, an evaluation's bundle and an
intervention plan are each added to the store in bulk as a graph of their
own (removed again on failure), while their snapshots (the caches
:mod:`hopgate.store.snapshots` keeps) are cut from the same file, and hidden
from every query until the catalog entry that publishes them, with the
snapshots' digests, is added in one small transaction. A process killed
before that leaves an unpublished graph, which the next write to the embedded
store discards with its snapshots (:func:`hopgate.store.snapshots.discard_unpublished`;
on a server, a load of the same ledger, or any writer once the write is a day old); the
crash tests kill the process at each step (:mod:`hopgate.faults`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from threading import Event

from hopgate import faults
from hopgate.library.projection import Projection
from hopgate.library.steps import load_projections
from hopgate.store import reader_answers, snapshots
from hopgate.store.base import Store


def publish(
    store: Store,
    graph: str,
    quads: Path,
    *,
    catalog_entry: Callable[[list[str]], Path],
    kind: str,
    projections: Sequence[Projection] = (),
    trusted: bool = False,
    caches: Callable[[], list[str]] | None = None,
    written: Callable[[], list[str]] | None = None,
) -> None:
    """Add the graph ``graph`` from the N-Quads file ``quads``, then publish it.

    ``catalog_entry`` receives the snapshot lines to record (N-Triples
    statements without a graph term, possibly none) and returns the N-Quads
    file of the whole catalog entry, which is added last. ``kind`` names the
    crash-test steps (``load``, ``evaluate`` or ``plan``); ``projections``
    are the snapshots to keep;
    ``trusted``: hopgate wrote ``quads`` from terms the store already holds.
    ``caches`` keeps other caches of the graph (files named by its digest,
    such as :func:`hopgate.store.answers.record`'s) while it is written, and
    returns their catalog lines; it may read the file, snapshots and the
    catalog, but no query over the union of graphs (the graph being written is
    not yet hidden from one). ``written`` keeps caches that query the graph
    itself (a server's recorded answers:
    :meth:`hopgate.store.answers.Recorder.record_written`): it is called once
    the graph is written, before the catalog entry publishes it, and returns
    their catalog lines too. On any failure the graph and its snapshots are
    removed and the error raised: the store is as it was.
    """
    # The bulk write (Rust; it releases the GIL) and the snapshot cut (Python)
    # read the same file and share nothing else, so they run side by side:
    # on the evaluation's bundle each is about half of publishing it
    # (bench/README.md "Publishing"); so does the evaluation's recording of
    # its answers, read from the same file. Their failures are handled alike.
    stop = Event()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopgate-bulk") as pool:
        added = pool.submit(store.add_graph, quads, graph, trusted=trusted, stop=stop)
        try:
            kept = snapshots.keep(store, quads, graph, list(projections))
            if caches is not None:
                kept += caches()
        except BaseException:
            _undo(store, graph, added, stop)
            raise
        try:
            added.result()  # add_graph removed what it wrote if it failed
        except BaseException:
            # Stopped in this thread (SIGTERM, Ctrl-C) while the write ran or just after
            # it ended (a server's upload ends at its next batch), or the write failed.
            _undo(store, graph, added, stop)
            raise
    if written is not None:
        try:
            kept += written()
        except BaseException:
            _discard(store, graph)
            raise
    faults.step(f"{kind}:graph-added")
    try:
        faults.step(f"{kind}:snapshots-kept")
        store.add_catalog_entry(catalog_entry(kept), graph)
    except BaseException:
        _discard(store, graph)
        raise
    faults.step(f"{kind}:published")


def publish_records(
    store: Store,
    graph: str,
    quads: Path,
    *,
    catalog_entry: Callable[[list[str]], Path],
    kind: str,
    trusted: bool = False,
) -> None:
    """:func:`publish` for a graph of ledger records (a load's, an intervention plan's):
    with the loads' snapshots, and the answers of the reader rule over the store as it
    will be with it (docs/spec/records.md "Caches"), which every read's reader filter
    would otherwise ask."""
    publish(
        store,
        graph,
        quads,
        catalog_entry=catalog_entry,
        kind=kind,
        projections=load_projections(),
        trusted=trusted,
        # On a store with snapshots the rule is asked of a copy while the graph is
        # written; on a server, there once it is written.
        caches=lambda: reader_answers.record(store, graph),
        written=lambda: reader_answers.record_written(store, graph),
    )


def _undo(store: Store, graph: str, added: Future[None], stop: Event) -> None:
    """After a failure beside the bulk write or of it: stop it where the store can, wait
    for it, then remove what this write left (:func:`_discard`)."""
    stop.set()
    # Waits. A failed add_graph removed its graph itself (another client's graph of
    # the same name may be there now): only the snapshots are this write's.
    if added.exception() is not None:
        if not store.is_published(graph):
            snapshots.remove(store, graph)
        return
    _discard(store, graph)


def _discard(store: Store, graph: str) -> None:
    """Remove the graph this write wrote and its snapshots, unless another client published
    a graph of the same name meanwhile (on a server, the same ledger loaded twice at once:
    then the graph and its caches are that client's)."""
    if store.is_published(graph):
        return
    store.remove_graph(graph)
    snapshots.remove(store, graph)


__all__ = ["publish", "publish_records"]
