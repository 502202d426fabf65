#!/usr/bin/env python3
"""A small lexical judge for ``hopgate triage`` (docs/spec/adjudication.md "Machine triage").

It reads one subject awaiting adjudication as JSON on standard input and
answers ``{"decision": ..., "reason": ...}`` on standard output. Its rule is
plain token overlap: the share of the claim's words (lower case, three
letters or more) found in the quoted spans. It shows the wiring, not
accuracy: a team names its own judge (an NLI model, an LLM prompt) the same
way. Standard library only.

    hopgate triage --run sys-a --judge "python3 examples/lexical_judge.py" --by lexical-overlap/1
"""

from __future__ import annotations

import json
import re
import sys

#: The share of the claim's words the spans must hold for a positive decision.
THRESHOLD = 0.6
_WORD = re.compile(r"[^\W_]{3,}")

#: Per question, the decision for enough overlap and for too little.
DECISIONS = {
    "entailment": ("sufficient", "insufficient"),
    "alternatives": ("sufficient", "insufficient"),
    "minimality": ("minimal", "not-minimal"),
    "admissibility": ("admissible", "inadmissible"),
    "contradiction": ("material", "immaterial"),
    "boundary": ("not-a-claim", "unsupported"),
}


def words(text: str | None) -> set[str]:
    """The words of ``text`` that count: lower case, three letters or more."""
    return {w.lower() for w in _WORD.findall(text or "")}


def main() -> int:
    """Read one subject, print one decision; exit 2 on input that is not a subject."""
    try:
        subject = json.load(sys.stdin)
        question = subject["question"]
        positive, negative = DECISIONS[question]
    except (ValueError, KeyError, TypeError) as exc:
        print(f"lexical_judge: not a triage subject: {exc}", file=sys.stderr)
        return 2
    claim = words(subject.get("claim"))
    quoted: set[str] = set()
    for span in subject.get("spans") or []:
        quoted |= words(span.get("quote"))
    overlap = len(claim & quoted) / len(claim) if claim else 0.0
    decision = positive if overlap >= THRESHOLD else negative
    reason = (
        f"token overlap {overlap:.2f} of the claim's {len(claim)} words with "
        f"{len(subject.get('spans') or [])} quoted span(s) (threshold {THRESHOLD})"
    )
    json.dump({"decision": decision, "reason": reason}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
