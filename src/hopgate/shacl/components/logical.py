"""Logical constraint components (SHACL 1.0 section 4.6): ``sh:not``, ``sh:and``, ``sh:or``, ``sh:xone``.

Each member shape compiles to its "does not conform" pattern; the value
nodes that fail it are computed as ``DISTINCT`` sets and joined back to the
values, so that Oxigraph hash-joins small sets instead of nesting loops
over unions (figures in ``bench/README.md``).
"""

from __future__ import annotations

from collections.abc import Iterator

from rdflib.collection import Collection
from rdflib.namespace import SH

from hopgate.shacl.components.base import Component, Constraint, Scope


def not_(scope: Scope) -> Iterator[Constraint]:
    """4.6.1 ``sh:not``: a value node that conforms to the shape."""
    values, value = scope.values, scope.value
    for negated in scope.objects(SH["not"]):
        failing = scope.compiler.not_conforming(negated, values, value)
        yield Constraint(
            SH.NotConstraintComponent,
            f"{values} MINUS {{ SELECT DISTINCT {value} WHERE {{ {failing} }} }}",
            scope.of_value,
        )


def and_(scope: Scope) -> Iterator[Constraint]:
    """4.6.2 ``sh:and``: a value node that fails some member."""
    compiler, values, value = scope.compiler, scope.values, scope.value
    for members in scope.objects(SH["and"]):
        parts = [
            compiler.not_conforming(m, values, value) for m in Collection(compiler.shapes, members)
        ]
        if not parts:
            continue
        failing = " UNION ".join(f"{{ {part} }}" for part in parts)
        yield Constraint(
            SH.AndConstraintComponent,
            f"{values} {{ SELECT DISTINCT {value} WHERE {{ {failing} }} }}",
            scope.of_value,
        )


def or_(scope: Scope) -> Iterator[Constraint]:
    """4.6.3 ``sh:or``: a value node that fails every member."""
    compiler, values, value = scope.compiler, scope.values, scope.value
    for alternatives in scope.objects(SH["or"]):
        parts = [
            compiler.not_conforming(a, values, value)
            for a in Collection(compiler.shapes, alternatives)
        ]
        # Every alternative fails: the value is in each alternative's failing set.
        failing = " ".join(f"{{ SELECT DISTINCT {value} WHERE {{ {part} }} }}" for part in parts)
        yield Constraint(SH.OrConstraintComponent, f"{values} {failing}", scope.of_value)


def xone(scope: Scope) -> Iterator[Constraint]:
    """4.6.4 ``sh:xone``: a value node that conforms to no member, or to more than one."""
    compiler, values, value = scope.compiler, scope.values, scope.value
    for members in scope.objects(SH.xone):
        parts = [
            compiler.not_conforming(m, values, value) for m in Collection(compiler.shapes, members)
        ]
        marks = [compiler.fresh("x") for _ in parts]
        # Each member's failing set is computed once and left-joined: a flag
        # bound means the value fails that member (an EXISTS per value was
        # quadratic in the value nodes; see bench/README.md).
        joined = " ".join(
            f"OPTIONAL {{ SELECT DISTINCT {value} (true AS {mark}) WHERE {{ {part} }} }}"
            for part, mark in zip(parts, marks, strict=True)
        )
        conforming = " + ".join(f"IF(BOUND({mark}), 0, 1)" for mark in marks)
        yield Constraint(
            SH.XoneConstraintComponent,
            f"{values} {joined} FILTER(({conforming or '0'}) != 1)",
            scope.of_value,
        )


COMPONENTS = (
    Component(SH.NotConstraintComponent, (SH["not"],), "4.6.1", not_),
    Component(SH.AndConstraintComponent, (SH["and"],), "4.6.2", and_),
    Component(SH.OrConstraintComponent, (SH["or"],), "4.6.3", or_),
    Component(SH.XoneConstraintComponent, (SH.xone,), "4.6.4", xone),
)

__all__ = ["COMPONENTS"]
