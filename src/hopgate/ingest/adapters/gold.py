"""The gold side of ``hopgate import rag``: the documents and what the team holds true of them.

docs/rag-format.md "docs: the evidence universe" and
"gold: questions and their evidence sets" are the reference. The **docs** file
lists the evidence universe; each document becomes a ``source`` and a
``version`` retaining its text, with the facts of that version a team may
state: when it was published, the interval its statements are in effect,
when it was invalidated, and which reader classes may inspect it. The
**gold** file holds three kinds of item:

- a **question** (``question``): its reference answer, whether it is
  consequential, the time it applies at, its alternative evidence sets (a
  list of refs, or ``{members, status, inference}``), and the passages that
  contradict it (``contradictions``); or several ``claims`` splitting it;
- **document facts** (``document``): the same version facts as the docs file
  takes, for a docs file the team does not write by hand (a fact given in
  both files must agree);
- the **evaluation** (``evaluation``: ``{reader, observation_cutoff}``): the
  reader class the decision is for (default ``public``) and the observation
  cutoff (default: the latest ``observed_at``).

Each maps to the ledger records of docs/spec/ledger.md; nothing here decides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote as percent

from hopgate.errors import LedgerError
from hopgate.ingest.adapters.common import PUBLIC, Record
from hopgate.ingest.adapters.corpus import Corpus, Located
from hopgate.ingest.adapters.items import (
    Conversion,
    Item,
    ItemError,
    as_object,
    check_fields,
    field_bool,
    field_id,
    field_string,
    item_error,
    note_unknown,
)
from hopgate.ingest.ledger import parse_time

#: The version facts a document may state (docs/spec/ledger.md "Versions").
FACT_FIELDS = {"published_at", "effective", "invalidated_at", "readers"}
DOC_FIELDS = {"id", "text", "url", "title", "observed_at"} | FACT_FIELDS
GOLD_FIELDS = {
    "id",
    "question",
    "answer",
    "consequential",
    "applies_at",
    "evidence_sets",
    "contradictions",
    "claims",
}
CLAIM_FIELDS = {
    "id",
    "text",
    "answer",
    "consequential",
    "applies_at",
    "evidence_sets",
    "contradictions",
}
SET_FIELDS = {"id", "members", "status", "inference"}
CONTRADICTION_FIELDS = {"id", "doc", "quote", "start", "end", "prefix", "suffix", "status"}
CONTRADICTION_FIELDS |= {"decision"}
DOCUMENT_FACT_FIELDS = {"document"} | FACT_FIELDS
EVALUATION_FIELDS = {"reader", "observation_cutoff"}
SET_STATUSES = ("adjudicated", "proposed", "rejected")


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
    text: str = ""  # the question's text: answers in a pipeline's own shape are matched by it


@dataclass
class Setting:
    """The evaluation a gold file states (``{"evaluation": {...}}``), when it states one."""

    reader: str | None = None
    cutoff: str | None = None
    where: str | None = None


@dataclass
class Gold:
    """What the gold side holds beyond its records: versions by id, readers, the evaluation."""

    versions: dict[str, Record] = field(default_factory=dict)
    #: Where each version fact was stated: (doc, fact) -> "file: line N".
    stated: dict[tuple[str, str], str] = field(default_factory=dict)
    readers: set[str] = field(default_factory=set)
    setting: Setting = field(default_factory=Setting)


def _time(value: Any, *, file: str, where: str, name: str, record_id: str | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise LedgerError(
            f"expected an ISO 8601 time, got {value!r}", file=file, record=where, field=name
        )
    return parse_time(value, file=file, where=where, field=name, record_id=record_id)


def _facts(item: dict[str, Any], *, file: str, where: str, doc: str) -> dict[str, Any]:
    """The version facts of a docs item or a document-facts item, in the ledger's spelling."""
    facts: dict[str, Any] = {}
    for name in ("published_at", "invalidated_at"):
        moment = _time(item.get(name), file=file, where=where, name=name, record_id=doc)
        if moment is not None:
            facts[name] = moment
    effective = item.get("effective")
    if effective is not None:
        if not isinstance(effective, dict):
            raise item_error(
                file,
                where,
                ItemError('expected {"from": TIME, "until": TIME}', "effective"),
                doc,
            )
        try:
            check_fields(effective, {"from", "until"}, at="effective.", strict=True)
        except ItemError as exc:
            raise item_error(file, where, exc, doc) from None
        interval = {
            bound: _time(
                effective.get(bound),
                file=file,
                where=where,
                name=f"effective.{bound}",
                record_id=doc,
            )
            for bound in ("from", "until")
        }
        facts["effective"] = interval
    readers = item.get("readers")
    if readers is not None:
        if not isinstance(readers, list) or not all(isinstance(r, str) and r for r in readers):
            raise item_error(
                file,
                where,
                ItemError("expected a list of reader class names", "readers"),
                doc,
            )
        facts["readers"] = list(dict.fromkeys(readers))
    return facts


