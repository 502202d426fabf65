"""What a constraint component compiles from and into: the pieces every entry of the table shares.

A core constraint component (SHACL 1.0 section 4) is compiled by one small
function, ``compile(scope)``, that yields a :class:`Constraint` per
constraint of the shape: a SPARQL pattern with a solution exactly for each
violation. The :class:`Scope` says where the shape's focus nodes and value
nodes are bound; the :class:`Compiler` is what a function may ask of the
compiler (a term written as the store holds it, a fresh variable, the
"does not conform" pattern of a nested shape).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import rdflib
from rdflib.namespace import SH, XSD
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.errors import IllFormedShape, UnsupportedShape

#: SHACL 1.0, the W3C Recommendation each component cites by section anchor.
SHACL_SPEC = "https://www.w3.org/TR/shacl/"


def path_repeats(shapes: rdflib.Graph, path: Node) -> bool:
    """True when ``path`` has a ``sh:zeroOrMorePath``, ``sh:oneOrMorePath`` or
    ``sh:zeroOrOnePath`` step: asked without its start node bound, such a path
    enumerates every node of the data (a zero-length match) or every closure."""
    repeats = (SH.zeroOrMorePath, SH.oneOrMorePath, SH.zeroOrOnePath)
    # A path's structure is blank nodes (lists, inverse, alternatives, repeats);
    # its IRIs are predicates, whose own triples in the shapes graph say nothing here.
    pending = [path] if isinstance(path, BNode) else []
    seen: set[Node] = set()
    while pending:
        step = pending.pop()
        seen.add(step)
        for predicate, inner in shapes.predicate_objects(step):
            if predicate in repeats:
                return True
            if isinstance(inner, BNode) and inner not in seen:
                pending.append(inner)
    return False


@dataclass(frozen=True)
class Check:
    """One compiled constraint: a SELECT whose solutions are validation results.

    Each solution binds ``?this`` (the focus node), optionally ``?value``
    (else, with ``value_is_focus``, the focus node is the value), ``?path``
    (a result path that overrides ``path``) and, for SPARQL constraints, the
    variables its message template names.
    """

    query: str
    source_shape: Node
    component: URIRef
    severity: URIRef
    messages: tuple[Literal, ...]
    path: Node | None = None
    constraint: Node | None = None
    #: PREFIX declarations the query needs (from the constraint's ``sh:prefixes``).
    prologue: str = ""
    #: Report the focus node as ``sh:value`` when the query binds no ``?value``.
    value_is_focus: bool = False
    #: The query holds SPARQL the shapes' author wrote (a SPARQL-based constraint, or a
    #: declared component's validator, whatever IRI the component was declared with).
    authored: bool = False


@dataclass(frozen=True)
class Constraint:
    """A violation pattern of one constraint: ``projection`` names the variables of one result."""

    component: URIRef
    pattern: str
    projection: str
    distinct: bool = True


class Compiler(Protocol):
    """What a component's function may ask of the compiler."""

    #: The shapes graph.
    shapes: rdflib.Graph
    #: The store holds some literals rewritten (:mod:`hopgate.shacl.lexical`).
    written: bool
    #: The SPARQL path from a node to its classes (``a``, or through ``rdfs:subClassOf``).
    type_path: str
    #: The IRI of the named graph holding the shapes in the store (``$shapesGraph``), if any.
    shapes_graph: str | None

    def term(self, node: Node) -> str:
        """A constant of the shapes graph written as the store holds it."""
        ...

    def fresh(self, stem: str) -> str:
        """A variable name used nowhere else in the query being built."""
        ...

    def path(self, path: Node) -> str:
        """A SHACL property path as a SPARQL property path."""
        ...

    def pairs(self, focus: str, path: Node, value: str) -> str:
        """A pattern binding ``focus`` and ``value`` to each pair the path joins, for a
        pattern evaluated without outer bindings (a subquery, a ``MINUS``)."""
        ...

    def not_conforming(self, shape: Node, ctx: str, focus: str) -> str:
        """A pattern with a solution for each ``focus`` bound by ``ctx`` that violates ``shape``."""
        ...


