"""A plain-Python reference model of docs/spec/acceptance.md (no hopgate import).

The model reads a ledger as a Python ``dict`` in the one-document spelling of
docs/spec/ledger.md "Spellings" (plural keys, as ``yaml.safe_load`` gives) with every time
written as an ISO 8601 string, and computes what the acceptance queries must
compute: one row per output claim (:func:`verdict_rows`) and the metrics of
each run (:func:`metrics`). It is deliberately naive (nested loops over small
ledgers) so that it can be read against the spec line by line.

It assumes the ledger passed the load-time checks of docs/spec/ledger.md "Errors"; it
re-checks only what it needs to compute (anchoring of spans and inline spans).

Readings of the spec (where the shared text left a choice, the reading closest to
it; docs/spec/acceptance.md now states each as a rule):

* Times: a date alone is 00:00 UTC, a date-time without a zone is UTC, a zone
  is honoured; comparisons are between instants.
* Rule 1 admits ``observed_at <= cutoff``; rule 2 rejects ``invalidated_at <=
  cutoff`` (invalidated *at* the cutoff is inadmissible); rule 3 admits
  ``from <= applies_at < until`` with a missing bound open and no rule-3 test
  when the claim has no ``applies_at`` (always so for an extra assertion).
* Rule 4: the span's ``readers`` if the list is non-empty, else the version's;
  an empty or absent list means public. (An empty span list gives no
  ``hg:readableBy`` triple in the store, so it cannot differ from "absent".)
* Blocked: no eligible set, and some adjudicated set whose every member passes
  rules 1-3 (hence some member fails rule 4). Everything else without an
  eligible set is not found (including a claim with no adjudicated set).
* Coverage: same version and ``D.start <= S.start`` and ``S.end <= D.end`` for
  spans with offsets; for locator spans (withheld text) same version and same
  locator string. A span covers itself.
* Ids sort by code point (Python ``str`` order), in ``missing``, in
  ``inadmissible_citations``, for the tie-break of ``missing`` and for rows.
* An inline delivered span gets the id ``<version>[<start>:<end>]``; the same
  inline span delivered twice is one span.
* Escalate rule 1, second clause: "o's citations contain a ``proposed`` set
  [of o's claim] but [o's citations contain] no eligible set", i.e. a proposed
  set of c is contained in the cited spans and ``citation_complete`` is false.
  The proposed set's members need not be admissible.
* An unresolved contradiction escalates whatever its span's admissibility.
* A question that lists a claim twice requires it once (RDF has no duplicates).
* Outputs of a case that also records ``abstained: true`` still count as
  outputs (the spec does not exclude them).
* Output claims may assert a claim the question does not require; they are
  rows and count in the output-claim measures like any other output claim,
  but they never make a claim-case.
* Appropriate abstention: a case with ``abstained: true`` none of whose
  question's required claims is answerable for the run's evaluation; a null
  query (no required claims) qualifies vacuously.
* Whole answer (see :func:`_whole_answer`): a case's whole answer passes when
  its question has at least one required claim, every required claim is
  answerable, and for each one the case has an output asserting it whose
  verdict is ``accept``. The denominator
  is the cases whose question has at least one required claim and all of them
  answerable (blocked / not-found claims never enter answerable denominators,
  so a question with any such claim is left out of the whole-answer ratio).
  An escalated claim (an unresolved contradiction) does not pass.
* Every run of the ledger has a metrics entry, even one with no cases; a run
  with no answerable claim-case has value ``None`` (never 1) for the ratios.

Not applicable (docs/spec/acceptance.md "Not applicable"): a claim whose
``not_applicable`` list names the run's evaluation is ``not applicable``, decided
first: it has no eligible set for that evaluation (so no route, nothing
missing), is neither answerable, blocked nor not found, counts apart
(``not_applicable``), enters no answerable denominator (nor the whole
answer's), and an output asserting it is ``abstain`` unless rule 1 escalates it.

Unknown correctness (docs/spec/acceptance.md "Per output claim"): an output
whose ``correct`` is null is neither supported nor (when its claim is
answerable) unsupported, and escalated when its claim is answerable; a
claim-case with no output judged correct and some not judged is left out of
answer correctness. Both are counted apart.

Final judgments (docs/spec/adjudication.md "Effect on scoring"), applied before
anything above reads a set's status, a contradiction or an extra assertion:

* Only final judgments with a ``question`` and a decision that is a term of it
  count; the one recorded last wins, whatever time it claims. A ledger is one
  load, which records at most one final judgment of a subject's question, so
  the model finds at most one (the time a judgment claims never orders it).
* A final ``entailment`` or ``alternatives`` judgment of a set gives it the
  status ``adjudicated`` (``sufficient``) or ``rejected`` (``insufficient``).
* Any final ``contradiction`` judgment (``material`` or ``immaterial``)
  resolves the contradiction.
* A final ``boundary`` judgment of an extra assertion: ``new-claim`` keeps it
  escalated, ``not-a-claim`` accepts it (and it leaves the unsupported count),
  ``unsupported`` rejects it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

VERDICTS = ("accept", "revise-citations", "abstain", "reject", "escalate")
#: The terms of each question that a final judgment acts on (docs/spec/adjudication.md).
SET_TERMS = {"sufficient": "adjudicated", "insufficient": "rejected"}
CONTRADICTION_TERMS = ("material", "immaterial")
BOUNDARY_TERMS = ("new-claim", "not-a-claim", "unsupported")


def _latest_final(
    judgments: list[dict[str, Any]], subject: str, questions: tuple[str, ...], terms: Any
) -> dict[str, Any] | None:
    """The final judgment in force of ``subject``: the one this ledger (one load) records."""
    found = [
        j
        for j in judgments
        if j.get("final")
        and j["subject"] == subject
        and j.get("question") in questions
        and j["decision"] in terms
    ]
    if not found:
        return None
    assert len(found) == 1, "one load records at most one final judgment of a subject's question"
    return found[0]


def parse_time(value: str) -> datetime:
    """An aware UTC datetime from an ISO 8601 date or date-time string.

    A date alone means 00:00 UTC; a date-time without a zone is read as UTC.
    """
    if not isinstance(value, str):
        raise TypeError(f"expected an ISO 8601 string, got {value!r}")
    if len(value) == 10:
        moment = datetime.combine(date.fromisoformat(value), time(0), tzinfo=UTC)
    else:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _time_or_none(value: Any) -> datetime | None:
    return None if value is None or value == "" else parse_time(value)


@dataclass(frozen=True)
class Span:
    """A reference or delivered span: offsets into a retained text, or a locator."""

    id: str
    version: str
    start: int | None
    end: int | None
    locator: str | None
    readers: tuple[str, ...] | None  # None: not given (fall back to the version's)


@dataclass(frozen=True)
class Version:
    id: str
    text: str | None
    observed_at: datetime
    effective_from: datetime | None
    effective_until: datetime | None
    invalidated_at: datetime | None
    readers: tuple[str, ...]  # empty: public


def anchor(
    text: str,
    *,
    start: int | None = None,
    end: int | None = None,
    quote: str | None = None,
    prefix: str | None = None,
    suffix: str | None = None,
) -> tuple[int, int]:
    """``(start, end)`` of a span in ``text`` in code points; ``ValueError`` if not placeable."""
    if start is not None or end is not None:
        if start is None or end is None:
            raise ValueError("expected both start and end")
        if not 0 <= start < end <= len(text):
            raise ValueError(f"bad offsets {start}:{end} for a text of {len(text)} code points")
        if quote is not None and text[start:end] != quote:
            raise ValueError(f"quote {quote!r} is not at {start}:{end}")
        if prefix is not None and not text[:start].endswith(prefix):
            raise ValueError("prefix does not precede the span")
        if suffix is not None and not text[end:].startswith(suffix):
            raise ValueError("suffix does not follow the span")
        return start, end
    if not quote:
        raise ValueError("expected offsets or a quote")
    hits = []
    position = text.find(quote)
    while position != -1:
        if (prefix is None or text[:position].endswith(prefix)) and (
            suffix is None or text[position + len(quote) :].startswith(suffix)
        ):
            hits.append(position)
        position = text.find(quote, position + 1)
    if len(hits) != 1:
        raise ValueError(f"quote {quote!r} occurs {len(hits)} times (expected exactly once)")
    return hits[0], hits[0] + len(quote)


class Ledger:
    """Indexes of one ledger, and the spec's predicates over them."""

    def __init__(self, ledger: dict[str, Any]) -> None:
        self.raw = ledger
        self.evaluations = {e["id"]: e for e in ledger.get("evaluations") or []}
        self.versions: dict[str, Version] = {}
        for v in ledger.get("versions") or []:
            effective = v.get("effective") or {}
            self.versions[v["id"]] = Version(
                id=v["id"],
                text=v.get("text"),
                observed_at=parse_time(v["observed_at"]),
                effective_from=_time_or_none(effective.get("from")),
                effective_until=_time_or_none(effective.get("until")),
                invalidated_at=_time_or_none(v.get("invalidated_at")),
                readers=tuple(v.get("readers") or ()),
            )
        self.spans: dict[str, Span] = {}
        for s in ledger.get("spans") or []:
            self.spans[s["id"]] = self._reference_span(s)
        self.claims = {c["id"]: c for c in ledger.get("claims") or []}
        self.questions = {q["id"]: q for q in ledger.get("questions") or []}
        judgments = ledger.get("judgments") or []
        self.sets_by_claim: dict[str, list[dict[str, Any]]] = {}
        for g in ledger.get("evidence_sets") or []:
            final = _latest_final(judgments, g["id"], ("entailment", "alternatives"), SET_TERMS)
            if final is not None:
                g = {**g, "status": SET_TERMS[final["decision"]]}
            self.sets_by_claim.setdefault(g["claim"], []).append(g)
        for family in self.sets_by_claim.values():
            family.sort(key=lambda g: g["id"])
        self.unresolved: set[str] = {
            k["claim"]
            for k in ledger.get("contradictions") or []
            if k.get("status") == "unresolved"
            and _latest_final(judgments, k["id"], ("contradiction",), CONTRADICTION_TERMS) is None
        }
        self.boundary: dict[str, str] = {}
        for case in ledger.get("cases") or []:
            for o in case.get("outputs") or []:
                final = _latest_final(judgments, o["id"], ("boundary",), BOUNDARY_TERMS)
                if o.get("claim") is None and final is not None:
                    self.boundary[o["id"]] = final["decision"]
        self.runs = {r["id"]: r for r in ledger.get("runs") or []}
        # interventions.md "Cards and figures", rule kept apart: only plain cases
        # enter the figures of acceptance.md.
        everything = ledger.get("cases") or []
        plain = [c for c in everything if c.get("intervention") is None]
        self.cases = sorted(plain, key=lambda c: (c["run"], c["question"]))
        self.intervention_cases = [c for c in everything if c.get("intervention") is not None]
        self.sets = {g["id"]: g for g in ledger.get("evidence_sets") or []}

    # ---- spans ------------------------------------------------------------

    def _reference_span(self, s: dict[str, Any]) -> Span:
        version = self.versions[s["version"]]
        readers = tuple(s["readers"]) if s.get("readers") else None
        if "locator" in s:
            if version.text is not None:
                raise ValueError(f"span {s['id']!r}: a locator on a retained version")
            return Span(s["id"], version.id, None, None, s["locator"], readers)
        if version.text is None:
            raise ValueError(f"span {s['id']!r}: offsets on a withheld version")
        start, end = anchor(
            version.text,
            start=s.get("start"),
            end=s.get("end"),
            quote=s.get("quote"),
            prefix=s.get("prefix"),
            suffix=s.get("suffix"),
        )
        return Span(s["id"], version.id, start, end, None, readers)

    def delivered(self, item: Any) -> Span:
        """A delivered span: a span id, or an inline span anchored in its version's text."""
        if isinstance(item, str):
            return self.spans[item]
        version = self.versions[item["version"]]
        if version.text is None:
            raise ValueError(f"inline span on withheld version {version.id!r}")
        start, end = anchor(
            version.text,
            start=item.get("start"),
            end=item.get("end"),
            quote=item.get("quote"),
            prefix=item.get("prefix"),
            suffix=item.get("suffix"),
        )
        span_id = f"{version.id}[{start}:{end}]"
        if span_id in self.spans:
            raise ValueError(f"inline span id {span_id!r} collides with a ledger span id")
        return Span(span_id, version.id, start, end, None, None)

    def delivered_all(self, items: list[Any] | None) -> list[Span]:
        unique: dict[str, Span] = {}
        for item in items or []:
            span = self.delivered(item)
            unique[span.id] = span
        return list(unique.values())

    @staticmethod
    def covers(d: Span, s: Span) -> bool:
        """Delivered span ``d`` covers reference span ``s`` (containment; locators: equality)."""
        if d.id == s.id:
            return True
        if d.version != s.version:
            return False
        if d.locator is not None or s.locator is not None:
            return d.locator is not None and d.locator == s.locator
        assert d.start is not None and d.end is not None
        assert s.start is not None and s.end is not None
        return d.start <= s.start and s.end <= d.end

    def uncovered(self, members: list[str], delivered: list[Span]) -> list[str]:
        return sorted(
            {m for m in members if not any(self.covers(d, self.spans[m]) for d in delivered)}
        )

    def contained(self, members: list[str], delivered: list[Span]) -> bool:
        return not self.uncovered(members, delivered)

    # ---- admissibility ----------------------------------------------------

    def rules_1_to_3(self, span: Span, evaluation: dict[str, Any], applies_at: Any) -> bool:
        version = self.versions[span.version]
        cutoff = parse_time(evaluation["observation_cutoff"])
        if not version.observed_at <= cutoff:  # rule 1
            return False
        if version.invalidated_at is not None and version.invalidated_at <= cutoff:  # rule 2
            return False
        moment = _time_or_none(applies_at)  # rule 3
        if moment is not None:
            if version.effective_from is not None and moment < version.effective_from:
                return False
            if version.effective_until is not None and not moment < version.effective_until:
                return False
        return True

    def rule_4(self, span: Span, evaluation: dict[str, Any]) -> bool:
        readers = span.readers if span.readers else self.versions[span.version].readers
        return not readers or evaluation["reader"] in readers

    def admissible(self, span: Span, evaluation: dict[str, Any], applies_at: Any) -> bool:
        return self.rules_1_to_3(span, evaluation, applies_at) and self.rule_4(span, evaluation)

    # ---- claims -----------------------------------------------------------

    def not_applicable(self, claim_id: str, evaluation: dict[str, Any]) -> str | None:
        """The ledger's reason the claim is not applicable for the evaluation, or None."""
        for entry in self.claims[claim_id].get("not_applicable") or []:
            if entry["evaluation"] == evaluation["id"]:
                return str(entry["reason"])
        return None

    def eligible_sets(self, claim_id: str | None, evaluation: dict[str, Any]) -> list[dict]:
        """The eligible sets of a claim, sorted by set id (none for an extra assertion,
        none for a claim not applicable for the evaluation: decided before eligibility)."""
        if claim_id is None or self.not_applicable(claim_id, evaluation) is not None:
            return []
        applies_at = self.claims[claim_id].get("applies_at")
        return [
            g
            for g in self.sets_by_claim.get(claim_id, [])
            if g["status"] == "adjudicated"
            and all(self.admissible(self.spans[m], evaluation, applies_at) for m in g["members"])
        ]

    def status(self, claim_id: str, evaluation: dict[str, Any]) -> str:
        """``not applicable``, ``answerable``, ``blocked`` or ``not found`` for the evaluation."""
        if self.not_applicable(claim_id, evaluation) is not None:
            return "not applicable"
        if self.eligible_sets(claim_id, evaluation):
            return "answerable"
        applies_at = self.claims[claim_id].get("applies_at")
        for g in self.sets_by_claim.get(claim_id, []):
            if g["status"] == "adjudicated" and all(
                self.rules_1_to_3(self.spans[m], evaluation, applies_at) for m in g["members"]
            ):
                return "blocked"
        return "not found"

    def required_claims(self, question_id: str) -> list[str]:
        return list(dict.fromkeys(self.questions[question_id].get("claims") or []))

    def evaluation_of(self, run_id: str) -> dict[str, Any]:
        return self.evaluations[self.runs[run_id]["evaluation"]]


