"""Asserting on hopgate's gate in a test suite, the way a CI job asserts on a metric.

    from hopgate.testing import assert_gate

    def test_release_gate(store):
        assert_gate(store, run="my-rag", evaluate=True)

``assert_gate`` raises ``AssertionError`` (pytest shows it as the failure)
with one sentence per consequential output claim that is not accepted,
saying why, and the reason when the run's evaluation is missing or stale.
"""

from __future__ import annotations

from hopgate.audit.results import GateResult, VerdictRow, gate
from hopgate.decide.evaluation import evaluate as run_evaluation
from hopgate.escaping import terminal
from hopgate.library.steps import AUTHORITY_POLICY, GATE_POLICY
from hopgate.store import Store


def reason(row: VerdictRow) -> str:
    """One sentence saying why an output claim's verdict is not ``accept``."""
    # Ids are data: each is shown on one line, its line ends and controls as escapes.
    what = (
        f"{terminal(row.output)} (question {terminal(row.question)}, "
        f"claim {terminal(row.claim or 'none')})"
    )
    missing = ", ".join(terminal(span) for span in row.missing)
    retrieval = (
        "" if row.retrieved_complete else "; retrieval did not deliver a complete evidence set"
    )
    if row.verdict == "revise-citations":
        return (
            f"{what}: revise-citations: the answer is supported but its citations miss "
            f"{missing or 'a member'} of the nearest eligible evidence set{retrieval}."
        )
    if row.verdict == "reject":
        return f"{what}: reject: the answer was judged incorrect{retrieval}."
    if row.verdict == "abstain":
        if row.answerability == "blocked":
            why = "its claim's evidence is not readable by the evaluation's reader (blocked)"
        else:
            why = "no eligible evidence set exists for its claim (not found)"
        return f"{what}: abstain: {why}, so the system should have abstained."
    if row.verdict == "escalate":
        if row.claim is None:
            why = "it asserts no reference claim (an unreviewed extra assertion)"
        elif not row.correctness_known:
            why = "nobody judged whether the answer is correct (its correctness is unknown)"
        else:
            why = "its claim has an unresolved contradiction or only a proposed evidence set cited"
        return f"{what}: escalate: {why}; it awaits adjudication."
    return f"{what}: {row.verdict}."


def authority_reason(row: VerdictRow, require: str) -> str:
    """One sentence saying why an accepted output fails a gate requiring an authority."""
    return (
        f"{terminal(row.output)} (question {terminal(row.question)}, claim "
        f"{terminal(row.claim or 'none')}): accept, but its route authority is "
        f"{row.route_authority}, weaker than --require-authority {require} requires "
        "(a disclosed policy; the verdict is unchanged)."
    )


def gate_message(result: GateResult) -> str:
    """The failure message of a gate: the reason, then one sentence per failing output."""
    if result.stale:
        return (
            f"hopgate gate failed for run {terminal(result.run)}: its latest evaluation is not "
            f"current ({terminal(result.reason)}); evaluate it first (hopgate.evaluate or "
            "evaluate=True)"
        )
    if result.nothing_gated:
        how = (
            "no output claim asserts a claim marked consequential (mark the claims that must "
            'hold, or assert with consequential="all")'
            if result.policy == "marked"
            else "the run has no output claim"
        )
        return f"hopgate gate gated nothing for run {terminal(result.run)}: {how}"
    weighed = "consequential output claims" if result.policy == "marked" else "output claims"
    lines = [
        f"hopgate gate failed for run {terminal(result.run)}: {len(result.failing)} of "
        f"{result.weighed} {weighed} not accepted"
        + ("" if result.require_authority == "none" else " or below the required authority")
        + ":"
    ]
    lines += [
        f"  - {authority_reason(row, result.require_authority)}"
        if row.output in result.below_authority
        else f"  - {reason(row)}"
        for row in result.failing
    ]
    return "\n".join(lines)


def assert_gate(
    store: Store,
    *,
    run: str,
    evaluate: bool = False,
    consequential: str = GATE_POLICY,
    require_authority: str = AUTHORITY_POLICY,
) -> GateResult:
    """Fail (``AssertionError``) unless ``run`` passes hopgate's gate; returns the result.

    Passing means the run's latest evaluation is current, the gate weighs at
    least one output claim under the ``consequential`` policy (``marked``:
    those asserting a claim marked consequential, the default; ``all``: every
    output claim), and every one it weighs is accepted. A gate that weighs
    nothing fails the assertion: nothing was gated. With ``evaluate``, a
    missing or stale evaluation is made first (as ``hopgate gate
    --evaluate``); otherwise it fails the assertion with its reason.
    ``require_authority`` (``primary`` or ``secondary``) also fails an accepted
    output whose route authority is weaker (a disclosed policy, never a verdict:
    docs/spec/acceptance.md "Source truth").

    Raises:
        AssertionError: the gate failed or gated nothing; the message gives a
            reason per output.
        NotEvaluatedError: ``run`` is not in the store.
        GateError: an unknown policy.
    """
    # pytest shows the failure from the test's own line, not from hopgate's source.
    __tracebackhide__ = True
    if evaluate:
        run_evaluation(store, run=run)
    result = gate(store, run=run, consequential=consequential, require_authority=require_authority)
    if not result.passed:
        raise AssertionError(gate_message(result))
    return result


__all__ = ["assert_gate", "gate_message", "reason"]
