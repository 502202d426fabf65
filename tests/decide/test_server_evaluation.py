"""The evaluation run on the server: each rule file answers there as on Oxigraph.

A remote store runs the evaluation's rule files on the server (issue 14 item
3; ``hopgate --evaluate-on-client`` is the older way): the scratch updates as
SPARQL Update into a scratch graph there, seen through the run's load graphs
only (``RemoteStore.scoped``), then the result queries, whose answers are
read a row at a time; nothing of the load graphs is copied to the client.
Each step is compared with the embedded engine's on three fresh servers,
since Virtuoso 7.2.5 chooses its plans per server from sampled statistics,
and under two join orders: the server's own, and the order the text is
written (``join_order="written"``), which forces plans its statistics would
not choose. Random ledgers are compared the same way under CI
(docs/remote-virtuoso.md).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import CEDAR, required

import hopgate
from hopgate import ids
from hopgate.decide import evaluation
from hopgate.errors import QueryError
from hopgate.library.artefacts import library_query, library_update
from hopgate.library.steps import RESULT_QUERIES, SCRATCH_UPDATES
from hopgate.store import IRI, BNode, Store, catalog
from hopgate.store.dialect import SCOPE_OF
from hopgate.store.remote import RemoteStore
from hopgate.vocab import CATALOG_GRAPH

ROOT = Path(__file__).resolve().parents[2]
SERVERS = 3


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Any]]:
    """Three fresh Virtuoso servers (skipped without Virtuoso, failed under CI=true)."""
    from virtuoso import VirtuosoServer, missing

    reason = missing()
    if reason is not None:
        required(reason)
    started: list[Any] = []
    try:
        for _ in range(SERVERS):
            server = VirtuosoServer(tmp_path_factory.mktemp("virtuoso"))
            server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            server.stop()


#: The server's own plans, and the plans the written join order forces.
JOIN_ORDERS = ("server", "written")


def _remote(server: Any, join_order: str = "server") -> RemoteStore:
    # A plan that never finishes fails the test in a minute.
    store: RemoteStore = server.remote_store(timeout=60, join_order=join_order)
    return store


def _clear(store: RemoteStore) -> None:
    for graph in store.graphs():
        store.remove_graph(graph)


def _plain(value: Any) -> Any:
    if isinstance(value, BNode):
        # Scratch route candidates are blank nodes: their labels are the engine's.
        return "_:candidate"
    if isinstance(value, bool):
        # Virtuoso types boolean expressions as 1/0.
        return int(value)
    if isinstance(value, Decimal | float):
        return round(float(value), 9)
    return str(value) if isinstance(value, str) else value


def _rows(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps({k: _plain(v) for k, v in r.items()}, sort_keys=True) for r in rows)


def _steps(store: Store, run: str) -> list[tuple[str, list[str]]]:
    """What each step of ``run``'s evaluation left: scratch triples after each update, rows of each query."""
    graphs = catalog.run_inputs(store, run)
    scratch = ids.mint("evaluation-activity", f"{run}@steps") + "/scratch"
    params: dict[str, Any] = {"run": IRI(ids.mint("run", run)), "scratch": IRI(scratch)}
    answers = []
    with evaluation._decision_space(store, graphs, scratch) as work:
        try:
            for update_id in SCRATCH_UPDATES:
                work.update(library_update(update_id).text, params=params)
                # Not the list of the view's graphs a server's view writes there (join_scope).
                triples = work.select(
                    "SELECT ?s ?p ?o WHERE { GRAPH ?scratch { ?s ?p ?o } "
                    f"FILTER (?p != <{SCOPE_OF}>) }}",
                    params={"scratch": IRI(scratch)},
                )
                answers.append((update_id, _rows(triples)))
            for query_id in RESULT_QUERIES:
                query = library_query(query_id)
                bound = params if "?scratch" in query.parameters else {"run": params["run"]}
                answers.append((query_id, _rows(work.select(query.text, params=bound))))
        finally:
            work.remove_graph(scratch)
    return answers


def _verdicts(store: Store) -> list[dict[str, Any]]:
    # A card's id carries its evaluation's time.
    return [
        {k: v for k, v in row.as_dict().items() if k != "card"} for row in hopgate.verdicts(store)
    ]


