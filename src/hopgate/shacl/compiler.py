"""SHACL shapes compiled to SPARQL, so that validation runs inside the store.

pySHACL (and the Rust validators) evaluate a SHACL-SPARQL constraint once per
focus node, which on a store of 100k claims means hundreds of thousands of
queries. Here each constraint of each shape that has targets becomes **one**
SELECT over all its focus nodes, answered by the store's own engine.

This module walks the shapes: targets (SHACL 1.0 2.1.3), focus and value
nodes, property shapes (``sh:property``, 4.7.2), deactivation and severity.
Each constraint is compiled by its component's entry in the table
(:mod:`hopgate.shacl.components`): a pattern that binds ``?this`` (and
``?value`` where SHACL reports one) exactly for the focus nodes that violate
it. ``sh:sparql`` constraints and SPARQL-based constraint components are
compiled by :mod:`hopgate.shacl.components.sparql`.

Nested shapes (``sh:node``, ``sh:or``, ``sh:and``, ``sh:not``, ``sh:xone``,
qualified shapes, property shapes of property shapes) compile to "does not
conform" patterns built from the same pieces (:meth:`_Compiler.not_conforming`),
so a value node violates ``sh:node N`` exactly when some constraint of ``N``
has a solution for it.

The compiler never skips what it does not understand: any other ``sh:``
parameter, a recursive shape, a component on a nested shape, or a query it
cannot prove joinable raises :class:`UnsupportedShape`, and the caller falls
back to pySHACL. The W3C SHACL test suite (``tests/shacl/test_w3c_shacl.py``)
runs through both.
"""

from __future__ import annotations

from collections.abc import Callable

import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.errors import IllFormedShape, UnsupportedShape
from hopgate.shacl.components import CORE, cardinality, parameters
from hopgate.shacl.components.base import (
    Check,
    Constraint,
    Scope,
    Variables,
    messages,
    path_repeats,
    true,
)
from hopgate.shacl.components.sparql import (
    applicable,
    component_checks,
    declared_components,
    sparql_check,
)

#: Parameters the compiler walks itself: nesting (4.7.2) and SPARQL constraints (5).
_WALKED = frozenset({SH.property, SH.sparql})
#: Constraint parameters this compiler understands; any other ``sh:`` parameter is unsupported.
_SUPPORTED = parameters() | _WALKED
#: Shape parameters that describe rather than constrain.
_DESCRIPTIVE = frozenset(
    {
        SH.path,
        SH.name,
        SH.description,
        SH.message,
        SH.severity,
        SH.deactivated,
        SH.targetClass,
        SH.targetNode,
        SH.targetSubjectsOf,
        SH.targetObjectsOf,
        SH.order,
        SH.group,
        SH.defaultValue,
        # Parameters of a SPARQL-based constraint, not of a shape: they matter only
        # where the node is a value of sh:sparql (W3C sparql/node/sparql-002).
        SH.prefixes,
        SH.select,
    }
)


#: The target parameters whose values are IRIs, with their section of SHACL 1.0.
_IRI_TARGETS = {
    SH.targetClass: "2.1.3.2",
    SH.targetSubjectsOf: "2.1.3.4",
    SH.targetObjectsOf: "2.1.3.5",
}


def iri_steps(shapes: rdflib.Graph, path: Node | None) -> list[URIRef]:
    """The steps of a path that is one IRI or a list of IRIs (read as
    :func:`path_sparql` reads it); empty for any other path."""
    if isinstance(path, URIRef):
        return [path]
    if not isinstance(path, BNode) or shapes.value(path, RDF.first) is None:
        return []
    items = list(Collection(shapes, path))
    steps = [item for item in items if isinstance(item, URIRef)]
    return steps if len(steps) == len(items) else []


