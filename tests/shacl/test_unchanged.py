"""A run's part of ``validate`` does not run again the checks whose answer the loads' part
gave (hopgate.shacl.unchanged): the report is the one every check run everywhere gives."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from algebra import path_iris, patterns
from rdflib import paths
from rdflib.plugins.sparql import prepareQuery
from rdflib.term import URIRef, Variable
from test_compiler import SHAPES

from hopgate import evaluate, load, open_store
from hopgate.shacl import unchanged
from hopgate.shacl.compiler import compile_shapes
from hopgate.shacl.validation import shapes_graph, validate
from hopgate.store import catalog
from hopgate.vocab import RDF_TYPE

ROOT = Path(__file__).resolve().parents[2]


def _repeats(predicate: Any) -> bool:
    if isinstance(predicate, paths.MulPath):
        return True
    if isinstance(predicate, paths.SequencePath | paths.AlternativePath):
        return any(_repeats(arg) for arg in predicate.args)
    if isinstance(predicate, paths.InvPath):
        return _repeats(predicate.arg)
    return False


@pytest.mark.parametrize("subclasses", [False, True])
@pytest.mark.parametrize("shapes", ["shipped", "compiler tests"])
def test_a_check_that_may_be_skipped_reads_only_the_iris_its_text_names(
    shapes: str, subclasses: bool
) -> None:
    """The premise of skipping: every triple pattern of such a check has a constant
    predicate named in its text, no repeated step, and an rdf:type of a named class."""
    graph = shapes_graph() if shapes == "shipped" else SHAPES
    checks = compile_shapes(graph, subclasses=subclasses)
    judged = 0
    for check in checks:
        iris = unchanged.read_iris(check)
        if iris is None:
            continue
        judged += 1
        found: list[tuple[Any, Any]] = []
        patterns(prepareQuery(check.prologue + check.query).algebra, found)
        for predicate, obj in found:
            assert not isinstance(predicate, Variable), check.query
            assert not _repeats(predicate), check.query
            if predicate == URIRef(RDF_TYPE):
                # ``a``: read by its class (unchanged.present asks for rdf:type triples
                # of a named class).
                assert isinstance(obj, URIRef) and str(obj) in iris, check.query
            else:
                assert path_iris(predicate) <= iris, check.query
    # Most core checks qualify, and not one with class membership through subclasses.
    assert judged > len(checks) // 2 if not subclasses else judged < len(checks)


def _results(store: Any) -> list[tuple[str, ...]]:
    found = validate(store)
    return sorted(
        (r.focus, r.source_shape, r.severity, r.message, r.value or "") for r in found.results
    )


def test_skipping_the_loads_checks_in_each_run_part_changes_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs on one load with a broken span (a load check fails) and a broken card (a
    bundle check fails): the same results with and without skipping, and the span
    checks are skipped in both runs' parts."""
    sys.path.insert(0, str(ROOT))
    from bench.synthetic import write_ledger

    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, 12, seed=3, runs=2)
    with open_store(tmp_path / "store") as store:
        load(store, ledger)
        evaluate(store)
        assert len(catalog.runs(store)) == 2
        store._store.update(
            "PREFIX oa: <http://www.w3.org/ns/oa#> "
            "DELETE { GRAPH ?g { ?p oa:end ?e } } INSERT { GRAPH ?g { ?p oa:end 0 } } "
            "WHERE { GRAPH ?g { ?p a oa:TextPositionSelector ; oa:end ?e } }"
        )
        store._store.update(
            "PREFIX hg: <https://w3id.org/hopgate/ns#> "
            "DELETE { GRAPH ?g { ?card hg:verdict ?v } } "
            "WHERE { GRAPH ?g { ?card a hg:AcceptanceCard ; hg:verdict ?v } }"
        )
        skipped: list[set[int]] = []
        answered = unchanged.answered

        def spy(checks: Any, changed: frozenset[str]) -> set[int]:
            found = answered(checks, changed)
            skipped.append(found)
            return found

        monkeypatch.setattr(unchanged, "answered", spy)
        with_skipping = _results(store)
        assert len(skipped) == 2 and all(skipped)
        checks = compile_shapes(shapes_graph())
        names = {str(checks[i].source_shape).rsplit("#", 1)[-1] for i in skipped[0]}
        # (The results name their shapes in the report's short form, ``shapes:...``.)
        assert {"SpanAnchorShape", "PositionSelector-order"} <= names
        assert not any("Card" in name for name in names)
        monkeypatch.setattr(unchanged, "answered", lambda checks, changed: set())
        without = _results(store)
    assert with_skipping == without
    kinds = {row[1].rsplit(":", 1)[-1] for row in without}
    assert "PositionSelector-order" in kinds and any("Card" in kind for kind in kinds)


def test_a_graph_that_holds_what_a_check_reads_makes_it_run(tmp_path: Path) -> None:
    """present() finds a predicate, or a class of an rdf:type triple, in the differing
    graphs; answered() then keeps every check that names it."""
    with open_store(None) as store:
        store.update(
            "INSERT DATA { GRAPH <http://ex/g> { <http://ex/a> a <http://ex/C> ; "
            "<http://ex/p> 1 } }"
        )
        iris = ["http://ex/C", "http://ex/p", "http://ex/q", RDF_TYPE]
        assert unchanged.present(store, ["http://ex/g"], iris) == {
            "http://ex/C",
            "http://ex/p",
            RDF_TYPE,
        }
        assert unchanged.present(store, ["http://ex/other"], iris) == frozenset()
