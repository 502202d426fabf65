"""The embedded store: Oxigraph on disk (the default), or in memory."""

from __future__ import annotations

import io
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from threading import Event
from typing import BinaryIO, TypeVar

import pyoxigraph as ox

from hopgate.errors import DiskFullError, QueryError, StoreError, StoreLockedError, is_disk_full
from hopgate.library.projection import Projection
from hopgate.store import read_lock
from hopgate.store.base import SCRATCH_SUFFIX, DumpFormat, Row, Store, Value, check_iri
from hopgate.store.terms import (
    bind_parameters,
    from_term,
    located,
    refuse_dataset_clause,
    refuse_service,
)
from hopgate.vocab import CATALOG_GRAPH, PROV, RDF_TYPE, sparql_prologue


def _solutions(result: ox.QuerySolutions) -> Iterator[Row]:
    """A SELECT result's rows of Python values, keyed by variable name, as they come."""
    names = [variable.value for variable in result.variables]
    # A solution iterates its terms in the order of ``variables``: zipping
    # them is a third of the cost of looking each up by name.
    return (dict(zip(names, map(from_term, solution), strict=True)) for solution in result)


_T = TypeVar("_T")


def _kept(rows: Iterator[_T], holder: object) -> Iterator[_T]:
    """``rows``, holding ``holder`` (a store's read lock) while they are being read."""
    yield from rows


def _solution_rows(result: ox.QuerySolutions) -> list[Row]:
    """A SELECT result as rows of Python values, keyed by variable name."""
    return list(_solutions(result))


