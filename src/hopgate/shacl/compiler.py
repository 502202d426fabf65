"""SHACL shapes compiled to SPARQL, so that validation runs inside the store.

pySHACL (and the Rust validators) evaluate a SHACL-SPARQL constraint once per
focus node, which on a store of 100k claims means hundreds of thousands of
queries. Here each constraint of each shape that has targets becomes **one**
SELECT over all its focus nodes, answered by the store's own engine:

- a core constraint (``sh:minCount``, ``sh:class``, ``sh:or`` ...) becomes a
  pattern that binds ``?this`` (and ``?value`` where the SHACL specification
  reports one) exactly for the focus nodes that violate it;
- a ``sh:sparql`` constraint keeps its own ``sh:select`` text, with the focus
  nodes joined in as the first pattern of its top group. That is pre-binding
  only where every use of ``$this`` sees it bound: :mod:`hopgate.shacl.prebind`
  checks this on the query's algebra, refuses what SHACL 1.0 5.2.1 forbids
  (:class:`~hopgate.errors.IllFormedShape`) and declines the rest.

- a SPARQL-based constraint component (``sh:parameter`` and validators) is
  compiled per shape and combination of parameter values: a SELECT validator
  like a ``sh:sparql`` constraint, with the parameters joined in as constants;
  an ASK validator as "the value nodes minus those for which its pattern has
  a solution".

Nested shapes (``sh:node``, ``sh:or``, ``sh:and``, ``sh:not``, ``sh:xone``,
qualified shapes, property shapes of property shapes) compile to "does not
conform" patterns built from the same pieces, so a value node violates
``sh:node N`` exactly when some constraint of ``N`` has a solution for it.

The compiler never skips what it does not understand: any other ``sh:``
parameter, a recursive shape, a component on a nested shape, or a query it
cannot prove joinable raises :class:`UnsupportedShape`, and the caller falls
back to pySHACL. The W3C SHACL test suite (``tests/test_w3c_shacl.py``) runs
through both.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pyoxigraph as ox
import rdflib
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH, XSD
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.errors import IllFormedShape, UnsupportedShape
from hopgate.shacl.lexical import datatype_expr, lang_expr, value_expr, well_formed_expr
from hopgate.shacl.prebind import (
    FOCUS_MARK,
    NotJoinable,
    check_joinable,
    focus_mark,
    mark_focus,
)

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
    SH.disjoint,
    SH.lessThan,
    SH.lessThanOrEquals,
    SH.minInclusive,
    SH.maxInclusive,
    SH.minExclusive,
    SH.maxExclusive,
    SH.minLength,
    SH.maxLength,
    SH.languageIn,
    SH.uniqueLang,
    SH.node,
    SH["or"],
    SH["and"],
    SH["not"],
    SH.xone,
    SH.closed,
    SH.ignoredProperties,
    SH.qualifiedValueShape,
    SH.qualifiedMinCount,
    SH.qualifiedMaxCount,
    SH.qualifiedValueShapesDisjoint,
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
    # Parameters of a SPARQL-based constraint, not of a shape: they matter only
    # where the node is a value of sh:sparql (W3C sparql/node/sparql-002).
    SH.prefixes,
    SH.select,
}
_NODE_KINDS = {
    SH.IRI: "isIRI({v})",
    SH.BlankNode: "isBlank({v})",
    SH.Literal: "isLiteral({v})",
    SH.BlankNodeOrIRI: "(isBlank({v}) || isIRI({v}))",
    SH.BlankNodeOrLiteral: "(isBlank({v}) || isLiteral({v}))",
    SH.IRIOrLiteral: "(isIRI({v}) || isLiteral({v}))",
}
_RANGES = {
    SH.minInclusive: (SH.MinInclusiveConstraintComponent, ">="),
    SH.maxInclusive: (SH.MaxInclusiveConstraintComponent, "<="),
    SH.minExclusive: (SH.MinExclusiveConstraintComponent, ">"),
    SH.maxExclusive: (SH.MaxExclusiveConstraintComponent, "<"),
}


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


@dataclass
class _Vars:
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def fresh(self, stem: str) -> str:
        return f"?_{stem}{next(self.counter)}"


@dataclass(frozen=True)
class _Constraint:
    """A violation pattern: ``projection`` names the variables of one result."""

    component: URIRef
    pattern: str
    projection: str
    distinct: bool = True


@dataclass(frozen=True)
class _Component:
    """A SPARQL-based constraint component: parameters (path, variable, optional), validators."""

    node: URIRef
    parameters: tuple[tuple[URIRef, str, bool], ...]
    validator: Node | None
    node_validator: Node | None
    property_validator: Node | None


def _messages(shapes: rdflib.Graph, node: Node) -> tuple[Literal, ...]:
    found = [m for m in shapes.objects(node, SH.message) if isinstance(m, Literal)]
    return tuple(sorted(found, key=str))


def _integer(node: Node) -> int:
    if not isinstance(node, Literal) or not isinstance(node.toPython(), int):
        raise UnsupportedShape(f"expected an integer, got {node}")
    return int(node.toPython())


def _true(node: Node | None) -> bool:
    # SHACL names the value true; "1"^^xsd:boolean does not switch a parameter on (W3C uniqueLang-002).
    return isinstance(node, Literal) and node.datatype == XSD.boolean and str(node) == "true"


@functools.cache
def _probe() -> ox.Store:
    """An empty store that compiles regular expressions as the store engine will."""
    return ox.Store()


@functools.lru_cache(maxsize=1024)
def _check_regex(pattern: str, flags: str | None) -> None:
    """A ``sh:pattern`` the store's engine compiles, else :class:`UnsupportedShape`.

    Oxigraph's REGEX (Rust's ``regex`` crate: finite automata, time linear in
    the text, a bounded program size) leaves a pattern it cannot compile
    unbound, which a FILTER reads as no violation: the shape would conform
    unchecked. Such a pattern (a back-reference, a look-around, one too large)
    goes to pySHACL instead.
    """
    arguments = Literal(pattern).n3() + ("" if flags is None else f", {Literal(flags).n3()}")
    try:
        solutions = _probe().query(f'SELECT (REGEX("", {arguments}) AS ?ok) {{}}')
        compiled = [row[0] for row in solutions]  # type: ignore[union-attr]
    except SyntaxError:
        compiled = [None]
    if compiled[0] is None:
        raise UnsupportedShape(
            f"sh:pattern {pattern!r}{'' if flags is None else f' (flags {flags!r})'}: the "
            "store's regular expression engine cannot compile it"
        )


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
        self.vars = _Vars()
        # Without rdfs:subClassOf triples in the data, class membership is the type itself.
        self.type_path = f"<{RDF.type}>/<{RDFS.subClassOf}>*" if subclasses else "a"
        self.write = write
        self.written = write is not None
        self.active: list[Node] = []
        self.components = self._components()

    def term(self, node: Node) -> str:
        if isinstance(node, URIRef):
            return f"<{node}>"
        if isinstance(node, Literal):
            written = self.write(node) if self.write is not None else node
            assert isinstance(written, Literal)
            return written.n3()
        raise UnsupportedShape(f"blank node {node} used as a constant")

    # ----------------------------------------------------------- entry points

    def targets(self, shape: Node, focus: str) -> list[str]:
        patterns = []
        for cls in self.shapes.objects(shape, SH.targetClass):
            patterns.append(f"{focus} {self.type_path} {self.term(cls)} .")
        if (shape, RDF.type, RDFS.Class) in self.shapes:
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

    # ------------------------------------------------------------ reporting

    def _shape_checks(self, shape: Node, focus: str, keys: str = "") -> list[Check]:
        """The checks of ``shape`` over the focus nodes ``focus`` binds to ``?this``.

        ``keys`` are further variables of ``focus`` that keep results apart: a
        property shape of a property shape reports once per (outer focus, value).
        """
        if shape in self.active:
            raise UnsupportedShape(f"recursive shape {shape}")
        self._check_supported(shape)
        severity = self._severity(shape)
        messages = _messages(self.shapes, shape)
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
            found.append(Check(query, shape, constraint.component, severity, messages, path=path))
        found += self._component_checks(shape, focus, path, severity, keys)
        for sparql in self.shapes.objects(shape, SH.sparql):
            if self._deactivated(sparql):
                continue
            found.append(self._sparql_check(shape, sparql, focus, severity, path))
        for child in self.shapes.objects(shape, SH.property):
            if self._deactivated(child):
                continue
            if path is None:
                found += self._shape_checks(child, focus, keys)
            else:
                # A property shape of a property shape: its focus nodes are the values.
                parent = self.vars.fresh("f")
                inner = (
                    f"{{ SELECT DISTINCT {parent}{keys} ?this WHERE {{ {{ SELECT (?this AS {parent}){keys} "
                    f"WHERE {{ {focus} }} }} {parent} {path_sparql(self.shapes, path)} ?this . }} }}"
                )
                found += self._shape_checks(child, inner, f"{keys} {parent}")
        self.active.pop()
        return found

    def _sparql_check(
        self, shape: Node, constraint: Node, focus: str, severity: URIRef, path: Node | None
    ) -> Check:
        if self.written:
            raise UnsupportedShape(
                "SPARQL constraints on data whose literals the store would rewrite"
            )
        selects = list(self.shapes.objects(constraint, SH.select))
        if len(selects) != 1:
            raise IllFormedShape(f"SPARQL constraint {constraint} needs exactly one sh:select")
        text = str(selects[0])
        if "$PATH" in text:
            if path is None:
                raise IllFormedShape(f"{constraint} uses $PATH outside a property shape")
            text = text.replace("$PATH", path_sparql(self.shapes, path))
        prefixes = self._prefixes(constraint)
        marked = mark_focus(text)
        try:
            projected = check_joinable(marked, prefixes)
        except NotJoinable as exc:
            raise UnsupportedShape(f"{constraint}: {exc}") from None
        if "this" not in projected:
            raise UnsupportedShape(f"{constraint}: the query does not return $this")
        if "failure" in projected:
            # SHACL 5.3.2: a solution with ?failure true is a failure, not a result.
            raise UnsupportedShape(f"{constraint}: the query reports ?failure")
        if re.search(r"[?$](shapesGraph|currentShape)\b", text):
            if self.shapes_graph is None or not isinstance(shape, URIRef):
                raise UnsupportedShape(f"{constraint}: $shapesGraph or $currentShape")
            focus += f" VALUES (?shapesGraph ?currentShape) {{ (<{self.shapes_graph}> {self.term(shape)}) }}"
        query = marked.replace(FOCUS_MARK, focus, 1)
        own = self.shapes.value(constraint, SH.severity)
        prologue = "".join(f"PREFIX {p}: <{n}>\n" for p, n in sorted(prefixes.items()))
        return Check(
            query,
            shape,
            SH.SPARQLConstraintComponent,
            own if isinstance(own, URIRef) else severity,
            _messages(self.shapes, constraint) or _messages(self.shapes, shape),
            path=path,
            constraint=constraint,
            prologue=prologue,
            value_is_focus=path is None,
        )

    def _prefixes(self, constraint: Node) -> dict[str, str]:
        found: dict[str, str] = {}
        seen: set[Node] = set()
        pending = list(self.shapes.objects(constraint, SH.prefixes))
        while pending:
            ontology = pending.pop()
            if ontology in seen:
                continue
            seen.add(ontology)
            pending += self.shapes.objects(ontology, OWL.imports)
            for declaration in self.shapes.objects(ontology, SH.declare):
                prefix = self.shapes.value(declaration, SH.prefix)
                namespace = self.shapes.value(declaration, SH.namespace)
                if prefix is None or namespace is None:
                    raise IllFormedShape(f"prefix declaration {declaration} is incomplete")
                if found.get(str(prefix), str(namespace)) != str(namespace):
                    raise IllFormedShape(f"prefix {prefix} is declared with two namespaces")
                found[str(prefix)] = str(namespace)
        return found

    # ------------------------------------------- SPARQL-based components

    def _components(self) -> list[_Component]:
        """The SPARQL-based constraint components declared in the shapes graph."""
        g = self.shapes
        declared = {
            c
            for predicate in (SH.parameter, SH.validator, SH.nodeValidator, SH.propertyValidator)
            for c in g.subjects(predicate, None)
        }
        found = []
        for node in sorted(declared, key=str):
            if not isinstance(node, URIRef):
                raise UnsupportedShape(f"constraint component {node} is a blank node")
            parameters = []
            for parameter in g.objects(node, SH.parameter):
                path = g.value(parameter, SH.path)
                if not isinstance(path, URIRef):
                    raise IllFormedShape(f"parameter {parameter} of {node} has no IRI sh:path")
                name = re.split(r"[#/]", str(path))[-1]
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in (
                    "this",
                    "value",
                    "shapesGraph",
                    "currentShape",
                    "PATH",
                ):
                    raise UnsupportedShape(f"parameter name {name!r} of {node}")
                parameters.append((path, name, _true(g.value(parameter, SH.optional))))
            validators = []
            for predicate in (SH.validator, SH.nodeValidator, SH.propertyValidator):
                values = list(g.objects(node, predicate))
                if len(values) > 1:
                    raise UnsupportedShape(f"{node} has more than one {predicate}")
                validators.append(values[0] if values else None)
            if not any(not optional for _, _, optional in parameters):
                raise UnsupportedShape(f"{node} has no mandatory parameter")
            found.append(_Component(node, tuple(sorted(parameters)), *validators))
        return found

    def _applicable(self, shape: Node) -> list[_Component]:
        """The components whose mandatory parameters ``shape`` all has."""
        return [
            c
            for c in self.components
            if all(
                self.shapes.value(shape, path) is not None
                for path, _, optional in c.parameters
                if not optional
            )
        ]

    def _component_checks(
        self, shape: Node, focus: str, path: Node | None, severity: URIRef, keys: str
    ) -> list[Check]:
        found: list[Check] = []
        for component in self._applicable(shape):
            if keys or self.written:
                raise UnsupportedShape(f"{component.node} on a nested shape or written literals")
            validator = (
                component.property_validator if path is not None else component.node_validator
            ) or component.validator
            if validator is None:
                raise UnsupportedShape(f"{component.node} has no validator for {shape}")
            # An optional parameter without a value stays a free variable (not pre-bound).
            choices: list[list[Node | None]] = [
                [*sorted(self.shapes.objects(shape, p), key=str)] or [None]
                for p, _, _ in component.parameters
            ]
            for combination in itertools.product(*choices):
                bound = {
                    name: term
                    for (_, name, _), term in zip(component.parameters, combination, strict=True)
                    if term is not None
                }
                found.append(
                    self._validator_check(shape, component, validator, focus, path, severity, bound)
                )
        return found

    def _validator_check(
        self,
        shape: Node,
        component: _Component,
        validator: Node,
        focus: str,
        path: Node | None,
        severity: URIRef,
        bound: dict[str, Node],
    ) -> Check:
        """One constraint of a SPARQL-based component, its parameters joined in as constants."""
        g = self.shapes
        names = sorted(bound)
        constants = (
            f"VALUES ({' '.join('?' + n for n in names)}) "
            f"{{ ({' '.join(self.term(bound[n]) for n in names)}) }}"
            if names
            else ""
        )
        messages = tuple(
            Literal(
                re.sub(
                    r"\{[?$](\w+)\}",
                    lambda m: str(bound[m[1]]) if m[1] in bound else m[0],
                    str(message),
                ),
                lang=message.language,
            )
            for message in (
                _messages(g, validator) or _messages(g, component.node) or _messages(g, shape)
            )
        )
        prefixes = self._prefixes(validator)
        prologue = "".join(f"PREFIX {p}: <{n}>\n" for p, n in sorted(prefixes.items()))
        select, ask = g.value(validator, SH.select), g.value(validator, SH.ask)
        if (select is None) == (ask is None):
            raise IllFormedShape(f"validator {validator} needs one sh:select or one sh:ask")
        text = str(select if select is not None else ask)
        if "$PATH" in text:
            if path is None:
                raise IllFormedShape(f"{validator} uses $PATH outside a property shape")
            text = text.replace("$PATH", path_sparql(g, path))
        if select is not None:
            marked = mark_focus(text, names)
            try:
                projected = check_joinable(marked, prefixes, names)
            except NotJoinable as exc:
                raise UnsupportedShape(f"{validator}: {exc}") from None
            if "this" not in projected or "failure" in projected:
                raise UnsupportedShape(f"{validator}: the query does not return $this, or ?failure")
            query = marked.replace(focus_mark(names), f"{focus} {constants}", 1)
            return Check(
                query,
                shape,
                component.node,
                severity,
                messages,
                path=path,
                prologue=prologue,
                value_is_focus=path is None,
            )
        # An ASK validator: a value node violates when the ASK is false for it.
        start = re.search(r"\bASK\b", text, re.I)
        if start is None or re.search(r"\b(PREFIX|BASE)\b", text[: start.start()], re.I):
            raise UnsupportedShape(f"{validator}: not a plain ASK query")
        body = text[text.index("{", start.end()) + 1 : text.rindex("}")]
        extra = [*names, "value"]
        marked = mark_focus(f"SELECT ?this ?value WHERE {{ {body} }}", extra)
        try:
            check_joinable(marked, prefixes, extra)
        except NotJoinable as exc:
            raise UnsupportedShape(f"{validator}: {exc}") from None
        if path is not None:
            values = f"{focus} ?this {path_sparql(g, path)} ?value ."
        else:
            values = f"{focus} BIND(?this AS ?value)"
        holds = marked.replace(focus_mark(extra), f"{values} {constants}", 1)
        holds = holds.replace("SELECT ?this ?value", "SELECT DISTINCT ?this ?value", 1)
        query = f"SELECT DISTINCT ?this ?value WHERE {{ {values} MINUS {{ {holds} }} }}"
        return Check(query, shape, component.node, severity, messages, path=path, prologue=prologue)

    # --------------------------------------------------- violation patterns

    def _values(self, ctx: str, focus: str, path: Node, value: str) -> str:
        return f"{ctx} {focus} {path_sparql(self.shapes, path)} {value} ."

    def _constraints(
        self, shape: Node, ctx: str, focus: str, path: Node | None, value: str, values: str
    ) -> Iterator[_Constraint]:
        """Yield one :class:`_Constraint` per constraint of ``shape``.

        ``ctx`` binds ``focus``; ``values`` binds ``focus`` and each value node
        ``value`` (the focus itself for a node shape). Each pattern has a
        solution exactly for the violations of that constraint.
        """
        g = self.shapes
        written = self.written
        p = None if path is None else path_sparql(g, path)
        of_value = f"{focus} ?value" if value == "?value" else f"{focus} ({value} AS ?value)"
        just_focus = focus

        def needs_path(parameter: URIRef) -> str:
            if p is None:
                raise IllFormedShape(f"{parameter} on node shape {shape}")
            return p

        for minimum_node in g.objects(shape, SH.minCount):
            minimum = _integer(minimum_node)
            other = self.vars.fresh("v")
            steps = needs_path(SH.minCount)
            if minimum == 1:
                # The common case as an anti-join: the right side is evaluated
                # once. (Oxigraph plans a FILTER NOT EXISTS over a path without
                # the outer bindings, re-evaluating it per focus node.)
                pattern = f"{ctx} MINUS {{ {focus} {steps} {other} }}"
            elif minimum == 0:
                pattern = f"{ctx} FILTER(false)"
            else:
                values_of = f"OPTIONAL {{ {focus} {steps} {other} }}"
                pattern = self._counted(ctx, focus, values_of, other, f"< {minimum}")
            yield _Constraint(SH.MinCountConstraintComponent, pattern, just_focus)
        for maximum_node in g.objects(shape, SH.maxCount):
            maximum = _integer(maximum_node)
            other = self.vars.fresh("v")
            steps = needs_path(SH.maxCount)
            if maximum == 0:
                pattern = f"{ctx} {focus} {steps} {other} ."
            elif maximum == 1:
                second = self.vars.fresh("v")
                pattern = (
                    f"{ctx} {focus} {steps} {other} . {focus} {steps} {second} . "
                    f"FILTER(!sameTerm({other}, {second}))"
                )
            else:
                values_of = f"{focus} {steps} {other} ."
                pattern = self._counted(ctx, focus, values_of, other, f"> {maximum}")
            yield _Constraint(SH.MaxCountConstraintComponent, pattern, just_focus)
        for datatype in g.objects(shape, SH.datatype):
            if not isinstance(datatype, URIRef):
                raise IllFormedShape(f"sh:datatype {datatype} is not an IRI")
            test = f"{datatype_expr(value, written=written)} != <{datatype}>"
            lexical = well_formed_expr(str(datatype), value)
            if lexical is not None:
                test += f" || !{lexical}"
            yield _Constraint(
                SH.DatatypeConstraintComponent,
                f"{values} FILTER(!isLiteral({value}) || {test})",
                of_value,
            )
        for cls in g.objects(shape, SH["class"]):
            yield _Constraint(
                SH.ClassConstraintComponent,
                f"{values} MINUS {{ {value} {self.type_path} {self.term(cls)} }}",
                of_value,
            )
        for kind in g.objects(shape, SH.nodeKind):
            if kind not in _NODE_KINDS:
                raise IllFormedShape(f"unknown sh:nodeKind {kind}")
            test = _NODE_KINDS[kind].format(v=value)  # type: ignore[index]
            yield _Constraint(SH.NodeKindConstraintComponent, f"{values} FILTER(!{test})", of_value)
        for members in g.objects(shape, SH["in"]):
            # The allowed terms as one VALUES table, removed from the value nodes: MINUS
            # compares terms as sameTerm does. (A chain of 10,000 sameTerm || ... overflowed
            # Oxigraph's stack, and its cost grew with the square of its length.)
            allowed = " ".join(sorted({self.term(m) for m in Collection(g, members)}))
            yield _Constraint(
                SH.InConstraintComponent,
                f"{values} MINUS {{ VALUES {value} {{ {allowed} }} }}",
                of_value,
            )
        for expression in g.objects(shape, SH.pattern):
            flags = g.value(shape, SH.flags)
            _check_regex(str(expression), None if flags is None else str(flags))
            regex = f"regex(str({value}), {Literal(str(expression)).n3()}" + (
                f", {Literal(str(flags)).n3()})" if flags is not None else ")"
            )
            yield _Constraint(
                SH.PatternConstraintComponent,
                f"{values} FILTER(isBlank({value}) || !{regex})",
                of_value,
            )
        for parameter, component, test in (
            (SH.minLength, SH.MinLengthConstraintComponent, "<"),
            (SH.maxLength, SH.MaxLengthConstraintComponent, ">"),
        ):
            for bound in g.objects(shape, parameter):
                limit = _integer(bound)
                yield _Constraint(
                    component,
                    f"{values} FILTER(isBlank({value}) || STRLEN(STR({value})) {test} {limit})",
                    of_value,
                )
        for parameter, (component, operator) in _RANGES.items():
            for bound in g.objects(shape, parameter):
                if not isinstance(bound, Literal):
                    raise IllFormedShape(f"{parameter} {bound} is not a literal")
                compared = value_expr(value, written=written)
                yield _Constraint(
                    component,
                    f"{values} FILTER(!COALESCE({compared} {operator} {bound.n3()}, false))",
                    of_value,
                )
        for ranges in g.objects(shape, SH.languageIn):
            tags = sorted({Literal(str(t)).n3() for t in Collection(g, ranges)})
            lang, tag = lang_expr(value, written=written), self.vars.fresh("r")
            # The ranges as a VALUES table, not a chain of || (see sh:in).
            yield _Constraint(
                SH.LanguageInConstraintComponent,
                f"{values} FILTER(!isLiteral({value}) || NOT EXISTS {{ VALUES {tag} "
                f"{{ {' '.join(tags)} }} FILTER(langMatches({lang}, {tag})) }})",
                of_value,
            )
        for unique in g.objects(shape, SH.uniqueLang):
            if not _true(unique):
                continue
            steps = needs_path(SH.uniqueLang)
            other, tag = self.vars.fresh("u"), self.vars.fresh("t")
            lang = lang_expr(value, written=written)
            yield _Constraint(
                SH.UniqueLangConstraintComponent,
                f"{values} {focus} {steps} {other} . "
                f"FILTER(!sameTerm({value}, {other}) && {lang} != '' && "
                f"LCASE({lang}) = LCASE({lang_expr(other, written=written)})) "
                f"BIND(LCASE({lang}) AS {tag})",
                f"{focus} {tag}",
            )
        for wanted in g.objects(shape, SH.hasValue):
            if p is None:
                pattern = f"{ctx} FILTER(!sameTerm({focus}, {self.term(wanted)}))"
            else:
                pattern = f"{ctx} MINUS {{ {focus} {p} {self.term(wanted)} }}"
            yield _Constraint(SH.HasValueConstraintComponent, pattern, just_focus)
        for other_property in g.objects(shape, SH.equals):
            other = self.term(other_property)
            extra = self.vars.fresh("e")
            # A value node that is not a value of the other property ...
            yield _Constraint(
                SH.EqualsConstraintComponent,
                f"{values} MINUS {{ {focus} {other} {value} }}",
                of_value,
            )
            # ... and a value of the other property that is not a value node.
            missing = (
                f"FILTER(!sameTerm({extra}, {focus}))"
                if p is None
                else f"MINUS {{ {focus} {p} {extra} }}"
            )
            yield _Constraint(
                SH.EqualsConstraintComponent,
                f"{ctx} {focus} {other} {extra} {missing}",
                f"{focus} ({extra} AS ?value)",
            )
        for other_property in g.objects(shape, SH.disjoint):
            other = self.term(other_property)
            yield _Constraint(
                SH.DisjointConstraintComponent,
                f"{values} {focus} {other} {value} .",
                of_value,
            )
        for parameter, component, operator in (
            (SH.lessThan, SH.LessThanConstraintComponent, "<"),
            (SH.lessThanOrEquals, SH.LessThanOrEqualsConstraintComponent, "<="),
        ):
            for other_property in g.objects(shape, parameter):
                needs_path(parameter)
                other = self.vars.fresh("l")
                left = value_expr(value, written=written)
                right = value_expr(other, written=written)
                # One result per pair of values (SHACL 4.5.3), hence the other value projected.
                yield _Constraint(
                    component,
                    f"{values} {focus} {self.term(other_property)} {other} "
                    f"FILTER(!COALESCE({left} {operator} {right}, false))",
                    f"{of_value} {other}",
                )
        # Nested shapes: the value nodes that fail them are computed as DISTINCT
        # sets and joined back to the context, so that Oxigraph hash-joins
        # small sets instead of nesting loops over unions (figures in bench/README.md).
        for nested in g.objects(shape, SH.node):
            failing = self._not_conforming(nested, values, value)
            yield _Constraint(
                SH.NodeConstraintComponent,
                f"{values} {{ SELECT DISTINCT {value} WHERE {{ {failing} }} }}",
                of_value,
            )
        for negated in g.objects(shape, SH["not"]):
            failing = self._not_conforming(negated, values, value)
            yield _Constraint(
                SH.NotConstraintComponent,
                f"{values} MINUS {{ SELECT DISTINCT {value} WHERE {{ {failing} }} }}",
                of_value,
            )
        for alternatives in g.objects(shape, SH["or"]):
            parts = [self._not_conforming(a, values, value) for a in Collection(g, alternatives)]
            # Every alternative fails: the value is in each alternative's failing set.
            failing = " ".join(
                f"{{ SELECT DISTINCT {value} WHERE {{ {part} }} }}" for part in parts
            )
            if not parts:
                failing = ""
            yield _Constraint(SH.OrConstraintComponent, f"{values} {failing}", of_value)
        for members in g.objects(shape, SH["and"]):
            parts = [self._not_conforming(a, values, value) for a in Collection(g, members)]
            if not parts:
                continue
            failing = " UNION ".join(f"{{ {part} }}" for part in parts)
            yield _Constraint(
                SH.AndConstraintComponent,
                f"{values} {{ SELECT DISTINCT {value} WHERE {{ {failing} }} }}",
                of_value,
            )
        for members in g.objects(shape, SH.xone):
            parts = [self._not_conforming(a, values, value) for a in Collection(g, members)]
            marks = [self.vars.fresh("x") for _ in parts]
            # Each member's failing set is computed once and left-joined: a flag
            # bound means the value fails that member (an EXISTS per value was
            # quadratic in the value nodes; see bench/README.md).
            joined = " ".join(
                f"OPTIONAL {{ SELECT DISTINCT {value} (true AS {mark}) WHERE {{ {part} }} }}"
                for part, mark in zip(parts, marks, strict=True)
            )
            conforming = " + ".join(f"IF(BOUND({mark}), 0, 1)" for mark in marks)
            yield _Constraint(
                SH.XoneConstraintComponent,
                f"{values} {joined} FILTER(({conforming or '0'}) != 1)",
                of_value,
            )
        for closed in g.objects(shape, SH.closed):
            if not _true(closed):
                continue
            permitted = {g.value(child, SH.path) for child in g.objects(shape, SH.property)} | {
                m
                for ignored in g.objects(shape, SH.ignoredProperties)
                for m in Collection(g, ignored)
            }
            permitted_terms = sorted(self.term(a) for a in permitted if isinstance(a, URIRef))
            predicate, obj = self.vars.fresh("p"), self.vars.fresh("o")
            test = (
                f"FILTER({predicate} NOT IN ({', '.join(permitted_terms)}))"
                if permitted_terms
                else ""
            )
            yield _Constraint(
                SH.ClosedConstraintComponent,
                f"{values} {value} {predicate} {obj} . {test}",
                f"{focus} ({obj} AS ?value) ({predicate} AS ?path)",
            )
        yield from self._qualified(shape, ctx, focus, path, values, value)

    def _qualified(
        self, shape: Node, ctx: str, focus: str, path: Node | None, values: str, value: str
    ) -> Iterator[_Constraint]:
        g = self.shapes
        nested = list(g.objects(shape, SH.qualifiedValueShape))
        if not nested:
            return
        if len(nested) > 1 or path is None:
            raise UnsupportedShape(f"{shape}: more than one qualified value shape, or no path")
        failing = self._not_conforming(nested[0], values, value)
        count = self.vars.fresh("q")
        conforming = self.vars.fresh("c")
        steps = path_sparql(g, path)
        siblings = ""
        if _true(g.value(shape, SH.qualifiedValueShapesDisjoint)):
            # SHACL 4.7.3: the value must also fail every sibling qualified shape.
            parents = set(g.subjects(SH.property, shape))
            others = {
                q
                for parent in parents
                for child in g.objects(parent, SH.property)
                for q in g.objects(child, SH.qualifiedValueShape)
            } - {nested[0]}
            siblings = " ".join(
                f"{{ SELECT DISTINCT ({value} AS {conforming}) WHERE "
                f"{{ {self._not_conforming(other, values, value)} }} }}"
                for other in sorted(others, key=str)
            )
        # The number of value nodes that conform: the values minus those that fail.
        counted = (
            f"{ctx} {{ SELECT {focus} (COUNT(DISTINCT {conforming}) AS {count}) WHERE {{ {ctx} "
            f"OPTIONAL {{ {focus} {steps} {conforming} . "
            f"MINUS {{ SELECT DISTINCT ({value} AS {conforming}) WHERE {{ {failing} }} }} "
            f"{siblings} }} }} "
            f"GROUP BY {focus} }}"
        )
        for parameter, component, test in (
            (SH.qualifiedMinCount, SH.QualifiedMinCountConstraintComponent, "<"),
            (SH.qualifiedMaxCount, SH.QualifiedMaxCountConstraintComponent, ">"),
        ):
            for bound in g.objects(shape, parameter):
                limit = _integer(bound)
                yield _Constraint(component, f"{counted} FILTER({count} {test} {limit})", focus)

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
        if shape in self.active:
            raise UnsupportedShape(f"recursive shape {shape}")
        if self._deactivated(shape):
            return f"{ctx} FILTER(false)"
        self._check_supported(shape)
        if any(True for _ in self.shapes.objects(shape, SH.sparql)) or self._applicable(shape):
            raise UnsupportedShape(f"nested SPARQL constraint in {shape}")
        self.active.append(shape)
        branches = []
        path = self.shapes.value(shape, SH.path)
        if path is not None:
            value = self.vars.fresh("pv")
            values = self._values(ctx, focus, path, value)
        else:
            value, values = focus, ctx
        for constraint in self._constraints(shape, ctx, focus, path, value, values):
            branches.append(constraint.pattern)
        for child in self.shapes.objects(shape, SH.property):
            # A property shape's own property shapes apply to its values.
            branches.append(self._not_conforming(child, values, value))
        self.active.pop()
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
        return any(_true(flag) for flag in self.shapes.objects(node, SH.deactivated))


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
