"""The review queue's rows: each run's as its current evaluation recorded them, else asked.

``queries/review-queue.rq`` reads the published records only: the load and
plan graphs (docs/spec/adjudication.md "Awaiting adjudication"), never a
bundle or the catalog. Each evaluation records the queue's rows for its run,
asked over the loads it used, beside its bundle's answers
(:mod:`hopgate.store.answers`; docs/spec/records.md "Caches"). While that
evaluation is current (docs/spec/records.md "Staleness") those are the run's
rows over every published record:

- every fact the queue joins for a run is about a node the walk of the run's
  inputs reaches (``queries/run-inputs.rq``): its cases and their outputs, the
  claims the outputs assert and those claims' flags, their evidence sets and
  contradictions, the judgments of those and of its outputs; and a record is
  written in the graph of the ledger that first stated it, which the walk
  finds, so every such fact is in a load the evaluation used;
- a load published since that holds any of them makes the evaluation stale,
  and so does a load it used being gone; one that holds only judgments that
  change no card (initial and machine judgments, final minimality ones)
  leaves it current but its recorded queue behind (``queue_since``), and the
  queue is then asked;
- a plan graph holds none of them: its planned variants use none of the
  queue's predicates, and its one ``prov:wasGeneratedBy`` names its planning
  activity, which is no run's case.

A read takes a run's recorded rows when the run's latest evaluation is
current and its answers file verifies; for any other run (never evaluated,
stale, or recorded by a hopgate that kept no queue) it asks the query over
the records, as without. The queue is asked at evaluation, on the loads the
run used: a load records nothing of it. (Each load used to ask the queue
over every record it left, which grew with the store: 5.7 s of a 9.3 s load,
the 13th of a history of 3k-claim runs; bench/README.md "6 December, late morning".)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hopgate import ids
from hopgate.library.artefacts import library_query
from hopgate.library.steps import RUN_QUEUE
from hopgate.store import answers, catalog
from hopgate.store.base import IRI, Row, Store, Value
from hopgate.vocab import CATALOG_GRAPH

#: The query whose rows are read.
QUERY = RUN_QUEUE

#: The published records: the graphs the catalog says a load or a plan generated.
_RECORDS = (
    "SELECT DISTINCT ?g WHERE { GRAPH ?catalog { ?g prov:wasGeneratedBy ?a . ?a a ?kind } "
    "VALUES ?kind { hg:Load hg:InterventionPlanning } }"
)


def records(store: Store) -> list[str]:
    """The published load and plan graphs (sorted): the graphs the review queue reads."""
    rows = store.select(_RECORDS, params={"catalog": IRI(CATALOG_GRAPH)})
    return sorted({str(row["g"]) for row in rows})


def _asked(store: Store, graphs: list[str], params: dict[str, Value] | None = None) -> list[Row]:
    """The query's rows over ``graphs`` (none: no rows)."""
    if not graphs:
        return []
    return store.view(graphs).select(library_query(QUERY).text, params=params)


def recorded(store: Store, state: catalog.Staleness) -> list[Row] | None:
    """The queue's rows for ``state``'s run as its latest evaluation recorded them, when
    that evaluation is current and they were recorded (and verify); else None."""
    if state.stale or state.evaluation is None or state.queue_since:
        return None
    found = answers.read(store, state.evaluation.bundle)
    if found is None:
        return None
    return found.get(QUERY, answers.queue_request(ids.mint("run", state.run)))


def rows(
    store: Store,
    runs: Sequence[str] | None = None,
    *,
    states: Mapping[str, catalog.Staleness] | None = None,
) -> list[Row]:
    """``queries/review-queue.rq``'s rows over the published records, for the runs of the
    ledger ids ``runs`` (default: every run): each run's as its current evaluation
    recorded them, the others' asked.

    ``states``: the runs' states (:func:`hopgate.store.catalog.staleness`) where the
    caller has them, by run id; the others are read.
    """
    wanted = catalog.runs(store) if runs is None else list(runs)
    found: list[Row] = []
    missing: list[str] = []
    cached = store.folder is not None or store.server_caches
    given = dict(states or {})
    unread = [run_id for run_id in wanted if run_id not in given]
    if cached and unread:
        given.update(catalog.states(store, unread))
    for run_id in wanted:
        state = given.get(run_id) if cached else None
        kept = None if state is None else recorded(store, state)
        if kept is None:
            missing.append(ids.mint("run", run_id))
        else:
            found += kept
    if len(missing) == 1 and runs is not None:
        found += _asked(store, records(store), {"run": IRI(missing[0])})
    elif missing:
        # One query for every run not recorded (asked run by run, the queue's joins over
        # the whole store were paid again for each). Asked for every run, it also gives
        # the rows of a run the catalog does not list.
        kept_runs = {ids.mint("run", r) for r in wanted} - set(missing)
        asked = set(missing) if runs is not None else None
        found += [
            row
            for row in _asked(store, records(store))
            if str(row["run"]) not in kept_runs and (asked is None or str(row["run"]) in asked)
        ]
    return found


__all__ = ["QUERY", "recorded", "records", "rows"]
