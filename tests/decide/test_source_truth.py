"""Source truth on the card (issue 30 item 1), a fixture per rule.

docs/spec/acceptance.md "Source truth": per member of the route a card
weighs (cited, else retrieved, else nearest), its source's authority, its
version's interval and observation time, and the basis for accepting the
premise (the final admissibility judgment in force on the span, else on its
version, else the source's authority basis, else "unstated"); the route
authority is the weakest member's. Never a verdict change; the gate may
require an authority as a disclosed policy ("Release gate").
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import hopgate
from hopgate.audit.withholding import MARKER
from hopgate.cli import cli
from hopgate.errors import GateError, LedgerError
from hopgate.store import catalog
from hopgate.testing import assert_gate

try:
    from tests.conftest import write
except ImportError:  # run from inside tests/
    from conftest import write  # type: ignore[no-redef]

REGISTRY = "Registry export. Project Cedar is mapped to record R17. R17 is held by Entity R."
PRESS = "Press release: Cedar, that is R17, goes to Entity R."
BLOG = "A blog says Project Fir belongs to Entity Q."


def _ledger() -> dict[str, Any]:
    """Three sources (primary with a basis, secondary, unstated), three claims, two runs."""
    return {
        "ledger": 1,
        "evaluations": [
            {"id": "eval", "reader": "analyst", "observation_cutoff": "2026-10-07T00:00:00Z"}
        ],
        "readers": [{"id": "analyst"}],
        "sources": [
            {
                "id": "registry",
                "address": "https://example.org/registry",
                "authority": "primary",
                "authority_basis": "the registry of record",
            },
            {"id": "press", "address": "https://example.org/press", "authority": "secondary"},
            {"id": "blog", "address": "https://example.org/blog"},
        ],
        "versions": [
            {
                "id": "registry@1",
                "source": "registry",
                "text": REGISTRY,
                "observed_at": "2026-10-01T12:00:00Z",
                "effective": {"from": "2026-01-01", "until": "2027-01-01"},
            },
            {"id": "press@1", "source": "press", "text": PRESS, "observed_at": "2026-09-20"},
            {"id": "blog@1", "source": "blog", "text": BLOG, "observed_at": "2026-09-21"},
        ],
        "spans": [
            {"id": "r1", "version": "registry@1", "quote": "Project Cedar is mapped to record R17"},
            {"id": "r2", "version": "registry@1", "quote": "R17 is held by Entity R"},
            {"id": "p1", "version": "press@1", "quote": "goes to Entity R"},
            {"id": "b1", "version": "blog@1", "quote": "Project Fir belongs to Entity Q"},
        ],
        "questions": [
            {"id": "q1", "text": "Who holds Cedar?", "claims": ["c1"]},
            {"id": "q2", "text": "Who holds Fir?", "claims": ["c2"]},
            {"id": "q3", "text": "Who holds Oak?", "claims": ["c3"]},
        ],
        "claims": [
            {"id": "c1", "text": "Entity R holds Cedar.", "consequential": True},
            {"id": "c2", "text": "Entity Q holds Fir."},
            {"id": "c3", "text": "Entity P holds Oak."},
        ],
        "evidence_sets": [
            _set("g1", "c1", ["r1", "r2"]),
            _set("g2", "c1", ["r1", "p1"]),
            _set("g3", "c2", ["b1"]),
        ],
        "contradictions": [
            {"id": "k1", "claim": "c1", "span": "b1", "status": "resolved", "decision": "other"}
        ],
        "runs": [
            {"id": "sys-a", "evaluation": "eval", "system": "rag", "started_at": "2026-10-05"},
            {"id": "sys-b", "evaluation": "eval", "system": "rag", "started_at": "2026-10-05"},
        ],
        "cases": [
            _case("sys-a", "q1", ["r1", "r2", "p1"], "c1", ["r1", "p1"]),
            _case("sys-a", "q2", ["b1"], "c2", []),
            _case("sys-a", "q3", [], "c3", []),
            _case("sys-b", "q1", ["r1"], "c1", []),
        ],
        "judgments": [
            _admissibility("j1", "r1", "checked against the filing"),
            _admissibility("j2", "press@1", "the press office confirmed it"),
            {**_admissibility("j3", "r2", "an initial opinion"), "final": False},
        ],
    }


def _set(name: str, claim: str, members: list[str]) -> dict[str, Any]:
    return {
        "id": name,
        "claim": claim,
        "members": members,
        "inference": "join",
        "status": "adjudicated",
        "annotation": {"version": 1, "by": "annotator", "at": "2026-10-02"},
    }


def _case(run: str, question: str, retrieved: list[str], claim: str, cites: list[str]) -> Any:
    output = {"id": f"{run}/{question}/o1", "text": "An answer.", "claim": claim}
    return {
        "run": run,
        "question": question,
        "retrieved": retrieved,
        "outputs": [{**output, "correct": True, "cites": cites}],
    }


def _admissibility(name: str, subject: str, reason: str) -> dict[str, Any]:
    return {
        "id": name,
        "subject": subject,
        "question": "admissibility",
        "decision": "admissible",
        "by": "reviewer",
        "final": True,
        "reason": reason,
    }


def _evaluated(tmp_path: Path, ledger: dict[str, Any]) -> hopgate.Store:
    store = hopgate.open_store(None)
    hopgate.load(store, write(tmp_path / "truth", ledger, "yaml"))
    hopgate.evaluate(store)
    return store


def _cards(store: hopgate.Store) -> dict[str, hopgate.VerdictRow]:
    return {row.output: row for row in hopgate.verdicts(store)}


@pytest.fixture
def truth(tmp_path: Path) -> hopgate.Store:
    return _evaluated(tmp_path, _ledger())


def test_the_weighed_route_and_its_authority(truth: hopgate.Store) -> None:
    cards = _cards(truth)
    # Cited route g2 (registry primary, press secondary): the weakest is secondary.
    assert (cards["sys-a/q1/o1"].weighed_route, cards["sys-a/q1/o1"].route_authority) == (
        "g2",
        "secondary",
    )
    # Citations hold no set, retrieval holds g3: the retrieved route, of an unstated source.
    assert (cards["sys-a/q2/o1"].weighed_route, cards["sys-a/q2/o1"].route_authority) == (
        "g3",
        "unstated",
    )
    # Not found: no route; unstated is still a value.
    assert (cards["sys-a/q3/o1"].weighed_route, cards["sys-a/q3/o1"].route_authority) == (
        None,
        "unstated",
    )
    # Neither cited nor retrieved complete: the nearest set (g1 and g2 tie at 2, g1 sorts first).
    assert (cards["sys-b/q1/o1"].weighed_route, cards["sys-b/q1/o1"].route_authority) == (
        "g1",
        "primary",
    )


def test_the_basis_for_accepting_the_premise(truth: hopgate.Store) -> None:
    members = {m["span"]: m for m in _cards(truth)["sys-a/q1/o1"].source_truth}
    assert members["r1"] == {
        "span": "r1",
        "version": "registry@1",
        "source": "registry",
        "authority": "primary",
        "basis": "checked against the filing",  # the span's final judgment
        "basis_from": "j1",
        "effective_from": "2026-01-01T00:00:00Z",
        "effective_until": "2027-01-01T00:00:00Z",
        "observed_at": "2026-10-01T12:00:00Z",
    }
    # The version's final judgment, when the span has none.
    assert (members["p1"]["basis"], members["p1"]["basis_from"]) == (
        "the press office confirmed it",
        "j2",
    )
    nearest = {m["span"]: m for m in _cards(truth)["sys-b/q1/o1"].source_truth}
    # An initial judgment is no basis: the source's authority basis is.
    assert (nearest["r2"]["basis"], nearest["r2"]["basis_from"]) == (
        "the registry of record",
        "registry",
    )
    unstated = _cards(truth)["sys-a/q2/o1"].source_truth
    assert [(m["authority"], m["basis"], m["basis_from"]) for m in unstated] == [
        ("unstated", "unstated", None)
    ]


def test_the_admissibility_judgments_read_as_a_basis_are_listed_in_force(
    truth: hopgate.Store,
) -> None:
    """adjudication.md "Effect on scoring": every card lists the final judgments in force
    on it, the admissibility judgments its premise basis was read from among them."""
    listed = {
        output: sorted((j["id"], j["question"]) for j in row.judgments)
        for output, row in _cards(truth).items()
    }
    assert [j for j in listed["sys-a/q1/o1"] if j[1] == "admissibility"] == [
        ("j1", "admissibility"),
        ("j2", "admissibility"),
    ]
    # The nearest set g1: r1's basis is j1, r2's its source's (no judgment listed for it).
    assert [j for j in listed["sys-b/q1/o1"] if j[1] == "admissibility"] == [
        ("j1", "admissibility")
    ]
    assert [j for j in listed["sys-a/q2/o1"] if j[1] == "admissibility"] == []


def test_an_admissibility_judgment_in_force_names_no_cause_of_a_changed_verdict(
    truth: hopgate.Store, tmp_path: Path
) -> None:
    """review changes lists what can change a verdict: a set's re-annotation, not the
    admissibility judgment (j2) that left the card with the route it was a basis of."""
    from hopgate.audit.adjudication import changes

    rejected = {
        "id": "jE",
        "subject": "g2",
        "question": "entailment",
        "decision": "insufficient",
        "by": "reviewer",
        "final": True,
        "reason": "no",
    }
    hopgate.load(truth, write(tmp_path / "more", {"ledger": 1, "judgments": [rejected]}, "yaml"))
    hopgate.evaluate(truth)
    [changed] = [v for v in changes(truth, "sys-a").verdicts if v.output == "sys-a/q1/o1"]
    assert changed.causes == (
        "judgment jE now in force",
        "set g2: adjudicated version 1 -> rejected version 2",
    )


def test_contradictions_with_their_status(truth: hopgate.Store) -> None:
    assert _cards(truth)["sys-a/q1/o1"].contradictions == [
        {"id": "k1", "status": "resolved", "decision": "other"}
    ]
    assert _cards(truth)["sys-a/q2/o1"].contradictions == []


def test_the_latest_recorded_admissibility_judgment_wins_and_stales_the_run(
    truth: hopgate.Store, tmp_path: Path
) -> None:
    later = {"ledger": 1, "judgments": [_admissibility("j9", "r1", "rechecked in October")]}
    hopgate.load(truth, write(tmp_path / "later", later, "yaml"))
    # A judgment of a member of a run's route is what its cards depend on.
    assert catalog.staleness(truth, "sys-a").stale
    hopgate.evaluate(truth)
    members = {m["span"]: m for m in _cards(truth)["sys-a/q1/o1"].source_truth}
    assert (members["r1"]["basis"], members["r1"]["basis_from"]) == ("rechecked in October", "j9")


def test_an_admissibility_judgment_stales_only_the_runs_whose_cards_it_can_change(
    truth: hopgate.Store, tmp_path: Path
) -> None:
    """docs/spec/adjudication.md ("Judgments", `judge`) and records.md "Staleness": b1 is a
    member of g3 (c2, which sys-a asserts) and only a contradiction's span for sys-b,
    whose claim c1 no set holding b1 or quoting blog@1 supports."""
    later = {"ledger": 1, "judgments": [_admissibility("j8", "b1", "the blog retracted it")]}
    hopgate.load(truth, write(tmp_path / "later", later, "yaml"))
    assert catalog.staleness(truth, "sys-a").stale
    assert not catalog.staleness(truth, "sys-b").stale


def test_authority_never_changes_a_verdict_or_a_figure(
    truth: hopgate.Store, tmp_path: Path
) -> None:
    bare = copy.deepcopy(_ledger())
    for source in bare["sources"]:
        source.pop("authority", None)
        source.pop("authority_basis", None)
    other = _evaluated(tmp_path, bare)
    decided = ("verdict", "supported", "citation_complete", "retrieved_complete", "missing")
    for output, row in _cards(truth).items():
        plain = _cards(other)[output]
        assert [getattr(row, f) for f in decided] == [getattr(plain, f) for f in decided]
        assert plain.route_authority == "unstated"
    for run, figures in hopgate.metrics(truth).items():
        plain_figures = hopgate.metrics(other)[run]
        for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness"):
            assert getattr(figures, name) == getattr(plain_figures, name)
        assert figures.counts == plain_figures.counts


def test_strata_by_route_authority(truth: hopgate.Store) -> None:
    strata = hopgate.metrics(truth)["sys-a"].strata["route authority"]
    # Only output claims of answerable claim-cases: q1's (secondary) and q2's (unstated).
    assert {name: s["citation_set_completeness"].denominator for name, s in strata.items()} == {
        "secondary": 1,
        "unstated": 1,
    }
    assert strata["secondary"]["citation_set_completeness"].numerator == 1
    assert strata["secondary"]["complete_set_recall"].denominator == 0
    report = hopgate.build_report(truth, run="sys-a", pictures=0)
    # Accepted outputs by route authority.
    assert report.verdict_strata["route authority"] == {
        "secondary": {"accept": 1},
        "unstated": {"revise-citations": 1, "abstain": 1},
    }


def test_a_bad_authority_names_file_record_and_field(tmp_path: Path) -> None:
    ledger = _ledger()
    ledger["sources"][1]["authority"] = "primery"
    path = write(tmp_path / "bad", ledger, "yaml")
    with hopgate.open_store(None) as store:
        with pytest.raises(LedgerError) as raised:
            hopgate.load(store, path)
        assert store.graphs() == []
    message = str(raised.value)
    assert path.name in message and "sources[1]" in message and "'authority'" in message


def test_every_card_states_its_route_authority(truth: hopgate.Store) -> None:
    """shapes/cards.ttl :Card-routeAuthority, on what an evaluation writes."""
    result = hopgate.validate(truth)
    assert not [v for v in result.violations if "routeAuthority" in str(v)]


def test_the_gate_may_require_an_authority(truth: hopgate.Store) -> None:
    # Marked: only sys-a/q1/o1 (c1 is consequential), accepted on a secondary route.
    assert hopgate.gate(truth, run="sys-a").passed
    assert hopgate.gate(truth, run="sys-a", require_authority="secondary").passed
    strict = hopgate.gate(truth, run="sys-a", require_authority="primary")
    assert (strict.passed, strict.below_authority, strict.require_authority) == (
        False,
        ["sys-a/q1/o1"],
        "primary",
    )
    assert [row.verdict for row in strict.failing] == ["accept"]  # the verdict is unchanged
    assert "route authority is secondary" in strict.reasons["sys-a/q1/o1"]
    with pytest.raises(AssertionError, match="route authority is secondary"):
        assert_gate(truth, run="sys-a", require_authority="primary")
    assert_gate(truth, run="sys-a", require_authority="secondary")
    with pytest.raises(GateError, match="did you mean 'primary'"):
        hopgate.gate(truth, run="sys-a", require_authority="primery")


def test_the_command_and_the_report_disclose_the_policy(tmp_path: Path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "store")
    path = write(tmp_path / "truth", _ledger(), "yaml")
    assert runner.invoke(cli, ["--store", store, "load", str(path)]).exit_code == 0
    assert runner.invoke(cli, ["--store", store, "evaluate"]).exit_code == 0
    passed = runner.invoke(cli, ["--store", store, "gate", "--run", "sys-a"])
    assert passed.exit_code == 0, passed.output
    failed = runner.invoke(
        cli, ["--store", store, "gate", "--run", "sys-a", "--require-authority", "primary"]
    )
    assert failed.exit_code == 1
    assert "authority policy: an accepted output passes only when its route authority" in (
        failed.output
    )
    assert "route authority is secondary" in failed.output
    # The one weighed output is accepted: the policy fails it, its verdict stands, and the
    # counts say so (they said "1 of 1 not accepted" and "0 of 1 accepted": user trial).
    assert "1 of 1 consequential output claim(s) do not pass: 0 not accepted, 1 accepted " in (
        failed.output
    )
    report = runner.invoke(
        cli,
        ["--store", store, "report", "--run", "sys-a", "--format", "md"]
        + ["--require-authority", "primary"],
    )
    assert report.exit_code == 0, report.output
    assert "Authority policy: an accepted output passes only" in report.output
    assert (
        "**Release decision: FAIL**: 1 of 1 consequential output claim(s) accepted, 1 of them "
        "below the required authority (primary)." in report.output
    )
    assert "Route authority: secondary (the weakest member's, of route g2" in report.output
    table = runner.invoke(cli, ["--store", store, "verdicts", "--run", "sys-a"])
    assert "route_authority" in table.output and "secondary" in table.output


def test_ledger_text_in_the_basis_is_escaped(tmp_path: Path) -> None:
    ledger = _ledger()
    ledger["sources"][0]["authority_basis"] = "<script>alert(1)</script>\n# heading | cell"
    ledger["judgments"] = []
    store = _evaluated(tmp_path, ledger)
    report = hopgate.build_report(store, run="sys-b", pictures=0)
    html = hopgate.render_report(report, format="html")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    markdown = hopgate.render_report(report, format="md")
    assert "\n# heading" not in markdown
    steps = hopgate.explain(store, "sys-b/q1/o1").steps
    assert any("<script>" in step.sentence for step in steps if step.step == "source truth")


def test_the_basis_passes_the_reader_filter(tmp_path: Path) -> None:
    """A basis repeating a text withheld from the reader is shown as the withheld marker
    (docs/spec/records.md "What a reader is shown"), like every other ledger text."""
    ledger = _ledger()
    ledger["readers"].append({"id": "public"})
    ledger["versions"][0]["readers"] = ["analyst"]
    ledger["sources"][0]["authority_basis"] = REGISTRY
    ledger["judgments"] = []
    store = _evaluated(tmp_path, ledger)
    analyst = {m["span"]: m for m in _cards(store)["sys-b/q1/o1"].source_truth}
    assert analyst["r1"]["basis"] == REGISTRY
    public = {r.output: r for r in hopgate.verdicts(store, reader="public")}
    shown = {m["span"]: m for m in public["sys-b/q1/o1"].source_truth}
    assert shown["r1"]["basis"] == MARKER
    assert shown["r1"]["authority"] == "primary"  # a name, not a text
