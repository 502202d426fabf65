"""The review queue's rows recorded by each evaluation for its run (hopgate.store.queue_answers).

The queue reads the published records only (queries/review-queue.rq). An
evaluation records its run's rows, asked over the loads it used, and reads
(``metrics``' count awaiting adjudication, ``review queue``) take them while
the evaluation is current: a load that touches the run (a judgment, its
cases) makes it stale and the query is asked; a load of other runs' cases
leaves the record in use; a missing or damaged record gives the same queue.
A load asks no queue. On the servers: tests/store/test_server_answers.py.
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR, examples, write
from hypothesis import HealthCheck, given, settings
from ledger_strategies import ledgers

import hopgate
from hopgate import ids
from hopgate.audit import adjudication, queue
from hopgate.library.artefacts import library_query
from hopgate.store import IRI, answers, catalog, queue_answers, snapshots
from hopgate.vocab import CATALOG_GRAPH


def _disputed(tmp_path: Path) -> Path:
    """The worked example with gC2 only proposed and an unresolved contradiction k2."""
    ledger: dict[str, Any] = copy.deepcopy(yaml.safe_load(CEDAR.read_text("utf-8")))
    for found in ledger["evidence_sets"]:
        if found["id"] == "gC2":
            found["status"] = "proposed"
            found["annotation"]["version"] = 1
    ledger["judgments"] = []
    ledger["contradictions"].append(
        {"id": "k2", "claim": "cB", "span": "k1-span", "status": "unresolved"}
    )
    path = tmp_path / "disputed.yaml"
    path.write_text(yaml.safe_dump(ledger, sort_keys=False), "utf-8")
    return path


def _asked(store: hopgate.Store) -> list[tuple[str, ...]]:
    """The query's rows over the records, asked now: the answer a record must give."""
    rows = store.view(queue_answers.records(store)).select(library_query("review-queue").text)
    return _comparable(rows)


