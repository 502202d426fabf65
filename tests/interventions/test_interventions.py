"""Interventions on the worked example (docs/spec/interventions.md): plan, run, score.

Case A: removing a1 leaves no route, so abstention is expected. Case C:
removing a member of its route leaves the alternative, so a supported answer
is expected. cA has a contradiction record (k1), so its members have
contradiction replacements. Scripted systems answer the plan: one always
answers (the remembered hop: unsupported synthesis where abstention is
expected), one always abstains, one times out, one fails, one prints junk.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR

import hopgate
from hopgate.audit.results import metrics, verdicts
from hopgate.decide import variants as v
from hopgate.decide.evaluation import evaluate
from hopgate.decide.outcomes import Outcome, figures, recorded
from hopgate.errors import LedgerError, PlanError
from hopgate.interventions.plan import plan, read_plan, write_plan
from hopgate.interventions.run import BUILTIN_BM25, bm25_system, request, run_plan
from hopgate.store import Store, catalog

ROOT = Path(__file__).resolve().parents[2]

# A later version of the rights schedule holding a2's quote, observed after the
# cutoff: the temporal replacement of a2 (not admissible under rule 1).
LATER_RIGHTS = """ledger: 1
versions:
  - id: rights@2
    source: rights
    text: "Rights schedule 2027.\\nRecord R17: the rights are held by Entity R\\n"
    observed_at: 2026-11-01T10:00:00Z
    fetched_by: crawler
    readers: [analyst]
"""

ALWAYS_ANSWERS = """
import json, sys
request = json.load(sys.stdin)
json.dump({"answer": "Entity R and Vendor V", "cites": request["citable"], "abstained": False,
           "correct": True}, sys.stdout)
"""
ALWAYS_ABSTAINS = """
import json, sys
json.load(sys.stdin)
json.dump({"abstained": True, "cites": []}, sys.stdout)
"""
SLEEPS = "import time; time.sleep(30)"
FAILS = "import sys; sys.stderr.write('model unavailable\\n'); sys.exit(3)"
JUNK = "print('not json')"


def _store() -> Store:
    store = hopgate.open_store(None)
    hopgate.load(store, CEDAR)
    evaluate(store)
    return store


def _latest_outcomes(store: Store, run: str = "sys-a") -> list[Outcome]:
    """The intervention outcomes the run's latest evaluation recorded."""
    latest = catalog.latest(store, run)
    assert latest is not None
    return recorded(store, latest.bundle)


