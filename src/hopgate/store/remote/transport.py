"""The HTTP side of the remote store: requests, authentication, timeouts, retries, errors.

Queries go through the SPARQL 1.1 Protocol (SPARQLWrapper, POST, JSON
results), updates as the request body, bulk writes through the SPARQL 1.1
Graph Store HTTP Protocol. Authentication is HTTP digest or basic; every
request has a timeout, and a request left unanswered that long is an error,
never sent again. Only idempotent requests (queries, ``DROP SILENT``,
batches of a write, which the server keeps once) are retried, and only after a
transient failure (connection refused or reset, HTTP 502/503/504, a
deadlock victim). Server failures become :class:`~hopgate.errors.QueryError`
(the server rejected the text) or :class:`~hopgate.errors.StoreError`, each
one sentence: the setting to change when a server setting caused it
(:func:`hopgate.store.remote.limits.explain`), else the server's own first
line, never the query it echoes.

On first contact (the first query), the server's limits are probed once
(:meth:`Transport.limits`): its result-row cap and, on Virtuoso, the
settings read from its ini; what would make a command fail is noted on the
``hopgate`` logger, once per server and process. The probe runs beside the
first query, and a request waits for it only when it needs what the probe
finds (a page's size, a CONSTRUCT's cap, a server that cuts a SELECT without
saying so): a read from a server that says when it cuts a SELECT (Virtuoso)
or never cuts one (Oxigraph) never waits, its server's family read from any
answer's ``Server`` header.
"""

from __future__ import annotations

import atexit
import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import Future
from http.client import HTTPException
from typing import Any, Literal, TypeVar

from SPARQLWrapper import BASIC, DIGEST, JSON, POST, POSTDIRECTLY, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import (
    EndPointInternalError,
    EndPointNotFound,
    QueryBadFormed,
    SPARQLWrapperException,
    Unauthorized,
)

from hopgate.errors import QueryError, RowCapReached, StoreError
from hopgate.store.dialect import WRITTEN_JOIN_ORDER, declares_written_order, without_comments
from hopgate.store.remote.limits import (
    MAX_ROWS_HEADER,
    PROBE_QUERY,
    PROBE_ROWS,
    SAYS_WHEN_CUT,
    Kind,
    Limits,
    explain,
    family,
    first_line,
    read_settings,
    row_cap_finding,
    virtuoso_findings,
    virtuoso_settings_query,
)

T = TypeVar("T")
Auth = Literal["digest", "basic"]

_TRANSIENT = (urllib.error.URLError, ConnectionError, TimeoutError, HTTPException, OSError)
_LOG = logging.getLogger("hopgate")
#: Servers whose limits were already noted in this process (one note per server).
_NOTED: set[str] = set()
#: Attempts of a request answered "404 File not found" by an endpoint that answered
#: before: Virtuoso 7.2.5 answers so while it checkpoints (its CheckpointInterval,
#: hourly as packaged). Waits of 0.5, 1, 2 ... 16 s: 31.5 s in all.
_NOT_FOUND_ATTEMPTS = 7


#: The most response headers Python's http.client reads before it refuses a response
#: ("got more than 100 headers"), and what a response may hold besides the graphs.
_HEADER_LIMIT = "_MAXHEADERS"
_OTHER_HEADERS = 100


#: Probes started in this process (:meth:`Transport._start_probe`), and how long a
#: process waits at exit for those still running.
_PROBES: list[threading.Thread] = []
_PROBE_EXIT_WAIT = 5.0


@atexit.register
def _join_probes() -> None:
    """At exit: wait a little for probes still running, so that their notes are written."""
    deadline = time.monotonic() + _PROBE_EXIT_WAIT
    for thread in _PROBES:
        thread.join(max(0.0, deadline - time.monotonic()))


def _waited(retries: int) -> float:
    """Seconds waited before the first ``retries`` retries of one kind of failure
    (0.5, 1, 2 ... s each)."""
    return 0.5 * ((1 << retries) - 1)


