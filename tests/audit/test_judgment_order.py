"""Judgments whose order cannot be forged (issue 25 item 5; docs/spec/adjudication.md
"Recording", "Signed judgments", "Awaiting adjudication").

A ledger may give a judgment any ``at`` and any ``by``. The judgment in force is
the one the store recorded last (a loader-stamped recording number), a judgment
dated after its recording is refused, one load records at most one final
judgment of a subject's question, and a reader sees who recorded each final
judgment and whether a trusted key signed it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_adjudication import disputed, judgment, only_judgments, write

import hopgate
from hopgate import ids
from hopgate.audit import adjudication
from hopgate.audit import queue as review
from hopgate.bundles.signing import new_key, write_key
from hopgate.errors import LedgerError
from hopgate.store import IRI, catalog

#: A proposed one-member route for cC: sys-a/qC/o1 cites c3 and c4, so it holds c4.
ONE_MEMBER = {
    "id": "gC9",
    "claim": "cC",
    "members": ["c4"],
    "inference": "direct statement",
    "status": "proposed",
    "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
}


def _base() -> dict[str, Any]:
    ledger = disputed()
    ledger["evidence_sets"].append(dict(ONE_MEMBER))
    return ledger


def _in_force(store: hopgate.Store, subject: str = "gC9") -> str | None:
    """The status of ``subject`` the run's evaluation used (evaluation-adjudication.ru)."""
    from evaluated import evaluated

    evaluated(store, "sys-a")
    latest = catalog.latest(store, "sys-a")
    assert latest is not None
    rows = store.select(
        "SELECT ?j WHERE { GRAPH ?b { ?v prov:wasRevisionOf ?set ; prov:wasDerivedFrom ?j } }",
        params={"b": IRI(latest.bundle), "set": IRI(ids.mint("set", subject))},
    )
    return ids.ledger_id(str(rows[0]["j"])) if rows else None


def _verdict(store: hopgate.Store, output: str = "sys-a/qC/o1") -> str:
    from evaluated import verdicts

    return {r.output: r.verdict for r in verdicts(store, run="sys-a")}[output]


def test_a_judgment_dated_after_its_recording_is_refused(tmp_path: Path) -> None:
    """The finding: a final "sufficient" dated 9999-12-31 by "Chief Adjudicator" in the
    ledger outlived the adjudicator's later `judge --final ... insufficient`."""
    forged = judgment(
        "j-forged", "gC9", "alternatives", "sufficient", by="Chief Adjudicator",
        at="9999-12-31T00:00:00Z", final=True, reason="approved",
    )  # fmt: skip
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        graphs = store.graphs()
        with pytest.raises(LedgerError) as raised:
            hopgate.load(store, write(tmp_path, only_judgments(forged), "forged"))
        message = str(raised.value)
        assert "forged.yaml" in message and "judgments[0]" in message
        assert "field 'at'" in message and "after its recording" in message
        assert store.graphs() == graphs  # nothing of it is kept
        adjudication.judge(
            store, "gC9", question="alternatives", decision="insufficient",
            by="adjudicator", reason="c4 alone does not name the project", final=True,
            judgment_id="j-adjudicator", folder=tmp_path / "kept",
        )  # fmt: skip
        assert _in_force(store) == "j-adjudicator"
        assert _verdict(store) == "escalate"  # gC2, proposed and cited, still awaits review


def test_the_judgment_recorded_last_wins_whatever_time_it_claims(tmp_path: Path) -> None:
    earlier = judgment(
        "j-ledger", "gC9", "alternatives", "sufficient", by="Chief Adjudicator",
        at="2026-11-30T00:00:00Z", final=True,
    )  # fmt: skip
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(earlier), "ledger"))
        assert _in_force(store) == "j-ledger"
        # Recorded later, though it claims to be older: it is in force (by time, the
        # ledger's would have won).
        adjudication.judge(
            store, "gC9", question="alternatives", decision="insufficient", by="adjudicator",
            reason="c4 alone does not name the project", final=True, judgment_id="j-later",
            at=datetime(2020, 1, 1, tzinfo=UTC), folder=tmp_path / "kept",
        )  # fmt: skip
        assert _in_force(store) == "j-later"
        numbers = {j.id: j.record_number for j in review.judgments(store)}
        assert numbers["j-later"] == numbers["j-ledger"] + 1


