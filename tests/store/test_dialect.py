"""The SPARQL dialect's rewrites keep each query's meaning (hopgate.store.dialect).

Each rewrite is applied by the remote store just before sending; the library's
files are the only copy of the logic. The Virtuoso parity tests
(tests/store/test_virtuoso_plans.py, tests/decide/test_server_evaluation.py)
run the rewritten text on a server.
"""

from __future__ import annotations

import re

import pyoxigraph
from conftest import CEDAR

import hopgate
from hopgate.library.artefacts import library_queries, library_update
from hopgate.library.steps import SCRATCH_UPDATES
from hopgate.store import IRI
from hopgate.store.dialect import (
    SCOPE_OF,
    exists_as_values,
    join_scope,
    operations,
    without_comments,
)
from hopgate.store.remote import RemoteStore
from hopgate.store.remote.values import bind_update


def test_exists_in_bind_is_wrapped_and_filter_left_alone() -> None:
    query = (
        "SELECT ?x WHERE { ?x a ?c . "
        'BIND ((EXISTS { ?x <p> ?y } && NOT EXISTS { ?x <q> "}" }) AS ?u) '
        "FILTER (NOT EXISTS { ?x <r> ?z }) }"
    )
    rewritten = exists_as_values(query)
    assert "BIND ((IF(EXISTS { ?x <p> ?y }, true, false) && " in rewritten
    assert 'IF(NOT EXISTS { ?x <q> "}" }, true, false)) AS ?u)' in rewritten
    assert "FILTER (NOT EXISTS { ?x <r> ?z })" in rewritten
    # The rewrite keeps the meaning: both spellings give the same rows on Oxigraph.
    store = hopgate.open_store(None)
    hopgate.load(store, CEDAR)
    prov = "http://www.w3.org/ns/prov#"
    text = (
        f"SELECT ?s ?quoted ?unquoted WHERE {{ ?s a <{prov}Entity> . "
        f"BIND (EXISTS {{ ?s <{prov}wasQuotedFrom> ?v }} AS ?quoted) "
        f"BIND (NOT EXISTS {{ ?s <{prov}wasQuotedFrom> ?v }} AS ?unquoted) }}"
    )
    assert exists_as_values(text) != text
    rows = store.select(text)
    assert {row["quoted"] for row in rows} == {True, False}
    assert store.select(exists_as_values(text)) == rows


def test_exists_in_comments_and_strings_is_not_touched() -> None:
    query = '# BIND (EXISTS { ?a ?b ?c } AS ?v)\nSELECT ?s WHERE { ?s ?p "BIND (EXISTS {" }'
    assert exists_as_values(query) == query


def test_an_update_splits_into_its_operations_at_top_level_semicolons() -> None:
    update = (
        "# header ; not a separator\n"
        'INSERT DATA { <a> <b> "x;y" } ;\n'
        "INSERT { GRAPH <g> { ?s <p> ?o } } WHERE { ?s <q> ?o ; <r> <s;t> } ;\n"
        "# trailing comment ;\n"
    )
    parts = operations(update)
    assert [part.strip() for part in parts] == [
        '# header ; not a separator\nINSERT DATA { <a> <b> "x;y" }',
        "INSERT { GRAPH <g> { ?s <p> ?o } } WHERE { ?s <q> ?o ; <r> <s;t> }",
    ]
    # Every rule file of the evaluation splits into operations that each parse.
    store = hopgate.open_store(None)
    for update_id in SCRATCH_UPDATES:
        for operation in operations(library_update(update_id).text):
            store.update(
                operation, params={"run": hopgate.IRI("urn:r"), "scratch": hopgate.IRI("urn:s")}
            )


def test_comments_are_removed_but_strings_and_iris_kept() -> None:
    text = 'SELECT ?x # load it\nWHERE { ?x <urn:a#b> "# not a comment" } # the end'
    assert without_comments(text) == 'SELECT ?x \nWHERE { ?x <urn:a#b> "# not a comment" } '


def test_a_query_whose_header_says_load_is_sent_as_a_query() -> None:
    """SPARQLWrapper took run-inputs.rq (its header: "Which load graphs") for a LOAD update."""
    store = RemoteStore("http://127.0.0.1:9/sparql", update_endpoint="http://127.0.0.1:9/update")
    for query_id, query in library_queries().items():
        wrapper = store._wrapper(store._prologue + query.text, update=False, dataset=False)
        assert not wrapper.isSparqlUpdateRequest(), query_id


