"""The reader rule's answers, recorded by each load (and intervention plan) for every reader.

Every output passes through the reader filter (:mod:`hopgate.audit.withholding`),
which asks ``queries/withheld.rq`` which spans and versions the reader may not
inspect. On an on-disk store it asks a memory copy of the quads the rule can
read (:func:`hopgate.library.steps.reader_projection`), parsed from each
load's reader snapshot: at 10k claims that parse is most of a short read such
as ``explain``. The answer depends on nothing else: so a load, once its graph
is written, asks the rule for every reader on the copy of the store as it will
be once published, and keeps the rows in a file beside the store, like a
snapshot (docs/spec/records.md "Caches"); a read takes them from there. A
load that names no reader list adds its new nodes' answers to the earlier
record instead of asking the rule over the whole store (:func:`_added` says
why that is the same answer).

What makes the record the rule's answer, and never another's:

- Its **key** is a digest of the rule's text, of the name and recorded digest
  of every visible graph's reader snapshot (exactly the quads of that graph the rule
  can match), and of nothing else: a graph without such a snapshot (a
  bundle, the catalog) must hold none of those quads, which is asked
  of the store (one ``ASK`` for all of them); otherwise there is no key and the rule
  is asked. Any load published after the record, or any such quad added
  elsewhere, gives another key, and the record is not used.
- **Every reader**: the rule mentions its reader only as the object of
  ``hg:readableBy``, so every reader that no reader list names gets the same
  answer; the record keeps one answer per reader a list names and one for
  all the others.
- The file is verified against the digest its catalog line records before
  each use; missing or damaged, the rule is asked as before. A record whose
  rows name a blank node (which a read could not look up) is not kept.

The record holds each reader's withheld texts too (the texts of the nodes the
rule marks ``?text``): the reader projection holds the spans' quotes and the
versions' texts, so the snapshot digests in the key cover them, and the copy
the load asks finds them in memory (on the disk store each read's lookup of
them was 0.4-1.4 s at 10k claims, 12 s at 100k).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from hopgate import ntriples as nt
from hopgate.errors import HopgateError
from hopgate.library.reader_rule import TEXTS_OF_NODES, TEXTS_QUERY, VIEW_QUERY
from hopgate.library.steps import reader_projection
from hopgate.store import snapshots
from hopgate.store.base import IRI, Row, Store
from hopgate.store.terms import flag, term_ntriples
from hopgate.vocab import CATALOG_GRAPH, HG, RDF_TYPE, sparql_prologue

log = logging.getLogger(__name__)

#: The format of the file; part of its key.
_FORMAT = "hopgate reader rule answers 2"

#: The reader no reader list names, whose answer is that of every such reader.
_UNLISTED = "urn:hopgate:reader-rule:unlisted"


def _hold_rule_quads(store: Store, graphs: Sequence[str]) -> bool:
    """Whether one of ``graphs`` holds a quad the reader rule can match (one ASK)."""
    projection = reader_projection()
    # Both sets are every IRI of the rule's text (a superset: hopgate.library.projection).
    predicates = projection.predicates - {RDF_TYPE}
    patterns = [f"{{ ?s {nt.iri(p)} ?o }}" for p in sorted(predicates)]
    patterns += [f"{{ ?s a {nt.iri(c)} }}" for c in sorted(projection.classes)]
    body = " UNION ".join(patterns)
    if store.server_caches:
        # Each graph named in a block of its own: Virtuoso 7.2.5's server process
        # stopped on the VALUES form over several graphs (docs/servers.md).
        blocks = " UNION ".join(f"{{ GRAPH {nt.iri(graph)} {{ {body} }} }}" for graph in graphs)
        return store.ask(f"ASK {{ {blocks} }}")
    named = " ".join(nt.iri(graph) for graph in graphs)
    return store.ask(f"ASK {{ VALUES ?graph {{ {named} }} GRAPH ?graph {{ {body} }} }}")


def _key(store: Store, graphs: Sequence[str], digests: dict[str, dict[str, str]]) -> str | None:
    """The key of the rule's answers over ``graphs``, None when one cannot be made."""
    kind = snapshots.projection_key(reader_projection())
    # Every other graph (bundles, the catalog) must hold none of the rule's quads: they
    # have no recorded digest. One ASK for all of them: one a graph grew with the runs.
    others = [g for g in graphs if kind not in digests.get(g, {})]
    if others and _hold_rule_quads(store, others):
        return None
    return _snapshots_key(graphs, digests)