def test_review_judgments_lists_them_in_recording_order_across_subjects(tmp_path: Path) -> None:
    """A set judged first, a contradiction second: the list was sorted by subject (a
    contradiction's IRI before a set's), so the later judgment came first (user trial)."""
    on_set = judgment("j-set", "gC9", "alternatives", "sufficient", final=True)
    on_contradiction = judgment("j-k", "k1", "contradiction", "immaterial", final=True)
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(on_set), "first"))
        hopgate.load(store, write(tmp_path, only_judgments(on_contradiction), "second"))
        listed = [(j.id, j.record_number) for j, _ in hopgate.review_judgments(store)]
        assert [ident for ident, _ in listed] == ["j-set", "j-k"]
        assert listed[0][1] is not None and listed[1][1] == listed[0][1] + 1


def test_same_claimed_time_is_ordered_by_recording_not_by_id(tmp_path: Path) -> None:
    at = "2026-10-07T09:00:00Z"
    first = judgment("jz", "gC9", "alternatives", "sufficient", at=at, final=True)
    second = judgment("ja", "gC9", "alternatives", "insufficient", at=at, final=True)
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(first), "first"))
        hopgate.load(store, write(tmp_path, only_judgments(second), "second"))
        # By time, then id, "jz" won; recorded last, "ja" is in force.
        assert _in_force(store) == "ja"


def test_two_final_judgments_of_one_question_in_one_load_are_refused(tmp_path: Path) -> None:
    ledger = only_judgments(
        judgment("ja", "gC9", "alternatives", "sufficient", final=True),
        judgment(
            "jb", "gC9", "entailment", "insufficient", final=True
        ),  # one decision: re-annotation
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        with pytest.raises(LedgerError) as raised:
            hopgate.load(store, write(tmp_path, ledger, "two"))
        message = str(raised.value)
        assert "judgments[1]" in message and "field 'final'" in message
        assert "after 'ja' at judgments[0]" in message
        # Initial judgments, and finals of other subjects, share a load freely.
        fine = only_judgments(
            judgment("j1", "gC9", "alternatives", "sufficient"),
            judgment("j2", "gC9", "alternatives", "insufficient", by="reviewer-2"),
            judgment("j3", "gC9", "alternatives", "sufficient", final=True),
            judgment("j4", "gC2", "alternatives", "sufficient", final=True),
        )
        hopgate.load(store, write(tmp_path, fine, "fine"))


def test_recording_numbers_follow_ids_not_the_file(tmp_path: Path) -> None:
    records = [
        judgment("j2", "gC9", "alternatives", "sufficient"),
        judgment("j1", "gC2", "alternatives", "insufficient"),
    ]
    stamped = []
    for order in (records, records[::-1]):
        with hopgate.open_store(None) as store:
            hopgate.load(store, write(tmp_path, _base(), "base"))
            result = hopgate.load(store, write(tmp_path, only_judgments(*order), "j"))
            nq = store.construct(
                "CONSTRUCT { ?j hg:recordNumber ?n } WHERE { GRAPH ?g { ?j hg:recordNumber ?n } }",
                params={"g": IRI(result.graph)},
            )
            stamped.append(sorted(nq.decode().splitlines()))
    assert stamped[0] == stamped[1] and len(stamped[0]) == 2


def test_recording_numbers_follow_the_ids_code_points(tmp_path: Path) -> None:
    """adjudication.md "Recording": within a load, in the order of the judgments' ids, which
    sort by code point ("m-z" before "m-é"); they were numbered in the order of their
    percent-encoded IRIs ("m-%C3%A9" first)."""
    records = [
        judgment("m-z", "gC2", "alternatives", "insufficient"),
        judgment("m-é", "gC2", "alternatives", "sufficient"),
    ]
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, disputed(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(*records), "j"))
        numbers = {j.id: j.record_number for j in review.judgments(store)}
    assert numbers["m-é"] == numbers["m-z"] + 1


def test_a_ledger_cannot_state_a_recording(tmp_path: Path) -> None:
    record = judgment("jx", "gC9", "alternatives", "sufficient", final=True)
    record["recordNumber"] = 10**9
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        with pytest.raises(LedgerError, match="recordNumber"):
            hopgate.load(store, write(tmp_path, only_judgments(record), "stamped"))


