"""Cardinality constraint components (SHACL 1.0 section 4.2): ``sh:minCount``, ``sh:maxCount``."""

from __future__ import annotations

from collections.abc import Iterator

from rdflib.namespace import SH

from hopgate.shacl.components.base import Component, Constraint, Scope, integer


def _counted(scope: Scope, values_of: str, value: str, test: str) -> str:
    """A pattern for the focus nodes whose count of distinct values passes ``test``."""
    count = scope.compiler.fresh("n")
    ctx, focus = scope.ctx, scope.focus
    # The context is joined again outside the count: the subquery projects
    # only the focus, and the caller may need the rest of the context.
    return (
        f"{ctx} {{ SELECT {focus} (COUNT(DISTINCT {value}) AS {count}) WHERE {{ {ctx} "
        f"{values_of} }} GROUP BY {focus} }} FILTER({count} {test})"
    )


def min_count(scope: Scope) -> Iterator[Constraint]:
    """4.2.1 ``sh:minCount``: a focus node with fewer value nodes."""
    ctx, focus = scope.ctx, scope.focus
    for bound in scope.objects(SH.minCount):
        minimum = integer(bound)
        other = scope.compiler.fresh("v")
        steps = scope.needs_path(SH.minCount)
        if minimum == 1:
            # The common case as an anti-join: the right side is evaluated
            # once. (Oxigraph plans a FILTER NOT EXISTS over a path without
            # the outer bindings, re-evaluating it per focus node.)
            pattern = f"{ctx} MINUS {{ {scope.pairs(other)} }}"
        elif minimum == 0:
            pattern = f"{ctx} FILTER(false)"
        else:
            values_of = f"OPTIONAL {{ {focus} {steps} {other} }}"
            pattern = _counted(scope, values_of, other, f"< {minimum}")
        yield Constraint(SH.MinCountConstraintComponent, pattern, focus)


def max_count(scope: Scope) -> Iterator[Constraint]:
    """4.2.2 ``sh:maxCount``: a focus node with more value nodes."""
    ctx, focus = scope.ctx, scope.focus
    for bound in scope.objects(SH.maxCount):
        maximum = integer(bound)
        other = scope.compiler.fresh("v")
        steps = scope.needs_path(SH.maxCount)
        if maximum == 0:
            pattern = f"{ctx} {focus} {steps} {other} ."
        elif not scope.path_repeats:
            # The nodes with too many values are counted over the whole path, without
            # the context, then joined to it: Oxigraph evaluates such a subquery once,
            # by scans, where a pair of values joined per focus node looked the path
            # up node by node on the disk store (44.6k spans: 0.82 s against 3.6 s;
            # bench/README.md). The count of a node does not depend on the context.
            pattern = (
                f"{ctx} {{ SELECT {focus} WHERE {{ {scope.pairs(other)} }} "
                f"GROUP BY {focus} HAVING (COUNT(DISTINCT {other}) > {maximum}) }}"
            )
        elif maximum == 1:
            # A repeated step asked unbound would enumerate every node: per focus node.
            second = scope.compiler.fresh("v")
            pattern = (
                f"{ctx} {focus} {steps} {other} . {focus} {steps} {second} . "
                f"FILTER(!sameTerm({other}, {second}))"
            )
        else:
            values_of = f"{focus} {steps} {other} ."
            pattern = _counted(scope, values_of, other, f"> {maximum}")
        yield Constraint(SH.MaxCountConstraintComponent, pattern, focus)


def bounds(scope: Scope) -> Constraint | None:
    """Where a nested shape's ``sh:minCount`` and ``sh:maxCount`` are both stated once, one
    pattern for the focus nodes that fail either, or None.

    In a nested shape (``sh:or``, ``sh:node`` ...) only whether a focus node fails
    counts, not which component it fails: one count of the path's values serves both
    bounds, where the two patterns read the path twice (44.6k spans' offsets: 0.5 s
    against 1.0 s; bench/README.md). Not for a path with a repeated step (asked
    unbound, it would enumerate every node).
    """
    minimums, maximums = list(scope.objects(SH.minCount)), list(scope.objects(SH.maxCount))
    if len(minimums) != 1 or len(maximums) != 1 or scope.steps is None or scope.path_repeats:
        return None
    minimum, maximum = integer(minimums[0]), integer(maximums[0])
    count, other = scope.compiler.fresh("n"), scope.compiler.fresh("v")
    ctx, focus = scope.ctx, scope.focus
    # A focus node without values has no row in the count: COALESCE makes it 0.
    pattern = (
        f"{ctx} OPTIONAL {{ SELECT {focus} (COUNT(DISTINCT {other}) AS {count}) WHERE {{ "
        f"{scope.pairs(other)} }} GROUP BY {focus} }} "
        f"FILTER(COALESCE({count}, 0) < {minimum} || COALESCE({count}, 0) > {maximum})"
    )
    return Constraint(SH.MinCountConstraintComponent, pattern, focus)


#: The components :func:`bounds` stands in for.
BOUNDED = frozenset({SH.MinCountConstraintComponent, SH.MaxCountConstraintComponent})


COMPONENTS = (
    Component(SH.MinCountConstraintComponent, (SH.minCount,), "4.2.1", min_count),
    Component(SH.MaxCountConstraintComponent, (SH.maxCount,), "4.2.2", max_count),
)

__all__ = ["BOUNDED", "COMPONENTS", "bounds"]