def _assert_same_steps(path: Path, remote: RemoteStore, *more: Path) -> dict[str, int]:
    """Compare step by step; return how many rows each step gave on the embedded store."""
    _clear(remote)
    sizes: dict[str, int] = {}
    with hopgate.open_store(None) as embedded:
        for ledger in (path, *more):
            hopgate.load(embedded, ledger)
            hopgate.load(remote, ledger)
        for run in catalog.runs(embedded):
            expected = _steps(embedded, run)
            for step, rows in expected:
                sizes[step] = sizes.get(step, 0) + len(rows)
            for (step, rows), (_, found) in zip(expected, _steps(remote, run), strict=True):
                # The first step that differs names the rule file to look at.
                engine = remote.limits().product or remote.endpoint
                assert found == rows, f"{step} answers differently on {engine} ({path.name}, {run})"
        if catalog.runs(embedded):
            hopgate.evaluate(embedded)
            hopgate.evaluate(remote)
            assert _verdicts(remote) == _verdicts(embedded)
    return sizes


@pytest.mark.parametrize("join_order", JOIN_ORDERS)
@pytest.mark.parametrize("server", range(SERVERS))
def test_worked_example_steps(servers: list[Any], server: int, join_order: str) -> None:
    """The first ledger each fresh server sees: the worked example, step by step."""
    _assert_same_steps(CEDAR, _remote(servers[server], join_order))


def test_a_claim_not_applicable_steps(servers: list[Any]) -> None:
    """docs/spec/acceptance.md "Not applicable": decided before eligibility, step by step,
    on the worked example with tests/fixtures/ledgers/not-applicable.yaml loaded after it."""
    not_applicable = CEDAR.parents[1] / "tests" / "fixtures" / "ledgers" / "not-applicable.yaml"
    sizes = _assert_same_steps(CEDAR, _remote(servers[0]), not_applicable)
    assert sizes["evaluation-verdicts"] == 6


@pytest.mark.parametrize("engine", ("oxigraph", "arq"))
def test_a_claim_not_applicable_steps_on_other_engines(
    engines: dict[str, Any], engine: str
) -> None:
    """The same, on the Oxigraph server and on Jena ARQ."""
    not_applicable = CEDAR.parents[1] / "tests" / "fixtures" / "ledgers" / "not-applicable.yaml"
    _assert_same_steps(CEDAR, engines[engine].remote_store(timeout=120), not_applicable)


#: Random ledgers per server and join order (CI only: about 5 s each).
RANDOM_LEDGERS = 8


