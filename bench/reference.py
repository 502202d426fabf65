"""A fast plain-Python evaluation of a ledger: every verdict row and metric hopgate gives.

The benchmark's yardstick (issue 26): what the evaluation costs when the set
logic of docs/spec/acceptance.md runs on dicts in one process, with no store.
It reads the same files ``hopgate load`` reads (hopgate's ledger reader and
span anchoring are reused; everything decided is computed here) and gives,
for each run:

- one row per output claim, with every field of ``hopgate verdicts --format
  json`` except the card's id and the staleness (which name a recorded
  evaluation, not a decision): answerability, supported, retrieved and
  citation complete, the routes, missing hops, inadmissible and unretrieved
  citations, the verdict, the final judgments in force on the card
  (docs/spec/adjudication.md "Effect on scoring"), its interventions item and
  its source truth (docs/spec/acceptance.md "Source truth": the weighed route,
  each member's authority, interval, observation and premise basis, the route
  authority, the claim's contradictions with their status);
- the metrics of ``hopgate metrics --format json``: the three ratios and the
  whole answer with numerators, denominators and intervals
  (docs/spec/acceptance.md "Metrics", "Whole answer", "Intervals"), the
  counts ("Counts"), the strata ("Strata") and the subjects awaiting
  adjudication (docs/spec/adjudication.md "Awaiting adjudication");
- the claim-cases (docs/spec/acceptance.md "Terms") and the release gate
  ("Release gate").

Unlike ``tests/spec_model.py``, which is written to be read against the spec
line by line (nested loops), this one is written to be fast: ledgers are
indexed once, coverage is tested against per-version offset lists, and
eligibility and answerability are cached per evaluation and claim.
Intervention cases are kept apart as the spec says; their observed classes
(docs/spec/interventions.md) are not modelled here (a card's item is
``answered`` when one answers its question and claim, and its variants are
left out of the comparison).

:func:`compare` reads hopgate's answers for the same ledger from a store and
lists every difference; ``tests/decide/test_reference_evaluator.py`` holds it to
hopgate on small ledgers, ``bench/decide.py`` on large ones::

    python bench/reference.py LEDGER [LEDGER ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from datetime import time as clock_time
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]

ANSWERABLE, BLOCKED, NOT_FOUND = "answerable", "blocked", "not found"
NOT_APPLICABLE = "not applicable"
SET_TERMS = {"sufficient": "adjudicated", "insufficient": "rejected"}
SET_QUESTIONS = ("entailment", "alternatives")
CONTRADICTION_TERMS = ("material", "immaterial")
BOUNDARY_TERMS = ("new-claim", "not-a-claim", "unsupported")
ADMISSIBILITY_TERMS = ("admissible", "inadmissible")
#: docs/spec/acceptance.md "Source truth": strongest first; a route's is its weakest member's.
AUTHORITIES = ("unstated", "tertiary", "secondary", "primary")
#: Fields of a verdict row that name the recorded evaluation, not what it decided.
RECORD_FIELDS = ("card", "stale", "stale_reason")
#: Fields of a run's metrics that name the recorded evaluation.
METRIC_RECORD_FIELDS = ("evaluation", "stale", "stale_reason")


# ---- reading -----------------------------------------------------------------

_instants: dict[str, datetime] = {}


def instant(value: str) -> datetime:
    """An ISO 8601 date or date-time as an aware UTC instant (docs/spec/ledger.md "Times")."""
    found = _instants.get(value)
    if found is None:
        if len(value) == 10:
            moment = datetime.combine(date.fromisoformat(value), clock_time(0), tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(value)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
        found = _instants[value] = moment.astimezone(UTC)
    return found


def _maybe_instant(value: Any) -> datetime | None:
    return None if value is None or value == "" else instant(value)


class Version:
    """What eligibility reads of a version."""

    __slots__ = ("text", "observed", "invalidated", "start", "until", "readers")

    def __init__(self, record: dict[str, Any], text: str | None) -> None:
        effective = record.get("effective") or {}
        self.text = text
        self.observed = instant(record["observed_at"])
        self.invalidated = _maybe_instant(record.get("invalidated_at"))
        self.start = _maybe_instant(effective.get("from"))
        self.until = _maybe_instant(effective.get("until"))
        self.readers = frozenset(record.get("readers") or ())


class Span:
    """A reference or delivered span: its version, offsets or locator, and own readers."""

    __slots__ = ("version", "start", "end", "locator", "readers")

    def __init__(
        self,
        version: str,
        start: int | None,
        end: int | None,
        locator: str | None,
        readers: frozenset[str] | None,
    ) -> None:
        self.version = version
        self.start = start
        self.end = end
        self.locator = locator
        self.readers = readers


@dataclass
class EvidenceSet:
    """An evidence set as loaded, with the status in force once final judgments apply."""

    id: str
    claim: str
    members: tuple[str, ...]
    loaded: str
    status: str
    judgment: str | None = None  # the final judgment re-annotating it


@dataclass
class Output:
    id: str
    claim: str | None
    #: None: nobody judged it (docs/spec/acceptance.md, rule "unknown correctness").
    correct: bool | None
    cites: tuple[str, ...]


@dataclass
class Case:
    run: str
    question: str
    retrieved: tuple[str, ...]
    abstained: bool
    outputs: list[Output]


class Ledger:
    """One or more ledger files, indexed by id (later loads restate or add records)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        raw: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        cases: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.folders: dict[str, Path] = {}
        #: judgment id -> the load that first recorded it (adjudication.md "Recording").
        self.recorded_in: dict[str, int] = {}
        for number, path in enumerate(paths):
            for kind, data in _records(Path(path)):
                if kind == "case":
                    cases[_case_key(data)] = data
                else:
                    if kind == "judgment":
                        self.recorded_in.setdefault(data["id"], number)
                    raw[kind][data["id"]] = data
                    if kind == "version" and "file" in data:
                        self.folders[data["id"]] = Path(path).parent
        self.evaluations = {
            k: (e["reader"], instant(e["observation_cutoff"])) for k, e in raw["evaluation"].items()
        }
        self.versions = {k: Version(v, self._text(v)) for k, v in raw["version"].items()}
        self.version_records = raw["version"]
        self.sources = raw["source"]
        self.span_versions = {k: s["version"] for k, s in raw["span"].items()}
        self.spans: dict[str, Span] = {}
        self.inline: dict[tuple[Any, ...], str] = {}
        for k, s in raw["span"].items():
            self.spans[k] = self._reference_span(s)
        self.claims = {
            k: (_maybe_instant(c.get("applies_at")), bool(c.get("consequential", False)))
            for k, c in raw["claim"].items()
        }
        #: claim -> evaluation -> the ledger's reason it is not applicable there
        #: (docs/spec/acceptance.md "Not applicable").
        self.not_applicable = {
            k: {e["evaluation"]: e["reason"] for e in c.get("not_applicable") or ()}
            for k, c in raw["claim"].items()
        }
        self.required = {
            k: tuple(dict.fromkeys(q.get("claims") or ())) for k, q in raw["question"].items()
        }
        self.runs = {k: r["evaluation"] for k, r in raw["run"].items()}
        self.judgments = raw["judgment"]
        self._adjudicate(raw)
        self.cases: list[Case] = []
        self.intervention_cases: list[dict[str, Any]] = []
        for data in cases.values():
            if data.get("intervention") is not None:
                self.intervention_cases.append(data)
                continue
            outputs = [
                Output(
                    o["id"],
                    o.get("claim"),
                    None if o.get("correct") is None else bool(o["correct"]),
                    self._delivered_all(o.get("cites")),
                )
                for o in data.get("outputs") or ()
            ]
            self.cases.append(
                Case(
                    data["run"],
                    data["question"],
                    self._delivered_all(data.get("retrieved")),
                    bool(data.get("abstained", False)),
                    outputs,
                )
            )
        self.cases.sort(key=lambda c: (c.run, c.question))

    # -- texts and spans

    def _text(self, record: dict[str, Any]) -> str | None:
        if "text" in record:
            text: str = record["text"]
            return text
        if "file" in record:
            from hopgate.ingest.ledger import read_version_file

            return read_version_file(self.folders[record["id"]], record["file"])
        return None

    def _reference_span(self, s: dict[str, Any]) -> Span:
        readers = frozenset(s["readers"]) if s.get("readers") else None
        if "locator" in s:
            return Span(s["version"], None, None, s["locator"], readers)
        start, end = self._anchor(s)
        return Span(s["version"], start, end, None, readers)

    def _anchor(self, item: dict[str, Any]) -> tuple[int, int]:
        """Offsets of a span placed by quote (docs/spec/ledger.md "Spans", "Anchoring").

        The load accepted the ledger, so the quote occurs exactly once among
        the occurrences its prefix and suffix allow, and offsets given with
        a quote are the quote's.
        """
        if item.get("start") is not None:
            return int(item["start"]), int(item["end"])
        text = self.versions[item["version"]].text
        assert text is not None, "a quote on a withheld version"
        quote, prefix, suffix = item["quote"], item.get("prefix"), item.get("suffix")
        position = text.find(quote)
        while position != -1:
            before = prefix is None or (
                position >= len(prefix) and text.startswith(prefix, position - len(prefix))
            )
            if before and (suffix is None or text.startswith(suffix, position + len(quote))):
                return position, position + len(quote)
            position = text.find(quote, position + 1)
        raise ValueError(f"quote {quote!r} not in version {item['version']!r}")

    def _delivered(self, item: Any) -> str:
        """The span id of a delivered span; an inline span gets ``<version>[<start>:<end>]``."""
        if isinstance(item, str):
            return item
        key = (
            item["version"],
            item.get("start"),
            item.get("end"),
            item.get("quote"),
            item.get("prefix"),
            item.get("suffix"),
        )
        found = self.inline.get(key)
        if found is not None:
            return found
        start, end = self._anchor(item)
        span_id = f"{item['version']}[{start}:{end}]"
        self.spans.setdefault(span_id, Span(item["version"], start, end, None, None))
        self.inline[key] = span_id
        return span_id

    def _delivered_all(self, items: Iterable[Any] | None) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self._delivered(item) for item in items or ()))

    # -- final judgments (docs/spec/adjudication.md "Effect on scoring")

    def _latest(self, subject: str, questions: Iterable[str], terms: Iterable[str]) -> str | None:
        """The final judgment in force: the one recorded last (adjudication.md "Recording").

        A load records judgments in the order of their ids and at most one
        final judgment of a subject's question; the time a judgment claims
        never orders it.
        """
        found = [
            (self.recorded_in[j["id"]], j["id"])
            for j in self._finals.get(subject, ())
            if j.get("question") in questions and j["decision"] in terms
        ]
        return max(found)[1] if found else None

    def _adjudicate(self, raw: dict[str, dict[str, dict[str, Any]]]) -> None:
        self._finals: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for j in self.judgments.values():
            if j.get("final") and j.get("question") is not None:
                self._finals[j["subject"]].append(j)
        self.sets: dict[str, EvidenceSet] = {}
        self.sets_by_claim: dict[str, list[EvidenceSet]] = defaultdict(list)
        for k, g in sorted(raw["evidence_set"].items()):
            judgment = self._latest(k, SET_QUESTIONS, SET_TERMS)
            status = SET_TERMS[self.judgments[judgment]["decision"]] if judgment else g["status"]
            found = EvidenceSet(k, g["claim"], tuple(g["members"]), g["status"], status, judgment)
            self.sets[k] = found
            self.sets_by_claim[g["claim"]].append(found)
        self.contradictions = raw["contradiction"]
        self.contradictions_by_claim: dict[str, list[str]] = defaultdict(list)
        self.resolved: dict[str, str] = {}  # contradiction -> its final judgment
        for k, c in sorted(self.contradictions.items()):
            self.contradictions_by_claim[c["claim"]].append(k)
            judgment = self._latest(k, ("contradiction",), CONTRADICTION_TERMS)
            if judgment is not None:
                self.resolved[k] = judgment
        self.unresolved = {
            c["claim"]
            for k, c in self.contradictions.items()
            if c["status"] == "unresolved" and k not in self.resolved
        }

    def admissibility(self, subject: str) -> str | None:
        """The final admissibility judgment in force on a span or version, or None."""
        if subject not in self._finals:
            return None
        return self._latest(subject, ("admissibility",), ADMISSIBILITY_TERMS)

    def boundary(self, output: Output) -> str | None:
        """The final boundary judgment in force on an extra assertion, or None."""
        if output.claim is not None or output.id not in self._finals:
            return None
        return self._latest(output.id, ("boundary",), BOUNDARY_TERMS)


