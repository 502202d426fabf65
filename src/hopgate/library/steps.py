"""The evaluation's steps: the ordered rule files it runs, and what each can read.

An evaluation of a run is the scratch updates in order, then the result
queries; the reads of a recorded evaluation are the bundle queries. Each is
a file in ``queries/`` (its ``# spec:`` header line names the sections of
docs/spec it implements).
The projections list the quads those files can match, so that a working copy
or a snapshot holds no more than they read (hopgate.library.projection).
"""

from __future__ import annotations

import functools

from hopgate.library.artefacts import library_query, library_update
from hopgate.library.projection import Projection, projection_of
from hopgate.library.reader_rule import TEXTS_QUERY

#: The updates that fill an evaluation's scratch graph, in order.
SCRATCH_UPDATES = (
    "evaluation-run",
    "evaluation-adjudication",
    "evaluation-eligibility",
    "evaluation-coverage",
    "evaluation-routes",
    "evaluation-claim-sets",
)
#: The queries that read an evaluation's results, after the scratch updates.
RESULT_QUERIES = (
    "evaluation-verdicts",
    "evaluation-route-candidates",
    "evaluation-source-truth",
    "card-links",
    "evaluation-missing-hops",
    "evaluation-inadmissible-citations",
    "evaluation-admissibility",
    "evaluation-span-coverage",
    "evaluation-claim-cases",
    "evaluation-annotations",
    "evaluation-interventions",
)
#: The bundle queries only the report reads (hopgate.report.data): each card's spans,
#: their texts, their coverage, and the verdicts per stratum.
REPORT_QUERIES = ("report-spans", "report-span-texts", "report-coverage", "verdict-strata")
#: The queries that read an evaluation's bundle (hopgate.audit.results).
BUNDLE_QUERIES = (
    "cards",
    "card-spans",
    "card-source-truth",
    "gate",
    "metrics",
    "metrics-by-question",
    "metrics-strata",
    "card-judgments",
    "interventions",
    "unretrieved-citations",
    # The verdict rule and contradictions behind each card's reason sentence,
    # which `gate` prints for each failing output (hopgate.report.explain.reasons).
    "report-cards",
    "report-contradictions",
    # The rest of what the report and `explain` show of each card.
    *REPORT_QUERIES,
)
#: The queries of the figures other benchmarks report (``metrics --peers``;
#: hopgate.audit.peers): recorded with the bundle queries, else run on a copy of
#: a bundle and what they read of its loads.
PEER_QUERIES = ("peer-multihop-rag", "peer-ragas-context-recall", "peer-hotpotqa-sp", "peer-fever")
#: The query an evaluation records for its run over the loads it used, not its bundle:
#: the review queue (queries/review-queue.rq, which reads the published records only).
#: While the evaluation is current, no load published since holds anything the run
#: depends on, and the queue's rows for the run come from those same loads
#: (hopgate.store.queue_answers says why).
RUN_QUEUE = "review-queue"

#: What the release gate weighs (docs/spec/acceptance.md "Release gate"; queries/gate.rq):
#: ``marked``, the outputs asserting a claim marked consequential (the default: the
#: ledger's ``consequential`` says what stops a release); ``all``, every output claim.
GATE_POLICIES = ("marked", "all")
GATE_POLICY = "marked"
#: The authority the gate may require of an accepted output's route (docs/spec/acceptance.md
#: "Source truth"; queries/gate.rq): ``none`` (the default), ``primary``, or ``secondary``
#: (secondary or primary). A disclosed policy: it never changes a verdict.
AUTHORITY_POLICIES = ("none", "primary", "secondary")
AUTHORITY_POLICY = "none"


def recorded_requests() -> list[tuple[str, dict[str, str]]]:
    """The queries whose answers an evaluation records (:mod:`hopgate.store.answers`),
    with their parameters besides ``?bundle``: every bundle query, the gate under
    every policy, and the peer queries."""
    found: list[tuple[str, dict[str, str]]] = []
    for name in (*BUNDLE_QUERIES, *PEER_QUERIES):
        if name == "gate":
            found += [
                (name, {"policy": policy, "authority": authority})
                for policy in GATE_POLICIES
                for authority in AUTHORITY_POLICIES
            ]
        else:
            found.append((name, {}))
    return found


@functools.cache
def evaluation_projection() -> Projection:
    """The quads the evaluation's updates and queries can read (hopgate.library.projection),
    and those the walk of a run's inputs reads (``queries/run-inputs.rq``): a run's first
    evaluation asks it of a copy of the loads (hopgate.decide.evaluation)."""
    texts = [library_update(name).text for name in SCRATCH_UPDATES]
    texts += [library_query(name).text for name in (*RESULT_QUERIES, "run-inputs")]
    return projection_of(texts)


@functools.cache
def reading_projection() -> Projection:
    """The quads the queries that read a bundle (``BUNDLE_QUERIES`` and ``PEER_QUERIES``)
    can read.

    One projection for both: the evaluation records the answers of all of them
    on one copy of this projection of its loads (hopgate.store.answers). The
    peer queries add the retrievals' ranks and usages and the citations, about
    a third more quads; with a projection of their own, ``metrics --peers``
    parsed a copy of them at every read (12 s at 10k claims, bench/README.md).
    """
    return projection_of(library_query(name).text for name in (*BUNDLE_QUERIES, *PEER_QUERIES))


@functools.cache
def reader_projection() -> Projection:
    """The quads the reader rule (``queries/withheld.rq``) and the filter's texts can read:
    readers, spans' versions, offsets and quotes, versions' texts, and the Span and
    Version classes.

    Loads keep a snapshot of it, so the reader filter asks the rule of a memory
    copy instead of the disk store (hopgate.audit.withholding), and finds the
    withheld texts in the same copy: looked up on the disk store they were
    0.4-1.4 s of every read at 10k claims.
    """
    return projection_of([library_query("withheld").text, TEXTS_QUERY])


def load_projections() -> list[Projection]:
    """The snapshots a load graph keeps (hopgate.store.snapshots): what the evaluation,
    the bundle and peer queries, and the reader rule can read of it."""
    return [evaluation_projection(), reading_projection(), reader_projection()]


__all__ = [
    "AUTHORITY_POLICIES",
    "AUTHORITY_POLICY",
    "BUNDLE_QUERIES",
    "REPORT_QUERIES",
    "GATE_POLICIES",
    "GATE_POLICY",
    "PEER_QUERIES",
    "RESULT_QUERIES",
    "RUN_QUEUE",
    "SCRATCH_UPDATES",
    "evaluation_projection",
    "load_projections",
    "reader_projection",
    "reading_projection",
    "recorded_requests",
]