def _allow_headers(graphs: int) -> None:
    """Let the response to a request naming ``graphs`` graph parameters be read.

    Virtuoso 7.2.5 echoes each ``default-graph-uri``, ``named-graph-uri`` and
    ``using-named-graph-uri`` it is sent as a response header of its own
    (``X-SPARQL-default-graph`` and the like), and Python's ``http.client``
    refuses a response of more than 100 headers: a store of about 48 graphs
    (a team's history at its 22nd run, bench/README.md) made every query fail
    with "got more than 100 headers". The limit is the module's; it is only
    ever raised, to what this request's answer needs.
    """
    needed = graphs + _OTHER_HEADERS
    if getattr(http.client, _HEADER_LIMIT, needed) < needed:
        setattr(http.client, _HEADER_LIMIT, needed)


class Contact:
    """What a store and its scoped views learn on first contact with the server (shared)."""

    def __init__(self) -> None:
        self.limits: Limits | None = None
        #: The probe running beside the first queries (:meth:`Transport.limits`).
        self.probing: Future[Limits] | None = None
        #: The server's family as the ``Server`` header of an answer named it.
        self.heard: Kind | None = None
        self.lock = threading.Lock()
        #: The kinds of request (``what``: query, update, graph store upload) whose
        #: endpoint has answered one: a 404 from it later is not a missing endpoint.
        self.answered: set[str] = set()

    @property
    def kind(self) -> Kind | None:
        """The server's family, from the probe or any answer; None before either."""
        return self.limits.kind if self.limits is not None else self.heard


