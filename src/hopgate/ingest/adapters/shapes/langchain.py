"""LangChain: a retrieval chain's output with ``source_documents`` (or ``context``) of Documents.

Read (docs/pipeline-shapes.md "langchain"):

- the answer: ``result`` (``RetrievalQA``), ``answer`` (``create_retrieval_chain``,
  ``RetrievalQAWithSourcesChain``; a structured ``{"answer", "citations"}`` in it
  too) or ``output``; the question: ``query``, ``input`` or ``question``;
- the contexts: ``source_documents`` or ``context``, each a Document
  (``page_content`` and ``metadata``, or its ``dumpd`` form ``{"lc", "kwargs"}``),
  in rank order. Its document is named by ``metadata.source`` (a path or URL),
  ``metadata.doc_id`` / ``id`` / ``url`` / ``title`` / ``file_path``, or the
  Document's ``id``; ``metadata.start_index`` (``add_start_index=True``)
  places the chunk; otherwise the chunk is found in the document's text;
- the citations: ``citations`` as LangChain's citation how-to writes them,
  source ids counted from 0 as ``format_docs_with_id`` numbers the sources
  (``[0, 2]``, or ``[{"source_id": 0, "quote": "..."}]``: a quote within that
  source), or ``sources`` (``RetrievalQAWithSourcesChain``: the
  ``metadata.source`` values cited, comma-separated). Without them, the
  answer's ``[n]`` markers; a file with no marker in any answer cites every
  retrieved Document (the chain answered from all of them).
"""

from __future__ import annotations

from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes.base import Answer, Fields, Library, as_list, first_string, get

NAME = "langchain"
_ANSWER_KEYS = ("result", "answer", "output", "output_text")
_QUESTION_KEYS = ("query", "input", "question")
_NAME_KEYS = ("source", "doc_id", "document_id", "id", "url", "file_path", "title")


def _unwrap(value: Any) -> Any:
    """A serialised LangChain object (``dumpd``: ``{"lc": 1, "kwargs": {...}}``) as its fields."""
    if isinstance(value, dict) and "lc" in value and isinstance(value.get("kwargs"), dict):
        return value["kwargs"]
    return value


def _documents_key(obj: dict[str, Any]) -> str | None:
    for key in ("source_documents", "context"):
        value = obj.get(key)
        if isinstance(value, list) and all(
            isinstance(_unwrap(d), dict) and "page_content" in _unwrap(d) for d in value
        ):
            return key
    return None


def detect(obj: Any) -> bool:
    """A chain output holding Documents under ``source_documents`` or ``context``."""
    return isinstance(obj, dict) and _documents_key(obj) is not None


def read(obj: dict[str, Any], line: dict[str, Any], library: Library, fields: Fields) -> Answer:
    """The native answer of one chain output (see the module docstring)."""
    key = _documents_key(obj)
    if key is None:
        raise ItemError("no source_documents or context list of Documents", None)
    answer, answer_key = first_string(obj, *_ANSWER_KEYS)
    structured = obj.get("answer")
    citations: Any = obj.get("citations")
    citations_path = "citations"
    if (
        answer is None
        and isinstance(structured, dict)
        and isinstance(structured.get("answer"), str)
    ):
        answer, answer_key = structured["answer"], "answer.answer"
        citations, citations_path = structured.get("citations"), "answer.citations"
    if answer is None:
        raise ItemError(
            "no answer text (result, answer or output) in the chain's output", answer_key
        )
    fields.use(answer_key or "answer")
    question, question_key = first_string(obj, *_QUESTION_KEYS)
    if question_key:
        fields.use(question_key)
    contexts = []
    sources: list[Any] = []
    for number, raw in enumerate(as_list(obj.get(key), key)):
        document = _unwrap(raw)
        path = f"{key}[{number}]"
        metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
        names = [metadata.get(k) for k in _NAME_KEYS] + [document.get("id")]
        fields.use(f"{key}[].page_content", f"{key}[].kwargs.page_content")
        fields.use(*(f"{key}[].metadata.{k}" for k in _NAME_KEYS if k in metadata))
        fields.use(*(f"{key}[].kwargs.metadata.{k}" for k in _NAME_KEYS if k in metadata))
        if "id" in document:
            fields.use(f"{key}[].id", f"{key}[].kwargs.id")
        if "start_index" in metadata:
            fields.use(f"{key}[].metadata.start_index", f"{key}[].kwargs.metadata.start_index")
        contexts.append(
            library.context(
                text=document.get("page_content"),
                names=names,
                start=metadata.get("start_index"),
                path=f"{path}.page_content",
            )
        )
        sources.append(metadata.get("source"))
    item: dict[str, Any] = {"answer": answer, "contexts": contexts}
    if citations is not None:
        fields.use(citations_path)
        item["citations"] = _citations(citations, citations_path, len(contexts))
    elif isinstance(obj.get("sources"), str):
        fields.use("sources")
        item["citations"] = _named_sources(obj["sources"], sources, library)
    return Answer(item, question=question, markers_only="citations" not in item)


def _citations(given: Any, path: str, count: int) -> list[Any]:
    """LangChain's 0-based source ids (or ``{source_id, quote}``) as 1-based context citations."""
    if not isinstance(given, list):
        raise ItemError("expected a list of source ids or {source_id, quote}", path)
    found: list[Any] = []
    for number, cited in enumerate(given):
        where = f"{path}[{number}]"
        source = get(cited, "source_id") if isinstance(cited, dict) else cited
        if isinstance(source, bool) or not isinstance(source, int) or not 0 <= source < count:
            raise ItemError(
                f"expected a source id from 0 to {count - 1} (LangChain numbers sources "
                f"from 0), got {source!r}",
                where,
            )
        quote = get(cited, "quote") if isinstance(cited, dict) else None
        if isinstance(quote, str) and quote.strip():
            found.append({"context": source + 1, "quote": quote})
        else:
            found.append(source + 1)
    return found


def _named_sources(listed: str, sources: list[Any], library: Library) -> list[Any]:
    """The contexts whose ``metadata.source`` is among the comma-separated ``listed``; a
    source no context has is cited as the document it names."""
    found: list[Any] = []
    for name in dict.fromkeys(part.strip() for part in listed.split(",") if part.strip()):
        positions = [n + 1 for n, source in enumerate(sources) if source == name]
        if positions:
            found.extend(positions)
            continue
        doc = library.doc(name)
        if doc is None:
            raise ItemError(
                f"source {name!r} is neither a retrieved Document's source nor a document of "
                "the docs file",
                "sources",
            )
        found.append({"doc": doc})
    return found


__all__ = ["NAME", "detect", "read"]