def path_sparql(shapes: rdflib.Graph, path: Node) -> str:
    """A SHACL property path (SHACL 1.0 2.3.1) as a SPARQL 1.1 property path."""
    if isinstance(path, URIRef):
        return f"<{path}>"
    if not isinstance(path, BNode):
        raise UnsupportedShape(f"not a property path: {path}")
    if shapes.value(path, RDF.first) is not None:
        return "(" + "/".join(path_sparql(shapes, p) for p in Collection(shapes, path)) + ")"
    inverse = shapes.value(path, SH.inversePath)
    if inverse is not None:
        return f"^{path_sparql(shapes, inverse)}"
    alternatives = shapes.value(path, SH.alternativePath)
    if alternatives is not None:
        return (
            "(" + "|".join(path_sparql(shapes, p) for p in Collection(shapes, alternatives)) + ")"
        )
    for predicate, suffix in (
        (SH.zeroOrMorePath, "*"),
        (SH.oneOrMorePath, "+"),
        (SH.zeroOrOnePath, "?"),
    ):
        inner = shapes.value(path, predicate)
        if inner is not None:
            return f"({path_sparql(shapes, inner)}){suffix}"
    raise UnsupportedShape(f"unknown property path {path}")


class _Compiler:
    """Compiles the shapes of one shapes graph; ``subclasses`` says how to test class membership.

    It is the :class:`~hopgate.shacl.components.base.Compiler` the table's
    functions ask for terms, fresh variables and nested shapes.
    """

    def __init__(
        self,
        shapes: rdflib.Graph,
        *,
        subclasses: bool,
        write: Callable[[Node], Node] | None = None,
        shapes_graph: str | None = None,
    ) -> None:
        self.shapes = shapes
        self.shapes_graph = shapes_graph
        self.variables = Variables()
        # Without rdfs:subClassOf triples in the data, class membership is the type itself.
        self.type_path = f"<{RDF.type}>/<{RDFS.subClassOf}>*" if subclasses else "a"
        self.write = write
        self.written = write is not None
        self.active: list[Node] = []
        self.components = declared_components(shapes)

    # ------------------------------------------------ what components ask for

    def term(self, node: Node) -> str:
        """A constant of the shapes graph written as the store holds it."""
        if isinstance(node, URIRef):
            return f"<{node}>"
        if isinstance(node, Literal):
            written = self.write(node) if self.write is not None else node
            assert isinstance(written, Literal)
            return written.n3()
        raise UnsupportedShape(f"blank node {node} used as a constant")

    def fresh(self, stem: str) -> str:
        """A variable used nowhere else in this compilation."""
        return self.variables.fresh(stem)

    def path(self, path: Node) -> str:
        """A SHACL property path of the shapes graph as SPARQL."""
        return path_sparql(self.shapes, path)

    def pairs(self, focus: str, path: Node, value: str) -> str:
        """A pattern binding ``focus`` and ``value`` to each pair the path joins, for a
        pattern evaluated without outer bindings (a subquery, a ``MINUS``).

        A sequence of IRIs is written as its steps, each after the first a subquery
        of its own: Oxigraph then reads each step by one scan and joins them by
        hashing, where it looked a sequence path up node by node (the spans'
        ``oa:hasSelector/oa:start`` at 10k claims: 0.50-0.63 s against 0.11-0.15
        s; bench/README.md). The same pairs, as often: SPARQL 1.1 defines a
        sequence path as that join (18.4).
        """
        steps = iri_steps(self.shapes, path)
        if len(steps) < 2 or not value.startswith("?"):
            return f"{focus} {self.path(path)} {value} ."
        ends = [focus, *(self.fresh("step") for _ in steps[1:]), value]
        later = " ".join(
            f"{{ SELECT {start} {end} WHERE {{ {start} <{step}> {end} }} }}"
            for start, end, step in zip(ends[1:-1], ends[2:], steps[1:], strict=True)
        )
        return f"{focus} <{steps[0]}> {ends[1]} . {later}"

    def not_conforming(self, shape: Node, ctx: str, focus: str) -> str:
        """A pattern with a solution for each ``focus`` bound by ``ctx`` that violates ``shape``."""
        if shape in self.active:
            raise UnsupportedShape(f"recursive shape {shape}")
        if self._deactivated(shape):
            return f"{ctx} FILTER(false)"
        self._check_supported(shape)
        if any(True for _ in self.shapes.objects(shape, SH.sparql)) or applicable(
            self.shapes, self.components, shape
        ):
            raise UnsupportedShape(f"nested SPARQL constraint in {shape}")
        self.active.append(shape)
        path = self.shapes.value(shape, SH.path)
        if path is not None:
            value = self.fresh("pv")
            values = self._values(ctx, focus, path, value)
        else:
            value, values = focus, ctx
        constraints = self._constraints(shape, ctx, focus, path, value, values)
        counted = cardinality.bounds(Scope(self, shape, ctx, focus, path, value, values))
        if counted is not None:
            # Only failing matters here: one count stands for both bounds.
            constraints = [c for c in constraints if c.component not in cardinality.BOUNDED]
            constraints.append(counted)
        branches = [c.pattern for c in constraints]
        for child in self.shapes.objects(shape, SH.property):
            # A property shape's own property shapes apply to its values (4.7.2).
            branches.append(self.not_conforming(child, values, value))
        self.active.pop()
        if not branches:
            return f"{ctx} FILTER(false)"
        if len(branches) == 1:
            return branches[0]
        return "{ " + " } UNION { ".join(branches) + " }"

    # ----------------------------------------------------------- entry points

    def targets(self, shape: Node, focus: str) -> list[str]:
        """Patterns binding ``focus`` to the shape's targets, one per target declaration (2.1.3)."""
        patterns = []
        for parameter, section in _IRI_TARGETS.items():
            for value in self.shapes.objects(shape, parameter):
                if not isinstance(value, URIRef):
                    # A literal class would be written as a constant the skipping of
                    # unchanged checks cannot read (hopgate.shacl.unchanged).
                    raise IllFormedShape(
                        f"sh:{parameter.removeprefix(str(SH))} {value.n3()} of {shape} is not an IRI "
                        f"(SHACL 1.0 {section})"
                    )
        for cls in self.shapes.objects(shape, SH.targetClass):
            patterns.append(f"{focus} {self.type_path} {self.term(cls)} .")
        if (shape, RDF.type, RDFS.Class) in self.shapes:
            # An implicit class target (2.1.3.3).
            patterns.append(f"{focus} {self.type_path} {self.term(shape)} .")
        nodes = [self.term(node) for node in self.shapes.objects(shape, SH.targetNode)]
        if nodes:
            patterns.append(f"VALUES {focus} {{ {' '.join(sorted(nodes))} }}")
        for predicate in self.shapes.objects(shape, SH.targetSubjectsOf):
            patterns.append(f"{focus} {self.term(predicate)} [] .")
        for predicate in self.shapes.objects(shape, SH.targetObjectsOf):
            patterns.append(f"[] {self.term(predicate)} {focus} .")
        return patterns

    def checks(self, shape: Node) -> list[Check]:
        """The checks of a shape with targets: one per constraint, each with its own query."""
        targets = self.targets(shape, "?this")
        if not targets or self._deactivated(shape):
            return []
        if len(targets) > 1:
            # Distinct focus nodes: a node targeted twice is validated once.
            focus = "{ SELECT DISTINCT ?this WHERE { { " + " } UNION { ".join(targets) + " } } }"
        else:
            focus = targets[0]
        return self._shape_checks(shape, focus)

    # ------------------------------------------------------------- the walk

    def _shape_checks(self, shape: Node, focus: str, keys: str = "") -> list[Check]:
        """The checks of ``shape`` over the focus nodes ``focus`` binds to ``?this``.

        ``keys`` are further variables of ``focus`` that keep results apart: a
        property shape of a property shape reports once per (outer focus, value).
        """
        if shape in self.active:
            raise UnsupportedShape(f"recursive shape {shape}")
        self._check_supported(shape)
        severity = self._severity(shape)
        worded = messages(self.shapes, shape)
        path = self.shapes.value(shape, SH.path)
        found: list[Check] = []
        if path is not None:
            value, values = "?value", self._values(focus, "?this", path, "?value")
        else:
            value, values = "?this", focus
        self.active.append(shape)
        for constraint in self._constraints(shape, focus, "?this", path, value, values):
            keyword = "SELECT DISTINCT" if constraint.distinct else "SELECT"
            query = f"{keyword} {constraint.projection}{keys} WHERE {{ {constraint.pattern} }}"
            found.append(Check(query, shape, constraint.component, severity, worded, path=path))
        found += component_checks(self, self.components, shape, focus, path, severity, keys)
        for sparql in self.shapes.objects(shape, SH.sparql):
            if not self._deactivated(sparql):
                found.append(sparql_check(self, shape, sparql, focus, severity, path))
        for child in self.shapes.objects(shape, SH.property):
            if self._deactivated(child):
                continue
            if path is None:
                found += self._shape_checks(child, focus, keys)
            else:
                # A property shape of a property shape: its focus nodes are the values.
                parent = self.fresh("f")
                inner = (
                    f"{{ SELECT DISTINCT {parent}{keys} ?this WHERE {{ {{ SELECT (?this AS {parent}){keys} "
                    f"WHERE {{ {focus} }} }} {parent} {self.path(path)} ?this . }} }}"
                )
                found += self._shape_checks(child, inner, f"{keys} {parent}")
        self.active.pop()
        return found

    def _values(self, ctx: str, focus: str, path: Node, value: str) -> str:
        steps = self.path(path)
        if path_repeats(self.shapes, path):
            # Asked unbound, a repeated step would enumerate every node: per focus node.
            return f"{ctx} {focus} {steps} {value} ."
        # The path's pairs are read once, by scans, and joined to the focus nodes:
        # on the disk store Oxigraph otherwise looks the path up node by node
        # (44.6k spans' offsets: 0.72 s against 1.79 s; bench/README.md).
        return f"{ctx} {{ SELECT {focus} {value} WHERE {{ {self.pairs(focus, path, value)} }} }}"

    def _constraints(
        self, shape: Node, ctx: str, focus: str, path: Node | None, value: str, values: str
    ) -> list[Constraint]:
        """One violation pattern per constraint of ``shape``, from the table's components."""
        scope = Scope(self, shape, ctx, focus, path, value, values)
        return [constraint for component in CORE for constraint in component.compile(scope)]

    # ------------------------------------------------------------- helpers

    def _check_supported(self, shape: Node) -> None:
        for predicate in set(self.shapes.predicates(shape, None)):
            if predicate == RDF.type or not str(predicate).startswith(str(SH)):
                continue
            if predicate not in _SUPPORTED and predicate not in _DESCRIPTIVE:
                raise UnsupportedShape(f"shape {shape} uses {predicate}, which is not compiled")

    def _severity(self, shape: Node) -> URIRef:
        # SHACL 2.1.5: a shape's own sh:severity, else Violation (severity is not inherited).
        own = self.shapes.value(shape, SH.severity)
        return own if isinstance(own, URIRef) else SH.Violation

    def _deactivated(self, node: Node) -> bool:
        return any(true(flag) for flag in self.shapes.objects(node, SH.deactivated))


