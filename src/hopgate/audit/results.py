"""Reading evaluations: verdict rows, metrics with intervals, and the release gate.

Results are read from the latest evaluation bundle of each run. Reading
never writes (docs/spec/records.md "Writes and reads"): a run with no
evaluation has no results here, and a run whose latest evaluation is stale is
read as it is, with the staleness and its reason attached, so the caller can
say so. Figures: docs/spec/acceptance.md "Metrics", "Counts", "Whole answer"
and "Intervals"; the gate: docs/spec/acceptance.md "Release gate".
"""

from __future__ import annotations

import copy
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, fields, is_dataclass
from decimal import Decimal
from itertools import groupby
from operator import attrgetter, itemgetter
from typing import Any, cast

from hopgate import ids
from hopgate.audit import queue
from hopgate.audit.statistics import cluster_bootstrap, wilson
from hopgate.decide import outcomes
from hopgate.errors import GateError, MetricError, NotEvaluatedError
from hopgate.library.artefacts import library_query
from hopgate.library.steps import (
    AUTHORITY_POLICIES,
    AUTHORITY_POLICY,
    BUNDLE_QUERIES,
    GATE_POLICIES,
    GATE_POLICY,
    reading_projection,
)
from hopgate.store import IRI, Row, Store, Value, answers, bind_outer, catalog, snapshots
from hopgate.store.catalog import Staleness
from hopgate.suggest import did_you_mean, unknown_name
from hopgate.vocab import ANSWERABILITY, AUTHORITY, HG, VERDICTS

#: The columns of the verdict table (the JSON contract's required keys).
VERDICT_COLUMNS = [
    "run",
    "question",
    "output",
    "claim",
    "supported",
    "retrieved_complete",
    "citation_complete",
    "missing",
    "verdict",
]

log = logging.getLogger("hopgate")


