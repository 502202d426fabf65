"""Correctness is never guessed from containment (issue 25 item 6; hopgate.correctness).

An answer is correct by a label, by its short answer being the reference
answer after SQuAD normalization, or by a judge command the user names;
otherwise its correctness is unknown: escalated, never counted as correct or
incorrect, and the figures say how many (docs/spec/acceptance.md "Metrics").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import hopgate
from hopgate.api import import_files
from hopgate.audit.results import gate, metrics, verdicts
from hopgate.decide.evaluation import evaluate
from hopgate.ingest.correctness import BY_SHORT_ANSWER, decide
from hopgate.interventions.run import case_of

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCS, GOLD = EXAMPLES / "rag-docs.jsonl", EXAMPLES / "rag-gold.jsonl"

#: Every answer denies the reference answer while holding its words, and cites a complete set.
NEGATED: list[dict[str, Any]] = [
    {
        "id": "q1",
        "answer": "It is definitely not Dana Reyes [1].",
        "contexts": [{"doc": "charter", "text": "Project Orion is led by Dana Reyes."}],
    },
    {
        "id": "q2",
        "answer": "Certainly not the Lisbon office [1][2].",
        "contexts": [
            {"doc": "charter", "text": "Project Orion is led by Dana Reyes."},
            {"doc": "directory", "text": "Dana Reyes works in the Lisbon office."},
        ],
    },
    {
        "id": "q3",
        "answer": "It is definitely not Stripe [1][2]",
        "contexts": [
            {"doc": "vendors", "text": "The payment processor for the billing platform is Stripe."},
            {"doc": "charter", "text": "builds the new billing platform"},
        ],
    },
    {
        "id": "q4",
        "answer": "It was not released on 4 November 2025 [1].",
        "contexts": [{"doc": "release-notes", "start": 0, "end": 53}],
    },
]


def _answers(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def _imported(tmp_path: Path, items: list[dict[str, Any]], **options: Any) -> hopgate.Store:
    ledger = tmp_path / "rag.ledger.jsonl"
    import_files(
        "rag",
        [],
        output=ledger,
        docs=[DOCS],
        gold=GOLD,
        answers=_answers(tmp_path, items),
        **options,
    )
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    evaluate(store, run="rag-run")
    return store


def test_negated_answers_are_not_correct_and_the_gate_fails(tmp_path: Path) -> None:
    store = _imported(tmp_path, NEGATED)
    found = {r.question: r for r in verdicts(store, run="rag-run")}
    # Each cites a complete set: today's containment called all four correct and accepted them.
    assert {q: r.verdict for q, r in found.items()} == dict.fromkeys(
        ["q1", "q2", "q3", "q4"], "escalate"
    )
    assert not any(r.supported for r in found.values())
    assert not any(r.correctness_known for r in found.values())
    result = gate(store, run="rag-run")
    assert not result.passed and len(result.failing) == 3
    m = metrics(store, run="rag-run")["rag-run"]
    # Never counted as correct or incorrect: out of both denominators, counted apart.
    assert (m.answer_correctness.numerator, m.answer_correctness.denominator) == (0, 0)
    assert m.answer_correctness.value is None
    assert m.citation_set_completeness.denominator == 0
    assert m.counts["correctness_unknown"] == 4
    assert m.counts["answer_correctness_unknown"] == 4
    assert m.counts["unsupported"] == 0
    assert m.complete_set_recall.denominator == 4


def test_short_answer_exact_match_label_and_mismatch(tmp_path: Path) -> None:
    items = [
        dict(NEGATED[0], answer="Dana Reyes leads it [1].", short_answer="dana reyes."),
        dict(NEGATED[1], short_answer="The Lisbon office"),  # not "Lisbon": decides nothing
        dict(NEGATED[2], correct=False),
        dict(NEGATED[3], answer="On 4 November 2025 [1].", correct=True),
    ]
    store = _imported(tmp_path, items)
    found = {r.question: r.verdict for r in verdicts(store, run="rag-run")}
    assert found == {"q1": "accept", "q2": "escalate", "q3": "reject", "q4": "accept"}
    m = metrics(store, run="rag-run")["rag-run"]
    assert (m.answer_correctness.numerator, m.answer_correctness.denominator) == (2, 3)
    assert m.counts["answer_correctness_unknown"] == 1


def _judge(tmp_path: Path, body: str) -> str:
    script = tmp_path / "judge.py"
    script.write_text("import json, os, sys\nasked = json.load(sys.stdin)\n" + body)
    return f"{sys.executable} {script}"


def test_a_judge_command_decides_what_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOPGATE_TEST_SECRET", "hunter2")
    # A judge that reads negation, and shows it gets no secret from hopgate's environment.
    judge = _judge(
        tmp_path,
        'assert "HOPGATE_TEST_SECRET" not in os.environ\n'
        'said = asked["answer"].lower()\n'
        'json.dump({"correct": None if "lisbon" in said else "not" not in said}, sys.stdout)\n',
    )
    ledger = tmp_path / "judged.jsonl"
    result = import_files(
        "rag",
        [],
        output=ledger,
        docs=[DOCS],
        gold=GOLD,
        answers=_answers(tmp_path, NEGATED),
        correctness_judge=judge,
    )
    outputs = {
        o["id"]: o
        for line in ledger.read_text("utf-8").splitlines()
        for o in json.loads(line).get("outputs") or []
    }
    assert outputs["rag-run/q3"]["correct"] is False
    assert outputs["rag-run/q3"]["x-correct-by"] == f"judge command {judge}"
    assert outputs["rag-run/q2"]["correct"] is None  # the judge could not tell
    assert any("3 judged by judge command, 0 correct" in n for n in result.notes)
    # A judge that fails leaves the answers unknown, and the notes say why.
    broken = _judge(tmp_path, "sys.exit(4)\n")
    result = import_files(
        "rag",
        [],
        output=tmp_path / "broken.jsonl",
        docs=[DOCS],
        gold=GOLD,
        answers=_answers(tmp_path, NEGATED[:1]),
        correctness_judge=broken,
    )
    assert any("1 x the judge failed: exit status 4" in n for n in result.notes)
    assert any("1 of unknown correctness" in n for n in result.notes)
    assert result.counts["judge failure"] == 1


def test_cli_import_rag_with_a_judge(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hopgate.cli import cli

    judge = _judge(tmp_path, 'json.dump({"correct": False}, sys.stdout)\n')
    out = CliRunner().invoke(
        cli,
        ["--store", str(tmp_path / "s"), "import", "rag", "--docs", str(DOCS), "--gold", str(GOLD)]
        + ["--answers", str(_answers(tmp_path, NEGATED)), "-o", str(tmp_path / "l.jsonl")]
        + ["--correctness-judge", judge, "--judge-timeout", "20"],
    )
    assert out.exit_code == 0, out.output
    assert "4 judged by judge command, 0 correct" in out.output
    # A judge that fails: exit 1, the ledger written but not loaded, where its answers would
    # stay unknown for good (a run's cases are never restated; user trial).
    broken = _judge(tmp_path, "sys.exit(4)\n")
    store = tmp_path / "s2"
    failed = CliRunner().invoke(
        cli,
        ["--store", str(store), "import", "rag", "--docs", str(DOCS), "--gold", str(GOLD)]
        + ["--answers", str(_answers(tmp_path, NEGATED)), "-o", str(tmp_path / "f.jsonl")]
        + ["--correctness-judge", broken, "--load"],
    )
    assert failed.exit_code == 1, failed.output
    assert "the correctness judge failed for 4 answer(s)" in failed.stderr
    assert "is written but not loaded" in failed.stderr and (tmp_path / "f.jsonl").exists()
    assert not store.exists() or not any(store.iterdir())
    refused = CliRunner().invoke(
        cli, ["import", "fever", str(GOLD), "--correctness-judge", judge], obj={}
    )
    assert refused.exit_code == 2 and "--correctness-judge applies to rag" in refused.output


def test_interventions_run_does_not_judge_by_substring() -> None:
    item = {
        "run": "sys-a",
        "question": "qA",
        "question_text": "Who holds the rights to Project Cedar?",
        "claim": "cA",
        "set": "gA1",
        "variant": "gold-only",
        "context": [{"id": "a2", "text": "Record R17: the rights are held by Entity R"}],
        "citable": ["a2"],
        "reference_answer": "Entity R",
    }
    denied = case_of(item, 1, {"answer": "It is not Entity R.", "cites": ["a2"]})
    # Today: "entity r" is in the text, so it was recorded as correct.
    assert denied["outputs"][0]["correct"] is None
    short = case_of(item, 2, {"answer": "It is Entity R.", "short_answer": "Entity R"})
    assert short["outputs"][0]["correct"] is True
    assert short["outputs"][0]["x-correct-by"] == BY_SHORT_ANSWER
    labelled = case_of(item, 3, {"answer": "x", "correct": False})
    assert labelled["outputs"][0]["correct"] is False


def test_decide_order() -> None:
    def ask(**given: Any) -> bool | None:
        base: dict[str, Any] = {
            "label": None,
            "short_answer": None,
            "reference": "Stripe",
            "question": "?",
            "answer": "It is definitely not Stripe [1][2]",
        }
        return decide(**{**base, **given}).correct

    assert ask() is None
    assert ask(short_answer="stripe.") is True
    assert ask(short_answer="not Stripe") is None
    assert ask(label=False, short_answer="Stripe") is False
    assert ask(short_answer="Stripe", reference=None) is None
