"""A run's first evaluation finds its inputs (queries/run-inputs.rq) on a copy of the loads.

In a store of several loads the walk is asked of a memory copy of every load
and plan graph, which the evaluation then keeps as its working copy
(hopgate.decide.evaluation ``_SharedCopy.inputs``): it must name the graphs
the walk names on the store, leave a working copy holding what a fresh one
holds, and so record the same inputs and verdicts as the walk on the store.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR

import hopgate
from hopgate.audit import results
from hopgate.decide import evaluation
from hopgate.library.steps import evaluation_projection
from hopgate.store import catalog, snapshots

ROOT = Path(__file__).resolve().parents[2]


def _history(folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The evidence with run0's cases, then one ledger per later run (bench/history.py)."""
    monkeypatch.syspath_prepend(str(ROOT))
    from bench.history import split
    from bench.synthetic import write_ledger

    write_ledger(folder / "all.jsonl", 60, seed=3, runs=3)
    first, others = split(folder / "all.jsonl", folder, 3)
    return [first, *others]


def _store(path: Path, ledgers: list[Path]) -> Any:
    store = hopgate.open_store(path)
    for ledger in ledgers:
        hopgate.load(store, ledger)
    return store


def _nquads(store: Any) -> bytes:
    out = io.BytesIO()
    store.dump(out, format="nquads")
    return out.getvalue()


def test_the_inputs_found_on_the_copy_are_the_walks_on_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path / "store", _history(tmp_path, monkeypatch))
    assert len(catalog.load_graphs(store)) == 3
    # A bundle in the store: the walk on the store sees it, the copy does not.
    hopgate.api.evaluate(store, run="run0")
    kept = 0
    for run in catalog.runs(store):
        # Small enough to walk on a copy (evaluation.WALK_COPY_RATIO).
        assert evaluation._walked_on_a_copy(store, run) is not None
        with evaluation._SharedCopy(store) as copies:
            found = copies.inputs(run)
            assert found == catalog.run_inputs(store, run)
            kept += copies._work is not None  # every load is an input: the copy is kept
            work = copies.of(found)
            with snapshots.working_copy(store, evaluation_projection(), found) as fresh:
                assert _nquads(work) == _nquads(fresh)
    # run0 uses one load; run2 every load (it cites chunks the earlier loads delivered).
    assert kept >= 1
    store.close()


def test_first_evaluations_record_the_same_with_the_walk_on_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledgers = _history(tmp_path, monkeypatch)
    on_copy = _store(tmp_path / "copy", ledgers)
    walked = []
    walk = evaluation._walked_on_a_copy
    monkeypatch.setattr(
        evaluation, "_walked_on_a_copy", lambda *a: walked.append(walk(*a)) or walked[-1]
    )
    hopgate.api.evaluate(on_copy)
    assert len(walked) == 3 and None not in walked
    monkeypatch.setattr(evaluation, "WALK_COPY_RATIO", 0)
    on_store = _store(tmp_path / "disk", ledgers)
    hopgate.api.evaluate(on_store)

    def recorded(store: Any) -> Any:
        used = {run: catalog.latest(store, run).used for run in catalog.runs(store)}  # type: ignore[union-attr]
        rows = [{**row.as_dict(), "card": None} for row in results.verdicts(store)]
        return used, sorted(rows, key=repr)

    assert recorded(on_copy) == recorded(on_store)
    # Several input graphs (the later runs cite chunks the first load delivered).
    assert max(len(used) for used in recorded(on_copy)[0].values()) > 1
    on_copy.close()
    on_store.close()


