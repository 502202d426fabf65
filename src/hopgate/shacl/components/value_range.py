"""Value range constraint components (SHACL 1.0 section 4.3): ``sh:minExclusive``,
``sh:minInclusive``, ``sh:maxExclusive``, ``sh:maxInclusive``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rdflib.namespace import SH
from rdflib.term import Literal, URIRef

from hopgate.errors import IllFormedShape
from hopgate.shacl.components.base import Component, Constraint, Scope
from hopgate.shacl.lexical import value_expr


def _range(
    parameter: URIRef, component: URIRef, operator: str
) -> Callable[[Scope], Iterator[Constraint]]:
    """A value node that does not compare with the bound as ``operator`` says.

    A value that cannot be compared (another type, an ill-formed literal)
    violates too: the comparison's error counts as false.
    """

    def compile(scope: Scope) -> Iterator[Constraint]:
        for bound in scope.objects(parameter):
            if not isinstance(bound, Literal):
                raise IllFormedShape(f"{parameter} {bound} is not a literal")
            compared = value_expr(scope.value, written=scope.compiler.written)
            yield Constraint(
                component,
                f"{scope.values} FILTER(!COALESCE({compared} {operator} {bound.n3()}, false))",
                scope.of_value,
            )

    compile.__doc__ = f"{parameter.n3()}: a value node that is not {operator} the bound."
    return compile


min_exclusive = _range(SH.minExclusive, SH.MinExclusiveConstraintComponent, ">")
min_inclusive = _range(SH.minInclusive, SH.MinInclusiveConstraintComponent, ">=")
max_exclusive = _range(SH.maxExclusive, SH.MaxExclusiveConstraintComponent, "<")
max_inclusive = _range(SH.maxInclusive, SH.MaxInclusiveConstraintComponent, "<=")

COMPONENTS = (
    Component(SH.MinExclusiveConstraintComponent, (SH.minExclusive,), "4.3.1", min_exclusive),
    Component(SH.MinInclusiveConstraintComponent, (SH.minInclusive,), "4.3.2", min_inclusive),
    Component(SH.MaxExclusiveConstraintComponent, (SH.maxExclusive,), "4.3.3", max_exclusive),
    Component(SH.MaxInclusiveConstraintComponent, (SH.maxInclusive,), "4.3.4", max_inclusive),
)

__all__ = ["COMPONENTS"]
