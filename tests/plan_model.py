"""A plain-Python model of the intervention plan (no hopgate import).

It reads docs/spec/interventions.md "The plan" and "Expected outcome" line by
line, on top of the acceptance model of tests/spec_model.py (its ``Ledger``
gives eligibility, coverage and the status in force after final judgments,
docs/spec/acceptance.md "Eligibility" and "Coverage", docs/spec/adjudication.md
"Effect on scoring"). :func:`plan` returns, for one run, the variants the spec
plans and the variants counted as not applying, in a spelling that does not
depend on the engine's order:

* ``context`` and ``citable`` are sorted lists of distinct span ids (the spec
  gives them no order); ``texts`` maps each context span id to its text, None
  where the evaluation's reader may not see it (docs/spec/interventions.md "The
  plan", rule recorded plan), where the variant made it unreadable
  (``permission``), or where the span has no text (a locator span);
* ``replacement`` is a span id; a temporal replacement is the inline span
  ``<version>[<start>:<end>]`` (docs/spec/ledger.md "Delivered spans").

Readings of the spec (each the reading closest to its words):

* Rule **selected sets**: one claim-case per plain case of the run and
  distinct required claim of its question (acceptance.md "Terms"); its claim
  is answerable for the run's evaluation; every eligible set is selected (no
  cap). Intervention cases make no claim-case (rule kept apart).
* ``hop-removal``: the members of every eligible set of c (not only the
  selected one), minus each span S with ``covers(S, m)`` or ``covers(m, S)``
  (so m itself goes: a span covers itself).
* ``citation-restriction``: citable is the members of E except m, by id.
* ``contradiction``: every contradiction record of c, whatever its status;
  the record's span replaces m in the context.
* ``temporal``: every version of m's source other than m's version that
  retains a text holding m's exact text (so never for a locator span), and
  that fails a rule among 1-3 for c; the replacement is the inline span at the
  quote's first occurrence (code points).
* ``permission``: the context is E (m kept, its text null), citable the
  context minus m.
* ``identity`` is never planned: one count per member.
* Rule **expected outcome**: an adjudicated set (status in force) of c is
  eligible *for the variant* when each member is admissible for c, where the
  replaced member m is judged as its replacement (the replacement's
  admissibility, all four rules, for any set holding m), and m made unreadable
  fails rule 4. It must be contained (coverage unchanged: the replacement
  covers only what it covers itself) in the citable spans. The surviving route
  is the set with fewest members, ties by id.
* Rule **counted, not dropped**: per selected set, one count per member for a
  variant planned "one per member" that has no instance: ``citation-restriction``
  on a one-member set, ``contradiction`` when c has no record, ``temporal``
  when m has no such version, ``identity`` always.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from spec_model import Ledger, Span

SUPPORTED = "supported answer"
ABSTENTION = "abstention"


@dataclass
class ModelPlan:
    """The variants of a run's plan and the counts of those that do not apply."""

    variants: list[dict[str, Any]] = field(default_factory=list)
    inapplicable: Counter[str] = field(default_factory=Counter)


def _text(model: Ledger, span: Span, reader: str) -> str | None:
    """The span's text as the reader may see it (None: unreadable or no text)."""
    if not model.rule_4(span, {"reader": reader}):
        return None
    text = model.versions[span.version].text
    if text is None or span.start is None or span.end is None:
        return None
    return text[span.start : span.end]


def _claim_cases(model: Ledger, run: str) -> list[tuple[str, str]]:
    """(question, claim) of every claim-case of the run: plain cases, distinct claims."""
    pairs = []
    for case in model.cases:  # plain cases only (spec_model keeps intervention cases apart)
        if case["run"] != run:
            continue
        for claim in model.required_claims(case["question"]):
            pairs.append((case["question"], claim))
    return sorted(set(pairs))


def _temporal_replacements(
    model: Ledger, member: Span, evaluation: dict[str, Any], applies_at: Any
) -> list[Span]:
    """Inline spans holding m's quote in the other versions of m's source failing rules 1-3."""
    own = model.versions[member.version]
    if own.text is None or member.start is None or member.end is None:
        return []
    quote = own.text[member.start : member.end]
    source = {v["id"]: v["source"] for v in model.raw.get("versions") or []}
    found = []
    for vid in sorted(source):
        version = model.versions[vid]
        if vid == member.version or source[vid] != source[member.version]:
            continue
        if version.text is None or quote not in version.text:
            continue
        at = version.text.index(quote)
        span = Span(f"{vid}[{at}:{at + len(quote)}]", vid, at, at + len(quote), None, None)
        if model.rules_1_to_3(span, evaluation, applies_at):
            continue  # admissible under rules 1-3: not a temporal replacement
        found.append(span)
    return found


