"""The Store contract: what hopgate needs of a quad store, and the values it speaks in.

Everything above :mod:`hopgate.store` talks to :class:`Store` only, so the
embedded engine (:mod:`.oxigraph`) and a remote SPARQL 1.1 endpoint
(:mod:`.remote`) stand in for each other. Query results come back as plain
Python values (:class:`IRI` for IRIs), not as engine-specific terms. Queries
see the union of all named graphs as their default graph.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from threading import Event
from typing import BinaryIO, Literal, TypeAlias

import pyoxigraph as ox

from hopgate.errors import QueryError, StoreError
from hopgate.library.projection import Projection
from hopgate.scratch import folder as scratch_folder
from hopgate.vocab import CATALOG_GRAPH, PROV

#: The suffix of an evaluation's scratch graph (written and removed by the evaluation).
SCRATCH_SUFFIX = "/scratch"


class IRI(str):
    """An IRI, as a query parameter or in a query result (a ``str`` subclass)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"IRI({str.__repr__(self)})"


class BNode(str):
    """A blank node label in a query result."""

    __slots__ = ()


Value: TypeAlias = IRI | BNode | str | int | float | bool | Decimal | None
Row: TypeAlias = dict[str, Value]
DumpFormat: TypeAlias = Literal["nquads", "trig"]


