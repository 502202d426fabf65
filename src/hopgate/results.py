"""Reading evaluations: verdict rows, metrics with intervals, and the release gate.

Results are always read from the latest evaluation bundle of a run, and that
bundle is made first when there is none or the store's loads changed since,
so a reader never sees stale results.
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from hopgate import ids
from hopgate.errors import MetricError
from hopgate.evaluate import (
    ANSWERABILITY,
    BUNDLE_QUERIES,
    VERDICTS,
    evaluate,
    evidence_graphs,
    reading_projection,
)
from hopgate.library import library_query
from hopgate.statistics import cluster_bootstrap, wilson
from hopgate.store import IRI, Row, Store, Value

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

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate verdicts``."""
        return asdict(self)


@dataclass(frozen=True)
class Proportion:
    """A figure with its numerator and denominator; value None for an empty denominator."""

    numerator: int
    denominator: int
    value: float | None
    ci_low: float | None
    ci_high: float | None
    interval: str | None


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

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate metrics`` (one run's entry)."""
        return asdict(self)


def _id(value: Value) -> str | None:
    return None if value is None else ids.ledger_id(str(value))


def current_bundles(store: Store, *, run: str | None = None) -> dict[str, str]:
    """The latest, up-to-date evaluation bundle of each run (evaluating where needed)."""
    records = evaluate(store, run=run)
    return {record.run: record.graph for record in records}


def verdicts(store: Store, *, run: str | None = None) -> list[VerdictRow]:
    """The acceptance cards of the latest evaluation of each run (or of ``run``)."""
    rows: list[VerdictRow] = []
    for bundle in current_bundles(store, run=run).values():
        with _reading_copy(store, bundle) as copy:
            rows.extend(_cards(copy, bundle))
    return sorted(rows, key=lambda r: (r.run, r.question, r.output))


def _reading_copy(store: Store, bundle: str) -> AbstractContextManager[Store]:
    """Where to read one bundle: an in-memory copy when snapshots make it cheap (on disk)."""
    return store.reading_copy(reading_projection(), [*evidence_graphs(store), bundle])


def _bundle_select(store: Store, query_id: str, bundle: str) -> list[Row]:
    # The reading copy holds only what the listed queries read.
    assert query_id in BUNDLE_QUERIES, f"{query_id} must be listed in BUNDLE_QUERIES"
    return store.select(library_query(query_id).text, params={"bundle": IRI(bundle)})


def _cards(store: Store, bundle: str) -> list[VerdictRow]:
    spans: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in _bundle_select(store, "card-spans", bundle):
        spans[str(row["card"])][str(row["relation"])].append(str(row["spanId"]))
    result = []
    for row in _bundle_select(store, "cards", bundle):
        card = str(row["card"])
        result.append(
            VerdictRow(
                run=ids.ledger_id(str(row["run"])),
                question=ids.ledger_id(str(row["question"])),
                output=ids.ledger_id(str(row["output"])),
                claim=_id(row["claim"]),
                consequential=bool(row["consequential"]),
                answerability=ANSWERABILITY.get(str(row["answerability"]))
                if row["answerability"]
                else None,
                supported=bool(row["supported"]),
                retrieved_complete=bool(row["retrievedComplete"]),
                citation_complete=bool(row["citationComplete"]),
                missing=sorted(set(spans[card]["missing"])),
                inadmissible_citations=sorted(set(spans[card]["inadmissible"])),
                cited_route=_id(row["citedRoute"]),
                retrieved_route=_id(row["retrievedRoute"]),
                verdict=VERDICTS[str(row["verdict"])],
                card=ids.ledger_id(card),
            )
        )
    return result


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
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise MetricError(f"a metrics count came back as {value!r}, not an integer")
    return int(value)


def metrics(store: Store, *, run: str | None = None) -> dict[str, RunMetrics]:
    """The metrics of the latest evaluation of each run (or of ``run``), keyed by run id."""
    result = {}
    for run_id, bundle in current_bundles(store, run=run).items():
        with _reading_copy(store, bundle) as copy:
            result[run_id] = _run_metrics(copy, run_id, bundle)
    return result


def _run_metrics(store: Store, run: str, bundle: str) -> RunMetrics:
    row = _bundle_select(store, "metrics", bundle)[0]
    per_question = _bundle_select(store, "metrics-by-question", bundle)

    def clusters(num: str, den: str) -> list[tuple[int, int]]:
        return [(_int(q[num]), _int(q[den])) for q in per_question]

    metrics_ = RunMetrics(
        run=run,
        evaluation=ids.ledger_id(bundle.removesuffix("/bundle")),
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
            _int(row["answerable"]),
            clusters("answeredCorrectly", "answerable"),
        ),
        whole_answer=_proportion(_int(row["wholePassed"]), _int(row["wholeAnswerable"])),
        counts={
            "unsupported": _int(row["unsupported"]),
            "omitted": _int(row["omitted"]),
            "blocked": _int(row["blocked"]),
            "not_found": _int(row["notFound"]),
            "appropriate_abstentions": _int(row["appropriateAbstentions"]),
            "escalated": _int(row["escalated"]),
        },
    )
    for stratum in _bundle_select(store, "metrics-strata", bundle):
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
                _int(stratum["answeredCorrectly"]), _int(stratum["answerable"])
            ),
        }
    return metrics_


@dataclass(frozen=True)
class GateResult:
    """The release gate's decision for one run."""

    run: str
    passed: bool
    failing: list[VerdictRow]
    consequential: int


def gate(store: Store, *, run: str) -> GateResult:
    """Pass only when every consequential claim's output of ``run`` is accepted."""
    rows = [row for row in verdicts(store, run=run) if row.consequential]
    failing = [row for row in rows if row.verdict != "accept"]
    return GateResult(run=run, passed=not failing, failing=failing, consequential=len(rows))
