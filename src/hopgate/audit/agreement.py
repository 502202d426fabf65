"""How far each automated judge agrees with the reviewers' final decisions.

docs/spec/adjudication.md "Machine triage", rule agreement: per judge (the
``by`` of its machine judgments) and question, *agreed / finals judged*. Which
machine judgment counts (a judge's latest of a subject's question), which
final judgment is in force and whether they agree is decided by
queries/review-agreement.rq; this module counts its rows. It only reads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from hopgate import ids
from hopgate.library.artefacts import library_query
from hopgate.store import Store, Value


@dataclass(frozen=True)
class Comparison:
    """One machine judgment beside the final judgment in force of its subject and question.

    ``final_judgment`` and ``final_decision`` are None when no final judgment
    exists yet (then ``agrees`` is None too: no reviewer has decided).
    """

    judge: str
    question: str
    subject: str
    judgment: str
    decision: str
    reason: str | None
    final_judgment: str | None
    final_decision: str | None
    agrees: bool | None


@dataclass
class Agreement:
    """One judge's agreement on one question: ``agreed`` of ``judged`` finals.

    ``machine_judged`` counts the subjects the judge judged (its latest
    judgment of each), with or without a final decision.
    """

    judge: str
    question: str
    agreed: int = 0
    judged: int = 0
    machine_judged: int = 0
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        """agreed / judged; None when no final was judged (undefined, never 100%)."""
        return self.agreed / self.judged if self.judged else None

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate review agreement`` (one judge and question)."""
        found = asdict(self)
        found["agreement"] = {
            "numerator": self.agreed,
            "denominator": self.judged,
            "value": self.rate,
        }
        return found


def _text(value: Value) -> str | None:
    return None if value is None else str(value)


def agreement(store: Store) -> list[Agreement]:
    """Each judge's agreement with the final decisions, per question, by judge then question."""
    found: dict[tuple[str, str], Agreement] = {}
    for row in store.select(library_query("review-agreement").text):
        judge = ids.ledger_id(str(row["by"]))
        question = str(row["question"])
        item = found.setdefault((judge, question), Agreement(judge=judge, question=question))
        agrees = row["agrees"]
        comparison = Comparison(
            judge=judge,
            question=question,
            subject=ids.ledger_id(str(row["subject"])),
            judgment=str(row["machineId"]),
            decision=str(row["said"]),
            reason=_text(row["reason"]),
            final_judgment=_text(row["finalId"]),
            final_decision=_text(row["decided"]),
            agrees=None if agrees is None else bool(agrees),
        )
        item.comparisons.append(comparison)
        item.machine_judged += 1
        if comparison.agrees is not None:
            item.judged += 1
            item.agreed += comparison.agrees
    return [found[key] for key in sorted(found)]


__all__ = ["Agreement", "Comparison", "agreement"]
