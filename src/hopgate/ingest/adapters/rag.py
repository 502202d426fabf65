"""Your own RAG pipeline's files: documents, gold questions and answers with contexts.

The format (``docs/rag-format.md`` is the reference, with a worked example in
``examples/rag/``) is what a pipeline can write without knowing PROV. Each
file is JSON Lines or one JSON list (told by the first non-space character),
UTF-8 with or without a byte-order mark, optionally gzip'd (``.gz``):

- **docs**: ``{"id", "text", "url"?, "title"?, "observed_at"?}``: the
  evidence universe. Each document becomes a ``source`` (``url``, else
  ``urn:hopgate:doc:<id>``) and a ``version`` (id = the document id) that
  retains the text; ``observed_at`` defaults to the docs file's modification
  time (said in the import's notes).
- **gold**: ``{"id", "question", "answer"?, "consequential"?,
  "evidence_sets": [[ref, ...], ...]}``: a ``question`` requiring one
  ``claim`` (id = the question id), or the claims listed under ``"claims":
  [{"id", "text", "answer"?, "consequential"?, "evidence_sets"}]``. A ref is a
  document id (the whole document), ``{"doc", "quote"}`` (anchored as the
  loader anchors quotes; ``prefix``/``suffix`` choose between occurrences) or
  ``{"doc", "start", "end"}``; each becomes a ``span`` ``<doc>@<start>-<end>``.
  Each inner list is one adjudicated ``evidence_set`` ``<claim>/g<k>``.
- **answers**: ``{"id", "answer", "contexts": [...], "citations"?,
  "abstained"?, "correct"?, "short_answer"?}``: a ``case`` of the run.
  ``contexts`` (in rank order) are refs or ``{"doc", "text"}``, or a plain
  text found in exactly one document; each is anchored in its document and
  delivered as an inline span. ``citations`` are 1-based positions in
  ``contexts``; without it, ``[n]`` markers in the answer are the citations.
  One output per required claim, carrying the whole answer. Its correctness
  is never guessed from the answer's text (:mod:`hopgate.ingest.correctness`): the
  ``correct`` label, else a ``short_answer`` that is the reference answer
  after SQuAD normalization, else the judge command the import names, else
  unknown (``correct: null``); ``x-correct-by`` on the output says which, and
  the import's notes count each.

A context text that differs from its document only in whitespace is found
(offsets map back to the document's own text); one that occurs several times
in its document is anchored at its first occurrence (counted in the notes).
Bad input stops the import with a ``LedgerError`` naming file, line and field.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote as percent

from hopgate import progress
from hopgate.errors import AnchorError, LedgerError
from hopgate.ingest.adapters.common import PUBLIC, Record, read_items
from hopgate.ingest.anchoring import anchor
from hopgate.ingest.correctness import BY_LABEL, Judge, Tally, decide
from hopgate.ingest.ledger import parse_time

EVALUATION = "rag"
RUN = "rag-run"
DOC_FIELDS = {"id", "text", "url", "title", "observed_at"}
GOLD_FIELDS = {"id", "question", "answer", "consequential", "evidence_sets", "claims"}
CLAIM_FIELDS = {"id", "text", "answer", "consequential", "evidence_sets"}
ANSWER_FIELDS = {"id", "answer", "contexts", "citations", "abstained", "correct", "short_answer"}
_MARKER = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")

#: One item of an input: (file name, where in the file, the parsed item).
Item = tuple[str, str, Any]


class ItemError(Exception):
    """A problem inside one item; the caller adds file and line."""

    def __init__(self, message: str, field: str | None) -> None:
        super().__init__(message)
        self.field = field


def item_error(file: str, where: str, exc: ItemError, record_id: str | None = None) -> LedgerError:
    """The ``LedgerError`` of an item's problem: file, line (or call) and field."""
    return LedgerError(str(exc), file=file, record=where, field=exc.field, record_id=record_id)


def strip_markers(text: str) -> str:
    """``text`` without its ``[n]`` citation markers."""
    return _MARKER.sub(" ", text)


def citation_markers(answer: str) -> list[int]:
    """The 1-based context positions an answer's ``[n]`` / ``[n, m]`` markers name, in order."""
    found: list[int] = []
    for match in _MARKER.finditer(answer):
        for part in re.split(r"[,;]", match.group(1)):
            number = int(part)
            if number not in found:
                found.append(number)
    return found


