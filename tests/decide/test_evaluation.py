"""The evaluation (hopgate.decide.evaluation): one bundle of acceptance cards per run,
recorded as provenance, revised and never overwritten (docs/spec/records.md "Records").

What the cards decide is tested against the spec in tests/audit/test_verdicts.py and
against the plain-Python model in tests/decide/test_spec_model.py and test_property.py.
Issue 15: an evaluation names the person on whose behalf it ran; the OS user name is
never recorded unless asked.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import CEDAR
from evaluated import verdicts

import hopgate
from hopgate.cli import cli
from hopgate.decide.evaluation import EvaluationRecord, evaluate
from hopgate.errors import HopgateError
from hopgate.store.catalog import latest

PERSONS = """
SELECT ?activity ?name WHERE {
  GRAPH <https://w3id.org/hopgate/id/catalog> {
    ?activity prov:wasAssociatedWith ?person .
    ?person a prov:Person ; hg:ledgerId ?name .
    ?software a prov:SoftwareAgent ; prov:actedOnBehalfOf ?person .
  }
}
"""


# ---- responsible persons ------------------------------------------------------------


def test_evaluate_by_records_the_person_and_the_picture_shows_it(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    assert runner.invoke(cli, [*store, "load", str(CEDAR)]).exit_code == 0
    result = runner.invoke(cli, [*store, "evaluate", "--run", "sys-a"], env={"HOPGATE_USER": "Ann"})
    assert result.exit_code == 0, result.output
    rows = runner.invoke(cli, [*store, "query", PERSONS, "--format", "csv"]).output
    assert "sys-a@" in rows and ",Ann" in rows
    dot = runner.invoke(cli, [*store, "export", "--card", "sys-a/qA/o1", "--format", "dot"]).output
    assert "on behalf of Ann" in dot
    bundle = runner.invoke(cli, [*store, "export", "--run", "sys-a", "--format", "provn"]).output
    assert "actedOnBehalfOf(agent:hopgate%200.1.0, agent:Ann" in bundle


def test_the_os_user_is_not_recorded_unless_asked(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    assert (
        runner.invoke(cli, [*store, "load", str(CEDAR)], env={"HOPGATE_USER": None}).exit_code == 0
    )
    assert runner.invoke(cli, [*store, "evaluate"], env={"HOPGATE_USER": None}).exit_code == 0
    dump = runner.invoke(cli, [*store, "dump", "--format", "nquads"]).output
    user = getpass.getuser()
    assert f'"{user}"' not in dump and "unknown user" not in dump
    assert "prov#Person" not in dump
    # Asked: the load names the person.
    other = tmp_path / "other.yaml"
    other.write_text("ledger: 1\nreaders:\n  - id: auditor\n")
    result = runner.invoke(cli, [*store, "load", str(other), "--by", "Bo"])
    assert result.exit_code == 0, result.output
    rows = runner.invoke(cli, [*store, "query", PERSONS, "--format", "csv"]).output
    assert "Bo" in rows


# ---- evaluation as provenance ---------------------------------------------------------


def test_results_are_never_stale(
    store: hopgate.OxigraphStore, minimal_ledger: Any, write_ledger: Any
) -> None:
    ledger = minimal_ledger()
    hopgate.load(store, write_ledger(ledger))
    assert [r.verdict for r in verdicts(store)] == ["revise-citations"]
    first = latest(store, "sys-a")
    assert first is not None
    # New evidence: an adjudicated single-span route that the output cites.
    more = {
        "ledger": 1,
        "evidence_sets": [
            {
                "id": "g-direct",
                "claim": "c1",
                "members": ["a2"],
                "inference": "direct statement",
                "status": "adjudicated",
                "annotation": {"version": 2, "by": "reviewer", "at": "2026-10-06"},
            }
        ],
    }
    hopgate.load(store, write_ledger(more, name="more"))
    assert [r.verdict for r in verdicts(store)] == ["accept"]
    second = latest(store, "sys-a")
    assert second is not None and second.bundle != first.bundle
    assert store.ask(
        "ASK { ?new prov:wasRevisionOf ?old }",
        params={"new": hopgate.IRI(second.bundle), "old": hopgate.IRI(first.bundle)},
    )
    assert first.bundle in store.graphs()  # history stays


def test_evaluating_an_unchanged_store_reuses_the_bundle(
    store: hopgate.OxigraphStore,
) -> None:
    hopgate.load(store, CEDAR)
    first = evaluate(store)[0]
    again = evaluate(store)[0]
    assert again.reused and again.graph == first.graph and again.cards == 4
    forced = evaluate(store, force=True)[0]
    assert not forced.reused and forced.graph != first.graph


def test_evaluation_bundle_provenance(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, CEDAR)
    record = evaluate(store)[0]
    rows = store.select(
        "SELECT ?start ?end ?agent ?used WHERE { ?a prov:startedAtTime ?start ; "
        "prov:endedAtTime ?end ; prov:wasAssociatedWith ?agent ; prov:used ?used }",
        params={"a": hopgate.IRI(record.activity)},
    )
    assert rows and all(r["start"] <= r["end"] for r in rows)  # type: ignore[operator]
    assert any("hopgate" in str(r["agent"]) for r in rows)
    assert {str(r["used"]) for r in rows} >= {g for g in store.graphs() if "/load/" in g}
    assert store.ask(
        "ASK { GRAPH ?b { ?card a hg:AcceptanceCard ; hg:verdict hg:Accept ; hg:jointSupport ?rule } "
        "?rule prov:value ?text }",
        params={"b": hopgate.IRI(record.graph)},
    )


# ---- what evaluate returns ------------------------------------------------------------


def test_an_evaluation_records_one_card_per_output_and_one_record_per_claim_case(
    store: hopgate.OxigraphStore,
) -> None:
    hopgate.load(store, CEDAR)
    [record] = evaluate(store)
    assert isinstance(record, EvaluationRecord)
    assert (record.run, record.cards, record.claim_cases, record.reused) == ("sys-a", 4, 4, False)
    cards = store.select(
        "SELECT ?card WHERE { GRAPH ?b { ?card a hg:AcceptanceCard } }",
        params={"b": hopgate.IRI(record.graph)},
    )
    assert len(cards) == record.cards
    found = latest(store, "sys-a")
    assert found is not None and (found.bundle, found.activity) == (record.graph, record.activity)


def test_an_unknown_run_or_an_empty_store_is_refused(store: hopgate.OxigraphStore) -> None:
    with pytest.raises(HopgateError, match="holds no run to evaluate"):
        evaluate(store)
    hopgate.load(store, CEDAR)
    before = store.count()
    with pytest.raises(HopgateError, match=r"unknown run 'nope' \(runs in the store: sys-a\)"):
        evaluate(store, run="nope")
    assert store.count() == before


def test_evaluating_one_run_leaves_the_others_alone(
    store: hopgate.OxigraphStore, write_ledger: Any
) -> None:
    hopgate.load(store, CEDAR)
    cedar = yaml.safe_load(CEDAR.read_text(encoding="utf-8"))
    case = cedar["cases"][0]
    output = dict(case["outputs"][0], id="sys-b/qA/o1")
    other = {
        "ledger": 1,
        "runs": [dict(cedar["runs"][0], id="sys-b")],
        "cases": [dict(case, run="sys-b", outputs=[output])],
    }
    hopgate.load(store, write_ledger(other, name="sys-b"))
    [record] = evaluate(store, run="sys-b")
    assert (record.run, record.cards) == ("sys-b", 1)
    assert latest(store, "sys-a") is None


# ---- one working copy for the runs of one evaluate (bench/speed-design.md "D2") -------

SECOND_LOAD = """
ledger: 1
runs:
  - {id: sys-b, evaluation: eval-oct, system: rag-v3, started_at: 2026-10-06T09:00:00Z}
  - {id: sys-c, evaluation: eval-oct, system: rag-v3, started_at: 2026-10-06T10:00:00Z}
