"""The evaluation's working copy holds every triple its queries can match."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from rdflib import paths
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.processor import prepareUpdate
from rdflib.term import URIRef, Variable

import hopgate
from hopgate.library.artefacts import library_query, library_update
from hopgate.library.projection import RDF_TYPE, Projection, projection_of, query_iris
from hopgate.library.steps import (
    BUNDLE_QUERIES,
    RESULT_QUERIES,
    SCRATCH_UPDATES,
    evaluation_projection,
    reading_projection,
)
from hopgate.store import snapshots
from hopgate.store.snapshots import FOLDER
from hopgate.vocab import HG, PROV, sparql_prologue

EXAMPLE = Path(__file__).parents[2] / "examples" / "cedar.yaml"


def _patterns(node: Any, found: list[tuple[Any, Any]]) -> None:
    """Every (predicate, object) of a triple pattern anywhere in rdflib's algebra."""
    if isinstance(node, CompValue | dict):
        for key, value in node.items():
            if key == "triples" and isinstance(value, list):
                found.extend((t[1], t[2]) for t in value if isinstance(t, tuple) and len(t) == 3)
            else:
                _patterns(value, found)
    elif isinstance(node, list | tuple):
        for value in node:
            _patterns(value, found)


def _path_iris(predicate: Any) -> set[str]:
    """The IRIs a predicate or property path can match; fails on a variable or negation."""
    if isinstance(predicate, URIRef):
        return {str(predicate)}
    if isinstance(predicate, paths.SequencePath | paths.AlternativePath):
        return set().union(*(_path_iris(arg) for arg in predicate.args))
    if isinstance(predicate, paths.InvPath):
        return _path_iris(predicate.arg)
    if isinstance(predicate, paths.MulPath):
        return _path_iris(predicate.path)
    raise AssertionError(f"a pattern the projection cannot serve: predicate {predicate!r}")


def _algebra(name: str) -> Any:
    if name in SCRATCH_UPDATES:
        return prepareUpdate(sparql_prologue() + library_update(name).text).algebra
    return prepareQuery(sparql_prologue() + library_query(name).text).algebra


@pytest.mark.parametrize("name", SCRATCH_UPDATES + RESULT_QUERIES + BUNDLE_QUERIES)
def test_the_projection_keeps_every_pattern_of_its_queries(name: str) -> None:
    projection = reading_projection() if name in BUNDLE_QUERIES else evaluation_projection()
    found: list[tuple[Any, Any]] = []
    _patterns(_algebra(name), found)
    assert found, "no triple pattern found: the algebra walk is broken"
    for predicate, obj in found:
        assert not isinstance(predicate, Variable), f"{name}: a variable predicate reads anything"
        for iri in _path_iris(predicate):
            assert iri in projection.predicates, f"{name}: {iri} is not copied"
            if iri == RDF_TYPE:
                assert isinstance(obj, URIRef), f"{name}: rdf:type of a variable class"
                assert str(obj) in projection.classes, f"{name}: class {obj} is not copied"


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


# ---- snapshots: the projected quads of a load graph, kept beside the store ----


def _verdicts(store: Any) -> list[dict[str, Any]]:
    from evaluated import verdicts

    return [{**row.as_dict(), "card": None} for row in verdicts(store)]


def _snapshot(store: Any, graph: str, projection: Projection) -> Path | None:
    """The verified snapshot of ``graph`` for ``projection``, as an evaluation would use it."""
    return snapshots.verified(store, graph, projection, snapshots.recorded(store, [graph]))


@pytest.mark.parametrize("projection", [evaluation_projection(), reading_projection()])
def test_a_load_keeps_a_recorded_snapshot_of_what_its_projection_keeps(
    tmp_path: Path, projection: Projection
) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, EXAMPLE)
    snapshot = _snapshot(store, loaded.graph, projection)
    assert snapshot is not None
    kept = ox.Store()
    kept.bulk_load(path=str(snapshot), format=ox.RdfFormat.N_QUADS)
    # Exactly the graph's quads that the projection keeps.
    expected = [
        quad
        for quad in store._store.quads_for_pattern(None, None, None, ox.NamedNode(loaded.graph))
        if projection.keeps(quad.predicate.value, quad.object.value)
    ]
    assert len(kept) == len(expected) > 0
    assert all(quad in kept for quad in expected)
    snapshots.remove(store, loaded.graph)
    assert not snapshots.snapshot_path(
        tmp_path / "store" / FOLDER, loaded.graph, projection
    ).exists()
    store.close()


def test_an_evaluation_bundle_keeps_a_snapshot_for_its_readers(tmp_path: Path) -> None:
    from hopgate.decide.evaluation import evaluate

    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, EXAMPLE)
    bundles = [record.graph for record in evaluate(store)]
    assert bundles
    for bundle in bundles:
        assert _snapshot(store, bundle, reading_projection()) is not None
    store.close()


def _metrics(store: Any) -> dict[str, Any]:
    from evaluated import metrics

    return {run: {**m.as_dict(), "evaluation": None} for run, m in metrics(store).items()}


def test_evaluation_without_snapshots_reads_the_store_and_agrees(tmp_path: Path) -> None:
    from hopgate.decide.evaluation import evaluate

    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, EXAMPLE)
    with_snapshots = _verdicts(store), _metrics(store)
    shutil.rmtree(tmp_path / "store" / FOLDER)  # as a store loaded by an older hopgate
    evaluate(store, force=True)
    shutil.rmtree(tmp_path / "store" / FOLDER)  # the new bundle's snapshot too
    assert (_verdicts(store), _metrics(store)) == with_snapshots
    memory = hopgate.open_store(None)
    hopgate.load(memory, EXAMPLE)
    assert (_verdicts(memory), _metrics(memory)) == with_snapshots
    store.close()


def test_a_snapshot_of_another_projection_is_not_used(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, EXAMPLE)
    other = projection_of(["SELECT * { ?s hg:ofRun ?o }"])
    assert _snapshot(store, loaded.graph, other) is None
    with snapshots.working_copy(store, other, [loaded.graph]) as copy:
        assert copy.count() == store.count(loaded.graph) - _not_kept(store, loaded.graph, other)
    store.close()


def _not_kept(store: Any, graph: str, projection: Projection) -> int:
    return sum(
        not projection.keeps(quad.predicate.value, quad.object.value)
        for quad in store._store.quads_for_pattern(None, None, None, ox.NamedNode(graph))
    )
