"""``validate_graph`` and ``hopgate shacl``: SHACL on any graph, literals as written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rdflib.namespace import RDF, SH, XSD
from rdflib.term import Literal, URIRef

import hopgate
from hopgate.cli import cli
from hopgate.errors import IllFormedShape, ShaclError, UnsupportedShape
from hopgate.shacl.compiler import compile_shapes
from hopgate.shacl.graphs import read_graph, validate_graph
from hopgate.shacl.lexical import Writer, unwrite, well_formed, well_formed_expr

PREFIXES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
"""

SHAPES = (
    PREFIXES
    + """
ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:n ;
    sh:property [ sh:path ex:n ; sh:datatype xsd:int ] ,
                [ sh:path ex:b ; sh:datatype xsd:byte ] ,
                [ sh:path ex:ok ; sh:datatype xsd:boolean ] ,
                [ sh:path ex:price ; sh:pattern "^1\\\\.50$" ] ,
                [ sh:path ex:label ; sh:languageIn ( "en" ) ; sh:uniqueLang true ] .
"""
)
DATA = (
    PREFIXES
    + """
ex:good ex:n "1"^^xsd:int ; ex:b "12"^^xsd:byte ; ex:ok "1"^^xsd:boolean ;
    ex:price "1.50"^^xsd:decimal ; ex:label "Hello"@EN .
ex:bad ex:n "01"^^xsd:int , "aldi"^^xsd:int ; ex:b "c"^^xsd:byte , "300"^^xsd:byte ;
    ex:ok "none"^^xsd:boolean ; ex:price "1.5"^^xsd:decimal ; ex:label "a"@en , "b"@EN-gb , "c"@EN , "d"@de .
"""
)
EX = rdflib.Namespace("http://example.org/")


def _files(tmp_path: Path, data: str, shapes: str) -> tuple[Path, Path]:
    (tmp_path / "data.ttl").write_text(data)
    (tmp_path / "shapes.ttl").write_text(shapes)
    return tmp_path / "data.ttl", tmp_path / "shapes.ttl"


def _results(report: hopgate.shacl.graphs.ShaclReport) -> set[tuple[str, str, str]]:
    return {
        (
            str(r.focus_node),
            str(r.source_constraint_component).rpartition("#")[2],
            "" if r.value is None else r.value.n3(),
        )
        for r in report.results
    }


def test_literals_are_validated_as_written(tmp_path: Path) -> None:
    """Ill-formed literals fail sh:datatype; well-formed subtypes and lexical forms pass."""
    data, shapes = _files(tmp_path, DATA, SHAPES)
    report = validate_graph(data, shapes)
    assert report.engine == "store", report.fallback
    assert not report.conforms
    int_ = "<http://www.w3.org/2001/XMLSchema#int>"
    byte = "<http://www.w3.org/2001/XMLSchema#byte>"
    boolean = "<http://www.w3.org/2001/XMLSchema#boolean>"
    assert _results(report) == {
        (str(EX.bad), "DatatypeConstraintComponent", f'"aldi"^^{int_}'),
        (str(EX.bad), "DatatypeConstraintComponent", f'"c"^^{byte}'),
        (str(EX.bad), "DatatypeConstraintComponent", f'"300"^^{byte}'),
        (str(EX.bad), "DatatypeConstraintComponent", f'"none"^^{boolean}'),
        (
            str(EX.bad),
            "PatternConstraintComponent",
            '"1.5"^^<http://www.w3.org/2001/XMLSchema#decimal>',
        ),
        (str(EX.bad), "LanguageInConstraintComponent", '"d"@de'),
        (str(EX.bad), "UniqueLangConstraintComponent", ""),
    }


def test_the_engines_agree_on_literals(tmp_path: Path) -> None:
    """pySHACL, fed the file as written, gives the same results."""
    data, shapes = _files(tmp_path, DATA, SHAPES)
    assert _results(validate_graph(data, shapes)) == _results(
        validate_graph(data, shapes, engine="pyshacl")
    )


def test_validate_graph_takes_graphs_and_files(tmp_path: Path) -> None:
    """Graphs and files give the same report; conformance is SHACL's (no result at all)."""
    data, shapes = _files(tmp_path, DATA, SHAPES)
    from_files = validate_graph(data, shapes)
    from_graphs = validate_graph(read_graph(data), read_graph(shapes))
    assert _results(from_files) == _results(from_graphs)
    report = from_files.graph
    assert (None, SH.conforms, Literal(False)) in report


