"""Recorded answers on a server: kept there by the evaluation, read by every client.

A remote store has no folder, so the answers an evaluation records
(hopgate.store.answers), and the reader rule's answers a load records
(hopgate.store.reader_answers), are kept on the server, in a graph no query's dataset
holds (hopgate.store.remote.caches), with their digests in the bundle's
catalog entry. On Virtuoso and on the Oxigraph server: the kept rows are the
queries' rows; the cache is in no dataset, dump or listing; a damaged or
missing cache is not used (the reads ask the server and print the same); a
failure while recording publishes nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CEDAR, EXAMPLES, counted_calls

import hopgate
from hopgate.audit import results
from hopgate.errors import StoreError
from hopgate.library.artefacts import library_query
from hopgate.library.reader_rule import RULE_QUERY, TEXTS_QUERY
from hopgate.library.steps import PEER_QUERIES, recorded_requests
from hopgate.store import IRI, BNode, answers, catalog, queue_answers, reader_answers, snapshots
from hopgate.store.remote import RemoteStore
from hopgate.store.remote.caches import CACHE_BASE, cache_graph
from hopgate.vocab import CATALOG_GRAPH, HG

WITHHELD = EXAMPLES / "withheld.yaml"


@pytest.fixture(params=[pytest.param("virtuoso", marks=pytest.mark.slow), "oxigraph"])
def evaluated(request: pytest.FixtureRequest) -> Iterator[RemoteStore]:
    """The worked example loaded and evaluated on the server (emptied before and after)."""
    server = request.getfixturevalue(request.param)
    # Requests time out in minutes, not the client's default hour, on a server that hangs.
    store = server.remote_store(timeout=120)
    for graph in store.graphs():
        store.remove_graph(graph)
    hopgate.load(store, CEDAR)
    hopgate.api.evaluate(store)
    yield store
    for graph in store.graphs():
        store.remove_caches(graph)
        store.remove_graph(graph)


def _bundles(store: RemoteStore) -> list[str]:
    found = []
    for run in catalog.runs(store):
        evaluation = catalog.latest(store, run)
        assert evaluation is not None
        found.append(evaluation.bundle)
    return found


def _comparable(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    # Blank node labels are the server's own per answer; none is read as an answer.
    def value(v: Any) -> str:
        return "_:b" if isinstance(v, BNode) else f"{v:.12g}" if isinstance(v, float) else repr(v)

    return sorted(tuple((k, value(v)) for k, v in sorted(row.items())) for row in rows)


def _reads(store: RemoteStore) -> Any:
    rows = [
        {k: v for k, v in row.as_dict().items() if k != "card"} for row in results.verdicts(store)
    ]
    figures = {run: m.as_dict() for run, m in results.metrics(store).items()}
    gates = [results.gate(store, run=run).passed for run in catalog.runs(store)]
    return rows, figures, gates


def test_the_answers_kept_on_the_server_are_the_queries_answers(evaluated: RemoteStore) -> None:
    for bundle in _bundles(evaluated):
        keys = snapshots.recorded(evaluated, [bundle])[bundle]
        kept_keys = {answers.cache_key(group) for group in answers.SERVER_GROUPS}
        assert kept_keys <= set(keys)
        # The peer figures are not kept: on a server they run on a copy in the client.
        assert answers.cache_key("peers") not in keys
        recorded = answers.read(evaluated, bundle)
        assert recorded is not None
        for name, params in recorded_requests():
            if name in PEER_QUERIES:
                continue
            bound = {"bundle": IRI(bundle), **params}
            kept = recorded.get(name, bound)
            assert kept is not None, name
            asked = evaluated.select(library_query(name).text, params=bound)
            assert _comparable(kept) == _comparable(asked), name


def test_the_cache_graph_is_in_no_dataset_listing_or_dump(evaluated: RemoteStore) -> None:
    (bundle, *_) = _bundles(evaluated)
    assert evaluated.read_cache(bundle, answers.cache_key("reads")) is not None
    assert not [g for g in evaluated.graphs() if g.startswith(CACHE_BASE)]
    dumped = io.BytesIO()
    evaluated.dump(dumped, format="nquads")
    assert b"cachePart" not in dumped.getvalue()
    assert CACHE_BASE.encode() not in dumped.getvalue()
    found = evaluated.select(
        "SELECT (COUNT(*) AS ?n) WHERE { ?s hg:cachePart ?o }"  # the union default graph
    )
    assert int(found[0]["n"]) == 0  # type: ignore[arg-type]


def test_a_damaged_or_missing_cache_is_not_used(
    evaluated: RemoteStore, caplog: pytest.LogCaptureFixture
) -> None:
    recorded = _reads(evaluated)
    (bundle, *_) = _bundles(evaluated)
    where = cache_graph(bundle)
    # One part of the reads' file changed on the server: its digest no longer matches.
    parts = evaluated._all_rows(
        f"SELECT ?s ?part WHERE {{ GRAPH <{where}> {{ ?s <{HG}cachePart> ?part }} }}",
        dataset=False,
    )
    part = min(parts, key=lambda row: str(row["part"]))
    text = str(part["part"])
    changed = text[:-4] + ("AAAA" if not text.endswith("AAAA") else "BBBB")
    node = part["s"]
    evaluated._update(f'DELETE DATA {{ GRAPH <{where}> {{ <{node}> <{HG}cachePart> "{text}" }} }}')
    evaluated._update(
        f'INSERT DATA {{ GRAPH <{where}> {{ <{node}> <{HG}cachePart> "{changed}" }} }}'
    )
    with caplog.at_level(logging.WARNING):
        assert _reads(evaluated) == recorded
    assert "damaged" in caplog.text
    caplog.clear()
    for graph in _bundles(evaluated):
        evaluated.remove_caches(graph)
    with caplog.at_level(logging.WARNING):
        assert _reads(evaluated) == recorded
    assert "missing" in caplog.text


def test_a_failure_while_recording_on_the_server_publishes_nothing(
    oxigraph: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = oxigraph.remote_store()
    for graph in store.graphs():
        store.remove_graph(graph)
    hopgate.load(store, CEDAR)
    before = store.graphs()

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the server went away while recording")

    monkeypatch.setattr(answers, "_answer", fail)
    with pytest.raises(RuntimeError, match="went away"):
        hopgate.api.evaluate(store)
    assert store.graphs() == before
    assert all(catalog.latest(store, run) is None for run in catalog.runs(store))
    monkeypatch.undo()
    (record, *_) = hopgate.api.evaluate(store)
    assert record.cards and answers.read(store, record.graph) is not None
    for graph in store.graphs():
        store.remove_caches(graph)
        store.remove_graph(graph)


def test_a_server_refusing_the_recording_leaves_the_evaluation_published(
    oxigraph: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The answers are a cache: a server error while asking them (a time limit, a row
    cap) is noted, the bundle is published without them, and the reads ask the server."""
    store = oxigraph.remote_store()
    for graph in store.graphs():
        store.remove_graph(graph)
    hopgate.load(store, CEDAR)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise StoreError("the query failed: the server's time limit (a test)")

    monkeypatch.setattr(answers, "_answer", refuse)
    with caplog.at_level(logging.WARNING):
        (record, *_) = hopgate.api.evaluate(store)
    assert "were not kept" in caplog.text
    assert answers.read(store, record.graph) is None
    monkeypatch.undo()
    assert [row.verdict for row in results.verdicts(store)]
    for graph in store.graphs():
        store.remove_caches(graph)
        store.remove_graph(graph)