def _state(gold: Gold, doc: str, facts: dict[str, Any], *, file: str, where: str) -> None:
    """Put ``facts`` on the version of ``doc``; a fact stated twice must agree."""
    version = gold.versions[doc]
    for name, value in facts.items():
        earlier = gold.stated.get((doc, name))
        if earlier is not None and version.get(name) != value:
            raise LedgerError(
                f"document {doc!r} already has a different {name} (stated at {earlier})",
                file=file,
                record=where,
                field=name,
            )
        version[name] = value
        gold.stated[(doc, name)] = f"{file}: {where}"
        if name == "readers":
            gold.readers.update(value)


def documents(
    items: Iterable[Item],
    corpus: Corpus,
    conversion: Conversion,
    *,
    default_time: str,
    gold: Gold | None = None,
) -> list[str]:
    """Source and version records for the documents; returns their observation times."""
    gold = gold if gold is not None else Gold()
    times: list[str] = []
    defaulted = 0
    unknown: Counter[str] = Counter()
    seen: dict[str, str] = {}
    file = ""
    for file, where, raw in items:
        try:
            item = as_object(raw)
            check_fields(item, DOC_FIELDS, unknown)
            doc = field_id(item)
            if doc in seen:
                raise ItemError(f"duplicate document id (first at {seen[doc]})", "id")
            text = field_string(item, "text", required=True)
            assert text is not None
            url = field_string(item, "url", required=False)
            title = field_string(item, "title", required=False)
            observed = field_string(item, "observed_at", required=False)
        except ItemError as exc:
            raise item_error(file, where, exc) from None
        seen[doc] = where
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
        version: Record = {
            "type": "version",
            "id": doc,
            "source": doc,
            "text": text,
            "observed_at": observed,
        }
        conversion.records.append(version)
        gold.versions[doc] = version
        _state(gold, doc, _facts(item, file=file, where=where, doc=doc), file=file, where=where)
        conversion.counts["document"] += 1
    if not seen:
        raise LedgerError("no document: the evidence universe is empty", file=file or "docs")
    if defaulted:
        conversion.notes.append(
            f"{file}: observed_at not given for {defaulted} document(s): "
            f"used the file's time {default_time}; give observed_at to import other runs "
            "against these documents into the same store (a rewritten file has another "
            "time, and its versions would redefine these)"
        )
    note_unknown(conversion.notes, file, unknown)
    return times


@dataclass
class _ClaimSpec:
    """A claim of a gold question as written, before its sets are placed."""

    id: str
    text: str
    answer: str | None
    consequential: bool | None
    applies_at: str | None
    sets: Any
    contradictions: Any
    name: str  # the field path of the claim in its item ("" for a question's own claim)


