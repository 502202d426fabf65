"""The evaluation's working copy holds every triple its queries can match."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from algebra import path_iris, patterns, values_bound
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.processor import prepareUpdate
from rdflib.term import URIRef, Variable

from hopgate.audit.peers import PEERS
from hopgate.library.artefacts import library_query, library_update
from hopgate.library.projection import RDF_TYPE, Projection, projection_of, query_iris
from hopgate.library.steps import (
    BUNDLE_QUERIES,
    PEER_QUERIES,
    RESULT_QUERIES,
    SCRATCH_UPDATES,
    evaluation_projection,
    reader_projection,
    reading_projection,
)
from hopgate.vocab import HG, PROV, sparql_prologue

EXAMPLE = Path(__file__).parents[2] / "examples" / "cedar.yaml"


def _algebra(name: str) -> Any:
    if name in SCRATCH_UPDATES:
        return prepareUpdate(sparql_prologue() + library_update(name).text).algebra
    return prepareQuery(sparql_prologue() + library_query(name).text).algebra


#: Each copy's queries and the projection the copy is made with.
COPIES = [
    *((name, evaluation_projection) for name in SCRATCH_UPDATES + RESULT_QUERIES),
    *((name, reading_projection) for name in BUNDLE_QUERIES),
    ("withheld", reader_projection),
    *((name, reading_projection) for name in PEER_QUERIES),
]


def test_the_peer_figures_are_the_peer_queries() -> None:
    # The recorded answers and the peer copy hold PEER_QUERIES; the figures read PEERS.
    assert tuple(query_id for query_id, _ in PEERS) == PEER_QUERIES


@pytest.mark.parametrize(("name", "projected"), COPIES)
def test_the_projection_keeps_every_pattern_of_its_queries(
    name: str, projected: Callable[[], Projection]
) -> None:
    projection = projected()
    found: list[tuple[Any, Any]] = []
    algebra = _algebra(name)
    patterns(algebra, found)
    assert found, "no triple pattern found: the algebra walk is broken"
    # A class variable is served when VALUES binds it to kept classes only
    # (queries/withheld.rq: ?node a ?class . VALUES ?class { hg:Span hg:Version }).
    bound: dict[Any, set[Any]] = {}
    values_bound(algebra, bound)
    for predicate, obj in found:
        assert not isinstance(predicate, Variable), f"{name}: a variable predicate reads anything"
        for iri in path_iris(predicate):
            assert iri in projection.predicates, f"{name}: {iri} is not copied"
            if iri == RDF_TYPE:
                classes = bound.get(obj, set()) if isinstance(obj, Variable) else {obj}
                assert classes, f"{name}: rdf:type of a variable class"
                for cls in classes:
                    assert isinstance(cls, URIRef), f"{name}: rdf:type of a variable class"
                    assert str(cls) in projection.classes, f"{name}: class {cls} is not copied"


def test_the_projection_leaves_texts_and_ranks_behind() -> None:
    projection = evaluation_projection()
    for left in (PROV + "value", HG + "rank", "http://www.w3.org/ns/oa#exact", HG + "digest"):
        assert not projection.keeps(left, "")
    assert projection.keeps(PROV + "hadMember", "")
    assert projection.keeps(RDF_TYPE, HG + "OutputClaim")
    assert not projection.keeps(RDF_TYPE, PROV + "Entity")


def test_query_iris_skips_comments_and_strings() -> None:
    text = (
        "PREFIX ex: <http://example.org/ns#>\n"
        "# hg:inAComment <http://example.org/commented>\n"
        'SELECT ?s WHERE { ?s ex:p "hg:inAString" ; <http://example.org/q#x> ?o .\n'
        "  ?o hg:ledgerId ?id . FILTER (?id != 'prov:single') }"
    )
    assert query_iris(text) == {
        "http://example.org/ns#",
        "http://example.org/ns#p",
        "http://example.org/q#x",
        HG + "ledgerId",
    }


def test_projection_of_several_texts_is_their_union() -> None:
    projection = projection_of(["SELECT * { ?s a hg:Run }", "SELECT * { ?s prov:used ?o }"])
    assert projection == Projection(
        frozenset({HG + "Run", PROV + "used", RDF_TYPE}), frozenset({HG + "Run", PROV + "used"})
    )


def test_a_query_s_projection_is_read_from_its_algebra_or_is_everything() -> None:
    from hopgate.library.projection import query_projection

    found = query_projection(
        "SELECT ?t WHERE { ?s a hg:Claim ; prov:value ?t . ?s ^hg:asserts/hg:cites+ ?c }"
    )
    assert found is not None
    assert {PROV + "value", HG + "asserts", HG + "cites"} <= found.predicates
    assert found.classes == {HG + "Claim"}
    for text in (
        "SELECT * WHERE { ?s ?p ?o }",  # a variable predicate
        "SELECT * WHERE { ?s hg:cites* ?o }",  # a zero-length path matches every node
        "SELECT * WHERE { ?s hg:cites? ?o }",
        "SELECT * WHERE { ?s !hg:cites ?o }",  # a negated set
        "SELECT * WHERE { ?s a ?class }",
        "SELECT * WHERE { FILTER EXISTS { ?s ?p ?o } }",
        "DESCRIBE <https://example.org/x>",
        "SELECT * WHERE { this is not SPARQL",
    ):
        assert query_projection(text) is None, text
