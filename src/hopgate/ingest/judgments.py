"""The questions a reviewer answers and the decisions each allows.

docs/spec/adjudication.md "Judgments": each question has its subjects and
its terms of decision. The loader checks a structured judgment against this
table (docs/spec/ledger.md "Judgments"); the evaluation's
``evaluation-adjudication`` rule file reads the same terms from the store.
This module is plain data: it reads nothing and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    """One question: the ledger kinds its subject may be, and its terms of decision."""

    name: str
    subjects: tuple[str, ...]
    decisions: tuple[str, ...]
    subject_words: str


#: Rule "question and decision" (docs/spec/adjudication.md "Judgments").
QUESTIONS: dict[str, Question] = {
    q.name: q
    for q in (
        Question(
            "entailment", ("evidence_set",), ("sufficient", "insufficient"), "an evidence set"
        ),
        Question("minimality", ("evidence_set",), ("minimal", "not-minimal"), "an evidence set"),
        Question(
            "admissibility",
            ("span", "version"),
            ("admissible", "inadmissible"),
            "a span or version",
        ),
        Question(
            "alternatives", ("evidence_set",), ("sufficient", "insufficient"), "an evidence set"
        ),
        Question(
            "contradiction", ("contradiction",), ("material", "immaterial"), "a contradiction"
        ),
        Question(
            "boundary",
            ("output",),
            ("new-claim", "not-a-claim", "unsupported"),
            "an output claim that asserts no reference claim",
        ),
    )
}

#: The subjects a judgment in the old spelling (no ``question``) may name.
UNSTRUCTURED_SUBJECTS = ("evidence_set", "output", "contradiction")


def decision_error(question: str, decision: str) -> str | None:
    """Why ``decision`` is not a term of ``question``, or None when it is."""
    found = QUESTIONS.get(question)
    if found is None:
        return f"unknown question {question!r}: expected one of {', '.join(QUESTIONS)}"
    if decision not in found.decisions:
        return (
            f"decision {decision!r} is not a term of question {question!r}: "
            f"expected one of {', '.join(found.decisions)}"
        )
    return None


__all__ = ["QUESTIONS", "UNSTRUCTURED_SUBJECTS", "Question", "decision_error"]
