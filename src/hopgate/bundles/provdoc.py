"""A ``prov.model.ProvDocument`` built directly from an export's quads.

The quads come from SPARQL over the store (see :mod:`hopgate.bundles.quads`);
this module maps them onto PROV-DM records without the ``prov`` package's
RDF parser, which is far too slow at scale (``bench/export.py`` measures it).
Each named graph becomes a bundle; quads in no graph (the bundles' own
provenance from the catalog) go to the document's top level.

The mapping: a node typed ``prov:Activity`` is an activity (its
``prov:startedAtTime`` / ``prov:endedAtTime`` become its times); a node typed
``prov:Agent`` (or a subclass) an agent; any other node an entity, its other
``rdf:type`` values kept as ``prov:type``. PROV-O relations between nodes
become PROV-DM relations (a ``prov:generatedAtTime`` joins the entity's
generation, ``prov:invalidatedAtTime`` its invalidation); every other
property is an attribute. Records are added in sorted order, so the same
quads give the same document and the same bytes.
"""

from __future__ import annotations

import base64
import io
import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import pyoxigraph as ox
from prov.constants import PROV as PROV_DM
from prov.identifier import Identifier, Namespace, QualifiedName
from prov.model import (
    Literal,
    ProvActivity,
    ProvAgent,
    ProvAssociation,
    ProvAttribution,
    ProvBundle,
    ProvDelegation,
    ProvDerivation,
    ProvDocument,
    ProvElement,
    ProvEntity,
    ProvGeneration,
    ProvInvalidation,
    ProvMembership,
    ProvSpecialization,
    ProvUsage,
    parse_xsd_datetime,
)

from hopgate import ids
from hopgate.errors import UnmappedRecord
from hopgate.vocab import DCTERMS, HG, ID_BASE, OA, PROV, RDF, XSD
from hopgate.vocab import RDF_TYPE as A

_ACTIVITY = PROV + "Activity"
_AGENTS = {PROV + "Agent", PROV + "SoftwareAgent", PROV + "Person", PROV + "Organization"}
_ELEMENT_TYPES = {PROV + "Entity", _ACTIVITY, PROV + "Agent"}

#: Binary PROV-O properties and the ProvBundle method that records them.
_RELATIONS = {
    PROV + "wasGeneratedBy": "generation",
    PROV + "used": "usage",
    PROV + "wasAssociatedWith": "association",
    PROV + "wasAttributedTo": "attribution",
    PROV + "actedOnBehalfOf": "delegation",
    PROV + "wasDerivedFrom": "derivation",
    PROV + "wasRevisionOf": "revision",
    PROV + "wasQuotedFrom": "quotation",
    PROV + "specializationOf": "specialization",
    PROV + "hadMember": "membership",
    PROV + "wasInvalidatedBy": "invalidation",
}
_TIMES = {
    PROV + "startedAtTime",
    PROV + "endedAtTime",
    PROV + "generatedAtTime",
    PROV + "invalidatedAtTime",
}

#: Prefixes: the vocabularies, and one per kind of minted record IRI.
_PREFIXES = [("hg", HG), ("oa", OA), ("dcterms", DCTERMS), ("rdf", RDF), ("id", ID_BASE)]
_PREFIXES += [(kind, f"{ID_BASE}{kind}/") for kind in sorted(ids.KINDS)]


class _Names:
    """Map IRIs onto qualified names of the document's namespaces (longest match)."""

    def __init__(self, document: ProvDocument) -> None:
        self.namespaces = [
            document.add_namespace(Namespace(prefix, uri)) for prefix, uri in _PREFIXES
        ]
        self.namespaces.append(Namespace("prov", PROV))
        self.namespaces.append(Namespace("xsd", XSD))
        self.namespaces.sort(key=lambda ns: len(ns.uri), reverse=True)
        self._cache: dict[str, QualifiedName | Identifier] = {}

    def __call__(self, iri: str) -> QualifiedName | Identifier:
        found = self._cache.get(iri)
        if found is None:
            found = Identifier(iri)
            for namespace in self.namespaces:
                if iri.startswith(namespace.uri) and len(iri) > len(namespace.uri):
                    found = namespace[iri[len(namespace.uri) :]]
                    break
            self._cache[iri] = found
        return found


