"""Bounds on a shapes graph, checked before any engine runs it (:func:`check_shapes`).

A shapes file is input like any other: a small one can describe a large
computation. Both engines expand nested shapes and property paths
recursively (the compiler into one query, pySHACL per value node), so a
shapes graph is refused, with the shape it is about, when

- an RDF list in it (``sh:in``, ``sh:and``, a sequence path ...) is cyclic;
- a property path is cyclic, nests deeper than :data:`~hopgate.inputs.MAX_DEPTH`,
  or names more than :data:`~hopgate.inputs.MAX_PATH_STEPS` properties
  (counted with repetition: a path that names one path twice counts it twice);
- shapes nest (``sh:node``, ``sh:property``, ``sh:and``, ``sh:or``,
  ``sh:xone``, ``sh:not``, ``sh:qualifiedValueShape``) deeper than
  :data:`~hopgate.inputs.MAX_DEPTH`, or one shape expands to more than
  :data:`~hopgate.inputs.MAX_SHAPE_EXPANSION` nested shapes (a "shape bomb":
  each shape naming the next twice doubles the work at every level).

A recursive shape (one that reaches itself) is not refused here: SHACL
leaves its meaning open, the compiler declines it, and pySHACL bounds its
own recursion. Every walk is iterative, so no Python recursion limit is met.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import rdflib
from rdflib.namespace import RDF, SH
from rdflib.term import BNode, Node

from hopgate.errors import InputRefused
from hopgate.inputs import MAX_DEPTH, MAX_PATH_STEPS, MAX_SHAPE_EXPANSION

#: Predicates whose object is a nested shape.
_NESTING = (SH.property, SH.node, SH["not"], SH.qualifiedValueShape)
#: Predicates whose object is a list of nested shapes.
_NESTING_LISTS = (SH["and"], SH["or"], SH.xone)
#: Predicates of a property path node whose object is another path (or a list of paths).
_PATH_STEPS = (SH.inversePath, SH.zeroOrMorePath, SH.oneOrMorePath, SH.zeroOrOnePath)


def _name(node: Node) -> str:
    return node.n3() if not isinstance(node, BNode) else f"_:{node}"


def _list_members(graph: rdflib.Graph, head: Node) -> list[Node]:
    """The members of the RDF list at ``head``.

    Raises:
        InputRefused: the list reaches a node twice (a cycle).
    """
    members: list[Node] = []
    seen: set[Node] = set()
    node: Node | None = head
    while node is not None and node != RDF.nil:
        if node in seen:
            raise InputRefused(f"the RDF list {_name(head)} is cyclic (its rdf:rest returns)")
        seen.add(node)
        first = graph.value(node, RDF.first)
        if first is not None:
            members.append(first)
        node = graph.value(node, RDF.rest)
    return members


def _measure(
    roots: Iterable[Node], children: Callable[[Node], list[Node]], *, limit: int
) -> tuple[dict[Node, int], dict[Node, int], Node | None]:
    """Depth (nodes on the longest chain) and expansion (nodes with repetition, capped past
    ``limit``) of every node reachable from ``roots``, without recursion. The third value is
    a node that reaches itself (a cycle), if any; its back edges are not followed."""
    depth: dict[Node, int] = {}
    size: dict[Node, int] = {}
    on_path: set[Node] = set()
    cyclic: Node | None = None
    for root in roots:
        if root in depth:
            continue
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                on_path.discard(node)
                below = [c for c in children(node) if c in depth]
                depth[node] = 1 + max((depth[c] for c in below), default=0)
                size[node] = min(limit + 1, 1 + sum(size[c] for c in below))
                continue
            if node in depth or node in on_path:
                continue
            on_path.add(node)
            stack.append((node, True))
            for child in children(node):
                if child in on_path:
                    cyclic = cyclic if cyclic is not None else child
                elif child not in depth:
                    stack.append((child, False))
    return depth, size, cyclic


def _check_lists(shapes: rdflib.Graph) -> None:
    """Every RDF list ends (in rdf:nil or a node with no rdf:rest), each node walked once."""
    ended: set[Node] = set()
    for start in set(shapes.subjects(RDF.rest, None)):
        walked: list[Node] = []
        seen: set[Node] = set()
        node: Node | None = start
        while node is not None and node != RDF.nil and node not in ended:
            if node in seen:
                raise InputRefused(
                    f"the RDF list at {_name(node)} is cyclic (its rdf:rest returns)"
                )
            seen.add(node)
            walked.append(node)
            node = shapes.value(node, RDF.rest)
        ended.update(walked)


def _check_paths(shapes: rdflib.Graph) -> None:
    def steps(node: Node) -> list[Node]:
        if not isinstance(node, BNode):
            return []
        if shapes.value(node, RDF.first) is not None:
            return _list_members(shapes, node)
        for predicate in _PATH_STEPS:
            inner = shapes.value(node, predicate)
            if inner is not None:
                return [inner]
        alternatives = shapes.value(node, SH.alternativePath)
        return _list_members(shapes, alternatives) if alternatives is not None else []

    paths = sorted(set(shapes.objects(None, SH.path)), key=str)
    depth, size, cyclic = _measure(paths, steps, limit=MAX_PATH_STEPS * 4)
    if cyclic is not None:
        raise InputRefused(f"the property path {_name(cyclic)} contains itself")
    for path in paths:
        if depth[path] > MAX_DEPTH:
            raise InputRefused(
                f"the property path {_name(path)} nests {depth[path]} levels deep, over the "
                f"limit of {MAX_DEPTH}"
            )
        named = _iris(shapes, path, steps)
        if named > MAX_PATH_STEPS:
            raise InputRefused(
                f"the property path {_name(path)} names more than {MAX_PATH_STEPS} properties, "
                "the limit (a query's cost grows with the cube of its steps)"
            )


def _iris(shapes: rdflib.Graph, path: Node, steps: Callable[[Node], list[Node]]) -> int:
    """IRIs a path names, with repetition; counting stops past MAX_PATH_STEPS."""
    count = 0
    pending = [path]
    while pending and count <= MAX_PATH_STEPS:
        node = pending.pop()
        if not isinstance(node, BNode):
            count += 1
        else:
            pending.extend(steps(node))
    return count


def _check_nesting(shapes: rdflib.Graph) -> None:
    def nested(shape: Node) -> list[Node]:
        found = [o for predicate in _NESTING for o in shapes.objects(shape, predicate)]
        for predicate in _NESTING_LISTS:
            for members in shapes.objects(shape, predicate):
                found += _list_members(shapes, members)
        return found

    roots = {s for predicate in (*_NESTING, *_NESTING_LISTS) for s in shapes.subjects(predicate)}
    ordered = sorted(roots, key=str)
    depth, size, _ = _measure(ordered, nested, limit=MAX_SHAPE_EXPANSION)
    deepest = max(ordered, key=lambda s: depth[s], default=None)
    if deepest is not None and depth[deepest] > MAX_DEPTH:
        raise InputRefused(
            f"shape {_name(deepest)} nests shapes {depth[deepest]:,} levels deep (sh:node, "
            f"sh:property, sh:and, sh:or, sh:xone, sh:not, sh:qualifiedValueShape), over the "
            f"limit of {MAX_DEPTH}"
        )
    largest = max(ordered, key=lambda s: size[s], default=None)
    if largest is not None and size[largest] > MAX_SHAPE_EXPANSION:
        raise InputRefused(
            f"shape {_name(largest)} expands to more than {MAX_SHAPE_EXPANSION:,} nested shapes "
            "(each counted every time it is reached), over the limit"
        )


def check_shapes(shapes: rdflib.Graph) -> None:
    """Refuse a shapes graph over hopgate's bounds (see the module docstring).

    Raises:
        InputRefused: the first bound broken, naming the list, path or shape.
    """
    _check_lists(shapes)
    _check_paths(shapes)
    _check_nesting(shapes)


__all__ = ["check_shapes"]
