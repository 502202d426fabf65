"""The catalog (hopgate.store.catalog): which loads and evaluations the store holds, and
whether a run's latest evaluation is current (docs/spec/records.md "Staleness").

Reads never write and never evaluate: a stale run is read as recorded, with the reason.
Staleness is per run: a load that only another run reads leaves a run current.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from click.testing import Result
from conftest import CEDAR, CEDAR_VERDICTS, EXAMPLES, LEDGERS

import hopgate
from hopgate import ids
from hopgate.decide.evaluation import evaluate
from hopgate.library.artefacts import library_query
from hopgate.store import IRI, catalog
from hopgate.vocab import CATALOG_GRAPH

MORE_FOR_A = LEDGERS / "more-for-a.yaml"
Hopgate = Callable[..., Result]


# ---- what the catalog lists -------------------------------------------------------------


def test_a_load_and_an_evaluation_are_listed(store: hopgate.OxigraphStore) -> None:
    assert (catalog.runs(store), catalog.load_graphs(store), catalog.evaluations(store)) == (
        [],
        [],
        [],
    )
    loaded = hopgate.load(store, CEDAR)
    assert catalog.runs(store) == ["sys-a"]
    assert catalog.load_graphs(store) == [loaded.graph]
    assert catalog.latest(store, "sys-a") is None
    assert catalog.staleness(store, "sys-a").reason == "run 'sys-a' has never been evaluated"
    (record,) = evaluate(store)
    [found] = catalog.evaluations(store)
    assert found == catalog.latest(store, "sys-a")
    assert (found.run, found.bundle, found.used) == ("sys-a", record.graph, (loaded.graph,))
    assert catalog.run_inputs(store, "sys-a") == [loaded.graph]
    assert catalog.staleness(store, "sys-a") == catalog.Staleness(
        "sys-a", False, None, found, (loaded.graph,)
    )


def _walked(store: hopgate.OxigraphStore, run: str) -> list[str]:
    """queries/run-inputs.rq itself, without the one-load shortcut of catalog.run_inputs."""
    rows = store.select(library_query("run-inputs").text, params={"run": IRI(ids.mint("run", run))})
    return sorted({str(row["g"]) for row in rows} & set(catalog.load_graphs(store)))


def test_the_one_load_shortcut_answers_as_the_walk(store: hopgate.OxigraphStore) -> None:
    """With one load graph defining the run, run_inputs skips the walk: same answer;
    with a second load the walk decides (and a graph about the run is among its inputs)."""
    first = hopgate.load(store, CEDAR)
    assert catalog.run_inputs(store, "sys-a") == _walked(store, "sys-a") == [first.graph]
    more = hopgate.load(store, MORE_FOR_A)
    both = sorted([first.graph, more.graph])
    assert catalog.run_inputs(store, "sys-a") == _walked(store, "sys-a") == both


def test_evaluations_are_listed_oldest_first(store: hopgate.OxigraphStore) -> None:
    hopgate.load(store, CEDAR)
    first = evaluate(store)[0].graph
    second = evaluate(store, force=True)[0].graph
    assert [e.bundle for e in catalog.evaluations(store, "sys-a")] == [first, second]
    assert catalog.evaluations(store, "no-such-run") == []
    latest = catalog.latest(store, "sys-a")
    assert latest is not None and latest.bundle == second


def test_a_run_whose_load_is_gone_is_stale(store: hopgate.OxigraphStore) -> None:
    loaded = hopgate.load(store, CEDAR)
    evaluate(store)
    more = hopgate.load(store, MORE_FOR_A)
    assert catalog.new_inputs(store, "sys-a", [more.graph]) == {more.graph: True}
    # The load's catalog entry is what publishes it: without it, the load is gone.
    store.update(
        "DELETE { GRAPH ?c { ?g prov:wasGeneratedBy ?a } } WHERE { GRAPH ?c { ?g prov:wasGeneratedBy ?a } }",
        params={"c": IRI(CATALOG_GRAPH), "g": IRI(loaded.graph)},
    )
    found = catalog.staleness(store, "sys-a")
    assert found.stale and found.reason == f"a load it used is gone ({loaded.graph})"


def test_no_load_since_the_evaluation_asks_none_of_the_loads_it_did_not_use(
    store: hopgate.OxigraphStore, monkeypatch: Any
) -> None:
    """The evaluation records the loads it decided its inputs among (``hg:sawLoads``):
    while no load is published since, staleness asks none of the others (one query
    each: 46 ms a load on Virtuoso, paid by every read); once one is, it asks them all,
    and an evaluation recorded without the digest is checked as before."""
    hopgate.load(store, CEDAR)
    other = hopgate.load(store, EXAMPLES / "withheld.yaml")
    evaluate(store)
    asked: list[list[str]] = []
    real = catalog.new_inputs

    def counted(store: Any, run: str, graphs: list[str]) -> list[str]:
        asked.append(list(graphs))
        return real(store, run, graphs)

    monkeypatch.setattr(catalog, "new_inputs", counted)
    found = catalog.staleness(store, "sys-a")
    assert not found.stale and found.inputs == found.evaluation.used  # type: ignore[union-attr]
    assert other.graph not in found.inputs and asked == []
    more = hopgate.load(store, MORE_FOR_A)
    found = catalog.staleness(store, "sys-a")
    assert found.stale and asked == [sorted([other.graph, more.graph])]
    evaluate(store)
    asked.clear()
    assert not catalog.staleness(store, "sys-a").stale and asked == []
    # An evaluation recorded without the digest (an earlier release): every unused load asked.
    store.update(
        "DELETE { GRAPH ?c { ?a hg:sawLoads ?d } } WHERE { GRAPH ?c { ?a hg:sawLoads ?d } }",
        params={"c": IRI(CATALOG_GRAPH)},
    )
    asked.clear()
    found = catalog.staleness(store, "sys-a")
    assert not found.stale and asked == [[other.graph]]


# ---- reads never write -------------------------------------------------------------------


def _quads(tmp_path: Path) -> int:
    with hopgate.open_store(tmp_path / "store") as store:
        return store.count()


def test_reads_never_evaluate_and_say_when_a_run_is_stale(hg: Hopgate, tmp_path: Path) -> None:
    assert hg("load", str(CEDAR)).exit_code == 0
    # Never evaluated: reads show nothing and say how to evaluate; the gate fails.
    never = hg("verdicts", "--format", "json")
    assert json.loads(never.stdout) == [] and "`hopgate evaluate` makes one" in never.stderr
    named = hg("verdicts", "--run", "sys-a")
    assert named.exit_code == 2 and "hopgate evaluate" in named.output
    quads = _quads(tmp_path)
    gate = hg("gate", "--run", "sys-a")
    assert gate.exit_code == 1 and "never been evaluated" in gate.output
    assert _quads(tmp_path) == quads
    assert hg("evaluate").exit_code == 0
    # Evidence for claim A arrives: the run is stale until evaluated again.
    assert hg("load", str(MORE_FOR_A)).exit_code == 0
    quads = _quads(tmp_path)
    for args in (
        ("verdicts", "--format", "json"),
        ("metrics", "--format", "json"),
        ("gate", "--run", "sys-a"),
        ("export", "--run", "sys-a", "--format", "trig"),
        ("validate",),
        ("stats",),
    ):
        hg(*args)
        assert _quads(tmp_path) == quads, args
    shown = hg("verdicts", "--format", "json")
    rows = json.loads(shown.stdout)
    assert {r["output"]: r["verdict"] for r in rows} == CEDAR_VERDICTS  # as recorded
    assert all(r["stale"] and "load" in r["stale_reason"] for r in rows)
    assert "stale" in shown.stderr
    assert json.loads(hg("metrics", "--format", "json").stdout)["sys-a"]["stale"] is True
    gate = hg("gate", "--run", "sys-a")
    assert gate.exit_code == 1 and "not current" in gate.output
    evaluated = hg("gate", "--run", "sys-a", "--evaluate")
    assert "not current" not in evaluated.output
    rows = json.loads(hg("verdicts", "--format", "json").stdout)
    assert not any(r["stale"] for r in rows)
    assert {r["output"]: r["verdict"] for r in rows}["sys-a/qA/o1"] == "accept"


# ---- staleness per run --------------------------------------------------------------------


def _other_run(tmp_path: Path) -> Path:
    """A second run on the worked example's questions, in a ledger of its own."""
    cedar = yaml.safe_load(CEDAR.read_text(encoding="utf-8"))
    run = dict(cedar["runs"][0], id="sys-b")
    cases = [
        dict(
            case,
            run="sys-b",
            outputs=[dict(o, id=o["id"].replace("sys-a", "sys-b")) for o in case["outputs"]],
        )
        for case in cedar["cases"]
    ]
    path = tmp_path / "sys-b.yaml"
    ledger: dict[str, Any] = {"ledger": 1, "runs": [run], "cases": cases}
    path.write_text(yaml.safe_dump(ledger, sort_keys=False), encoding="utf-8")
    return path


