"""The reference model of docs/spec/acceptance.md (tests/spec_model.py), held to the spec.

The model is plain Python and does not import hopgate; these tests check it on
the worked example (examples/cedar.yaml), on one small ledger per rule, and on
generated ledgers (tests/ledger_strategies.py). They do not import hopgate either.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import CEDAR
from hypothesis import HealthCheck, given, settings
from ledger_strategies import check_valid, ledgers
from spec_model import VERDICTS, metrics, parse_time, verdict_rows

ROOT = Path(__file__).parents[2]
SCHEMA = ROOT / "src" / "hopgate" / "ingest" / "schema" / "ledger.schema.json"


class StringDatesLoader(yaml.SafeLoader):
    """Safe YAML loading that keeps dates and times as the strings written."""


StringDatesLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_text("utf-8"), Loader=StringDatesLoader)  # noqa: S506


def by_output(ledger: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["output"]: row for row in verdict_rows(ledger)}


def ratio(numerator: int, denominator: int) -> dict[str, Any]:
    return {
        "numerator": numerator,
        "denominator": denominator,
        "value": numerator / denominator if denominator else None,
    }


# ---- a small ledger builder ------------------------------------------------

# Word offsets in TEXT: alpha 0-5, beta 6-10, gamma 11-16, delta 17-22,
# epsilon 23-30, zeta 31-35.
TEXT = "alpha beta gamma delta epsilon zeta"
WORDS = {"alpha": (0, 5), "beta": (6, 10), "gamma": (11, 16), "delta": (17, 22)}
WORDS |= {"epsilon": (23, 30), "zeta": (31, 35)}


def version(vid: str, **fields: Any) -> dict[str, Any]:
    record = {"id": vid, "source": "src", "text": TEXT, "observed_at": "2026-10-01"}
    record.update(fields)
    return {k: v for k, v in record.items() if v is not None}


def span(sid: str, vid: str, word: str, **fields: Any) -> dict[str, Any]:
    start, end = WORDS[word]
    return {"id": sid, "version": vid, "start": start, "end": end, "quote": word, **fields}


def eset(gid: str, claim: str, members: list[str], status: str = "adjudicated") -> dict[str, Any]:
    return {
        "id": gid,
        "claim": claim,
        "members": members,
        "inference": "test",
        "status": status,
        "annotation": {"version": 1, "by": "annotator", "at": "2026-10-02"},
    }


def output(oid: str, claim: str | None, cites: list[Any], correct: bool = True) -> dict[str, Any]:
    return {"id": oid, "text": oid, "claim": claim, "correct": correct, "cites": cites}


def make(
    *,
    versions: list[dict[str, Any]],
    spans: list[dict[str, Any]],
    claims: list[dict[str, Any]],
    questions: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    sets: list[dict[str, Any]] = (),  # type: ignore[assignment]
    contradictions: list[dict[str, Any]] = (),  # type: ignore[assignment]
    reader: str = "analyst",
    cutoff: str = "2026-10-07T00:00:00Z",
    runs: list[str] = ("r",),  # type: ignore[assignment]
) -> dict[str, Any]:
    ledger = {
        "ledger": 1,
        "evaluations": [{"id": "ev", "reader": reader, "observation_cutoff": cutoff}],
        "readers": [{"id": "analyst"}, {"id": "public"}],
        "sources": [{"id": "src", "address": "https://example.org/src"}],
        "versions": versions,
        "spans": spans,
        "questions": questions,
        "claims": claims,
        "evidence_sets": list(sets),
        "contradictions": list(contradictions),
        "runs": [{"id": r, "evaluation": "ev", "system": "sys"} for r in runs],
        "cases": cases,
    }
    check_valid(ledger)
    return ledger


def question(qid: str, claims: list[str]) -> dict[str, Any]:
    return {"id": qid, "text": qid, "claims": claims}


def claim(cid: str, applies_at: str | None = None) -> dict[str, Any]:
    record = {"id": cid, "text": cid}
    if applies_at is not None:
        record["applies_at"] = applies_at
    return record


def case(question_id: str, outputs: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"run": "r", "question": question_id, "outputs": outputs, **fields}


# ---- the worked example ----------------------------------------------------


def test_cedar_metrics() -> None:
    result = metrics(load_yaml(CEDAR))
    assert list(result) == ["sys-a"]
    run = result["sys-a"]
    assert run["complete_set_recall"] == ratio(2, 4)
    assert run["citation_set_completeness"] == ratio(1, 3)
    assert run["answer_correctness"] == ratio(3, 4)
    assert run["counts"] == {
        "unsupported": 1,
        "correctness_unknown": 0,
        "answer_correctness_unknown": 0,
        "omitted": 0,
        "blocked": 0,
        "not_found": 0,
        "not_applicable": 0,
        "appropriate_abstentions": 0,
        "escalated": 0,
    }
    assert run["whole_answer"] == ratio(1, 4)


def test_cedar_verdicts() -> None:
    rows = verdict_rows(load_yaml(CEDAR))
    assert [r["output"] for r in rows] == [f"sys-a/q{x}/o1" for x in "ABCD"]
    table = {r["question"]: r for r in rows}
    assert table["qA"] == {
        "run": "sys-a",
        "question": "qA",
        "output": "sys-a/qA/o1",
        "claim": "cA",
        "supported": True,
        "retrieved_complete": True,
        "citation_complete": False,
        "missing": ["a1"],
        "inadmissible_citations": [],
        "verdict": "revise-citations",
    }
    assert table["qB"]["verdict"] == "revise-citations"
    assert table["qB"]["missing"] == ["b1"]
    assert table["qB"]["retrieved_complete"] is False
    assert table["qC"]["verdict"] == "accept"
    assert table["qC"]["missing"] == []
    assert table["qC"]["retrieved_complete"] is True
    assert table["qD"]["verdict"] == "reject"
    assert table["qD"]["supported"] is False
    assert table["qD"]["missing"] == ["d2"]
    assert table["qD"]["inadmissible_citations"] == ["d2x"]


def test_cedar_public_reader_is_blocked_on_the_rights_schedule() -> None:
    ledger = load_yaml(CEDAR)
    ledger["evaluations"][0]["reader"] = "public"
    table = {r["question"]: r for r in verdict_rows(ledger)}
    assert table["qA"]["verdict"] == table["qB"]["verdict"] == "abstain"
    assert table["qA"]["inadmissible_citations"] == ["a2"]
    run = metrics(ledger)["sys-a"]
    assert run["counts"]["blocked"] == 2
    assert run["answer_correctness"] == ratio(1, 2)


# ---- times -------------------------------------------------------------------


def test_parse_time() -> None:
    midnight = datetime(2026, 10, 1, tzinfo=UTC)
    assert parse_time("2026-10-01") == midnight
    assert parse_time("2026-10-01T00:00:00Z") == midnight
    assert parse_time("2026-10-01T00:00:00") == midnight
    assert parse_time("2026-10-01T02:00:00+02:00") == midnight
    assert parse_time("2026-10-01T02:00:00+02:00").tzinfo == UTC


# ---- eligibility ------------------------------------------------------------


def test_blocked_versus_not_found() -> None:
    ledger = make(
        versions=[
            version("pub"),
            version("priv", readers=["analyst"]),
            version("late", observed_at="2026-10-10"),
        ],
        spans=[
            span("p1", "pub", "alpha"),
            span("p2", "pub", "beta", readers=["analyst"]),  # a span narrows its readers
            span("x1", "priv", "gamma"),
            span("l1", "late", "delta"),
        ],
        claims=[claim(c) for c in ("ca", "cb", "cs", "cn", "cm", "cp", "c0")],
        sets=[
            eset("ga", "ca", ["p1"]),
            eset("gb", "cb", ["p1", "x1"]),  # fails rule 4 only: blocked
            eset("gs", "cs", ["p2"]),  # span readers: blocked
            eset("gn", "cn", ["p1", "l1"]),  # fails rule 1: not found
            eset("gm", "cm", ["x1", "l1"]),  # rule 4 and rule 1: not found
            eset("gp", "cp", ["p1"], status="proposed"),  # nothing adjudicated
            eset("gr", "cp", ["p1"], status="rejected"),
        ],
        questions=[question("q", ["ca", "cb", "cs", "cn", "cm", "cp", "c0"])],
        cases=[
            case(
                "q",
                [
                    output(f"r/q/{c}", c, ["p1", "p2", "x1", "l1"])
                    for c in ("ca", "cb", "cs", "cn", "cm", "c0")
                ],
                retrieved=["p1"],
            )
        ],
        reader="public",
    )
    rows = by_output(ledger)
    assert rows["r/q/ca"]["verdict"] == "accept"
    for c in ("cb", "cs", "cn", "cm", "c0"):
        assert rows[f"r/q/{c}"]["verdict"] == "abstain"
        assert rows[f"r/q/{c}"]["supported"] is False
        assert rows[f"r/q/{c}"]["missing"] == []
        assert rows[f"r/q/{c}"]["citation_complete"] is False
    assert rows["r/q/ca"]["inadmissible_citations"] == ["l1", "p2", "x1"]
    run = metrics(ledger)["r"]
    assert run["counts"]["blocked"] == 2
    assert run["counts"]["not_found"] == 4
    assert run["counts"]["omitted"] == 0
    assert run["counts"]["unsupported"] == 5
    assert run["complete_set_recall"] == ratio(1, 1)
    assert run["answer_correctness"] == ratio(1, 1)
    assert run["citation_set_completeness"] == ratio(1, 1)
    assert run["whole_answer"] == ratio(0, 0)

    # The analyst may read the private span and version: cb and cs become answerable.
    ledger["evaluations"][0]["reader"] = "analyst"
    rows = by_output(ledger)
    assert rows["r/q/cb"]["verdict"] == rows["r/q/cs"]["verdict"] == "accept"
    assert metrics(ledger)["r"]["counts"]["blocked"] == 0


def not_applicable_ledger() -> dict[str, Any]:
    """Three answerable claims: cn marked not applicable for ev, co only for another
    evaluation, ck for ev with an unresolved contradiction (rule 1 comes first)."""
    ledger = make(
        versions=[version("pub")],
        spans=[span("p1", "pub", "alpha"), span("p2", "pub", "beta")],
        claims=[claim(c) for c in ("ca", "cn", "co", "ck")],
        sets=[eset(f"g{c}", c, ["p1"]) for c in ("ca", "cn", "co", "ck")],
        contradictions=[{"id": "k", "claim": "ck", "span": "p2", "status": "unresolved"}],
        questions=[question("q", ["ca", "cn"]), question("q2", ["co", "ck"])],
        cases=[
            case(
                "q",
                [output("r/q/ca", "ca", ["p1"]), output("r/q/cn", "cn", ["p1"])],
                retrieved=["p1"],
            ),
            case(
                "q2",
                [output("r/q2/co", "co", ["p1"]), output("r/q2/ck", "ck", ["p1"])],
                retrieved=["p1"],
            ),
        ],
    )
    ledger["evaluations"].append(
        {"id": "other", "reader": "analyst", "observation_cutoff": "2026-10-07"}
    )
    for c in ledger["claims"]:
        if c["id"] in ("cn", "ck"):
            c["not_applicable"] = [{"evaluation": "ev", "reason": "ev covers <EU> only"}]
        if c["id"] == "co":
            c["not_applicable"] = [{"evaluation": "other", "reason": "other is about Birch"}]
    check_valid(ledger)
    return ledger


def test_not_applicable() -> None:
    """acceptance.md "Not applicable": decided before eligibility, abstain, counted apart."""
    ledger = not_applicable_ledger()
    rows = by_output(ledger)
    assert rows["r/q/ca"]["verdict"] == rows["r/q2/co"]["verdict"] == "accept"
    # Its set would be eligible and is cited: not weighed, so no route and nothing missing.
    assert rows["r/q/cn"]["verdict"] == "abstain"
    assert rows["r/q/cn"]["supported"] is False
    assert rows["r/q/cn"]["citation_complete"] is rows["r/q/cn"]["retrieved_complete"] is False
    assert rows["r/q/cn"]["missing"] == []
    assert rows["r/q2/ck"]["verdict"] == "escalate"  # rule 1 before rule 2
    run = metrics(ledger)["r"]
    assert run["counts"]["not_applicable"] == 2
    assert run["counts"]["blocked"] == run["counts"]["not_found"] == 0
    assert run["counts"]["unsupported"] == 2  # cn's abstain, ck's escalation
    assert run["complete_set_recall"] == ratio(2, 2)  # ca and co only
    assert run["answer_correctness"] == ratio(2, 2)
    assert run["citation_set_completeness"] == ratio(2, 2)
    assert run["whole_answer"] == ratio(0, 0)  # both questions hold a not-applicable claim

    # Marked for another evaluation only: it applies here as usual.
    for c in ledger["claims"]:
        c.pop("not_applicable", None)
    assert by_output(ledger)["r/q/cn"]["verdict"] == "accept"
    assert metrics(ledger)["r"]["counts"]["not_applicable"] == 0


def test_blocked_set_with_a_rule_3_failure_elsewhere_is_still_blocked() -> None:
    ledger = make(
        versions=[
            version("old", effective={"from": None, "until": "2026-01-01"}),
            version("priv", readers=["analyst"]),
        ],
        spans=[span("o1", "old", "alpha"), span("x1", "priv", "beta")],
        claims=[claim("c", applies_at="2026-06-01")],
        sets=[eset("g1", "c", ["o1"]), eset("g2", "c", ["x1"])],
        questions=[question("q", ["c"])],
        cases=[case("q", [])],
        reader="public",
    )
    assert metrics(ledger)["r"]["counts"]["blocked"] == 1
    ledger["evidence_sets"].pop()
    assert metrics(ledger)["r"]["counts"] == {
        "unsupported": 0,
        "correctness_unknown": 0,
        "answer_correctness_unknown": 0,
        "omitted": 0,
        "blocked": 0,
        "not_found": 1,
        "not_applicable": 0,
        "appropriate_abstentions": 0,
        "escalated": 0,
    }


@pytest.mark.parametrize(
    ("fields", "applies_at", "admissible"),
    [
        ({"observed_at": "2026-10-07T00:00:00Z"}, None, True),  # observed at the cutoff
        ({"observed_at": "2026-10-07T00:00:01Z"}, None, False),
        ({"observed_at": "2026-10-07T02:00:00+02:00"}, None, True),  # same instant
        ({"invalidated_at": "2026-10-07"}, None, False),  # invalidated at the cutoff
        ({"invalidated_at": "2026-10-07T00:00:01"}, None, True),
        ({"effective": {"from": "2026-06-01", "until": None}}, "2026-06-01", True),
        ({"effective": {"from": "2026-06-01"}}, "2026-05-31T23:59:59Z", False),
        ({"effective": {"until": "2026-06-01"}}, "2026-06-01", False),  # until exclusive
        ({"effective": {"until": "2026-06-01"}}, "2026-05-31T23:59:59Z", True),
        ({"effective": {"from": "2030-01-01", "until": "2031-01-01"}}, None, True),
    ],
)
def test_admissibility_boundaries(
    fields: dict[str, Any], applies_at: str | None, admissible: bool
) -> None:
    ledger = make(
        versions=[version("v", **fields)],
        spans=[span("s", "v", "alpha")],
        claims=[claim("c", applies_at=applies_at)],
        sets=[eset("g", "c", ["s"])],
        questions=[question("q", ["c"])],
        cases=[case("q", [output("r/q/o", "c", ["s"])])],
    )
    row = verdict_rows(ledger)[0]
    assert row["verdict"] == ("accept" if admissible else "abstain")
    assert row["inadmissible_citations"] == ([] if admissible else ["s"])


# ---- verdicts -----------------------------------------------------------------


def test_proposed_set_escalates() -> None:
    ledger = make(
        versions=[version("v")],
        spans=[span("a", "v", "alpha"), span("b", "v", "beta"), span("c", "v", "gamma")],
        claims=[claim("c1"), claim("c2")],
        sets=[
            eset("g1", "c1", ["a"]),
            eset("g2", "c1", ["b", "c"], status="proposed"),
            eset("g3", "c2", ["b"], status="proposed"),
            eset("g4", "c2", ["c"], status="rejected"),
        ],
        questions=[question("q", ["c1", "c2"])],
        cases=[
            case(
                "q",
                [
                    output("r/q/proposed-only", "c1", ["b", "c"]),
                    output("r/q/proposed-and-eligible", "c1", ["a", "b", "c"]),
                    output("r/q/part-of-proposed", "c1", ["b"]),
                    output("r/q/proposed-incorrect", "c1", ["b", "c"], correct=False),
                    output("r/q/proposed-not-found", "c2", ["b"]),
                    output("r/q/rejected-set", "c2", ["c"]),
                ],
            )
        ],
    )
    rows = by_output(ledger)
    assert rows["r/q/proposed-only"]["verdict"] == "escalate"
    assert rows["r/q/proposed-only"]["missing"] == ["a"]
    assert rows["r/q/proposed-only"]["supported"] is True
    assert rows["r/q/proposed-and-eligible"]["verdict"] == "accept"
    assert rows["r/q/part-of-proposed"]["verdict"] == "revise-citations"
    assert rows["r/q/proposed-incorrect"]["verdict"] == "escalate"  # rule 1 before rule 3
    assert rows["r/q/proposed-not-found"]["verdict"] == "escalate"  # rule 1 before rule 2
    assert rows["r/q/rejected-set"]["verdict"] == "abstain"
    run = metrics(ledger)["r"]
    assert run["counts"]["escalated"] == 3
    assert run["counts"]["not_found"] == 1
    assert run["citation_set_completeness"] == ratio(1, 3)


def test_unresolved_contradiction_escalates() -> None:
    def build(status: str) -> dict[str, Any]:
        contradiction = {"id": "k", "claim": "c", "span": "b", "status": status}
        if status == "resolved":
            contradiction["decision"] = "superseded"
        return make(
            versions=[version("v"), version("gone", observed_at="2027-01-01")],
            spans=[span("a", "v", "alpha"), span("b", "gone", "beta")],
            claims=[claim("c")],
            sets=[eset("g", "c", ["a"])],
            contradictions=[contradiction],
            questions=[question("q", ["c"])],
            cases=[case("q", [output("r/q/o", "c", ["a"]), output("r/q/x", "c", [], False)])],
        )

    rows = by_output(build("unresolved"))
    assert rows["r/q/o"]["verdict"] == rows["r/q/x"]["verdict"] == "escalate"
    assert rows["r/q/o"]["citation_complete"] is True
    assert metrics(build("unresolved"))["r"]["counts"]["escalated"] == 2
    rows = by_output(build("resolved"))
    assert rows["r/q/o"]["verdict"] == "accept"
    assert rows["r/q/x"]["verdict"] == "reject"


def test_extra_assertion_escalates() -> None:
    ledger = make(
        versions=[
            version("old", effective={"until": "2026-01-01"}),
            version("late", observed_at="2026-12-01"),
        ],
        spans=[span("o", "old", "alpha"), span("l", "late", "alpha")],
        claims=[claim("c", applies_at="2026-06-01")],
        sets=[eset("g", "c", ["o"])],
        questions=[question("q", ["c"])],
        cases=[case("q", [output("r/q/extra", None, ["o", "l"]), output("r/q/o", "c", ["o"])])],
    )
    rows = by_output(ledger)
    extra = rows["r/q/extra"]
    assert extra == {
        "run": "r",
        "question": "q",
        "output": "r/q/extra",
        "claim": None,
        "supported": False,
        "retrieved_complete": False,
        "citation_complete": False,
        "missing": [],
        "inadmissible_citations": ["l"],  # no applies_at: the old version passes rule 3
        "verdict": "escalate",
    }
    assert rows["r/q/o"]["inadmissible_citations"] == ["o"]  # judged at c's applies_at
    counts = metrics(ledger)["r"]["counts"]
    assert counts["escalated"] == 1
    assert counts["unsupported"] == 2
    assert counts["not_found"] == 1


def test_reject_and_omitted() -> None:
    ledger = make(
        versions=[version("v")],
        spans=[span("a", "v", "alpha"), span("b", "v", "beta")],
        claims=[claim("c1"), claim("c2"), claim("c3")],
        sets=[eset("g1", "c1", ["a"]), eset("g2", "c2", ["b"]), eset("g3", "c3", ["a", "b"])],
        questions=[question("q", ["c1", "c2", "c3"])],
        cases=[
            case(
                "q",
                [
                    output("r/q/o1", "c1", ["a"], correct=False),
                    output("r/q/o2", "c1", ["b"]),
                    output("r/q/o3", "c2", ["a"], correct=False),
                ],
                retrieved=["a", "b"],
            )
        ],
    )
    rows = by_output(ledger)
    assert rows["r/q/o1"]["verdict"] == "reject"
    assert rows["r/q/o1"]["citation_complete"] is True
    assert rows["r/q/o2"]["verdict"] == "revise-citations"
    assert rows["r/q/o2"]["missing"] == ["a"]
    assert rows["r/q/o3"]["verdict"] == "reject"
    run = metrics(ledger)["r"]
    assert run["answer_correctness"] == ratio(1, 3)  # c1 only; c2 wrong; c3 omitted
    assert run["complete_set_recall"] == ratio(3, 3)
    assert run["citation_set_completeness"] == ratio(0, 1)
    assert run["counts"]["omitted"] == 1
    assert run["counts"]["unsupported"] == 2
    assert run["whole_answer"] == ratio(0, 1)


# ---- metrics -----------------------------------------------------------------


def test_appropriate_abstentions() -> None:
    ledger = make(
        versions=[version("v"), version("priv", readers=["analyst"])],
        spans=[span("a", "v", "alpha"), span("x", "priv", "beta")],
        claims=[claim("ca"), claim("cb")],
        sets=[eset("ga", "ca", ["a"]), eset("gb", "cb", ["x"])],
        questions=[
            question("q-blocked", ["cb"]),
            question("q-null", []),
            question("q-answerable", ["ca"]),
            question("q-mixed", ["ca", "cb"]),
            question("q-kept", ["cb"]),
        ],
        cases=[
            case("q-blocked", [], abstained=True),
            case("q-null", [], abstained=True),
            case("q-answerable", [], abstained=True),
            case("q-mixed", [], abstained=True),
        ],
        runs=["r", "s"],
        reader="public",
    )
    ledger["cases"].append({"run": "s", "question": "q-kept", "abstained": False})
    check_valid(ledger)
    result = metrics(ledger)
    assert result["r"]["counts"]["appropriate_abstentions"] == 2
    assert result["r"]["counts"]["omitted"] == 2
    assert result["r"]["counts"]["blocked"] == 2
    assert result["r"]["answer_correctness"] == ratio(0, 2)
    assert result["s"]["counts"]["appropriate_abstentions"] == 0
    assert result["s"]["counts"]["blocked"] == 1


def test_empty_denominators_are_none() -> None:
    ledger = make(
        versions=[version("v", readers=["analyst"])],
        spans=[span("a", "v", "alpha")],
        claims=[claim("c")],
        sets=[eset("g", "c", ["a"])],
        questions=[question("q", ["c"])],
        cases=[case("q", [output("r/q/o", "c", ["a"])])],
        runs=["r", "idle"],
        reader="public",
    )
    result = metrics(ledger)
    for run in ("r", "idle"):
        for name in (
            "complete_set_recall",
            "citation_set_completeness",
            "answer_correctness",
            "whole_answer",
        ):
            assert result[run][name] == {"numerator": 0, "denominator": 0, "value": None}
    assert result["r"]["counts"]["blocked"] == 1
    assert result["r"]["counts"]["unsupported"] == 1
    assert result["idle"]["counts"] == dict.fromkeys(result["idle"]["counts"], 0)


def test_whole_answer() -> None:
    ledger = make(
        versions=[version("v")],
        spans=[span("a", "v", "alpha"), span("b", "v", "beta")],
        claims=[claim("c1"), claim("c2"), claim("c0")],
        sets=[eset("g1", "c1", ["a"]), eset("g2", "c2", ["b"])],
        questions=[
            question("q-both", ["c1", "c2"]),
            question("q-half", ["c1", "c2"]),
            question("q-unanswerable", ["c1", "c0"]),
        ],
        cases=[
            case("q-both", [output("r/qb/1", "c1", ["a"]), output("r/qb/2", "c2", ["a", "b"])]),
            case("q-half", [output("r/qh/1", "c1", ["a"]), output("r/qh/2", "c2", ["a"])]),
            case("q-unanswerable", [output("r/qu/1", "c1", ["a"])]),
        ],
    )
    assert metrics(ledger)["r"]["whole_answer"] == ratio(1, 2)


# ---- coverage and missing ----------------------------------------------------


def test_missing_ties_broken_by_set_id() -> None:
    ledger = make(
        versions=[version("v")],
        spans=[span(f"s{i}", "v", w) for i, w in enumerate(WORDS)],
        claims=[claim("c"), claim("d")],
        sets=[
            eset("g-b", "c", ["s0", "s1"]),  # listed first, sorts second
            eset("g-a", "c", ["s3", "s2"]),
            eset("h-a", "d", ["s2", "s3", "s4"]),
            eset("h-b", "d", ["s1", "s0"]),
        ],
        questions=[question("q", ["c", "d"])],
        cases=[
            case(
                "q",
                [
                    output("r/q/tie", "c", ["s0", "s2"]),
                    output("r/q/fewest", "d", ["s2", "s0"]),
                    output("r/q/none", "c", []),
                ],
            )
        ],
    )
    rows = by_output(ledger)
    assert rows["r/q/tie"]["missing"] == ["s3"]  # g-a sorts before g-b
    assert rows["r/q/fewest"]["missing"] == ["s1"]  # h-b lacks 1, h-a lacks 2
    assert rows["r/q/none"]["missing"] == ["s2", "s3"]  # sorted ids of g-a's members


def test_wider_chunk_covers_and_narrower_does_not() -> None:
    late = version("late", observed_at="2026-11-01")
    ledger = make(
        versions=[version("v"), late],
        spans=[span("b", "v", "beta"), span("g", "v", "gamma"), span("l", "late", "beta")],
        claims=[claim("c")],
        sets=[eset("set", "c", ["b", "g"])],
        questions=[question("q", ["c"])],
        cases=[
            case(
                "q",
                [
                    output("r/q/wide", "c", [{"version": "v", "start": 6, "end": 16}]),
                    output("r/q/quote", "c", [{"version": "v", "quote": "ta gamma"}, "b"]),
                    output("r/q/narrow", "c", [{"version": "v", "start": 7, "end": 16}]),
                    output("r/q/other", "c", [{"version": "late", "start": 0, "end": 35}]),
                ],
                retrieved=[{"version": "v", "start": 0, "end": 35}],
            )
        ],
    )
    rows = by_output(ledger)
    assert rows["r/q/wide"]["verdict"] == "accept"
    assert rows["r/q/wide"]["retrieved_complete"] is True
    assert rows["r/q/quote"]["verdict"] == "accept"
    assert rows["r/q/narrow"]["verdict"] == "revise-citations"
    assert rows["r/q/narrow"]["missing"] == ["b"]
    assert rows["r/q/other"]["missing"] == ["b", "g"]  # same offsets, other version
    assert rows["r/q/other"]["inadmissible_citations"] == ["late[0:35]"]


def test_inline_quote_anchoring_uses_code_points() -> None:
    text = "Ünïcödé 日本 text; 日本 again"
    v = {"id": "ü/1", "source": "src", "text": text, "observed_at": "2026-10-01"}
    v2 = {"id": "late", "source": "src", "text": text, "observed_at": "2027-01-01"}
    ledger = make(
        versions=[v, v2],
        spans=[{"id": "sp", "version": "ü/1", "quote": "日本 text"}],
        claims=[claim("c")],
        sets=[eset("g", "c", ["sp"])],
        questions=[question("q", ["c"])],
        cases=[
            case(
                "q",
                [
                    output("r/q/o", "c", [{"version": "ü/1", "quote": "é 日本 text;"}]),
                    output("r/q/p", "c", [{"version": "late", "quote": "日本", "prefix": "; "}]),
                ],
            )
        ],
    )
    rows = by_output(ledger)
    assert rows["r/q/o"]["verdict"] == "accept"
    assert rows["r/q/p"]["inadmissible_citations"] == ["late[17:19]"]
    with pytest.raises(ValueError, match="occurs 2 times"):
        bad = copy.deepcopy(ledger)
        bad["cases"][0]["outputs"][0]["cites"] = [{"version": "ü/1", "quote": "日本"}]
        verdict_rows(bad)


def test_locator_spans_cover_only_the_same_locator() -> None:
    withheld = {"id": "w", "source": "src", "observed_at": "2026-10-01"}
    ledger = make(
        versions=[withheld, version("v")],
        spans=[
            {"id": "l1", "version": "w", "locator": "line 1"},
            {"id": "l1-again", "version": "w", "locator": "line 1"},
            {"id": "l2", "version": "w", "locator": "line 2"},
            span("t", "v", "alpha"),
        ],
        claims=[claim("c")],
        sets=[eset("g", "c", ["l1", "t"])],
        questions=[question("q", ["c"])],
        cases=[
            case(
                "q",
                [
                    output("r/q/same", "c", ["l1-again", "t"]),
                    output("r/q/other-line", "c", ["l2", "t"]),
                    output("r/q/itself", "c", ["l1", {"version": "v", "start": 0, "end": 10}]),
                ],
                retrieved=["l2", "t"],
            )
        ],
    )
    rows = by_output(ledger)
    assert rows["r/q/same"]["verdict"] == "accept"
    assert rows["r/q/other-line"]["verdict"] == "revise-citations"
    assert rows["r/q/other-line"]["missing"] == ["l1"]
    assert rows["r/q/itself"]["verdict"] == "accept"
    assert rows["r/q/same"]["retrieved_complete"] is False


def test_rows_are_sorted_by_run_question_output() -> None:
    ledger = make(
        versions=[version("v")],
        spans=[span("a", "v", "alpha")],
        claims=[claim("c")],
        sets=[eset("g", "c", ["a"])],
        questions=[question("q2", ["c"]), question("q1", ["c"])],
        cases=[
            {"run": "s", "question": "q1", "outputs": [output("z", "c", ["a"])]},
            case("q2", [output("b", "c", []), output("a", "c", [])]),
            case("q1", [output("y", "c", [])]),
        ],
        runs=["s", "r"],
    )
    keys = [(r["run"], r["question"], r["output"]) for r in verdict_rows(ledger)]
    assert keys == [("r", "q1", "y"), ("r", "q2", "a"), ("r", "q2", "b"), ("s", "q1", "z")]


# ---- generated ledgers -------------------------------------------------------


def _schema_validator() -> Any:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _check_model_invariants(ledger: dict[str, Any]) -> list[dict[str, Any]]:
    rows = verdict_rows(ledger)
    assert rows == verdict_rows(copy.deepcopy(ledger))  # deterministic
    judged = any(j.get("question") == "boundary" for j in ledger.get("judgments") or [])
    keys = [(r["run"], r["question"], r["output"]) for r in rows]
    assert keys == sorted(keys)
    for row in rows:
        assert row["verdict"] in VERDICTS
        assert row["missing"] == sorted(row["missing"])
        assert row["inadmissible_citations"] == sorted(set(row["inadmissible_citations"]))
        if row["citation_complete"]:
            assert row["missing"] == []
        if row["claim"] is None:
            # Escalated until a final boundary judgment decides it (adjudication.md).
            assert not row["supported"]
            assert row["verdict"] in (("escalate", "accept", "reject") if judged else ("escalate",))
        if row["supported"]:
            assert row["verdict"] in ("accept", "revise-citations", "escalate")
    result = metrics(ledger)
    assert sorted(result) == sorted(r["id"] for r in ledger["runs"])
    for run in result.values():
        for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness"):
            part = run[name]
            assert 0 <= part["numerator"] <= part["denominator"]
            assert (part["value"] is None) == (part["denominator"] == 0)
        # Every answerable claim-case is in answer correctness or counted as unknown, never both.
        assert run["complete_set_recall"]["denominator"] == (
            run["answer_correctness"]["denominator"] + run["counts"]["answer_correctness_unknown"]
        )
    json.dumps(result)
    json.dumps(rows)
    return rows


@settings(
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(ledgers())
def test_model_runs_on_generated_ledgers(ledger: dict[str, Any]) -> None:
    check_valid(ledger)
    errors = sorted(_schema_validator().iter_errors(ledger), key=str)
    assert not errors, errors[0].message
    _check_model_invariants(ledger)


def test_generated_ledgers_exercise_the_rules() -> None:
    seen: Counter[str] = Counter()

    @settings(
        max_examples=200,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(ledgers())
    def collect(ledger: dict[str, Any]) -> None:
        rows = _check_model_invariants(ledger)
        seen.update(row["verdict"] for row in rows)
        for run in metrics(ledger).values():
            for name, count in run["counts"].items():
                if count:
                    seen[name] += 1
            if run["complete_set_recall"]["numerator"]:
                seen["recalled"] += 1
        seen.update("missing" for row in rows if row["missing"])
        seen.update("inadmissible" for row in rows if row["inadmissible_citations"])
        seen.update(
            "inline" for row in rows if any("[" in s for s in row["inadmissible_citations"])
        )
        if any("locator" in s for s in ledger["spans"]):
            seen["locator"] += 1

    collect()
    expected = set(VERDICTS) | {
        "unsupported",
        "omitted",
        "blocked",
        "not_found",
        "not_applicable",
        "appropriate_abstentions",
        "escalated",
        "recalled",
        "missing",
        "inadmissible",
        "inline",
        "locator",
    }
    assert expected <= set(seen), sorted(expected - set(seen))
