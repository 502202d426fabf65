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

#: The updates that fill an evaluation's scratch graph, in order.
SCRATCH_UPDATES = (
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
)


@functools.cache
def evaluation_projection() -> Projection:
    """The quads the evaluation's updates and queries can read (hopgate.library.projection)."""
    texts = [library_update(name).text for name in SCRATCH_UPDATES]
    texts += [library_query(name).text for name in RESULT_QUERIES]
    return projection_of(texts)


@functools.cache
def reading_projection() -> Projection:
    """The quads the queries that read a bundle (``BUNDLE_QUERIES``) can read."""
    return projection_of(library_query(name).text for name in BUNDLE_QUERIES)


__all__ = [
    "BUNDLE_QUERIES",
    "RESULT_QUERIES",
    "SCRATCH_UPDATES",
    "evaluation_projection",
    "reading_projection",
]