def _row(model: Ledger, case: dict[str, Any], output: dict[str, Any]) -> dict[str, Any]:
    evaluation = model.evaluation_of(case["run"])
    claim_id = output.get("claim")
    eligible = model.eligible_sets(claim_id, evaluation)
    retrieved = model.delivered_all(case.get("retrieved"))
    cited = model.delivered_all(output.get("cites"))
    retrieved_complete = any(model.contained(g["members"], retrieved) for g in eligible)
    citation_complete = any(model.contained(g["members"], cited) for g in eligible)
    missing: list[str] = []
    if eligible and not citation_complete:
        best = min(eligible, key=lambda g: (len(model.uncovered(g["members"], cited)), g["id"]))
        missing = model.uncovered(best["members"], cited)
    applies_at = model.claims[claim_id].get("applies_at") if claim_id is not None else None
    inadmissible = sorted({s.id for s in cited if not model.admissible(s, evaluation, applies_at)})
    status = model.status(claim_id, evaluation) if claim_id is not None else None
    # ``correct: null``: nobody judged it (acceptance.md "Per output claim", rule
    # unknown correctness): never read as correct or incorrect.
    known = output["correct"] is not None
    correct = bool(output["correct"])
    supported = known and correct and status == "answerable"

    proposed_cited = claim_id is not None and any(
        g["status"] == "proposed" and model.contained(g["members"], cited)
        for g in model.sets_by_claim.get(claim_id, [])
    )
    boundary = model.boundary.get(output["id"], "new-claim")
    if (
        (claim_id is None and boundary == "new-claim")
        or (claim_id is not None and claim_id in model.unresolved)
        or (proposed_cited and not citation_complete)
        or (status == "answerable" and not known)
    ):
        verdict = "escalate"
    elif claim_id is None:
        verdict = "accept" if boundary == "not-a-claim" else "reject"
    elif status in ("blocked", "not found", "not applicable"):
        verdict = "abstain"
    elif not correct:
        verdict = "reject"
    elif citation_complete:
        verdict = "accept"
    else:
        verdict = "revise-citations"
    return {
        "run": case["run"],
        "question": case["question"],
        "output": output["id"],
        "claim": claim_id,
        "supported": supported,
        "support_unknown": status == "answerable" and not known,
        "retrieved_complete": retrieved_complete,
        "citation_complete": citation_complete,
        "missing": missing,
        "inadmissible_citations": inadmissible,
        "verdict": verdict,
    }


