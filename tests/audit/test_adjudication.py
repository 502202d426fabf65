"""Human adjudication: structured judgments, their effect on scoring, the queue, changed scores.

docs/spec/adjudication.md is the contract; the ledger spelling is
docs/spec/ledger.md "Judgments". The worked example (examples/cedar.yaml) is
changed so that the alternative route gC2 is only `proposed`: the output of
case C cites it and is escalated until a final judgment re-annotates it.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

import hopgate
from hopgate.errors import AdjudicationError, LedgerError

ROOT = Path(__file__).parents[2]
Ledger = dict[str, Any]


@cache
def _cedar() -> Ledger:
    loaded: Ledger = yaml.safe_load((ROOT / "examples" / "cedar.yaml").read_text("utf-8"))
    return loaded


def disputed() -> Ledger:
    """The worked example with gC2 proposed and without its judgment."""
    ledger = copy.deepcopy(_cedar())
    for found in ledger["evidence_sets"]:
        if found["id"] == "gC2":
            found["status"] = "proposed"
            found["annotation"]["version"] = 1
    ledger["judgments"] = []
    return ledger


def judgment(
    ident: str,
    subject: str,
    question: str,
    decision: str,
    *,
    by: str = "reviewer-1",
    at: str = "2026-10-06T10:00:00Z",
    final: bool | None = None,
    settles: list[str] | None = None,
    reason: str = "read both spans",
) -> Ledger:
    found: Ledger = {
        "id": ident,
        "subject": subject,
        "question": question,
        "decision": decision,
        "by": by,
        "at": at,
        "reason": reason,
    }
    if final is not None:
        found["final"] = final
    if settles is not None:
        found["settles"] = settles
    return found


def write(tmp_path: Path, ledger: Ledger, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(ledger, allow_unicode=True, sort_keys=False), "utf-8")
    return path


def only_judgments(*records: Ledger) -> Ledger:
    return {"ledger": 1, "judgments": list(records)}


# ---- the ledger: structured judgments ----------------------------------------

BAD = [
    pytest.param(
        judgment("j9", "gC2", "entailment", "material"), "decision",
        "decision 'material' is not a term of question 'entailment'", id="decision-not-a-term",
    ),
    pytest.param(
        judgment("j9", "k1", "entailment", "sufficient"), "subject",
        "question 'entailment' judges an evidence set", id="subject-of-wrong-kind",
    ),
    pytest.param(
        judgment("j9", "sys-a/qA/o1", "boundary", "not-a-claim"), "subject",
        "asserts a reference claim", id="boundary-on-a-claimed-output",
    ),
    pytest.param(
        judgment("j9", "gC2", "alternatives", "sufficient", settles=["j1"]), "settles",
        "only a final judgment settles others", id="initial-settles",
    ),
    pytest.param(
        judgment("j9", "gC2", "alternatives", "sufficient", final=True, settles=["nope"]),
        "settles[0]", "unknown judgment id 'nope'", id="settles-unknown",
    ),
    pytest.param(
        judgment("j9", "gC2", "alternatives", "sufficient", final=True, settles=["jk"]),
        "settles[0]", "about another subject or question", id="settles-other-subject",
    ),
    pytest.param(
        judgment("j9", "gC2", "entailment", "sufficient", final=True, settles=["ja"]),
        "settles[0]", "about another subject or question", id="settles-other-question",
    ),
    pytest.param(
        judgment("j9", "gC2", "alternatives", "sufficient", final=True, settles=["jf"]),
        "settles[0]", "is final", id="settles-a-final",
    ),
    pytest.param(
        {"id": "j9", "subject": "gC2", "by": "r", "decision": "ok", "final": True}, "final",
        "needs the judgment's question", id="final-without-question",
    ),
    pytest.param(
        judgment("j9", "gC2", "validity", "sufficient"), "question",
        "entailment", id="unknown-question",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("record", "field", "phrase"), BAD)
def test_malformed_judgment_is_rejected_and_nothing_is_kept(
    tmp_path: Path, record: Ledger, field: str, phrase: str
) -> None:
    with hopgate.open_store(None) as store:
        ledger = disputed()
        ledger["judgments"] = [
            judgment("ja", "gC2", "alternatives", "sufficient"),
            judgment("jk", "k1", "contradiction", "immaterial"),
            judgment("jf", "gC2", "alternatives", "sufficient", final=True),
        ]
        hopgate.load(store, write(tmp_path, ledger, "base"))
        before = len(store.graphs())
        with pytest.raises(LedgerError) as raised:
            hopgate.load(store, write(tmp_path, only_judgments(record), "bad"))
        message = str(raised.value)
        assert "bad.yaml" in message and "judgments[0]" in message
        assert f"field '{field}'" in message and phrase in message
        assert len(store.graphs()) == before


def test_structured_judgments_in_one_ledger_settle_each_other(tmp_path: Path) -> None:
    ledger = disputed()
    ledger["judgments"] = [
        judgment("ja", "gC2", "alternatives", "sufficient"),
        judgment("jb", "gC2", "alternatives", "insufficient", by="reviewer-2"),
        judgment("jf", "gC2", "alternatives", "sufficient", final=True, settles=["ja", "jb"]),
        judgment("jv", "press@1", "admissibility", "admissible"),
        judgment("js", "c3", "admissibility", "admissible"),
    ]
    with hopgate.open_store(None) as store:
        result = hopgate.load(store, write(tmp_path, ledger, "ledger"))
        assert result.records["judgment"] == 5


def test_old_spelling_still_loads(tmp_path: Path) -> None:
    with hopgate.open_store(None) as store:
        result = hopgate.load(store, ROOT / "examples" / "cedar.yaml")
        assert result.records["judgment"] == 1


# ---- the effect of final judgments --------------------------------------------


def _verdicts(store: hopgate.Store) -> dict[str, str]:
    from evaluated import verdicts

    return {row.output: row.verdict for row in verdicts(store, run="sys-a")}


def test_final_alternatives_judgment_reannotates_and_accepts(tmp_path: Path) -> None:
    from hopgate import ids
    from hopgate.store import IRI
    from hopgate.vocab import HG

    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, disputed(), "base"))
        assert _verdicts(store)["sys-a/qC/o1"] == "escalate"
        initial = only_judgments(
            judgment("ja", "gC2", "alternatives", "sufficient", by="reviewer-1"),
            judgment("jb", "gC2", "alternatives", "insufficient", by="reviewer-2"),
        )
        hopgate.load(store, write(tmp_path, initial, "initial"))
        assert _verdicts(store)["sys-a/qC/o1"] == "escalate"  # initial judgments score nothing
        final = only_judgments(
            judgment(
                "jf", "gC2", "alternatives", "sufficient", by="adjudicator",
                at="2026-10-07T09:00:00Z", final=True, settles=["ja", "jb"],
            )
        )  # fmt: skip
        hopgate.load(store, write(tmp_path, final, "final"))
        assert _verdicts(store)["sys-a/qC/o1"] == "accept"
        gc2 = ids.mint("set", "gC2")
        # The original annotation version stays readable in its load graph.
        loaded = store.select(
            "SELECT ?status ?v WHERE { ?s hg:setStatus ?status ; hg:annotationVersion ?v }",
            params={"s": IRI(gc2)},
        )
        assert [(str(r["status"]), r["v"]) for r in loaded] == [(HG + "Proposed", 1)]
        # The new version is in the bundle: revision of the original, from the judgment.
        version = store.select(
            "SELECT ?v ?n ?status ?j ?who WHERE { ?v prov:wasRevisionOf ?s ; "
            "hg:annotationVersion ?n ; hg:setStatus ?status ; prov:wasDerivedFrom ?j ; "
            "prov:wasAttributedTo ?who }",
            params={"s": IRI(gc2)},
        )
        assert len(version) == 1
        assert version[0]["n"] == 2 and str(version[0]["status"]) == HG + "Adjudicated"
        assert str(version[0]["j"]) == ids.mint("judgment", "jf")
        assert str(version[0]["who"]) == ids.mint("agent", "adjudicator")
        # The card names the route's annotation version in force.
        routes = store.select(
            "SELECT ?v WHERE { ?card hg:forOutput ?o ; hg:routeVersion ?v ; hg:verdict hg:Accept }",
            params={"o": IRI(ids.mint("output", "sys-a/qC/o1"))},
        )
        assert str(version[0]["v"]) in {str(r["v"]) for r in routes}
        # The consequential claim cC is accepted on the re-annotated version: conforming.
        from hopgate.shacl.validation import validate

        for engine in ("store", "pyshacl"):
            found = validate(store, run="sys-a", engine=engine)
            assert [r.message for r in found.violations] == [], engine


def test_final_insufficient_rejects_an_adjudicated_set(tmp_path: Path) -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, ROOT / "examples" / "cedar.yaml")
        assert _verdicts(store)["sys-a/qC/o1"] == "accept"
        final = only_judgments(
            judgment("jr", "gC2", "entailment", "insufficient", by="adjudicator", final=True)
        )
        hopgate.load(store, write(tmp_path, final, "final"))
        # gC2 rejected: the citations c3, c4 hold no eligible set any more.
        assert _verdicts(store)["sys-a/qC/o1"] == "revise-citations"


def test_final_contradiction_judgment_resolves_it(tmp_path: Path) -> None:
    ledger = disputed()
    ledger["contradictions"][0]["status"] = "unresolved"
    del ledger["contradictions"][0]["decision"]
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        assert _verdicts(store)["sys-a/qA/o1"] == "escalate"
        hopgate.load(
            store,
            write(
                tmp_path,
                only_judgments(
                    judgment("jk", "k1", "contradiction", "material", final=True,
                             reason="superseded by registry@3")
                ),
                "final",
            ),
        )  # fmt: skip
        assert _verdicts(store)["sys-a/qA/o1"] == "revise-citations"
        from evaluated import verdicts

        shown = {r.output: r for r in verdicts(store, run="sys-a")}["sys-a/qA/o1"].judgments
        assert shown == [
            {
                "id": "jk",
                "question": "contradiction",
                "decision": "material",
                "reason": "superseded by registry@3",
            }
        ]
        # The card names the judgment (the reviewed treatment); the bundle the resolution.
        from hopgate import ids
        from hopgate.store import IRI

        assert store.ask(
            "ASK { ?card hg:forOutput ?o ; hg:contradictionConsidered ?k ; "
            "hg:judgmentInForce ?j . ?k hg:resolvedBy ?j . ?j hg:reason ?why }",
            params={
                "o": IRI(ids.mint("output", "sys-a/qA/o1")),
                "k": IRI(ids.mint("contradiction", "k1")),
                "j": IRI(ids.mint("judgment", "jk")),
            },
        )


@pytest.mark.parametrize(
    ("decision", "verdict"),
    [("new-claim", "escalate"), ("not-a-claim", "accept"), ("unsupported", "reject")],
)
def test_final_boundary_judgment_decides_an_extra_assertion(
    tmp_path: Path, decision: str, verdict: str
) -> None:
    from evaluated import metrics

    ledger = disputed()
    ledger["cases"][1]["outputs"].append(
        {"id": "sys-a/qB/extra", "text": "Birch is old.", "claim": None, "correct": True}
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        assert _verdicts(store)["sys-a/qB/extra"] == "escalate"
        before = metrics(store, run="sys-a")["sys-a"].counts["unsupported"]
        hopgate.load(
            store,
            write(
                tmp_path,
                only_judgments(judgment("jx", "sys-a/qB/extra", "boundary", decision, final=True)),
                "final",
            ),
        )
        assert _verdicts(store)["sys-a/qB/extra"] == verdict
        after = metrics(store, run="sys-a")["sys-a"].counts["unsupported"]
        assert after == before - (decision == "not-a-claim")


def test_diff_describes_a_boundary_judgment_of_an_extra_assertion(tmp_path: Path) -> None:
    """diff's loads added described the judgments of the run's claims, not one of an output
    asserting no claim, whose verdict it changed (user trial)."""
    from evaluated import evaluated

    ledger = disputed()
    ledger["cases"][1]["outputs"].append(
        {"id": "sys-a/qB/extra", "text": "Birch is old.", "claim": None, "correct": True}
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        evaluated(store, "sys-a")
        decided = judgment("jx", "sys-a/qB/extra", "boundary", "not-a-claim", final=True)
        hopgate.load(store, write(tmp_path, only_judgments(decided), "final"))
        evaluated(store, "sys-a")
        changes = hopgate.diff(store, run="sys-a").store_changes
    assert [(c.kind, c.record, c.claim, c.status, c.detail) for c in changes] == [
        ("judgment", "jx", None, "not-a-claim", "sys-a/qB/extra")
    ]


# ---- the queue, judge and changed scores ---------------------------------------


def test_queue_judge_and_changed_scores(tmp_path: Path) -> None:
    from evaluated import evaluated, metrics

    from hopgate.audit import adjudication
    from hopgate.audit import queue as review_queue

    keep = tmp_path / "judgments"
    ledger = disputed()
    ledger["contradictions"].append(
        {"id": "k2", "claim": "cB", "span": "k1-span", "status": "unresolved"}
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        evaluated(store, "sys-a")
        queue = review_queue.queue(store, "sys-a")
        assert [(i.subject, i.question, i.disagreement) for i in queue] == [
            ("gC2", "alternatives", False),
            ("k2", "contradiction", False),
        ]
        assert queue[0].outputs == ["sys-a/qC/o1"] and queue[0].consequential
        # A final judgment of another question does not settle what gC2 needs.
        adjudication.judge(
            store, "gC2", question="minimality", decision="minimal", by="adjudicator",
            reason="both hops needed", final=True, folder=keep,
        )  # fmt: skip
        assert [i.subject for i in review_queue.queue(store, "sys-a")] == ["gC2", "k2"]
        for reviewer, decision in (("reviewer-1", "sufficient"), ("reviewer-2", "insufficient")):
            adjudication.judge(
                store, "gC2", question="alternatives", decision=decision, by=reviewer,
                reason=f"{reviewer} read c3 and c4", judgment_id=f"j-{reviewer}", folder=keep,
            )  # fmt: skip
        # Disagreements first, with the initial judgments and their reasons.
        queue = review_queue.queue(store, "sys-a")
        assert (queue[0].subject, queue[0].disagreement) == ("gC2", True)
        assert {(j.by, j.decision) for j in queue[0].judgments} == {
            ("reviewer-1", "sufficient"),
            ("reviewer-2", "insufficient"),
        }
        assert all(j.reason and j.at for j in queue[0].judgments)
        assert metrics(store, run="sys-a")["sys-a"].awaiting_adjudication == 2
        assert _verdicts(store)["sys-a/qC/o1"] == "escalate"
        recorded = adjudication.judge(
            store, "gC2", question="alternatives", decision="sufficient", by="adjudicator",
            reason="both hops are stated", final=True, settles=["j-reviewer-1", "j-reviewer-2"],
            judgment_id="j-final", folder=keep,
        )  # fmt: skip
        assert Path(recorded.file).is_file() and Path(recorded.file).parent == keep
        assert [i.subject for i in review_queue.queue(store, "sys-a")] == ["k2"]
        # The run is stale until evaluated; the re-evaluation changes one verdict.
        assert hopgate.store.catalog.staleness(store, "sys-a").stale
        assert _verdicts(store)["sys-a/qC/o1"] == "accept"
        found = adjudication.changes(store, "sys-a")
        assert [(c.output, c.before, c.after, c.judgments) for c in found.verdicts] == [
            ("sys-a/qC/o1", "escalate", "accept", ("j-final",))
        ]
        assert found.verdicts[0].annotation_versions == ("gC2 version 2",)
        assert found.verdicts[0].causes == (
            "judgment j-final now in force",
            "set gC2: proposed version 1 -> adjudicated version 2",
        )
        completeness = found.metrics["citation_set_completeness"]
        assert completeness["changed"]
        before, after = completeness["before"], completeness["after"]
        assert (before["numerator"], after["numerator"]) == (0, 1)
        assert (before["denominator"], after["denominator"]) == (3, 3)
        assert found.metrics["escalated"]["before"] == 2
        assert found.metrics["escalated"]["after"] == 1
        assert metrics(store, run="sys-a")["sys-a"].awaiting_adjudication == 1


BAD_JUDGE = [
    pytest.param({"subject": "nope"}, LedgerError, "unknown subject 'nope'", id="unknown-subject"),
    pytest.param({"decision": "maybe"}, AdjudicationError, "not a term of question", id="bad-term"),
    pytest.param(
        {"decision": "suficient"}, AdjudicationError,
        "decision 'suficient' is not a term of question 'alternatives' (did you mean 'sufficient'",
        id="near-miss-term",
    ),
    pytest.param({"question": "guess"}, Exception, "unknown question 'guess'", id="bad-question"),
    pytest.param({"subject": "k1"}, LedgerError, "judges an evidence set", id="wrong-kind"),
    pytest.param({"by": " "}, Exception, "needs its reviewer", id="no-reviewer"),
    pytest.param({"reason": ""}, Exception, "needs its reason", id="no-reason"),
    pytest.param({"settles": ["j1"]}, Exception, "only a final judgment", id="initial-settles"),
    pytest.param(
        {"final": True, "settles": ["ghost"]}, LedgerError, "unknown judgment id 'ghost'",
        id="settles-unknown",
    ),
    pytest.param(
        {"final": True, "settles": ["jk"]}, LedgerError, "another subject or question",
        id="settles-other-subject",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("change", "error", "phrase"), BAD_JUDGE)
def test_malformed_judge_call_is_an_error_and_keeps_nothing(
    tmp_path: Path, change: dict[str, Any], error: type[Exception], phrase: str
) -> None:
    from hopgate.audit import adjudication
    from hopgate.errors import HopgateError

    ledger = disputed()
    ledger["judgments"] = [judgment("jk", "k1", "contradiction", "immaterial")]
    keep = tmp_path / "judgments"
    call: dict[str, Any] = {
        "subject": "gC2",
        "question": "alternatives",
        "decision": "sufficient",
        "by": "ana",
        "reason": "because",
        **change,
    }
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        graphs = len(store.graphs())
        with pytest.raises(HopgateError) as raised:
            adjudication.judge(store, call.pop("subject"), folder=keep, **call)
        assert isinstance(raised.value, error) and phrase in str(raised.value)
        # The message names the judgment, never the scratch file it waited in.
        assert str(keep) not in str(raised.value) and ".yaml" not in str(raised.value)
        assert len(store.graphs()) == graphs
        assert not keep.exists() or list(keep.iterdir()) == []


def test_a_folder_judge_cannot_write_is_an_error_and_the_store_is_unchanged(
    tmp_path: Path,
) -> None:
    """`judge --keep-in DIR` with DIR unwritable (here: under a file) ended in a traceback."""
    from hopgate.audit import adjudication
    from hopgate.errors import AdjudicationError

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, disputed(), "base"))
        graphs = sorted(store.graphs())
        with pytest.raises(AdjudicationError, match="cannot keep the judgment's file in"):
            adjudication.judge(
                store, "gC2", question="alternatives", decision="sufficient", by="ana",
                reason="because", folder=blocker / "judgments",
            )  # fmt: skip
        assert sorted(store.graphs()) == graphs


def test_a_subject_two_runs_wait_on_counts_once(tmp_path: Path) -> None:
    """adjudication.md "Awaiting adjudication": each subject counts once; the unscoped
    queue said "2 awaiting" for gC2, listed under both runs whose outputs it holds back."""
    from click.testing import CliRunner

    from hopgate.cli import cli

    ledger = disputed()
    ledger["runs"] += [dict(r, id="sys-b") for r in ledger["runs"] if r["id"] == "sys-a"]
    twins = json.loads(json.dumps([c for c in ledger["cases"] if c["run"] == "sys-a"]))
    for case in twins:
        case["run"] = "sys-b"
        for output in case.get("outputs", []):
            output["id"] = output["id"].replace("sys-a/", "sys-b/")
    ledger["cases"] += twins
    store = ["--store", str(tmp_path / "store")]
    runner = CliRunner()
    assert runner.invoke(cli, [*store, "load", str(write(tmp_path, ledger, "two"))]).exit_code == 0
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    shown = runner.invoke(cli, [*store, "review", "queue"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("1 awaiting adjudication (listed under 2 runs)")
    assert "- sys-a: " in shown.output and "- sys-b: " in shown.output


def test_cli_review_and_judge(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hopgate.cli import cli

    base = write(tmp_path, disputed(), "base")
    store = tmp_path / "store"
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(cli, ["--store", str(store), *args], obj={})

    assert run("load", str(base)).exit_code == 0
    assert run("evaluate").exit_code == 0
    shown = run("review", "queue", "--run", "sys-a")
    assert shown.exit_code == 0 and "evidence set" not in shown.output
    assert "1 awaiting adjudication" in shown.output and "'gC2'" in shown.output
    figures = run("metrics", "--run", "sys-a")
    assert figures.exit_code == 0
    assert (
        "awaiting adjudication: 1 (hopgate review queue --run sys-a lists them)" in figures.output
    )
    bad = run("judge", "gC2", "--question", "alternatives", "--decision", "material",
              "--by", "ana", "--reason", "x")  # fmt: skip
    assert bad.exit_code == 2 and "Error:" in bad.output and "not a term" in bad.output
    for args, phrase in (
        (["nope", "--question", "entailment", "--decision", "sufficient"], "unknown subject"),
        (["k1", "--question", "entailment", "--decision", "sufficient"], "judges an evidence set"),
        # A record of another kind is named as what it is, not as unknown.
        (["gC2", "--question", "contradiction", "--decision", "material"],
         "'gC2' is an evidence set: expected question 'contradiction' judges a contradiction"),
        (["gC2", "--question", "alternatives", "--decision", "sufficient", "--settles", "j1"],
         "only a final judgment"),
        (["gC2", "--question", "alternatives", "--decision", "sufficient", "--final",
          "--settles", "ghost"], "unknown judgment id 'ghost'"),
        (["gC2", "--question", "guess", "--decision", "sufficient"], "guess"),
    ):  # fmt: skip
        refused = run("judge", *args, "--by", "ana", "--reason", "x")
        assert refused.exit_code == 2 and "Error:" in refused.output, args
        assert phrase in refused.output, (args, refused.output)
    assert not list((store / "hopgate-judgments").glob("*.yaml"))
    good = run("judge", "gC2", "--question", "alternatives", "--decision", "sufficient",
               "--by", "ana", "--reason", "both hops", "--final")  # fmt: skip
    assert good.exit_code == 0, good.output
    assert "recorded final judgment" in good.output
    assert json.loads(run("review", "queue", "--format", "json").output) == []
    assert run("evaluate").exit_code == 0
    changed = json.loads(run("review", "changes", "--run", "sys-a", "--format", "json").output)
    assert [v["output"] for v in changed["verdicts"]] == ["sys-a/qC/o1"]
    text = run("review", "changes", "--run", "sys-a").output
    assert "sys-a/qC/o1: escalate -> accept" in text
    assert "set gC2: proposed version 1 -> adjudicated version 2" in text
    # diff and the report name the same cause beside the changed verdict.
    shown = run("diff", "--run", "sys-a").output
    assert "sys-a/qC/o1: verdict escalate -> accept" in shown
    because = [line for line in shown.splitlines() if line.startswith("  because: judgment ")]
    assert (
        len(because) == 1 and "; set gC2: proposed version 1 -> adjudicated version 2" in because[0]
    )
    page = run("report", "--run", "sys-a", "--format", "md", "--pictures", "0").output
    assert "; set gC2: proposed version 1 -> adjudicated version 2)" in page


def test_a_final_judgment_makes_only_the_dependent_runs_stale(tmp_path: Path) -> None:
    from evaluated import evaluated

    from hopgate.store.catalog import staleness

    ledger = disputed()
    ledger["claims"].append({"id": "cZ", "text": "Unrelated."})
    ledger["evidence_sets"].append(
        {
            "id": "gZ",
            "claim": "cZ",
            "members": ["a1"],
            "inference": "none",
            "status": "proposed",
            "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
        }
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path, ledger, "base"))
        evaluated(store, "sys-a")
        unrelated = only_judgments(judgment("jz", "gZ", "entailment", "sufficient", final=True))
        hopgate.load(store, write(tmp_path, unrelated, "unrelated"))
        assert not staleness(store, "sys-a").stale  # no claim of sys-a
        initial = only_judgments(judgment("ji", "gC2", "alternatives", "sufficient"))
        hopgate.load(store, write(tmp_path, initial, "initial"))
        # An initial judgment changes the queue, not a card (adjudication.md "Recording"):
        # the run stays current, and the release gate with it; its recorded queue does not.
        state = staleness(store, "sys-a")
        assert not state.stale and state.queue_since
        assert not hopgate.gate(store, run="sys-a").stale
        minimal = only_judgments(
            judgment("jm", "gC2", "minimality", "minimal", final=True, by="adj")
        )
        hopgate.load(store, write(tmp_path, minimal, "minimal"))
        assert not staleness(store, "sys-a").stale  # minimality changes nothing scored
        final = only_judgments(judgment("jf", "gC2", "alternatives", "sufficient", final=True))
        hopgate.load(store, write(tmp_path, final, "final"))
        state = staleness(store, "sys-a")
        assert state.stale and state.reason is not None and "load(s)" in state.reason


def test_judge_records_a_subject_whose_id_holds_a_line_separator(tmp_path: Path) -> None:
    # PyYAML writes U+0085 (NEL) inside a single-quoted scalar as a line
    # break that reads back as a space: the recorded judgment named another
    # subject and `judge` refused its own file (found by the hostile-data test).
    from hopgate.audit import adjudication

    odd = "g\x85C2 é"
    ledger = disputed()
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(ledger, default=str).replace('"gC2"', json.dumps(odd)), "utf-8")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        recorded = adjudication.judge(
            store, odd, question="alternatives", decision="sufficient", by="José",
            reason="read c3\x85and c4", final=True, folder=tmp_path / "judgments",
        )  # fmt: skip
        written = yaml.safe_load(Path(recorded.file).read_text("utf-8"))["judgments"][0]
    assert (written["subject"], written["by"], written["reason"]) == (
        odd,
        "José",
        "read c3\x85and c4",
    )
