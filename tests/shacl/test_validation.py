"""The in-store engine (shapes compiled to SPARQL) against the reference engine, pySHACL.

pySHACL defines correctness: every fixture of the SHACL manifest is run through
the compiled checks and compared with the expected report, and on real stores
both engines must give the same results, message for message.
"""

from __future__ import annotations

import io
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import rdflib
from conftest import CEDAR, LEDGERS
from rdflib.namespace import SH
from rdflib.term import URIRef
from test_shapes import ENTRIES, HGT, MANIFEST, MF, _data, _key, _shapes

import hopgate
from hopgate import load, open_store
from hopgate.decide.evaluation import evaluate
from hopgate.errors import QueryError, UnsupportedShape, ValidationError
from hopgate.shacl.compiler import compile_shapes, path_sparql
from hopgate.shacl.components.base import Check
from hopgate.shacl.graphs import validate_graph
from hopgate.shacl.runner import run_checks
from hopgate.shacl.validation import ShapeResult, _merge_reports, validate
from hopgate.store import OxigraphStore

ROOT = Path(__file__).resolve().parents[2]


def _store_of(data: rdflib.Graph) -> OxigraphStore:
    store = open_store(None)
    quads = "".join(f"{s.n3()} {p.n3()} {o.n3()} <urn:data> .\n" for s, p, o in data)
    store._store.load(quads.encode(), format=ox.RdfFormat.N_QUADS)
    return store


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: str(e).rpartition("#")[2])
def test_fixture_in_store(entry: URIRef) -> None:
    """Each manifest entry, run as compiled SPARQL in a store, gives the expected report."""
    action = MANIFEST.value(entry, MF.action)
    expected = MANIFEST.value(entry, MF.result)
    shapes = _shapes(str(MANIFEST.value(action, HGT.shapes)))
    with _store_of(_data(action)) as store:
        report = run_checks(store, compile_shapes(shapes), shapes)
    actual = list(report.objects(None, SH.result))
    wanted = list(MANIFEST.objects(expected, SH.result))
    assert Counter(_key(report, r) for r in actual) == Counter(_key(MANIFEST, r) for r in wanted)
    values = {(_key(report, r), report.value(r, SH.value)) for r in actual}
    for result in wanted:
        value = MANIFEST.value(result, SH.value)
        if value is not None:
            assert (_key(MANIFEST, result), value) in values
    assert all(report.value(r, SH.resultMessage) is not None for r in actual)


def _comparable(results: list[ShapeResult]) -> list[tuple[str, str, str, str, str | None]]:
    return sorted((r.focus, r.source_shape, r.severity, r.message, r.value) for r in results)


MUTATIONS = {
    "none": None,
    "no-verdict": "DELETE { GRAPH ?g { ?card hg:verdict ?v } } "
    "WHERE { GRAPH ?g { ?card a hg:AcceptanceCard ; hg:verdict ?v } }",
    "no-digest": "DELETE { GRAPH ?g { ?v hg:digest ?d } } WHERE { GRAPH ?g { ?v a hg:Version ; hg:digest ?d } }",
    "no-status": "DELETE { GRAPH ?g { ?s hg:setStatus ?x } } "
    "WHERE { GRAPH ?g { ?s a hg:EvidenceSet ; hg:setStatus ?x } }",
    "bad-order": "DELETE { GRAPH ?g { ?p oa:end ?e } } INSERT { GRAPH ?g { ?p oa:end 0 } } "
    "WHERE { GRAPH ?g { ?p a oa:TextPositionSelector ; oa:end ?e } }",
    "no-cited-route": "DELETE { GRAPH ?g { ?card hg:citedRoute ?r } } "
    "WHERE { GRAPH ?g { ?card a hg:AcceptanceCard ; hg:citedRoute ?r } }",
}


