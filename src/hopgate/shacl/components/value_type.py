"""Value type constraint components (SHACL 1.0 section 4.1): ``sh:class``, ``sh:datatype``, ``sh:nodeKind``."""

from __future__ import annotations

from collections.abc import Iterator

from rdflib.namespace import SH
from rdflib.term import URIRef

from hopgate.errors import IllFormedShape
from hopgate.shacl.components.base import Component, Constraint, Scope
from hopgate.shacl.lexical import datatype_expr, well_formed_expr

_NODE_KINDS = {
    SH.IRI: "isIRI({v})",
    SH.BlankNode: "isBlank({v})",
    SH.Literal: "isLiteral({v})",
    SH.BlankNodeOrIRI: "(isBlank({v}) || isIRI({v}))",
    SH.BlankNodeOrLiteral: "(isBlank({v}) || isLiteral({v}))",
    SH.IRIOrLiteral: "(isIRI({v}) || isLiteral({v}))",
}


def class_(scope: Scope) -> Iterator[Constraint]:
    """4.1.1 ``sh:class``: a value node that is not an instance of the class (or a subclass)."""
    compiler, value = scope.compiler, scope.value
    for cls in scope.objects(SH["class"]):
        yield Constraint(
            SH.ClassConstraintComponent,
            f"{scope.values} MINUS {{ {value} {compiler.type_path} {compiler.term(cls)} }}",
            scope.of_value,
        )


def datatype(scope: Scope) -> Iterator[Constraint]:
    """4.1.2 ``sh:datatype``: a value node that is not a literal of the datatype, or is ill-formed."""
    value, written = scope.value, scope.compiler.written
    for wanted in scope.objects(SH.datatype):
        if not isinstance(wanted, URIRef):
            raise IllFormedShape(f"sh:datatype {wanted} is not an IRI")
        test = f"{datatype_expr(value, written=written)} != <{wanted}>"
        lexical = well_formed_expr(str(wanted), value)
        if lexical is not None:
            test += f" || !{lexical}"
        yield Constraint(
            SH.DatatypeConstraintComponent,
            f"{scope.values} FILTER(!isLiteral({value}) || {test})",
            scope.of_value,
        )


def node_kind(scope: Scope) -> Iterator[Constraint]:
    """4.1.3 ``sh:nodeKind``: a value node of another kind (IRI, blank node, literal)."""
    for kind in scope.objects(SH.nodeKind):
        if kind not in _NODE_KINDS:
            raise IllFormedShape(f"unknown sh:nodeKind {kind}")
        test = _NODE_KINDS[kind].format(v=scope.value)  # type: ignore[index]
        yield Constraint(
            SH.NodeKindConstraintComponent, f"{scope.values} FILTER(!{test})", scope.of_value
        )


COMPONENTS = (
    Component(SH.ClassConstraintComponent, (SH["class"],), "4.1.1", class_),
    Component(SH.DatatypeConstraintComponent, (SH.datatype,), "4.1.2", datatype),
    Component(SH.NodeKindConstraintComponent, (SH.nodeKind,), "4.1.3", node_kind),
)

__all__ = ["COMPONENTS"]
