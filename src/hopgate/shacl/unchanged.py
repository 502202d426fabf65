"""Which checks a later part of a validation need not run again: their answer is known.

``validate`` checks the load graphs (with the catalog) as one part, then each
run's latest bundle together with the loads it used (docs/spec/records.md
"History"). A run's part holds the loads again, so every check of the loads
ran once per part: at 10k claims the span, version and evidence-set checks
were about half of each run's part (bench/README.md).

A compiled core check whose query names only constant predicates (and
``rdf:type`` with constant classes) can match only triples with one of the
IRIs its text names. Two datasets that hold the same such triples give it the
same answer. A run's part differs from the loads' part by graphs of its own
(the bundle) and by graphs it leaves out (the catalog); when none of those
graphs holds a triple whose predicate, or ``rdf:type`` class, the check names,
its results on the run's part are the results it gave on the loads' part,
which the merged report holds once anyway. Such a check is not run again.

Never skipped: SPARQL-based constraints (their text is the shapes author's),
``sh:closed`` (it reads every predicate of its focus nodes), any check with a
repeated path step (a zero-length match reaches every node of the data), and
every check when the first part needed class membership through
``rdfs:subClassOf`` (its checks were compiled differently).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rdflib.namespace import SH

from hopgate.library.projection import query_iris, without_literals
from hopgate.shacl.components import CORE
from hopgate.shacl.components.base import Check
from hopgate.store import Store
from hopgate.vocab import RDF_TYPE

#: The core components whose compiled query reads only the IRIs its text names.
_CONSTANT = frozenset(c.iri for c in CORE) - {SH.ClosedConstraintComponent}
#: A repeated path step (``*``, ``+``, ``?`` after an IRI or a group), outside strings
#: (an ``sh:pattern`` or a datatype's lexical check is a regex).
_REPEATED = re.compile(r"[>)][*+?]")
#: A character an IRI written between ``<`` and ``>`` may not hold.
_UNWRITABLE = re.compile(r'[<>"{}|^`\\\s]')


def read_iris(check: Check) -> frozenset[str] | None:
    """The IRIs ``check`` can read triples by (as predicates, or as ``rdf:type`` classes),
    or None when that cannot be told from its text."""
    text = check.prologue + check.query
    if check.component not in _CONSTANT or _REPEATED.search(without_literals(text)):
        return None
    return frozenset(query_iris(text))


def present(store: Store, graphs: Iterable[str], iris: Iterable[str]) -> frozenset[str]:
    """Those of ``iris`` that some triple of ``graphs`` has as its predicate, or as the
    class of an ``rdf:type`` triple."""
    found: set[str] = set()
    for graph in graphs:
        for iri in sorted(set(iris) - found):
            if _UNWRITABLE.search(iri):
                found.add(iri)  # not asked: counted as present, so nothing is skipped on it
                continue
            # One lookup each, in the graph where it is stored (nothing copied from a
            # server): Oxigraph plans a VALUES of predicates beside the pattern as a
            # scan of the graph.
            triple = f"?s <{iri}> ?o" if iri != RDF_TYPE else "?s a ?o"
            if store.ask(f"ASK {{ GRAPH <{graph}> {{ {triple} }} }}") or store.ask(
                f"ASK {{ GRAPH <{graph}> {{ ?s a <{iri}> }} }}"
            ):
                found.add(iri)
    return frozenset(found)


def answered(checks: list[Check], changed: frozenset[str]) -> set[int]:
    """The positions in ``checks`` of those whose answer the first part gave: every IRI
    they read is absent from the graphs that differ (``changed`` are the IRIs found
    there by :func:`present`)."""
    found: set[int] = set()
    for position, check in enumerate(checks):
        iris = read_iris(check)
        if iris is not None and not iris & changed:
            found.add(position)
    return found


__all__ = ["answered", "present", "read_iris"]
