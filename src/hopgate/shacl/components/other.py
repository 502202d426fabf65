"""Other constraint components (SHACL 1.0 section 4.8): ``sh:closed`` (with
``sh:ignoredProperties``), ``sh:hasValue``, ``sh:in``."""

from __future__ import annotations

from collections.abc import Iterator

from rdflib.collection import Collection
from rdflib.namespace import SH
from rdflib.term import URIRef

from hopgate.shacl.components.base import ANY_PREDICATE, Component, Constraint, Scope, true


def closed(scope: Scope) -> Iterator[Constraint]:
    """4.8.1 ``sh:closed``: a value of the value node by a property no property shape names."""
    compiler, value = scope.compiler, scope.value
    g = compiler.shapes
    for flag in scope.objects(SH.closed):
        if not true(flag):
            continue
        permitted = {g.value(child, SH.path) for child in scope.objects(SH.property)} | {
            m for ignored in scope.objects(SH.ignoredProperties) for m in Collection(g, ignored)
        }
        permitted_terms = sorted(compiler.term(a) for a in permitted if isinstance(a, URIRef))
        predicate, obj = compiler.fresh(ANY_PREDICATE), compiler.fresh("o")
        test = (
            f"FILTER({predicate} NOT IN ({', '.join(permitted_terms)}))" if permitted_terms else ""
        )
        # In a sub-select: on a shape with a path the value nodes are ?value,
        # which the result's (?obj AS ?value) may not rebind in the same SELECT.
        yield Constraint(
            SH.ClosedConstraintComponent,
            f"{{ SELECT {scope.focus} {predicate} {obj} WHERE "
            f"{{ {scope.values} {value} {predicate} {obj} . {test} }} }}",
            f"{scope.focus} ({obj} AS ?value) ({predicate} AS ?path)",
        )


def has_value(scope: Scope) -> Iterator[Constraint]:
    """4.8.2 ``sh:hasValue``: a focus node none of whose value nodes is the value."""
    compiler, focus = scope.compiler, scope.focus
    for wanted in scope.objects(SH.hasValue):
        if scope.steps is None:
            pattern = f"{scope.ctx} FILTER(!sameTerm({focus}, {compiler.term(wanted)}))"
        else:
            pattern = f"{scope.ctx} MINUS {{ {focus} {scope.steps} {compiler.term(wanted)} }}"
        yield Constraint(SH.HasValueConstraintComponent, pattern, focus)


def in_(scope: Scope) -> Iterator[Constraint]:
    """4.8.3 ``sh:in``: a value node that is none of the listed terms."""
    compiler = scope.compiler
    for members in scope.objects(SH["in"]):
        # The allowed terms as one VALUES table, removed from the value nodes: MINUS
        # compares terms as sameTerm does. (A chain of 10,000 sameTerm || ... overflowed
        # Oxigraph's stack, and its cost grew with the square of its length.)
        allowed = " ".join(sorted({compiler.term(m) for m in Collection(compiler.shapes, members)}))
        yield Constraint(
            SH.InConstraintComponent,
            f"{scope.values} MINUS {{ VALUES {scope.value} {{ {allowed} }} }}",
            scope.of_value,
        )


COMPONENTS = (
    Component(SH.ClosedConstraintComponent, (SH.closed, SH.ignoredProperties), "4.8.1", closed),
    Component(SH.HasValueConstraintComponent, (SH.hasValue,), "4.8.2", has_value),
    Component(SH.InConstraintComponent, (SH["in"],), "4.8.3", in_),
)

__all__ = ["COMPONENTS"]
