"""Property test: the SPARQL verdict engine agrees with a plain-Python model of the spec.

The model is tests/spec_model.py, a reading of docs/spec/acceptance.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluated import metrics, verdicts
from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import data as st_data

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


VARIANTS = (
    "gold-only",
    "hop-removal",
    "citation-restriction",
    "contradiction",
    "temporal",
    "permission",
    "identity",
)


def _with_interventions(ledger: dict[str, Any], data: Any) -> dict[str, Any]:
    """The ledger plus intervention cases answering variants of its plain cases' claims."""
    from hypothesis import strategies as st

    spans = [s["id"] for s in ledger.get("spans") or []]
    sets_by_claim: dict[str, list[dict[str, Any]]] = {}
    for g in ledger.get("evidence_sets") or []:
        sets_by_claim.setdefault(g["claim"], []).append(g)
    questions = {q["id"]: q for q in ledger.get("questions") or []}
    extra: dict[tuple[Any, ...], dict[str, Any]] = {}
    for number, case in enumerate(ledger.get("cases") or []):
        claims = questions[case["question"]].get("claims") or []
        sets = [g for c in claims for g in sets_by_claim.get(c, [])]
        if not sets or not spans or not data.draw(st.booleans()):
            continue
        chosen = data.draw(st.sampled_from(sets))
        variant = data.draw(st.sampled_from(VARIANTS))
        spec: dict[str, Any] = {"set": chosen["id"], "variant": variant}
        if variant != "gold-only":
            spec["member"] = data.draw(st.sampled_from(chosen["members"]))
        if variant in ("contradiction", "temporal", "identity"):
            spec["replacement"] = data.draw(st.sampled_from(spans))
        if data.draw(st.booleans()):
            spec["citable"] = data.draw(st.lists(st.sampled_from(spans), max_size=4))
        answer: dict[str, Any] = {
            "run": case["run"],
            "question": case["question"],
            "intervention": spec,
            "retrieved": data.draw(st.lists(st.sampled_from(spans), max_size=4))
            + (chosen["members"] if data.draw(st.booleans()) else []),
            "abstained": data.draw(st.booleans()),
        }
        if data.draw(st.booleans()):
            answer["outputs"] = [
                {
                    "id": f"intervention-{number}",
                    "claim": chosen["claim"],
                    "correct": data.draw(st.booleans()),
                    "cites": data.draw(st.lists(st.sampled_from(spans), max_size=4))
                    + (chosen["members"] if data.draw(st.booleans()) else []),
                }
            ]
        key = (case["run"], case["question"], spec["set"], variant)
        key += (spec.get("member"), spec.get("replacement"))
        extra.setdefault(key, answer)
    return {**ledger, "cases": [*(ledger.get("cases") or []), *extra.values()]}


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers(), data=st_data())
def test_interventions_match_the_model(ledger: dict[str, Any], data: Any, tmp_path: Path) -> None:
    """interventions.md: the engine's outcomes are the model's, and the plain figures stay."""
    from hopgate import catalog
    from hopgate.interventions.score import recorded

    ledger = _with_interventions(ledger, data)
    engine_rows, engine_metrics = _engine(ledger, tmp_path)
    model_rows, model_metrics = _model(ledger)
    assert sorted(engine_rows, key=_key) == sorted(model_rows, key=_key)
    for run, expected in model_metrics.items():
        assert _rounded(engine_metrics.get(run)) == _rounded(expected), run
    path = write(tmp_path / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        engine: list[dict[str, Any]] = []
        for run in catalog.runs(store):
            from hopgate.evaluate import evaluate

            evaluate(store, run=run)
            latest = catalog.latest(store, run)
            assert latest is not None
            for o in recorded(store, latest.bundle):
                engine.append(
                    {
                        "question": o.question,
                        "set": o.set,
                        "variant": o.variant,
                        "member": o.member,
                        "expected": o.expected,
                        "surviving_route": o.surviving_route,
                        "observed": o.observed,
                        "correct": o.correct,
                        "cited_outside_context": o.cited_outside_context,
                    }
                )
    model = spec_model.intervention_outcomes(ledger)

    def order(item: dict[str, Any]) -> str:
        return repr(sorted(item.items()))

    assert sorted(engine, key=order) == sorted(model, key=order)
