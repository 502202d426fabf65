"""The shared lock of a store opened for reading (hopgate.store.read_lock): readers share a
store and exclude a writer, in another process or this one, for exactly as long as they
can read it, and never take a writer's lock away (docs/spec/records.md "Writes and reads").
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from pathlib import Path

import pytest
from conftest import open_elsewhere

import hopgate
from hopgate.store import read_lock
from hopgate.vocab import CATALOG_GRAPH

pytestmark = pytest.mark.skipif(
    not read_lock.AVAILABLE, reason="no open file description locks on this system"
)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    with hopgate.open_store(path) as store:
        # The catalog graph: a graph without a catalog entry is hidden from reads.
        store.update(
            f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ <urn:a> <urn:b> <urn:c>, <urn:d> }} }}"
        )
    return path


def test_a_refused_reader_leaves_this_process_s_writer_its_lock(store_path: Path) -> None:
    """Closing any descriptor of the lock file would drop the writer's POSIX lock: another
    process could then open the store under it and remove its files."""
    writer = hopgate.open_store(store_path)
    try:
        with pytest.raises(hopgate.StoreLockedError, match="open for writing in this process"):
            hopgate.open_store(store_path, read_only=True)
        assert open_elsewhere(store_path) == "StoreLockedError"
        writer.update(f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ <urn:x> <urn:y> <urn:z> }} }}")
    finally:
        writer.close()
    reader = hopgate.open_store(store_path, read_only=True)  # the refused descriptor, again
    try:
        assert reader.select("SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }")[0]["n"] == 3
    finally:
        reader.close()


def test_a_reader_dropped_without_close_lets_a_writer_in(store_path: Path) -> None:
    reader = hopgate.open_store(store_path, read_only=True)
    assert open_elsewhere(store_path) == "StoreLockedError"
    del reader
    gc.collect()
    assert open_elsewhere(store_path) == "opened"


@pytest.mark.parametrize("rows", ["select_rows", "iter_graph_nquads"])
def test_rows_still_read_after_close_hold_the_lock(store_path: Path, rows: str) -> None:
    reader = hopgate.open_store(store_path, read_only=True)
    if rows == "select_rows":
        pending = reader.select_rows("SELECT ?o { GRAPH ?g { ?s ?p ?o } }")
    else:
        pending = reader.iter_graph_nquads(CATALOG_GRAPH)
    first = next(pending)
    reader.close()
    assert open_elsewhere(store_path) == "StoreLockedError"
    assert len([first, *pending]) == 2
    del pending
    assert open_elsewhere(store_path) == "opened"


def _descriptors_on(path: Path) -> int:
    lock = str(path / "LOCK")
    return sum(
        1 for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == lock
    )


def test_a_forked_child_does_not_hold_the_store(store_path: Path) -> None:
    """An open file description's lock is shared with a forked child's copy (pySHACL's
    reference run forks): a child outliving a killed command would keep the store locked."""
    reader = hopgate.open_store(store_path, read_only=True)
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(1) as pool:
            assert pool.apply(_descriptors_on, (store_path,)) == 0
        assert _descriptors_on(store_path) == 1
        assert open_elsewhere(store_path) == "StoreLockedError"  # the parent still holds it
    finally:
        reader.close()


def test_a_copy_without_its_lock_file_is_read(store_path: Path, tmp_path: Path) -> None:
    """A backup (``pyoxigraph.Store.backup``) has no ``LOCK`` file: a reader makes one."""
    copy = tmp_path / "copy"
    with hopgate.open_store(store_path) as store:
        store._store.backup(str(copy))
    assert not (copy / "LOCK").exists()
    with hopgate.open_store(copy, read_only=True) as reader:
        assert reader.select("SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }")[0]["n"] == 2
    assert open_elsewhere(copy) == "opened"
