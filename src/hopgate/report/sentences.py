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

#: The admissibility rules of "Eligibility", by the flag report-spans.rq returns.
ADMISSIBILITY: dict[str, tuple[int, str]] = {
    "late": (1, "its version was observed after the evaluation's observation cutoff"),
    "invalidated": (2, "its version was invalidated at or before the cutoff"),
    "untimely": (3, "the claim's applicable time lies outside its version's effective interval"),
    "unreadable": (4, "the evaluation's reader may not inspect it"),
}


def ids_text(values: list[str]) -> str:
    """Ids joined by commas, or a dash for none."""
    return ", ".join(values) if values else "-"


def reason(row: VerdictRow, rule: str | None, *, unresolved: list[str] | None = None) -> str:
    """The one sentence saying why ``row`` received its verdict, with the spec rule it applied.

    ``rule`` is the rule id of ``queries/report-cards.rq``; ``unresolved``
    names the unresolved contradictions when there are any.
    """
    claim = row.claim or "-"
    where = section("Verdict", RULES[rule][1]) if rule in RULES else None
    text: str
    if rule == "extra-assertion":
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
