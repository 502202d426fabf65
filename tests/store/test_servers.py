"""Servers as users run them (issue 29): Virtuoso as Debian packages it, and the Oxigraph server.

- Virtuoso started with its packaged ``virtuoso.ini`` (only paths and ports
  changed: ``ResultSetMaxRows = 10000``, ``MaxQueryCostEstimationTime = 400``,
  ``MaxQueryExecutionTime = 60``): ``hopgate doctor`` names each setting to
  change and the value to use; answers larger than the row cap come back
  whole (read in pages) or fail with an error naming the setting, never
  short; a refused query is one sentence naming its setting.
- The Oxigraph server (``oxigraph serve``): load, the evaluation on the
  server, every read, export and validate give the embedded store's answers.

The smallest data that shows each behaviour: answers of 20,000 rows made by
``VALUES`` (no data read), the worked example; the evaluation of a ledger
answering more rows than the cap runs under CI only (slow).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import uuid
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import hopgate
from hopgate.api import doctor
from hopgate.cli import cli
from hopgate.errors import HopgateError, StoreError
from hopgate.store.remote import RemoteStore
from hopgate.store.remote.limits import explain, first_line
from hopgate.store.remote.paging import construct_page, count_query, select_page
from hopgate.store.remote.uploads import _distinct

ROOT = Path(__file__).resolve().parents[2]
CEDAR = ROOT / "examples" / "cedar.yaml"
CI = os.environ.get("CI", "").lower() == "true"

#: 20,000 rows from VALUES alone: twice the packaged cap, no data read.
VALUES = " ".join(f"VALUES ?{v} {{ 0 1 2 3 4 5 6 7 8 9 }}" for v in "abcd") + " VALUES ?e { 0 1 }"
WIDE_SELECT = f"SELECT ?a ?b ?c ?d ?e WHERE {{ {VALUES} }} ORDER BY DESC(?e) ?a"
WIDE_CONSTRUCT = (
    "CONSTRUCT { ?s <urn:hopgate:test:p> ?e } WHERE { "
    + VALUES
    + ' BIND (IRI(CONCAT("urn:hopgate:test:", STR(?a), STR(?b), STR(?c), STR(?d), STR(?e)))'
    " AS ?s) }"
)


def _skip_or_fail(reason: str | None) -> None:
    if reason is not None:
        if CI:
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)


# ---- without a server: page texts and sentences -------------------------------------


def test_a_page_keeps_the_query_and_makes_its_order_total() -> None:
    query = (
        'PREFIX x: <urn:x#>\nSELECT ?a (COUNT(*) AS ?n) WHERE { ?a x:p "ORDER BY {" } '
        "GROUP BY ?a ORDER BY DESC(?n)"
    )
    page = select_page(query, ["a", "n"], 20000, 10000)
    assert page.startswith("PREFIX x: <urn:x#>\nSELECT * WHERE { { SELECT ?a")
    assert "ORDER BY DESC(?n) ?a ?n" in page
    assert page.endswith("OFFSET 20000 LIMIT 10000")
    plain = select_page("SELECT ?s WHERE { ?s ?p ?o }", ["s"], 0, 5)
    assert "ORDER BY ?s } }" in plain.replace("\n", " ")
    with pytest.raises(HopgateError, match="LIMIT"):
        select_page("SELECT ?s WHERE { ?s ?p ?o } LIMIT 20", ["s"], 0, 5)
    assert count_query("SELECT ?s WHERE { ?s ?p ?o }").startswith("SELECT (COUNT(*) AS ?n)")


def test_a_construct_is_paged_over_its_templates_solutions() -> None:
    page = construct_page('CONSTRUCT { ?s <urn:p> ?o ; <urn:q> "a {" } WHERE { ?s ?p ?o }', 10, 5)
    assert "SELECT DISTINCT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s ?o" in page
    assert page.endswith("OFFSET 10 LIMIT 5")
    with pytest.raises(HopgateError, match="blank nodes"):
        construct_page("CONSTRUCT { _:b <urn:p> ?o } WHERE { ?s ?p ?o }", 0, 5)


#: Server texts as Virtuoso 7.2.5 and Oxigraph 0.5 send them, and the setting each names.
FAILURES = [
    (
        "Virtuoso 42000 Error The estimated execution time 0 (sec) exceeds the limit of "
        "400 (sec).\n\nSPARQL query:\nSELECT ?secret WHERE { ?s ?p ?o }",
        "MaxQueryCostEstimationTime = 0",
    ),
    (
        "Virtuoso S1T00 Error SR171: Transaction timed out\n\nSPARQL query:\n"
        "define sql:big-data-const 0 SELECT ?secret WHERE { ?s ?p ?o }",
        "MaxQueryExecutionTime = 0",
    ),
    ("Virtuoso 40005 Error SR325: Transaction aborted because ...", "TransactionAfterImageLimit"),
    (
        "Virtuoso 42000 Error SR186:SECURITY: No permission to execute procedure "
        "DB.DBA.SPARUL_DROP with user ID 110, group ID 110\n\nSPARQL query:\nDROP ?secret",
        "GRANT SPARQL_UPDATE",
    ),
    (
        "Virtuoso RDF02 Error SR619: SPARUL INSERT access denied: database user 111 "
        "(reader) has no write permission on graph urn:g\n\nSPARQL query:\n?secret",
        "RDF_DEFAULT_USER_PERMS_SET",
    ),
    ("The server is read-only", "oxigraph serve"),
]


@pytest.mark.parametrize(("text", "setting"), FAILURES)
def test_a_server_failure_is_one_sentence_naming_its_setting(text: str, setting: str) -> None:
    sentence = explain(text, "query")
    assert sentence is not None and setting in sentence
    assert "?secret" not in sentence and "\n" not in sentence


def test_an_unknown_failure_keeps_the_servers_first_line_not_the_query() -> None:
    text = "Virtuoso 37000 Error SP030: syntax error\n\nSPARQL query:\nSELECT ?secret"
    assert explain(text, "query") is None
    assert first_line(text) == "Virtuoso 37000 Error SP030: syntax error"


# ---- Virtuoso as Debian packages it ---------------------------------------------------


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Virtuoso server with the packaged virtuoso.ini (paths and ports changed only)."""
    from virtuoso import VirtuosoServer, missing

    _skip_or_fail(missing())
    server = VirtuosoServer(tmp_path_factory.mktemp("packaged"), packaged=True)
    server.start()
    try:
        # A user who may read but not write with SPARQL (no SPARQL_UPDATE role).
        server.isql("DB.DBA.USER_CREATE('reader', 'reader-password');\n")
        yield server
    finally:
        server.stop()


