"""Machine triage: machine judgments, the queue they order, their agreement, ``hopgate triage``.

docs/spec/adjudication.md "Machine triage" is the contract; the ledger field
is docs/spec/ledger.md "Judgments". Three levels: the rules on fixtures (a
final machine judgment is an input error; machine judgments score nothing and
queue nothing), the queue order and the agreement figures on a small ledger
(the worked example with gC2 proposed and a second contradiction k2), and
the command line end to end with the shipped example judge
(examples/lexical_judge.py) run as a real command.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from test_adjudication import disputed, judgment, only_judgments, write
from test_judgment_order import _keys

import hopgate
from hopgate.audit import agreement, triage
from hopgate.audit import queue as review_queue
from hopgate.audit.withholding import MARKER, for_reader
from hopgate.bundles import judgment_proofs
from hopgate.bundles.signing import read_private_key, read_public_key
from hopgate.errors import CommandError, LedgerError

ROOT = Path(__file__).parents[2]
JUDGE = f"{sys.executable} {ROOT / 'examples' / 'lexical_judge.py'}"
Ledger = dict[str, Any]


def machine(ident: str, subject: str, question: str, decision: str, **extra: Any) -> Ledger:
    extra.setdefault("by", "lexical-overlap/1")
    found = judgment(ident, subject, question, decision, **extra)
    found["machine"] = True
    return found


def with_k2() -> Ledger:
    """The disputed example (gC2 proposed) with an unresolved contradiction k2 of claim cB."""
    ledger = disputed()
    ledger["contradictions"].append(
        {"id": "k2", "claim": "cB", "span": "k1-span", "status": "unresolved"}
    )
    return ledger


# ---- the rules, on fixtures ----------------------------------------------------

BAD = [
    pytest.param(
        machine("m9", "gC2", "alternatives", "sufficient", final=True), "final",
        "a machine judgment is initial only", id="final-machine",
    ),
    pytest.param(
        {"id": "m9", "subject": "gC2", "by": "judge/1", "decision": "ok", "machine": True},
        "machine", "needs the judgment's question", id="machine-without-question",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("record", "field", "phrase"), BAD)
def test_a_final_machine_judgment_is_an_input_error(
    tmp_path: Path, record: Ledger, field: str, phrase: str
) -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, disputed(), "base"))
        before = len(store.graphs())
        with pytest.raises(LedgerError) as raised:
            hopgate.load(store, write(tmp_path, only_judgments(record), "bad"))
        message = str(raised.value)
        assert "bad.yaml" in message and "judgments[0]" in message
        assert f"field '{field}'" in message and phrase in message
        assert len(store.graphs()) == before


def test_a_machine_judgment_is_recorded_as_one_by_a_software_agent(tmp_path: Path) -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, disputed(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(machine("m1", "gC2", "alternatives",
                                                                   "sufficient")), "m"))  # fmt: skip
        assert store.ask(
            "ASK { ?j hg:ledgerId 'm1' ; hg:machine true ; hg:final false ; "
            "prov:wasAttributedTo ?a . ?a a prov:SoftwareAgent ; hg:ledgerId 'lexical-overlap/1' }"
        )
        # A reviewer's judgment carries no hg:machine at all.
        hopgate.load(store, write(tmp_path, only_judgments(judgment("h1", "gC2", "alternatives",
                                                                    "sufficient")), "h"))  # fmt: skip
        assert not store.ask("ASK { ?j hg:ledgerId 'h1' ; hg:machine ?any }")
        [found] = [j for j in review_queue.judgments(store) if j.id == "m1"]
        assert found.machine and not found.final
        assert found.as_dict()["machine"] is True


def _scores(store: hopgate.Store) -> tuple[dict[str, str], dict[str, Any], int]:
    from evaluated import evaluated, metrics, verdicts

    evaluated(store, "sys-a")
    found = metrics(store, run="sys-a")["sys-a"]
    figures = {k: v for k, v in found.as_dict().items() if k != "evaluation"}  # its time
    shown = {row.output: row.verdict for row in verdicts(store, run="sys-a")}
    return shown, figures, found.awaiting_adjudication


def test_machine_judgments_change_nothing_scored_and_queue_nothing(tmp_path: Path) -> None:
    """A machine judgment of every kind leaves verdicts, figures and the awaiting count as
    they were: it is initial only and its disagreement queues no subject."""
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, with_k2(), "base"))
        before = _scores(store)
        queued = [(i.subject, i.question) for i in review_queue.queue(store, "sys-a")]
        hopgate.load(store, write(tmp_path, only_judgments(
            machine("m-gC2", "gC2", "alternatives", "sufficient"),
            machine("m-k2", "k2", "contradiction", "immaterial"),
            # On an adjudicated set, beside a reviewer's initial judgment: they disagree,
            # but that is no reviewers' disagreement, so gA1 is not queued.
            judgment("h-gA1", "gA1", "entailment", "sufficient"),
            machine("m-gA1", "gA1", "entailment", "insufficient"),
        ), "machine"))  # fmt: skip
        assert _scores(store) == before
        assert [(i.subject, i.question) for i in review_queue.queue(store, "sys-a")] == queued
        # Two reviewers disagreeing do queue it (the rule the machine must not trigger).
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("h2-gA1", "gA1", "entailment", "insufficient", by="reviewer-2"),
        ), "reviewers"))  # fmt: skip
        assert ("gA1", "entailment") in [
            (i.subject, i.question) for i in review_queue.queue(store, "sys-a")
        ]


# ---- the queue order and the agreement figures ---------------------------------------


def test_machine_disagreement_orders_the_queue(tmp_path: Path) -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, with_k2(), "base"))
        order = [(i.subject, i.machine_disagreement) for i in review_queue.queue(store, "sys-a")]
        # gC2 holds back a consequential output, so it leads while nothing disagrees.
        assert order == [("gC2", False), ("k2", False)]
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("h-k2", "k2", "contradiction", "immaterial"),
            machine("m-k2", "k2", "contradiction", "material"),
            # Agreeing with the proposal (sufficient) is no disagreement.
            machine("m-gC2", "gC2", "alternatives", "sufficient"),
        ), "machine"))  # fmt: skip
        queue = review_queue.queue(store, "sys-a")
        assert [(i.subject, i.disagreement, i.machine_disagreement) for i in queue] == [
            ("k2", False, True),
            ("gC2", False, False),
        ]
        assert [(j.id, j.machine) for j in queue[0].judgments] == [
            ("h-k2", False),
            ("m-k2", True),
        ]
        # A machine's "insufficient" of a proposed set disagrees with its proposed status.
        hopgate.load(store, write(tmp_path, only_judgments(
            machine("m2-gC2", "gC2", "alternatives", "insufficient", by="nli/2"),
        ), "proposal"))  # fmt: skip
        queue = review_queue.queue(store, "sys-a")
        assert [(i.subject, i.machine_disagreement) for i in queue] == [
            ("gC2", True),  # consequential, among the machine disagreements
            ("k2", True),
        ]
        # Reviewers' disagreement still comes before a machine's.
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("h1-k2", "k2", "contradiction", "material", by="reviewer-2"),
        ), "reviewers"))  # fmt: skip
        assert [i.subject for i in review_queue.queue(store, "sys-a")] == ["k2", "gC2"]


@pytest.mark.parametrize("question", ["alternatives", "entailment"])
def test_a_machine_insufficient_of_a_proposed_set_disagrees_whichever_question(
    tmp_path: Path, question: str
) -> None:
    """adjudication.md "Machine triage": a machine's "insufficient" on a proposed set
    disagrees with its proposed status, and the item shows it; a set's entailment and
    alternatives are one question ("Recording"). Of entailment, it was missed."""
    ledger = disputed()
    ledger["judgments"] = [machine("jm", "gC2", question, "insufficient", reason="no")]
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        [item] = [i for i in review_queue.queue(store, "sys-a") if i.subject == "gC2"]
    assert item.machine_disagreement
    assert [(j.id, j.question, j.machine) for j in item.judgments] == [("jm", question, True)]


def test_agreement_per_judge_and_question(tmp_path: Path) -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, with_k2(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(
            machine("a-gC2", "gC2", "alternatives", "sufficient", by="judge-a/1"),
            machine("a-k2", "k2", "contradiction", "material", by="judge-a/1"),
            machine("b-gC2", "gC2", "alternatives", "sufficient", by="judge-b/1"),
        ), "first"))  # fmt: skip
        # Judge b changes its mind: its latest recorded judgment counts, not both.
        hopgate.load(store, write(tmp_path, only_judgments(
            machine("b-gC2-again", "gC2", "alternatives", "insufficient", by="judge-b/1",
                    reason="no overlap"),
        ), "again"))  # fmt: skip
        figures = {(a.judge, a.question): (a.agreed, a.judged, a.machine_judged)
                   for a in agreement.agreement(store)}  # fmt: skip
        # No final yet: judged by machines, by no reviewer; undefined, never 100%.
        assert figures == {
            ("judge-a/1", "alternatives"): (0, 0, 1),
            ("judge-a/1", "contradiction"): (0, 0, 1),
            ("judge-b/1", "alternatives"): (0, 0, 1),
        }
        assert all(a.rate is None for a in agreement.agreement(store))
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("f-gC2", "gC2", "alternatives", "sufficient", final=True, by="adj"),
            judgment("f-k2", "k2", "contradiction", "immaterial", final=True, by="adj"),
        ), "finals"))  # fmt: skip
        found = {(a.judge, a.question): a for a in agreement.agreement(store)}
        assert {k: (a.agreed, a.judged) for k, a in found.items()} == {
            ("judge-a/1", "alternatives"): (1, 1),
            ("judge-a/1", "contradiction"): (0, 1),
            ("judge-b/1", "alternatives"): (0, 1),
        }
        [compared] = found[("judge-b/1", "alternatives")].comparisons
        assert (compared.judgment, compared.decision, compared.final_judgment) == (
            "b-gC2-again", "insufficient", "f-gC2",
        )  # fmt: skip
        assert compared.reason == "no overlap" and compared.agrees is False
        # A later final decides: the one recorded last is in force.
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("f2-k2", "k2", "contradiction", "material", final=True, by="adj"),
        ), "later"))  # fmt: skip
        found = {(a.judge, a.question): a for a in agreement.agreement(store)}
        assert (found[("judge-a/1", "contradiction")].agreed, found[("judge-a/1",
                "contradiction")].as_dict()["agreement"]) == (1, {
            "numerator": 1, "denominator": 1, "value": 1.0})  # fmt: skip


def test_agreement_reads_a_set_s_entailment_and_alternatives_as_one_question(
    tmp_path: Path,
) -> None:
    """The final in force on a set is the one recorded last of its entailment and
    alternatives judgments (adjudication.md "Recording"): agreement compared a machine's
    alternatives with a final alternatives a later final entailment had replaced, and left
    a machine's alternatives settled only by an entailment out of every denominator."""
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, with_k2(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(
            machine("a-gC2", "gC2", "alternatives", "insufficient", by="judge-a/1"),
        ), "machine"))  # fmt: skip
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("f-alt", "gC2", "alternatives", "insufficient", final=True, by="adj"),
        ), "first"))  # fmt: skip
        hopgate.load(store, write(tmp_path, only_judgments(
            judgment("f-ent", "gC2", "entailment", "sufficient", final=True, by="adj"),
        ), "second"))  # fmt: skip
        [found] = agreement.agreement(store)
        [compared] = found.comparisons
        assert (compared.final_judgment, compared.final_decision) == ("f-ent", "sufficient")
        assert (found.agreed, found.judged) == (0, 1)


