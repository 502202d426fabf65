"""The HTTP side of the remote store: requests, authentication, timeouts, retries, errors.

Queries go through the SPARQL 1.1 Protocol (SPARQLWrapper, POST, JSON
results), updates as the request body, bulk writes through the SPARQL 1.1
Graph Store HTTP Protocol. Authentication is HTTP digest or basic; every
request has a timeout, and a request left unanswered that long is an error,
never sent again. Only idempotent requests (queries, ``DROP SILENT``,
batches into a private staging graph) are retried, and only after a
transient failure (connection refused or reset, HTTP 502/503/504, a
deadlock victim). Server failures become :class:`~hopgate.errors.QueryError`
(the server rejected the text) or :class:`~hopgate.errors.StoreError`.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
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

from hopgate.errors import QueryError, StoreError
from hopgate.store.dialect import without_comments

T = TypeVar("T")
Auth = Literal["digest", "basic"]

_TRANSIENT = (urllib.error.URLError, ConnectionError, TimeoutError, HTTPException, OSError)


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
        for graph in using or ():
            # The named graphs an update's WHERE reads (SPARQL 1.1 Protocol
            # 2.2.3), for every operation of the request; a USING NAMED in the
            # text binds only its own operation, and Virtuoso 7.2.5 widened
            # the second operation's dataset when each had its own.
            wrapper.addParameter("using-named-graph-uri", graph)
        if dataset:
            # An empty dataset never gets here (see _empty).
            for graph in self.graphs():
                wrapper.addParameter("default-graph-uri", graph)
                wrapper.addParameter("named-graph-uri", graph)
        wrapper.setQuery(without_comments(text))
        if self.pragma:
            # Before the prologue, where a DEFINE goes. SPARQLWrapper guesses the
            # form from the first keyword it finds, which the pragma's own
            # "select-option" would be, so the form read from the text is kept.
            form = wrapper.queryType
            wrapper.setQuery(f"{self.pragma}\n{without_comments(text)}")
            wrapper.queryType = form
        return wrapper

    def _attempt(self, action: Callable[[], T], *, idempotent: bool, what: str) -> T:
        """Run ``action``; retry transient failures only when it is safe to repeat."""
        attempts = 1 + (self.retries if idempotent else 0)
        for attempt in range(attempts):
            try:
                return action()
            except QueryBadFormed as exc:
                raise QueryError(f"the server rejected the {what}: {server_message(exc)}") from None
            except Unauthorized:
                raise StoreError(
                    f"the server refused the {what}: wrong or missing credentials "
                    "(--user and --password-env)"
                ) from None
            except EndPointNotFound:
                raise StoreError(f"no SPARQL endpoint answers the {what} (HTTP 404)") from None
            except EndPointInternalError as exc:
                if deadlocked(str(exc)) and attempt + 1 < attempts:
                    time.sleep(0.5 * 2**attempt)
                    continue
                raise StoreError(
                    f"the {what} failed on the server: {server_message(exc)}"
                ) from None
            except urllib.error.HTTPError as exc:
                body = exc.read().decode("utf-8", "replace")[:500]
                # Concurrent uploads into one graph can deadlock on the server,
                # which rolls one of them back: repeating it is safe.
                transient = exc.code in (502, 503, 504) or (exc.code == 500 and deadlocked(body))
                if transient and attempt + 1 < attempts:
                    time.sleep(0.5 * 2**attempt)
                    continue
                if exc.code == 401:
                    raise StoreError(
                        f"the server refused the {what}: wrong or missing credentials"
                    ) from None
                if exc.code == 400:
                    raise QueryError(f"the server rejected the {what}: {body}") from None
                raise StoreError(f"the {what} failed: HTTP {exc.code}: {body}") from None
            except SPARQLWrapperException as exc:
                raise StoreError(f"the {what} failed: {server_message(exc)}") from None
            except TimeoutError:
                # No answer within the timeout: the server may still be working on
                # it (or waiting on a lock), so sending it again would only add load
                # and multiply the wait. A refused or reset connection is retried.
                raise StoreError(
                    f"the server did not answer the {what} within {self.timeout:g} s "
                    "(the store's timeout); it may still be running it"
                ) from None
            except _TRANSIENT as exc:
                if attempt + 1 < attempts:
                    time.sleep(0.5 * 2**attempt)
                    continue
                raise StoreError(f"the {what} failed: cannot reach the server: {exc}") from None
        raise AssertionError("unreachable")

    def _json(self, text: str, *, dataset: bool = True) -> dict[str, Any]:
        def action() -> dict[str, Any]:
            wrapper = self._wrapper(text, update=False, dataset=dataset)
            wrapper.setReturnFormat(JSON)
            response = wrapper.query().response
            body: dict[str, Any] = json.loads(response.read())
            return body

        return self._attempt(action, idempotent=True, what="query")

    def _json_response(self, text: str, *, dataset: bool = True) -> Any:
        """The open response to a query, to be read as it arrives; the caller closes it.

        Failures before the answer starts are handled as for :meth:`_json`; a
        failure while it is read is the reader's (:meth:`_reading`).
        """

        def action() -> Any:
            wrapper = self._wrapper(text, update=False, dataset=dataset)
            wrapper.setReturnFormat(JSON)
            return wrapper.query().response

        return self._attempt(action, idempotent=True, what="query")

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


def server_message(exc: Exception) -> str:
    text = str(exc)
    if "SR325" in text:
        # Virtuoso publishes a load (MOVE) as one transaction, whose log is
        # capped at 50 MB by default: a 13M-triple load overran it.
        return (
            "the transaction is larger than Virtuoso's after-image limit (SR325); raise "
            "[Parameters] TransactionAfterImageLimit in virtuoso.ini (hopgate's tests use "
            "2000000000; 5e10 wrapped around to a limit that refused every upload) and "
            "load again: nothing was published. " + text[:300]
        )
    return text[:800]


def deadlocked(message: str) -> bool:
    """True when the server rolled a transaction back as a deadlock victim (SQLSTATE 40001)."""
    return "40001" in message or "deadlock" in message.lower()


__all__ = ["Auth", "Transport", "deadlocked", "server_message"]
