"""Writing N-Quads lines by hand: the loader's hot path, so no term objects."""

from __future__ import annotations

from hopgate.vocab import XSD

_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def iri(value: str) -> str:
    """An IRI term; callers pass minted or vocabulary IRIs only (never raw input)."""
    return f"<{value}>"


def string(value: str) -> str:
    """A plain string literal (``xsd:string``), escaped for N-Triples."""
    return f'"{value.translate(_ESCAPES)}"'


def typed(value: str, datatype: str) -> str:
    """A literal with an XSD datatype given by its local name (``integer``, ``dateTime``...)."""
    return f'"{value.translate(_ESCAPES)}"^^<{XSD}{datatype}>'


def literal(value: str, datatype_iri: str) -> str:
    """A literal with any datatype IRI (such as ``rdf:JSON``)."""
    return f'"{value.translate(_ESCAPES)}"^^<{datatype_iri}>'


def integer(value: int) -> str:
    """An ``xsd:integer`` literal."""
    return f'"{value}"^^<{XSD}integer>'


def boolean(value: bool) -> str:
    """An ``xsd:boolean`` literal."""
    return f'"{"true" if value else "false"}"^^<{XSD}boolean>'


def datetime(value: str) -> str:
    """An ``xsd:dateTime`` literal from an already normalised UTC lexical form."""
    return f'"{value}"^^<{XSD}dateTime>'