@pytest.fixture(scope="module")
def example_nquads(cedar: OxigraphStore) -> bytes:
    """The worked example, loaded and evaluated, as N-Quads."""
    buffer = io.BytesIO()
    cedar.dump(buffer, format="nquads")
    return buffer.getvalue()


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_engines_agree_on_the_worked_example(example_nquads: bytes, mutation: str) -> None:
    """Both engines report the same results (focus, shape, severity, message, value)."""
    store = open_store(None)
    store._store.load(example_nquads, format=ox.RdfFormat.N_QUADS)
    with store:
        update = MUTATIONS[mutation]
        if update is not None:
            store.update(update)
        in_store = validate(store, engine="store")
        reference = validate(store, engine="pyshacl")
    assert in_store.engine == "store" and reference.engine == "pyshacl"
    assert _comparable(in_store.results) == _comparable(reference.results)
    assert in_store.conforms is reference.conforms
    assert (mutation == "none") is in_store.conforms


def test_engines_agree_on_a_synthetic_ledger(tmp_path: Path) -> None:
    """On a generated ledger (duplicate and superset sets included) the engines agree."""
    sys.path.insert(0, str(ROOT))
    from bench.synthetic import write_ledger

    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, 12, seed=3)
    with open_store(None) as store:
        load(store, ledger)
        evaluate(store)
        in_store = validate(store, engine="store")
        reference = validate(store, engine="pyshacl")
    assert _comparable(in_store.results) == _comparable(reference.results)


def test_run_and_graph_scopes_in_store(example_nquads: bytes) -> None:
    """--run and --graph validate a part of the store in a scratch store; the store is untouched."""
    store = open_store(None)
    store._store.load(example_nquads, format=ox.RdfFormat.N_QUADS)
    with store:
        before = store.count()
        whole = validate(store)
        by_run = validate(store, run="sys-a", strict=True)
        graph = sorted(store.graphs())[0]
        by_graph = validate(store, graph=graph)
        assert by_run.conforms and by_run.engine == "store"
        assert 0 < by_run.triples < whole.triples
        assert by_graph.triples == store.count(graph)
        assert store.count() == before
        with pytest.raises(ValidationError, match="either a graph or a run"):
            validate(store, graph=graph, run="sys-a")


def test_unsupported_shapes_fall_back_to_pyshacl(tmp_path: Path, example_nquads: bytes) -> None:
    """A shape the compiler does not translate exactly is run by pySHACL instead.

    Here ``$this`` is read in a UNION branch, where a join with the focus nodes
    is not pre-binding (W3C sparql/pre-binding-002).
    """
    extra = tmp_path / "union.ttl"
    extra.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "@prefix hg: <https://w3id.org/hopgate/ns#> .\n"
        "<urn:x:EveryClaim> a sh:NodeShape ; sh:targetClass hg:Claim ;\n"
        '  sh:sparql [ sh:select """SELECT $this WHERE { { FILTER(false) } UNION '
        '{ FILTER(isIRI($this)) } }""" ] .\n'
    )
    with pytest.raises(UnsupportedShape, match="not bound"):
        compile_shapes(rdflib.Graph().parse(extra))
    store = open_store(None)
    store._store.load(example_nquads, format=ox.RdfFormat.N_QUADS)
    with store:
        result = validate(store, extra_shapes=[extra])
    assert result.engine == "pyshacl"
    assert not result.conforms
    assert {r.source_shape for r in result.violations} == {"urn:x:EveryClaim"}


