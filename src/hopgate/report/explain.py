"""The answer to "why": each verdict rule in one sentence, and a card's decision step by step.

Which rule decided a card is read from the store (``queries/report-cards.rq``);
which members were admissible, covered and missing likewise
(``report-spans.rq``, ``report-span-texts.rq``, ``report-coverage.rq``). This module
only words them, citing the section of the acceptance semantics each step applies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, cast

from hopgate import ids
from hopgate.audit import results
from hopgate.audit.withholding import reader_view
from hopgate.errors import ExplainError
from hopgate.report.data import collect_cards, output_run, resolve_evaluation
from hopgate.report.sentences import (
    ADMISSIBILITY,
    SOURCE_TRUTH,
    citation,
    ids_text,
    member_truth_sentence,
    reason,
    route_authority_sentence,
    section,
)

if TYPE_CHECKING:
    from hopgate.audit.results import VerdictRow
    from hopgate.report.data import CardDetail, EvidenceSetInfo
    from hopgate.store import Store


@dataclass(frozen=True)
class Step:
    """One step of a decision in words, with the section of the semantics it applies."""

    step: str
    sentence: str
    spec: str


@dataclass
class Explanation:
    """A card's decision as sentences, in the order the semantics decides."""

    run: str
    evaluation: str
    reader: str
    output: str
    verdict: str
    reason: str
    steps: list[Step] = field(default_factory=list)
    stale: bool = False
    stale_reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of ``hopgate explain``."""
        return asdict(self)


def _quoted(text: str | None) -> str:
    return f' "{text}"' if text else ""


ELIGIBILITY = section("Eligibility")
PER_OUTPUT = section("Per output claim")
COVERAGE = section("Coverage")
INTERVENTIONS = 'docs/spec/interventions.md "Cards and figures"'


def _set_sentence(evidence: EvidenceSetInfo) -> str:
    if evidence.eligible:
        members = ids_text([m.id for m in evidence.members])
        return (
            f"Evidence set {evidence.id} ({evidence.status}, {len(evidence.members)} member(s): "
            f"{members}) is eligible: it is adjudicated and every member is admissible."
        )
    if evidence.status != "adjudicated":
        return (
            f"Evidence set {evidence.id} is not eligible: its status is {evidence.status}, "
            "not adjudicated."
        )
    failures = [
        f"{member.id} (rule {ADMISSIBILITY[flag][0]}: {ADMISSIBILITY[flag][1]})"
        for member in evidence.members
        for flag in member.failed
    ]
    return f"Evidence set {evidence.id} is not eligible: member " + "; member ".join(failures) + "."


_ANSWERABILITY = {
    "answerable": "Claim {claim} is answerable: it has an eligible evidence set.",
    "blocked": "Claim {claim} is blocked for the evaluation's reader: an adjudicated set would "
    "be eligible but for who may read it.",
    "not found": "Claim {claim} is not found: no adjudicated set passes rules 1-3.",
    "not applicable": "Claim {claim} is not applicable for this evaluation, as the ledger "
    "says, decided before eligibility (no set of it is weighed): {reason}.",
}


def steps(card: CardDetail) -> list[Step]:
    """The decision of one card, a sentence per step (see :class:`Explanation`)."""
    row = card.row
    found: list[Step] = []

    def add(step: str, sentence: str, spec: str) -> None:
        found.append(Step(step, sentence, spec))

    said = (
        f"Output {row.output}{_quoted(card.output_text)} answers question "
        f"{row.question}{_quoted(card.question_text)}"
    )
    if row.claim is None:
        add("claim", f"{said} and asserts no reference claim.", PER_OUTPUT)
    else:
        weight = "a consequential" if row.consequential else "a"
        claim = f"{row.claim}{_quoted(card.claim_text)}"
        add("claim", f"{said} and asserts {weight} claim {claim}.", section("Terms"))
    for evidence in card.sets:
        if row.not_applicable:
            # Decided before eligibility: no set of the claim is weighed.
            add(
                "eligibility",
                f"Evidence set {evidence.id} is not weighed: its claim is not applicable for "
                "this evaluation.",
                section("Not applicable"),
            )
        else:
            add("eligibility", _set_sentence(evidence), ELIGIBILITY)
    if row.claim is not None:
        answerability = row.answerability or "not decided"
        template = _ANSWERABILITY.get(answerability, "Claim {claim} is " + answerability + ".")
        sentence = template.format(claim=row.claim, reason=row.not_applicable_reason or "-")
        where = section("Not applicable") if row.not_applicable else ELIGIBILITY
        add("answerability", sentence, where)
    for cited in card.delivered:
        covers = card.covered_by_citation.get(cited.id, [])
        what = "; ".join(f"member {m} of {s}" for s, m in covers) or "no member of any set"
        add("coverage", f"Citation {cited.id} covers {what}.", COVERAGE)
    if not card.delivered:
        add("coverage", "The output cites nothing.", COVERAGE)
    if row.retrieved_route:
        add(
            "retrieval",
            f"The case's retrieved spans contain eligible set {row.retrieved_route} "
            "(retrieved_complete).",
            PER_OUTPUT,
        )
    elif row.claim is not None:
        add("retrieval", "The case's retrieved spans contain no eligible set.", PER_OUTPUT)
    for hop in card.missing:
        add("missing", f"Missing hop {hop.id}: {hop.describe()}.", PER_OUTPUT)
    for bad in card.inadmissible:
        rules = "; ".join(f"rule {ADMISSIBILITY[f][0]}: {ADMISSIBILITY[f][1]}" for f in bad.failed)
        add("inadmissible", f"Citation {bad.id} is inadmissible ({rules}).", ELIGIBILITY)
    if row.unretrieved_citations:
        add(
            "unretrieved",
            f"The output cites what its case never retrieved: {ids_text(row.unretrieved_citations)} "
            "(reported beside the verdict, never changing it).",
            PER_OUTPUT,
        )
    for contradiction in card.contradictions:
        add("contradiction", contradiction.describe() + ".", section("Verdict", 1))
    for member in row.source_truth:
        add("source truth", member_truth_sentence(member) + ".", SOURCE_TRUTH)
    add("route authority", route_authority_sentence(row) + ".", SOURCE_TRUTH)
    if row.interventions is not None:
        add("interventions", _interventions_sentence(row.interventions), INTERVENTIONS)
    add("verdict", card.reason, citation(card.rule) or section("Verdict"))
    return found


def _interventions_sentence(item: dict[str, Any]) -> str:
    """The card's interventions item in words: each answered variant, expected against observed."""
    kind = str(item.get("item", "none"))
    variants = item.get("variants") or []
    if kind != "answered" or not variants:
        return f"Interventions: {kind}."
    said = []
    for v in variants:
        member = f" of {v['member']}" if v.get("member") else ""
        agreed = "as expected" if v.get("observed") == v.get("expected") else "not as expected"
        outside = "; cited outside its context" if v.get("cited_outside_context") else ""
        said.append(
            f"{v['variant']}{member} on set {v['set']}: expected {v['expected']}, observed "
            f"{v['observed']} ({agreed}{outside})"
        )
    return "Interventions (never changing the verdict): " + "; ".join(said) + "."


