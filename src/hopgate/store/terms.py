"""Python values <-> RDF terms, and parameters bound into SPARQL text.

Shared by the engines: the embedded store converts its answers with
:func:`from_term`, and every store binds a query's parameters with
:func:`bind_parameters` (IRIs written in as constants where that keeps the
meaning, the rest as VALUES blocks by :func:`bind_values`; terms written
escaped by :func:`term_ntriples`, never formatted from input).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

from hopgate import ids
from hopgate.errors import QueryError
from hopgate.store.base import IRI, BNode, Value
from hopgate.store.dialect import inline_constants, uses_from, uses_service, where_groups
from hopgate.vocab import XSD


def to_term(value: Value) -> ox.NamedNode | ox.Literal | ox.BlankNode:
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


def from_term(term: object) -> Value:
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
        # An ill-typed decimal raises InvalidOperation, not ValueError; as the remote
        # store's rows (hopgate.store.remote.values), it stays text.
        except (ValueError, InvalidOperation):
            return text
        return text
    return str(term)


def parse_value(text: str) -> Value:
    """A parameter value written as text, as ``hopgate query --param NAME=VALUE`` reads VALUE.

    ``<iri>`` is an IRI; ``KIND:ID`` with a record kind (``run:sys-a``) is the
    minted IRI of that ledger id; ``"text"`` is a string; an integer, ``true``
    and ``false`` are typed; anything else is a string.

    Raises:
        QueryError: ``<...>`` that is not an IRI.

    Example:
        >>> parse_value("run:sys-a"), parse_value("3"), parse_value('"3"'), parse_value("a: b")
        (IRI('https://w3id.org/hopgate/id/run/sys-a'), 3, '3', 'a: b')
    """
    kind, sep, rest = text.partition(":")
    if text.startswith("<") and text.endswith(">"):
        try:
            return IRI(ox.NamedNode(text[1:-1]).value)
        except ValueError as exc:
            raise QueryError(f"not an IRI: {text} ({exc})") from None
    if sep and kind in ids.KINDS and rest:
        return IRI(ids.mint(kind, rest))
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    return text


def flag(value: object) -> bool:
    """A boolean a query computed, as a server types it: ``true``, or ``1`` where it types
    it as a number (Virtuoso 7.2.5 does: docs/servers.md)."""
    return value is True or (type(value) is int and value == 1)


#: Where an engine says a query stops parsing: Oxigraph's ``error at LINE:COLUMN`` (its
#: server's too), Virtuoso's ``SPARQL compiler, line LINE``, Jena's ``Line LINE, column``.
_PARSE_LINE = re.compile(
    r"(?<=error at )(\d+)(?=:\d+)|(?<=compiler, line )(\d+)|(?<=Line )(\d+)(?=, column)"
)


def located(message: str, prologue: str) -> str:
    """An engine's parse error with its line counted in the text the user wrote, not after
    the ``prologue`` (PREFIX lines) put before it; a line inside the prologue is kept."""
    lines = prologue.count("\n")

    def shifted(match: re.Match[str]) -> str:
        line = int(match.group(0)) - lines
        return str(line) if line > 0 else match.group(0)

    return _PARSE_LINE.sub(shifted, message, count=1)


def refuse_dataset_clause(query: str) -> None:
    """Refuse a query naming its own dataset (``FROM``, ``FROM NAMED``).

    hopgate answers over the published graphs (docs/spec/records.md
    "Records"). Virtuoso adds a query's ``FROM`` graphs to the dataset a
    request names, so ``FROM <g>`` read a graph no catalog entry publishes
    (one still being written, whose withheld texts the reader filter does not
    know yet); Oxigraph ignores them. ``GRAPH <g>`` names a published graph.

    Raises:
        QueryError: the query has a FROM clause.
    """
    if uses_from(query):
        raise QueryError(
            "FROM and FROM NAMED are refused: hopgate answers over the graphs its catalog "
            "publishes; name one of them with GRAPH <...> inside the WHERE clause"
        )


def refuse_service(query: str) -> None:
    """Refuse a query with a SERVICE clause: hopgate answers from its store alone.

    A SERVICE clause makes the engine send a request to another endpoint (an
    outbound request chosen by whoever wrote the query).

    Raises:
        QueryError: the query uses SERVICE.
    """
    if uses_service(query):
        raise QueryError(
            "SERVICE is refused: hopgate answers queries from its store alone (a SERVICE "
            "clause would send a request to another endpoint)"
        )


def term_ntriples(value: Value) -> str:
    """The N-Triples spelling of a parameter value (escaped; safe to splice into SPARQL)."""
    return str(to_term(value))


def _check_variable(name: str) -> None:
    """Raise QueryError unless ``name`` is a SPARQL variable name (it is written into a query)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise QueryError(f"not a SPARQL variable name: {name!r}")


