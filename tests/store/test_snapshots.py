"""Snapshots (hopgate.store.snapshots): the projected quads of a published graph, kept
beside an on-disk store as a cache, recorded with their digests in the catalog entry.

The store is the truth (docs/spec/records.md "Records"): a damaged or edited snapshot
never changes an answer, a store without snapshots answers the same, and a snapshot
kept for one projection is never used for another.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from conftest import CEDAR, CEDAR_VERDICTS, keep_bundle_snapshot
from evaluated import metrics, verdicts

import hopgate
from hopgate.audit import results
from hopgate.audit.peers import peer_metrics
from hopgate.decide.evaluation import evaluate
from hopgate.library.projection import Projection, projection_of
from hopgate.library.steps import evaluation_projection, reading_projection
from hopgate.store import answers, snapshots
from hopgate.store.snapshots import FOLDER


def _verdict_map(store: hopgate.Store) -> dict[str, str]:
    # A read only: it never evaluates (docs/spec/records.md "Writes and reads").
    return {row.output: row.verdict for row in results.verdicts(store)}


# ---- caches can't lie ------------------------------------------------------------


def _bundle_snapshot(store: hopgate.OxigraphStore, bundle: str) -> Path:
    path = snapshots.verified(
        store, bundle, reading_projection(), snapshots.recorded(store, [bundle])
    )
    assert path is not None
    return path


@pytest.mark.parametrize("damage", ["empty", "truncate", "delete"])
def test_a_damaged_snapshot_never_changes_a_verdict(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    (record,) = evaluate(store)
    for graph in (loaded.graph, record.graph):
        # Every cache file: the quads' snapshots and the recorded answers.
        for path in (tmp_path / "store" / snapshots.FOLDER).glob("*.*"):
            data = path.read_bytes()
            if damage == "empty":
                path.write_bytes(b"")
            elif damage == "truncate":
                path.write_bytes(data[: len(data) // 2])
            else:
                path.unlink()
        assert graph
    assert _verdict_map(store) == CEDAR_VERDICTS
    assert "snapshot" in caplog.text and "answers cache" in caplog.text
    # A new evaluation from damaged load snapshots decides the same.
    evaluate(store, force=True)
    assert _verdict_map(store) == CEDAR_VERDICTS
    store.close()


def test_the_peer_figures_without_recorded_answers_or_snapshots_are_the_recorded_ones(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # `metrics --peers` reads the sums the evaluation recorded (hopgate.store.answers);
    # without them, it queries a copy of each load's reading snapshot; without that,
    # of the load read from the store (a load kept before there was one).
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    evaluate(store)
    recorded = peer_metrics(store)
    assert list((tmp_path / "store" / FOLDER).glob("*-answers-peers-*.cache"))
    for cache in (tmp_path / "store" / FOLDER).glob("*-answers-peers-*.cache"):
        cache.unlink()
    asked = peer_metrics(store)
    snapshot = _snapshot(store, loaded.graph, reading_projection())
    assert snapshot is not None
    snapshot.unlink()
    read = peer_metrics(store)
    assert "snapshot" in caplog.text and "answers cache" in caplog.text
    assert read.keys() == asked.keys() == recorded.keys() and read
    for run, figures in recorded.items():
        for other in (asked[run], read[run]):
            assert [(f.name, f.source, f.denominator) for f in other] == [
                (f.name, f.source, f.denominator) for f in figures
            ]
            # A sum of doubles, added in the copy's order (docs/spec/records.md "Arithmetic").
            assert [f.numerator for f in other] == pytest.approx([f.numerator for f in figures])
    store.close()


def test_an_edited_bundle_snapshot_is_not_believed(tmp_path: Path) -> None:
    """A bundle's snapshot, as an earlier hopgate kept one, edited: not believed."""
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    (record,) = evaluate(store)
    keep_bundle_snapshot(store, record.graph, tmp_path)
    path = _bundle_snapshot(store, record.graph)
    text = path.read_text(encoding="utf-8")
    assert "ReviseCitations" in text
    path.write_text(text.replace("ReviseCitations", "Accept"), encoding="utf-8")
    # Without the recorded answers (hopgate.store.answers), a read parses the snapshot.
    for cache in (tmp_path / "store" / FOLDER).glob("*.cache"):
        cache.unlink()
    assert _verdict_map(store) == CEDAR_VERDICTS
    store.close()


