"""The vocabulary in ontology/hopgate.ttl keeps the rules of STYLE.md point 12.

Every hg: term has an English label, a comment ending in a one-line Turtle
example that parses, rdfs:isDefinedBy, and a place in PROV-O (or oa:). Every
hg: term that docs/model.md uses, that the loader or the evaluation writes
(src/hopgate/*.py) or that a library query reads (queries/*.rq, queries/*.ru) is declared.
These tests read files only (the sources as text), so they do not import
hopgate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS
from rdflib.term import Node

pytestmark = pytest.mark.metadata

ROOT = Path(__file__).parents[2]
ONTOLOGY_PATH = ROOT / "ontology" / "hopgate.ttl"
MODEL_PATH = ROOT / "docs" / "model.md"
SOURCE_DIR = ROOT / "src" / "hopgate"
QUERY_DIR = ROOT / "queries"

HG = Namespace("https://w3id.org/hopgate/ns#")
PROV = Namespace("http://www.w3.org/ns/prov#")
OA = Namespace("http://www.w3.org/ns/oa#")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")
ONTOLOGY = URIRef("https://w3id.org/hopgate/ns")
PROV_O = URIRef("http://www.w3.org/ns/prov-o")
FOREIGN = (str(PROV), str(OA))

TERM_TYPES = (OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.NamedIndividual)

# Prefixes in scope for the one-line example at the end of every comment.
EXAMPLE_PREFIXES = f"""\
@prefix prov: <{PROV}> .
@prefix oa: <{OA}> .
@prefix hg: <{HG}> .
@prefix xsd: <{XSD}> .
@prefix rdf: <{RDF}> .
@prefix rdfs: <{RDFS}> .
@prefix dcterms: <{DCTERMS}> .
@prefix ex: <https://w3id.org/hopgate/id/> .
"""

# Terms the verdict engine writes; docs/model.md covers the loader's terms.
# Several are composed at run time (f"<{HG}{name}>"), which the source scan
# below cannot see, so they are listed here.
VERDICT_ENGINE_TERMS = [
    "EvaluationActivity",
    "AcceptanceCard",
    "Verdict",
    "Accept",
    "ReviseCitations",
    "Abstain",
    "Reject",
    "Escalate",
    "SetStatus",
    "ContradictionStatus",
    "CoveragePolicy",
    "LedgerFile",
    "Answerability",
    "Answerable",
    "Blocked",
    "NotFound",
    "verdict",
    "forOutput",
    "answerability",
    "referenceRoute",
    "retrievedRoute",
    "citedRoute",
    "missingSpan",
    "deliveredCitation",
    "inadmissibleCitation",
    "contradictionConsidered",
    "supported",
    "retrievedComplete",
    "citationComplete",
    "evaluationOf",
    "ledgerDigest",
    "ledgerFile",
]

# How Python sources name an hg: term: f"<{HG}Name>", HG + "Name", or the
# prefixed name hg:Name inside a SPARQL string or a docstring.
SOURCE_TERM_PATTERNS = (
    re.compile(r"\bHG\}([A-Za-z][A-Za-z0-9_]*)"),
    re.compile(r"\bHG\s*\+\s*[\"']([A-Za-z][A-Za-z0-9_]*)"),
    re.compile(r"\bhg:([A-Za-z][A-Za-z0-9_]*)"),
)
QUERY_TERM_PATTERN = re.compile(r"\bhg:([A-Za-z][A-Za-z0-9_]*)")

# The PROV-O class each kind of thing falls under; prov:Activity and
# prov:Entity are disjoint in PROV-O, so a term must not mix them.
PROV_KIND = {
    PROV.Entity: "entity",
    PROV.Plan: "entity",
    PROV.Collection: "entity",
    PROV.Bundle: "entity",
    PROV.Activity: "activity",
    PROV.Agent: "agent",
    PROV.SoftwareAgent: "agent",
    PROV.Person: "agent",
    PROV.Organization: "agent",
    OA.Selector: "selector",
    PROV.Usage: "qualified influence",
}

# Domain and range kinds of the PROV-O relations hg: properties specialise
# (None: any of entity, activity, agent).
#: The kinds PROV-O allows at each end (domain, range) of a relation hg: specialises.
#: prov:wasInfluencedBy relates any two of entity, activity and agent.
INFLUENCE = frozenset({"entity", "activity", "agent"})
PROV_SIGNATURE: dict[URIRef, tuple[frozenset[str], frozenset[str]]] = {
    PROV.used: (frozenset({"activity"}), frozenset({"entity"})),
    PROV.wasGeneratedBy: (frozenset({"entity"}), frozenset({"activity"})),
    PROV.wasDerivedFrom: (frozenset({"entity"}), frozenset({"entity"})),
    PROV.wasQuotedFrom: (frozenset({"entity"}), frozenset({"entity"})),
    PROV.wasRevisionOf: (frozenset({"entity"}), frozenset({"entity"})),
    PROV.hadMember: (frozenset({"entity"}), frozenset({"entity"})),
    PROV.wasAttributedTo: (frozenset({"entity"}), frozenset({"agent"})),
    PROV.wasAssociatedWith: (frozenset({"activity"}), frozenset({"agent"})),
    PROV.wasInformedBy: (frozenset({"activity"}), frozenset({"activity"})),
    PROV.wasInfluencedBy: (INFLUENCE, INFLUENCE),
}


def load_ontology() -> Graph:
    """Parse ontology/hopgate.ttl; raises if it is missing or not Turtle."""
    return Graph().parse(ONTOLOGY_PATH, format="turtle")


@cache
def _ontology() -> Graph:
    return load_ontology()


def declared_terms(graph: Graph) -> set[URIRef]:
    """Return the hg: terms the graph declares.

    A term is declared when it has an rdf:type of owl:Class, owl:ObjectProperty,
    owl:DatatypeProperty or owl:NamedIndividual, or of an hg: class.
    """
    terms: set[URIRef] = set()
    for subject, kind in graph.subject_objects(RDF.type):
        if not isinstance(subject, URIRef) or not subject.startswith(HG):
            continue
        if kind in TERM_TYPES or (isinstance(kind, URIRef) and kind.startswith(HG)):
            terms.add(subject)
    return terms


def _terms_of(*types: URIRef) -> list[URIRef]:
    """Declared hg: terms of the given OWL types, sorted; empty if unparsable."""
    try:
        graph = _ontology()
    except Exception:  # reported by test_ontology_parses
        return []
    terms = declared_terms(graph)
    if types:
        terms = {t for t in terms if any((t, RDF.type, k) in graph for k in types)}
    return sorted(terms)


def _model_terms() -> list[str]:
    """Local names of every hg: term docs/model.md mentions."""
    text = MODEL_PATH.read_text(encoding="utf-8")
    return sorted(set(re.findall(r"\bhg:([A-Za-z][A-Za-z0-9_]*)", text)))


@cache
def _code_terms() -> dict[str, list[str]]:
    """Local names of every hg: term the sources and library queries use,
    each with the files (relative to the project root) that use it."""
    found: dict[str, set[str]] = {}
    files = [(path, SOURCE_TERM_PATTERNS) for path in sorted(SOURCE_DIR.rglob("*.py"))]
    files += [(path, (QUERY_TERM_PATTERN,)) for path in sorted(QUERY_DIR.glob("*.r[qu]"))]
    for path, patterns in files:
        text = path.read_text(encoding="utf-8")
        for pattern in patterns:
            for name in pattern.findall(text):
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return {name: sorted(where) for name, where in sorted(found.items())}


def _short(term: object) -> str:
    return str(term).removeprefix(str(HG))


def _ancestors(graph: Graph, node: Node, link: URIRef) -> Iterator[Node]:
    """Yield every node reachable from node along link (excluding node)."""
    seen: set[Node] = set()
    todo = list(graph.objects(node, link))
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        yield current
        todo.extend(graph.objects(current, link))


def _members(graph: Graph, node: Node) -> list[Node]:
    """A named class as itself, or the members of an owl:unionOf class."""
    union = graph.value(node, OWL.unionOf)
    if isinstance(node, BNode) and union is not None:
        return list(Collection(graph, union))
    return [node]


def _kinds(graph: Graph, cls: Node) -> set[str]:
    """The PROV-O kinds (entity, activity, agent, selector) a class falls under."""
    lineage = (cls, *_ancestors(graph, cls, RDFS.subClassOf))
    return {PROV_KIND[c] for c in lineage if c in PROV_KIND}


def _example(comment: str) -> str:
    _, marker, example = comment.rpartition("Example: ")
    assert marker, "comment has no 'Example: '"
    return example


# --------------------------------------------------------------------------
# The header


def test_ontology_parses() -> None:
    assert len(load_ontology()) > 0


def test_header() -> None:
    graph = _ontology()
    assert (ONTOLOGY, RDF.type, OWL.Ontology) in graph
    assert graph.value(ONTOLOGY, OWL.versionIRI) == URIRef("https://w3id.org/hopgate/ns/0.1.0")
    assert graph.value(ONTOLOGY, OWL.versionInfo) == Literal("0.1.0")
    assert (ONTOLOGY, OWL.imports, PROV_O) in graph
    assert graph.value(ONTOLOGY, DCTERMS.license) == URIRef(
        "https://www.apache.org/licenses/LICENSE-2.0"
    )
    for prop in (DCTERMS.title, DCTERMS.description):
        assert graph.value(ONTOLOGY, prop) is not None, prop


def test_no_undeclared_hg_term_is_used() -> None:
    """A typo such as hg:Spann in a domain would otherwise pass unnoticed."""
    graph = _ontology()
    used = {
        node
        for triple in graph
        for node in triple
        if isinstance(node, URIRef) and node.startswith(HG)
    }
    assert not {_short(t) for t in used - declared_terms(graph)}


# --------------------------------------------------------------------------
# Coverage of docs/model.md and of the verdict engine's terms


@pytest.mark.parametrize("name", _model_terms())
def test_model_term_is_declared(name: str) -> None:
    assert HG[name] in declared_terms(_ontology())


@pytest.mark.parametrize("name", VERDICT_ENGINE_TERMS)
def test_verdict_engine_term_is_declared(name: str) -> None:
    assert HG[name] in declared_terms(_ontology())


def test_code_scan_finds_the_terms_it_should() -> None:
    """Guards the scan below: a broken pattern would make it vacuous."""
    terms = _code_terms()
    for name, where in {
        "Load": "src/hopgate/ingest/loader.py",  # f"<{HG}Load>"
        "Evaluation": "src/hopgate/ingest/index.py",  # HG + "Evaluation"
        "ClaimCase": "src/hopgate/decide/evaluation.py",
        "sourceAgeDays": "queries/metrics-strata.rq",
    }.items():
        assert where in terms.get(name, []), (name, where)


@pytest.mark.parametrize("name", list(_code_terms()))
def test_term_used_by_loader_engine_or_queries_is_declared(name: str) -> None:
    """Every hg: term the loader or the evaluation writes, or a query reads."""
    files = ", ".join(_code_terms()[name])
    assert HG[name] in declared_terms(_ontology()), f"hg:{name} is used in {files}"


# --------------------------------------------------------------------------
# Per-term documentation


@pytest.mark.parametrize("term", _terms_of(), ids=_short)
def test_term_has_english_label(term: URIRef) -> None:
    labels = list(_ontology().objects(term, RDFS.label))
    assert any(isinstance(x, Literal) and x.language == "en" for x in labels)


@pytest.mark.parametrize("term", _terms_of(), ids=_short)
def test_term_is_defined_by_the_ontology(term: URIRef) -> None:
    assert (term, RDFS.isDefinedBy, ONTOLOGY) in _ontology()


@pytest.mark.parametrize("term", _terms_of(), ids=_short)
def test_term_comment_ends_with_example(term: URIRef) -> None:
    comments = list(_ontology().objects(term, RDFS.comment))
    assert len(comments) == 1, "expected exactly one rdfs:comment"
    example = _example(str(comments[0]))
    assert "\n" not in example.strip(), "the example must be one line"


@pytest.mark.parametrize("term", _terms_of(), ids=_short)
def test_term_example_parses_and_uses_the_term(term: URIRef) -> None:
    example = _example(str(_ontology().value(term, RDFS.comment)))
    parsed = Graph().parse(data=EXAMPLE_PREFIXES + example, format="turtle")
    assert len(parsed) > 0
    assert any(term in triple for triple in parsed), "example does not use the term"


# --------------------------------------------------------------------------
# Place in PROV-O


@pytest.mark.parametrize("term", _terms_of(OWL.Class), ids=_short)
def test_class_specialises_prov_or_oa(term: URIRef) -> None:
    graph = _ontology()
    ancestors = list(_ancestors(graph, term, RDFS.subClassOf))
    assert any(str(c).startswith(FOREIGN) for c in ancestors), ancestors
    assert not {"entity", "activity"} <= _kinds(graph, term), "entity and activity"


@pytest.mark.parametrize("term", _terms_of(OWL.ObjectProperty), ids=_short)
def test_object_property_is_placed(term: URIRef) -> None:
    """A PROV-O/oa superproperty, or else (not a provenance relation) a
    domain and a range."""
    graph = _ontology()
    parents = [p for p in _ancestors(graph, term, RDFS.subPropertyOf) if str(p).startswith(FOREIGN)]
    if not parents:
        assert graph.value(term, RDFS.domain) is not None, "no superproperty, no domain"
        assert graph.value(term, RDFS.range) is not None, "no superproperty, no range"


def _prov_parents(term: URIRef) -> list[URIRef]:
    """The PROV-O relations ``term`` specialises (directly or through hg: ones)."""
    try:
        graph = _ontology()
    except Exception:  # reported by test_ontology_parses
        return []
    ancestors = _ancestors(graph, term, RDFS.subPropertyOf)
    return sorted(p for p in ancestors if p in PROV_SIGNATURE)  # type: ignore[misc]


@pytest.mark.parametrize(
    "term", [t for t in _terms_of(OWL.ObjectProperty) if _prov_parents(t)], ids=_short
)
def test_object_property_agrees_with_its_prov_parent(term: URIRef) -> None:
    """Domain and range fall under the kinds PROV-O allows for the parent, so
    data using the term cannot make an activity an entity. (An object property
    with no PROV-O parent is placed by its domain and range alone:
    test_object_property_is_placed.)"""
    graph = _ontology()
    ends = {"domain": graph.value(term, RDFS.domain), "range": graph.value(term, RDFS.range)}
    for end, node in ends.items():
        assert node is not None, f"no rdfs:{end}: nothing to hold against its PROV-O parent"
    for parent in _prov_parents(term):
        for end, allowed in zip(("domain", "range"), PROV_SIGNATURE[parent], strict=True):
            for cls in _members(graph, ends[end]):  # type: ignore[arg-type]
                kinds = _kinds(graph, cls)
                assert kinds, f"{end} {_short(cls)} is under no PROV-O class"
                assert kinds <= allowed, (
                    f"{end} {_short(cls)} is {sorted(kinds)}, {_short(parent)} allows "
                    f"{sorted(allowed)}"
                )


@pytest.mark.parametrize("term", _terms_of(OWL.DatatypeProperty), ids=_short)
def test_datatype_property_has_prov_or_hg_domain_and_range(term: URIRef) -> None:
    graph = _ontology()
    domain = graph.value(term, RDFS.domain)
    assert domain is not None, "no rdfs:domain"
    for cls in _members(graph, domain):
        assert str(cls).startswith((str(HG), *FOREIGN)), cls
        assert _kinds(graph, cls), f"{cls} is not under a PROV-O class"
    assert graph.value(term, RDFS.range) is not None, "no rdfs:range"


@pytest.mark.parametrize("term", _terms_of(OWL.NamedIndividual), ids=_short)
def test_individual_has_hg_class(term: URIRef) -> None:
    graph = _ontology()
    classes = [c for c in graph.objects(term, RDF.type) if c != OWL.NamedIndividual]
    assert classes, "no class besides owl:NamedIndividual"
    for cls in classes:
        assert (cls, RDF.type, OWL.Class) in graph, f"{cls} is not a declared class"
