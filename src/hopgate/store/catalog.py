"""The catalog: which loads and evaluations the store holds, and whether a run's is current.

Every load graph and every evaluation bundle is published by an entry in the
catalog graph (``hg:Load`` and ``hg:EvaluationActivity`` activities, each
generating a ``prov:Bundle``); this module answers the questions asked of it
(docs/spec/records.md). It only reads.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache

from hopgate import ids
from hopgate.library.artefacts import library_query
from hopgate.store.base import IRI, Row, Store
from hopgate.store.dialect import without_comments
from hopgate.store.terms import flag
from hopgate.vocab import CATALOG_GRAPH, HG, PROV


@dataclass(frozen=True)
class Evaluation:
    """One recorded evaluation of a run: its bundle, activity, end time and the loads it used."""

    run: str
    bundle: str
    activity: str
    ended: str
    used: tuple[str, ...]
    #: :func:`loads_digest` of the load graphs the store held when the evaluation decided
    #: its inputs (``hg:sawLoads``); None for an evaluation recorded without it.
    saw: str | None = None
    #: :func:`loads_digest` of the run's intervention plan graphs the evaluation read
    #: (``hg:sawPlans``); None for an evaluation recorded without it.
    saw_plans: str | None = None


@dataclass(frozen=True)
class Staleness:
    """Whether a run's latest evaluation still decides its verdicts, and if not, why."""

    run: str
    stale: bool
    reason: str | None
    evaluation: Evaluation | None
    #: The run's input graphs when deciding needed them (:func:`run_inputs`), else None.
    inputs: tuple[str, ...] | None = None
    #: The published load graphs this was decided among, read before anything else: an
    #: evaluation records their :func:`loads_digest` (``hg:sawLoads``).
    loads: tuple[str, ...] = field(default=(), compare=False)
    #: Stale only because an intervention plan of the run was recorded after it: its
    #: verdicts and inputs stand, its intervention outcomes do not (a new plan may still
    #: be made from it).
    by_plan: bool = False
    #: Loads published since the evaluation that change only the run's review queue (a
    #: judgment that changes no card): its verdicts stand, its recorded queue does not.
    queue_since: tuple[str, ...] = ()


def runs(store: Store) -> list[str]:
    """The ledger ids of every run in the store, sorted."""
    rows = store.select("SELECT ?id WHERE { ?run a hg:Run ; hg:ledgerId ?id }")
    return sorted({str(row["id"]) for row in rows})


def load_graphs(store: Store) -> list[str]:
    """The published load graphs (evidence and runs), sorted."""
    rows = store.select(
        "SELECT ?g WHERE { GRAPH ?c { ?g prov:wasGeneratedBy ?a . ?a a hg:Load } }",
        params={"c": IRI(CATALOG_GRAPH)},
    )
    return sorted(str(row["g"]) for row in rows)


def loads_digest(graphs: Iterable[str]) -> str:
    """A digest of a set of load graphs (an evaluation's ``hg:sawLoads``)."""
    text = "\n".join(sorted(set(graphs)))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def evaluations(store: Store, run: str | None = None) -> list[Evaluation]:
    """Every published evaluation (of ``run`` only, when given), oldest first."""
    # The OPTIONAL beside the GRAPH group, not inside it: inside, Oxigraph
    # answered it for the whole store before joining (0.16 s at 10k claims, paid
    # by every read; 1 ms out here).
    query = (
        "SELECT ?run ?bundle ?activity ?ended ?used ?saw ?sawPlans WHERE { GRAPH ?c {"
        " ?bundle prov:wasGeneratedBy ?activity . ?activity a hg:EvaluationActivity ;"
        " hg:evaluationOf ?run ; prov:endedAtTime ?ended . }"
        " OPTIONAL { GRAPH ?c { ?activity prov:used ?used . ?used a prov:Bundle } }"
        " OPTIONAL { GRAPH ?c { ?activity hg:sawLoads ?saw } }"
        " OPTIONAL { GRAPH ?c { ?activity hg:sawPlans ?sawPlans } } }"
    )
    params: dict[str, IRI] = {"c": IRI(CATALOG_GRAPH)}
    if run is not None:
        params["run"] = IRI(ids.mint("run", run))
    found: dict[str, tuple[str, str, str, str, set[str], str | None, str | None]] = {}
    for row in store.select(query, params=params):
        activity = str(row["activity"])
        saw = None if row["saw"] is None else str(row["saw"])
        saw_plans = None if row["sawPlans"] is None else str(row["sawPlans"])
        entry = found.setdefault(
            activity,
            (
                str(row["run"]),
                str(row["bundle"]),
                activity,
                str(row["ended"]),
                set(),
                saw,
                saw_plans,
            ),
        )
        if row["used"] is not None:
            entry[4].add(str(row["used"]))
    result = [
        Evaluation(ids.ledger_id(r), bundle, activity, ended, tuple(sorted(used)), saw, plans)
        for r, bundle, activity, ended, used, saw, plans in found.values()
    ]
    return sorted(result, key=lambda e: (e.ended, e.activity))