def test_ill_formed_shapes_are_refused(tmp_path: Path) -> None:
    """A MINUS in a pre-bound query (SHACL 1.0 5.2.1) is an error, not a fallback."""
    shapes = (
        PREFIXES
        + 'ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:sparql [ sh:select """'
        + 'SELECT $this WHERE { $this ?p ?o MINUS { $this ?p 1 } }""" ] .'
    )
    data, shapes_file = _files(tmp_path, PREFIXES + "ex:a ex:p 1 .", shapes)
    with pytest.raises(IllFormedShape, match="MINUS"):
        compile_shapes(read_graph(shapes_file))
    with pytest.raises(ShaclError, match="ill-formed"):
        validate_graph(data, shapes_file)


@pytest.mark.parametrize("target", ["sh:targetClass", "sh:targetSubjectsOf", "sh:targetObjectsOf"])
def test_a_target_that_is_not_an_iri_is_refused(target: str) -> None:
    """SHACL 1.0 2.1.3: a class or predicate target is an IRI. A literal one is refused
    by name rather than compiled into a pattern that matches a literal type."""
    shapes = read_graph_text(
        PREFIXES + f'ex:S a sh:NodeShape ; {target} "C" ; sh:nodeKind sh:IRI .'
    )
    with pytest.raises(IllFormedShape, match=f'{target} "C" of http://example.org/S is not an IRI'):
        compile_shapes(shapes)


def test_terms_the_store_rejects_go_to_pyshacl() -> None:
    """An IRI with a space (rdflib takes it, Oxigraph does not) is validated by pySHACL."""
    shapes = read_graph_text(
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ; sh:nodeKind sh:BlankNode ."
    )
    data = rdflib.Graph()
    data.add((URIRef("http://example.org/a b"), EX.p, Literal(1)))
    report = validate_graph(data, shapes)
    assert report.engine == "pyshacl" and "rejects" in (report.fallback or "")
    assert not report.conforms


def test_shapes_with_a_term_the_store_rejects_go_to_pyshacl() -> None:
    """The same in the shapes (found by the shapes fuzz test: a prefix `<[https://...>`):
    the compiled checks would not parse, so pySHACL validates, and says why."""
    shapes = rdflib.Graph()
    shapes.add((URIRef("[https://example.org/S"), RDF.type, SH.NodeShape))
    shapes.add((URIRef("[https://example.org/S"), SH.targetNode, EX.a))
    shapes.add((URIRef("[https://example.org/S"), SH.datatype, XSD.integer))
    data = read_graph_text(PREFIXES + "ex:a ex:p 1 .")
    report = validate_graph(data, shapes)
    assert report.engine == "pyshacl" and "the shapes hold" in (report.fallback or "")
    assert not report.conforms


def read_graph_text(text: str) -> rdflib.Graph:
    return rdflib.Graph().parse(data=text, format="turtle")


def test_unknown_engine_and_missing_file(tmp_path: Path) -> None:
    data, shapes = _files(tmp_path, DATA, SHAPES)
    with pytest.raises(ShaclError, match="unknown SHACL engine"):
        validate_graph(data, shapes, engine="rust")
    with pytest.raises(ShaclError, match="no such file"):
        validate_graph(tmp_path / "absent.ttl", shapes)


def test_writer_keeps_what_the_store_rewrites() -> None:
    """Only literals the store would change become written literals, and they come back."""
    kept = [Literal("1", datatype=XSD.integer), Literal("x"), Literal("a", lang="en")]
    changed = [
        Literal("01", datatype=XSD.integer, normalize=False),
        Literal("1", datatype=XSD.int),
        Literal("1.50", datatype=XSD.decimal, normalize=False),
        Literal("a", lang="EN"),
    ]
    writer = Writer(kept + changed)
    assert all(writer.write(t) is t for t in kept)
    assert all(writer.write(t) is not t for t in changed)
    for literal in kept + changed:
        back = unwrite(writer.write(literal))
        assert (str(back), back.datatype, back.language) == (  # type: ignore[attr-defined]
            str(literal),
            literal.datatype,
            literal.language,
        )


LEXICAL_SAMPLES = st.one_of(
    st.integers(min_value=-(2**66), max_value=2**66).map(str),
    st.tuples(st.sampled_from(["", "+", "-", "-00", "000"]), st.integers(0, 2**65)).map(
        lambda t: t[0] + str(t[1])
    ),
    st.from_regex(r"[+-]?[0-9 .eE]{0,6}", fullmatch=True),
    st.sampled_from(["true", "false", "1", "0", "none", "INF", "-INF", "NaN", "1.", ".5"]),
    st.text(alphabet="0123456789-+:TZ.", max_size=26),
)
DATATYPES = [
    XSD.integer,
    XSD.byte,
    XSD.long,
    XSD.unsignedLong,
    XSD.nonNegativeInteger,
    XSD.positiveInteger,
    XSD.nonPositiveInteger,
    XSD.negativeInteger,
    XSD.decimal,
    XSD.double,
    XSD.boolean,
    XSD.dateTime,
    XSD.date,
    XSD.time,
]


