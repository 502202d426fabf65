"""The store: one small interface, and its embedded implementation on Oxigraph.

Everything above this module talks to :class:`Store` only, so a remote SPARQL
1.1 endpoint can stand in for the embedded store. Query results come back as
plain Python values (:class:`IRI` for IRIs), not as engine-specific terms.
Queries see the union of all named graphs as their default graph.
"""

from __future__ import annotations

import io
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO, Literal, TypeAlias

import pyoxigraph as ox

from hopgate.errors import QueryError, StoreError, StoreLockedError
from hopgate.projection import RDF_TYPE, Projection
from hopgate.snapshots import Snapshots
from hopgate.vocab import XSD, sparql_prologue


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
    def add_graph(self, path: Path, graph: str, *, trusted: bool = False) -> None:
        """Add an N-Quads file whose quads all belong to ``graph``, a graph not yet in the store.

        The fast path for big loads: on failure the graph is removed again, so
        the store is left as it was. ``trusted``: hopgate wrote the file from
        terms the store already holds, so a store may skip checking its IRIs.
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

    @contextmanager
    def working_copy(
        self, projection: Projection | None = None, graphs: list[str] | None = None
    ) -> Iterator[Store]:
        """A store to run a long read-mostly computation on (an evaluation's queries).

        By default the store itself; an engine may hand out a faster copy,
        whose writes are then discarded. A copy may hold only the quads
        ``projection`` keeps, of ``graphs`` only (default: every graph), so
        only the queries it was made for may run on it.
        """
        yield self

    @contextmanager
    def reading_copy(self, projection: Projection, graphs: list[str]) -> Iterator[Store]:
        """Like :meth:`working_copy`, but only where a copy is cheap; else the store itself.

        For short reads (an evaluation's results), which a slow copy would not
        repay.
        """
        yield self

    def keep_snapshot(  # noqa: B027 - optional hook, a no-op by default
        self, nquads: Path, graph: str, projections: list[Projection], *, whole: bool = False
    ) -> None:
        """Keep the quads of a just-added graph that each projection keeps, for later copies.

        ``nquads`` is the file the graph was loaded from; with ``whole``, all
        of it is kept (one projection). A no-op by default; see
        hopgate.snapshots.
        """

    def drop_snapshots(self, graph: str) -> None:  # noqa: B027 - optional hook
        """Forget the snapshots of ``graph``, which stays in the store (no longer read often)."""

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release the store (files, locks, connections)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _to_term(value: Value) -> ox.NamedNode | ox.Literal | ox.BlankNode:
    if isinstance(value, IRI):
        return ox.NamedNode(value)
    if isinstance(value, BNode):
        return ox.BlankNode(value)
    if isinstance(value, bool):
        return ox.Literal("true" if value else "false", datatype=ox.NamedNode(XSD + "boolean"))
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=ox.NamedNode(XSD + "integer"))
    if isinstance(value, Decimal):
        return ox.Literal(str(value), datatype=ox.NamedNode(XSD + "decimal"))
    if isinstance(value, float):
        return ox.Literal(repr(value), datatype=ox.NamedNode(XSD + "double"))
    if isinstance(value, str):
        return ox.Literal(value)
    raise QueryError(f"cannot bind a parameter of type {type(value).__name__}")


#: The XSD integer types: their literals come back from queries as ``int``.
INTEGER_TYPES = frozenset(
    XSD + name
    for name in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedInt",
        "unsignedLong",
        "unsignedShort",
    )
)


def _from_term(term: object) -> Value:
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return IRI(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value
        text = term.value
        try:
            if datatype in INTEGER_TYPES:
                return int(text)
            if datatype == XSD + "boolean":
                return text in ("true", "1")
            if datatype == XSD + "decimal":
                return Decimal(text)
            if datatype in (XSD + "double", XSD + "float"):
                return float(text)
        except ValueError:
            return text
        return text
    return str(term)


def _solution_rows(result: ox.QuerySolutions) -> list[Row]:
    """A SELECT result as rows of Python values, keyed by variable name."""
    names = [variable.value for variable in result.variables]
    # A solution iterates its terms in the order of ``variables``: zipping
    # them is a third of the cost of looking each up by name.
    return [dict(zip(names, map(_from_term, solution), strict=True)) for solution in result]


class OxigraphStore(Store):
    """The embedded store: Oxigraph on disk at ``path``, or in memory when ``path`` is None."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        try:
            if path is None:
                self._store = ox.Store()
            else:
                path.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(path))
        except (OSError, RuntimeError) as exc:  # RuntimeError: a damaged store (Corruption: ...)
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"the store at {path} is in use by another process; "
                    "wait for it to finish or use another --store"
                ) from None
            raise StoreError(f"cannot open the store at {path}: {exc}") from None
        self._prologue = sparql_prologue()
        self._snapshots = None if path is None else Snapshots(path)

    def _query(self, query: str, params: Mapping[str, Value] | None) -> object:
        try:
            return self._store.query(
                self._prologue + bind_values(query, params),
                use_default_graph_as_union=True,
            )
        except SyntaxError as exc:
            raise QueryError(f"the query does not parse: {exc}") from None
        except OSError as exc:
            raise StoreError(f"the query failed: {exc}") from None

    def select(self, query: str, *, params: Mapping[str, Value] | None = None) -> list[Row]:
        """Run a SELECT query with ``params`` bound to variables; return its rows."""
        result = self._query(query, params)
        if not isinstance(result, ox.QuerySolutions):
            raise QueryError("expected a SELECT query")
        return _solution_rows(result)

    def ask(self, query: str, *, params: Mapping[str, Value] | None = None) -> bool:
        """Run an ASK query with ``params`` bound to variables."""
        result = self._query(query, params)
        if not isinstance(result, ox.QueryBoolean):
            raise QueryError("expected an ASK query")
        return bool(result)

    def construct(self, query: str, *, params: Mapping[str, Value] | None = None) -> bytes:
        """Run a CONSTRUCT query; return the triples as N-Triples bytes."""
        result = self._query(query, params)
        if not isinstance(result, ox.QueryTriples):
            raise QueryError("expected a CONSTRUCT or DESCRIBE query")
        return "".join(f"{triple} .\n" for triple in result).encode("utf-8")

    def query_any(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> list[Row] | bool | bytes:
        """Run any query form: rows for SELECT, a bool for ASK, N-Triples otherwise."""
        result = self._query(query, params)
        if isinstance(result, ox.QueryBoolean):
            return bool(result)
        if isinstance(result, ox.QueryTriples):
            return "".join(f"{triple} .\n" for triple in result).encode("utf-8")
        assert isinstance(result, ox.QuerySolutions)
        return _solution_rows(result)

    def update(self, update: str, *, params: Mapping[str, Value] | None = None) -> None:
        """Run a SPARQL 1.1 Update, atomically; parameters are bound as values."""
        text = self._prologue + bind_values(update, params)
        try:
            self._store.update(text)
        except SyntaxError as exc:
            raise QueryError(f"the update does not parse: {exc}") from None
        except OSError as exc:
            raise StoreError(f"the update failed: {exc}") from None

    def add_nquads(self, path: Path) -> None:
        """Add the quads of an N-Quads file in one transaction (all or nothing)."""
        try:
            self._store.load(path=str(path), format=ox.RdfFormat.N_QUADS)
        except (OSError, SyntaxError) as exc:
            raise StoreError(f"cannot add {path} to the store: {exc}") from None

    def load_rdf(self, data: bytes, rdf_format: ox.RdfFormat, graph: str) -> None:
        """Add triples (``data`` in ``rdf_format``) to the named graph ``graph`` in one transaction."""
        try:
            self._store.load(data, format=rdf_format, to_graph=ox.NamedNode(_check_iri(graph)))
        except SyntaxError as exc:
            raise StoreError(f"cannot add triples to {graph}: {exc}") from None

    def add_graph(self, path: Path, graph: str, *, trusted: bool = False) -> None:
        """Bulk-load a new named graph from N-Quads; remove it again on failure.

        On disk, Oxigraph's bulk loader writes sorted files directly (2.5x
        faster than a transaction at 1.2M quads here) but is not atomic, so a
        failure removes the graph: it did not exist before. A ``trusted`` file
        is parsed leniently (no IRI validation: 5.8 s instead of 6.7 s for an
        evaluation bundle of 320k quads).
        """
        if self._store.contains_named_graph(ox.NamedNode(_check_iri(graph))):
            raise StoreError(f"the graph {graph} is already in the store")
        if self.path is None:
            self.add_nquads(path)
            return
        try:
            self._store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS, lenient=trusted)
            self._store.flush()
        except BaseException as exc:
            self._store.remove_graph(ox.NamedNode(graph))
            if isinstance(exc, OSError | SyntaxError):
                raise StoreError(f"cannot add {path} to the store: {exc}") from None
            raise

    def remove_graph(self, graph: str) -> None:
        """Remove one named graph and all its quads."""
        node = ox.NamedNode(graph)
        if self._snapshots is not None:
            self._snapshots.remove(graph)
        if self._store.contains_named_graph(node):
            self._store.remove_graph(node)

    def graphs(self) -> list[str]:
        """The IRIs of the named graphs, sorted."""
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def count(self, graph: str | None = None) -> int:
        """The number of quads in the store or in one named graph."""
        if graph is None:
            return len(self._store)
        rows = self.select(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{_check_iri(graph)}> {{ ?s ?p ?o }} }}"
        )
        value = rows[0]["n"]
        return int(value) if isinstance(value, int) else 0

    def dump(self, out: BinaryIO, *, format: DumpFormat, graph: str | None = None) -> None:
        """Write the store (or one named graph) to ``out``; N-Quads lines are sorted."""
        buffer = io.BytesIO()
        if graph is None:
            rdf_format = ox.RdfFormat.N_QUADS if format == "nquads" else ox.RdfFormat.TRIG
            self._store.dump(buffer, format=rdf_format)
        else:
            node = ox.NamedNode(_check_iri(graph))
            quads = self._store.quads_for_pattern(None, None, None, node)
            rdf_format = ox.RdfFormat.N_QUADS if format == "nquads" else ox.RdfFormat.TRIG
            ox.serialize(quads, buffer, format=rdf_format)
        data = buffer.getvalue()
        if format == "nquads":
            data = b"".join(sorted(data.splitlines(keepends=True)))
        out.write(data)

    def iter_graph_nquads(self, graph: str) -> Iterator[str]:
        """The quads of one graph as N-Quads lines (unsorted)."""
        node = ox.NamedNode(_check_iri(graph))
        for quad in self._store.quads_for_pattern(None, None, None, node):
            yield f"{quad} .\n"

    @contextmanager
    def working_copy(
        self, projection: Projection | None = None, graphs: list[str] | None = None
    ) -> Iterator[Store]:
        """For an on-disk store, an in-memory copy of its quads; else the store itself.

        Evaluation reads every evidence triple many times and writes scratch
        triples: measured at 10k claims, 128 s against the on-disk store and
        18 s in memory, plus the copy. Reading the disk costs about 25 µs a
        quad (each term is looked up by id), so with a ``projection`` only the
        quads it keeps are copied (605k of 1.33M quads at 10k claims: 14.8 s
        instead of 28 s), and parsed from a graph's snapshot file when the
        load left one (4 s; hopgate.snapshots).
        """
        if self.path is None:
            yield self
            return
        copy = OxigraphStore(None)
        try:
            for graph in self.graphs() if graphs is None else graphs:
                self._copy_graph(copy, graph, projection)
            yield copy
        finally:
            copy.close()

    @contextmanager
    def reading_copy(self, projection: Projection, graphs: list[str]) -> Iterator[Store]:
        """An in-memory copy when every graph has a snapshot (on disk); else the store itself.

        At 10k claims, metrics took 7.0 s on the disk store, since each join
        step is a disk lookup; parsing the snapshots (147k evidence quads and
        the 285k of the bundle) and querying in memory took 5.0 s. Without
        snapshots a copy would cost more than it saves.
        """
        snapshots = self._snapshots
        if snapshots is None or any(snapshots.find(g, projection) is None for g in graphs):
            yield self
            return
        with self.working_copy(projection, graphs) as copy:
            yield copy

    def _copy_graph(self, copy: OxigraphStore, graph: str, projection: Projection | None) -> None:
        node = ox.NamedNode(graph)
        if projection is None:
            copy._store.bulk_extend(self._store.quads_for_pattern(None, None, None, node))
            return
        assert self._snapshots is not None
        snapshot = self._snapshots.find(graph, projection)
        if snapshot is not None:
            # Lenient (no IRI validation: 1.7 s instead of 2.6 s for 320k
            # quads): a snapshot holds only quads the store already accepted.
            copy._store.bulk_load(path=str(snapshot), format=ox.RdfFormat.N_QUADS, lenient=True)
            return
        for predicate in sorted(projection.predicates - {RDF_TYPE}):
            copy._store.bulk_extend(
                self._store.quads_for_pattern(None, ox.NamedNode(predicate), None, node)
            )
        rdf_type = ox.NamedNode(RDF_TYPE)
        for cls in sorted(projection.classes):
            copy._store.bulk_extend(
                self._store.quads_for_pattern(None, rdf_type, ox.NamedNode(cls), node)
            )

    def keep_snapshot(
        self, nquads: Path, graph: str, projections: list[Projection], *, whole: bool = False
    ) -> None:
        """Write the projected snapshots of a just-added graph (on disk only).

        A snapshot only saves time, so one that cannot be written is skipped:
        the graph is then read from the store.
        """
        if self._snapshots is None:
            return
        try:
            if whole:
                (projection,) = projections
                self._snapshots.write_whole(nquads, graph, projection)
            else:
                self._snapshots.write(nquads, graph, projections)
        except OSError:
            self._snapshots.remove(graph)

    def drop_snapshots(self, graph: str) -> None:
        """Remove the snapshot files of ``graph``; the graph stays in the store."""
        if self._snapshots is not None:
            self._snapshots.remove(graph)

    def flush(self) -> None:
        """Persist pending writes (a no-op in memory)."""
        if self.path is not None:
            self._store.flush()

    def close(self) -> None:
        """Release the on-disk lock so another process may open the store."""
        if getattr(self, "_store", None) is not None:
            self.flush()
            del self._store
            self._store = None  # type: ignore[assignment]


