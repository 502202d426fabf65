"""What a report holds, read from one recorded evaluation for one reader.

Everything here reads (docs/spec/records.md "Writes and reads"): the evaluation chosen
is a recorded one (the run's latest, or one named ``RUN@TIME``), and its
cards, metrics and strata are read from its bundle. A quote the reader may
not inspect (``queries/withheld.rq``) is dropped as the rows are read; every
other text repeating a withheld text is replaced when the report is built
(hopgate.audit.withholding, docs/spec/records.md "What a reader is shown"), so no
output of the report carries one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Set
from dataclasses import dataclass, field, fields
from typing import Any

from hopgate import ids
from hopgate._version import __version__
from hopgate.audit.results import BundleReads, VerdictRow, cards_of, reading, unknown_run
from hopgate.audit.withholding import MARKER, check_reader, evaluation_reader, withheld_nodes
from hopgate.errors import NotEvaluatedError, ReportError
from hopgate.library.artefacts import library_query
from hopgate.report.sentences import ADMISSIBILITY, reason
from hopgate.store import IRI, Row, Store, Value, catalog
from hopgate.suggest import did_you_mean
from hopgate.vocab import CATALOG_GRAPH, HG


@dataclass(frozen=True)
class ChosenEvaluation:
    """The recorded evaluation a report reads, and the reader it is written for."""

    evaluation: catalog.Evaluation
    id: str
    reader: str
    latest: bool
    stale: bool
    stale_reason: str | None

    @property
    def reader_iri(self) -> str:
        """The report reader's IRI."""
        return ids.mint("reader", self.reader)


def _text(value: Value) -> str | None:
    return None if value is None else str(value)


def _id(value: Value) -> str | None:
    return None if value is None else ids.ledger_id(str(value))


def output_run(store: Store, output: str) -> str:
    """The run whose case generated the output claim ``output``.

    Raises:
        ReportError: no such output claim; the message names its near misses (``my-rag/q3``
            for ``q3``: an output id given without its run).
    """
    rows = store.select(
        "SELECT ?run WHERE { ?output a hg:OutputClaim ; prov:wasGeneratedBy ?case . "
        "?case hg:ofRun ?run }",
        params={"output": IRI(ids.mint("output", output))},
    )
    if not rows:
        known = [
            ids.ledger_id(str(r["output"]))
            for r in store.select("SELECT ?output WHERE { ?output a hg:OutputClaim }")
        ]
        raise ReportError(f"no output claim {output!r} in the store{did_you_mean(output, known)}")
    return ids.ledger_id(str(rows[0]["run"]))


def resolve_evaluation(
    store: Store, *, run: str, evaluation: str | None = None, reader: str | None = None
) -> ChosenEvaluation:
    """The run's latest recorded evaluation, or the one named ``evaluation`` (``RUN@TIME``).

    Raises:
        NotEvaluatedError: the run is unknown or has never been evaluated.
        ReportError: no evaluation of that name for the run, or an unknown reader.
    """
    known = catalog.runs(store)
    if run not in known:
        raise NotEvaluatedError(unknown_run(run, known))
    recorded = catalog.evaluations(store, run)
    if not recorded:
        raise NotEvaluatedError(
            f"run {run!r} has no evaluation in the store; run `hopgate evaluate --run {run}`"
        )
    if evaluation is None:
        found = recorded[-1]
    else:
        named = [e for e in recorded if ids.ledger_id(e.activity) == evaluation]
        if not named:
            listed = ", ".join(ids.ledger_id(e.activity) for e in recorded)
            raise ReportError(f"run {run!r} has no evaluation {evaluation!r} (it has: {listed})")
        found = named[0]
    latest = found is recorded[-1]
    state = catalog.staleness(store, run)
    stale, stale_reason = (state.stale, state.reason) if latest else (False, None)
    if not latest:
        stale_reason = (
            f"a later evaluation of run {run} exists ({ids.ledger_id(recorded[-1].activity)})"
        )
    if reader is None:
        reader = evaluation_reader(store, run)
    check_reader(store, reader, ReportError)
    return ChosenEvaluation(
        found, ids.ledger_id(found.activity), reader, latest, stale, stale_reason
    )


# --- cards -------------------------------------------------------------------------------


@dataclass
class SpanInfo:
    """One span a card names, as the report's reader may see it."""

    id: str
    version: str
    source: str | None
    title: str | None
    address: str | None
    observed: str | None
    text: str | None
    locator: str | None
    withheld: bool
    failed: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The span in words: its text (or why there is none) and where it is from."""
        if self.withheld:
            text = MARKER
        elif self.text is not None:
            text = f'"{self.text}"'
        elif self.locator is not None:
            text = f"at {self.locator} (the version's text is not retained)"
        else:
            text = "no text retained"
        origin = f"version {self.version}"
        if self.title or self.source:
            origin += f" of {self.title or self.source}"
        if self.address:
            origin += f" ({self.address})"
        if self.observed:
            origin += f", observed {self.observed}"
        return f"{text}, from {origin}"

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of the span."""
        return dict(self.__dict__)


