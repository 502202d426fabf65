"""Cheap prototypes of the designs in issue 26, timed on one evaluated store.

Each measures one question of the design (not the product code; nothing in
src/ changes), on a store built once by ``--build`` (a synthetic ledger,
loaded into an on-disk store and evaluated, as a user's store would be):

- ``rules``: the five rule files on an in-memory working copy (as now: the
  copy's parse included) against the same files run directly on the on-disk
  store, and against the copy with all five files sent as one update request;
- ``bundle``: the bundle's cards, candidates, flags and span pairs written by
  SPARQL INSERTs from the scratch graph into a bundle graph of the same copy,
  then that graph bulk-loaded into the disk store, against today's path (the
  result queries into the spool, the Python writer, the bulk load);
- ``reads``: each query of ``hopgate verdicts`` and ``metrics`` run on the
  disk store in place, against the reading copy they run on today (snapshot
  parse included), and one query over the bundle graph alone (ids decoded
  from the IRIs in Python, no join to the load graphs);
- ``engine``: what reading costs per quad: the memory copy once (``COUNT``),
  the bundle on disk through the API and through SPARQL, one predicate of
  it, one JSON literal per card and per 1,000 cards, serialising the bundle
  and moving it from a memory store to a fresh disk store;
- ``profile``: cProfile of ``evaluate --run run0 --force`` and of
  ``verdicts``, top functions by cumulative time.

::

    python bench/prototypes.py --build 3300 --store /tmp/p3300   # once
    python bench/prototypes.py --store /tmp/p3300 rules bundle reads engine profile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

RUN = "run0"


@contextmanager
def clock(name: str, into: dict[str, tuple[float, float]]) -> Iterator[None]:
    """Record wall and CPU seconds of the block under ``name``."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        into[name] = (time.perf_counter() - wall, time.process_time() - cpu)


def _show(title: str, figures: dict[str, tuple[float, float]]) -> None:
    print(f"\n{title}\n")
    print("| what | wall s | CPU s |")
    print("|---|---|---|")
    for name, (wall, cpu) in figures.items():
        print(f"| {name} | {wall:.3f} | {cpu:.3f} |")


def build(claims: int, path: Path) -> None:
    """A store of ``claims`` synthetic claims (two runs), loaded and evaluated once."""
    import hopgate
    from bench.synthetic import write_ledger

    path.mkdir(parents=True)
    ledger = path / "ledger.jsonl"
    write_ledger(ledger, claims, runs=2)
    store = hopgate.open_store(path / "store")
    hopgate.load(store, ledger)
    hopgate.evaluate(store)
    store.close()


def _setup(store: Any) -> tuple[list[str], str, dict[str, Any]]:
    from hopgate import ids
    from hopgate.decide import evaluation
    from hopgate.store import IRI, catalog

    graphs = catalog.run_inputs(store, RUN)
    scratch = evaluation._scratch_graph(RUN)
    return graphs, scratch, {"run": IRI(ids.mint("run", RUN)), "scratch": IRI(scratch)}


def _updates() -> list[str]:
    from hopgate.library.artefacts import library_update
    from hopgate.library.steps import SCRATCH_UPDATES

    return [library_update(name).text for name in SCRATCH_UPDATES]


def rules(store: Any) -> None:
    """The rule files on the working copy, on the disk store, and merged into one request."""
    from hopgate.library.steps import evaluation_projection
    from hopgate.store import snapshots

    graphs, scratch, params = _setup(store)
    figures: dict[str, tuple[float, float]] = {}
    texts = _updates()
    with clock("working copy: parse the snapshots", figures):
        copy = snapshots.working_copy(store, evaluation_projection(), graphs)
        work = copy.__enter__()
    with clock("five rule files on the memory copy, one request each", figures):
        for text in texts:
            work.update(text, params=params)
    verdicts = _verdict_query()
    with clock("evaluation-verdicts on the memory copy", figures):
        memory_rows = work.select(verdicts, params=params)
    copy.__exit__(None, None, None)
    with clock("the copy again, the five files as ONE request", figures):
        copy = snapshots.working_copy(store, evaluation_projection(), graphs)
        work = copy.__enter__()
        work.update(" ;\n".join(_without_headers(t) for t in texts), params=params)
    copy.__exit__(None, None, None)
    # On the disk store: GRAPH ?g then ranges over every graph of the store
    # (here one load, the catalog and the runs' bundles), which the rule
    # files do not read; a product version would scope the dataset.
    try:
        with clock("five rule files on the DISK store, one request each", figures):
            for text in texts:
                store.update(text, params=params)
        with clock("evaluation-verdicts on the disk store", figures):
            disk_rows = store.select(verdicts, params=params)
    finally:
        store.remove_graph(scratch)
    same = sorted(map(repr, memory_rows)) == sorted(map(repr, disk_rows))
    _show(f"rules ({len(memory_rows)} verdict rows; disk and memory agree: {same})", figures)


