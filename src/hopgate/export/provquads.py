"""A PROV document as plain PROV-O quads: what ``verify`` checks and a signature signs.

PROV-N, PROV-JSON and PROV-XML exports are read back with the ``prov``
package and mapped record by record onto the PROV-O quads hopgate wrote
(:func:`prov_quads`), which is much faster than ``prov``'s own RDF writer
(figures in bench/README.md). Strict mapping refuses any record hopgate does
not write, so no record of a file is left out of the dataset a proof signs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pyoxigraph as ox
from prov.constants import PROV
from prov.identifier import QualifiedName
from prov.model import (
    Literal,
    ProvActivity,
    ProvAgent,
    ProvAssociation,
    ProvAttribution,
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
)

from hopgate.errors import UnmappedRecord
from hopgate.vocab import PROV as PROV_NS
from hopgate.vocab import RDF, XSD

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
                        quads.append(
                            ox.Quad(subject, ox.NamedNode(RDF + "type"), _node(local), graph)
                        )
                for name, value in record.attributes:
                    if name.uri in (PROV_NS + "startTime", PROV_NS + "endTime"):
                        local = "startedAtTime" if name.uri.endswith("startTime") else "endedAtTime"
                        quads.append(ox.Quad(subject, _node(local), _time(value), graph))
                        continue
                    uri = RDF + "type" if name.uri == PROV_NS + "type" else name.uri
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
                if PROV["Quotation"] in types:
                    local = "wasQuotedFrom"
                elif PROV["Revision"] in types:
                    local = "wasRevisionOf"
            if source is None:
                continue
            subject = ox.NamedNode(source.uri)
            if target is not None:
                quads.append(ox.Quad(subject, _node(local), ox.NamedNode(target.uri), graph))
            moment = formal.get("prov:time")
            if time_name is not None and moment is not None:
                quads.append(ox.Quad(subject, _node(time_name), _time(moment), graph))
    return quads


def _check_mapped(record: Any, formal: dict[str, Any], mapped: set[str]) -> None:
    extra = [
        (str(name), value)
        for name, value in record.extra_attributes
        if not (
            isinstance(record, ProvDerivation)
            and str(name) == "prov:type"
            and value in (PROV["Revision"], PROV["Quotation"])
        )
    ]
    unmapped = [name for name, value in formal.items() if value is not None and name not in mapped]
    if record.identifier is not None or extra or unmapped:
        raise UnmappedRecord(f"a relation with more than hopgate maps: {record}")


def _node(local: str) -> ox.NamedNode:
    return ox.NamedNode(PROV_NS + local)


def _time(value: Any) -> ox.Literal:
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
        return ox.Literal(value.isoformat(), datatype=ox.NamedNode(XSD + "dateTime"))
    if isinstance(value, bool):
        return ox.Literal("true" if value else "false", datatype=ox.NamedNode(XSD + "boolean"))
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=ox.NamedNode(XSD + "integer"))
    return ox.Literal(str(value))


__all__ = ["prov_quads"]
