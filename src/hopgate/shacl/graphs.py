"""SHACL on any RDF graph: :func:`validate_graph`, the engine of ``hopgate shacl``.

The data and the shapes are files or rdflib graphs; the answer is a
:class:`ShaclReport` holding the W3C ``sh:ValidationReport`` graph and its
results as dataclasses. Two engines:

- ``store`` (default): the data is loaded into a scratch in-memory Oxigraph
  store, with every literal the store would not keep as written replaced by a
  written literal (:mod:`hopgate.shacl.lexical`), and the shapes run as compiled
  SPARQL (:mod:`hopgate.shacl.compiler`). Shapes it does not translate exactly
  are handed to pySHACL (``ShaclReport.engine`` then says ``pyshacl`` and
  ``ShaclReport.fallback`` says why);
- ``pyshacl``: the reference engine.

Conformance follows SHACL 1.0: ``conforms`` is true exactly when there is no
validation result, whatever its severity. Files are parsed with rdflib's
literal normalisation off, so literals are validated as written.

Both files are untrusted input (:func:`read_graph`): read without the
network or another file, bounded in size and depth; the shapes are bounded
before either engine runs (:mod:`hopgate.shacl.bounds`), and pySHACL runs in
a child process with a time limit (:mod:`hopgate.shacl.reference`).
"""

from __future__ import annotations

import contextlib
import json
import os
import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import rdflib
from rdflib.namespace import RDF, RDFS, SH
from rdflib.parser import PythonInputSource
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.errors import IllFormedShape, InputRefused, QueryError, ShaclError, UnsupportedShape
from hopgate.inputs import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    REFERENCE_SECONDS,
    decode_text,
    parse_json,
    read_regular,
    scan,
)
from hopgate.shacl.bounds import check_shapes
from hopgate.shacl.compiler import compile_shapes
from hopgate.shacl.lexical import Writer
from hopgate.shacl.reference import literals_as_written, validate_reference
from hopgate.shacl.runner import run_checks
from hopgate.shacl.validation import path_text
from hopgate.store import open_store

#: The named graph of the scratch store that holds the shapes (``$shapesGraph``).
SHAPES_GRAPH = "urn:hopgate:shapes-graph"
#: The engines of :func:`validate_graph`.
SHACL_ENGINES = ("store", "pyshacl")

_FORMATS = {
    ".ttl": "turtle",
    ".nt": "nt",
    ".n3": "n3",
    ".rdf": "xml",
    ".owl": "xml",
    ".xml": "xml",
    ".jsonld": "json-ld",
    ".json": "json-ld",
    ".trig": "trig",
    ".nq": "nquads",
}


_SERIALIZERS = {
    "turtle": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "json-ld": ox.RdfFormat.JSON_LD,
    "xml": ox.RdfFormat.RDF_XML,
}


@dataclass(frozen=True)
class ShaclResult:
    """One ``sh:ValidationResult`` of a report."""

    focus_node: Node
    severity: URIRef
    source_shape: Node
    source_constraint_component: URIRef
    path: Node | None = None
    value: Node | None = None
    source_constraint: Node | None = None
    messages: tuple[str, ...] = ()


