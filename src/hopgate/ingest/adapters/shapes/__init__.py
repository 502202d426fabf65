"""Readers of the shapes pipelines log, each written from its format's public documentation.

``hopgate import rag --answers FILE [--shape NAME]`` reads, besides its own
answer format (``hopgate``), one logged response per line in one of
:data:`SHAPES` (docs/pipeline-shapes.md, with a real-shaped example of
each). The shape is detected from the file's first item unless named. A line
holds the response itself or wraps it: ``{"id": "q1", "response": {...}}``,
beside which the line may hold ``question`` (the question's text, when the
response does not), ``correct``, ``abstained``, and what the request gave
(``documents``, ``request``). The answer's gold question is its ``id``, else
the one whose text is the question's (whitespace aside). No framework is
imported: a reader reads plain JSON.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.shapes import (
    anthropic,
    cohere,
    haystack,
    langchain,
    llamaindex,
    openai,
)
from hopgate.ingest.adapters.shapes.base import Answer, Fields, Library, tally

#: The native format of docs/rag-format.md "answers: one run of your pipeline".
NATIVE = "hopgate"
#: The readers, in the order detection tries them.
READERS: dict[str, ModuleType] = {
    module.NAME: module for module in (anthropic, openai, cohere, llamaindex, langchain, haystack)
}
SHAPES = (NATIVE, *READERS)
#: The fields of a line wrapping a response, besides ``response`` itself.
LINE_FIELDS = {
    "id",
    "question",
    "correct",
    "short_answer",
    "abstained",
    "documents",
    "request",
    "response",
}


def detect(item: Any) -> str:
    """The shape of one logged line (its ``response`` when it wraps one): a reader's name, or
    ``hopgate`` for the native format."""
    if isinstance(item, dict):
        inner = item.get("response") if isinstance(item.get("response"), dict) else item
        for name, module in READERS.items():
            if module.detect(inner):
                return name
    return NATIVE


@dataclass
class ShapeReport:
    """How a file of one shape was read: the fields used and ignored, with how many lines."""

    shape: str
    detected: bool
    used: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)

    def lines(self, file: str) -> list[str]:
        """The import's notes about the file."""
        how = "detected" if self.detected else "--shape"
        said = [f"{file}: read as {self.shape} ({how})"]
        if self.used:
            said.append(f"{file}: fields used: " + ", ".join(sorted(self.used)))
        if self.ignored:
            listed = ", ".join(f"{k} ({n})" for k, n in sorted(self.ignored.items()))
            said.append(f"{file}: fields ignored: {listed}")
        said += [f"{file}: {note} ({n} line(s))" for note, n in sorted(self.notes.items())]
        return said


def read(shape: str, line: dict[str, Any], library: Library, report: ShapeReport) -> Answer:
    """The native answer of one logged line of ``shape`` (not the native format).

    Raises:
        ItemError: the line is not of the shape, or names what the docs do not hold.
    """
    module = READERS[shape]
    wrapped = isinstance(line.get("response"), dict)
    inner = line["response"] if wrapped else line
    if not module.detect(inner):
        raise ItemError(
            f"not a {shape} response (the file's first line is; give --shape to choose)",
            "response" if wrapped else None,
        )
    fields = Fields("response." if wrapped else "")
    found: Answer = module.read(inner, line, library, fields)
    fields.use_line(
        *(key for key in ("id", "question", "correct", "short_answer", "abstained") if key in line)
    )
    if wrapped:
        for key in line:
            if key not in LINE_FIELDS and not str(key).startswith("x-"):
                raise ItemError(
                    f"unknown field of the line (allowed beside the response: "
                    f"{', '.join(sorted(LINE_FIELDS - {'response'}))})",
                    str(key),
                )
    tally(report.used, fields.present(line))
    tally(report.ignored, fields.ignored(line))
    tally(report.notes, found.notes)
    return found


__all__ = [
    "LINE_FIELDS",
    "NATIVE",
    "READERS",
    "SHAPES",
    "Answer",
    "Library",
    "ShapeReport",
    "detect",
    "read",
]
