"""The coverage update answers the same on Virtuoso 7 as on Oxigraph.

The evaluation runs on an in-memory Oxigraph copy, but the update is meant to
stay portable SPARQL 1.1 (queries/evaluation-coverage.ru). Here it runs on
the same quads in both engines: ledgers of bench/coverage.py (one version
with nested and overlapping spans, and its withheld variant addressed by
locators) and the worked example.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import hopgate
from hopgate import ids
from hopgate.library.artefacts import library_update
from hopgate.library.steps import evaluation_projection
from hopgate.store import IRI, Store, catalog, snapshots
from hopgate.store.remote import RemoteStore
from hopgate.vocab import HG

ROOT = Path(__file__).parents[2]


def _bench_coverage() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_coverage", ROOT / "bench" / "coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _ledger(tmp_path: Path, kind: str) -> tuple[Path, str]:
    if kind == "cedar":
        return ROOT / "examples" / "cedar.yaml", "sys-a"
    bench = _bench_coverage()
    path = tmp_path / f"{kind}.jsonl"
    bench._write_lines(bench.coverage_ledger(150, 100, locators=kind == "locators"), path)
    return path, "run1"


def _covers(store: Store, scratch: str) -> set[tuple[str, str]]:
    rows = store.select(
        "SELECT ?a ?b WHERE { GRAPH ?scratch { ?a hg:covers ?b } }",
        params={"scratch": IRI(scratch)},
    )
    return {(str(row["a"]), str(row["b"])) for row in rows}


def _remote_covers(remote: RemoteStore, scratch: str) -> set[tuple[str, str]]:
    # The scratch graph is in no catalog entry, so outside the remote store's
    # dataset: asked of the server without one.
    body: dict[str, Any] = remote._json(
        f"SELECT ?a ?b WHERE {{ GRAPH <{scratch}> {{ ?a <{HG}covers> ?b }} }}", dataset=False
    )
    return {(b["a"]["value"], b["b"]["value"]) for b in body["results"]["bindings"]}


@pytest.mark.parametrize("kind", ["containment", "locators", "cedar"])
def test_coverage_is_the_same_on_virtuoso(virtuoso: Any, tmp_path: Path, kind: str) -> None:
    from virtuoso import PASSWORD, USER

    remote = RemoteStore(
        virtuoso.endpoint,
        update_endpoint=virtuoso.update_endpoint,
        graph_store=f"http://127.0.0.1:{virtuoso.http_port}/sparql-graph-crud-auth",
        user=USER,
        password=PASSWORD,
    )
    path, run = _ledger(tmp_path, kind)
    store = hopgate.open_store(None)
    hopgate.load(store, path)
    scratch = ids.mint("evaluation-activity", f"{run}@coverage-{kind}") + "/scratch"
    params: dict[str, Any] = {"run": IRI(ids.mint("run", run)), "scratch": IRI(scratch)}
    # Coverage starts from the run's outputs, which evaluation-run writes first.
    texts = [library_update(name).text for name in ("evaluation-run", "evaluation-coverage")]
    graphs = catalog.run_inputs(store, run)
    loaded: list[str] = []
    try:
        with snapshots.working_copy(store, evaluation_projection(), graphs) as work:
            for graph in work.graphs():
                quads = tmp_path / "graph.nq"
                quads.write_text("".join(work.iter_graph_nquads(graph)), "utf-8")
                remote.add_graph(quads, graph, trusted=True)
                loaded.append(graph)
            for text in texts:
                work.update(text, params=params)
            expected = _covers(work, scratch)
        for text in texts:
            remote.update(text, params=params)
        assert expected, "nothing covered: the ledger does not exercise the update"
        assert _remote_covers(remote, scratch) == expected
    finally:
        for graph in [*loaded, scratch]:
            remote.remove_graph(graph)
        store.close()
