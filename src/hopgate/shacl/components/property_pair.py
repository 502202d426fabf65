"""Property pair constraint components (SHACL 1.0 section 4.5): ``sh:equals``,
``sh:disjoint``, ``sh:lessThan``, ``sh:lessThanOrEquals``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rdflib.namespace import SH
from rdflib.term import URIRef

from hopgate.shacl.components.base import Component, Constraint, Scope
from hopgate.shacl.lexical import value_expr


def equals(scope: Scope) -> Iterator[Constraint]:
    """4.5.1 ``sh:equals``: a value node that is not a value of the other property, and the reverse."""
    compiler, focus, value = scope.compiler, scope.focus, scope.value
    for other_property in scope.objects(SH.equals):
        other = compiler.term(other_property)
        extra = compiler.fresh("e")
        # A value node that is not a value of the other property ...
        yield Constraint(
            SH.EqualsConstraintComponent,
            f"{scope.values} MINUS {{ {focus} {other} {value} }}",
            scope.of_value,
        )
        # ... and a value of the other property that is not a value node.
        missing = (
            f"FILTER(!sameTerm({extra}, {focus}))"
            if scope.steps is None
            else f"MINUS {{ {focus} {scope.steps} {extra} }}"
        )
        yield Constraint(
            SH.EqualsConstraintComponent,
            f"{scope.ctx} {focus} {other} {extra} {missing}",
            f"{focus} ({extra} AS ?value)",
        )


def disjoint(scope: Scope) -> Iterator[Constraint]:
    """4.5.2 ``sh:disjoint``: a value node that is also a value of the other property."""
    for other_property in scope.objects(SH.disjoint):
        other = scope.compiler.term(other_property)
        yield Constraint(
            SH.DisjointConstraintComponent,
            f"{scope.values} {scope.focus} {other} {scope.value} .",
            scope.of_value,
        )


def _ordered(
    parameter: URIRef, component: URIRef, operator: str
) -> Callable[[Scope], Iterator[Constraint]]:
    """A pair (value node, value of the other property) that does not compare as ``operator``."""

    def compile(scope: Scope) -> Iterator[Constraint]:
        compiler, value = scope.compiler, scope.value
        for other_property in scope.objects(parameter):
            scope.needs_path(parameter)
            other = compiler.fresh("l")
            left = value_expr(value, written=compiler.written)
            right = value_expr(other, written=compiler.written)
            # One result per pair of values (SHACL 4.5.3), hence the other value projected.
            yield Constraint(
                component,
                f"{scope.values} {scope.focus} {compiler.term(other_property)} {other} "
                f"FILTER(!COALESCE({left} {operator} {right}, false))",
                f"{scope.of_value} {other}",
            )

    compile.__doc__ = (
        f"{parameter.n3()}: a value node and a value of the other property not {operator}."
    )
    return compile


less_than = _ordered(SH.lessThan, SH.LessThanConstraintComponent, "<")
less_than_or_equals = _ordered(SH.lessThanOrEquals, SH.LessThanOrEqualsConstraintComponent, "<=")

COMPONENTS = (
    Component(SH.EqualsConstraintComponent, (SH.equals,), "4.5.1", equals),
    Component(SH.DisjointConstraintComponent, (SH.disjoint,), "4.5.2", disjoint),
    Component(SH.LessThanConstraintComponent, (SH.lessThan,), "4.5.3", less_than),
    Component(
        SH.LessThanOrEqualsConstraintComponent, (SH.lessThanOrEquals,), "4.5.4", less_than_or_equals
    ),
)

__all__ = ["COMPONENTS"]