class Store(ABC):
    """What hopgate needs of a quad store; the embedded and remote stores implement it."""

    @abstractmethod
    def select(self, query: str, *, params: Mapping[str, Value] | None = None) -> list[Row]:
        """Run a SELECT query with ``params`` bound to variables; return its rows."""

    @abstractmethod
    def ask(self, query: str, *, params: Mapping[str, Value] | None = None) -> bool:
        """Run an ASK query with ``params`` bound to variables."""

    @abstractmethod
    def construct(self, query: str, *, params: Mapping[str, Value] | None = None) -> bytes:
        """Run a CONSTRUCT query; return the triples as N-Triples bytes."""

    @abstractmethod
    def update(self, update: str, *, params: Mapping[str, Value] | None = None) -> None:
        """Run a SPARQL 1.1 Update with ``params`` bound, atomically."""

    @abstractmethod
    def add_nquads(self, path: Path) -> None:
        """Add the quads of an N-Quads file, all or nothing."""

    @abstractmethod
    def add_graph(
        self, path: Path, graph: str, *, trusted: bool = False, stop: Event | None = None
    ) -> None:
        """Add an N-Quads file whose quads all belong to ``graph``, a graph not yet in the store.

        The fast path for big loads: on failure the graph is removed again, so
        the store is left as it was. ``trusted``: hopgate wrote the file from
        terms the store already holds, so a store may skip checking its IRIs.
        ``stop``, set by another thread, ends the write early where the store
        can (a server's batches), as a failure does; the embedded engine's bulk
        load runs to its end.
        """

    @abstractmethod
    def remove_graph(self, graph: str) -> None:
        """Remove one named graph and all its quads."""

    @abstractmethod
    def graphs(self) -> list[str]:
        """The IRIs of the named graphs, sorted."""

    @abstractmethod
    def dump(self, out: BinaryIO, *, format: DumpFormat, graph: str | None = None) -> None:
        """Write the store (or one named graph) to ``out``; N-Quads lines are sorted."""

    @abstractmethod
    def count(self, graph: str | None = None) -> int:
        """The number of quads in the store or in one named graph."""

    def query_any(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> list[Row] | bool | bytes:
        """Run any query form: rows for SELECT, a bool for ASK, N-Triples otherwise."""
        raise NotImplementedError

    def select_rows(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> Iterator[Row]:
        """Run a SELECT query; yield its rows one at a time, as :meth:`select` would list them.

        An engine that can answer a row at a time does so, so a caller that
        consumes rows as they come never holds the whole answer.
        """
        return iter(self.select(query, params=params))

    def unpublished_graphs(self) -> list[str]:
        """Graphs written without a catalog entry (an interrupted write); hidden from queries."""
        return []

    def add_catalog_entry(self, path: Path, graph: str) -> None:
        """Add the catalog entry (an N-Quads file) that publishes ``graph``, all or nothing;
        a server forgets, in the same transaction, that the graph was being written."""
        self.add_nquads(path)

    def is_published(self, graph: str) -> bool:
        """Whether the catalog publishes ``graph`` now (asked of the store, not of a cache)."""
        found = self.select(
            f"SELECT ?g WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ ?g a <{PROV}Bundle> }} }}",
            params={"g": IRI(check_iri(graph))},
        )
        return bool(found)

    def remove_leftovers(self) -> list[Path]:
        """Remove the files an interrupted bulk write left beside the store (a writer calls
        it before it writes); the files removed."""
        return []

    #: Whether an evaluation runs its rule files on this store itself, through
    #: :meth:`scoped`, rather than on a working copy (a remote server: yes).
    evaluates_in_place: bool = False

    def scoped(self, graphs: list[str], *, listed_in: str | None = None) -> Store:
        """This store seen through ``graphs`` only, writable (for stores that evaluate in place).

        ``listed_in``: one of ``graphs`` (a scratch graph the caller removes) where the
        view may write the list of its graphs, if that is how it keeps to them."""
        raise NotImplementedError(f"{type(self).__name__} does not evaluate in place")

    def view(self, graphs: list[str]) -> Store:
        """This store's queries over ``graphs`` only (their union the default graph), with
        nothing copied: for reads of part of the store (the embedded store's dataset, a
        server's ``FROM``). A graph need not be published to be named."""
        raise NotImplementedError(f"{type(self).__name__} has no view of some of its graphs")

    def select_on_every_graph(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> list[Row] | None:
        """``query``'s rows over every graph the engine holds, hopgate's or not: all of them
        as its named graphs and their union as its default graph; None on an engine that
        answers no such query (every store but a Virtuoso server).

        For a caller that first shows the graphs outside its own cannot change
        the answer (:func:`hopgate.store.catalog.run_inputs`): Virtuoso looks a
        pattern up once per graph of a query's dataset, and asked with none it
        does not.
        """
        return None

    #: The folder of an on-disk store, where the files kept beside its data
    #: live (snapshots, recorded judgments); None in memory or on a server.
    folder: Path | None = None

    #: Whether this store keeps caches on its server (:meth:`keep_cache`): a remote
    #: store, which has no folder; an on-disk store keeps them as files instead.
    server_caches: bool = False

    def keep_cache(self, graph: str, key: str, data: bytes) -> None:  # noqa: B027
        """Keep ``data``, the cache ``key`` of ``graph``, on the server, outside every
        query's dataset (a store whose ``server_caches`` is False keeps nothing)."""

    def read_cache(self, graph: str, key: str) -> bytes | None:
        """The bytes :meth:`keep_cache` kept, or None (unchecked: the caller compares them
        with the digest the catalog records)."""
        return None

    def remove_caches(self, graph: str) -> None:  # noqa: B027 (nothing kept, nothing to do)
        """Remove every cache :meth:`keep_cache` kept of ``graph``."""

    @contextmanager
    def working_copy(
        self,
        projection: Projection | None = None,
        graphs: list[str] | None = None,
        *,
        files: Mapping[str, Path] | None = None,
        lacking: Mapping[str, Projection] | None = None,
    ) -> Iterator[Store]:
        """A store to run a long read-mostly computation on (an evaluation's queries).

        By default the store itself; an engine may hand out a faster copy,
        whose writes are then discarded. A copy may hold only the quads
        ``projection`` keeps, of ``graphs`` only (default: every graph), so
        only the queries it was made for may run on it. ``files`` maps a graph
        to an N-Quads file hopgate wrote and verified holding what the copy
        needs of it (a snapshot), which an engine may parse instead of
        reading the graph; ``lacking`` maps such a graph to the quads its
        file lacks, which are then read from the store.
        """
        yield self

    @contextmanager
    def local_view(self, graphs: list[str]) -> Iterator[Store]:
        """A store in this process whose queries see the union of ``graphs`` only.

        For computations that need the embedded engine's exact answers and
        terms (the SHACL runner, :meth:`query_terms`): the embedded store
        answers through a view of itself (nothing copied), another engine
        through an in-memory copy of ``graphs``.
        """
        with self.working_copy(None, graphs) as copy:
            yield copy

    def query_terms(self, query: str, *, union: bool = True) -> object:
        """Run ``query`` as written; return the engine's own result terms (embedded store only).

        Raises:
            StoreError: this engine does not hand out terms; use :meth:`local_view`.
        """
        raise StoreError(f"{type(self).__name__} answers rows, not terms: use local_view")

    def add_quads(self, quads: Iterable[ox.Quad]) -> None:
        """Add quads built in this process (pyoxigraph ``Quad`` objects), all or nothing."""
        with scratch_folder("quads") as scratch:
            path = scratch / "quads.nq"
            ox.serialize(quads, str(path), format=ox.RdfFormat.N_QUADS)
            self.add_nquads(path)

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release the store (files, locks, connections)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_iri(iri: str) -> str:
    """``iri`` itself, when it can be written between ``<`` and ``>`` unescaped."""
    if any(ch in iri for ch in '<>"{}|^`\\ \n'):
        raise QueryError(f"not an IRI: {iri!r}")
    return iri
