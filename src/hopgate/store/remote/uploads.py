"""Writes to the remote store: batches, N-Quads splitting, all or nothing.

A new graph (a load's, a bundle) is written where it stays, in batches of a
few MB, each the server's own small transaction, and checked whole (the
server's count against the triples sent); hopgate's reads see it only once its
catalog entry is added (:mod:`hopgate.store.publish`), and a failure part-way
drops it. Triples added to existing graphs (``add_nquads``: a catalog entry)
are staged in private staging graphs and published by one update request of
``ADD`` operations (one transaction on the server).

A new graph was once staged too and published by one ``MOVE``: one
transaction as large as the graph, which a 44M-triple part grew Virtuoso's
memory by 13 GB for, and which Virtuoso's 32-bit after-image limit caps at some
75M triples (bench/README.md "7 December, morning: publishing without a MOVE").
"""

from __future__ import annotations

import contextlib
import urllib.parse
import uuid
from array import array
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from threading import Event
from typing import Any

from hopgate.errors import StoreError
from hopgate.store.base import check_iri
from hopgate.store.remote.transport import Transport
from hopgate.store.remote.values import boolean, integer, rows
from hopgate.times import xsd_datetime
from hopgate.vocab import CATALOG_GRAPH, HG, PROV, XSD

#: A new graph a server's catalog has listed as being written for this long belongs to
#: a write that never ended (its client was killed): the next load or evaluation removes
#: it (:meth:`Uploads.unpublished_graphs`). Far longer than any write runs (a 1M-claim
#: load, an hour); a shorter wait could remove a graph another client is still writing.
STALE_WRITE = timedelta(hours=24)
#: Staging graphs live outside the dataset: hopgate never lists or queries them.
STAGING_BASE = "urn:hopgate:staging:"
#: Bytes of N-Triples per write request: small enough for any server's limits.
DEFAULT_BATCH_BYTES = 4_000_000
#: Triples per ``INSERT DATA`` request: Virtuoso's SPARQL parser runs out of
#: memory near 5,000 (SP030); a Graph Store upload has no such limit.
UPDATE_BATCH_TRIPLES = 1_000
#: Write batches in flight at once.
WRITE_WORKERS = 2


def staging_graph(graph: str, private: str = "") -> str:
    """The private staging graph a write into ``graph`` goes through first.

    ``private`` (a token and a colon) names one write's own staging graph.
    """
    return STAGING_BASE + private + urllib.parse.quote(graph, safe="")