def test_restating_a_recorded_judgment_keeps_its_recording(tmp_path: Path) -> None:
    record = judgment("jr", "gC9", "alternatives", "sufficient", final=True)
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        hopgate.load(store, write(tmp_path, only_judgments(record), "once"))
        [before] = [j for j in review.judgments(store) if j.id == "jr"]
        again = only_judgments(record, judgment("jn", "gC2", "alternatives", "sufficient"))
        result = hopgate.load(store, write(tmp_path, again, "again"))
        assert result.skipped_identical == 1
        [after] = [j for j in review.judgments(store) if j.id == "jr"]
        assert after.record_number == before.record_number


# ---- who recorded it, and signatures --------------------------------------------------


def _keys(tmp_path: Path) -> tuple[Path, Path, Path]:
    private, public = write_key(new_key(), tmp_path / "ana.key")
    _, stranger = write_key(new_key(), tmp_path / "other.key")
    return private, public, stranger


def _signature(store: hopgate.Store, ident: str, trust: list[str]) -> str:
    found = {j.id: s for j, s in hopgate.review_judgments(store, trust=trust)}
    return found[ident].describe()


def test_signed_judgment_checked_against_trusted_keys(tmp_path: Path) -> None:
    private, public, stranger = _keys(tmp_path)
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        hopgate.judge(
            store, "gC9", question="alternatives", decision="insufficient", by="ana",
            reason="c4 alone does not name the project", final=True, judgment_id="j-signed",
            keep_in=tmp_path / "kept", sign=private,
        )  # fmt: skip
        hopgate.judge(
            store, "gC2", question="alternatives", decision="sufficient", by="bo",
            reason="both hops", final=True, judgment_id="j-plain", keep_in=tmp_path / "kept",
        )  # fmt: skip
        assert _signature(store, "j-signed", [str(public)]) == "signed by ana with a trusted key"
        assert "key that is not trusted" in _signature(store, "j-signed", [str(stranger)])
        assert "was not checked" in _signature(store, "j-signed", [])
        assert _signature(store, "j-plain", [str(public)]) == "unsigned"
        [record] = [j for j, _ in hopgate.review_judgments(store) if j.id == "j-signed"]
        assert record.recorded_by == "ana" and record.recorded_at and record.record_number


def test_a_copied_or_malformed_proof_fails_never_a_traceback(tmp_path: Path) -> None:
    private, public, _ = _keys(tmp_path)
    kept = tmp_path / "kept"
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, _base(), "base"))
        recorded = hopgate.judge(
            store, "gC9", question="alternatives", decision="insufficient", by="ana",
            reason="no", final=True, judgment_id="j-real", keep_in=kept, sign=private,
        )  # fmt: skip
        proof = yaml.safe_load(Path(recorded.file).read_text("utf-8"))["judgments"][0]["proof"]
        # The same proof on a judgment that says the opposite, by the same name.
        copied = judgment(
            "j-copy", "gC2", "alternatives", "sufficient", by="ana", final=True, reason="no"
        )
        copied["proof"] = proof
        broken = judgment("j-broken", "k1", "contradiction", "immaterial", final=True)
        broken["proof"] = {"type": "DataIntegrityProof", "verificationMethod": "not an iri"}
        hopgate.load(store, write(tmp_path, only_judgments(copied, broken), "copied"))
        trust = [str(public)]
        assert _signature(store, "j-real", trust) == "signed by ana with a trusted key"
        copied = _signature(store, "j-copy", trust)
        assert (
            copied.startswith("signature does not verify: ")
            and copied.count("does not verify") == 1
        )
        assert _signature(store, "j-broken", trust).startswith(
            "signature does not verify: malformed proof"
        )


