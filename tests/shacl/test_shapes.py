"""The shapes of ``shapes/``: fixtures from the manifest, SHACL-for-SHACL, the worked example."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node, URIRef

from hopgate import IRI, open_store
from hopgate.library.artefacts import artefact
from hopgate.shacl.validation import (
    SHAPES,
    path_text,
    read_report,
    shapes_graph,
    validate,
    validate_graphs,
)
from hopgate.store import OxigraphStore, catalog

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "shacl"
SHAPES_DIR = ROOT / "shapes"
MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = rdflib.Namespace("http://www.w3.org/ns/shacl-test#")
HGT = rdflib.Namespace("https://w3id.org/hopgate/tests#")
NAMESPACES = {
    "hg": rdflib.Namespace("https://w3id.org/hopgate/ns#"),
    "prov": rdflib.Namespace("http://www.w3.org/ns/prov#"),
    "oa": rdflib.Namespace("http://www.w3.org/ns/oa#"),
}

MANIFEST = rdflib.Graph().parse(
    FIXTURES / "manifest.ttl", publicID=(FIXTURES / "manifest.ttl").as_uri()
)
ENTRIES = sorted(MANIFEST.subjects(RDF.type, SHT.Validate), key=str)

Expected = tuple[str, str, str, str]


def _shapes(names: str) -> rdflib.Graph:
    if names == "*":
        return shapes_graph()
    graph = rdflib.Graph()
    for name in names.split():
        graph.parse(SHAPES_DIR / f"{name}.ttl")
    return graph


def _data(action: Node) -> rdflib.Graph:
    source = MANIFEST.value(action, SHT.dataGraph)
    assert isinstance(source, URIRef)
    data = rdflib.Graph().parse(source)
    update = MANIFEST.value(action, HGT.update)
    if update is not None:
        data.update(str(update), initNs=NAMESPACES)
    return data


def _key(graph: rdflib.Graph, result: Node) -> Expected:
    path = graph.value(result, SH.resultPath)
    return (
        str(graph.value(result, SH.focusNode)),
        "" if path is None else path_text(graph, path),
        str(graph.value(result, SH.resultSeverity)),
        str(graph.value(result, SH.sourceShape)),
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: str(e).rpartition("#")[2])
def test_fixture(entry: URIRef) -> None:
    """Each manifest entry: the report equals the expected one (focus, path, severity, shape)."""
    action = MANIFEST.value(entry, MF.action)
    expected_report = MANIFEST.value(entry, MF.result)
    assert action is not None and expected_report is not None
    shapes = _shapes(str(MANIFEST.value(action, HGT.shapes)))
    data = _data(action)
    from pyshacl import validate as shacl_validate

    _, report, _ = shacl_validate(data, shacl_graph=shapes, allow_warnings=True)
    assert isinstance(report, rdflib.Graph)
    actual_results = list(report.objects(None, SH.result))
    expected_results = list(MANIFEST.objects(expected_report, SH.result))
    assert Counter(_key(report, r) for r in actual_results) == Counter(
        _key(MANIFEST, r) for r in expected_results
    )
    # Where the fixture names the offending value, the report names it too.
    actual_values = {(_key(report, r), report.value(r, SH.value)) for r in actual_results}
    for result in expected_results:
        value = MANIFEST.value(result, SH.value)
        if value is not None:
            assert (_key(MANIFEST, result), value) in actual_values
    # Every result carries the shape's message, and pySHACL's conforms (Warnings allowed) agrees.
    assert all(report.value(r, SH.resultMessage) is not None for r in actual_results)
    conforms = MANIFEST.value(expected_report, SH.conforms)
    results = read_report(report, shapes=shapes, data=data)
    assert all(r.severity != "Violation" for r in results) is bool(conforms.toPython())  # type: ignore[union-attr]


@pytest.mark.metadata
def test_every_shape_has_a_violating_fixture() -> None:
    """Each shape IRI that can report a result is the source shape of some fixture's result."""
    reported = {str(s) for s in MANIFEST.objects(None, SH.sourceShape)}
    graph = shapes_graph()
    reporting = {
        str(s)
        for s in graph.subjects(SH.severity, None)
        if isinstance(s, URIRef) and str(s).startswith(SHAPES)
    }
    reporting |= {
        str(s) for s in graph.subjects(SH.sparql, None) if isinstance(s, URIRef)
    }  # SPARQL results name the node shape
    reporting -= {str(c) for c in graph.subjects(RDF.type, SH.SPARQLConstraint)}
    assert reporting - reported == set()