def _asked_of_the_server(store: RemoteStore, reader: str) -> tuple[list[str], list[str]]:
    """The withheld nodes and texts as a read asks them of a server without a record:
    the rule's own query, and its texts' (hopgate.audit.withholding)."""
    nodes = store.select(RULE_QUERY, params={"reader": IRI(reader)})
    texts = store.select(TEXTS_QUERY, params={"reader": IRI(reader)})
    return sorted({str(row["node"]) for row in nodes}), sorted(
        {str(row["text"]) for row in texts if row["text"]}
    )


def _recorded(store: RemoteStore, reader: str) -> tuple[list[str], list[str]] | None:
    found = reader_answers.answers(store, reader)
    if found is None:
        return None
    rows, texts = found
    return sorted({str(row["node"]) for row in rows}), sorted(texts)


def test_the_reader_rules_answers_kept_on_the_server_are_the_rules(
    evaluated: RemoteStore,
) -> None:
    """A load keeps the rule's answers on the server; an evaluation, whose bundle says
    it holds none of the rule's quads, leaves them in use; a later load keeps its own;
    a bundle that does not say so makes each read ask the rule again."""
    readers = ["https://w3id.org/hopgate/id/reader/analyst", "urn:hopgate:test:anyone"]
    hopgate.load(evaluated, WITHHELD)
    hopgate.api.evaluate(evaluated)
    for bundle in _bundles(evaluated):
        assert evaluated.ask(
            "ASK { GRAPH ?c { ?b hg:outsideReaderRule true } }",
            params={"c": IRI(CATALOG_GRAPH), "b": IRI(bundle)},
        )
    withheld = []
    for reader in readers:
        recorded = _recorded(evaluated, reader)
        assert recorded is not None and recorded == _asked_of_the_server(evaluated, reader)
        withheld += recorded[1]
    assert withheld  # the second ledger withholds texts from some reader
    # A bundle whose catalog entry does not say it (an earlier hopgate's): no record used.
    evaluated._update(
        f"DELETE WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ ?b <{HG}outsideReaderRule> ?x }} }}"
    )
    assert all(_recorded(evaluated, reader) is None for reader in readers)