def _records(path: Path) -> Iterable[tuple[str, dict[str, Any]]]:
    """(kind, record) of a ledger file the load accepted (docs/spec/ledger.md "Spellings").

    JSON Lines is read here, a line at a time; a one-document ledger by
    hopgate's reader (YAML keeps its times as the strings written).
    """
    name = path.name.lower()
    if name.endswith((".jsonl", ".ndjson", ".jsonl.gz")):
        opener: Any = gzip.open if name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    data = json.loads(line)
                    kind = data.pop("type")
                    if kind != "ledger":
                        yield kind, data
        return
    from hopgate.ingest.ledger import read_records

    for record in read_records(path, validate=False):
        yield record.kind, record.data


def _case_key(data: dict[str, Any]) -> tuple[Any, ...]:
    spec = data.get("intervention")
    if spec is None:
        return (data["run"], data["question"])
    return (data["run"], data["question"], json.dumps(spec, sort_keys=True))


# ---- deciding ------------------------------------------------------------------


class Evaluation:
    """Eligibility and answerability for one evaluation (its cutoff and reader), cached."""

    def __init__(self, ledger: Ledger, evaluation: str) -> None:
        self.ledger = ledger
        self.id = evaluation
        self.reader, self.cutoff = ledger.evaluations[evaluation]
        self._timely: dict[str, bool] = {}
        self._in_effect: dict[tuple[str, datetime], bool] = {}
        self._readable: dict[str, bool] = {}
        self._eligible: dict[str, list[EvidenceSet]] = {}
        self._answerability: dict[str, str] = {}

    def late(self, version: str) -> bool:
        """Rule 1 broken: observed after the cutoff."""
        return self.ledger.versions[version].observed > self.cutoff

    def invalidated(self, version: str) -> bool:
        """Rule 2 broken: invalidated at or before the cutoff."""
        moment = self.ledger.versions[version].invalidated
        return moment is not None and moment <= self.cutoff

    def timely(self, version: str) -> bool:
        found = self._timely.get(version)
        if found is None:
            found = self._timely[version] = not (self.late(version) or self.invalidated(version))
        return found

    def in_effect(self, version: str, at: datetime | None) -> bool:
        """Rule 3: ``from <= at < until``, a missing bound open; no time passes."""
        if at is None:
            return True
        key = (version, at)
        found = self._in_effect.get(key)
        if found is None:
            v = self.ledger.versions[version]
            found = (v.start is None or v.start <= at) and (v.until is None or at < v.until)
            self._in_effect[key] = found
        return found

    def readable(self, span: str) -> bool:
        """Rule 4: the span's own readers when it lists any, else its version's; none is public."""
        found = self._readable.get(span)
        if found is None:
            s = self.ledger.spans[span]
            readers = s.readers if s.readers else self.ledger.versions[s.version].readers
            found = self._readable[span] = not readers or self.reader in readers
        return found

    def reason_not_applicable(self, claim: str) -> str | None:
        """The ledger's reason the claim is not applicable for this evaluation, or None."""
        return self.ledger.not_applicable.get(claim, {}).get(self.id)

    def eligible(self, claim: str | None) -> list[EvidenceSet]:
        """The eligible sets of a claim, by set id (none for an extra assertion, none for
        a claim not applicable for the evaluation: decided before eligibility)."""
        if claim is None or self.reason_not_applicable(claim) is not None:
            return []
        found = self._eligible.get(claim)
        if found is None:
            at = self.ledger.claims[claim][0]
            spans = self.ledger.spans
            found = [
                g
                for g in self.ledger.sets_by_claim.get(claim, ())
                if g.status == "adjudicated"
                and all(
                    self.timely(spans[m].version)
                    and self.in_effect(spans[m].version, at)
                    and self.readable(m)
                    for m in g.members
                )
            ]
            self._eligible[claim] = found
        return found

    def answerability(self, claim: str) -> str:
        found = self._answerability.get(claim)
        if found is None:
            if self.reason_not_applicable(claim) is not None:
                found = NOT_APPLICABLE
            elif self.eligible(claim):
                found = ANSWERABLE
            else:
                at = self.ledger.claims[claim][0]
                spans = self.ledger.spans
                timely = any(
                    g.status == "adjudicated"
                    and all(
                        self.timely(spans[m].version) and self.in_effect(spans[m].version, at)
                        for m in g.members
                    )
                    for g in self.ledger.sets_by_claim.get(claim, ())
                )
                found = BLOCKED if timely else NOT_FOUND
            self._answerability[claim] = found
        return found

    def inadmissible(self, span: str, at: datetime | None) -> bool:
        version = self.ledger.spans[span].version
        return not (self.timely(version) and self.in_effect(version, at) and self.readable(span))