def _find(items: list[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return [i for i in items if all(i.get(k) == value for k, value in match.items())]


@pytest.fixture(scope="module")
def planned() -> Any:
    store = _store()
    result = plan(store, "sys-a")
    yield store, result
    store.close()


def test_case_a_hop_removal_expects_abstention(planned: Any) -> None:
    _, result = planned
    [item] = _find(result.variants, question="qA", variant="hop-removal", member="a1")
    assert [c["id"] for c in item["context"]] == ["a2"]
    assert item["citable"] == ["a2"]
    assert item["expected"] == v.ABSTENTION
    assert item["surviving_route"] is None


def test_case_c_alternative_route_survives(planned: Any) -> None:
    _, result = planned
    [item] = _find(result.variants, question="qC", set="gC1", variant="hop-removal", member="c1")
    assert [c["id"] for c in item["context"]] == ["c2", "c3", "c4"]
    assert item["expected"] == v.SUPPORTED
    assert item["surviving_route"] == "gC2"


def test_contradiction_replacement_for_the_recorded_contradiction(planned: Any) -> None:
    _, result = planned
    found = _find(result.variants, variant="contradiction")
    assert {(i["question"], i["member"], i["replacement"]) for i in found} == {
        ("qA", "a1", "k1-span"),
        ("qA", "a2", "k1-span"),
    }
    for item in found:
        assert "k1-span" in [c["id"] for c in item["context"]]
        assert item["expected"] == v.ABSTENTION


def test_gold_only_citation_restriction_and_permission(planned: Any) -> None:
    _, result = planned
    [gold] = _find(result.variants, question="qA", variant="gold-only")
    assert gold["expected"] == v.SUPPORTED and gold["surviving_route"] == "gA1"
    assert [c["text"] for c in gold["context"]] == [
        "Project Cedar is mapped to record R17",
        "Record R17: the rights are held by Entity R",
    ]
    [restricted] = _find(
        result.variants, question="qA", variant="citation-restriction", member="a2"
    )
    assert restricted["citable"] == ["a1"] and restricted["expected"] == v.ABSTENTION
    [permission] = _find(result.variants, question="qA", variant="permission", member="a1")
    texts = {c["id"]: c["text"] for c in permission["context"]}
    assert texts["a1"] is None and texts["a2"] is not None
    assert permission["citable"] == ["a2"] and permission["expected"] == v.ABSTENTION


def test_inapplicable_variants_are_counted_per_reason(planned: Any) -> None:
    _, result = planned
    members = 2 + 2 + 2 + 2 + 2  # gA1, gB1, gC1, gC2, gD1
    assert result.inapplicable == {
        "contradiction: the claim has no contradiction record": members - 2,
        "identity: the ledger provides no identity perturbation": members,
        "temporal: no other version of the member's source holds its quote outside the "
        "admissible ones": members,
    }
    # Per selected set: gold-only, and per member hop-removal, citation-restriction, permission.
    assert len(result.variants) == 5 + 3 * members + 2


def test_plan_is_a_prov_plan_derived_from_the_evaluation(planned: Any) -> None:
    store, result = planned
    bundle = catalog.latest(store, "sys-a")
    assert bundle is not None
    rows = store.select(
        "SELECT ?plan ?from (COUNT(?variant) AS ?n) WHERE { ?plan a prov:Plan ;"
        " prov:wasDerivedFrom ?from . ?variant hg:partOfPlan ?plan } GROUP BY ?plan ?from"
    )
    assert [(str(r["from"]), r["n"]) for r in rows] == [(bundle.bundle, len(result.variants))]
    published = (
        store.ask(
            "ASK { GRAPH ?c { ?g a prov:Bundle ; prov:wasGeneratedBy ?a . ?a a hg:InterventionPlanning } }",
            params={"c": hopgate.IRI("https://w3id.org/hopgate/id/catalog")},
        )
        or result.graph in store.graphs()
    )
    assert published


def test_plan_options_and_errors(planned: Any, tmp_path: Path) -> None:
    store, _ = planned
    only = plan(store, "sys-a", variants=("gold-only",), max_sets=1, record=False)
    assert [(i["question"], i["set"]) for i in only.variants] == [
        ("qA", "gA1"),
        ("qB", "gB1"),
        ("qC", "gC1"),
        ("qD", "gD1"),
    ]
    path = tmp_path / "plan.jsonl"
    write_plan(only, path)
    assert read_plan(path) == json.loads(json.dumps(only.variants))
    with pytest.raises(PlanError, match="unknown run"):
        plan(store, "nope")
    with pytest.raises(PlanError, match="unknown variant"):
        plan(store, "sys-a", variants=("everything",))
    with pytest.raises(PlanError, match="no evaluation"):
        plan(store, "sys-a", evaluation="sys-a@never")


def test_plan_needs_a_current_evaluation() -> None:
    store = hopgate.open_store(None)
    hopgate.load(store, CEDAR)
    with pytest.raises(PlanError, match="evaluate"):
        plan(store, "sys-a")


@pytest.mark.parametrize("judged", [False, True], ids=["proposed", "judged-sufficient"])
def test_a_set_judged_sufficient_is_selected(tmp_path: Path, judged: bool) -> None:
    """interventions.md "The plan", rule selected sets: every eligible set, and a set
    loaded as proposed is eligible once a final judgment finds it sufficient
    (adjudication.md "Effect on scoring"). The plan once selected only sets loaded as
    adjudicated, so it left gC2 out, and removing c1 from gC1 expected an abstention
    where gC2's route survives (rule alternative route)."""
    ledger = yaml.safe_load(CEDAR.read_text(encoding="utf-8"))
    for found in ledger["evidence_sets"]:
        if found["id"] == "gC2":
            found["status"] = "proposed"
    ledger["judgments"] = []
    if judged:
        ledger["judgments"].append(
            {"id": "jf", "subject": "gC2", "question": "alternatives", "decision": "sufficient",
             "by": "adjudicator", "at": "2026-10-06T10:00:00Z", "reason": "read both spans",
             "final": True}
        )  # fmt: skip
    path = tmp_path / "ledger.yaml"
    path.write_text(yaml.safe_dump(ledger, sort_keys=False), encoding="utf-8")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        result = plan(store, "sys-a")
    selected = {i["set"] for i in _find(result.variants, question="qC")}
    [item] = _find(result.variants, question="qC", set="gC1", variant="hop-removal", member="c1")
    if judged:
        assert selected == {"gC1", "gC2"}
        assert [c["id"] for c in item["context"]] == ["c2", "c3", "c4"]
        assert (item["expected"], item["surviving_route"]) == (v.SUPPORTED, "gC2")
    else:
        assert selected == {"gC1"}
        assert [c["id"] for c in item["context"]] == ["c2"]
        assert (item["expected"], item["surviving_route"]) == (v.ABSTENTION, None)


def test_a_plan_from_an_earlier_evaluation_selects_its_eligible_sets(tmp_path: Path) -> None:
    """interventions.md "The plan": a plan is made from the evaluation named by
    --evaluation. gC2 is eligible in E1; a final judgment then finds it insufficient, and
    E2 no longer weighs it. The plan from E1 selected today's sets (no gC2) while saying
    it was derived from E1. On disk, as users run it: a store in memory is its own
    working copy, every graph of it (left as it is)."""
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    evaluate(store)
    [first] = catalog.evaluations(store, "sys-a")
    final = {"id": "jr", "subject": "gC2", "question": "entailment", "decision": "insufficient",
             "by": "adjudicator", "at": "2026-10-06T10:00:00Z", "reason": "c4 is silent",
             "final": True}  # fmt: skip
    path = tmp_path / "final.yaml"
    path.write_text(yaml.safe_dump({"ledger": 1, "judgments": [final]}), encoding="utf-8")
    hopgate.load(store, path)
    evaluate(store)
    e1 = hopgate.ids.ledger_id(first.activity)
    earlier = plan(store, "sys-a", evaluation=e1)
    now = plan(store, "sys-a")
    store.close()
    assert {i["evaluation"] for i in earlier.variants} == {e1}
    assert "gC2" in {i["set"] for i in _find(earlier.variants, question="qC")}
    assert "gC2" not in {i["set"] for i in _find(now.variants, question="qC")}


def test_temporal_replacement_from_a_later_version(tmp_path: Path) -> None:
    store = _store()
    later = tmp_path / "later.yaml"
    later.write_text(LATER_RIGHTS, encoding="utf-8")
    hopgate.load(store, later)
    evaluate(store)
    result = plan(store, "sys-a", variants=("temporal",))
    found = _find(result.variants, variant="temporal")
    assert [(i["member"], i["replacement"]) for i in found] == [
        ("a2", {"version": "rights@2", "start": 22, "end": 65})
    ]
    [item] = found
    assert [c["id"] for c in item["context"]] == ["a1", "rights@2[22:65]"]
    assert item["context"][1]["text"] == "Record R17: the rights are held by Entity R"
    assert item["expected"] == v.ABSTENTION
    # The answer's inline replacement loads as the same inline span id.
    answers = tmp_path / "answers.jsonl"
    run_plan(found, BUILTIN_BM25, answers)
    hopgate.load(store, answers)
    evaluate(store)
    [outcome] = _latest_outcomes(store)
    assert outcome.variant == "temporal" and outcome.expected == v.ABSTENTION


def test_a_later_version_in_its_own_ledger_is_planned_and_scored_on_disk(tmp_path: Path) -> None:
    """The temporal variant on the store users run (on disk, which copies only the graphs
    a step reads): the other version, loaded by a ledger of its own after the run was
    evaluated, is planned, and the answer's inline replacement quoting it is scored
    with its version's facts (observed after the cutoff: rule 1). On disk the plan
    never saw that ledger's graph, and the scoring missed the version."""
    later = tmp_path / "later.yaml"
    later.write_text(LATER_RIGHTS, encoding="utf-8")
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        evaluate(store)
        hopgate.load(store, later)
        before = set(catalog.run_inputs(store, "sys-a"))
        found = plan(store, "sys-a", variants=("temporal",)).variants
        assert [(i["member"], i["replacement"]) for i in found] == [
            ("a2", {"version": "rights@2", "start": 22, "end": 65})
        ]
        answers = tmp_path / "answers.jsonl"
        run_plan(found, _script(tmp_path, "always", ALWAYS_ANSWERS), answers)
        hopgate.load(store, answers)
        # The run depends on the answers and on the version their replacement quotes
        # (records.md "Staleness"): both graphs are its inputs, so a working copy of
        # them holds the version's facts however large the store.
        assert (
            set(catalog.run_inputs(store, "sys-a")) - before
            == set(catalog.load_graphs(store)) - before
        )
        assert len(set(catalog.load_graphs(store)) - before) == 2
        evaluate(store)
        [outcome] = _latest_outcomes(store)
    assert (outcome.expected, outcome.surviving_route) == (v.ABSTENTION, None)
    assert outcome.observed == v.UNSUPPORTED_SYNTHESIS
    assert outcome.unplanned is False


def test_a_temporal_replacement_s_text_is_null_for_a_reader_its_version_excludes(
    tmp_path: Path,
) -> None:
    """interventions.md "The plan", rule recorded plan: a context span's text is null where
    the evaluation's reader may not see it; an inline replacement takes its version's
    readers (ledger.md "Delivered spans"). It was shown to every reader."""
    store = _store()
    later = tmp_path / "later.yaml"
    later.write_text(LATER_RIGHTS.replace("readers: [analyst]", "readers: [public]"), "utf-8")
    hopgate.load(store, later)
    evaluate(store)
    [item] = _find(plan(store, "sys-a", variants=("temporal",)).variants, variant="temporal")
    assert [(c["id"], c["text"]) for c in item["context"]] == [
        ("a1", "Project Cedar is mapped to record R17"),
        ("rights@2[22:65]", None),
    ]


def test_an_answer_nobody_judged_is_classified_by_its_citations(tmp_path: Path) -> None:
    """interventions.md "Observed class", rule correctness apart: builtin:bm25 writes every
    answer with correct null; each still asserts its claim. It was classified as no answer
    ("missed answer") on every gold-only variant of the worked example."""
    store = _store()
    found = plan(store, "sys-a", variants=("gold-only",)).variants
    answers = tmp_path / "answers.jsonl"
    run_plan(found, BUILTIN_BM25, answers)
    hopgate.load(store, answers)
    evaluate(store)
    outcomes = _latest_outcomes(store)
    assert len(outcomes) == len(found) == 5
    assert {o.correct for o in outcomes} == {None}
    assert v.MISSED_ANSWER not in {o.observed for o in outcomes}
    assert sum(o.observed == v.SUPPORTED_ANSWER for o in outcomes) >= 4


def _script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return f"{sys.executable} {path}"


def _answered(tmp_path: Path, system: str, **options: Any) -> tuple[Store, Any, Any]:
    store = _store()
    result = plan(store, "sys-a")
    before = metrics(store, run="sys-a")["sys-a"]
    # A plan recorded after the evaluation makes it stale (records.md "Staleness"): it
    # changes the intervention outcomes an evaluation records, never the plain figures.
    assert before.stale and "intervention plan" in str(before.stale_reason)
    before = replace(before, stale=False, stale_reason=None)
    answers = tmp_path / "answers.jsonl"
    ran = run_plan(result.variants, system, answers, **options)
    if ran.answered:
        hopgate.load(store, answers)
    [record] = evaluate(store, run="sys-a")
    assert not record.reused, "loading intervention answers makes the run's evaluation stale"
    after = metrics(store, run="sys-a")["sys-a"]
    assert replace(after, evaluation="", interventions={}) == replace(before, evaluation=""), (
        "intervention cases never change the plain metrics"
    )
    return store, result, ran


def _items(store: Store) -> set[str]:
    """The interventions items of the cards of the run's latest evaluation."""
    latest = catalog.latest(store, "sys-a")
    assert latest is not None
    rows = store.select(
        "SELECT DISTINCT ?item WHERE { GRAPH ?b { ?card hg:interventionsItem ?item } }",
        params={"b": hopgate.IRI(latest.bundle)},
    )
    return {str(r["item"]) for r in rows}


def _classes(store: Store) -> dict[tuple[str, str, str | None], tuple[str, str]]:
    latest = catalog.latest(store, "sys-a")
    assert latest is not None
    return {
        (o.set, o.variant, o.member): (o.expected, o.observed)
        for o in recorded(store, latest.bundle)
    }


def test_a_system_that_always_answers(tmp_path: Path) -> None:
    store, result, ran = _answered(tmp_path, _script(tmp_path, "answers", ALWAYS_ANSWERS), jobs=2)
    assert ran.answered == len(result.variants) and not ran.failed
    classes = _classes(store)
    assert classes[("gA1", "hop-removal", "a1")] == (v.ABSTENTION, v.UNSUPPORTED_SYNTHESIS)
    assert classes[("gC1", "hop-removal", "c1")] == (v.SUPPORTED, v.SUPPORTED_ANSWER)
    assert classes[("gA1", "gold-only", None)] == (v.SUPPORTED, v.SUPPORTED_ANSWER)
    assert classes[("gA1", "contradiction", "a1")] == (v.ABSTENTION, v.UNSUPPORTED_SYNTHESIS)
    outcomes = _latest_outcomes(store)
    assert all(o.correct is True for o in outcomes), "correctness is kept apart from the class"
    table = figures(outcomes)
    expected_abstain = sum(1 for i in result.variants if i["expected"] == v.ABSTENTION)
    assert table["all"]["unsupported-synthesis rate"].numerator == expected_abstain
    assert table["all"]["missed-answer rate"].numerator == 0
    assert table["all"]["outcome agreement"].denominator == len(result.variants)
    assert _items(store) == {"answered"}
    assert store.ask("ASK { ?o a hg:InterventionOutcome ; hg:plannedAs ?planned }")
    assert not store.ask("ASK { ?o hg:unplanned true }")


def test_a_system_that_always_abstains(tmp_path: Path) -> None:
    store, result, ran = _answered(tmp_path, _script(tmp_path, "abstains", ALWAYS_ABSTAINS))
    assert ran.abstained == len(result.variants)
    classes = _classes(store)
    assert classes[("gA1", "hop-removal", "a1")] == (v.ABSTENTION, v.APPROPRIATE_ABSTENTION)
    assert classes[("gC1", "hop-removal", "c1")] == (v.SUPPORTED, v.MISSED_ANSWER)
    table = figures(_latest_outcomes(store))
    expected_answer = sum(1 for i in result.variants if i["expected"] == v.SUPPORTED)
    missed = table["all"]["missed-answer rate"]
    assert (missed.numerator, missed.denominator) == (expected_answer, expected_answer)
    assert table["all"]["unsupported-synthesis rate"].numerator == 0


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        (SLEEPS, "timeout after 0.5 s"),
        (FAILS, "exit status 3: model unavailable"),
        (JUNK, "malformed output: not JSON"),
    ],
)
def test_failures_are_failed_variants_not_abstentions(
    tmp_path: Path, script: str, reason: str
) -> None:
    store = _store()
    result = plan(store, "sys-a", variants=("gold-only",), max_sets=1)
    answers = tmp_path / "answers.jsonl"
    # Only the sleeper needs a short limit; a busy machine may take longer than
    # half a second to start Python, which must not turn a failure into a timeout.
    timeout = 0.5 if script == SLEEPS else 60.0
    ran = run_plan(
        result.variants, _script(tmp_path, "bad", script), answers, timeout=timeout, jobs=4
    )
    assert ran.answered == 0 and ran.abstained == 0
    assert len(ran.failed) == len(result.variants)
    assert all(f["reason"].startswith(reason) for f in ran.failed)
    failed_file = answers.with_name(answers.name + ".failed.jsonl")
    assert len(failed_file.read_text(encoding="utf-8").splitlines()) == len(result.variants)
    # Nothing was answered: the cards say the variants were planned and not run.
    evaluate(store, run="sys-a", force=True)
    assert _items(store) == {"planned, not run"}