class OxigraphStore(Store):
    """The embedded store: Oxigraph on disk at ``path``, or in memory when ``path`` is None.

    ``read_only`` (on disk): opened for reading only, as every read command opens it
    (docs/spec/records.md "Writes and reads"): the engine neither replays nor compacts
    its files, so a read changes no file of the store and works on a store its user may
    not write; readers share the store, and a writer is refused while any reads it (and
    a reader while a writer has it open: hopgate.store.read_lock).
    """

    def __init__(self, path: Path | None = None, *, read_only: bool = False) -> None:
        self.path = path
        # The shared lock of a store opened for reading (hopgate.store.read_lock): held by
        # the store, its views and its pending rows, released when none is left.
        self._lock = read_lock.acquire(path) if read_only and path is not None else None
        self._read_only = self._lock is not None
        try:
            if path is None:
                self._store = ox.Store()
            elif self._read_only:
                self._store = ox.Store.read_only(str(path))
            else:
                path.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(path))
        except (OSError, RuntimeError) as exc:  # RuntimeError: a damaged store (Corruption: ...)
            self._lock = None
            if "lock" in str(exc).lower():
                raise StoreLockedError(
                    f"the store at {path} is in use by another process; "
                    "wait for it to finish or use another --store"
                ) from None
            raise StoreError(f"cannot open the store at {path}: {exc}") from None
        self._prologue = sparql_prologue()
        # The graphs queries may see: None for all of them (the common case),
        # else the published ones (see _visible_graphs).
        self._dataset: list[ox.NamedNode] | None = None
        self._dataset_known = False
        self._fixed_dataset = False
        self._owner = True
        # The views of this store (and of its views), which close() detaches.
        self._views: weakref.WeakSet[OxigraphStore] = weakref.WeakSet()

    def view(self, graphs: list[str]) -> OxigraphStore:
        """A read-only store over the same data whose queries see only ``graphs``.

        No quad is copied: the queries run with ``graphs`` as their dataset
        (default graph their union, and the only graphs ``GRAPH`` can name).
        """
        view = object.__new__(OxigraphStore)
        view.path = self.path
        view._store = self._store
        view._prologue = self._prologue
        view._dataset = [ox.NamedNode(check_iri(g)) for g in graphs]
        view._dataset_known = True
        view._fixed_dataset = True
        view._owner = False
        view._read_only = self._read_only
        view._lock = self._lock
        view._views = self._views
        self._views.add(view)
        return view

    def _visible_graphs(self) -> list[ox.NamedNode] | None:
        """The published graphs when the store holds an unpublished one, else None (all).

        A graph is published by its catalog entry (docs/spec/records.md
        "Records"); a graph written without one (a load or evaluation killed
        between its bulk write and its catalog entry) is hidden from every
        query until the next load removes it. Scratch graphs of a running
        evaluation stay visible to it. A store in memory (a working copy, or
        a scratch store) does not outlive its process, so it shows every graph.
        """
        if self._dataset_known or self.path is None:
            return self._dataset
        names = {g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode)}
        catalog = ox.NamedNode(CATALOG_GRAPH)
        published = {CATALOG_GRAPH}
        if self._store.contains_named_graph(catalog):
            bundle = ox.NamedNode(PROV + "Bundle")
            rdf_type = ox.NamedNode(RDF_TYPE)
            published.update(
                quad.subject.value
                for quad in self._store.quads_for_pattern(None, rdf_type, bundle, catalog)
                if isinstance(quad.subject, ox.NamedNode)
            )
        hidden = {g for g in names - published if not g.endswith(SCRATCH_SUFFIX)}
        self._dataset = [ox.NamedNode(g) for g in sorted(names - hidden)] if hidden else None
        self._dataset_known = True
        return self._dataset

    def _changed(self) -> None:
        if getattr(self, "_read_only", False):
            raise StoreError(
                f"the store at {self.path} was opened for reading; a read never writes "
                '(docs/spec/records.md "Writes and reads")'
            )
        if not self._fixed_dataset:
            self._dataset_known = False

    def unpublished_graphs(self) -> list[str]:
        """Named graphs without a catalog entry (left by an interrupted write), sorted."""
        visible = self._visible_graphs()
        if visible is None:
            return []
        shown = {g.value for g in visible}
        return sorted(
            g.value
            for g in self._store.named_graphs()
            if isinstance(g, ox.NamedNode) and g.value not in shown
        )

    def query_terms(self, query: str, *, union: bool = True) -> object:
        """Run ``query`` (no prologue added, nothing bound); return Oxigraph's own result.

        For callers that need the terms as Oxigraph holds them (the SHACL
        engine's report). The dataset is this store's, as for :meth:`select`:
        a view's graphs, or the published graphs; with ``union`` False the
        default graph is the store's unnamed one.

        Raises:
            SyntaxError: the query does not parse (Oxigraph's own error).
        """
        dataset = self._visible_graphs()
        if dataset is None:
            return self._store.query(query, use_default_graph_as_union=union)
        if union:
            return self._store.query(query, default_graph=list(dataset), named_graphs=list(dataset))
        return self._store.query(query, named_graphs=list(dataset))

    def _located(self, error: SyntaxError) -> str:
        """Oxigraph's parse error, its line counted in the text as given (a column may
        count a parameter bound into that line)."""
        return located(str(error), self._prologue)

    def _query(self, query: str, params: Mapping[str, Value] | None) -> object:
        refuse_service(query)
        dataset = self._visible_graphs()
        try:
            if dataset is None:
                return self._store.query(
                    self._prologue + bind_parameters(query, params),
                    use_default_graph_as_union=True,
                )
            return self._store.query(
                self._prologue + bind_parameters(query, params),
                default_graph=list(dataset),
                named_graphs=list(dataset),
            )
        except SyntaxError as exc:
            raise QueryError(f"the query does not parse: {self._located(exc)}") from None
        except OSError as exc:
            raise StoreError(f"the query failed: {exc}") from None

    def select(self, query: str, *, params: Mapping[str, Value] | None = None) -> list[Row]:
        """Run a SELECT query with ``params`` bound to variables; return its rows."""
        result = self._query(query, params)
        if not isinstance(result, ox.QuerySolutions):
            raise QueryError("expected a SELECT query")
        return _solution_rows(result)

    def select_rows(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> Iterator[Row]:
        """Run a SELECT query; yield its rows as Oxigraph produces them."""
        result = self._query(query, params)
        if not isinstance(result, ox.QuerySolutions):
            raise QueryError("expected a SELECT query")
        rows = _solutions(result)
        # Rows read after close() still read the engine's files: they hold its read lock.
        return rows if self._lock is None else _kept(rows, self._lock)

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
        refuse_dataset_clause(query)
        result = self._query(query, params)
        if isinstance(result, ox.QueryBoolean):
            return bool(result)
        if isinstance(result, ox.QueryTriples):
            return "".join(f"{triple} .\n" for triple in result).encode("utf-8")
        assert isinstance(result, ox.QuerySolutions)
        return _solution_rows(result)

    def update(self, update: str, *, params: Mapping[str, Value] | None = None) -> None:
        """Run a SPARQL 1.1 Update, atomically; parameters bound as a query's are
        (:func:`hopgate.store.terms.bind_parameters`)."""
        if self._fixed_dataset:
            raise StoreError("a view of the store is read-only")
        text = self._prologue + bind_parameters(update, params)
        self._changed()
        try:
            self._store.update(text)
        except SyntaxError as exc:
            raise QueryError(f"the update does not parse: {self._located(exc)}") from None
        except OSError as exc:
            raise StoreError(f"the update failed: {exc}") from None

    def add_nquads(self, path: Path, *, lenient: bool = False) -> None:
        """Add the quads of an N-Quads file in one transaction (all or nothing);
        ``lenient``: without IRI checks (a file hopgate wrote from terms a store accepted)."""
        self._changed()
        try:
            self._store.load(path=str(path), format=ox.RdfFormat.N_QUADS, lenient=lenient)
        except (OSError, SyntaxError) as exc:
            raise StoreError(f"cannot add {path} to the store: {exc}") from None

    def load_rdf(self, data: bytes, rdf_format: ox.RdfFormat, graph: str) -> None:
        """Add triples (``data`` in ``rdf_format``) to the named graph ``graph`` in one transaction."""
        self._changed()
        try:
            self._store.load(data, format=rdf_format, to_graph=ox.NamedNode(check_iri(graph)))
        except SyntaxError as exc:
            raise StoreError(f"cannot add triples to {graph}: {exc}") from None

    def add_graph(
        self, path: Path, graph: str, *, trusted: bool = False, stop: Event | None = None
    ) -> None:
        """Bulk-load a new named graph from N-Quads; remove it again on failure.

        On disk, Oxigraph's bulk loader writes sorted files directly (faster
        than a transaction; figures in bench/README.md) but is not atomic, so a
        failure removes the graph: it did not exist before. A ``trusted`` file
        is parsed leniently (no IRI validation, which saves a share of the
        parse).
        """
        if self._store.contains_named_graph(ox.NamedNode(check_iri(graph))):
            raise StoreError(f"the graph {graph} is already in the store")
        self._changed()
        if self.path is None:
            # In memory: one transaction. Trusted, without the IRI checks: the evaluation
            # adds its bundle to the copy its answers are recorded on, 3.3 -> 1.7-2.3 s
            # at 10k claims (bench/README.md "6 December, morning").
            self.add_nquads(path, lenient=trusted)
            return
        before = set(self._bulk_files())
        try:
            self._store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS, lenient=trusted)
            self._store.flush()
        except BaseException as exc:
            self._store.remove_graph(ox.NamedNode(graph))
            # The bulk loader's sorted files not yet ingested stay beside the store when it
            # fails (a full disk): gigabytes at 1M claims.
            for leftover in set(self._bulk_files()) - before:
                leftover.unlink(missing_ok=True)
            if is_disk_full(exc):
                raise DiskFullError(
                    f"the disk of the store at {self.path} is full: {graph} could not be "
                    "written, and nothing of it was kept"
                ) from None
            if isinstance(exc, OSError | SyntaxError):
                raise StoreError(f"cannot add {path} to the store: {exc}") from None
            raise

    def _bulk_files(self) -> list[Path]:
        """The sorted files Oxigraph's bulk loader writes beside the store (``bulk-*.sst``)
        before it hands them to the store; none remain once it has."""
        return [] if self.path is None else list(self.path.glob("bulk-*.sst"))

    def remove_leftovers(self) -> list[Path]:
        """Remove the bulk loader's files a killed bulk write left beside the store.

        This process holds the store's lock, so no other is bulk-writing into it, and
        one of its own leaves none once it returns: any such file is a leftover.
        """
        found = self._bulk_files()
        if found:
            self._changed()
        for leftover in found:
            leftover.unlink(missing_ok=True)
        return found

    def remove_graph(self, graph: str) -> None:
        """Remove one named graph and all its quads."""
        node = ox.NamedNode(graph)
        self._changed()
        if self._store.contains_named_graph(node):
            self._store.remove_graph(node)

    def graphs(self) -> list[str]:
        """The IRIs of the named graphs queries can see, sorted (unpublished ones are hidden)."""
        visible = self._visible_graphs()
        if visible is not None:
            return [g.value for g in visible]
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def count(self, graph: str | None = None) -> int:
        """The number of quads in the store or in one named graph."""
        if graph is None and self._visible_graphs() is None:
            return len(self._store)
        if graph is None:
            rows = self.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
            value = rows[0]["n"]
            return int(value) if isinstance(value, int) else 0
        rows = self.select(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{check_iri(graph)}> {{ ?s ?p ?o }} }}"
        )
        value = rows[0]["n"]
        return int(value) if isinstance(value, int) else 0

    def dump(self, out: BinaryIO, *, format: DumpFormat, graph: str | None = None) -> None:
        """Write the store (or one named graph) to ``out``; N-Quads lines are sorted."""
        buffer = io.BytesIO()
        if graph is None and self._visible_graphs() is None:
            rdf_format = ox.RdfFormat.N_QUADS if format == "nquads" else ox.RdfFormat.TRIG
            self._store.dump(buffer, format=rdf_format)
        elif graph is None:
            visible = self._visible_graphs() or []
            shown = [q for g in visible for q in self._store.quads_for_pattern(None, None, None, g)]
            rdf_format = ox.RdfFormat.N_QUADS if format == "nquads" else ox.RdfFormat.TRIG
            ox.serialize(shown, buffer, format=rdf_format)
        else:
            node = ox.NamedNode(check_iri(graph))
            quads = self._store.quads_for_pattern(None, None, None, node)
            rdf_format = ox.RdfFormat.N_QUADS if format == "nquads" else ox.RdfFormat.TRIG
            ox.serialize(quads, buffer, format=rdf_format)
        data = buffer.getvalue()
        if format == "nquads":
            data = b"".join(sorted(data.splitlines(keepends=True)))
        out.write(data)

    def iter_graph_nquads(self, graph: str) -> Iterator[str]:
        """The quads of one graph as N-Quads lines (unsorted)."""
        node = ox.NamedNode(check_iri(graph))
        quads = (f"{quad} .\n" for quad in self._store.quads_for_pattern(None, None, None, node))
        # Quads read after close() still read the engine's files: they hold its read lock.
        return quads if self._lock is None else _kept(quads, self._lock)

    @contextmanager
    def working_copy(
        self,
        projection: Projection | None = None,
        graphs: list[str] | None = None,
        *,
        files: Mapping[str, Path] | None = None,
        lacking: Mapping[str, Projection] | None = None,
    ) -> Iterator[Store]:
        """For an on-disk store, an in-memory copy of its quads; else the store itself.

        The copy holds the quads of ``graphs`` (default: every visible graph)
        that ``projection`` keeps (all of them without one): parsed from the
        graph's file in ``files`` where it has one (a verified snapshot:
        :mod:`hopgate.store.snapshots`) with what ``lacking`` names for it
        read from the store, else read from the store, which costs a term
        lookup per quad.
        """
        if self.path is None:
            yield self
            return
        copy = OxigraphStore(None)
        try:
            for graph in self.graphs() if graphs is None else graphs:
                file = (files or {}).get(graph)
                if file is not None:
                    copy.load_nquads_lenient(file)
                    if graph in (lacking or {}):
                        self._copy_graph(copy, graph, (lacking or {})[graph])
                else:
                    self._copy_graph(copy, graph, projection)
            yield copy
        finally:
            copy.close()

    @contextmanager
    def local_view(self, graphs: list[str]) -> Iterator[Store]:
        """A view of this store over ``graphs`` (:meth:`view`): nothing is copied."""
        yield self.view(graphs)

    def add_quads(self, quads: Iterable[ox.Quad]) -> None:
        """Add quads built in this process, in one transaction."""
        self._changed()
        self._store.extend(quads)

    @property
    def folder(self) -> Path | None:  # type: ignore[override]
        """The store's own folder on disk; None in memory."""
        return self.path

    def _copy_graph(self, copy: OxigraphStore, graph: str, projection: Projection | None) -> None:
        for quads in self._projected(graph, projection):
            copy._store.bulk_extend(quads)

    def _projected(self, graph: str, projection: Projection | None) -> Iterator[Iterator[ox.Quad]]:
        """The quads of ``graph`` that ``projection`` keeps (all without one), a pattern's
        quads at a time."""
        node = ox.NamedNode(graph)
        if projection is None:
            yield self._store.quads_for_pattern(None, None, None, node)
            return
        for predicate in sorted(projection.predicates - {RDF_TYPE}):
            yield self._store.quads_for_pattern(None, ox.NamedNode(predicate), None, node)
        rdf_type = ox.NamedNode(RDF_TYPE)
        for cls in sorted(projection.classes):
            yield self._store.quads_for_pattern(None, rdf_type, ox.NamedNode(cls), node)

    def load_nquads_lenient(self, path: Path) -> None:
        """Bulk-add an N-Quads file hopgate wrote from terms a store accepted (no IRI checks)."""
        self._changed()
        try:
            self._store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS, lenient=True)
        except (OSError, SyntaxError) as exc:
            raise StoreError(f"cannot add {path} to the store: {exc}") from None

    def flush(self) -> None:
        """Persist pending writes (a no-op in memory, or opened for reading)."""
        if self.path is not None and not getattr(self, "_read_only", False):
            self._store.flush()

    def close(self) -> None:
        """Release the on-disk lock so another process may open the store."""
        if not getattr(self, "_owner", True):
            return
        if getattr(self, "_store", None) is not None:
            self.flush()
            # The engine releases the lock when its last holder lets go: a view still
            # referenced (by a frame an rdflib parse exception keeps in a reference
            # cycle, until the collector's next pass) would keep the store open.
            for view in list(getattr(self, "_views", ())):
                view._store = None
                view._lock = None
            del self._store
            self._store = None  # type: ignore[assignment]
        # Released once nothing can read the engine's files (rows still being read hold it).
        self._lock = None


