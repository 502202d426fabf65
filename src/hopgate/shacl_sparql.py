"""SHACL shapes compiled to SPARQL, so that validation runs inside the store.

pySHACL (and the Rust validators) evaluate a SHACL-SPARQL constraint once per
focus node, which on a store of 100k claims means hundreds of thousands of
queries. Here each constraint of each shape that has targets becomes **one**
SELECT over all its focus nodes, answered by the store's own engine:

- a core constraint (``sh:minCount``, ``sh:class``, ``sh:or`` ...) becomes a
  pattern that binds ``?this`` (and ``?value`` where the SHACL specification
  reports one) exactly for the focus nodes that violate it;
- a ``sh:sparql`` constraint keeps its own ``sh:select`` text, with ``$this``
  left free instead of pre-bound, and its focus nodes joined in.

Nested shapes (``sh:node``, ``sh:or``) compile to "does not conform" patterns
built from the same pieces, so a value node violates ``sh:node N`` exactly when
some constraint of ``N`` has a solution for it. Only the components hopgate's
shapes use (and their common siblings) are supported; :func:`compile_shapes`
raises :class:`UnsupportedShape` for anything else, and the caller falls back
to pySHACL, which stays the engine that defines correctness (the tests run
every fixture of the SHACL manifest through both).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import BNode, Literal, Node, URIRef

#: Constraint parameters this compiler understands; any other ``sh:`` parameter is unsupported.
_SUPPORTED = {
    SH.minCount,
    SH.maxCount,
    SH.datatype,
    SH["class"],
    SH["in"],
    SH.hasValue,
    SH.pattern,
    SH.flags,
    SH.equals,
    SH.lessThan,
    SH.node,
    SH["or"],
    SH.nodeKind,
    SH.sparql,
    SH.property,
}
#: Shape parameters that describe rather than constrain.
_DESCRIPTIVE = {
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
}
_NODE_KINDS = {
    SH.IRI: "isIRI({v})",
    SH.BlankNode: "isBlank({v})",
    SH.Literal: "isLiteral({v})",
    SH.BlankNodeOrIRI: "(isBlank({v}) || isIRI({v}))",
    SH.BlankNodeOrLiteral: "(isBlank({v}) || isLiteral({v}))",
    SH.IRIOrLiteral: "(isIRI({v}) || isLiteral({v}))",
}


class UnsupportedShape(ValueError):
    """A shape uses a SHACL feature this compiler does not translate."""


@dataclass(frozen=True)
class Check:
    """One compiled constraint: a SELECT whose solutions are validation results.

    Each solution binds ``?this`` (the focus node), optionally ``?value`` and,
    for SPARQL constraints, the variables its message template names.
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


@dataclass
class _Vars:
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def fresh(self, stem: str) -> str:
        return f"?_{stem}{next(self.counter)}"


def _messages(shapes: rdflib.Graph, node: Node) -> tuple[Literal, ...]:
    found = [m for m in shapes.objects(node, SH.message) if isinstance(m, Literal)]
    return tuple(sorted(found, key=str))


def _integer(node: Node) -> int:
    if not isinstance(node, Literal) or not isinstance(node.toPython(), int):
        raise UnsupportedShape(f"expected an integer count, got {node}")
    return int(node.toPython())


def _term(node: Node) -> str:
    if isinstance(node, URIRef):
        return f"<{node}>"
    if isinstance(node, Literal):
        return node.n3()
    raise UnsupportedShape(f"blank node {node} used as a constant")