class _GoldReader:
    """The gold file's items, read in order into records (one reader per conversion)."""

    def __init__(
        self, corpus: Corpus, conversion: Conversion, gold: Gold, *, annotated_at: str
    ) -> None:
        self.corpus = corpus
        self.conversion = conversion
        self.gold = gold
        self.annotated_at = annotated_at
        self.questions: dict[str, GoldQuestion] = {}
        self.claim_ids: dict[str, str] = {}
        self.spans: set[str] = set()
        self.unknown: Counter[str] = Counter()

    def span(self, located: Located) -> str:
        """The id of the ledger span a gold reference becomes (written once)."""
        if located.span_id not in self.spans:
            self.spans.add(located.span_id)
            self.conversion.records.append(
                {
                    "type": "span",
                    "id": located.span_id,
                    "version": located.doc,
                    "start": located.start,
                    "end": located.end,
                }
            )
        return located.span_id

    def item(self, file: str, where: str, raw: Any) -> None:
        item = as_object(raw)
        if "question" not in item and "document" in item:
            self.document_facts(file, where, item)
        elif "question" not in item and "evaluation" in item:
            self.evaluation(file, where, item)
        else:
            self.question(file, where, item)

    def document_facts(self, file: str, where: str, item: dict[str, Any]) -> None:
        check_fields(item, DOCUMENT_FACT_FIELDS, strict=True)
        doc = self.corpus.gold(item["document"], "document").doc
        _state(
            self.gold,
            doc,
            _facts(item, file=file, where=where, doc=doc),
            file=file,
            where=where,
        )
        self.conversion.counts["document facts"] += 1

    def evaluation(self, file: str, where: str, item: dict[str, Any]) -> None:
        check_fields(item, {"evaluation"}, strict=True)
        setting = item["evaluation"]
        if not isinstance(setting, dict):
            raise ItemError('expected {"reader": ..., "observation_cutoff": ...}', "evaluation")
        check_fields(setting, EVALUATION_FIELDS, at="evaluation.", strict=True)
        if self.gold.setting.where is not None:
            raise ItemError(
                f"a second evaluation item (the first at {self.gold.setting.where})", "evaluation"
            )
        reader = setting.get("reader")
        if reader is not None and (not isinstance(reader, str) or not reader):
            raise ItemError(f"expected a reader class name, got {reader!r}", "evaluation.reader")
        cutoff = _time(
            setting.get("observation_cutoff"),
            file=file,
            where=where,
            name="evaluation.observation_cutoff",
            record_id=None,
        )
        self.gold.setting = Setting(reader, cutoff, f"{file}: {where}")

    def question(self, file: str, where: str, item: dict[str, Any]) -> None:
        check_fields(item, GOLD_FIELDS, self.unknown)
        qid = field_id(item)
        if qid in self.questions:
            raise ItemError("duplicate question id", "id")
        text = field_string(item, "question", required=True)
        assert text is not None
        answer = field_string(item, "answer", required=False)
        applies = _time(
            item.get("applies_at"), file=file, where=where, name="applies_at", record_id=qid
        )
        if "claims" in item and "evidence_sets" in item:
            raise ItemError("give evidence_sets or claims, not both", "claims")
        specs: list[_ClaimSpec] = []
        if "claims" in item:
            claims = item["claims"]
            if not isinstance(claims, list) or not claims:
                raise ItemError("expected a non-empty list of claims", "claims")
            for number, claim in enumerate(claims):
                name = f"claims[{number}]"
                if not isinstance(claim, dict):
                    raise ItemError("expected a JSON object", name)
                try:
                    check_fields(claim, CLAIM_FIELDS, self.unknown, at="")
                    cid = field_id(claim) if "id" in claim else f"{qid}#{number + 1}"
                    ctext = field_string(claim, "text", required=True)
                    assert ctext is not None
                    canswer = field_string(claim, "answer", required=False)
                    consequential = field_bool(claim, "consequential")
                except ItemError as exc:
                    raise ItemError(str(exc), f"{name}.{exc.field}") from None
                if consequential is None:
                    consequential = field_bool(item, "consequential")
                capplies = _time(
                    claim.get("applies_at"),
                    file=file,
                    where=where,
                    name=f"{name}.applies_at",
                    record_id=qid,
                )
                specs.append(
                    _ClaimSpec(
                        cid,
                        ctext,
                        canswer,
                        consequential,
                        capplies if capplies is not None else applies,
                        claim.get("evidence_sets"),
                        claim.get("contradictions"),
                        name,
                    )
                )
        else:
            specs.append(
                _ClaimSpec(
                    qid,
                    f"{text} {answer}" if answer else text,
                    None,
                    field_bool(item, "consequential"),
                    applies,
                    item.get("evidence_sets"),
                    item.get("contradictions"),
                    "",
                )
            )
        gold_claims = [self.claim(spec, file, where, answer) for spec in specs]
        question: Record = {
            "type": "question",
            "id": qid,
            "text": text,
            "claims": [c.id for c in gold_claims],
        }
        if answer is not None:
            question["answer"] = answer
        self.conversion.records.append(question)
        self.questions[qid] = GoldQuestion(qid, answer, gold_claims, text=text)

    def claim(self, spec: _ClaimSpec, file: str, where: str, answer: str | None) -> GoldClaim:
        prefix = f"{spec.name}." if spec.name else ""
        if spec.id in self.claim_ids:
            raise ItemError(
                f"duplicate claim id {spec.id!r} (first at {self.claim_ids[spec.id]})",
                f"{prefix}id",
            )
        self.claim_ids[spec.id] = where
        record: Record = {"type": "claim", "id": spec.id, "text": spec.text}
        if spec.consequential:
            record["consequential"] = True
        if spec.applies_at is not None:
            record["applies_at"] = spec.applies_at
        self.conversion.records.append(record)
        counts = self.conversion.counts
        counts["claim"] += 1
        counts["consequential claim"] += bool(spec.consequential)
        name = file.rsplit("/", 1)[-1]  # a set's inference names the file, never its folder
        for number, given in enumerate(_sets(spec.sets, f"{prefix}evidence_sets")):
            where_set = f"{prefix}evidence_sets[{number}]"
            members, status, inference, set_id = _set_spec(given, where_set)
            located = [
                self.corpus.gold(
                    ref, f"{where_set}{'.members' if isinstance(given, dict) else ''}[{k}]"
                )
                for k, ref in enumerate(members)
            ]
            self.conversion.records.append(
                {
                    "type": "evidence_set",
                    "id": set_id or f"{spec.id}/g{number + 1}",
                    "claim": spec.id,
                    "members": list(dict.fromkeys(self.span(span) for span in located)),
                    "inference": inference or f"gold evidence set {number + 1} of {name}",
                    "status": status,
                    "annotation": {"version": 1, "by": "gold", "at": self.annotated_at},
                }
            )
            counts["evidence set"] += 1
        for number, given in enumerate(_list(spec.contradictions, f"{prefix}contradictions")):
            self.contradiction(spec.id, given, f"{prefix}contradictions[{number}]", number)
        return GoldClaim(spec.id, spec.answer if spec.answer is not None else answer)

    def contradiction(self, claim: str, given: Any, name: str, number: int) -> None:
        """A passage that contradicts ``claim``: a ref, or a ref with status and decision."""
        status, decision, cid = "unresolved", None, None
        ref = given
        if isinstance(given, dict):
            check_fields(given, CONTRADICTION_FIELDS, at=f"{name}.", strict=True)
            status = given.get("status", "unresolved")
            if status not in ("unresolved", "resolved"):
                raise ItemError(
                    f'expected "unresolved" or "resolved", got {status!r}', f"{name}.status"
                )
            decision = given.get("decision")
            if decision is not None and (not isinstance(decision, str) or not decision.strip()):
                raise ItemError("expected a non-empty string", f"{name}.decision")
            if status == "resolved" and decision is None:
                raise ItemError(
                    "a resolved contradiction needs its decision (how it was resolved)",
                    f"{name}.decision",
                )
            if "id" in given:
                cid = field_id(given)
            ref = {k: v for k, v in given.items() if k not in ("status", "decision", "id")}
        span = self.span(self.corpus.gold(ref, name))
        record: Record = {
            "type": "contradiction",
            "id": cid or f"{claim}/k{number + 1}",
            "claim": claim,
            "span": span,
            "status": status,
        }
        if decision is not None:
            record["decision"] = decision
        self.conversion.records.append(record)
        self.conversion.counts["contradiction"] += 1


