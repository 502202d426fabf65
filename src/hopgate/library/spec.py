"""The specification's own words: each figure's definition, read from the section that defines it.

docs/spec/acceptance.md is the one home of what a figure means; the report
(and anything else that defines a figure to its reader) quotes it from there
rather than keeping a second wording that could drift from it. The spec
ships in the package (``hopgate.artefacts.spec``, docs/spec in a checkout).
A figure's definition is the bullet (or paragraph) of its section that
names it in bold: ``- **Complete-set recall** = ...``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from hopgate.library.artefacts import artefact

PAGE = "acceptance.md"

#: Each figure of ``hopgate metrics``: the section of docs/spec/acceptance.md that
#: defines it and the term it is defined under (in bold there).
FIGURES: dict[str, tuple[str, str]] = {
    "complete_set_recall": ("Metrics", "Complete-set recall"),
    "citation_set_completeness": ("Metrics", "Citation-set completeness"),
    "answer_correctness": ("Metrics", "Answer correctness"),
    "whole_answer": ("Whole answer", "Whole-answer pass rate"),
}
#: Each count of ``hopgate metrics``, likewise.
COUNTS: dict[str, tuple[str, str]] = {
    "unsupported": ("Counts", "unsupported"),
    "correctness_unknown": ("Counts", "correctness unknown"),
    "answer_correctness_unknown": ("Counts", "answer correctness unknown"),
    "omitted": ("Counts", "omitted"),
    "blocked": ("Counts", "blocked"),
    "not_found": ("Counts", "not found"),
    "not_applicable": ("Counts", "not applicable"),
    "appropriate_abstentions": ("Counts", "appropriate abstentions"),
    "escalated": ("Counts", "escalated"),
}


@dataclass(frozen=True)
class Definition:
    """A figure's definition in the spec's words, and the section it is quoted from."""

    text: str
    #: ``docs/spec/acceptance.md "Metrics"``
    section: str


@functools.cache
def _sections(page: str) -> dict[str, str]:
    text = artefact("spec").joinpath(page).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = part.partition("\n")
        found[heading.strip()] = body
    return found


def _plain(text: str) -> str:
    """Markdown as the sentence it reads: no emphasis or code marks, one line."""
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    return " ".join(text.split()).rstrip(";")


def quote(section: str, term: str, *, page: str = PAGE) -> Definition:
    """The bullet or paragraph of ``section`` that puts ``term`` in bold, as plain text.

    Raises:
        KeyError: the section does not exist or defines no such term (a test holds
            every figure to one).
    """
    body = _sections(page)[section]
    blocks = re.split(r"\n(?=- )|\n\s*\n", body)
    for block in blocks:
        if f"**{term}**" in block:
            return Definition(_plain(block.removeprefix("- ")), f'docs/spec/{page} "{section}"')
    raise KeyError(f"docs/spec/{page} {section!r} defines no **{term}**")


def figure_definition(name: str) -> Definition:
    """The definition of a figure or count of ``hopgate metrics`` (its key in ``FIGURES``
    or ``COUNTS``), in the words of the section that defines it."""
    section, term = FIGURES.get(name) or COUNTS[name]
    return quote(section, term)


__all__ = ["COUNTS", "FIGURES", "Definition", "figure_definition", "quote"]
