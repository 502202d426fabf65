"""Cohere's Chat API: a reply whose ``citations`` carry ``start`` / ``end`` in the answer.

Read (docs/pipeline-shapes.md "cohere"), API v2 and v1:

- the answer: v2 ``message.content`` (its ``text`` parts, joined), v1 ``text``;
- the contexts: the documents the request gave, in order: a ``documents``
  list beside the response (the request's ``documents``: strings, or objects
  with an ``id`` and the fields in ``data`` (v2) or at the top (v1)), else
  ``request.documents``, else v1's ``documents`` in the response; each
  document's text is its ``text`` (or ``snippet``, ``content``), named by its
  ``id``, ``title`` or ``url``;
- the citations: each ``start`` / ``end`` is the **segment** of the answer it
  supports (checked against its ``text``; a v2 ``content_index`` picks the
  part), citing each document of v1 ``document_ids`` or v2 ``sources``
  (``"type": "document"``; tool sources are not evidence). A cited document
  the contexts do not hold is cited by its own text.
"""

from __future__ import annotations

from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes.base import Answer, Fields, Library, as_list, get, integer

NAME = "cohere"
_TEXT_KEYS = ("text", "snippet", "content")


def detect(obj: Any) -> bool:
    """A v2 reply (``message`` with ``content`` or ``citations``) or a v1 one (``text`` with
    ``citations`` or ``documents``)."""
    if not isinstance(obj, dict):
        return False
    message = obj.get("message")
    if isinstance(message, dict) and ("citations" in message or "content" in message):
        return "finish_reason" in obj or "citations" in message
    return isinstance(obj.get("text"), str) and ("citations" in obj or "documents" in obj)


def _fields(document: Any) -> dict[str, Any]:
    """A document's fields: v2 puts them under ``data``."""
    if isinstance(document, dict) and isinstance(document.get("data"), dict):
        return {**document["data"], "id": document.get("id", document["data"].get("id"))}
    return document if isinstance(document, dict) else {"text": document}


def _text(fields_: dict[str, Any]) -> Any:
    for key in _TEXT_KEYS:
        if isinstance(fields_.get(key), str):
            return fields_[key]
    return None


def read(obj: dict[str, Any], line: dict[str, Any], library: Library, fields: Fields) -> Answer:
    """The native answer of one reply (see the module docstring)."""
    v2 = isinstance(obj.get("message"), dict)
    parts: list[str] = []
    if v2:
        for number, part in enumerate(as_list(get(obj, "message", "content"), "message.content")):
            if isinstance(part, dict) and part.get("type", "text") == "text":
                if not isinstance(part.get("text"), str):
                    raise ItemError("expected text", f"message.content[{number}].text")
                parts.append(part["text"])
        fields.use("message.content[].text", "message.content[].type")
        raw_citations = as_list(get(obj, "message", "citations"), "message.citations")
        citations_path = "message.citations"
    else:
        parts = [obj["text"]]
        fields.use("text")
        raw_citations = as_list(obj.get("citations"), "citations")
        citations_path = "citations"
    offsets = [sum(len(p) for p in parts[:n]) for n in range(len(parts))]
    answer = "".join(parts)
    if "documents" in line and line is not obj:
        documents, documents_path = as_list(line["documents"], "documents"), "documents"
        fields.use_line("documents")
    elif isinstance(get(line, "request", "documents"), list):
        documents, documents_path = line["request"]["documents"], "request.documents"
        fields.use_line("request.documents")
    else:
        documents, documents_path = as_list(obj.get("documents"), "documents"), "documents"
        fields.use("documents")
    contexts: list[Any] = []
    positions: dict[str, int] = {}
    for number, document in enumerate(documents):
        data = _fields(document)
        names = [data.get("id"), data.get("title"), data.get("url")]
        contexts.append(
            library.context(text=_text(data), names=names, path=f"{documents_path}[{number}]")
        )
        if isinstance(data.get("id"), str | int):
            positions.setdefault(str(data["id"]), number + 1)
    citations: list[Any] = []
    for number, citation in enumerate(raw_citations):
        path = f"{citations_path}[{number}]"
        if not isinstance(citation, dict):
            raise ItemError("expected a citation object", path)
        segment = _segment(citation, path, parts, offsets, answer, fields, citations_path)
        if v2:
            cited = [
                s
                for s in as_list(citation.get("sources"), f"{path}.sources")
                if get(s, "type") != "tool"
            ]
            fields.use(
                f"{citations_path}[].sources[].type",
                f"{citations_path}[].sources[].id",
                f"{citations_path}[].sources[].document",
            )
            found = [
                (get(s, "id"), _fields(get(s, "document")) if get(s, "document") else None)
                for s in cited
            ]
        else:
            fields.use(f"{citations_path}[].document_ids")
            found = [
                (d, None) for d in as_list(citation.get("document_ids"), f"{path}.document_ids")
            ]
        for k, (doc_id, document) in enumerate(found):
            where = f"{path}.{'sources' if v2 else 'document_ids'}[{k}]"
            if isinstance(doc_id, str | int) and str(doc_id) in positions:
                citations.append({"context": positions[str(doc_id)], "segment": segment})
                continue
            # A cited document the request did not list: found by its names, cited by its text.
            names = [doc_id]
            if document is not None:
                names = [document.get("id"), document.get("title"), document.get("url"), doc_id]
            doc = library.doc(*names)
            text = _text(document) if document is not None else None
            if doc is not None and isinstance(text, str):
                citations.append({"doc": doc, "quote": text, "segment": segment})
            elif doc is not None:
                citations.append({"doc": doc, "segment": segment})
            else:
                raise ItemError(
                    f"cited document {doc_id!r} is neither among the request's documents nor a "
                    "document of the docs file",
                    where,
                )
    return Answer({"answer": answer, "contexts": contexts, "citations": citations})


def _segment(
    citation: dict[str, Any],
    path: str,
    parts: list[str],
    offsets: list[int],
    answer: str,
    fields: Fields,
    citations_path: str,
) -> list[int]:
    """The answer segment ``[start, end]`` of one citation, checked against its ``text``."""
    start = integer(citation.get("start"), f"{path}.start")
    end = integer(citation.get("end"), f"{path}.end")
    fields.use(f"{citations_path}[].start", f"{citations_path}[].end", f"{citations_path}[].text")
    part = citation.get("content_index", 0)
    if "content_index" in citation:
        fields.use(f"{citations_path}[].content_index")
    part = integer(part, f"{path}.content_index")
    if part >= len(parts):
        raise ItemError(
            f"content_index {part} names no text part ({len(parts)})", f"{path}.content_index"
        )
    text = citation.get("text")
    base = offsets[part]
    if parts[part][start:end] == text or not isinstance(text, str):
        if not start < end <= len(parts[part]):
            raise ItemError(f"start {start} and end {end} are not a part of the answer", path)
        return [base + start, base + end]
    # Offsets that do not hold the cited text: the text, where it occurs in the answer.
    found = answer.find(text)
    if found == -1 or not text:
        raise ItemError(
            f"the citation's text {text!r} is neither at start {start}-{end} nor anywhere in "
            "the answer",
            f"{path}.text",
        )
    return [found, found + len(text)]


__all__ = ["NAME", "detect", "read"]