class Transport:
    """The requests of a :class:`~hopgate.store.remote.RemoteStore`: its endpoints and credentials.

    The store's constructor sets the attributes; :meth:`graphs` (the dataset
    every query is sent with) is the store's.
    """

    endpoint: str
    update_endpoint: str
    graph_store: str | None
    user: str | None
    password: str | None
    auth: Auth
    timeout: float
    retries: int
    #: Put before every request's text (a join-order pragma, or nothing).
    pragma: str
    _prologue: str
    _dataset: list[str] | None
    _opener: urllib.request.OpenerDirector
    _contact: Contact

    def graphs(self) -> list[str]:
        """The named graphs every query is sent with (the store's dataset)."""
        raise NotImplementedError

    def _build_opener(self) -> urllib.request.OpenerDirector:
        if not (self.user and self.password):
            return urllib.request.build_opener()
        manager = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        for url in {self.endpoint, self.update_endpoint, self.graph_store}:
            if url:
                manager.add_password(None, url, self.user, self.password)
        handler: urllib.request.BaseHandler = (
            urllib.request.HTTPDigestAuthHandler(manager)
            if self.auth == "digest"
            else urllib.request.HTTPBasicAuthHandler(manager)
        )
        return urllib.request.build_opener(handler)

    def _wrapper(
        self, text: str, *, update: bool, dataset: bool, using: list[str] | None = None
    ) -> SPARQLWrapper:
        wrapper = SPARQLWrapper(self.endpoint, updateEndpoint=self.update_endpoint)
        wrapper.setMethod(POST)
        # Content negotiation only: SPARQLWrapper's extra ``format`` parameter
        # overrides the Accept header on Virtuoso (406 for N-Triples).
        wrapper.setOnlyConneg(True)
        wrapper.setTimeout(int(self.timeout))
        if update:
            # The update is sent as the request body (application/sparql-update):
            # no URL-encoding of megabytes of INSERT DATA.
            wrapper.setRequestMethod(POSTDIRECTLY)
        if self.user and self.password and (update or self.endpoint == self.update_endpoint):
            wrapper.setHTTPAuth(DIGEST if self.auth == "digest" else BASIC)
            wrapper.setCredentials(self.user, self.password)
        dataset_graphs = self.graphs() if dataset else []
        _allow_headers(len(using or ()) + 2 * len(dataset_graphs))
        for graph in using or ():
            # The named graphs an update's WHERE reads (SPARQL 1.1 Protocol
            # 2.2.3), for every operation of the request; a USING NAMED in the
            # text binds only its own operation, and Virtuoso 7.2.5 widened
            # the second operation's dataset when each had its own.
            wrapper.addParameter("using-named-graph-uri", graph)
        # An empty dataset never gets here (see _empty).
        for graph in dataset_graphs:
            wrapper.addParameter("default-graph-uri", graph)
            wrapper.addParameter("named-graph-uri", graph)
        wrapper.setQuery(without_comments(text))
        pragma = self.pragma
        if not pragma and not update and self._declared_order_applies(text):
            pragma = WRITTEN_JOIN_ORDER
        if pragma:
            # Before the prologue, where a DEFINE goes. SPARQLWrapper guesses the
            # form from the first keyword it finds, which the pragma's own
            # "select-option" would be, so the form read from the text is kept.
            form = wrapper.queryType
            wrapper.setQuery(f"{pragma}\n{without_comments(text)}")
            wrapper.queryType = form
        return wrapper

    def _declared_order_applies(self, text: str) -> bool:
        """Whether ``text`` declares ``# join-order: written`` and the server is one
        whose pragma for it hopgate knows (Virtuoso, as probed on first contact).

        review-queue.rq on Virtuoso at run19 of a 10k-claim history: 2.06 s under
        the server's plan, 0.69-0.79 s in the written order (the same 2,888 rows),
        which is the order tuned for Oxigraph (bench/README.md).
        """
        return self._contact.kind == "virtuoso" and declares_written_order(text)

    def _attempt(self, action: Callable[[], T], *, idempotent: bool, what: str) -> T:
        """Run ``action``; retry transient failures only when it is safe to repeat.

        Each kind of failure has its own count and waits (0.5, 1, 2 ... s): a
        gateway's 503 before a checkpoint's 404s leaves the 404s their 31.5 s.
        """
        # A deadlock victim's transaction was rolled back whole (one request, one
        # transaction): repeating it is safe even when the update is not idempotent.
        limits_of = {
            "transient": 1 + (self.retries if idempotent else 0),
            "rolled back": 1 + self.retries,
            "not found": _NOT_FOUND_ATTEMPTS if self._checkpoints(what, idempotent) else 1,
        }
        tries: dict[str, int] = dict.fromkeys(limits_of, 0)

        def again(kind: str) -> bool:
            """Count one failure of ``kind``; wait and say True when it may be tried again."""
            tries[kind] += 1
            if tries[kind] >= limits_of[kind]:
                return False
            time.sleep(_waited(tries[kind]) - _waited(tries[kind] - 1))
            return True

        while True:
            try:
                answer = action()
            except QueryBadFormed as exc:
                raise QueryError(
                    server_message(exc, f"the server rejected the {what}", what)
                ) from None
            except Unauthorized:
                raise StoreError(
                    f"the server refused the {what}: wrong or missing credentials "
                    "(--user and --password-env)"
                ) from None
            except EndPointNotFound:
                if again("not found"):
                    continue
                raise self._not_found(what, limits_of["not found"]) from None
            except EndPointInternalError as exc:
                if deadlocked(str(exc)) and again("rolled back"):
                    continue
                if idempotent and killed(str(exc)) and again("transient"):
                    continue
                raise StoreError(
                    server_message(exc, f"the {what} failed on the server", what)
                ) from None
            except urllib.error.HTTPError as exc:
                # The graph store upload's own requests (urllib, not SPARQLWrapper).
                if exc.code == 404:
                    if again("not found"):
                        continue
                    raise self._not_found(what, limits_of["not found"]) from None
                body = exc.read().decode("utf-8", "replace")[:500]
                # Concurrent uploads into one graph can deadlock on the server,
                # which rolls one of them back: repeating it is safe.
                if exc.code == 500 and deadlocked(body) and again("rolled back"):
                    continue
                if exc.code in (502, 503, 504) and again("transient"):
                    continue
                if exc.code == 401:
                    raise StoreError(
                        f"the server refused the {what}: wrong or missing credentials"
                    ) from None
                if exc.code == 400:
                    raise QueryError(
                        server_message(body, f"the server rejected the {what}", what)
                    ) from None
                if exc.code == 415 and what == "update":
                    # A query endpoint refusing an update's body (Oxigraph's /query): the
                    # update URL is missing, not the server's mode (user trial).
                    raise StoreError(
                        "the server refused the update's content type (HTTP 415): is "
                        "--update-endpoint its SPARQL Update URL? It defaults to --endpoint "
                        "(an Oxigraph server's is BASE/update, beside BASE/query)"
                    ) from None
                raise StoreError(
                    server_message(body, f"the {what} failed: HTTP {exc.code}", what)
                ) from None
            except SPARQLWrapperException as exc:
                raise StoreError(server_message(exc, f"the {what} failed", what)) from None
            except TimeoutError:
                # No answer within the timeout: the server may still be working on
                # it (or waiting on a lock), so sending it again would only add load
                # and multiply the wait. A refused or reset connection is retried.
                raise StoreError(
                    f"the server did not answer the {what} within {self.timeout:g} s "
                    "(the store's timeout); it may still be running it"
                ) from None
            except _TRANSIENT as exc:
                if again("transient"):
                    continue
                raise StoreError(f"the {what} failed: cannot reach the server: {exc}") from None
            self._contact.answered.add(what)
            if tries["not found"]:
                # Say why the command waited: a checkpoint's pause, not a slow answer.
                _LOG.warning(
                    "hopgate: note: the server answered the %s with HTTP 404 for %g s "
                    "(Virtuoso checkpointing), then answered it",
                    what,
                    _waited(tries["not found"]),
                )
            return answer

    def _checkpoints(self, what: str, idempotent: bool) -> bool:
        """Whether a 404 to a ``what`` request is Virtuoso checkpointing, to wait out.

        A 404 is an endpoint that is not there, unless the server was probed as
        Virtuoso (which answers "404 File not found" while it checkpoints: its
        CheckpointInterval, hourly as packaged) and this kind of request was
        answered before by the same endpoint; and the request is one that is
        safe to send again (every query, an idempotent update or upload).
        """
        return idempotent and self._contact.kind == "virtuoso" and what in self._contact.answered

    def _not_found(self, what: str, attempts: int) -> StoreError:
        """The error for a 404 that was not, or no longer, waited out."""
        if attempts == 1:
            return StoreError(f"no SPARQL endpoint answers the {what} (HTTP 404)")
        return StoreError(
            f"the endpoint that answered before answered the {what} with HTTP 404 "
            f"for {_waited(attempts - 1):g} s: Virtuoso does so while it "
            "checkpoints ([Parameters] CheckpointInterval); send it again once the "
            "checkpoint is over"
        )

    def _json(self, text: str, *, dataset: bool = True, capped: bool = False) -> dict[str, Any]:
        """A query's whole JSON answer.

        Raises:
            RowCapReached: the server says it cut the answer at its row cap
                (unless ``capped``: a page asked for no more than the cap).
        """
        if not capped:
            self._first_contact(text)

        def action() -> tuple[dict[str, Any], str | None]:
            wrapper = self._wrapper(text, update=False, dataset=dataset)
            wrapper.setReturnFormat(JSON)
            response = wrapper.query().response
            self._heard(response.headers.get("Server", ""))
            body: dict[str, Any] = json.loads(response.read())
            return body, response.headers.get(MAX_ROWS_HEADER)

        body, cut = self._attempt(action, idempotent=True, what="query")
        if cut is not None and not capped:
            raise RowCapReached(_number(cut), body)
        return body

    def _json_response(self, text: str, *, dataset: bool = True) -> Any:
        """The open response to a query, to be read as it arrives; the caller closes it.

        Failures before the answer starts are handled as for :meth:`_json`; a
        failure while it is read is the reader's (:meth:`_reading`).
        """

        self._first_contact(text)

        def action() -> Any:
            wrapper = self._wrapper(text, update=False, dataset=dataset)
            wrapper.setReturnFormat(JSON)
            response = wrapper.query().response
            self._heard(response.headers.get("Server", ""))
            return response

        return self._attempt(action, idempotent=True, what="query")

    # ---- first contact: the server's limits ------------------------------------

    def limits(self) -> Limits:
        """The server's limits, probed on first contact (once per store and its views).

        One query of :data:`~hopgate.store.remote.limits.PROBE_ROWS` empty
        rows finds a result-row cap (and the server's family, from its
        ``Server`` header); on Virtuoso, one more reads the settings hopgate
        needs from its ini. What would make a command fail is noted once per
        server and process on the ``hopgate`` logger. Waits for the probe
        :meth:`_start_probe` started; a failed probe is raised, and tried
        again at the next call.
        """
        contact = self._contact
        probing = self._start_probe()
        if probing is None:
            assert contact.limits is not None
            return contact.limits
        try:
            return probing.result()
        except BaseException:
            if not probing.done():
                raise  # the wait was interrupted (Ctrl-C): the probe goes on
        # The probe beside the first queries failed (and nothing needed it then): probed
        # again here, so that the error raised is this request's, as the server is now.
        with contact.lock:
            if contact.probing is probing:
                contact.probing = None
        return self._probed()

    def _probed(self) -> Limits:
        """Probe the server now; keep its limits and note what would make a command fail."""
        found = self._kept(self._probe())
        self._note(found)
        return found

    def _kept(self, found: Limits) -> Limits:
        """The server's limits, ``found`` unless a probe kept others first."""
        with self._contact.lock:
            if self._contact.limits is None:
                self._contact.limits = found
            return self._contact.limits

    def _start_probe(self) -> Future[Limits] | None:
        """Start probing the server's limits beside the caller, unless probed or probing:
        the probe running (None once its limits are known).

        The 100,001 rows of the probe cost Virtuoso 0.16-0.2 s, a fifth of a short
        read such as ``explain`` at 10k claims, which needs none of what it finds.
        A process waits a few seconds at exit for a probe still running
        (:func:`_join_probes`), so that its notes are written, and no longer:
        a server that stopped answering does not hold a command that ended.
        """
        contact = self._contact
        with contact.lock:
            if contact.limits is not None:
                return None
            if contact.probing is not None:
                return contact.probing
            probing: Future[Limits] = Future()
            contact.probing = probing

        def probe() -> None:
            try:
                found = self._kept(self._probe())
            except BaseException as exc:
                # Raised to a request that needs the limits, which probes again.
                probing.set_exception(exc)
                return
            probing.set_result(found)  # before the notes: a waiter never waits on them
            self._note(found)

        thread = threading.Thread(target=probe, name="hopgate-probe", daemon=True)
        _PROBES[:] = [*(t for t in _PROBES if t.is_alive()), thread]
        thread.start()
        return probing

    def _first_contact(self, text: str) -> None:
        """Before a query: the probe started, and waited for when the server's family must
        be known to send ``text`` (a file declaring its join order, :meth:`_wrapper`)."""
        if self._contact.kind is None and declares_written_order(text):
            self.limits()
        else:
            self._start_probe()

    def _heard(self, server: str) -> None:
        """Note the server's family from an answer's ``Server`` header."""
        if self._contact.heard is None:
            self._contact.heard = family(server)

    def select_cut(self) -> int | None:
        """A SELECT answer this large may have been cut without a word; None: never
        (:attr:`~hopgate.store.remote.limits.Limits.select_cut`). Known without the
        probe for a server whose family says when it cuts one."""
        if self._contact.kind in SAYS_WHEN_CUT:
            return None
        return self.limits().select_cut

    def _probe(self) -> Limits:
        def action() -> tuple[int, str | None, str]:
            wrapper = self._wrapper(PROBE_QUERY, update=False, dataset=False)
            wrapper.setReturnFormat(JSON)
            response = wrapper.query().response
            body = json.loads(response.read())
            return (
                len(body["results"]["bindings"]),
                response.headers.get(MAX_ROWS_HEADER),
                response.headers.get("Server", ""),
            )

        received, cut, server = self._attempt(action, idempotent=True, what="query")
        found = Limits(kind=family(server), product=server.strip())
        caps = [_number(cut)] if cut is not None else []
        if received < PROBE_ROWS:
            caps.append(received)
        if found.kind == "virtuoso":
            try:
                body = self._json(virtuoso_settings_query(), dataset=False, capped=True)
                bindings = body["results"]["bindings"]
                row = {k: v.get("value") for k, v in (bindings[0] if bindings else {}).items()}
                found.settings = read_settings(row)
            except (StoreError, QueryError, KeyError):
                # An operator may forbid bif: functions to SPARQL users; the probe stands.
                found.settings = {}
            configured = found.setting("ResultSetMaxRows")
            if configured is not None and configured > 0:
                caps.append(configured)
        found.row_cap = min(caps) if caps else None
        return found

    def _note(self, limits: Limits) -> None:
        if self.endpoint in _NOTED:
            return
        _NOTED.add(self.endpoint)
        findings = [row_cap_finding(limits)]
        if limits.kind == "virtuoso" and limits.settings:
            findings += virtuoso_findings(limits, client_timeout=self.timeout)
        for finding in findings:
            if finding.severity == "change":
                _LOG.warning(
                    "the server at %s: %s; change: %s", self.endpoint, finding.found, finding.change
                )

    def _reading(self, exc: BaseException) -> StoreError:
        """The error for an answer cut off while it was read (never retried: rows were used)."""
        if isinstance(exc, TimeoutError):
            return StoreError(
                f"the server stopped sending an answer for {self.timeout:g} s (the store's timeout)"
            )
        return StoreError(f"the server's answer was cut off: {exc}")

    def _update(
        self, text: str, *, idempotent: bool = False, using: list[str] | None = None
    ) -> None:
        def action() -> None:
            wrapper = self._wrapper(self._prologue + text, update=True, dataset=False, using=using)
            wrapper.query().response.read()

        try:
            self._attempt(action, idempotent=idempotent, what="update")
        finally:
            # Whatever happened, the graphs may have changed.
            self._dataset = None

    def _construct_page(self, text: str, *, dataset: bool = False) -> tuple[bytes, str]:
        """A CONSTRUCT answer as the server sent it: (body, content type)."""
        wrapper = self._wrapper(text, update=False, dataset=dataset)
        wrapper.addCustomHttpHeader("Accept", "application/n-triples")
        response = wrapper.query().response
        kind = response.headers.get("Content-Type", "text/turtle").split(";")[0].strip()
        return response.read(), kind

    def _gsp_post(self, graph: str, data: bytes) -> None:
        assert self.graph_store is not None
        separator = "&" if "?" in self.graph_store else "?"
        url = f"{self.graph_store}{separator}graph={urllib.parse.quote(graph, safe='')}"

        def action() -> None:
            request = urllib.request.Request(url, data=data, method="POST")
            request.add_header("Content-Type", "application/n-triples")
            with self._opener.open(request, timeout=self.timeout) as response:
                response.read()

        try:
            self._attempt(action, idempotent=True, what="graph store upload")
        finally:
            self._dataset = None