# ------------------------------------------------------------ the shapes files


def _shape_files() -> list[Path]:
    return sorted(SHAPES_DIR.glob("*.ttl"))


@pytest.mark.metadata
def test_shapes_are_packaged() -> None:
    """The wheel's data package holds the same shapes files as the repository folder."""
    packaged = {e.name for e in artefact("shapes").iterdir()}
    assert {p.name for p in _shape_files()} <= packaged


@pytest.mark.conformance
@pytest.mark.parametrize("path", _shape_files(), ids=lambda p: p.name)
def test_shapes_conform_to_shacl_shacl(path: Path) -> None:
    """Each shapes file validates against the W3C SHACL-for-SHACL shapes (shipped by pySHACL)."""
    import pyshacl

    shsh = Path(pyshacl.__file__).parent / "assets" / "shacl-shacl.ttl"
    conforms, _, text = pyshacl.validate(
        rdflib.Graph().parse(path), shacl_graph=rdflib.Graph().parse(shsh)
    )
    assert conforms, text


@pytest.mark.metadata
@pytest.mark.parametrize("path", _shape_files(), ids=lambda p: p.name)
def test_shapes_file_header_and_metadata(path: Path) -> None:
    """A header node with title, version and description; every named shape and SPARQL
    constraint has sh:name, sh:description and sh:message (node shapes that only group
    property shapes need no message); one severity per file, Warnings in *-warnings.ttl."""
    graph = rdflib.Graph().parse(path)
    owl = rdflib.Namespace("http://www.w3.org/2002/07/owl#")
    dcterms = rdflib.Namespace("http://purl.org/dc/terms/")
    headers = list(graph.subjects(RDF.type, owl.Ontology))
    assert len(headers) == 1
    for predicate in (dcterms.title, owl.versionInfo, dcterms.description):
        assert graph.value(headers[0], predicate) is not None, predicate
    shapes = {s for s in graph.subjects(RDF.type, SH.NodeShape) if isinstance(s, URIRef)}
    shapes |= {s for s in graph.subjects(RDF.type, SH.PropertyShape) if isinstance(s, URIRef)}
    constraints = set(graph.subjects(RDF.type, SH.SPARQLConstraint))
    assert shapes
    for shape in shapes | constraints:
        assert str(shape).startswith(SHAPES), shape
        assert graph.value(shape, SH.name) is not None, shape
        assert graph.value(shape, SH.description) is not None, shape
        groups_only = set(graph.predicates(shape, None)) <= {
            RDF.type,
            SH.name,
            SH.description,
            SH.targetClass,
            SH.property,
            SH.sparql,
            SH.targetSubjectsOf,
            SH.severity,
        }
        if not groups_only:
            assert graph.value(shape, SH.message) is not None, shape
    severities = set(graph.objects(None, SH.severity))
    assert severities == ({SH.Warning} if path.stem.endswith("-warnings") else {SH.Violation})


@pytest.mark.metadata
def test_report_reader_names_shapes() -> None:
    """read_report gives the shape's sh:name and the ledger id of the focus node."""
    data = rdflib.Graph().parse(FIXTURES / "base.ttl")
    data.update(
        "DELETE WHERE { <https://w3id.org/hopgate/id/card/card2> hg:verdict ?v }",
        initNs=NAMESPACES,
    )
    result = validate_graphs(data, shapes_graph())
    assert not result.conforms
    [only] = result.results
    assert (only.focus_id, only.shape, only.severity, only.path) == (
        "card2",
        "card verdict",
        "Violation",
        "hg:verdict",
    )
    assert "hg:verdict" in only.message
    report = rdflib.Graph().parse(data=result.report, format="turtle")
    assert len(read_report(report, shapes=shapes_graph())) == 1