@dataclass(frozen=True)
class Scope:
    """Where one shape's constraints are compiled.

    ``ctx`` binds the focus nodes to ``focus``; ``values`` binds ``focus``
    and each value node to ``value`` (the focus itself for a node shape);
    ``path`` is the shape's ``sh:path`` (None for a node shape).
    """

    compiler: Compiler
    shape: Node
    ctx: str
    focus: str
    path: Node | None
    value: str
    values: str

    def objects(self, parameter: URIRef) -> Iterator[Node]:
        """The shape's values of ``parameter``, one constraint each."""
        return self.compiler.shapes.objects(self.shape, parameter)

    @functools.cached_property
    def steps(self) -> str | None:
        """The shape's path as SPARQL (None for a node shape)."""
        return None if self.path is None else self.compiler.path(self.path)

    @functools.cached_property
    def path_repeats(self) -> bool:
        """True when the shape's path has a repeated step (:func:`path_repeats`)."""
        return self.path is not None and path_repeats(self.compiler.shapes, self.path)

    def pairs(self, value: str) -> str:
        """The focus node and each ``value`` its path reaches, as a pattern evaluated
        without outer bindings (:meth:`Compiler.pairs`); only for a property shape."""
        assert self.path is not None
        return self.compiler.pairs(self.focus, self.path, value)

    def needs_path(self, parameter: URIRef) -> str:
        """The shape's path as SPARQL, for a parameter that only property shapes may carry.

        Raises:
            IllFormedShape: the shape is a node shape.
        """
        if self.steps is None:
            raise IllFormedShape(f"{parameter} on node shape {self.shape}")
        return self.steps

    @property
    def of_value(self) -> str:
        """The projection of a result about one value node: the focus and ``?value``."""
        if self.value == "?value":
            return f"{self.focus} ?value"
        return f"{self.focus} ({self.value} AS ?value)"


@dataclass(frozen=True)
class Component:
    """One entry of the table: a SHACL constraint component and its compiler.

    ``parameters`` are the shape parameters it reads (any other ``sh:``
    parameter on a shape is unsupported); ``section`` is its section number
    in SHACL 1.0, whose anchor is the component's local name unless
    ``anchor`` says otherwise.
    """

    iri: URIRef
    parameters: tuple[URIRef, ...]
    section: str
    compile: Callable[[Scope], Iterator[Constraint]]
    anchor: str | None = None

    @property
    def url(self) -> str:
        """The component's section of SHACL 1.0."""
        return f"{SHACL_SPEC}#{self.anchor or self.iri.rpartition('#')[2]}"


#: The stem of the variable a pattern binds to a triple's predicate (``sh:closed``'s, in a
#: nested shape too): a query holding one reads triples by every predicate, not only by
#: the IRIs its text names (:func:`reads_every_predicate`).
ANY_PREDICATE = "anyPredicate"


def reads_every_predicate(query: str) -> bool:
    """Whether a compiled query reads triples by any predicate (a pattern of
    :data:`ANY_PREDICATE`'s variable). A literal holding the name makes it say so too:
    the check is then run in every part of a validation, which is only slower."""
    return f"?_{ANY_PREDICATE}" in query


@dataclass
class Variables:
    """Fresh variable names for one compilation (``?_v1``, ``?_v2`` ...)."""

    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def fresh(self, stem: str) -> str:
        """A variable named ``?_<stem><n>`` for a number ``n`` not used before."""
        return f"?_{stem}{next(self.counter)}"


def integer(node: Node) -> int:
    """An integer parameter (``sh:minCount 2``), else :class:`UnsupportedShape`."""
    if not isinstance(node, Literal) or not isinstance(node.toPython(), int):
        raise UnsupportedShape(f"expected an integer, got {node}")
    return int(node.toPython())


def true(node: Node | None) -> bool:
    """A boolean parameter is on: the literal ``true``."""
    # SHACL names the value true; "1"^^xsd:boolean does not switch a parameter on (W3C uniqueLang-002).
    return isinstance(node, Literal) and node.datatype == XSD.boolean and str(node) == "true"


def messages(shapes: rdflib.Graph, node: Node) -> tuple[Literal, ...]:
    """The ``sh:message`` literals of ``node``, in a stable order."""
    found = [m for m in shapes.objects(node, SH.message) if isinstance(m, Literal)]
    return tuple(sorted(found, key=str))


__all__ = [
    "SHACL_SPEC",
    "Check",
    "Compiler",
    "Component",
    "Constraint",
    "Scope",
    "Variables",
    "integer",
    "messages",
    "true",
]
