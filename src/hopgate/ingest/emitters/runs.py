"""What a system did: runs, their cases (plain and intervention) and the outputs they generated.

docs/model.md "Records" gives the triples; docs/spec/ledger.md "Runs",
"Cases" and "Outputs" the fields and what is checked;
docs/spec/interventions.md "Recording answers" the intervention cases.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.ids import case_iri, case_key
from hopgate.ingest.emitters.context import A, Context, extension
from hopgate.ingest.emitters.evidence import delivered
from hopgate.ingest.ledger import Record
from hopgate.vocab import HG, OA, PROV


def emit_run(ctx: Context, record: Record) -> Iterator[str]:
    """One system's run on an evaluation, and the system as a software agent."""
    d = record.data
    s = nt.iri(ids.mint("run", d["id"]))
    yield from ctx.common(s, record, (PROV + "Activity", HG + "Run"), d["id"])
    evaluation = ctx.ref("evaluation", d["evaluation"], record, "evaluation")
    yield f"{s} <{HG}evaluation> {nt.iri(evaluation)}"
    yield f"{s} <{PROV}wasAssociatedWith> {nt.iri(ids.mint('agent', d['system']))}"
    if d.get("started_at"):
        yield f"{s} <{PROV}startedAtTime> {nt.datetime(ctx.time(record, d, 'started_at'))}"
    yield from ctx.agent(d["system"], software=True)


def emit_case(ctx: Context, record: Record) -> Iterator[str]:
    """One run's answer to one question: what it retrieved, and its output claims."""
    d = record.data
    case_node = case_iri(case_key(d))
    case = nt.iri(case_node)
    yield f"{case} <{A}> <{PROV}Activity>"
    run = nt.iri(ctx.ref("run", d["run"], record, "run"))
    if d.get("intervention") is None:
        yield f"{case} <{A}> <{HG}Retrieval>"
        yield f"{case} <{HG}ofRun> {run}"
    else:  # kept apart from the plain cases (docs/spec/interventions.md "Recording answers")
        yield from _intervention(ctx, record, case, run)
    question = ctx.ref("question", d["question"], record, "question")
    asked = "forQuestion" if d.get("intervention") is None else "interventionQuestion"
    yield f"{case} <{HG}{asked}> {nt.iri(question)}"
    yield f"{case} <{HG}abstained> {nt.boolean(bool(d.get('abstained', False)))}"
    yield from extension(case, d)
    for number, item in enumerate(d.get("retrieved") or []):
        span, lines = delivered(ctx, record, item, f"retrieved[{number}]")
        yield from lines
        yield f"{case} <{HG}retrieved> {nt.iri(span)}"
        # The list order is the retrieval rank (rank-based peer metrics read it).
        usage = nt.iri(f"{case_node}/rank/{number + 1}")
        yield f"{case} <{PROV}qualifiedUsage> {usage}"
        yield f"{usage} <{A}> <{PROV}Usage>"
        yield f"{usage} <{PROV}entity> {nt.iri(span)}"
        yield f"{usage} <{HG}rank> {nt.integer(number + 1)}"
    for number, output in enumerate(d.get("outputs") or []):
        name = f"outputs[{number}]"
        o = nt.iri(ids.mint("output", output["id"]))
        yield f"{o} <{A}> <{PROV}Entity>"
        yield f"{o} <{A}> <{HG}OutputClaim>"
        yield f"{o} <{HG}ledgerId> {nt.string(output['id'])}"
        yield from extension(o, output)
        yield f"{o} <{PROV}wasGeneratedBy> {case}"
        if output.get("text") is not None:
            yield f"{o} <{PROV}value> {nt.string(output['text'])}"
        if output.get("claim") is not None:
            claim = ctx.ref("claim", output["claim"], record, f"{name}.claim")
            yield f"{o} <{HG}asserts> {nt.iri(claim)}"
        if output["correct"] is not None:  # null: not judged (acceptance.md "Verdict")
            yield f"{o} <{HG}judgedCorrect> {nt.boolean(output['correct'])}"
        for cited_number, item in enumerate(output.get("cites") or []):
            where = f"{name}.cites[{cited_number}]"
            segmented = isinstance(item, dict) and "segment" in item
            cited = item["span"] if segmented else item
            span, lines = delivered(ctx, record, cited, f"{where}.span" if segmented else where)
            yield from lines
            yield f"{o} <{HG}cites> {nt.iri(span)}"
            if segmented:
                yield from _segment(ctx, record, output, span, item["segment"], where)
        ctx.counts["output"] += 1