def path_sparql(shapes: rdflib.Graph, path: Node) -> str:
    """A SHACL property path as a SPARQL 1.1 property path."""
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
    """Compiles the shapes of one shapes graph; ``subclasses`` says how to test class membership."""

    def __init__(self, shapes: rdflib.Graph, *, subclasses: bool) -> None:
        self.shapes = shapes
        self.vars = _Vars()
        # Without rdfs:subClassOf triples in the data, class membership is the type itself.
        self.type_path = f"<{RDF.type}>/<{RDFS.subClassOf}>*" if subclasses else "a"

    # ----------------------------------------------------------- entry points

    def targets(self, shape: Node, focus: str) -> list[str]:
        patterns = []
        for cls in self.shapes.objects(shape, SH.targetClass):
            patterns.append(f"{focus} {self.type_path} {_term(cls)} .")
        if (shape, RDF.type, RDFS.Class) in self.shapes:
            patterns.append(f"{focus} {self.type_path} {_term(shape)} .")
        for node in self.shapes.objects(shape, SH.targetNode):
            patterns.append(f"VALUES {focus} {{ {_term(node)} }}")
        for predicate in self.shapes.objects(shape, SH.targetSubjectsOf):
            patterns.append(f"{focus} {_term(predicate)} [] .")
        for predicate in self.shapes.objects(shape, SH.targetObjectsOf):
            patterns.append(f"[] {_term(predicate)} {focus} .")
        return patterns

    def checks(self, shape: Node) -> list[Check]:
        """The checks of a shape with targets: one per constraint, each with its own query."""
        found: list[Check] = []
        targets = self.targets(shape, "?this")
        if not targets or self._deactivated(shape):
            return found
        focus = "{ " + " } UNION { ".join(targets) + " }" if len(targets) > 1 else targets[0]
        found += self._shape_checks(shape, focus)
        return found

    # ------------------------------------------------------------ reporting

    def _shape_checks(self, shape: Node, focus: str) -> list[Check]:
        self._check_supported(shape)
        severity = self._severity(shape)
        messages = _messages(self.shapes, shape)
        path = self.shapes.value(shape, SH.path)
        found: list[Check] = []
        if path is not None:
            value, values = "?value", self._values(focus, "?this", path, "?value")
        else:
            value, values = "?this", focus
        for component, pattern, reports_value in self._constraints(
            shape, focus, "?this", path, value, values
        ):
            projection = "?this ?value" if reports_value else "?this"
            query = f"SELECT DISTINCT {projection} WHERE {{ {pattern} }}"
            if reports_value and value == "?this":
                query = f"SELECT DISTINCT ?this (?this AS ?value) WHERE {{ {pattern} }}"
            found.append(Check(query, shape, component, severity, messages, path=path))
        for constraint in self.shapes.objects(shape, SH.sparql):
            if self._deactivated(constraint):
                continue
            found.append(self._sparql_check(shape, constraint, focus, severity, path))
        for child in self.shapes.objects(shape, SH.property):
            if self._deactivated(child):
                continue
            found += self._shape_checks(child, focus)
        return found

    def _sparql_check(
        self, shape: Node, constraint: Node, focus: str, severity: URIRef, path: Node | None
    ) -> Check:
        select = self.shapes.value(constraint, SH.select)
        if select is None:
            raise UnsupportedShape(f"SPARQL constraint {constraint} has no sh:select")
        text = str(select)
        if path is not None and "$PATH" in text:
            text = text.replace("$PATH", path_sparql(self.shapes, path))
        text = text.replace("$this", "?this")
        body = _where_body(text)
        projection = _projection(text)
        query = f"SELECT DISTINCT {projection} WHERE {{ {focus} {{ {body} }} }}"
        own = self.shapes.value(constraint, SH.severity)
        return Check(
            query,
            shape,
            SH.SPARQLConstraintComponent,
            own if isinstance(own, URIRef) else severity,
            _messages(self.shapes, constraint),
            path=path,
            constraint=constraint,
            prologue=self._prefixes(constraint),
        )

    def _prefixes(self, constraint: Node) -> str:
        lines = []
        for ontology in self.shapes.objects(constraint, SH.prefixes):
            for declaration in self.shapes.objects(ontology, SH.declare):
                prefix = self.shapes.value(declaration, SH.prefix)
                namespace = self.shapes.value(declaration, SH.namespace)
                lines.append(f"PREFIX {prefix}: <{namespace}>\n")
        return "".join(sorted(set(lines)))

    # --------------------------------------------------- violation patterns

    def _values(self, ctx: str, focus: str, path: Node, value: str) -> str:
        return f"{ctx} {focus} {path_sparql(self.shapes, path)} {value} ."

    def _constraints(
        self, shape: Node, ctx: str, focus: str, path: Node | None, value: str, values: str
    ) -> Iterator[tuple[URIRef, str, bool]]:
        """Yield (component, pattern, reports value) per constraint of ``shape``.

        ``ctx`` binds ``focus``; ``values`` binds ``focus`` and each value node
        ``value`` (the focus itself for a node shape). Each pattern has a
        solution exactly for the violations of that constraint.
        """
        g = self.shapes
        p = None if path is None else path_sparql(g, path)
        for minimum_node in g.objects(shape, SH.minCount):
            minimum = _integer(minimum_node)
            assert p is not None, "sh:minCount needs a path"
            other = self.vars.fresh("v")
            if minimum == 1:
                # The common case as an anti-join: the right side is evaluated
                # once. (Oxigraph plans a FILTER NOT EXISTS over a path without
                # the outer bindings: minutes at 10k claims.)
                pattern = f"{ctx} MINUS {{ {focus} {p} {other} }}"
            else:
                values_of = f"OPTIONAL {{ {focus} {p} {other} }}"
                pattern = self._counted(ctx, focus, values_of, other, f"< {minimum}")
            yield SH.MinCountConstraintComponent, pattern, False
        for maximum_node in g.objects(shape, SH.maxCount):
            maximum = _integer(maximum_node)
            assert p is not None, "sh:maxCount needs a path"
            other = self.vars.fresh("v")
            if maximum == 0:
                pattern = f"{ctx} {focus} {p} {other} ."
            elif maximum == 1:
                second = self.vars.fresh("v")
                pattern = (
                    f"{ctx} {focus} {p} {other} . {focus} {p} {second} . "
                    f"FILTER(!sameTerm({other}, {second}))"
                )
            else:
                values_of = f"{focus} {p} {other} ."
                pattern = self._counted(ctx, focus, values_of, other, f"> {maximum}")
            yield SH.MaxCountConstraintComponent, pattern, False
        for datatype in g.objects(shape, SH.datatype):
            yield (
                SH.DatatypeConstraintComponent,
                f"{values} FILTER(!isLiteral({value}) || datatype({value}) != {_term(datatype)})",
                True,
            )
        for cls in g.objects(shape, SH["class"]):
            yield (
                SH.ClassConstraintComponent,
                f"{values} MINUS {{ {value} {self.type_path} {_term(cls)} }}",
                True,
            )
        for kind in g.objects(shape, SH.nodeKind):
            if kind not in _NODE_KINDS:
                raise UnsupportedShape(f"unknown sh:nodeKind {kind}")
            test = _NODE_KINDS[kind].format(v=value)  # type: ignore[index]
            yield SH.NodeKindConstraintComponent, f"{values} FILTER(!{test})", True
        for members in g.objects(shape, SH["in"]):
            allowed = " || ".join(f"sameTerm({value}, {_term(m)})" for m in Collection(g, members))
            yield SH.InConstraintComponent, f"{values} FILTER(!({allowed or 'false'}))", True
        for expression in g.objects(shape, SH.pattern):
            flags = g.value(shape, SH.flags)
            regex = f"regex(str({value}), {Literal(str(expression)).n3()}" + (
                f", {Literal(str(flags)).n3()})" if flags is not None else ")"
            )
            yield (
                SH.PatternConstraintComponent,
                f"{values} FILTER(isBlank({value}) || !{regex})",
                True,
            )
        for wanted in g.objects(shape, SH.hasValue):
            if p is None:
                yield (
                    SH.HasValueConstraintComponent,
                    f"{ctx} FILTER(!sameTerm({focus}, {_term(wanted)}))",
                    False,
                )
            else:
                yield (
                    SH.HasValueConstraintComponent,
                    f"{ctx} MINUS {{ {focus} {p} {_term(wanted)} }}",
                    False,
                )
        for other_property in g.objects(shape, SH.equals):
            if p is None:
                raise UnsupportedShape("sh:equals on a node shape")
            yield (
                SH.EqualsConstraintComponent,
                f"{{ {values} MINUS {{ {focus} {_term(other_property)} {value} }} }} UNION "
                f"{{ {ctx} {focus} {_term(other_property)} {value} "
                f"MINUS {{ {focus} {p} {value} }} }}",
                True,
            )
        for other_property in g.objects(shape, SH.lessThan):
            other = self.vars.fresh("l")
            yield (
                SH.LessThanConstraintComponent,
                f"{values} {focus} {_term(other_property)} {other} "
                f"FILTER(!COALESCE({value} < {other}, false))",
                True,
            )
        # Nested shapes: the value nodes that fail them are computed as DISTINCT
        # sets and joined back to the context, so that Oxigraph hash-joins
        # small sets instead of nesting loops over unions (25 s -> 1 s at 10k).
        for nested in g.objects(shape, SH.node):
            failing = self._not_conforming(nested, values, value)
            yield (
                SH.NodeConstraintComponent,
                f"{values} {{ SELECT DISTINCT {value} WHERE {{ {failing} }} }}",
                True,
            )
        for alternatives in g.objects(shape, SH["or"]):
            parts = [self._not_conforming(a, values, value) for a in Collection(g, alternatives)]
            # Every alternative fails: the value is in each alternative's failing set.
            failing = " ".join(
                f"{{ SELECT DISTINCT {value} WHERE {{ {part} }} }}" for part in parts
            )
            yield SH.OrConstraintComponent, f"{values} {failing}", True

    def _counted(self, ctx: str, focus: str, values_of: str, value: str, test: str) -> str:
        """A pattern for the focus nodes whose count of distinct values passes ``test``."""
        count = self.vars.fresh("n")
        # The context is joined again outside the count: the subquery projects
        # only the focus, and the caller may need the rest of the context.
        return (
            f"{ctx} {{ SELECT {focus} (COUNT(DISTINCT {value}) AS {count}) WHERE {{ {ctx} "
            f"{values_of} }} GROUP BY {focus} }} FILTER({count} {test})"
        )

    def _not_conforming(self, shape: Node, ctx: str, focus: str) -> str:
        """A pattern with a solution for each ``focus`` bound by ``ctx`` that violates ``shape``."""
        self._check_supported(shape)
        branches = []
        path = self.shapes.value(shape, SH.path)
        if path is not None:
            value = self.vars.fresh("pv")
            values = self._values(ctx, focus, path, value)
        else:
            value, values = focus, ctx
        for _, pattern, _ in self._constraints(shape, ctx, focus, path, value, values):
            branches.append(pattern)
        for constraint in self.shapes.objects(shape, SH.sparql):
            raise UnsupportedShape(f"nested SPARQL constraint {constraint}")
        for child in self.shapes.objects(shape, SH.property):
            branches.append(self._not_conforming(child, ctx, focus))
        if not branches:
            return f"{ctx} FILTER(false)"
        if len(branches) == 1:
            return branches[0]
        return "{ " + " } UNION { ".join(branches) + " }"

    # ------------------------------------------------------------- helpers

    def _check_supported(self, shape: Node) -> None:
        for predicate in set(self.shapes.predicates(shape, None)):
            if predicate == RDF.type or not str(predicate).startswith(str(SH)):
                continue
            if predicate not in _SUPPORTED and predicate not in _DESCRIPTIVE:
                raise UnsupportedShape(f"shape {shape} uses {predicate}, which is not compiled")

    def _severity(self, shape: Node) -> URIRef:
        # SHACL: a shape's own sh:severity, else Violation (severity is not inherited).
        own = self.shapes.value(shape, SH.severity)
        return own if isinstance(own, URIRef) else SH.Violation

    def _deactivated(self, node: Node) -> bool:
        return bool((node, SH.deactivated, Literal(True)) in self.shapes)


