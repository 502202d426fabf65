"""The pure rules of docs/spec/interventions.md: variants, coverage, outcomes, case identity.

Nothing here reads a store: the planner and the scorer pass spans and sets
in, so the same rules serve the plan, the evaluation and the spec model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The variants of docs/spec/interventions.md "The plan", in the order they are planned.
VARIANTS = (
    "gold-only",
    "hop-removal",
    "citation-restriction",
    "contradiction",
    "temporal",
    "permission",
    "identity",
)
#: Expected outcomes (docs/spec/interventions.md "Expected outcome").
SUPPORTED = "supported answer"
ABSTENTION = "abstention"
#: Observed classes (docs/spec/interventions.md "Observed class").
SUPPORTED_ANSWER = "supported answer"
UNSUPPORTED_SYNTHESIS = "unsupported synthesis"
APPROPRIATE_ABSTENTION = "appropriate abstention"
MISSED_ANSWER = "missed answer"
CLASSES = (SUPPORTED_ANSWER, UNSUPPORTED_SYNTHESIS, APPROPRIATE_ABSTENTION, MISSED_ANSWER)


@dataclass(frozen=True)
class Place:
    """Where a span lies: its id, its version, and its offsets or locator."""

    id: str
    version: str
    start: int | None = None
    end: int | None = None
    locator: str | None = None


def inline_place(span_id: str) -> Place:
    """The place an inline span's id names (``version[start:end]``, ledger.md "Delivered spans").

    Any other id gets a place of its own only: it covers and is covered by
    itself alone.
    """
    version, bracket, rest = span_id.rpartition("[")
    start, colon, end = rest.removesuffix("]").partition(":")
    if bracket and colon and rest.endswith("]") and start.isdigit() and end.isdigit():
        return Place(span_id, version, int(start), int(end))
    return Place(span_id, "")


def covers(delivered: Place, reference: Place) -> bool:
    """acceptance.md "Coverage": ``delivered`` covers ``reference``."""
    if delivered.id == reference.id:
        return True
    if delivered.version != reference.version:
        return False
    if (
        delivered.start is not None
        and delivered.end is not None
        and reference.start is not None
        and reference.end is not None
    ):
        return delivered.start <= reference.start and reference.end <= delivered.end
    return delivered.locator is not None and delivered.locator == reference.locator


def contained(members: Iterable[Place], delivered: Sequence[Place]) -> bool:
    """acceptance.md "Coverage": every member is covered by some delivered span."""
    return all(any(covers(d, m) for d in delivered) for m in members)


def surviving_route(
    eligible: Mapping[str, Sequence[Place]],
    citable: Sequence[Place],
    *,
    unreadable: frozenset[str] = frozenset(),
) -> str | None:
    """The eligible set contained in ``citable`` with fewest members (ties: least id), or None.

    A set with a member made unreadable (``permission``) is not eligible for
    the variant (interventions.md "Expected outcome").
    """
    found = [
        (len(members), set_id)
        for set_id, members in eligible.items()
        if not any(m.id in unreadable for m in members) and contained(members, citable)
    ]
    return min(found)[1] if found else None


def ineligible_members(
    variant: str, member: str | None, *, replacement_inadmissible: bool
) -> frozenset[str]:
    """The members no set eligible for a variant may hold (interventions.md "Expected
    outcome"): the member made unreadable (``permission``, rule 4), or the member
    replaced by a replacement that fails a rule among 1-4 for the claim, whose
    admissibility it takes ("Edge cases", replacement)."""
    if member is not None and (variant == "permission" or replacement_inadmissible):
        return frozenset({member})
    return frozenset()


def expected(route: str | None) -> str:
    """The expected outcome of a variant whose surviving route is ``route``."""
    return SUPPORTED if route is not None else ABSTENTION


def observed(asserts: bool, supported: bool, expected_outcome: str) -> str:
    """interventions.md "Observed class"."""
    if asserts:
        return SUPPORTED_ANSWER if supported else UNSUPPORTED_SYNTHESIS
    return APPROPRIATE_ABSTENTION if expected_outcome == ABSTENTION else MISSED_ANSWER


def agrees(observed_class: str, expected_outcome: str) -> bool:
    """Whether the observed class is the expected one."""
    if expected_outcome == SUPPORTED:
        return observed_class == SUPPORTED_ANSWER
    return observed_class == APPROPRIATE_ABSTENTION


__all__ = [
    "ABSTENTION",
    "APPROPRIATE_ABSTENTION",
    "CLASSES",
    "MISSED_ANSWER",
    "SUPPORTED",
    "SUPPORTED_ANSWER",
    "UNSUPPORTED_SYNTHESIS",
    "VARIANTS",
    "Place",
    "agrees",
    "contained",
    "covers",
    "expected",
    "inline_place",
    "observed",
    "surviving_route",
]