def test_snapshots_are_recorded_with_the_graph_they_cache(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    digests = snapshots.recorded(store, [loaded.graph])[loaded.graph]
    # The evaluation's, the bundle and peer queries', and the reader rule's
    # projections, and the reader rule's answers (hopgate.store.reader_answers); not
    # the review queue's, which each evaluation records for its run
    # (hopgate.store.queue_answers).
    assert len(digests) == 4
    assert sum(key.startswith("withheld-") for key in digests) == 1
    assert not any(key.startswith("queue-") for key in digests)
    for path in (tmp_path / "store" / snapshots.FOLDER).glob("*.nq"):
        assert snapshots.file_sha256(path) in digests.values()
    assert not list((tmp_path / "store" / snapshots.FOLDER).glob("*.partial"))
    store.close()


# ---- what a snapshot holds ------------------------------------------------------------


@pytest.mark.parametrize("projection", [evaluation_projection(), reading_projection()])
def test_a_load_keeps_a_recorded_snapshot_of_what_its_projection_keeps(
    tmp_path: Path, projection: Projection
) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    snapshot = _snapshot(store, loaded.graph, projection)
    assert snapshot is not None
    kept = ox.Store()
    kept.bulk_load(path=str(snapshot), format=ox.RdfFormat.N_QUADS)
    # Exactly the graph's quads that the projection keeps.
    expected = [
        quad
        for quad in store._store.quads_for_pattern(None, None, None, ox.NamedNode(loaded.graph))
        if projection.keeps(quad.predicate.value, quad.object.value)
    ]
    assert len(kept) == len(expected) > 0
    assert all(quad in kept for quad in expected)
    snapshots.remove(store, loaded.graph)
    assert not snapshots.snapshot_path(
        tmp_path / "store" / FOLDER, loaded.graph, projection
    ).exists()
    store.close()


def test_an_evaluation_keeps_its_answers_and_no_snapshot_of_its_bundle(tmp_path: Path) -> None:
    """The reads take a bundle's recorded answers (hopgate.store.answers); a copy of its
    quads (about 200 MB at 10k claims) would serve them only when those are lost."""
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    bundles = [record.graph for record in evaluate(store)]
    assert bundles
    for bundle in bundles:
        assert _snapshot(store, bundle, reading_projection()) is None
        assert answers.read(store, bundle) is not None
    assert _snapshot(store, loaded.graph, reading_projection()) is not None
    # Without the answers, the reads run their queries on the store, and agree.
    with_answers = _verdicts(store)
    for cache in (tmp_path / "store" / FOLDER).glob("*-answers-*.cache"):
        cache.unlink()
    assert _verdicts(store) == with_answers
    store.close()


def test_evaluation_without_snapshots_reads_the_store_and_agrees(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    with_snapshots = _verdicts(store), _metrics(store)
    shutil.rmtree(tmp_path / "store" / FOLDER)  # as a store loaded by an older hopgate
    evaluate(store, force=True)
    shutil.rmtree(tmp_path / "store" / FOLDER)  # the new bundle's answers too
    assert (_verdicts(store), _metrics(store)) == with_snapshots
    memory = hopgate.open_store(None)
    hopgate.load(memory, CEDAR)
    assert (_verdicts(memory), _metrics(memory)) == with_snapshots
    store.close()


def test_a_snapshot_of_another_projection_is_not_used(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    other = projection_of(["SELECT * { ?s hg:ofRun ?o }"])
    assert _snapshot(store, loaded.graph, other) is None
    with snapshots.working_copy(store, other, [loaded.graph]) as copy:
        assert copy.count() == store.count(loaded.graph) - _not_kept(store, loaded.graph, other)
    store.close()


def _verdicts(store: Any) -> list[dict[str, Any]]:
    return [{**row.as_dict(), "card": None} for row in verdicts(store)]


def _snapshot(store: Any, graph: str, projection: Projection) -> Path | None:
    """The verified snapshot of ``graph`` for ``projection``, as an evaluation would use it."""
    return snapshots.verified(store, graph, projection, snapshots.recorded(store, [graph]))


def _metrics(store: Any) -> dict[str, Any]:
    return {run: {**m.as_dict(), "evaluation": None} for run, m in metrics(store).items()}


def _not_kept(store: Any, graph: str, projection: Projection) -> int:
    return sum(
        not projection.keeps(quad.predicate.value, quad.object.value)
        for quad in store._store.quads_for_pattern(None, None, None, ox.NamedNode(graph))
    )


def test_a_write_removes_snapshot_files_no_published_graph_owns(tmp_path: Path) -> None:
    # Snapshots are cut while the graph is bulk-written, so a process killed
    # before the bulk write left anything can leave files of a graph the
    # store never held; the next write removes them and keeps the others.
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, CEDAR)
    folder = tmp_path / "store" / FOLDER
    kept = sorted(folder.iterdir())
    assert kept
    orphan = folder / (kept[0].name.replace(kept[0].name.split("-", 1)[0], "0" * 32))
    orphan.write_bytes(kept[0].read_bytes())
    (partial := folder / ("f" * 32 + "-0.partial")).write_bytes(b"")
    evaluate(store)
    assert not orphan.exists() and not partial.exists()
    assert set(kept) <= set(folder.iterdir())
    assert snapshots.verified(
        store, loaded.graph, evaluation_projection(), snapshots.recorded(store, [loaded.graph])
    )
    store.close()