def explain(
    store: Store,
    output: str,
    *,
    run: str | None = None,
    evaluation: str | None = None,
    reader: str | None = None,
) -> Explanation:
    """Why the output claim ``output`` received its verdict, in words, step by step.

    Reads the run's latest evaluation (or ``evaluation``, ``RUN@TIME``); the
    run defaults to the output's. It is for ``reader`` (default: the
    evaluation's reader): no text repeating one withheld from it appears
    (docs/spec/records.md "What a reader is shown").

    Raises:
        ExplainError: the output is unknown or its run has no card for it.
        NotEvaluatedError: the run has never been evaluated.

    Example (``hopgate explain OUTPUT``):
        >>> from hopgate import evaluate, explain, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> found = explain(store, "sys-a/qA/o1")
        >>> found.verdict, found.run
        ('revise-citations', 'sys-a')
        >>> print(found.steps[1].sentence)
        Evidence set gA1 (adjudicated, 2 member(s): a1, a2) is eligible: it is adjudicated and every member is admissible.
    """

    if run is None:
        run = output_run(store, output)
    chosen = resolve_evaluation(store, run=run, evaluation=evaluation, reader=reader)
    # The reader rule is asked once for both its answers (the copy it reads costs most).
    view = reader_view(store, chosen.reader)
    cards = collect_cards(store, chosen, only_output=output, withheld=view.nodes)
    if not cards:
        raise ExplainError(
            f"output {output!r} has no acceptance card in evaluation {chosen.id} of run {run!r}"
        )
    # Texts are withheld before the sentences quote them, and the sentences after.
    withholding = view.withholding
    card = withholding.redact(cards[0])
    found = Explanation(
        run=run,
        evaluation=chosen.id,
        reader=chosen.reader,
        output=output,
        verdict=card.row.verdict,
        reason=card.reason,
        steps=steps(card),
        stale=chosen.stale,
        stale_reason=chosen.stale_reason,
    )
    return withholding.redact(found)


def reasons(reads: results.BundleReads, rows: list[VerdictRow]) -> dict[str, str]:
    """The reason sentence of each of ``rows`` (cards of the bundle ``reads`` reads), by output.

    The gate prints these for the outputs that fail it
    (:func:`hopgate.audit.results.gate`'s ``explain``), from the answers it read
    its rows from: one read of the recorded answers, not two (on a server, each
    is the whole file fetched again), and the same evaluation's.
    """
    if not rows:
        return {}
    # By column: a card IRI decoded one call each was a sixth of `gate` at 10k claims.
    cards, rule_of = reads.columns("report-cards", ("card", "rule"))
    rules = dict(zip(ids.ledger_ids(cast(list[str | None], cards)), map(str, rule_of), strict=True))
    unresolved: dict[str, list[str]] = {}
    for r in reads.select("report-contradictions"):
        if str(r["status"]).endswith("#Unresolved"):
            unresolved.setdefault(ids.ledger_id(str(r["card"])), []).append(
                str(r["contradictionId"])
            )
    return {
        row.output: reason(row, rules.get(row.card), unresolved=unresolved.get(row.card))
        for row in rows
    }