def test_builtin_bm25_answers_from_citable_text_only() -> None:
    payload = {
        "question": "Who holds the rights to Project Cedar?",
        "context": [
            {"id": "a1", "text": None},
            {"id": "a2", "text": "Record R17: the rights are held by Entity R"},
        ],
        "citable": ["a2"],
    }
    answer = bm25_system(payload)
    assert answer["cites"] == ["a2"] and not answer["abstained"]
    assert bm25_system({**payload, "citable": []})["abstained"] is True
    # Passages sharing no word with the question are still the first two citable ones:
    # BM25 ranked none, and the answer was empty and cited nothing (an unsupported claim).
    unrelated = {
        "question": "When does the licence renew?",
        "context": [{"id": "d1", "text": "Zebra quartz."}, {"id": "d2", "text": "Yak plume."}],
        "citable": ["d1", "d2"],
    }
    answer = bm25_system(unrelated)
    assert answer["cites"] == ["d1", "d2"] and answer["answer"] and not answer["abstained"]
    item = {"question": "qA", "question_text": "Q?", "context": payload["context"], "citable": []}
    assert request(item) == {"question": "Q?", "context": payload["context"], "citable": []}


def test_ledger_intervention_cases(tmp_path: Path) -> None:
    store = _store()
    case = {
        "type": "case",
        "run": "sys-a",
        "question": "qA",
        "intervention": {"set": "gA1", "variant": "hop-removal", "member": "a1"},
        "retrieved": ["a2"],
        "abstained": True,
    }
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join(json.dumps(case) for _ in range(2)) + "\n", encoding="utf-8")
    with pytest.raises(LedgerError, match="duplicate case"):
        hopgate.load(store, twice)
    bad = tmp_path / "bad.jsonl"
    bad_case = {**case, "intervention": {"set": "gA1", "variant": "everything"}}
    bad.write_text(json.dumps(bad_case) + "\n", encoding="utf-8")
    with pytest.raises(LedgerError, match="intervention"):
        hopgate.load(store, bad)
    once = tmp_path / "once.jsonl"
    once.write_text(json.dumps(case) + "\n", encoding="utf-8")
    hopgate.load(store, once)
    # The plain case of (sys-a, qA) is untouched, and a plain query does not see this one.
    rows = store.select("SELECT ?c WHERE { ?c hg:ofRun ?run }")
    assert len(rows) == 4
    evaluate(store, run="sys-a")
    classes = _classes(store)
    assert classes[("gA1", "hop-removal", "a1")] == (v.ABSTENTION, v.APPROPRIATE_ABSTENTION)
    assert store.ask("ASK { ?o hg:unplanned true }"), "no plan was recorded for it"