@dataclass
class Member(SpanInfo):
    """A member of a reference set, with what covers it."""

    cited_by: list[str] = field(default_factory=list)
    retrieved_by: list[str] = field(default_factory=list)


@dataclass
class EvidenceSetInfo:
    """A reference route of the card's claim: status, eligibility and members."""

    id: str
    status: str
    annotation_version: int | None
    eligible: bool
    members: list[Member]
    cited: bool = False
    retrieved: bool = False


@dataclass
class ContradictionInfo:
    """A contradiction of the card's claim and how it was treated."""

    id: str
    status: str
    decision: str | None
    span: str | None

    def describe(self) -> str:
        """The contradiction's treatment in words."""
        span = f" (conflicting span {self.span})" if self.span else ""
        if self.status == "resolved":
            return f"Contradiction {self.id}{span} is resolved: {self.decision or 'no decision'}"
        return f"Contradiction {self.id}{span} is unresolved, so the card escalates"


#: The fields of a card's row, in their order (the JSON form's first keys).
_ROW_FIELDS = tuple(f.name for f in fields(VerdictRow))


@dataclass
class CardDetail:
    """Everything the report says about one acceptance card."""

    row: VerdictRow
    rule: str | None
    reason: str
    question_text: str | None = None
    reference_answer: str | None = None
    claim_text: str | None = None
    applies_at: str | None = None
    output_text: str | None = None
    inference: str | None = None
    sets: list[EvidenceSetInfo] = field(default_factory=list)
    delivered: list[SpanInfo] = field(default_factory=list)
    missing: list[SpanInfo] = field(default_factory=list)
    inadmissible: list[SpanInfo] = field(default_factory=list)
    contradictions: list[ContradictionInfo] = field(default_factory=list)
    #: citation id -> [(set id, member id)] it covers.
    covered_by_citation: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    picture: str | None = None

    @property
    def anchor(self) -> str:
        """A stable HTML id for the card (:func:`card_anchor`)."""
        return card_anchor(self.row.output)

    def as_dict(self, *, copies: bool = True) -> dict[str, Any]:
        """The JSON form of the card (its picture left out).

        ``copies=False``: the row's lists and mappings are the row's own, not copies
        (for text written at once, :func:`hopgate.escaping.json_text`, which writes a
        nested dataclass as ``as_dict`` gives it: the same text, without copying every
        card's judgments and source truth).
        """
        row = self.row.as_dict() if copies else {n: getattr(self.row, n) for n in _ROW_FIELDS}
        return {
            **row,
            "rule": self.rule,
            "reason": self.reason,
            "question_text": self.question_text,
            "reference_answer": self.reference_answer,
            "claim_text": self.claim_text,
            "applies_at": self.applies_at,
            "output_text": self.output_text,
            "inference": self.inference,
            "sets": [
                {**s.__dict__, "members": [m.as_dict() for m in s.members]} for s in self.sets
            ],
            "delivered": [s.as_dict() for s in self.delivered],
            "missing_hops": [s.as_dict() for s in self.missing],
            "inadmissible": [s.as_dict() for s in self.inadmissible],
            "contradictions": [c.__dict__ for c in self.contradictions],
        }


_STATUS = {"Adjudicated": "adjudicated", "Proposed": "proposed", "Rejected": "rejected"}


#: Where each admissibility flag is read: the span's own row (report-span-texts.rq), or,
#: for the one that depends on the card's claim, the card's link to it (report-spans.rq).
_FLAG_ROWS = tuple((flag, 1 if flag == "untimely" else 0) for flag in ADMISSIBILITY)


def card_anchor(output: str) -> str:
    """The HTML id of the card of the output id ``output``, one per output id: the id
    percent-encoded, with ``%`` written ``_`` and a literal ``_`` written ``_5F`` (``=``
    and ``_3D``, ``a b`` and ``a_20b`` had one anchor, and a link opened another
    output's card)."""
    return "card-" + ids.encode_id(output).replace("_", "_5F").replace("%", "_")


def _span(text: Row, link: Row, cls: type[SpanInfo] = SpanInfo) -> SpanInfo:
    """The span of ``text`` (its row of texts), as the card ``link`` names it."""
    rows = (text, link)
    return cls(
        str(text["spanId"]),
        str(text["versionId"]),
        _text(text["sourceId"]),
        _text(text["sourceTitle"]),
        _text(text["address"]),
        _text(text["observed"]),
        _text(text["exact"]),
        _text(text["locator"]),
        bool(text["withheld"]),
        [flag for flag, row in _FLAG_ROWS if rows[row][flag]],
    )