class Coverage:
    """What a list of delivered spans covers (docs/spec/acceptance.md "Coverage")."""

    __slots__ = ("ids", "ranges", "locators", "spans", "memo")

    def __init__(self, spans: dict[str, Span], delivered: Iterable[str]) -> None:
        self.spans = spans
        self.ids = set(delivered)
        self.ranges: dict[str, list[tuple[int, int]]] = {}
        self.locators: set[tuple[str, str]] = set()
        self.memo: dict[str, bool] = {}
        for d in self.ids:
            s = spans[d]
            if s.locator is not None:
                self.locators.add((s.version, s.locator))
            elif s.start is not None and s.end is not None:
                self.ranges.setdefault(s.version, []).append((s.start, s.end))

    def covers(self, target: str) -> bool:
        """The same span, a span of its version containing its offsets, or its locator."""
        if target in self.ids:
            return True
        found = self.memo.get(target)
        if found is None:
            s = self.spans[target]
            if s.locator is not None:
                found = (s.version, s.locator) in self.locators
            else:
                ranges = self.ranges.get(s.version)
                found = ranges is not None and any(
                    start <= s.start and s.end <= end  # type: ignore[operator]
                    for start, end in ranges
                )
            self.memo[target] = found
        return found

    def uncovered(self, members: Iterable[str]) -> list[str]:
        return [m for m in members if not self.covers(m)]


