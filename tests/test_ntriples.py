"""N-Quads terms written by hand (hopgate.ntriples), held against a parser."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from hopgate import ntriples
from hopgate.vocab import XSD

S = ntriples.iri("https://w3id.org/hopgate/id/claim/c1")
P = ntriples.iri("https://w3id.org/hopgate/ns#text")


def _object(term: str) -> ox.Literal:
    [triple] = ox.parse(f"{S} {P} {term} .\n".encode(), format=ox.RdfFormat.N_TRIPLES)
    assert isinstance(triple.object, ox.Literal)
    return triple.object


@pytest.mark.parametrize("text", ['say "hi"', "a\\b", "two\nlines\r", "Zürich 😀", ""])
def test_a_string_reads_back_as_written(text: str) -> None:
    assert _object(ntriples.string(text)).value == text
    assert _object(ntriples.typed(text, "string")).value == text


def test_typed_literals_carry_their_datatype() -> None:
    assert _object(ntriples.integer(-3)) == ox.Literal("-3", datatype=ox.NamedNode(XSD + "integer"))
    assert _object(ntriples.boolean(False)).value == "false"
    stamp = _object(ntriples.datetime("2026-10-01T12:00:00Z"))
    assert stamp.datatype == ox.NamedNode(XSD + "dateTime")
    json = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"
    assert _object(ntriples.literal('{"a": "b"}', json)).datatype == ox.NamedNode(json)
