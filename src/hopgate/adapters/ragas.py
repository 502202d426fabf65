"""Ragas samples: JSON Lines of ``user_input``, ``response``, ``reference``,
``retrieved_contexts``, ``retrieved_context_ids``, ``reference_context_ids``.

Mapping (line N of a file is sample ``ragas-N``; several files number on):

- each context id -> a ``source`` (address ``urn:ragas:context:<id>``) and a
  ``version`` ``context:<id>``. When some sample retrieved that context, its
  text (``retrieved_contexts`` aligned with ``retrieved_context_ids``) is
  retained and the context is one ``span`` covering the whole text;
  otherwise (a reference context never retrieved) the text is withheld and
  the span is addressed by the locator ``context <id>``;
- the sample -> a ``question`` (``user_input``) requiring one ``claim``
  (``reference``, the reference answer); its ``reference_context_ids`` ->
  one adjudicated ``evidence_set`` (a sample without reference ids has no
  set: its claim is not found);
- the sample's retrieval -> a ``case`` of the run ``ragas-run`` retrieving the
  context spans in ``retrieved_context_ids`` order (the rank).

Lost: ``response`` has no correctness judgment in the sample format, so it
is kept as ``x-response`` on the case and no output claim is recorded.
A context id retrieved with two different texts is an error naming the line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hopgate.adapters.common import Record, evaluation, read_jsonl, require
from hopgate.errors import LedgerError

OBSERVED = "2024-01-01"
EVALUATION = "ragas"
RUN = "ragas-run"


def records(inputs: list[Path]) -> Iterator[Record]:
    """Ledger records for Ragas sample files.

    Raises:
        LedgerError: a malformed sample, misaligned contexts and ids, or one id
            retrieved with two texts.
    """
    texts: dict[str, str] = {}
    contexts: list[str] = []
    body: list[Record] = []
    count = 0
    for path in inputs:
        for number, item in read_jsonl(path):
            where = f"line {number}"
            count += 1
            key = f"ragas-{count}"
            question = require(item, "user_input", str, file=path, record=where)
            reference = item.get("reference") if isinstance(item, dict) else None
            retrieved_ids = [str(x) for x in _list(item, "retrieved_context_ids", path, where)]
            reference_ids = [str(x) for x in _list(item, "reference_context_ids", path, where)]
            retrieved_texts = item.get("retrieved_contexts")
            if retrieved_texts is not None:
                if not isinstance(retrieved_texts, list) or len(retrieved_texts) != len(
                    retrieved_ids
                ):
                    raise LedgerError(
                        "retrieved_contexts and retrieved_context_ids must align one to one",
                        file=str(path),
                        record=where,
                        field="retrieved_contexts",
                    )
                for cid, text in zip(retrieved_ids, retrieved_texts, strict=True):
                    if not isinstance(text, str) or not text:
                        continue
                    if texts.setdefault(cid, text) != text:
                        raise LedgerError(
                            f"context id {cid!r} was retrieved with another text before",
                            file=str(path),
                            record=where,
                            field="retrieved_contexts",
                        )
            for cid in retrieved_ids + reference_ids:
                if cid not in contexts:
                    contexts.append(cid)
            body.append(
                {
                    "type": "claim",
                    "id": key,
                    "text": reference if isinstance(reference, str) else question,
                }
            )
            body.append({"type": "question", "id": key, "text": question, "claims": [key]})
            if reference_ids:
                body.append(
                    {
                        "type": "evidence_set",
                        "id": key,
                        "claim": key,
                        "members": [_span(c) for c in dict.fromkeys(reference_ids)],
                        "inference": "Ragas reference contexts",
                        "status": "adjudicated",
                        "annotation": {"version": 1, "by": "reference", "at": OBSERVED},
                    }
                )
            case: Record = {
                "type": "case",
                "run": RUN,
                "question": key,
                "retrieved": [_span(c) for c in dict.fromkeys(retrieved_ids)],
            }
            if isinstance(item.get("response"), str):
                case["x-response"] = item["response"]
            body.append(case)
    yield from evaluation(EVALUATION, cutoff=OBSERVED, corpus="Ragas sample contexts")
    for cid in contexts:
        source = f"context:{cid}"
        yield {
            "type": "source",
            "id": source,
            "address": "urn:ragas:context:" + quote(cid, safe=""),
        }
        version: Record = {
            "type": "version",
            "id": source,
            "source": source,
            "observed_at": OBSERVED,
        }
        span: Record = {"type": "span", "id": _span(cid), "version": source}
        if cid in texts:
            version["text"] = texts[cid]
            span.update(start=0, end=len(texts[cid]))
        else:
            span["locator"] = f"context {cid}"
        yield version
        yield span
    yield {"type": "run", "id": RUN, "evaluation": EVALUATION, "system": "ragas samples"}
    yield from body


def _list(item: Any, name: str, path: Path, where: str) -> list[Any]:
    if not isinstance(item, dict) or item.get(name) is None:
        return []
    value = item[name]
    if not isinstance(value, list):
        raise LedgerError("expected a list", file=str(path), record=where, field=name)
    return value


def _span(cid: str) -> str:
    return f"context:{cid}#all"