def test_a_stale_run_s_evaluation_walks_its_inputs_again(tmp_path: Path) -> None:
    """docs/spec/records.md "Staleness": an evaluation uses exactly the loads its run
    depends on. A new case of the run asserting a consequential claim that an earlier,
    unused load defines makes the run stale; its next evaluation must use that load
    too (it used the loads of the latest evaluation and the new one, and the gate
    passed an output that one evaluation of the same loads fails)."""
    base = yaml.safe_load(CEDAR.read_text("utf-8"))
    first = copy.deepcopy(base)
    first["judgments"] = []
    first["cases"] = [case for case in first["cases"] if case["question"] == "qC"]
    claim = {
        "ledger": 1,
        "questions": [{"id": "qE", "text": "Does Cedar renew in 2030?", "claims": ["cE"]}],
        "claims": [{"id": "cE", "text": "Cedar renews in 2030.", "consequential": True}],
    }
    case = {
        "ledger": 1,
        "cases": [
            {
                "run": "sys-a",
                "question": "qE",
                "retrieved": [],
                "outputs": [
                    {"id": "sys-a/qE/o1", "text": "Cedar renews in 2030.", "claim": "cE",
                     "correct": True, "cites": []}
                ],
            }
        ],
    }  # fmt: skip
    paths = []
    for name, ledger in (("first", first), ("claim", claim), ("case", case)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(ledger, default=str), encoding="utf-8")
        paths.append(path)

    def gate(store: Any) -> tuple[bool, list[str]]:
        found = hopgate.api.gate(store, run="sys-a")
        return found.passed, sorted(f.output for f in found.failing)

    with hopgate.open_store(tmp_path / "all-at-once") as store:
        for path in paths:
            hopgate.load(store, path)
        hopgate.api.evaluate(store)
        expected = gate(store)
        used = set(catalog.latest(store, "sys-a").used)  # type: ignore[union-attr]
    assert "sys-a/qE/o1" in expected[1]
    with hopgate.open_store(tmp_path / "one-by-one") as store:
        hopgate.load(store, paths[0])
        hopgate.api.evaluate(store)
        hopgate.load(store, paths[1])
        assert not catalog.staleness(store, "sys-a").stale  # nothing reaches cE yet
        hopgate.load(store, paths[2])
        assert catalog.staleness(store, "sys-a").stale
        hopgate.api.evaluate(store)
        assert gate(store) == expected
        assert set(catalog.latest(store, "sys-a").used) == used  # type: ignore[union-attr]


def test_a_forced_evaluation_decides_its_inputs_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/spec/records.md "Staleness": ``--force`` walks the run's inputs again rather
    than trusting the latest evaluation's record of them, so it mends a store whose
    latest evaluation used too few loads (an earlier release's stale re-evaluation did)."""
    ledger = yaml.safe_load(CEDAR.read_text("utf-8"))
    cases, ledger["cases"] = ledger["cases"], []
    evidence, runs = tmp_path / "evidence.json", tmp_path / "cases.json"
    evidence.write_text(json.dumps(ledger, default=str), encoding="utf-8")
    runs.write_text(json.dumps({"ledger": 1, "cases": cases}, default=str), encoding="utf-8")

    def cards(store: Any) -> list[tuple[str, str]]:
        return sorted((row.output, row.verdict) for row in hopgate.api.verdicts(store))

    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, evidence)
        only_cases = [hopgate.load(store, runs).graph]
        hopgate.api.evaluate(store)
        expected, used = cards(store), set(catalog.latest(store, "sys-a").used)  # type: ignore[union-attr]
        assert len(used) == 2
        # The latest evaluation records only the cases' load, as a wrong walk would.
        with monkeypatch.context() as patched:
            patched.setattr(evaluation._SharedCopy, "inputs", lambda self, run: only_cases)
            hopgate.api.evaluate(store, force=True)
        assert set(catalog.latest(store, "sys-a").used) == set(only_cases)  # type: ignore[union-attr]
        assert not catalog.staleness(store, "sys-a").stale
        assert cards(store) != expected
        hopgate.api.evaluate(store, run="sys-a", force=True)
        assert set(catalog.latest(store, "sys-a").used) == used  # type: ignore[union-attr]
        assert cards(store) == expected
