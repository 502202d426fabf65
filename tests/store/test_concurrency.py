"""Concurrent clients on one server (issue 29 item 5): the same answers as one after another.

Two ``evaluate`` of different runs and a reader of ``verdicts`` run at once,
each its own client (a :class:`~hopgate.store.remote.RemoteStore` of its
own, as separate processes would be), against Virtuoso and the Oxigraph
server. Each evaluation writes its own scratch graph (named for its
activity, listed in the catalog while it runs), so the two never collide;
a bundle becomes visible only with its catalog entry, after its upload, so
every read sees each run either with all its cards or with none. At the end
the verdicts are those of the embedded store evaluating the runs one after
another, and no scratch graph is left.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import hopgate
from hopgate.errors import HopgateError

ROOT = Path(__file__).resolve().parents[2]
RUNS = ("run0", "run1")


def _server(kind: str, folder: Path) -> Any:
    if kind == "virtuoso":
        from virtuoso import VirtuosoServer as Server
        from virtuoso import missing
    else:
        from oxigraph_server import OxigraphServer as Server  # type: ignore[assignment]
        from oxigraph_server import missing
    reason = missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    server = Server(folder)
    server.start()
    return server


@pytest.fixture(params=["virtuoso", "oxigraph"], scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """A private Virtuoso or Oxigraph server."""
    started = _server(request.param, tmp_path_factory.mktemp(request.param))
    try:
        yield started
    finally:
        started.stop()


def _by_run(store: hopgate.Store) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in hopgate.verdicts(store):
        values = {k: v for k, v in row.as_dict().items() if k != "card"}
        found.setdefault(row.run, []).append(repr(sorted(values.items())))
    return {run: sorted(rows) for run, rows in found.items()}


def test_two_evaluations_and_a_reader_at_once(server: Any, tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from synthetic import write_ledger

    ledger = tmp_path / "ledger.jsonl"
    write_ledger(ledger, 40, seed=11, runs=2)
    with hopgate.open_store(None) as embedded:
        hopgate.load(embedded, ledger)
        for run in RUNS:  # one after another
            hopgate.evaluate(embedded, run=run)
        expected = _by_run(embedded)
    assert sorted(expected) == list(RUNS) and all(expected.values())

    def client() -> Any:
        return server.remote_store(timeout=300)

    first = client()
    for graph in first.graphs():
        first.remove_graph(graph)
    hopgate.load(first, ledger)

    done = threading.Event()
    failures: list[BaseException] = []
    seen: list[dict[str, list[str]]] = []

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                failures.append(exc)

        return run

    def read() -> None:
        reader = client()
        while not done.is_set():
            try:
                seen.append(_by_run(reader))
            except HopgateError as exc:
                failures.append(exc)
                return

    evaluations = [
        threading.Thread(target=guarded(lambda run=run: hopgate.evaluate(client(), run=run)))  # type: ignore[misc]
        for run in RUNS
    ]
    reader = threading.Thread(target=guarded(read))
    reader.start()
    for thread in evaluations:
        thread.start()
    for thread in evaluations:
        thread.join(timeout=600)
    done.set()
    reader.join(timeout=600)
    assert not failures, failures
    # A reader saw each run with all of its cards or with none, never part of a bundle.
    assert seen
    for answer in seen:
        for run, rows in answer.items():
            assert rows == expected[run], f"a read saw {len(rows)} of {len(expected[run])} cards"
    final = client()
    assert _by_run(final) == expected
    assert not final.ask("ASK { GRAPH ?c { ?g a hg:ScratchGraph } }")
