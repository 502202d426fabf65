"""Your own RAG pipeline's files: documents, gold questions and answers with contexts.

The format (``docs/rag-format.md`` is the reference, with a worked example in
``examples/rag-*.jsonl``) is what a pipeline can write without knowing PROV.
Each file is JSON Lines or one JSON list (told by the first non-space
character), UTF-8 with or without a byte-order mark, optionally gzip'd
(``.gz``):

- **docs** and **gold**: the evidence universe and what the team holds true
  of it (:mod:`.gold`): documents with their version facts, questions with
  reference answers, alternative evidence sets and contradictions, the
  evaluation's reader and cutoff.
- **answers**: one run. In the native format, ``{"id", "answer", "contexts":
  [...], "citations"?, "abstained"?, "correct"?}``: a ``case`` of the run.
  ``contexts`` (in rank order) are refs or ``{"doc", "text"}``, or a plain
  text found in exactly one document; each is anchored in its document
  (:mod:`.corpus`) and delivered as an inline span. ``citations``
  (:mod:`.citations`) are context positions, documents (retrieved or not),
  quotes or offsets, each with the answer segment it supports; without it,
  ``[n]`` markers in the answer are the citations. Or one logged response per
  line in a pipeline's own shape (LangChain, LlamaIndex, Anthropic, OpenAI,
  Cohere, Haystack: :mod:`.shapes`), read into the native format first. One
  output per required claim, carrying the whole answer. Its correctness is
  never guessed from the answer's text (:mod:`hopgate.ingest.correctness`):
  the ``correct`` label, else a ``short_answer`` that is the reference answer
  after SQuAD normalization, else the judge command the import names, else
  unknown (``correct: null``); ``x-correct-by`` on the output says which, and
  the import's notes count each.

A context text that differs from its document only in whitespace is found
(offsets map back to the document's own text); one that occurs several times
in its document is anchored at its first occurrence (counted in the notes).
Bad input stops the import with a ``LedgerError`` naming file, line and field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from hopgate import progress
from hopgate.errors import LedgerError
from hopgate.ingest.adapters import shapes
from hopgate.ingest.adapters.citations import (
    CitationCounts,
    citation_markers,
    cited,
    output_cites,
    strip_markers,
)
from hopgate.ingest.adapters.common import Record, read_items
from hopgate.ingest.adapters.corpus import Corpus, Located
from hopgate.ingest.adapters.gold import (
    Gold,
    GoldClaim,
    GoldQuestion,
    documents,
    gold_questions,
    head_records,
    mark_answerable,
)
from hopgate.ingest.adapters.items import (
    Conversion,
    Item,
    ItemError,
    as_object,
    check_fields,
    field_bool,
    field_id,
    field_string,
    file_time,
    item_error,
    note_unknown,
)
from hopgate.ingest.correctness import BY_LABEL, Judge, Tally, decide
from hopgate.suggest import did_you_mean

EVALUATION = "rag"
RUN = "rag-run"
#: The fields of an answer in the native format (docs/rag-format.md "answers: one run of your pipeline").
ANSWER_FIELDS = {
    "id",
    "question",
    "answer",
    "contexts",
    "citations",
    "abstained",
    "correct",
    "short_answer",
}


def case_record(
    corpus: Corpus,
    question: GoldQuestion,
    item: dict[str, Any],
    *,
    run: str,
    judging: Tally,
    counts: CitationCounts | None = None,
    judge: Judge | None = None,
) -> Record:
    """The ``case`` record of one answer (raises ``ItemError`` naming the field).

    Citations: see :mod:`.citations` (positions, documents, quotes, offsets,
    each with the answer segment it supports). Each output's correctness: the
    ``correct`` label, else an exact match of ``short_answer`` with the claim's
    reference answer, else ``judge``'s decision, else unknown
    (:func:`hopgate.ingest.correctness.decide`); ``judging`` counts how each was
    decided.
    """
    abstained = field_bool(item, "abstained") or False
    answer = field_string(item, "answer", required=not abstained)
    contexts = item.get("contexts")
    if contexts is None:
        contexts = []
    if not isinstance(contexts, list):
        raise ItemError(f"expected a list of contexts, got {type(contexts).__name__}", "contexts")
    located = [corpus.context(ref, f"contexts[{n}]") for n, ref in enumerate(contexts)]
    retrieved = list(dict.fromkeys(located))
    case: Record = {
        "type": "case",
        "run": run,
        "question": question.id,
        "retrieved": [span.inline() for span in retrieved],
        "abstained": abstained,
    }
    if abstained:
        if answer:
            case["x-answer"] = answer
        case["outputs"] = []
        return case
    assert answer is not None
    cites = output_cites(
        cited(corpus, item.get("citations"), answer=answer, contexts=located, counts=counts)
    )
    correct = field_bool(item, "correct")
    short = field_string(item, "short_answer", required=False)
    outputs = []
    several = len(question.claims) > 1
    for claim in question.claims:
        output: Record = {
            "id": f"{run}/{question.id}/{claim.id}" if several else f"{run}/{question.id}",
            "text": answer,
            "claim": claim.id,
            "cites": cites,
        }
        decision = decide(
            label=correct,
            short_answer=short,
            reference=claim.answer,
            question=question.text,
            answer=answer,
            judge=judge,
        )
        output["correct"] = decision.correct
        if decision.by != BY_LABEL:
            output["x-correct-by"] = decision.by
        judging.add(decision)
        outputs.append(output)
    case["outputs"] = outputs
    return case


def answers(
    items: Iterable[Item],
    corpus: Corpus,
    questions: dict[str, GoldQuestion],
    conversion: Conversion,
    *,
    run: str,
    evaluation: str,
    system: str,
    library: shapes.Library | None = None,
    shape: str | None = None,
    judge: Judge | None = None,
) -> None:
    """The run record and one case per answer, read in its own format or a pipeline's ``shape``.

    ``shape`` names a reader of :mod:`.shapes` (None: detected from the first
    line); ``library`` finds the documents a logged response names.
    """
    library = library if library is not None else shapes.Library(corpus, [])
    lines = _native_lines(items, library, shape, conversion)
    by_text: dict[str, list[str]] = {}
    for qid, gold in questions.items():
        by_text.setdefault(_spaced(gold.text), []).append(qid)
    seen: dict[str, str] = {}
    judging = Tally()
    counts = CitationCounts()
    unknown: Counter[str] = Counter()
    cases: list[Record] = []
    file = ""
    for file, where, item in lines:
        try:
            check_fields(item, ANSWER_FIELDS, unknown)
            qid = _question_of(item, questions, by_text)
            if qid in seen:
                raise ItemError(f"a second answer to question {qid!r} (first at {seen[qid]})", "id")
            cases.append(
                case_record(
                    corpus,
                    questions[qid],
                    item,
                    run=run,
                    judging=judging,
                    counts=counts,
                    judge=judge,
                )
            )
        except ItemError as exc:
            raise item_error(file, where, exc) from None
        seen[qid] = where
    conversion.records.append(
        {"type": "run", "id": run, "evaluation": evaluation, "system": system}
    )
    conversion.records.extend(cases)
    conversion.counts["answer"] = len(cases)
    conversion.counts["abstention"] = sum(1 for c in cases if c["abstained"])
    conversion.counts["output claim"] = sum(len(c["outputs"]) for c in cases)
    conversion.notes.extend(judging.notes(f"{file}: output claims"))
    conversion.counts["judge failure"] = sum(judging.failures.values())
    if counts.unretrieved_documents:
        conversion.notes.append(
            f"{file}: {counts.unretrieved_documents} citation(s) name a document none of whose "
            "text the answer retrieved: each cites the whole document, kept and shown as cited, "
            "never retrieved"
        )
    if counts.with_segment:
        conversion.notes.append(
            f"{file}: {counts.with_segment} citation(s) carry the answer segment they support"
        )
    missing = [q for q in questions if q not in seen]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        conversion.notes.append(
            f"{file}: {len(missing)} gold question(s) have no answer and are not in run {run}: "
            f"{shown}"
        )
    if corpus.whitespace_matched:
        conversion.notes.append(
            f"{corpus.whitespace_matched} gold quote(s) or context text(s) matched their "
            "document only with whitespace collapsed"
        )
    if corpus.first_occurrence:
        conversion.notes.append(
            f"{corpus.first_occurrence} context text(s) occur more than once in their document: "
            "anchored at the first occurrence"
        )
    note_unknown(conversion.notes, file, unknown)


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _question_of(
    item: dict[str, Any], questions: dict[str, GoldQuestion], by_text: dict[str, list[str]]
) -> str:
    """The gold question an answer answers: its ``id``, else the one its question text is."""
    if "id" in item:
        qid = field_id(item)
        if qid not in questions:
            raise ItemError(
                f"unknown question {qid!r} (not in the gold file){did_you_mean(qid, questions)}",
                "id",
            )
        return qid
    text = item.get("question")
    if not isinstance(text, str) or not text.strip():
        raise ItemError(
            'missing field: give the gold question\'s "id" (or its text as "question")', "id"
        )
    found = by_text.get(_spaced(text), [])
    if len(found) != 1:
        why = "no gold question has" if not found else f"{len(found)} gold questions have"
        raise ItemError(f'{why} the question text {text[:80]!r}: give its "id"', "question")
    return found[0]


def _native_lines(
    items: Iterable[Item], library: shapes.Library, shape: str | None, conversion: Conversion
) -> list[Item]:
    """Every answer line in the native format: read by its shape's reader when it is not.

    A shape that cites by ``[n]`` markers only (LangChain without citations,
    LlamaIndex, Haystack's generated answers) cites every context of every
    answer when no answer of the file has a marker: the pipeline answered
    from all it retrieved, and said nothing narrower.
    """
    found: list[Item] = []
    report: shapes.ShapeReport | None = None
    markers_only = False
    file = ""
    for file, where, raw in items:
        try:
            line = as_object(raw)
            if report is None:
                chosen = shape if shape is not None else shapes.detect(line)
                report = shapes.ShapeReport(chosen, detected=shape is None)
            if report.shape == shapes.NATIVE:
                found.append((file, where, line))
                continue
            answer = shapes.read(report.shape, line, library, report)
        except ItemError as exc:
            raise item_error(file, where, exc) from None
        item = dict(answer.item)
        for key in ("id", "correct", "abstained", "short_answer"):
            if key in line and key not in item:
                item[key] = line[key]
        question = line.get("question") if isinstance(line.get("question"), str) else None
        if "id" not in item and (question or answer.question):
            item["question"] = question or answer.question
        markers_only = markers_only or answer.markers_only
        found.append((file, where, item))
    if report is None or report.shape == shapes.NATIVE:
        return found
    conversion.notes.extend(report.lines(file))
    if markers_only and not any(
        citation_markers(str(item.get("answer", ""))) for _, _, item in found
    ):
        for _, _, item in found:
            if "citations" not in item:
                item["citations"] = list(range(1, len(item.get("contexts") or []) + 1))
        conversion.notes.append(
            f"{file}: no answer carries a [n] citation marker and the shape records no citation "
            "of its own: each answer cites every context it retrieved"
        )
    return found


def convert(
    docs: Iterable[Item],
    gold: Iterable[Item],
    answer_items: Iterable[Item] | None,
    *,
    run: str = RUN,
    evaluation: str = EVALUATION,
    system: str | None = None,
    default_time: str,
    shape: str | None = None,
    judge: Judge | None = None,
) -> Conversion:
    """Ledger records for documents, gold questions and (optionally) a run's answers.

    Raises:
        LedgerError: bad input, naming file, line and field.
    """
    conversion = Conversion()
    corpus = Corpus()
    facts = Gold()
    times = documents(docs, corpus, conversion, default_time=default_time, gold=facts)
    latest = max(times)
    questions = gold_questions(gold, corpus, conversion, annotated_at=latest, gold=facts)
    mark_answerable(questions, conversion.records)
    head = head_records(
        facts, evaluation=evaluation, latest=latest, documents=conversion.counts["document"]
    )
    if answer_items is not None:
        library = shapes.Library(corpus, (r for r in conversion.records if r["type"] == "source"))
        answers(
            answer_items,
            corpus,
            questions,
            conversion,
            run=run,
            evaluation=evaluation,
            system=system or run,
            library=library,
            shape=shape,
            judge=judge,
        )
    conversion.records[:0] = head
    return conversion


def file_items(path: Path) -> Iterator[Item]:
    """The items of one input file, labelled with its name and where each is."""
    for where, item in progress.counted(read_items(path), f"import {path.name}", unit="items"):
        yield str(path), where, item


def records(
    *,
    docs: list[Path],
    gold: Path,
    answers: Path | None,
    run: str = RUN,
    evaluation: str = EVALUATION,
    shape: str | None = None,
    notes: list[str] | None = None,
    judge: Judge | None = None,
    counts: Counter[str] | None = None,
) -> Iterator[Record]:
    """Ledger records for ``hopgate import rag`` (see the module docstring).

    ``shape`` names the answers file's shape (:data:`.shapes.SHAPES`; None:
    detected from its first line). ``judge`` (``--correctness-judge CMD``)
    decides the answers that carry neither a ``correct`` label nor a
    ``short_answer`` matching the reference. ``counts`` gets the conversion's counts
    (``judge failure``: the answers the judge failed to decide).

    Raises:
        LedgerError: bad input, naming file, line and field; nothing is written.
    """
    if shape is not None and shape not in shapes.SHAPES:
        raise LedgerError(
            f"unknown answers shape {shape!r} (known: {', '.join(shapes.SHAPES)})"
            + did_you_mean(shape, shapes.SHAPES),
            file=str(answers) if answers is not None else "--shape",
        )
    for path in [*docs, gold, *([answers] if answers else [])]:
        if not path.exists():  # anything else not a regular file is refused when read
            raise LedgerError("no such file", file=str(path))
    default_time = max(file_time(path) for path in docs)
    conversion = convert(
        (item for path in docs for item in file_items(path)),
        file_items(gold),
        file_items(answers) if answers is not None else None,
        run=run,
        evaluation=evaluation,
        default_time=default_time,
        shape=shape,
        judge=judge,
    )
    if counts is not None:
        counts.update(conversion.counts)
    if notes is not None:
        counts = conversion.counts
        summary = (
            f"{counts['document']} documents, {len(_of(conversion, 'question'))} questions "
            f"({counts['claim']} claims, {counts['consequential claim']} consequential, "
            f"{counts['evidence set']} evidence sets, {counts['contradiction']} contradictions)"
        )
        if answers is not None:
            summary += (
                f"; run {run}: {counts['answer']} answers ({counts['abstention']} abstained), "
                f"{counts['output claim']} output claims"
            )
        notes.append(summary)
        notes.extend(conversion.notes)
        if not counts["consequential claim"]:
            notes.append(
                'no claim is marked "consequential": `hopgate gate` weighs nothing unless told '
                '--consequential all (docs/rag-format.md "gold: questions and their evidence sets")'
            )
    yield from conversion.records


def _of(conversion: Conversion, kind: str) -> list[Record]:
    return [r for r in conversion.records if r["type"] == kind]


__all__ = [
    "ANSWER_FIELDS",
    "EVALUATION",
    "RUN",
    "Conversion",
    "Corpus",
    "GoldClaim",
    "GoldQuestion",
    "Item",
    "ItemError",
    "Located",
    "answers",
    "case_record",
    "citation_markers",
    "convert",
    "documents",
    "gold_questions",
    "item_error",
    "mark_answerable",
    "records",
    "strip_markers",
]