_SELECT = re.compile(r"SELECT\s+(DISTINCT\s+|REDUCED\s+)?(?P<vars>.*?)\s*WHERE", re.I | re.S)


def _projection(text: str) -> str:
    match = _SELECT.search(text)
    if match is None:
        raise UnsupportedShape("sh:select without SELECT ... WHERE")
    return match["vars"]


def _where_body(text: str) -> str:
    match = _SELECT.search(text)
    assert match is not None
    start = text.index("{", match.end())
    end = text.rindex("}")
    return text[start + 1 : end]


def compile_shapes(shapes: rdflib.Graph, *, subclasses: bool = False) -> list[Check]:
    """Every check of every shape with a target, as SPARQL SELECTs over all focus nodes.

    Args:
        shapes: the shapes graph.
        subclasses: the data holds ``rdfs:subClassOf`` triples, so class
            membership must follow them (slower); otherwise a node's class is
            its ``rdf:type``.

    Raises:
        UnsupportedShape: a shape uses a feature this compiler does not translate.
    """
    compiler = _Compiler(shapes, subclasses=subclasses)
    candidates = set(shapes.subjects(RDF.type, SH.NodeShape)) | set(
        shapes.subjects(RDF.type, SH.PropertyShape)
    )
    for target in (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf):
        candidates |= set(shapes.subjects(target, None))
    checks: list[Check] = []
    for shape in sorted(candidates, key=str):
        checks += compiler.checks(shape)
    return checks


__all__ = ["Check", "UnsupportedShape", "compile_shapes", "path_sparql"]
