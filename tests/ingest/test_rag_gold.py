"""The gold side of ``hopgate import rag`` (issue 28 item 3), each fact evaluated as the spec says.

Contradictions between documents, consequential claims, alternative evidence
sets (with their status), reference answers, readers, effective dates and
invalidations: each written in the docs or gold file, imported, loaded,
evaluated, and read back as the verdict docs/spec/acceptance.md gives it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hopgate
from hopgate.audit.results import gate, verdicts
from hopgate.decide.evaluation import evaluate
from hopgate.errors import LedgerError
from hopgate.ingest.adapters import import_files

REGISTRY = "Project Cedar is mapped to record R17."
HOLDERS = "Record R17 belongs to Entity R."
OLD = "Record R17 belongs to Entity Q."
SUMMARY = "Cedar's rights are held by Entity R."


def _docs(**facts: dict[str, Any]) -> list[dict[str, Any]]:
    docs = [
        {"id": "registry", "text": REGISTRY, "observed_at": "2026-10-01"},
        {"id": "holders", "text": HOLDERS, "observed_at": "2026-10-01"},
        {"id": "old-holders", "text": OLD, "observed_at": "2026-10-01"},
        {"id": "summary", "text": SUMMARY, "observed_at": "2026-10-01"},
    ]
    return [{**d, **facts.get(d["id"], {})} for d in docs]


def _question(**changes: Any) -> dict[str, Any]:
    return {
        "id": "q1",
        "question": "Who holds the rights to Project Cedar?",
        "answer": "Entity R",
        "consequential": True,
        "evidence_sets": [["registry", "holders"], ["summary"]],
        **changes,
    }


ANSWER = {
    "id": "q1",
    "answer": "Entity R holds them [1][2].",
    "contexts": ["registry", "holders", "summary"],
    "short_answer": "Entity R",
}


def _run(
    tmp_path: Path,
    gold: list[dict[str, Any]],
    *,
    docs: list[dict[str, Any]] | None = None,
    answer: dict[str, Any] = ANSWER,
) -> Any:
    files = {}
    for name, items in (("docs", docs or _docs()), ("gold", gold), ("answers", [answer])):
        files[name] = tmp_path / f"{name}.jsonl"
        files[name].write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    out = tmp_path / "ledger.jsonl"
    import_files(
        "rag", [], output=out, docs=[files["docs"]], gold=files["gold"], answers=files["answers"]
    )
    store = hopgate.open_store(None)
    hopgate.load(store, out)
    evaluate(store, run="rag-run")
    (row,) = verdicts(store, run="rag-run")
    return store, row


def test_the_baseline_is_accepted_through_the_first_set(tmp_path: Path) -> None:
    store, row = _run(tmp_path, [_question()])
    assert (row.verdict, row.cited_route, row.consequential) == ("accept", "q1/g1", True)
    result = gate(store, run="rag-run")
    assert result.passed and result.consequential == 1


def test_an_alternative_set_is_a_route_of_its_own(tmp_path: Path) -> None:
    answer = {**ANSWER, "answer": "Entity R holds them [3]."}
    _, row = _run(tmp_path, [_question()], answer=answer)
    assert (row.verdict, row.cited_route) == ("accept", "q1/g2")


def test_a_contradicting_document_escalates_until_resolved(tmp_path: Path) -> None:
    _, row = _run(tmp_path, [_question(contradictions=["old-holders"])])
    assert row.verdict == "escalate"
    resolved = {"doc": "old-holders", "status": "resolved", "decision": "superseded by holders"}
    _, row = _run(tmp_path, [_question(contradictions=[resolved])])
    assert row.verdict == "accept"


def test_a_resolved_contradiction_needs_its_decision(tmp_path: Path) -> None:
    with pytest.raises(LedgerError) as caught:
        _run(tmp_path, [_question(contradictions=[{"doc": "old-holders", "status": "resolved"}])])
    assert caught.value.field == "contradictions[0].decision"


def test_a_proposed_set_cited_escalates(tmp_path: Path) -> None:
    proposed = {"members": ["summary"], "status": "proposed", "inference": "a summary page"}
    _, row = _run(
        tmp_path,
        [_question(evidence_sets=[proposed])],
        answer={**ANSWER, "answer": "Entity R [3]."},
    )
    assert (row.verdict, row.answerability) == ("escalate", "not found")


def test_a_reference_answer_judges_the_short_answer(tmp_path: Path) -> None:
    # The short answer is the reference answer: correct (the baseline is accepted). Not it:
    # correctness unknown, never guessed incorrect, and the verdict waits for a judgment.
    _, row = _run(tmp_path, [_question(answer="Entity Q")])
    assert row.verdict == "escalate"
    _, row = _run(tmp_path, [_question(answer="Entity Q")], answer={**ANSWER, "correct": False})
    assert row.verdict == "reject"


def test_readers_block_a_document_the_evaluation_may_not_read(tmp_path: Path) -> None:
    docs = _docs(holders={"readers": ["analyst"]}, summary={"readers": ["analyst"]})
    _, row = _run(tmp_path, [_question()], docs=docs)
    assert (row.verdict, row.answerability) == ("abstain", "blocked")
    # The gold file says the evaluation is for analysts: the same documents are readable.
    evaluation = {"evaluation": {"reader": "analyst"}}
    _, row = _run(tmp_path, [evaluation, _question()], docs=docs)
    assert row.verdict == "accept"


def test_effective_dates_against_the_time_a_claim_applies_at(tmp_path: Path) -> None:
    docs = _docs(
        holders={"effective": {"from": None, "until": "2026-01-01"}},
        summary={"effective": {"from": "2026-02-01"}},
    )
    every = {**ANSWER, "answer": "Entity R holds them [1][2][3]."}
    _, row = _run(tmp_path, [_question(applies_at="2026-06-01")], docs=docs, answer=every)
    assert (row.verdict, row.cited_route) == ("accept", "q1/g2")  # g1's second hop expired
    _, row = _run(tmp_path, [_question(applies_at="2026-06-01")], docs=docs)
    assert (row.verdict, row.missing) == ("revise-citations", ["summary@0-36"])
    _, row = _run(tmp_path, [_question(applies_at="2025-06-01")], docs=docs, answer=every)
    assert (row.verdict, row.cited_route) == ("accept", "q1/g1")  # g2 not yet in effect


def test_an_invalidated_document_is_not_admissible(tmp_path: Path) -> None:
    docs = _docs(holders={"invalidated_at": "2026-09-01"}, summary={"invalidated_at": "2026-09-01"})
    _, row = _run(tmp_path, [_question()], docs=docs)
    assert (row.verdict, row.answerability) == ("abstain", "not found")


def test_document_facts_in_the_gold_file(tmp_path: Path) -> None:
    facts = [
        {"document": "holders", "invalidated_at": "2026-09-01"},
        {"document": "summary", "readers": ["analyst"]},
    ]
    _, row = _run(tmp_path, [*facts, _question()])
    # g1 is invalidated (not found by rules 1-3), g2 only unreadable: blocked.
    assert (row.verdict, row.answerability) == ("abstain", "blocked")


def test_a_fact_stated_twice_must_agree(tmp_path: Path) -> None:
    docs = _docs(holders={"invalidated_at": "2026-09-01"})
    with pytest.raises(LedgerError) as caught:
        _run(
            tmp_path,
            [{"document": "holders", "invalidated_at": "2026-08-01"}, _question()],
            docs=docs,
        )
    assert caught.value.record == "line 1" and caught.value.field == "invalidated_at"
    assert "already has a different invalidated_at" in str(caught.value)


def test_the_evaluation_cutoff_leaves_later_documents_out(tmp_path: Path) -> None:
    docs = _docs(holders={"observed_at": "2026-10-05"}, summary={"observed_at": "2026-10-05"})
    evaluation = {"evaluation": {"observation_cutoff": "2026-10-02"}}
    _, row = _run(tmp_path, [evaluation, _question()], docs=docs)
    assert (row.verdict, row.answerability) == ("abstain", "not found")


@pytest.mark.parametrize(
    ("item", "field", "said"),
    [
        (_question(evidence_set=[["summary"]]), "evidence_set", "did you mean 'evidence_sets'"),
        (_question(consequental=True), "consequental", "did you mean 'consequential'"),
        ({"document": "holders", "reader": ["a"]}, "reader", "did you mean 'readers'"),
        ({"evaluation": {"cutoff": "2026-01-01"}}, "evaluation.cutoff", "allowed:"),
        (
            _question(evidence_sets=[{"members": ["summary"], "status": "maybe"}]),
            "evidence_sets[0].status",
            "expected one of",
        ),
        (
            _question(contradictions=[{"doc": "old-holders", "status": "open"}]),
            "contradictions[0].status",
            "unresolved",
        ),
    ],
)
def test_gold_mistakes_name_the_field(
    tmp_path: Path, item: dict[str, Any], field: str, said: str
) -> None:
    with pytest.raises(LedgerError) as caught:
        _run(tmp_path, [item, _question(id="q0")] if "question" not in item else [item])
    assert caught.value.field == field
    assert said in str(caught.value)


def test_a_missing_field_suggests_the_near_miss(tmp_path: Path) -> None:
    item = {k: v for k, v in _question().items() if k != "question"}
    item["questoin"] = "Who holds the rights to Project Cedar?"
    with pytest.raises(LedgerError) as caught:
        _run(tmp_path, [item])
    assert "did you mean 'question'" in str(caught.value)


def test_a_set_inference_names_the_gold_file_not_its_folder(tmp_path: Path) -> None:
    out = tmp_path / "ledger.jsonl"
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in _docs()), "utf-8")
    (tmp_path / "gold.jsonl").write_text(json.dumps(_question()) + "\n", "utf-8")
    import_files(
        "rag",
        [],
        output=out,
        docs=[tmp_path / "docs.jsonl"],
        gold=(tmp_path / "gold.jsonl").resolve(),
    )
    text = out.read_text("utf-8")
    assert "gold evidence set 1 of gold.jsonl" in text
    assert str(tmp_path) not in text
