"""Writes to the remote store: staging graphs, batches, N-Quads splitting, one publish.

All or nothing: a new graph is written into a staging graph (outside the
dataset, so invisible to every query) and published by one ``MOVE`` only
when every batch was acknowledged and the staging graph holds every triple;
a failure part-way leaves only the staging graph, which the next attempt
drops first. Several graphs at once (``add_nquads``) are published by one
update request of ``ADD`` operations (one transaction on the server).
"""

from __future__ import annotations

import contextlib
import urllib.parse
import uuid
from array import array
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from hopgate.errors import StoreError
from hopgate.store.base import check_iri
from hopgate.store.remote import limits as limits_module
from hopgate.store.remote.limits import one_load_triples
from hopgate.store.remote.transport import Transport
from hopgate.store.remote.values import integer, rows

#: Staging graphs live outside the dataset: hopgate never lists or queries them.
STAGING_BASE = "urn:hopgate:staging:"
#: Bytes of N-Triples per write request: small enough for any server's limits.
DEFAULT_BATCH_BYTES = 4_000_000
#: Triples per ``INSERT DATA`` request: Virtuoso's SPARQL parser runs out of
#: memory near 5,000 (SP030); a Graph Store upload has no such limit.
UPDATE_BATCH_TRIPLES = 1_000
#: Write batches in flight at once.
WRITE_WORKERS = 2
#: The fewest bytes an N-Quads line of a graph hopgate writes takes (four IRIs or
#: literals, spaces, the dot): a file this many times the limit's triples may fit.
SHORTEST_LINE = 20


def staging_graph(graph: str, private: str = "") -> str:
    """The private staging graph a write into ``graph`` goes through first.

    ``private`` (a token and a colon) names one write's own staging graph.
    """
    return STAGING_BASE + private + urllib.parse.quote(graph, safe="")


class Uploads(Transport):
    """The staged, all-or-nothing writes of a :class:`~hopgate.store.remote.RemoteStore`."""

    batch_bytes: int
    write_workers: int

    def _graph_size(self, graph: str) -> int:
        """The number of triples in one named graph (published or staging) on the server."""
        body = self._json(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{check_iri(graph)}> {{ ?s ?p ?o }} }}",
            dataset=False,
        )
        found = rows(body)
        return integer(found[0]["n"]) if found else 0

    def _refuse_beyond_one_transaction(self, path: Path) -> None:
        """Refuse, before any upload, a file too large for one transaction on this server.

        Virtuoso refuses to publish a graph whose transaction log passes its
        ``TransactionAfterImageLimit`` (SR325), a 32-bit setting (about 2 GB at
        most): some 75M triples, 600k claims of ``bench/``'s ledgers. A 1M-claim
        load learnt it after a 33-minute upload; this counts the file's lines
        first (a few seconds a GB) when its size could pass the limit, and
        refuses only what passes it at the fewest bytes a triple measured.
        """
        limits = self.limits()
        limit = limits.setting("TransactionAfterImageLimit") if limits.kind == "virtuoso" else None
        if limit is None or limit <= 0:
            return
        most = one_load_triples(limit)
        if path.stat().st_size <= most * SHORTEST_LINE:
            return
        lines = 0
        with path.open("rb") as data:
            while chunk := data.read(1 << 24):
                lines += chunk.count(b"\n")
        if lines > most:
            raise StoreError(
                f"its {lines:,} triples are more than Virtuoso can publish in one "
                f"transaction: at least {limits_module.AFTER_IMAGE_BYTES_PER_TRIPLE} bytes of its "
                f"transaction log each, and its [Parameters] TransactionAfterImageLimit "
                f"is {limit:,} (read as 32 bits: 2,147,483,647 at most); load the ledger "
                f"in parts of at most {most:,} triples, one file after another; nothing "
                "was sent"
            )

    def _publish(self, path: Path, *, move: bool, only: str | None, distinct: bool = False) -> None:
        """Stage every graph of ``path``, check each arrived whole, publish in one request.

        The check compares the server's count of each staging graph with the
        distinct triples sent. With ``distinct`` the file holds each triple
        once (hopgate wrote it), so that is its line count and no set of the
        triples is kept: the client's memory does not grow with the file.
        Otherwise each triple's hash is kept, 8 bytes a triple, and the
        distinct ones counted at the end (:func:`_distinct`).
        """
        if move:
            self._refuse_beyond_one_transaction(path)
        staged: set[str] = set()
        # A new graph is staged under a name of its own, which the next attempt
        # at the same graph drops first. Triples added to existing graphs (a
        # catalog entry) are staged under a name private to this write: two
        # clients publishing at once each stage their own entry, instead of one
        # dropping, counting and publishing the other's.
        private = "" if move else f"{uuid.uuid4().hex}:"

        def staging(graph: str) -> str:
            return staging_graph(graph, private)

        seen: dict[str, array[int]] = defaultdict(lambda: array("q"))
        lines_of: dict[str, int] = defaultdict(int)
        try:
            # Uploads run beside the reading of the file (and each other): the
            # server parses one batch while this client splits the next.
            with (
                path.open("r", encoding="utf-8") as lines,
                ThreadPoolExecutor(max_workers=self.write_workers) as pool,
            ):
                most = None if self.graph_store is not None else UPDATE_BATCH_TRIPLES
                sent: list[Future[None]] = []
                for graph, triples in graph_batches(lines, self.batch_bytes, most, path, only):
                    if only is not None and graph != only:
                        raise StoreError(f"{path}: a quad of graph {graph} is not in {only}")
                    if graph not in staged:
                        # A stale staging graph is what an interrupted attempt left.
                        _wait(sent)
                        self._update(f"DROP SILENT GRAPH <{staging(graph)}>", idempotent=True)
                        staged.add(graph)
                    # What must arrive: the server keeps each distinct triple once.
                    if distinct:
                        lines_of[graph] += len(triples)
                    else:
                        seen[graph].extend(map(hash, triples))
                    sent.append(pool.submit(self._send_batch, staging(graph), triples))
                    if len(sent) > 2 * self.write_workers:
                        # Bounded: at most a few batches wait in memory.
                        sent.pop(0).result()
                _wait(sent)
            for graph in staged:
                arrived = self._graph_size(staging(graph))
                expected = lines_of[graph] if distinct else _distinct(seen[graph])
                if arrived != expected:
                    raise StoreError(
                        f"{path}: {arrived} of {expected} triples of {graph} "
                        "reached the server; nothing was published"
                    )
            verb = "MOVE" if move else "ADD"
            operations = [f"{verb} <{staging(g)}> TO <{g}>" for g in sorted(staged)]
            if not move:
                operations += [f"DROP SILENT GRAPH <{staging(g)}>" for g in sorted(staged)]
            if operations:
                self._update(" ;\n".join(operations))
        except BaseException:
            for graph in staged:
                # When the server is gone, the next attempt drops it first.
                with contextlib.suppress(StoreError):
                    self._update(f"DROP SILENT GRAPH <{staging(graph)}>")
            raise

    def _send_batch(self, staging: str, triples: list[str]) -> None:
        """Send N-Triples lines into a staging graph; repeating a batch is harmless."""
        if self.graph_store is not None:
            self._gsp_post(staging, "".join(triples).encode("utf-8"))
            return
        body = "".join(triples)
        self._update(f"INSERT DATA {{ GRAPH <{staging}> {{\n{body}}} }}", idempotent=True)


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
