"""The record emitters: one function per ledger record kind, writing its PROV-O triples.

Each emitter takes the load's :class:`~hopgate.ingest.emitters.context.Context`
and one record and yields N-Triples statements (without a graph term), as
docs/model.md "Records" describes them; the loader's second pass adds the
load's graph and writes them. The kinds are grouped by what they record:
:mod:`.evidence` (evaluations, readers, sources, versions, spans),
:mod:`.claims` (questions, claims, evidence sets, contradictions),
:mod:`.runs` (runs, cases, outputs) and :mod:`.adjudication` (judgments).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from hopgate.ingest.emitters.adjudication import emit_judgment
from hopgate.ingest.emitters.claims import (
    emit_claim,
    emit_contradiction,
    emit_evidence_set,
    emit_question,
)
from hopgate.ingest.emitters.context import Context, TooLarge
from hopgate.ingest.emitters.evidence import (
    emit_evaluation,
    emit_reader,
    emit_source,
    emit_span,
    emit_version,
)
from hopgate.ingest.emitters.runs import emit_case, emit_run
from hopgate.ingest.ledger import Record

Emitter = Callable[[Context, Record], Iterator[str]]

#: Each ledger record kind (docs/spec/ledger.md) and its emitter.
EMITTERS: dict[str, Emitter] = {
    "evaluation": emit_evaluation,
    "reader": emit_reader,
    "source": emit_source,
    "version": emit_version,
    "span": emit_span,
    "question": emit_question,
    "claim": emit_claim,
    "evidence_set": emit_evidence_set,
    "contradiction": emit_contradiction,
    "run": emit_run,
    "case": emit_case,
    "judgment": emit_judgment,
}


def record_lines(ctx: Context, record: Record) -> list[str]:
    """The statements of one record (a new inline span it delivers included), each once.

    A record may state one thing twice (an output citing the same span twice, a
    case retrieving it twice at two ranks): the graph holds it once, so the
    load's count of statements counts it once.

    Raises:
        LedgerError: the record breaks a rule only the second pass can check.
    """
    try:
        return list(dict.fromkeys(EMITTERS[record.kind](ctx, record)))
    except TooLarge as exc:
        ctx.fail(str(exc), record, exc.field)


__all__ = ["EMITTERS", "Context", "Emitter", "record_lines"]
