"""Plan the controlled contexts of a run (docs/spec/interventions.md "The plan").

The store answers ``queries/interventions-plan.rq`` (the selected sets, their
members, the contradiction records and the other versions that can replace
a member, and what text the evaluation's reader may see); this module
expands the variants of each selected set, computes each one's expected
outcome and surviving route (:mod:`hopgate.decide.variants`), counts
the variants that do not apply per reason, and records the plan in the
store as a ``prov:Plan`` derived from the evaluation, published through the
catalog as loads and evaluations are.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.decide.variants import (
    VARIANTS,
    Place,
    covers,
    expected,
    ineligible_members,
    surviving_route,
)
from hopgate.errors import InputRefused, PlanError
from hopgate.escaping import json_data
from hopgate.inputs import parse_json, text_lines
from hopgate.library.artefacts import library_query, library_update
from hopgate.library.projection import projection_of
from hopgate.library.steps import SCRATCH_UPDATES
from hopgate.scratch import folder as scratch_folder
from hopgate.store import (
    IRI,
    SCRATCH_SUFFIX,
    Row,
    Store,
    Value,
    catalog,
    snapshots,
)
from hopgate.store.publish import publish_records
from hopgate.times import xsd_datetime
from hopgate.vocab import CATALOG_GRAPH, HG, ID_BASE, PROV
from hopgate.vocab import RDF_TYPE as A

#: Why a variant was not planned, per variant (counted, never silently dropped).
REASONS = {
    "citation-restriction": "the selected set has one member",
    "contradiction": "the claim has no contradiction record",
    "temporal": "no other version of the member's source holds its quote outside the admissible ones",
    "identity": "the ledger provides no identity perturbation",
}


@dataclass(frozen=True)
class PlanResult:
    """A recorded plan: its id, graph, the variants planned and those that did not apply."""

    plan: str
    graph: str
    evaluation: str
    variants: list[dict[str, Any]]
    inapplicable: dict[str, int]


@dataclass
class _Claim:
    question: str
    question_text: str
    claim: str
    answer: str | None = None
    sets: dict[str, list[str]] = field(default_factory=dict)
    contradictions: dict[str, str] = field(default_factory=dict)
    versions: dict[str, list[Place]] = field(default_factory=dict)
    #: An other version's replacement text, None where the evaluation's reader may not see it.
    quotes: dict[str, str | None] = field(default_factory=dict)
    #: Contradiction records' spans that fail a rule among 1-4 for the claim.
    inadmissible: set[str] = field(default_factory=set)


def _place(row: Row) -> Place:
    def number(name: str) -> int | None:
        value = row[name]
        return int(value) if isinstance(value, int | float) else None

    locator = row["locator"]
    return Place(
        str(row["spanId"]) if row["spanId"] is not None else "",
        str(row["versionId"]),
        number("start"),
        number("end"),
        str(locator) if locator is not None else None,
    )


def plan_id(run: str, stamp: str) -> str:
    """The ledger id of a plan of ``run`` made at ``stamp``."""
    return f"{run}@{stamp}"


def plan_iri(plan: str) -> str:
    """The IRI of the plan with ledger id ``plan`` (also its graph's name, plus ``/graph``)."""
    return f"{ID_BASE}intervention-plan/{ids.encode_id(plan)}"


def plan(
    store: Store,
    run: str,
    *,
    evaluation: str | None = None,
    variants: tuple[str, ...] = VARIANTS,
    max_sets: int | None = None,
    record: bool = True,
) -> PlanResult:
    """Plan the interventions of ``run`` from its evaluation and record the plan.

    ``evaluation`` is the ledger id of an evaluation activity of the run
    (``run@stamp``, as ``hopgate metrics`` and ``hopgate diff`` show it); by default its latest,
    which must be current. ``max_sets`` caps the selected sets per claim (the
    smallest first, ties by id).

    Raises:
        PlanError: unknown run or variant, no (current) evaluation.
    """
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise PlanError(f"unknown variant {unknown[0]!r} (variants: {', '.join(VARIANTS)})")
    if run not in catalog.runs(store):
        raise PlanError(f"unknown run {run!r}")
    found = _evaluation(store, run, evaluation)
    rows = _rows(store, run, list(found.used))
    claims = _claims(rows)
    places = {p.id: p for p in (_place(r) for r in rows if r["kind"] != "version")}
    texts = {str(r["spanId"]): r["text"] for r in rows if r["kind"] != "version"}
    stamp = xsd_datetime()
    pid = plan_id(run, stamp)
    planned: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    for key in sorted(claims):
        c = claims[key]
        eligible = {s: [places[m] for m in members] for s, members in c.sets.items()}
        selected = sorted(c.sets, key=lambda s: (len(c.sets[s]), s))
        if max_sets is not None:
            selected = selected[:max_sets]
        for set_id in selected:
            for item in _expand(c, set_id, eligible, places, variants, skipped):
                item["context"] = [
                    {
                        "id": p.id,
                        "version": p.version,
                        "text": None
                        if p.id == item.get("unreadable")
                        else item["texts"].get(p.id, texts.get(p.id)),
                    }
                    for p in item.pop("context_places")
                ]
                item.pop("texts")
                item.pop("unreadable", None)
                planned.append(
                    {
                        "plan": pid,
                        "run": run,
                        "evaluation": found.activity_id,
                        "question": c.question,
                        "question_text": c.question_text,
                        "claim": c.claim,
                        "reference_answer": c.answer,
                        "set": set_id,
                        **item,
                    }
                )
    result = PlanResult(pid, plan_iri(pid) + "/graph", found.activity_id, planned, dict(skipped))
    if record:
        _record(store, run, result, found, stamp)
    return result


@dataclass(frozen=True)
class _Found:
    activity: str
    activity_id: str
    bundle: str
    #: The load graphs the evaluation used (``prov:used``): what the plan is made from.
    used: tuple[str, ...]


def _evaluation(store: Store, run: str, evaluation: str | None) -> _Found:
    recorded = catalog.evaluations(store, run)
    if evaluation is None:
        state = catalog.staleness(store, run)
        # A plan recorded since changes the evaluation's intervention outcomes, not what a
        # plan is made from (its verdicts and the loads it used).
        if state.evaluation is None or (state.stale and not state.by_plan):
            raise PlanError(
                f"run {run!r} has no current evaluation ({state.reason}); "
                f"run `hopgate evaluate --run {run}` first"
            )
        chosen = state.evaluation
    else:
        matches = [e for e in recorded if ids.ledger_id(e.activity) == evaluation]
        if not matches:
            known = ", ".join(ids.ledger_id(e.activity) for e in recorded) or "none"
            raise PlanError(f"run {run!r} has no evaluation {evaluation!r} (evaluations: {known})")
        chosen = matches[-1]
    gone = sorted(set(chosen.used) - set(catalog.load_graphs(store)))
    if gone:
        raise PlanError(
            f"evaluation {ids.ledger_id(chosen.activity)!r} used a load no longer in the "
            f"store ({gone[0]}); plan from a current evaluation"
        )
    return _Found(chosen.activity, ids.ledger_id(chosen.activity), chosen.bundle, chosen.used)


#: The evaluation's updates the plan needs: its own, in its order, up to eligibility.
_PLAN_UPDATES = SCRATCH_UPDATES[: SCRATCH_UPDATES.index("evaluation-eligibility") + 1]


def _rows(store: Store, run: str, used: list[str]) -> list[Row]:
    """queries/interventions-plan.rq on a working copy of the load graphs an evaluation
    ``used``, after the evaluation's eligibility rule.

    The run's records and the adjudication step run first, as in the
    evaluation: eligibility starts from the run's outputs and the claims it
    touches, and reads each set's status in force (docs/spec/adjudication.md).
    Over the graphs the evaluation used, so a plan made from an earlier
    evaluation selects that evaluation's eligible sets, not today's
    (interventions.md "The plan"); published graphs never change.
    """
    updates = [library_update(name).text for name in _PLAN_UPDATES]
    query = library_query("interventions-plan").text
    stamp = xsd_datetime()
    scratch = ids.mint("evaluation-activity", f"{run}@plan-{stamp}") + SCRATCH_SUFFIX
    params: dict[str, Value] = {"run": IRI(ids.mint("run", run)), "scratch": IRI(scratch)}
    graphs = list(used)
    # The other versions of the members' sources, which the temporal variant replaces
    # a member with, may be defined by a ledger the run does not depend on (a later
    # crawl): their graphs too. Without them the variant was planned on a store in
    # memory, which copies every graph, and never on disk.
    graphs += [g for g in _other_versions(store, graphs) if g not in graphs]
    projection = projection_of([*updates, query])
    with snapshots.working_copy(store, projection, graphs) as work:
        try:
            for update in updates:
                work.update(update, params=params)
            return work.select(query, params=params)
        finally:
            work.remove_graph(scratch)


def _other_versions(store: Store, graphs: list[str]) -> list[str]:
    """The load graphs defining a version of a source some version in ``graphs`` is of."""
    if not graphs:
        return []
    listed = " ".join(nt.iri(g) for g in graphs)
    rows = store.select(
        f"SELECT DISTINCT ?g WHERE {{ VALUES ?w {{ {listed} }} "
        f"GRAPH ?w {{ ?version <{PROV}specializationOf> ?source }} "
        f"GRAPH ?g {{ ?other <{PROV}specializationOf> ?source ; <{HG}ledgerId> ?id }} }}"
    )
    loads = set(catalog.load_graphs(store))
    return sorted(str(row["g"]) for row in rows if str(row["g"]) in loads)


def _claims(rows: list[Row]) -> dict[tuple[str, str], _Claim]:
    claims: dict[tuple[str, str], _Claim] = {}
    members: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        question = ids.ledger_id(str(row["question"]))
        key = (question, str(row["claimId"]))
        c = claims.get(key)
        if c is None:
            answer = str(row["answer"]) if row["answer"] is not None else None
            c = claims[key] = _Claim(
                question, str(row["questionText"]), str(row["claimId"]), answer
            )
        kind = str(row["kind"])
        member = str(row["memberId"])
        if kind == "member":
            members[key][str(row["setId"])].add(member)
        elif kind == "contradiction":
            c.contradictions[str(row["recordId"])] = str(row["spanId"])
            if row["inadmissible"] is not None:
                c.inadmissible.add(str(row["spanId"]))
        else:
            start, end = int(row["start"]), int(row["end"])  # type: ignore[arg-type]
            version = str(row["versionId"])
            place = Place(f"{version}[{start}:{end}]", version, start, end)
            if place not in c.versions.setdefault(member, []):
                c.versions[member].append(place)
            c.quotes[place.id] = str(row["text"]) if row["text"] is not None else None
    for key, sets in members.items():
        claims[key].sets = {s: sorted(m) for s, m in sorted(sets.items())}
    return claims


def _expand(
    c: _Claim,
    set_id: str,
    eligible: dict[str, list[Place]],
    places: dict[str, Place],
    variants: tuple[str, ...],
    skipped: Counter[str],
) -> list[dict[str, Any]]:
    """The planned variants of one selected set (interventions.md "The plan")."""
    members = [places[m] for m in c.sets[set_id]]
    out: list[dict[str, Any]] = []

    def add(
        variant: str,
        member: str | None,
        context: list[Place],
        citable: list[Place],
        *,
        replacement: Place | None = None,
        inline: bool = False,
        unreadable: str | None = None,
        inadmissible: bool = False,
        texts: dict[str, Any] | None = None,
    ) -> None:
        excluded = ineligible_members(variant, member, replacement_inadmissible=inadmissible)
        route = surviving_route(eligible, citable, unreadable=excluded)
        item: dict[str, Any] = {"variant": variant}
        if member is not None:
            item["member"] = member
        if replacement is not None:
            item["replacement"] = (
                {"version": replacement.version, "start": replacement.start, "end": replacement.end}
                if inline
                else replacement.id
            )
        item.update(
            context_places=context,
            citable=[p.id for p in citable],
            expected=expected(route),
            surviving_route=route,
            texts=texts or {},
        )
        if unreadable is not None:
            item["unreadable"] = unreadable
        out.append(item)

    if "gold-only" in variants:
        add("gold-only", None, members, members)
    everyone = sorted({p for ms in eligible.values() for p in ms}, key=lambda p: p.id)
    for m in members:
        rest = [p for p in members if p.id != m.id]
        if "hop-removal" in variants:
            context = [p for p in everyone if not covers(p, m) and not covers(m, p)]
            add("hop-removal", m.id, context, context)
        if "citation-restriction" in variants:
            if rest:
                add("citation-restriction", m.id, members, rest)
            else:
                skipped[f"citation-restriction: {REASONS['citation-restriction']}"] += 1
        if "contradiction" in variants:
            if not c.contradictions:
                skipped[f"contradiction: {REASONS['contradiction']}"] += 1
            for record in sorted(c.contradictions):
                r = places[c.contradictions[record]]
                context = [r if p.id == m.id else p for p in members]
                add(
                    "contradiction",
                    m.id,
                    context,
                    context,
                    replacement=r,
                    inadmissible=r.id in c.inadmissible,
                )
        if "temporal" in variants:
            others = c.versions.get(m.id, [])
            if not others:
                skipped[f"temporal: {REASONS['temporal']}"] += 1
            for r in others:
                context = [r if p.id == m.id else p for p in members]
                add(
                    "temporal",
                    m.id,
                    context,
                    context,
                    replacement=r,
                    inline=True,
                    # Another version holding the quote that fails a rule among 1-3
                    # for the claim (interventions-plan.rq): never admissible.
                    inadmissible=True,
                    texts={r.id: c.quotes[r.id]},
                )
        if "permission" in variants:
            add("permission", m.id, members, rest, unreadable=m.id)
        if "identity" in variants:
            skipped[f"identity: {REASONS['identity']}"] += 1
    return out


def _record(store: Store, run: str, result: PlanResult, found: _Found, stamp: str) -> None:
    """Write the plan graph, then the catalog entry that publishes it."""
    node = plan_iri(result.plan)
    graph = result.graph
    activity = node + "/planning"
    p = nt.iri(node)
    lines = [
        f"{p} <{A}> <{PROV}Plan>",
        f"{p} <{A}> <{PROV}Entity>",
        f"{p} <{A}> <{HG}InterventionPlan>",
        f"{p} <{HG}ledgerId> {nt.string(result.plan)}",
        f"{p} <{HG}planOf> {nt.iri(ids.mint('run', run))}",
        f"{p} <{PROV}wasDerivedFrom> {nt.iri(found.bundle)}",
        f"{p} <{PROV}wasGeneratedBy> {nt.iri(activity)}",
    ]
    for number, item in enumerate(result.variants):
        v = nt.iri(f"{node}/variant/{number + 1}")
        lines += [
            f"{v} <{A}> <{HG}PlannedVariant>",
            f"{v} <{HG}partOfPlan> {p}",
            f"{v} <{HG}interventionQuestion> {nt.iri(ids.mint('question', item['question']))}",
            f"{v} <{HG}interventionClaim> {nt.iri(ids.mint('claim', item['claim']))}",
            f"{v} <{HG}selectedSet> {nt.iri(ids.mint('set', item['set']))}",
            f"{v} <{HG}variant> {nt.string(item['variant'])}",
            f"{v} <{HG}expectedOutcome> {nt.string(item['expected'])}",
        ]
        if "member" in item:
            lines.append(f"{v} <{HG}interventionMember> {nt.iri(ids.mint('span', item['member']))}")
        replacement = item.get("replacement")
        if isinstance(replacement, dict):  # an inline span's id (docs/spec/ledger.md)
            replacement = f"{replacement['version']}[{replacement['start']}:{replacement['end']}]"
        if replacement is not None:
            lines.append(f"{v} <{HG}replacement> {nt.iri(ids.mint('span', replacement))}")
        if item["surviving_route"] is not None:
            lines.append(
                f"{v} <{HG}survivingRoute> {nt.iri(ids.mint('set', item['surviving_route']))}"
            )
        # What the variant supplies and allows, recorded so that its answers are
        # scored against the plan, never against what an answers file says
        # (interventions.md "The plan", rule recorded plan).
        for span in dict.fromkeys(c["id"] for c in item["context"]):
            lines.append(f"{v} <{HG}plannedContext> {nt.iri(ids.mint('span', span))}")
        for span in dict.fromkeys(item["citable"]):
            lines.append(f"{v} <{HG}plannedCitable> {nt.iri(ids.mint('span', span))}")
        lines.append(f"{v} <{HG}plannedCitableCount> {nt.integer(len(set(item['citable'])))}")
    g = f" <{graph}> .\n"
    catalog_lines = [
        f"<{graph}> <{A}> <{PROV}Bundle>",
        f"<{graph}> <{A}> <{PROV}Entity>",
        f"<{graph}> <{PROV}wasGeneratedBy> {nt.iri(activity)}",
        f"{nt.iri(activity)} <{A}> <{PROV}Activity>",
        f"{nt.iri(activity)} <{A}> <{HG}InterventionPlanning>",
        f"{nt.iri(activity)} <{PROV}used> {nt.iri(found.bundle)}",
        f"{nt.iri(activity)} <{PROV}endedAtTime> {nt.datetime(stamp)}",
    ]
    snapshots.discard_unpublished(store)
    with scratch_folder("plan") as scratch:
        graph_file = scratch / "plan.nq"
        graph_file.write_text("".join(line + g for line in lines), encoding="utf-8")
        catalog_file = scratch / "catalog.nq"

        def entry(kept: list[str]) -> Path:
            catalog_file.write_text(
                "".join(f"{line} <{CATALOG_GRAPH}> .\n" for line in catalog_lines + kept),
                encoding="utf-8",
            )
            return catalog_file

        # A plan's variants are spans the reader rule reads, like a load's.
        publish_records(store, graph, graph_file, catalog_entry=entry, kind="plan", trusted=True)


def write_plan(result: PlanResult, path: Path) -> None:
    """Write one JSON line per planned variant."""
    with path.open("w", encoding="utf-8") as out:
        for item in result.variants:
            out.write(json_data(item) + "\n")


def read_plan(path: Path) -> list[dict[str, Any]]:
    """Read a plan written by :func:`write_plan`.

    Raises:
        PlanError: a line is not a JSON object with the fields of a planned variant.
    """
    items = []
    try:
        # Lines end at LF only: a context text may hold U+2028 or U+0085 (the plan is
        # written with ensure_ascii=False).
        numbered = list(text_lines(path))
    except InputRefused as exc:
        where = f"{exc.record}: " if exc.record else ""
        raise PlanError(f"cannot read the plan {path}: {where}{exc.detail}") from None
    for number, line in numbered:
        try:
            item = parse_json(line, strict=False)
        except json.JSONDecodeError as exc:
            raise PlanError(f"{path}: line {number}: not JSON ({exc})") from exc
        except InputRefused as exc:
            raise PlanError(f"{path}: line {number}: {exc.detail}") from None
        fields = ("run", "question", "set", "variant", "context", "citable")
        missing = [k for k in fields if not isinstance(item, dict) or k not in item]
        if missing:
            raise PlanError(
                f"{path}: line {number}: not a planned variant (missing {missing[0]!r})"
            )
        items.append(item)
    return items


__all__ = ["REASONS", "PlanResult", "plan", "plan_iri", "read_plan", "write_plan"]
