"""The synthetic ledger generator of bench/ writes ledgers that hopgate loads as counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import bench_module

import hopgate

ROOT = Path(__file__).parents[2]
CLAIMS = 200


synthetic = bench_module("synthetic")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("synthetic") / "ledger.jsonl"
    counts = synthetic.write_ledger(path, CLAIMS, seed=7)
    return path, counts


def test_loads_with_the_generators_counts(generated: tuple[Path, dict[str, int]]) -> None:
    path, counts = generated
    store = hopgate.open_store(None)
    result = hopgate.load(store, path)
    assert not result.already_loaded
    assert result.records == counts
    assert counts["claim"] == counts["question"] == counts["source"] == counts["version"] == CLAIMS
    assert counts["case"] == CLAIMS
    assert 1 * CLAIMS <= counts["evidence_set"] <= 3 * CLAIMS
    assert result.triples > 0
    assert store.count(result.graph) == result.triples


def test_varies_what_the_metrics_depend_on(generated: tuple[Path, dict[str, int]]) -> None:
    import json

    statuses: set[str] = set()
    contradictions: set[str] = set()
    seen = {"late": 0, "readers": 0, "invalidated": 0, "effective": 0, "quote only": 0}
    seen |= {"inline": 0, "abstained": 0, "extra assertion": 0, "incorrect": 0}
    with generated[0].open(encoding="utf-8") as lines:
        assert json.loads(next(lines)) == {"type": "ledger", "ledger": 1}
        for line in lines:
            record = json.loads(line)
            kind = record["type"]
            if kind == "version":
                seen["late"] += record["observed_at"] > synthetic.CUTOFF
                seen["readers"] += "readers" in record
                seen["invalidated"] += "invalidated_at" in record
                seen["effective"] += "effective" in record
                assert 250 <= len(record["text"]) <= 700
            elif kind == "span":
                seen["quote only"] += "start" not in record
            elif kind == "evidence_set":
                statuses.add(record["status"])
                assert 2 <= len(record["members"]) <= 4
            elif kind == "contradiction":
                contradictions.add(record["status"])
            elif kind == "case":
                seen["inline"] += any(isinstance(item, dict) for item in record["retrieved"])
                seen["abstained"] += bool(record.get("abstained"))
                for output in record["outputs"]:
                    seen["extra assertion"] += output["claim"] is None
                    seen["incorrect"] += not output["correct"]
    assert statuses == {"adjudicated", "proposed", "rejected"}
    assert contradictions == {"resolved", "unresolved"}
    assert all(seen.values()), seen


def test_deterministic_for_a_seed(tmp_path: Path) -> None:
    first, second, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    assert synthetic.write_ledger(first, CLAIMS, seed=3) == synthetic.write_ledger(
        second, CLAIMS, seed=3
    )
    assert first.read_bytes() == second.read_bytes()
    synthetic.write_ledger(other, CLAIMS, seed=4)
    assert other.read_bytes() != first.read_bytes()


def test_several_runs_load(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    counts = synthetic.write_ledger(path, 20, seed=1, runs=3)
    assert counts["run"] == 3 and counts["case"] == 60
    result = hopgate.load(hopgate.open_store(None), path)
    assert result.records == counts


def test_on_disk_evaluation_agrees_with_memory(tmp_path: Path) -> None:
    # On disk the evaluation runs on a projected in-memory copy; in memory on
    # the store itself: the answers must not differ.
    from evaluated import metrics, verdicts

    from hopgate.decide.evaluation import evaluate

    path = tmp_path / "two-runs.jsonl"
    synthetic.write_ledger(path, CLAIMS, seed=11, runs=2)
    answers = []
    for where in (None, tmp_path / "store"):
        store = hopgate.open_store(where)
        hopgate.load(store, path)
        evaluate(store)
        answers.append(
            (
                # Everything but the card id, which carries the evaluation's time.
                [{**row.as_dict(), "card": None} for row in verdicts(store)],
                {
                    run: {**figures.as_dict(), "evaluation": None}
                    for run, figures in metrics(store).items()
                },
            )
        )
        store.close()
    assert answers[0] == answers[1]
    assert len(answers[0][0]) > CLAIMS


def test_parts_loaded_in_turn_give_the_whole_ledgers_answers(tmp_path: Path) -> None:
    # bench/'s 1M-claim server runs load a ledger in parts (one transaction each): the
    # parts must hold the whole ledger's records, and the store they make must answer
    # as the whole ledger's does.
    from evaluated import metrics, verdicts

    from hopgate.decide.evaluation import evaluate

    whole = tmp_path / "whole.jsonl"
    counts = synthetic.write_ledger(whole, 30, seed=5, runs=2)
    assert synthetic.write_ledger(tmp_path / "split.jsonl", 30, seed=5, runs=2, parts=3) == counts
    parts = synthetic.part_paths(tmp_path / "split.jsonl", 3)
    header, *records = whole.read_text(encoding="utf-8").splitlines()
    texts = [part.read_text(encoding="utf-8").splitlines() for part in parts]
    assert all(text[0] == header and len(text) > 1 for text in texts)
    assert [line for text in texts for line in text[1:]] == records
    answers = []
    for ledgers in ([whole], parts):
        store = hopgate.open_store(None)
        for ledger in ledgers:
            hopgate.load(store, ledger)
        evaluate(store)
        answers.append(
            (
                [{**row.as_dict(), "card": None} for row in verdicts(store)],
                {run: {**f.as_dict(), "evaluation": None} for run, f in metrics(store).items()},
            )
        )
    assert answers[0] == answers[1]
    with pytest.raises(ValueError, match="one part per claim"):
        synthetic.write_ledger(tmp_path / "x.jsonl", 2, parts=3)


def test_a_later_parts_inline_spans_cost_no_query_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The inline spans of versions a ledger defines itself are new: asked one by one,
    # each was a round trip to a server (43,858 for a tenth of 1M claims).
    synthetic.write_ledger(tmp_path / "split.jsonl", 80, seed=2, runs=1, parts=2)
    first, second = synthetic.part_paths(tmp_path / "split.jsonl", 2)
    store = hopgate.open_store(None)
    hopgate.load(store, first)
    asked: list[str] = []
    select = store.select

    def counted(query: str, **kwargs: object) -> object:
        asked.append(query)
        return select(query, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "select", counted)
    result = hopgate.load(store, second)
    # A few batched questions, however many inline spans (before: one each).
    assert result.records["inline span"] >= 15
    assert len(asked) <= 5, len(asked)