def _rule_texts() -> list[str]:
    """What the record's rows depend on besides the graphs: its format, the prologue every
    query runs with, the rule, and the queries of the withheld texts it keeps."""
    return [_FORMAT, sparql_prologue(), VIEW_QUERY, TEXTS_OF_NODES]


def _snapshots_key(graphs: Sequence[str], digests: dict[str, dict[str, str]]) -> str:
    """:func:`_key` once the graphs without a reader snapshot are known to hold none of the
    rule's quads: a digest of the rule and of the graphs' reader snapshot digests."""
    kind = snapshots.projection_key(reader_projection())
    parts = [f"{g} {digests[g][kind]}" for g in graphs if kind in digests.get(g, {})]
    text = "\n".join([*_rule_texts(), *sorted(parts)])
    return "withheld-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _server_key(store: Store, graphs: Sequence[str]) -> tuple[str, list[str]] | None:
    """:func:`_key` on a server, which keeps no snapshots, and the graphs of ``graphs``
    that may hold the rule's quads; None when no key can be made.

    A published load or plan graph never changes (a load's IRI is its ledger's
    digest), so its IRI stands for its quads. Every evaluation's bundle must
    hold none of the rule's quads, as its catalog entry says
    (:func:`bundle_outside_rule`), and so must the catalog (asked): then a new
    evaluation leaves the key as it is, and the rule's answer over the other
    graphs alone is its answer over all (a graph without any of the rule's
    predicates and classes can neither add a match nor remove one).
    """
    rows = store.select(
        "SELECT ?g ?outside WHERE { GRAPH ?catalog { ?g prov:wasGeneratedBy ?a . "
        "?a a hg:EvaluationActivity } "
        "OPTIONAL { GRAPH ?catalog { ?g hg:outsideReaderRule ?outside } } }",
        params={"catalog": IRI(CATALOG_GRAPH)},
    )
    bundles = {str(row["g"]) for row in rows}
    if any(row["outside"] is not True for row in rows if str(row["g"]) in graphs):
        return None
    if CATALOG_GRAPH in graphs and _hold_rule_quads(store, [CATALOG_GRAPH]):
        return None
    parts = sorted(g for g in graphs if g not in bundles and g != CATALOG_GRAPH)
    return _parts_key(parts), parts


def _parts_key(parts: Sequence[str]) -> str:
    """:func:`_server_key` once the bundles and the catalog are known to hold none of the
    rule's quads: a digest of the rule and of the other graphs' IRIs."""
    text = "\n".join([*_rule_texts(), "on a server", *sorted(parts)])
    return "withheld-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _published(store: Store) -> list[str]:
    """The graphs a catalog entry publishes, and the catalog (what queries see)."""
    rows = store.select(
        "SELECT ?g WHERE { GRAPH ?catalog { ?g a prov:Bundle } }",
        params={"catalog": IRI(CATALOG_GRAPH)},
    )
    return sorted({CATALOG_GRAPH, *(str(row["g"]) for row in rows)})


#: Nodes per texts lookup: Virtuoso 7.2.5 refuses a VALUES block of about 4,000
#: nodes ("the length of generated SQL text has exceeded 10000 lines").
_LOOKUP_CHUNK = 1000


def _texts_of(store: Store, nodes: dict[str, str]) -> dict[str, set[str]]:
    """The texts of ``nodes`` (node IRI to its class IRI), looked up on ``store`` by
    node, a chunk of nodes per query: each node's texts."""
    texts: dict[str, set[str]] = {}
    named = sorted(nodes.items())
    for at in range(0, len(named), _LOOKUP_CHUNK):
        values = " ".join(
            f"({term_ntriples(IRI(node))} {term_ntriples(IRI(cls))})"
            for node, cls in named[at : at + _LOOKUP_CHUNK]
        )
        for row in store.select(TEXTS_OF_NODES % values):
            if row["text"]:
                texts.setdefault(str(row["node"]), set()).add(str(row["text"]))
    return texts


