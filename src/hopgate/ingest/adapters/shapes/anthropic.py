"""Anthropic's Messages API: a message whose text blocks carry ``citations``.

Read (docs/pipeline-shapes.md "anthropic"):

- the answer: the ``text`` of the message's ``text`` content blocks, joined;
  each block's place in that text is the **segment** its citations support;
- the contexts: the documents the request gave, in order (a citation's
  ``document_index`` counts them): the ``document`` content blocks of
  ``request.messages`` (the request body, logged beside the response), or a
  ``documents`` list beside the response (document ids, or document blocks).
  A block's text is its ``source.data`` (``"type": "text"``) or its
  ``source.content`` blocks (``"type": "content"``); its document is named by
  ``title`` or ``source.url``; a block with no text (a PDF) must be named;
- the citations, one per entry of a block's ``citations``:
  ``char_location`` (``start_char_index`` / ``end_char_index`` in the cited
  document's text, checked against ``cited_text``; when they disagree the
  ``cited_text`` is found instead), ``page_location`` and
  ``content_block_location`` (``cited_text``, found in the cited document:
  page and block numbers are not offsets in its text),
  ``search_result_location`` and ``web_search_result_location`` (the
  document named by ``source`` / ``url`` / ``title``, and ``cited_text``).
"""

from __future__ import annotations

from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes.base import Answer, Fields, Library, as_list, get, integer

NAME = "anthropic"
LOCATIONS = (
    "char_location",
    "page_location",
    "content_block_location",
    "search_result_location",
    "web_search_result_location",
)


def detect(obj: Any) -> bool:
    """A message: ``"type": "message"`` or ``"role": "assistant"`` with a list of content blocks."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("content"), list)
        and (obj.get("type") == "message" or obj.get("role") == "assistant")
        and all(isinstance(b, dict) and "type" in b for b in obj["content"])
    )


def _documents(line: dict[str, Any], fields: Fields) -> tuple[list[Any], str]:
    """The request's documents in order, and the path they were read from."""
    if "documents" in line:
        fields.use_line("documents")
        return as_list(line["documents"], "documents"), "documents"
    blocks: list[Any] = []
    for message in as_list(get(line, "request", "messages"), "request.messages"):
        content = get(message, "content")
        if isinstance(content, list):
            blocks.extend(b for b in content if isinstance(b, dict) and b.get("type") == "document")
    if blocks:
        fields.use_line(
            "request.messages[].content[].type",
            "request.messages[].content[].source",
            "request.messages[].content[].title",
        )
    return blocks, "request.messages[].content[]"


def _parts(block: dict[str, Any]) -> list[str] | None:
    """The text of a custom content document's blocks, in order (None for other documents)."""
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "content":
        return None
    parts = [get(part, "text") for part in as_list(source.get("content"), "source.content")]
    return [p if isinstance(p, str) else "" for p in parts]


def _block_text(block: dict[str, Any]) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return None
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        return str(source["data"])
    parts = _parts(block)
    if parts:
        return "\n".join(parts)
    return None


def _context(document: Any, number: int, path: str, library: Library) -> Any:
    where = f"{path}[{number}]"
    if not isinstance(document, dict):
        return library.context(text=None, names=[document], path=where)
    if "doc" in document:  # a document id given as {"doc": ID}
        return library.context(text=None, names=[document["doc"]], path=where)
    names = [
        document.get("title"),
        get(document, "source", "url"),
        get(document, "source", "file_id"),
    ]
    text = _block_text(document)
    if text is not None and get(document, "source", "type") == "content":
        # Custom content blocks are cited by block; their text is found in the document.
        return library.context(text=text, names=names, path=f"{where}.source.content")
    return library.context(text=text, names=names, path=f"{where}.source")


