"""What changed between two recorded evaluations of a run.

Both evaluations are read as recorded (docs/spec/records.md "Writes and reads"): their
cards and metrics from their bundles, and what changed in the store between
them from the loads each used (``prov:used`` in the catalog) and what the
loads only the later one used add for the run's claims
(``queries/store-changes.rq``). It is for one reader: no text repeating one
withheld from it appears (docs/spec/records.md "What a reader is shown").
"""

from __future__ import annotations

from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from hopgate import ids
from hopgate.audit.adjudication import verdict_causes
from hopgate.audit.results import (
    BundleReads,
    RunMetrics,
    VerdictRow,
    cards_of,
    metrics_of,
    reading,
    unknown_run,
)
from hopgate.audit.withholding import check_reader, evaluation_reader, for_reader
from hopgate.errors import NotEvaluatedError, ReportError
from hopgate.library.artefacts import library_query
from hopgate.store import IRI, Store, catalog

#: The card fields a change is reported for, each with the column of queries/cards.rq it
#: is read from (``missing``: queries/card-spans.rq's missing spans). Outputs whose
#: columns are equal in both evaluations are not built into cards (most of a diff's
#: time at 10k claims): a field added here needs its column.
_COLUMNS: dict[str, str | None] = {
    "verdict": "verdict",
    "cited_route": "citedRoute",
    "retrieved_route": "retrievedRoute",
    "missing": None,
    "answerability": "answerability",
}
COMPARED = tuple(_COLUMNS)


@dataclass(frozen=True)
class OutputChange:
    """One output claim whose card differs between the two evaluations."""

    output: str
    claim: str | None
    changes: dict[str, tuple[Any, Any]]
    #: When the verdict changed: each set, contradiction or judgment under the card that
    #: changed, from what to what (docs/spec/adjudication.md "Changed scores").
    causes: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoreChange:
    """A record a load used only by the later evaluation adds for the run's claims."""

    load: str
    kind: str
    record: str
    #: None for a judgment of an extra assertion (an output asserting no claim).
    claim: str | None
    status: str
    detail: str | None


@dataclass
class Diff:
    """Two evaluations of one run side by side."""

    run: str
    before: str
    after: str
    outputs: list[OutputChange] = field(default_factory=list)
    added_outputs: list[str] = field(default_factory=list)
    removed_outputs: list[str] = field(default_factory=list)
    loads_added: list[str] = field(default_factory=list)
    loads_dropped: list[str] = field(default_factory=list)
    store_changes: list[StoreChange] = field(default_factory=list)
    metrics_before: RunMetrics | None = None
    metrics_after: RunMetrics | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``hopgate diff``."""
        return asdict(self)


def _name(evaluation: catalog.Evaluation) -> str:
    return ids.ledger_id(evaluation.activity)


def _pick(recorded: list[catalog.Evaluation], name: str, run: str) -> catalog.Evaluation:
    for evaluation in recorded:
        if _name(evaluation) == name:
            return evaluation
    listed = ", ".join(_name(e) for e in recorded)
    raise ReportError(f"run {run!r} has no evaluation {name!r} (it has: {listed})")


def _card_key(row: VerdictRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in COMPARED}


def diff(
    store: Store,
    *,
    run: str,
    before: str | None = None,
    after: str | None = None,
    reader: str | None = None,
) -> Diff:
    """Compare two recorded evaluations of ``run`` (default: its two latest), for ``reader``.

    ``reader`` defaults to the run's evaluation's: texts withheld from it, and
    texts repeating them, are shown as the withheld marker.

    Raises:
        NotEvaluatedError: the run is unknown or has fewer than two evaluations.
        ReportError: a named evaluation is not one of the run's, or an unknown reader.

    Example (``hopgate diff --run RUN``):
        >>> from hopgate import diff, evaluate, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> _ = evaluate(store, force=True)
        >>> found = diff(store, run="sys-a")
        >>> found.outputs, found.loads_added, found.metrics_after.complete_set_recall.numerator
        ([], [], 2)
    """
    known = catalog.runs(store)
    if run not in known:
        raise NotEvaluatedError(unknown_run(run, known))
    recorded = catalog.evaluations(store, run)
    if (before is None) != (after is None):
        raise ReportError("name both evaluations to compare, or neither (the two latest)")
    if before is None or after is None:
        if len(recorded) < 2:
            raise NotEvaluatedError(
                f"run {run!r} has {len(recorded)} evaluation(s); a diff needs two "
                f"(`hopgate evaluate --run {run} --force` records another)"
            )
        first, second = recorded[-2], recorded[-1]
    else:
        first, second = _pick(recorded, before, run), _pick(recorded, after, run)
    if reader is None:
        reader = evaluation_reader(store, run)
    check_reader(store, reader, ReportError)
    return for_reader(store, reader).redact(compare(store, run, first, second))


def _outlines(reads: BundleReads) -> dict[str, tuple[str, tuple[Any, ...]]]:
    """Each output IRI's card IRI and the recorded values its compared fields are read from."""
    missing: dict[str, set[str]] = defaultdict(set)
    spans = reads.columns("card-spans", ("card", "relation", "spanId"))
    for card, relation, span in zip(*spans, strict=True):
        if relation == "missing":
            missing[card].add(span)
    columns = [column for column in _COLUMNS.values() if column is not None]
    # By column, as results.cards_of reads them (no dict per row).
    card_column, output_column, *compared = reads.columns("cards", ("card", "output", *columns))
    found = {}
    for card, output, *values in zip(card_column, output_column, *compared, strict=True):
        found[output] = (card, (*values, frozenset(missing.get(card, ()))))
    return found


