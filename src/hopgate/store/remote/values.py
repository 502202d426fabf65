"""SPARQL JSON results and RDF answers as the values the embedded store gives.

Dialect work-arounds (tested in ``tests/store/test_remote.py``): Virtuoso answers
``xsd:boolean`` as ``1``/``0`` and ``EXISTS`` as the integers 1/0; booleans
are read back as ``True``/``False``. Update parameters are written in as
escaped RDF terms (:func:`bind_update`), never formatted from input.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

import pyoxigraph as ox

from hopgate.errors import QueryError
from hopgate.store.base import IRI, BNode, Row, Value, check_iri
from hopgate.store.terms import INTEGER_TYPES, term_ntriples
from hopgate.vocab import XSD

_BOOLEAN = XSD + "boolean"


def bind_update(update: str, params: Mapping[str, Value] | None) -> str:
    """Bind an update's ``params`` by writing each value in place of its variable.

    Dialect work-around: Virtuoso 7's SPARQL compiler fails with an internal
    error ("ssg_print_rvr_fixed_val(): no SPART_VARR_FIXED", SP031) on the
    first operation of ``evaluation-eligibility.ru`` whether ``?run`` and
    ``?scratch`` are bound with ``VALUES`` or with ``BIND``, and compiles it
    with the constants written in. The values are serialised as escaped RDF
    terms (never formatted from input), so the meaning is that of the bound
    query; a parameter a subquery projects would not parse, and the server
    then rejects the update.
    """
    if not params:
        return update
    for name, value in params.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise QueryError(f"not a SPARQL variable name: {name!r}")
        # A function replacement: the term's backslashes are not regex escapes.
        update = re.sub(rf"[?$]{name}(?![A-Za-z0-9_])", _constant(term_ntriples(value)), update)
    return update


def _constant(term: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: term


def boolean(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    return str(raw).strip().lower() in ("true", "1")


def rows(body: dict[str, Any]) -> list[Row]:
    names: list[str] = body.get("head", {}).get("vars", [])
    return [
        {name: term_value(binding[name]) if name in binding else None for name in names}
        for binding in body["results"]["bindings"]
    ]


#: How much of a streamed answer is read at a time.
_CHUNK = 1 << 16
_VARS = re.compile(r'"vars"\s*:\s*')
_BINDINGS = re.compile(r'"bindings"\s*:\s*\[')


def stream_rows(read: Callable[[int], bytes]) -> Iterator[Row]:
    """The rows of a SPARQL JSON results document read a chunk at a time, one by one.

    ``read(n)`` returns up to ``n`` bytes (b"" at the end), as a response's
    ``read`` does. Only the binding being decoded is held, never the whole
    answer. The document must name its variables (``head.vars``) before its
    bindings, as every server hopgate was tested with writes it; one that
    does not is read whole.

    Raises:
        QueryError: the document is not a SPARQL JSON results document.
    """
    decoder = json.JSONDecoder()
    text = codecs.getincrementaldecoder("utf-8")()
    buffer = ""

    def more() -> bool:
        nonlocal buffer
        chunk = read(_CHUNK)
        buffer += text.decode(chunk, final=not chunk)
        return bool(chunk)

    while (start := _BINDINGS.search(buffer)) is None:
        if not more():
            yield from _whole(buffer)
            return
    found = _VARS.search(buffer, 0, start.start())
    if found is None:
        while more():
            pass
        yield from _whole(buffer)
        return
    names, _ = decoder.raw_decode(buffer, found.end())
    position = start.end()
    while True:
        while True:
            while position < len(buffer) and buffer[position] in " \t\r\n,":
                position += 1
            if position < len(buffer):
                break
            buffer, position = "", 0
            if not more():
                raise QueryError("the server's answer ended inside its results")
        if buffer[position] == "]":
            return
        try:
            binding, position = decoder.raw_decode(buffer, position)
        except json.JSONDecodeError:
            # The binding goes on in the next chunk.
            buffer, position = buffer[position:], 0
            if not more():
                raise QueryError("the server's answer ended inside a result row") from None
            continue
        try:
            row = {name: term_value(binding[name]) if name in binding else None for name in names}
        except (KeyError, TypeError):
            raise QueryError(
                f"the server's answer holds a malformed row: {binding!r:.200}"
            ) from None
        yield row


def _whole(document: str) -> Iterator[Row]:
    try:
        body = json.loads(document)
        return iter(rows(body))
    except (ValueError, KeyError, TypeError):
        raise QueryError("the server's answer is not a SPARQL JSON results document") from None


def term_value(term: dict[str, Any]) -> Value:
    """A SPARQL JSON result term as the Python value the embedded store would give."""
    kind = term["type"]
    text: str = term["value"]
    if kind == "uri":
        return IRI(text)
    if kind == "bnode":
        return BNode(text)
    datatype = term.get("datatype")
    try:
        if datatype in INTEGER_TYPES:
            return int(text)
        if datatype == _BOOLEAN:
            # Virtuoso: booleans come back as 1 / 0.
            return text.strip() in ("true", "1")
        if datatype == XSD + "decimal":
            return Decimal(text)
        if datatype in (XSD + "double", XSD + "float"):
            return float(text)
    except (ValueError, InvalidOperation):
        return text
    return text


#: What a server's CONSTRUCT answer is, by content type (Turtle when unnamed).
RDF_FORMATS = {
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "text/plain": ox.RdfFormat.N_TRIPLES,
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
}


def as_ntriples(data: bytes, kind: str) -> bytes:
    """A CONSTRUCT answer as hopgate's N-Triples (the embedded store's escapes)."""
    triples = ox.parse(data, format=RDF_FORMATS.get(kind, ox.RdfFormat.TURTLE))
    out = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    assert out is not None  # no output file given: the bytes are returned
    return out


def integer(value: Value) -> int:
    return int(value) if isinstance(value, int) else 0


__all__ = [
    "RDF_FORMATS",
    "as_ntriples",
    "bind_update",
    "boolean",
    "check_iri",
    "integer",
    "rows",
    "stream_rows",
    "term_value",
]