def latest(store: Store, run: str) -> Evaluation | None:
    """The newest published evaluation of ``run``, or None."""
    found = evaluations(store, run)
    return found[-1] if found else None


def walked_graphs(store: Store) -> list[str]:
    """Every graph of the store but the evaluation bundles (every load and plan graph and
    the catalog): the graphs the walk of a run's inputs (queries/run-inputs.rq) can take
    a step in. A bundle gives it none (tests/decide/test_first_inputs.py)."""
    return _walked_and_bundles(store)[0]


def _walked_and_bundles(store: Store) -> tuple[list[str], set[str]]:
    """:func:`walked_graphs`, and the published bundles it leaves out."""
    bundles = {found.bundle for found in evaluations(store)}
    return [g for g in store.graphs() if g not in bundles], bundles


def run_inputs(store: Store, run: str) -> list[str]:
    """The load graphs holding something ``run``'s verdicts depend on (queries/run-inputs.rq).

    The answer is a subset of the published load graphs, so when the store
    holds one load graph and it defines the run, that graph is the answer
    without walking the run's records (the walk is most of a first
    evaluation: 15.6 s of 26.4 s at 3.3k claims, bench/speed-design.md "D1").
    """
    run_iri = IRI(ids.mint("run", run))
    published = set(load_graphs(store))
    if len(published) > 1:
        found = _walked_on_every_graph(store, run_iri, published)
        if found is not None:
            return found
        if store.evaluates_in_place:
            # Else asked through walked_graphs only: Virtuoso 7.2.5 looks each pattern up
            # once per graph of a query's dataset, and a team's history adds a bundle a run
            # (at 3,000 claims with 14 bundles: 5.1-5.4 s, 1.0-1.2 s without them;
            # bench/README.md "4 December, night").
            store = store.scoped(walked_graphs(store))
    if len(published) == 1:
        (only,) = published
        if store.ask(
            "ASK { GRAPH ?g { ?run hg:ledgerId ?id } }", params={"g": IRI(only), "run": run_iri}
        ):
            return [only]
    rows = store.select(library_query("run-inputs").text, params={"run": run_iri})
    return sorted({str(row["g"]) for row in rows} & published)


#: The walk's predicates a bundle holds: its cards' and claim-cases' questions
#: (``hg:forQuestion``), their evaluation activity (``prov:wasGeneratedBy``), their
#: ledger ids, and its intervention outcomes' replacements (``hg:replacement``).
#: None gives the walk a step: it follows ``hg:forQuestion`` from a case of the run,
#: ``prov:wasGeneratedBy`` to one and ``hg:replacement`` from an intervention case
#: of the run, and a bundle's subjects are its own cards, claim-cases and outcomes,
#: its activities never a case; and a ledger id counts only in a published load graph.
_BUNDLE_WALK_PREDICATES = frozenset(
    {HG + "forQuestion", PROV + "wasGeneratedBy", HG + "ledgerId", HG + "replacement"}
)


@cache
def _walk_predicates() -> tuple[str, ...]:
    """Every predicate the walk (queries/run-inputs.rq) matches, read from its text."""
    text = without_comments(library_query("run-inputs").text)
    spaces = {"hg": HG, "prov": PROV}
    found = re.findall(r"(?<![\w:#])(hg|prov):([a-z]\w*)", text)
    return tuple(sorted({spaces[prefix] + name for prefix, name in found}))


