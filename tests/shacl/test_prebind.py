"""Pre-binding as a join: which ``sh:select`` queries are joined, declined or refused.

Each accepted query is also run through both engines on a small graph, so an
acceptance is checked against pySHACL's substitution, not only asserted.
"""

from __future__ import annotations

import pytest
import rdflib

from hopgate.errors import IllFormedShape
from hopgate.shacl.graphs import validate_graph
from hopgate.shacl.prebind import NotJoinable, check_joinable, mark_focus

PREFIXES = {"ex": "http://example.org/"}

JOINED = {
    "filter": "SELECT $this WHERE { $this ex:p ?x FILTER(?x > 1) }",
    "bind after": "SELECT $this ?v WHERE { $this ex:p ?x BIND(?x + 1 AS ?v) FILTER(?v > 2) }",
    "optional": "SELECT $this WHERE { $this ex:p ?x OPTIONAL { ?x ex:q $this } FILTER(!bound(?x)) }",
    "not exists": "SELECT $this WHERE { $this ex:p ?x FILTER NOT EXISTS { $this ex:q ?x } }",
    "grouped count": (
        "SELECT $this WHERE { { SELECT $this (COUNT(?x) AS ?n) WHERE { $this ex:p ?x } "
        "GROUP BY $this } FILTER(?n > 1) }"
    ),
    "filter reading only this": "SELECT $this WHERE { FILTER(isIRI($this)) }",
    "union binding this": "SELECT $this WHERE { { $this ex:p ?x } UNION { $this ex:q ?x } }",
    # The focus nodes open the top group, so the OPTIONAL's left side binds $this.
    "optional right side": "SELECT $this WHERE { ?y ex:p ?x OPTIONAL { ?x ex:q $this } }",
}
DECLINED = {
    "union branch": "SELECT $this WHERE { { FILTER(false) } UNION { FILTER($this = ex:a) } }",
    "inner group": "SELECT $this WHERE { { FILTER($this = ex:a) } }",
    "limit": "SELECT $this WHERE { $this ex:p ?x } LIMIT 1",
    "ungrouped aggregate": "SELECT $this (COUNT(?x) AS ?n) WHERE { $this ex:p ?x }",
    "sub-select reading this": (
        "SELECT $this WHERE { { SELECT $this WHERE { FILTER($this = ex:a) } } }"
    ),
}
REFUSED = {
    "minus": "SELECT $this WHERE { $this ex:p ?x MINUS { $this ex:q ?x } }",
    "values": "SELECT $this WHERE { VALUES ?x { 1 } $this ex:p ?x }",
    "service": "SELECT $this WHERE { $this ex:p ?x SERVICE <http://example.org/s> { ?a ?b ?c } }",
    "as this": "SELECT $this WHERE { BIND(ex:a AS $this) }",
    "sub-select without this": (
        "SELECT $this WHERE { $this ex:p ?x { SELECT ?y WHERE { ?y ex:q ?z } } }"
    ),
    "sub-select star": "SELECT $this WHERE { { SELECT * WHERE { FILTER($this = ex:a) } } }",
}

DATA = """
@prefix ex: <http://example.org/> .
ex:a ex:p 1, 2 ; ex:q 2 .
ex:b ex:p 3 .
ex:c ex:q ex:a .
ex:d ex:p ex:e . ex:e ex:q ex:d .
"""


@pytest.mark.parametrize("query", JOINED.values(), ids=list(JOINED))
def test_joined_queries_agree_with_pyshacl(query: str) -> None:
    """An accepted query is joined, and its report equals pySHACL's substituted one."""
    check_joinable(mark_focus(query), PREFIXES)
    shapes = rdflib.Graph().parse(
        format="turtle",
        data=(
            "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n"
            "ex:S a sh:NodeShape ; sh:targetNode ex:a, ex:b, ex:c, ex:d, ex:z ;\n"
            "  sh:sparql [ sh:prefixes ex:Prefixes ; sh:select "
            + rdflib.Literal(query).n3()
            + " ] .\n"
            'ex:Prefixes sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/" ] .\n'
        ),
    )
    data = rdflib.Graph().parse(data=DATA, format="turtle")
    compiled = validate_graph(data, shapes)
    reference = validate_graph(data, shapes, engine="pyshacl")
    assert compiled.engine == "store", compiled.fallback

    def focus_nodes(report: object) -> set[str]:
        # A set: SHACL 1.0 5.3.2 makes one result per solution, and the compiled
        # engine does; pySHACL merges solutions that give the same result.
        return {str(r.focus_node) for r in report.results}  # type: ignore[attr-defined]

    assert focus_nodes(compiled) == focus_nodes(reference)


@pytest.mark.parametrize("query", DECLINED.values(), ids=list(DECLINED))
def test_declined_queries(query: str) -> None:
    """A join would not be pre-binding: the compiled engine declines."""
    with pytest.raises(NotJoinable):
        check_joinable(mark_focus(query), PREFIXES)


@pytest.mark.parametrize("query", REFUSED.values(), ids=list(REFUSED))
def test_refused_queries(query: str) -> None:
    """SHACL 1.0 5.2.1 forbids the query: the shapes are ill-formed."""
    with pytest.raises(IllFormedShape):
        check_joinable(mark_focus(query), PREFIXES)


def test_mark_focus_leaves_strings_and_comments() -> None:
    """$this inside a string or a comment is text, not the variable."""
    marked = mark_focus('SELECT $this WHERE { # $this here\n $this ex:p "$this" }')
    assert '"$this"' in marked and "# $this here" in marked
    assert marked.count("?this") == 3  # projection, mark, pattern