# --- a scoped view's graphs joined as a list (join_scope) -----------------------------------

_LIST = "urn:hopgate-test:scratch"


def _scoped_store() -> pyoxigraph.Store:
    """Graphs a and b hold a triple each, c one more; the list in the scratch graph names a and c."""
    store = pyoxigraph.Store()
    for graph, subject in (("urn:a", "urn:s1"), ("urn:b", "urn:s2"), ("urn:c", "urn:s3")):
        store.add(pyoxigraph.Quad(*map(pyoxigraph.NamedNode, (subject, "urn:p", "urn:o", graph))))
    for graph in ("urn:a", "urn:c", _LIST):
        store.add(pyoxigraph.Quad(*map(pyoxigraph.NamedNode, (graph, SCOPE_OF, _LIST, _LIST))))
    return store


def test_each_graph_variable_of_a_where_clause_joins_the_list() -> None:
    update = (
        "INSERT { GRAPH ?t { ?s <urn:q> ?o } } WHERE { GRAPH ?g1 { ?s <urn:p> ?o . "
        'OPTIONAL { GRAPH ?g2 { ?o <urn:r> "GRAPH ?x { }" } } } # GRAPH ?y {\n'
        "FILTER NOT EXISTS { graph ?g3 { ?s <urn:r> ?c } } "
        "{ SELECT ?t WHERE { GRAPH ?g4 { ?t ?y ?z } } } GRAPH <urn:c> { ?s ?p2 ?o2 } }"
    )
    joined = join_scope(update, _LIST)

    def join(variable: str) -> str:
        return f"GRAPH <{_LIST}> {{ ?{variable} <{SCOPE_OF}> <{_LIST}> }}"

    # Inside the group of each GRAPH ?g of the WHERE clauses: sub-select, OPTIONAL, NOT EXISTS.
    assert f'"GRAPH ?x {{ }}" }} {join("g2")} }} }} {join("g1")} #' in joined
    assert f"graph ?g3 {{ ?s <urn:r> ?c }} {join('g3')} }}" in joined
    assert f"GRAPH ?g4 {{ ?t ?y ?z }} {join('g4')} }}" in joined
    # Not the template, a constant graph, a string or a comment.
    assert joined.startswith("INSERT { GRAPH ?t { ?s <urn:q> ?o } } WHERE")
    assert joined.count(f"<{SCOPE_OF}>") == 4


def test_a_query_joined_to_the_list_reads_the_listed_graphs_only() -> None:
    store = _scoped_store()
    query = "SELECT ?s ?g WHERE { GRAPH ?g { ?s <urn:p> <urn:o> } } ORDER BY ?s"
    found = [(str(r["s"].value), str(r["g"].value)) for r in store.query(join_scope(query, _LIST))]
    assert found == [("urn:s1", "urn:a"), ("urn:s3", "urn:c")]
    # The same rows as with the listed graphs as the dataset.
    pinned = store.query(query, named_graphs=[pyoxigraph.NamedNode(g) for g in ("urn:a", "urn:c")])
    assert found == [(str(r["s"].value), str(r["g"].value)) for r in pinned]


def test_every_rule_step_keeps_its_text_apart_from_the_joins() -> None:
    """Each operation of every rule file the server runs through a scoped view, joined:
    the same text once the joins are taken out, and one join per GRAPH variable read."""
    total = 0
    for update_id in SCRATCH_UPDATES:
        for unbound in operations(library_update(update_id).text):
            # As the server's view sends it: the parameters written in first.
            operation = bind_update(unbound, {"run": IRI("urn:run"), "scratch": IRI(_LIST)})
            joined = join_scope(operation, _LIST)
            added = joined.count(f"<{SCOPE_OF}>")
            total += added
            assert added >= 1 or "GRAPH ?g" not in operation, (update_id, operation)
            stripped = re.sub(
                rf" GRAPH <{re.escape(_LIST)}> \{{ \?\w+ <{re.escape(SCOPE_OF)}> <{re.escape(_LIST)}> \}}",
                "",
                joined,
            )
            assert stripped == operation
    # Every GRAPH variable of the files is in a WHERE clause (none in a template).
    written = sum(
        len(re.findall(r"GRAPH\s+\?(?!scratch\b)", without_comments(library_update(u).text), re.I))
        for u in SCRATCH_UPDATES
    )
    assert total == written > 100
