"""What every reader of a pipeline's own log shape shares.

A reader turns one logged response (a LangChain chain's output, an Anthropic
message, ...) into one answer of ``hopgate import rag``'s own format
(docs/rag-format.md "answers: one run of your pipeline"): the answer text, its contexts in rank order
and its citations, each in the native spellings, which :mod:`..rag` then
anchors and checks as it does every answer. A reader never anchors: it names
documents (:class:`Library` finds them by id, address, title or file name)
and passes on the texts and offsets the log gives. It records which fields
of the log it used (:class:`Fields`), so the import can say which it ignored.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hopgate.ingest.adapters.common import Record
from hopgate.ingest.adapters.corpus import Corpus
from hopgate.ingest.adapters.items import ItemError

#: How deep the fields of a logged response are listed (deeper ones are named by their parent).
DEPTH = 8


class Fields:
    """The fields of one logged response a reader used, as generalised paths (``a[].b``)."""

    def __init__(self, prefix: str = "") -> None:
        #: Where the response sits in the logged line (``response.`` when wrapped).
        self.prefix = prefix
        self.used: set[str] = set()

    def use(self, *paths: str) -> None:
        """Mark ``paths`` of the response (and so everything under them) as used."""
        self.used.update(self.prefix + path for path in paths)

    def use_line(self, *paths: str) -> None:
        """Mark ``paths`` of the logged line itself (outside the response) as used."""
        self.used.update(paths)

    def present(self, item: Any) -> list[str]:
        """The used paths that ``item`` (the logged line) holds."""
        return sorted(self.used & set(_paths(item, "", DEPTH)))

    def ignored(self, item: Any, *, prefix: str = "") -> list[str]:
        """The paths of ``item`` under ``prefix`` that no used path covers."""
        found = []
        for path in sorted(set(_paths(item, prefix, DEPTH))):
            if not any(_covers(used, path) or _covers(path, used) for used in self.used):
                found.append(path)
        # A parent whose children are all listed is not listed again.
        return [p for p in found if not any(q != p and _covers(p, q) for q in found)]


def _covers(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer + ".") or inner.startswith(outer + "[]")


def _paths(value: Any, prefix: str, depth: int) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            if depth > 1:
                yield from _paths(inner, path, depth - 1)
    elif isinstance(value, list) and prefix:
        for inner in value:
            if isinstance(inner, dict | list):
                yield from _paths(inner, prefix + "[]", depth)


@dataclass
class Answer:
    """One logged response in the native answer format, and how it was read."""

    #: The native answer item: ``answer``, ``contexts``, ``citations`` (absent: markers).
    item: dict[str, Any]
    #: The question's text, when the log holds it (an answer is matched to its gold question by it).
    question: str | None = None
    #: True when the shape records no citation of its own: without ``[n]`` markers in any
    #: answer of the file, every answer cites all its contexts.
    markers_only: bool = False
    notes: list[str] = field(default_factory=list)


class Library:
    """The documents of the docs file, found by any name a log gives them.

    A name is a document's id, its ``url``, its ``title``, or a file name or
    path whose last part (with or without its extension) is one of those.
    """

    def __init__(self, corpus: Corpus, sources: Iterable[Record]) -> None:
        self.corpus = corpus
        self._names: dict[str, set[str]] = defaultdict(set)
        for source in sources:
            doc = str(source["id"])
            for name in (doc, source.get("address"), source.get("title")):
                if isinstance(name, str) and name:
                    self._names[name].add(doc)
                    self._names[_stem(name)].add(doc)

    def doc(self, *names: Any) -> str | None:
        """The document the first usable name names; None when none names exactly one."""
        for name in names:
            if isinstance(name, int) and not isinstance(name, bool):
                name = str(name)
            if not isinstance(name, str) or not name:
                continue
            if self.corpus.text(name) is not None:
                return name
            for key in (name, _stem(name)):
                found = self._names.get(key, set())
                if len(found) == 1:
                    return next(iter(found))
        return None

    def context(self, *, text: Any, names: list[Any], start: Any = None, path: str) -> Any:
        """A native context: the chunk ``text`` of the document ``names`` name.

        With offsets given by the log (``start``) where the text is, the
        chunk is placed there; a document found without text is the whole
        document; a text whose document no name finds is searched in every
        document (it must be in exactly one).

        Raises:
            ItemError: neither a text nor a document name.
        """
        doc = self.doc(*names)
        if isinstance(text, str) and text.strip():
            if doc is None:
                return text
            whole = self.corpus.text(doc)
            if (
                whole is not None
                and isinstance(start, int)
                and not isinstance(start, bool)
                and whole[start : start + len(text)] == text
            ):
                return {"doc": doc, "start": start, "end": start + len(text)}
            return {"doc": doc, "text": text}
        if doc is not None:
            return doc
        shown = ", ".join(repr(n) for n in names if isinstance(n, str | int)) or "none"
        raise ItemError(
            f"a retrieved document with no text, whose names ({shown}) name no document of "
            "the docs file (give it the id, url or title of one)",
            path,
        )


def _stem(name: str) -> str:
    last = name.rstrip("/").rsplit("/", 1)[-1]
    return last.rsplit(".", 1)[0] if "." in last else last


def get(item: Any, *keys: str) -> Any:
    """The value at ``item[k1][k2]...``, or None when any step is missing."""
    for key in keys:
        if not isinstance(item, dict):
            return None
        item = item.get(key)
    return item


def first_string(item: Any, *keys: str) -> tuple[str | None, str | None]:
    """The first of ``keys`` holding a string in ``item``, with its key."""
    for key in keys:
        value = get(item, key)
        if isinstance(value, str):
            return value, key
    return None, None


def as_list(value: Any, path: str) -> list[Any]:
    """``value`` as a list (None: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ItemError(f"expected a list, got {type(value).__name__}", path)
    return value


def integer(value: Any, path: str) -> int:
    """``value`` as a non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ItemError(f"expected a non-negative integer, got {value!r}", path)
    return value


_SOURCE_PREFIX = re.compile(r"^Source \d+:\n")


def strip_source_label(text: str) -> str:
    """A citation chunk's text without the ``Source N:`` line LlamaIndex puts before it."""
    return _SOURCE_PREFIX.sub("", text, count=1)


def tally(counter: Counter[str], paths: Iterable[str]) -> None:
    """Count each path once."""
    for path in set(paths):
        counter[path] += 1


__all__ = [
    "Answer",
    "Fields",
    "Library",
    "as_list",
    "first_string",
    "get",
    "integer",
    "strip_source_label",
    "tally",
]