def _select(store: Store, query_id: str, params: dict[str, Value]) -> list[Row]:
    return store.select(library_query(query_id).text, params=params)


def collect_cards(
    store: Store,
    chosen: ChosenEvaluation,
    *,
    only_output: str | None = None,
    reads: BundleReads | None = None,
    withheld: frozenset[str] | None = None,
) -> list[CardDetail]:
    """The cards of the chosen evaluation with their texts, sets, coverage and reasons.

    With ``only_output``, the card of that output claim alone. Every row is a
    bundle query's (:data:`hopgate.library.steps.BUNDLE_QUERIES`), read through
    ``reads`` when the caller holds the evaluation's
    :func:`hopgate.audit.results.reading` (the answers the evaluation recorded,
    else one copy of its loads and bundle); ``withheld``, the reader's
    withheld spans when the caller has asked the reader rule
    (:func:`hopgate.audit.withholding.reader_view`).
    """
    hidden = withheld_nodes(store, chosen.reader_iri) if withheld is None else withheld
    if reads is not None:
        return _collect(store, reads, chosen, only_output, hidden)
    with reading(store, chosen.evaluation) as own:
        return _collect(store, own, chosen, only_output, hidden)


def _collect(
    store: Store,
    reads: BundleReads,
    chosen: ChosenEvaluation,
    only_output: str | None,
    hidden: Set[str],
) -> list[CardDetail]:
    bundle = IRI(chosen.evaluation.bundle)
    only: set[str] | None = None
    if only_output is not None:
        found = store.select(
            "SELECT ?card WHERE { GRAPH ?bundle { ?card hg:forOutput ?output } }",
            params={"bundle": bundle, "output": IRI(ids.mint("output", only_output))},
        )
        if not found:
            return []
        # That card alone is built (every card of a 10k-claim run cost a second).
        only = {str(found[0]["card"])}

    def select(query_id: str) -> list[Row]:
        if only is None:
            # Every term is read as its text (str, _text): IRIs may come as plain str.
            return reads.select(query_id, plain=True)
        # One card (`explain`): looked up from the card on the store (a few ms),
        # not decoded from the recorded table of every card's spans and texts.
        return _select(store, query_id, {"bundle": bundle, "card": IRI(next(iter(only)))})

    rows = cards_of(reads, only=only)
    if not rows:
        return []
    texts = {ids.ledger_id(str(r["card"])): r for r in select("report-cards")}
    # What each span is, read once however many cards name it. The one reader
    # rule decides what is withheld, overlap with a narrowed span included
    # (queries/withheld.rq); a withheld quote is dropped here.
    about: dict[str, list[Row]] = defaultdict(list)
    for r in select("report-span-texts"):
        withheld = str(r["span"]) in hidden
        about[str(r["span"])].append(
            {**r, "exact": None if withheld else r["exact"], "withheld": withheld}
        )
    # Each card's spans as (text, link) pairs: a merged row per pair cost 0.25 s at 10k.
    spans: dict[str, list[tuple[Row, Row]]] = defaultdict(list)
    for link in select("report-spans"):
        card_spans = spans[ids.ledger_id(str(link["card"]))]
        card_spans += ((text, link) for text in about[str(link["span"])])
    for card_spans in spans.values():
        # In the order of the sets' and spans' ids, as the report shows them.
        card_spans.sort(
            key=lambda p: (str(p[1]["role"]), str(p[1]["setId"] or ""), str(p[0]["spanId"]))
        )
    coverage: dict[str, list[Row]] = defaultdict(list)
    for r in select("report-coverage"):
        coverage[ids.ledger_id(str(r["card"]))].append(r)
    contradictions: dict[str, list[ContradictionInfo]] = defaultdict(list)
    for r in select("report-contradictions"):
        contradictions[ids.ledger_id(str(r["card"]))].append(
            ContradictionInfo(
                str(r["contradictionId"]),
                "unresolved" if str(r["status"]) == HG + "Unresolved" else "resolved",
                _text(r["decision"]),
                _text(r["spanId"]),
            )
        )
    return [
        _card(
            row, texts.get(row.card), spans[row.card], coverage[row.card], contradictions[row.card]
        )
        for row in rows
    ]