def test_a_later_load_of_cases_adds_to_the_server_s_record(
    evaluated: RemoteStore, tmp_path: Path
) -> None:
    """A load naming no reader list adds its new spans' answers to the record the load
    before it kept, the rule asked over it and the graphs holding versions and reader
    lists only (reader_answers._added): the same answers as the rule's over everything,
    the chunk of the analysts' memo withheld from everyone else."""
    hopgate.load(evaluated, WITHHELD)
    later = {
        "ledger": 1,
        "runs": [{"id": "run-later", "evaluation": "eval-public", "system": "rag-v3"}],
        "cases": [
            {
                "run": "run-later",
                "question": "q-budget",
                "retrieved": [{"version": "memo@1", "start": 0, "end": 14}],
                "outputs": [],
            }
        ],
    }
    path = tmp_path / "later.json"
    path.write_text(json.dumps(later), encoding="utf-8")
    with counted_calls(reader_answers, "_asked") as everything:
        hopgate.load(evaluated, path)
    assert not everything, "the rule was asked over everything: the record was not added to"
    anyone = "urn:hopgate:test:anyone"
    recorded = _recorded(evaluated, anyone)
    assert recorded is not None and recorded == _asked_of_the_server(evaluated, anyone)
    assert "Internal memo." in recorded[1]
    analyst = "https://w3id.org/hopgate/id/reader/analyst"
    assert _recorded(evaluated, analyst) == _asked_of_the_server(evaluated, analyst)


@pytest.mark.slow  # 14 s on the Oxigraph server; its point is Virtuoso's VALUES limit
def test_the_reader_rules_answers_are_kept_for_thousands_of_withheld_texts(
    evaluated: RemoteStore, tmp_path: Path
) -> None:
    """5,000 versions withheld from every reader but analysts: more nodes than Virtuoso
    7.2.5 takes in one VALUES block (a 10k-claim ledger withholds 6,500 from a reader),
    where the record was refused and every read asked the rule again."""
    lines = ["ledger: 1", "readers: [{id: analyst}]", "sources:"]
    lines += ["  - {id: memo, address: 'https://intranet.example.org/memo'}", "versions:"]
    lines += [
        f"  - {{id: 'memo@{n}', source: memo, text: 'Internal memo {n}.', "
        "observed_at: 2026-09-20T00:00:00Z, readers: [analyst]}"
        for n in range(5000)
    ]
    ledger = tmp_path / "memos.yaml"
    ledger.write_text("\n".join(lines) + "\n", encoding="utf-8")
    hopgate.load(evaluated, ledger)
    recorded = _recorded(evaluated, "urn:hopgate:test:anyone")
    assert recorded is not None and recorded == _asked_of_the_server(
        evaluated, "urn:hopgate:test:anyone"
    )
    assert {f"Internal memo {n}." for n in range(5000)} <= set(recorded[1])


def test_diff_on_the_server_is_the_embedded_stores(evaluated: RemoteStore, tmp_path: Path) -> None:
    """``diff`` reads both evaluations' kept answers (fetched side by side on a server) and
    reports the same change as the embedded store: an adjudicated set accepts an output."""
    more = tmp_path / "more.yaml"
    more.write_text(
        "ledger: 1\n"
        "evidence_sets:\n"
        "  - {id: gA2, claim: cA, members: [a2], inference: the schedule names it,\n"
        "     status: adjudicated, annotation: {version: 1, by: reviewer-2, at: 2026-10-05}}\n",
        encoding="utf-8",
    )
    embedded = hopgate.open_store(tmp_path / "embedded")
    found = []
    for store in (evaluated, embedded):
        if store is embedded:
            hopgate.load(store, CEDAR)
            hopgate.api.evaluate(store)
        hopgate.load(store, more)
        hopgate.api.evaluate(store, run="sys-a")
        change = hopgate.diff(store, run="sys-a")
        assert change.metrics_before is not None and change.metrics_after is not None
        figures = [
            {k: v for k, v in m.as_dict().items() if k != "evaluation"}  # names carry a time
            for m in (change.metrics_before, change.metrics_after)
        ]
        found.append(([(o.output, o.changes) for o in change.outputs], figures))
    embedded.close()
    assert found[0] == found[1]
    assert found[0][0] == [
        (
            "sys-a/qA/o1",
            {
                "verdict": ("revise-citations", "accept"),
                "cited_route": (None, "gA2"),
                "missing": (["a1"], []),
            },
        )
    ]