def _all_rows(ledger: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows with what the metrics also need (``support_unknown``), sorted."""
    model = Ledger(ledger)
    rows = [
        _row(model, case, output) for case in model.cases for output in case.get("outputs") or []
    ]
    return sorted(rows, key=lambda r: (r["run"], r["question"], r["output"]))


def verdict_rows(ledger: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per output claim of each case, sorted by (run, question, output)."""
    return [{k: v for k, v in row.items() if k != "support_unknown"} for row in _all_rows(ledger)]


def _ratio(numerator: int, denominator: int) -> dict[str, Any]:
    return {
        "numerator": numerator,
        "denominator": denominator,
        "value": numerator / denominator if denominator else None,
    }


def _claim_passes(model: Ledger, claim_id: str, case: dict[str, Any]) -> bool:
    """Some output of the case asserts the claim and its verdict is ``accept``."""
    return any(
        o.get("claim") == claim_id and _row(model, case, o)["verdict"] == "accept"
        for o in case.get("outputs") or []
    )


def _whole_answer(model: Ledger, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Whole-answer pass rate of a run's cases (reading in the module docstring).

    Denominator: cases whose question requires at least one claim and every
    required claim is answerable. Numerator: those cases where, for every
    required claim c, some output asserting c is accepted (the product
    decision: a claim passes when its card's verdict is ``accept``, the same
    test the release gate applies).
    """
    numerator = denominator = 0
    for case in cases:
        evaluation = model.evaluation_of(case["run"])
        required = model.required_claims(case["question"])
        if not required or any(model.status(c, evaluation) != "answerable" for c in required):
            continue
        denominator += 1
        if all(_claim_passes(model, c, case) for c in required):
            numerator += 1
    return _ratio(numerator, denominator)


def metrics(ledger: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per run id: the three ratios, the side counts and the whole-answer ratio."""
    model = Ledger(ledger)
    rows = _all_rows(ledger)
    result: dict[str, dict[str, Any]] = {}
    for run_id in sorted(model.runs):
        evaluation = model.evaluation_of(run_id)
        cases = [c for c in model.cases if c["run"] == run_id]
        run_rows = [r for r in rows if r["run"] == run_id]

        answerable = recalled = correct = judged = omitted = blocked = not_found = 0
        not_applicable = 0
        appropriate = 0
        for case in cases:
            retrieved = model.delivered_all(case.get("retrieved"))
            outputs = case.get("outputs") or []
            statuses = {}
            for claim_id in model.required_claims(case["question"]):
                status = model.status(claim_id, evaluation)
                statuses[claim_id] = status
                if status == "blocked":
                    blocked += 1
                    continue
                if status == "not found":
                    not_found += 1
                    continue
                if status == "not applicable":
                    not_applicable += 1
                    continue
                answerable += 1
                eligible = model.eligible_sets(claim_id, evaluation)
                if any(model.contained(g["members"], retrieved) for g in eligible):
                    recalled += 1
                asserting = [o for o in outputs if o.get("claim") == claim_id]
                if any(o["correct"] for o in asserting):
                    correct += 1
                    judged += 1
                elif all(o["correct"] is not None for o in asserting):
                    judged += 1  # else unknown: left out of answer correctness
                if not asserting:
                    omitted += 1
            if case.get("abstained", False) and all(s != "answerable" for s in statuses.values()):
                appropriate += 1

        supported = [r for r in run_rows if r["supported"]]
        result[run_id] = {
            "complete_set_recall": _ratio(recalled, answerable),
            "citation_set_completeness": _ratio(
                sum(1 for r in supported if r["citation_complete"]), len(supported)
            ),
            "answer_correctness": _ratio(correct, judged),
            "counts": {
                "unsupported": sum(
                    1
                    for r in run_rows
                    if not r["supported"] and r["verdict"] != "accept" and not r["support_unknown"]
                ),
                "correctness_unknown": sum(1 for r in run_rows if r["support_unknown"]),
                "answer_correctness_unknown": answerable - judged,
                "omitted": omitted,
                "blocked": blocked,
                "not_found": not_found,
                "not_applicable": not_applicable,
                "appropriate_abstentions": appropriate,
                "escalated": sum(1 for r in run_rows if r["verdict"] == "escalate"),
            },
            "whole_answer": _whole_answer(model, cases),
        }
    return result


# ---- interventions (docs/spec/interventions.md) ----------------------------


def _surviving_route(
    model: Ledger, eligible: list[dict[str, Any]], citable: list[Span], unreadable: str | None
) -> str | None:
    """interventions.md "Expected outcome": fewest members, ties by id; a member made
    unreadable fails rule 4, so no set holding it is eligible for the variant."""
    found = [
        (len(set(g["members"])), g["id"])
        for g in eligible
        if unreadable not in g["members"] and model.contained(g["members"], citable)
    ]
    return min(found)[1] if found else None


#: What an outcome of :func:`intervention_outcomes` leaves out: where a card shows it.
_CARD_KEYS = ("run", "claim", "replacement")


def intervention_outcomes(ledger: dict[str, Any]) -> list[dict[str, Any]]:
    """interventions.md "Observed class": one outcome per intervention case, by case key."""
    return [
        {k: v for k, v in outcome.items() if k not in _CARD_KEYS}
        for outcome in _answered_variants(ledger)
    ]


def _answered_variants(ledger: dict[str, Any]) -> list[dict[str, Any]]:
    """The outcomes, each with its run, claim and replacement span."""
    model = Ledger(ledger)
    outcomes = []
    for case in model.intervention_cases:
        spec = case["intervention"]
        claim_id = model.sets[spec["set"]]["claim"]
        evaluation = model.evaluation_of(case["run"])
        eligible = model.eligible_sets(claim_id, evaluation)
        context = model.delivered_all(case.get("retrieved"))
        citable = model.delivered_all(spec["citable"]) if spec.get("citable") else context
        unreadable = spec.get("member") if spec["variant"] == "permission" else None
        # interventions.md "Edge cases", replacement: the replaced member takes its
        # replacement's admissibility (all four rules).
        replacement = spec.get("replacement")
        if replacement is not None and spec.get("member") is not None:
            applies_at = model.claims[claim_id].get("applies_at")
            if not model.admissible(model.delivered(replacement), evaluation, applies_at):
                unreadable = spec["member"]
        route = _surviving_route(model, eligible, citable, unreadable)
        expected = "supported answer" if route is not None else "abstention"
        asserting = sorted(
            (o for o in case.get("outputs") or [] if o.get("claim") == claim_id),
            key=lambda o: o["id"],
        )
        correct = None
        outside = False
        if asserting:
            output = asserting[0]
            cited = model.delivered_all(output.get("cites"))
            allowed = [d for d in cited if any(model.covers(c, d) for c in citable)]
            supported = _surviving_route(model, eligible, allowed, unreadable) is not None
            observed = "supported answer" if supported else "unsupported synthesis"
            correct = None if output["correct"] is None else bool(output["correct"])
            outside = any(not any(model.covers(c, d) for c in context) for d in cited)
        else:
            observed = "appropriate abstention" if route is None else "missed answer"
        outcomes.append(
            {
                "question": case["question"],
                "set": spec["set"],
                "variant": spec["variant"],
                "member": spec.get("member"),
                "replacement": spec.get("replacement"),
                "claim": claim_id,
                "run": case["run"],
                "expected": expected,
                "surviving_route": route,
                "observed": observed,
                "correct": correct,
                "cited_outside_context": outside,
            }
        )
    return outcomes


def card_interventions(ledger: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """interventions.md "Cards and figures", rule card item: per claim-case (run,
    question, claim) with intervention answers, the item ``answered`` and one entry
    per variant answered. A claim-case missing here carries ``none`` (no plan is
    recorded in these ledgers, so none is ``planned, not run``)."""
    cards: dict[tuple[str, str, str], dict[str, Any]] = {}
    for outcome in _answered_variants(ledger):
        key = (outcome["run"], outcome["question"], outcome["claim"])
        entry = {k: v for k, v in outcome.items() if k not in ("run", "question", "claim")}
        cards.setdefault(key, {"item": "answered", "variants": []})["variants"].append(entry)
    for card in cards.values():
        card["variants"].sort(key=lambda e: repr(sorted(e.items())))
    return cards