@dataclass(frozen=True)
class ShaclReport:
    """The outcome of :func:`validate_graph`: the W3C report graph and its results."""

    conforms: bool
    results: list[ShaclResult]
    graph: rdflib.Graph
    engine: str
    #: Why the store engine handed the shapes to pySHACL (None when it did not).
    fallback: str | None = None

    def path_text(self, result: ShaclResult) -> str | None:
        """``result``'s path written compactly (``ex:p/ex:q``, ``^ex:p``), None without a path."""
        return None if result.path is None else path_text(self.graph, result.path)

    def serialize(self, format: str = "turtle") -> str:
        """The report graph as ``turtle``, ``nt``, ``json-ld`` or ``xml`` (RDF/XML).

        Written by pyoxigraph: rdflib writes an ill-formed boolean such as
        ``"none"^^xsd:boolean`` as the bare word ``none``, which is not Turtle.

        Raises:
            ShaclError: the format is not one of these.
        """
        if format not in _SERIALIZERS:
            raise ShaclError(f"unknown report format {format!r}; expected one of {_SERIALIZERS}")
        try:
            triples = [
                ox.Triple(_ox_term(s), _ox_term(p), _ox_term(o))  # type: ignore[arg-type]
                for s, p, o in self.graph
            ]
        except ValueError:
            # A term pyoxigraph rejects (an IRI with a control character, which rdflib
            # read from the data): rdflib writes it (a traceback before; security review).
            return self.graph.serialize(format=format)  # rdflib's names for the same formats
        prefixes = {"sh": str(SH), "rdf": str(RDF), "xsd": "http://www.w3.org/2001/XMLSchema#"}
        text = ox.serialize(triples, format=_SERIALIZERS[format], prefixes=prefixes)
        assert isinstance(text, bytes)
        return text.decode("utf-8")


def read_graph(source: rdflib.Graph | os.PathLike[str]) -> rdflib.Graph:
    """An rdflib graph as given, or parsed from a file (format from its suffix; literals as written).

    A file is untrusted input, read without touching the network or another
    file: only a regular file of at most MAX_DOCUMENT_BYTES is read; RDF/XML
    that declares an XML entity is refused (an entity can expand without
    bound, or name another file); a JSON-LD ``@context`` or ``@import`` that
    names a document (HTTP or ``file:``) is refused, not loaded; JSON nests at
    most MAX_DEPTH levels.

    Raises:
        ShaclError: the file is missing, refused, or does not parse.
    """
    if isinstance(source, rdflib.Graph):
        return source
    path = Path(source)
    try:
        data = read_regular(path, limit=MAX_DOCUMENT_BYTES)
    except InputRefused as exc:
        raise ShaclError(f"{path}: {exc.detail}") from None
    syntax = _FORMATS.get(path.suffix.lower(), "turtle")
    graph = rdflib.Graph()
    base = path.absolute().as_uri()
    try:
        with literals_as_written():
            if syntax == "json-ld":
                _parse_json_ld(graph, data, base)
            else:
                if syntax == "xml":
                    _refuse_xml_entities(data)
                graph.parse(data=data, format=syntax, publicID=base)
    except InputRefused as exc:
        raise ShaclError(f"{path}: {exc.detail}") from None
    except RecursionError:
        raise ShaclError(
            f"{path}: does not parse: nested too deeply for the parser (keep nesting under "
            f"{MAX_DEPTH} levels)"
        ) from None
    except Exception as exc:  # rdflib raises several unrelated parser exceptions
        raise ShaclError(f"{path}: does not parse: {_one_line(str(exc))}") from None
    return graph


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def _refuse_xml_entities(data: bytes) -> None:
    """Refuse RDF/XML that declares an entity or names an external DTD, before rdflib reads it.

    Read once with expat, which calls the declaration handler before any
    reference can expand: a "billion laughs" file stops at its first line.
    """

    def entity(name: str, *_: Any) -> None:
        raise InputRefused(
            f"declares the XML entity {name!r}: XML entities are refused (they can expand "
            "without bound, or name another file); write the IRIs in full"
        )

    def doctype(name: str, system_id: str | None, public_id: str | None, *_: Any) -> None:
        if system_id or public_id:
            raise InputRefused(f"names an external DTD ({system_id or public_id}); refused")

    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.StartDoctypeDeclHandler = doctype
    # Not well-formed XML is rdflib's to report, with its own message.
    with contextlib.suppress(xml.parsers.expat.ExpatError):
        parser.Parse(data, True)