def compile_shapes(
    shapes: rdflib.Graph,
    *,
    subclasses: bool = False,
    write: Callable[[Node], Node] | None = None,
    shapes_graph: str | None = None,
) -> list[Check]:
    """Every check of every shape with a target, as SPARQL SELECTs over all focus nodes.

    Args:
        shapes: the shapes graph.
        subclasses: the data holds ``rdfs:subClassOf`` triples, so class
            membership must follow them (slower); otherwise a node's class is
            its ``rdf:type``.
        write: how the store holds a literal (see
            :class:`hopgate.shacl.lexical.Writer`); None when it holds literals
            as they are.
        shapes_graph: the IRI of the named graph holding the shapes in the
            store, which ``$shapesGraph`` names; None when the store has none
            (a query that uses ``$shapesGraph`` or ``$currentShape`` is then
            unsupported).

    Raises:
        UnsupportedShape: a shape uses a feature this compiler does not translate.
        IllFormedShape: a shape breaks a rule of SHACL 1.0 (the engine refuses it).
    """
    compiler = _Compiler(shapes, subclasses=subclasses, write=write, shapes_graph=shapes_graph)
    candidates = set(shapes.subjects(RDF.type, SH.NodeShape)) | set(
        shapes.subjects(RDF.type, SH.PropertyShape)
    )
    for target in (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf):
        candidates |= set(shapes.subjects(target, None))
    for cls in shapes.subjects(RDF.type, RDFS.Class):
        if any(str(p).startswith(str(SH)) for p in shapes.predicates(cls, None)):
            candidates.add(cls)
    checks: list[Check] = []
    for shape in sorted(candidates, key=str):
        checks += compiler.checks(shape)
    return checks


__all__ = ["Check", "compile_shapes", "path_sparql"]
