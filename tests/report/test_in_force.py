"""What the report, ``explain``, the gate's reasons and the card picture say after final judgments.

docs/spec/adjudication.md "Effect on scoring": eligibility reads a set's status
in force (each card names the annotation version it used, ``hg:routeVersion``);
a final ``contradiction`` judgment resolves a contradiction, and its decision
with its reason is the treatment the card shows; a final ``boundary`` judgment
decides an extra assertion's verdict. The verdicts already followed them; these
outputs showed what was loaded, so a report could say "gC2 (proposed, not
eligible)" beside "Accept: ... the eligible evidence set gC2".
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR

import hopgate
from hopgate.api import build_report, render_report
from hopgate.audit.results import verdicts
from hopgate.bundles.picture import card_dot
from hopgate.bundles.scope import resolve_scope
from hopgate.decide.evaluation import evaluate
from hopgate.report.explain import explain
from hopgate.store import Store

Ledger = dict[str, Any]


def _cedar() -> Ledger:
    ledger: Ledger = yaml.safe_load(CEDAR.read_text(encoding="utf-8"))
    return copy.deepcopy(ledger)


def _final(ident: str, subject: str, question: str, decision: str, reason: str) -> Ledger:
    return {
        "id": ident,
        "subject": subject,
        "question": question,
        "decision": decision,
        "by": "adjudicator",
        "at": "2026-10-06T10:00:00Z",
        "reason": reason,
        "final": True,
    }


def _loaded(tmp_path: Path, ledger: Ledger, *judgments: Ledger) -> Store:
    """A memory store with ``ledger``, then its final ``judgments`` in a later file, evaluated."""
    store = hopgate.open_store(None)
    for name, data in (("base", ledger), ("final", {"ledger": 1, "judgments": list(judgments)})):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        hopgate.load(store, path)
    evaluate(store)
    return store


def _report_card(store: Store, output: str) -> dict[str, Any]:
    data = json.loads(render_report(build_report(store, run="sys-a", pictures=0), format="json"))
    [card] = [c for c in data["cards"] if c["output"] == output]
    return card


def _steps(store: Store, output: str, step: str) -> list[str]:
    return [s.sentence for s in explain(store, output).steps if s.step == step]


def _picture_labels(store: Store, output: str) -> list[str]:
    [row] = [r for r in verdicts(store, run="sys-a") if r.output == output]
    dot = card_dot(store, resolve_scope(store, card=row.card))
    return [line.strip() for line in dot.splitlines() if "evidence set" in line]


@pytest.mark.parametrize(
    ("loaded", "judged", "status", "version", "eligible", "verdict"),
    [
        pytest.param("proposed", "sufficient", "adjudicated", 2, True, "accept", id="judged-in"),
        pytest.param("adjudicated", "insufficient", "rejected", 3, False, "revise-citations",
                     id="judged-out"),
    ],
)  # fmt: skip
def test_a_set_is_shown_with_its_status_in_force(
    tmp_path: Path,
    loaded: str,
    judged: str,
    status: str,
    version: int,
    eligible: bool,
    verdict: str,
) -> None:
    ledger = _cedar()
    for found in ledger["evidence_sets"]:
        if found["id"] == "gC2":
            found["status"] = loaded
            found["annotation"]["version"] = version - 1
    ledger["judgments"] = []
    question = "alternatives" if judged == "sufficient" else "entailment"
    with _loaded(tmp_path, ledger, _final("jf", "gC2", question, judged, "read both")) as store:
        card = _report_card(store, "sys-a/qC/o1")
        assert card["verdict"] == verdict
        [shown] = [s for s in card["sets"] if s["id"] == "gC2"]
        assert (shown["status"], shown["annotation_version"]) == (status, version)
        assert shown["eligible"] is eligible
        [sentence] = [s for s in _steps(store, "sys-a/qC/o1", "eligibility") if "gC2" in s]
        said = f"({status}, 2 member(s)" if eligible else f"its status is {status},"
        assert said in sentence, sentence
        [label] = [label for label in _picture_labels(store, "sys-a/qC/o1") if "gC2" in label]
        assert f"gC2\\n{status}" in label


def _with_unresolved_k1(ledger: Ledger) -> Ledger:
    [k1] = ledger["contradictions"]
    k1["status"] = "unresolved"
    k1.pop("decision", None)
    ledger["judgments"] = []
    return ledger


def test_a_contradiction_resolved_by_a_judgment_is_shown_resolved(tmp_path: Path) -> None:
    """k1 resolved by a final judgment, k2 of the same claim not: only k2 escalates the card,
    and k1's treatment is the judgment's decision with its reason."""
    ledger = _with_unresolved_k1(_cedar())
    ledger["contradictions"].append(
        {"id": "k2", "claim": "cA", "span": "c3", "status": "unresolved"}
    )
    judged = _final("jk", "k1", "contradiction", "material", "superseded by registry@3")
    with _loaded(tmp_path, ledger, judged) as store:
        card = _report_card(store, "sys-a/qA/o1")
        assert card["verdict"] == "escalate"
        assert {c["id"]: c["status"] for c in card["contradictions"]} == {
            "k1": "resolved",
            "k2": "unresolved",
        }
        assert "unresolved contradiction (k2)" in card["reason"]
        said = _steps(store, "sys-a/qA/o1", "contradiction")
        assert any("k1" in s and "resolved: material: superseded by registry@3" in s for s in said)
        assert not any("k1" in s and "unresolved" in s for s in said)
        [row] = [r for r in verdicts(store, run="sys-a") if r.output == "sys-a/qA/o1"]
        assert {c["id"]: c["decision"] for c in row.contradictions}["k1"] == (
            "material: superseded by registry@3"
        )


@pytest.mark.parametrize(
    ("decision", "verdict", "said"),
    [
        ("new-claim", "escalate", "recorded it as a new claim for annotation"),
        ("not-a-claim", "accept", "found it is not a claim"),
        ("unsupported", "reject", "found it unsupported"),
    ],
)
def test_an_extra_assertion_decided_by_a_boundary_judgment(
    tmp_path: Path, decision: str, verdict: str, said: str
) -> None:
    ledger = _cedar()
    [case] = [c for c in ledger["cases"] if c["question"] == "qB"]
    extra = {"id": "sys-a/qB/extra", "text": "Birch is old.", "claim": None, "correct": True}
    case["outputs"].append(extra)
    judged = _final("jx", "sys-a/qB/extra", "boundary", decision, "reviewed the sentence")
    with _loaded(tmp_path, ledger, judged) as store:
        card = _report_card(store, "sys-a/qB/extra")
        assert card["verdict"] == verdict
        assert card["rule"] == f"boundary-{decision}"
        assert f"the final boundary judgment jx {said}" in card["reason"]
        assert 'docs/spec/adjudication.md "Effect on scoring", rule boundary' in card["reason"]
        [sentence] = _steps(store, "sys-a/qB/extra", "verdict")
        assert sentence.startswith(card["reason"])