def _groups(query: str) -> list[int]:
    """Where ``query``'s WHERE groups open (:func:`where_groups`); QueryError when none can
    take a VALUES block."""
    try:
        groups = where_groups(query)
    except ValueError as exc:
        raise QueryError(f"cannot bind parameters: {exc}") from None
    if not groups:
        raise QueryError("cannot bind parameters: the query has no WHERE { ... } group")
    return groups


def bind_parameters(query: str, params: Mapping[str, Value] | None) -> str:
    """Bind ``params`` into a query as every store sends it.

    An IRI parameter is written in as a constant wherever that keeps the
    query's meaning (:func:`hopgate.store.dialect.inline_constants`); the
    others, and an IRI the query projects, assigns or lists, are bound by
    :func:`bind_values`. A parameter means its value written in: a ``VALUES``
    block binds only where its group's own patterns are joined, not inside a
    ``UNION`` branch evaluated on its own, where an ``OPTIONAL { GRAPH ?scratch
    {...} }`` then matched another graph (an evaluation's bundle beside the
    scratch graph) and its row failed the join with ``VALUES``. And Virtuoso
    7.2.5 lost rows or hung with ``VALUES`` in each group (docs/remote-virtuoso.md).

    Raises:
        QueryError: as :func:`bind_values`.
    """
    terms = {k: term_ntriples(v) for k, v in (params or {}).items() if isinstance(v, IRI)}
    query, inlined = inline_constants(query, terms)
    return bind_values(query, {k: v for k, v in (params or {}).items() if k not in inlined})


def bind_outer(query: str, name: str, values: Sequence[Value]) -> str:
    """``query`` with ``?name`` bound to each of ``values`` by one VALUES block opening
    its outermost WHERE group alone.

    Sub-selects are left as they are: several rows of values there would
    multiply a sub-select's own rows. For a variable that every solution of the
    outermost group binds, the query then gives exactly its solutions whose
    ``?name`` is one of ``values``.

    Raises:
        QueryError: ``name`` is not a SPARQL variable name, or the text has no
            WHERE group.
    """
    _check_variable(name)
    groups = _groups(query)
    rows = " ".join(term_ntriples(value) for value in values)
    return f"{query[: groups[0]]} VALUES ?{name} {{ {rows} }} {query[groups[0] :]}"


def bind_values(query: str, params: Mapping[str, Value] | None) -> str:
    """Bind ``params`` by opening every WHERE group (of the query and its sub-selects) with VALUES.

    This is SPARQL's own way to bind values, it reaches into subqueries (which
    a trailing VALUES clause does not), and the same text runs on any SPARQL
    1.1 engine. The groups are found by a tokenizer (:func:`hopgate.store.dialect.where_groups`),
    so a string, IRI or comment containing ``WHERE {`` is left alone, and
    ``SELECT * { }`` is bound as ``SELECT * WHERE { }`` is. Terms are
    serialised with escaping, never formatted from input.

    Raises:
        QueryError: a parameter name is not a SPARQL variable name, or the
            text has no WHERE group to bind into.
    """
    if not params:
        return query
    for name in params:
        _check_variable(name)
    names = " ".join(f"?{name}" for name in params)
    values = " ".join(term_ntriples(value) for value in params.values())
    block = f" VALUES ({names}) {{ ({values}) }} "
    groups = _groups(query)
    parts = []
    start = 0
    for offset in groups:
        parts.append(query[start:offset])
        parts.append(block)
        start = offset
    parts.append(query[start:])
    return "".join(parts)