cases:
  - run: sys-b
    question: qA
    retrieved: [a1, a2]
    outputs:
      - {id: sys-b/qA/o1, text: "Entity R holds Cedar's rights.", claim: cA, correct: true, cites: [a1, a2]}
  - run: sys-c
    question: qC
    retrieved: [c3]
    outputs:
      - {id: sys-c/qC/o1, text: "Vendor V supplies Cedar's interface Q.", claim: cC, correct: true, cites: [c3]}
"""


def test_runs_evaluated_together_get_the_cards_they_get_alone(tmp_path: Path) -> None:
    """Runs of one ``evaluate`` share a working copy only when their inputs are the same:
    sys-a's inputs are the first load, sys-b's and sys-c's both loads, and every card
    is what the run's evaluation alone (in its own store) decides."""
    second = tmp_path / "second.yaml"
    second.write_text(SECOND_LOAD, encoding="utf-8")

    def fresh(name: str) -> hopgate.OxigraphStore:
        store = hopgate.open_store(tmp_path / name)
        hopgate.load(store, CEDAR)
        hopgate.load(store, second)
        return store

    together = fresh("together")
    assert [r.run for r in evaluate(together)] == ["sys-a", "sys-b", "sys-c"]
    rows = {r.output: r.as_dict() for r in verdicts(together)}
    alone = {}
    for run in ("sys-c", "sys-a", "sys-b"):  # another order, one run per evaluate
        store = fresh(f"alone-{run}")
        evaluate(store, run=run)
        alone.update({r.output: r.as_dict() for r in verdicts(store, run=run)})
    drop = ("card", "evaluation")
    assert {o: {k: v for k, v in r.items() if k not in drop} for o, r in rows.items()} == {
        o: {k: v for k, v in r.items() if k not in drop} for o, r in alone.items()
    }
    assert {"sys-a/qA/o1", "sys-b/qA/o1", "sys-c/qC/o1"} <= rows.keys()
