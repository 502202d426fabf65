"""The quads of an export: each bundle filtered for its reader, and the top-level provenance.

The reader filter is SPARQL run inside the store: a CONSTRUCT per bundle
keeps every triple except the texts the reader may not inspect (a version's
text, a span's exact quote, prefix and suffix, and ``x-`` extensions of
either), and adds ``hg:withheldFor <reader>`` to every span and version whose
text was withheld, so an auditor still sees that the dependency exists. Which
spans and versions those are is the reader rule's answer (queries/withheld.rq),
taken from the reader filter (:func:`hopgate.audit.withholding.reader_view`)
and bound into the CONSTRUCTs as values.
Version texts leave only with ``with_text`` and only when readable. Any
other text literal repeating a withheld text is left out as well, its
subject marked the same way: the rule of hopgate.audit.withholding
(docs/spec/records.md "What a reader is shown"), which every output applies.

The output is sorted (graph, subject, predicate, object), and hopgate's
graphs have no blank nodes, so the same store gives the same quads.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from hopgate.audit.withholding import Withholding, ntriples_literal, reader_view, withheld_values
from hopgate.bundles.scope import Scope
from hopgate.library.reader_rule import HIDDEN_PAIRS
from hopgate.store import IRI, Store
from hopgate.store.terms import term_ntriples
from hopgate.vocab import CATALOG_GRAPH, HG

#: Without --with-text no version text leaves, readable or not.
_ALL_TEXTS = "{ ?s a hg:Version . BIND(prov:value AS ?p) }"

#: One bundle (``{graph}``), reader-filtered: its triples less the hidden texts.
KEPT_QUERY = "CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} {minus} }}"
#: The markers of the withheld spans and versions (``{withheld}``) defined in one bundle.
MARKER_QUERY = """
CONSTRUCT {{ ?node hg:withheldFor ?reader }} WHERE {{
  GRAPH {graph} {{ ?node a ?class }}
  {withheld}
}}
"""


def _graph(graph: str) -> str:
    # The bundle is written into the text as a term (escaped), not bound as a value:
    # beside the VALUES of withheld nodes, Oxigraph plans ``GRAPH ?g`` bound by a second
    # VALUES block as a scan (7 s for 2.6k nodes at 10k claims, against 0.06 s).
    return term_ntriples(IRI(graph))


def bundle_query(graph: str, *, with_text: bool, withheld: str | None) -> str:
    """The CONSTRUCT that keeps the triples of bundle ``graph`` a reader may see, the spans
    and versions withheld from the reader bound by ``withheld`` (:func:`withheld_values`;
    None when there is none).

    Where nothing is withheld there is no withheld group at all (an empty
    VALUES block, or ``FILTER (false)`` in its place, is more than Virtuoso 7.2's
    SPARQL compiler takes).
    """
    hidden = [] if withheld is None else [HIDDEN_PAIRS.format(withheld=withheld)]
    hidden += [] if with_text else [_ALL_TEXTS]
    minus = f"MINUS {{ {' UNION '.join(hidden)} }}" if hidden else ""
    return KEPT_QUERY.format(graph=_graph(graph), minus=minus)


def marker_query(graph: str, withheld: str) -> str:
    """The CONSTRUCT of ``hg:withheldFor ?reader`` on each withheld span and version
    (``withheld``, :func:`withheld_values` of at least one) that bundle ``graph`` defines."""
    return MARKER_QUERY.format(graph=_graph(graph), withheld=withheld)


#: The catalog's record of one bundle: who generated it, when, from what.
PROVENANCE_QUERY = """
CONSTRUCT { ?s ?p ?o } WHERE {
  GRAPH ?catalog {
    ?g (prov:wasGeneratedBy|prov:wasDerivedFrom|prov:used|prov:wasAssociatedWith|prov:actedOnBehalfOf)* ?s .
    ?s ?p ?o .
  }
}
"""


def _drop_repeats(lines: set[bytes], withholding: Withholding, marker: bytes) -> set[bytes]:
    """``lines`` less those whose text literal repeats a withheld text (an output or a claim
    quoting a span the reader may not inspect, ...), each replaced by ``subject + marker``
    (docs/spec/records.md "What a reader is shown"); ids (``hg:ledgerId``) are names and stay."""
    ledger_id = f"<{HG}ledgerId>".encode()
    kept: set[bytes] = set()
    for line in lines:
        found = ntriples_literal(line)
        if (
            found is not None
            and ledger_id not in line[: found[0]]
            and withholding.withholds_literal(found[2], found[3])
        ):
            kept.add(line.split(b" ", 1)[0] + marker)
        else:
            kept.add(line)
    return kept


@dataclass(frozen=True)
class ExportQuads:
    """The quads of an export as sorted N-Quads lines (graph None: the document's top level).

    Lines are grouped by graph (the top level first, then graphs by IRI) and
    sorted within each graph, so TriG groups each bundle once.
    """

    lines: list[bytes]

    def nquads(self) -> bytes:
        """The quads as N-Quads, in the export's order."""
        return b"".join(self.lines)

    @property
    def quads(self) -> list[ox.Quad]:
        """The quads as Oxigraph terms, in the export's order (parsed at each call: about
        3 us a quad, so a caller asks once)."""
        return list(ox.parse(self.nquads(), format=ox.RdfFormat.N_QUADS))


def export_quads(store: Store, scope: Scope, *, with_text: bool = False) -> ExportQuads:
    """Every quad of ``scope``'s bundles as its reader may see them, plus top-level provenance.

    CONSTRUCT gives N-Triples lines; the graph is appended to each line as
    text, which is cheaper than building term objects (figures in bench/README.md).
    """
    top: set[bytes] = set()
    graphs: dict[str, set[bytes]] = {}
    view = reader_view(store, scope.reader)
    withholding = view.withholding
    withheld = f" <{HG}withheldFor> <{scope.reader_iri}>".encode()
    # The rule's answer as the queries bind it, written once for every bundle.
    nodes = withheld_values(view.nodes) if view.nodes else None
    for graph in scope.graphs:
        suffix = f" <{graph}> .\n".encode()
        lines = graphs.setdefault(graph, set())
        found = [store.construct(bundle_query(graph, with_text=with_text, withheld=nodes))]
        if nodes is not None:
            marked = marker_query(graph, nodes)
            found.append(store.construct(marked, params={"reader": IRI(scope.reader_iri)}))
        for data in found:
            lines.update(line[:-2] + suffix for line in data.splitlines() if line)
        data = store.construct(
            PROVENANCE_QUERY, params={"g": IRI(graph), "catalog": IRI(CATALOG_GRAPH)}
        )
        top.update(line + b"\n" for line in data.splitlines() if line)
    if withholding:
        top = _drop_repeats(top, withholding, withheld + b" .\n")
        for graph in graphs:
            graphs[graph] = _drop_repeats(
                graphs[graph], withholding, withheld + f" <{graph}> .\n".encode()
            )
    ordered = sorted(top)
    for graph in sorted(graphs):
        ordered.extend(sorted(graphs[graph]))
    return ExportQuads(ordered)