#: A member m whose contradiction record's span r covers it but may not be read by the
#: evaluation's reader (rule 4).
UNREADABLE_REPLACEMENT = """ledger: 1
evaluations: [{id: eval, reader: analyst, observation_cutoff: '2026-12-31'}]
readers: [{id: analyst}, {id: other}]
sources: [{id: src, address: 'https://example.org/a'}]
versions:
- {id: v1, source: src, observed_at: '2026-01-01', text: 'alpha beta'}
spans:
- {id: m, version: v1, quote: alpha}
- {id: r, version: v1, quote: alpha beta, readers: [other]}
questions: [{id: q, text: 'Q?', claims: [c]}]
claims: [{id: c, text: C.}]
evidence_sets:
- {id: g, claim: c, members: [m], inference: i, status: adjudicated,
   annotation: {version: 1, by: a, at: '2026-01-01'}}
contradictions:
- {id: k, claim: c, span: r, status: unresolved}
runs: [{id: run, evaluation: eval, system: rag}]
cases:
- {run: run, question: q, retrieved: [m]}
"""


@pytest.mark.parametrize("planned", [True, False], ids=["planned", "ledger-case"])
def test_a_replaced_member_takes_its_replacement_s_admissibility(
    tmp_path: Path, planned: bool
) -> None:
    """interventions.md "Expected outcome" and "Edge cases", replacement: r covers m, but
    m replaced by r takes r's admissibility (r fails rule 4), so g is not eligible for
    the variant: abstention is expected, and an answer citing r is an unsupported
    synthesis. Both the plan and the scoring expected a supported answer."""
    path = tmp_path / "ledger.yaml"
    path.write_text(UNREADABLE_REPLACEMENT, encoding="utf-8")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        if planned:
            [item] = plan(store, "run", variants=("contradiction",)).variants
            assert (item["expected"], item["surviving_route"]) == (v.ABSTENTION, None)
            answers = tmp_path / "answers.jsonl"
            run_plan([item], _script(tmp_path, "always", ALWAYS_ANSWERS), answers)
        else:
            answers = tmp_path / "answers.jsonl"
            intervention = {"set": "g", "variant": "contradiction", "member": "m",
                            "replacement": "r"}  # fmt: skip
            answer = {"type": "case", "run": "run", "question": "q", "retrieved": ["r"],
                      "intervention": intervention, "abstained": False,
                      "outputs": [{"id": "run/q/x", "claim": "c", "correct": True,
                                   "cites": ["r"]}]}  # fmt: skip
            answers.write_text(json.dumps(answer) + "\n", encoding="utf-8")
        hopgate.load(store, answers)
        evaluate(store)
        [outcome] = _latest_outcomes(store, "run")
    assert (outcome.expected, outcome.surviving_route) == (v.ABSTENTION, None)
    assert outcome.observed == v.UNSUPPORTED_SYNTHESIS


