"""Serialising an export: TriG and JSON-LD by Oxigraph, the PROV formats by ``prov``."""

from __future__ import annotations

import pyoxigraph as ox

from hopgate.export.provdoc import PROV_FORMATS, build_document, serialize_document
from hopgate.export.quads import ExportQuads
from hopgate.vocab import PREFIXES

#: Every text format ``hopgate export`` writes, with its file name extension.
EXTENSIONS = {
    "trig": ".trig",
    "jsonld": ".jsonld",
    "provn": ".provn",
    "provjson": ".prov.json",
    "provxml": ".prov.xml",
}
#: Picture formats (of one acceptance card).
PICTURE_EXTENSIONS = {"dot": ".dot", "svg": ".svg", "png": ".png"}

_RDF = {"trig": ox.RdfFormat.TRIG, "jsonld": ox.RdfFormat.JSON_LD}


def serialize(quads: ExportQuads, fmt: str) -> bytes:
    """The bytes of ``quads`` in ``fmt`` (a key of EXTENSIONS); deterministic.

    The quads are sorted, hopgate's graphs hold no blank nodes, and both
    writers emit records in input order, so the same quads give the same bytes.
    """
    if fmt in _RDF:
        prefixes = PREFIXES if fmt == "trig" else None
        data = ox.serialize(quads.quads, format=_RDF[fmt], prefixes=prefixes)
        assert data is not None  # no output file given: the bytes come back
        return data if data.endswith(b"\n") else data + b"\n"
    if fmt in PROV_FORMATS:
        return serialize_document(build_document(quads.quads, xml=fmt == "provxml"), fmt)
    raise ValueError(f"unknown export format {fmt!r}")


def parse_rdf(data: bytes, fmt: str) -> list[ox.Quad]:
    """Read a TriG or JSON-LD export back as quads."""
    return list(ox.parse(data, format=_RDF[fmt]))