#: What XML 1.0 cannot hold, not even as a character reference (C0 controls but
#: tab, newline and carriage return; surrogates; U+FFFE and U+FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _value(term: Any, names: _Names, *, xml: bool = False) -> Any:
    if isinstance(term, ox.NamedNode):
        return names(term.value)
    assert isinstance(term, ox.Literal)
    datatype = term.datatype.value
    if xml and _NOT_XML.search(term.value):
        # An id is any string (U+0001 included); PROV-XML is XML 1.0, which cannot
        # carry it, so the value is written losslessly as base64 of its UTF-8.
        encoded = base64.b64encode(term.value.encode("utf-8")).decode("ascii")
        return Literal(encoded, datatype=names(XSD + "base64Binary"))  # type: ignore[arg-type]
    if term.language:
        return Literal(term.value, langtag=term.language)
    if datatype == XSD + "string":
        return term.value
    return Literal(term.value, datatype=names(datatype))  # type: ignore[arg-type]


class _Node:
    __slots__ = ("types", "attributes", "relations", "times")

    def __init__(self) -> None:
        self.types: list[str] = []
        self.attributes: list[tuple[str, Any]] = []
        self.relations: list[tuple[str, str]] = []
        self.times: dict[str, str] = {}


def _nodes(quads: Iterable[ox.Quad]) -> dict[str | None, dict[str, _Node]]:
    graphs: dict[str | None, dict[str, _Node]] = defaultdict(dict)
    for quad in quads:
        graph = None if isinstance(quad.graph_name, ox.DefaultGraph) else quad.graph_name.value
        subject = str(quad.subject.value)  # type: ignore[union-attr]
        node = graphs[graph].get(subject)
        if node is None:
            node = graphs[graph][subject] = _Node()
        predicate = quad.predicate.value
        obj = quad.object
        if predicate == A and isinstance(obj, ox.NamedNode):
            node.types.append(obj.value)
        elif predicate in _RELATIONS and isinstance(obj, ox.NamedNode):
            node.relations.append((predicate, obj.value))
        elif predicate in _TIMES and isinstance(obj, ox.Literal):
            node.times[predicate] = obj.value
        else:
            node.attributes.append((predicate, obj))
    return graphs


def _fill(bundle: ProvBundle, nodes: dict[str, _Node], names: _Names, *, xml: bool = False) -> None:
    prov_type = names(PROV + "type")
    for subject in sorted(nodes):
        node = nodes[subject]
        types = sorted(node.types)
        attributes: list[tuple[Any, Any]] = [
            (prov_type, names(t)) for t in types if t not in _ELEMENT_TYPES
        ]
        attributes += [
            (names(p), _value(o, names, xml=xml))
            for p, o in sorted(node.attributes, key=_attribute_key)
        ]
        if _ACTIVITY in types:
            bundle.activity(
                names(subject),
                _time(node.times.get(PROV + "startedAtTime")),
                _time(node.times.get(PROV + "endedAtTime")),
                attributes,
            )
        elif _AGENTS.intersection(types):
            bundle.agent(names(subject), attributes)
        else:
            bundle.entity(names(subject), attributes)
    for subject in sorted(nodes):
        node = nodes[subject]
        generated = node.times.get(PROV + "generatedAtTime")
        invalidated = node.times.get(PROV + "invalidatedAtTime")
        for predicate, target in sorted(node.relations):
            method = _RELATIONS[predicate]
            if method == "generation":
                bundle.generation(names(subject), names(target), _time(generated))
                generated = None
            elif method == "invalidation":
                bundle.invalidation(names(subject), names(target), _time(invalidated))
                invalidated = None
            else:
                getattr(bundle, method)(names(subject), names(target))
        # A time with no activity known is still a generation (or invalidation).
        if generated is not None:
            bundle.generation(names(subject), None, _time(generated))
        if invalidated is not None:
            bundle.invalidation(names(subject), None, _time(invalidated))