def _cards(reads: BundleReads, cards: set[str]) -> dict[str, VerdictRow]:
    """The outlines of ``cards`` (results.cards_of), by output id."""
    return {row.output: row for row in cards_of(reads, only=cards, outline=True)} if cards else {}


def compare(store: Store, run: str, first: catalog.Evaluation, second: catalog.Evaluation) -> Diff:
    """The differences between two recorded evaluations of ``run``."""
    result = Diff(run, _name(first), _name(second))
    with ExitStack() as stack:
        before = stack.enter_context(reading(store, first))
        after = stack.enter_context(reading(store, second))
        if store.server_caches:
            # Both evaluations' files fetched from the server at once, beside the decoding.
            pool = stack.enter_context(ThreadPoolExecutor(2))
            for reads in (before, after):
                reads.fetch_beside(("cards", "card-spans", "metrics"), pool)
        old, new = _outlines(before), _outlines(after)
        names = {iri: ids.ledger_id(iri) for iri in old.keys() | new.keys()}
        differ = {iri for iri in old.keys() & new.keys() if old[iri][1] != new[iri][1]}
        # Only the cards whose recorded values differ are built, then compared as cards.
        cards_before = _cards(before, {old[iri][0] for iri in differ})
        cards_after = _cards(after, {new[iri][0] for iri in differ})
        result.metrics_before = metrics_of(before, first.run)
        result.metrics_after = metrics_of(after, second.run)
    for iri in sorted(names, key=names.__getitem__):
        output = names[iri]
        if iri not in old:
            result.added_outputs.append(output)
        elif iri not in new:
            result.removed_outputs.append(output)
        elif iri in differ:
            a, b = _card_key(cards_before[output]), _card_key(cards_after[output])
            changed = {name: (a[name], b[name]) for name in COMPARED if a[name] != b[name]}
            if changed:
                result.outputs.append(OutputChange(output, cards_after[output].claim, changed))
    if any("verdict" in change.changes for change in result.outputs):
        causes = verdict_causes(store, first.bundle, second.bundle)
        result.outputs = [
            replace(change, causes=causes.get(change.output, ()))
            if "verdict" in change.changes
            else change
            for change in result.outputs
        ]
    result.loads_added = sorted(set(second.used) - set(first.used))
    result.loads_dropped = sorted(set(first.used) - set(second.used))
    query = library_query("store-changes").text
    for graph in result.loads_added:
        for row in store.select(query, params={"g": IRI(graph), "run": IRI(ids.mint("run", run))}):
            result.store_changes.append(
                StoreChange(
                    graph,
                    str(row["kind"]),
                    str(row["recordId"]),
                    None if row["claimId"] is None else str(row["claimId"]),
                    _status(str(row["status"])),
                    None if row["detail"] is None else str(row["detail"]),
                )
            )
    return result


def _status(value: str) -> str:
    """A status term as a word (``hg:Adjudicated`` -> ``adjudicated``); a decision as is."""
    return value.rsplit("#", 1)[-1].lower() if value.startswith("http") else value
