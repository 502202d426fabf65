"""SPARQL-based constraints (SHACL 1.0 section 5) and SPARQL-based constraint components (section 6).

- A ``sh:sparql`` constraint (https://www.w3.org/TR/shacl/#sparql-constraints)
  keeps its own ``sh:select`` text, with the focus nodes joined in as the
  first pattern of its top group. That is pre-binding only where every use of
  ``$this`` sees it bound: :mod:`hopgate.shacl.prebind` checks this on the
  query's algebra, refuses what SHACL 1.0 5.2.1 forbids
  (:class:`~hopgate.errors.IllFormedShape`) and declines the rest.
- A SPARQL-based constraint component
  (https://www.w3.org/TR/shacl/#sparql-constraint-components: ``sh:parameter``
  and validators, declared in the shapes graph) is compiled per shape and
  combination of parameter values: a SELECT validator like a ``sh:sparql``
  constraint, with the parameters joined in as constants; an ASK validator as
  "the value nodes minus those for which its pattern has a solution".

Both produce whole checks (:class:`~hopgate.shacl.components.base.Check`):
each carries its own query, messages and source constraint.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass

import rdflib
from rdflib.namespace import OWL, SH
from rdflib.term import Literal, Node, URIRef

from hopgate.errors import IllFormedShape, UnsupportedShape
from hopgate.shacl.components.base import Check, Compiler, messages, true
from hopgate.shacl.prebind import FOCUS_MARK, NotJoinable, check_joinable, focus_mark, mark_focus

#: Names a parameter of a SPARQL-based component may not take: SHACL pre-binds them.
_RESERVED = ("this", "value", "shapesGraph", "currentShape", "PATH")


@dataclass(frozen=True)
class Declared:
    """A SPARQL-based constraint component: parameters (path, variable, optional), validators."""

    node: URIRef
    parameters: tuple[tuple[URIRef, str, bool], ...]
    validator: Node | None
    node_validator: Node | None
    property_validator: Node | None


def _prologue(prefixes: Mapping[str, str]) -> str:
    return "".join(f"PREFIX {p}: <{n}>\n" for p, n in sorted(prefixes.items()))


def prefixes(shapes: rdflib.Graph, node: Node) -> dict[str, str]:
    """The prefixes ``node`` declares through ``sh:prefixes`` (and ``owl:imports``), SHACL 5.2.2.

    Raises:
        IllFormedShape: a declaration is incomplete, or gives a prefix two namespaces.
    """
    found: dict[str, str] = {}
    seen: set[Node] = set()
    pending = list(shapes.objects(node, SH.prefixes))
    while pending:
        ontology = pending.pop()
        if ontology in seen:
            continue
        seen.add(ontology)
        pending += shapes.objects(ontology, OWL.imports)
        for declaration in shapes.objects(ontology, SH.declare):
            prefix = shapes.value(declaration, SH.prefix)
            namespace = shapes.value(declaration, SH.namespace)
            if prefix is None or namespace is None:
                raise IllFormedShape(f"prefix declaration {declaration} is incomplete")
            if found.get(str(prefix), str(namespace)) != str(namespace):
                raise IllFormedShape(f"prefix {prefix} is declared with two namespaces")
            found[str(prefix)] = str(namespace)
    return found


def _with_path(compiler: Compiler, text: str, node: Node, path: Node | None) -> str:
    """``text`` with ``$PATH`` replaced by the shape's path (SHACL 5.2, 6.3)."""
    if "$PATH" not in text:
        return text
    if path is None:
        raise IllFormedShape(f"{node} uses $PATH outside a property shape")
    return text.replace("$PATH", compiler.path(path))