def withheld_texts(store: Store, reader: str, rows: list[Row]) -> list[str]:
    """The reader's withheld texts (the reader IRI ``reader``): the texts of the nodes
    ``rows`` (VIEW_QUERY's, for that reader) mark ``?text``, looked up on ``store``
    by node (asked by the rule's texts query when a node is a blank node, which
    VALUES cannot name)."""
    nodes = [row for row in rows if flag(row["text"])]
    if not nodes:
        return []
    if all(isinstance(row["node"], IRI) for row in nodes):
        found = _texts_of(store, {str(row["node"]): str(row["class"]) for row in nodes})
        return sorted({text for texts in found.values() for text in texts})
    rows = store.select(TEXTS_QUERY, params={"reader": IRI(reader)})
    return sorted({str(row["text"]) for row in rows if row["text"]})


def record(store: Store, graph: str) -> list[str]:
    """Ask the rule for every reader over the store as it will be once ``graph`` is published.

    Called while a load's or an intervention plan's graph is written
    (:func:`hopgate.store.publish.publish`'s ``caches``), after its reader snapshot
    is cut; returns the catalog line to publish with it (none on a store without
    snapshots, or when no key can be made).
    """
    if store.folder is None:
        return []
    cut = snapshots.snapshot_path(store.folder / snapshots.FOLDER, graph, reader_projection())
    if not cut.is_file():
        return []
    published = [g for g in _published(store) if g != graph]
    digests = snapshots.recorded(store, published)
    digests[graph] = {snapshots.projection_key(reader_projection()): snapshots.file_sha256(cut)}
    key = _key(store, sorted([*published, graph]), digests)
    if key is None:
        return []
    data = _added(store, published, digests, graph, cut)
    if data is None:
        with snapshots.copy_with_file(store, reader_projection(), published, graph, cut) as copy:
            data = _asked(copy)
    return [] if data is None else snapshots.keep_bytes(store, graph, key, data)


#: The rule's context: a graph holding a version or a reader list (``_added``).
_CONTEXT = "ASK { { ?node a hg:Version } UNION { ?node hg:readableBy ?reader } }"


def _nodes_query() -> str:
    """The nodes a graph holds quads about that the rule and its texts can read (a
    graph's other nodes, its cases and outputs, are none of the rule's)."""
    projection = reader_projection()
    predicates = " ".join(nt.iri(p) for p in sorted(projection.predicates - {RDF_TYPE}))
    classes = " ".join(nt.iri(c) for c in sorted(projection.classes))
    return (
        f"SELECT DISTINCT ?node WHERE {{ {{ ?node ?p ?o VALUES ?p {{ {predicates} }} }} "
        f"UNION {{ ?node a ?class VALUES ?class {{ {classes} }} }} }}"
    )


_NODES = _nodes_query()


def _added(
    store: Store, published: list[str], digests: dict[str, dict[str, str]], graph: str, cut: Path
) -> bytes | None:
    """The record of the published graphs and ``graph`` made from the record of the published
    graphs, when ``graph`` only adds nodes that narrow nothing; else None (ask the rule
    over everything).

    A load defines each node once, in the graph of the ledger that first states it
    (docs/spec/records.md "Records"): the nodes ``graph`` holds quads about are
    new. When it names no reader list (no ``hg:readableBy``), the rule's answer
    for every earlier node is what it was: a node is withheld by its own readers,
    its version's, or a narrowed span of its version, and ``graph`` adds none of
    these. The new nodes' answers depend on their own quads and on their versions'
    reader lists and narrowed spans, which are in graphs holding a version or a
    reader list: the rule is asked of a copy of those and ``graph`` only, and its
    rows of the new nodes are added to the earlier record's. Each load of a run's
    cases then parses the evidence and its own spans, not every earlier run's
    (bench/README.md "6 December, late morning"). A new node the earlier record
    names, or a change in the readers, asks the rule over everything instead.
    """
    # The graphs without a reader snapshot are the ones record() asked about already.
    earlier = _snapshots_key(published, digests)
    before = snapshots.kept_by_any(store, published, earlier, digests)
    if before is None:
        return None
    kind = snapshots.projection_key(reader_projection())
    context = [g for g in published if kind in digests.get(g, {}) and store.view([g]).ask(_CONTEXT)]
    with snapshots.copy_with_file(store, reader_projection(), context, graph, cut) as copy:
        return _added_to(before, copy, copy.view([graph]))


