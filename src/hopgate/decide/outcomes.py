"""Score the answered variants of a run inside its evaluation (docs/spec/interventions.md).

The evaluation's step ``evaluation-interventions`` (queries/, listed in
hopgate.library.steps) returns, per intervention case, its variant, the eligible
sets of its claim, the spans supplied and citable, and the spans each
output asserting the claim cites; :func:`classify` applies the rules of
:mod:`hopgate.decide.variants` and :func:`outcome_lines` writes one
``hg:InterventionOutcome`` per answered variant into the bundle. Intervention
cases never enter the plain metrics: no other step reads them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.decide.variants import (
    ABSTENTION,
    APPROPRIATE_ABSTENTION,
    MISSED_ANSWER,
    SUPPORTED,
    UNSUPPORTED_SYNTHESIS,
    Place,
    agrees,
    covers,
    expected,
    ineligible_members,
    inline_place,
    observed,
    surviving_route,
)
from hopgate.store import IRI, Row, Store
from hopgate.vocab import HG, PROV
from hopgate.vocab import RDF_TYPE as A


@dataclass
class Outcome:
    """One answered variant, classified (interventions.md "Observed class")."""

    case: str
    question: str
    claim: str
    set: str
    variant: str
    member: str | None
    expected: str
    surviving_route: str | None
    observed: str
    correct: bool | None
    cited_outside_context: bool
    output: str | None = None
    replacement: str | None = None
    planned_as: str | None = None
    #: Matched no planned variant with its spans recorded: classified from its own
    #: citable spans, shown, and kept out of the figures (interventions.md "Edge cases").
    unplanned: bool = False


@dataclass(frozen=True)
class PlannedVariant:
    """A variant as the recorded plan holds it (interventions.md "The plan", rule recorded plan).

    ``context`` and ``citable`` are the places of the spans the plan supplied
    and allowed, read from the store, never from the answers; ``recorded`` is
    False for a plan recorded before its spans were (such a plan cannot be
    scored against, so its answers are unplanned).
    """

    iri: str
    context: tuple[Place, ...]
    citable: tuple[Place, ...]
    recorded: bool


@dataclass
class _Case:
    row: Row
    eligible: dict[str, list[Place]] = field(default_factory=lambda: defaultdict(list))
    context: list[Place] = field(default_factory=list)
    citable: list[Place] = field(default_factory=list)
    cited: dict[str, list[Place]] = field(default_factory=lambda: defaultdict(list))
    #: None: nobody judged the answer (kept beside its class, never folded into it).
    correct: dict[str, bool | None] = field(default_factory=dict)


def _place(row: Row) -> Place | None:
    if row["spanId"] is None or row["versionId"] is None:
        return None

    def number(name: str) -> int | None:
        value = row[name]
        return int(value) if isinstance(value, int | float) else None

    locator = row["locator"]
    return Place(
        str(row["spanId"]),
        str(row["versionId"]),
        number("start"),
        number("end"),
        str(locator) if locator is not None else None,
    )


def classify(rows: list[Row], plans: Mapping[tuple[str, ...], PlannedVariant]) -> list[Outcome]:
    """Classify every intervention case in the rows of ``evaluation-interventions``.

    An answer to a planned variant (``plans``, from :func:`planned`) is
    classified against the context and citable spans the recorded plan holds,
    whatever its own case says it was given (interventions.md "Observed
    class"); any other answer is unplanned.
    """
    cases: dict[str, _Case] = {}
    eligible: dict[str, dict[str, list[Place]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        kind = str(row["kind"])
        place = _place(row)
        if kind == "eligible":  # once per claim
            members = eligible[str(row["claim"])][str(row["outputId"])]
            if place is not None and place not in members:
                members.append(place)
            continue
        case = cases.setdefault(str(row["case"]), _Case(row))
        if kind == "case":
            case.row = row
        if kind == "cited":
            output = str(row["outputId"])
            case.correct[output] = bool(row["correct"]) if row["correct"] is not None else None
            case.cited.setdefault(output, [])
            if place is not None and place not in case.cited[output]:
                case.cited[output].append(place)
        elif place is None:
            continue
        elif kind == "context" and place not in case.context:
            case.context.append(place)
        elif kind == "citable" and place not in case.citable:
            case.citable.append(place)
    for case in cases.values():
        case.eligible = eligible[str(case.row["claim"])]
    return [
        _outcome(iri, case, plans.get(_row_key(case.row))) for iri, case in sorted(cases.items())
    ]


def _row_key(row: Row) -> tuple[str, ...]:
    """The key of :func:`planned` for a case row of ``evaluation-interventions``."""
    return tuple(
        str(row[name]) if row[name] is not None else ""
        for name in ("question", "claim", "set", "variant", "member", "replacement")
    )


def _outcome(iri: str, case: _Case, plan: PlannedVariant | None) -> Outcome:
    row = case.row
    member = ids.ledger_id(str(row["member"])) if row["member"] is not None else None
    variant = str(row["variant"])
    unplanned = plan is None or not plan.recorded
    if plan is not None and plan.recorded:
        # Rule recorded plan: what the system was given and allowed is what the
        # plan recorded; an answers file's own citable and retrieved lists are
        # claims of whoever wrote it (docs/security.md).
        context, citable = list(plan.context), list(plan.citable)
    else:
        context, citable = case.context, case.citable or case.context
    unreadable = ineligible_members(
        variant, member, replacement_inadmissible=row["inadmissible"] is not None
    )
    route = surviving_route(case.eligible, citable, unreadable=unreadable)
    expect = expected(route)
    # Several outputs asserting the claim: the first (by id) is classified.
    output = min(case.cited) if case.cited else None
    supported, correct, outside = False, None, False
    if output is not None:
        cited = case.cited[output]
        allowed = [d for d in cited if any(covers(c, d) for c in citable)]
        supported = surviving_route(case.eligible, allowed, unreadable=unreadable) is not None
        correct = case.correct[output]
        outside = any(not any(covers(c, d) for c in context) for d in cited)
    return Outcome(
        iri,
        ids.ledger_id(str(row["question"])),
        ids.ledger_id(str(row["claim"])),
        ids.ledger_id(str(row["set"])),
        variant,
        member,
        expect,
        route,
        observed(output is not None, supported, expect),
        correct,
        outside,
        output,
        str(row["replacement"]) if row["replacement"] is not None else None,
        planned_as=None if unplanned or plan is None else plan.iri,
        unplanned=unplanned,
    )


def outcome_lines(outcome: Outcome, node: str, activity: str) -> list[str]:
    """The N-Triples lines (without graph) recording ``outcome`` as ``node``."""
    s = nt.iri(node)
    lines = [
        f"{s} <{A}> <{PROV}Entity>",
        f"{s} <{A}> <{HG}InterventionOutcome>",
        f"{s} <{PROV}wasGeneratedBy> {nt.iri(activity)}",
        f"{s} <{HG}outcomeOf> {nt.iri(outcome.case)}",
        f"{s} <{HG}interventionQuestion> {nt.iri(ids.mint('question', outcome.question))}",
        f"{s} <{HG}selectedSet> {nt.iri(ids.mint('set', outcome.set))}",
        f"{s} <{HG}variant> {nt.string(outcome.variant)}",
        f"{s} <{HG}expectedOutcome> {nt.string(outcome.expected)}",
        f"{s} <{HG}observedClass> {nt.string(outcome.observed)}",
        f"{s} <{HG}citedOutsideContext> {nt.boolean(outcome.cited_outside_context)}",
    ]
    if outcome.member is not None:
        lines.append(f"{s} <{HG}interventionMember> {nt.iri(ids.mint('span', outcome.member))}")
    if outcome.surviving_route is not None:
        route = ids.mint("set", outcome.surviving_route)
        lines.append(f"{s} <{HG}survivingRoute> {nt.iri(route)}")
    if outcome.correct is not None:
        lines.append(f"{s} <{HG}outcomeCorrect> {nt.boolean(outcome.correct)}")
    if outcome.replacement is not None:
        lines.append(f"{s} <{HG}replacement> {nt.iri(outcome.replacement)}")
    if outcome.planned_as is not None:
        lines.append(f"{s} <{HG}plannedAs> {nt.iri(outcome.planned_as)}")
    if outcome.unplanned:
        lines.append(f"{s} <{HG}unplanned> {nt.boolean(True)}")
    return lines


#: The card's interventions item (interventions.md "Cards and figures", rule card item).
ANSWERED = "answered"
PLANNED_NOT_RUN = "planned, not run"
NONE = "none"

#: The variants every recorded plan of a run planned, one row each.
_PLANNED = (
    "SELECT ?v ?question ?claim ?set ?variant ?member ?replacement ?count WHERE {"
    " ?plan a hg:InterventionPlan ; hg:planOf ?run ."
    " ?v hg:partOfPlan ?plan ; hg:interventionQuestion ?question ; hg:interventionClaim ?claim ;"
    " hg:selectedSet ?set ; hg:variant ?variant ."
    " OPTIONAL { ?v hg:interventionMember ?member } OPTIONAL { ?v hg:replacement ?replacement }"
    " OPTIONAL { ?v hg:plannedCitableCount ?count } }"
)
#: The spans those variants planned (context and citable), each with its place. Asked
#: apart from the variants: written as one query, the places' lookups nested in an
#: OPTIONAL over the spans' UNION, Oxigraph evaluated them again for every variant
#: (more than 8 minutes for the 11.5k variants of a 1k-claim plan; 3 s apart).
_PLANNED_SPANS = (
    "SELECT ?v ?kind ?span ?spanId ?versionId ?start ?end ?locator WHERE {"
    " ?plan a hg:InterventionPlan ; hg:planOf ?run ."
    " ?v hg:partOfPlan ?plan ."
    ' { ?v hg:plannedContext ?span BIND ("context" AS ?kind) }'
    ' UNION { ?v hg:plannedCitable ?span BIND ("citable" AS ?kind) }'
    " OPTIONAL { ?span hg:ledgerId ?spanId ; prov:wasQuotedFrom ?version ."
    " ?version hg:ledgerId ?versionId }"
    " OPTIONAL { ?span oa:hasSelector ?position . ?position oa:start ?start ; oa:end ?end }"
    " OPTIONAL { ?span oa:hasSelector ?locatorNode . ?locatorNode rdf:value ?locator } }"
)


def planned(store: Store, run: str) -> dict[tuple[str, ...], PlannedVariant]:
    """The variants every recorded plan of ``run`` planned: key -> the planned variant.

    The key is (question, claim, set, variant, member, replacement) as IRIs
    ("" when absent); the latest plan's node wins when several plan the same.
    Each planned span's place is read from the store (an inline replacement
    no answer delivered yet is placed by its id, ``version[start:end]``).
    """
    variants: dict[str, tuple[tuple[str, ...], bool, dict[str, list[Place]]]] = {}
    params = {"run": IRI(ids.mint("run", run))}
    for row in store.select(_PLANNED, params=params):
        node = str(row["v"])
        if node not in variants:
            key = tuple(
                str(row[name]) if row[name] is not None else ""
                for name in ("question", "claim", "set", "variant", "member", "replacement")
            )
            variants[node] = (key, row["count"] is not None, {"context": [], "citable": []})
    for row in store.select(_PLANNED_SPANS, params=params):
        node = str(row["v"])
        if node not in variants:
            continue  # a variant without all of its facts: not planned (as in _PLANNED)
        span_id = ids.ledger_id(str(row["span"]))
        place = _place(row) or inline_place(span_id)
        listed = variants[node][2][str(row["kind"])]
        if place not in listed:
            listed.append(place)
    found: dict[tuple[str, ...], PlannedVariant] = {}
    for node in sorted(variants, key=_plan_order):
        key, recorded, spans = variants[node]
        found[key] = PlannedVariant(
            node,
            tuple(sorted(spans["context"], key=lambda p: p.id)),
            tuple(sorted(spans["citable"], key=lambda p: p.id)),
            recorded=recorded,
        )
    return found


def _plan_order(node: str) -> tuple[str, int]:
    # A planned variant is <plan>/variant/<n>: by plan (its id holds its time), then n.
    plan, _, number = node.rpartition("/variant/")
    return plan, int(number) if number.isdigit() else 0


def card_item(
    question: str, claim: str | None, answered: set[tuple[str, str]], plans: set[tuple[str, str]]
) -> str:
    """The interventions item of a card for ``claim`` asked by ``question`` (IRIs)."""
    if claim is None:
        return NONE
    if (question, claim) in answered:
        return ANSWERED
    return PLANNED_NOT_RUN if (question, claim) in plans else NONE


@dataclass(frozen=True)
class Figure:
    """A numerator, a denominator and the value (None on an empty denominator)."""

    numerator: int
    denominator: int

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None

    def as_dict(self) -> dict[str, int | float | None]:
        return {"numerator": self.numerator, "denominator": self.denominator, "value": self.value}


def figures(outcomes: list[Outcome]) -> dict[str, dict[str, Figure]]:
    """interventions.md "Cards and figures": per variant (and ``all``), the three figures."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.unplanned:
            continue  # shown on its card, never in the figures (interventions.md "Edge cases")
        groups[outcome.variant].append(outcome)
        groups["all"].append(outcome)
    result = {}
    for variant, group in sorted(groups.items()):
        abstain = [o for o in group if o.expected == ABSTENTION]
        answer = [o for o in group if o.expected == SUPPORTED]
        result[variant] = {
            "outcome agreement": Figure(
                sum(agrees(o.observed, o.expected) for o in group), len(group)
            ),
            "unsupported-synthesis rate": Figure(
                sum(o.observed == UNSUPPORTED_SYNTHESIS for o in abstain), len(abstain)
            ),
            "missed-answer rate": Figure(
                sum(o.observed == MISSED_ANSWER for o in answer), len(answer)
            ),
        }
    return result