def _comparable(rows: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    return sorted(tuple(f"{k}={v!r}" for k, v in sorted(row.items())) for row in rows)


def _queue(store: hopgate.Store) -> list[tuple[str, str, bool]]:
    return [(i.subject, i.question, i.disagreement) for i in queue.queue(store, "sys-a")]


def _not_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the queue was asked: the record was not used")

    monkeypatch.setattr(queue_answers, "_asked", fail)


def _answers_files(store: hopgate.OxigraphStore) -> list[Path]:
    """The files of the evaluations' recorded review queues."""
    assert store.folder is not None
    return sorted((store.folder / snapshots.FOLDER).glob(f"*{answers.cache_key('queue')}*"))


def _recorded_for(store: hopgate.OxigraphStore, run: str) -> list[dict[str, Any]] | None:
    return queue_answers.recorded(store, catalog.staleness(store, run))


def test_an_evaluation_records_its_run_s_queue_and_reads_take_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        assert not _answers_files(store)  # a load asks no queue
        expected = _asked(store)
        assert expected, "the disputed example queues gC2 and k2"
        hopgate.api.evaluate(store)
        assert len(_answers_files(store)) == len(catalog.runs(store))
        with monkeypatch.context() as patched:
            _not_asked(patched)
            assert _comparable(queue_answers.rows(store)) == expected
            assert _queue(store) == [("gC2", "alternatives", False), ("k2", "contradiction", False)]
            assert hopgate.api.metrics(store)["sys-a"].awaiting_adjudication == 2


def test_a_load_of_other_runs_leaves_the_record_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load that touches only another run leaves sys-a's evaluation current, and its
    queue is read as recorded; the new run's is asked until it is evaluated."""
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        hopgate.api.evaluate(store)
        other = {
            "ledger": 1,
            "runs": [{"id": "sys-z", "system": "system-z", "evaluation": "eval-oct"}],
            "cases": [
                {
                    "run": "sys-z",
                    "question": "qB",
                    "retrieved": [],
                    "outputs": [{"id": "sys-z/qB/o1", "claim": "cB", "cites": [], "correct": True}],
                }
            ],
        }
        hopgate.load(store, write(tmp_path / "other", other, "json"))
        assert not catalog.staleness(store, "sys-a").stale
        assert _recorded_for(store, "sys-a") is not None
        assert _recorded_for(store, "sys-z") is None
        expected = _asked(store)
        assert any(r.startswith("output=") and "sys-z" in r for row in expected for r in row)
        assert _comparable(queue_answers.rows(store)) == expected
        hopgate.api.evaluate(store)
        with monkeypatch.context() as patched:
            _not_asked(patched)
            assert _comparable(queue_answers.rows(store)) == expected


def test_a_later_judgment_is_never_hidden_by_an_earlier_record(tmp_path: Path) -> None:
    """Each judgment is a load that makes the queue the evaluation recorded out of date
    (an initial one leaves its verdicts current, a final one makes it stale): the query
    is asked again."""
    keep = tmp_path / "judgments"
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        hopgate.api.evaluate(store)
        for reviewer, decision in (("reviewer-1", "sufficient"), ("reviewer-2", "insufficient")):
            adjudication.judge(
                store, "gC2", question="alternatives", decision=decision, by=reviewer,
                reason="read c3 and c4", judgment_id=f"j-{reviewer}", folder=keep,
            )  # fmt: skip
        assert _recorded_for(store, "sys-a") is None
        assert _queue(store)[0] == ("gC2", "alternatives", True)
        # Initial judgments change no card: the run is current, and evaluated again only
        # when forced, which records the queue with them.
        assert not catalog.staleness(store, "sys-a").stale
        hopgate.api.evaluate(store, force=True)
        assert _recorded_for(store, "sys-a") is not None
        assert _queue(store)[0] == ("gC2", "alternatives", True)
        adjudication.judge(
            store, "gC2", question="alternatives", decision="sufficient", by="adjudicator",
            reason="both hops are stated", final=True,
            settles=["j-reviewer-1", "j-reviewer-2"], judgment_id="j-final", folder=keep,
        )  # fmt: skip
        assert _queue(store) == [("k2", "contradiction", False)]
        assert _comparable(queue_answers.rows(store)) == _asked(store)
        hopgate.api.evaluate(store)
        assert _queue(store) == [("k2", "contradiction", False)]
        assert _comparable(queue_answers.rows(store)) == _asked(store)


@pytest.mark.parametrize("damage", ["missing", "forged"])
def test_a_missing_or_forged_record_gives_the_same_queue(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        hopgate.api.evaluate(store)
        expected = _queue(store)
        for found in _answers_files(store):
            if damage == "missing":
                found.unlink()
            else:  # k2's row dropped: the queue would lose a subject
                data = found.read_bytes()
                found.write_bytes(data.replace(b'"contradiction"', b'"nothing"'))
        with caplog.at_level(logging.WARNING):
            assert _queue(store) == expected
        assert ("missing" if damage == "missing" else "damaged") in caplog.text


def test_the_queue_reads_the_records_only(tmp_path: Path) -> None:
    """A graph outside the records (here the catalog) adds nothing to the queue, recorded
    or asked (docs/spec/adjudication.md "Awaiting adjudication")."""
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        hopgate.api.evaluate(store)
        before = _queue(store)
        claim = ids.mint("claim", "cA")  # asserted by sys-a's outputs
        store.update(
            f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ <{ids.mint('set', 'gX')}> "
            f"hg:setStatus hg:Proposed ; hg:supportsClaim <{claim}> }} }}"
        )
        assert _queue(store) == before
        for found in _answers_files(store):
            found.unlink()
        assert _queue(store) == before


def _part(ledger: dict[str, Any], **lists: list[Any]) -> dict[str, Any]:
    return {"ledger": 1, **{key: value for key, value in lists.items() if value}}


@settings(
    # 60 under CI, each run with a new seed; 20 on a workstation, whose `make test`
    # this test, at about a second an example (three loads and two evaluations on a
    # disk store), was the largest part of.
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers())
def test_recorded_rows_are_the_query_s_through_a_history(
    ledger: dict[str, Any], tmp_path: Path
) -> None:
    """Random ledgers loaded in three parts (the records with all but one run's cases;
    that run's cases; the judgments), every run evaluated after the first: after each
    load and after evaluating again, the queue read is the query's over the records
    (some runs recorded, some stale and asked)."""
    runs = sorted({case["run"] for case in ledger["cases"]})
    last = runs[-1] if len(runs) > 1 else None
    first = {
        **ledger,
        "cases": [c for c in ledger["cases"] if c["run"] != last],
        "judgments": [],
    }
    parts = [
        _part(ledger, cases=[c for c in ledger["cases"] if c["run"] == last]),
        _part(ledger, judgments=ledger["judgments"]),
    ]
    folder = tmp_path / f"history-{abs(hash(json.dumps(ledger, sort_keys=True)))}"
    with hopgate.open_store(folder / "store") as store:
        hopgate.load(store, write(folder / "first", first, "json"))
        hopgate.api.evaluate(store)
        assert _comparable(queue_answers.rows(store)) == _asked(store)
        for number, part in enumerate(parts):
            if len(part) == 1:
                continue
            hopgate.load(store, write(folder / f"part{number}", part, "json"))
            assert _comparable(queue_answers.rows(store)) == _asked(store)
            everything = _asked(store)
            for run in catalog.runs(store):
                mark = f"run={IRI(ids.mint('run', run))!r}"
                expected = [row for row in everything if mark in row]
                assert _comparable(queue_answers.rows(store, [run])) == expected
            hopgate.api.evaluate(store)
            assert _comparable(queue_answers.rows(store)) == _asked(store)


def test_a_stale_run_s_new_evaluation_records_the_queue_over_every_load_it_needs(
    tmp_path: Path,
) -> None:
    """A new case of the run asserting a consequential claim that an earlier, unused
    load defines, with a proposed set of it: the run's next evaluation walks its
    inputs again, so the recorded rows carry the claim's flag as the query does."""
    first = copy.deepcopy(yaml.safe_load(CEDAR.read_text("utf-8")))
    first["judgments"] = []
    claim = {
        "ledger": 1,
        "questions": [{"id": "qE", "text": "Who holds the rights, again?", "claims": ["cE"]}],
        "claims": [{"id": "cE", "text": "Entity R holds the rights.", "consequential": True}],
    }
    later = {
        "ledger": 1,
        "evidence_sets": [
            {"id": "gE", "claim": "cE", "members": ["a1", "a2"], "inference": "join",
             "status": "proposed", "annotation": {"version": 1, "by": "annotator-1",
                                                  "at": "2026-10-02"}}
        ],
        "cases": [
            {"run": "sys-a", "question": "qE", "retrieved": ["a2"],
             "outputs": [{"id": "sys-a/qE/o1", "text": "Entity R.", "claim": "cE",
                          "correct": True, "cites": ["a2"]}]}
        ],
    }  # fmt: skip
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, write(tmp_path / "first", first, "yaml"))
        hopgate.load(store, write(tmp_path / "claim", claim, "json"))
        hopgate.api.evaluate(store)
        hopgate.load(store, write(tmp_path / "later", later, "json"))
        hopgate.api.evaluate(store)
        assert _recorded_for(store, "sys-a") is not None
        assert _comparable(queue_answers.rows(store)) == _asked(store)
        assert ("gE", True) in [(i.subject, i.consequential) for i in queue.queue(store, "sys-a")]
