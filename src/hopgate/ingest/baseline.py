"""Baseline runs: a BM25 retriever over the store's own spans, for data without system outputs.

A baseline run retrieves, for every question of its evaluation (the
questions of the ledgers that define the evaluation or a run of it, and those
its runs answer; ``queries/baseline-questions.rq``), the top ``k`` reference
spans of that evaluation's corpus (``queries/baseline-corpus.rq``) by BM25
(the ``bm25s`` library) from the question text, and records one output per required claim citing the top span (``top1``) or all
``k`` (``topk``). It measures retrieval and citation only: no answer is
generated, so every output is recorded as correct (stated in the run's
``x-baseline`` field) and the run id starts with ``baseline-`` so that every
verdict row and metrics table names it as a baseline. The run is written as an
ordinary ledger (retrieved lists in rank order) and loaded like any other.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hopgate import ids
from hopgate.errors import BaselineError
from hopgate.ingest.adapters.common import write_ledger
from hopgate.library.artefacts import library_query
from hopgate.scratch import folder as scratch_folder
from hopgate.store import IRI, Store
from hopgate.store.terms import flag

if TYPE_CHECKING:
    from hopgate.ingest.loader import LoadResult

RETRIEVERS = ("bm25",)
CITERS = ("top1", "topk")
#: What every baseline output states in place of an answer.
NO_ANSWER = "(baseline: retrieval and citation only; no answer generated)"


@dataclass(frozen=True)
class BaselineResult:
    """The baseline run made: its id, questions, spans indexed, the ledger and its load."""

    run: str
    questions: int
    spans: int
    ledger: str
    load: LoadResult
    #: How many of the spans searched are members of an evidence set: all of them (the
    #: gold passages alone, as ``import rag`` declares) make the baseline know where the
    #: answers are, and its recall says nothing about a retriever.
    members: int = 0


def baseline_run_id(retriever: str, k: int, citer: str) -> str:
    """The id of the baseline run with these settings (``baseline-bm25-k10-top1``)."""
    return f"baseline-{retriever}-k{k}-{citer}"


def is_baseline(run: str) -> bool:
    """Whether a run id names a baseline run."""
    return run.startswith("baseline-")


def _evaluation(store: Store, evaluation: str | None) -> str:
    rows = store.select("SELECT ?id WHERE { ?e a hg:Evaluation ; hg:ledgerId ?id } ORDER BY ?id")
    known = [str(row["id"]) for row in rows]
    if evaluation is not None:
        if evaluation not in known:
            raise BaselineError(
                f"no evaluation {evaluation!r} in the store (known: {', '.join(known) or 'none'})"
            )
        return evaluation
    if len(known) != 1:
        raise BaselineError(
            "choose the evaluation the baseline run is for with --evaluation "
            f"(the store holds {', '.join(known) or 'none'})"
        )
    return known[0]


def rank(corpus: list[str], queries: list[str], *, k: int) -> list[list[int]]:
    """BM25 (bm25s, English stop words) top-``k`` corpus indices per query, best first.

    Documents scoring 0 (no query term in common) are not returned, so a
    query may get fewer than ``k``.
    """
    import bm25s

    tokens = bm25s.tokenize(corpus, stopwords="en", return_ids=False, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    query_tokens = bm25s.tokenize(queries, stopwords="en", return_ids=False, show_progress=False)
    size = min(k, len(corpus))
    results, scores = retriever.retrieve(query_tokens, k=size, show_progress=False)
    ranked = []
    for row, row_scores in zip(results.tolist(), scores.tolist(), strict=True):
        ranked.append([int(doc) for doc, score in zip(row, row_scores, strict=True) if score > 0])
    return ranked


def baseline(
    store: Store,
    *,
    retriever: str = "bm25",
    k: int = 10,
    citer: str = "top1",
    evaluation: str | None = None,
    output: Path | None = None,
) -> BaselineResult:
    """Make a baseline run over the store's spans and load it; returns what was made.

    Raises:
        BaselineError: an unknown retriever or citer, k < 1, no indexable span,
            no question, or an ambiguous evaluation.
    """
    if retriever not in RETRIEVERS:
        raise BaselineError(f"unknown retriever {retriever!r} (known: {', '.join(RETRIEVERS)})")
    if citer not in CITERS:
        raise BaselineError(f"unknown citer {citer!r} (known: {', '.join(CITERS)})")
    if k < 1:
        raise BaselineError("k must be at least 1")
    evaluation_id = _evaluation(store, evaluation)
    # Only the evaluation's own questions and corpus: another benchmark in the
    # same store is neither asked nor searched.
    scope = {"evaluation": IRI(ids.mint("evaluation", evaluation_id))}
    spans = store.select(library_query("baseline-corpus").text, params=scope)
    if not spans:
        raise BaselineError(
            f"no span with retained text in evaluation {evaluation_id!r}: nothing to retrieve from"
        )
    questions: dict[str, tuple[str, list[str]]] = {}
    for row in store.select(library_query("baseline-questions").text, params=scope):
        text, claims = questions.setdefault(str(row["questionId"]), (str(row["text"]), []))
        if row["claimId"] is not None:
            claims.append(str(row["claimId"]))
    if not questions:
        raise BaselineError(f"no question in evaluation {evaluation_id!r}")
    span_ids = [str(row["spanId"]) for row in spans]
    order = sorted(questions)
    ranked = rank([str(row["text"]) for row in spans], [questions[q][0] for q in order], k=k)
    run = baseline_run_id(retriever, k, citer)
    records: list[dict[str, Any]] = [
        {
            "type": "run",
            "id": run,
            "evaluation": evaluation_id,
            "system": f"hopgate baseline: bm25s {metadata.version('bm25s')}",
            "x-baseline": {
                "retriever": retriever,
                "k": k,
                "citer": citer,
                "outputs": "recorded as correct: the baseline measures retrieval and "
                "citation, it generates no answer",
            },
        }
    ]
    for question, hits in zip(order, ranked, strict=True):
        retrieved = [span_ids[i] for i in hits]
        cites = retrieved[:1] if citer == "top1" else retrieved
        records.append(
            {
                "type": "case",
                "run": run,
                "question": question,
                "retrieved": retrieved,
                "outputs": [
                    {
                        "id": f"{run}/{question}/{claim}",
                        "text": NO_ANSWER,
                        "claim": claim,
                        "correct": True,
                        "cites": cites,
                    }
                    for claim in questions[question][1]
                ],
            }
        )
    # The loader is imported here: ``metrics`` reads baseline_labels and loads nothing.
    from hopgate.ingest.loader import load

    if output is None:
        with scratch_folder("baseline") as scratch:
            path = scratch / f"{run}.jsonl"
            write_ledger(records, path)
            loaded = load(store, path)
    else:
        write_ledger(records, output)
        loaded = load(store, output)
    return BaselineResult(
        run=run,
        questions=len(order),
        spans=len(span_ids),
        ledger=str(output) if output else "(temporary)",
        load=loaded,
        members=sum(flag(row["member"]) for row in spans),
    )


def baseline_settings(store: Store) -> dict[str, dict[str, Any]]:
    """The ``x-baseline`` settings of every baseline run in the store, by run id."""
    rows = store.select(
        "SELECT ?id ?extension WHERE { ?run a hg:Run ; hg:ledgerId ?id ; hg:extension ?extension }"
    )
    found: dict[str, dict[str, Any]] = defaultdict(dict)
    for row in rows:
        data = json.loads(str(row["extension"]))
        if isinstance(data, dict) and isinstance(data.get("x-baseline"), dict):
            found[str(row["id"])] = data["x-baseline"]
    return dict(found)


def baseline_labels(store: Store) -> dict[str, dict[str, Any]]:
    """The settings of every baseline run, by run id, each with a one-line ``summary``."""
    labels = {}
    for run, settings in baseline_settings(store).items():
        summary = (
            f"{settings.get('retriever')} k={settings.get('k')} citer={settings.get('citer')}; "
            "outputs recorded as correct, no answer generated"
        )
        labels[run] = {**settings, "summary": summary}
    return labels


__all__ = [
    "BaselineResult",
    "baseline",
    "baseline_labels",
    "baseline_run_id",
    "baseline_settings",
    "is_baseline",
    "rank",
]
