"""The audit report: one page per run that a review committee reads and signs off.

:func:`build_report` reads one recorded evaluation of a run for one reader
(:mod:`.data`), with its metrics, strata, peer figures, the gate's decision,
each card's reason and picture, and what changed since the run's previous
evaluation (:mod:`hopgate.report.diff`). :func:`hopgate.report.pages.render` writes it as one
self-contained HTML page (styles, charts and pictures inline; no script
needed, no request leaves the page), as Markdown, or as JSON, each escaping
every data string for its format (:mod:`hopgate.escaping`). Nothing is
evaluated here, and nothing a reader may not inspect is shown: the report is
passed whole through the reader filter (hopgate.audit.withholding,
docs/spec/records.md "What a reader is shown") before any format is written.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hopgate import ids
from hopgate.audit import queue as _review
from hopgate.audit.agreement import Agreement
from hopgate.audit.agreement import agreement as _agreement
from hopgate.audit.peers import evaluation_peer_metrics
from hopgate.audit.results import (
    BundleReads,
    RunMetrics,
    authority_policy_text,
    below_authority,
    check_gate_policy,
    gate_policy_text,
    gate_rows,
    metrics_of,
    reading,
)
from hopgate.audit.withholding import ReaderView, reader_view_beside
from hopgate.bundles import judgment_proofs
from hopgate.bundles.picture import card_dot, render_svgs
from hopgate.bundles.scope import Scope
from hopgate.library import spec
from hopgate.library.spec import Definition, figure_definition
from hopgate.library.steps import AUTHORITY_POLICY, GATE_POLICY
from hopgate.memory import paused_gc
from hopgate.report.data import (
    CardDetail,
    ChosenEvaluation,
    Header,
    collect_cards,
    header,
    resolve_evaluation,
)
from hopgate.report.diff import compare
from hopgate.report.signature import NOT_CHECKED, SignatureCheck, check_signature
from hopgate.store import Store, catalog
from hopgate.vocab import VERDICTS

if TYPE_CHECKING:
    from hopgate.report.diff import Diff

FORMATS = ("html", "md", "json")

#: Each figure's and count's definition, in the words of the spec section that defines it
#: (hopgate.library.spec quotes docs/spec/acceptance.md: one home for what a figure means).
DEFINITIONS: dict[str, Definition] = {name: figure_definition(name) for name in spec.FIGURES}
COUNTS: dict[str, Definition] = {name: figure_definition(name) for name in spec.COUNTS}
COUNT_LABELS = {
    "unsupported": "unsupported outputs",
    "correctness_unknown": "outputs of unknown correctness",
    "answer_correctness_unknown": "claim-cases of unknown answer correctness",
    "omitted": "omitted required claims",
    "blocked": "blocked claim-cases",
    "not_found": "not-found claim-cases",
    "not_applicable": "not-applicable claim-cases",
    "appropriate_abstentions": "appropriate abstentions",
    "escalated": "escalated outputs (waiting for a decision)",
}
METRIC_LABELS = {
    "complete_set_recall": "complete-set recall",
    "citation_set_completeness": "citation-set completeness",
    "answer_correctness": "answer correctness",
    "whole_answer": "whole answer",
}


log = logging.getLogger("hopgate")

#: Why a report asked for pictures has none (on stderr and in the page).
NO_GRAPHVIZ = (
    "no card picture is drawn: graphviz's dot program is missing (Debian: apt-get install "
    "graphviz); `hopgate export --card ID --format dot` writes a card's picture as DOT "
    "source without it"
)


@dataclass
class GateDecision:
    """The release gate's decision on the evaluation the report reads, and its policy."""

    passed: bool
    #: How many output claims the gate weighed under ``policy``.
    weighed: int
    failing: list[str]
    #: ``marked`` or ``all`` (hopgate.library.steps.GATE_POLICIES).
    policy: str
    #: The policy in words: which outputs it weighs.
    policy_text: str
    #: ``passed``, ``failed`` (a stale evaluation fails), ``nothing gated``, or ``not
    #: decided`` (not the run's latest evaluation: the gate reads only the latest).
    state: str
    note: str | None = None
    #: ``none``, ``primary`` or ``secondary`` (hopgate.library.steps.AUTHORITY_POLICIES):
    #: the route authority an accepted output needs, a disclosed policy.
    require_authority: str = "none"
    #: Of ``failing``, the outputs accepted but below the required authority: their
    #: verdict is accept, the policy alone fails them.
    below_authority: list[str] = field(default_factory=list)