def _check_iri(iri: str) -> str:
    if any(ch in iri for ch in '<>"{}|^`\\ \n'):
        raise QueryError(f"not an IRI: {iri!r}")
    return iri


def term_ntriples(value: Value) -> str:
    """The N-Triples spelling of a parameter value (escaped; safe to splice into SPARQL)."""
    return str(_to_term(value))


_GROUP_OPENERS = re.compile(r"\b(WHERE|ASK)\s*\{", re.IGNORECASE)


def bind_values(query: str, params: Mapping[str, Value] | None) -> str:
    """Bind ``params`` by opening every ``WHERE {`` (and ``ASK {``) with a VALUES block.

    This is SPARQL's own way to bind values, it reaches into subqueries (which
    a trailing VALUES clause does not), and the same text runs on any SPARQL
    1.1 engine. Terms are serialised with escaping, never formatted from input.
    """
    if not params:
        return query
    for name in params:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise QueryError(f"not a SPARQL variable name: {name!r}")
    names = " ".join(f"?{name}" for name in params)
    values = " ".join(term_ntriples(value) for value in params.values())
    block = f"VALUES ({names}) {{ ({values}) }} "
    bound, count = _GROUP_OPENERS.subn(lambda m: m.group(0) + " " + block, query)
    if count == 0:
        raise QueryError("cannot bind parameters: the query has no WHERE { ... } group")
    return bound


def open_store(path: Path | None) -> OxigraphStore:
    """Open the embedded store at ``path`` (created when absent), or in memory for None."""
    return OxigraphStore(path)