def sparql_check(
    compiler: Compiler,
    shape: Node,
    constraint: Node,
    focus: str,
    severity: URIRef,
    path: Node | None,
) -> Check:
    """The check of one ``sh:sparql`` constraint of ``shape`` over the focus nodes ``focus`` binds.

    Raises:
        IllFormedShape: the constraint breaks SHACL 1.0 (5.1, 5.2.1).
        UnsupportedShape: joining the focus nodes would not be pre-binding, or
            the query needs something the store cannot give.
    """
    if compiler.written:
        raise UnsupportedShape("SPARQL constraints on data whose literals the store would rewrite")
    shapes = compiler.shapes
    selects = list(shapes.objects(constraint, SH.select))
    if len(selects) != 1:
        raise IllFormedShape(f"SPARQL constraint {constraint} needs exactly one sh:select")
    text = _with_path(compiler, str(selects[0]), constraint, path)
    declared = prefixes(shapes, constraint)
    marked = mark_focus(text)
    try:
        projected = check_joinable(marked, declared)
    except NotJoinable as exc:
        raise UnsupportedShape(f"{constraint}: {exc}") from None
    if "this" not in projected:
        raise UnsupportedShape(f"{constraint}: the query does not return $this")
    if "failure" in projected:
        # SHACL 5.3.2: a solution with ?failure true is a failure, not a result.
        raise UnsupportedShape(f"{constraint}: the query reports ?failure")
    if re.search(r"[?$](shapesGraph|currentShape)\b", text):
        if compiler.shapes_graph is None or not isinstance(shape, URIRef):
            raise UnsupportedShape(f"{constraint}: $shapesGraph or $currentShape")
        focus += (
            f" VALUES (?shapesGraph ?currentShape) "
            f"{{ (<{compiler.shapes_graph}> {compiler.term(shape)}) }}"
        )
    own = shapes.value(constraint, SH.severity)
    return Check(
        marked.replace(FOCUS_MARK, focus, 1),
        shape,
        SH.SPARQLConstraintComponent,
        own if isinstance(own, URIRef) else severity,
        messages(shapes, constraint) or messages(shapes, shape),
        path=path,
        constraint=constraint,
        prologue=_prologue(declared),
        value_is_focus=path is None,
        authored=True,
    )


def declared_components(shapes: rdflib.Graph) -> list[Declared]:
    """The SPARQL-based constraint components declared in the shapes graph (SHACL 6.1).

    Raises:
        IllFormedShape: a parameter has no IRI ``sh:path``.
        UnsupportedShape: a component this compiler does not translate (a blank
            node, a reserved parameter name, two validators of a kind, no
            mandatory parameter).
    """
    declared = {
        c
        for predicate in (SH.parameter, SH.validator, SH.nodeValidator, SH.propertyValidator)
        for c in shapes.subjects(predicate, None)
    }
    found = []
    for node in sorted(declared, key=str):
        if not isinstance(node, URIRef):
            raise UnsupportedShape(f"constraint component {node} is a blank node")
        parameters = []
        for parameter in shapes.objects(node, SH.parameter):
            path = shapes.value(parameter, SH.path)
            if not isinstance(path, URIRef):
                raise IllFormedShape(f"parameter {parameter} of {node} has no IRI sh:path")
            name = re.split(r"[#/]", str(path))[-1]
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in _RESERVED:
                raise UnsupportedShape(f"parameter name {name!r} of {node}")
            parameters.append((path, name, true(shapes.value(parameter, SH.optional))))
        validators = []
        for predicate in (SH.validator, SH.nodeValidator, SH.propertyValidator):
            values = list(shapes.objects(node, predicate))
            if len(values) > 1:
                raise UnsupportedShape(f"{node} has more than one {predicate}")
            validators.append(values[0] if values else None)
        if not any(not optional for _, _, optional in parameters):
            raise UnsupportedShape(f"{node} has no mandatory parameter")
        found.append(Declared(node, tuple(sorted(parameters)), *validators))
    return found


def applicable(shapes: rdflib.Graph, components: list[Declared], shape: Node) -> list[Declared]:
    """The components whose mandatory parameters ``shape`` all has (SHACL 6.2)."""
    return [
        c
        for c in components
        if all(
            shapes.value(shape, path) is not None
            for path, _, optional in c.parameters
            if not optional
        )
    ]


