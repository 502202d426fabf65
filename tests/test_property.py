"""Property test: the SPARQL verdict engine agrees with a plain-Python model of the spec.

The model is tests/spec_model.py, a reading of docs/spec/acceptance.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluated import metrics, verdicts
from hypothesis import HealthCheck, given, settings

import hopgate

try:
    from tests import spec_model
    from tests.conftest import write
    from tests.ledger_strategies import ledgers
except ImportError:  # run from inside tests/
    import spec_model  # type: ignore[no-redef]
    from conftest import write  # type: ignore[no-redef]
    from ledger_strategies import ledgers  # type: ignore[no-redef]

ROW_KEYS = (
    "run",
    "question",
    "output",
    "claim",
    "supported",
    "retrieved_complete",
    "citation_complete",
    "missing",
    "inadmissible_citations",
    "verdict",
)
RATIOS = ("complete_set_recall", "citation_set_completeness", "answer_correctness", "whole_answer")


def _engine(ledger: dict[str, Any], directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    path = write(directory / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        if not ledger.get("runs"):
            return [], {}
        rows = [{k: r.as_dict()[k] for k in ROW_KEYS} for r in verdicts(store)]
        figures = metrics(store)
    summary = {
        run: {
            **{
                name: {
                    "numerator": getattr(m, name).numerator,
                    "denominator": getattr(m, name).denominator,
                    "value": getattr(m, name).value,
                }
                for name in RATIOS
            },
            "counts": m.counts,
        }
        for run, m in figures.items()
    }
    return rows, summary


def _model(ledger: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows = [{k: r[k] for k in ROW_KEYS} for r in spec_model.verdict_rows(ledger)]
    summary = {
        run: {**{name: m[name] for name in RATIOS}, "counts": m["counts"]}
        for run, m in spec_model.metrics(ledger).items()
    }
    return rows, summary


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["run"], row["question"], row["output"])


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers())
def test_engine_matches_the_model(ledger: dict[str, Any], tmp_path: Path) -> None:
    engine_rows, engine_metrics = _engine(ledger, tmp_path)
    model_rows, model_metrics = _model(ledger)
    assert sorted(engine_rows, key=_key) == sorted(model_rows, key=_key)
    for run, expected in model_metrics.items():
        assert _rounded(engine_metrics.get(run)) == _rounded(expected), run


def _rounded(value: Any) -> Any:
    """Floats rounded so that 1/3 computed twice compares equal; containers recursed."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value
