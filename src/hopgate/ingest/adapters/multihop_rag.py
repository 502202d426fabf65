"""MultiHop-RAG: the query file (``query``, ``answer``, ``question_type``, ``evidence_list``).

Mapping:

- each evidence article, identified by its ``url`` -> a ``source`` (address
  ``url``, title ``title``) with one ``version`` ``<url>@facts``. The corpus of
  article bodies is not part of the query file, so the version retains only
  the facts quoted from the article (distinct facts in order of first use,
  one per line) and says so in ``x-retained: "quoted facts only"``; its
  ``published_at`` is the article's;
- each distinct ``fact`` of an article -> a ``span`` (offsets and exact quote
  in that version), shared by every query that cites it;
- each query -> a ``question`` (``x-question-type`` keeps ``question_type``)
  requiring one ``claim`` (``"<query> <answer>"``); its ``evidence_list``
  -> one adjudicated ``evidence_set`` of the fact spans;
- null queries (empty ``evidence_list``) get no set: their claim is not
  found, never answerable.

Lost: ``author``, ``category`` and ``source`` (the publisher's name) of each
evidence item, and the article bodies (not supplied). Records carry the query
``id`` when present, else the position in the file (``mhr-<i>``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hopgate.errors import LedgerError
from hopgate.ingest.adapters.common import (
    Record,
    evaluation,
    first_time,
    id_text,
    kept_apart,
    read_json,
    require,
)

#: The MultiHop-RAG news corpus runs from September to December 2023.
OBSERVED = "2024-01-01"
EVALUATION = "multihop-rag"


def records(inputs: list[Path]) -> Iterator[Record]:
    """Ledger records for MultiHop-RAG query files.

    Raises:
        LedgerError: a malformed query or evidence item (file, record, field).
    """
    articles: dict[str, dict[str, object]] = {}
    facts: dict[str, list[str]] = {}
    body: list[Record] = []
    seen: dict[str, str] = {}  # query id -> where it was first read
    for number, path in enumerate(inputs):
        data = read_json(path)
        if not isinstance(data, list):
            raise LedgerError("expected a JSON list of queries", file=str(path))
        for i, item in enumerate(data):
            where = f"[{i}]"
            qid = (
                id_text(item["id"], file=path, record=where, field="id")
                if isinstance(item, dict) and "id" in item
                else f"mhr-{i}"
                if number == 0
                else f"mhr-{number}-{i}"
            )
            first_time(seen, qid, "query id", file=path, record=where, field="id")
            query = require(item, "query", str, file=path, record=where)
            answer = require(item, "answer", str, file=path, record=where)
            evidence = require(item, "evidence_list", list, file=path, record=where)
            members = []
            for e, fact in enumerate(evidence):
                name = f"evidence_list[{e}]"
                url = require(fact, "url", str, file=path, record=f"{where}.{name}")
                if not url:
                    raise LedgerError(
                        "empty url", file=str(path), record=where, field=f"{name}.url"
                    )
                # The url is the source's, version's and spans' id.
                url = kept_apart(url, file=path, record=where, field=f"{name}.url")
                text = require(fact, "fact", str, file=path, record=f"{where}.{name}")
                if not text.strip():
                    raise LedgerError(
                        "empty fact", file=str(path), record=where, field=f"{name}.fact"
                    )
                articles.setdefault(
                    url, {"title": fact.get("title"), "at": fact.get("published_at")}
                )
                known = facts.setdefault(url, [])
                if text not in known:
                    known.append(text)
                members.append(_span_id(url, known.index(text)))
            body.append({"type": "claim", "id": qid, "text": f"{query} {answer}"})
            question: Record = {
                "type": "question",
                "id": qid,
                "text": query,
                "answer": answer,
                "claims": [qid],
            }
            if isinstance(item.get("question_type"), str):
                question["x-question-type"] = item["question_type"]
            body.append(question)
            if members:
                body.append(
                    {
                        "type": "evidence_set",
                        "id": qid,
                        "claim": qid,
                        "members": list(dict.fromkeys(members)),
                        "inference": "MultiHop-RAG evidence list (the query needs every fact)",
                        "status": "adjudicated",
                        "annotation": {"version": 1, "by": "MultiHop-RAG", "at": OBSERVED},
                    }
                )
    yield from evaluation(EVALUATION, cutoff=OBSERVED, corpus="News articles (MultiHop-RAG)")
    for url, article in articles.items():
        source: Record = {"type": "source", "id": url, "address": url}
        if isinstance(article["title"], str):
            source["title"] = article["title"]
        yield source
        text = "\n".join(facts[url])
        version: Record = {
            "type": "version",
            "id": f"{url}@facts",
            "source": url,
            "text": text,
            "observed_at": OBSERVED,
            "x-retained": "quoted facts only (article body not supplied)",
        }
        if isinstance(article["at"], str):
            version["published_at"] = article["at"]
        yield version
        position = 0
        for number, fact in enumerate(facts[url]):
            yield {
                "type": "span",
                "id": _span_id(url, number),
                "version": f"{url}@facts",
                "start": position,
                "end": position + len(fact),
                "quote": fact,
            }
            position += len(fact) + 1
    yield from body


def _span_id(url: str, number: int) -> str:
    return f"{url}#fact{number}"