def gold_questions(
    items: Iterable[Item],
    corpus: Corpus,
    conversion: Conversion,
    *,
    annotated_at: str,
    gold: Gold | None = None,
) -> dict[str, GoldQuestion]:
    """Question, claim, span, evidence-set and contradiction records for the gold file.

    Document-facts items update the versions in ``gold``; an evaluation item
    sets ``gold.setting``.
    """
    reader = _GoldReader(corpus, conversion, gold or Gold(), annotated_at=annotated_at)
    file = ""
    for file, where, raw in items:
        try:
            reader.item(file, where, raw)
        except ItemError as exc:
            raise item_error(file, where, exc) from None
    if not reader.questions:
        raise LedgerError("no gold question", file=file or "gold")
    note_unknown(conversion.notes, file, reader.unknown)
    return reader.questions


def _list(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ItemError(f"expected a list, got {type(value).__name__}", name)
    return value


def _sets(value: Any, name: str) -> list[Any]:
    if value is None:
        raise ItemError(
            "missing field (give [] for a question no document answers)",
            name,
        )
    if not isinstance(value, list):
        raise ItemError(f"expected a list of evidence sets, got {type(value).__name__}", name)
    return value


def _set_spec(given: Any, name: str) -> tuple[list[Any], str, str | None, str | None]:
    """(members, status, inference, id) of one evidence set: a list of refs or an object."""
    members: Any
    if isinstance(given, list):
        members, status, inference, set_id = given, "adjudicated", None, None
    elif isinstance(given, dict):
        check_fields(given, SET_FIELDS, at=f"{name}.", strict=True)
        members = given.get("members")
        if not isinstance(members, list):
            raise ItemError("expected a list of refs", f"{name}.members")
        status = given.get("status", "adjudicated")
        if status not in SET_STATUSES:
            raise ItemError(
                f"expected one of {', '.join(SET_STATUSES)}, got {status!r}", f"{name}.status"
            )
        inference = given.get("inference")
        if inference is not None and (not isinstance(inference, str) or not inference.strip()):
            raise ItemError("expected a non-empty string", f"{name}.inference")
        set_id = field_id(given) if "id" in given else None
    else:
        raise ItemError(
            "expected a list of evidence sets, each a list of refs "
            '(e.g. [["d1", "d2"]] for one set of two documents) or '
            '{"members": [...], "status": ..., "inference": ...}',
            name,
        )
    if not members:
        raise ItemError("an evidence set needs at least one member", name)
    return members, status, inference, set_id


def mark_answerable(questions: dict[str, GoldQuestion], records: list[Record]) -> None:
    """Mark the questions some of whose claims have an evidence set (any status)."""
    with_sets = {r["claim"] for r in records if r["type"] == "evidence_set"}
    for question in questions.values():
        question.answerable = any(c.id in with_sets for c in question.claims)


def head_records(gold: Gold, *, evaluation: str, latest: str, documents: int) -> list[Record]:
    """The reader and evaluation records: the gold file's evaluation, else public and ``latest``."""
    reader = gold.setting.reader or PUBLIC
    readers = sorted(gold.readers | {reader, PUBLIC})
    head: list[Record] = [{"type": "reader", "id": r} for r in readers]
    head.append(
        {
            "type": "evaluation",
            "id": evaluation,
            "reader": reader,
            "observation_cutoff": gold.setting.cutoff or latest,
            "corpus": f"{documents} documents",
        }
    )
    return head


__all__ = [
    "CLAIM_FIELDS",
    "DOC_FIELDS",
    "GOLD_FIELDS",
    "Gold",
    "GoldClaim",
    "GoldQuestion",
    "documents",
    "gold_questions",
    "head_records",
    "mark_answerable",
]