class Uploads(Transport):
    """The batched, all-or-nothing writes of a :class:`~hopgate.store.remote.RemoteStore`."""

    batch_bytes: int
    write_workers: int

    def _graph_size(self, graph: str) -> int:
        """The number of triples in one named graph (published or not) on the server."""
        body = self._json(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{check_iri(graph)}> {{ ?s ?p ?o }} }}",
            dataset=False,
        )
        found = rows(body)
        return integer(found[0]["n"]) if found else 0

    def writes_begun(self) -> list[tuple[str, str]]:
        """Every new graph the catalog lists as being written and no entry publishes:
        (graph, when its write began), oldest first. Another client's write in progress,
        or one whose client was killed."""
        body = self._json(
            f"SELECT ?g ?t WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ ?g <{HG}writeBeganAt> ?t "
            f"FILTER NOT EXISTS {{ ?g a <{PROV}Bundle> }} }} }}",
            dataset=False,
        )
        found = [(str(row["g"]), str(row["t"])) for row in rows(body)]
        return sorted(found, key=lambda item: (item[1], item[0]))

    def unpublished_graphs(self) -> list[str]:
        """New graphs whose write began more than :data:`STALE_WRITE` ago and was never
        published (its client was killed), sorted: what the next writer removes.

        A graph's write is listed in the catalog while it runs (:meth:`_publish`),
        since listing a server's graphs means scanning its quads, and another
        client's write in progress must not be taken for a leftover.
        """
        before = xsd_datetime(datetime.now(UTC) - STALE_WRITE)
        body = self._json(
            f"SELECT ?g WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ ?g <{HG}writeBeganAt> ?t "
            f"FILTER NOT EXISTS {{ ?g a <{PROV}Bundle> }} }} "
            f'FILTER (?t < "{before}"^^<{XSD}dateTime>) }}',
            dataset=False,
        )
        return sorted({str(row["g"]) for row in rows(body)})

    def end_write(self, graph: str) -> None:
        """Forget the listing of ``graph`` as being written (it was dropped)."""
        self._update(_forget_listing(graph), idempotent=True)

    def add_catalog_entry(self, path: Path, graph: str) -> None:
        """Add the catalog entry that publishes ``graph`` and forget its listing as being
        written, in one request (one transaction): a listing never outlives the write."""
        self._publish(path, only=None, ending=graph)

    def is_published(self, graph: str) -> bool:
        """Whether the catalog publishes ``graph`` now (asked of the server, not of a listing)."""
        body = self._json(
            f"ASK {{ GRAPH <{CATALOG_GRAPH}> {{ <{check_iri(graph)}> a <{PROV}Bundle> }} }}",
            dataset=False,
        )
        return boolean(body.get("boolean"))

    def _begin_write(self, graph: str) -> None:
        """List ``graph`` in the catalog as being written, from now."""
        self._update(
            f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ <{check_iri(graph)}> "
            f'<{HG}writeBeganAt> "{xsd_datetime(datetime.now(UTC))}"^^<{XSD}dateTime> }} }}'
        )

    def _publish(
        self,
        path: Path,
        *,
        only: str | None,
        distinct: bool = False,
        stop: Event | None = None,
        ending: str | None = None,
    ) -> None:
        """Write every graph of ``path``, check each arrived whole, publish.

        With ``only``, ``path`` holds that one new graph, written in place and
        published by its catalog entry (the caller's); otherwise each graph is
        staged under a name private to this write and the staged graphs are
        added to theirs in one request. The check compares the server's count of
        each written graph with the distinct triples sent. With ``distinct`` the
        file holds each triple once (hopgate wrote it), so that is its line
        count and no set of the triples is kept: the client's memory does not
        grow with the file. Otherwise each triple's hash is kept, 8 bytes a
        triple, and the distinct ones counted at the end (:func:`_distinct`).
        ``stop``, once set, ends the write before its next batch, as a failure
        (the batches being sent end; those queued are cancelled). ``ending``:
        the staged triples publish that new graph, whose listing as being written
        the same request removes.
        """
        written: set[str] = set()
        # Two clients adding to one graph at once (their catalog entries) each
        # stage their own triples, instead of one dropping, counting and
        # publishing the other's.
        private = f"{uuid.uuid4().hex}:"

        def target(graph: str) -> str:
            return graph if only is not None else staging_graph(graph, private)

        seen: dict[str, array[int]] = defaultdict(lambda: array("q"))
        lines_of: dict[str, int] = defaultdict(int)
        if only is not None and only != CATALOG_GRAPH:
            # Listed before its first triple: a killed client's graph is found later.
            # (The catalog itself, which a copy of a whole store writes, is no graph
            # its own entry publishes, and a listing in it would be counted with it.)
            self._begin_write(only)
        try:
            # Uploads run beside the reading of the file (and each other): the
            # server parses one batch while this client splits the next.
            with (
                path.open("r", encoding="utf-8") as lines,
                ThreadPoolExecutor(max_workers=self.write_workers) as pool,
            ):
                most = None if self.graph_store is not None else UPDATE_BATCH_TRIPLES
                sent: list[Future[None]] = []
                try:
                    for graph, triples in graph_batches(lines, self.batch_bytes, most, path, only):
                        if only is not None and graph != only:
                            raise StoreError(f"{path}: a quad of graph {graph} is not in {only}")
                        if stop is not None and stop.is_set():
                            raise StoreError(
                                f"{path}: the write was stopped; nothing was published"
                            )
                        written.add(graph)
                        # What must arrive: the server keeps each distinct triple once.
                        if distinct:
                            lines_of[graph] += len(triples)
                        else:
                            seen[graph].extend(map(hash, triples))
                        sent.append(pool.submit(self._send_batch, target(graph), triples))
                        if len(sent) > 2 * self.write_workers:
                            # Bounded: at most a few batches wait in memory.
                            sent.pop(0).result()
                    _wait(sent)
                except BaseException:
                    # The batches not yet started are not sent; the running ones end.
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
            for graph in written:
                arrived = self._graph_size(target(graph))
                expected = lines_of[graph] if distinct else _distinct(seen[graph])
                if arrived != expected:
                    raise StoreError(
                        f"{path}: {arrived} of {expected} triples of {graph} "
                        "reached the server; nothing was published"
                    )
            if only is None and written:
                staged = sorted(written)
                self._update(
                    " ;\n".join(
                        [f"ADD <{target(g)}> TO <{g}>" for g in staged]
                        + [f"DROP SILENT GRAPH <{target(g)}>" for g in staged]
                        + ([_forget_listing(ending)] if ending is not None else [])
                    )
                )
        except BaseException:
            for graph in written:
                # A new graph did not exist before this write (add_graph asked),
                # so what it holds is this write's, unless another client wrote
                # and published the same graph meanwhile (the same ledger loaded
                # twice at once): its catalog entry says so. When the server is
                # gone, the graph stays unpublished, which hopgate's reads never
                # see (a load of the same ledger removes it first, any writer a day
                # later: unpublished_graphs).
                with contextlib.suppress(StoreError):
                    if only is None or not self.is_published(graph):
                        self._update(f"DROP SILENT GRAPH <{target(graph)}>", idempotent=True)
                        if only is not None:
                            # Only once the graph is gone: a listing is how a graph
                            # left on the server is found again.
                            self.end_write(only)
            if only is not None and not written:
                with contextlib.suppress(StoreError):
                    self.end_write(only)
            raise

    def _send_batch(self, graph: str, triples: list[str]) -> None:
        """Send N-Triples lines into ``graph`` (new or staging); repeating a batch is harmless."""
        if self.graph_store is not None:
            self._gsp_post(graph, "".join(triples).encode("utf-8"))
            return
        body = "".join(triples)
        self._update(f"INSERT DATA {{ GRAPH <{graph}> {{\n{body}}} }}", idempotent=True)