def _without_headers(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("#"))


def _verdict_query() -> str:
    from hopgate.library.artefacts import library_query

    return library_query("evaluation-verdicts").text


#: The bundle's quads written in SPARQL from the scratch graph (the prototype:
#: the card's core facts, its candidates, the rule flags and the span pairs;
#: a card node is a blank node, no IRI is made from a string).
BUNDLE_INSERTS = (
    """
INSERT { GRAPH ?bundle {
  ?card a prov:Entity , hg:AcceptanceCard ; hg:forOutput ?output ; hg:forQuestion ?question ;
        hg:supported ?supported ; hg:retrievedComplete ?retrievedComplete ;
        hg:citationComplete ?citationComplete ; hg:verdict ?verdict ;
        hg:forClaim ?claim ; hg:answerability ?answerability ; hg:citedRoute ?citedRoute ;
        hg:retrievedRoute ?retrievedRoute ; hg:jointSupport ?jointSupport ;
        hg:unresolvedContradiction ?unresolved ; hg:proposedSetCited ?proposedCited ;
        hg:nearestEligibleSet ?nearestSet ; hg:deliveredCitation ?cited .
} }
USING_CLAUSES
WHERE {
  { VERDICTS }
  OPTIONAL { ?output hg:cites ?cited }
  BIND (BNODE(STR(?output)) AS ?card)
}""",
    """
INSERT { GRAPH ?bundle { ?span hg:coversSpan ?member } }
WHERE { GRAPH ?scratch { ?span hg:coversSpan ?member } }""",
    """
INSERT { GRAPH ?bundle { ?span hg:containsSpan ?member } }
WHERE { GRAPH ?scratch { ?span hg:containsSpan ?member } }""",
    """
INSERT { GRAPH ?bundle { ?node ?rule ?about } }
WHERE { GRAPH ?scratch { ?node ?rule ?about }
        VALUES ?rule { hg:lateFor hg:invalidatedFor hg:outOfTimeFor hg:unreadableFor } }""",
    """
INSERT { GRAPH ?bundle { ?candidate a hg:RouteCandidate ; hg:candidateSet ?set ;
                           hg:uncited ?uncited ; hg:unretrieved ?unretrieved } }
WHERE { GRAPH ?scratch { ?output hg:routeCandidate ?candidate .
          ?candidate hg:candidateSet ?set ; hg:uncited ?uncited ; hg:unretrieved ?unretrieved } }""",
)


def bundle(store: Any) -> None:
    """Today's result queries + spool + Python writer + bulk load, against INSERTs and a bulk load."""
    import tempfile

    import pyoxigraph as ox

    from hopgate.decide import evaluation
    from hopgate.decide.spool import Spool
    from hopgate.library.steps import evaluation_projection
    from hopgate.store import IRI, snapshots

    graphs, scratch, params = _setup(store)
    figures: dict[str, tuple[float, float]] = {}
    verdicts = _without_headers(_verdict_query()).replace("ORDER BY ?run ?question ?output", "")
    with tempfile.TemporaryDirectory() as folder:
        copy = snapshots.working_copy(store, evaluation_projection(), graphs)
        work = copy.__enter__()
        for text in _updates():
            work.update(text, params=params)
        spool = Spool(Path(folder))
        with clock("today: the ten result queries into the spool", figures):
            for query_id, sink in (
                ("evaluation-verdicts", spool.verdicts),
                ("evaluation-route-candidates", spool.candidates),
                ("evaluation-missing-hops", lambda r: spool.links("missing", r, "span")),
                (
                    "evaluation-inadmissible-citations",
                    lambda r: spool.links("inadmissible", r, "span"),
                ),
                ("evaluation-admissibility", spool.flags),
                ("evaluation-span-coverage", spool.coverage),
                ("evaluation-claim-cases", spool.claim_cases),
            ):
                sink(evaluation._rows(work, query_id, RUN, scratch))
            spool.relations(evaluation._rows(work, "card-links", RUN))
        target = "https://w3id.org/hopgate/id/prototype/bundle"
        inserted = dict(params, bundle=IRI(target))
        with clock("prototype: five INSERTs from the scratch graph into a bundle graph", figures):
            # The verdict query reads the union of the load graphs as its default
            # graph, which an update's WHERE sees only through USING.
            using = " ".join(f"USING <{g}>" for g in graphs) + f" USING NAMED <{scratch}>"
            for text in BUNDLE_INSERTS:
                text = text.replace("{ VERDICTS }", "{ " + verdicts + " }")
                work.update(text.replace("USING_CLAUSES", using), params=inserted)
        quads = list(work._store.quads_for_pattern(None, None, None, ox.NamedNode(target)))
        out = Path(folder) / "prototype.nq"
        with (
            clock("prototype: serialise that graph to N-Quads", figures),
            out.open("wb") as handle,
        ):
            ox.serialize(quads, handle, format=ox.RdfFormat.N_QUADS)
        copy.__exit__(None, None, None)
        fresh = ox.Store(str(Path(folder) / "fresh"))
        with clock("prototype: bulk-load it into a fresh disk store", figures):
            fresh.bulk_load(path=str(out), format=ox.RdfFormat.N_QUADS, lenient=True)
            fresh.flush()
        del fresh
        spool.close()
    _show(f"bundle ({len(quads):,} quads written by the prototype's INSERTs)", figures)