def _outcome(
    model: Ledger,
    claim: str,
    evaluation: dict[str, Any],
    citable: list[Span],
    *,
    member: str | None = None,
    replacement: Span | None = None,
    unreadable: bool = False,
) -> tuple[str, str | None]:
    """docs/spec/interventions.md "Expected outcome": (expected, surviving route)."""
    applies_at = model.claims[claim].get("applies_at")

    def admissible_for_variant(span_id: str) -> bool:
        if span_id == member:
            if unreadable:
                return False  # made unreadable: fails rule 4
            if replacement is not None:
                return model.admissible(replacement, evaluation, applies_at)
        return model.admissible(model.spans[span_id], evaluation, applies_at)

    routes = [
        (len(set(g["members"])), g["id"])
        for g in model.sets_by_claim.get(claim, [])
        if model.not_applicable(claim, evaluation) is None
        and g["status"] == "adjudicated"
        and all(admissible_for_variant(m) for m in g["members"])
        and model.contained(g["members"], citable)
    ]
    if not routes:
        return ABSTENTION, None
    return SUPPORTED, min(routes)[1]


def plan(ledger: dict[str, Any], run: str) -> ModelPlan:
    """The plan of ``run`` (docs/spec/interventions.md "The plan")."""
    model = Ledger(ledger)
    evaluation = model.evaluation_of(run)
    reader = evaluation["reader"]
    records: dict[str, list[dict[str, Any]]] = {}
    for k in ledger.get("contradictions") or []:
        records.setdefault(k["claim"], []).append(k)
    result = ModelPlan()
    for question, claim in _claim_cases(model, run):
        if model.status(claim, evaluation) != "answerable":
            continue
        applies_at = model.claims[claim].get("applies_at")
        eligible = model.eligible_sets(claim, evaluation)
        everyone = {m for g in eligible for m in g["members"]}
        for chosen in eligible:
            members = [model.spans[m] for m in chosen["members"]]

            def add(
                variant: str,
                context: list[Span],
                citable: list[Span],
                *,
                member: str | None = None,
                replacement: Span | None = None,
                unreadable: bool = False,
                chosen: dict[str, Any] = chosen,
                question: str = question,
                claim: str = claim,
            ) -> None:
                expected, route = _outcome(
                    model,
                    claim,
                    evaluation,
                    citable,
                    member=member,
                    replacement=replacement,
                    unreadable=unreadable,
                )
                texts = {s.id: _text(model, s, reader) for s in context}
                if unreadable and member is not None:
                    texts[member] = None
                result.variants.append(
                    {
                        "question": question,
                        "claim": claim,
                        "set": chosen["id"],
                        "variant": variant,
                        "member": member,
                        "replacement": replacement.id if replacement is not None else None,
                        "context": sorted({s.id for s in context}),
                        "texts": texts,
                        "citable": sorted({s.id for s in citable}),
                        "expected": expected,
                        "surviving_route": route,
                    }
                )

            add("gold-only", members, members)
            for m in members:
                rest = [s for s in members if s.id != m.id]
                kept = [
                    model.spans[s]
                    for s in sorted(everyone)
                    if not model.covers(model.spans[s], m) and not model.covers(m, model.spans[s])
                ]
                add("hop-removal", kept, kept, member=m.id)
                if rest:
                    add("citation-restriction", members, rest, member=m.id)
                else:
                    result.inapplicable["citation-restriction"] += 1
                claim_records = sorted(records.get(claim, []), key=lambda k: k["id"])
                if not claim_records:
                    result.inapplicable["contradiction"] += 1
                for k in claim_records:
                    r = model.spans[k["span"]]
                    context = [*rest, r]
                    add("contradiction", context, context, member=m.id, replacement=r)
                others = _temporal_replacements(model, m, evaluation, applies_at)
                if not others:
                    result.inapplicable["temporal"] += 1
                for r in others:
                    context = [*rest, r]
                    add("temporal", context, context, member=m.id, replacement=r)
                add("permission", members, rest, member=m.id, unreadable=True)
                result.inapplicable["identity"] += 1
    return result
