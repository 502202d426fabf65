"""The triples a fixed set of queries can read, so a working copy need hold no others.

Reading an on-disk Oxigraph store costs about 25 µs per quad here (each term
is looked up by id), and a remote server exports some 26k triples a second, so
copying only what the evaluation's queries can match halves the copy: the
texts, quotes, selectors' classes and retrieval ranks stay behind.

A query whose triple patterns all have a constant predicate (IRI or property
path of IRIs) can only match triples with one of those predicates; an
``rdf:type`` pattern with a constant class only matches that class. The IRIs
are collected from the query text with a tokenizer (prefixed names and
``<IRI>``s outside comments and strings), a superset of the patterns'
predicates and classes. ``tests/library/test_projection.py`` checks, with rdflib's
SPARQL algebra, that every evaluation query has constant predicates only and
that this superset covers them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hopgate.vocab import PREFIXES, RDF_TYPE, sparql_prologue

# One alternative per lexical element that may hide or be an IRI; the order
# matters: an IRI may contain '#', a string may contain anything.
_TOKEN = re.compile(
    r"""(?P<iri><[^<>"{}|^`\\\s]*>)"""
    r"""|(?P<long>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\")"""
    r"""|(?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
    r"""|(?P<comment>\#[^\n]*)"""
    r"""|(?P<pname>(?<![\w?$])(?P<prefix>[A-Za-z][\w.-]*)?:(?P<local>[A-Za-z_0-9][\w.-]*)?)""",
)


@dataclass(frozen=True)
class Projection:
    """The quads to copy: every quad with one of ``predicates``, and ``rdf:type`` quads
    whose class is one of ``classes``."""

    predicates: frozenset[str]
    classes: frozenset[str]

    def keeps(self, predicate: str, obj: str) -> bool:
        """True when a quad with this predicate and object (an IRI's text) is copied."""
        if predicate == RDF_TYPE:
            return obj in self.classes
        return predicate in self.predicates


def query_iris(text: str, prefixes: dict[str, str] | None = None) -> set[str]:
    """Every IRI written in a SPARQL query or update, prefixed names expanded.

    ``prefixes`` defaults to hopgate's prologue; PREFIX lines in the text add
    to them. Comments and string literals are skipped.
    """
    known = dict(PREFIXES if prefixes is None else prefixes)
    known.update(re.findall(r"(?i)\bPREFIX\s+([\w.-]*):\s*<([^>]*)>", text))
    found: set[str] = set()
    for match in _TOKEN.finditer(text):
        if match.group("iri"):
            found.add(match.group("iri")[1:-1])
        elif match.group("pname") is not None:
            # A local name does not end with '.', the triple's terminator.
            prefix = match.group("prefix") or ""
            local = (match.group("local") or "").rstrip(".")
            if prefix in known:
                found.add(known[prefix] + local)
    return found


def without_literals(text: str, *, comments: bool = True) -> str:
    """A SPARQL text with its string literals and comments left out (each kept as ``""``
    or a line end), so that what is left is syntax: IRIs, names, operators.
    ``comments=False`` leaves the comments in (what a reader of IRIs took for one)."""

    def blank(match: re.Match[str]) -> str:
        if match.group("long") or match.group("string"):
            return '""'
        return "\n" if match.group("comment") and comments else match.group(0)

    return _TOKEN.sub(blank, text)


def projection_of(texts: Iterable[str]) -> Projection:
    """The projection that serves every query in ``texts`` (see the module docstring)."""
    iris: set[str] = set()
    for text in texts:
        iris |= query_iris(text)
    # ``a`` is rdf:type without being written as an IRI.
    return Projection(frozenset(iris | {RDF_TYPE}), frozenset(iris))


def query_projection(text: str) -> Projection | None:
    """The projection that serves one query (an auditor's, say), read from its algebra;
    None when it may read any triple: a variable or negated predicate, a zero-length
    path (``*``, ``?``: it matches every node), ``rdf:type`` of a variable class,
    DESCRIBE, or a text rdflib's parser does not read.

    Unlike :func:`projection_of`, which trusts the library's queries to have constant
    predicates (tests/library/test_projection.py holds them to it), this checks.
    """
    # rdflib is imported here: its parser is needed by this function only.
    from rdflib import paths
    from rdflib.plugins.sparql import prepareQuery
    from rdflib.term import URIRef

    try:
        algebra = prepareQuery(sparql_prologue() + text).algebra
    except Exception:  # noqa: BLE001 (any text rdflib cannot read: copy everything)
        return None
    if getattr(algebra, "name", "") == "DescribeQuery":
        return None

    def iris(predicate: object) -> set[str] | None:
        if isinstance(predicate, URIRef):
            return {str(predicate)}
        if isinstance(predicate, paths.SequencePath | paths.AlternativePath):
            found: set[str] = set()
            for arg in predicate.args:
                more = iris(arg)
                if more is None:
                    return None
                found |= more
            return found
        if isinstance(predicate, paths.InvPath):
            return iris(predicate.arg)
        if isinstance(predicate, paths.MulPath) and predicate.mod == paths.OneOrMore:
            return iris(predicate.path)
        return None  # a variable, a negated set, a zero-length path

    predicates: set[str] = {RDF_TYPE}
    classes: set[str] = set()
    for mapping in algebra_nodes(algebra):
        triples = mapping.get("triples")
        if not isinstance(triples, list):
            continue
        for triple in triples:
            # Tuples where the algebra is translated; lists inside EXISTS, which it is not.
            if not (isinstance(triple, tuple | list) and len(triple) == 3):
                return None
            found = iris(triple[1])
            if found is None:
                return None
            if RDF_TYPE in found:
                if not isinstance(triple[2], URIRef):
                    return None
                classes.add(str(triple[2]))
            predicates |= found
    return Projection(frozenset(predicates), frozenset(classes))


def algebra_nodes(node: object) -> Iterator[dict[str, object]]:
    """Every mapping anywhere in rdflib's SPARQL algebra (its CompValues are dicts)."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from algebra_nodes(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from algebra_nodes(value)