@dataclass(frozen=True)
class Located:
    """A reference placed in a document: offsets in its text."""

    doc: str
    start: int
    end: int

    @property
    def span_id(self) -> str:
        """The id of the ledger span a gold reference becomes."""
        return f"{self.doc}@{self.start}-{self.end}"

    def inline(self) -> Record:
        """The inline span a context becomes in a case."""
        return {"version": self.doc, "start": self.start, "end": self.end}


class Corpus:
    """Document texts by id, and where a reference or a context lies in them.

    ``fetch`` (optional) supplies the text of a document not added yet (the
    store's, for :func:`hopgate.ingest.pipeline.record`); ``universe`` lists every
    document id for a context given as bare text.
    """

    def __init__(
        self,
        fetch: Callable[[str], str | None] | None = None,
        universe: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.texts: dict[str, str] = {}
        self._fetch = fetch
        self._universe = universe
        self._collapsed: dict[str, tuple[str, list[int]]] = {}
        self.first_occurrence = 0
        self.whitespace_matched = 0

    def text(self, doc: str) -> str | None:
        """The text of ``doc``, or None when no such document is known."""
        if doc not in self.texts and self._fetch is not None:
            found = self._fetch(doc)
            if found is not None:
                self.texts[doc] = found
        return self.texts.get(doc)

    def _doc(self, value: Any, name: str) -> tuple[str, str]:
        if not isinstance(value, str | int) or isinstance(value, bool) or value == "":
            raise ItemError(f"expected a document id, got {value!r}", name)
        doc = str(value)
        text = self.text(doc)
        if text is None:
            raise ItemError(f"unknown document {doc!r} (not in the docs)", name)
        return doc, text

    def gold(self, ref: Any, name: str) -> Located:
        """Place a gold reference: a document id, ``{doc, quote}`` or ``{doc, start, end}``."""
        if not isinstance(ref, dict):
            doc, text = self._doc(ref, name)
            return Located(doc, 0, len(text))
        doc, text = self._doc(ref.get("doc"), f"{name}.doc")
        quote = ref.get("quote", ref.get("text"))
        start, end = ref.get("start"), ref.get("end")
        if quote is None and start is None and end is None:
            return Located(doc, 0, len(text))
        _check_offsets(start, end, name)
        if quote is not None and not isinstance(quote, str):
            raise ItemError(f"expected a string, got {type(quote).__name__}", f"{name}.quote")
        try:
            found = anchor(
                text,
                start=start,
                end=end,
                quote=quote,
                prefix=_optional_str(ref, "prefix", name),
                suffix=_optional_str(ref, "suffix", name),
            )
        except AnchorError as exc:
            if quote is not None and start is None and "not found" in str(exc):
                spaced = self._collapsed_match(doc, text, quote)
                if spaced is not None:
                    return spaced
            raise ItemError(f"in document {doc!r}: {exc}", f"{name}.{exc.field}") from None
        return Located(doc, found.start, found.end)

    def context(self, ref: Any, name: str) -> Located:
        """Place a context: a gold-style reference, ``{doc, text}``, or a bare text."""
        if isinstance(ref, dict) and not any(
            k in ref for k in ("start", "end", "prefix", "suffix")
        ):
            # A chunk as retrieved: taken at its first occurrence, whitespace forgiven.
            for key in ("text", "quote"):
                if isinstance(ref.get(key), str):
                    doc, text = self._doc(ref.get("doc"), f"{name}.doc")
                    return self._find(doc, text, ref[key], f"{name}.{key}")
        if isinstance(ref, str) and self.text(ref) is None:
            return self._search(ref, name)
        return self.gold(ref, name)

    def _find(self, doc: str, text: str, passage: str, name: str) -> Located:
        if not passage.strip():
            raise ItemError("expected a non-empty context text", name)
        position = text.find(passage)
        if position != -1:
            if text.find(passage, position + 1) != -1:
                self.first_occurrence += 1
            return Located(doc, position, position + len(passage))
        spaced = self._collapsed_match(doc, text, passage)
        if spaced is None:
            raise ItemError(
                f"context text not found in document {doc!r} (even with whitespace collapsed): "
                f"{_show(passage)}",
                name,
            )
        return spaced

    def _collapsed_match(self, doc: str, text: str, passage: str) -> Located | None:
        if doc not in self._collapsed:
            self._collapsed[doc] = _collapse(text)
        collapsed, origin = self._collapsed[doc]
        wanted = " ".join(passage.split())
        if not wanted:
            return None
        position = collapsed.find(wanted)
        if position == -1:
            return None
        self.whitespace_matched += 1
        return Located(doc, origin[position], origin[position + len(wanted) - 1] + 1)

    def _search(self, passage: str, name: str) -> Located:
        if not passage.strip():
            raise ItemError("expected a non-empty context text or a document id", name)
        universe = list(self._universe()) if self._universe is not None else list(self.texts)
        texts = [(doc, text) for doc in universe if (text := self.text(doc)) is not None]
        # Exact text first (one scan per document); whitespace forgiven only when none has it.
        hits = [self._find(doc, text, passage, name) for doc, text in texts if passage in text]
        if not hits:
            for doc, text in texts:
                spaced = self._collapsed_match(doc, text, passage)
                if spaced is not None:
                    hits.append(spaced)
        if not hits:
            raise ItemError(
                f"neither a document id nor a text found in any document: {_show(passage)}; "
                'give {"doc": ID, "text": ...}',
                name,
            )
        if len(hits) > 1:
            docs = ", ".join(repr(h.doc) for h in hits[:5])
            raise ItemError(
                f"context text found in several documents ({docs}); "
                'give {"doc": ID, "text": ...} to choose',
                name,
            )
        return hits[0]


def _collapse(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs as one space, and each character's offset in ``text``."""
    out: list[str] = []
    origin: list[int] = []
    in_space = False
    for position, ch in enumerate(text):
        if ch.isspace():
            if not in_space and out:
                out.append(" ")
                origin.append(position)
            in_space = True
            continue
        in_space = False
        out.append(ch)
        origin.append(position)
    return "".join(out), origin


def _check_offsets(start: Any, end: Any, name: str) -> None:
    for label, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ItemError(f"expected an integer offset, got {value!r}", f"{name}.{label}")


def _optional_str(ref: dict[str, Any], key: str, name: str) -> str | None:
    value = ref.get(key)
    if value is not None and not isinstance(value, str):
        raise ItemError(f"expected a string, got {type(value).__name__}", f"{name}.{key}")
    return value


def _show(value: str, limit: int = 80) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "...")


@dataclass
class GoldClaim:
    """A required claim of a gold question, with the answer an output is judged against."""

    id: str
    answer: str | None


@dataclass
class GoldQuestion:
    """A gold question as answers need it: its claims and reference answer."""

    id: str
    answer: str | None
    claims: list[GoldClaim]
    answerable: bool = True  # some claim has an evidence set
    text: str = ""  # the question, as a judge command is asked it


@dataclass
class Conversion:
    """What a conversion made: ledger records, and what the import should say."""

    records: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def _id(item: dict[str, Any], key: str = "id") -> str:
    if key not in item:
        raise ItemError("missing field", key)
    value = item[key]
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise ItemError(f"expected a non-empty string id, got {value!r}", key)
    return str(value)


def _object(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise ItemError(f"expected a JSON object, got {type(item).__name__}", None)
    return item


def _string(item: dict[str, Any], key: str, *, required: bool) -> str | None:
    value = item.get(key)
    if value is None:
        if required:
            raise ItemError("missing field", key)
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # an answer such as 1969
    if not isinstance(value, str):
        raise ItemError(f"expected a string, got {type(value).__name__}", key)
    if required and not value.strip():
        raise ItemError("expected a non-empty string", key)
    return value


def _bool(item: dict[str, Any], key: str) -> bool | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ItemError(f"expected true or false, got {value!r}", key)
    return value


def _unknown(fields: Counter[str], item: dict[str, Any], known: set[str]) -> None:
    for key in item:
        if key not in known and not key.startswith("x-"):
            fields[key] += 1


def _note_unknown(notes: list[str], file: str, fields: Counter[str]) -> None:
    if fields:
        listed = ", ".join(f"'{k}' ({n})" for k, n in sorted(fields.items()))
        notes.append(f"{file}: ignored fields not in the format: {listed}")


def file_time(path: Path) -> str:
    """The modification time of ``path`` as an ISO 8601 UTC date-time (whole seconds)."""
    moment = datetime.fromtimestamp(int(path.stat().st_mtime), UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def documents(
    items: Iterable[Item], corpus: Corpus, conversion: Conversion, *, default_time: str
) -> list[str]:
    """Source and version records for the documents; returns their observation times."""
    times: list[str] = []
    defaulted = 0
    unknown: Counter[str] = Counter()
    seen: dict[str, str] = {}
    file = ""
    for file, where, raw in items:
        try:
            item = _object(raw)
            doc = _id(item)
            if doc in seen:
                raise ItemError(f"duplicate document id (first at {seen[doc]})", "id")
            text = _string(item, "text", required=True)
            assert text is not None
            url = _string(item, "url", required=False)
            title = _string(item, "title", required=False)
            observed = _string(item, "observed_at", required=False)
        except ItemError as exc:
            raise item_error(file, where, exc) from None
        seen[doc] = where
        _unknown(unknown, item, DOC_FIELDS)
        if observed is None:
            defaulted += 1
            observed = default_time
        observed = parse_time(observed, file=file, where=where, field="observed_at", record_id=doc)
        times.append(observed)
        corpus.texts[doc] = text
        source: Record = {
            "type": "source",
            "id": doc,
            "address": url if url else "urn:hopgate:doc:" + percent(doc, safe=""),
        }
        if title:
            source["title"] = title
        conversion.records.append(source)
        conversion.records.append(
            {"type": "version", "id": doc, "source": doc, "text": text, "observed_at": observed}
        )
        conversion.counts["document"] += 1
    if not seen:
        raise LedgerError("no document: the evidence universe is empty", file=file or "docs")
    if defaulted:
        conversion.notes.append(
            f"{file}: observed_at not given for {defaulted} document(s): "
            f"used the file's time {default_time}"
        )
    _note_unknown(conversion.notes, file, unknown)
    return times


def gold_questions(
    items: Iterable[Item], corpus: Corpus, conversion: Conversion, *, annotated_at: str
) -> dict[str, GoldQuestion]:
    """Question, claim, span and evidence-set records for the gold file."""
    questions: dict[str, GoldQuestion] = {}
    claim_ids: dict[str, str] = {}
    spans: set[str] = set()
    unknown: Counter[str] = Counter()
    file = ""
    for file, where, raw in items:
        try:
            item = _object(raw)
            qid = _id(item)
            if qid in questions:
                raise ItemError("duplicate question id", "id")
            text = _string(item, "question", required=True)
            answer = _string(item, "answer", required=False)
            if "claims" in item and "evidence_sets" in item:
                raise ItemError("give evidence_sets or claims, not both", "claims")
            if "claims" in item:
                claims = item["claims"]
                if not isinstance(claims, list) or not claims:
                    raise ItemError("expected a non-empty list of claims", "claims")
                specs = []
                for number, claim in enumerate(claims):
                    name = f"claims[{number}]"
                    if not isinstance(claim, dict):
                        raise ItemError("expected a JSON object", name)
                    try:
                        cid = _id(claim) if "id" in claim else f"{qid}#{number + 1}"
                        ctext = _string(claim, "text", required=True)
                        canswer = _string(claim, "answer", required=False)
                        consequential = _bool(claim, "consequential")
                    except ItemError as exc:
                        raise ItemError(str(exc), f"{name}.{exc.field}") from None
                    _unknown(unknown, claim, CLAIM_FIELDS)
                    if consequential is None:
                        consequential = _bool(item, "consequential")
                    specs.append(
                        (cid, ctext, canswer, consequential, claim.get("evidence_sets"), name)
                    )
            else:
                claim_text = f"{text} {answer}" if answer else text
                specs = [
                    (
                        qid,
                        claim_text,
                        None,
                        _bool(item, "consequential"),
                        item.get("evidence_sets"),
                        "",
                    )
                ]
            gold_claims = []
            for cid, ctext, canswer, consequential, sets, name in specs:
                prefix = f"{name}." if name else ""
                if cid in claim_ids:
                    raise ItemError(
                        f"duplicate claim id {cid!r} (first at {claim_ids[cid]})", f"{prefix}id"
                    )
                claim_ids[cid] = where
                record: Record = {"type": "claim", "id": cid, "text": ctext}
                if consequential:
                    record["consequential"] = True
                conversion.records.append(record)
                gold_claims.append(GoldClaim(cid, canswer if canswer is not None else answer))
                conversion.counts["claim"] += 1
                conversion.counts["consequential claim"] += bool(consequential)
                for number, members in enumerate(_sets(sets, f"{prefix}evidence_sets")):
                    located = [
                        corpus.gold(ref, f"{prefix}evidence_sets[{number}][{k}]")
                        for k, ref in enumerate(members)
                    ]
                    ids = list(dict.fromkeys(span.span_id for span in located))
                    for span in located:
                        if span.span_id not in spans:
                            spans.add(span.span_id)
                            conversion.records.append(
                                {
                                    "type": "span",
                                    "id": span.span_id,
                                    "version": span.doc,
                                    "start": span.start,
                                    "end": span.end,
                                }
                            )
                    conversion.records.append(
                        {
                            "type": "evidence_set",
                            "id": f"{cid}/g{number + 1}",
                            "claim": cid,
                            "members": ids,
                            "inference": f"gold evidence set {number + 1} of {file}",
                            "status": "adjudicated",
                            "annotation": {"version": 1, "by": "gold", "at": annotated_at},
                        }
                    )
                    conversion.counts["evidence set"] += 1
        except ItemError as exc:
            raise item_error(file, where, exc) from None
        _unknown(unknown, item, GOLD_FIELDS)
        question: Record = {
            "type": "question",
            "id": qid,
            "text": text,
            "claims": [c.id for c in gold_claims],
        }
        if answer is not None:
            question["answer"] = answer
        conversion.records.append(question)
        questions[qid] = GoldQuestion(qid, answer, gold_claims, text=text or "")
    if not questions:
        raise LedgerError("no gold question", file=file or "gold")
    _note_unknown(conversion.notes, file, unknown)
    return questions


def _sets(value: Any, name: str) -> list[list[Any]]:
    if value is None:
        raise ItemError(
            "missing field (give [] for a question no document answers)",
            name,
        )
    if not isinstance(value, list):
        raise ItemError(f"expected a list of evidence sets, got {type(value).__name__}", name)
    for number, members in enumerate(value):
        if not isinstance(members, list):
            raise ItemError(
                "expected a list of evidence sets, each a list of refs "
                '(e.g. [["d1", "d2"]] for one set of two documents)',
                f"{name}[{number}]",
            )
        if not members:
            raise ItemError("an evidence set needs at least one member", f"{name}[{number}]")
    return value


def case_record(
    corpus: Corpus,
    question: GoldQuestion,
    item: dict[str, Any],
    *,
    run: str,
    judging: Tally,
    judge: Judge | None = None,
) -> Record:
    """The ``case`` record of one answer (raises ``ItemError`` naming the field).

    Each output's correctness: the ``correct`` label, else an exact match of
    ``short_answer`` with the claim's reference answer, else ``judge``'s
    decision, else unknown (:func:`hopgate.ingest.correctness.decide`); ``judging``
    counts how each was decided.
    """
    abstained = _bool(item, "abstained") or False
    answer = _string(item, "answer", required=not abstained)
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
    positions = _citations(item, answer, len(contexts))
    cites = list(dict.fromkeys(located[p - 1] for p in positions))
    correct = _bool(item, "correct")
    short = _string(item, "short_answer", required=False)
    outputs = []
    several = len(question.claims) > 1
    for claim in question.claims:
        output: Record = {
            "id": f"{run}/{question.id}/{claim.id}" if several else f"{run}/{question.id}",
            "text": answer,
            "claim": claim.id,
            "cites": [span.inline() for span in cites],
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


def _citations(item: dict[str, Any], answer: str, contexts: int) -> list[int]:
    given = item.get("citations")
    if given is None:
        positions = citation_markers(answer)
        for number in positions:
            if not 1 <= number <= contexts:
                raise ItemError(
                    f"citation marker [{number}] in the answer names no context "
                    f"(there are {contexts})",
                    "answer",
                )
        return positions
    if not isinstance(given, list):
        raise ItemError("expected a list of 1-based context positions", "citations")
    positions = []
    for number, value in enumerate(given):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ItemError(
                f"expected a 1-based context position (an integer), got {value!r}",
                f"citations[{number}]",
            )
        if not 1 <= value <= contexts:
            raise ItemError(
                f"position {value} is outside the {contexts} context(s) (positions start at 1)",
                f"citations[{number}]",
            )
        positions.append(value)
    return positions


def answers(
    items: Iterable[Item],
    corpus: Corpus,
    questions: dict[str, GoldQuestion],
    conversion: Conversion,
    *,
    run: str,
    evaluation: str,
    system: str,
    judge: Judge | None = None,
) -> None:
    """The run record and one case per answer."""
    seen: dict[str, str] = {}
    judging = Tally()
    unknown: Counter[str] = Counter()
    cases: list[Record] = []
    file = ""
    for file, where, raw in items:
        try:
            item = _object(raw)
            qid = _id(item)
            if qid not in questions:
                raise ItemError(f"unknown question {qid!r} (not in the gold file)", "id")
            if qid in seen:
                raise ItemError(f"a second answer to question {qid!r} (first at {seen[qid]})", "id")
            cases.append(
                case_record(corpus, questions[qid], item, run=run, judging=judging, judge=judge)
            )
        except ItemError as exc:
            raise item_error(file, where, exc) from None
        seen[qid] = where
        _unknown(unknown, item, ANSWER_FIELDS)
    conversion.records.append(
        {"type": "run", "id": run, "evaluation": evaluation, "system": system}
    )
    conversion.records.extend(cases)
    conversion.counts["answer"] = len(cases)
    conversion.counts["abstention"] = sum(1 for c in cases if c["abstained"])
    conversion.counts["output claim"] = sum(len(c["outputs"]) for c in cases)
    conversion.notes.extend(judging.notes(f"{file}: output claims"))
    missing = [q for q in questions if q not in seen]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        conversion.notes.append(
            f"{file}: {len(missing)} gold question(s) have no answer and are not in run {run}: "
            f"{shown}"
        )
    if corpus.whitespace_matched:
        conversion.notes.append(
            f"{corpus.whitespace_matched} context(s) matched their document only with "
            "whitespace collapsed"
        )
    if corpus.first_occurrence:
        conversion.notes.append(
            f"{corpus.first_occurrence} context text(s) occur more than once in their document: "
            "anchored at the first occurrence"
        )
    _note_unknown(conversion.notes, file, unknown)


def mark_answerable(questions: dict[str, GoldQuestion], records: list[Record]) -> None:
    with_sets = {r["claim"] for r in records if r["type"] == "evidence_set"}
    for question in questions.values():
        question.answerable = any(c.id in with_sets for c in question.claims)


def convert(
    docs: Iterable[Item],
    gold: Iterable[Item],
    answer_items: Iterable[Item] | None,
    *,
    run: str = RUN,
    evaluation: str = EVALUATION,
    system: str | None = None,
    default_time: str,
    judge: Judge | None = None,
) -> Conversion:
    """Ledger records for documents, gold questions and (optionally) a run's answers.

    Raises:
        LedgerError: bad input, naming file, line and field.
    """
    conversion = Conversion()
    corpus = Corpus()
    times = documents(docs, corpus, conversion, default_time=default_time)
    cutoff = max(times)
    questions = gold_questions(gold, corpus, conversion, annotated_at=cutoff)
    mark_answerable(questions, conversion.records)
    head: list[Record] = [
        {"type": "reader", "id": PUBLIC},
        {
            "type": "evaluation",
            "id": evaluation,
            "reader": PUBLIC,
            "observation_cutoff": cutoff,
            "corpus": f"{conversion.counts['document']} documents",
        },
    ]
    if answer_items is not None:
        answers(
            answer_items,
            corpus,
            questions,
            conversion,
            run=run,
            evaluation=evaluation,
            system=system or run,
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
    notes: list[str] | None = None,
    judge: Judge | None = None,
) -> Iterator[Record]:
    """Ledger records for ``hopgate import rag`` (see the module docstring).

    ``judge`` (``--correctness-judge CMD``) decides the answers that carry
    neither a ``correct`` label nor a ``short_answer`` matching the reference.

    Raises:
        LedgerError: bad input, naming file, line and field; nothing is written.
    """
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
        judge=judge,
    )
    if notes is not None:
        counts = conversion.counts
        summary = (
            f"{counts['document']} documents, {len(_of(conversion, 'question'))} questions "
            f"({counts['claim']} claims, {counts['consequential claim']} consequential, "
            f"{counts['evidence set']} evidence sets)"
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
                'no claim is marked "consequential": `hopgate gate` has nothing to hold back'
            )
    yield from conversion.records


def _of(conversion: Conversion, kind: str) -> list[Record]:
    return [r for r in conversion.records if r["type"] == kind]