def _added_to(before: bytes, source: Store, own: Store) -> bytes | None:
    """The record ``before`` with the rows and texts of the nodes ``own`` (a new graph)
    holds quads about, as ``source`` (that graph and the graphs holding versions or
    reader lists) answers the rule; None when :func:`_added`'s conditions fail."""
    found = json.loads(before)
    if found.get("format") != _FORMAT:
        return None
    if own.ask("ASK { ?node hg:readableBy ?reader }"):
        return None
    new = {str(row["node"]) for row in own.select(_NODES)}
    kept: dict[str, list[tuple[str, str, bool]]] = {
        reader: [(node, cls, bool(text)) for node, cls, text in rows]
        for reader, rows in found["readers"].items()
    }
    if any(node in new for rows in kept.values() for node, _, _ in rows):
        return None
    readers = _readers(source)
    if readers is None or set(readers) != set(kept):
        return None
    added = _answers(source, readers, only=new)
    if added is None:
        return None
    texts = _texts(source, added)
    every = found["texts"]
    for reader, numbers in found["withheld"].items():
        texts[reader].update(every[n] for n in numbers)
    merged = {reader: sorted([*kept[reader], *added[reader]]) for reader in readers}
    return _encoded(merged, texts)


def _server_added(store: Store, published: list[str], parts: list[str], graph: str) -> bytes | None:
    """:func:`_added` on a server: the rule asked there over ``graph`` and the published
    graphs holding versions or reader lists (one ``ASK`` each: over several graphs at
    once it stops Virtuoso 7.2.5's server process), instead of over every load.
    ``parts``: :func:`_server_key`'s graphs for the store with ``graph`` (its checks
    hold for the store without it: ``graph`` is no bundle)."""
    earlier = [g for g in parts if g != graph]
    before = snapshots.kept_by_any(
        store, published, _parts_key(earlier), snapshots.recorded(store, published)
    )
    if before is None:
        return None
    context = [g for g in earlier if store.view([g]).ask(_CONTEXT)]
    return _added_to(before, store.scoped([*context, graph]), store.view([graph]))


def record_written(store: Store, graph: str) -> list[str]:
    """:func:`record` on a store that keeps its caches on its server (remote): the rule
    is asked there, over the published graphs and ``graph`` (a load's or a plan's,
    written, not yet published), and its answers kept on the server; elsewhere nothing.

    Called once the graph is written, before its catalog entry publishes it
    (:func:`hopgate.store.publish.publish`'s ``written``). A server error is a note:
    without the record each read asks the rule of the server, as before.
    """
    if not store.server_caches:
        return []
    graphs = sorted({*_published(store), graph})
    try:
        keyed = _server_key(store, graphs)
        if keyed is None:
            return []
        key, rule_graphs = keyed
        # Asked over the graphs that may hold the rule's quads only: on Virtuoso each
        # graph of a query's dataset costs on its own, and the bundles grow with the
        # history (the texts query took 0.07 s at run1 and 0.74 s at run29 of a
        # 300-claim history over every graph). A load that names no reader list only
        # adds to the earlier record (_added).
        data = _server_added(store, [g for g in graphs if g != graph], rule_graphs, graph)
        if data is None:
            data = _asked(store.scoped(rule_graphs))
    except HopgateError as exc:
        log.warning("hopgate: note: the reader rule's answers were not kept (%s)", exc)
        return []
    if data is None:
        return []
    return snapshots.keep_bytes(store, graph, key, data)


def bundle_outside_rule(store: Store, bundle: str) -> list[str]:
    """On a server: the catalog line saying that ``bundle`` (written, not yet published)
    holds none of the reader rule's quads, when it holds none; elsewhere nothing.

    A server's key (:func:`_server_key`) needs every bundle to hold none, and
    asking it of every bundle at every read grows with the history (and an ``ASK``
    over several graphs at once stops Virtuoso 7.2.5's server process): each
    evaluation asks it once of its own bundle instead.
    """
    if not store.server_caches:
        return []
    try:
        held = _hold_rule_quads(store.scoped([bundle]), [bundle])
    except HopgateError as exc:
        log.warning(
            "hopgate: note: %s was not checked for the reader rule's quads (%s)", bundle, exc
        )
        return []
    return [] if held else [f"{nt.iri(bundle)} <{HG}outsideReaderRule> {nt.boolean(True)}"]


