"""Parameters reach SPARQL as VALUES blocks placed by a tokenizer (store.bind_values)."""

from __future__ import annotations

import pytest

import hopgate
from hopgate.errors import QueryError
from hopgate.store import bind_values
from hopgate.store.dialect import where_groups

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


def test_exists_in_a_projection_and_construct_templates_are_not_groups() -> None:
    query = "SELECT (EXISTS { ?x ?p ?o } AS ?e) WHERE { ?x ?p ?o }"
    assert where_groups(query) == [query.index("WHERE {") + len("WHERE {")]
    construct = "CONSTRUCT { ?x ?p ?o } WHERE { ?x ?p ?o }"
    assert where_groups(construct) == [construct.index("WHERE {") + len("WHERE {")]


def test_variables_and_prefixed_names_named_like_keywords() -> None:
    query = "SELECT ?where WHERE { ?where ex:select ?o }"
    assert where_groups(query) == [query.index("WHERE {") + len("WHERE {")]


def test_updates_bind_into_their_where_and_refuse_delete_where(
    store: hopgate.OxigraphStore,
) -> None:
    store.update(
        "INSERT { GRAPH <https://example.org/g> { ?x <https://example.org/q> 1 } } "
        "WHERE { GRAPH ?g { ?x <https://example.org/p> ?o } }",
        params=PARAMS,
    )
    assert store.ask("ASK { ?x <https://example.org/q> 1 }", params=PARAMS)
    with pytest.raises(QueryError, match="DELETE WHERE"):
        store.update("DELETE WHERE { GRAPH ?g { ?x ?p ?o } }", params=PARAMS)


def test_a_text_without_a_group_is_an_error() -> None:
    with pytest.raises(QueryError, match="no WHERE"):
        bind_values("INSERT DATA { <a> <b> <c> }", PARAMS)
