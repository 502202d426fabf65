"""The verdict engine against docs/spec/acceptance.md: the worked example and one fixture per rule."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from evaluated import gate, metrics, verdicts

import hopgate
from hopgate.audit.results import (
    VERDICT_COLUMNS,
    VerdictRow,
    cards_of,
    reading,
)
from hopgate.store import catalog

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

Ledger = dict[str, Any]


@pytest.fixture
def judge(
    store: hopgate.OxigraphStore, write_ledger: Callable[..., Path]
) -> Callable[[Ledger], dict[str, VerdictRow]]:
    """Load a ledger dict and return its verdict rows by output id."""

    def _judge(ledger: Ledger) -> dict[str, VerdictRow]:
        hopgate.load(store, write_ledger(ledger))
        return {row.output: row for row in verdicts(store)}

    return _judge


def _only(rows: dict[str, VerdictRow]) -> VerdictRow:
    assert len(rows) == 1
    return next(iter(rows.values()))


# ---- the worked example ----------------------------------------------------


def test_worked_example_verdicts(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    rows = {row.question: row for row in verdicts(store)}
    assert {q: r.verdict for q, r in rows.items()} == {
        "qA": "revise-citations",
        "qB": "revise-citations",
        "qC": "accept",
        "qD": "reject",
    }
    assert rows["qA"].missing == ["a1"]  # the mapping span
    assert rows["qA"].retrieved_complete and not rows["qA"].citation_complete
    assert rows["qB"].missing == ["b1"] and not rows["qB"].retrieved_complete
    assert rows["qC"].cited_route == "gC2"  # the alternative route
    assert rows["qD"].inadmissible_citations == ["d2x"]  # observed after the cutoff
    assert not rows["qD"].supported


def test_a_cards_outline_is_the_card_without_its_details(tmp_path: Path) -> None:
    """``diff`` compares outlines (results.cards_of's ``outline``): every field but the
    details equal to the whole card's, from the recorded answers and from the queries.
    The verdicts table and CSV read brief cards: the outline with its unretrieved
    citations."""
    details = {
        "judgments": [],
        "interventions": None,
        "source_truth": [],
        "contradictions": [],
        "unretrieved_citations": [],
    }
    unretrieved: set[str] = set()
    # The worked example with qA's cited span a2 never retrieved.
    cedar = yaml.safe_load((EXAMPLES / "cedar.yaml").read_text("utf-8"))
    cedar["cases"][0]["retrieved"].remove("a2")
    (tmp_path / "cedar.yaml").write_text(yaml.safe_dump(cedar), "utf-8")
    ledgers = (tmp_path / "cedar.yaml", EXAMPLES / "withheld.yaml")
    with hopgate.open_store(tmp_path / "store") as on_disk:
        for ledger in ledgers:
            hopgate.load(on_disk, ledger)
        hopgate.evaluate(on_disk)
        memory = hopgate.open_store(None)
        for ledger in ledgers:
            hopgate.load(memory, ledger)
        hopgate.evaluate(memory)
        for store in (on_disk, memory):
            for run in catalog.runs(store):
                evaluation = catalog.latest(store, run)
                assert evaluation is not None
                with reading(store, evaluation) as reads:
                    whole, outlines = cards_of(reads), cards_of(reads, outline=True)
                    brief = cards_of(reads, brief=True)
                assert whole and [replace(row, **details) for row in whole] == outlines
                kept = [{"unretrieved_citations": row.unretrieved_citations} for row in whole]
                assert [
                    replace(row, **{**details, **own}) for row, own in zip(whole, kept, strict=True)
                ] == brief
                unretrieved.update(c for row in brief for c in row.unretrieved_citations)
    assert any(row.source_truth for row in whole)  # the details are there to leave out
    assert unretrieved  # and the unretrieved citations to keep


def test_worked_example_metrics(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    figures = metrics(store)["sys-a"]
    recall, citation, correctness = (
        figures.complete_set_recall,
        figures.citation_set_completeness,
        figures.answer_correctness,
    )
    assert (recall.numerator, recall.denominator, recall.value) == (2, 4, 0.5)
    assert (citation.numerator, citation.denominator) == (1, 3)
    assert citation.value == pytest.approx(1 / 3)
    assert (correctness.numerator, correctness.denominator, correctness.value) == (3, 4, 0.75)
    assert recall.ci_low is not None and recall.ci_low < 0.5 < (recall.ci_high or 0)
    assert figures.counts["unsupported"] == 1


def test_worked_example_json_contract(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    row = verdicts(store)[0].as_dict()
    assert set(VERDICT_COLUMNS) <= set(row)
    assert row["run"] == "sys-a" and row["output"] == "sys-a/qA/o1"
    entry = metrics(store)["sys-a"].as_dict()
    for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness"):
        assert set(entry[name]) >= {"numerator", "denominator", "value", "ci_low", "ci_high"}
    assert set(entry["counts"]) == {
        "unsupported",
        "correctness_unknown",
        "answer_correctness_unknown",
        "omitted",
        "blocked",
        "not_found",
        "not_applicable",
        "appropriate_abstentions",
        "escalated",
    }
    assert "whole_answer" in entry and set(entry["strata"]) == {
        "hops",
        "alternatives",
        "contradiction",
        "source age",
        "route authority",
    }


# ---- eligibility -----------------------------------------------------------


def test_citing_the_full_set_is_accepted(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = ["a1", "a2"]
    row = _only(judge(ledger))
    assert row.verdict == "accept" and row.citation_complete and row.missing == []


def test_version_observed_after_the_cutoff_is_not_eligible(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["versions"][0]["observed_at"] = "2026-10-08"
    row = _only(judge(ledger))
    assert row.answerability == "not found" and row.verdict == "abstain"


def test_observation_exactly_at_the_cutoff_is_eligible(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["versions"][0]["observed_at"] = "2026-10-07T00:00:00Z"
    assert _only(judge(ledger)).answerability == "answerable"


@pytest.mark.parametrize(
    ("invalidated_at", "answerability"),
    [("2026-10-07", "not found"), ("2026-10-06", "not found"), ("2026-10-08", "answerable")],
)
def test_invalidation_at_or_before_the_cutoff(
    judge: Any, minimal_ledger: Any, invalidated_at: str, answerability: str
) -> None:
    ledger = minimal_ledger()
    ledger["versions"][0]["invalidated_at"] = invalidated_at
    assert _only(judge(ledger)).answerability == answerability


@pytest.mark.parametrize(
    ("applies_at", "answerability"),
    [
        ("2026-01-01", "answerable"),  # from is inclusive
        ("2025-12-31", "not found"),
        ("2026-06-30T23:59:59Z", "answerable"),
        ("2026-07-01", "not found"),  # until is exclusive
    ],
)
def test_effective_interval(
    judge: Any, minimal_ledger: Any, applies_at: str, answerability: str
) -> None:
    ledger = minimal_ledger()
    ledger["versions"][0]["effective"] = {"from": "2026-01-01", "until": "2026-07-01"}
    ledger["claims"][0]["applies_at"] = applies_at
    assert _only(judge(ledger)).answerability == answerability


def test_open_effective_bounds(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["versions"][0]["effective"] = {"from": None, "until": "2030-01-01"}
    ledger["claims"][0]["applies_at"] = "1990-01-01"
    assert _only(judge(ledger)).answerability == "answerable"


def test_reader_restriction_blocks(judge: Any, minimal_ledger: Any, store: Any) -> None:
    ledger = minimal_ledger()
    ledger["readers"].append({"id": "legal"})
    ledger["versions"][0]["readers"] = ["legal"]
    row = _only(judge(ledger))
    assert row.answerability == "blocked" and row.verdict == "abstain"
    counts = metrics(store)["sys-a"].counts
    assert counts["blocked"] == 1 and counts["not_found"] == 0


def test_span_readers_narrow_and_block(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["readers"].append({"id": "legal"})
    ledger["spans"][0]["readers"] = ["legal"]
    assert _only(judge(ledger)).answerability == "blocked"


def test_span_readers_can_clear_the_evaluations_reader(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["readers"].append({"id": "legal"})
    ledger["versions"][0]["readers"] = ["legal", "analyst"]
    ledger["spans"][0]["readers"] = ["analyst"]
    ledger["spans"][1]["readers"] = ["analyst"]
    assert _only(judge(ledger)).answerability == "answerable"


def test_blocked_needs_rules_one_to_three(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["readers"].append({"id": "legal"})
    ledger["versions"][0]["readers"] = ["legal"]
    ledger["versions"][0]["observed_at"] = "2026-12-01"
    assert _only(judge(ledger)).answerability == "not found"


@pytest.mark.parametrize("status", ["proposed", "rejected"])
def test_only_adjudicated_sets_are_eligible(judge: Any, minimal_ledger: Any, status: str) -> None:
    ledger = minimal_ledger()
    ledger["evidence_sets"][0]["status"] = status
    row = _only(judge(ledger))
    assert row.answerability == "not found"


def test_null_query_is_not_found_and_abstention_is_appropriate(
    judge: Any, minimal_ledger: Any, store: Any
) -> None:
    ledger = minimal_ledger()
    ledger["questions"].append({"id": "q-null", "text": "Unanswerable?", "claims": []})
    ledger["cases"].append({"run": "sys-a", "question": "q-null", "abstained": True})
    judge(ledger)
    counts = metrics(store)["sys-a"].counts
    assert counts["appropriate_abstentions"] == 1


def test_abstaining_on_an_answerable_claim_omits_it(
    judge: Any, minimal_ledger: Any, store: Any
) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["abstained"] = True
    ledger["cases"][0]["outputs"] = []
    assert judge(ledger) == {}
    figures = metrics(store)["sys-a"]
    assert figures.counts["appropriate_abstentions"] == 0
    assert figures.counts["omitted"] == 1
    assert figures.answer_correctness.numerator == 0
    assert figures.answer_correctness.denominator == 1


# ---- coverage --------------------------------------------------------------


def test_wider_chunk_covers(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = [{"version": "registry@1", "start": 0, "end": 86}]
    assert _only(judge(ledger)).verdict == "accept"


def test_narrower_chunk_does_not_cover(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = [
        "a2",
        {"version": "registry@1", "quote": "Cedar is mapped to record R17"},
    ]
    row = _only(judge(ledger))
    assert row.verdict == "revise-citations" and row.missing == ["a1"]


def test_same_offsets_in_another_version_do_not_cover(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    copy = dict(ledger["versions"][0], id="registry@copy")
    ledger["versions"].append(copy)
    ledger["cases"][0]["outputs"][0]["cites"] = [
        "a2",
        {"version": "registry@copy", "start": 0, "end": 86},
    ]
    assert _only(judge(ledger)).missing == ["a1"]


def _withheld(ledger: Ledger) -> Ledger:
    ledger["versions"].append({"id": "page@1", "source": "registry", "observed_at": "2026-10-01"})
    ledger["spans"] = [
        {"id": "line 0", "version": "page@1", "locator": "line 0"},
        {"id": "line 3", "version": "page@1", "locator": "line 3"},
        {"id": "line 3 again", "version": "page@1", "locator": "line 3"},
        {"id": "line 4", "version": "page@1", "locator": "line 4"},
    ]
    ledger["evidence_sets"][0]["members"] = ["line 0", "line 3"]
    ledger["cases"][0]["retrieved"] = ["line 0"]
    return ledger


def test_locator_span_covers_only_the_same_locator(judge: Any, minimal_ledger: Any) -> None:
    ledger = _withheld(minimal_ledger())
    ledger["cases"][0]["outputs"][0]["cites"] = ["line 0", "line 3 again"]
    assert _only(judge(ledger)).verdict == "accept"


def test_locator_span_does_not_cover_another_locator(judge: Any, minimal_ledger: Any) -> None:
    ledger = _withheld(minimal_ledger())
    ledger["cases"][0]["outputs"][0]["cites"] = ["line 0", "line 4"]
    row = _only(judge(ledger))
    assert row.verdict == "revise-citations" and row.missing == ["line 3"]


# ---- verdict rules -----------------------------------------------------------


def test_unresolved_contradiction_escalates(judge: Any, minimal_ledger: Any, store: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = ["a1", "a2"]
    ledger["contradictions"] = [{"id": "k1", "claim": "c1", "span": "a2", "status": "unresolved"}]
    assert _only(judge(ledger)).verdict == "escalate"
    assert metrics(store)["sys-a"].counts["escalated"] == 1


def test_resolved_contradiction_does_not_escalate(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = ["a1", "a2"]
    ledger["contradictions"] = [
        {"id": "k1", "claim": "c1", "span": "a2", "status": "resolved", "decision": "newer source"}
    ]
    assert _only(judge(ledger)).verdict == "accept"


def test_citing_a_proposed_set_without_an_eligible_one_escalates(
    judge: Any, minimal_ledger: Any
) -> None:
    ledger = minimal_ledger()
    ledger["spans"].append({"id": "p1", "version": "registry@1", "quote": "Zürich registry"})
    ledger["evidence_sets"].append(
        {
            "id": "g-proposed",
            "claim": "c1",
            "members": ["p1", "a2"],
            "inference": "new route",
            "status": "proposed",
            "annotation": {"version": 2, "by": "annotator-2", "at": "2026-10-03"},
        }
    )
    ledger["cases"][0]["outputs"][0]["cites"] = ["p1", "a2"]
    row = _only(judge(ledger))
    assert row.verdict == "escalate" and row.missing == ["a1"]


def test_extra_assertion_escalates(judge: Any, minimal_ledger: Any, store: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"].append(
        {"id": "extra", "text": "Cedar is green.", "claim": None, "correct": True, "cites": ["a1"]}
    )
    row = judge(ledger)["extra"]
    assert row.claim is None and row.verdict == "escalate" and not row.supported
    assert row.missing == [] and not row.citation_complete
    assert metrics(store)["sys-a"].counts["unsupported"] == 1


def test_incorrect_output_is_rejected(judge: Any, minimal_ledger: Any, store: Any) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["correct"] = False
    ledger["cases"][0]["outputs"][0]["cites"] = ["a1", "a2"]
    assert _only(judge(ledger)).verdict == "reject"
    citation = metrics(store)["sys-a"].citation_set_completeness
    assert (citation.numerator, citation.denominator, citation.value) == (0, 0, None)
    assert citation.ci_low is None and citation.ci_high is None


def test_asserting_a_blocked_claim_is_abstain_and_unsupported(
    judge: Any, minimal_ledger: Any, store: Any
) -> None:
    ledger = minimal_ledger()
    ledger["readers"].append({"id": "legal"})
    ledger["versions"][0]["readers"] = ["legal"]
    row = _only(judge(ledger))
    assert row.verdict == "abstain" and not row.supported
    assert metrics(store)["sys-a"].counts["unsupported"] == 1


def test_missing_ties_pick_the_set_whose_id_sorts_first(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["spans"].append({"id": "b1", "version": "registry@1", "quote": "Zürich registry"})
    ledger["evidence_sets"].insert(
        0,
        {
            "id": "h-later",
            "claim": "c1",
            "members": ["b1", "a2"],
            "inference": "another route",
            "status": "adjudicated",
            "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
        },
    )
    ledger["evidence_sets"][1]["id"] = "A-first"
    row = _only(judge(ledger))  # cites a2 only: both sets miss one member
    assert row.missing == ["a1"]


def test_missing_prefers_the_set_with_fewest_uncovered(judge: Any, minimal_ledger: Any) -> None:
    ledger = minimal_ledger()
    ledger["spans"].append({"id": "z1", "version": "registry@1", "quote": "Zürich registry"})
    ledger["evidence_sets"][0]["members"] = ["a1", "a2", "z1"]
    ledger["evidence_sets"].append(
        {
            "id": "z-short",
            "claim": "c1",
            "members": ["z1", "a2"],
            "inference": "short route",
            "status": "adjudicated",
            "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
        }
    )
    ledger["cases"][0]["outputs"][0]["cites"] = ["a2"]
    assert _only(judge(ledger)).missing == ["z1"]


def test_gate(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    result = gate(store, run="sys-a")
    assert not result.passed and [r.output for r in result.failing] == ["sys-a/qA/o1"]
    assert result.consequential == 2


def test_unknown_run_is_an_error(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, EXAMPLES / "cedar.yaml")
    with pytest.raises(hopgate.HopgateError, match="unknown run 'nope'"):
        verdicts(store, run="nope")


def test_withheld_example(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, EXAMPLES / "withheld.yaml")
    rows = {row.output: row for row in verdicts(store)}
    assert rows["public/q-site"].verdict == "accept"
    assert rows["analyst/q-budget"].verdict == "revise-citations"
    assert rows["analyst/q-budget"].missing == ["memo-approval"]
    public = metrics(store)["run-public"].counts
    assert public["blocked"] == 1 and public["appropriate_abstentions"] == 1
