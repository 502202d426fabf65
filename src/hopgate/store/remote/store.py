"""The remote store: the same :class:`~hopgate.store.Store` on any SPARQL 1.1 endpoint.

What the store holds: the named graphs hopgate's catalog lists as published
(loads, evaluations) and the catalog itself, so a server's other graphs (and
Virtuoso's system graphs) are never read, counted or dumped. Every query is
sent with that dataset (``default-graph-uri`` and ``named-graph-uri`` for
each graph), so its default graph is the union of hopgate's named graphs, as
on the embedded store, and the query text is the library's, unchanged.

Requests are :mod:`hopgate.store.remote.transport`'s, writes
:mod:`hopgate.store.remote.uploads`', whole-graph reads
:mod:`hopgate.store.remote.reads`', and results are mapped to values by
:mod:`hopgate.store.remote.values`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from http.client import HTTPException
from pathlib import Path
from threading import Event
from typing import Any, Literal

from SPARQLWrapper import SPARQLWrapper

from hopgate.errors import QueryError, RowCapReached, StoreError
from hopgate.store.base import Row, Store, Value
from hopgate.store.dialect import (
    SCOPE_OF,
    WRITTEN_JOIN_ORDER,
    exists_as_values,
    join_scope,
    operations,
    order_declaration,
    without_comments,
)
from hopgate.store.oxigraph import OxigraphStore
from hopgate.store.remote.caches import Caches
from hopgate.store.remote.limits import MAX_ROWS_HEADER
from hopgate.store.remote.paging import (
    construct_page,
    count_query,
    select_page,
    shape,
    template_triples,
)
from hopgate.store.remote.reads import READ_PAGE_TRIPLES, READ_WORKERS, Reads
from hopgate.store.remote.transport import Auth, Contact
from hopgate.store.remote.uploads import DEFAULT_BATCH_BYTES, WRITE_WORKERS
from hopgate.store.remote.values import (
    as_ntriples,
    bind_update,
    boolean,
    check_iri,
    integer,
    rows,
    stream_rows,
)
from hopgate.store.terms import (
    bind_parameters,
    bind_values,
    located,
    refuse_dataset_clause,
    refuse_service,
)
from hopgate.vocab import CATALOG_GRAPH, ID_BASE, PROV, sparql_prologue

#: The most triples one request of :meth:`RemoteStore.remove_graph` deletes, each the
#: server's own transaction: a 1M-claim evaluation's scratch graph removed by one
#: ``DROP`` grew Virtuoso from 16.6 to more than 21.8 GB in two minutes, past the
#: machine's memory (bench/README.md "7 December, midday"), as one ``MOVE`` of a whole
#: load had (the loads are written in batches since).
REMOVE_BATCH = 250_000


class RemoteStore(Caches, Reads, Store):
    """A hopgate store on a SPARQL 1.1 endpoint (queries) and update endpoint (writes).

    Args:
        endpoint: the query endpoint (SPARQL 1.1 Protocol).
        update_endpoint: the SPARQL 1.1 Update endpoint (default: ``endpoint``).
        graph_store: a SPARQL 1.1 Graph Store HTTP Protocol endpoint used as the
            bulk path for writes (e.g. Virtuoso's ``/sparql-graph-crud-auth``);
            without it, writes are ``INSERT DATA`` batches.
        user, password: credentials for writes (and reads, when the endpoint
            asks for them).
        auth: ``digest`` (Virtuoso's ``/sparql-auth``) or ``basic``.
        timeout: seconds to wait for any one response; a request left
            unanswered that long is an error, never sent again.
        retries: further attempts of an idempotent request after a transient
            failure (connection refused or reset, HTTP 502/503/504, a deadlock
            victim).
        batch_bytes: the largest write request body.
        evaluate_on_server: run an evaluation's rule files on the server
            (:meth:`scoped`), as SPARQL Update into a scratch graph there (the
            default). With False, the run's load graphs are copied into client
            memory and the rule files run on the copy.
        join_order: ``"server"`` lets the server plan each request;
            ``"written"`` asks it to join in the order the text is written
            (:data:`hopgate.store.dialect.WRITTEN_JOIN_ORDER`, Virtuoso only). The
            answers must not differ: the parity tests run the rule files both
            ways, to see them under more than one plan.
    """

    def __init__(
        self,
        endpoint: str,
        *,
        update_endpoint: str | None = None,
        graph_store: str | None = None,
        user: str | None = None,
        password: str | None = None,
        auth: Auth = "digest",
        timeout: float = 600.0,
        retries: int = 3,
        batch_bytes: int = DEFAULT_BATCH_BYTES,
        evaluate_on_server: bool = True,
        join_order: Literal["server", "written"] = "server",
    ) -> None:
        if auth not in ("digest", "basic"):
            raise StoreError(f"unknown authentication {auth!r}: use digest or basic")
        self.endpoint = endpoint
        self.update_endpoint = update_endpoint or endpoint
        self.graph_store = graph_store
        self.user = user
        self.password = password
        self.auth: Auth = auth
        self.timeout = timeout
        self.retries = retries
        self.batch_bytes = batch_bytes
        self.evaluates_in_place = evaluate_on_server
        if join_order not in ("server", "written"):
            raise StoreError(f"unknown join order {join_order!r}: use server or written")
        self.pragma = WRITTEN_JOIN_ORDER if join_order == "written" else ""
        self.read_page_triples = READ_PAGE_TRIPLES
        self.read_workers = READ_WORKERS
        self.write_workers = WRITE_WORKERS
        self._prologue = sparql_prologue()
        self._dataset: list[str] | None = None
        #: A scoped view's graphs (:meth:`scoped`); None for the whole store.
        self._pinned: list[str] | None = None
        #: Where a scoped view lists its graphs for its updates (:meth:`scoped`), if it does.
        self._listed_in: str | None = None
        self._opener = self._build_opener()
        self._contact = Contact()

    # ---- the dataset -------------------------------------------------------

    def graphs(self) -> list[str]:
        """The IRIs of hopgate's published named graphs on the server, sorted.

        Read from the catalog, which lists every published graph (a load's or
        an evaluation's bundle), not from a scan: Virtuoso answers ``SELECT
        DISTINCT ?g`` over all quads by reading every quad. A
        graph whose catalog entry never arrived is unpublished, so it is not
        part of the dataset. Kept until this client next writes.
        """
        if self._pinned is not None:
            return list(self._pinned)
        if self._dataset is not None:
            return list(self._dataset)
        listing = (
            f"SELECT DISTINCT ?g WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ ?g a <{PROV}Bundle> }} }}"
        )
        listed = {str(row["g"]) for row in self._all_rows(listing, dataset=False)}
        found = (
            sorted(g for g in listed | {CATALOG_GRAPH} if g.startswith(ID_BASE)) if listed else []
        )
        self._dataset = found
        return list(found)

    def scoped(self, graphs: list[str], *, listed_in: str | None = None) -> RemoteStore:
        """The same server seen through ``graphs`` only: where an evaluation runs.

        Its queries are sent with ``graphs`` as their dataset and its updates
        with them as the named graphs every operation's WHERE reads
        (``using-named-graph-uri``), so the rule files see the run's load
        graphs and the evaluation's scratch graph, and nothing else the server
        holds (other runs, bundles, graphs being written). Writes go to the server;
        the graphs need not be published (a scratch graph is not).

        ``listed_in`` (one of ``graphs``, a scratch graph the caller removes):
        the graphs are written there as a list (``<graph> hg:scopeOf
        <listed_in>``), and each update is sent with no dataset, every
        ``GRAPH ?g`` of its WHERE joined to that list
        (:func:`hopgate.store.dialect.join_scope`): the same graphs read, but
        Virtuoso 7.2.5 looks a pattern up once per graph of a dataset, so the
        rule steps cost more for each input graph a run has (at 3,000 claims,
        9.2 s through one graph, 19.7 s with five more that were empty; 5.3 and
        7.5 s through the list).
        """
        view = copy.copy(self)
        view._pinned = sorted({check_iri(g) for g in graphs})
        if listed_in is not None:
            if listed_in not in view._pinned:
                raise StoreError(
                    f"the list of a scoped view's graphs goes in one of them, not {listed_in}"
                )
            listing = " ".join(f"<{g}> <{SCOPE_OF}> <{listed_in}> ." for g in view._pinned)
            self._update(f"INSERT DATA {{ GRAPH <{listed_in}> {{ {listing} }} }}")
            view._listed_in = listed_in
        return view

    def view(self, graphs: list[str]) -> RemoteStore:
        """The same server, its queries sent with ``graphs`` as their dataset (:meth:`scoped`
        without a list of them)."""
        return self.scoped(graphs)

    # ---- queries -----------------------------------------------------------

    def _query(self, query: str, params: Mapping[str, Value] | None) -> dict[str, Any]:
        # IRI parameters written in as constants where that keeps the meaning
        # (hopgate.store.terms.bind_parameters: Virtuoso 7.2.5 loses rows or hangs
        # on VALUES in each sub-select); the others are bound with VALUES.
        return self._json(self._query_text(query, params))

    def _query_text(self, query: str, params: Mapping[str, Value] | None) -> str:
        return exists_as_values(self._prologue + bind_parameters(query, params))

    def _empty(self) -> OxigraphStore | None:
        """An empty embedded store when hopgate has no graph on the server, else None.

        A query over an empty dataset is answered locally: Virtuoso, sent no
        dataset, reads all its graphs (the unpublished graph of an interrupted load
        included), and sent only an empty graph, answers ``ASK { VALUES ?c
        ... GRAPH ?c {...} }`` true.
        """
        return None if self.graphs() else OxigraphStore(None)

    def select(self, query: str, *, params: Mapping[str, Value] | None = None) -> list[Row]:
        """Run a SELECT query with ``params`` bound to variables; return all its rows.

        An answer the server cuts at its row cap is read again in pages
        (:mod:`hopgate.store.remote.paging`), never used short.
        """
        empty = self._empty()
        if empty is not None:
            return empty.select(query, params=params)
        return self._all_rows(self._query_text(query, params))

    def select_on_every_graph(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> list[Row] | None:
        """On Virtuoso: ``query`` sent with no dataset, which Virtuoso answers over all its
        graphs (system graphs, other applications' and hopgate's unpublished ones
        included), with its default graph their union; else None. Read whole, as
        :meth:`select` reads."""
        if self.limits().kind != "virtuoso":
            return None
        return self._all_rows(self._query_text(query, params), dataset=False)

    def _all_rows(self, text: str, *, dataset: bool = True) -> list[Row]:
        """Every row of a SELECT's answer: whole when it fits the server's cap, else in pages."""
        try:
            body = self._json(text, dataset=dataset)
        except RowCapReached as cut:
            names = cut.body["head"]["vars"] if cut.body else []
            return list(self._pages(text, names, dataset=dataset))
        if "results" not in body:
            raise QueryError("expected a SELECT query")
        found = rows(body)
        size = self.select_cut()
        if size is not None and len(found) >= size:
            # A server that cuts without saying so (not Virtuoso, not Oxigraph):
            # an answer as large as the cap may be cut.
            return list(self._pages(text, body["head"]["vars"], dataset=dataset))
        return found

    def _pages(self, text: str, names: list[str], *, dataset: bool = True) -> Iterator[Row]:
        """A SELECT's rows page by page, in a total order, each page within the server's cap.

        Raises:
            StoreError: the query slices its own answer (its own LIMIT or
                OFFSET), so it cannot be paged: the cap must be raised.
        """
        size = self.limits().page_size
        plain = without_comments(text)
        # Each page is joined as the whole query would be (review-queue.rq's order).
        declared = order_declaration(text)
        try:
            shape(plain)
            first = select_page(plain, names, 0, size)
        except QueryError as exc:
            raise StoreError(f"{RowCapReached(size)} ({exc})") from None
        offset = 0
        page = first
        given, failures = 0, 0  # rows of this page already yielded; its failed reads
        while True:
            # Each page streamed as a whole answer is (select_rows): a page may be
            # as large as the server's cap (100,000,000 rows as advised), and a
            # parsed page held whole took the client to 4.4 GB at 1M claims.
            found = 0
            response = self._json_response(declared + page, dataset=dataset)
            try:
                for row in stream_rows(getattr(response, "read1", response.read)):
                    found += 1
                    if found > given:
                        given = found
                        yield row
            except (TimeoutError, OSError, HTTPException) as exc:
                # Cut while read: the page is asked again (its order is total, so the
                # same rows come in the same order) and the rows already given skipped,
                # as a page read whole was retried before it was streamed.
                failures += 1
                if failures > self.retries:
                    raise self._reading(exc) from None
                continue
            finally:
                response.close()
            if found < size:
                return
            offset += size
            page = select_page(plain, names, offset, size)
            given, failures = 0, 0

    def select_rows(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> Iterator[Row]:
        """Run a SELECT query; yield its rows as the server's answer arrives (never held whole).

        An answer the server cuts at its row cap (it says so before the
        first row, or it reaches the cap) is read again in pages instead.
        """
        empty = self._empty()
        if empty is not None:
            yield from empty.select_rows(query, params=params)
            return
        text = self._query_text(query, params)
        response = self._json_response(text)
        size = self.select_cut()
        held: list[Row] = []
        try:
            cut = response.headers.get(MAX_ROWS_HEADER) is not None
            # read1: what has arrived (up to a chunk), not a whole chunk's wait.
            answer = stream_rows(getattr(response, "read1", response.read))
            for row in answer:
                if cut or size is not None:
                    held.append(row)
                    if cut or len(held) >= size:  # type: ignore[operator]
                        break
                    continue
                yield row
            else:
                yield from held
                return
        except (TimeoutError, OSError, HTTPException) as exc:
            raise self._reading(exc) from None
        finally:
            response.close()
        # Cut (or as large as the cap): read again in pages, none of it used yet.
        yield from self._pages(text, list(held[0]) if held else [])

    def ask(self, query: str, *, params: Mapping[str, Value] | None = None) -> bool:
        """Run an ASK query with ``params`` bound to variables."""
        empty = self._empty()
        if empty is not None:
            return empty.ask(query, params=params)
        body = self._query(query, params)
        if "boolean" not in body:
            raise QueryError("expected an ASK query")
        return boolean(body["boolean"])

    def construct(self, query: str, *, params: Mapping[str, Value] | None = None) -> bytes:
        """Run a CONSTRUCT query; return the triples as N-Triples bytes."""
        empty = self._empty()
        if empty is not None:
            return empty.construct(query, params=params)
        text = exists_as_values(self._prologue + bind_values(query, params))

        def action() -> bytes:
            return as_ntriples(*self._construct_page(text, dataset=True))

        self.limits()
        data = self._attempt(action, idempotent=True, what="query")
        cap = self.limits().construct_cut
        if cap is None or data.count(b"\n") < cap:
            return data
        # As many triples as the cap: Virtuoso cuts a CONSTRUCT there without a word.
        return self._construct_pages(text)

    def _construct_pages(self, text: str) -> bytes:
        """A CONSTRUCT's triples read over its template's distinct solutions, page by page.

        The number of solutions is counted first, so the pages cover them
        all; each page asks for few enough solutions that its triples stay
        within the server's cap.
        """
        size = self.limits().page_size
        plain, declared = without_comments(text), order_declaration(text)
        try:
            per = template_triples(shape(plain).template)
            counted = rows(self._json(declared + count_query(plain), dataset=True))
        except QueryError as exc:
            raise StoreError(f"{RowCapReached(size)} ({exc})") from None
        total = integer(counted[0]["n"]) if counted else 0
        step = max(1, size // per)
        seen: dict[bytes, None] = {}
        for offset in range(0, total, step):
            page = declared + construct_page(plain, offset, step)

            def action(page: str = page) -> bytes:
                return as_ntriples(*self._construct_page(page, dataset=True))

            for line in self._attempt(action, idempotent=True, what="query").splitlines(True):
                seen[line] = None
        return b"".join(seen)

    def query_any(
        self, query: str, *, params: Mapping[str, Value] | None = None
    ) -> list[Row] | bool | bytes:
        """Run any query form: rows for SELECT, a bool for ASK, N-Triples otherwise."""
        refuse_service(query)
        refuse_dataset_clause(query)
        empty = self._empty()
        if empty is not None:
            return empty.query_any(query, params=params)
        form = SPARQLWrapper(self.endpoint)
        form.setQuery(without_comments(self._prologue + query))
        try:
            if form.queryType in ("CONSTRUCT", "DESCRIBE"):
                return self.construct(query, params=params)
            if form.queryType == "SELECT":
                return self._all_rows(self._query_text(query, params))
            body = self._query(query, params)
        except QueryError as exc:
            # The server counts the PREFIX lines hopgate puts before the text.
            raise QueryError(located(str(exc), self._prologue)) from None
        if "boolean" in body:
            return boolean(body["boolean"])
        return rows(body)

    def count(self, graph: str | None = None) -> int:
        """The number of quads in hopgate's graphs, or in one named graph."""
        if graph is not None:
            return self._graph_size(graph)
        if not self.graphs():
            return 0
        found = rows(self._json("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"))
        return integer(found[0]["n"]) if found else 0

    # ---- writes ------------------------------------------------------------

    def update(self, update: str, *, params: Mapping[str, Value] | None = None) -> None:
        """Run a SPARQL 1.1 Update in one request (one transaction on the server); never retried.

        On a :meth:`scoped` view, each operation is a request of its own.
        """
        if self._pinned is None:
            self._update(exists_as_values(bind_update(update, params)))
            return
        # A scoped view writes scratch graphs, which need no transaction, so each
        # operation is its own request: Virtuoso 7.2.5 plans every operation of a
        # request before running the first, so later ones were planned against
        # an empty scratch graph (minutes instead of a second; docs/remote-virtuoso.md).
        for operation in operations(update):
            bound = bind_update(operation, params)
            if self._listed_in is None:
                self._update(exists_as_values(bound), using=self._pinned)
            else:
                self._update(exists_as_values(join_scope(bound, self._listed_in)))

    def remove_graph(self, graph: str) -> None:
        """Remove one named graph and all its quads, and its listing as a graph being
        written, if any: its triples deleted :data:`REMOVE_BATCH` at a time until none
        is left, then ``DROP SILENT`` (each request safe to retry)."""
        iri = check_iri(graph)
        batch = (
            f"DELETE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }} WHERE {{ {{ SELECT ?s ?p ?o WHERE "
            f"{{ GRAPH <{iri}> {{ ?s ?p ?o }} }} LIMIT {REMOVE_BATCH} }} }}"
        )
        left = f"ASK {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}"
        while True:
            self._update(batch, idempotent=True)
            if not boolean(self._json(left, dataset=False).get("boolean")):
                break
        self._update(f"DROP SILENT GRAPH <{iri}>", idempotent=True)
        self.end_write(graph)

    def add_graph(
        self, path: Path, graph: str, *, trusted: bool = False, stop: Event | None = None
    ) -> None:
        """Write an N-Quads file of one new graph in place, in batches, checked whole.

        The graph is not published: hopgate's reads see it once its catalog
        entry is added (:func:`hopgate.store.publish.publish`). ``trusted`` says hopgate wrote the file, each triple once (an
        evaluation's bundle): the arrival check then counts lines instead of
        keeping a set of the triples. The server parses what it is sent either way.
        ``stop`` (set by another thread) ends the upload before its next batch,
        and the graph is removed, as on a failure.

        Raises:
            StoreError: the graph exists, a quad belongs to another graph, or
                the server failed; the graph is then not in the store.
        """
        # Asked of the server, not of the cached listing: another client may
        # have written it since.
        exists = self._json(f"ASK {{ GRAPH <{check_iri(graph)}> {{ ?s ?p ?o }} }}", dataset=False)
        if boolean(exists.get("boolean")):
            raise StoreError(f"the graph {graph} is already in the store")
        self._publish(path, only=graph, distinct=trusted, stop=stop)

    def add_nquads(self, path: Path) -> None:
        """Add the quads of an N-Quads file, all or nothing (staged, then one ADD request)."""
        self._publish(path, only=None)


__all__ = ["RemoteStore"]