def test_cited_outside_context_is_flagged(tmp_path: Path) -> None:
    store = _store()
    case = {
        "type": "case",
        "run": "sys-a",
        "question": "qA",
        "intervention": {"set": "gA1", "variant": "hop-removal", "member": "a1"},
        "retrieved": ["a2"],
        "outputs": [
            {"id": "x/o1", "claim": "cA", "correct": True, "cites": ["a1", "a2"]},
        ],
    }
    path = tmp_path / "outside.jsonl"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    hopgate.load(store, path)
    evaluate(store, run="sys-a")
    [outcome] = _latest_outcomes(store)
    assert outcome.observed == v.UNSUPPORTED_SYNTHESIS
    assert outcome.cited_outside_context is True


def test_verdicts_and_metrics_carry_the_interventions(tmp_path: Path) -> None:
    store, result, _ = _answered(tmp_path, _script(tmp_path, "abstains", ALWAYS_ABSTAINS))
    rows = {r.question: r for r in verdicts(store, run="sys-a")}
    item = rows["qA"].as_dict()["interventions"]
    assert item["item"] == "answered"
    hop = [e for e in item["variants"] if e["variant"] == "hop-removal" and e["member"] == "a1"]
    assert hop == [
        {
            "variant": "hop-removal",
            "set": "gA1",
            "member": "a1",
            "replacement": None,
            "expected": v.ABSTENTION,
            "surviving_route": None,
            "observed": v.APPROPRIATE_ABSTENTION,
            "correct": None,
            "cited_outside_context": False,
        }
    ]
    figures_ = metrics(store, run="sys-a")["sys-a"].interventions
    agreement = figures_["hop-removal"]["outcome_agreement"]
    planned_hops = _find(result.variants, variant="hop-removal")
    abstain = sum(1 for i in planned_hops if i["expected"] == v.ABSTENTION)
    assert (agreement.numerator, agreement.denominator) == (abstain, len(planned_hops))
    missed = figures_["hop-removal"]["missed_answer_rate"]
    assert (missed.numerator, missed.denominator) == (len(planned_hops) - abstain,) * 2
    empty = figures_["gold-only"]["unsupported_synthesis_rate"]
    assert (empty.numerator, empty.denominator, empty.value) == (0, 0, None)


