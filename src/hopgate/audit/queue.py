"""The review queue: what awaits adjudication, and the judgments each subject has received.

docs/spec/adjudication.md "Awaiting adjudication": a subject awaits
adjudication when it affects a verdict of a run (a proposed set of a claim
the run's outputs assert, an unresolved contradiction of such a claim, an
extra assertion) and has no final judgment, or when its initial judgments
disagree and no final judgment of their question settles them. The logic is
queries/review-queue.rq; this module groups its rows. It only reads: the
queue is the record as it stands, evaluated or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from hopgate import ids
from hopgate.errors import ReviewError
from hopgate.library.artefacts import library_query
from hopgate.store import IRI, Store, Value, catalog, queue_answers


@dataclass(frozen=True)
class JudgmentRecord:
    """One judgment as a reviewer reads it: ledger ids, not IRIs.

    ``by`` and ``at`` are what the judgment claims; ``record_number``,
    ``recorded_at`` and ``recorded_by`` are the store's stamps
    (docs/spec/adjudication.md "Recording"): its place in the order of
    recordings, when and for whom the load that recorded it ran. ``proof`` is
    its signature as written (JSON text), checked by whoever reads it with
    trusted keys (hopgate.bundles.judgment_proofs). ``machine``: an automated
    judge's (docs/spec/adjudication.md "Machine triage"), always initial.
    """

    id: str
    subject: str
    by: str
    at: str | None
    question: str | None
    decision: str
    reason: str | None
    final: bool
    settles: tuple[str, ...] = ()
    machine: bool = False
    record_number: int | None = None
    recorded_at: str | None = None
    recorded_by: str | None = None
    proof: str | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of a judgment (its proof as ``signed``: true or false)."""
        found = asdict(self)
        found["settles"] = list(self.settles)
        found["signed"] = found.pop("proof") is not None
        return found


