"""One sentence per verdict rule, each citing the spec section it applies.

The rule ids are those of ``queries/report-cards.rq``; the sentences are shared by
``explain``, the report's cards and its pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hopgate.audit.results import VerdictRow

SPEC = "docs/spec/acceptance.md"


def section(name: str, rule: int | None = None) -> str:
    """A citation of a section of the acceptance semantics (and a numbered rule in it)."""
    return f'{SPEC} "{name}"' + (f", rule {rule}" if rule is not None else "")


#: rule id (queries/report-cards.rq) -> (verdict, the spec's numbered verdict rule).
RULES: dict[str, tuple[str, int]] = {
    "extra-assertion": ("escalate", 1),
    "unresolved-contradiction": ("escalate", 1),
    "proposed-set-cited": ("escalate", 1),
    "correctness-unknown": ("escalate", 1),
    "blocked": ("abstain", 2),
    "not-found": ("abstain", 2),
    "not-applicable": ("abstain", 2),
    "judged-incorrect": ("reject", 3),
    "citation-complete": ("accept", 4),
    "citation-incomplete": ("revise-citations", 5),
}

#: The rules a final boundary judgment applies to an extra assertion, by rule id
#: (queries/report-cards.rq) -> verdict; they cite :data:`BOUNDARY_RULE`.
BOUNDARY: dict[str, str] = {
    "boundary-new-claim": "escalate",
    "boundary-not-a-claim": "accept",
    "boundary-unsupported": "reject",
}
BOUNDARY_RULE = 'docs/spec/adjudication.md "Effect on scoring", rule boundary'

#: The admissibility rules of "Eligibility", by the flag report-span-texts.rq (rules 1, 2
#: and 4) or report-spans.rq (rule 3) returns.
ADMISSIBILITY: dict[str, tuple[int, str]] = {
    "late": (1, "its version was observed after the evaluation's observation cutoff"),
    "invalidated": (2, "its version was invalidated at or before the cutoff"),
    "untimely": (3, "the claim's applicable time lies outside its version's effective interval"),
    "unreadable": (4, "the evaluation's reader may not inspect it"),
}


def ids_text(values: list[str]) -> str:
    """Ids joined by commas, or a dash for none."""
    return ", ".join(values) if values else "-"


def citation(rule: str | None) -> str | None:
    """The spec rule a verdict rule id (queries/report-cards.rq) applies; None for none."""
    if rule in BOUNDARY:
        return BOUNDARY_RULE
    return section("Verdict", RULES[rule][1]) if rule in RULES else None


def _boundary_text(row: VerdictRow, rule: str) -> str:
    judged = [j["id"] for j in row.judgments if j.get("question") == "boundary" and j.get("id")]
    by = f"the final boundary judgment {judged[0]}" if judged else "a final boundary judgment"
    if rule == "boundary-new-claim":
        return (
            f"it asserts no reference claim, and {by} recorded it as a new claim for "
            "annotation, so it escalates until a reference claim exists for it"
        )
    if rule == "boundary-not-a-claim":
        return f"it asserts no reference claim, and {by} found it is not a claim"
    return f"it asserts no reference claim, and {by} found it unsupported"


def reason(row: VerdictRow, rule: str | None, *, unresolved: list[str] | None = None) -> str:
    """The one sentence saying why ``row`` received its verdict, with the spec rule it applied.

    ``rule`` is the rule id of ``queries/report-cards.rq``; ``unresolved``
    names the unresolved contradictions when there are any.
    """
    claim = row.claim or "-"
    where = citation(rule)
    text: str
    if rule in BOUNDARY:
        text = _boundary_text(row, rule)
    elif rule == "extra-assertion":
        text = "it asserts no reference claim, so it is an unreviewed extra assertion"
    elif rule == "unresolved-contradiction":
        named = f" ({ids_text(unresolved)})" if unresolved else ""
        text = f"claim {claim} has an unresolved contradiction{named}"
    elif rule == "proposed-set-cited":
        text = "its citations contain a proposed evidence set but no eligible one"
    elif rule == "correctness-unknown":
        text = (
            f"claim {claim} is answerable but nobody judged whether the output is correct "
            "(correctness unknown), so it waits for a judgment"
        )
    elif rule == "blocked":
        # The verdict names what the system should have done; the output is an answer, and
        # the sentence says so, lest "Abstain" read as "the system abstained".
        text = (
            f"the system answered, but should have abstained: no evidence set of claim {claim} "
            "is eligible for the evaluation's reader, though an adjudicated set would be but "
            "for who may read it (blocked)"
        )
    elif rule == "not-found":
        text = (
            f"the system answered, but should have abstained: claim {claim} has no eligible "
            "evidence set (not found)"
        )
    elif rule == "not-applicable":
        text = (
            f"the system answered, but should have abstained: the ledger marks claim {claim} "
            f"not applicable for this evaluation ({row.not_applicable_reason or 'no reason'})"
        )
    elif rule == "judged-incorrect":
        text = "the output is judged incorrect"
    elif rule == "citation-complete":
        text = f"its citations contain the eligible evidence set {row.cited_route or '-'}"
    elif rule == "citation-incomplete":
        text = (
            f"it is judged correct and claim {claim} is answerable, but its citations leave out "
            f"{ids_text(row.missing)} of the nearest eligible set"
        )
    else:
        text = "no rule of the acceptance semantics was recorded for it"
    verdict = row.verdict.capitalize()
    return f"{verdict}: {text} ({where})." if where else f"{verdict}: {text}."


SOURCE_TRUTH = section("Source truth")


def interval_text(start: str | None, until: str | None) -> str:
    """A version's effective interval in words (a missing bound is open)."""
    if start is None and until is None:
        return "effective at any time"
    return f"effective from {start or 'any time'} until {until or 'open'}"


def member_truth_sentence(member: dict[str, str | None]) -> str:
    """One member of a card's weighed route: its source truth in one sentence."""
    basis = member["basis"]
    where = f" ({member['basis_from']})" if member.get("basis_from") else ""
    return (
        f"Member {member['span']} quotes {member['version']} of source {member['source']} "
        f"(authority {member['authority']}; observed {member['observed_at']}, "
        f"{interval_text(member['effective_from'], member['effective_until'])}); "
        f'basis for accepting the premise: "{basis}"{where}'
    )


def route_authority_sentence(row: VerdictRow) -> str:
    """The card's route authority in one sentence, saying it never changes the verdict."""
    if row.weighed_route is None:
        return (
            "Route authority: unstated (the card weighs no route); support is not truth, "
            "and this never changes the verdict"
        )
    return (
        f"Route authority: {row.route_authority}, the weakest among the members of route "
        f"{row.weighed_route}; support is not truth, and this never changes the verdict"
    )


def authority_reason(row: VerdictRow, require: str) -> str:
    """Why an accepted output fails a gate that requires an authority (``require``)."""
    needed = "primary" if require == "primary" else "primary or secondary"
    return (
        f"Accept, but its route authority is {row.route_authority} and the gate requires "
        f"{needed} (--require-authority {require}; the verdict is unchanged) ({SOURCE_TRUTH})."
    )
