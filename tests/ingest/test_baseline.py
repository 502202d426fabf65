"""A baseline run stays inside its evaluation: two benchmarks in one store (issue 17)."""

from __future__ import annotations

from pathlib import Path

import hopgate
from hopgate.ingest.adapters import import_files
from hopgate.ingest.baseline import baseline

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "adapters"
EXAMPLES = ROOT / "examples"


def _two_benchmarks(tmp_path: Path) -> hopgate.Store:
    store = hopgate.open_store(None)
    hotpot = tmp_path / "hotpotqa.jsonl"
    import_files("hotpotqa", [FIXTURES / "hotpotqa.json"], output=hotpot)
    rag = tmp_path / "rag.jsonl"
    import_files(
        "rag",
        [],
        output=rag,
        docs=[EXAMPLES / "rag-docs.jsonl"],
        gold=EXAMPLES / "rag-gold.jsonl",
        answers=EXAMPLES / "rag-answers.jsonl",
    )
    hopgate.load(store, hotpot)
    hopgate.load(store, rag)
    return store


def _ids(store: hopgate.Store, query: str, run: str) -> set[str]:
    rows = store.select(
        query, params={"run": hopgate.IRI(f"https://w3id.org/hopgate/id/run/{run}")}
    )
    return {str(row["id"]) for row in rows}


def test_baseline_asks_and_searches_only_its_evaluation(tmp_path: Path) -> None:
    store = _two_benchmarks(tmp_path)
    made = baseline(store, k=3, citer="topk", evaluation="rag")
    assert made.questions == 5  # the rag example's questions, none of HotpotQA's
    assert made.spans == 5  # its gold spans (contexts are inline spans: not indexed)
    # Only gold passages: the baseline knows where the answers are (the CLI says so).
    assert made.members == made.spans
    questions = _ids(
        store, "SELECT ?id WHERE { ?c hg:ofRun ?run ; hg:forQuestion/hg:ledgerId ?id }", made.run
    )
    assert questions == {"q1", "q2", "q3", "q4", "q5"}
    versions = _ids(
        store,
        "SELECT ?id WHERE { ?c hg:ofRun ?run ; hg:retrieved/prov:wasQuotedFrom/hg:ledgerId ?id }",
        made.run,
    )
    rag_docs = {"charter", "directory", "release-notes", "offices", "vendors", "news"}
    assert versions and versions <= rag_docs


def test_the_other_evaluation_gets_its_own_questions(tmp_path: Path) -> None:
    store = _two_benchmarks(tmp_path)
    hotpot_questions = {
        str(r["id"])
        for r in store.select("SELECT ?id WHERE { ?q a hg:Question ; hg:ledgerId ?id }")
    } - {"q1", "q2", "q3", "q4", "q5"}
    made = baseline(store, k=2, citer="top1", evaluation="hotpotqa")
    assert made.questions == len(hotpot_questions)
    assert 0 < made.members < made.spans  # HotpotQA declares its distractors too
    versions = _ids(
        store,
        "SELECT ?id WHERE { ?c hg:ofRun ?run ; hg:retrieved/prov:wasQuotedFrom/hg:ledgerId ?id }",
        made.run,
    )
    assert versions and not versions & {"charter", "directory", "vendors"}