def _card(
    row: VerdictRow,
    text: Row | None,
    spans: list[tuple[Row, Row]],
    coverage: list[Row],
    contradictions: list[ContradictionInfo],
) -> CardDetail:
    rule = str(text["rule"]) if text is not None else None
    unresolved = [c.id for c in contradictions if c.status == "unresolved"]
    card = CardDetail(row=row, rule=rule, reason=reason(row, rule, unresolved=unresolved))
    if text is not None:
        card.question_text = _text(text["questionText"])
        card.reference_answer = _text(text["referenceAnswer"])
        card.claim_text = _text(text["claimText"])
        card.applies_at = _text(text["appliesAt"])
        card.output_text = _text(text["outputText"])
        card.inference = _text(text["inference"])
    card.contradictions = contradictions
    sets: dict[str, EvidenceSetInfo] = {}
    cited: dict[tuple[str, str], list[str]] = defaultdict(list)
    retrieved: dict[tuple[str, str], list[str]] = defaultdict(list)
    # In the order of the sets', members', ways' and covering spans' ids (the query
    # leaves its rows unordered): covered_by_citation lists them so.
    coverage = sorted(
        coverage, key=lambda r: (str(r["setId"]), str(r["memberId"]), str(r["via"]), str(r["byId"]))
    )
    for r in coverage:
        key = (str(r["setId"]), str(r["memberId"]))
        (cited if str(r["via"]) == "cited" else retrieved)[key].append(str(r["byId"]))
        if str(r["via"]) == "cited":
            card.covered_by_citation.setdefault(str(r["byId"]), []).append(key)
    listed = {
        "delivered": card.delivered,
        "missing": card.missing,
        "inadmissible": card.inadmissible,
    }
    for text_row, link in spans:
        role = str(link["role"])
        if role == "member":
            set_id = str(link["setId"])
            evidence = sets.get(set_id)
            if evidence is None:
                status = str(link["setStatus"])
                version = link["annotationVersion"]
                evidence = sets[set_id] = EvidenceSetInfo(
                    set_id,
                    _STATUS.get(status.rsplit("#", 1)[-1], status),
                    int(str(version)) if version is not None else None,
                    True,
                    [],
                )
            member = _span(text_row, link, Member)
            assert isinstance(member, Member)
            member.cited_by = sorted(set(cited[(set_id, member.id)]))
            member.retrieved_by = sorted(set(retrieved[(set_id, member.id)]))
            evidence.members.append(member)
        else:
            listed[role].append(_span(text_row, link))
    for evidence in sets.values():
        # A claim not applicable for the evaluation has no set weighed, so none eligible
        # (docs/spec/acceptance.md "Not applicable").
        evidence.eligible = (
            not row.not_applicable
            and evidence.status == "adjudicated"
            and not any(m.failed for m in evidence.members)
        )
        evidence.cited = evidence.id == row.cited_route
        evidence.retrieved = evidence.id == row.retrieved_route
    card.sets = sorted(sets.values(), key=lambda s: s.id)
    return card


# --- header ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadUsed:
    """A load graph an evaluation used."""

    graph: str
    file: str | None
    digest: str | None
    loaded: str
    agent: str | None


@dataclass
class Header:
    """What a committee signs under."""

    run: str
    system: str | None
    run_started: str | None
    evaluation: str
    evaluation_record: str
    reader: str
    evaluation_reader: str
    cutoff: str
    corpus: str | None
    policy: str | None
    started: str | None
    ended: str
    software: str | None
    hopgate_version: str
    bundle: str
    previous: str | None
    loads: list[LoadUsed]
    stale: bool
    stale_reason: str | None
    signature: str


def header(store: Store, chosen: ChosenEvaluation, *, signature: str) -> Header:
    """The header of a report on ``chosen``; ``signature`` is its signature line
    (:func:`hopgate.report.signature.check_signature`)."""
    params: dict[str, Value] = {
        "activity": IRI(chosen.evaluation.activity),
        "catalog": IRI(CATALOG_GRAPH),
    }
    rows = _select(store, "evaluation-header", params)
    if not rows:
        raise ReportError(f"evaluation {chosen.id} has no catalog record")
    row = rows[0]
    loads = [
        LoadUsed(
            str(r["graph"]),
            _text(r["file"]),
            _text(r["digest"]),
            str(r["loaded"]),
            _text(r["agent"]),
        )
        for r in _select(store, "evaluation-loads", params)
    ]
    return Header(
        run=str(row["runId"]),
        system=_id(row["system"]) if row["system"] is None else str(row["system"]),
        run_started=_text(row["runStarted"]),
        evaluation=chosen.id,
        evaluation_record=str(row["evaluationId"]),
        reader=chosen.reader,
        evaluation_reader=str(row["reader"]),
        cutoff=str(row["cutoff"]),
        corpus=_text(row["corpus"]),
        policy="containment" if row["policy"] is not None else None,
        started=_text(row["started"]),
        ended=str(row["ended"]),
        software=_text(row["software"]),
        hopgate_version=__version__,
        bundle=str(row["bundle"]),
        previous=_text(row["previous"]),
        loads=loads,
        stale=chosen.stale,
        stale_reason=chosen.stale_reason,
        signature=signature,
    )