# ---- the judge command -------------------------------------------------------------


def test_the_judge_reads_the_subject_as_the_runs_reader_may_see_it(tmp_path: Path) -> None:
    ledger = disputed()
    ledger["evidence_sets"] = [
        {**s, "status": "proposed"} if s["id"] == "gB1" else s for s in ledger["evidence_sets"]
    ]
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        [item] = [i for i in review_queue.queue(store, "sys-a") if i.subject == "gB1"]
        iri = hopgate.ids.mint("set", "gB1")
        shown = triage.judge_input(store, item, iri, for_reader(store, "analyst"))
        assert shown["question"] == "alternatives"
        assert shown["decisions"] == ["sufficient", "insufficient"]
        assert shown["claim"] == "Entity S holds the rights to Project Birch."
        assert shown["asked"] == "Who holds the rights to Project Birch?"
        assert [(s["id"], s["version"], s["quote"]) for s in shown["spans"]] == [
            ("b1", "registry@3", "Project Birch is mapped to record R22"),
            ("b2", "rights@1", "Record R22: the rights are held by Entity S"),
        ]
        hidden = triage.judge_input(store, item, iri, for_reader(store, "public"))
        assert [s["quote"] for s in hidden["spans"]] == [
            "Project Birch is mapped to record R22",
            MARKER,
        ]
        assert hidden["spans"][1]["version"] == "rights@1"


