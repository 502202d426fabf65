"""The review queue's rows recorded by each load (hopgate.store.queue_answers), on disk.

The queue reads the published records only (queries/review-queue.rq), so a
load records its rows for the records it leaves, and reads (``metrics``'
count awaiting adjudication, ``review queue``) take them from there while
no later load or plan is published. A later load (a judgment) makes the
query asked again; a missing or damaged record gives the same queue. On the
servers: tests/store/test_server_answers.py.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR

import hopgate
from hopgate import ids
from hopgate.audit import adjudication, queue
from hopgate.library.artefacts import library_query
from hopgate.store import queue_answers, snapshots
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


def _cache_files(store: hopgate.OxigraphStore) -> list[Path]:
    assert store.folder is not None
    return sorted((store.folder / snapshots.FOLDER).glob("*queue-*"))


def test_a_load_records_the_queue_and_reads_take_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        hopgate.api.evaluate(store)  # a bundle leaves the record in use
        assert len(_cache_files(store)) == 1
        expected = _asked(store)
        assert expected, "the disputed example queues gC2 and k2"
        with monkeypatch.context() as patched:
            _not_asked(patched)
            assert _comparable(queue_answers.rows(store)) == expected
            assert _queue(store) == [("gC2", "alternatives", False), ("k2", "contradiction", False)]
            assert hopgate.api.metrics(store)["sys-a"].awaiting_adjudication == 2


def test_a_later_judgment_is_never_hidden_by_an_earlier_record(tmp_path: Path) -> None:
    """Each judgment is a load: its own record, made for the records with it."""
    keep = tmp_path / "judgments"
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        for reviewer, decision in (("reviewer-1", "sufficient"), ("reviewer-2", "insufficient")):
            adjudication.judge(
                store, "gC2", question="alternatives", decision=decision, by=reviewer,
                reason="read c3 and c4", judgment_id=f"j-{reviewer}", folder=keep,
            )  # fmt: skip
        assert _queue(store)[0] == ("gC2", "alternatives", True)
        adjudication.judge(
            store, "gC2", question="alternatives", decision="sufficient", by="adjudicator",
            reason="both hops are stated", final=True,
            settles=["j-reviewer-1", "j-reviewer-2"], judgment_id="j-final", folder=keep,
        )  # fmt: skip
        assert _queue(store) == [("k2", "contradiction", False)]
        assert len(_cache_files(store)) == 4
        assert _comparable(queue_answers.rows(store)) == _asked(store)


@pytest.mark.parametrize("damage", ["missing", "forged"])
def test_a_missing_or_forged_record_gives_the_same_queue(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        expected = _queue(store)
        (found,) = _cache_files(store)
        if damage == "missing":
            found.unlink()
        else:  # k2's row dropped: the queue would lose a subject
            data = found.read_bytes()
            assert b"contradiction" in data
            found.write_bytes(data.replace(b'"contradiction"', b'"nothing"'))
        with caplog.at_level(logging.WARNING):
            assert _queue(store) == expected
        assert ("missing" if damage == "missing" else "damaged") in caplog.text


def test_the_queue_reads_the_records_only(tmp_path: Path) -> None:
    """A graph outside the records (here the catalog) adds nothing to the queue, recorded
    or asked (docs/spec/adjudication.md "Awaiting adjudication")."""
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, _disputed(tmp_path))
        before = _queue(store)
        claim = ids.mint("claim", "cA")  # asserted by sys-a's outputs
        store.update(
            f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ <{ids.mint('set', 'gX')}> "
            f"hg:setStatus hg:Proposed ; hg:supportsClaim <{claim}> }} }}"
        )
        for found in _cache_files(store):
            found.unlink()
        assert _queue(store) == before