def _store(server: Any, **options: Any) -> RemoteStore:
    store: RemoteStore = server.remote_store(**{"timeout": 300, **options})
    return store


@pytest.fixture
def packaged_store(packaged: Any) -> Iterator[RemoteStore]:
    """The packaged server holding the worked example only."""
    store = _store(packaged)
    for graph in store.graphs():
        store.remove_graph(graph)
    hopgate.load(store, CEDAR)
    yield store
    for graph in store.graphs():
        store.remove_graph(graph)


def test_doctor_names_each_setting_of_the_packaged_server(
    packaged: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from virtuoso import PASSWORD, USER

    monkeypatch.setenv("HG_TEST_PASSWORD", PASSWORD)
    base = ["--endpoint", packaged.endpoint, "--update-endpoint", packaged.update_endpoint,
            "--graph-store", f"http://127.0.0.1:{packaged.http_port}/sparql-graph-crud-auth",
            "--password-env", "HG_TEST_PASSWORD"]  # fmt: skip
    shown = CliRunner().invoke(cli, ["-q", *base, "--user", USER, "doctor", "--format", "json"])
    assert shown.exit_code == 1, shown.output  # settings must change
    report = json.loads(shown.stdout)
    found = {f["check"]: f for f in report["findings"]}
    assert report["server"].startswith("Virtuoso/07.20")
    assert "10,000 rows" in found["result rows"]["found"]
    assert "ResultSetMaxRows = 100000000" in found["result rows"]["change"]
    assert found["query cost estimate"]["severity"] == "change"
    assert "MaxQueryCostEstimationTime = 0" in found["query cost estimate"]["change"]
    assert found["query time"]["severity"] == "change"
    assert "MaxQueryExecutionTime = 0" in found["query time"]["change"]
    assert "TransactionAfterImageLimit = 2000000000" in found["transaction size"]["change"]
    writes = [f for f in report["findings"] if f["check"].startswith("write")]
    assert writes and all(f["severity"] == "ok" for f in writes)
    # A user without the SPARQL_UPDATE role: told what to grant, nothing changed.
    monkeypatch.setenv("HG_TEST_PASSWORD", "reader-password")
    denied = CliRunner().invoke(cli, ["-q", *base, "--user", "reader", "doctor"])
    assert denied.exit_code == 1
    assert "GRANT SPARQL_UPDATE TO" in denied.stdout and "CHANGE write" in denied.stdout
    assert "SPARQL query" not in denied.stdout


def test_answers_over_the_row_cap_come_back_whole(packaged_store: RemoteStore) -> None:
    """20,000 rows through every SELECT path and 20,000 triples of a CONSTRUCT, in pages."""
    with hopgate.open_store(None) as embedded:
        hopgate.load(embedded, CEDAR)
        rows = embedded.select(WIDE_SELECT)
        triples = sorted(embedded.construct(WIDE_CONSTRUCT).splitlines())
    assert len(rows) == 20_000
    assert packaged_store.limits().row_cap == 10_000

    def same(found: Any) -> None:
        # Every row once, in the query's own order (ties in any order).
        assert sorted(map(_key, found)) == sorted(map(_key, rows))
        assert [(r["e"], r["a"]) for r in found] == [(r["e"], r["a"]) for r in rows]

    same(packaged_store.select(WIDE_SELECT))
    same(list(packaged_store.select_rows(WIDE_SELECT)))
    same(packaged_store.query_any(WIDE_SELECT))
    assert sorted(packaged_store.construct(WIDE_CONSTRUCT).splitlines()) == triples
    assert len(triples) == 20_000
    # An update's WHERE is not cut: 20,000 solutions write 20,000 triples.
    graph = "urn:hopgate:test:wide"
    packaged_store.update(WIDE_CONSTRUCT.replace("CONSTRUCT {", f"INSERT {{ GRAPH <{graph}> {{", 1)
                          .replace("} WHERE", "} } WHERE", 1))  # fmt: skip
    try:
        assert packaged_store.count(graph) == 20_000
    finally:
        packaged_store.remove_graph(graph)
    # A query that slices its own answer cannot be paged: an error naming the setting.
    unordered = f"SELECT ?a ?b ?c ?d ?e WHERE {{ {VALUES} }} LIMIT 15000"
    with pytest.raises(StoreError, match=r"ResultSetMaxRows.*\(a query with its own LIMIT"):
        packaged_store.select(unordered)
    # Sorted at the top level past 10,000 rows: Virtuoso's own refusal, named.
    with pytest.raises(StoreError, match=r"\[Parameters\] MaxSortedTopRows"):
        packaged_store.select(WIDE_SELECT + " LIMIT 15000")


def _key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True)