def _walked_on_every_graph(store: Store, run: IRI, published: set[str]) -> list[str] | None:
    """The walk asked of every graph the engine holds, when that is cheaper and gives the
    walk through :func:`walked_graphs`' answer; else None.

    On Virtuoso, asked with no dataset: at 10,000 claims in eight loads 0.2-0.4 s,
    through the walked graphs 3.8-4.7 s, growing by a load a run of a team's
    history (bench/README.md "4 December, midnight"). The walk is a union of basic graph
    patterns joined to one more, so more graphs can only add to its answer; it is
    the same answer when the other graphs hold no step of it: every graph holding
    one of its predicates is a walked graph, or a published bundle holding only
    :data:`_BUNDLE_WALK_PREDICATES`. Anything else (another application's
    graph using PROV, a load or bundle being written) and the walk goes through
    the walked graphs. The check is made again after the walk, so that a graph
    written meanwhile (a load published by another client) is not walked either.
    """
    holding = _holding_steps(store)
    if holding is None:
        return None
    listed, bundles = _walked_and_bundles(store)
    walked = set(listed)
    if _outsiders(holding, walked, bundles):
        return None
    rows = store.select_on_every_graph(library_query("run-inputs").text, params={"run": run})
    if rows is None or _outsiders(_holding_steps(store) or [], walked, bundles):
        return None
    return sorted({str(row["g"]) for row in rows} & published)


def walk_outsiders(store: Store) -> list[str] | None:
    """The graphs the engine holds, not hopgate's loads, plan graphs, catalog or published
    bundles, that hold a predicate the walk of a run's inputs follows; None on an engine
    that answers no query of every graph (every store but a Virtuoso server).

    While there is one (another application's PROV data, a graph an interrupted
    load left), a run's first evaluation walks through hopgate's graphs, at a
    cost that grows with each load (:func:`run_inputs`); ``hopgate doctor`` names them.
    """
    holding = _holding_steps(store)
    if holding is None:
        return None
    walked, bundles = _walked_and_bundles(store)
    return _outsiders(holding, set(walked), bundles)


def _holding_steps(store: Store) -> list[Row] | None:
    """Which graph holds which predicate the walk follows, over every graph the engine
    holds; None where it answers no such query."""
    values = " ".join(f"<{predicate}>" for predicate in _walk_predicates())
    return store.select_on_every_graph(
        f"SELECT DISTINCT ?g ?p WHERE {{ VALUES ?p {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} }}"
    )


def _outsiders(holding: list[Row], walked: set[str], bundles: set[str]) -> list[str]:
    """The graphs of ``holding`` neither ``walked`` nor one of ``bundles`` holding only
    :data:`_BUNDLE_WALK_PREDICATES` (sorted)."""
    return sorted(
        {
            str(row["g"])
            for row in holding
            if str(row["g"]) not in walked
            and not (str(row["g"]) in bundles and str(row["p"]) in _BUNDLE_WALK_PREDICATES)
        }
    )


def new_inputs(store: Store, run: str, graphs: list[str]) -> dict[str, bool]:
    """Which of ``graphs`` (published after ``run``'s latest evaluation) it depends on, each
    with whether it can change a card (else only the run's review queue: initial and
    machine judgments, final minimality judgments).

    queries/run-new-inputs.rq, one graph at a time: its cost follows the new
    graphs, not the store.
    """
    text = library_query("run-new-inputs").text
    run_iri = IRI(ids.mint("run", run))
    found: dict[str, bool] = {}
    for graph in graphs:
        rows = store.select(text, params={"run": run_iri, "g": IRI(graph)})
        if rows:
            found[graph] = any(flag(row["cards"]) for row in rows)
    return found


def staleness(store: Store, run: str) -> Staleness:
    """Whether ``run``'s latest evaluation is current (docs/spec/records.md "Staleness").

    It is stale when there is none, when a load graph it used is gone, or
    when a load graph published after it holds something the run depends on
    (new cases of the run, new evidence sets or contradictions about its
    claims, new judgments of those or of its outputs). Loads that touch only
    other runs leave it current. ``inputs``: the graphs the latest one used and
    the new relevant ones (an evaluation of a stale run walks its inputs again:
    the new ones reach records that loads it did not use define).
    """
    # The loads first: an evaluation deciding its inputs from this answer records them,
    # and a load published after this read is then asked about by a later check.
    loads = tuple(load_graphs(store))
    found = latest(store, run)
    return _staleness(store, run, loads, found, plans(store, run).get(run, []))


def states(store: Store, runs: Iterable[str]) -> dict[str, Staleness]:
    """:func:`staleness` of each of ``runs``, by run, from one read of the loads and one of
    the evaluations (a read of every run asked them twice a run: on a server of a team's
    history, a hundred requests)."""
    loads = tuple(load_graphs(store))
    newest: dict[str, Evaluation] = {}
    for found in evaluations(store):  # oldest first: the last one kept is the latest
        newest[found.run] = found
    planned = plans(store)
    return {
        run: _staleness(store, run, loads, newest.get(run), planned.get(run, [])) for run in runs
    }