def reads(store: Any) -> None:
    """The reads' queries in place on the disk store against the reading copy of today."""
    from hopgate.library.artefacts import library_query
    from hopgate.library.steps import BUNDLE_QUERIES, reading_projection
    from hopgate.store import IRI, catalog, snapshots

    found = catalog.latest(store, RUN)
    assert found is not None
    params = {"bundle": IRI(found.bundle)}
    figures: dict[str, tuple[float, float]] = {}
    with clock("today: the reading copy (parse the bundle's and loads' snapshots)", figures):
        copy = snapshots.reading_copy(store, reading_projection(), [*found.used, found.bundle])
        reading = copy.__enter__()
    for query_id in BUNDLE_QUERIES:
        text = library_query(query_id).text
        with clock(f"{query_id}: on the reading copy", figures):
            reading.select(text, params=params)
    copy.__exit__(None, None, None)
    for query_id in (*BUNDLE_QUERIES, "unretrieved-citations"):
        text = library_query(query_id).text
        with clock(query_id, figures):
            rows = store.select(text, params=params)
        figures[f"{query_id}: on the disk store, in place ({len(rows):,} rows)"] = figures.pop(
            query_id
        )
    bundle_only = """
SELECT ?card ?output ?question ?claim ?answerability ?supported ?retrievedComplete
       ?citationComplete ?verdict ?citedRoute ?retrievedRoute
WHERE { GRAPH ?bundle {
  ?card a hg:AcceptanceCard ; hg:forOutput ?output ; hg:forQuestion ?question ;
        hg:supported ?supported ; hg:retrievedComplete ?retrievedComplete ;
        hg:citationComplete ?citationComplete ; hg:verdict ?verdict .
  OPTIONAL { ?card hg:forClaim ?claim }
  OPTIONAL { ?card hg:answerability ?answerability }
  OPTIONAL { ?card hg:citedRoute ?citedRoute }
  OPTIONAL { ?card hg:retrievedRoute ?retrievedRoute } } }"""
    spans_only = """
SELECT ?card ?relation ?span WHERE { GRAPH ?bundle {
  { ?card hg:missingSpan ?span . BIND ("missing" AS ?relation) }
  UNION { ?card hg:inadmissibleCitation ?span . BIND ("inadmissible" AS ?relation) } } }"""
    from hopgate import ids

    with clock("prototype: cards from the bundle graph alone, ids decoded in Python", figures):
        rows = store.select(bundle_only, params=params)
        for row in rows:
            for name in ("output", "question", "claim", "citedRoute", "retrievedRoute"):
                if row[name] is not None:
                    ids.ledger_id(str(row[name]))
        spans = store.select(spans_only, params=params)
        for row in spans:
            ids.ledger_id(str(row["span"]))
    _show(f"reads ({len(rows):,} cards, {len(spans):,} missing or inadmissible spans)", figures)