@settings(max_examples=300, deadline=None)
@example(lexical="99999999999999999999", datatype=XSD.long)
@example(lexical="18446744073709551615", datatype=XSD.unsignedLong)
@example(lexical="18446744073709551616", datatype=XSD.unsignedLong)
@example(lexical="-0", datatype=XSD.negativeInteger)
@example(lexical="-0", datatype=XSD.nonPositiveInteger)
@example(lexical="2011-01-01", datatype=XSD.dateTime)
@given(lexical=LEXICAL_SAMPLES, datatype=st.sampled_from(DATATYPES))
def test_sparql_lexical_check_matches_the_python_model(lexical: str, datatype: URIRef) -> None:
    """The SPARQL well-formedness test agrees with the plain-Python one (hopgate.shacl.lexical)."""
    expression = well_formed_expr(str(datatype), "?v")
    assert expression is not None
    store = ox.Store()
    term = ox.Literal(lexical, datatype=ox.NamedNode(str(datatype)))
    result = store.query(f"ASK {{ BIND({term} AS ?v) FILTER({expression}) }}")
    assert bool(result) is well_formed(lexical, str(datatype))


def test_the_shacl_command(tmp_path: Path) -> None:
    """Exit 1 on results, 0 when conforming, 2 on bad shapes; text, json and turtle."""
    data, shapes = _files(tmp_path, DATA, SHAPES)
    runner = CliRunner()
    text = runner.invoke(cli, ["shacl", str(data), str(shapes)], obj={})
    assert text.exit_code == 1, text.output
    assert "does not conform: 7 results (engine store)" in text.output
    payload = runner.invoke(cli, ["shacl", str(data), str(shapes), "--format", "json"], obj={})
    assert json.loads(payload.output)["engine"] == "store"
    assert len(json.loads(payload.output)["results"]) == 7
    turtle = runner.invoke(
        cli, ["shacl", str(data), str(shapes), "--format", "turtle", "--engine", "pyshacl"], obj={}
    )
    report = rdflib.Graph().parse(data=turtle.output, format="turtle")
    assert len(list(report.objects(None, SH.result))) == 7
    good = tmp_path / "good.ttl"
    good.write_text(PREFIXES + 'ex:g ex:n "7"^^xsd:int .')
    assert runner.invoke(cli, ["shacl", str(good), str(shapes)], obj={}).exit_code == 0
    broken = tmp_path / "broken.ttl"
    broken.write_text("not turtle")
    bad = runner.invoke(cli, ["shacl", str(data), str(broken)], obj={})
    assert bad.exit_code == 2 and "Error:" in bad.output


