"""The annotation state an evaluation used: final judgments in force and annotation versions.

docs/spec/adjudication.md "Effect on scoring" and "Changed scores": a final
entailment or alternatives judgment re-annotates an evidence set as a new
annotation version (``prov:wasRevisionOf`` the set as loaded, derived from
the judgment and attributed to its reviewer); a final contradiction judgment
resolves a contradiction; a final boundary judgment decides an extra
assertion. The evaluation's ``evaluation-adjudication`` rule file decides
which judgments are in force; ``evaluation-annotations`` reads them; this
module turns those rows into the bundle's triples. The load graphs are
never rewritten: the new versions live in the evaluation's bundle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hopgate import ntriples as nt
from hopgate.store import Row
from hopgate.vocab import HG, PROV
from hopgate.vocab import RDF_TYPE as A

_STATUS = {"sufficient": "Adjudicated", "insufficient": "Rejected"}


@dataclass(frozen=True)
class Reannotation:
    """A new annotation version of an evidence set, made by one final judgment."""

    set: str
    node: str
    version: int
    judgment: str
    decision: str
    reviewer: str
    at: str | None


@dataclass
class AnnotationState:
    """The final judgments in force for one evaluation, by subject IRI."""

    sets: dict[str, Reannotation] = field(default_factory=dict)
    contradictions: dict[str, str] = field(default_factory=dict)
    boundaries: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows: list[Row]) -> AnnotationState:
        """The state from the rows of queries/evaluation-annotations.rq."""
        state = cls()
        for row in rows:
            subject, judgment = str(row["subject"]), str(row["judgment"])
            kind = str(row["kind"])
            if kind == "set":
                version = int(row["version"])  # type: ignore[arg-type]
                state.sets[subject] = Reannotation(
                    set=subject,
                    node=f"{subject}/annotation-version/{version}",
                    version=version,
                    judgment=judgment,
                    decision=str(row["decision"]),
                    reviewer=str(row["reviewer"]),
                    at=None if row["at"] is None else str(row["at"]),
                )
            elif kind == "contradiction":
                state.contradictions[subject] = judgment
            else:
                state.boundaries[subject] = judgment
        return state

    def version_of(self, evidence_set: str) -> str:
        """The annotation version in force of a set: its re-annotation, else the set as loaded."""
        found = self.sets.get(evidence_set)
        return evidence_set if found is None else found.node

    def card_lines(
        self, card: str, output: str, routes: list[str], contradictions: list[str]
    ) -> list[str]:
        """The card's route versions and the final judgments in force that bear on it."""
        lines = [f"{card} <{HG}routeVersion> {nt.iri(self.version_of(r))}" for r in sorted(routes)]
        bearing = {self.sets[r].judgment for r in routes if r in self.sets}
        bearing |= {self.contradictions[k] for k in contradictions if k in self.contradictions}
        if output in self.boundaries:
            bearing.add(self.boundaries[output])
        lines += [f"{card} <{HG}judgmentInForce> {nt.iri(j)}" for j in sorted(bearing)]
        return lines

    def bundle_lines(self) -> list[str]:
        """The annotation versions and resolutions this evaluation used."""
        lines: list[str] = []
        for found in self.sets.values():
            s = nt.iri(found.node)
            lines += [
                f"{s} <{A}> <{PROV}Entity>",
                f"{s} <{A}> <{HG}AnnotationVersion>",
                f"{s} <{PROV}wasRevisionOf> {nt.iri(found.set)}",
                f"{s} <{HG}annotationVersion> {nt.integer(found.version)}",
                f"{s} <{HG}setStatus> <{HG}{_STATUS[found.decision]}>",
                f"{s} <{PROV}wasDerivedFrom> {nt.iri(found.judgment)}",
                f"{s} <{PROV}wasAttributedTo> {nt.iri(found.reviewer)}",
            ]
            if found.at is not None:
                lines.append(f"{s} <{PROV}generatedAtTime> {nt.datetime(found.at)}")
        for contradiction, judgment in sorted(self.contradictions.items()):
            lines.append(f"{nt.iri(contradiction)} <{HG}resolvedBy> {nt.iri(judgment)}")
        return lines


__all__ = ["AnnotationState", "Reannotation"]