@dataclass(frozen=True)
class VerdictRow:
    """One acceptance card as users read it: ledger ids, not IRIs."""

    run: str
    question: str
    output: str
    claim: str | None
    consequential: bool
    answerability: str | None
    supported: bool
    retrieved_complete: bool
    citation_complete: bool
    missing: list[str]
    inadmissible_citations: list[str]
    cited_route: str | None
    retrieved_route: str | None
    verdict: str
    card: str
    #: Final judgments in force on the card: id, question, decision, reason
    #: (docs/spec/adjudication.md "Effect on scoring").
    judgments: list[dict[str, str | None]] = field(default_factory=list)
    stale: bool = False
    stale_reason: str | None = None
    #: The card item Interventions (docs/spec/interventions.md "Cards and figures").
    interventions: dict[str, Any] | None = None
    #: Cited spans no retrieved span of the case covers (beside the verdict, never changing it).
    unretrieved_citations: list[str] = field(default_factory=list)
    #: False when nobody judged the output (acceptance.md "Per output claim", rule unknown
    #: correctness): it is then neither correct nor incorrect.
    correctness_known: bool = True
    #: Source truth (docs/spec/acceptance.md "Source truth"), never changing the verdict:
    #: the weakest authority among the members of the route the card weighs
    #: (``primary``, ``secondary``, ``tertiary`` or ``unstated``), that route, and per
    #: member: span, version, source, authority, basis (for accepting the premise),
    #: basis_from (the judgment or source it was read from), effective_from,
    #: effective_until, observed_at.
    route_authority: str = "unstated"
    weighed_route: str | None = None
    source_truth: list[dict[str, str | None]] = field(default_factory=list)
    #: The contradictions of its claim: id, status (``resolved``/``unresolved``), decision.
    contradictions: list[dict[str, str | None]] = field(default_factory=list)
    #: True when the ledger marks the claim not applicable for the evaluation
    #: (acceptance.md "Not applicable"): its answerability is ``not applicable``.
    not_applicable: bool = False
    #: The ledger's reason for it (ledger text), None when the claim applies.
    not_applicable_reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate verdicts``."""
        return _plain(self)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Proportion:
    """A figure with its numerator and denominator; value None for an empty denominator."""

    numerator: int
    denominator: int
    value: float | None
    ci_low: float | None
    ci_high: float | None
    interval: str | None


#: The plain figures of a run (docs/spec/acceptance.md "Metrics"), in the order shown.
FIGURES = (
    "complete_set_recall",
    "citation_set_completeness",
    "answer_correctness",
    "whole_answer",
)


@dataclass
class RunMetrics:
    """The metrics of one run's latest evaluation."""

    run: str
    evaluation: str
    complete_set_recall: Proportion
    citation_set_completeness: Proportion
    answer_correctness: Proportion
    whole_answer: Proportion
    counts: dict[str, int]
    strata: dict[str, dict[str, dict[str, Proportion]]] = field(default_factory=dict)
    #: Subjects awaiting adjudication now (docs/spec/adjudication.md), read from the record.
    awaiting_adjudication: int = 0
    stale: bool = False
    stale_reason: str | None = None
    #: Per variant (and "all"): docs/spec/interventions.md "Cards and figures".
    interventions: dict[str, dict[str, Proportion]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate metrics`` (one run's entry)."""
        return _plain(self)  # type: ignore[no-any-return]


_IMMUTABLE = (str, int, float, bool, type(None))
#: The exact types of :data:`_IMMUTABLE`, checked first: a row is mostly such leaves.
_LEAVES = frozenset(_IMMUTABLE)


#: Each row class's field names, looked up once.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    """``dataclasses.asdict`` for the values these rows hold, without its deep copies.

    A row is dataclasses, dicts, lists and immutable scalars; asdict copies
    every scalar with ``copy.deepcopy`` (a third of ``verdicts --format json``
    at 3.3k claims), although a str or a number is its own copy.
    """
    kind = type(value)
    if kind in _LEAVES or isinstance(value, _IMMUTABLE):
        return value
    if kind is list or isinstance(value, list):
        return [v if type(v) in _LEAVES else _plain(v) for v in value]
    if kind is tuple:
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): v if type(v) in _LEAVES else _plain(v) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES.get(kind)
        if names is None:
            names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(value))
        return {
            name: v if type(v := getattr(value, name)) in _LEAVES else _plain(v) for name in names
        }
    return copy.deepcopy(value)


def read_states(store: Store, *, run: str | None = None) -> list[Staleness]:
    """The state of each run's latest evaluation (every run, or ``run``); nothing is written.

    Raises:
        NotEvaluatedError: ``run`` is given and has no evaluation. When no run has
            one, the ``hopgate`` logger notes it and nothing is returned.
    """
    known = catalog.runs(store)
    if run is not None and run not in known:
        raise NotEvaluatedError(unknown_run(run, known))
    if run is not None:
        states = [catalog.staleness(store, run)]
    else:
        states = list(catalog.states(store, known).values())
    if run is not None and states[0].evaluation is None:
        raise NotEvaluatedError(
            f"run {run!r} has no evaluation in the store; run `hopgate evaluate --run {run}`"
        )
    evaluated = [state for state in states if state.evaluation is not None]
    if not evaluated:
        # An empty table would read as "no verdicts": said as a note (on the command's
        # stderr), not an error, since a reader may well ask before the first evaluation.
        log.warning(
            f"note: no run in the store has an evaluation (runs: {', '.join(sorted(known))}); "
            "`hopgate evaluate` makes one"
            if known
            else "note: the store holds no run: load a ledger with runs and cases first"
        )
    return evaluated


def verdicts(store: Store, *, run: str | None = None, brief: bool = False) -> list[VerdictRow]:
    """The acceptance cards of the latest evaluation of each run (or of ``run``).

    Runs never evaluated are left out (an error for an explicit ``run``);
    rows of a stale evaluation carry ``stale`` and its reason. ``brief``: as
    :func:`cards_of` says.
    """
    rows: list[VerdictRow] = []
    states = read_states(store, run=run)
    with ExitStack() as stack:
        each = []
        for state in states:
            assert state.evaluation is not None
            each.append(stack.enter_context(reading(store, state.evaluation)))
        if store.server_caches and len(each) > 1:
            # Each run's file fetched from the server beside the cards of the one before.
            pool = stack.enter_context(ThreadPoolExecutor(1))
            for reads in each:
                reads.fetch_beside(CARD_QUERIES, pool)
        for state, reads in zip(states, each, strict=True):
            rows.extend(cards_of(reads, (state.stale, state.reason), brief=brief))
    return sorted(rows, key=attrgetter("run", "question", "output"))


#: The bundle queries whose every row binds ``?card`` by a pattern no ``OPTIONAL``
#: or ``UNION`` branch leaves out: binding ``?card`` in the outermost group gives
#: exactly the rows of those cards (tests/store/test_answers.py holds the two equal).
#: Not ``interventions``, whose outcome rows have no card.
CARD_BOUND = frozenset(
    {"cards", "card-spans", "card-judgments", "card-source-truth", "unretrieved-citations"}
)
#: How many cards one bound query names.
_CARD_BATCH = 500


class BundleReads:
    """The bundle queries' answers for one recorded evaluation.

    The rows are taken from the answers the evaluation recorded
    (:mod:`hopgate.store.answers`) where a verified file holds them; else the
    query runs on a reading copy, made on the first such query and shared by
    the rest (an in-memory copy when verified snapshots make it cheap, else
    the store itself).
    """

    def __init__(self, store: Store, evaluation: catalog.Evaluation, stack: ExitStack) -> None:
        self.bundle = evaluation.bundle
        self._store = store
        self._evaluation = evaluation
        self._copied: Store | None = None
        self._stack = stack
        self._recorded = answers.read(store, evaluation.bundle)

    def select(
        self,
        query_id: str,
        *,
        only_cards: set[str] | None = None,
        plain: bool = False,
        **params: Value,
    ) -> list[Row]:
        """The rows of bundle query ``query_id`` for this bundle, with ``params`` bound;
        with ``only_cards``, only its rows whose ``?card`` is one of those IRIs or unbound.
        ``plain``: IRIs and blank nodes may come as plain ``str`` (for a caller that reads
        every term as its text: the recorded rows are then decoded faster)."""
        # The reading copy holds only what the listed queries read.
        assert query_id in BUNDLE_QUERIES, f"{query_id} must be listed in BUNDLE_QUERIES"
        bound: dict[str, Value] = {"bundle": IRI(self.bundle), **params}
        if self._recorded is not None:
            found = self._recorded.get(query_id, bound, cards=only_cards, plain=plain)
            if found is not None:
                return found
        if only_cards is not None and query_id in CARD_BOUND:
            # The cards asked for (``explain``'s one, the gate's failing ones) are bound on
            # the store: on a remote store the whole query took seconds at 10k claims for
            # one card's rows. In batches, as the loader asks of stored records.
            text, cards = library_query(query_id).text, sorted(only_cards)
            return [
                row
                for start in range(0, len(cards), _CARD_BATCH)
                for row in self._copy().select(
                    bind_outer(text, "card", [IRI(c) for c in cards[start : start + _CARD_BATCH]]),
                    params=bound,
                )
            ]
        rows = self._copy().select(library_query(query_id).text, params=bound)
        if only_cards is None or not rows or "card" not in rows[0]:
            return rows
        return [row for row in rows if row["card"] is None or str(row["card"]) in only_cards]

    def columns(
        self, query_id: str, names: Sequence[str], *, only_cards: set[str] | None = None
    ) -> list[list[Value]]:
        """The columns ``names`` of :meth:`select`'s rows, each a list in the rows' order,
        with IRIs and blank nodes as plain ``str`` (from the recorded answers without a
        dict per row)."""
        if self._recorded is not None:
            found = self._recorded.columns(
                query_id, {"bundle": IRI(self.bundle)}, names, cards=only_cards
            )
            if found is not None:
                return found
        rows = self.select(query_id, only_cards=only_cards, plain=True)
        # An IRI or blank node from the store as its text, as the recorded columns hold it.
        return [
            [str(v) if isinstance(v, str) else v for v in (row[name] for row in rows)]
            for name in names
        ]

    def fetch_beside(self, query_ids: Iterable[str], pool: Executor) -> None:
        """Start fetching the recorded answers of ``query_ids`` in ``pool``, when recorded
        (:meth:`hopgate.store.answers.Answers.fetch_beside`)."""
        if self._recorded is not None:
            self._recorded.fetch_beside(query_ids, pool)

    def _copy(self) -> Store:
        if self._copied is None:
            self._copied = self._stack.enter_context(
                snapshots.reading_copy(
                    self._store,
                    reading_projection(),
                    [*self._evaluation.used, self._evaluation.bundle],
                )
            )
        return self._copied


@contextmanager
def reading(store: Store, evaluation: catalog.Evaluation) -> Iterator[BundleReads]:
    """The answers of one bundle's queries, for the length of the block (see :class:`BundleReads`)."""
    with ExitStack() as stack:
        yield BundleReads(store, evaluation, stack)


#: The bundle queries :func:`cards_of` reads.
CARD_QUERIES = (
    "card-spans",
    "card-judgments",
    "card-source-truth",
    "interventions",
    "unretrieved-citations",
    "cards",
)


def cards_of(
    reads: BundleReads,
    stale: tuple[bool, str | None] = (False, None),
    only: set[str] | None = None,
    *,
    outline: bool = False,
    brief: bool = False,
) -> list[VerdictRow]:
    """The bundle's acceptance cards (``only``: just the cards of these IRIs).

    ``outline``: each card's verdict, answerability, routes and spans, its
    judgments, source truth, contradictions, interventions and unretrieved
    citations left empty (what ``diff`` compares; those four tables are more
    than half of a card's recorded bytes at 10k claims). ``brief``: the same
    with its unretrieved citations (the fields the verdicts table and CSV
    show: building the rest was a third of building the cards at 10k claims).
    """
    # Each card's spans by relation. The rows come ordered by card and relation
    # (card-spans.rq), so each group is one run of rows; a group met again (an engine
    # that orders otherwise) is added to, never replaced.
    spans: dict[tuple[str, str], list[str]] = {}
    for key, group in groupby(
        zip(
            *reads.columns("card-spans", ("card", "relation", "spanId"), only_cards=only),
            strict=True,
        ),
        key=itemgetter(0, 1),
    ):
        spans.setdefault(key, []).extend(map(itemgetter(2), group))
    details = _CardDetails() if outline else _card_details(reads, only, brief=brief)
    judged, truth, contradictions = details.judged, details.truth, details.contradictions
    items, unretrieved = details.interventions, details.unretrieved
    result = []
    columns = reads.columns("cards", _CARD_COLUMNS, only_cards=only)
    # The ledger ids of each IRI column decoded together (ids.ledger_ids); the card's
    # IRI is kept beside its id, as the key of its spans and details.
    # (IRIs come as plain str from BundleReads.columns.)
    id_of = {
        name: ids.ledger_ids(cast(list[str | None], columns[at]))
        for at, name in enumerate(_CARD_COLUMNS)
        if name in _ID_COLUMNS
    }
    # By column: a dict per row cost a fifth of this function at 10k claims.
    for (
        card,
        card_id,
        run,
        question,
        output,
        claim,
        consequential,
        answerability_term,
        supported,
        retrieved_complete,
        citation_complete,
        cited_route,
        retrieved_route,
        verdict,
        correctness_known,
        route_authority,
        truth_route,
        not_applicable_reason,
    ) in zip(
        columns[0],
        *(id_of.get(name, column) for name, column in zip(_CARD_COLUMNS, columns, strict=True)),
        strict=True,
    ):
        answerability = ANSWERABILITY.get(answerability_term) if answerability_term else None
        result.append(
            VerdictRow(
                run=run,
                question=question,
                output=output,
                claim=claim,
                consequential=bool(consequential),
                answerability=answerability,
                supported=bool(supported),
                retrieved_complete=bool(retrieved_complete),
                citation_complete=bool(citation_complete),
                missing=sorted(set(spans.get((card, "missing"), ()))),
                inadmissible_citations=sorted(set(spans.get((card, "inadmissible"), ()))),
                cited_route=cited_route,
                retrieved_route=retrieved_route,
                verdict=VERDICTS[verdict],
                card=card_id,
                judgments=judged[card],
                interventions=items.get(card),
                correctness_known=bool(correctness_known),
                route_authority=AUTHORITY[route_authority],
                weighed_route=truth_route,
                source_truth=truth[card],
                contradictions=contradictions[card],
                not_applicable=answerability == "not applicable",
                not_applicable_reason=_text(not_applicable_reason),
                unretrieved_citations=sorted(unretrieved[card]),
                stale=stale[0],
                stale_reason=stale[1],
            )
        )
    return result


#: The columns of cards.rq that :func:`cards_of` reads, in the order it reads them.
_CARD_COLUMNS = (
    "card",
    "run",
    "question",
    "output",
    "claim",
    "consequential",
    "answerability",
    "supported",
    "retrievedComplete",
    "citationComplete",
    "citedRoute",
    "retrievedRoute",
    "verdict",
    "correctnessKnown",
    "routeAuthority",
    "truthRoute",
    "notApplicableReason",
)
#: Those of them that hold a minted IRI, read as its ledger id.
_ID_COLUMNS = frozenset(
    {"card", "run", "question", "output", "claim", "citedRoute", "retrievedRoute", "truthRoute"}
)


@dataclass
class _CardDetails:
    """What a card shows beside its verdict, by card IRI (empty for an outline)."""

    judged: dict[str, list[dict[str, str | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    truth: dict[str, list[dict[str, str | None]]] = field(default_factory=lambda: defaultdict(list))
    contradictions: dict[str, list[dict[str, str | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    interventions: dict[str, Any] = field(default_factory=dict)
    unretrieved: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def _card_details(reads: BundleReads, only: set[str] | None, *, brief: bool) -> _CardDetails:
    """The judgments, source truth, contradictions, interventions and unretrieved
    citations of the bundle's cards (``only``: of these IRIs; ``brief``: only the
    unretrieved citations)."""
    found = _CardDetails()
    for card, span in zip(
        *reads.columns("unretrieved-citations", ("card", "spanId"), only_cards=only), strict=True
    ):
        found.unretrieved[card].append(span)
    if brief:
        return found
    for card, judgment, question, decision, reason in zip(
        *reads.columns(
            "card-judgments",
            ("card", "judgmentId", "question", "decision", "reason"),
            only_cards=only,
        ),
        strict=True,
    ):
        found.judged[card].append(
            {"id": judgment, "question": question, "decision": decision, "reason": _text(reason)}
        )
    # A member's interval bounds and basis source come as rows of their own kind.
    stated: dict[tuple[str, str], dict[str, str | None]] = defaultdict(dict)
    for row in zip(
        *reads.columns("card-source-truth", _SOURCE_TRUTH_COLUMNS, only_cards=only), strict=True
    ):
        card, kind, span = row[0], row[1], row[2]
        if kind in _MEMBER_FACTS:
            column, key = _MEMBER_FACTS[kind]
            stated[(card, span)][key] = _text(row[column])
        elif kind == "member":
            found.truth[card].append(_member_truth(row))
        else:
            found.contradictions[card].append(
                {
                    "id": row[_CONTRADICTION],
                    "status": row[_STATUS],
                    "decision": _text(row[_DECISION]),
                }
            )
    for card, members in found.truth.items():
        for member in members:
            member.update(stated.get((card, str(member["span"])), {}))
    found.interventions, _ = outcomes.read_bundle(
        reads.select("interventions", only_cards=only, plain=True)
    )
    return found


def _text(value: Value) -> str | None:
    return None if value is None else str(value)


#: The columns of card-source-truth.rq that :func:`_card_details` reads, in this order.
_SOURCE_TRUTH_COLUMNS = (
    "card",
    "kind",
    "spanId",
    "versionId",
    "sourceId",
    "authority",
    "basis",
    "observed",
    "basisFromId",
    "effectiveFrom",
    "effectiveUntil",
    "contradictionId",
    "status",
    "decision",
)
_CONTRADICTION, _STATUS, _DECISION = 11, 12, 13

#: card-source-truth.rq's rows of a member's optional facts: kind -> (column, key).
_MEMBER_FACTS = {
    "basis-from": (_SOURCE_TRUTH_COLUMNS.index("basisFromId"), "basis_from"),
    "effective-from": (_SOURCE_TRUTH_COLUMNS.index("effectiveFrom"), "effective_from"),
    "effective-until": (_SOURCE_TRUTH_COLUMNS.index("effectiveUntil"), "effective_until"),
}


def _member_truth(row: tuple[Value, ...]) -> dict[str, str | None]:
    """One member of a card's weighed route, as card-source-truth.rq reads it (a row of
    :data:`_SOURCE_TRUTH_COLUMNS`; its optional facts, unstated here, are filled from
    the rows of their kinds)."""
    _, _, span, version, source, authority, basis, observed = row[:8]
    return {
        "span": str(span),
        "version": str(version),
        "source": str(source),
        "authority": AUTHORITY[str(authority)],
        "basis": str(basis),
        "basis_from": None,
        "effective_from": None,
        "effective_until": None,
        "observed_at": _text(observed),
    }


def _proportion(
    numerator: int, denominator: int, clusters: list[tuple[int, int]] | None = None
) -> Proportion:
    value = numerator / denominator if denominator else None
    clustered = clusters is not None and any(den > 1 for _, den in clusters)
    if clustered:
        assert clusters is not None
        interval, method = cluster_bootstrap(clusters), "question bootstrap 95%"
    else:
        interval, method = wilson(numerator, denominator), "Wilson 95%"
    if interval is None:
        return Proportion(numerator, denominator, value, None, None, None)
    return Proportion(numerator, denominator, value, interval[0], interval[1], method)


def _int(value: Value) -> int:
    # The metrics queries' counts are COUNTs and SUMs of 0/1: unbound only when
    # a term failed inside the aggregate, which must not read as 0.
    if type(value) is int:  # nearly every count: 120k of them for 10k questions' clusters
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise MetricError(f"a metrics count came back as {value!r}, not an integer")
    return int(value)


def metrics(store: Store, *, run: str | None = None) -> dict[str, RunMetrics]:
    """The metrics of the latest evaluation of each run (or of ``run``), keyed by run id."""
    result: dict[str, RunMetrics] = {}
    states = read_states(store, run=run)
    if not states:
        return result
    runs = [state.run for state in states]
    # On an on-disk store the review queue (each current run's rows as its evaluation
    # recorded them, else one query on the loads, mostly in the engine with Python's lock
    # free) runs beside the figures' decoding: the query was 0.3-0.5 s of 1.4 s at 10k
    # claims; on a server, beside the figures' fetch (the query, 0.4-0.9 s on Virtuoso
    # at 10k, is the server's work). The block waits for it: an error closes no store
    # under it.
    beside = store.folder is not None or store.server_caches
    with ThreadPoolExecutor(1) as side:
        known = {state.run: state for state in states}
        waiting = side.submit(queue.awaiting, store, runs, known) if beside else None
        for state in states:
            assert state.evaluation is not None
            with reading(store, state.evaluation) as reads:
                figures = metrics_of(reads, state.run)
            figures.stale, figures.stale_reason = state.stale, state.reason
            result[state.run] = figures
        awaiting = waiting.result() if waiting is not None else queue.awaiting(store, runs, known)
    for run_id, figures in result.items():
        figures.awaiting_adjudication = awaiting[run_id]
    return result


def bundle_metrics(store: Store, run: str, evaluation: catalog.Evaluation) -> RunMetrics:
    """The metrics of one recorded evaluation of ``run``, the latest or an earlier one."""
    with reading(store, evaluation) as reads:
        return metrics_of(reads, run)


def metrics_of(reads: BundleReads, run: str) -> RunMetrics:
    """The metrics of ``run``'s evaluation whose bundle ``reads`` reads."""
    row = reads.select("metrics")[0]
    per_question = reads.select("metrics-by-question")

    def clusters(num: str, den: str) -> list[tuple[int, int]]:
        return [(_int(q[num]), _int(q[den])) for q in per_question]

    metrics_ = RunMetrics(
        run=run,
        evaluation=ids.ledger_id(reads.bundle.removesuffix("/bundle")),
        complete_set_recall=_proportion(
            _int(row["retrievedComplete"]),
            _int(row["answerable"]),
            clusters("retrievedComplete", "answerable"),
        ),
        citation_set_completeness=_proportion(
            _int(row["citationComplete"]),
            _int(row["supported"]),
            clusters("citationComplete", "supported"),
        ),
        answer_correctness=_proportion(
            _int(row["answeredCorrectly"]),
            _int(row["correctnessJudged"]),
            clusters("answeredCorrectly", "correctnessJudged"),
        ),
        whole_answer=_proportion(_int(row["wholePassed"]), _int(row["wholeAnswerable"])),
        counts={
            "unsupported": _int(row["unsupported"]),
            "correctness_unknown": _int(row["correctnessUnknown"]),
            "answer_correctness_unknown": _int(row["answerCorrectnessUnknown"]),
            "omitted": _int(row["omitted"]),
            "blocked": _int(row["blocked"]),
            "not_found": _int(row["notFound"]),
            "not_applicable": _int(row["notApplicable"]),
            "appropriate_abstentions": _int(row["appropriateAbstentions"]),
            "escalated": _int(row["escalated"]),
        },
    )
    for stratum in reads.select("metrics-strata"):
        dimension = str(stratum["dimension"])
        name = str(stratum["stratum"])
        metrics_.strata.setdefault(dimension, {})[name] = {
            "complete_set_recall": _proportion(
                _int(stratum["retrievedComplete"]), _int(stratum["answerable"])
            ),
            "citation_set_completeness": _proportion(
                _int(stratum["citationComplete"]), _int(stratum["supported"])
            ),
            "answer_correctness": _proportion(
                _int(stratum["answeredCorrectly"]), _int(stratum["correctnessJudged"])
            ),
        }
    _, intervention_outcomes = outcomes.read_bundle(reads.select("interventions"))
    for variant, named in outcomes.figures(intervention_outcomes).items():
        metrics_.interventions[variant] = {
            name.replace("-", "_").replace(" ", "_"): _proportion(f.numerator, f.denominator)
            for name, f in named.items()
        }
    return metrics_


@dataclass(frozen=True)
class GateResult:
    """The release gate's decision for one run.

    ``passed`` only when the run's latest evaluation is current, the gate
    weighed at least one output claim under ``policy``, and every one it
    weighed is accepted. With nothing weighed, nothing was gated: not a pass
    (``nothing_gated``). ``reason`` says why not when the evaluation is
    missing or stale.
    """

    run: str
    passed: bool
    failing: list[VerdictRow]
    #: How many output claims the gate weighed under ``policy``.
    weighed: int
    stale: bool = False
    reason: str | None = None
    #: Output id -> why it fails, one sentence (:func:`gate`'s ``explain``).
    reasons: dict[str, str] = field(default_factory=dict)
    #: ``marked`` or ``all`` (:data:`GATE_POLICIES`).
    policy: str = GATE_POLICY
    #: The route authority an accepted output needs (:data:`AUTHORITY_POLICIES`).
    require_authority: str = AUTHORITY_POLICY
    #: Outputs accepted but failing only the required authority (their route authority's weaker).
    below_authority: list[str] = field(default_factory=list)

    @property
    def authority_policy(self) -> str | None:
        """The required authority in words, as the gate discloses it (None: none required)."""
        return authority_policy_text(self.require_authority)

    @property
    def consequential(self) -> int:
        """How many output claims the gate weighed (the name of the ``marked`` policy)."""
        return self.weighed

    @property
    def nothing_gated(self) -> bool:
        """A current evaluation in which the policy weighs no output claim."""
        return not self.stale and self.weighed == 0

    @property
    def state(self) -> str:
        """``passed``, ``failed``, ``nothing gated`` or ``stale`` (no current evaluation)."""
        if self.stale:
            return "stale"
        if self.nothing_gated:
            return "nothing gated"
        return "passed" if self.passed else "failed"


def gate_policy_text(policy: str) -> str:
    """The policy in words, as the gate and the report state it."""
    check_gate_policy(policy)
    if policy == "all":
        return "every output claim must be accepted (--consequential all)"
    return "every output claim asserting a claim marked consequential must be accepted"


def authority_policy_text(require: str) -> str | None:
    """The authority policy in words, as the gate and the report state it (None: no policy)."""
    check_authority_policy(require)
    if require == "none":
        return None
    needed = "primary" if require == "primary" else "primary or secondary"
    return (
        f"an accepted output passes only when its route authority is {needed} "
        f"(--require-authority {require}); this never changes a verdict"
    )


def check_authority_policy(require: str) -> None:
    """Refuse an authority policy that is not one of :data:`AUTHORITY_POLICIES`.

    Raises:
        GateError: an unknown authority policy.
    """
    if require not in AUTHORITY_POLICIES:
        raise GateError(
            f"unknown required authority {require!r} (one of {', '.join(AUTHORITY_POLICIES)})"
            + did_you_mean(require, AUTHORITY_POLICIES)
        )


def check_gate_policy(policy: str) -> None:
    """Refuse a policy that is not one of :data:`GATE_POLICIES`.

    Raises:
        GateError: an unknown policy.
    """
    if policy not in GATE_POLICIES:
        raise GateError(
            f"unknown gate policy {policy!r} (one of {', '.join(GATE_POLICIES)})"
            + did_you_mean(policy, GATE_POLICIES)
        )


def gate_rows(
    reads: BundleReads, *, policy: str, require_authority: str = AUTHORITY_POLICY
) -> list[Row]:
    """The output claims the gate weighs in the bundle ``reads`` reads under ``policy``, each
    with whether it passes under ``require_authority`` (queries/gate.rq)."""
    check_gate_policy(policy)
    check_authority_policy(require_authority)
    return reads.select("gate", policy=policy, authority=require_authority)


def gate(
    store: Store,
    *,
    run: str,
    consequential: str = GATE_POLICY,
    require_authority: str = AUTHORITY_POLICY,
    explain: Callable[[BundleReads, list[VerdictRow]], dict[str, str]] | None = None,
) -> GateResult:
    """Pass only when ``run``'s latest evaluation is current, weighs some output under the
    ``consequential`` policy, and accepts every output it weighs (each with a route
    authority at least ``require_authority``, when one is required).

    Reads only: a missing or stale evaluation fails the gate with its reason;
    a policy that weighs nothing gates nothing (never a pass). ``explain``: what
    says why each failing card fails (``reasons``), from the same answers, when the
    gate fails a current evaluation.
    """
    check_gate_policy(consequential)
    check_authority_policy(require_authority)
    known = catalog.runs(store)
    if run not in known:
        raise NotEvaluatedError(unknown_run(run, known))
    state = catalog.staleness(store, run)
    if state.evaluation is None:
        return GateResult(
            run,
            False,
            [],
            0,
            stale=True,
            reason=state.reason,
            policy=consequential,
            require_authority=require_authority,
        )
    # Which outputs the gate weighs and which pass it: queries/gate.rq decides.
    with reading(store, state.evaluation) as reads:
        weighed = gate_rows(reads, policy=consequential, require_authority=require_authority)
        blocking = {str(row["card"]) for row in weighed if not row["passes"]}
        # The failing cards from the same answers (or the same copy), built alone.
        cards = cards_of(reads, (state.stale, state.reason), blocking) if blocking else []
        failing = sorted(cards, key=lambda r: (r.question, r.output))
        passed = bool(weighed) and not blocking and not state.stale
        said = explain(reads, failing) if explain and not (passed or state.stale) else {}
    below = below_authority(weighed)
    return GateResult(
        run,
        passed,
        failing,
        len(weighed),
        stale=state.stale,
        reason=state.reason,
        reasons=said,
        policy=consequential,
        require_authority=require_authority,
        below_authority=below,
    )


def below_authority(weighed: list[Row]) -> list[str]:
    """The outputs of the gate's rows (:func:`gate_rows`) whose verdict is accept but that
    fail the required authority (``?authorityMet`` false), by ledger id: accepted, yet
    not passing (docs/spec/acceptance.md "Release gate": a policy, never a verdict)."""
    return sorted(
        ids.ledger_id(str(row["output"]))
        for row in weighed
        if not row["authorityMet"] and str(row["verdict"]) == f"{HG}Accept"
    )


def unknown_run(run: str, known: list[str]) -> str:
    """The message for an unknown run: the runs the store holds, the near misses first."""
    return unknown_name("run", run, known, where="runs in the store")