@dataclass
class Report:
    """Everything one audit report says, in the order it says it."""

    header: Header
    gate: GateDecision
    metrics: RunMetrics
    peers: list[dict[str, Any]]
    verdict_strata: dict[str, dict[str, dict[str, int]]]
    verdict_counts: dict[str, int]
    attention: list[CardDetail]
    cards: list[CardDetail]
    changes: Diff | None
    pictures: int
    charts: dict[str, str] = field(default_factory=dict)
    #: Why no picture was drawn though some were asked for (:data:`NO_GRAPHVIZ`), or None.
    pictures_note: str | None = None
    #: The final judgments in force on the cards, in the order the store recorded
    #: them: who recorded each, when, and its signature (adjudication.md "Recording").
    judgments: list[dict[str, Any]] = field(default_factory=list)
    #: Each automated judge's agreement with the final decisions, per question, over
    #: every subject of the store (docs/spec/adjudication.md "Machine triage").
    triage: list[Agreement] = field(default_factory=list)
    #: The header's signature line and whether the check asked for (--signed-export) failed.
    signature: SignatureCheck = field(default_factory=lambda: SignatureCheck(NOT_CHECKED))

    def as_dict(self, *, copies: bool = True) -> dict[str, Any]:
        """The report's data (``hopgate report --format json``); ``copies=False``: each
        card's row's lists and mappings are its own (:meth:`CardDetail.as_dict`)."""
        return {
            "header": asdict(self.header),
            "gate": asdict(self.gate),
            "metrics": self.metrics.as_dict(),
            "definitions": {name: asdict(d) for name, d in DEFINITIONS.items()},
            "count_definitions": {name: asdict(d) for name, d in COUNTS.items()},
            "peers": self.peers,
            "verdict_counts": self.verdict_counts,
            "verdict_strata": self.verdict_strata,
            "attention": [card.row.output for card in self.attention],
            "cards": [card.as_dict(copies=copies) for card in self.cards],
            "changes": self.changes.as_dict() if self.changes is not None else None,
            "judgments": self.judgments,
            "triage": [a.as_dict() for a in self.triage],
        }


def _blocking(
    reads: BundleReads, policy: str, require_authority: str
) -> tuple[int, set[str], list[str]]:
    """How many outputs the release gate weighs, which fail it (queries/gate.rq decides),
    and which of those are accepted but below the required authority."""
    weighed = gate_rows(reads, policy=policy, require_authority=require_authority)
    failing = {ids.ledger_id(str(row["output"])) for row in weighed if not row["passes"]}
    return len(weighed), failing, below_authority(weighed)


