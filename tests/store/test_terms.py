"""Values and terms (hopgate.store.terms): Python values <-> RDF terms, and parameters that
reach SPARQL as VALUES blocks placed by a tokenizer (bind_values), never as formatted text."""

from __future__ import annotations

from decimal import Decimal

import pyoxigraph as ox
import pytest

import hopgate
from hopgate.errors import QueryError
from hopgate.store import BNode, bind_outer, bind_values
from hopgate.store.dialect import where_groups
from hopgate.store.terms import from_term, located, term_ntriples, to_term

PARAMS = {"x": hopgate.IRI("https://example.org/a")}


@pytest.fixture
def store() -> hopgate.OxigraphStore:
    store = hopgate.open_store(None)
    store.update(
        'INSERT DATA { GRAPH <https://example.org/g> { <https://example.org/a> <https://example.org/p> "WHERE { x }" } }'
    )
    return store


def test_a_literal_holding_where_is_not_a_group(store: hopgate.OxigraphStore) -> None:
    query = 'SELECT ?o WHERE { ?x <https://example.org/p> ?o FILTER (?o != "WHERE { y }") }'
    assert len(where_groups(query)) == 1
    assert store.select(query, params=PARAMS) == [{"o": "WHERE { x }"}]


def test_select_star_without_where_is_bound(store: hopgate.OxigraphStore) -> None:
    rows = store.select("SELECT * { ?x <https://example.org/p> ?o }", params=PARAMS)
    assert rows == [{"x": hopgate.IRI("https://example.org/a"), "o": "WHERE { x }"}]


def test_comments_strings_and_iris_are_skipped() -> None:
    query = (
        "# WHERE { in a comment\nSELECT ?o WHERE { ?x ?p ?o . FILTER (STR(?p) != '''WHERE {''') }"
    )
    assert where_groups(query) == [query.index("WHERE { ?x") + len("WHERE {")]


def test_sub_selects_and_ask_get_their_own_block(store: hopgate.OxigraphStore) -> None:
    query = "SELECT ?o WHERE { { SELECT ?x ?o WHERE { ?x ?p ?o } } }"
    assert len(where_groups(query)) == 2
    assert bind_values(query, PARAMS).count("VALUES") == 2
    assert store.ask("ASK { ?x ?p ?o }", params=PARAMS)
    assert not store.ask("ASK { ?x ?p ?o }", params={"x": hopgate.IRI("https://example.org/b")})


def test_several_values_bind_the_outermost_group_alone(store: hopgate.OxigraphStore) -> None:
    """bind_outer: one VALUES block of several rows, in the outermost group only; a
    sub-select that does not name the variable keeps its own rows (bound there, each
    of its rows would come once per value)."""
    query = (
        "SELECT ?x ?n WHERE { ?x <https://example.org/p> ?o "
        "{ SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?v } } }"
    )
    values = [hopgate.IRI("https://example.org/a"), hopgate.IRI("https://example.org/b")]
    text = bind_outer(query, "x", values)
    assert text.count("VALUES") == 1
    assert text.index("VALUES") < text.index("{ SELECT")
    assert store.select(text) == [{"x": hopgate.IRI("https://example.org/a"), "n": 1}]
    assert store.select(bind_outer(query, "x", [])) == []
    with pytest.raises(QueryError):
        bind_outer(query, "x y", values)


def test_exists_in_a_projection_and_construct_templates_are_not_groups() -> None:
    query = "SELECT (EXISTS { ?x ?p ?o } AS ?e) WHERE { ?x ?p ?o }"
    assert where_groups(query) == [query.index("WHERE {") + len("WHERE {")]
    construct = "CONSTRUCT { ?x ?p ?o } WHERE { ?x ?p ?o }"
    assert where_groups(construct) == [construct.index("WHERE {") + len("WHERE {")]


def test_variables_and_prefixed_names_named_like_keywords() -> None:
    query = "SELECT ?where WHERE { ?where ex:select ?o }"
    assert where_groups(query) == [query.index("WHERE {") + len("WHERE {")]


