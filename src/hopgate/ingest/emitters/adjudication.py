"""Human review decisions: judgments, checked against the question they answer.

docs/model.md "Records" gives the triples; docs/spec/ledger.md "Judgments"
the fields and the checks; docs/spec/adjudication.md "Judgments" the
questions, their subjects and their terms (:mod:`hopgate.ingest.judgments`),
and "Recording" the store's stamp on each judgment a load writes (its
recording number, :func:`recording_numbers`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.ingest import judgments
from hopgate.ingest.emitters.context import Context, TooLarge, stamp
from hopgate.ingest.index import ID_KINDS, LedgerIndex
from hopgate.ingest.ledger import Record
from hopgate.ingest.stored import RECORD_NUMBER, StoredRecords
from hopgate.inputs import MAX_LITERAL_BYTES, literal_size
from hopgate.vocab import HG, PROV, RDF


def emit_judgment(ctx: Context, record: Record) -> Iterator[str]:
    """A judgment of one record: who decided what, and, when structured, which question."""
    d = record.data
    s = nt.iri(ids.mint("judgment", d["id"]))
    question: str | None = d.get("question")
    if question is None:
        for name in ("final", "settles", "machine"):
            if name in d:
                ctx.fail(f"field {name!r} needs the judgment's question", record, name)
    else:
        problem = judgments.decision_error(question, d["decision"])
        if problem is not None:
            ctx.fail(problem, record, "decision")
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Judgment"), d["id"])
    subject = judged(ctx, record, d["subject"], question)
    yield f"{s} <{HG}judges> {nt.iri(subject)}"
    yield f"{s} <{PROV}wasAttributedTo> {nt.iri(ids.mint('agent', d['by']))}"
    if d.get("at"):
        at = ctx.time(record, d, "at")
        # A judgment's place is when the store recorded it, and it cannot
        # claim a time after that (docs/spec/adjudication.md "Recording").
        if datetime.fromisoformat(at.replace("Z", "+00:00")) > ctx.recorded_at:
            ctx.fail(
                f"the judgment's time {at} is after its recording "
                f"({stamp(ctx.recorded_at)}): a judgment cannot be dated after the load "
                "that records it",
                record,
                "at",
            )
        yield f"{s} <{PROV}generatedAtTime> {nt.datetime(at)}"
    if d.get("proof") is not None:
        # A signature over the judgment (docs/spec/adjudication.md "Signed
        # judgments"), kept as written; checked when read, against trusted keys.
        payload = json.dumps(d["proof"], sort_keys=True, ensure_ascii=False)
        if literal_size(payload) > MAX_LITERAL_BYTES:
            raise TooLarge(f"the proof is over the {MAX_LITERAL_BYTES:,}-byte limit", "proof")
        yield f"{s} <{HG}proof> {nt.literal(payload, RDF + 'JSON')}"
    yield f"{s} <{HG}decision> {nt.string(d['decision'])}"
    if d.get("reason"):
        yield f"{s} <{HG}reason> {nt.string(d['reason'])}"
    if question is not None:
        # docs/spec/ledger.md "Judgments": the structured spelling.
        final = bool(d.get("final", False))
        if d.get("machine") and final:
            # docs/spec/adjudication.md "Machine triage": a machine judgment is initial only.
            ctx.fail(
                "a machine judgment is initial only: it cannot be final "
                '(docs/spec/adjudication.md "Machine triage")',
                record,
                "final",
            )
        yield f"{s} <{HG}question> {nt.string(question)}"
        yield f"{s} <{HG}final> {nt.boolean(final)}"
        if d.get("machine"):
            yield f"{s} <{HG}machine> {nt.boolean(True)}"
        settles = d.get("settles") or []
        if settles and not final:
            ctx.fail("only a final judgment settles others", record, "settles")
        for number, other in enumerate(settles):
            settled = _settled(ctx, record, other, subject, question, number)
            yield f"{s} <{HG}settles> {nt.iri(settled)}"
    yield from ctx.agent(d["by"], software=bool(d.get("machine")))
    node = ids.mint("judgment", d["id"])
    if node in ctx.numbers:  # a judgment the store holds already keeps its number
        yield f"{s} <{RECORD_NUMBER}> {nt.integer(ctx.numbers[node])}"


def recording_numbers(
    index: LedgerIndex, existing: set[str], stored: StoredRecords
) -> dict[str, int]:
    """The recording number of each judgment a load writes, by IRI (adjudication.md "Recording").

    The store's stamp on a judgment: one more than the greatest in the store,
    then in the order of the ids of the judgments this load writes (never
    the order of the file, so the same ledger loads the same triples), so
    that recordings are strictly ordered; each load holds the store's writer
    lock (see the spec on remote stores). When and for whom the load ran is
    its catalog entry's. A ledger cannot write this: it is the loader's,
    never a record's field. Judgments in ``existing`` (restated) are not written.
    """
    # In the ids' code-point order (acceptance.md "Terms"), not the minted IRIs': an id
    # outside [A-Za-z0-9_.~-] is percent-encoded in its IRI, and "m-é" (%C3%A9) sorted
    # before "m-z" there, so the judgment recorded last was not the last by id.
    minted = (ids.mint("judgment", j) for j in sorted(index.judgments))
    written = [node for node in minted if node not in existing]
    base = stored.latest_record_number() if written else 0
    return {node: base + rank for rank, node in enumerate(written, start=1)}


def judged(ctx: Context, record: Record, subject: str, question: str | None = None) -> str:
    """The IRI of a judgment's subject: exactly one record of the kinds its question judges."""
    kinds = (
        judgments.UNSTRUCTURED_SUBJECTS
        if question is None
        else judgments.QUESTIONS[question].subjects
    )

    def holds(kind: str) -> bool:
        # A record of this kind in the ledger being loaded, or in the store already.
        iri_kind, cls = ID_KINDS[kind]
        return subject in ctx.index.ids[kind] or ctx.stored.is_a(ids.mint(iri_kind, subject), cls)

    found = [ids.mint(ID_KINDS[kind][0], subject) for kind in kinds if holds(kind)]
    if not found:
        if question is None:
            expected = "an evidence set, output or contradiction id"
        else:
            expected = f"question {question!r} judges {judgments.QUESTIONS[question].subject_words}"
        # A record of a kind the question does not judge is named as what it is.
        others = {k for q in judgments.QUESTIONS.values() for k in q.subjects} - set(kinds)
        held = [
            ("an " if kind[0] in "aeiou" else "a ") + kind.replace("_", " ")
            for kind in sorted(others)
            if holds(kind)
        ]
        what = f"{subject!r} is {' and '.join(held)}" if held else f"unknown subject {subject!r}"
        ctx.fail(f"{what}: expected {expected}", record, "subject")
    if len(found) > 1:
        ctx.fail(
            f"subject {subject!r} names more than one of "
            + ", ".join(k.replace("_", " ") for k in kinds),
            record,
            "subject",
        )
    if question == "boundary" and not _is_extra(ctx, subject, found[0]):
        ctx.fail(
            f"output {subject!r} asserts a reference claim: question 'boundary' judges "
            "an output claim that asserts none",
            record,
            "subject",
        )
    return found[0]


