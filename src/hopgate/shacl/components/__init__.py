"""The constraint components the compiler translates, one small compiler each, in one table.

Arranged as SHACL 1.0 arranges them (and pySHACL its
``constraints/core/*_constraints.py``): a module per group of section 4,
each entry citing its section (:attr:`~hopgate.shacl.components.base.Component.url`).

| module | SHACL 1.0 | components |
|---|---|---|
| :mod:`~.value_type` | 4.1 | ``sh:class``, ``sh:datatype``, ``sh:nodeKind`` |
| :mod:`~.cardinality` | 4.2 | ``sh:minCount``, ``sh:maxCount`` |
| :mod:`~.value_range` | 4.3 | ``sh:minExclusive``, ``sh:minInclusive``, ``sh:maxExclusive``, ``sh:maxInclusive`` |
| :mod:`~.string` | 4.4 | ``sh:minLength``, ``sh:maxLength``, ``sh:pattern``, ``sh:languageIn``, ``sh:uniqueLang`` |
| :mod:`~.property_pair` | 4.5 | ``sh:equals``, ``sh:disjoint``, ``sh:lessThan``, ``sh:lessThanOrEquals`` |
| :mod:`~.logical` | 4.6 | ``sh:not``, ``sh:and``, ``sh:or``, ``sh:xone`` |
| :mod:`~.shape_based` | 4.7 | ``sh:node``, ``sh:qualifiedValueShape`` (``sh:property`` is how the compiler nests shapes) |
| :mod:`~.other` | 4.8 | ``sh:closed``, ``sh:hasValue``, ``sh:in`` |
| :mod:`~.sparql` | 5, 6 | ``sh:sparql``; components declared with ``sh:parameter`` and validators |

A component is a function, not a class: it holds no state, it turns a
shape's parameter values into SPARQL patterns once, and the table entry
carries what pySHACL keeps on its classes (the component IRI, its
parameters, its section).
"""

from __future__ import annotations

from rdflib.term import URIRef

from hopgate.shacl.components import (
    cardinality,
    logical,
    other,
    property_pair,
    shape_based,
    string,
    value_range,
    value_type,
)
from hopgate.shacl.components.base import Component

#: Every core constraint component (SHACL 1.0 section 4), in section order.
CORE: tuple[Component, ...] = (
    *value_type.COMPONENTS,
    *cardinality.COMPONENTS,
    *value_range.COMPONENTS,
    *string.COMPONENTS,
    *property_pair.COMPONENTS,
    *logical.COMPONENTS,
    *shape_based.COMPONENTS,
    *other.COMPONENTS,
)


def parameters() -> frozenset[URIRef]:
    """The shape parameters the core components read."""
    return frozenset(p for component in CORE for p in component.parameters)


__all__ = ["CORE", "parameters"]