def test_updates_bind_into_their_where_and_delete_where_takes_constants_only(
    store: hopgate.OxigraphStore,
) -> None:
    store.update(
        "INSERT { GRAPH <https://example.org/g> { ?x <https://example.org/q> 1 } } "
        "WHERE { GRAPH ?g { ?x <https://example.org/p> ?o } }",
        params=PARAMS,
    )
    assert store.ask("ASK { ?x <https://example.org/q> 1 }", params=PARAMS)
    # An IRI is written in as a constant, which DELETE WHERE takes; a literal would need
    # a VALUES block, which its quad pattern cannot take.
    with pytest.raises(QueryError, match="DELETE WHERE"):
        store.update("DELETE WHERE { GRAPH ?g { ?x ?p ?o } }", params={"o": 1})
    store.update("DELETE WHERE { GRAPH ?g { ?x <https://example.org/q> ?o } }", params=PARAMS)
    assert not store.ask("ASK { ?x <https://example.org/q> 1 }", params=PARAMS)
    assert store.ask("ASK { ?x <https://example.org/p> ?o }", params=PARAMS)


def test_a_text_without_a_group_is_an_error() -> None:
    with pytest.raises(QueryError, match="no WHERE"):
        bind_values("INSERT DATA { <a> <b> <c> }", PARAMS)


XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.mark.parametrize(
    "value",
    [
        hopgate.IRI("https://w3id.org/hopgate/id/claim/c%201"),
        BNode("b0"),
        True,
        False,
        0,
        -17,
        Decimal("0.125"),
        2.5,
        'Zürich "quoted"\n',
        "",
    ],
    ids=repr,
)
def test_a_value_round_trips_through_its_term(value: object) -> None:
    back = from_term(to_term(value))  # type: ignore[arg-type]
    assert back == value and type(back) is type(value)


def test_terms_read_as_python_values() -> None:
    assert from_term(None) is None
    assert from_term(ox.Literal("1", datatype=ox.NamedNode(XSD + "boolean"))) is True
    assert from_term(ox.Literal("42", datatype=ox.NamedNode(XSD + "unsignedShort"))) == 42
    assert from_term(ox.Literal("2.0", datatype=ox.NamedNode(XSD + "float"))) == 2.0
    # A lexical form its datatype does not allow stays text rather than failing the read.
    assert from_term(ox.Literal("many", datatype=ox.NamedNode(XSD + "integer"))) == "many"
    assert from_term(ox.Literal("abc", datatype=ox.NamedNode(XSD + "decimal"))) == "abc"
    assert from_term(ox.Literal("1e", datatype=ox.NamedNode(XSD + "double"))) == "1e"
    assert from_term(ox.Literal("2026-10-01", datatype=ox.NamedNode(XSD + "date"))) == "2026-10-01"


def test_a_parameter_is_written_escaped() -> None:
    assert term_ntriples('say "hi" } #') == '"say \\"hi\\" } #"'
    with pytest.raises(QueryError, match="cannot bind a parameter of type list"):
        to_term(["a"])  # type: ignore[arg-type]


def test_bind_parameters_writes_a_matched_iri_in_and_binds_the_rest() -> None:
    """bind_parameters, as both stores send a query: an IRI only matched becomes a
    constant (a graph bound by VALUES lost rows on Oxigraph and on Virtuoso); a
    projected IRI and a literal stay bound by VALUES."""
    from hopgate.store.terms import bind_parameters

    graph = hopgate.IRI("https://example.org/g")
    query = "SELECT ?o WHERE { OPTIONAL { GRAPH ?g { ?s <https://example.org/p> ?o } } }"
    text = bind_parameters(query, {"g": graph, "n": 3})
    assert "GRAPH <https://example.org/g>" in text and "?g" not in text
    assert 'VALUES (?n) { ("3"^^<http://www.w3.org/2001/XMLSchema#integer>) }' in text
    projected = bind_parameters("SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", {"g": graph})
    assert "VALUES (?g) { (<https://example.org/g>) }" in projected
    assert "GRAPH ?g" in projected


