"""Property test: the SPARQL verdict engine agrees with a plain-Python model of the spec.

The model is tests/spec_model.py, a reading of docs/spec/acceptance.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import spec_model
from conftest import examples, write
from evaluated import MODEL_COLUMNS, metrics, verdicts
from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import data as st_data
from ledger_strategies import ledgers

import hopgate

RATIOS = ("complete_set_recall", "citation_set_completeness", "answer_correctness", "whole_answer")


def _engine(ledger: dict[str, Any], directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    path = write(directory / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        if not ledger.get("runs"):
            return [], {}
        rows = [{k: r.as_dict()[k] for k in MODEL_COLUMNS} for r in verdicts(store)]
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
    rows = [{k: r[k] for k in MODEL_COLUMNS} for r in spec_model.verdict_rows(ledger)]
    summary = {
        run: {**{name: m[name] for name in RATIOS}, "counts": m["counts"]}
        for run, m in spec_model.metrics(ledger).items()
    }
    return rows, summary


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["run"], row["question"], row["output"])


@settings(
    max_examples=examples(60),
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
                    # None: nobody judged it (builtin:bm25 writes every answer so).
                    "correct": data.draw(st.sampled_from([True, False, None])),
                    "cites": data.draw(st.lists(st.sampled_from(spans), max_size=4))
                    + (chosen["members"] if data.draw(st.booleans()) else []),
                }
            ]
        key = (case["run"], case["question"], spec["set"], variant)
        key += (spec.get("member"), spec.get("replacement"))
        extra.setdefault(key, answer)
    return {**ledger, "cases": [*(ledger.get("cases") or []), *extra.values()]}


@settings(
    max_examples=examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers(), data=st_data())
def test_interventions_match_the_model(ledger: dict[str, Any], data: Any, tmp_path: Path) -> None:
    """interventions.md: the engine's outcomes are the model's, and the plain figures stay."""
    from hopgate.audit import results
    from hopgate.decide.outcomes import recorded
    from hopgate.store import catalog

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
            from hopgate.decide.evaluation import evaluate

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
        # Each card lists the variants answered for its own claim-case, no other
        # (a card without one once listed every outcome of its bundle).
        expected_cards = spec_model.card_interventions(ledger)
        for row in results.verdicts(store):
            if row.claim is None:
                continue
            key = (row.run, row.question, row.claim)
            expected = expected_cards.get(key, {"item": "none", "variants": []})
            assert row.interventions is not None, key
            variants = sorted(row.interventions["variants"], key=lambda e: repr(sorted(e.items())))
            assert {"item": row.interventions["item"], "variants": variants} == expected, key
    model = spec_model.intervention_outcomes(ledger)

    def order(item: dict[str, Any]) -> str:
        return repr(sorted(item.items()))

    assert sorted(engine, key=order) == sorted(model, key=order)


# ---- every auditor query against the model -------------------------------------


def _rows(store: Any, query_id: str) -> list[dict[str, Any]]:
    from hopgate.cli.formatting import show_value
    from hopgate.library.artefacts import library_queries

    text = library_queries()[query_id].text
    return [{k: show_value(v) for k, v in row.items()} for row in store.select(text)]


_STATUS = {
    "answerable": "hg:Answerable",
    "blocked": "hg:Blocked",
    "not found": "hg:NotFound",
    "not applicable": "hg:NotApplicable",
}
_VERDICT = {
    "accept": "hg:Accept",
    "revise-citations": "hg:ReviseCitations",
    "abstain": "hg:Abstain",
    "reject": "hg:Reject",
    "escalate": "hg:Escalate",
}


def _model_answers(ledger: dict[str, Any]) -> dict[str, set[tuple[Any, ...]]]:
    """What each auditor query must answer, from the plain-Python model alone."""
    model = spec_model.Ledger(ledger)
    rows = {(r["run"], r["output"]): r for r in spec_model.verdict_rows(ledger)}
    answers: dict[str, set[tuple[Any, ...]]] = {
        name: set()
        for name in (
            "verdicts",
            "missing-hops",
            "inadmissible-citations",
            "claim-cases",
            "claim-status",
            "complete-sets",
            "admissible-spans",
            "coverage",
        )
    }
    touched: dict[str, set[str]] = {}
    for case in model.cases:
        run, question = case["run"], case["question"]
        evaluation = model.evaluation_of(run)
        retrieved = model.delivered_all(case.get("retrieved"))
        outputs = case.get("outputs") or []
        for claim in model.required_claims(question):
            touched.setdefault(evaluation["id"], set()).add(claim)
            eligible = model.eligible_sets(claim, evaluation)
            asserting = [o for o in outputs if o.get("claim") == claim]
            answers["claim-cases"].add(
                (
                    run,
                    question,
                    claim,
                    _STATUS[model.status(claim, evaluation)],
                    any(model.contained(g["members"], retrieved) for g in eligible),
                    len(eligible) if eligible else None,
                    min(len(set(g["members"])) for g in eligible) if eligible else None,
                    bool(asserting),
                    any(bool(o["correct"]) for o in asserting),
                    # Unknown: none judged correct and some not judged (acceptance.md "Metrics").
                    any(bool(o["correct"]) for o in asserting)
                    or all(o["correct"] is not None for o in asserting),
                    _source_age(model, claim, evaluation, eligible),
                )
            )
            answers["claim-status"].add(
                (evaluation["id"], claim, _STATUS[model.status(claim, evaluation)])
            )
            for g in model.sets_by_claim.get(claim, []):
                for m in g["members"]:
                    for d in retrieved:
                        if model.covers(d, model.spans[m]):
                            answers["coverage"].add(
                                (run, None, "retrieved", m, d.id, _how(d, model.spans[m]))
                            )
        for output in outputs:
            row = rows[(run, output["id"])]
            claim = output.get("claim")
            status = model.status(claim, evaluation) if claim is not None else None
            answers["verdicts"].add(
                (
                    run,
                    question,
                    output["id"],
                    claim,
                    output["correct"],  # None: not judged, unbound in the store
                    _STATUS.get(status) if status else None,
                    row["supported"],
                    row["retrieved_complete"],
                    row["citation_complete"],
                    _VERDICT[row["verdict"]],
                )
            )
            answers["missing-hops"] |= {(run, output["id"], m) for m in row["missing"]}
            answers["inadmissible-citations"] |= {
                (run, output["id"], s) for s in row["inadmissible_citations"]
            }
            if claim is None:
                continue
            touched.setdefault(evaluation["id"], set()).add(claim)
            cited = model.delivered_all(output.get("cites"))
            for g in model.eligible_sets(claim, evaluation):
                answers["complete-sets"].add(
                    (
                        run,
                        output["id"],
                        g["id"],
                        len(set(g["members"])),
                        len(model.uncovered(g["members"], cited)),
                        len(model.uncovered(g["members"], retrieved)),
                    )
                )
            for g in model.sets_by_claim.get(claim, []):
                for m in g["members"]:
                    for d in cited:
                        if model.covers(d, model.spans[m]):
                            answers["coverage"].add(
                                (run, output["id"], "cited", m, d.id, _how(d, model.spans[m]))
                            )
    for evaluation_id, claims in touched.items():
        evaluation = model.evaluations[evaluation_id]
        cutoff = spec_model.parse_time(evaluation["observation_cutoff"])
        for claim in claims:
            applies_at = model.claims[claim].get("applies_at")
            for g in model.sets_by_claim.get(claim, []):
                for m in g["members"]:
                    span = model.spans[m]
                    version = model.versions[span.version]
                    late = not version.observed_at <= cutoff
                    invalidated = (
                        version.invalidated_at is not None and version.invalidated_at <= cutoff
                    )
                    moment = spec_model._time_or_none(applies_at)
                    out_of_time = moment is not None and (
                        (version.effective_from is not None and moment < version.effective_from)
                        or (
                            version.effective_until is not None
                            and not moment < version.effective_until
                        )
                    )
                    unreadable = not model.rule_4(span, evaluation)
                    answers["admissible-spans"].add(
                        (
                            evaluation_id,
                            claim,
                            m,
                            not (late or invalidated or out_of_time or unreadable),
                            late,
                            invalidated,
                            out_of_time,
                            unreadable,
                        )
                    )
    return answers


def _source_age(model: Any, claim: str, evaluation: dict[str, Any], eligible: list[Any]) -> Any:
    """Whole days from the oldest observation of the eligible sets' versions to the claim's time."""
    if not eligible:
        return None
    oldest = min(
        model.versions[model.spans[m].version].observed_at for g in eligible for m in g["members"]
    )
    moment = model.claims[claim].get("applies_at") or evaluation["observation_cutoff"]
    return (spec_model.parse_time(moment) - oldest).days


def _how(d: Any, s: Any) -> str:
    if d.id == s.id:
        return "same span"
    return "same locator" if s.locator is not None else "contains"


def _engine_answers(store: Any) -> dict[str, set[tuple[Any, ...]]]:
    """The auditor queries' rows, reduced to the columns the model decides."""
    answers: dict[str, set[tuple[Any, ...]]] = {}
    answers["verdicts"] = {
        (
            r["run"],
            r["question"],
            r["output"],
            r["claim"],
            r["correct"],
            r["answerability"],
            r["supported"],
            r["retrievedComplete"],
            r["citationComplete"],
            r["verdict"],
        )
        for r in _rows(store, "verdicts")
    }
    answers["missing-hops"] = {
        (r["run"], r["output"], r["spanId"]) for r in _rows(store, "missing-hops")
    }
    answers["inadmissible-citations"] = {
        (r["run"], r["output"], r["spanId"]) for r in _rows(store, "inadmissible-citations")
    }
    answers["claim-cases"] = {
        (
            r["run"],
            r["question"],
            r["claim"],
            r["answerability"],
            r["retrievedComplete"],
            r["eligibleSets"],
            r["hops"],
            r["answered"],
            r["answeredCorrectly"],
            r["correctnessKnown"],
            r["sourceAgeDays"],
        )
        for r in _rows(store, "claim-cases")
    }
    answers["claim-status"] = {
        (r["evaluation"], r["claim"], r["status"]) for r in _rows(store, "claim-status")
    }
    answers["complete-sets"] = {
        (r["run"], r["output"], r["setId"], r["members"], r["uncited"], r["unretrieved"])
        for r in _rows(store, "complete-sets")
    }
    answers["admissible-spans"] = {
        (
            r["evaluation"],
            r["claim"],
            r["spanId"],
            r["admissible"],
            r["late"],
            r["invalidated"],
            r["outOfTime"],
            r["unreadable"],
        )
        for r in _rows(store, "admissible-spans")
    }
    answers["coverage"] = {
        (r["run"], r["output"], r["channel"], r["referenceId"], r["deliveredId"], r["how"])
        for r in _rows(store, "coverage")
    }
    return answers


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers())
def test_auditor_queries_match_the_model(ledger: dict[str, Any], tmp_path: Path) -> None:
    """Every auditor query, after `evaluate`, answers what the model of the spec says."""
    from hopgate.decide.evaluation import evaluate

    path = write(tmp_path / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        before = _engine_answers(store)
        assert all(not rows for rows in before.values()), "a read before any evaluation"
        if ledger.get("runs"):
            evaluate(store)
        engine = _engine_answers(store)
    model = _model_answers(ledger)
    for query_id, expected in model.items():
        assert engine[query_id] == expected, query_id