#: The recorded intervention plans: each plan graph, when it was recorded, and the run of
#: the evaluation it was planned from (interventions.md "The plan").
_PLANS = (
    "SELECT ?run ?graph ?ended WHERE { GRAPH ?c {"
    " ?graph prov:wasGeneratedBy ?planning . ?planning a hg:InterventionPlanning ;"
    " prov:used ?bundle ; prov:endedAtTime ?ended ."
    " ?bundle prov:wasGeneratedBy ?activity . ?activity hg:evaluationOf ?run } }"
)


def plans(store: Store, run: str | None = None) -> dict[str, list[tuple[datetime, str]]]:
    """The recorded intervention plans of each run (of ``run`` only, when given), by run
    id: (when recorded, plan graph). An evaluation scores the run's intervention answers
    against every plan of the run the store holds (hopgate.decide.outcomes.planned)."""
    params: dict[str, IRI] = {"c": IRI(CATALOG_GRAPH)}
    if run is not None:
        params["run"] = IRI(ids.mint("run", run))
    found: dict[str, list[tuple[datetime, str]]] = {}
    for row in store.select(_PLANS, params=params):
        at = datetime.fromisoformat(str(row["ended"]))
        found.setdefault(ids.ledger_id(str(row["run"])), []).append((at, str(row["graph"])))
    return found


def _staleness(
    store: Store,
    run: str,
    loads: tuple[str, ...],
    found: Evaluation | None,
    planned: list[tuple[datetime, str]],
) -> Staleness:
    """:func:`staleness` of ``run`` among the published ``loads``, its latest evaluation
    ``found`` read after them, and the run's recorded plans ``planned`` (:func:`plans`)."""
    if found is None:
        return Staleness(run, True, f"run {run!r} has never been evaluated", None, loads=loads)
    present = set(loads)
    gone = [g for g in found.used if g not in present]
    if gone:
        return Staleness(run, True, f"a load it used is gone ({gone[0]})", found, loads=loads)
    if found.saw is not None and found.saw == loads_digest(present):
        # No load published since the evaluation decided its inputs: the loads are the
        # ones its walk saw, so none it did not use can hold what it depends on. (Else
        # every unused load is asked, one query each: a load published later can make
        # an earlier one relevant; on Virtuoso that was 46 ms a load, paid by every read
        # of a team's history, bench/README.md "5 December, morning".)
        return _plan_staleness(run, found, found.used, loads, planned)
    newer = sorted(present - set(found.used))
    asked = new_inputs(store, run, newer) if newer else {}
    relevant = [graph for graph, cards in asked.items() if cards]
    inputs = tuple(sorted({*found.used, *asked}))
    if relevant:
        return Staleness(
            run,
            True,
            f"{len(relevant)} load(s) since its latest evaluation change what it depends on "
            f"(one of them: {relevant[0]})",
            found,
            inputs,
            loads,
        )
    state = _plan_staleness(run, found, inputs, loads, planned)
    # Judgments that change no card leave the evaluation current; the queue it recorded
    # no longer holds them, so reads ask the queue instead (hopgate.store.queue_answers).
    return replace(state, queue_since=tuple(sorted(asked))) if asked else state


def _plan_staleness(
    run: str,
    found: Evaluation,
    inputs: tuple[str, ...],
    loads: tuple[str, ...],
    planned: list[tuple[datetime, str]],
) -> Staleness:
    """The state of an evaluation no load made stale: stale when the run's intervention
    plans are not the ones it read (its answers are scored against every plan of the
    run), and then only by them (``by_plan``: its verdicts and inputs stand)."""
    if found.saw_plans is not None:
        # The plans it read, recorded (hg:sawPlans): no clock is compared.
        changed = found.saw_plans != loads_digest(graph for _, graph in planned)
        later = []
    else:
        # Recorded by a hopgate that kept no such record: the plans recorded after it.
        ended = datetime.fromisoformat(found.ended)
        later = sorted(graph for at, graph in planned if at > ended)
        changed = bool(later)
    if not changed:
        return Staleness(run, False, None, found, inputs, loads)
    what = f" ({later[0]})" if later else f" ({len(planned)} plan(s) now)"
    return Staleness(
        run,
        True,
        f"the run's intervention plans changed since its latest evaluation{what}",
        found,
        inputs,
        loads,
        by_plan=True,
    )
