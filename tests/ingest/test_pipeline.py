"""The Python API for pipelines: the pipeline guide's example runs, record() and assert_gate()."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import hopgate
from hopgate.audit.results import verdicts
from hopgate.decide.evaluation import evaluate
from hopgate.errors import LedgerError, PipelineError
from hopgate.testing import assert_gate

ROOT = Path(__file__).resolve().parents[2]
MARK = "<!-- guide example: run by tests/ingest/test_pipeline.py -->"
GUIDE = ROOT / "docs" / "guide" / "pipeline.md"


def _guide_blocks() -> tuple[str, str]:
    text = GUIDE.read_text(encoding="utf-8")
    after = text.split(MARK, 1)[1]
    code = re.search(r"```python\n(.*?)```", after, re.S)
    printed = re.search(r"prints\n\n```text\n(.*?)```", after, re.S)
    assert code and printed
    return code.group(1), printed.group(1)


def test_the_guide_example_runs_and_prints_what_it_says() -> None:
    code, printed = _guide_blocks()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(GUIDE), "exec"), {})
    assert out.getvalue() == printed


def test_the_guide_assertion_message_is_what_assert_gate_says() -> None:
    code, _ = _guide_blocks()
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, str(GUIDE), "exec"), namespace)
    store = namespace["store"]
    with pytest.raises(AssertionError) as caught:
        assert_gate(store, run="my-rag")  # type: ignore[arg-type]
    readme = GUIDE.read_text(encoding="utf-8")
    assert f"AssertionError: {caught.value}\n" in readme


def _builder() -> hopgate.LedgerBuilder:
    builder = hopgate.LedgerBuilder(run="p")
    builder.add_document("a", "Alpha is mapped to R17. Beta is mapped to R18.")
    builder.add_document("b", "R17 belongs to Entity R.")
    builder.add_question(
        "q1",
        "Who owns Alpha?",
        answer="Entity R",
        consequential=True,
        evidence_sets=[[{"doc": "a", "quote": "Alpha is mapped to R17."}, "b"]],
    )
    builder.add_question("q2", "Who owns Gamma?", evidence_sets=[])
    return builder


def test_builder_errors_at_the_call() -> None:
    builder = _builder()
    with pytest.raises(LedgerError, match="record 1: field 'contexts\\[0\\].text'"):
        builder.record(question="q1", answer="R", contexts=[{"doc": "a", "text": "Gamma"}])
    with pytest.raises(LedgerError, match="unknown question 'q9'"):
        builder.record(question="q9", answer="R")
    with pytest.raises(LedgerError, match="field 'citations\\[0\\]'"):
        builder.record(question="q1", answer="R", contexts=["a"], citations=[2])
    with pytest.raises(LedgerError, match="unknown document 'zz'"):
        builder.add_question("q3", "?", evidence_sets=[["zz"]])


def test_assert_gate_gives_a_reason_per_output(tmp_path: Path) -> None:
    builder = _builder()
    builder.record(
        question="q1", answer="Entity Q", correct=False, contexts=["a", "b"], citations=[1, 2]
    )
    builder.record(question="q2", abstained=True)
    ledger = tmp_path / "p.jsonl"
    builder.write(ledger)
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    with pytest.raises(AssertionError, match="not current"):
        assert_gate(store, run="p")
    with pytest.raises(AssertionError) as caught:
        assert_gate(store, run="p", evaluate=True)
    message = str(caught.value)
    assert "1 of 1 consequential output claims not accepted" in message
    assert "p/q1 (question q1, claim q1): reject: the answer was judged incorrect." in message


def test_record_one_response_at_a_time() -> None:
    store = hopgate.open_store(None)
    _builder().load(store)
    hopgate.record(
        store,
        run="live",
        question="q1",
        answer="Entity R owns it [1][2].",
        short_answer="Entity R",
        contexts=["Alpha is mapped to R17.", {"doc": "b", "text": "R17 belongs to Entity R."}],
    )
    hopgate.record(store, run="live", question="q2", answer="Entity R.", correct=True)
    evaluate(store, run="live")
    found = {row.question: row.verdict for row in verdicts(store, run="live")}
    assert found == {"q1": "accept", "q2": "abstain"}
    result = assert_gate(store, run="live")
    assert result.consequential == 1
    with pytest.raises(PipelineError, match="unknown question 'q7'"):
        hopgate.record(store, run="live", question="q7", answer="x")
    with pytest.raises(hopgate.ConflictError):
        hopgate.record(store, run="live", question="q2", answer="Someone else.", correct=True)
