"""Reading whole graphs from the remote store: by predicate, in pages, checked, copied.

A graph is read with one CONSTRUCT per predicate (per class for
``rdf:type`` under a projection), answered from the server's predicate
index; only a pattern larger than a page is paged, pages are read
concurrently, and what arrived is checked against the server's count.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox

from hopgate.errors import StoreError
from hopgate.library.projection import Projection
from hopgate.store.base import DumpFormat, Store, check_iri
from hopgate.store.oxigraph import OxigraphStore
from hopgate.store.remote.transport import Transport
from hopgate.store.remote.values import RDF_FORMATS, as_ntriples, integer, rows
from hopgate.vocab import RDF_TYPE

#: Triples per CONSTRUCT page when reading a graph: Virtuoso 7.2.5 refuses a
#: CONSTRUCT of more than a million triples ("FRVEC: array in for vectored over
#: max vector length", seen at 10k synthetic claims).
READ_PAGE_TRIPLES = 500_000
#: CONSTRUCT pages read at once.
READ_WORKERS = 2


class Reads(Transport):
    """Whole-graph reads of a :class:`~hopgate.store.remote.RemoteStore` (dump, working copy)."""

    read_page_triples: int
    read_workers: int

    def graph_ntriples(self, graph: str, projection: Projection | None = None) -> bytes:
        """The triples of one named graph as N-Triples, checked against the server's count.

        With a ``projection``, only the triples it keeps (chosen on the
        server, so only those are sent).

        Raises:
            StoreError: the server sent fewer triples than the graph holds (a
                result-row cap such as Virtuoso's ``ResultSetMaxRows``).
        """
        expected, pages = self._read_graph(graph, projection)
        data = b"".join(as_ntriples(page, kind) for page, kind in pages)
        # Pages within one pattern have no ORDER BY (sorting a million triples
        # per page is slow) and rely on the server scanning in a stable
        # order; counting the distinct lines catches a page that overlapped
        # or skipped.
        self._check_received(graph, len(set(data.splitlines())), expected)
        return data

    def _read_graph(
        self, graph: str, projection: Projection | None
    ) -> tuple[int, list[tuple[bytes, str]]]:
        """How many triples to expect, and the raw CONSTRUCT pages (body, content type).

        One pattern per predicate (per class for ``rdf:type`` under a
        projection), each answered from the server's predicate index, where
        a FILTER over the whole graph with OFFSET pages re-reads what it skips
        (figures in bench/README.md, "Figures behind the code").
        Only a pattern larger than a page is paged. The pages are read
        concurrently: the server exports each on one thread, and this client
        only waits on the socket meanwhile.
        """
        iri = check_iri(graph)
        parts = self._patterns(iri, projection)
        # Within the server's row cap: Virtuoso cuts a CONSTRUCT there without a word.
        cap = self.limits().construct_cut
        page = min(self.read_page_triples, cap) if cap else self.read_page_triples
        queries = [
            f"CONSTRUCT {{ {pattern} }} WHERE {{ GRAPH <{iri}> {{ {pattern} }} }}"
            + ("" if size <= page else f" LIMIT {page} OFFSET {offset}")
            for pattern, size in parts
            for offset in range(0, size, page)
        ]

        def read(text: str) -> tuple[bytes, str]:
            return self._attempt(lambda: self._construct_page(text), idempotent=True, what="query")

        with ThreadPoolExecutor(max_workers=self.read_workers) as pool:
            pages = list(pool.map(read, queries))
        return sum(size for _, size in parts), pages

    def _patterns(self, iri: str, projection: Projection | None) -> list[tuple[str, int]]:
        """The triple patterns that read a graph's kept triples, with how many each matches."""

        def counts(select: str, group: str) -> dict[str, int]:
            text = (
                f"SELECT ?{group} (COUNT(*) AS ?n) WHERE {{ GRAPH <{iri}> {{ {select} }} }} "
                f"GROUP BY ?{group}"
            )
            return {
                str(row[group]): integer(row["n"]) for row in rows(self._json(text, dataset=False))
            }

        parts = []
        for predicate, size in sorted(counts("?s ?p ?o", "p").items()):
            if projection is not None and predicate not in projection.predicates:
                continue
            if predicate == RDF_TYPE and projection is not None:
                for cls, many in sorted(counts(f"?s <{RDF_TYPE}> ?o", "o").items()):
                    if projection.keeps(RDF_TYPE, cls):
                        parts.append((f"?s <{RDF_TYPE}> <{check_iri(cls)}>", many))
            else:
                parts.append((f"?s <{check_iri(predicate)}> ?o", size))
        return parts

    @staticmethod
    def _check_received(graph: str, received: int, expected: int) -> None:
        if received < expected:
            raise StoreError(
                f"the server sent {received:,} of the {expected:,} triples of {graph}: its "
                "pages overlapped or it cut them short (a result-row cap such as Virtuoso's "
                "[SPARQL] ResultSetMaxRows: set it to 100000000 and restart the server)"
            )

    def _graph_quads(self, graph: str) -> list[ox.Quad]:
        node = ox.NamedNode(graph)
        return [
            ox.Quad(t.subject, t.predicate, t.object, node)
            for t in ox.parse(self.graph_ntriples(graph), format=ox.RdfFormat.N_TRIPLES)
        ]

    def dump(self, out: BinaryIO, *, format: DumpFormat, graph: str | None = None) -> None:
        """Write hopgate's graphs (or one named graph) to ``out``; N-Quads lines are sorted."""
        chosen = [graph] if graph is not None else self.graphs()
        buffer = io.BytesIO()
        rdf_format = ox.RdfFormat.N_QUADS if format == "nquads" else ox.RdfFormat.TRIG
        quads = [quad for g in chosen for quad in self._graph_quads(g)]
        ox.serialize(quads, buffer, format=rdf_format)
        data = buffer.getvalue()
        if format == "nquads":
            data = b"".join(sorted(data.splitlines(keepends=True)))
        out.write(data)

    def iter_graph_nquads(self, graph: str) -> Iterator[str]:
        """The quads of one graph as N-Quads lines (unsorted)."""
        for quad in self._graph_quads(graph):
            yield f"{quad} .\n"

    @contextmanager
    def working_copy(
        self,
        projection: Projection | None = None,
        graphs: list[str] | None = None,
        *,
        files: Mapping[str, Path] | None = None,
        lacking: Mapping[str, Projection] | None = None,
    ) -> Iterator[Store]:
        """An in-memory Oxigraph copy of hopgate's graphs, for queries a server may answer wrongly.

        The peer metrics and the report's readers run on such a copy: Virtuoso
        7.2.5 fails ``peer-hotpotqa-sp``, ``peer-multihop-rag`` and
        ``peer-ragas-context-recall`` with an internal optimizer error and
        divides integers as integers in ``peer-fever``. The evaluation runs on
        one only when the store was opened with ``evaluate_on_server=False``
        (by default it runs on the server: :meth:`~hopgate.store.remote.RemoteStore.scoped`). The
        copy is N-Triples per graph (the server's fastest export), checked
        against the server's counts; writes to it are discarded. A
        ``projection`` is applied on the server, so only the triples it keeps
        are sent. ``files`` and ``lacking`` are not used: a server keeps no snapshots.
        """
        copy = OxigraphStore(None)
        try:
            for graph in self.graphs() if graphs is None else graphs:
                expected, pages = self._read_graph(graph, projection)
                for page, kind in pages:
                    # Parsed as sent: re-serialising to N-Triples first only adds work.
                    copy.load_rdf(page, RDF_FORMATS.get(kind, ox.RdfFormat.TURTLE), graph)
                self._check_received(graph, copy.count(graph), expected)
            yield copy
        finally:
            copy.close()


__all__ = ["READ_PAGE_TRIPLES", "READ_WORKERS", "Reads"]