def test_closed_shapes_compile_and_agree(tmp_path: Path, example_nquads: bytes) -> None:
    """sh:closed (with sh:ignoredProperties) runs in the store and agrees with pySHACL."""
    extra = tmp_path / "closed.ttl"
    extra.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "@prefix hg: <https://w3id.org/hopgate/ns#> .\n"
        "<urn:x:ClosedClaim> a sh:NodeShape ; sh:targetClass hg:Claim ; sh:closed true ;\n"
        "  sh:ignoredProperties ( <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ) .\n"
    )
    store = open_store(None)
    store._store.load(example_nquads, format=ox.RdfFormat.N_QUADS)
    with store:
        in_store = validate(store, extra_shapes=[extra])
        reference = validate(store, extra_shapes=[extra], engine="pyshacl")
    assert in_store.engine == "store"
    assert not in_store.conforms

    def unworded(results: list[ShapeResult]) -> list[tuple[str, str, str]]:
        # pySHACL words a default message (the shape gives none) and reports
        # values as rdflib re-wrote them ("Z" as "+00:00").
        return sorted((r.focus, r.source_shape, r.severity) for r in results)

    assert unworded(in_store.results) == unworded(reference.results)


def test_path_sparql() -> None:
    """SHACL paths become SPARQL property paths (sequence, inverse, alternative, repetition)."""
    graph = rdflib.Graph().parse(
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        <urn:s> sh:path ( <urn:a> [ sh:inversePath <urn:b> ] [ sh:zeroOrMorePath <urn:c> ] ) .
        <urn:t> sh:path [ sh:alternativePath ( <urn:a> <urn:b> ) ] .
        """,
        format="turtle",
    )
    first = graph.value(URIRef("urn:s"), SH.path)
    second = graph.value(URIRef("urn:t"), SH.path)
    assert path_sparql(graph, first) == "(<urn:a>/^<urn:b>/(<urn:c>)*)"  # type: ignore[arg-type]
    assert path_sparql(graph, second) == "(<urn:a>|<urn:b>)"  # type: ignore[arg-type]


def test_counts_other_than_one_agree_with_pyshacl() -> None:
    """minCount 2 and maxCount 2 (the grouped-count patterns) report what pySHACL reports."""
    import pyshacl

    shapes = rdflib.Graph().parse(
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        <urn:s:Pair> a sh:NodeShape ; sh:targetClass <urn:C> ;
            sh:property [ sh:path <urn:p> ; sh:minCount 2 ; sh:maxCount 2 ] ,
                        [ sh:path ( <urn:q> <urn:p> ) ; sh:maxCount 0 ] .
        """,
        format="turtle",
    )
    data = rdflib.Graph().parse(
        data="""
        <urn:none> a <urn:C> .
        <urn:one> a <urn:C> ; <urn:p> 1 .
        <urn:two> a <urn:C> ; <urn:p> 1, 2 .
        <urn:three> a <urn:C> ; <urn:p> 1, 2, 3 ; <urn:q> <urn:two> .
        """,
        format="turtle",
    )
    _, expected, _ = pyshacl.validate(data, shacl_graph=shapes)
    assert isinstance(expected, rdflib.Graph)
    with _store_of(data) as store:
        report = run_checks(store, compile_shapes(shapes), shapes)

    def focus_and_component(graph: rdflib.Graph) -> Counter[tuple[str, str]]:
        return Counter(
            (str(graph.value(r, SH.focusNode)), str(graph.value(r, SH.sourceConstraintComponent)))
            for r in graph.objects(None, SH.result)
        )

    assert focus_and_component(report) == focus_and_component(expected)
    assert sum(focus_and_component(report).values()) == 4


def test_a_later_load_never_fails_an_earlier_card(hg: Any) -> None:
    """History validates against its own past: a later load never fails an earlier card."""
    hg("load", str(CEDAR))
    hg("evaluate")
    hg("load", str(LEDGERS / "more-for-a.yaml"))
    hg("evaluate")
    for args in ((), ("--all-history",), ("--run", "sys-a")):
        result = hg("validate", *args)
        assert result.exit_code == 0, (args, result.output)