def _from_row(row: Row) -> Outcome:
    def opt(name: str) -> str | None:
        return ids.ledger_id(str(row[name])) if row[name] is not None else None

    return Outcome(
        str(row["case"]),
        ids.ledger_id(str(row["question"])),
        "",
        ids.ledger_id(str(row["set"])),
        str(row["variant"]),
        opt("member"),
        str(row["expected"]),
        opt("route"),
        str(row["observed"]),
        bool(row["correct"]) if row["correct"] is not None else None,
        bool(row["outside"]),
        replacement=opt("replacement"),
        unplanned=bool(row["unplanned"]),
    )


def entry(outcome: Outcome) -> dict[str, object]:
    """One variant of a card's interventions item, as ``verdicts --format json`` shows it."""
    return {
        "variant": outcome.variant,
        "set": outcome.set,
        "member": outcome.member,
        "replacement": outcome.replacement,
        "expected": outcome.expected,
        "surviving_route": outcome.surviving_route,
        "observed": outcome.observed,
        "correct": outcome.correct,
        "cited_outside_context": outcome.cited_outside_context,
    }


def read_bundle(rows: list[Row]) -> tuple[dict[str, dict[str, object]], list[Outcome]]:
    """From the rows of queries/interventions.rq: each card's item, and every outcome."""
    cards: dict[str, dict[str, object]] = {}
    outcomes: list[Outcome] = []
    for row in rows:
        if row["kind"] == "outcome":
            if row["case"] is not None:
                outcomes.append(_from_row(row))
            continue
        card = cards.setdefault(str(row["card"]), {"item": str(row["item"]), "variants": []})
        if row["case"] is not None:
            variants = card["variants"]
            assert isinstance(variants, list)
            variants.append(entry(_from_row(row)))
    for card in cards.values():
        variants = card["variants"]
        assert isinstance(variants, list)
        variants.sort(key=lambda e: json_key(e))
    return cards, outcomes