@dataclass
class QueueItem:
    """One subject awaiting adjudication for one run.

    ``disagreement``: its reviewers' initial judgments disagree;
    ``machine_disagreement``: a machine judgment disagrees with another
    judgment, or with a proposed set's status (docs/spec/adjudication.md
    "Machine triage"): it orders the queue, never puts a subject in it.
    """

    run: str
    subject: str
    kind: str
    question: str
    disagreement: bool
    machine_disagreement: bool = False
    outputs: list[str] = field(default_factory=list)
    consequential: bool = False
    judgments: list[JudgmentRecord] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate review queue``."""
        found = asdict(self)
        found["judgments"] = [j.as_dict() for j in self.judgments]
        return found


def _text(value: Value) -> str | None:
    return None if value is None else str(value)


def judgments(store: Store, subject: str | None = None) -> list[JudgmentRecord]:
    """Every judgment (of the subject IRI ``subject``, when given), in the order the store
    recorded them (their recording numbers; a judgment without one, loaded before they
    were stamped, last, in the query's order). Grouped by subject, the list read as a
    timeline put a later judgment first (user trial)."""
    found = [j for group in _judgments_by_subject(store, subject).values() for j in group]
    return sorted(found, key=lambda j: (j.record_number is None, j.record_number or 0))


def _judgments_by_subject(
    store: Store, subject: str | None = None
) -> dict[str, list[JudgmentRecord]]:
    """The judgments of queries/review-judgments.rq in one query, keyed by subject IRI."""
    params = {} if subject is None else {"subject": IRI(subject)}
    found: dict[str, JudgmentRecord] = {}
    about: dict[str, str] = {}
    for row in store.select(library_query("review-judgments").text, params=params):
        key = str(row["judgment"])
        settles = () if row["settles"] is None else (ids.ledger_id(str(row["settles"])),)
        if key in found:
            old = found[key]
            found[key] = JudgmentRecord(**{**asdict(old), "settles": old.settles + settles})
            continue
        about[key] = str(row["subject"])
        found[key] = JudgmentRecord(
            id=str(row["id"]),
            subject=ids.ledger_id(str(row["subject"])),
            by=ids.ledger_id(str(row["by"])),
            at=_text(row["at"]),
            question=_text(row["question"]),
            decision=str(row["decision"]),
            reason=_text(row["reason"]),
            final=bool(row["final"]),
            settles=settles,
            machine=bool(row["machine"]),
            record_number=number if isinstance((number := row["recordNumber"]), int) else None,
            recorded_at=_text(row["recordedAt"]),
            recorded_by=None
            if row["recordedBy"] is None
            else ids.ledger_id(str(row["recordedBy"])),
            proof=_text(row["proof"]),
        )
    grouped: dict[str, list[JudgmentRecord]] = {}
    for key, record in found.items():
        grouped.setdefault(about[key], []).append(record)
    return grouped


#: The two questions that re-annotate a set, one question to decide.
_SET_QUESTIONS = frozenset({"entailment", "alternatives"})
#: Their key in the queue's grouping.
_RE_ANNOTATION = "re-annotation"


def queue(
    store: Store,
    run: str | None = None,
    *,
    with_judgments: bool = True,
    runs: list[str] | None = None,
    states: Mapping[str, catalog.Staleness] | None = None,
) -> list[QueueItem]:
    """The subjects awaiting adjudication (for ``run``, when given): disagreements first.

    Reviewers' disagreements first, then a machine judgment's
    (docs/spec/adjudication.md "Machine triage"), then subjects holding back
    a consequential output, then by run and subject id. Each carries the
    initial judgments of its question, machine ones among them.

    ``runs``: only these runs' subjects (ledger ids; for a caller that knows they are
    runs of the store), ``states`` their states where the caller read them.

    Raises:
        ReviewError: ``run`` is not a run of the store.
    """
    if run is not None:
        if run not in catalog.runs(store):
            raise ReviewError(f"unknown run {run!r}")
        runs = [run]
    items: dict[tuple[str, str, str], QueueItem] = {}
    subjects: dict[tuple[str, str, str], str] = {}
    disputed: dict[tuple[str, str, str], set[str]] = {}
    # Over the published records: each run's rows as its current evaluation recorded
    # them, the others asked (hopgate.store.queue_answers).
    for row in queue_answers.rows(store, runs, states=states):
        run_id = ids.ledger_id(str(row["run"]))
        question = str(row["question"])
        # One item per subject: a set's entailment and alternatives are one question to
        # decide (adjudication.md "Recording"), as metrics counts them.
        key = (
            run_id,
            str(row["subject"]),
            _RE_ANNOTATION if question in _SET_QUESTIONS else question,
        )
        item = items.get(key)
        if item is None:
            item = QueueItem(
                run=run_id,
                subject=ids.ledger_id(str(row["subject"])),
                kind=str(row["kind"]),
                question=question,
                disagreement=False,
            )
            items[key] = item
            subjects[key] = str(row["subject"])
        if row["disagreement"]:
            disputed.setdefault(key, set()).add(question)
        item.disagreement = item.disagreement or bool(row["disagreement"])
        item.machine_disagreement = item.machine_disagreement or bool(row["machineDisagreement"])
        item.consequential = item.consequential or bool(row["consequential"])
        output = ids.ledger_id(str(row["output"]))
        if output not in item.outputs:
            item.outputs.append(output)
    # The question to decide is the one the reviewers disagree on (of two, the first by
    # name, whatever order the rows came in).
    for key, questions in disputed.items():
        items[key].question = min(questions)
    # All judgments in one query: one query per subject grew with the queue
    # (figures in bench/README.md, "Figures behind the code").
    by_subject = _judgments_by_subject(store) if with_judgments and items else {}
    for key, item in items.items():
        # A set's entailment and alternatives are one question (adjudication.md
        # "Recording"): its item shows the initial judgments of both.
        asked = _SET_QUESTIONS if item.question in _SET_QUESTIONS else {item.question}
        item.judgments = [
            j
            for j in by_subject.get(subjects[key], [])
            if not j.final and (j.question is None or j.question in asked)
        ]
        item.outputs.sort()
    # Last, the subject's IRI: two kinds of subject may share a ledger id.
    ordered = sorted(
        items.items(),
        key=lambda pair: (
            not pair[1].disagreement,
            not pair[1].machine_disagreement,
            not pair[1].consequential,
            pair[1].run,
            pair[1].subject,
            pair[1].question,
            pair[0][1],
        ),
    )
    return [item for _, item in ordered]


def awaiting(
    store: Store, runs: list[str], states: Mapping[str, catalog.Staleness] | None = None
) -> dict[str, int]:
    """How many subjects await adjudication for each of ``runs`` (docs/spec/adjudication.md),
    ``states`` their states where the caller read them.

    A current evaluation recorded its run's rows; the runs without are asked in
    one query (asked once per run, the queue's joins over the whole store were
    paid again for each: 1-2 s a run at 10k claims).
    """
    items = queue(store, with_judgments=False, runs=runs, states=states)
    subjects: dict[str, set[tuple[str, str]]] = {run: set() for run in runs}
    for item in items:
        if item.run in subjects:
            subjects[item.run].add((item.kind, item.subject))
    return {run: len(found) for run, found in subjects.items()}


__all__ = ["JudgmentRecord", "QueueItem", "awaiting", "judgments", "queue"]