def _parse_json_ld(graph: rdflib.Graph, data: bytes, base: str) -> None:
    """Parse JSON-LD whose contexts are all inline: one that names a document is refused."""
    try:
        document = parse_json(decode_text(data), strict=False)
    except json.JSONDecodeError as exc:
        raise InputRefused(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    scan(document, characters=False)
    for key, value in _keyed(document):
        if key in ("@context", "@import") and _names_a_document(value):
            raise InputRefused(
                f"its {key} names a document ({_shown(value)}): remote and file contexts "
                "are not loaded; write the context inline"
            )
    graph.parse(source=PythonInputSource(document, base), format="json-ld", publicID=base)


def _keyed(document: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of every object in ``document``, without recursion."""
    pending = [document]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                yield key, value
                pending.append(value)
        elif isinstance(item, list):
            pending.extend(item)


def _names_a_document(value: Any) -> bool:
    # rdflib loads a context given as a string (an IRI, resolved against the file's own).
    return isinstance(value, str) or (
        isinstance(value, list) and any(isinstance(item, str) for item in value)
    )


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:80] + "..."


def validate_graph(
    data: rdflib.Graph | os.PathLike[str],
    shapes: rdflib.Graph | os.PathLike[str],
    *,
    engine: str = "store",
    time_limit: float = REFERENCE_SECONDS,
) -> ShaclReport:
    """Validate ``data`` against ``shapes`` (SHACL Core and SHACL-SPARQL constraints).

    Args:
        data: the data graph, or a file holding it.
        shapes: the shapes graph, or a file holding it.
        engine: ``store`` (compiled SPARQL in a scratch Oxigraph store, with
            pySHACL for what it does not compile) or ``pyshacl``.
        time_limit: seconds pySHACL may run (in a child process; see
            :mod:`hopgate.shacl.reference`).

    Raises:
        ShaclError: a file is missing, refused or does not parse; the shapes are
            over hopgate's bounds (:mod:`hopgate.shacl.bounds`) or ill-formed (a
            conforming engine refuses them); pySHACL did not finish in time; the
            engine is unknown.

    Example (``hopgate shacl DATA SHAPES``):
        >>> import rdflib
        >>> from hopgate import validate_graph
        >>> shapes = rdflib.Graph().parse(format="turtle", data='''
        ...     @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <https://example.org/> .
        ...     ex:S a sh:NodeShape ; sh:targetClass ex:Claim ;
        ...         sh:property [ sh:path ex:text ; sh:minCount 1 ] .''')
        >>> data = rdflib.Graph().parse(format="turtle", data='''
        ...     @prefix ex: <https://example.org/> . ex:c1 a ex:Claim .''')
        >>> report = validate_graph(data, shapes)
        >>> report.conforms, len(report.results)
        (False, 1)
    """
    if engine not in SHACL_ENGINES:
        raise ShaclError(f"unknown SHACL engine {engine!r}; expected one of {SHACL_ENGINES}")
    data_graph = read_graph(data)
    shapes_graph = read_graph(shapes)
    where = f"{shapes}: " if not isinstance(shapes, rdflib.Graph) else ""
    try:
        check_shapes(shapes_graph)
    except InputRefused as exc:
        raise ShaclError(f"{where}{exc.detail}") from None
    if engine == "store":
        try:
            return _in_store(data_graph, shapes_graph)
        except UnsupportedShape as exc:
            return _with_pyshacl(data_graph, shapes_graph, fallback=str(exc), seconds=time_limit)
        except IllFormedShape as exc:
            raise ShaclError(f"{where}ill-formed shapes: {exc}", engine="store") from None
    return _with_pyshacl(data_graph, shapes_graph, fallback=None, seconds=time_limit)


def _in_store(data: rdflib.Graph, shapes: rdflib.Graph) -> ShaclReport:
    # The compiled checks hold the shapes' IRIs as written: one the store's
    # parser rejects (rdflib took `<[https://example.org/a>`) is the same case
    # as such a term in the data below, not a check that does not parse.
    try:
        for triple in shapes:
            for node in triple:
                if isinstance(node, URIRef):
                    ox.NamedNode(str(node))
    except ValueError as exc:
        raise UnsupportedShape(f"the shapes hold a term the store rejects: {exc}") from None
    literals = [t for triple in data for t in triple if isinstance(t, Literal)]
    literals += [t for triple in shapes for t in triple if isinstance(t, Literal)]
    writer = Writer(literals)
    subclasses = (None, RDFS.subClassOf, None) in data
    checks = compile_shapes(
        shapes,
        subclasses=subclasses,
        write=writer.write if writer.active else None,
        shapes_graph=SHAPES_GRAPH,
    )
    store = open_store(None)
    try:
        # The data in the default graph; the shapes in a named graph, for $shapesGraph.
        try:
            store.add_quads(_quads(data, writer, None))
            if any(SHAPES_GRAPH in check.query for check in checks):
                # Only then: a query's GRAPH ?g must not meet the shapes otherwise.
                store.add_quads(_quads(shapes, writer, ox.NamedNode(SHAPES_GRAPH)))
        except ValueError as exc:
            # rdflib accepts terms Oxigraph rejects (an IRI with a space, a tag "en_US").
            raise UnsupportedShape(f"the data holds a term the store rejects: {exc}") from None
        try:
            report = run_checks(store, checks, shapes, union=False)
        except QueryError as exc:
            # A shape's own SPARQL (sh:select) holding a term rdflib read and the store's
            # parser rejects (`<[https://example.org/p>`): the same case as above.
            raise UnsupportedShape(f"the store cannot run a compiled check: {exc}") from None
    finally:
        store.close()
    return _report(report, engine="store", fallback=None)


def _ox_term(node: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    if isinstance(node, URIRef):
        return ox.NamedNode(str(node))
    if isinstance(node, BNode):
        return ox.BlankNode(str(node))
    if not isinstance(node, Literal):
        raise ShaclError(f"not an RDF term: {node!r}")
    if node.language:
        return ox.Literal(str(node), language=node.language)
    if node.datatype is not None:
        return ox.Literal(str(node), datatype=ox.NamedNode(str(node.datatype)))
    return ox.Literal(str(node))


def _quads(data: rdflib.Graph, writer: Writer, graph: ox.NamedNode | None) -> Iterator[ox.Quad]:
    def term(node: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
        return _ox_term(writer.write(node))

    for s, p, o in data:
        subject, predicate, obj = term(s), term(p), term(o)
        assert isinstance(predicate, ox.NamedNode) and not isinstance(subject, ox.Literal)
        yield ox.Quad(subject, predicate, obj, graph)


def _with_pyshacl(
    data: rdflib.Graph, shapes: rdflib.Graph, *, fallback: str | None, seconds: float
) -> ShaclReport:
    report = validate_reference(data, shapes, seconds=seconds)
    return _report(report, engine="pyshacl", fallback=fallback)


def _report(graph: rdflib.Graph, *, engine: str, fallback: str | None) -> ShaclReport:
    results = []
    for node in graph.objects(None, SH.result):
        severity = graph.value(node, SH.resultSeverity)
        component = graph.value(node, SH.sourceConstraintComponent)
        focus = graph.value(node, SH.focusNode)
        assert isinstance(severity, URIRef) and isinstance(component, URIRef)
        assert focus is not None
        results.append(
            ShaclResult(
                focus_node=focus,
                severity=severity,
                source_shape=graph.value(node, SH.sourceShape) or RDF.nil,
                source_constraint_component=component,
                path=graph.value(node, SH.resultPath),
                value=graph.value(node, SH.value),
                source_constraint=graph.value(node, SH.sourceConstraint),
                messages=tuple(sorted(str(m) for m in graph.objects(node, SH.resultMessage))),
            )
        )
    conforms = not results
    for root in graph.subjects(RDF.type, SH.ValidationReport):
        graph.set((root, SH.conforms, Literal(conforms)))
    graph.bind("sh", SH)
    return ShaclReport(
        conforms=conforms, results=results, graph=graph, engine=engine, fallback=fallback
    )


__all__ = ["SHACL_ENGINES", "ShaclReport", "ShaclResult", "read_graph", "validate_graph"]
