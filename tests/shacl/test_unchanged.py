"""A run's part of ``validate`` does not run again the checks whose answer the loads' part
gave (hopgate.shacl.unchanged): the report is the one every check run everywhere gives."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import rdflib
from algebra import mappings, path_iris, patterns
from rdflib import paths
from rdflib.namespace import SH
from rdflib.plugins.sparql import prepareQuery
from rdflib.term import URIRef, Variable
from test_compiler import SHAPES

from hopgate import evaluate, load, open_store
from hopgate.shacl import unchanged
from hopgate.shacl.compiler import compile_shapes
from hopgate.shacl.components.base import Check
from hopgate.shacl.validation import shapes_graph, validate
from hopgate.store import catalog
from hopgate.vocab import HG, RDF_TYPE

ROOT = Path(__file__).resolve().parents[2]


def _steps(predicate: Any) -> list[Any]:
    """A predicate's steps: itself, or a sequence path's parts."""
    return list(predicate.args) if isinstance(predicate, paths.SequencePath) else [predicate]


def _repeats(predicate: Any) -> bool:
    if isinstance(predicate, paths.MulPath):
        return True
    if isinstance(predicate, paths.SequencePath | paths.AlternativePath):
        return any(_repeats(arg) for arg in predicate.args)
    if isinstance(predicate, paths.InvPath):
        return _repeats(predicate.arg)
    return False


#: A closed shape reached through each construct that nests a shape: its compiled query
#: reads by every predicate although its component is sh:node, sh:or ... (found by a review).
NESTED_CLOSED = rdflib.Graph().parse(
    format="turtle",
    data="""
    @prefix sh: <http://www.w3.org/ns/shacl#> .
    @prefix ex: <http://ex/> .
    ex:Bare a sh:NodeShape ; sh:closed true .
    ex:ByNode a sh:NodeShape ; sh:targetClass ex:C ; sh:node ex:Bare .
    ex:ByOr a sh:NodeShape ; sh:targetClass ex:C ; sh:or ( ex:Bare ex:Bare ) .
    ex:ByAnd a sh:NodeShape ; sh:targetClass ex:C ; sh:and ( ex:Bare ) .
    ex:ByXone a sh:NodeShape ; sh:targetClass ex:C ; sh:xone ( ex:Bare ) .
    ex:ByNotNot a sh:NodeShape ; sh:targetClass ex:C ; sh:not [ sh:not ex:Bare ] .
    ex:ByQualified a sh:NodeShape ; sh:targetClass ex:C ;
        sh:property [ sh:path ex:p ; sh:qualifiedValueShape ex:Bare ; sh:qualifiedMinCount 1 ] .
    ex:ByProperty a sh:NodeShape ; sh:targetClass ex:C ;
        sh:property [ sh:path ex:p ; sh:node ex:Bare ] .
    """,
)


@pytest.mark.parametrize("subclasses", [False, True])
@pytest.mark.parametrize("shapes", ["shipped", "compiler tests", "nested closed"])
def test_a_check_that_may_be_skipped_reads_only_the_iris_its_text_names(
    shapes: str, subclasses: bool
) -> None:
    """The premise of skipping: every triple pattern of such a check has a constant
    predicate named in its text, no repeated step, and an rdf:type of a named class."""
    graph = {"shipped": shapes_graph(), "compiler tests": SHAPES}.get(shapes, NESTED_CLOSED)
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
    if shapes == "nested closed":
        # Each reads by every predicate (the qualified shape's count of its values, too).
        assert judged == 0 and len(checks) >= 7
        return
    # Most core checks qualify, and not one with class membership through subclasses.
    assert judged > len(checks) // 2 if not subclasses else judged < len(checks)


def _results(store: Any) -> list[tuple[str, ...]]:
    found = validate(store)
    return sorted(
        (r.focus, r.source_shape, r.severity, r.message, r.value or "") for r in found.results
    )


def _ledger(tmp_path: Path, claims: int, *, seed: int, runs: int) -> Path:
    """A synthetic ledger of ``bench/synthetic.py``."""
    sys.path.insert(0, str(ROOT))
    from bench.synthetic import write_ledger

    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, claims, seed=seed, runs=runs)
    return ledger


def _spy_on_skipping(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """Watch unchanged.answered: the names of the checks it skipped, one set a part."""
    skipped: list[set[str]] = []
    answered = unchanged.answered

    def spy(checks: Any, changed: frozenset[str], *rest: Any) -> set[int]:
        found = answered(checks, changed, *rest)
        skipped.append({str(checks[i].source_shape).rsplit("#", 1)[-1] for i in found})
        return found

    monkeypatch.setattr(unchanged, "answered", spy)
    return skipped


def test_skipping_the_loads_checks_in_each_run_part_changes_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs on one load with a broken span (a load check fails) and a broken card (a
    bundle check fails): the same results with and without skipping, and the span
    checks are skipped in both runs' parts."""
    with open_store(tmp_path / "store") as store:
        load(store, _ledger(tmp_path, 12, seed=3, runs=2))
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
        skipped = _spy_on_skipping(monkeypatch)
        with_skipping = _results(store)
        assert len(skipped) == 2 and all(skipped)
        names = skipped[0]
        # (The results name their shapes in the report's short form, ``shapes:...``.)
        assert {"SpanAnchorShape", "PositionSelector-order"} <= names
        # The versions' observation times: read along paths whose predicates the
        # bundle holds only about its own nodes (unchanged.owned).
        assert {"Version-observedAt", "EvidenceSet-annotatedAt"} <= names
        assert not any("Card" in name for name in names)
        monkeypatch.setattr(unchanged, "answered", lambda *args: set())
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