def _cedar_cli(tmp_path: Path) -> Callable[..., str]:
    """``hopgate`` on a store at ``tmp_path``/store with the worked example loaded and
    evaluated: a function running one command and returning its output (exit 0 asserted)."""
    from click.testing import CliRunner

    from hopgate.cli import cli

    runner = CliRunner()
    base = ["--store", str(tmp_path / "store"), "-q"]

    def invoke(*args: str, code: int = 0) -> str:
        done = runner.invoke(cli, [*base, *args], obj={}, catch_exceptions=False)
        assert done.exit_code == code, done.output
        return done.output

    invoke("load", str(CEDAR))
    invoke("evaluate")
    return invoke


def test_cli_plan_run_metrics(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hopgate.cli import cli

    invoke = _cedar_cli(tmp_path)
    runner, base = CliRunner(), ["--store", str(tmp_path / "store"), "-q"]
    plan_file, answers = tmp_path / "plan.jsonl", tmp_path / "answers.jsonl"
    out = invoke("interventions", "plan", "--run", "sys-a", "-o", str(plan_file))
    assert "planned 37 variant(s)" in out and "not applicable: 10 x identity" in out
    out = invoke(
        "interventions",
        "run",
        "--plan",
        str(plan_file),
        "--system",
        BUILTIN_BM25,
        "-o",
        str(answers),
        "--load",
    )
    assert "37 variant(s) answered" in out and "0 failed" in out
    invoke("evaluate")
    out = invoke("interventions", "metrics", "--run", "sys-a")
    assert "hop-removal" in out and "outcome agreement" in out
    payload = json.loads(invoke("metrics", "--format", "json"))
    assert payload["sys-a"]["interventions"]["all"]["outcome_agreement"]["denominator"] == 37
    rows = json.loads(invoke("verdicts", "--format", "json"))
    assert {r["interventions"]["item"] for r in rows} == {"answered"}
    # The metrics table carries the figures apart from the plain ones.
    table = invoke("metrics", "--run", "sys-a")
    plain, _, apart = table.partition("interventions (never part of the figures above):")
    assert "complete set recall" in plain and "hop-removal" not in plain
    assert "all" in apart and "outcome agreement" in apart and "missed answer rate" in apart
    # explain says what each variant expected and what the system did.
    why = json.loads(invoke("explain", "sys-a/qA/o1", "--format", "json"))
    step = [s for s in why["steps"] if s["step"] == "interventions"]
    assert len(step) == 1 and "hop-removal of a1 on set gA1: expected" in step[0]["sentence"]
    assert step[0]["spec"] == 'docs/spec/interventions.md "Cards and figures"'
    done = runner.invoke(cli, [*base, "interventions", "plan", "--run", "nope", "-o", "x"], obj={})
    assert done.exit_code == 2 and "unknown run" in done.output


INVENTS = """
import json, sys
request = json.load(sys.stdin)
cites = ["no-such-span"] if request["question"].startswith("Who holds") else request["citable"]
json.dump({"answer": "Entity R", "cites": cites}, sys.stdout)
"""


def test_run_with_load_fails_only_the_answers_citing_a_span_the_store_lacks(
    tmp_path: Path,
) -> None:
    """An answer citing a span id the store does not hold would keep the whole answers
    ledger from loading; with --load it is a failed variant and the others load."""
    from hopgate.interventions.run import UNKNOWN_CITES

    invoke = _cedar_cli(tmp_path)
    plan_file, answers = tmp_path / "plan.jsonl", tmp_path / "answers.jsonl"
    invoke("interventions", "plan", "--run", "sys-a", "-o", str(plan_file))
    variants = read_plan(plan_file)
    inventing = [i for i in variants if str(i.get("question_text")).startswith("Who holds")]
    assert 0 < len(inventing) < len(variants)
    system = _script(tmp_path, "invents", INVENTS)
    run = ("interventions", "run", "--plan", str(plan_file), "--system", system)
    # Some variants failed: exit 1, as triage does, the others written and loaded.
    out = invoke(*run, "-o", str(answers), "--load", code=1)
    assert f"{len(inventing)} variant(s) failed (each with its reason in" in out
    assert f"{len(variants) - len(inventing)} variant(s) answered" in out
    assert f"failed: {len(inventing)} x {UNKNOWN_CITES}: 'no-such-span'" in out
    assert "loaded into" in out
    failed = answers.with_name(answers.name + ".failed.jsonl").read_text(encoding="utf-8")
    assert len(failed.splitlines()) == len(inventing)
    # Without a store to ask (no --load), the answer is written as the system gave it.
    run_plan(variants, system, tmp_path / "away.jsonl")
    assert "no-such-span" in (tmp_path / "away.jsonl").read_text(encoding="utf-8")


FLAKY = """
import json, sys
request = json.load(sys.stdin)
if not request["question"].startswith("Who holds"):
    sys.exit(3)  # an outage of the model behind it
json.dump({"answer": "Entity R", "cites": request["citable"]}, sys.stdout)
"""
ANSWERS_ALL = """
import json, sys
request = json.load(sys.stdin)
json.dump({"answer": "Entity R " + str(id(request)), "cites": request["citable"]}, sys.stdout)
"""


def test_the_failed_variants_alone_are_run_again_and_load_beside_the_others(
    tmp_path: Path,
) -> None:
    """A system that answers differently each time could not run the plan again: the
    variants it had answered were refused by the load (user trial). --only-failed runs the
    failed ones alone, with the output ids the whole plan's run would have given them."""
    invoke = _cedar_cli(tmp_path)
    plan_file = tmp_path / "plan.jsonl"
    invoke("interventions", "plan", "--run", "sys-a", "-o", str(plan_file))
    variants = read_plan(plan_file)
    flaky = [
        n for n, i in enumerate(variants, 1) if not str(i["question_text"]).startswith("Who holds")
    ]
    first, retry = tmp_path / "answers.jsonl", tmp_path / "retry.jsonl"
    run = ("interventions", "run", "--plan", str(plan_file), "--load")
    invoke(*run, "--system", _script(tmp_path, "flaky", FLAKY), "-o", str(first), code=1)
    failed = first.with_name(first.name + ".failed.jsonl")
    out = invoke(
        *run, "--system", _script(tmp_path, "all", ANSWERS_ALL), "-o", str(retry),
        "--only-failed", str(failed),
    )  # fmt: skip
    assert f"{len(flaky)} variant(s) answered (0 abstained), 0 failed" in out
    assert "loaded into" in out
    outputs = sorted(
        o["id"].rpartition("/variant-")[2] for line in retry.read_text("utf-8").splitlines()[1:]
        for o in json.loads(line).get("outputs") or []
    )  # fmt: skip
    assert outputs == sorted(f"{n}/o1" for n in flaky) and flaky != list(range(1, len(flaky) + 1))
    # A failed variant this plan does not hold is named.
    other = tmp_path / "other.failed.jsonl"
    other.write_text(json.dumps({"run": "sys-a", "question": "nope", "variant": "x"}) + "\n")
    refused = invoke(*run, "--system", "true", "-o", str(tmp_path / "x.jsonl"),
                     "--only-failed", str(other), code=2)  # fmt: skip
    assert "line 1: a failed variant this plan does not hold" in refused


def test_a_failing_correctness_judge_stops_the_answers_from_loading(tmp_path: Path) -> None:
    """Loaded, answers a failed judge left unknown stay unknown for the run; exit 0 told a
    CI step nothing (user trial; as `import rag` does)."""
    invoke = _cedar_cli(tmp_path)
    plan_file, answers = tmp_path / "plan.jsonl", tmp_path / "answers.jsonl"
    invoke("interventions", "plan", "--run", "sys-a", "-o", str(plan_file))
    out = invoke(
        "interventions", "run", "--plan", str(plan_file), "-o", str(answers), "--load",
        "--system", _script(tmp_path, "all", ANSWERS_ALL),
        "--correctness-judge", _script(tmp_path, "judge", "import sys; sys.exit(4)"),
        code=1,
    )  # fmt: skip
    assert "the correctness judge failed for" in out and "is written but not loaded" in out
    assert answers.exists() and "loaded into" not in out


ODD_CITES = """
import json, sys
request = json.load(sys.stdin)
question = request["question"]
if question.startswith("Who holds"):
    json.dump({"answer": None, "abstained": True, "cites": ["no-such-span"]}, sys.stdout)
elif question.startswith("When"):
    json.dump({"answer": "R", "cites": [""]}, sys.stdout)
else:
    json.dump({"answer": "R", "cites": request["citable"]}, sys.stdout)
"""


def test_the_store_check_skips_abstentions_and_fails_a_cite_no_span_id_can_be(
    tmp_path: Path,
) -> None:
    """An abstention writes no output, so its cites are not asked of the store; an empty
    cite is a failed variant (no span id can be empty), not a crash after the run. The
    store is opened only once the answers are in, and only when a cite must be asked."""
    from hopgate.api import run_interventions
    from hopgate.interventions.run import UNKNOWN_CITES

    store = _store()
    plan_file = tmp_path / "plan.jsonl"
    planned = plan(store, "sys-a")
    write_plan(planned, plan_file)
    variants = planned.variants
    texts = [str(i.get("question_text")) for i in variants]
    when = sum(1 for t in texts if t.startswith("When"))
    assert when and any(t.startswith("Who holds") for t in texts)
    asked: list[int] = []

    def opened() -> Store:
        asked.append(len(asked))
        return store

    result = run_interventions(
        plan_file,
        system=_script(tmp_path, "odd", ODD_CITES),
        output=tmp_path / "answers.jsonl",
        store=opened,
    )
    assert [f["reason"] for f in result.failed] == [f"{UNKNOWN_CITES}: ''"] * when
    # Nothing outside a context was a span id to ask about: the store was never opened.
    assert result.answered == len(variants) - when and asked == []
    hopgate.load(store, tmp_path / "answers.jsonl")


def test_answers_restating_loaded_intervention_cases_are_a_conflict_naming_them(
    tmp_path: Path,
) -> None:
    """A second answers file for a plan already answered and loaded: a ConflictError
    naming each intervention case by its key (it used to end in "ValueError: not a
    hopgate record IRI"), and the store left as it was."""
    from hopgate.errors import ConflictError

    store = _store()
    planned = plan(store, "sys-a", variants=("gold-only",), max_sets=1)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    run_plan(planned.variants, BUILTIN_BM25, first)
    hopgate.load(store, first)
    run_plan(planned.variants, _script(tmp_path, "abstains", ALWAYS_ABSTAINS), second)
    before = store.count()
    with pytest.raises(ConflictError, match="answered once") as caught:
        hopgate.load(store, second)
    assert {kind for kind, _ in caught.value.conflicts} == {"intervention case"}
    assert any(
        key.startswith("sys-a qA ") and " gold-only " in key for _, key in caught.value.conflicts
    )
    assert store.count() == before


REMEMBERS = """
import json, sys
request = json.load(sys.stdin)
json.dump({"answer": "Entity R", "cites": request["citable"], "correct": True}, sys.stdout)
"""


def _agreement(store: Store) -> tuple[int, int]:
    figure = metrics(store, run="sys-a")["sys-a"].interventions["all"]["outcome_agreement"]
    return figure.numerator, figure.denominator


def test_scored_against_the_recorded_plan_not_the_answers_file(tmp_path: Path) -> None:
    """Issue 25: a system writing its own answers file widened `citable` (and `retrieved`)
    to every span it cited, the remembered hop included, and outcome agreement rose
    from 9/37 to 27/37. The plan recorded in the store decides what was supplied and
    citable, so the widened file scores as the honest one does."""
    system = _script(tmp_path, "remembers", REMEMBERS)
    (tmp_path / "honest").mkdir()
    honest_store, _, _ = _answered(tmp_path / "honest", system)
    assert _agreement(honest_store) == (9, 37)
    store = _store()
    result = plan(store, "sys-a")
    answers = tmp_path / "widened.jsonl"
    run_plan(result.variants, system, answers)
    lines = [json.loads(line) for line in answers.read_text("utf-8").splitlines()]
    for case, item in zip(lines[1:], result.variants, strict=True):
        everything = sorted(
            {c["id"] for c in item["context"]} | ({item["member"]} if item.get("member") else set())
        )
        case["intervention"]["citable"] = everything
        case["retrieved"] = everything
        for output in case.get("outputs", []):
            output["cites"] = everything
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    hopgate.load(store, answers)
    evaluate(store, run="sys-a")
    assert _agreement(store) == (9, 37)
    classes = _classes(store)
    # The removed hop, cited: an unsupported synthesis, whatever the file says was citable.
    assert classes[("gA1", "hop-removal", "a1")] == (v.ABSTENTION, v.UNSUPPORTED_SYNTHESIS)
    hop = [o for o in _latest_outcomes(store) if o.variant == "hop-removal"]
    assert all(o.cited_outside_context for o in hop if o.member == "a1")


def test_unplanned_answers_are_shown_but_never_counted(tmp_path: Path) -> None:
    store = _store()
    case = {
        "type": "case",
        "run": "sys-a",
        "question": "qA",
        "intervention": {"set": "gA1", "variant": "hop-removal", "member": "a1"},
        "retrieved": ["a1", "a2"],
        "outputs": [{"id": "x/o1", "claim": "cA", "correct": True, "cites": ["a1", "a2"]}],
    }
    path = tmp_path / "unplanned.jsonl"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    hopgate.load(store, path)
    evaluate(store, run="sys-a")
    [outcome] = _latest_outcomes(store)
    assert outcome.unplanned and outcome.observed == v.SUPPORTED_ANSWER
    assert figures([outcome]) == {}
    assert metrics(store, run="sys-a")["sys-a"].interventions == {}


def test_a_plan_recorded_after_an_evaluation_makes_it_stale_and_a_plan_may_follow() -> None:
    """records.md "Staleness": an evaluation scores the run's intervention answers against
    every plan of the run recorded before it, so a plan recorded after it changes what it
    would record (a card's item "none" becomes "planned, not run"). The run was left
    current, `evaluate` kept the old evaluation and `gate` passed on it. A second plan may
    still be made from the evaluation (its verdicts and loads stand)."""
    store = _store()
    assert not catalog.staleness(store, "sys-a").stale
    plan(store, "sys-a")
    state = catalog.staleness(store, "sys-a")
    assert state.stale and state.by_plan and "intervention plan" in str(state.reason)
    assert catalog.states(store, ["sys-a"])["sys-a"] == state
    plan(store, "sys-a")  # from the same evaluation
    [record] = evaluate(store)  # the stale runs only
    assert not record.reused
    assert not catalog.staleness(store, "sys-a").stale
    assert "planned, not run" in {
        c.interventions["item"] for c in verdicts(store, run="sys-a") if c.interventions
    }
    # The plans it read are recorded (hg:sawPlans): no clock decides it.
    latest = catalog.latest(store, "sys-a")
    assert latest is not None and latest.saw_plans is not None


def test_a_load_that_stales_a_run_is_named_before_a_plan() -> None:
    """A plan must not hide a load the run depends on: such an evaluation is stale by the
    load (not by_plan), and no plan is made from it."""
    store = _store()
    plan(store, "sys-a")
    hopgate.load(store, Path(__file__).parents[1] / "fixtures" / "ledgers" / "more-for-a.yaml")
    state = catalog.staleness(store, "sys-a")
    assert state.stale and not state.by_plan and "load(s) since" in str(state.reason)
    with pytest.raises(PlanError, match="no current evaluation"):
        plan(store, "sys-a")


@pytest.mark.parametrize(
    "fixture", ["intervention-beside-a-bundle", "intervention-replacement-unreadable-elsewhere"]
)
def test_an_intervention_case_is_scored_beside_another_run_s_bundle(fixture: str) -> None:
    """Random ledgers of tests/decide/test_property.py (falsifying examples of two CI
    runs): on a store holding run-0's bundle, run-1's contradiction case left
    evaluation-interventions.rq when the scratch graph was bound by VALUES, which does
    not bind inside a UNION branch: its OPTIONAL on ?scratch matched in that bundle,
    and the row failed the join with VALUES (the evaluation raised "not a hopgate IRI:
    None" or recorded no outcome). The scratch graph is now written in as a constant
    (hopgate.store.terms.bind_parameters), as it was for Virtuoso."""
    ledger = Path(__file__).parents[1] / "fixtures" / "ledgers" / f"{fixture}.json"
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    evaluate(store, run="run-0")
    evaluate(store, run="run-1")
    [outcome] = _latest_outcomes(store, "run-1")
    assert (outcome.question, outcome.variant, outcome.member) == ("q0", "contradiction", "s0")