def component_checks(
    compiler: Compiler,
    components: list[Declared],
    shape: Node,
    focus: str,
    path: Node | None,
    severity: URIRef,
    keys: str,
) -> list[Check]:
    """The checks of the SPARQL-based components that apply to ``shape``: one per combination
    of its parameter values (SHACL 6.2, 6.3)."""
    shapes = compiler.shapes
    found: list[Check] = []
    for component in applicable(shapes, components, shape):
        if keys or compiler.written:
            raise UnsupportedShape(f"{component.node} on a nested shape or written literals")
        validator = (
            component.property_validator if path is not None else component.node_validator
        ) or component.validator
        if validator is None:
            raise UnsupportedShape(f"{component.node} has no validator for {shape}")
        # An optional parameter without a value stays a free variable (not pre-bound).
        choices: list[list[Node | None]] = [
            [*sorted(shapes.objects(shape, p), key=str)] or [None]
            for p, _, _ in component.parameters
        ]
        for combination in itertools.product(*choices):
            bound = {
                name: term
                for (_, name, _), term in zip(component.parameters, combination, strict=True)
                if term is not None
            }
            found.append(
                _validator_check(
                    compiler, shape, component, validator, focus, path, severity, bound
                )
            )
    return found


def _validator_check(
    compiler: Compiler,
    shape: Node,
    component: Declared,
    validator: Node,
    focus: str,
    path: Node | None,
    severity: URIRef,
    bound: dict[str, Node],
) -> Check:
    """One constraint of a SPARQL-based component, its parameters joined in as constants."""
    g = compiler.shapes
    names = sorted(bound)
    constants = (
        f"VALUES ({' '.join('?' + n for n in names)}) "
        f"{{ ({' '.join(compiler.term(bound[n]) for n in names)}) }}"
        if names
        else ""
    )
    worded = tuple(
        Literal(
            re.sub(
                r"\{[?$](\w+)\}",
                lambda m: str(bound[m[1]]) if m[1] in bound else m[0],
                str(message),
            ),
            lang=message.language,
        )
        for message in (messages(g, validator) or messages(g, component.node) or messages(g, shape))
    )
    declared = prefixes(g, validator)
    prologue = _prologue(declared)
    select, ask = g.value(validator, SH.select), g.value(validator, SH.ask)
    if (select is None) == (ask is None):
        raise IllFormedShape(f"validator {validator} needs one sh:select or one sh:ask")
    text = _with_path(compiler, str(select if select is not None else ask), validator, path)
    if select is not None:
        marked = mark_focus(text, names)
        try:
            projected = check_joinable(marked, declared, names)
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
            worded,
            path=path,
            prologue=prologue,
            value_is_focus=path is None,
            authored=True,
        )
    # An ASK validator (SHACL 6.5.1): a value node violates when the ASK is false for it.
    start = re.search(r"\bASK\b", text, re.I)
    if start is None or re.search(r"\b(PREFIX|BASE)\b", text[: start.start()], re.I):
        raise UnsupportedShape(f"{validator}: not a plain ASK query")
    body = text[text.index("{", start.end()) + 1 : text.rindex("}")]
    extra = [*names, "value"]
    marked = mark_focus(f"SELECT ?this ?value WHERE {{ {body} }}", extra)
    try:
        check_joinable(marked, declared, extra)
    except NotJoinable as exc:
        raise UnsupportedShape(f"{validator}: {exc}") from None
    if path is not None:
        values = f"{focus} ?this {compiler.path(path)} ?value ."
    else:
        values = f"{focus} BIND(?this AS ?value)"
    holds = marked.replace(focus_mark(extra), f"{values} {constants}", 1)
    holds = holds.replace("SELECT ?this ?value", "SELECT DISTINCT ?this ?value", 1)
    query = f"SELECT DISTINCT ?this ?value WHERE {{ {values} MINUS {{ {holds} }} }}"
    return Check(
        query, shape, component.node, severity, worded, path=path, prologue=prologue, authored=True
    )


__all__ = [
    "Declared",
    "applicable",
    "component_checks",
    "declared_components",
    "prefixes",
    "sparql_check",
]
