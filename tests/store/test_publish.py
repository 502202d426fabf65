"""Publishing a graph (hopgate.store.publish): bulk write, snapshots, then the catalog entry.

A graph whose catalog entry was never written is invisible to every query and is
removed by the next publication (docs/spec/records.md "Records"). A process killed
at each step: tests/store/test_crash.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CEDAR, LEDGERS

import hopgate
from hopgate.audit import results
from hopgate.decide.evaluation import evaluate
from hopgate.library.steps import reading_projection
from hopgate.store import catalog, snapshots
from hopgate.store.publish import publish
from hopgate.vocab import CATALOG_GRAPH, HG, PROV, RDF


def _verdict_map(store: hopgate.Store) -> dict[str, str]:
    return {row.output: row.verdict for row in results.verdicts(store)}


def test_an_unpublished_graph_is_invisible_and_the_next_load_removes_it(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    evaluate(store)
    before = (store.graphs(), store.count(), _verdict_map(store))
    orphan = tmp_path / "orphan.nq"
    orphan.write_text(
        "<https://w3id.org/hopgate/id/claim/cX> <https://w3id.org/hopgate/ns#ledgerId> "
        '"cX" <https://w3id.org/hopgate/id/load/deadbeef> .\n',
        encoding="utf-8",
    )
    store.add_graph(orphan, "https://w3id.org/hopgate/id/load/deadbeef")
    assert (store.graphs(), store.count(), _verdict_map(store)) == before
    assert not store.ask('ASK { ?s hg:ledgerId "cX" }')
    assert store.unpublished_graphs() == ["https://w3id.org/hopgate/id/load/deadbeef"]
    hopgate.load(store, LEDGERS / "more-for-a.yaml")
    assert store.unpublished_graphs() == []
    store.close()


G = "https://w3id.org/hopgate/id/load/published"


def _graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "graph.nq"
    path.write_text(
        f'<https://w3id.org/hopgate/id/claim/cP> <{HG}ledgerId> "cP" <{G}> .\n', encoding="utf-8"
    )
    return path


def _entry(tmp_path: Path, received: list[list[str]]) -> Callable[[list[str]], Path]:
    def entry(kept: list[str]) -> Path:
        received.append(kept)
        path = tmp_path / "entry.nq"
        lines = [f"<{G}> <{RDF}type> <{PROV}Bundle> <{CATALOG_GRAPH}> .\n"]
        lines += [f"{line.removesuffix(' .')} <{CATALOG_GRAPH}> .\n" for line in kept]
        path.write_text("".join(lines), encoding="utf-8")
        return path

    return entry


def test_a_published_graph_is_visible_with_its_snapshots_recorded(tmp_path: Path) -> None:
    received: list[list[str]] = []
    with hopgate.open_store(tmp_path / "store") as store:
        publish(
            store,
            G,
            _graph_file(tmp_path),
            catalog_entry=_entry(tmp_path, received),
            kind="load",
            projections=[reading_projection()],
        )
        assert G in store.graphs() and store.unpublished_graphs() == []
        assert store.ask('ASK { ?s hg:ledgerId "cP" }')
        [kept] = received
        assert len(kept) == 1, "one snapshot for the one projection, recorded in the entry"
        assert snapshots.recorded(store, [G])[G]


def _snapshot_files(store: hopgate.Store) -> list[Path]:
    assert store.folder is not None
    return sorted((store.folder / snapshots.FOLDER).iterdir())


def test_a_failed_publication_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        before = (store.graphs(), store.count(), _snapshot_files(store))

        def refused(kept: list[str]) -> Path:
            raise RuntimeError("the catalog entry could not be written")

        with pytest.raises(RuntimeError, match="could not be written"):
            publish(
                store,
                G,
                _graph_file(tmp_path),
                catalog_entry=refused,
                kind="load",
                projections=[reading_projection()],
            )
        assert (store.graphs(), store.count(), _snapshot_files(store)) == before
        assert catalog.load_graphs(store) == [graph for graph in before[0] if "/load/" in graph]


@pytest.mark.parametrize("failing", ["caches", "bulk write"])
def test_a_failure_beside_the_bulk_write_leaves_the_store_as_it_was(
    tmp_path: Path, failing: str
) -> None:
    # The bulk write runs in a thread while the snapshots are cut and the other
    # caches kept: whichever fails, the graph and every file of it are removed.
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        before = (store.graphs(), store.count(), _snapshot_files(store))

        def caches() -> list[str]:
            written = snapshots.keep_bytes(store, G, "answers-test", b"rows")
            assert written
            if failing == "caches":
                raise RuntimeError("the answers could not be recorded")
            return written

        source = _graph_file(tmp_path)
        if failing == "bulk write":
            source.write_text("not N-Quads\n", encoding="utf-8")
        with pytest.raises((RuntimeError, hopgate.StoreError)):
            publish(
                store,
                G,
                source,
                catalog_entry=_entry(tmp_path, []),
                kind="load",
                projections=[reading_projection()],
                caches=caches,
            )
        # Every file of the graph (its snapshot and the hook's cache) is gone.
        assert (store.graphs(), store.count(), _snapshot_files(store)) == before
        assert G not in store.unpublished_graphs()