# ---------------------------------------------------------- the worked example


@pytest.fixture(scope="module")
def evaluated_example(cedar: OxigraphStore) -> tuple[bytes, str]:
    """The worked example loaded and evaluated, as N-Quads, and its bundle graph."""
    latest = catalog.latest(cedar, "sys-a")
    assert latest is not None
    buffer = io.BytesIO()
    cedar.dump(buffer, format="nquads")
    return buffer.getvalue(), latest.bundle


def _store_from(nquads: bytes) -> OxigraphStore:
    store = open_store(None)
    store._store.load(nquads, format=ox.RdfFormat.N_QUADS)
    return store


def test_worked_example_conforms(evaluated_example: tuple[bytes, str]) -> None:
    """The worked example, loaded and evaluated, conforms (strictly) to every shape."""
    with _store_from(evaluated_example[0]) as store:
        result = validate(store, strict=True)
        assert result.conforms, result.results
        assert result.results == []
        by_run = validate(store, run="sys-a", strict=True)
        assert by_run.conforms and 0 < by_run.triples < result.triples


#: Card items and the term each message must name when the item is removed.
CARD_ITEMS = [
    "forOutput",
    "forClaim",
    "answerability",
    "referenceRoute",
    "deliveredCitation",
    "jointSupport",
    "contradictionConsidered",
    "verdict",
]


@pytest.mark.parametrize("item", CARD_ITEMS)
def test_removing_a_card_item_fails(evaluated_example: tuple[bytes, str], item: str) -> None:
    """Deleting one item from the cards of the bundle makes validation fail, naming the item."""
    nquads, bundle = evaluated_example
    with _store_from(nquads) as store:
        before = store.count(bundle)
        store.update(
            f"DELETE {{ GRAPH ?bundle {{ ?card hg:{item} ?o }} }} "
            f"WHERE {{ GRAPH ?bundle {{ ?card a hg:AcceptanceCard ; hg:{item} ?o }} }}",
            params={"bundle": IRI(bundle)},
        )
        assert store.count(bundle) < before
        result = validate(store)
        assert not result.conforms
        assert any(f"hg:{item}" in r.message for r in result.violations), [
            r.message for r in result.violations
        ]
        assert all(r.focus_id for r in result.violations)


@pytest.mark.parametrize(
    ("update", "term"),
    [
        ("DELETE WHERE { GRAPH ?g { ?v a hg:Version ; hg:digest ?d } }", "hg:digest"),
        (
            "DELETE WHERE { GRAPH ?g { ?f a hg:Fetch ; prov:endedAtTime ?t } }",
            "prov:endedAtTime",
        ),
        (
            "DELETE WHERE { GRAPH ?g { ?s a hg:EvidenceSet ; hg:annotationVersion ?n } }",
            "hg:annotationVersion",
        ),
        ("DELETE WHERE { GRAPH ?g { ?e a hg:Evaluation ; hg:reader ?r } }", "reader decision"),
        (
            "DELETE WHERE { GRAPH ?g { ?k a hg:Contradiction ; hg:contradictionStatus ?s } }",
            "hg:contradictionStatus",
        ),
    ],
    ids=["digest", "observation", "annotation-version", "reader", "treatment"],
)
def test_removing_what_a_card_points_to_fails(
    evaluated_example: tuple[bytes, str], update: str, term: str
) -> None:
    """Card items recorded outside the bundle (in the load graph) are checked through the card."""
    with _store_from(evaluated_example[0]) as store:
        store.update(update)
        result = validate(store, run="sys-a")
        assert not result.conforms
        card_results = [r for r in result.violations if "card/" in r.focus]
        assert any(term in r.message for r in card_results), [r.message for r in card_results]


@pytest.mark.metadata
def test_labels_are_readable() -> None:
    """The manifest labels every entry (what the fixture shows)."""
    assert all(MANIFEST.value(e, RDFS.label) is not None for e in ENTRIES)