def _segment(
    ctx: Context,
    record: Record,
    output: dict[str, Any],
    span: str,
    segment: list[int | float],
    where: str,
) -> Iterator[str]:
    """A citation with the segment of the output's text it supports (docs/spec/ledger.md
    "Outputs"): a qualified derivation whose segment is a Web Annotation selector on the
    output."""
    text = output.get("text")
    # JSON Schema counts 3.0 as an integer (and a ledger may spell it so): use the int,
    # as span offsets do (hopgate.ingest.anchoring), so [0.0, 8.0] is [0, 8].
    start, end = (_integral(value) for value in segment)
    if text is None:
        ctx.fail(
            f"output {output['id']!r}: a citation segment needs the output's text",
            record,
            f"{where}.segment",
        )
    if not start < end <= len(text):
        ctx.fail(
            f"output {output['id']!r}: segment [{start}, {end}] is outside the output's text "
            f"({len(text)} code points; start inclusive, end exclusive, start < end)",
            record,
            f"{where}.segment",
        )
    o = ids.mint("output", output["id"])
    node = f"{o}/citation/{start}-{end}/{ids.encode_id(ids.ledger_id(span))}"
    target, selector = node + "/segment", node + "/segment/position"
    yield f"{nt.iri(o)} <{PROV}qualifiedDerivation> {nt.iri(node)}"
    yield f"{nt.iri(node)} <{A}> <{PROV}Derivation>"
    yield f"{nt.iri(node)} <{A}> <{HG}Citation>"
    yield f"{nt.iri(node)} <{PROV}entity> {nt.iri(span)}"
    yield f"{nt.iri(node)} <{HG}supportsSegment> {nt.iri(target)}"
    yield f"{nt.iri(target)} <{A}> <{OA}SpecificResource>"
    yield f"{nt.iri(target)} <{OA}hasSource> {nt.iri(o)}"
    yield f"{nt.iri(target)} <{OA}hasSelector> {nt.iri(selector)}"
    yield f"{nt.iri(selector)} <{A}> <{OA}TextPositionSelector>"
    yield f"{nt.iri(selector)} <{OA}start> {nt.integer(start)}"
    yield f"{nt.iri(selector)} <{OA}end> {nt.integer(end)}"


def _integral(value: int | float) -> int:
    """``value`` as an int: the ledger's schema admits whole numbers only, ``3`` or ``3.0``."""
    return int(value)


def _intervention(ctx: Context, record: Record, case: str, run: str) -> Iterator[str]:
    """The triples of a case's ``intervention`` mapping (docs/spec/ledger.md "Cases")."""
    spec = record.data["intervention"]
    yield f"{case} <{A}> <{HG}InterventionCase>"
    yield f"{case} <{HG}interventionOfRun> {run}"
    the_set = ctx.ref("evidence_set", spec["set"], record, "intervention.set")
    yield f"{case} <{HG}selectedSet> {nt.iri(the_set)}"
    yield f"{case} <{HG}variant> {nt.string(spec['variant'])}"
    if spec.get("member") is not None:
        member = ctx.ref("span", spec["member"], record, "intervention.member")
        yield f"{case} <{HG}interventionMember> {nt.iri(member)}"
    if spec.get("replacement") is not None:
        span, lines = delivered(ctx, record, spec["replacement"], "intervention.replacement")
        yield from lines
        yield f"{case} <{HG}replacement> {nt.iri(span)}"
    for number, item in enumerate(spec.get("citable") or []):
        span, lines = delivered(ctx, record, item, f"intervention.citable[{number}]")
        yield from lines
        yield f"{case} <{HG}citable> {nt.iri(span)}"


__all__ = ["emit_case", "emit_run"]
