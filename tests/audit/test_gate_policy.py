"""A gate that never passes vacuously, with its policy explicit (issue 28 item 4).

docs/spec/acceptance.md "Release gate": the gate weighs the output claims its
policy names (``marked``: those asserting a claim marked consequential, the
default; ``all``: every output claim), passes only when it weighs at least
one and accepts each, and with nothing weighed says nothing was gated, in
the API, ``assert_gate``, the command and every format of the report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import hopgate
from hopgate.cli import cli
from hopgate.errors import GateError
from hopgate.testing import assert_gate

ROOT = Path(__file__).resolve().parents[2]


def _trial(consequential: bool) -> hopgate.Store:
    """The issue's trial: a made-up answer and an escalation, no claim marked consequential."""
    builder = hopgate.LedgerBuilder(run="trial")
    builder.add_document("a", "Alpha is mapped to R17.")
    builder.add_document("b", "R17 belongs to Entity R.")
    builder.add_document("c", "R17 belongs to Entity Q, says an old page.")
    builder.add_question(
        "q1",
        "Who owns Alpha?",
        answer="Entity R",
        evidence_sets=[["a", "b"]],
        contradictions=["c"],
        consequential=consequential or None,
    )
    builder.add_question("q2", "What is Alpha's budget?", evidence_sets=[])
    builder.record(question="q1", answer="Entity R [1][2].", contexts=["a", "b"])
    builder.record(question="q2", answer="Alpha's budget is 4 million.", contexts=["a"])
    store = hopgate.open_store(None)
    builder.load(store)
    hopgate.evaluate(store, run="trial")
    return store


def test_nothing_gated_is_not_a_pass() -> None:
    store = _trial(consequential=False)
    result = hopgate.gate(store, run="trial")
    assert (result.passed, result.state, result.weighed, result.policy) == (
        False,
        "nothing gated",
        0,
        "marked",
    )
    everything = hopgate.gate(store, run="trial", consequential="all")
    assert (everything.state, everything.weighed) == ("failed", 2)
    assert {row.verdict for row in everything.failing} == {"escalate", "abstain"}


def test_assert_gate_fails_on_a_gate_that_weighs_nothing() -> None:
    store = _trial(consequential=False)
    with pytest.raises(AssertionError, match="gated nothing for run trial: no output claim"):
        assert_gate(store, run="trial")
    with pytest.raises(AssertionError, match="2 of 2 output claims not accepted"):
        assert_gate(store, run="trial", consequential="all")
    with pytest.raises(GateError, match="did you mean 'marked'"):
        assert_gate(store, run="trial", consequential="marke")


def test_marked_claims_are_weighed() -> None:
    store = _trial(consequential=True)
    result = hopgate.gate(store, run="trial")
    assert (result.state, result.weighed) == ("failed", 1)
    assert [row.verdict for row in result.failing] == ["escalate"]


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_the_report_says_nothing_was_gated_and_its_policy(fmt: str) -> None:
    store = _trial(consequential=False)
    text = hopgate.render_report(hopgate.build_report(store, run="trial", pictures=0), format=fmt)
    if fmt == "json":
        decision = json.loads(text)["gate"]
        assert (decision["state"], decision["passed"], decision["policy"]) == (
            "nothing gated",
            False,
            "marked",
        )
        assert "asserting a claim marked consequential" in decision["policy_text"]
        return
    assert "NOTHING GATED (not a pass)" in text
    assert "PASS" not in text.replace("NOTHING GATED (not a pass)", "")
    assert "Policy applied (marked)" in text
    assert "every output claim asserting a claim marked consequential must be accepted" in text
    assert "Nothing was gated" in text
    everything = hopgate.render_report(
        hopgate.build_report(store, run="trial", pictures=0, consequential="all"), format=fmt
    )
    assert "FAIL" in everything and "0 of 2 output claim(s) accepted" in everything
    assert "Policy applied (all): " in everything


def test_the_command_says_nothing_was_gated(tmp_path: Path) -> None:
    store_path = tmp_path / "store"
    builder = hopgate.LedgerBuilder(run="trial")
    builder.add_document("a", "Alpha is mapped to R17.")
    builder.add_question("q1", "What is Alpha?", answer="R17", evidence_sets=[["a"]])
    builder.record(question="q1", answer="R17 [1].", contexts=["a"], correct=True)
    ledger = tmp_path / "trial.jsonl"
    builder.write(ledger)
    runner = CliRunner()
    assert runner.invoke(cli, ["--store", str(store_path), "load", str(ledger)]).exit_code == 0
    args = ["--store", str(store_path), "gate", "--run", "trial", "--evaluate"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 1 and "NOTHING GATED (not a pass)" in result.output
    result = runner.invoke(cli, [*args, "--consequential", "all"])
    assert result.exit_code == 0 and "gate passed: all 1 output claim(s) accepted" in result.output
    report = runner.invoke(
        cli, ["--store", str(store_path), "report", "--run", "trial", "--format", "md"]
    )
    assert "NOTHING GATED" in report.output


def test_an_assert_gate_failure_shows_the_test_not_hopgate(tmp_path: Path) -> None:
    """pytest reports the failure at the test's line, without hopgate's source above it."""
    test = tmp_path / "test_release.py"
    test.write_text(
        textwrap.dedent(
            """
            import hopgate
            from hopgate.testing import assert_gate

            def test_release():
                builder = hopgate.LedgerBuilder(run="r")
                builder.add_document("a", "Alpha is mapped to R17.")
                builder.add_question("q1", "What is Alpha?", answer="R17",
                                     evidence_sets=[["a"]], consequential=True)
                builder.record(question="q1", answer="R17.", contexts=["a"])
                store = hopgate.open_store(None)
                builder.load(store)
                assert_gate(store, run="r", evaluate=True)
            """
        ),
        encoding="utf-8",
    )
    # The same hopgate as this test's (a checkout's src/ or the installed package).
    env = {**os.environ, "PYTHONPATH": str(Path(hopgate.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        env=env,
    )
    assert done.returncode == 1
    failure = done.stdout.split("test_release ___", 1)[1].split("short test summary", 1)[0]
    assert "AssertionError: hopgate gate failed for run r: 1 of 1 consequential" in failure
    assert "hopgate/testing.py" not in failure and "raise AssertionError" not in failure
    assert len(failure.strip().splitlines()) < 25