def json_key(value: object) -> str:
    """A total order on JSON-like values (for stable output)."""
    import json

    return json.dumps(value, sort_keys=True, default=str)


def recorded(store: Store, bundle: str) -> list[Outcome]:
    """The outcomes an evaluation bundle records (a read: it never evaluates)."""

    rows = store.select(
        "SELECT ?o ?case ?question ?set ?variant ?member ?expected ?route ?observed ?correct"
        " ?outside ?unplanned WHERE { GRAPH ?bundle { ?o a hg:InterventionOutcome ; hg:outcomeOf ?case ;"
        " hg:interventionQuestion ?question ; hg:selectedSet ?set ; hg:variant ?variant ;"
        " hg:expectedOutcome ?expected ; hg:observedClass ?observed ;"
        " hg:citedOutsideContext ?outside ."
        " OPTIONAL { ?o hg:interventionMember ?member } OPTIONAL { ?o hg:survivingRoute ?route }"
        " OPTIONAL { ?o hg:outcomeCorrect ?correct } OPTIONAL { ?o hg:unplanned ?unplanned } } }"
        " ORDER BY ?case",
        params={"bundle": IRI(bundle)},
    )
    out = []
    for row in rows:
        out.append(
            Outcome(
                str(row["case"]),
                ids.ledger_id(str(row["question"])),
                "",
                ids.ledger_id(str(row["set"])),
                str(row["variant"]),
                ids.ledger_id(str(row["member"])) if row["member"] is not None else None,
                str(row["expected"]),
                ids.ledger_id(str(row["route"])) if row["route"] is not None else None,
                str(row["observed"]),
                bool(row["correct"]) if row["correct"] is not None else None,
                bool(row["outside"]),
                unplanned=bool(row["unplanned"]),
            )
        )
    return out


__all__ = [
    "ANSWERED",
    "APPROPRIATE_ABSTENTION",
    "NONE",
    "PLANNED_NOT_RUN",
    "PlannedVariant",
    "card_item",
    "entry",
    "read_bundle",
    "planned",
    "Figure",
    "Outcome",
    "classify",
    "figures",
    "outcome_lines",
    "recorded",
]