def test_the_embedded_store_answers_a_bound_graph_as_its_constant(
    store: hopgate.OxigraphStore,
) -> None:
    query = "SELECT ?o WHERE { GRAPH ?g { ?s <https://example.org/p> ?o } }"
    assert store.select(query, params={"g": hopgate.IRI("https://example.org/g")}) == [
        {"o": "WHERE { x }"}
    ]
    assert store.select(query, params={"g": hopgate.IRI("https://example.org/other")}) == []


def test_a_parameter_a_minus_group_shares_alone_stays_a_variable(
    store: hopgate.OxigraphStore,
) -> None:
    """MINUS removes a solution only through a shared variable: written in as a
    constant, the parameter would leave this MINUS nothing to share (and remove
    nothing); where the group shares another variable, it is written in."""
    query = "ASK { ?x ?p ?o MINUS { ?x <https://example.org/p> ?any } }"
    assert not store.ask(query, params=PARAMS)
    from hopgate.store.terms import bind_parameters

    shared = "SELECT ?o WHERE { ?x ?p ?o MINUS { ?x <https://example.org/q> ?o } }"
    assert "MINUS { <https://example.org/a>" in bind_parameters(shared, PARAMS)


def test_a_longer_variable_name_and_a_projected_exists_are_left_alone(
    store: hopgate.OxigraphStore,
) -> None:
    """``?xé`` is another variable than ``?x``; a ``{`` inside a projection's EXISTS does
    not end the projection, whose ``?x`` stays a variable."""
    rows = store.select("SELECT ?n WHERE { ?xé ?p ?o BIND (1 AS ?n) }", params=PARAMS)
    assert rows == [{"n": 1}]
    rows = store.select(
        "SELECT (EXISTS { ?x ?p ?o } AS ?held) ?x WHERE { ?x ?p ?o }", params=PARAMS
    )
    assert rows == [{"held": True, "x": hopgate.IRI("https://example.org/a")}]


def test_a_place_the_scan_misreads_is_still_bound_and_describe_star_projects() -> None:
    """``?n<3 && ... ?x ... && 3>?n`` reads like an IRI to a tokenizer: the ``?x`` there
    stays a variable, so the name is bound by VALUES as well; ``DESCRIBE *`` describes
    every variable, so none is written in."""
    from hopgate.store.terms import bind_parameters

    query = "SELECT ?s WHERE { ?x ?p ?o . ?s ?p ?n FILTER (?n<3&&?s!=?x&&3>?n) }"
    text = bind_parameters(query, PARAMS)
    assert "VALUES (?x)" in text and "?s!=?x" in text
    described = "DESCRIBE * WHERE { ?x ?p ?o }"
    assert "?x ?p ?o" in bind_parameters(described, PARAMS)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT ?s WHERE { ?s ?p ?éWhere MINUS { ?s <https://example.org/q> ?o } }",
        "PREFIX ex: <https://example.org/> ASK { ?s ex:a.ask ?o MINUS { ?s ex:b ?o } }",
        "PREFIX where: <https://example.org/> SELECT ?s WHERE { ?s where:x ?o { ?s ?p ?o } }",
    ],
)
def test_names_that_hold_a_keyword_open_no_group(query: str) -> None:
    """A variable or prefixed name holding WHERE or ASK (?éWhere, ex:a.ask, where:x) is a
    name, not a keyword: the query has one WHERE group, where its VALUES block goes."""
    assert len(where_groups(query)) == 1
    assert bind_values(query, {"n": 1}).count("VALUES") == 1


def test_a_parse_error_is_located_in_the_text_as_written() -> None:
    # Oxigraph (embedded and server), Virtuoso and Jena count the PREFIX lines hopgate
    # puts before the text; the user's line 1 was reported as line 8.
    prologue = "PREFIX a: <urn:a>\n" * 7
    for said, meant in (
        ("error at 8:33: expected one of", "error at 1:33: expected one of"),
        ("SP030: SPARQL compiler, line 9: syntax error", "SP030: SPARQL compiler, line 2: syntax"),
        ("Lexical error at Line 8, column 3.", "Lexical error at Line 1, column 3."),
        ("error at 3:1: in the prologue", "error at 3:1: in the prologue"),
    ):
        assert located(said, prologue).startswith(meant[:30]), said
