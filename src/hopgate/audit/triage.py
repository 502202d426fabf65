"""Machine triage: a judge command the user names answers the subjects awaiting adjudication.

docs/spec/adjudication.md "Machine triage", rule triage command. For each
subject awaiting adjudication for a run (hopgate.audit.queue) that this
judge has not judged yet on its question, the command gets one JSON object
on standard input (the claim, the question asked, the subject's quoted spans
with their versions, the question to decide and its terms: queries/triage-subject.rq,
passed through the reader filter of the run's evaluation reader) and answers
``{"decision": D, "reason": TEXT}``. It runs as every named command does
(hopgate.processes: minimal environment, its own process group, bounded
output). Each answer is recorded as a machine judgment, one load each, as
``hopgate judge`` records one (hopgate.audit.adjudication.judge): a machine
judgment is initial and changes nothing that is scored. A failed or
malformed answer is a failure naming the subject; nothing is recorded for it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hopgate import ids
from hopgate.audit import adjudication
from hopgate.audit import queue as review_queue
from hopgate.audit.withholding import Withholding
from hopgate.errors import AdjudicationError, CommandError, HopgateError, InputRefused
from hopgate.ingest.judgments import QUESTIONS
from hopgate.inputs import parse_json
from hopgate.library.artefacts import library_query
from hopgate.processes import Limits, run_command
from hopgate.store import IRI, Store

#: The ids kind of each kind of queued subject (hopgate.ids).
_KINDS = {"set": "set", "contradiction": "contradiction", "extra assertion": "output"}
#: The keys of a judge's input that hold names or hopgate's words, not a record's text.
NAMES = frozenset({"subject", "kind", "question", "decisions", "id", "version", "locator"})


@dataclass(frozen=True)
class Answered:
    """One subject judged: the machine judgment recorded for it."""

    subject: str
    question: str
    judgment: str
    decision: str


@dataclass(frozen=True)
class Failed:
    """One subject the judge did not answer usably: nothing was recorded for it."""

    subject: str
    question: str
    reason: str


@dataclass
class TriageResult:
    """What ``hopgate triage`` did for one run and one judge."""

    run: str
    judge: str
    answered: list[Answered] = field(default_factory=list)
    #: Subjects this judge had already judged on their question (not asked again).
    skipped: list[str] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of a triage."""
        return asdict(self)


def judge_input(
    store: Store, item: review_queue.QueueItem, subject_iri: str, shown: Withholding
) -> dict[str, Any]:
    """The JSON object the judge reads for one queued subject, as the run's reader sees it."""
    output = IRI(ids.mint("output", item.outputs[0]))
    rows = store.select(
        library_query("triage-subject").text,
        params={"subject": IRI(subject_iri), "output": output},
    )
    first = rows[0] if rows else None
    payload: dict[str, Any] = {
        "subject": item.subject,
        "kind": item.kind,
        "question": item.question,
        "decisions": list(QUESTIONS[item.question].decisions),
        "claim": None if first is None else str(first["claimText"]),
        "asked": None if first is None or first["asked"] is None else str(first["asked"]),
        "spans": [
            {
                "id": str(row["spanId"]),
                "version": str(row["versionId"]),
                "quote": None if row["quote"] is None else str(row["quote"]),
                "locator": None if row["locator"] is None else str(row["locator"]),
            }
            for row in rows
            if row["spanId"] is not None
        ],
    }
    return shown.redact(payload, NAMES)


def parse_answer(stdout: bytes, question: str) -> tuple[str, str]:
    """The judge's decision and reason.

    Raises:
        CommandError: not a JSON object with a decision that is a term of
            ``question`` and a non-empty reason.
    """
    try:
        said = parse_json(stdout.decode("utf-8"), strict=False)  # bounded
    except InputRefused as exc:
        raise CommandError(f"malformed answer: {exc.detail}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise CommandError(f"malformed answer: not JSON ({exc})") from None
    if not isinstance(said, dict):
        raise CommandError('malformed answer: not a JSON object {"decision", "reason"}')
    decision, reason = said.get("decision"), said.get("reason")
    terms = QUESTIONS[question].decisions
    if not isinstance(decision, str) or decision not in terms:
        # Shortened: the answer is the command's, as long as its output cap allows.
        said_decision = repr(decision)[:80]
        raise CommandError(
            f"malformed answer: decision {said_decision} is not a term of question "
            f"{question!r} (expected one of {', '.join(terms)})"
        )
    if not isinstance(reason, str) or not reason.strip():
        raise CommandError('malformed answer: "reason" is not a non-empty string')
    return decision, reason


def triage(
    store: Store,
    *,
    run: str,
    command: str,
    limits: Limits,
    shown: Withholding,
    by: str | None = None,
    folder: Path | None = None,
) -> TriageResult:
    """Run ``command`` on each subject awaiting adjudication for ``run``; record its answers.

    ``by`` names the judge (its name and version; default: the command).
    ``shown`` is the reader filter every text sent to the command passes.
    Subjects the judge already judged on their question are skipped.

    Raises:
        ReviewError: ``run`` is not a run of the store.
        AdjudicationError: no folder to keep the judgments' files in.
    """
    judge_name = (by or command).strip()
    result = TriageResult(run=run, judge=judge_name)
    for item in review_queue.queue(store, run):
        if any(j.machine and j.by == judge_name for j in item.judgments):
            result.skipped.append(item.subject)
            continue
        subject_iri = ids.mint(_KINDS[item.kind], item.subject)
        payload = judge_input(store, item, subject_iri, shown)
        try:
            done = run_command(
                command,
                stdin=json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                limits=limits,
            )
            if done.returncode != 0:
                tail = done.last_error_line()
                raise CommandError(f"exit status {done.returncode}" + (f": {tail}" if tail else ""))
            decision, reason = parse_answer(done.stdout, item.question)
            recorded = adjudication.judge(
                store,
                item.subject,
                question=item.question,
                decision=decision,
                by=judge_name,
                reason=reason,
                folder=folder,
                machine=True,
            )
        except AdjudicationError:
            raise  # no folder to keep judgments in: no subject can be recorded
        except HopgateError as exc:
            # The command failed or answered badly, or the loader refused the
            # judgment: this subject has nothing recorded, the others go on.
            result.failed.append(Failed(item.subject, item.question, str(exc)))
            continue
        result.answered.append(Answered(item.subject, item.question, recorded.id, decision))
    return result


__all__ = ["Answered", "Failed", "TriageResult", "judge_input", "parse_answer", "triage"]