def test_an_extra_assertion_shows_the_judge_its_own_citations_only(tmp_path: Path) -> None:
    """adjudication.md "Machine triage": the judge reads the spans the subject holds; an
    extra assertion that cites nothing holds none (it was once sent every span of the
    store), one that cites b2 holds b2."""
    ledger = disputed()
    [case] = [c for c in ledger["cases"] if c["question"] == "qB"]
    case["outputs"] += [
        {"id": "sys-a/qB/x1", "text": "Birch was renamed in 2025.", "claim": None},
        {"id": "sys-a/qB/x2", "text": "Birch is a registry.", "claim": None, "cites": ["b2"]},
    ]
    for output in case["outputs"][-2:]:
        output["correct"] = None
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        queued = {i.subject: i for i in review_queue.queue(store, "sys-a")}
        shown = {}
        for output in ("sys-a/qB/x1", "sys-a/qB/x2"):
            iri = hopgate.ids.mint("output", output)
            shown[output] = triage.judge_input(
                store, queued[output], iri, for_reader(store, "analyst")
            )
    assert shown["sys-a/qB/x1"]["claim"] == "Birch was renamed in 2025."
    assert shown["sys-a/qB/x1"]["spans"] == []
    assert [s["id"] for s in shown["sys-a/qB/x2"]["spans"]] == ["b2"]