def test_cli_judge_sign_review_judgments_and_report(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hopgate.cli import cli

    private, public, _ = _keys(tmp_path)
    store = tmp_path / "store"
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(cli, ["--store", str(store), *args], obj={})

    assert run("load", str(write(tmp_path, _base(), "base"))).exit_code == 0
    done = run("judge", "gC9", "--question", "alternatives", "--decision", "insufficient",
               "--by", "ana", "--reason", "c4 alone", "--final", "--sign", str(private))  # fmt: skip
    assert done.exit_code == 0 and "signed" in done.output, done.output
    shown = run("review", "judgments", "--trust", str(public))
    assert shown.exit_code == 0, shown.output
    assert "recorded #1 at " in shown.output and " for ana; signed by ana with a trusted key" in (
        shown.output
    )
    rows = json.loads(run("review", "judgments", "--format", "json").output)
    assert [(r["subject"], r["signed"], r["signature"]["state"]) for r in rows] == [
        ("gC9", True, "unchecked")
    ]
    assert run("evaluate").exit_code == 0
    page = run("report", "--run", "sys-a", "--format", "md", "--trust", str(public)).output
    assert "## Final judgments in force (1)" in page
    assert "signed by ana with a trusted key" in page and " for ana |" in page
    data = json.loads(run("report", "--run", "sys-a", "--format", "json").output)
    assert [(j["id"].startswith("alternatives:gC9:ana@"), j["recorded_by"]) for j in
            data["judgments"]] == [(True, "ana")]  # fmt: skip
    html = run("report", "--run", "sys-a", "--pictures", "0", "--trust", str(public)).output
    assert 'id="judgments"' in html and "signed by ana with a trusted key" in html


# ---- the queue and its spec say the same ------------------------------------------------


def test_a_proposed_set_nobody_cited_or_retrieved_is_queued(tmp_path: Path) -> None:
    """docs/spec/adjudication.md "Awaiting adjudication": a proposed set of a claim an
    output asserts is queued, cited or retrieved or not (queries/review-queue.rq)."""
    ledger = disputed()
    ledger["evidence_sets"].append(dict(ONE_MEMBER, id="gC8", members=["d1"]))
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        items = {i.subject: i for i in review.queue(store, "sys-a")}
        # d1 is neither cited nor retrieved by the output asserting cC.
        assert items["gC8"].outputs == ["sys-a/qC/o1"] and items["gC8"].question == "alternatives"
        assert "gC2" in items


@pytest.mark.parametrize("final_question", ["entailment", "alternatives"])
def test_a_final_re_annotation_takes_a_disputed_set_out_of_the_queue(
    tmp_path: Path, final_question: str
) -> None:
    """docs/spec/adjudication.md "Edge cases", leaving the queue: any final judgment of
    the question a set needs (entailment or alternatives) takes it out, though the
    reviewers disagreed on the other one (it stayed queued as a disagreement)."""
    ledger = disputed()
    ledger["judgments"] = [
        judgment("ja", "gC2", "alternatives", "sufficient", by="reviewer-1"),
        judgment("jb", "gC2", "alternatives", "insufficient", by="reviewer-2"),
    ]
    final = judgment("jf", "gC2", final_question, "sufficient", by="adjudicator", final=True)
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        assert [(i.subject, i.disagreement) for i in review.queue(store, "sys-a")] == [
            ("gC2", True)
        ]
        hopgate.load(store, write(tmp_path, only_judgments(final), "final"))
        assert [i.subject for i in review.queue(store, "sys-a")] == []


def test_a_set_is_one_item_and_what_changes_no_verdict_is_not_queued(tmp_path: Path) -> None:
    """docs/spec/adjudication.md "Awaiting adjudication": a subject awaits when it can
    change a verdict, and the queue lists each such subject once. A proposed set whose
    reviewers disagree on its entailment is one item (the two questions re-annotate it
    as one), counted once by ``metrics``; reviewers who disagree on a set's minimality,
    or on a contradiction loaded as resolved, change nothing scored: not queued."""
    ledger = disputed()
    ledger["judgments"] = [
        judgment("ja", "gC2", "entailment", "sufficient", by="reviewer-1"),
        judgment("jb", "gC2", "entailment", "insufficient", by="reviewer-2"),
        judgment("jc", "gA1", "minimality", "minimal", by="reviewer-1"),
        judgment("jd", "gA1", "minimality", "not-minimal", by="reviewer-2"),
        judgment("je", "k1", "contradiction", "material", by="reviewer-1"),
        judgment("jf", "k1", "contradiction", "immaterial", by="reviewer-2"),
    ]
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        items = review.queue(store, "sys-a")
        assert [(i.subject, i.question, i.disagreement) for i in items] == [
            ("gC2", "entailment", True)
        ]
        # The item shows the reviewers' initial judgments of both questions.
        assert [j.id for j in items[0].judgments] == ["ja", "jb"]
        hopgate.evaluate(store)
        assert hopgate.metrics(store)["sys-a"].awaiting_adjudication == len(items)