def _attribute_key(item: tuple[str, Any]) -> tuple[str, str]:
    return item[0], str(item[1])


def _time(value: str | None) -> Any:
    return None if value is None else parse_xsd_datetime(value)


def build_document(quads: Iterable[ox.Quad], *, xml: bool = False) -> ProvDocument:
    """The PROV document of an export: one bundle per named graph, provenance at the top.

    With ``xml`` (for PROV-XML), a string XML 1.0 cannot hold (a control
    character in an id, say) is written as ``xsd:base64Binary`` of its UTF-8.
    """
    document = ProvDocument()
    names = _Names(document)
    graphs = _nodes(quads)
    if None in graphs:
        _fill(document, graphs[None], names, xml=xml)
    for graph in sorted(g for g in graphs if g is not None):
        _fill(document.bundle(names(graph)), graphs[graph], names, xml=xml)
    return document


#: The ``prov`` package's name of each PROV format hopgate writes.
PROV_FORMATS = {"provn": "provn", "provjson": "json", "provxml": "xml"}


def serialize_document(document: ProvDocument, fmt: str) -> bytes:
    """PROV-N, PROV-JSON or PROV-XML bytes of ``document`` (``fmt`` a key of PROV_FORMATS)."""
    kwargs: dict[str, Any] = {"sort_keys": True, "indent": 1} if fmt == "provjson" else {}
    buffer = io.StringIO()
    document.serialize(buffer, format=PROV_FORMATS[fmt], **kwargs)
    text = buffer.getvalue()
    return text.encode("utf-8") + (b"" if text.endswith("\n") else b"\n")


def parse_document(data: bytes, fmt: str) -> ProvDocument:
    """Parse PROV-N, PROV-JSON or PROV-XML bytes with the ``prov`` package."""
    return ProvDocument.deserialize(content=data.decode("utf-8"), format=PROV_FORMATS[fmt])


#: PROV-DM relation -> (PROV-O property, subject attribute, object attribute, time property).
_RELATION_TERMS: dict[type, tuple[str, str, str, str | None]] = {
    ProvGeneration: ("wasGeneratedBy", "prov:entity", "prov:activity", "generatedAtTime"),
    ProvUsage: ("used", "prov:activity", "prov:entity", None),
    ProvInvalidation: ("wasInvalidatedBy", "prov:entity", "prov:activity", "invalidatedAtTime"),
    ProvSpecialization: ("specializationOf", "prov:specificEntity", "prov:generalEntity", None),
    ProvMembership: ("hadMember", "prov:collection", "prov:entity", None),
    ProvAssociation: ("wasAssociatedWith", "prov:activity", "prov:agent", None),
    ProvAttribution: ("wasAttributedTo", "prov:entity", "prov:agent", None),
    ProvDelegation: ("actedOnBehalfOf", "prov:delegate", "prov:responsible", None),
    ProvDerivation: ("wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity", None),
}
_ELEMENT_CLASSES = {ProvActivity: "Activity", ProvAgent: "Agent", ProvEntity: "Entity"}


