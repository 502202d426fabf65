"""bench/reference.py, the benchmark's plain-Python evaluation, gives hopgate's answers.

Every verdict row and every metric (ratios with intervals, counts, strata,
whole answer, subjects awaiting adjudication) of the reference is compared
with what ``hopgate evaluate`` recorded and ``hopgate verdicts`` / ``metrics``
read, on the worked example, on small ledgers of bench/synthetic.py and on
small random ledgers with judgments and withheld texts
(tests/ledger_strategies.py). The timings are bench/decide.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import hopgate
from hopgate.library.artefacts import artefact

try:
    from tests.conftest import bench_module, write
    from tests.ledger_strategies import ledgers
except ImportError:  # run from inside tests/
    from conftest import bench_module, write  # type: ignore[no-redef]
    from ledger_strategies import ledgers  # type: ignore[no-redef]

ROOT = Path(__file__).parents[2]
LEDGERS = ROOT / "tests" / "fixtures" / "ledgers"


reference = bench_module("reference")
synthetic = bench_module("synthetic")


def _differences(paths: list[Path]) -> tuple[list[str], int]:
    """What the reference and hopgate disagree on for ``paths`` loaded in order; rows compared."""
    with hopgate.open_store(None) as store:
        for path in paths:
            hopgate.load(store, path)
        hopgate.evaluate(store)
        rows, figures = reference.hopgate_answers(store)
    return reference.compare(reference.evaluate_ledger(paths), rows, figures), len(rows)


@pytest.mark.parametrize("name", ["cedar.yaml", "withheld.yaml"])
def test_the_examples(name: str) -> None:
    differences, rows = _differences([Path(str(artefact("examples") / name))])
    assert differences == []
    assert rows > 0


def test_a_claim_not_applicable() -> None:
    """docs/spec/acceptance.md "Not applicable": the worked example with a claim outside
    its evaluation's scope loaded after it; the reference and hopgate agree on the flag,
    the reason, the verdict and every count."""
    paths = [Path(str(artefact("examples") / "cedar.yaml")), LEDGERS / "not-applicable.yaml"]
    differences, _ = _differences(paths)
    assert differences == []
    answers = reference.evaluate_ledger(paths)["sys-a"]
    [row] = [r for r in answers.rows if r["output"] == "sys-a/qE/o1"]
    assert (row["verdict"], row["not_applicable"], row["answerability"]) == (
        "abstain",
        True,
        "not applicable",
    )
    assert row["not_applicable_reason"].startswith("=eval-oct covers <b>Cedar</b>")
    assert answers.metrics["counts"]["not_applicable"] == 1


def test_the_worked_example_figures() -> None:
    """docs/spec/acceptance.md "Worked example", from the reference alone."""
    path = Path(str(artefact("examples") / "cedar.yaml"))
    answers = reference.evaluate_ledger([path])["sys-a"]
    figures = answers.metrics
    assert [
        (figures[n]["numerator"], figures[n]["denominator"])
        for n in (
            "complete_set_recall",
            "citation_set_completeness",
            "answer_correctness",
        )
    ] == [(2, 4), (1, 3), (3, 4)]
    assert [(r["output"], r["verdict"], r["missing"]) for r in answers.rows] == [
        ("sys-a/qA/o1", "revise-citations", ["a1"]),
        ("sys-a/qB/o1", "revise-citations", ["b1"]),
        ("sys-a/qC/o1", "accept", []),
        ("sys-a/qD/o1", "reject", ["d2"]),
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthetic_ledgers(seed: int, tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    synthetic.write_ledger(path, 60, seed=seed, runs=2)
    differences, rows = _differences([path])
    assert differences == []
    assert rows > 100


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers())
def test_random_ledgers(ledger: dict[str, Any], tmp_path: Path) -> None:
    """Judgments, withheld texts, several runs; written as JSON Lines (the reference's own reader)."""
    if not ledger.get("runs"):
        return
    path = write(tmp_path / "ledger", ledger, "jsonl")
    differences, _ = _differences([path])
    assert differences == []


def test_a_difference_is_reported(tmp_path: Path) -> None:
    """compare() is not blind: one changed verdict and one changed count are both named."""
    path = tmp_path / "ledger.jsonl"
    synthetic.write_ledger(path, 20, seed=4)
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        hopgate.evaluate(store)
        rows, figures = reference.hopgate_answers(store)
    rows[0]["verdict"] = "escalate" if rows[0]["verdict"] != "escalate" else "accept"
    figures["run0"]["counts"]["omitted"] += 1
    differences = reference.compare(reference.evaluate_ledger([path]), rows, figures)
    assert len(differences) == 2
    assert " verdict: " in differences[0]
    assert "counts" in differences[1]
