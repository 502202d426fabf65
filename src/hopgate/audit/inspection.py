"""What is in a store: records by kind, triples and graphs."""

from __future__ import annotations

from dataclasses import dataclass

from hopgate.store import Store
from hopgate.vocab import HG

#: hopgate classes counted by ``stats``, with the ledger kind they stand for.
_KINDS = {
    "Evaluation": "evaluations",
    "ReaderClass": "readers",
    "Source": "sources",
    "Version": "versions",
    "Span": "spans",
    "Question": "questions",
    "Claim": "claims",
    "EvidenceSet": "evidence sets",
    "Contradiction": "contradictions",
    "Run": "runs",
    "Retrieval": "cases",
    "OutputClaim": "output claims",
    "Judgment": "judgments",
    "AcceptanceCard": "acceptance cards",
}


@dataclass(frozen=True)
class GraphInfo:
    """One named graph: its IRI, its quad count, and what it is (load, evaluation...)."""

    iri: str
    quads: int
    kind: str
    label: str


@dataclass(frozen=True)
class Stats:
    """Counts of a store's contents."""

    records: dict[str, int]
    quads: int
    graphs: list[GraphInfo]


def stats(store: Store) -> Stats:
    """Count records by kind, quads, and quads per named graph, with SPARQL in the store.

    ``hopgate stats``.

    Example:
        >>> from hopgate import load, open_store, stats
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> found = stats(store)
        >>> found.records["claims"], found.records["output claims"], [g.kind for g in found.graphs]
        (4, 4, ['catalog', 'load'])"""
    rows = store.select(
        "SELECT ?class (COUNT(DISTINCT ?node) AS ?n) WHERE { ?node a ?class . "
        "FILTER(STRSTARTS(STR(?class), STR(hg:))) } GROUP BY ?class"
    )
    by_class = {str(row["class"]).removeprefix(HG): int(row["n"] or 0) for row in rows}
    records = {label: by_class.get(name, 0) for name, label in _KINDS.items()}
    rows = store.select(
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g"
    )
    described = {
        str(row["g"]): (str(row["kind"]), str(row["label"] or ""))
        for row in store.select(
            "SELECT ?g ?kind ?label WHERE { ?g a prov:Bundle ; prov:wasGeneratedBy ?a . "
            "?a a ?kind . FILTER(?kind IN (hg:Load, hg:EvaluationActivity)) "
            "OPTIONAL { ?g hg:ledgerFile ?label } }"
        )
    }
    graphs = []
    for row in rows:
        iri = str(row["g"])
        kind, label = described.get(iri, ("", ""))
        graphs.append(
            GraphInfo(iri, int(row["n"] or 0), kind.removeprefix(HG).lower() or "catalog", label)
        )
    return Stats(records=records, quads=store.count(), graphs=graphs)
