"""Peer metrics: the figures other communities report, computed in the same store.

Each figure comes from one library query (``queries/peer-*.rq``) run on a
run's latest evaluation bundle, so it counts the same claim-cases as
hopgate's own metrics. Python only divides the sums the queries return.
Definitions and sources are in each query's header and in the README.

No claim-case drops out of a sum silently: the queries compute fractions in
xsd:double and return, beside each sum, how many per-claim-case terms entered
it; a sum that is unbound, or has fewer terms than claim-cases it should cover,
raises :class:`~hopgate.errors.MetricError` instead of reporting a short figure
(docs/spec/records.md "Arithmetic").
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from hopgate.audit.results import read_states
from hopgate.errors import MetricError
from hopgate.library.artefacts import library_query
from hopgate.library.steps import reading_projection
from hopgate.store import IRI, Row, Store, answers, snapshots
from hopgate.store.catalog import Evaluation


@dataclass(frozen=True)
class PeerMetric:
    """One peer figure: its name, who defines it, numerator, denominator, value.

    The numerator is a count (an int), or for a mean (MAP, MRR, F1, macro
    precision, context recall) the sum of the per-claim-case scores (a float).
    """

    name: str
    source: str
    numerator: float
    denominator: int
    value: float | None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of the figure."""
        return asdict(self)


#: (query id, [(metric name, defined by, numerator column, denominator column)]), one
#: entry per query of ``PEER_QUERIES``, in its order (tests/library/test_projection.py).
PEERS: list[tuple[str, list[tuple[str, str, str, str]]]] = [
    (
        "peer-multihop-rag",
        [
            ("hits@4", "MultiHop-RAG", "hits4", "answerable"),
            ("hits@10", "MultiHop-RAG", "hits10", "answerable"),
            ("map@10", "MultiHop-RAG", "apSum", "answerable"),
            ("mrr@10", "MultiHop-RAG", "rrSum", "answerable"),
        ],
    ),
    (
        "peer-ragas-context-recall",
        [("id-based context recall", "Ragas", "recallSum", "answerable")],
    ),
    (
        "peer-hotpotqa-sp",
        [
            ("supporting-fact em", "HotpotQA", "emSum", "answerable"),
            ("supporting-fact f1", "HotpotQA", "f1Sum", "answerable"),
        ],
    ),
    (
        "peer-fever",
        [
            ("evidence precision", "FEVER", "precisionSum", "answerable"),
            ("evidence recall", "FEVER", "recalled", "answerable"),
            ("label accuracy", "FEVER", "labelCorrect", "claimCases"),
            ("strict score", "FEVER", "strict", "claimCases"),
        ],
    ),
]


#: Query id -> [(terms column, expected column)]: each sum of per-claim-case
#: scores is returned with the count of terms that entered it, which must equal
#: the count of claim-cases the sum covers.
TERMS: dict[str, list[tuple[str, str]]] = {
    "peer-multihop-rag": [("apTerms", "hitCases"), ("rrTerms", "hitCases")],
    "peer-ragas-context-recall": [("recallTerms", "answerable")],
    "peer-hotpotqa-sp": [("emTerms", "answerable"), ("f1Terms", "answerable")],
    "peer-fever": [("precisionTerms", "answerable")],
}


def _number(query_id: str, row: Row, column: str) -> float:
    value = row[column]
    if value is None:
        raise MetricError(
            f"{query_id}: ?{column} is unbound: an arithmetic error inside its aggregate "
            "(a term that did not compute) would drop claim-cases from the figure"
        )
    if isinstance(value, bool):
        raise MetricError(f"{query_id}: ?{column} is a boolean, not a number")
    if isinstance(value, int):
        return value  # a count stays an integer (4, not 4.0)
    if isinstance(value, float | Decimal):
        return float(value)
    return float(str(value))


def _check_terms(query_id: str, row: Row) -> None:
    for terms, expected in TERMS.get(query_id, []):
        have, want = _number(query_id, row, terms), _number(query_id, row, expected)
        if have != want:
            raise MetricError(
                f"{query_id}: {have:.0f} per-claim-case term(s) entered the sum, "
                f"expected {want:.0f} (?{terms} against ?{expected}): a term that did not "
                "compute would drop claim-cases from the figure"
            )


def peer_metrics_for_bundle(store: Store, bundle: str, *, threads: int = 1) -> list[PeerMetric]:
    """Every peer figure of one evaluation bundle, in the order of ``PEERS``.

    ``threads``: how many of the queries run at once (on a store in this
    process that answers without the GIL, such as the peer copy).

    Raises:
        MetricError: a sum or a count came back unbound, or a sum has fewer
            per-claim-case terms than the claim-cases it covers.
    """

    def ask(query_id: str) -> Row:
        return store.select(library_query(query_id).text, params={"bundle": IRI(bundle)})[0]

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return _figures(list(pool.map(ask, [query_id for query_id, _ in PEERS])))


def _figures(rows: list[Row]) -> list[PeerMetric]:
    """The figures of the peer queries' rows, one row per query of ``PEERS``, in its order."""
    result = []
    for (query_id, figures), row in zip(PEERS, rows, strict=True):
        _check_terms(query_id, row)
        for name, source, numerator, denominator in figures:
            num = _number(query_id, row, numerator)
            den = int(_number(query_id, row, denominator))
            result.append(PeerMetric(name, source, num, den, num / den if den else None))
    return result


def peer_metrics(store: Store, *, run: str | None = None) -> dict[str, list[PeerMetric]]:
    """The peer figures of the latest evaluation of each run (or of ``run``), by run id.

    Raises:
        MetricError: a figure's sum came back unbound or short of terms (see
            :func:`peer_metrics_for_bundle`).
    """
    result = {}
    for state in read_states(store, run=run):
        assert state.evaluation is not None
        result[state.run] = evaluation_peer_metrics(store, state.evaluation)
    return result


def evaluation_peer_metrics(store: Store, evaluation: Evaluation) -> list[PeerMetric]:
    """The peer figures of one recorded evaluation (see :func:`peer_metrics_for_bundle`)."""
    # The evaluation recorded the queries' rows (hopgate.store.answers): read in
    # place, 12 s -> under 1 s a run at 10k claims (bench/README.md).
    recorded = answers.read(store, evaluation.bundle)
    if recorded is not None:
        bound = {"bundle": IRI(evaluation.bundle)}
        rows = [recorded.get(query_id, bound) for query_id, _ in PEERS]
        if all(found is not None and len(found) == 1 for found in rows):
            return _figures([found[0] for found in rows if found is not None])
    # Otherwise the queries read every evidence triple many times: on an on-disk
    # store they run on an in-memory copy of the bundle (from its snapshot) and
    # of what they read of the loads it used (each load's reading snapshot; a
    # load without one is read from the store; bench/README.md).
    with snapshots.working_copy(
        store, reading_projection(), [evaluation.bundle, *evaluation.used]
    ) as copy:
        # The memory copy of an on-disk store answers two queries at once (FEVER's
        # four: 2.8 -> 1.7 s). Elsewhere one by one: a remote store's copy is in
        # memory too, but its time is the transfer, and this was not measured there.
        threads = 2 if store.folder is not None else 1
        return peer_metrics_for_bundle(copy, evaluation.bundle, threads=threads)


__all__ = [
    "PEERS",
    "TERMS",
    "PeerMetric",
    "evaluation_peer_metrics",
    "peer_metrics",
    "peer_metrics_for_bundle",
]