# A report builds a few objects per card and span (a million at 10k claims), none in
# a cycle: the collector's passes over them were a tenth of its time.
@paused_gc()
def build_report(
    store: Store,
    *,
    run: str,
    reader: str | None = None,
    evaluation: str | None = None,
    pictures: int = 50,
    peers: bool = False,
    signed_export: Path | None = None,
    trusted: Sequence[str] | None = None,
    consequential: str = GATE_POLICY,
    require_authority: str = AUTHORITY_POLICY,
) -> Report:
    """Read the report of ``run``'s latest evaluation (or ``evaluation``) for ``reader``.

    The release decision is the gate's under the ``consequential`` policy
    (``marked`` or ``all``: hopgate.library.steps.GATE_POLICIES) and the
    ``require_authority`` policy (``none``, ``primary``, ``secondary``), both
    stated on the report; a policy that weighs nothing shows that nothing was gated.

    ``pictures`` caps how many card pictures are drawn (the cards needing
    attention first; graphviz's ``dot`` draws each); the rest name the
    command that draws them. ``peers`` adds the peer figures of the same
    claim-cases. ``signed_export`` is the directory of a signed export of
    the evaluation: its signatures are checked (with ``trusted`` keys when
    given) and the signed file holding the bundle is compared with the store
    for the header's signature line (``signature.failed`` when it does not
    show the rendered bundle signed).

    Raises:
        NotEvaluatedError: the run is unknown or was never evaluated.
        ReportError: an unknown evaluation or reader.

    Example (``hopgate report --run RUN``; :func:`render` writes html, md or json):
        >>> from hopgate import build_report, evaluate, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> found = build_report(store, run="sys-a", pictures=0)
        >>> found.gate.passed, found.gate.failing, len(found.cards)
        (False, ['sys-a/qA/o1'], 4)
    """
    chosen = resolve_evaluation(store, run=run, evaluation=evaluation, reader=reader)
    # The reader rule is asked once for both its answers, beside the rest (its
    # copy's parse and the rule cost most, and leave Python's lock free).
    with reader_view_beside(store, chosen.reader) as view:
        signature = check_signature(
            store,
            signed_export,
            bundle=chosen.evaluation.bundle,
            reader=chosen.reader,
            trusted=trusted,
        )
        head = header(store, chosen, signature=signature.line)
        check_gate_policy(consequential)
        # Every row of the cards, the gate, the metrics and the strata is a bundle
        # query's, read from the answers the evaluation recorded (else from one copy
        # of its loads and bundle: hopgate.audit.results.reading).
        with reading(store, chosen.evaluation) as reads:
            return _build(
                store,
                reads,
                view,
                chosen,
                head,
                signature,
                pictures,
                peers,
                trusted,
                consequential,
                require_authority,
            )


def _build(
    store: Store,
    reads: BundleReads,
    view: Callable[[], ReaderView],
    chosen: ChosenEvaluation,
    head: Header,
    signature: SignatureCheck,
    pictures: int,
    peers: bool,
    trusted: Sequence[str] | None,
    consequential: str,
    require_authority: str,
) -> Report:
    authority_text = authority_policy_text(require_authority)
    weighed, blocking, below = _blocking(reads, consequential, require_authority)

    def order(card: CardDetail) -> tuple[int, str, str]:
        return (0 if card.row.output in blocking else 1, card.row.question, card.row.output)

    metrics = metrics_of(reads, chosen.evaluation.run)
    strata: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for row in reads.select("verdict-strata"):
        verdict = _verdict(str(row["verdict"]))
        strata[str(row["dimension"])][str(row["stratum"])][verdict] = int(str(row["cards"]))
    cards = sorted(collect_cards(store, chosen, reads=reads, withheld=view().nodes), key=order)
    failing = [c.row.output for c in cards if c.row.output in blocking]
    note = None
    state = "passed" if weighed and not failing else "failed"
    if not weighed:
        state = "nothing gated"
        note = (
            "No output claim asserts a claim marked consequential, so nothing was gated: "
            "mark the claims that must hold, or read the report with --consequential all."
            if consequential == "marked"
            else "The run has no output claim, so nothing was gated."
        )
    if not chosen.latest:
        state = "not decided"
        note = "This is not the run's latest evaluation; the gate reads only the latest."
    elif chosen.stale:
        state = "failed"
        note = f"The evaluation is stale ({chosen.stale_reason}): the gate fails on it."
    gate = GateDecision(
        passed=state == "passed" and not chosen.stale and chosen.latest,
        weighed=weighed,
        failing=failing,
        policy=consequential,
        policy_text=(
            "The release gate passes only when the run's latest evaluation is current, it "
            f"weighs at least one output claim, and {gate_policy_text(consequential)} "
            f"(hopgate gate --consequential {consequential})."
            + ("" if authority_text is None else f" Authority policy: {authority_text}.")
        ),
        require_authority=require_authority,
        below_authority=below,
        state=state,
        note=note,
    )
    counts: dict[str, int] = defaultdict(int)
    for card in cards:
        counts[card.row.verdict] += 1
    peer_rows: list[dict[str, Any]] = []
    if peers:
        peer_rows = [p.as_dict() for p in evaluation_peer_metrics(store, chosen.evaluation)]
    drawn = _draw_pictures(store, chosen, cards, pictures, view())
    changes = _changes(store, chosen)
    in_force = _judgments_in_force(store, cards, trusted)
    report = Report(
        header=head,
        gate=gate,
        metrics=metrics,
        peers=peer_rows,
        verdict_strata={k: dict(v) for k, v in strata.items()},
        verdict_counts=dict(counts),
        attention=[c for c in cards if c.row.output in blocking],
        cards=cards,
        changes=changes,
        pictures=drawn,
        pictures_note=NO_GRAPHVIZ if pictures > 0 and cards and not drawn else None,
        judgments=in_force,
        triage=_agreement(store),
        signature=signature,
    )
    # Every text of every format (cards, header, changes, pictures) passes the one filter.
    return view().withholding.redact(report)


