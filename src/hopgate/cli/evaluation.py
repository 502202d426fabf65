"""``hopgate evaluate``, ``verdicts``, ``metrics`` and ``gate``: decide, then read the decisions.

Only ``evaluate`` (and ``gate --evaluate``) writes; the others read the
recorded evaluations (docs/spec/records.md "Writes and reads").
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import click

from hopgate import api
from hopgate.cli.formatting import render
from hopgate.cli.shared import (
    format_option,
    handle_errors,
    note_stale,
    open_store,
    reader_option,
    require_authority_option,
)
from hopgate.escaping import json_text, terminal


@click.command()
@click.option("--run", "run", help="Evaluate only this run (its ledger id).")
@click.option(
    "--force",
    is_flag=True,
    help="Evaluate even when the latest evaluation is current (its inputs are walked again).",
)
@click.option(
    "--by",
    envvar="HOPGATE_USER",
    help="The person responsible, recorded with a new evaluation (env HOPGATE_USER; "
    "--force to record one when the latest is current).",
)
@click.pass_context
@handle_errors
def evaluate(ctx: click.Context, run: str | None, force: bool, by: str | None) -> None:
    """Decide every output claim of a run and record acceptance cards as a PROV bundle.

    A run whose latest evaluation used the store's current loads is not
    evaluated again (unless --force); earlier evaluations stay, each new one
    linked to the previous by prov:wasRevisionOf.

    Example: hopgate evaluate --run sys-a
    """

    # Only a load makes a store: evaluating a path holding none (a mistyped --store) is an
    # error, not a new empty store.
    for record in api.evaluate(open_store(ctx), run=run, force=force, by=by or None):
        state = "up to date" if record.reused else f"evaluated in {record.seconds:.2f} s"
        click.echo(
            f"run {terminal(record.run)}: {record.cards} acceptance cards, "
            f"{record.claim_cases} claim-cases ({state}) in {terminal(record.graph)}"
        )


@click.command()
@click.option("--run", "run", help="Only this run (its ledger id).")
@reader_option("each run's evaluation's reader")
@format_option("table", "json", "csv")
@click.pass_context
@handle_errors
def verdicts(ctx: click.Context, run: str | None, reader: str | None, fmt: str) -> None:
    """Show the acceptance card of every output claim of each run's latest evaluation.

    Reads only: a run never evaluated is not shown (run `hopgate evaluate`);
    a stale evaluation is shown with a note on stderr and, in JSON and CSV,
    "stale": true and its reason. unretrieved_citations lists the cited spans
    the case never retrieved (shown, never changing the verdict);
    not_applicable and its reason, a claim the ledger marks not applicable for
    the evaluation (its output's verdict is abstain).

    Example: hopgate verdicts --run sys-a --format json
    """

    # The table and CSV show no judgment, source truth, contradiction or intervention.
    found = api.verdicts(open_store(ctx, reads=True), run=run, reader=reader, brief=fmt != "json")
    note_stale({(r.run, r.stale_reason) for r in found if r.stale})
    if fmt == "json":
        # The rows as their as_dict() gives them, written without building the dicts first.
        click.echo(json_text(found))
        return
    # Cited spans the case never retrieved change no verdict, but a reader of the table must
    # see them (acceptance.md "Per output claim", unretrieved_citations).
    columns = api.VERDICT_COLUMNS + ["unretrieved_citations", "route_authority"]
    if fmt == "csv":
        columns += ["inadmissible_citations", "answerability", "card", "stale", "stale_reason"]
        # acceptance.md "Not applicable": the flag and the ledger's reason (escaped by render).
        columns += ["not_applicable", "not_applicable_reason"]
    # Only the columns shown, each a field as as_dict() gives it (a string, a flag or a
    # list of strings): as_dict() copies every card's judgments and source truth too
    # (both runs at 10k claims: the table 1.96 -> 1.52 s, bench/README.md).
    shown = attrgetter(*columns)
    rows = [dict(zip(columns, shown(row), strict=True)) for row in found]
    click.echo(render(rows, columns=columns, format=fmt), nl=False)


@click.command()
@click.option("--run", "run", help="Only this run (its ledger id).")
@click.option(
    "--peers",
    is_flag=True,
    help="Also MultiHop-RAG, Ragas, HotpotQA and FEVER figures on the same claim-cases.",
)
@reader_option("each run's evaluation's reader")
@format_option("table", "json")
@click.pass_context
@handle_errors
def metrics(ctx: click.Context, run: str | None, peers: bool, reader: str | None, fmt: str) -> None:
    """Show complete-set recall, citation-set completeness and answer correctness per run.

    Every figure carries its numerator and denominator; an empty denominator
    gives no value (never 100%). --peers adds the figures other benchmarks
    report (Hits@k, MAP, MRR, context recall, supporting-fact EM/F1, FEVER
    scores), each with its own name and denominator.

    Example: hopgate metrics --peers --format json
    """

    result = api.metrics(open_store(ctx, reads=True), run=run, peers=peers, reader=reader)
    note_stale({(m.run, m.stale_reason) for m in result.values() if m.stale})
    if fmt == "json":
        payload = {run_id: m.as_dict() for run_id, m in result.items()}
        click.echo(json_text(payload))
        return
    for run_id, m in result.items():
        label = f" BASELINE ({m.baseline['summary']})" if m.baseline is not None else ""
        click.echo(f"run {terminal(run_id)}{terminal(label)} (evaluation {terminal(m.evaluation)})")
        rows = [_metric_row(name, getattr(m, name)) for name in api.FIGURES]
        click.echo(
            render(
                rows,
                columns=["metric", "numerator", "denominator", "value", "95% interval"],
                format="table",
            ),
            nl=False,
        )
        click.echo("counts: " + ", ".join(f"{k} {v}" for k, v in m.counts.items()))
        click.echo(
            f"awaiting adjudication: {m.awaiting_adjudication}"
            + (
                f" (hopgate review queue --run {terminal(run_id)} lists them)"
                if m.awaiting_adjudication
                else ""
            )
        )
        if m.interventions:
            # docs/spec/interventions.md "Cards and figures": per variant, apart from the above.
            click.echo("interventions (never part of the figures above):")
            rows = []
            for variant, named in m.interventions.items():
                for name, figure in named.items():
                    row = _metric_row(name, figure)
                    rows.append({"variant": variant, "figure": row.pop("metric"), **row})
            click.echo(
                render(
                    rows,
                    columns=[
                        "variant",
                        "figure",
                        "numerator",
                        "denominator",
                        "value",
                        "95% interval",
                    ],
                    format="table",
                ),
                nl=False,
            )
        click.echo("")
        if m.peers is not None:
            click.echo(peer_table(m.peers), nl=False)
            click.echo("")


def _metric_row(name: str, p: Any) -> dict[str, Any]:
    value = "undefined" if p.value is None else f"{100 * p.value:.1f}%"
    interval = "" if p.ci_low is None else f"{100 * p.ci_low:.1f}-{100 * p.ci_high:.1f}%"
    return {
        "metric": name.replace("_", " "),
        "numerator": p.numerator,
        "denominator": p.denominator,
        "value": value,
        "95% interval": interval,
    }


@click.command()
@click.option("--run", "run", required=True, help="The run to gate (its ledger id).")
@click.option(
    "--evaluate",
    "evaluate_first",
    is_flag=True,
    help="Evaluate the run first when its latest evaluation is missing or stale.",
)
@click.option(
    "--consequential",
    type=click.Choice(api.GATE_POLICIES),
    default=api.GATE_POLICY,
    show_default=True,
    help="Which output claims the gate weighs: those asserting a claim marked consequential "
    "(marked), or every one (all).",
)
@require_authority_option
@click.pass_context
@handle_errors
def gate(
    ctx: click.Context,
    run: str,
    evaluate_first: bool,
    consequential: str,
    require_authority: str,
) -> None:
    """Exit 1 unless every output claim the gate weighs is accepted (for release pipelines).

    The gate weighs the outputs asserting a claim marked consequential
    (--consequential marked, the default) or every output (all). When it
    weighs none, nothing was gated: that is not a pass (exit 1). With
    --require-authority, an accepted output whose route authority is weaker
    fails the gate too (a disclosed policy: its verdict stays accept). Reads
    only, unless --evaluate: a run whose latest evaluation is missing or
    stale fails the gate (exit 1) and says why.

    Example: hopgate gate --run sys-a --evaluate --consequential all

    Example: hopgate gate --run sys-a --require-authority primary
    """

    result = api.gate(
        open_store(ctx, reads=not evaluate_first),
        run=run,
        evaluate=evaluate_first,
        consequential=consequential,
        require_authority=require_authority,
    )
    if result.authority_policy is not None:
        click.echo(f"run {terminal(run)}: authority policy: {result.authority_policy}")
    shown = terminal(run)
    weighs = "consequential" if result.policy == "marked" else ""
    outputs = f"{weighs} output claim(s)".strip()
    if result.stale:
        click.echo(
            f"run {shown}: gate FAILED: its latest evaluation is not current "
            f"({terminal(result.reason)}); run `hopgate evaluate --run {shown}` or "
            f"`hopgate gate --run {shown} --evaluate`"
        )
        ctx.exit(1)
    if result.nothing_gated:
        hint = (
            "no output claim asserts a claim marked consequential; mark the claims that must "
            "hold (consequential: true) or gate every output with --consequential all"
            if result.policy == "marked"
            else "the run has no output claim"
        )
        click.echo(f"run {shown}: NOTHING GATED (not a pass): {hint}")
        ctx.exit(1)
    if result.passed:
        click.echo(f"run {shown}: gate passed: all {result.weighed} {outputs} accepted")
        return
    below = len(result.below_authority)
    click.echo(
        f"run {shown}: gate FAILED: {len(result.failing)} of {result.weighed} {outputs} "
        + (
            "not accepted"
            if not below
            else f"do not pass: {len(result.failing) - below} not accepted, {below} accepted "
            f"below the required authority ({result.require_authority})"
        )
    )
    for row in result.failing:
        reason = result.reasons.get(row.output, row.verdict)
        about = f"claim {terminal(row.claim)}" if row.claim else "an extra assertion"
        click.echo(f"  {terminal(row.output)} ({about}): {terminal(reason)}")
    ctx.exit(1)


def peer_table(figures: list[api.PeerMetric]) -> str:
    """The peer figures as a table beside hopgate's own."""
    rows = [
        {
            "peer metric": p.name,
            "defined by": p.source,
            "numerator": round(p.numerator, 4),
            "denominator": p.denominator,
            "value": "undefined" if p.value is None else f"{100 * p.value:.1f}%",
        }
        for p in figures
    ]
    return render(
        rows,
        columns=["peer metric", "defined by", "numerator", "denominator", "value"],
        format="table",
    )


COMMANDS = [evaluate, verdicts, metrics, gate]

__all__ = ["COMMANDS", "peer_table"]
