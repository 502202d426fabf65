"""What is asked and what supports it: questions, claims, evidence sets, contradictions.

docs/model.md "Records" gives the triples; docs/spec/ledger.md "Questions",
"Claims", "Evidence sets" and "Contradictions" the fields and what is checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.ingest.emitters.context import A, Context
from hopgate.ingest.ledger import Record, parse_time
from hopgate.vocab import HG, PROV

_STATUS = {"adjudicated": "Adjudicated", "proposed": "Proposed", "rejected": "Rejected"}
_CONTRADICTION = {"resolved": "Resolved", "unresolved": "Unresolved"}


def emit_question(ctx: Context, record: Record) -> Iterator[str]:
    """A question, its reference answer and the claims an answer requires."""
    d = record.data
    s = nt.iri(ids.mint("question", d["id"]))
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Question"), d["id"])
    yield f"{s} <{PROV}value> {nt.string(d['text'])}"
    if d.get("answer") is not None:
        yield f"{s} <{HG}referenceAnswer> {nt.string(d['answer'])}"
    for claim in d["claims"]:
        yield f"{s} <{HG}requiresClaim> {nt.iri(ctx.ref('claim', claim, record, 'claims'))}"


def emit_claim(ctx: Context, record: Record) -> Iterator[str]:
    """An atomic assertion a question requires."""
    d = record.data
    s = nt.iri(ids.mint("claim", d["id"]))
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Claim"), d["id"])
    yield f"{s} <{PROV}value> {nt.string(d['text'])}"
    if d.get("applies_at"):
        yield f"{s} <{HG}appliesAt> {nt.datetime(ctx.time(record, d, 'applies_at'))}"
    yield f"{s} <{HG}consequential> {nt.boolean(bool(d.get('consequential', False)))}"
    yield from _not_applicable(ctx, record, ids.mint("claim", d["id"]))


def _not_applicable(ctx: Context, record: Record, claim: str) -> Iterator[str]:
    """The evaluations the claim does not apply to, each with its reason.

    docs/spec/acceptance.md "Not applicable": one statement per evaluation, a
    sub-node of the claim (so a restated claim is compared with its statements).
    """
    seen: set[str] = set()
    for number, entry in enumerate(record.data.get("not_applicable") or []):
        where = f"not_applicable[{number}]"
        evaluation = entry["evaluation"]
        if evaluation in seen:
            ctx.fail(f"evaluation {evaluation!r} is listed twice", record, f"{where}.evaluation")
        seen.add(evaluation)
        target = ctx.ref("evaluation", evaluation, record, f"{where}.evaluation")
        if not entry["reason"].strip():
            ctx.fail("a not-applicable claim needs its reason", record, f"{where}.reason")
        node = nt.iri(f"{claim}/not-applicable/{ids.encode_id(evaluation)}")
        yield f"{nt.iri(claim)} <{HG}notApplicable> {node}"
        yield f"{node} <{A}> <{PROV}Entity>"
        yield f"{node} <{A}> <{HG}Inapplicability>"
        yield f"{node} <{HG}inapplicableTo> {nt.iri(target)}"
        yield f"{node} <{HG}reason> {nt.string(entry['reason'])}"


def emit_evidence_set(ctx: Context, record: Record) -> Iterator[str]:
    """An annotated set of reference spans, its inference rule and its annotation."""
    d = record.data
    set_id = d["id"]
    s = nt.iri(ids.mint("set", set_id))
    rule = nt.iri(ids.mint("rule", set_id))
    activity = nt.iri(ids.mint("annotation", set_id))
    yield from ctx.common(
        s, record, (PROV + "Entity", PROV + "Collection", HG + "EvidenceSet"), set_id
    )
    yield f"{s} <{HG}supportsClaim> {nt.iri(ctx.ref('claim', d['claim'], record, 'claim'))}"
    seen: set[str] = set()
    for member in d["members"]:
        if member in seen:
            ctx.fail(f"member {member!r} is listed twice", record, "members")
        seen.add(member)
        yield f"{s} <{PROV}hadMember> {nt.iri(ctx.ref('span', member, record, 'members'))}"
    yield f"{s} <{HG}setStatus> <{HG}{_STATUS[d['status']]}>"
    annotation = d["annotation"]
    yield f"{s} <{HG}annotationVersion> {nt.integer(int(annotation['version']))}"
    yield f"{s} <{HG}inferenceRule> {rule}"
    yield f"{s} <{PROV}wasGeneratedBy> {activity}"
    yield f"{rule} <{A}> <{PROV}Plan>"
    yield f"{rule} <{A}> <{HG}InferenceRule>"
    yield f"{rule} <{PROV}value> {nt.string(d['inference'])}"
    yield f"{activity} <{A}> <{PROV}Activity>"
    yield f"{activity} <{A}> <{HG}Annotation>"
    yield f"{activity} <{PROV}wasAssociatedWith> {nt.iri(ids.mint('agent', annotation['by']))}"
    at = parse_time(
        annotation["at"],
        file=ctx.file,
        where=record.where,
        field="annotation.at",
        record_id=set_id,
    )
    yield f"{activity} <{PROV}endedAtTime> {nt.datetime(at)}"
    yield from ctx.agent(annotation["by"])


def emit_contradiction(ctx: Context, record: Record) -> Iterator[str]:
    """Conflicting evidence recorded against a claim, and how it was resolved."""
    d = record.data
    s = nt.iri(ids.mint("contradiction", d["id"]))
    if d["status"] == "resolved" and not d.get("decision"):
        ctx.fail("a resolved contradiction needs its decision", record, "decision")
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Contradiction"), d["id"])
    yield f"{s} <{HG}contradictsClaim> {nt.iri(ctx.ref('claim', d['claim'], record, 'claim'))}"
    yield f"{s} <{HG}conflictingSpan> {nt.iri(ctx.ref('span', d['span'], record, 'span'))}"
    yield f"{s} <{HG}contradictionStatus> <{HG}{_CONTRADICTION[d['status']]}>"
    if d.get("decision"):
        yield f"{s} <{HG}decision> {nt.string(d['decision'])}"


__all__ = ["emit_claim", "emit_contradiction", "emit_evidence_set", "emit_question"]