def _verdict(iri: str) -> str:

    return VERDICTS.get(iri, iri)


def _changes(store: Store, chosen: ChosenEvaluation) -> Diff | None:

    recorded = catalog.evaluations(store, chosen.evaluation.run)
    position = [e.activity for e in recorded].index(chosen.evaluation.activity)
    if position == 0:
        return None
    return compare(store, chosen.evaluation.run, recorded[position - 1], chosen.evaluation)


def _draw_pictures(
    store: Store, chosen: ChosenEvaluation, cards: list[CardDetail], limit: int, view: ReaderView
) -> int:
    """Draw the pictures of the first ``limit`` cards (as SVG, inline); how many were drawn.

    ``view`` is the report's reader's: the rule is read once for all pictures.
    """
    import shutil

    if limit <= 0 or not cards:
        return 0
    if shutil.which("dot") is None:
        # Said, not silent: the page said "drawn for the first 0 card(s)" and nothing else.
        log.warning(f"note: {NO_GRAPHVIZ}")
        return 0
    graphs = (*chosen.evaluation.used, chosen.evaluation.bundle)
    drawn = cards[:limit]
    dots = [
        card_dot(
            store,
            Scope(graphs, chosen.reader, f"card {card.row.card}", ids.mint("card", card.row.card)),
            view,
        )
        for card in drawn
    ]
    # Drawn beside each other (picture.render_svgs): dot is a process of its own.
    for card, svg in zip(drawn, render_svgs(dots), strict=True):
        card.picture = svg
    return len(drawn)


__all__ = ["FORMATS", "Report", "build_report"]


def _judgments_in_force(
    store: Store, cards: list[CardDetail], trusted: Sequence[str] | None
) -> list[dict[str, Any]]:
    """The final judgments the cards name as in force, with who recorded each and its signature.

    Read from the store as it stands (the judgments never change once
    recorded); the signature is checked against ``trusted`` keys
    (docs/spec/adjudication.md "Signed judgments").
    """
    named = {str(j["id"]) for card in cards for j in card.row.judgments}
    if not named:
        return []
    found = []
    for record in _review.judgments(store):
        if record.id not in named or not record.final:
            continue
        signature = judgment_proofs.check(record, trusted)
        found.append(
            {
                "id": record.id,
                "subject": record.subject,
                "question": record.question,
                "decision": record.decision,
                "by": record.by,
                "at": record.at,
                "record_number": record.record_number,
                "recorded_at": record.recorded_at,
                "recorded_by": record.recorded_by,
                "signature": signature.as_dict(),
            }
        )
    return sorted(found, key=lambda j: (j["record_number"] or 0, j["id"]))