def test_validation_still_finds_a_card_that_misses_a_set_it_could_see(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    (record,) = evaluate(store)
    store.update(f"DELETE WHERE {{ GRAPH <{record.graph}> {{ ?card hg:referenceRoute ?set }} }}")
    for all_history in (False, True):
        result = validate(store, all_history=all_history)
        assert not result.conforms
        assert any("evidence set" in r.message for r in result.violations)
    store.close()


def test_a_closed_property_shape_reports_its_value_nodes_other_properties(
    tmp_path: Path,
) -> None:
    """sh:closed on a shape with a path (found by the shapes fuzz test: its value
    nodes are ?value, which the result's value may not rebind): both engines
    report the value nodes' properties the shape does not name."""
    data = tmp_path / "data.ttl"
    data.write_text(
        "@prefix ex: <https://example.org/> .\nex:a ex:p ex:b . ex:b ex:p ex:a ; ex:q 2 .\n"
    )
    shapes = tmp_path / "shapes.ttl"
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <https://example.org/> .\n"
        "ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; sh:closed true ;\n"
        "    sh:ignoredProperties ( ex:p ) .\n"
    )
    found = {}
    for engine in ("store", "pyshacl"):
        report = validate_graph(data, shapes, engine=engine, time_limit=20)
        found[engine] = {(str(r.focus_node), str(r.path), str(r.value)) for r in report.results}
    assert found["store"] == {("https://example.org/a", "https://example.org/q", "2")}
    assert found["store"] == found["pyshacl"]


def test_checks_answered_two_at_a_time_keep_their_order_and_their_errors() -> None:
    """The runner answers checks ahead in threads: the report is each check's own rows,
    a check that does not parse is the QueryError it was one at a time, and no
    thread outlives the call."""
    data = rdflib.Graph()
    for n in range(5):
        data.add((URIRef(f"urn:x{n}"), URIRef("urn:p"), rdflib.Literal(n)))

    def check(query: str, shape: str) -> Check:
        return Check(
            query=query,
            source_shape=URIRef(shape),
            component=SH.SPARQLConstraintComponent,
            severity=SH.Violation,
            messages=(),
        )

    odd = check("SELECT ?this WHERE { ?this <urn:p> ?n FILTER(?n IN (1, 3)) }", "urn:odd")
    every = check("SELECT ?this WHERE { ?this <urn:p> ?n }", "urn:every")
    broken = check("SELECT ?this WHERE { ?this <urn:p> }", "urn:broken")
    with _store_of(data) as store:
        report = run_checks(store, [odd, every, odd], rdflib.Graph())
        with pytest.raises(QueryError, match="does not parse"):
            run_checks(store, [every, broken, odd], rdflib.Graph())
    shapes = Counter(str(report.value(r, SH.sourceShape)) for r in report.objects(None, SH.result))
    assert shapes == {"urn:odd": 4, "urn:every": 5}
    assert not [t for t in threading.enumerate() if t.name.startswith("hopgate-ahead")]


def test_a_result_found_twice_is_reported_once_with_its_path() -> None:
    """The merged report holds each distinct result once, whichever part (or the same
    part twice) found it, and a dropped copy leaves none of its path's triples."""

    def report(copies: int, focus: str) -> rdflib.Graph:
        graph = rdflib.Graph()
        root = rdflib.BNode()
        graph.add((root, rdflib.RDF.type, SH.ValidationReport))
        for _ in range(copies):
            result, path = rdflib.BNode(), rdflib.BNode()
            graph.add((root, SH.result, result))
            graph.add((result, SH.focusNode, URIRef(focus)))
            graph.add((result, SH.sourceShape, URIRef("urn:shape")))
            graph.add((result, SH.resultPath, path))
            graph.add((path, SH.inversePath, URIRef("urn:p")))
        return graph

    merged = _merge_reports([report(2, "urn:a"), report(1, "urn:a"), report(1, "urn:b")])
    assert sorted(str(f) for f in merged.objects(None, SH.focusNode)) == ["urn:a", "urn:b"]
    assert len(list(merged.subject_objects(SH.inversePath))) == 2
    assert list(merged.objects(None, SH.conforms)) == [rdflib.Literal(False)]
    assert list(_merge_reports([]).objects(None, SH.conforms)) == [rdflib.Literal(True)]
