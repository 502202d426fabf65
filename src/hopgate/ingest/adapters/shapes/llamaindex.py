"""LlamaIndex: a query engine's ``Response`` with its ``source_nodes``.

Read (docs/pipeline-shapes.md "llamaindex"):

- the answer: ``response``;
- the contexts: ``source_nodes`` in order, each a ``NodeWithScore``
  (``{"node": {...}, "score"}``) or a bare node: its ``text`` (the ``Source N:``
  line a ``CitationQueryEngine`` puts before each chunk removed),
  ``start_char_idx`` where the chunk starts in its document, and the document
  named by ``ref_doc_id``, the SOURCE relationship's ``node_id``
  (``relationships["1"]``), or ``metadata`` ``doc_id`` / ``document_id`` /
  ``file_name`` / ``file_path`` / ``source`` / ``url`` / ``title``;
- the citations: the ``[n]`` markers a ``CitationQueryEngine`` writes, ``n``
  being the n-th source node. A file with no marker in any answer (a plain
  query engine) cites every source node.
"""

from __future__ import annotations

from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes.base import (
    Answer,
    Fields,
    Library,
    as_list,
    get,
    strip_source_label,
)

NAME = "llamaindex"
_METADATA_NAMES = ("doc_id", "document_id", "file_name", "file_path", "source", "url", "title")


def detect(obj: Any) -> bool:
    """A response holding ``source_nodes``."""
    return isinstance(obj, dict) and isinstance(obj.get("source_nodes"), list)


def read(obj: dict[str, Any], line: dict[str, Any], library: Library, fields: Fields) -> Answer:
    """The native answer of one ``Response`` (see the module docstring)."""
    answer = obj.get("response")
    if not isinstance(answer, str):
        raise ItemError("expected the answer text as a string", "response")
    fields.use("response")
    contexts = []
    for number, raw in enumerate(as_list(obj.get("source_nodes"), "source_nodes")):
        path = f"source_nodes[{number}]"
        wrapped = isinstance(raw, dict) and isinstance(raw.get("node"), dict)
        node = raw["node"] if wrapped else raw
        at = "source_nodes[].node." if wrapped else "source_nodes[]."
        if not isinstance(node, dict):
            raise ItemError("expected a node object", path)
        text = node.get("text")
        metadata: dict[str, Any] = (
            node["metadata"] if isinstance(node.get("metadata"), dict) else {}
        )
        source = get(node, "relationships", "1", "node_id")
        names = [node.get("ref_doc_id"), source] + [metadata.get(k) for k in _METADATA_NAMES]
        fields.use(at + "text")
        fields.use(*(at + k for k in ("ref_doc_id", "start_char_idx") if k in node))
        if source is not None:
            fields.use(at + "relationships.1.node_id")
        fields.use(*(f"{at}metadata.{k}" for k in _METADATA_NAMES if k in metadata))
        stripped = strip_source_label(text) if isinstance(text, str) else text
        # The offsets of a labelled citation chunk are those of the chunk it was cut from.
        start = node.get("start_char_idx") if stripped == text else None
        contexts.append(
            library.context(
                text=stripped,
                names=names,
                start=start,
                path=f"{path}{'.node' if wrapped else ''}.text",
            )
        )
    return Answer({"answer": answer, "contexts": contexts}, markers_only=True)


__all__ = ["NAME", "detect", "read"]