def test_the_shacl_command_end_to_end(tmp_path: Path) -> None:
    """The console script, as a real subprocess."""
    data, shapes = _files(tmp_path, DATA, SHAPES)
    done = subprocess.run(
        [sys.executable, "-m", "hopgate.cli", "shacl", str(data), str(shapes), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["conforms"] is False


def test_recursive_shapes_go_to_pyshacl() -> None:
    """A shape that reaches itself (sh:node or sh:property) is declined, never looped on."""
    shapes = read_graph_text(
        PREFIXES
        + "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ; sh:property ex:P .\n"
        + "ex:P sh:path ex:p ; sh:node ex:S .\n"
        + "ex:Q a sh:PropertyShape ; sh:targetSubjectsOf ex:p ; sh:path ex:p ; sh:property ex:R .\n"
        + "ex:R sh:path ex:p ; sh:property ex:Q .\n"
    )
    data = read_graph_text(PREFIXES + "ex:a ex:p ex:b .")
    with pytest.raises(UnsupportedShape, match="recursive"):
        compile_shapes(shapes)
    report = validate_graph(data, shapes)
    assert report.engine == "pyshacl" and "recursive" in (report.fallback or "")


REPORT_DETAILS_SHAPES = (
    PREFIXES
    + """
ex:Prefixes owl:imports ex:More .
ex:More sh:declare [ sh:prefix "ex" ; sh:namespace "http://example.org/"^^xsd:anyURI ] .
ex:Order a sh:PropertyShape ; sh:targetNode ex:r ; sh:path ex:start ; sh:lessThan ex:end .
ex:Int a sh:NodeShape ; sh:targetNode "aldi"^^xsd:integer ; sh:datatype xsd:integer .
ex:Labelled a sh:NodeShape ; sh:targetNode ex:r ;
    sh:sparql [ sh:prefixes ex:Prefixes ;
                sh:select "SELECT $this (ex:label AS ?path) WHERE { FILTER NOT EXISTS { $this ex:label ?l } }" ] .
ex:Address a sh:NodeShape ; sh:targetNode ex:person ;
    sh:property [ sh:path ex:address ; sh:property [ sh:path ex:city ; sh:minCount 1 ] ] .
"""
).replace("@prefix ex:", "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix ex:")
REPORT_DETAILS_DATA = (
    PREFIXES
    + """
ex:r ex:start 5, 6 ; ex:end 4, 5 .
ex:person ex:address ex:home, ex:work .
ex:home ex:city ex:paris .
"""
)


def test_report_details(tmp_path: Path) -> None:
    """The report details the issue listed, pinned without the W3C suite.

    sh:lessThan reports one result per pair of values (no DISTINCT merge); a
    literal focus node keeps its datatype; a node shape's SPARQL constraint
    gives sh:resultPath from ?path and the focus node as sh:value; sh:prefixes
    follow owl:imports; a property shape of a property shape is checked on the
    values (here ex:work has no city), not on the outer focus node.
    """
    data, shapes = _files(tmp_path, REPORT_DETAILS_DATA, REPORT_DETAILS_SHAPES)
    report = validate_graph(data, shapes)
    assert report.engine == "store", report.fallback
    found = sorted(
        (
            r.focus_node.n3(),
            str(r.source_constraint_component).rpartition("#")[2],
            None if r.path is None else r.path.n3(),
            None if r.value is None else r.value.n3(),
        )
        for r in report.results
    )
    integer = "<http://www.w3.org/2001/XMLSchema#integer>"
    assert found == sorted(
        [
            (EX.r.n3(), "LessThanConstraintComponent", EX.start.n3(), f'"5"^^{integer}'),
            (EX.r.n3(), "LessThanConstraintComponent", EX.start.n3(), f'"5"^^{integer}'),
            (EX.r.n3(), "LessThanConstraintComponent", EX.start.n3(), f'"6"^^{integer}'),
            (EX.r.n3(), "LessThanConstraintComponent", EX.start.n3(), f'"6"^^{integer}'),
            (
                f'"aldi"^^{integer}',
                "DatatypeConstraintComponent",
                None,
                f'"aldi"^^{integer}',
            ),
            (EX.r.n3(), "SPARQLConstraintComponent", EX.label.n3(), EX.r.n3()),
            (EX.work.n3(), "MinCountConstraintComponent", EX.city.n3(), None),
        ]
    )


def test_values_that_cannot_be_compared_are_results(tmp_path: Path) -> None:
    """SHACL 1.0 4.4 and 4.5.3: a comparison that fails (ill-formed, or of unlike
    terms) is a result. pySHACL 0.40.1 reports neither of these two."""
    shapes = (
        PREFIXES
        + "ex:S a sh:NodeShape ; sh:targetNode ex:a ;\n"
        + "  sh:property [ sh:path ex:q ; sh:maxExclusive 10 ] , [ sh:path ex:s ; sh:lessThan ex:r ] .\n"
    )
    data = PREFIXES + 'ex:a ex:q "aldi"^^xsd:int ; ex:s "abcd" ; ex:r ex:b .'
    data_file, shapes_file = _files(tmp_path, data, shapes)
    report = validate_graph(data_file, shapes_file)
    assert report.engine == "store"
    assert sorted(
        str(r.source_constraint_component).rpartition("#")[2] for r in report.results
    ) == [
        "LessThanConstraintComponent",
        "MaxExclusiveConstraintComponent",
    ]


def test_each_parameter_value_is_a_constraint(tmp_path: Path) -> None:
    """A shape with two values of a component's parameter has two constraints (one each)."""
    shapes = (
        PREFIXES
        + "ex:Linked a sh:ConstraintComponent ; sh:parameter [ sh:path ex:linkedBy ] ;\n"
        + '  sh:nodeValidator [ sh:select "SELECT $this WHERE { FILTER NOT EXISTS { ?s $linkedBy $this } }" ] .\n'
        + "ex:S a sh:NodeShape ; sh:targetNode ex:a ; ex:linkedBy ex:p, ex:q .\n"
    )
    data_file, shapes_file = _files(tmp_path, PREFIXES + "ex:b ex:p ex:a .", shapes)
    report = validate_graph(data_file, shapes_file)
    assert report.engine == "store"
    assert [(r.focus_node, r.source_constraint_component) for r in report.results] == [
        (EX.a, EX.Linked)
    ]
