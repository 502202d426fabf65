"""Citations as pipelines give them, anchored like ledger spans, with the answer segment each supports.

An answer's ``citations`` (docs/rag-format.md "answers: one run of your pipeline") is a list whose
items are any of:

- ``2`` or ``{"context": 2}``: the second context (1-based);
- ``{"context": 2, "quote": ...}`` or ``{"context": 2, "start": 0, "end": 20}``:
  a passage of that context, the offsets counted from the context's start;
- ``"charter"`` or ``{"doc": "charter"}``: document ``charter``: the contexts
  the answer retrieved from it, or the whole document when it retrieved none
  (a citation of what was never retrieved is kept, and shown as such);
- ``{"doc", "quote"}`` or ``{"doc", "start", "end"}``: a passage of a
  document, retrieved or not, anchored as a gold reference is.

Any object may add ``"segment": [start, end]``: the part of the answer (code
points, ``end`` exclusive) the citation supports (docs/spec/acceptance.md
"Citation segments"); a segment outside the answer is an error. Without
``citations``, the answer's ``[n]`` markers are the citations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hopgate.ingest.adapters.common import Record
from hopgate.ingest.adapters.corpus import Corpus, Located
from hopgate.ingest.adapters.items import ItemError, check_fields

_MARKER = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
#: The fields of a citation given as an object.
CITATION_FIELDS = {"context", "doc", "quote", "start", "end", "prefix", "suffix", "segment"}


@dataclass(frozen=True)
class Cited:
    """One citation: the passage cited and the answer segment it supports (None: all of it)."""

    span: Located
    segment: tuple[int, int] | None = None

    def ledger(self) -> Any:
        """The ledger's spelling: an inline span, or ``{span, segment}`` (docs/spec/ledger.md)."""
        inline = self.span.inline()
        if self.segment is None:
            return inline
        return {"span": inline, "segment": list(self.segment)}


@dataclass
class CitationCounts:
    """What the citations of a run did, for the import's notes."""

    #: Citations of a document none of whose text the answer retrieved (whole document cited).
    unretrieved_documents: int = 0
    #: Citations carrying the answer segment they support.
    with_segment: int = 0


def strip_markers(text: str) -> str:
    """``text`` without its ``[n]`` citation markers."""
    return _MARKER.sub(" ", text)


def citation_markers(answer: str) -> list[int]:
    """The 1-based context positions an answer's ``[n]`` / ``[n, m]`` markers name, in order."""
    found: list[int] = []
    for match in _MARKER.finditer(answer):
        for part in re.split(r"[,;]", match.group(1)):
            number = int(part)
            if number not in found:
                found.append(number)
    return found


def segment(value: Any, answer: str, name: str) -> tuple[int, int]:
    """A ``[start, end]`` segment of ``answer``, checked (code points, ``end`` exclusive).

    Raises:
        ItemError: not two integers, or not a non-empty part of the answer.
    """
    if (
        not isinstance(value, list)
        or len(value) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
    ):
        raise ItemError(
            f"expected [start, end], two integer offsets into the answer, got {value!r}", name
        )
    start, end = value
    if not 0 <= start < end <= len(answer):
        raise ItemError(
            f"segment [{start}, {end}] is outside the answer's text ({len(answer)} code points; "
            "start inclusive, end exclusive, start < end)",
            name,
        )
    return start, end


def cited(
    corpus: Corpus,
    given: Any,
    *,
    answer: str,
    contexts: list[Located],
    counts: CitationCounts | None = None,
) -> list[Cited]:
    """The citations of one answer, in order and without repeats (see the module docstring).

    ``given`` is the answer's ``citations`` field (None: the ``[n]`` markers).

    Raises:
        ItemError: a malformed citation, a position outside the contexts, an
            unknown document, a quote or offsets not found, a bad segment.
    """
    counts = counts if counts is not None else CitationCounts()
    if given is None:
        found = []
        for number in citation_markers(answer):
            if not 1 <= number <= len(contexts):
                raise ItemError(
                    f"citation marker [{number}] in the answer names no context "
                    f"(there are {len(contexts)})",
                    "answer",
                )
            found.append(Cited(contexts[number - 1]))
        return list(dict.fromkeys(found))
    if not isinstance(given, list):
        raise ItemError(
            "expected a list of citations (context positions, document ids or objects)",
            "citations",
        )
    result: list[Cited] = []
    for number, item in enumerate(given):
        result.extend(_one(corpus, item, f"citations[{number}]", answer, contexts, counts))
    return list(dict.fromkeys(result))


def _position(value: Any, name: str, contexts: list[Located]) -> Located:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ItemError(f"expected a 1-based context position (an integer), got {value!r}", name)
    if not 1 <= value <= len(contexts):
        raise ItemError(
            f"position {value} is outside the {len(contexts)} context(s) (positions start at 1)",
            name,
        )
    return contexts[value - 1]


def _document(
    corpus: Corpus, doc: Any, name: str, contexts: list[Located], counts: CitationCounts
) -> list[Located]:
    """A document cited whole: its retrieved contexts, else the whole document."""
    whole = corpus.gold(doc, name)
    retrieved = [c for c in contexts if c.doc == whole.doc]
    if retrieved:
        return list(dict.fromkeys(retrieved))
    counts.unretrieved_documents += 1
    return [whole]


def _one(
    corpus: Corpus,
    item: Any,
    name: str,
    answer: str,
    contexts: list[Located],
    counts: CitationCounts,
) -> list[Cited]:
    if isinstance(item, int) and not isinstance(item, bool):
        return [Cited(_position(item, name, contexts))]
    if isinstance(item, str):
        return [Cited(span) for span in _document(corpus, item, name, contexts, counts)]
    if not isinstance(item, dict):
        raise ItemError(
            "expected a context position, a document id, or an object with "
            f'"context" or "doc", got {item!r}',
            name,
        )
    check_fields(item, CITATION_FIELDS, at=f"{name}.", strict=True)
    part = None
    if "segment" in item:
        part = segment(item["segment"], answer, f"{name}.segment")
        counts.with_segment += 1
    ref = {k: v for k, v in item.items() if k in CITATION_FIELDS - {"segment", "context"}}
    if "context" in item:
        if "doc" in item:
            raise ItemError('give "context" or "doc", not both', f"{name}.doc")
        region = _position(item["context"], f"{name}.context", contexts)
        return [Cited(corpus.within(region, ref, name), part)]
    if "doc" not in item:
        raise ItemError('a citation object needs "context" (a position) or "doc"', name)
    if not any(key in ref for key in ("quote", "start", "end")):
        spans = _document(corpus, item["doc"], f"{name}.doc", contexts, counts)
        return [Cited(span, part) for span in spans]
    return [Cited(corpus.gold(ref, name), part)]


def output_cites(found: list[Cited]) -> list[Record | Any]:
    """The ledger ``cites`` list of an output citing ``found``."""
    return [c.ledger() for c in found]


__all__ = [
    "CITATION_FIELDS",
    "CitationCounts",
    "Cited",
    "cited",
    "citation_markers",
    "output_cites",
    "segment",
    "strip_markers",
]