def open_store(path: Path | None, *, read_only: bool = False) -> OxigraphStore:
    """Open the embedded store at ``path`` (created when absent, unless ``read_only``: for
    reading only), or in memory for None."""
    return OxigraphStore(path, read_only=read_only)


#: What a literal's text is changed to, given its lexical form and datatype (None for a
#: plain or language-tagged string), or None to keep it.
LiteralChange = Callable[[str, str | None], str | None]
_PLAIN = frozenset(
    {
        "http://www.w3.org/2001/XMLSchema#string",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString",
    }
)


def changed_copy(
    store: Store,
    change: LiteralChange,
    projection: Projection | None = None,
    *,
    hidden: frozenset[tuple[str, str]] = frozenset(),
    marker: str = "",
) -> OxigraphStore:
    """A memory copy of the graphs ``store``'s queries see (only the quads ``projection``
    keeps, when given), each literal that ``change`` changes replaced by a plain string
    of its new text, and each literal of a (subject, predicate) pair in ``hidden`` by
    ``marker`` (the reader filter's copy: hopgate.audit.withholding.reader_copy).

    The embedded store's quads go to the copy without a text form between them; a
    remote store's come as its N-Quads dump. ``change`` is asked once per distinct
    literal.
    """
    asked: dict[tuple[str, str | None, str | None], str | None] = {}

    def changed(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
        for quad in quads:
            term, subject = quad.object, quad.subject
            if (
                type(term) is ox.Literal
                and hidden
                and isinstance(subject, ox.NamedNode)
                and (subject.value, quad.predicate.value) in hidden
            ):
                quad = ox.Quad(subject, quad.predicate, ox.Literal(marker), quad.graph_name)
            elif type(term) is ox.Literal:
                datatype = term.datatype.value
                key = (term.value, datatype, term.language)
                if key not in asked:
                    asked[key] = change(term.value, None if datatype in _PLAIN else datatype)
                text = asked[key]
                if text is not None:
                    quad = ox.Quad(quad.subject, quad.predicate, ox.Literal(text), quad.graph_name)
            yield quad

    copy = OxigraphStore(None)
    if isinstance(store, OxigraphStore):
        for graph in store.graphs():
            for quads in store._projected(graph, projection):
                copy._store.bulk_extend(changed(quads))
        return copy
    buffer = io.BytesIO()
    store.dump(buffer, format="nquads")
    buffer.seek(0)
    parsed = ox.parse(buffer, format=ox.RdfFormat.N_QUADS)
    kept = (
        parsed
        if projection is None
        else (q for q in parsed if projection.keeps(q.predicate.value, str(q.object.value)))
    )
    copy._store.bulk_extend(changed(kept))
    return copy