def _is_extra(ctx: Context, output: str, node: str) -> bool:
    if output in ctx.index.ids["output"]:
        return output in ctx.index.extra_outputs
    return not ctx.stored.asserts_a_claim(node)


def _settled(
    ctx: Context, record: Record, other: str, subject: str, question: str, number: int
) -> str:
    """The IRI of a judgment a final one settles: an initial judgment, same subject and question."""
    name = f"settles[{number}]"
    node = ids.mint("judgment", other)
    if other == record.id:
        ctx.fail("a judgment cannot settle itself", record, name)
    if other in ctx.index.judgments:
        other_subject, other_question, other_final = ctx.index.judgments[other]
        facts = (other_question, other_final)
        # Both resolve among the kinds of one question: the same id is the same subject.
        matches_subject = other_subject == record.data["subject"]
    else:
        stored = ctx.stored.judgment(node)
        if stored is None:
            ctx.fail(f"unknown judgment id {other!r}", record, name)
        stored_subject, stored_question, stored_final = stored
        facts = (stored_question, stored_final)
        matches_subject = stored_subject == subject
    if not matches_subject or facts[0] != question:
        ctx.fail(
            f"judgment {other!r} is about another subject or question: a final judgment "
            "settles judgments of its own subject and question",
            record,
            name,
        )
    if facts[1]:
        ctx.fail(f"judgment {other!r} is final: only initial judgments are settled", record, name)
    return node


__all__ = ["emit_judgment", "judged", "recording_numbers"]
