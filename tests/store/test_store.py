"""The Store contract (hopgate.store.base) on the embedded engine (hopgate.store.oxigraph).

Everything above hopgate.store talks to these methods only; the remote store runs
the same reads against a real server in tests/store/test_remote.py. Values come back
as plain Python values (IRI for an IRI), queries see the union of the published
named graphs, and every write is all or nothing.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CEDAR, open_elsewhere

import hopgate
from hopgate.cli import cli
from hopgate.errors import QueryError, StoreError
from hopgate.memory import paused_gc
from hopgate.store import IRI, Store
from hopgate.store.base import check_iri
from hopgate.vocab import CATALOG_GRAPH, PROV, RDF

G1 = "https://w3id.org/hopgate/id/load/one"
G2 = "https://w3id.org/hopgate/id/load/two"
S = "https://w3id.org/hopgate/id/claim/"


def _quads(path: Path, graph: str, *rows: tuple[str, str]) -> Path:
    """An N-Quads file of ``(subject id, label)`` rows in ``graph``."""
    path.write_text(
        "".join(f'<{S}{s}> <{RDF}value> "{label}" <{graph}> .\n' for s, label in rows),
        encoding="utf-8",
    )
    return path


def _publish(store: Store, tmp_path: Path, graph: str, *rows: tuple[str, str]) -> None:
    """Add ``graph`` and the catalog entry that makes it visible (as hopgate.store.publish)."""
    store.add_graph(_quads(tmp_path / "graph.nq", graph, *rows), graph)
    entry = tmp_path / "entry.nq"
    entry.write_text(f"<{graph}> <{RDF}type> <{PROV}Bundle> <{CATALOG_GRAPH}> .\n", "utf-8")
    store.add_nquads(entry)


@pytest.fixture
def two_graphs(tmp_path: Path) -> Store:
    store = hopgate.open_store(tmp_path / "store")
    _publish(store, tmp_path, G1, ("a", "alpha"), ("b", "béta"))
    _publish(store, tmp_path, G2, ("c", "gamma"))
    return store


def test_select_returns_python_values_and_binds_parameters(two_graphs: Store) -> None:
    rows = two_graphs.select(
        f"SELECT ?s ?label WHERE {{ ?s <{RDF}value> ?label }} ORDER BY ?label",
        params={"label": "béta"},
    )
    assert rows == [{"s": IRI(S + "b"), "label": "béta"}]
    assert isinstance(rows[0]["s"], IRI)
    # A parameter is a bound value, never text spliced into the query.
    assert two_graphs.select("SELECT ?s WHERE { ?s ?p ?label }", params={"label": '" } #'}) == []


def test_the_default_graph_is_the_union_of_the_named_graphs(two_graphs: Store) -> None:
    labels = two_graphs.select(f"SELECT ?label WHERE {{ ?s <{RDF}value> ?label }}")
    assert sorted(row["label"] for row in labels) == ["alpha", "gamma", "béta"][:0] + sorted(
        ["alpha", "béta", "gamma"]
    )
    assert two_graphs.graphs() == sorted([CATALOG_GRAPH, G1, G2])
    assert (two_graphs.count(G1), two_graphs.count(G2)) == (2, 1)


def test_select_rows_ask_construct_and_query_any_agree_with_select(two_graphs: Store) -> None:
    query = f"SELECT ?s WHERE {{ ?s <{RDF}value> ?o }} ORDER BY ?s"
    assert list(two_graphs.select_rows(query)) == two_graphs.select(query)
    assert two_graphs.query_any(query) == two_graphs.select(query)
    assert two_graphs.ask(f"ASK {{ <{S}a> ?p ?o }}") is True
    assert two_graphs.query_any(f"ASK {{ <{S}z> ?p ?o }}") is False
    triples = two_graphs.construct(
        f"CONSTRUCT {{ ?s <{RDF}value> ?o }} WHERE {{ GRAPH <{G2}> {{ ?s ?p ?o }} }}"
    )
    assert triples.decode("utf-8").strip() == f'<{S}c> <{RDF}value> "gamma" .'


def test_a_failed_update_changes_nothing(two_graphs: Store) -> None:
    before = two_graphs.count()
    with pytest.raises(QueryError):
        two_graphs.update("INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> 1 } } ; NOT SPARQL")
    assert two_graphs.count() == before
    two_graphs.update(f"DELETE WHERE {{ GRAPH <{G2}> {{ ?s ?p ?o }} }}")
    assert two_graphs.count(G2) == 0


def test_a_bad_nquads_file_adds_nothing(two_graphs: Store, tmp_path: Path) -> None:
    before = two_graphs.count()
    bad = tmp_path / "bad.nq"
    bad.write_text(
        f'<{S}x> <{RDF}value> "ok" <{G1}> .\n<{S}y> <{RDF}value> "unterminated <{G1}> .\n'
    )
    with pytest.raises(StoreError):
        two_graphs.add_nquads(bad)
    assert two_graphs.count() == before


def test_remove_graph_and_dump_sorted_nquads(two_graphs: Store) -> None:
    out = io.BytesIO()
    two_graphs.dump(out, format="nquads", graph=G1)
    lines = out.getvalue().decode("utf-8").splitlines()
    assert lines == sorted(lines) and len(lines) == 2
    two_graphs.remove_graph(G1)
    assert G1 not in two_graphs.graphs()
    assert not two_graphs.ask(f"ASK {{ <{S}a> ?p ?o }}")


def test_a_working_copy_holds_the_graphs_and_its_writes_are_discarded(two_graphs: Store) -> None:
    with two_graphs.working_copy(None, [G1]) as copy:
        assert copy.count() == 2
        copy.update(f"INSERT DATA {{ GRAPH <{G1}> {{ <{S}n> <{RDF}value> 'new' }} }}")
        assert copy.count() == 3
    assert two_graphs.count(G1) == 2


def test_a_local_view_sees_only_its_graphs(two_graphs: Store) -> None:
    with two_graphs.local_view([G2]) as view:
        assert [row["s"] for row in view.select(f"SELECT ?s {{ ?s <{RDF}value> ?o }}")] == [
            IRI(S + "c")
        ]
        assert not bool(view.query_terms(f"ASK {{ <{S}a> ?p ?o }}"))
        assert bool(view.query_terms(f"ASK {{ <{S}c> ?p ?o }}"))


def test_check_iri_refuses_what_cannot_sit_between_angle_brackets() -> None:
    assert check_iri(S + "a") == S + "a"
    for bad in (f"{S}a> <x", f"{S}a b", '{S}"', "a\nb"):
        with pytest.raises(QueryError, match="not an IRI"):
            check_iri(bad)


def test_a_read_of_a_missing_store_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "typo" / "store"
    for args in (("stats",), ("verdicts",), ("metrics",), ("query", "SELECT * { ?s ?p ?o }")):
        result = CliRunner().invoke(cli, ["--store", str(typo), *args], obj={})
        assert result.exit_code == 2 and "no store at" in result.output, (args, result.output)
    assert not typo.exists()


def test_a_store_in_use_is_locked_for_another_process(tmp_path: Path) -> None:
    path = tmp_path / "store"
    store = hopgate.open_store(path)
    try:
        assert open_elsewhere(path) == "StoreLockedError"
        assert issubclass(hopgate.StoreLockedError, hopgate.StoreError)
    finally:
        store.close()
    assert open_elsewhere(path) == "opened"


def test_close_releases_the_store_while_a_view_of_it_is_still_held(tmp_path: Path) -> None:
    """A view some object still holds (a frame that an rdflib parse exception keeps in a
    reference cycle held one after ``validate``, until the collector's next pass) does
    not keep a closed store locked: another process, or this one, opens it at once."""
    path = tmp_path / "store"
    store = hopgate.open_store(path)
    held = store.view([]).view([])  # a view of a view too
    with paused_gc():
        store.close()
        assert open_elsewhere(path) == "opened"
        hopgate.open_store(path).close()
    assert held is not None


def _files(path: Path) -> dict[str, tuple[int, int]]:
    return {
        str(f.relative_to(path)): (f.stat().st_size, f.stat().st_mtime_ns)
        for f in sorted(path.rglob("*"))
        if f.is_file()
    }


@pytest.fixture
def evaluated_store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    with hopgate.open_store(path) as store:
        hopgate.load(store, CEDAR)
        hopgate.evaluate(store)
    return path


_READS = (
    ("verdicts",),
    ("metrics", "--peers"),
    ("gate", "--run", "sys-a"),
    ("report", "--run", "sys-a", "--format", "json"),
    ("explain", "sys-a/qA/o1", "--run", "sys-a"),
    ("query", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"),
    ("stats",),
    ("review", "queue"),
    ("validate", "--run", "sys-a"),
)


def test_read_commands_change_no_file_of_the_store(evaluated_store: Path) -> None:
    """Reads never write (docs/spec/records.md "Writes and reads"): opened for reading
    only, the engine neither replays its log into new files nor compacts them."""
    before = _files(evaluated_store)
    for args in _READS:
        result = CliRunner().invoke(cli, ["--store", str(evaluated_store), *args], obj={})
        assert result.exit_code in (0, 1), (args, result.output)
    assert _files(evaluated_store) == before


def test_a_read_works_on_a_store_its_user_may_not_write(evaluated_store: Path) -> None:
    """An auditor given read access to a store folder reads it, and changes nothing."""
    # A folder of its own that others may enter (pytest's is its user's alone).
    folder = Path(tempfile.mkdtemp(prefix="hopgate-read-only-"))
    try:
        store = folder / "store"
        shutil.copytree(evaluated_store, store)
        command = [sys.executable, "-m", "hopgate.cli", "--store", str(store), "verdicts"]
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv: no unprivileged user to read as")
            command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        for f in [folder, store, *store.rglob("*")]:
            f.chmod(0o555 if f.is_dir() else 0o444)
        before = _files(store)
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=120, cwd="/", check=False
        )
        assert done.returncode == 0, done.stderr
        assert "sys-a/qA/o1" in done.stdout
        assert _files(store) == before
    finally:
        for f in [folder, *folder.rglob("*")]:
            f.chmod(0o755 if f.is_dir() else 0o644)
        shutil.rmtree(folder)


def test_readers_share_the_store_and_exclude_a_writer(evaluated_store: Path) -> None:
    reader = hopgate.open_store(evaluated_store, read_only=True)
    try:
        assert open_elsewhere(evaluated_store, "read") == "opened"
        assert open_elsewhere(evaluated_store, "write") == "StoreLockedError"
        with pytest.raises(hopgate.StoreLockedError, match="in use by another process"):
            hopgate.open_store(evaluated_store)
        with pytest.raises(StoreError, match="opened for reading"):
            reader.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }")
        assert reader.select("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")[0]["n"] > 0
    finally:
        reader.close()
    assert open_elsewhere(evaluated_store, "write") == "opened"
    writer = hopgate.open_store(evaluated_store)
    try:
        assert open_elsewhere(evaluated_store, "read") == "StoreLockedError"
    finally:
        writer.close()
