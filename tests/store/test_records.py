"""The record is the truth (docs/spec/records.md): caches can't lie, reads never write,
staleness is per run, and history validates against its own past."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

import hopgate
from hopgate.audit.results import verdicts
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.library.steps import reading_projection
from hopgate.store import catalog, snapshots

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: One more adjudicated route for claim cA of the worked example: a2 alone.
MORE_FOR_A = {
    "ledger": 1,
    "evidence_sets": [
        {
            "id": "gA2",
            "claim": "cA",
            "members": ["a2"],
            "inference": "direct statement",
            "status": "adjudicated",
            "annotation": {"version": 2, "by": "reviewer-2", "at": "2026-10-04"},
        }
    ],
}


def _write(path: Path, ledger: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(ledger, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def hg(tmp_path: Path):  # type: ignore[no-untyped-def]
    """``hopgate --store <tmp> ARGS`` in-process, stderr apart from stdout."""
    runner = CliRunner()

    def _run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, ["--store", str(tmp_path / "store"), *args], obj={})

    return _run


def _verdict_map(store: hopgate.Store) -> dict[str, str]:
    return {row.output: row.verdict for row in verdicts(store)}


CEDAR = {
    "sys-a/qA/o1": "revise-citations",
    "sys-a/qB/o1": "revise-citations",
    "sys-a/qC/o1": "accept",
    "sys-a/qD/o1": "reject",
}


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
    loaded = hopgate.load(store, EXAMPLES / "cedar.yaml")
    (record,) = evaluate(store)
    for graph in (loaded.graph, record.graph):
        for path in (tmp_path / "store" / snapshots.FOLDER).glob("*.nq"):
            data = path.read_bytes()
            if damage == "empty":
                path.write_bytes(b"")
            elif damage == "truncate":
                path.write_bytes(data[: len(data) // 2])
            else:
                path.unlink()
        assert graph
    assert _verdict_map(store) == CEDAR
    assert "snapshot" in caplog.text
    # A new evaluation from damaged load snapshots decides the same.
    evaluate(store, force=True)
    assert _verdict_map(store) == CEDAR
    store.close()


def test_an_edited_bundle_snapshot_is_not_believed(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    (record,) = evaluate(store)
    path = _bundle_snapshot(store, record.graph)
    text = path.read_text(encoding="utf-8")
    assert "ReviseCitations" in text
    path.write_text(text.replace("ReviseCitations", "Accept"), encoding="utf-8")
    assert _verdict_map(store) == CEDAR
    store.close()


def test_snapshots_are_recorded_with_the_graph_they_cache(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    loaded = hopgate.load(store, EXAMPLES / "cedar.yaml")
    digests = snapshots.recorded(store, [loaded.graph])[loaded.graph]
    assert len(digests) == 2
    for path in (tmp_path / "store" / snapshots.FOLDER).glob("*.nq"):
        assert snapshots.file_sha256(path) in digests.values()
    assert not list((tmp_path / "store" / snapshots.FOLDER).glob("*.partial"))
    store.close()


# ---- unpublished graphs ------------------------------------------------------------


def test_an_unpublished_graph_is_invisible_and_the_next_load_removes_it(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, EXAMPLES / "cedar.yaml")
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
    hopgate.load(store, _write(tmp_path / "more.yaml", MORE_FOR_A))
    assert store.unpublished_graphs() == []
    store.close()


# ---- reads never write ---------------------------------------------------------------


def _quads(tmp_path: Path) -> int:
    with hopgate.open_store(tmp_path / "store") as store:
        return store.count()


def test_reads_never_evaluate_and_say_when_a_run_is_stale(hg, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert hg("load", str(EXAMPLES / "cedar.yaml")).exit_code == 0
    # Never evaluated: reads show nothing and say how to evaluate; the gate fails.
    assert json.loads(hg("verdicts", "--format", "json").output) == []
    named = hg("verdicts", "--run", "sys-a")
    assert named.exit_code == 2 and "hopgate evaluate" in named.output
    quads = _quads(tmp_path)
    gate = hg("gate", "--run", "sys-a")
    assert gate.exit_code == 1 and "never been evaluated" in gate.output
    assert _quads(tmp_path) == quads
    assert hg("evaluate").exit_code == 0
    # Evidence for claim A arrives: the run is stale until evaluated again.
    assert hg("load", str(_write(tmp_path / "more.yaml", MORE_FOR_A))).exit_code == 0
    quads = _quads(tmp_path)
    for args in (
        ("verdicts", "--format", "json"),
        ("metrics", "--format", "json"),
        ("gate", "--run", "sys-a"),
        ("export", "--run", "sys-a", "--format", "trig"),
        ("validate",),
        ("stats",),
    ):
        hg(*args)
        assert _quads(tmp_path) == quads, args
    shown = hg("verdicts", "--format", "json")
    rows = json.loads(shown.stdout)
    assert {r["output"]: r["verdict"] for r in rows} == CEDAR  # as recorded
    assert all(r["stale"] and "load" in r["stale_reason"] for r in rows)
    assert "stale" in shown.stderr
    assert json.loads(hg("metrics", "--format", "json").stdout)["sys-a"]["stale"] is True
    gate = hg("gate", "--run", "sys-a")
    assert gate.exit_code == 1 and "not current" in gate.output
    evaluated = hg("gate", "--run", "sys-a", "--evaluate")
    assert "not current" not in evaluated.output
    rows = json.loads(hg("verdicts", "--format", "json").stdout)
    assert not any(r["stale"] for r in rows)
    assert {r["output"]: r["verdict"] for r in rows}["sys-a/qA/o1"] == "accept"


# ---- staleness per run -----------------------------------------------------------------


def _other_run(tmp_path: Path) -> Path:
    """A second run on the worked example's questions, in a ledger of its own."""
    cedar = yaml.safe_load((EXAMPLES / "cedar.yaml").read_text(encoding="utf-8"))
    run = dict(cedar["runs"][0], id="sys-b")
    cases = [
        dict(
            case,
            run="sys-b",
            outputs=[dict(o, id=o["id"].replace("sys-a", "sys-b")) for o in case["outputs"]],
        )
        for case in cedar["cases"]
    ]
    return _write(tmp_path / "sys-b.yaml", {"ledger": 1, "runs": [run], "cases": cases})