def test_loading_another_runs_cases_leaves_a_run_current(tmp_path: Path) -> None:
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    evaluate(store)
    hopgate.load(store, _other_run(tmp_path))
    assert not catalog.staleness(store, "sys-a").stale
    assert catalog.staleness(store, "sys-b").stale
    records = {r.run: r for r in evaluate(store)}
    assert records["sys-a"].reused and not records["sys-b"].reused
    used_a = catalog.latest(store, "sys-a")
    used_b = catalog.latest(store, "sys-b")
    assert used_a is not None and used_b is not None
    assert len(used_b.used) == 2 and len(used_a.used) == 1  # sys-a never read sys-b's load
    # Evidence for a claim both runs require makes both stale.
    hopgate.load(store, MORE_FOR_A)
    assert catalog.staleness(store, "sys-a").stale and catalog.staleness(store, "sys-b").stale
    store.close()


def test_the_states_of_every_run_read_together_are_each_runs_staleness(tmp_path: Path) -> None:
    """catalog.states (one read of the loads and of the evaluations for every run) says
    what catalog.staleness says run by run: never evaluated, current, stale."""
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    other = _other_run(tmp_path)
    hopgate.load(store, other)
    runs = ["sys-a", "sys-b"]

    def one_by_one() -> dict[str, catalog.Staleness]:
        return {run: catalog.staleness(store, run) for run in runs}

    seen = []
    for step in ("none evaluated", "one evaluated", "both evaluated", "both stale"):
        if step == "one evaluated":
            evaluate(store, run="sys-a")
        elif step == "both evaluated":
            evaluate(store)
            evaluate(store, run="sys-a", force=True)  # a second evaluation: the latest counts
        elif step == "both stale":
            hopgate.load(store, MORE_FOR_A)
        together = catalog.states(store, runs)
        assert together == one_by_one(), step
        assert list(together) == runs
        seen.append(tuple(state.stale for state in together.values()))
    assert seen == [(True, True), (False, True), (False, False), (True, True)]
    store.close()


def test_the_walks_predicates_are_every_predicate_its_patterns_match() -> None:
    # The check that lets Virtuoso walk a run's inputs over every graph asks which
    # graphs hold these predicates: one missed would let another graph's step through.
    from rdflib.plugins.sparql import prepareQuery
    from rdflib.term import URIRef, Variable

    from hopgate.vocab import RDF, sparql_prologue

    parsed = prepareQuery(sparql_prologue() + library_query("run-inputs").text)
    found: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            # dict.get: a CompValue's own get answers a missing key with its name.
            triples = dict.get(node, "triples")
            for triple in triples if isinstance(triples, list) else []:
                predicate = triple[1]
                assert not isinstance(predicate, Variable), "a variable predicate matches any"
                if isinstance(predicate, URIRef):
                    found.add(str(predicate))
            for value in node.values():
                visit(value)
        elif isinstance(node, list | tuple):
            for value in node:
                visit(value)

    visit(parsed.algebra)
    # rdf:type only in the catalog's `?load a hg:Load`, whose graph is always walked.
    assert len(found) > 10
    assert set(catalog._walk_predicates()) == found - {RDF + "type"}