def test_a_refused_query_is_one_sentence_naming_the_setting(packaged_store: RemoteStore) -> None:
    """The packaged cost limit refuses a costly query: the message names the setting, not the text."""
    # Six unrelated patterns over the worked example: an estimate far past 400 s.
    costly = (
        "SELECT (COUNT(*) AS ?n) WHERE { "
        + " . ".join(f"?s{i} ?p{i} ?o{i}" for i in range(6))
        + " }"
    )
    with pytest.raises(HopgateError) as refused:
        packaged_store.select(costly)
    message = str(refused.value)
    assert "[SPARQL] MaxQueryCostEstimationTime = 0" in message
    assert "?s5" not in message and "SPARQL query" not in message


def _verdicts(store: hopgate.Store) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in row.as_dict().items() if k != "card"} for row in hopgate.verdicts(store)
    ]


#: The settings a refusal of the packaged server may name (any other error fails the test).
NAMED = ("MaxQueryCostEstimationTime", "MaxQueryExecutionTime", "TransactionAfterImageLimit")


@pytest.mark.slow
def test_an_evaluation_over_the_row_cap_is_right_or_a_clear_error(
    packaged: Any, tmp_path: Path
) -> None:
    """A ledger whose evaluation answers more rows than the packaged cap (3,300 claims).

    As packaged, the evaluation gives the embedded verdicts or stops with one
    sentence naming a setting (its cost limit refuses some plans); with only
    the cost and time limits raised (the row cap still 10,000), it gives the
    embedded verdicts, and every read, export and validation agrees.
    """
    sys.path.insert(0, str(ROOT / "bench"))
    from synthetic import write_ledger

    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, 3300, seed=5)
    store = _store(packaged, timeout=1200)
    for graph in store.graphs():
        store.remove_graph(graph)
    with hopgate.open_store(None) as embedded:
        hopgate.load(embedded, ledger)
        hopgate.evaluate(embedded)
        expected = _verdicts(embedded)
        # Spans, and the span-coverage step (about 3.6 rows a claim), pass the cap.
        assert len(embedded.select("SELECT ?s WHERE { ?s a hg:Span }")) > 10_000
        try:
            hopgate.load(store, ledger)
            hopgate.evaluate(store)
        except HopgateError as exc:
            assert any(name in str(exc) for name in NAMED), str(exc)
            assert "SPARQL query" not in str(exc)
        else:
            assert _verdicts(store) == expected
        packaged.restart(
            {
                ("SPARQL", "MaxQueryCostEstimationTime"): "0",
                ("SPARQL", "MaxQueryExecutionTime"): "0",
            }
        )
        store = _store(packaged, timeout=1200)
        if not store.graphs():
            hopgate.load(store, ledger)
        hopgate.evaluate(store, force=True)
        assert store.limits().row_cap == 10_000
        assert _verdicts(store) == expected
        assert json.dumps(
            {r: m.as_dict() | {"evaluation": None} for r, m in hopgate.metrics(store).items()}
        ) == json.dumps(
            {r: m.as_dict() | {"evaluation": None} for r, m in hopgate.metrics(embedded).items()}
        )
        load_graph = hopgate.load(embedded, ledger).graph
        mine, theirs = io.BytesIO(), io.BytesIO()
        store.dump(mine, format="nquads", graph=load_graph)
        embedded.dump(theirs, format="nquads", graph=load_graph)
        assert mine.getvalue() == theirs.getvalue()
        assert (
            hopgate.validate(store, run="run0").conforms
            == hopgate.validate(embedded, run="run0").conforms
        )