ANSWERS = [
    pytest.param(b"not json", "not JSON", id="not-json"),
    pytest.param(b"[]", "not a JSON object", id="not-an-object"),
    pytest.param(b'{"decision": "maybe", "reason": "r"}', "not a term", id="unknown-term"),
    pytest.param(b'{"decision": "material"}', "reason", id="no-reason"),
    pytest.param(b'{"decision": "material", "reason": " "}', "reason", id="blank-reason"),
]


@pytest.mark.parametrize(("stdout", "phrase"), ANSWERS)
def test_a_malformed_answer_is_refused(stdout: bytes, phrase: str) -> None:
    with pytest.raises(CommandError, match=phrase):
        triage.parse_answer(stdout, "contradiction")
    assert triage.parse_answer(b'{"decision": "material", "reason": "r"}', "contradiction") == (
        "material",
        "r",
    )


def test_cli_triage_end_to_end_with_the_example_judge(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hopgate.cli import cli

    base = write(tmp_path, with_k2(), "base")
    store = tmp_path / "store"
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(cli, ["--store", str(store), *args], obj={})

    assert run("load", str(base)).exit_code == 0
    assert run("evaluate").exit_code == 0
    before = run("metrics", "--run", "sys-a", "--format", "json").output
    # A judge that answers badly, or too late, records nothing and names the subject.
    bad = run("triage", "--run", "sys-a", "--judge", 'echo \'{"decision": "maybe"}\'')
    assert bad.exit_code == 1, bad.output
    assert "'gC2': failed, nothing recorded: malformed answer" in bad.output
    assert "'k2': failed, nothing recorded" in bad.output
    slow = run("triage", "--run", "sys-a", "--judge", "sleep 5", "--timeout", "0.5")
    assert slow.exit_code == 1 and "timeout after 0.5 s" in slow.output
    assert not list((store / "hopgate-judgments").glob("*.yaml"))
    good = run("triage", "--run", "sys-a", "--judge", JUDGE, "--by", "lexical-overlap/1")
    assert good.exit_code == 0, good.output
    assert "2 recorded, 0 already judged, 0 failed" in good.output
    assert len(list((store / "hopgate-judgments").glob("*.yaml"))) == 2
    # Run again: the subjects this judge already judged are not asked again.
    again = run("triage", "--run", "sys-a", "--judge", JUDGE, "--by", "lexical-overlap/1")
    assert "0 recorded, 2 already judged" in again.output
    queue = json.loads(run("review", "queue", "--run", "sys-a", "--format", "json").output)
    machines = [(i["subject"], j["by"], j["decision"]) for i in queue for j in i["judgments"]
                if j["machine"]]  # fmt: skip
    # gC2's spans hold most of its claim's words; k1-span shares few with claim cB.
    assert sorted(machines) == [
        ("gC2", "lexical-overlap/1", "sufficient"),
        ("k2", "lexical-overlap/1", "immaterial"),
    ]
    assert all("token overlap" in j["reason"] for i in queue for j in i["judgments"])
    # Nothing scored changed (the run is stale only because its subjects were judged).
    assert run("evaluate").exit_code == 0
    after = json.loads(run("metrics", "--run", "sys-a", "--format", "json").output)
    figures = json.loads(before)["sys-a"], after["sys-a"]
    assert figures[0]["awaiting_adjudication"] == figures[1]["awaiting_adjudication"] == 2
    for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness"):
        assert figures[0][name] == figures[1][name], name
    # A reviewer decides; the judge's agreement is reported.
    decided = run("judge", "gC2", "--question", "alternatives", "--decision", "insufficient",
                  "--by", "adj", "--reason", "c3 is a press release", "--final")  # fmt: skip
    assert decided.exit_code == 0, decided.output
    shown = run("review", "agreement")
    assert shown.exit_code == 0, shown.output
    assert "'lexical-overlap/1' on alternatives: agreed 0/1 (0%)" in shown.output
    assert "'lexical-overlap/1' on contradiction: agreed 0/0 (undefined" in shown.output
    assert "'gC2': said sufficient, final" in shown.output
    figures = json.loads(run("review", "agreement", "--format", "json").output)
    assert [(a["question"], a["agreement"]) for a in figures] == [
        ("alternatives", {"numerator": 0, "denominator": 1, "value": 0.0}),
        ("contradiction", {"numerator": 0, "denominator": 0, "value": None}),
    ]
    assert run("evaluate").exit_code == 0
    page = run("report", "--run", "sys-a", "--format", "md", "--pictures", "0").output
    assert "## Machine triage" in page
    assert "| lexical-overlap/1 | alternatives | 0/1 (0.0%) | 1 |" in page


def test_the_report_filters_and_escapes_a_judges_reason(tmp_path: Path) -> None:
    """A machine judgment's reason is text from outside: reader-filtered and escaped."""
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, with_k2(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(
            machine("m1", "gC2", "alternatives", "insufficient",
                    reason="Record R22: the rights are held by Entity S"),
            machine("m2", "k2", "contradiction", "material", reason="<script>x</script> | *a*"),
            judgment("f1", "gC2", "alternatives", "sufficient", final=True, by="adj"),
            judgment("f2", "k2", "contradiction", "immaterial", final=True, by="adj"),
        ), "m"))  # fmt: skip
        hopgate.evaluate(store)
        public = hopgate.build_report(store, run="sys-a", reader="public", pictures=0)
        reasons = [c.reason for a in public.triage for c in a.comparisons]
        assert MARKER in reasons and "Record R22" not in json.dumps(public.as_dict())
        analyst = hopgate.build_report(store, run="sys-a", reader="analyst", pictures=0)
        html = hopgate.render_report(analyst, format="html")
        assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>x</script>" not in html
        md = hopgate.render_report(analyst, format="md")
        assert "<script>x</script>" not in md and "\\| \\*a\\*" in md


def test_a_signature_covers_the_machine_flag(tmp_path: Path) -> None:
    """A signed machine judgment verifies; the same record read without the flag (a
    reviewer's, which would count in the queue's disagreements) does not."""
    private, public, _ = _keys(tmp_path)
    key = read_private_key(private)
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, with_k2(), "base"))
        triage.adjudication.judge(
            store, "k2", question="contradiction", decision="material", by="nli/1",
            reason="r", judgment_id="m-signed", folder=tmp_path / "kept", machine=True,
            signer=lambda fields: judgment_proofs.sign(fields, key),
        )  # fmt: skip
        [record] = [j for j in review_queue.judgments(store) if j.id == "m-signed"]
        trusted = [str(public)]
        found = {j.id: s.describe() for j, s in hopgate.review_judgments(
            store, final_only=False, trust=trusted)}  # fmt: skip
        assert found["m-signed"] == "signed by nli/1 with a trusted key"
        keys = [read_public_key(str(public))]
        assert judgment_proofs.check(record, keys).state == judgment_proofs.TRUSTED
        unflagged = dataclasses.replace(record, machine=False)
        assert (
            judgment_proofs.check(unflagged, keys)
            .describe()
            .startswith("signature does not verify")
        )
