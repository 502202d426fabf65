"""Evaluation as provenance: run the verdict queries, record acceptance cards.

The set logic is in ``queries/`` and runs inside the store; this module binds
parameters, groups the rows by output claim, and writes one named graph per
evaluated run (a ``prov:Bundle``) holding the evaluation activity, one
acceptance card per output claim and one claim-case record per required claim.
A new evaluation of a run links to the previous one with ``prov:wasRevisionOf``;
nothing is overwritten. What is decided: docs/spec/acceptance.md
"Per output claim" and "Verdict"; where it is recorded: docs/spec/records.md
"Records".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hopgate import ids
from hopgate import ntriples as nt
from hopgate import progress as _progress
from hopgate._version import __version__
from hopgate.ahead import answered_ahead
from hopgate.decide import outcomes as interventions
from hopgate.decide.annotations import AnnotationState
from hopgate.decide.spool import Card, Spool
from hopgate.errors import EvaluationError
from hopgate.library.artefacts import library_query, library_update
from hopgate.library.steps import (
    RESULT_QUERIES,
    SCRATCH_UPDATES,
    evaluation_projection,
)
from hopgate.memory import paused_gc, return_freed_memory
from hopgate.scratch import folder as scratch_folder
from hopgate.store import (
    IRI,
    SCRATCH_SUFFIX,
    Row,
    Store,
    Value,
    answers,
    catalog,
    reader_answers,
    snapshots,
)
from hopgate.store.publish import publish
from hopgate.suggest import unknown_name
from hopgate.times import xsd_datetime
from hopgate.vocab import CATALOG_GRAPH, HG, ID_BASE, PROV
from hopgate.vocab import RDF_TYPE as A


@dataclass(frozen=True)
class EvaluationRecord:
    """One evaluation of one run: the bundle it wrote and when."""

    run: str
    graph: str
    activity: str
    cards: int
    claim_cases: int
    ended: str
    reused: bool = False
    seconds: float = 0.0


def runs(store: Store) -> list[str]:
    """The ledger ids of every run in the store, sorted."""
    return catalog.runs(store)


def evaluate(
    store: Store,
    *,
    run: str | None = None,
    force: bool = False,
    by: str | None = None,
    progress: _progress.Reporter | None = None,
) -> list[EvaluationRecord]:
    """Evaluate one run (or every stale run) and record acceptance cards as a PROV bundle.

    A run whose latest evaluation is current (:func:`hopgate.store.catalog.staleness`:
    no load since changed what its verdicts depend on) is not evaluated again
    unless ``force`` is set; its record has ``reused``. The evaluation reads
    only the load graphs the run depends on (queries/run-inputs.rq) and
    records them as ``prov:used``. Graphs left unpublished by a killed write
    are removed first (on a server, once their write is a day old:
    :func:`hopgate.store.snapshots.discard_unpublished`).
    ``by`` names the person on whose behalf the evaluation runs: a
    ``prov:Person`` associated with it, on whose behalf hopgate acted.

    Raises:
        EvaluationError: no run in the store, or ``run`` is unknown.
    """
    known = runs(store)
    if not known:
        raise EvaluationError("the store holds no run to evaluate; load a ledger with runs first")
    if run is not None and run not in known:
        raise EvaluationError(unknown_name("run", run, known, where="runs in the store"))
    snapshots.discard_unpublished(store)
    chosen = [run] if run is not None else known
    with paused_gc(), _SharedCopy(store) as copies:
        return [
            _evaluate_or_reuse(
                store, run_id, force=force, by=by, copies=copies, last=i == len(chosen) - 1
            )
            for i, run_id in enumerate(chosen)
        ]


class _SharedCopy:
    """The working copy of the last input graphs, kept for the next run with the same inputs.

    Runs loaded together have the same input graphs; parsing their snapshots
    once per ``evaluate`` instead of once per run saves a copy per extra run
    (1.1 s at 3.3k claims, bench/speed-design.md "D2"). A copy is shared only
    by runs whose inputs are exactly its graphs (a larger copy would show a
    run another load's records), and every run's scratch graph is removed
    before the next starts, so each sees what a fresh copy would hold.

    The copy the runs' answers are recorded on is kept likewise (``reading``).
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._graphs: tuple[str, ...] | None = None
        self._open = ExitStack()
        self._work: Store | None = None
        self.reading = answers.ReadingCopies(store)

    def __enter__(self) -> _SharedCopy:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.release()
        finally:
            self.reading.close()

    def release(self) -> None:
        """Free the kept copy (no later run will read it): the bundle's publishing, with
        its own copy for the recorded answers, then does not hold both in memory."""
        self._open.close()
        self._work = None
        self._graphs = None
        # The answers' copy (unless started before the rules) is parsed next, in another
        # thread (another glibc arena).
        return_freed_memory()

    def inputs(self, run: str) -> list[str]:
        """The load graphs ``run`` depends on (:func:`hopgate.store.catalog.run_inputs`), when
        no evaluation records them (its first, or one whose loads are gone): asked of a copy
        of every load and plan graph when that copy is small (:func:`_walked_on_a_copy`),
        else of the store.

        On the disk store the walk reads about 20 us a step: 4.9-5.4 s at 3.3k claims in
        three loads, against 1.7-2.0 s on the copy, its parse included (bench/README.md
        "4 December, evening"). The copy holds every quad the walk can read but the
        bundles', which give it no step: the same answer. The copy, less the graphs the
        answer does not name and the catalog, is kept as the evaluation's working copy
        when those graphs are at most :data:`KEPT_WASTE` of it; else it is freed and the
        working copy parsed anew: Oxigraph's memory store keeps a removed quad's memory
        until the store is dropped, so a copy trimmed of most of its loads would hold
        them through the rules.
        """
        sizes = _walked_on_a_copy(self._store, run)
        if sizes is None:
            return catalog.run_inputs(self._store, run)
        # Neither the last run's copies nor this one's are held beside the copy of every load.
        self.reading.release()
        self.release()
        work = self._open.enter_context(
            snapshots.working_copy(self._store, evaluation_projection(), [*sizes, CATALOG_GRAPH])
        )
        found = catalog.run_inputs(work, run)
        dropped = [g for g in sizes if g not in found]
        if sum(sizes[g] for g in dropped) <= KEPT_WASTE * sum(sizes.values()):
            for graph in [*dropped, CATALOG_GRAPH]:
                work.remove_graph(graph)
            self._work, self._graphs = work, tuple(sorted(found))
        else:
            self.release()
        return found

    def of(self, graphs: list[str]) -> Store:
        """The working copy of ``graphs`` (the kept one when they are the same)."""
        key = tuple(sorted(graphs))
        if self._work is None or key != self._graphs:
            self._open.close()
            self._work = None
            self._work = self._open.enter_context(
                snapshots.working_copy(self._store, evaluation_projection(), list(key))
            )
            self._graphs = key
        return self._work


#: A run's first evaluation walks its inputs on a copy of every load and plan graph when
#: their evaluation snapshots together are at most this many times the size of the run's
#: own load, and at most :data:`WALK_COPY_BYTES`: past either, the copy's parse (about
#: 10 ms a MB) and its memory would outgrow the walk it saves on the disk store (about
#: 0.4 s a MB of the run's load), and the walk runs on the store. The answer is the same.
WALK_COPY_RATIO = 16
#: The most snapshot bytes the copy for a first evaluation's walk parses (at 10k claims a
#: run's load is about 40 MB of them, the evidence with one run's cases about 150 MB).
WALK_COPY_BYTES = 1 << 30


#: The largest share of the walk's copy (in snapshot bytes) that may be removed from it
#: for the copy to be kept as the working copy: the memory a removed quad leaves held,
#: against a parse of the rest (a run of a team's history uses most of its loads: in
#: `bench/history_inputs.py`, run5 uses 5 of 6).
KEPT_WASTE = 0.25


def _walked_on_a_copy(store: Store, run: str) -> dict[str, int] | None:
    """The graphs a copy for ``run``'s inputs walk holds besides the catalog (every load
    and plan graph), with their snapshots' bytes; or None to walk on the store: it keeps
    no snapshots, holds one load (the walk is not run:
    :func:`hopgate.store.catalog.run_inputs`), lacks a snapshot, or the copy would be too
    large (:data:`WALK_COPY_RATIO`, :data:`WALK_COPY_BYTES`)."""
    if store.folder is None or len(catalog.load_graphs(store)) < 2:
        return None
    walked = [g for g in catalog.walked_graphs(store) if g != CATALOG_GRAPH]
    sizes = snapshots.snapshot_sizes(store, walked, evaluation_projection())
    if sizes is None:
        return None
    own = store.select(
        "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?run hg:ledgerId ?id } }",
        params={"run": IRI(ids.mint("run", run))},
    )
    own_bytes = sum(sizes.get(str(row["g"]), 0) for row in own)
    if sum(sizes.values()) > min(WALK_COPY_RATIO * own_bytes, WALK_COPY_BYTES):
        return None
    return sizes


def _evaluate_or_reuse(
    store: Store,
    run_id: str,
    *,
    force: bool,
    by: str | None,
    copies: _SharedCopy | None = None,
    last: bool = True,
) -> EvaluationRecord:
    """Evaluate ``run_id`` unless its latest evaluation is current (and not ``force``)."""
    state = catalog.staleness(store, run_id)
    found = state.evaluation
    if found is not None and not state.stale and not force:
        return _reused(store, run_id, found)
    # Walked again, never the latest inputs plus the new relevant loads: a new case or
    # set reaches claims, questions and spans that loads the latest evaluation did not
    # use define (a consequential claim's flag left behind let the gate pass an output a
    # single evaluation of the same loads fails). Forced while current too: ``--force``
    # is how a store whose latest evaluation took the wrong loads (an earlier release
    # did, after a stale run) is mended, so it trusts no record of them.
    graphs = copies.inputs(run_id) if copies is not None else catalog.run_inputs(store, run_id)
    return _evaluate_run(
        store,
        run_id,
        graphs,
        previous=found.bundle if found else None,
        by=by,
        copies=copies,
        last=last,
        # The loads the inputs are decided among (read before them: Staleness.loads).
        seen=catalog.loads_digest(state.loads),
    )


def _reused(store: Store, run: str, found: catalog.Evaluation) -> EvaluationRecord:
    bundle, activity = found.bundle, found.activity
    counts = store.select(
        "SELECT (COUNT(DISTINCT ?card) AS ?cards) "
        "(COUNT(DISTINCT ?claimCase) AS ?cases) ?ended WHERE { "
        "?activity prov:endedAtTime ?ended . GRAPH ?bundle { "
        "{ ?card a hg:AcceptanceCard } UNION { ?claimCase a hg:ClaimCase } } } GROUP BY ?ended",
        params={"bundle": IRI(bundle), "activity": IRI(activity)},
    )
    row: Row = counts[0] if counts else {"cards": 0, "cases": 0, "ended": ""}
    return EvaluationRecord(
        run,
        bundle,
        activity,
        _count(row["cards"]),
        _count(row["cases"]),
        str(row["ended"]),
        reused=True,
    )


def _count(value: Value) -> int:
    return int(value) if isinstance(value, int | float) else 0


def _rows(store: Store, query_id: str, run: str, scratch: str | None = None) -> Iterator[Row]:
    """One result query's rows, as the store answers them (never held whole)."""
    # The working copy holds only what the listed queries read.
    assert query_id in RESULT_QUERIES, f"{query_id} must be listed in RESULT_QUERIES"
    params: dict[str, Value] = {"run": IRI(ids.mint("run", run))}
    if scratch is not None:
        params["scratch"] = IRI(scratch)
    return store.select_rows(library_query(query_id).text, params=params)


#: Whether the run has an intervention case: the pattern every branch of
#: queries/evaluation-interventions.rq starts from (the working copy holds it).
_INTERVENTION_CASE = f"ASK {{ GRAPH ?g {{ ?case <{HG}interventionOfRun> ?run }} }}"


def _scratch_graph(run: str) -> str:
    """A fresh scratch graph IRI for one evaluation of ``run``."""
    stamp = xsd_datetime(datetime.now(UTC))
    return ids.mint("evaluation-activity", f"{run}@{stamp}") + SCRATCH_SUFFIX


def _is_scratch(graph: str) -> bool:
    return graph.startswith(f"{ID_BASE}evaluation-activity/") and graph.endswith(SCRATCH_SUFFIX)


#: A scratch graph a server's catalog has listed for this long belongs to an
#: evaluation that never ended (its client was killed): the next evaluation
#: removes it. Far longer than any evaluation runs; a shorter wait could
#: remove the scratch graph of another client's evaluation still running.
STALE_SCRATCH = timedelta(hours=24)


def _remove_stale_scratch(store: Store) -> None:
    """Remove scratch graphs an interrupted evaluation left behind.

    A store that evaluates in place lists its scratch graphs in the catalog
    (:func:`_decision_space`), since listing a server's graphs means scanning
    its quads; those listed longer than :data:`STALE_SCRATCH` are removed.
    """
    if not store.evaluates_in_place:
        for graph in store.graphs():
            if _is_scratch(graph):
                store.remove_graph(graph)
        return
    before = nt.datetime(xsd_datetime(datetime.now(UTC) - STALE_SCRATCH))
    found = store.select(
        f"SELECT ?g WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ ?g a <{HG}ScratchGraph> ; "
        f"<{PROV}generatedAtTime> ?t }} FILTER (?t < {before}) }}"
    )
    for row in found:
        _forget_scratch(store, str(row["g"]))


def _record_scratch(store: Store, scratch: str) -> None:
    """List an evaluation's scratch graph in the catalog while it exists on the server."""
    when = nt.datetime(xsd_datetime(datetime.now(UTC)))
    store.update(
        f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ {nt.iri(scratch)} a <{HG}ScratchGraph> ; "
        f"<{PROV}generatedAtTime> {when} }} }}"
    )


def _forget_scratch(store: Store, scratch: str) -> None:
    """Remove a scratch graph from the server, then its catalog listing."""
    store.remove_graph(scratch)
    store.update(f"DELETE WHERE {{ GRAPH <{CATALOG_GRAPH}> {{ {nt.iri(scratch)} ?p ?o }} }}")


@dataclass
class _Decided:
    """What one evaluation's steps decided, read from its scratch graph before it is removed.

    The answers that grow with the run (cards, claim-cases, flags, coverage)
    are in ``spool``; the annotation state and intervention outcomes are small.
    """

    spool: Spool
    state: AnnotationState
    outcomes: list[interventions.Outcome]
    plans: dict[tuple[str, ...], interventions.PlannedVariant]


def _compute(
    store: Store,
    run: str,
    scratch: str,
    params: dict[str, Value],
    spool: Spool,
    plans: dict[tuple[str, ...], interventions.PlannedVariant],
) -> _Decided:
    """Run the evaluation's updates and queries on ``store`` into ``spool``; the scratch graph is removed."""
    try:
        for update_id in SCRATCH_UPDATES:
            store.update(library_update(update_id).text, params=params)

        def rows(query_id: str, scratch: str | None = scratch) -> Callable[[], Iterator[Row]]:
            return lambda: _rows(store, query_id, run, scratch)

        def intervention_answer() -> Iterator[Row]:
            # Every branch of evaluation-interventions starts from the run's intervention
            # cases, so without one its answer is empty; yet it cost 0.55-0.84 s a run at
            # 10k claims (its span lookups are built over every span), against 0.01 s for
            # this question (bench/README.md "7 December, midday").
            if not store.ask(_INTERVENTION_CASE, params={"run": params["run"]}):
                return iter(())
            return _rows(store, "evaluation-interventions", run, scratch)

        # Two queries answered at a time while the spool takes their rows in this
        # order (hopgate.ahead); the threads are done before the scratch graph goes.
        with answered_ahead(
            [
                rows("evaluation-verdicts"),
                rows("evaluation-route-candidates"),
                rows("evaluation-source-truth"),
                rows("card-links", None),
                rows("evaluation-missing-hops"),
                rows("evaluation-inadmissible-citations"),
                rows("evaluation-admissibility"),
                rows("evaluation-span-coverage"),
                rows("evaluation-claim-cases"),
                rows("evaluation-annotations"),
                intervention_answer,
            ]
        ) as answered:
            (
                verdicts,
                candidates,
                truth,
                links,
                missing,
                inadmissible,
                admissibility,
                coverage,
                claim_cases,
                annotations,
                intervening,
            ) = answered
            spool.verdicts(verdicts)
            spool.candidates(candidates)
            spool.truth(truth)
            spool.relations(links)
            spool.links("missing", missing, "span")
            spool.links("inadmissible", inadmissible, "span")
            # The rule flags evaluation-eligibility wrote, recorded in the bundle as decided.
            spool.flags(admissibility)
            # The span pairs evaluation-coverage found, recorded for the auditor queries.
            spool.coverage(coverage)
            spool.claim_cases(claim_cases)
            state = AnnotationState.from_rows(list(annotations))
            # Intervention cases, classified apart (docs/spec/interventions.md).
            intervention_rows = list(intervening)
    finally:
        store.remove_graph(scratch)
    outcomes = interventions.classify(intervention_rows, plans)
    return _Decided(spool, state, outcomes, plans)


@contextmanager
def _decision_space(
    store: Store, graphs: list[str], scratch: str, copies: _SharedCopy | None = None
) -> Iterator[Store]:
    """Where the rule files run: the run's load graphs and the scratch graph, nothing else.

    Earlier bundles are not evidence. A store that evaluates in place (a
    remote server) runs them itself, seen through those graphs
    (:meth:`~hopgate.store.Store.scoped`), so nothing is copied to the client;
    otherwise they run on a working copy of the graphs (hopgate.store.snapshots).
    """
    if store.evaluates_in_place:
        _record_scratch(store, scratch)
        try:
            # The graphs listed in the scratch graph, which the rule steps' updates join
            # (Virtuoso looks a pattern up once per graph of a dataset).
            yield store.scoped([*graphs, scratch], listed_in=scratch)
        finally:
            _forget_scratch(store, scratch)
        return
    if copies is not None:
        yield copies.of(graphs)
        return
    with snapshots.working_copy(store, evaluation_projection(), graphs) as work:
        yield work


def _evaluate_run(
    store: Store,
    run: str,
    graphs: list[str],
    *,
    previous: str | None,
    by: str | None = None,
    copies: _SharedCopy | None = None,
    last: bool = True,
    seen: str | None = None,
) -> EvaluationRecord:
    clock = time.perf_counter()
    started = datetime.now(UTC)
    # Intermediate results (eligible sets, covered members, nearest sets) are
    # materialised set-at-a-time in a scratch graph, read by the evaluation-*
    # queries, and removed again: the store ends as it would without them.
    _remove_stale_scratch(store)
    scratch = _scratch_graph(run)
    params: dict[str, Value] = {"run": IRI(ids.mint("run", run)), "scratch": IRI(scratch)}
    # The recorded plans of the run (interventions.md "The plan"): its
    # intervention answers are scored against them, not against their own files.
    # The plan graphs first, their digest recorded (hg:sawPlans): a plan recorded after
    # this read makes the evaluation stale (records.md "Staleness"), whatever the clocks.
    saw_plans = catalog.loads_digest(g for _, g in catalog.plans(store, run).get(run, []))
    plans = interventions.planned(store, run)
    if copies is not None:
        # The copy the answers are recorded on, parsed beside the rules when small enough,
        # and the run's review queue, which reads the loads only, asked beside them too.
        copies.reading.start(graphs)
        copies.reading.ask_queue(graphs, str(params["run"]))
    with (
        scratch_folder("eval") as scratch_dir,
        ExitStack() as later,
    ):
        spool = Spool(scratch_dir)
        try:
            with (
                _progress.phase(f"evaluate {run}: decide"),
                _decision_space(store, graphs, scratch, copies) as work,
            ):
                decided = _compute(work, run, scratch, params, spool, plans)
            ended = datetime.now(UTC)
            if copies is not None and last:
                copies.release()
            # The copy the reads' answers are recorded on (hopgate.store.answers): started
            # before the rules when small (ReadingCopies.start), else parsing the loads now,
            # while the bundle is written, after the working copy is freed, so that the
            # two are not both held (at 100k claims, gigabytes).
            reading = copies.reading if copies is not None else None
            recorder = later.enter_context(
                answers.recording(store, graphs, reading, run=str(params["run"]))
            )
            bundle_file = scratch_dir / "bundle.nq"
            catalog_file = scratch_dir / "catalog.nq"
            writer = _write_bundle(
                decided,
                store,
                run,
                graphs,
                bundle_file,
                catalog_file,
                started=started,
                ended=ended,
                previous=previous,
                by=by,
                seen=seen,
                saw_plans=saw_plans,
            )
            cards, cases = spool.count("verdicts"), spool.count("cases")
        finally:
            spool.close()

        def entry(kept: list[str]) -> Path:
            with catalog_file.open("a", encoding="utf-8") as out:
                out.write("".join(f"{line} <{CATALOG_GRAPH}> .\n" for line in kept))
            return catalog_file

        def recorded_answers() -> list[str]:
            # The reads' answers, recorded once now rather than by every read
            # (hopgate.store.answers), while the bundle is bulk-written.
            with _progress.phase(f"evaluate {run}: record answers"):
                return recorder.record(writer.bundle, bundle_file)

        publish(
            store,
            writer.bundle,
            bundle_file,
            catalog_entry=entry,
            kind="evaluate",
            # No snapshot of the bundle: the reads take its recorded answers, and run
            # their queries on the store when those are missing or damaged. Its copy
            # (about 200 MB at 10k claims) delayed the recording, which follows it.
            trusted=True,
            caches=recorded_answers,
            # On a server: the answers asked there, and whether the bundle holds
            # any of the reader rule's quads (the loads' record of its answers holds
            # only while none does: hopgate.store.reader_answers).
            written=lambda: (
                recorder.record_written(writer.bundle)
                + reader_answers.bundle_outside_rule(store, writer.bundle)
            ),
        )
    return EvaluationRecord(
        run,
        writer.bundle,
        writer.activity,
        cards,
        cases,
        xsd_datetime(ended),
        seconds=time.perf_counter() - clock,
    )


def _write_bundle(
    decided: _Decided,
    store: Store,
    run: str,
    graphs: list[str],
    bundle_file: Path,
    catalog_file: Path,
    *,
    started: datetime,
    ended: datetime,
    previous: str | None,
    by: str | None,
    seen: str | None = None,
    saw_plans: str | None = None,
) -> _BundleWriter:
    """Write the bundle's N-Quads and its catalog entry's, a card at a time from the spool.
    ``seen``: the digest of the loads the store held when the inputs were decided;
    ``saw_plans``: of the run's plan graphs the evaluation read."""
    spool = decided.spool
    stamp = xsd_datetime(ended)
    activity = ids.mint("evaluation-activity", f"{run}@{stamp}")
    with (
        bundle_file.open("w", encoding="utf-8") as out,
        catalog_file.open("w", encoding="utf-8") as catalog,
    ):
        writer = _BundleWriter(
            out, activity + "/bundle", activity, stamp, catalog, decided.state, spool
        )
        for row in spool.claim_case_rows():
            writer.claim_case(row)
        writer.items = _write_outcomes(writer, run, decided)
        name = f"evaluate {run}: write cards"
        total = spool.count("verdicts")
        for card in _progress.counted(spool.cards(), name, total, unit="cards"):
            writer.card(card)
        writer.flags(spool.flag_rows())
        writer.coverage(spool.coverage_rows())
        writer.provenance(
            run, graphs, started, ended, previous, by=by, seen=seen, saw_plans=saw_plans
        )
    return writer


@dataclass
class _CardItems:
    """Each card's interventions checklist item and answered outcomes (interventions.md)."""

    answered: dict[tuple[str, str], list[str]]
    planned: set[tuple[str, str]]

    def lines(self, row: Row, card: str) -> list[str]:
        """N-Triples lines: the item and outcomes of the card ``card`` (an N-Triples IRI)."""
        claim = str(row["claim"]) if row["claim"] is not None else None
        asked = (str(row["question"]), claim or "")
        item = interventions.card_item(asked[0], claim, set(self.answered), self.planned)
        lines = [f"{card} <{HG}interventionsItem> {nt.string(item)}"]
        return lines + [
            f"{card} <{HG}interventionOutcome> {nt.iri(o)}" for o in self.answered.get(asked, [])
        ]


def _write_outcomes(writer: _BundleWriter, run: str, decided: _Decided) -> _CardItems:
    """Outcomes of the answered variants, linked from claim-cases; what the cards link (interventions.md)."""
    plans = decided.plans
    answered: dict[tuple[str, str], list[str]] = {}
    for number, outcome in enumerate(decided.outcomes, 1):
        node = f"{writer.activity}/intervention-outcome/{number}"
        writer._write(interventions.outcome_lines(outcome, node, writer.activity))
        asked = (ids.mint("question", outcome.question), ids.mint("claim", outcome.claim))
        answered.setdefault(asked, []).append(node)
        case = ids.mint_case(run, outcome.question)
        if writer.spool.has_claim_case(case, asked[1]):
            case_node = writer.claim_case_node(case, asked[1])
            writer._write([f"{nt.iri(case_node)} <{HG}interventionOutcome> {nt.iri(node)}"])
    return _CardItems(answered, {(key[0], key[1]) for key in plans})


class _BundleWriter:
    def __init__(
        self,
        out: Any,
        bundle: str,
        activity: str,
        stamp: str,
        catalog: Any,
        state: AnnotationState,
        spool: Spool,
    ) -> None:
        self.out = out
        self.state = state
        self.spool = spool
        self.items = _CardItems({}, set())
        self.catalog = catalog
        self.graph = f" <{bundle}> .\n"
        self.bundle = bundle
        self.activity = activity
        self.stamp = stamp

    def _write(self, lines: list[str], graph: str | None = None) -> None:
        suffix = self.graph if graph is None else f" <{graph}> .\n"
        target = self.out if graph is None else self.catalog
        target.write("".join(line + suffix for line in lines))

    def claim_case_node(self, case: str, claim: str) -> str:
        """The IRI of the claim-case record of (``case``, ``claim``) in this bundle."""
        _, question_id = ids.parse_case(case)
        claim_id = ids.ledger_id(claim)
        return f"{self.activity}/claim-case/{ids.encode_id(question_id)}/{ids.encode_id(claim_id)}"

    def claim_case(self, row: Row) -> str:
        node = self.claim_case_node(str(row["case"]), str(row["claim"]))
        s = nt.iri(node)
        lines = [
            f"{s} <{A}> <{PROV}Entity>",
            f"{s} <{A}> <{HG}ClaimCase>",
            f"{s} <{PROV}wasGeneratedBy> {nt.iri(self.activity)}",
            f"{s} <{HG}ofCase> {nt.iri(str(row['case']))}",
            f"{s} <{HG}forQuestion> {nt.iri(str(row['question']))}",
            f"{s} <{HG}forClaim> {nt.iri(str(row['claim']))}",
            f"{s} <{HG}answerability> {nt.iri(str(row['answerability']))}",
            f"{s} <{HG}retrievedComplete> {nt.boolean(bool(row['retrievedComplete']))}",
            f"{s} <{HG}answered> {nt.boolean(bool(row['answered']))}",
            f"{s} <{HG}answeredCorrectly> {nt.boolean(bool(row['answeredCorrectly']))}",
            f"{s} <{HG}correctnessKnown> {nt.boolean(bool(row['correctnessKnown']))}",
            f"{s} <{HG}contradictionPresent> {nt.boolean(bool(row['contradiction']))}",
        ]
        # The ledger's statement that made the claim not applicable (evaluation-eligibility.ru).
        if row.get("notApplicable") is not None:
            lines.append(f"{s} <{HG}notApplicableBy> {nt.iri(str(row['notApplicable']))}")
        if row["eligibleSets"] is not None:
            lines.append(f"{s} <{HG}eligibleSets> {nt.integer(int(row['eligibleSets']))}")
            lines.append(f"{s} <{HG}hops> {nt.integer(int(row['hops']))}")  # type: ignore[arg-type]
            # Decided by queries/evaluation-claim-cases.rq; never a silent 0.
            age = row["sourceAgeDays"]
            if not isinstance(age, int) or isinstance(age, bool):
                raise EvaluationError(f"a claim-case's source age came back as {age!r}")
            lines.append(f"{s} <{HG}sourceAgeDays> {nt.integer(age)}")
            lines.append(
                f"{s} <{HG}oldestObservation> {nt.datetime(str(row['oldestObservation']))}"
            )
        lines.append(f"{s} <{HG}claimTime> {nt.datetime(str(row['claimTime']))}")
        self._write(lines)
        return node

    def flags(self, rows: Iterable[tuple[str, str, str]]) -> None:
        """The admissibility rules each version or span broke (queries/evaluation-eligibility.ru)."""
        for node, rule, about in rows:
            self._write([f"{nt.iri(node)} {nt.iri(rule)} {nt.iri(about)}"])

    def coverage(self, rows: Iterable[tuple[str, str, bool]]) -> None:
        """Which delivered spans cover which members, and how (queries/evaluation-coverage.ru)."""
        for span, member, contains in rows:
            lines = [f"{nt.iri(span)} <{HG}coversSpan> {nt.iri(member)}"]
            if contains:
                lines.append(f"{nt.iri(span)} <{HG}containsSpan> {nt.iri(member)}")
            self._write(lines)

    def card(self, card: Card) -> None:
        row = card.row
        output = str(row["output"])
        output_id = ids.ledger_id(output)
        node = ids.mint("card", f"{output_id}@{self.stamp}")
        s = nt.iri(node)
        lines = [
            f"{s} <{A}> <{PROV}Entity>",
            f"{s} <{A}> <{HG}AcceptanceCard>",
            f"{s} <{HG}ledgerId> {nt.string(f'{output_id}@{self.stamp}')}",
            f"{s} <{PROV}wasGeneratedBy> {nt.iri(self.activity)}",
            f"{s} <{HG}forOutput> {nt.iri(output)}",
            f"{s} <{HG}forQuestion> {nt.iri(str(row['question']))}",
            f"{s} <{HG}supported> {nt.boolean(bool(row['supported']))}",
            f"{s} <{HG}correctnessKnown> {nt.boolean(bool(row['correctnessKnown']))}",
            f"{s} <{HG}retrievedComplete> {nt.boolean(bool(row['retrievedComplete']))}",
            f"{s} <{HG}citationComplete> {nt.boolean(bool(row['citationComplete']))}",
            f"{s} <{HG}verdict> {nt.iri(str(row['verdict']))}",
        ]
        if row["claim"] is not None:
            claim = str(row["claim"])
            lines.append(f"{s} <{HG}forClaim> {nt.iri(claim)}")
            case = ids.mint_case(*_case_of(row))
            if self.spool.has_claim_case(case, claim):
                lines.append(f"{s} <{HG}claimCase> {nt.iri(self.claim_case_node(case, claim))}")
        if row["answerability"] is not None:
            lines.append(f"{s} <{HG}answerability> {nt.iri(str(row['answerability']))}")
        if row.get("notApplicable") is not None:
            lines.append(f"{s} <{HG}notApplicableBy> {nt.iri(str(row['notApplicable']))}")
        for name, value in (
            ("retrievedRoute", row["retrievedRoute"]),
            ("citedRoute", row["citedRoute"]),
        ):
            if value is not None:
                lines.append(f"{s} <{HG}{name}> {nt.iri(str(value))}")
        # Decided by queries/evaluation-verdicts.rq: the cited route's inference rule.
        if row["jointSupport"] is not None:
            lines.append(f"{s} <{HG}jointSupport> {nt.iri(str(row['jointSupport']))}")
        # What the verdict was decided on, so the auditor queries read it (verdicts.rq).
        lines.append(f"{s} <{HG}unresolvedContradiction> {nt.boolean(bool(row['unresolved']))}")
        lines.append(f"{s} <{HG}proposedSetCited> {nt.boolean(bool(row['proposedCited']))}")
        if row["nearestSet"] is not None:
            lines.append(f"{s} <{HG}nearestEligibleSet> {nt.iri(str(row['nearestSet']))}")
        links = card.links
        for predicate, targets in (
            ("referenceRoute", links["route"]),
            ("deliveredCitation", links["cites"]),
            ("contradictionConsidered", links["contradiction"]),
            ("missingSpan", links["missing"]),
            ("inadmissibleCitation", links["inadmissible"]),
        ):
            lines.extend(f"{s} <{HG}{predicate}> {nt.iri(t)}" for t in sorted(set(targets)))
        for number, (evidence_set, uncited, unretrieved) in enumerate(sorted(card.candidates), 1):
            candidate = nt.iri(f"{node}/candidate/{number}")
            lines += [
                f"{s} <{HG}weighedSet> {candidate}",
                f"{candidate} <{A}> <{HG}RouteCandidate>",
                f"{candidate} <{HG}candidateSet> {nt.iri(evidence_set)}",
                f"{candidate} <{HG}uncited> {nt.integer(uncited)}",
                f"{candidate} <{HG}unretrieved> {nt.integer(unretrieved)}",
            ]
        lines += _truth_lines(s, node, card.truth)
        lines += self.state.card_lines(
            s, output, sorted(set(links["route"])), links["contradiction"]
        )
        lines += self.items.lines(row, s)
        self._write(lines)

    def provenance(
        self,
        run: str,
        graphs: list[str],
        started: datetime,
        ended: datetime,
        previous: str | None,
        *,
        by: str | None = None,
        seen: str | None = None,
        saw_plans: str | None = None,
    ) -> None:
        bundle = nt.iri(self.bundle)
        activity = nt.iri(self.activity)
        software = nt.iri(ids.mint("agent", f"hopgate {__version__}"))
        lines = [
            f"{bundle} <{A}> <{PROV}Bundle>",
            f"{bundle} <{A}> <{PROV}Entity>",
            f"{bundle} <{PROV}wasGeneratedBy> {activity}",
            f"{bundle} <{PROV}generatedAtTime> {nt.datetime(xsd_datetime(ended))}",
            f"{activity} <{A}> <{PROV}Activity>",
            f"{activity} <{A}> <{HG}EvaluationActivity>",
            f"{activity} <{HG}ledgerId> {nt.string(f'{run}@{self.stamp}')}",
            f"{activity} <{PROV}startedAtTime> {nt.datetime(xsd_datetime(started))}",
            f"{activity} <{PROV}endedAtTime> {nt.datetime(xsd_datetime(ended))}",
            f"{activity} <{HG}evaluationOf> {nt.iri(ids.mint('run', run))}",
            f"{activity} <{PROV}wasAssociatedWith> {software}",
            f"{software} <{A}> <{PROV}Agent>",
            f"{software} <{A}> <{PROV}SoftwareAgent>",
            f"{software} <{HG}ledgerId> {nt.string(f'hopgate {__version__}')}",
        ]
        lines += [f"{activity} <{PROV}used> {nt.iri(g)}" for g in graphs]
        if seen is not None:
            # In the catalog only (docs/spec/records.md "Staleness"): what a read checks.
            lines.append(f"{activity} <{HG}sawLoads> {nt.string(seen)}")
        if saw_plans is not None:
            lines.append(f"{activity} <{HG}sawPlans> {nt.string(saw_plans)}")
        if previous is not None:
            lines.append(f"{bundle} <{PROV}wasRevisionOf> {nt.iri(previous)}")
        person = responsible_person(activity, software, by) if by else []
        self._write(lines + person, CATALOG_GRAPH)
        # The activity is described inside its bundle too, so the bundle stands alone.
        self._write(lines[4:11] + person)
        # The annotation state it used (docs/spec/adjudication.md "Changed scores").
        self._write(self.state.bundle_lines())


#: What a judgment's IRI begins with (hopgate.ids.mint); a premise basis is read from a
#: judgment or from a source.
_JUDGMENT_IRI = f"{ID_BASE}judgment/"


def _truth_lines(card: str, node: str, rows: list[Row]) -> list[str]:
    """N-Triples lines: the source truth of the card's weighed route, as
    queries/evaluation-source-truth.rq decided it (docs/spec/acceptance.md "Source truth").

    ``card`` is the card as an N-Triples IRI, ``node`` its IRI.
    """
    if not rows:
        raise EvaluationError(f"no route authority was decided for the card {node}")
    lines = [f"{card} <{HG}routeAuthority> {nt.iri(str(rows[0]['routeAuthority']))}"]
    if rows[0]["route"] is not None:
        lines.append(f"{card} <{HG}truthRoute> {nt.iri(str(rows[0]['route']))}")
    members = sorted((r for r in rows if r["member"] is not None), key=lambda r: str(r["member"]))
    # A final admissibility judgment whose reason is a member's premise basis is in force
    # on the card (adjudication.md "Effect on scoring", rule admissibility basis): listed
    # with the card's other judgments, once however many members quote its subject.
    judged = sorted(
        {
            str(r["basisFrom"])
            for r in members
            if r["basisFrom"] is not None and str(r["basisFrom"]).startswith(_JUDGMENT_IRI)
        }
    )
    lines += [f"{card} <{HG}judgmentInForce> {nt.iri(j)}" for j in judged]
    for number, row in enumerate(members, 1):
        truth = nt.iri(f"{node}/truth/{number}")
        lines += [
            f"{card} <{HG}memberTruth> {truth}",
            f"{truth} <{A}> <{PROV}Entity>",
            f"{truth} <{A}> <{HG}MemberTruth>",
            f"{truth} <{HG}truthOfSpan> {nt.iri(str(row['member']))}",
            f"{truth} <{HG}truthOfVersion> {nt.iri(str(row['version']))}",
            f"{truth} <{HG}authority> {nt.iri(str(row['authority']))}",
            f"{truth} <{HG}premiseBasis> {nt.string(str(row['basis']))}",
        ]
        if row["basisFrom"] is not None:
            lines.append(f"{truth} <{HG}premiseBasisFrom> {nt.iri(str(row['basisFrom']))}")
    return lines


def responsible_person(activity: str, software: str, name: str) -> list[str]:
    """N-Triples lines: the person on whose behalf hopgate ran ``activity`` (issue 15)."""
    person = nt.iri(ids.mint("agent", name))
    return [
        f"{activity} <{PROV}wasAssociatedWith> {person}",
        f"{person} <{A}> <{PROV}Agent>",
        f"{person} <{A}> <{PROV}Person>",
        f"{person} <{HG}ledgerId> {nt.string(name)}",
        f"{software} <{PROV}actedOnBehalfOf> {person}",
    ]


def _case_of(row: Row) -> tuple[str, str]:
    return ids.ledger_id(str(row["run"])), ids.ledger_id(str(row["question"]))
