"""The SPARQL dialect's rewrites keep each query's meaning (hopgate.store.dialect).

Each rewrite is applied by the remote store just before sending; the library's
files are the only copy of the logic. The Virtuoso parity tests
(tests/store/test_virtuoso_plans.py, tests/decide/test_server_evaluation.py)
run the rewritten text on a server.
"""

from __future__ import annotations

from conftest import CEDAR

import hopgate
from hopgate.library.artefacts import library_queries, library_update
from hopgate.library.steps import SCRATCH_UPDATES
from hopgate.store.dialect import exists_as_values, operations, without_comments
from hopgate.store.remote import RemoteStore


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
