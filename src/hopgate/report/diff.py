"""What changed between two recorded evaluations of a run.

Both evaluations are read as recorded (docs/spec/records.md "Writes and reads"): their
cards and metrics from their bundles, and what changed in the store between
them from the loads each used (``prov:used`` in the catalog) and what the
loads only the later one used add for the run's claims
(``queries/store-changes.rq``). It is for one reader: no text repeating one
withheld from it appears (docs/spec/records.md "What a reader is shown").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from hopgate import ids
from hopgate.audit.adjudication import verdict_causes
from hopgate.audit.results import RunMetrics, VerdictRow, evaluation_cards, unknown_run
from hopgate.audit.results import evaluation_metrics as read_metrics
from hopgate.audit.withholding import check_reader, evaluation_reader, for_reader
from hopgate.errors import NotEvaluatedError, ReportError
from hopgate.library.artefacts import library_query
from hopgate.store import IRI, Store, catalog

#: The card fields a change is reported for.
COMPARED = ("verdict", "cited_route", "retrieved_route", "missing", "answerability")


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
    claim: str
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


def compare(store: Store, run: str, first: catalog.Evaluation, second: catalog.Evaluation) -> Diff:
    """The differences between two recorded evaluations of ``run``."""
    result = Diff(run, _name(first), _name(second))
    old = {row.output: row for row in evaluation_cards(store, first)}
    new = {row.output: row for row in evaluation_cards(store, second)}
    for output in sorted(old.keys() | new.keys()):
        if output not in old:
            result.added_outputs.append(output)
        elif output not in new:
            result.removed_outputs.append(output)
        else:
            a, b = _card_key(old[output]), _card_key(new[output])
            changed = {name: (a[name], b[name]) for name in COMPARED if a[name] != b[name]}
            if changed:
                result.outputs.append(OutputChange(output, new[output].claim, changed))
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
                    str(row["claimId"]),
                    _status(str(row["status"])),
                    None if row["detail"] is None else str(row["detail"]),
                )
            )
    result.metrics_before = read_metrics(store, first)
    result.metrics_after = read_metrics(store, second)
    return result


def _status(value: str) -> str:
    """A status term as a word (``hg:Adjudicated`` -> ``adjudicated``); a decision as is."""
    return value.rsplit("#", 1)[-1].lower() if value.startswith("http") else value