def engine(store: Any) -> None:
    """Per-quad costs of the access paths the design weighs (docs: bench/README.md)."""
    import json
    import tempfile

    import pyoxigraph as ox

    from hopgate.library.steps import evaluation_projection
    from hopgate.store import IRI, catalog, snapshots
    from hopgate.vocab import HG

    found = catalog.latest(store, RUN)
    assert found is not None
    graph = ox.NamedNode(found.bundle)
    raw = store._store
    figures: dict[str, tuple[float, float]] = {}
    copy = snapshots.working_copy(store, evaluation_projection(), list(found.used))
    with copy as work, clock("memory copy: COUNT(*) over every quad, once", figures):
        work.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
    with clock("disk: every quad of the bundle, API scan", figures):
        quads = sum(1 for _ in raw.quads_for_pattern(None, None, None, graph))
    with clock("disk: every triple of the bundle, SPARQL", figures):
        store.select(
            "SELECT ?s ?p ?o WHERE { GRAPH ?b { ?s ?p ?o } }", params={"b": IRI(found.bundle)}
        )
    verdict = ox.NamedNode(HG + "verdict")
    with clock("disk: one predicate of the bundle (hg:verdict), API scan", figures):
        cards = [q.subject.value for q in raw.quads_for_pattern(None, verdict, None, graph)]
    # One JSON row per card (about the size of a verdict row), and per 1,000 cards.
    rows = [json.dumps({"output": c, "verdict": "accept", "pad": "y" * 350}) for c in cards]
    row, chunk = ox.NamedNode(HG + "cardRow"), ox.NamedNode(HG + "cardRows")
    with tempfile.TemporaryDirectory() as folder:
        disk = ox.Store(str(Path(folder) / "rows"))
        disk.bulk_extend(
            ox.Quad(ox.NamedNode(f"{c}/row"), row, ox.Literal(r), graph)
            for c, r in zip(cards, rows, strict=True)
        )
        disk.bulk_extend(
            ox.Quad(ox.NamedNode(f"{found.bundle}/rows/{i}"), chunk, ox.Literal(text), graph)
            for i, text in enumerate(
                json.dumps(rows[at : at + 1000]) for at in range(0, len(rows), 1000)
            )
        )
        disk.flush()
        with clock("disk: one JSON literal per card, scanned and decoded", figures):
            for q in disk.quads_for_pattern(None, row, None, graph):
                json.loads(q.object.value)
        with clock("disk: the same rows in literals of 1,000 cards", figures):
            for q in disk.quads_for_pattern(None, chunk, None, graph):
                json.loads(q.object.value)
        memory = ox.Store()
        memory.bulk_extend(raw.quads_for_pattern(None, None, None, graph))
        with clock("serialise the bundle from a memory store to N-Quads", figures):
            ox.serialize(
                memory.quads_for_pattern(None, None, None, graph),
                io.BytesIO(),
                format=ox.RdfFormat.N_QUADS,
            )
        fresh = ox.Store(str(Path(folder) / "fresh"))
        with clock("bulk_extend the bundle from the memory store into a fresh disk store", figures):
            fresh.bulk_extend(memory.quads_for_pattern(None, None, None, graph))
            fresh.flush()
        del disk, fresh
    _show(f"engine ({quads:,} quads in the bundle, {len(cards):,} cards)", figures)


def profile(store: Any) -> None:
    """cProfile (CPU time) of evaluate --run run0 --force and of verdicts, by cumulative time."""
    from hopgate import api

    for name, call in (
        ("evaluate --run run0 --force", lambda: api.evaluate(store, run=RUN, force=True)),
        ("verdicts", lambda: api.verdicts(store)),
    ):
        # CPU time: on a shared machine the wall clock charges other jobs' time to whatever runs.
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        call()
        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(40)
        print(f"\nprofile of {name}\n")
        print(text.getvalue())


PROTOTYPES: dict[str, Callable[[Any], None]] = {
    "rules": rules,
    "bundle": bundle,
    "reads": reads,
    "engine": engine,
    "profile": profile,
}


def main(argv: list[str] | None = None) -> int:
    """Build a store, or run the named prototypes on it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--build", type=int, help="build the store with this many claims")
    parser.add_argument("prototypes", nargs="*", help=", ".join(PROTOTYPES))
    args = parser.parse_args(argv)
    unknown = [name for name in args.prototypes if name not in PROTOTYPES]
    if unknown:
        parser.error(f"unknown prototype(s): {', '.join(unknown)}")
    if args.build:
        build(args.build, args.store)
    import hopgate

    store = hopgate.open_store(args.store / "store")
    try:
        for name in args.prototypes:
            PROTOTYPES[name](store)
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
