"""Which checks a later part of a validation need not run again: their answer is known.

``validate`` checks the load graphs (with the catalog) as one part, then each
run's latest bundle together with the loads it used (docs/spec/records.md
"History"). A run's part holds the loads again, so every check of the loads
ran once per part: at 10k claims the span, version and evidence-set checks
were about half of each run's part (bench/README.md).

A compiled core check whose query names only constant predicates (and
``rdf:type`` with constant classes) can match only triples with one of the
IRIs its text names. A core check is one the compiler wrote, never the shapes
author's SPARQL (``Check.authored``, whatever IRI a declared component has),
and none of whose patterns reads by every predicate (``sh:closed``, also
inside a shape nested by ``sh:node``, ``sh:or`` and the others: the pattern's
variable says so). Two datasets that hold the same such triples give it the
same answer. A run's part differs from the loads' part by graphs of its own
(the bundle) and by graphs it leaves out (the catalog); when none of those
graphs holds a triple whose predicate, or ``rdf:type`` class, the check names,
its results on the run's part are the results it gave on the loads' part,
which the merged report holds once anyway. Such a check is not run again.

A run's bundle also holds some of those predicates, about its own nodes: the
cards' and the evaluation's ``prov:wasGeneratedBy``, ``prov:endedAtTime`` and
``prov:wasAssociatedWith``, which the versions' and evidence sets' checks read
along their paths (nine checks, some 45 s of CPU in a run's part at 100k
claims). Such a predicate is *owned* by the differing graphs when none of their
triples with it has a subject that the common graphs hold (as subject or
object). A check that reads it only as a forward step of its path, from the
focus nodes of a node shape with targets, and reads no other IRI the
differing graphs hold, still has its answer: its focus nodes are the common
graphs' own (their targets are not in the differing graphs; a shape with
``sh:targetNode``, the node shape or the property shape itself, is never
followed, as its nodes are focus nodes whatever the data holds, an
acceptance card of the bundle too); a path step
from a common node follows a triple whose subject is a common node, which an
owned predicate's differing triples never have, so every match reached from
a focus node is a common graph's; and a match that starts at a differing
graph's own node binds a focus variable no focus node has.

A SPARQL-based constraint's text is the shapes author's, so it is read on its
algebra (:func:`sparql_reads`), and only one form is judged: a group of triple
patterns with constant predicates (and classes), filters, and ``OPTIONAL``
blocks of one pattern each. Its reads are the IRIs of every pattern, those of
its filters' ``EXISTS`` included. A predicate read only in such an
``OPTIONAL`` from a variable the group's patterns bind (the ledger ids a
message shows), and nowhere else as a predicate or as a class, is followed
like a path step: the group binds only nodes of the common graphs, and an
owned predicate's differing triples never have one as their subject, so the
optional part binds what it bound before. An ``OPTIONAL`` written before the
patterns that bind its subject is another form (with an empty left side, a
match anywhere changes its answer), and so are ``GRAPH``, a ``BASE`` and a
relative IRI (rdflib resolves some bases otherwise than the engine), and a
call of ``NOW()``, ``RAND()``, ``UUID()``, ``STRUUID()`` or ``BNODE()``, whose
answer the data alone does not fix.

Never skipped: any other SPARQL-based constraint, a declared component's
validator, ``sh:closed`` at the top or nested (it reads every predicate of
its value nodes), any check with a repeated path step (a zero-length match
reaches every node of the data), a compiled check whose text holds an IRI
the tokenizer cannot read whole (an escape, a character beyond ASCII), and
every check when the first part needed
class membership through ``rdfs:subClassOf`` (its checks were compiled
differently).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache

import rdflib
from rdflib.namespace import RDF, RDFS, SH
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Node, URIRef, Variable

from hopgate.library.projection import query_iris, without_literals
from hopgate.shacl.compiler import iri_steps
from hopgate.shacl.components import CORE
from hopgate.shacl.components.base import Check, reads_every_predicate
from hopgate.store import Store
from hopgate.vocab import RDF_TYPE

#: The core components: a compiled query of theirs reads only the IRIs its text names,
#: unless it reads by every predicate (``sh:closed``, at the top or in a nested shape:
#: :func:`~hopgate.shacl.components.base.reads_every_predicate`).
_CONSTANT = frozenset(c.iri for c in CORE)
#: A repeated path step (``*``, ``+``, ``?`` after an IRI or a group), outside strings
#: (an ``sh:pattern`` or a datatype's lexical check is a regex).
_REPEATED = re.compile(r"[>)][*+?]")
#: The core components whose compiled check reads nothing of a focus node but the
#: values its path reaches (compared with constants of the shape).
_VALUES_ONLY = frozenset(
    {
        SH.MinCountConstraintComponent,
        SH.MaxCountConstraintComponent,
        SH.DatatypeConstraintComponent,
        SH.NodeKindConstraintComponent,
        SH.PatternConstraintComponent,
        SH.MinLengthConstraintComponent,
        SH.MaxLengthConstraintComponent,
        SH.InConstraintComponent,
        SH.HasValueConstraintComponent,
        SH.MinInclusiveConstraintComponent,
        SH.MaxInclusiveConstraintComponent,
        SH.MinExclusiveConstraintComponent,
        SH.MaxExclusiveConstraintComponent,
    }
)
_TARGETS = (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf)
#: The predicate :func:`_triples` gives a construct that reads otherwise (``GRAPH``,
#: ``SERVICE``): a check holding one is never skipped.
_SERVICE = "urn:hopgate:not-a-triple-pattern"
_OTHER_READS = frozenset({"ServiceGraphPattern", "Graph", "GraphGraphPattern"})
#: A character an IRI written between ``<`` and ``>`` may not hold.
_UNWRITABLE = re.compile(r'[<>"{}|^`\\\s]')
#: An IRI as :func:`~hopgate.library.projection.query_iris` reads one (no white space
#: at all, where SPARQL's IRIREF excludes only ASCII's): what it does not read as an IRI
#: is left in the text :func:`_tokenized_whole` looks at.
_IRI_TOKEN = re.compile(r'<[^<>"{}|^`\\\s]*>')
#: A SPARQL function whose value is not the data's (the clock, a random draw, a fresh
#: blank node or UUID).
_UNREPEATABLE = re.compile(r"(?i)\b(NOW|RAND|UUID|STRUUID|BNODE)\s*\(")
#: An absolute IRI's start (its scheme): anything else is relative to a base the engine
#: resolves, which rdflib may resolve otherwise (a ``tag:`` or ``urn:`` base).
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def reads(check: Check, shapes: rdflib.Graph) -> tuple[frozenset[str], frozenset[str]] | None:
    """The IRIs ``check`` can read triples by (:func:`read_iris`, :func:`sparql_reads`),
    with those of them it reads only from nodes its focus binds (:func:`followed`,
    :func:`sparql_reads`); None when that cannot be told."""
    if check.authored:
        # A declared component's validator is never judged, whatever its IRI (one
        # declared as sh:HasValueConstraintComponent is no core check).
        return sparql_reads(check) if check.component == SH.SPARQLConstraintComponent else None
    iris = read_iris(check)
    return None if iris is None else (iris, followed(check, shapes))


def read_iris(check: Check) -> frozenset[str] | None:
    """The IRIs ``check`` can read triples by (as predicates, or as ``rdf:type`` classes),
    or None when that cannot be told from its text."""
    text = check.prologue + check.query
    if (
        check.authored
        or check.component not in _CONSTANT
        or reads_every_predicate(text)
        or _REPEATED.search(without_literals(text))
        or not _tokenized_whole(text)
    ):
        return None
    return frozenset(query_iris(text))


def _tokenized_whole(text: str) -> bool:
    """Whether the IRIs :func:`query_iris` reads from a compiled query are all it reads.

    The compiler writes no comment, escape or character beyond ASCII outside its
    string literals. A shapes graph's IRI can bring one in: an escape (``\\u0074``,
    which the engine reads as ``t``), or a character the tokenizer does not take as an
    IRI's (a no-break space, after which a ``#`` would be read as a comment that
    hides the rest of the query). Such a check is run in every part.
    """
    syntax = _IRI_TOKEN.sub(" ", without_literals(text, comments=False))
    return syntax.isascii() and "\\" not in syntax and "#" not in syntax


def present(store: Store, graphs: Iterable[str], iris: Iterable[str]) -> frozenset[str]:
    """Those of ``iris`` that some triple of ``graphs`` has as its predicate, or as the
    class of an ``rdf:type`` triple."""
    found: set[str] = set()
    for graph in graphs:
        for iri in sorted(set(iris) - found):
            if _UNWRITABLE.search(iri) or not _ABSOLUTE.match(iri):
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


def sparql_reads(check: Check) -> tuple[frozenset[str], frozenset[str]] | None:
    """A SPARQL-based check's reads, when its query is a group of triple patterns with
    ``OPTIONAL`` blocks and filters: the IRIs it reads (predicates, and classes of
    ``rdf:type``), and the predicates it reads only in an ``OPTIONAL`` block of one
    triple pattern whose subject the group's patterns bind (the ledger ids its message
    shows). None for any other query, or one with a variable or path as predicate."""
    return _sparql_reads(check.prologue, check.query)


@cache
def _sparql_reads(prologue: str, query: str) -> tuple[frozenset[str], frozenset[str]] | None:
    try:
        algebra = prepareQuery(prologue + query).algebra
    except Exception:  # rdflib raises several unrelated parser exceptions
        return None
    syntax = without_literals(query)
    if algebra.get("datasetClause") or re.search(r"(?i)\bBASE\b", syntax):
        # A BASE: rdflib resolves a relative IRI against some bases (tag:, urn:)
        # otherwise than the engine does.
        return None
    if _UNREPEATABLE.search(syntax):
        # The same data need not give the same answer twice: each part asks again, as
        # a validation without skipping does.
        return None
    node = algebra.p
    while node.name in ("Project", "Distinct", "Filter"):
        node = node.p
    optionals = []
    while node.name == "LeftJoin":
        if node.expr.name != "TrueFilter" or node.p2.name != "BGP" or len(node.p2.triples) != 1:
            return None
        optionals.append(node.p2.triples[0])
        node = node.p1
    if node.name != "BGP":
        return None
    triples = list(_triples(algebra))
    read: set[str] = set()
    for _, predicate, obj in triples:
        if not isinstance(predicate, URIRef) or not _ABSOLUTE.match(predicate):
            return None
        if predicate == RDF.type:
            if not isinstance(obj, URIRef) or not _ABSOLUTE.match(obj):
                return None
            read.add(str(obj))
        else:
            read.add(str(predicate))
    bound = {term for triple in node.triples for term in triple if isinstance(term, Variable)}
    from_bound = Counter(
        str(predicate)
        for subject, predicate, obj in optionals
        if subject in bound and isinstance(obj, Variable) and obj not in bound
    )
    # Read anywhere else too (the group, a filter, another kind of OPTIONAL), as a
    # predicate or as a class: not followed (owned() asks of predicates only, and a
    # class read matches the differing graphs' own nodes).
    elsewhere = Counter(str(predicate) for _, predicate, _ in triples) - from_bound
    elsewhere.update(str(obj) for _, predicate, obj in triples if predicate == RDF.type)
    optional = {p for p in from_bound if not elsewhere[p] and p != str(RDF.type)}
    return frozenset(read), frozenset(optional)


def _triples(node: object) -> Iterator[tuple[object, object, object]]:
    """Every triple pattern anywhere in rdflib's algebra (a filter's EXISTS too), or a
    sentinel predicate for a construct whose reads are not triple patterns."""
    if isinstance(node, CompValue) and node.name in _OTHER_READS:
        yield (None, _SERVICE, None)
    if isinstance(node, CompValue | dict):
        for key, value in node.items():
            if key == "triples" and isinstance(value, list):
                for triple in value:
                    if isinstance(triple, list | tuple) and len(triple) == 3:
                        yield (triple[0], triple[1], triple[2])
                    else:
                        yield (None, _SERVICE, None)
            else:
                yield from _triples(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _triples(value)


def followed(check: Check, shapes: rdflib.Graph) -> frozenset[str]:
    """The predicates ``check`` reads only as forward steps of its path from the focus
    nodes of node shapes with targets; empty when that cannot be told."""
    if check.component not in _VALUES_ONLY or read_iris(check) is None:
        return frozenset()
    shape, path = check.source_shape, check.path
    if any((shape, target, None) in shapes for target in (SH.targetNode, SH.target)):
        # The property shape's own targets give it checks of their own, with the same
        # shape and path: focus nodes whatever the data holds, or the author's SPARQL.
        return frozenset()
    steps = [str(step) for step in iri_steps(shapes, path)]
    owners = list(shapes.subjects(SH.property, shape))
    if not steps or not owners or (shape, SH.path, path) not in shapes:
        return frozenset()
    for owner in owners:
        # Not a property shape's property (its focus is a value of another path), and
        # its focus nodes come from targets only.
        if shapes.value(owner, SH.path) is not None or not _targeted(shapes, owner):
            return frozenset()
    # An IRI any shape targets by (a predicate, or a class, implicit ones too) may
    # select focus nodes: never followed.
    targets = {str(o) for p in _TARGETS for o in shapes.objects(None, p)}
    targets |= {str(s) for s in shapes.subjects(RDF.type, RDFS.Class)}
    return frozenset(steps) - targets - {str(RDF.type)}


def _targeted(shapes: rdflib.Graph, shape: Node) -> bool:
    """Whether ``shape`` has targets, and only ones that select nodes of the data by
    their triples: not a SPARQL-based target (its text is the shapes author's), nor
    ``sh:targetNode``, whose nodes are focus nodes whatever the data holds (one a
    bundle alone holds, an acceptance card, too)."""
    if (shape, SH.target, None) in shapes or (shape, SH.targetNode, None) in shapes:
        return False
    implicit = (shape, RDF.type, RDFS.Class) in shapes
    return implicit or any((shape, p, None) in shapes for p in _TARGETS)


def owned(
    store: Store, graphs: Iterable[str], common: Iterable[str], predicates: Iterable[str]
) -> frozenset[str]:
    """Those of ``predicates`` that no triple of ``graphs`` has with a subject that a
    triple of the ``common`` graphs holds, as its subject or its object."""
    shared = " ".join(f"<{g}>" for g in sorted(common) if not _UNWRITABLE.search(g))
    asked = sorted(p for p in predicates if not _UNWRITABLE.search(p))
    if not asked:
        return frozenset()
    found = set(asked)
    for graph in graphs:
        if _UNWRITABLE.search(graph):
            return frozenset()
        # One question a graph, each subject looked up in the common graphs as it
        # comes (FILTER EXISTS): written as a join, Oxigraph read the common graphs
        # whole (12-14 s against 0.3-0.6 s at 10k claims).
        rows = store.select(
            f"SELECT DISTINCT ?p WHERE {{ VALUES ?p {{ {' '.join(f'<{p}>' for p in asked)} }} "
            f"GRAPH <{graph}> {{ ?s ?p ?o }} "
            f"FILTER EXISTS {{ VALUES ?c {{ {shared} }} "
            "{ GRAPH ?c { ?s ?q ?x } } UNION { GRAPH ?c { ?y ?q ?s } } } }"
        )
        found -= {str(row["p"]) for row in rows}
    return frozenset(found)


def candidates(checks: list[Check], changed: frozenset[str], shapes: rdflib.Graph) -> set[str]:
    """The predicates whose ownership (:func:`owned`) would let a check be skipped: of
    the checks some IRI of ``changed`` makes run, those that read no other."""
    found: set[str] = set()
    for check in checks:
        read = reads(check, shapes)
        left = read[0] & changed if read is not None else frozenset()
        if read is not None and left and left <= read[1]:
            found |= left
    return found


def answered(
    checks: list[Check],
    changed: frozenset[str],
    owned: frozenset[str] = frozenset(),
    shapes: rdflib.Graph | None = None,
) -> set[int]:
    """The positions in ``checks`` of those whose answer the first part gave: every IRI
    they read is absent from the graphs that differ (``changed`` are the IRIs found
    there by :func:`present`), or is an ``owned`` predicate (:func:`owned`) they read
    only from nodes their focus binds (:func:`reads`, which needs the ``shapes``)."""
    found: set[int] = set()
    for position, check in enumerate(checks):
        if shapes is not None:
            read = reads(check, shapes)
        else:
            iris = read_iris(check)
            read = None if iris is None else (iris, frozenset())
        if read is None:
            continue
        left = read[0] & changed
        if left:
            left -= owned & read[1]
        if not left:
            found.add(position)
    return found


__all__ = [
    "answered",
    "candidates",
    "followed",
    "owned",
    "present",
    "read_iris",
    "reads",
    "sparql_reads",
]