@pytest.mark.parametrize("about", ["its own nodes", "a version of the load"])
def test_a_bundle_triple_about_a_load_node_makes_the_path_checks_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, about: str
) -> None:
    """A predicate the bundle holds is skipped along a path only while every bundle
    triple with it is about the bundle's own nodes: one about a version of the load
    (a second fetch) makes the versions' checks run in the run's part, which then
    reports what skipping them would have hidden."""
    with open_store(tmp_path / "store") as store:
        load(store, _ledger(tmp_path, 6, seed=5, runs=1))
        evaluate(store)
        [run] = catalog.runs(store)
        bundle = catalog.latest(store, run).bundle
        subject = "?card" if about == "its own nodes" else "?version"
        store._store.update(
            "PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX hg: <https://w3id.org/hopgate/ns#> "
            f"INSERT {{ GRAPH <{bundle}> {{ {subject} prov:wasGeneratedBy <urn:second-fetch> }} }} "
            "WHERE { { SELECT ?card WHERE { GRAPH ?b { ?card a hg:AcceptanceCard } } LIMIT 1 } "
            "{ SELECT ?version WHERE { GRAPH ?l { ?version a hg:Version } } LIMIT 1 } }"
        )
        graphs = sorted(store.graphs())
        owned = unchanged.owned(
            store,
            [bundle],
            [g for g in graphs if g != bundle],
            ["http://www.w3.org/ns/prov#wasGeneratedBy"],
        )
        assert bool(owned) is (about == "its own nodes")
        with_skipping = _results(store)
        monkeypatch.setattr(unchanged, "answered", lambda *args: set())
        without = _results(store)
    assert with_skipping == without
    fetches = [row for row in without if row[1].endswith("Version-fetch")]
    assert bool(fetches) is (about == "a version of the load")


@pytest.mark.parametrize("about", ["a card", "a claim of the load"])
def test_a_bundle_ledger_id_of_a_load_node_makes_the_claim_family_checks_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, about: str
) -> None:
    """The claim-family checks (SPARQL) read hg:ledgerId only in OPTIONAL blocks from
    the sets and claims they bind, so a bundle's ids of its own cards leave their
    answer as it was; an id the bundle gives a claim of the load makes them run in
    the run's part, which reports the claim under that id too."""
    with open_store(tmp_path / "store") as store:
        load(store, _ledger(tmp_path, 6, seed=5, runs=1))
        evaluate(store)
        [run] = catalog.runs(store)
        bundle = catalog.latest(store, run).bundle
        families = [r for r in validate(store).results if "ClaimFamily" in r.source_shape]
        subject = "?card" if about == "a card" else f"<{families[0].focus}>"
        store._store.update(
            "PREFIX hg: <https://w3id.org/hopgate/ns#> "
            f'INSERT {{ GRAPH <{bundle}> {{ {subject} hg:ledgerId "forged" }} }} '
            "WHERE { SELECT ?card WHERE { GRAPH ?b { ?card a hg:AcceptanceCard } } LIMIT 1 }"
        )
        skipped = _spy_on_skipping(monkeypatch)
        with_skipping = _results(store)
        names = skipped[-1]
        monkeypatch.setattr(unchanged, "answered", lambda *args: set())
        without = _results(store)
    assert with_skipping == without
    assert ("ClaimFamilyShape" in names) is (about == "a card")
    forged = [row for row in without if "ClaimFamily" in row[1] and "forged" in row[3]]
    assert bool(forged) is (about == "a claim of the load")