@dataclass
class ClaimCase:
    run: str
    question: str
    claim: str
    answerability: str
    retrieved_complete: bool
    eligible_sets: int | None
    hops: int | None
    source_age_days: int | None
    contradiction: bool
    answered: bool
    answered_correctly: bool
    #: Some output asserting the claim is judged correct, or none is unjudged.
    correctness_known: bool = True


@dataclass
class RunAnswers:
    """What the reference decided for one run."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    claim_cases: list[ClaimCase] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    #: (outputs weighed, outputs failing) of the release gate.
    gate: tuple[int, list[str]] = (0, [])


def _row(
    ledger: Ledger,
    ev: Evaluation,
    case: Case,
    output: Output,
    retrieved: Coverage,
    item: dict[str, Any],
) -> dict[str, Any]:
    claim = output.claim
    cited = Coverage(ledger.spans, output.cites)
    eligible = ev.eligible(claim)
    best_cited = best_retrieved = None
    if eligible:
        counts = [
            (len(cited.uncovered(g.members)), len(retrieved.uncovered(g.members)), g.id, g)
            for g in eligible
        ]
        best_cited = min(counts, key=lambda c: (c[0], c[2]))
        best_retrieved = min(counts, key=lambda c: (c[1], c[2]))
    citation_complete = best_cited is not None and best_cited[0] == 0
    retrieved_complete = best_retrieved is not None and best_retrieved[1] == 0
    missing: list[str] = []
    if best_cited is not None and not citation_complete:
        missing = sorted(set(cited.uncovered(best_cited[3].members)))
    at = ledger.claims[claim][0] if claim is not None else None
    inadmissible = sorted({s for s in output.cites if ev.inadmissible(s, at)})
    unretrieved = sorted({s for s in output.cites if not retrieved.covers(s)})
    answerability = ev.answerability(claim) if claim is not None else None
    supported = output.correct is True and answerability == ANSWERABLE
    known = output.correct is not None
    proposed_cited = claim is not None and any(
        g.status == "proposed" and not cited.uncovered(g.members)
        for g in ledger.sets_by_claim.get(claim, ())
    )
    boundary = ledger.boundary(output)
    decision = ledger.judgments[boundary]["decision"] if boundary else None
    if (
        (claim is None and (decision or "new-claim") == "new-claim")
        or (claim is not None and claim in ledger.unresolved)
        or (proposed_cited and not citation_complete)
        or (answerability == ANSWERABLE and not known)
    ):
        verdict = "escalate"
    elif claim is None:
        verdict = "accept" if decision == "not-a-claim" else "reject"
    elif answerability != ANSWERABLE:
        verdict = "abstain"
    elif output.correct is False:
        verdict = "reject"
    elif citation_complete:
        verdict = "accept"
    else:
        verdict = "revise-citations"
    truth = _source_truth(ledger, claim, best_cited, best_retrieved)
    return {
        "run": case.run,
        "question": case.question,
        "output": output.id,
        "claim": claim,
        "consequential": ledger.claims[claim][1] if claim is not None else False,
        "answerability": answerability,
        "supported": supported,
        "correctness_known": known,
        "retrieved_complete": retrieved_complete,
        "citation_complete": citation_complete,
        "missing": missing,
        "inadmissible_citations": inadmissible,
        "cited_route": best_cited[2] if citation_complete and best_cited else None,
        "retrieved_route": best_retrieved[2] if retrieved_complete and best_retrieved else None,
        "verdict": verdict,
        "judgments": _judgments_in_force(ledger, output, boundary, truth["weighed_members"]),
        "interventions": item,
        "unretrieved_citations": unretrieved,
        "not_applicable": answerability == NOT_APPLICABLE,
        "not_applicable_reason": ev.reason_not_applicable(claim) if claim is not None else None,
        **{k: v for k, v in truth.items() if k != "weighed_members"},
    }


def _lexical(value: str | None) -> str | None:
    """A ledger time as the loader writes it: UTC, fraction without trailing zeros, ``Z``."""
    if value is None or value == "":
        return None
    moment = instant(value)
    fraction = f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else ""
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S") + fraction + "Z"


def _basis_judgment(ledger: Ledger, span: str) -> str | None:
    """The final admissibility judgment (with a reason) in force on the span, else on its
    version, whose reason is the member's premise basis; None when there is none."""
    for subject in (span, ledger.span_versions[span]):
        judgment = ledger.admissibility(subject)
        if judgment is not None and ledger.judgments[judgment].get("reason") is not None:
            return judgment
    return None


