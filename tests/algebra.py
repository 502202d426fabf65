"""Walks over rdflib's SPARQL algebra, for tests that hold a query to the triples it can read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rdflib import paths
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import URIRef

from hopgate.library.projection import algebra_nodes


def mappings(node: Any) -> Iterator[Any]:
    """Every CompValue and dict anywhere in rdflib's algebra (the library's own walk)."""
    return algebra_nodes(node)


def patterns(node: Any, found: list[tuple[Any, Any]]) -> None:
    """Every (predicate, object) of a triple pattern anywhere in rdflib's algebra."""
    for mapping in mappings(node):
        triples = mapping.get("triples")
        if isinstance(triples, list):
            # Tuples where rdflib translated the algebra; lists inside EXISTS, where it did not.
            for triple in triples:
                assert isinstance(triple, tuple | list) and len(triple) == 3, triple
                found.append((triple[1], triple[2]))


def values_bound(node: Any, bound: dict[Any, set[Any]]) -> None:
    """What each variable a VALUES block binds may be, anywhere in rdflib's algebra."""
    for mapping in mappings(node):
        if isinstance(mapping, CompValue) and mapping.name == "values":
            for row in mapping["res"]:
                for variable, value in row.items():
                    bound.setdefault(variable, set()).add(value)


def path_iris(predicate: Any) -> set[str]:
    """The IRIs a predicate or property path can match; fails on a variable or negation."""
    if isinstance(predicate, URIRef):
        return {str(predicate)}
    if isinstance(predicate, paths.SequencePath | paths.AlternativePath):
        return set().union(*(path_iris(arg) for arg in predicate.args))
    if isinstance(predicate, paths.InvPath):
        return path_iris(predicate.arg)
    if isinstance(predicate, paths.MulPath):
        return path_iris(predicate.path)
    raise AssertionError(f"a pattern the projection cannot serve: predicate {predicate!r}")