def read(obj: dict[str, Any], line: dict[str, Any], library: Library, fields: Fields) -> Answer:
    """The native answer of one message (see the module docstring)."""
    documents, documents_path = _documents(line, fields)
    contexts = [
        _context(d, n, documents_path.removesuffix("[]"), library) for n, d in enumerate(documents)
    ]
    texts = {n: _block_text(d) if isinstance(d, dict) else None for n, d in enumerate(documents)}
    parts = {n: _parts(d) if isinstance(d, dict) else None for n, d in enumerate(documents)}
    answer = ""
    citations: list[Any] = []
    for number, block in enumerate(obj["content"]):
        if block.get("type") != "text":
            continue
        text = block.get("text")
        if not isinstance(text, str):
            raise ItemError("expected the block's text as a string", f"content[{number}].text")
        fields.use("content[].type", "content[].text")
        segment = [len(answer), len(answer) + len(text)]
        answer += text
        for k, citation in enumerate(
            as_list(block.get("citations"), f"content[{number}].citations")
        ):
            path = f"content[{number}].citations[{k}]"
            found = _citation(citation, path, texts, parts, len(contexts), library, fields)
            if segment[0] < segment[1]:
                found["segment"] = segment
            citations.append(found)
    return Answer({"answer": answer, "contexts": contexts, "citations": citations})


def _citation(
    citation: Any,
    path: str,
    texts: dict[int, str | None],
    parts: dict[int, list[str] | None],
    documents: int,
    library: Library,
    fields: Fields,
) -> dict[str, Any]:
    """One citation as a native citation of a context (or of a named document)."""
    if not isinstance(citation, dict):
        raise ItemError("expected a citation object", path)
    kind = citation.get("type")
    if kind not in LOCATIONS:
        raise ItemError(
            f"expected a citation type among {', '.join(LOCATIONS)}, got {kind!r}", f"{path}.type"
        )
    cited = citation.get("cited_text")
    fields.use("content[].citations[].type", "content[].citations[].cited_text")
    if kind in ("search_result_location", "web_search_result_location"):
        fields.use(
            *(f"content[].citations[].{k}" for k in ("source", "url", "title") if k in citation)
        )
        doc = library.doc(citation.get("source"), citation.get("url"), citation.get("title"))
        if doc is None:
            raise ItemError(
                "the cited search result names no document of the docs file (by its source, "
                "url or title)",
                path,
            )
        return (
            {"doc": doc, "quote": cited}
            if isinstance(cited, str) and cited.strip()
            else {"doc": doc}
        )
    index = integer(citation.get("document_index"), f"{path}.document_index")
    fields.use("content[].citations[].document_index")
    if index >= documents:
        raise ItemError(
            f"document_index {index} names no document of the request ({documents} given: "
            'log the request beside the response, or a "documents" list)',
            f"{path}.document_index",
        )
    if kind == "char_location":
        start = integer(citation.get("start_char_index"), f"{path}.start_char_index")
        end = integer(citation.get("end_char_index"), f"{path}.end_char_index")
        fields.use("content[].citations[].start_char_index", "content[].citations[].end_char_index")
        text = texts.get(index)
        if text is not None and (not isinstance(cited, str) or text[start:end] == cited):
            return {"context": index + 1, "start": start, "end": end}
    blocks = parts.get(index)
    if kind == "content_block_location" and blocks:
        first = integer(citation.get("start_block_index"), f"{path}.start_block_index")
        last = integer(citation.get("end_block_index"), f"{path}.end_block_index")
        fields.use(
            "content[].citations[].start_block_index", "content[].citations[].end_block_index"
        )
        chosen = [b for b in blocks[first:last] if b.strip()]
        if chosen:  # the blocks as the document's text joins them (_block_text)
            return {"context": index + 1, "quote": "\n".join(chosen)}
    if not isinstance(cited, str) or not cited.strip():
        # Pages and content blocks are not offsets in the document's text: the whole document.
        return {"context": index + 1}
    return {"context": index + 1, "quote": cited}


__all__ = ["NAME", "detect", "read"]