def prov_quads(document: ProvDocument, *, strict: bool = False) -> list[ox.Quad]:
    """A PROV document as plain PROV-O quads (one graph per bundle, the top level in the
    default graph): each element typed, its attributes, activity times, and every relation
    hopgate writes as its unqualified property (with the generation or invalidation time).
    Built from the ``prov`` records directly, which is much faster than ``prov``'s own RDF
    writer (figures in bench/README.md).

    ``strict`` (for signatures): every record must map in full, so that no two
    documents that differ map to one dataset.

    Raises:
        UnmappedRecord: with ``strict``, a record of a kind hopgate does not write, or
            a relation with an identifier or attributes beyond its mapped ones.
    """
    quads = []
    for bundle in [document, *document.bundles]:
        identifier = None if bundle is document else bundle.identifier
        graph: ox.DefaultGraph | ox.NamedNode = (
            ox.DefaultGraph() if identifier is None else ox.NamedNode(identifier.uri)
        )
        for record in bundle.get_records():
            if isinstance(record, ProvElement):
                if record.identifier is None:
                    if strict:
                        raise UnmappedRecord(f"an element without an identifier: {record}")
                    continue
                subject = ox.NamedNode(record.identifier.uri)
                for cls, local in _ELEMENT_CLASSES.items():
                    if isinstance(record, cls):
                        quads.append(ox.Quad(subject, ox.NamedNode(A), _node(local), graph))
                for name, value in record.attributes:
                    if name.uri in (PROV + "startTime", PROV + "endTime"):
                        local = "startedAtTime" if name.uri.endswith("startTime") else "endedAtTime"
                        quads.append(
                            ox.Quad(subject, _node(local), _datetime_literal(value), graph)
                        )
                        continue
                    uri = A if name.uri == PROV + "type" else name.uri
                    quads.append(ox.Quad(subject, ox.NamedNode(uri), _term(value), graph))
                continue
            terms = _RELATION_TERMS.get(type(record))
            if terms is None:
                if strict:
                    raise UnmappedRecord(f"a record hopgate does not write: {record}")
                continue
            local, subject_name, object_name, time_name = terms
            formal = {str(k): v for k, v in record.formal_attributes}
            if strict:
                _check_mapped(record, formal, {subject_name, object_name, "prov:time"})
            source, target = formal.get(subject_name), formal.get(object_name)
            if isinstance(record, ProvDerivation):
                types = record.get_asserted_types()
                if PROV_DM["Quotation"] in types:
                    local = "wasQuotedFrom"
                elif PROV_DM["Revision"] in types:
                    local = "wasRevisionOf"
            if source is None:
                continue
            subject = ox.NamedNode(source.uri)
            if target is not None:
                quads.append(ox.Quad(subject, _node(local), ox.NamedNode(target.uri), graph))
            moment = formal.get("prov:time")
            if time_name is not None and moment is not None:
                quads.append(ox.Quad(subject, _node(time_name), _datetime_literal(moment), graph))
    return quads


def _check_mapped(record: Any, formal: dict[str, Any], mapped: set[str]) -> None:
    extra = [
        (str(name), value)
        for name, value in record.extra_attributes
        if not (
            isinstance(record, ProvDerivation)
            and str(name) == "prov:type"
            and value in (PROV_DM["Revision"], PROV_DM["Quotation"])
        )
    ]
    unmapped = [name for name, value in formal.items() if value is not None and name not in mapped]
    if record.identifier is not None or extra or unmapped:
        raise UnmappedRecord(f"a relation with more than hopgate maps: {record}")


def _node(local: str) -> ox.NamedNode:
    return ox.NamedNode(PROV + local)


def _datetime_literal(value: Any) -> ox.Literal:
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return ox.Literal(text, datatype=ox.NamedNode(XSD + "dateTime"))


def _term(value: Any) -> ox.NamedNode | ox.Literal:
    if isinstance(value, QualifiedName):
        return ox.NamedNode(value.uri)
    if isinstance(value, Literal):
        if value.langtag:
            return ox.Literal(value.value, language=value.langtag)
        if value.datatype is None:
            return ox.Literal(value.value)
        return ox.Literal(value.value, datatype=ox.NamedNode(value.datatype.uri))
    if isinstance(value, datetime):
        # prov parses an xsd:dateTime attribute into a datetime; its str() would make it a
        # plain string, the same dataset as a document stating that string.
        return _datetime_literal(value)
    if isinstance(value, bool):
        return ox.Literal("true" if value else "false", datatype=ox.NamedNode(XSD + "boolean"))
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=ox.NamedNode(XSD + "integer"))
    return ox.Literal(str(value))
