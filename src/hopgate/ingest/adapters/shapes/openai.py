"""OpenAI's Responses API: a response whose ``output_text`` parts carry ``annotations``.

Read (docs/pipeline-shapes.md "openai"):

- the answer: the ``text`` of every ``output_text`` part of the ``message``
  items of ``output``, joined (the SDK's ``output_text``); annotation offsets
  count from the part's start, so each is moved by the part's place;
- the contexts: the ``results`` of the ``file_search_call`` items (present
  when the request asked ``include: ["file_search_call.results"]``), in
  order: each result's ``text``, its document named by ``filename``,
  ``file_id`` or an ``attributes`` value (``doc_id``, ``source``, ``url``,
  ``title``); and the ``sources`` of ``web_search_call`` actions, each a
  document named by its ``url`` (its whole text: the log holds none);
- the citations, one per annotation: ``file_citation`` (``file_id`` /
  ``filename``: the document, its retrieved results if any; ``index`` is a
  point in the answer, not a segment), ``url_citation`` (``url``: the
  document; ``start_index`` / ``end_index``: the segment it supports) and
  ``container_file_citation`` (``file_id`` / ``filename``, and its segment).
  ``file_path`` annotations name generated files, not evidence.
"""

from __future__ import annotations

from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes.base import Answer, Fields, Library, as_list, get, integer

NAME = "openai"
_ATTRIBUTE_NAMES = ("doc_id", "document_id", "source", "url", "title")


def detect(obj: Any) -> bool:
    """A response: ``"object": "response"``, or an ``output`` list of typed items."""
    return isinstance(obj, dict) and (
        obj.get("object") == "response"
        or (
            isinstance(obj.get("output"), list)
            and any(isinstance(i, dict) and i.get("type") == "message" for i in obj["output"])
        )
    )


def read(obj: dict[str, Any], line: dict[str, Any], library: Library, fields: Fields) -> Answer:
    """The native answer of one response (see the module docstring)."""
    contexts: list[Any] = []
    for number, item in enumerate(as_list(obj.get("output"), "output")):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "file_search_call":
            fields.use("output[].type")
            for k, result in enumerate(as_list(item.get("results"), f"output[{number}].results")):
                attributes = (
                    get(result, "attributes") if isinstance(get(result, "attributes"), dict) else {}
                )
                names = [get(result, "filename"), get(result, "file_id")]
                names += [attributes.get(key) for key in _ATTRIBUTE_NAMES]
                fields.use(
                    "output[].results[].text",
                    "output[].results[].filename",
                    "output[].results[].file_id",
                )
                fields.use(
                    *(
                        f"output[].results[].attributes.{k}"
                        for k in _ATTRIBUTE_NAMES
                        if k in attributes
                    )
                )
                contexts.append(
                    library.context(
                        text=get(result, "text"),
                        names=names,
                        path=f"output[{number}].results[{k}].text",
                    )
                )
        elif item.get("type") == "web_search_call":
            for k, source in enumerate(
                as_list(get(item, "action", "sources"), f"output[{number}].action.sources")
            ):
                fields.use("output[].action.sources[].url")
                contexts.append(
                    library.context(
                        text=None,
                        names=[get(source, "url")],
                        path=f"output[{number}].action.sources[{k}].url",
                    )
                )
    answer = ""
    citations: list[Any] = []
    for number, item in enumerate(as_list(obj.get("output"), "output")):
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        for k, part in enumerate(as_list(item.get("content"), f"output[{number}].content")):
            if not isinstance(part, dict) or part.get("type") != "output_text":
                continue
            text = part.get("text")
            path = f"output[{number}].content[{k}]"
            if not isinstance(text, str):
                raise ItemError("expected the part's text as a string", f"{path}.text")
            fields.use("output[].type", "output[].content[].type", "output[].content[].text")
            offset = len(answer)
            answer += text
            for a, note in enumerate(as_list(part.get("annotations"), f"{path}.annotations")):
                found = _annotation(
                    note, f"{path}.annotations[{a}]", offset, len(text), library, fields
                )
                if found is not None:
                    citations.append(found)
    if not any(
        isinstance(i, dict) and i.get("type") == "message"
        for i in as_list(obj.get("output"), "output")
    ):
        raise ItemError("the response has no message in its output", "output")
    return Answer({"answer": answer, "contexts": contexts, "citations": citations})


def _annotation(
    note: Any, path: str, offset: int, length: int, library: Library, fields: Fields
) -> dict[str, Any] | None:
    if not isinstance(note, dict):
        raise ItemError("expected an annotation object", path)
    kind = note.get("type")
    fields.use("output[].content[].annotations[].type")
    if kind == "file_path":
        return None
    if kind not in ("file_citation", "url_citation", "container_file_citation"):
        raise ItemError(
            f"expected file_citation, url_citation, container_file_citation or file_path, got {kind!r}",
            f"{path}.type",
        )
    names = [note.get("url"), note.get("filename"), note.get("file_id"), note.get("title")]
    fields.use(
        *(
            f"output[].content[].annotations[].{k}"
            for k in ("url", "filename", "file_id", "title")
            if k in note
        )
    )
    doc = library.doc(*names)
    if doc is None:
        shown = ", ".join(repr(n) for n in names if isinstance(n, str)) or "none"
        raise ItemError(
            f"the cited file or page ({shown}) is no document of the docs file (name one by its "
            "id, url, title or file name)",
            path,
        )
    found: dict[str, Any] = {"doc": doc}
    if "start_index" in note or "end_index" in note:
        start = integer(note.get("start_index"), f"{path}.start_index")
        end = integer(note.get("end_index"), f"{path}.end_index")
        fields.use(
            "output[].content[].annotations[].start_index",
            "output[].content[].annotations[].end_index",
        )
        if not start < end <= length:
            raise ItemError(
                f"start_index {start} and end_index {end} are not a part of the text "
                f"({length} characters)",
                path,
            )
        found["segment"] = [offset + start, offset + end]
    return found


__all__ = ["NAME", "detect", "read"]