def test_the_review_queue_s_rows_kept_on_the_server_are_the_query_s(
    evaluated: RemoteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each evaluation keeps its run's review queue rows on the server, asked over the
    loads it used; while it is current, reads take them (hopgate.store.queue_answers)."""
    unresolved = {"id": "k2", "claim": "cB", "span": "k1-span", "status": "unresolved"}
    contradiction = tmp_path / "contradiction.yaml"
    contradiction.write_text(json.dumps({"ledger": 1, "contradictions": [unresolved]}), "utf-8")
    hopgate.load(evaluated, contradiction)
    hopgate.api.evaluate(evaluated)
    graphs = queue_answers.records(evaluated)
    asked = evaluated.view(graphs).select(library_query("review-queue").text)

    def not_asked(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the queue was asked: the record was not used")

    monkeypatch.setattr(queue_answers, "_asked", not_asked)
    kept = queue_answers.rows(evaluated)

    def flags(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        # A flag as the server types it (Virtuoso: 0/1) is the record's boolean.
        return _comparable(
            [{k: bool(v) if type(v) is int else v for k, v in r.items()} for r in rows]
        )

    assert asked and flags(kept) == flags(asked)


@pytest.fixture(params=[pytest.param("virtuoso", marks=pytest.mark.slow), "oxigraph"])
def server(request: pytest.FixtureRequest) -> RemoteStore:
    """A server's store, its caches of one graph removed (nothing else written)."""
    store: RemoteStore = request.getfixturevalue(request.param).remote_store(timeout=120)
    store.remove_caches(_GRAPH)
    return store


_GRAPH = "https://w3id.org/hopgate/id/load/cache-test"


def _kept_text(store: RemoteStore, key: str) -> str:
    where = cache_graph(_GRAPH)
    rows = store._all_rows(
        f"SELECT ?part WHERE {{ GRAPH <{where}> {{ ?s <{HG}cachePart> ?part }} }}",
        dataset=False,
    )
    return "".join(
        str(r["part"]).partition(" ")[2] for r in sorted(rows, key=lambda r: str(r["part"]))
    )


def test_a_cache_is_kept_compressed_and_read_back_exactly(server: RemoteStore) -> None:
    # Recorded rows repeat their ids and kinds: the server keeps (and every read
    # fetches) a tenth of their bytes.
    data = b"".join(
        json.dumps({"card": f"https://w3id.org/hopgate/id/card/run0%40t/q{i}/o1"}).encode()
        for i in range(20_000)
    )
    server.keep_cache(_GRAPH, "answers-test", data)
    kept = _kept_text(server, "answers-test")
    assert kept.startswith(f"~{len(data)} ") and len(kept) < len(data) / 10
    assert server.read_cache(_GRAPH, "answers-test") == data
    server.keep_cache(_GRAPH, "answers-test", b"")
    assert server.read_cache(_GRAPH, "answers-test") == b""
    server.remove_caches(_GRAPH)


def test_a_cache_an_earlier_hopgate_kept_uncompressed_is_still_read(server: RemoteStore) -> None:
    import base64

    data = b'{"format": "hopgate recorded answers 2"}\n' * 50
    node = f"{cache_graph(_GRAPH)}:{hashlib.sha256(b'answers-old').hexdigest()[:16]}"
    text = base64.b64encode(data).decode("ascii")
    server._update(
        f'INSERT DATA {{ GRAPH <{cache_graph(_GRAPH)}> {{ <{node}> <{HG}cachePart> "00000000 {text}" }} }}'
    )
    assert server.read_cache(_GRAPH, "answers-old") == data
    server.remove_caches(_GRAPH)


def test_a_compressed_cache_that_states_another_size_is_not_read_as_kept(
    server: RemoteStore,
) -> None:
    # A forged size (larger than any stream of that length can grow to, or merely
    # wrong) gives bytes that fail the digest the catalog records, never more bytes.
    data = b"x" * 10_000
    server.keep_cache(_GRAPH, "answers-size", data)
    kept = _kept_text(server, "answers-size")
    where, node = (
        cache_graph(_GRAPH),
        f"{cache_graph(_GRAPH)}:{hashlib.sha256(b'answers-size').hexdigest()[:16]}",
    )

    def read_stating(stated: object) -> bytes | None:
        forged = f"~{stated} " + kept.partition(" ")[2]
        server._update(f"DELETE WHERE {{ GRAPH <{where}> {{ <{node}> <{HG}cachePart> ?p }} }}")
        server._update(
            f'INSERT DATA {{ GRAPH <{where}> {{ <{node}> <{HG}cachePart> "00000000 {forged}" }} }}'
        )
        return server.read_cache(_GRAPH, "answers-size")

    for stated in (len(data) - 1, 10**12):
        found = read_stating(stated)
        assert found is not None and found != data and len(found) < len(data)
    # A size that is no number (a digit int() refuses among them) is no cache at all.
    for text in ("²", "", "-1"):
        assert read_stating(text) is None
    server.remove_caches(_GRAPH)