def _member_truth(ledger: Ledger, span: str) -> dict[str, str | None]:
    """docs/spec/acceptance.md "Source truth": one member of the weighed route."""
    version = ledger.span_versions[span]
    record = ledger.version_records[version]
    source = ledger.sources[record["source"]]
    basis: str | None = None
    basis_from: str | None = None
    judgment = _basis_judgment(ledger, span)
    if judgment is not None:
        basis, basis_from = ledger.judgments[judgment]["reason"], judgment
    if basis is None and source.get("authority_basis") is not None:
        basis, basis_from = source["authority_basis"], record["source"]
    effective = record.get("effective") or {}
    return {
        "span": span,
        "version": version,
        "source": record["source"],
        "authority": source.get("authority") or "unstated",
        "basis": "unstated" if basis is None else basis,
        "basis_from": basis_from,
        "effective_from": _lexical(effective.get("from")),
        "effective_until": _lexical(effective.get("until")),
        "observed_at": _lexical(record["observed_at"]),
    }


def _source_truth(
    ledger: Ledger, claim: str | None, best_cited: Any, best_retrieved: Any
) -> dict[str, Any]:
    """The weighed route (cited, else retrieved, else nearest), its members' truth, its
    authority (the weakest member's, unstated without a route) and the claim's contradictions."""
    route = None
    if best_cited is not None:
        if best_cited[0] == 0:
            route = best_cited[3]
        elif best_retrieved is not None and best_retrieved[1] == 0:
            route = best_retrieved[3]
        else:
            route = best_cited[3]
    spans = sorted(set(route.members)) if route else []
    members = [_member_truth(ledger, m) for m in spans]
    weakest = min((AUTHORITIES.index(str(m["authority"])) for m in members), default=0)
    contradictions = []
    for k in sorted(ledger.contradictions_by_claim.get(claim, ())) if claim is not None else ():
        c = ledger.contradictions[k]
        resolved = c["status"] == "resolved" or k in ledger.resolved
        # The reviewed treatment: the resolving judgment's decision with its reason
        # (adjudication.md "Effect on scoring", rule contradiction resolved).
        decision = c.get("decision")
        if k in ledger.resolved:
            judged = ledger.judgments[ledger.resolved[k]]
            reason = judged.get("reason")
            decision = f"{judged['decision']}: {reason}" if reason else judged["decision"]
        contradictions.append(
            {
                "id": k,
                "status": "resolved" if resolved else "unresolved",
                "decision": decision,
            }
        )
    return {
        "route_authority": AUTHORITIES[weakest],
        "weighed_route": route.id if route else None,
        "source_truth": members,
        "contradictions": contradictions,
        "weighed_members": spans,
    }


def _judgments_in_force(
    ledger: Ledger, output: Output, boundary: str | None, weighed: list[str]
) -> list[dict[str, str | None]]:
    """The final judgments in force on a card: its routes', its contradictions', its own,
    and the admissibility judgments its weighed route's members' premise basis is read
    from (adjudication.md "Effect on scoring", rule admissibility basis)."""
    found: set[str] = {j for j in (_basis_judgment(ledger, m) for m in weighed) if j is not None}
    if output.claim is not None:
        found |= {g.judgment for g in ledger.sets_by_claim.get(output.claim, ()) if g.judgment}
        found |= {
            ledger.resolved[k]
            for k in ledger.contradictions_by_claim.get(output.claim, ())
            if k in ledger.resolved
        }
    if boundary is not None:
        found.add(boundary)
    result = []
    for j in sorted(found):
        judgment = ledger.judgments[j]
        result.append(
            {
                "id": j,
                "question": judgment["question"],
                "decision": judgment["decision"],
                "reason": judgment.get("reason"),
            }
        )
    return result


