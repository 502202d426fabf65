"""A ledger whose one output claim has many evidence sets of many members (a wide card)."""

from __future__ import annotations

from typing import Any


def wide_card_ledger(sets: int, members: int) -> dict[str, Any]:
    """One claim with ``sets`` adjudicated sets of ``members`` spans, each from its own version.

    The output cites the first member of every set and retrieves none of the
    last set, so the picture has cited, missing and uncited members.
    """
    versions, spans, evidence = [], [], []
    for s in range(sets):
        names = []
        for m in range(members):
            version = f"registry-{s}-{m}@1"
            text = f"Record R{s}{m} of the registry links hop {m} of route {s} to the next record."
            versions.append(
                {
                    "id": version,
                    "source": "registry",
                    "text": text,
                    "observed_at": "2026-10-01T12:00:00Z",
                }
            )
            spans.append({"id": f"s{s}-{m}", "version": version, "start": 0, "end": len(text)})
            names.append(f"s{s}-{m}")
        evidence.append(
            {
                "id": f"g{s}",
                "claim": "c1",
                "members": names,
                "inference": f"a chain of {members} records",
                "status": "adjudicated",
                "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
            }
        )
    cited = [f"s{s}-0" for s in range(sets)]
    retrieved = [span["id"] for span in spans if not span["id"].startswith(f"s{sets - 1}-")]
    return {
        "ledger": 1,
        "evaluations": [
            {"id": "eval", "reader": "analyst", "observation_cutoff": "2026-10-07T00:00:00Z"}
        ],
        "readers": [{"id": "analyst"}],
        "sources": [{"id": "registry", "address": "https://example.org/registry"}],
        "versions": versions,
        "spans": spans,
        "questions": [{"id": "q1", "text": "Who holds Project Cedar?", "claims": ["c1"]}],
        "claims": [{"id": "c1", "text": "Entity R holds Project Cedar.", "consequential": True}],
        "evidence_sets": evidence,
        "runs": [{"id": "wide", "evaluation": "eval", "system": "rag-v2"}],
        "cases": [
            {
                "run": "wide",
                "question": "q1",
                "retrieved": retrieved,
                "outputs": [
                    {
                        "id": "wide/q1/o1",
                        "text": "Entity R holds Cedar.",
                        "claim": "c1",
                        "correct": True,
                        "cites": cited,
                    }
                ],
            }
        ],
    }