def _asked(copy: Store) -> bytes | None:
    """The rule's rows and withheld texts for every reader, asked of ``copy``, as the
    record's bytes; None when a reader or a node is one a read could not name.

    The texts are looked up once for the nodes of every reader (readers share most
    of them), by node: on Virtuoso the rule's texts query, asked per reader, grew
    with the store (0.07 s at run1, 0.34 s at run29 of a 300-claim history, asked
    over the load graphs only; 0.74 s over every graph)."""
    readers = _readers(copy)
    if readers is None:
        return None
    found = _answers(copy, readers)
    if found is None:
        return None
    return _encoded(found, _texts(copy, found))


def _readers(copy: Store) -> list[str] | None:
    """The readers a reader list names, and the one for all others; None when one is a
    reader a read could not name."""
    listed = copy.select("SELECT DISTINCT ?reader WHERE { ?node hg:readableBy ?reader }")
    if not all(isinstance(row["reader"], IRI) for row in listed):
        return None
    readers = sorted(str(row["reader"]) for row in listed)
    return None if _UNLISTED in readers else [*readers, _UNLISTED]


def _answers(
    copy: Store, readers: list[str], only: set[str] | None = None
) -> dict[str, list[tuple[str, str, bool]]] | None:
    """The rule's rows (node, class, text flag) for each of ``readers`` (``only``: the
    rows of these nodes); None when a node is one a read could not name."""
    answers: dict[str, list[tuple[str, str, bool]]] = {}
    for reader in readers:
        rows = copy.select(VIEW_QUERY, params={"reader": IRI(reader)})
        if not all(isinstance(row["node"], IRI) for row in rows):
            return None
        answers[reader] = sorted(
            (str(r["node"]), str(r["class"]), flag(r["text"]))
            for r in rows
            if only is None or str(r["node"]) in only
        )
    return answers


def _texts(copy: Store, answers: dict[str, list[tuple[str, str, bool]]]) -> dict[str, set[str]]:
    """Each reader's withheld texts: the texts, in ``copy``, of the nodes its rows mark."""
    of_node = _texts_of(
        copy, {node: cls for found in answers.values() for node, cls, text in found if text}
    )
    return {
        reader: {t for node, _, text in found if text for t in of_node.get(node, ())}
        for reader, found in answers.items()
    }


def _encoded(answers: dict[str, list[tuple[str, str, bool]]], texts: dict[str, set[str]]) -> bytes:
    """The record's bytes."""
    # Readers share most of their withheld texts: each text is kept once.
    every = sorted({text for found in texts.values() for text in found})
    number = {text: n for n, text in enumerate(every)}
    data = json.dumps(
        {
            "format": _FORMAT,
            "readers": answers,
            "texts": every,
            "withheld": {reader: sorted(number[t] for t in texts[reader]) for reader in answers},
        },
        ensure_ascii=False,
    )
    return data.encode("utf-8")


def answers(store: Store, reader: str) -> tuple[list[Row], list[str]] | None:
    """The rule's rows for the reader IRI ``reader`` (``?node ?class ?text``, as
    :data:`hopgate.library.reader_rule.VIEW_QUERY` gives them) and the reader's withheld
    texts (:func:`withheld_texts`), when a load recorded them for the store as it is;
    else None (the rule is to be asked)."""
    if store.folder is None and not store.server_caches:
        return None
    graphs = store.graphs()
    digests = snapshots.recorded(store, graphs)
    if store.folder is not None:
        key = _key(store, graphs, digests)
    else:
        keyed = _server_key(store, graphs)
        key = None if keyed is None else keyed[0]
    if key is None:
        return None
    data = snapshots.kept_by_any(store, graphs, key, digests)
    if data is None:
        return None
    found = json.loads(data)
    chosen = reader if reader in found["readers"] else _UNLISTED
    rows: list[Row] = [
        {"node": IRI(node), "class": IRI(cls), "text": text}
        for node, cls, text in found["readers"][chosen]
    ]
    every = found["texts"]
    return rows, [every[n] for n in found["withheld"][chosen]]


__all__ = ["answers", "bundle_outside_rule", "record", "record_written", "withheld_texts"]