def _claim_case(
    ledger: Ledger, ev: Evaluation, case: Case, claim: str, retrieved: Coverage
) -> ClaimCase:
    eligible = ev.eligible(claim)
    asserting = [o for o in case.outputs if o.claim == claim]
    hops = age = None
    fewest_unretrieved = None
    if eligible:
        hops = min(len(g.members) for g in eligible)
        fewest_unretrieved = min(len(retrieved.uncovered(g.members)) for g in eligible)
        oldest = min(
            ledger.versions[ledger.spans[m].version].observed for g in eligible for m in g.members
        )
        at = ledger.claims[claim][0] or ev.cutoff
        age = (at - oldest).days  # whole days, rounded down
    return ClaimCase(
        run=case.run,
        question=case.question,
        claim=claim,
        answerability=ev.answerability(claim),
        retrieved_complete=fewest_unretrieved == 0,
        eligible_sets=len(eligible) if eligible else None,
        hops=hops,
        source_age_days=age,
        contradiction=bool(ledger.contradictions_by_claim.get(claim)),
        answered=bool(asserting),
        answered_correctly=any(o.correct is True for o in asserting),
        correctness_known=any(o.correct is True for o in asserting)
        or all(o.correct is not None for o in asserting),
    )


#: The interval's constants (docs/spec/acceptance.md "Intervals": 2,000 resamples, seeded);
#: the seed is hopgate's (hopgate.statistics), so the intervals compare equal.
Z95 = 1.959963984540054
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20261007


def wilson(numerator: int, denominator: int) -> tuple[float, float] | None:
    """The Wilson score interval; None for an empty denominator."""
    if denominator <= 0:
        return None
    p, n, z2 = numerator / denominator, denominator, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = (Z95 / (1 + z2 / n)) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def cluster_bootstrap(clusters: list[tuple[int, int]]) -> tuple[float, float] | None:
    """The 2.5th and 97.5th percentiles of sum(num) / sum(den) over resampled questions."""
    used = [c for c in clusters if c[1] > 0]
    if not used:
        return None
    rng = random.Random(BOOTSTRAP_SEED)
    n = len(used)
    ratios = []
    for _ in range(BOOTSTRAP_SAMPLES):
        num = den = 0
        for _ in range(n):
            a, b = used[rng.randrange(n)]
            num += a
            den += b
        if den:
            ratios.append(num / den)
    ratios.sort()
    return ratios[int(0.025 * (len(ratios) - 1))], ratios[math.ceil(0.975 * (len(ratios) - 1))]


def _proportion(
    numerator: int, denominator: int, clusters: list[tuple[int, int]] | None = None
) -> dict[str, Any]:
    """A figure with its interval (docs/spec/acceptance.md "Intervals")."""
    value = numerator / denominator if denominator else None
    if clusters is not None and any(den > 1 for _, den in clusters):
        interval, method = cluster_bootstrap(clusters), "question bootstrap 95%"
    else:
        interval, method = wilson(numerator, denominator), "Wilson 95%"
    low, high = interval if interval is not None else (None, None)
    return {
        "numerator": numerator,
        "denominator": denominator,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "interval": method if interval is not None else None,
    }


def _age_stratum(days: int) -> str:
    if days < 30:
        return "under 30 days"
    return "30-364 days" if days < 365 else "365 days or more"


def _metrics(
    ledger: Ledger, run: str, cases: list[Case], answers: RunAnswers, awaiting: int
) -> dict[str, Any]:
    ccs = answers.claim_cases
    by_case: dict[tuple[str, str], list[ClaimCase]] = defaultdict(list)
    for cc in ccs:
        by_case[(cc.run, cc.question)].append(cc)
    rows = answers.rows
    accepted = {(r["question"], r["claim"]) for r in rows if r["verdict"] == "accept"}
    answerable = [cc for cc in ccs if cc.answerability == ANSWERABLE]
    supported = [r for r in rows if r["supported"]]

    # Per question, the units of each figure (the bootstrap's clusters), in the
    # order of the question IRIs (queries/metrics-by-question.rq sorts by them:
    # one prefix, then the percent-encoded id, docs/model.md "Identifiers").
    units: dict[str, list[int]] = {}
    for cc in ccs:
        u = units.setdefault(cc.question, [0] * 6)
        if cc.answerability == ANSWERABLE:
            u[0] += 1
            u[1] += cc.retrieved_complete
            u[2] += cc.answered_correctly
            u[5] += cc.correctness_known
    for r in rows:
        u = units.setdefault(r["question"], [0] * 6)
        u[3] += r["supported"]
        u[4] += r["supported"] and r["citation_complete"]
    ordered = [units[q] for q in sorted(units, key=lambda q: quote(q, safe=""))]

    def clusters(num: int, den: int) -> list[tuple[int, int]]:
        return [(u[num], u[den]) for u in ordered]

    whole_den = whole_num = 0
    for key, found in by_case.items():
        if all(cc.answerability == ANSWERABLE for cc in found):
            whole_den += 1
            whole_num += all((key[1], cc.claim) in accepted for cc in found)
    appropriate = sum(
        1
        for case in cases
        if case.abstained
        and not any(cc.answerability == ANSWERABLE for cc in by_case.get((run, case.question), ()))
    )
    result: dict[str, Any] = {
        "run": run,
        "complete_set_recall": _proportion(
            sum(cc.retrieved_complete for cc in answerable), len(answerable), clusters(1, 0)
        ),
        "citation_set_completeness": _proportion(
            sum(r["citation_complete"] for r in supported), len(supported), clusters(4, 3)
        ),
        "answer_correctness": _proportion(
            sum(cc.answered_correctly for cc in answerable),
            sum(cc.correctness_known for cc in answerable),
            clusters(2, 5),
        ),
        "whole_answer": _proportion(whole_num, whole_den),
        "counts": {
            "unsupported": sum(
                1
                for r in rows
                if not r["supported"] and r["verdict"] != "accept" and not _support_unknown(r)
            ),
            "correctness_unknown": sum(1 for r in rows if _support_unknown(r)),
            "answer_correctness_unknown": sum(1 for cc in answerable if not cc.correctness_known),
            "omitted": sum(1 for cc in answerable if not cc.answered),
            "blocked": sum(1 for cc in ccs if cc.answerability == BLOCKED),
            "not_found": sum(1 for cc in ccs if cc.answerability == NOT_FOUND),
            "not_applicable": sum(1 for cc in ccs if cc.answerability == NOT_APPLICABLE),
            "appropriate_abstentions": appropriate,
            "escalated": sum(1 for r in rows if r["verdict"] == "escalate"),
        },
        "strata": _strata(answerable, rows),
        "awaiting_adjudication": awaiting,
        "interventions": {},
    }
    return result


