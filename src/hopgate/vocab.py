"""Namespaces and the hopgate terms the loader emits (see ``docs/model.md``)."""

from __future__ import annotations

PROV = "http://www.w3.org/ns/prov#"
OA = "http://www.w3.org/ns/oa#"
HG = "https://w3id.org/hopgate/ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#: rdf:type, the predicate N-Triples writers call ``a``.
RDF_TYPE = RDF + "type"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
DCTERMS = "http://purl.org/dc/terms/"

#: Where record IRIs are minted: ``ID_BASE + kind + "/" + percent-encoded id``.
ID_BASE = "https://w3id.org/hopgate/id/"
#: The named graph holding each load's and evaluation's own provenance.
CATALOG_GRAPH = ID_BASE + "catalog"

PREFIXES = {
    "prov": PROV,
    "oa": OA,
    "hg": HG,
    "xsd": XSD,
    "rdf": RDF,
    "rdfs": RDFS,
    "dcterms": DCTERMS,
}


def sparql_prologue() -> str:
    """The PREFIX lines every hopgate query may rely on."""
    return "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items())


#: The verdict classes and their names in results (docs/spec/acceptance.md "Verdict").
VERDICTS = {
    HG + "Accept": "accept",
    HG + "ReviseCitations": "revise-citations",
    HG + "Abstain": "abstain",
    HG + "Reject": "reject",
    HG + "Escalate": "escalate",
}
ANSWERABILITY = {
    HG + "Answerable": "answerable",
    HG + "Blocked": "blocked",
    HG + "NotFound": "not found",
    HG + "NotApplicable": "not applicable",
}
#: A source's authority, strongest first (docs/spec/acceptance.md "Source truth"):
#: a route's authority is its weakest member's.
AUTHORITY = {
    HG + "Primary": "primary",
    HG + "Secondary": "secondary",
    HG + "Tertiary": "tertiary",
    HG + "Unstated": "unstated",
}
