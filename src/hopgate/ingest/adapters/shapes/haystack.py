"""Haystack: a pipeline's ``answers`` (``GeneratedAnswer`` or ``ExtractedAnswer``) with their documents.

Read (docs/pipeline-shapes.md "haystack"): the pipeline's output
(``{"answer_builder": {"answers": [...]}}``), an ``answers`` list, or one
answer, each as ``to_dict`` writes it (``{"type", "init_parameters"}``) or
plain. Of several answers the first (the best) is read, and the import says
so.

- a ``GeneratedAnswer``: the answer ``data``, the question ``query``, the
  contexts ``documents`` in order: each Document's ``content``, named by
  ``meta`` (or, flattened by ``to_dict``, top-level) ``file_path``,
  ``source``, ``url``, ``title``, ``doc_id``, ``file_name``, or its ``id``;
  ``split_idx_start`` (``DocumentSplitter``) places the chunk. Citations:
  the ``[n]`` markers of ``data`` (n-th document); a file with no marker in
  any answer cites every document;
- an ``ExtractedAnswer``: the one ``document`` is the context and
  ``document_offset`` (``start`` / ``end`` in its content) is the citation;
  ``data`` null (no answer found) is an abstention.
"""

from __future__ import annotations

from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes.base import Answer, Fields, Library, as_list, get

NAME = "haystack"
_NAMES = ("file_path", "source", "url", "title", "doc_id", "file_name")


def _plain(value: Any) -> Any:
    """A ``to_dict`` form (``{"type", "init_parameters"}``) as its fields."""
    if isinstance(value, dict) and isinstance(value.get("init_parameters"), dict):
        return {**value["init_parameters"], "_type": value.get("type")}
    return value


def _is_answer(value: Any) -> bool:
    value = _plain(value)
    return (
        isinstance(value, dict)
        and "data" in value
        and ("documents" in value or "document" in value)
    )


def _answers(obj: dict[str, Any]) -> tuple[list[Any], str] | None:
    """The answers list and its path: the object itself, ``answers``, or a component's."""
    if _is_answer(obj):
        return [obj], ""
    if isinstance(obj.get("answers"), list):
        return obj["answers"], "answers"
    for name, value in obj.items():
        if isinstance(value, dict) and isinstance(value.get("answers"), list):
            return value["answers"], f"{name}.answers"
    return None


def detect(obj: Any) -> bool:
    """A pipeline output, answers list or answer of Haystack's answer dataclasses."""
    if not isinstance(obj, dict):
        return False
    found = _answers(obj)
    return found is not None and bool(found[0]) and all(_is_answer(a) for a in found[0])


def read(obj: dict[str, Any], line: dict[str, Any], library: Library, fields: Fields) -> Answer:
    """The native answer of one pipeline output (see the module docstring)."""
    found = _answers(obj)
    if found is None or not found[0]:
        raise ItemError("no answer (answers list empty)", "answers")
    answers, path = found
    notes = []
    if len(answers) > 1:
        notes.append(f"{len(answers)} answers: the first read")
    raw = answers[0]
    at = (f"{path}[]." if path else "") + ("init_parameters." if _plain(raw) is not raw else "")
    answer = _plain(raw)
    where = f"{path}[0]" if path else ""
    question = answer.get("query") if isinstance(answer.get("query"), str) else None
    fields.use(at + "data", at + "query")
    if "document" in answer and "documents" not in answer:
        return _extracted(answer, where, at, library, fields, question, notes)
    contexts = [
        _document(
            document, f"{where}.documents[{n}]".lstrip("."), at + "documents[].", library, fields
        )
        for n, document in enumerate(as_list(answer.get("documents"), f"{where}.documents"))
    ]
    data = answer.get("data")
    if not isinstance(data, str):
        raise ItemError("expected the answer text as a string", f"{where}.data".lstrip("."))
    return Answer(
        {"answer": data, "contexts": contexts}, question=question, markers_only=True, notes=notes
    )


def _document(document: Any, where: str, at: str, library: Library, fields: Fields) -> Any:
    document = _plain(document)
    if not isinstance(document, dict):
        raise ItemError("expected a Document object", where)
    meta: dict[str, Any] = document["meta"] if isinstance(document.get("meta"), dict) else document
    names = [meta.get(k) for k in _NAMES] + [document.get("id")]
    prefix = at + ("meta." if meta is not document else "")
    fields.use(at + "content", at + "id", *(prefix + k for k in _NAMES if k in meta))
    if "split_idx_start" in meta:
        fields.use(prefix + "split_idx_start")
    return library.context(
        text=document.get("content"),
        names=names,
        start=meta.get("split_idx_start"),
        path=f"{where}.content",
    )


def _extracted(
    answer: dict[str, Any],
    where: str,
    at: str,
    library: Library,
    fields: Fields,
    question: str | None,
    notes: list[str],
) -> Answer:
    context = _document(
        answer.get("document"), f"{where}.document".lstrip("."), at + "document.", library, fields
    )
    data = answer.get("data")
    if data is None:
        return Answer({"abstained": True, "contexts": [context]}, question=question, notes=notes)
    if not isinstance(data, str):
        raise ItemError("expected the answer text as a string", f"{where}.data".lstrip("."))
    offset = answer.get("document_offset")
    citation: Any = 1
    if isinstance(offset, dict) and {"start", "end"} <= set(offset):
        fields.use(at + "document_offset")
        citation = {"context": 1, "start": get(offset, "start"), "end": get(offset, "end")}
    return Answer(
        {"answer": data, "contexts": [context], "citations": [citation]},
        question=question,
        notes=notes,
    )


__all__ = ["NAME", "detect", "read"]