def _support_unknown(row: dict[str, Any]) -> bool:
    """An answerable claim's output nobody judged: neither supported nor unsupported."""
    return row["answerability"] == ANSWERABLE and not row["correctness_known"]


def _strata(answerable: list[ClaimCase], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """docs/spec/acceptance.md "Strata": the three figures per stratum of answerable claim-cases."""
    cards: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["claim"] is not None:
            cards[(r["question"], r["claim"])].append(r)
    counts: dict[tuple[str, str], list[int]] = {}
    for cc in answerable:
        assert cc.hops is not None and cc.eligible_sets is not None
        assert cc.source_age_days is not None
        for dimension, stratum in (
            ("hops", str(cc.hops)),
            ("alternatives", "several sets" if cc.eligible_sets > 1 else "one set"),
            ("contradiction", "present" if cc.contradiction else "absent"),
            ("source age", _age_stratum(cc.source_age_days)),
        ):
            c = counts.setdefault((dimension, stratum), [0] * 6)
            c[0] += 1
            c[1] += cc.retrieved_complete
            c[2] += cc.answered_correctly
            c[5] += cc.correctness_known
            for r in cards.get((cc.question, cc.claim), ()):
                c[3] += r["supported"]
                c[4] += r["supported"] and r["citation_complete"]
        # Route authority is a card's: its strata count output claims only.
        for r in cards.get((cc.question, cc.claim), ()):
            c = counts.setdefault(("route authority", r["route_authority"]), [0] * 6)
            c[3] += r["supported"]
            c[4] += r["supported"] and r["citation_complete"]
    strata: dict[str, dict[str, Any]] = {}
    for (dimension, stratum), c in sorted(counts.items()):
        strata.setdefault(dimension, {})[stratum] = {
            "complete_set_recall": _proportion(c[1], c[0]),
            "citation_set_completeness": _proportion(c[4], c[3]),
            "answer_correctness": _proportion(c[2], c[5]),
        }
    return strata


def _awaiting(ledger: Ledger, run: str, cases: list[Case]) -> int:
    """docs/spec/adjudication.md "Awaiting adjudication": subjects awaiting, as (kind, subject)."""
    outputs = [o for case in cases for o in case.outputs]
    asserted = {o.claim for o in outputs if o.claim is not None}
    questions_of: dict[str, set[str]] = defaultdict(set)  # subject -> final questions
    initial: dict[tuple[str, str], set[str]] = defaultdict(set)
    for j in ledger.judgments.values():
        question = j.get("question")
        if question is None:
            continue
        if j.get("final"):
            questions_of[j["subject"]].add(question)
        elif question not in ("admissibility", "minimality"):
            # Disagreement on these changes nothing scored (adjudication.md "Edge cases").
            initial[(j["subject"], question)].add(j["decision"])
    found: set[tuple[str, str]] = set()
    for claim in asserted:
        for g in ledger.sets_by_claim.get(claim, ()):
            if g.loaded == "proposed" and not questions_of[g.id] & set(SET_QUESTIONS):
                found.add(("set", g.id))
        for k in ledger.contradictions_by_claim.get(claim, ()):
            if (
                ledger.contradictions[k]["status"] == "unresolved"
                and "contradiction" not in questions_of[k]
            ):
                found.add(("contradiction", k))
    run_outputs = {o.id for o in outputs}
    for o in outputs:
        if o.claim is None and "boundary" not in questions_of[o.id]:
            found.add(("extra assertion", o.id))
    for (subject, question), decisions in initial.items():
        if len(decisions) < 2 or question in questions_of[subject]:
            continue
        g = ledger.sets.get(subject)
        if g is not None and g.claim in asserted:
            found.add(("set", subject))
        k = ledger.contradictions.get(subject)
        # A contradiction loaded as resolved awaits nothing ("Awaiting adjudication").
        if k is not None and k["claim"] in asserted and k["status"] != "resolved":
            found.add(("contradiction", subject))
        if subject in run_outputs:
            found.add(("extra assertion", subject))
    return len(found)


def _card_item(ledger: Ledger, run: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Interventions items "answered" by (question, claim); every other card's is "none"."""
    answered = {}
    for data in ledger.intervention_cases:
        if data["run"] == run:
            claim = ledger.sets[data["intervention"]["set"]].claim
            answered[(data["question"], claim)] = {"item": "answered", "variants": None}
    return answered


def evaluate_run(ledger: Ledger, run: str) -> RunAnswers:
    """Every verdict row, claim-case and metric of one run."""
    ev = Evaluation(ledger, ledger.runs[run])
    cases = [c for c in ledger.cases if c.run == run]
    answers = RunAnswers()
    items = _card_item(ledger, run)
    for case in cases:
        retrieved = Coverage(ledger.spans, case.retrieved)
        for output in case.outputs:
            item = items.get((case.question, output.claim or ""), {"item": "none", "variants": []})
            answers.rows.append(_row(ledger, ev, case, output, retrieved, item))
        for claim in ledger.required.get(case.question, ()):
            answers.claim_cases.append(_claim_case(ledger, ev, case, claim, retrieved))
    answers.rows.sort(key=lambda r: (r["run"], r["question"], r["output"]))
    answers.claim_cases.sort(key=lambda c: (c.run, c.question, c.claim))
    answers.metrics = _metrics(ledger, run, cases, answers, _awaiting(ledger, run, cases))
    weighed = [r for r in answers.rows if r["consequential"]]
    answers.gate = (len(weighed), sorted(r["output"] for r in weighed if r["verdict"] != "accept"))
    return answers


def evaluate_ledger(paths: Sequence[Path]) -> dict[str, RunAnswers]:
    """Read the ledger files and decide every run in them, keyed by run id.

    Python's cyclic garbage collector is paused meanwhile: the indexes are
    many small objects and no cycles, and its passes over them cost about a
    third of the time (0.8 s instead of 1.2 s CPU at 3.3k claims).
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        ledger = Ledger(paths)
        return {run: evaluate_run(ledger, run) for run in sorted(ledger.runs)}
    finally:
        if paused:
            gc.enable()


# ---- comparing with hopgate ------------------------------------------------------


def _rounded(value: Any) -> Any:
    """Floats rounded so that one ratio computed two ways compares equal; containers recursed."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def hopgate_answers(store: Any) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """hopgate's verdict rows and metrics of every evaluated run, as the reference spells them."""
    from hopgate.audit.results import metrics, verdicts

    rows = []
    for row in verdicts(store):
        found = row.as_dict()
        for name in RECORD_FIELDS:
            found.pop(name)
        rows.append(found)
    figures = {}
    for run, m in metrics(store).items():
        found = m.as_dict()
        for name in METRIC_RECORD_FIELDS:
            found.pop(name)
        figures[run] = found
    return rows, figures


def compare(
    reference: dict[str, RunAnswers],
    rows: list[dict[str, Any]],
    figures: dict[str, dict[str, Any]],
    *,
    limit: int = 20,
) -> list[str]:
    """Every difference between the reference's answers and hopgate's (at most ``limit``)."""
    differences: list[str] = []
    theirs = {(r["run"], r["output"]): r for r in rows}
    ours = {(r["run"], r["output"]): r for a in reference.values() for r in a.rows}
    for key in sorted(ours.keys() | theirs.keys()):
        mine, other = ours.get(key), theirs.get(key)
        if mine is None or other is None:
            differences.append(f"{key}: only in {'hopgate' if mine is None else 'the reference'}")
            continue
        for name in sorted(mine.keys() | other.keys()):
            a, b = mine.get(name), other.get(name)
            if name == "interventions" and a is not None and a.get("variants") is None:
                a, b = a["item"], (b or {}).get("item")  # variants are not modelled
            if _rounded(a) != _rounded(b):
                differences.append(f"{key} {name}: reference {a!r}, hopgate {b!r}")
    for run in sorted(reference.keys() | figures.keys()):
        mine_m = reference[run].metrics if run in reference else None
        other_m = figures.get(run)
        if mine_m is None or other_m is None:
            differences.append(
                f"metrics of {run}: only in {'hopgate' if not mine_m else 'the reference'}"
            )
            continue
        for name in sorted(mine_m.keys() | other_m.keys()):
            if _rounded(mine_m.get(name)) != _rounded(other_m.get(name)):
                differences.append(
                    f"metrics of {run} {name}: reference {mine_m.get(name)!r}, "
                    f"hopgate {other_m.get(name)!r}"
                )
    return differences[:limit]


def main(argv: list[str] | None = None) -> int:
    """Evaluate ledger files; print the time and each run's figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledgers", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write the rows and metrics as JSON here")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    started = time.perf_counter()
    answers = evaluate_ledger(args.ledgers)
    total = time.perf_counter() - started
    for run, a in answers.items():
        r = a.metrics["complete_set_recall"]
        c = a.metrics["citation_set_completeness"]
        print(
            f"{run}: {len(a.rows)} output claims, {len(a.claim_cases)} claim-cases; "
            f"complete-set recall {r['numerator']}/{r['denominator']}, "
            f"citation-set completeness {c['numerator']}/{c['denominator']}"
        )
    print(f"reference: {total:.2f} s")
    if args.json is not None:
        document = {
            run: {"rows": a.rows, "metrics": a.metrics, "gate": a.gate}
            for run, a in answers.items()
        }
        args.json.write_text(json.dumps(document, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
