"""A remote SELECT's answer is read as it arrives (hopgate.store.remote.values.stream_rows).

The evaluation reads its result queries a row at a time so that the client
never holds a whole answer (docs/remote-virtuoso.md); these tests hold the
streamed reading equal to reading the whole document, whatever the chunk
boundaries cut through.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from conftest import within

from hopgate.errors import QueryError
from hopgate.store import IRI
from hopgate.store.remote.values import rows, stream_rows

XSD = "http://www.w3.org/2001/XMLSchema#"


def _document(count: int) -> dict[str, Any]:
    bindings = []
    for i in range(count):
        binding: dict[str, Any] = {
            "s": {"type": "uri", "value": f"https://w3id.org/hopgate/id/claim/c{i}%F0%9F%98%80"},
            # Braces, brackets, quotes, commas and non-ASCII inside a literal.
            "label": {"type": "literal", "value": f'{{"x": [{i}]}}, "é\u2028😀" \\ ]'},
            "n": {"type": "typed-literal", "datatype": XSD + "integer", "value": str(i)},
        }
        if i % 3 == 0:
            del binding["label"]  # an unbound variable
        bindings.append(binding)
    return {
        "head": {"link": [], "vars": ["s", "label", "n"]},
        "results": {"distinct": False, "ordered": True, "bindings": bindings},
    }


def _reader(data: bytes, size: int) -> Any:
    source = io.BytesIO(data)
    return lambda n: source.read(min(n, size))


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 4096, 1 << 20])
@pytest.mark.parametrize("indent", [None, 1])
def test_streamed_rows_equal_the_whole_document(size: int, indent: int | None) -> None:
    """Any chunk size (one byte cuts every UTF-8 sequence and token) gives the same rows."""
    document = _document(300)
    data = json.dumps(document, indent=indent, ensure_ascii=False).encode("utf-8")
    found = list(stream_rows(_reader(data, size)))
    assert found == rows(document)
    assert found[1]["label"] == '{"x": [1]}, "é\u2028😀" \\ ]'
    assert found[0]["label"] is None
    assert isinstance(found[0]["s"], IRI) and found[5]["n"] == 5


def test_no_rows_and_a_document_with_its_head_last() -> None:
    empty = json.dumps({"head": {"vars": ["a"]}, "results": {"bindings": []}}).encode()
    assert list(stream_rows(_reader(empty, 5))) == []
    reordered = {"results": {"bindings": [{"a": {"type": "literal", "value": "v"}}]}}
    data = json.dumps({**reordered, "head": {"vars": ["a"]}}).encode()
    assert list(stream_rows(_reader(data, 5))) == [{"a": "v"}]


@pytest.mark.parametrize(
    "data",
    [
        b'{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal", "val',
        b'{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal", "value": "x"}}',
        b'{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal"}}]}}',
        b"<html>Service unavailable</html>",
    ],
)
def test_a_cut_or_foreign_answer_is_an_error(data: bytes) -> None:
    """An answer cut off mid-row, or not SPARQL JSON at all, is a QueryError, never fewer rows."""
    with pytest.raises(QueryError):
        list(stream_rows(_reader(data, 16)))


def test_an_answer_that_stops_midway_is_an_error_within_the_timeout() -> None:
    """A server that sends part of a SELECT answer, then nothing: StoreError after the timeout.

    Rows already read were used, so the query is not sent again.
    """
    import socket
    import threading

    from hopgate.errors import StoreError
    from hopgate.store.remote import RemoteStore
    from hopgate.store.remote.limits import PROBE_ROWS
    from hopgate.vocab import ID_BASE

    catalog = json.dumps(
        {
            "head": {"vars": ["g"]},
            "results": {"bindings": [{"g": {"type": "uri", "value": f"{ID_BASE}load/x"}}]},
        }
    ).encode()
    # The first contact's probe of the server's row cap gets every row it asks for (no cap).
    probed = json.dumps(
        {"head": {"vars": ["nothing"]}, "results": {"bindings": [{}] * PROBE_ROWS}}
    ).encode()
    partial = b'{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal", "value": "1"}}, '
    requests: list[bytes] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    open_connections: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            open_connections.append(connection)
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head, _, body = request.partition(b"\r\n\r\n")
            length = int(
                next(
                    line.split(b":")[1]
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
            )
            while len(body) < length:
                body += connection.recv(65536)
            requests.append(body)
            answer = catalog if b"Bundle" in body else probed if b"nothing" in body else partial
            whole = answer is not partial
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
                # A server with no row cap (as Oxigraph): rows are used as they arrive.
                + b"Server: Oxigraph\r\n"
                + (b"Content-Length: %d\r\n" % len(answer) if whole else b"")
                + b"\r\n"
                + answer
            )
            if whole:
                connection.close()
            # Otherwise the answer just stops: the connection stays open, silent.

    threading.Thread(target=serve, daemon=True).start()
    port = listener.getsockname()[1]
    store = RemoteStore(f"http://127.0.0.1:{port}/sparql", retries=3, timeout=5)
    found: list[dict[str, Any]] = []

    def read() -> None:
        for row in store.select_rows("SELECT ?a WHERE { ?a ?b ?c }"):
            found.append(row)

    try:
        # The client's read timeout ends it; the guard only says it came back at all.
        with pytest.raises(StoreError, match="stopped sending an answer for 5 s"):
            within(600, read)
        assert found == [{"a": "1"}]
        # Rows were used, so the query was not sent again (retries=3 notwithstanding).
        assert sum(b"Bundle" not in body and b"nothing" not in body for body in requests) == 1
    finally:
        listener.close()
        for connection in open_connections:
            connection.close()