def test_loading_another_runs_cases_leaves_a_run_current(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    (first,) = evaluate(store)
    hopgate.load(store, _other_run(tmp_path))
    assert not catalog.staleness(store, "sys-a").stale
    assert catalog.staleness(store, "sys-b").stale
    records = {r.run: r for r in evaluate(store)}
    assert records["sys-a"].reused and not records["sys-b"].reused
    used_a = catalog.latest(store, "sys-a")
    used_b = catalog.latest(store, "sys-b")
    assert used_a is not None and used_b is not None
    assert len(used_b.used) == 2 and len(used_a.used) == 1  # sys-a never read sys-b's load
    # Evidence for a claim both runs require makes both stale.
    hopgate.load(store, _write(tmp_path / "more.yaml", MORE_FOR_A))
    assert catalog.staleness(store, "sys-a").stale and catalog.staleness(store, "sys-b").stale
    store.close()


# ---- history validates against its own past ----------------------------------------------


def test_a_later_load_never_fails_an_earlier_card(hg, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hg("load", str(EXAMPLES / "cedar.yaml"))
    hg("evaluate")
    hg("load", str(_write(tmp_path / "more.yaml", MORE_FOR_A)))
    hg("evaluate")
    for args in ((), ("--all-history",), ("--run", "sys-a")):
        result = hg("validate", *args)
        assert result.exit_code == 0, (args, result.output)


def test_validation_still_finds_a_card_that_misses_a_set_it_could_see(tmp_path: Path) -> None:
    from hopgate.shacl.validation import validate

    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    (record,) = evaluate(store)
    store.update(f"DELETE WHERE {{ GRAPH <{record.graph}> {{ ?card hg:referenceRoute ?set }} }}")
    for all_history in (False, True):
        result = validate(store, all_history=all_history)
        assert not result.conforms
        assert any("evidence set" in r.message for r in result.violations)
    store.close()


def test_a_read_of_a_missing_store_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "typo" / "store"
    for args in (("stats",), ("verdicts",), ("metrics",), ("query", "SELECT * { ?s ?p ?o }")):
        result = CliRunner().invoke(cli, ["--store", str(typo), *args], obj={})
        assert result.exit_code == 2 and "no store at" in result.output, (args, result.output)
    assert not typo.exists()