def _forget_listing(graph: str) -> str:
    """The update that forgets ``graph``'s listing as being written."""
    return (
        f"DELETE WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ <{check_iri(graph)}> "
        f"<{HG}writeBeganAt> ?t }} }}"
    )


def _distinct(hashes: array[int]) -> int:
    """How many distinct values ``hashes`` holds.

    A set of the hashes took some 75 bytes a triple: a load of 1M claims
    (133M triples) to Virtuoso passed 8 GB in the client before its upload was
    half done (bench/README.md "6 December, midday"). The array takes 8 and
    the count sorts a copy of it.
    """
    # Imported here: 0.1 s that every command on a server would pay, and only a load
    # of a file hopgate did not write counts.
    import numpy

    return int(numpy.unique(numpy.frombuffer(hashes, dtype=numpy.int64)).size)


def split_quad(line: str, path: Path, number: int) -> tuple[str, str]:
    """An N-Quads line as (graph IRI, N-Triples line); the graph is its last term."""
    body = line.rstrip()
    if not body.endswith("."):
        raise StoreError(f"{path}: line {number}: not an N-Quads line")
    body = body[:-1].rstrip()
    if not body.endswith(">"):
        raise StoreError(f"{path}: line {number}: a quad without a named graph")
    start = body.rfind(" <")
    if start < 0:
        raise StoreError(f"{path}: line {number}: a quad without a named graph")
    graph = body[start + 2 : -1]
    triple = body[:start]
    parts = triple.split(" ", 2)
    if parts[0].startswith("_:") or (len(parts) == 3 and parts[2].startswith("_:")):
        # Blank node labels are scoped to one request: a graph split over
        # batches would split its blank nodes. hopgate mints IRIs instead.
        raise StoreError(f"{path}: line {number}: blank nodes cannot be written remotely")
    return graph, triple + " .\n"


def graph_batches(
    lines: Any, limit: int, most: int | None, path: Path, only: str | None = None
) -> Iterator[tuple[str, list[str]]]:
    """Consecutive N-Triples lines of one graph: at most ``limit`` bytes and ``most`` lines.

    With ``only``, a line ending in that graph and free of ``_:`` is cut
    without parsing (the bulk of a bundle's or a load's lines, which need no
    parse); any other line is parsed and checked.
    """
    pending: dict[str, list[str]] = defaultdict(list)
    sizes: dict[str, int] = defaultdict(int)
    suffix = f" <{only}> .\n"
    for number, line in enumerate(lines, start=1):
        if only is not None and line.endswith(suffix) and "_:" not in line:
            graph, triple = only, line[: -len(suffix)] + " .\n"
        elif not line.strip() or line.startswith("#"):
            continue
        else:
            graph, triple = split_quad(line, path, number)
        size = len(triple.encode("utf-8"))
        full = most is not None and len(pending[graph]) >= most
        if pending[graph] and (full or sizes[graph] + size > limit):
            yield graph, pending.pop(graph)
            sizes[graph] = 0
        pending[graph].append(triple)
        sizes[graph] += size
    for graph, triples in pending.items():
        if triples:
            yield graph, triples


def _wait(futures: list[Future[None]]) -> None:
    """Wait for every upload in ``futures``; the first failure is raised."""
    for future in futures:
        future.result()


__all__ = [
    "DEFAULT_BATCH_BYTES",
    "STAGING_BASE",
    "UPDATE_BATCH_TRIPLES",
    "WRITE_WORKERS",
    "Uploads",
    "graph_batches",
    "split_quad",
    "staging_graph",
]