def server_message(failure: object, lead: str, what: str = "request") -> str:
    """A server's failure as one sentence: the setting to change, or the server's first line.

    Never the query text, which Virtuoso echoes after its message.
    """
    text = str(failure)
    explained = explain(text, what)
    if explained is not None:
        return explained
    # SPARQLWrapper prefixes its own class text ("EndPointInternalError: ...
    # Response:\nb'...'"): the server's words are after it.
    if "Response:" in text:
        text = text.split("Response:", 1)[1].strip()
        if text.startswith(("b'", 'b"')):
            text = text[2:-1].encode("latin-1", "replace").decode("unicode_escape", "replace")
    return f"{lead}: {first_line(text)}"


def _number(header: str) -> int:
    try:
        return int(header.strip())
    except ValueError:
        return PROBE_ROWS


def deadlocked(message: str) -> bool:
    """True when the server rolled a transaction back as a deadlock victim (SQLSTATE 40001)."""
    return "40001" in message or "deadlock" in message.lower()


def killed(message: str) -> bool:
    """True when the server killed (rolled back) a request's transaction on its own.

    Virtuoso 7.2.5 now and then answers a read with ``SR175: Uniqueness
    violation. Transaction killed.`` (seen on ``metrics`` at 3,300 claims, once
    in several runs; the same request then answers): a read is sent again. So
    is a request safe to repeat answered ``MTXNA: Main transaction branch has
    aborted`` (an aborted transaction is rolled back): one batch of the removal
    of the 1M-claim evaluation's scratch graph got it after ten minutes of
    batches, and the evaluation failed (bench/README.md, 7 December, afternoon).
    """
    lowered = message.lower()
    return "transaction killed" in lowered or "mtxna" in lowered


__all__ = ["Auth", "Contact", "Transport", "deadlocked", "killed", "server_message"]
