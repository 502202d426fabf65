"""Whether an answer is correct: stated, matched exactly, or judged, and otherwise unknown.

docs/spec/acceptance.md "Per output claim", rule unknown correctness: an
answer's correctness is never guessed. A pipeline's text is whatever its
model wrote ("It is definitely not Stripe [1][2]" contains "Stripe"), so
containment of the reference answer decides nothing. An answer is judged, in
this order, by

1. an explicit **label** the pipeline or system gives (``correct: true/false``);
2. a normalized **exact match** of the **short answer** it gives
   (``short_answer``) with the reference answer, normalized as SQuAD and
   HotpotQA do (:func:`normalize_answer`); a match is correct, a mismatch
   decides nothing (the short answer may say the same in other words);
3. a **judge** command the user names (``--correctness-judge CMD``), run as
   every named command is (:mod:`hopgate.processes`);

and is otherwise **unknown** (``None``), never counted as correct or
incorrect. It reads and writes nothing.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from dataclasses import dataclass, field

from hopgate.errors import CommandError, InputRefused
from hopgate.inputs import parse_json
from hopgate.processes import Limits, run_command

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)

#: How each answer's correctness was decided (the ``x-correct-by`` of an output).
BY_LABEL = "label"
BY_SHORT_ANSWER = "exact match of the short answer with the reference answer"
BY_JUDGE = "judge command"
UNKNOWN = "unknown"


def normalize_answer(text: str) -> str:
    """SQuAD's answer normalization: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(short_answer: str, reference: str) -> bool:
    """Whether ``short_answer`` is ``reference`` after normalization (both non-empty)."""
    said, wanted = normalize_answer(short_answer), normalize_answer(reference)
    return bool(wanted) and said == wanted


class Judge:
    """A judge command (``--correctness-judge CMD``): one JSON object in, one out.

    In: ``{"question", "answer", "short_answer", "reference_answer"}`` (null
    where not known). Out: ``{"correct": true}``, ``false`` or ``null`` (the
    judge cannot tell). A judge that fails (exit status, timeout, output over
    the cap, not such an object) leaves the answer unknown, with its reason.
    """

    def __init__(self, command: str, limits: Limits) -> None:
        self.command = command
        self.limits = limits

    def __call__(
        self, *, question: str, answer: str | None, short_answer: str | None, reference: str | None
    ) -> bool | None:
        """The judge's decision (None: it cannot tell).

        Raises:
            CommandError: the judge failed; the message says how.
        """
        payload = {
            "question": question,
            "answer": answer,
            "short_answer": short_answer,
            "reference_answer": reference,
        }
        done = run_command(
            self.command,
            stdin=json.dumps(payload, ensure_ascii=False).encode("utf-8"),
            limits=self.limits,
        )
        if done.returncode != 0:
            tail = done.last_error_line()
            raise CommandError(f"exit status {done.returncode}" + (f": {tail}" if tail else ""))
        try:
            said = parse_json(done.stdout.decode("utf-8"), strict=False)  # bounded
        except InputRefused as exc:
            raise CommandError(f"malformed output: {exc.detail}") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise CommandError(f"malformed output: not JSON ({exc})") from None
        if not isinstance(said, dict) or "correct" not in said:
            raise CommandError('malformed output: not a JSON object with "correct"')
        verdict = said["correct"]
        if verdict is not None and not isinstance(verdict, bool):
            raise CommandError('malformed output: "correct" is not true, false or null')
        return verdict


@dataclass(frozen=True)
class Decision:
    """An answer's correctness (None: unknown) and how it was decided."""

    correct: bool | None
    by: str
    #: Why a judge left it unknown (its failure), when it did.
    failure: str | None = None


def decide(
    *,
    label: bool | None,
    short_answer: str | None,
    reference: str | None,
    question: str,
    answer: str | None,
    judge: Judge | None = None,
) -> Decision:
    """Decide an answer's correctness by label, exact short-answer match or judge; else unknown."""
    if label is not None:
        return Decision(label, BY_LABEL)
    if short_answer is not None and reference is not None and exact_match(short_answer, reference):
        return Decision(True, BY_SHORT_ANSWER)
    if judge is not None:
        try:
            verdict = judge(
                question=question, answer=answer, short_answer=short_answer, reference=reference
            )
        except CommandError as exc:
            return Decision(None, UNKNOWN, failure=f"the judge failed: {exc}")
        if verdict is not None:
            return Decision(verdict, f"{BY_JUDGE} {judge.command}")
    return Decision(None, UNKNOWN)


@dataclass
class Tally:
    """How many answers each way decided (for an import's or a run's notes)."""

    by: Counter[str] = field(default_factory=Counter)
    correct: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, decision: Decision) -> None:
        """Count one decision."""
        way = BY_JUDGE if decision.by.startswith(BY_JUDGE) else decision.by
        self.by[way] += 1
        self.correct[way] += bool(decision.correct)
        if decision.failure is not None:
            self.failures[decision.failure] += 1

    def notes(self, what: str) -> list[str]:
        """One sentence per way answers were decided, unknown ones last."""
        said = []
        for way in (BY_LABEL, BY_SHORT_ANSWER, BY_JUDGE):
            if self.by[way]:
                said.append(f"{what}: {self.by[way]} judged by {way}, {self.correct[way]} correct")
        if self.by[UNKNOWN]:
            said.append(
                f"{what}: {self.by[UNKNOWN]} of unknown correctness (no label, no short answer "
                "matching the reference answer, no judge's decision): recorded as `correct: null`, "
                "never counted as correct or incorrect"
            )
        for failure, count in sorted(self.failures.items()):
            said.append(f"{what}: {count} x {failure}")
        return said


__all__ = [
    "BY_JUDGE",
    "BY_LABEL",
    "BY_SHORT_ANSWER",
    "UNKNOWN",
    "Decision",
    "Judge",
    "Tally",
    "decide",
    "exact_match",
    "normalize_answer",
]