def test_only_forward_steps_from_targeted_focus_nodes_are_followed() -> None:
    """followed() names a path's predicates only for a value check of a property shape
    of a node shape with targets, on a path of forward steps, and never a predicate
    some shape targets by."""
    shapes = rdflib.Graph().parse(
        format="turtle",
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        @prefix ex: <http://ex/> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        ex:Node a sh:NodeShape ; sh:targetClass ex:C ;
            sh:property ex:seq, ex:inverse, ex:targetted, ex:outer .
        ex:seq sh:path ( ex:p ex:q ) ; sh:minCount 1 ; sh:datatype ex:D .
        ex:inverse sh:path [ sh:inversePath ex:p ] ; sh:minCount 1 .
        ex:targetted sh:path ex:t ; sh:maxCount 1 .
        ex:outer sh:path ex:o ; sh:property ex:inner .
        ex:inner sh:path ex:i ; sh:minCount 1 .
        ex:Other a sh:NodeShape ; sh:targetSubjectsOf ex:t .
        ex:Classy a sh:NodeShape ; sh:targetClass ex:C ; sh:property ex:typed .
        ex:typed sh:path ex:r ; sh:class ex:K .
        ex:Implicit a sh:NodeShape, rdfs:Class ; sh:property ex:self .
        ex:self sh:path ( ex:s ex:Implicit ) ; sh:minCount 1 .
        """,
    )
    followed = {}
    for check in compile_shapes(shapes):
        name = str(check.source_shape).rsplit("/", 1)[-1]
        followed.setdefault(name, set()).update(unchanged.followed(check, shapes))
    assert followed["seq"] == {"http://ex/p", "http://ex/q"}
    assert followed["inverse"] == set()
    assert followed["targetted"] == set()  # ex:t selects ex:Other's focus nodes
    assert followed["inner"] == set()  # its focus nodes are ex:outer's values
    assert followed["typed"] == set()  # sh:class reads the values' types
    # A class that chooses focus nodes (here implicitly) is never followed as a step.
    assert followed["self"] == {"http://ex/s"}


@pytest.mark.parametrize("shapes", ["shipped", "compiler tests"])
def test_a_followed_predicate_is_read_only_forward_from_the_focus_node(shapes: str) -> None:
    """The premise of following: in the compiled query, every triple pattern that can
    read a followed predicate steps forward (an IRI, or a sequence of IRIs, never
    inverse or repeated) from ?this, or from a node such a step reached (a sequence
    written as its steps, compiler.pairs)."""
    graph = shapes_graph() if shapes == "shipped" else SHAPES
    judged = 0
    for check in compile_shapes(graph):
        steps = unchanged.followed(check, graph)
        if not steps:
            continue
        judged += 1
        found = []
        for mapping in mappings(prepareQuery(check.prologue + check.query).algebra):
            triples = mapping.get("triples")
            found += [t for t in (triples if isinstance(triples, list) else ()) if len(t) == 3]
        forward = [t for t in found if all(isinstance(s, URIRef) for s in _steps(t[1]))]
        reached = {Variable("this")}
        for _ in forward:  # the nodes reached from ?this, a forward step at a time
            reached |= {obj for subject, _, obj in forward if subject in reached}
        for triple in found:
            if path_iris(triple[1]) & steps:
                assert triple in forward and triple[0] in reached, check.query
    assert judged > 0


def _sparql(body: str) -> Check:
    return Check(
        query=f"SELECT ?this WHERE {{ {body} }}",
        source_shape=URIRef("urn:shape"),
        component=SH.SPARQLConstraintComponent,
        severity=SH.Violation,
        messages=(),
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # An id read in an OPTIONAL from a node the group binds: followed.
        ("?this a <urn:C> ; <urn:p> ?x . OPTIONAL { ?x <urn:id> ?name }", {"urn:id"}),
        # The same predicate also read in a filter: not followed.
        (
            "?this a <urn:C> ; <urn:p> ?x . OPTIONAL { ?x <urn:id> ?name } "
            "FILTER NOT EXISTS { ?this <urn:id> ?other }",
            set(),
        ),
        # The same IRI also read as a class (here of other nodes): not followed.
        ("?this a <urn:C> . ?e a <urn:id> . OPTIONAL { ?this <urn:id> ?z }", set()),
        ("?this a <urn:C> . OPTIONAL { ?this <urn:id> ?z } FILTER EXISTS { ?e a <urn:id> }", set()),
        # From a node the OPTIONAL's own pattern binds, or two patterns in it: not followed.
        ("?this a <urn:C> . OPTIONAL { ?y <urn:id> ?this }", set()),
        ("?this a <urn:C> . OPTIONAL { ?this <urn:p> ?x . ?x <urn:id> ?n }", None),
        # An OPTIONAL before the patterns that bind its subject changes the plan's
        # meaning (an empty left side joins anything): not this structure.
        ("OPTIONAL { ?x <urn:id> ?name } ?this a <urn:C> ; <urn:p> ?x", None),
        # What cannot be told from triple patterns: nothing is read by name.
        ("?this ?p ?o", None),
        ("?this <urn:p>/<urn:q> ?o", None),
        ("?this a ?class", None),
        ("GRAPH ?g { ?this <urn:p> ?o }", None),
        ("?this a <urn:C> FILTER EXISTS { GRAPH ?g { ?this <urn:p> ?o } }", None),
        ("{ ?this <urn:p> ?o } UNION { ?this <urn:q> ?o }", None),
        # A value the data does not fix (the clock, a random draw): asked in every part.
        ("?this a <urn:C> ; <urn:end> ?t FILTER(?t < NOW())", None),
        ("?this a <urn:C> FILTER(rand () < 0.5)", None),
        # The same words in a literal are no call.
        ('?this a <urn:C> ; <urn:note> "NOW()"', set()),
    ],
)
def test_sparql_reads_follow_only_single_optionals_from_bound_nodes(
    body: str, expected: set[str] | None
) -> None:
    """sparql_reads() names a predicate as read from bound nodes only for an OPTIONAL
    of one pattern whose subject the group's own patterns bind, and read nowhere
    else; any other structure, a variable or path predicate, or GRAPH gives None."""
    found = unchanged.sparql_reads(_sparql(body))
    assert (None if found is None else set(found[1])) == expected
    if found is not None:
        assert "urn:C" in found[0] or "urn:C" not in body


def _one_evaluated_run(tmp_path: Path) -> tuple[Any, str, str]:
    """A store of a small synthetic ledger with its one run evaluated: the store, the
    run's bundle and one of its acceptance cards (IRIs)."""
    store = open_store(tmp_path / "store")
    load(store, _ledger(tmp_path, 6, seed=5, runs=1))
    evaluate(store)
    (run,) = catalog.runs(store)
    bundle = catalog.latest(store, run).bundle
    card = store.select(
        f"SELECT ?c WHERE {{ GRAPH <{bundle}> {{ ?c a <{HG}AcceptanceCard> }} }} LIMIT 1"
    )[0]["c"]
    return store, bundle, str(card)


def _results_with(store: Any, shapes: Path) -> list[tuple[str, ...]]:
    """The results of validating ``store`` with the user shapes ``shapes`` as well."""
    found = validate(store, extra_shapes=[shapes])
    return sorted((r.focus, r.source_shape, r.message, r.value or "") for r in found.results)


def test_user_shapes_that_read_beyond_their_names_are_run_in_every_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four forms a review found skipped although a run's bundle changes their answer
    (each failed here before the fix): a value check from a ``sh:targetNode`` that only
    the bundle holds (an acceptance card); a closed shape nested under ``sh:node``,
    from that card and from nodes of the loads (one bundle triple about one of them); a
    SPARQL constraint that reads an IRI as a class and as an optional predicate; and a
    declared SPARQL-based component named with a core component's IRI. With skipping,
    ``validate`` reports what it reports without."""
    store, bundle, card = _one_evaluated_run(tmp_path)
    with store:
        store._store.update(
            f"INSERT DATA {{ GRAPH <{bundle}> {{ <{HG}Adjudicated> "
            '<http://www.w3.org/2000/01/rdf-schema#comment> "an adjudicated set" } }'
        )
        shapes = tmp_path / "review.ttl"
        shapes.write_text(
            f"""
            @prefix sh: <http://www.w3.org/ns/shacl#> .
            @prefix hg: <{HG}> .
            @prefix ex: <http://example.org/review#> .
            ex:CardSupported a sh:NodeShape ; sh:targetNode <{card}> ; sh:targetClass hg:Version ;
                sh:property ex:CardSupported-none .
            ex:CardSupported-none sh:path hg:supported ; sh:maxCount 0 .
            ex:CardBare a sh:NodeShape ; sh:targetNode <{card}> ; sh:node ex:NoProperties .
            ex:StatusBare a sh:NodeShape ; sh:targetObjectsOf hg:setStatus ;
                sh:node ex:NoProperties .
            ex:NoProperties a sh:NodeShape ; sh:closed true .
            ex:VersionNoCards a sh:NodeShape ; sh:targetClass hg:Version ; sh:sparql [
                sh:message "an acceptance card exists beside {{$this}}" ;
                sh:select \"\"\"SELECT $this WHERE {{ $this a <{HG}Version> .
                    ?e a <http://www.w3.org/ns/prov#Entity> .
                    OPTIONAL {{ $this <http://www.w3.org/ns/prov#Entity> ?z }}
                    FILTER(STRSTARTS(STR(?e), "https://w3id.org/hopgate/id/card/")) }}\"\"\" ] .
            sh:HasValueConstraintComponent sh:parameter [ sh:path ex:noCoverage ] ;
                sh:nodeValidator [ sh:message "{{$this}} is covered" ; sh:select
                    \"\"\"SELECT $this WHERE {{ $this ?p ?o .
                        FILTER(STRENDS(STR(?p), "coversSpan")) }}\"\"\" ] .
            ex:SpanShape a sh:NodeShape ; sh:targetClass hg:Span ; ex:noCoverage true .
            """,
            encoding="utf-8",
        )

        skipped = _spy_on_skipping(monkeypatch)
        with_skipping = _results_with(store, shapes)
        # The shipped checks of the loads are still skipped in the run's part.
        assert "SpanAnchorShape" in skipped[-1]
        review = {"CardSupported-none", "CardBare", "StatusBare", "VersionNoCards", "SpanShape"}
        assert not skipped[-1] & review
        monkeypatch.setattr(unchanged, "answered", lambda *args: set())
        without = _results_with(store, shapes)
    assert with_skipping == without
    assert review <= {row[1].rsplit("#", 1)[-1] for row in without}


def test_user_shapes_whose_reads_cannot_be_told_are_run_in_every_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four more forms a second review found: a property shape with an sh:targetNode of
    its own (an acceptance card), read along a predicate the bundle owns; a path IRI
    written with an escape (``\\u0074``), and one beside a target IRI holding a no-break
    space and a ``#`` (the tokenizer read the rest as a comment); and a SPARQL constraint
    with a ``tag:`` BASE, which rdflib resolves otherwise than the engine (skipping asked
    the store of a relative IRI and failed). Each is run in the run's part, and the
    report is the one without skipping."""
    store, bundle, card = _one_evaluated_run(tmp_path)
    with store:
        shapes = tmp_path / "review.ttl"
        shapes.write_text(
            f"""
            @prefix sh: <http://www.w3.org/ns/shacl#> .
            @prefix hg: <{HG}> .
            @prefix prov: <http://www.w3.org/ns/prov#> .
            @prefix ex: <http://example.org/review#> .
            ex:Owner a sh:NodeShape ; sh:targetClass ex:NoInstances ; sh:property ex:Gen .
            ex:Gen a sh:PropertyShape ; sh:path prov:wasGeneratedBy ; sh:maxCount 0 ;
                sh:targetNode <{card}> .
            ex:Escaped a sh:NodeShape ; sh:targetNode <{card}> ; sh:property ex:Escaped-verdict .
            ex:Escaped-verdict sh:path <{HG}verdic\\u005Cu0074> ; sh:maxCount 0 .
            ex:Spaced a sh:NodeShape ;
                sh:targetNode <{card}>, <http://example.org/doc\\u00a0draft#sec1> ;
                sh:property ex:Spaced-verdict .
            ex:Spaced-verdict sh:path hg:verdict ; sh:maxCount 0 .
            ex:Based a sh:NodeShape ; sh:targetClass hg:Version ; sh:sparql [
                sh:message "never" ;
                sh:select \"\"\"BASE <tag:example.org,2024:>
                    SELECT $this WHERE {{ $this <p> ?x . }}\"\"\" ] .
            """,
            encoding="utf-8",
        )

        skipped = _spy_on_skipping(monkeypatch)
        with_skipping = _results_with(store, shapes)
        review = {"Gen", "Escaped-verdict", "Spaced-verdict", "Based"}
        assert "SpanAnchorShape" in skipped[-1] and not skipped[-1] & review
        # Nothing of the skipping's logic asked: every check run in every part.
        monkeypatch.setattr(unchanged, "reads", lambda *args: None)
        monkeypatch.setattr(unchanged, "read_iris", lambda *args: None)
        without = _results_with(store, shapes)
    assert with_skipping == without
    assert {"Gen", "Escaped-verdict", "Spaced-verdict"} <= {
        row[1].rsplit("#", 1)[-1] for row in without
    }