# ---- the Oxigraph server ---------------------------------------------------------------


def test_the_oxigraph_server_gives_the_embedded_answers(
    oxigraph: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Load, evaluate on the server, every read, export and validate, through the CLI."""
    base = ["-q", "--endpoint", oxigraph.endpoint, "--update-endpoint", oxigraph.update_endpoint,
            "--graph-store", oxigraph.graph_store]  # fmt: skip
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    outputs = {}
    for store_args in (base, ["-q", "--store", str(tmp_path / "embedded")]):
        assert runner.invoke(cli, [*store_args, "load", str(CEDAR)]).exit_code == 0
        done = runner.invoke(cli, [*store_args, "evaluate"])
        assert done.exit_code == 0, done.output
        for args in (
            ("verdicts", "--format", "json"),
            ("metrics", "--format", "json"),
            ("gate", "--run", "sys-a"),
            ("validate", "--run", "sys-a", "--format", "json"),
            ("stats",),
            ("export", "--run", "sys-a", "--format", "trig", "-o", "out.trig"),
            ("query", "SELECT (COUNT(*) AS ?n) WHERE { ?c a hg:Claim }", "--format", "json"),
        ):
            read = runner.invoke(cli, [*store_args, *args])
            assert read.exit_code in (0, 1), (args, read.output)
            text = read.stdout
            if args[0] == "export":
                text = (tmp_path / "out.trig").read_text("utf-8")
            if args[0] == "stats":
                # The records; not the quads, since an embedded catalog also lists
                # its snapshots, which a server does not keep.
                text = text.split("\n\n")[0]
            outputs.setdefault(args[0], []).append((read.exit_code, _normalised(text)))
    for command, (remote, embedded) in outputs.items():
        assert remote == embedded, command
    store = oxigraph.remote_store()
    assert store.limits().kind == "oxigraph" and store.limits().row_cap is None
    doctor = runner.invoke(cli, [*base, "doctor"])
    assert doctor.exit_code == 0, doctor.output
    assert "Oxigraph/0.5" in doctor.stdout and "CHANGE" not in doctor.stdout


#: An evaluation's time, as text or inside an IRI, and a duration: they differ per store.
_TIMES = re.compile(r"\d{4}-\d\d-\d\dT\d\d(?::|%3A)\d\d(?::|%3A)\d\d(?:\.\d+)?Z?|\d+\.\d+ s\b")


#: What an export's provenance says of caches, which differ per store: an embedded
#: store's snapshot digests (a server keeps none), a server's bundle saying it holds
#: none of the reader rule's quads (an embedded store need not say it).
_SNAPSHOTS = re.compile(r" ;\n\thg:(?:snapshotDigest|outsideReaderRule) [^\n]* \.")


def _normalised(text: str) -> str:
    # One line at a time from the end of each block, until none is left.
    while (shorter := _SNAPSHOTS.sub(" .", text)) != text:
        text = shorter
    return _TIMES.sub("TIME", text)


def test_a_read_only_oxigraph_server_reads_and_says_why_writes_fail(
    oxigraph: Any, tmp_path: Path
) -> None:
    from oxigraph_server import OxigraphServer

    store = oxigraph.remote_store()
    if not store.graphs():
        hopgate.load(store, CEDAR)
    oxigraph.stop()
    reader = OxigraphServer(oxigraph.directory, read_only=True)
    reader.start()
    try:
        remote = reader.remote_store()
        assert remote.graphs()
        with pytest.raises(StoreError, match="read-only.*oxigraph serve"):
            remote.remove_graph("https://w3id.org/hopgate/id/nothing")
        report = doctor(
            reader.endpoint, update_endpoint=reader.update_endpoint, graph_store=reader.graph_store
        )
        assert report.needs_change
        assert any("not serve-read-only" in f.change for f in report.findings)
    finally:
        reader.stop()
        oxigraph.start()


@pytest.mark.parametrize("says_when_cut", [True, False])
def test_a_read_waits_for_the_probe_only_when_it_needs_what_the_probe_finds(
    oxigraph: Any, monkeypatch: pytest.MonkeyPatch, says_when_cut: bool
) -> None:
    """The probe of a server's limits runs beside the first query: a SELECT from a
    server that never cuts one without saying so (Oxigraph, named by its ``Server``
    header) is answered while the probe is still running; from a server of unknown
    family (one that may cut silently at a cap the probe finds) it waits for it."""
    import threading

    from hopgate.store.remote import transport

    if not says_when_cut:
        monkeypatch.setattr(transport, "family", lambda server: "other")
    release = threading.Event()
    probe = transport.Transport._probe

    def held_probe(self: Any) -> Any:
        assert release.wait(30), "the probe was never released"
        return probe(self)

    monkeypatch.setattr(transport.Transport, "_probe", held_probe)
    store = oxigraph.remote_store(timeout=60)
    answered: list[Any] = []
    reader = threading.Thread(target=lambda: answered.append(store.select("SELECT (1 AS ?one) {}")))
    reader.start()
    reader.join(5 if says_when_cut else 1)
    assert (not reader.is_alive()) == says_when_cut
    release.set()
    reader.join(30)
    assert answered == [[{"one": 1}]]
    assert store.limits().kind == ("oxigraph" if says_when_cut else "other")


def test_a_probe_that_failed_beside_the_queries_is_tried_again_when_needed(
    oxigraph: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe beside the first query fails (the server refused it at that moment):
    the query is answered; a request that needs the limits probes again, and gets them."""
    from hopgate.store.remote import transport

    probe = transport.Transport._probe
    calls: list[int] = []

    def failing_once(self: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise StoreError("the query failed: cannot reach the server")
        return probe(self)

    monkeypatch.setattr(transport.Transport, "_probe", failing_once)
    store = oxigraph.remote_store(timeout=60)
    assert store.select("SELECT (1 AS ?one) {}") == [{"one": 1}]
    assert store.limits().kind == "oxigraph" and len(calls) == 2


def test_the_arrival_check_counts_each_distinct_triple_once() -> None:
    """The hashes of the triples sent, kept 8 bytes each, counted distinct."""
    triples = [f"<urn:x:s{n % 700}> <urn:x:p> <urn:x:o> .\n" for n in range(2_000)]
    assert _distinct(array("q", map(hash, triples))) == 700
    assert _distinct(array("q")) == 0


def test_an_upload_with_a_repeated_triple_arrives_whole(oxigraph: Any, tmp_path: Path) -> None:
    """A file hopgate did not write may repeat a triple: the server keeps it once, and the
    arrival check expects it once, so the graph is published, not refused as cut."""
    store = oxigraph.remote_store()
    graph = f"https://w3id.org/hopgate/id/test/repeated-{uuid.uuid4().hex}"
    lines = [f'<urn:x:s{n}> <urn:x:p> "{n % 3}" <{graph}> .\n' for n in range(50)]
    path = tmp_path / "repeated.nq"
    path.write_text("".join(lines + lines[:20]), encoding="utf-8")
    store.add_graph(path, graph)
    assert store.count(graph) == 50
    store.remove_graph(graph)


def test_a_stopped_write_leaves_a_graph_another_client_published(
    oxigraph: Any, tmp_path: Path
) -> None:
    """Client B is stopped (SIGTERM in its main thread) while it uploads a graph that
    client A has meanwhile written and published (the same ledger loaded twice at once,
    which docs/servers.md does not support): B's unwinding removes what is its own, not
    A's published graph. Before, it dropped the graph under A's catalog entry."""
    import time

    from hopgate.store.publish import publish
    from hopgate.vocab import CATALOG_GRAPH, ID_BASE, PROV

    first, second = oxigraph.remote_store(), oxigraph.remote_store(batch_bytes=2_000)
    second.graph_store = None  # INSERT DATA batches: many small requests
    graph = f"{ID_BASE}load/same-ledger-{uuid.uuid4().hex}"
    quads = tmp_path / "records.nq"
    quads.write_text(
        "".join(f'<urn:x:s{n}> <urn:x:p> "v{n}" <{graph}> .\n' for n in range(20_000)),
        encoding="utf-8",
    )
    entry = tmp_path / "catalog.nq"
    entry.write_text(
        f"<{graph}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{PROV}Bundle> "
        f"<{CATALOG_GRAPH}> .\n",
        encoding="utf-8",
    )

    def published_meanwhile() -> list[str]:
        deadline = time.monotonic() + 60
        while second.count(graph) < 2_000:  # the second client's upload is under way
            assert time.monotonic() < deadline
            time.sleep(0.02)
        # The first client writes the same triples and publishes them.
        first._send_batch(graph, [f'<urn:x:s{n}> <urn:x:p> "v{n}" .\n' for n in range(20_000)])
        first.add_nquads(entry)
        raise SystemExit(143)

    with pytest.raises(SystemExit):
        publish(
            second, graph, quads, catalog_entry=lambda kept: entry, kind="load",
            caches=published_meanwhile,
        )  # fmt: skip
    assert graph in first.graphs()
    assert first.count(graph) == 20_000
    first.remove_graph(graph)


def test_an_oxigraph_server_without_its_update_url_is_told_to_give_it(
    oxigraph: Any, tmp_path: Path
) -> None:
    """Updates sent to the query URL (--update-endpoint not given) got HTTP 415: doctor
    said to start `oxigraph serve`, which the server was, and load said only "HTTP 415"
    (user trial)."""
    report = doctor(oxigraph.endpoint)
    assert report.needs_change
    base = oxigraph.endpoint.rsplit("/", 1)[0]
    assert any(f"give --update-endpoint {base}/update" in f.change for f in report.findings)
    assert any("the anonymous user may not write" in f.found for f in report.findings)
    from hopgate.store.remote import RemoteStore

    ledger = tmp_path / "one.yaml"  # not loaded before: a load that writes
    ledger.write_text("ledger: 1\nreaders: [{id: update-url-probe}]\n", encoding="utf-8")
    with pytest.raises(StoreError, match="is --update-endpoint its SPARQL Update URL"):
        hopgate.load(RemoteStore(oxigraph.endpoint), ledger)