@pytest.mark.slow
@pytest.mark.parametrize("join_order", JOIN_ORDERS)
@pytest.mark.parametrize("server", range(SERVERS))
def test_random_ledgers_step_by_step(
    servers: list[Any],
    server: int,
    join_order: str,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> None:
    """Random ledgers (tests/ledger_strategies.py), every step compared, on each server and order.

    The ledgers differ per server and order (Hypothesis draws them from a
    seed of both and of the session's seed, new on each CI run and printed in
    its header), so the suite sees 48 ledgers under six sets of plans.
    """
    from conftest import write
    from hypothesis import HealthCheck, given, seed, settings
    from ledger_strategies import ledgers

    remote = _remote(servers[server], join_order)
    folder = tmp_path_factory.mktemp("ledgers")
    drawn: list[int] = []

    session = int(request.config.getoption("hypothesis_seed", None) or 0)

    @seed(session * 10_000 + 1000 * server + JOIN_ORDERS.index(join_order))
    @settings(
        max_examples=RANDOM_LEDGERS,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(ledgers())
    def compare(ledger: dict[str, Any]) -> None:
        drawn.append(1)
        _assert_same_steps(write(folder / f"ledger-{len(drawn)}", ledger, "yaml"), remote)

    compare()


# ---- the other engines: the Oxigraph server and Jena ARQ, the reference engine ------------


def _started(kind: str, folder: Path) -> Any:
    """A started Oxigraph server or ARQ endpoint (skipped when missing, failed under CI=true)."""
    import os

    if kind == "oxigraph":
        from oxigraph_server import OxigraphServer as Server
        from oxigraph_server import missing
    else:
        from arq_server import ArqServer as Server  # type: ignore[assignment]
        from arq_server import missing
    reason = missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    server = Server(folder)
    server.start()
    return server


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The Oxigraph server and an ARQ endpoint, each started on first use in this module."""
    started: dict[str, Any] = {}

    class Lazy(dict[str, Any]):
        def __missing__(self, kind: str) -> Any:
            started[kind] = _started(kind, tmp_path_factory.mktemp(kind))
            self[kind] = started[kind]
            return started[kind]

    try:
        yield Lazy()
    finally:
        for server in started.values():
            server.stop()


#: The engines besides Virtuoso that answer every rule file step by step.
OTHER_ENGINES = ("oxigraph", "arq")


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_worked_example_steps_on_other_engines(engines: dict[str, Any], engine: str) -> None:
    """The worked example, step by step, on the Oxigraph server and on Jena ARQ."""
    _assert_same_steps(CEDAR, engines[engine].remote_store(timeout=120))


@pytest.mark.slow
@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_random_ledgers_step_by_step_on_other_engines(
    engines: dict[str, Any], engine: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Random ledgers, every step compared with the embedded engine, on Oxigraph's server and ARQ."""
    from hypothesis import HealthCheck, given, seed, settings

    try:
        from tests.conftest import write
        from tests.ledger_strategies import ledgers
    except ImportError:  # run from inside tests/
        from conftest import write  # type: ignore[no-redef]
        from ledger_strategies import ledgers  # type: ignore[no-redef]

    remote = engines[engine].remote_store(timeout=120)
    folder = tmp_path_factory.mktemp("ledgers")
    drawn: list[int] = []

    @seed(7000 + OTHER_ENGINES.index(engine))
    @settings(
        max_examples=RANDOM_LEDGERS,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(ledgers())
    def compare(ledger: dict[str, Any]) -> None:
        drawn.append(1)
        _assert_same_steps(write(folder / f"ledger-{len(drawn)}", ledger, "yaml"), remote)

    compare()


#: A system that answers every intervention variant, citing all it may (tests/interventions/test_interventions.py).
ALWAYS_ANSWERS = """
import json, sys
request = json.load(sys.stdin)
json.dump({"answer": "Entity R and Vendor V", "cites": request["citable"], "abstained": False,
           "correct": True}, sys.stdout)
"""


def test_intervention_answers_step_by_step(servers: list[Any], tmp_path: Path) -> None:
    """The interventions step (docs/spec/interventions.md) answers on the server as on Oxigraph."""
    from hopgate.interventions.plan import plan
    from hopgate.interventions.run import run_plan

    with hopgate.open_store(None) as planning:
        hopgate.load(planning, CEDAR)
        hopgate.evaluate(planning)
        variants = plan(planning, "sys-a").variants
    system = tmp_path / "answers.py"
    system.write_text(ALWAYS_ANSWERS, encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    assert run_plan(variants, f"{sys.executable} {system}", answers).answered
    sizes = _assert_same_steps(CEDAR, _remote(servers[2]), answers)
    assert sizes["evaluation-interventions"] > 0


def test_the_command_line_option_runs_the_evaluation_on_the_server(
    servers: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hopgate evaluate`` on a remote store reads no graph into the client; ``--evaluate-on-client`` does."""
    from click.testing import CliRunner
    from virtuoso import PASSWORD, USER

    from hopgate.cli import cli

    server = servers[0]
    _clear(_remote(server))
    monkeypatch.setenv("VIRTUOSO_PASSWORD", PASSWORD)
    base = [
        "--endpoint",
        server.endpoint,
        "--update-endpoint",
        server.update_endpoint,
        "--user",
        USER,
        "--password-env",
        "VIRTUOSO_PASSWORD",
    ]
    runner = CliRunner()
    assert runner.invoke(cli, [*base, "load", str(CEDAR)]).exit_code == 0
    copies: list[str] = []
    real = RemoteStore._read_graph

    def counted(self: RemoteStore, graph: str, *args: Any, **kwargs: Any) -> Any:
        copies.append(graph)
        return real(self, graph, *args, **kwargs)

    monkeypatch.setattr(RemoteStore, "_read_graph", counted)
    done = runner.invoke(cli, [*base, "evaluate"])
    assert done.exit_code == 0, done.output
    assert copies == []
    done = runner.invoke(cli, [*base, "--evaluate-on-client", "evaluate", "--force"])
    assert done.exit_code == 0, done.output
    assert copies, "--evaluate-on-client reads the run's graphs into a working copy"
    done = runner.invoke(cli, ["--evaluate-on-client", "verdicts"])
    assert done.exit_code == 2
    assert "--evaluate-on-server/--evaluate-on-client needs --endpoint" in done.output


def test_no_graph_is_read_into_the_client(
    servers: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remote evaluation never copies a graph to the client, and leaves no scratch graph."""
    remote = _remote(servers[0])
    _clear(remote)
    hopgate.load(remote, CEDAR)

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the evaluation read a graph into the client")

    monkeypatch.setattr(RemoteStore, "_read_graph", refused)
    monkeypatch.setattr(RemoteStore, "working_copy", refused)
    record = hopgate.evaluate(remote)[0]
    assert record.cards == 4
    scratch = record.activity + "/scratch"
    leftover = remote._json(f"ASK {{ GRAPH <{scratch}> {{ ?s ?p ?o }} }}", dataset=False)
    assert leftover["boolean"] in (False, 0, "false")
    assert sorted(r.verdict for r in hopgate.verdicts(remote)) == [
        "accept",
        "reject",
        "revise-citations",
        "revise-citations",
    ]


def test_a_failed_step_removes_its_scratch_graph(
    servers: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step the server refuses is one clear error; the scratch graph it began is dropped."""
    remote = _remote(servers[1])
    _clear(remote)
    hopgate.load(remote, CEDAR)
    written: list[str] = []
    real_update = RemoteStore.update

    def failing_third(self: RemoteStore, update: str, *, params: Any = None) -> None:
        if params is not None:  # a rule file's step, not the scratch graph's listing
            written.append(str(params["scratch"]))
            if len(written) == 3:
                update = "INSERT { GRAPH ?scratch { ?s ?p ?o } } WHERE { ?s ?p }"  # does not parse
        real_update(self, update, params=params)

    monkeypatch.setattr(RemoteStore, "update", failing_third)
    with pytest.raises(QueryError, match="the server rejected the update"):
        hopgate.evaluate(remote)
    leftover = remote._json(f"ASK {{ GRAPH <{written[0]}> {{ ?s ?p ?o }} }}", dataset=False)
    assert leftover["boolean"] in (False, 0, "false")
    assert not remote.ask("ASK { GRAPH ?c { ?g a hg:ScratchGraph } }")
    assert not catalog.evaluations(remote)


def test_a_killed_clients_scratch_graph_is_removed_later(servers: list[Any]) -> None:
    """A scratch graph left by a killed client is removed once it is a day old, not sooner.

    Listing a server's graphs means scanning its quads, so an evaluation on
    the server lists its scratch graph in the catalog while it runs; a
    younger listing may be another client's evaluation, still running.
    """
    remote = _remote(servers[1])
    _clear(remote)
    hopgate.load(remote, CEDAR)
    left, running = (
        ids.mint("evaluation-activity", f"sys-a@{when}") + "/scratch"
        for when in ("left", "running")
    )
    for graph, stamp in ((left, "2026-01-01T00:00:00Z"), (running, "2999-01-01T00:00:00Z")):
        remote.update(
            f"INSERT DATA {{ GRAPH <{graph}> {{ <urn:x> <urn:p> 1 }} "
            f"GRAPH <{CATALOG_GRAPH}> {{ <{graph}> a hg:ScratchGraph ; "
            f'prov:generatedAtTime "{stamp}"^^xsd:dateTime }} }}'
        )

    def present(graph: str) -> bool:
        found = remote._json(f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}", dataset=False)
        return found["boolean"] in (True, 1, "true")

    def listed() -> list[str]:
        rows = remote.select("SELECT ?g WHERE { GRAPH ?c { ?g a hg:ScratchGraph } }")
        return sorted(str(row["g"]) for row in rows)

    assert listed() == sorted([left, running])
    record = hopgate.evaluate(remote)[0]
    assert not present(left)
    assert present(running)
    assert listed() == [running]
    assert not present(record.activity + "/scratch")
    remote.update(f"DROP SILENT GRAPH <{running}>")
    remote.update(f"DELETE WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ <{running}> ?p ?o }} }}")
