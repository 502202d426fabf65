"""``hopgate interventions plan|run``: controlled contexts out, a system's answers in.

docs/spec/interventions.md is the contract.
"""

from __future__ import annotations

from pathlib import Path

import click

from hopgate import api
from hopgate.cli.formatting import render
from hopgate.cli.shared import (
    command_limits_options,
    correctness_judge_option,
    handle_errors,
    open_store,
    pass_env_option,
    stop_on_judge_failures,
)
from hopgate.escaping import terminal


def _open(ctx: click.Context) -> api.Store:
    return open_store(ctx)


@click.group("interventions")
def interventions_command() -> None:
    """Plan controlled contexts for a run, run a system on them (docs/spec/interventions.md).

    `plan` records the variants and what the evidence expects of each; `run`
    answers them with a system and writes ledger cases (`run --load` loads
    them); `hopgate evaluate` of the run scores them; `metrics` prints the
    figures per variant.

    Example: hopgate interventions plan --run sys-a -o plan.jsonl
    """


@interventions_command.command("plan")
@click.option("--run", "run", required=True, help="The run whose claim-cases are varied.")
@click.option(
    "--evaluation",
    help="The evaluation to plan from (its id, run@time, as `hopgate metrics` and `hopgate diff` show it); "
    "default: the run's latest, which must be current (a plan recorded since may follow it).",
)
@click.option(
    "--variants",
    "variants",
    multiple=True,
    type=click.Choice(api.VARIANTS),
    help="Plan only these variants (repeatable; default: all).",
)
@click.option(
    "--max-sets", type=click.IntRange(min=1), help="Selected sets per claim (default: all)."
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The plan to write, one JSON line per planned variant.",
)
@click.pass_context
@handle_errors
def plan_command(
    ctx: click.Context,
    run: str,
    evaluation: str | None,
    variants: tuple[str, ...],
    max_sets: int | None,
    output: Path,
) -> None:
    """Plan the interventions of a run and record the plan in the store.

    Example: hopgate interventions plan --run sys-a -o plan.jsonl
    """
    result = api.plan_interventions(
        _open(ctx),
        run=run,
        output=output,
        evaluation=evaluation,
        variants=variants or api.VARIANTS,
        max_sets=max_sets,
    )
    expected = sum(1 for v in result.variants if v["expected"] == "supported answer")
    click.echo(
        f"{terminal(output)}: planned {len(result.variants)} variant(s) of run "
        f"{terminal(repr(run))} from evaluation {terminal(result.evaluation)} ({expected} "
        f"expecting a supported answer, {len(result.variants) - expected} expecting "
        f"abstention); plan {terminal(result.plan)}"
    )
    for reason, count in sorted(result.inapplicable.items()):
        click.echo(f"  not applicable: {count} x {terminal(reason)}")


@interventions_command.command("run")
@click.option(
    "--plan",
    "plan_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A plan from `plan`.",
)
@click.option(
    "--system",
    required=True,
    help=f"Shell command answering one variant (JSON on stdin and stdout), or {api.BUILTIN_BM25}.",
)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@command_limits_options("variant")
@pass_env_option
@correctness_judge_option
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The answers, a JSON Lines ledger of intervention cases.",
)
@click.option(
    "--load",
    "load_it",
    is_flag=True,
    help="Load the answers into the store too; an answer citing a span id the store "
    "does not hold is then a failed variant.",
)
@click.option(
    "--only-failed",
    "only_failed",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Run only the variants an earlier run of this plan failed (its OUTPUT.failed.jsonl), "
    "into a new -o: for a system that answers differently each time.",
)
@click.pass_context
@handle_errors
def run_command(
    ctx: click.Context,
    plan_path: Path,
    system: str,
    jobs: int,
    timeout: float,
    max_output: int,
    pass_env: tuple[str, ...],
    correctness_judge: str | None,
    output: Path,
    load_it: bool,
    only_failed: Path | None,
) -> None:
    """Run a system on every planned variant and write its answers as ledger cases.

    The system gets only PATH, HOME, LANG and TMPDIR of the environment (and
    each --pass-env NAME) and runs in its own process group. A timeout, a
    non-zero exit, output over --max-output or malformed output is a failed
    variant, listed with its reason in OUTPUT.failed.jsonl, never an
    abstention. An answer is correct by the system's "correct", by a
    "short_answer" matching the reference answer, or by --correctness-judge;
    otherwise its correctness is unknown. Exit 1 when any variant failed (the
    answers are written, and loaded with --load, all the same), or when the
    judge failed for an answer (the answers are written, not loaded).

    Example: hopgate interventions run --plan plan.jsonl --system builtin:bm25 -o answers.jsonl

    Example: hopgate interventions run --plan plan.jsonl --system ./rag.sh --only-failed answers.jsonl.failed.jsonl -o retry.jsonl --load
    """
    # With --load, an answer citing a span id the store does not hold fails alone
    # instead of keeping every answer from loading; without it the answers may be
    # made away from the store, which `hopgate load` checks later. The store is
    # opened once the answers are in: the system may read it while it runs.
    opened: list[api.Store] = []

    def store() -> api.Store:
        if not opened:
            opened.append(_open(ctx))
        return opened[0]

    result = api.run_interventions(
        plan_path,
        system=system,
        output=output,
        jobs=jobs,
        timeout=timeout,
        max_output=max_output,
        pass_env=pass_env,
        correctness_judge=correctness_judge,
        store=store if load_it else None,
        only_failed=only_failed,
    )
    click.echo(
        f"{terminal(output)}: {result.answered} variant(s) answered ({result.abstained} abstained), "
        f"{len(result.failed)} failed"
    )
    for note in result.notes:
        click.echo(f"  {terminal(note)}")
    reasons: dict[str, int] = {}
    for failure in result.failed:
        reasons[failure["reason"]] = reasons.get(failure["reason"], 0) + 1
    for reason, count in sorted(reasons.items()):
        click.echo(f"  failed: {count} x {terminal(reason)}")
    stop_on_judge_failures(ctx, result.judge_failures, output, loading=load_it, again="run")
    if load_it and result.answered:
        # --load is `hopgate load OUTPUT` after the run (docs/api.md "plan_interventions, run_interventions").
        loaded = api.load(store(), output)
        runs = ", ".join(result.runs)
        click.echo(
            f"{terminal(output)}: loaded into {terminal(loaded.graph)}; `hopgate evaluate` "
            f"scores them (run {terminal(runs)})"
        )
    if result.failed:
        # As `triage` does: a CI step tells a system that failed from one that answered.
        click.echo(
            f"{len(result.failed)} variant(s) failed (each with its reason in "
            f"{terminal(output)}.failed.jsonl): exit 1",
            err=True,
        )
        ctx.exit(1)


@interventions_command.command("metrics")
@click.option("--run", "run", help="Only this run (its ledger id).")
@click.pass_context
@handle_errors
def metrics_command(ctx: click.Context, run: str | None) -> None:
    """Show per variant outcome agreement, unsupported-synthesis and missed-answer rates.

    Reads the latest evaluation of each run (as `hopgate metrics`, whose JSON
    carries the same figures under "interventions"); reads only.

    Example: hopgate interventions metrics --run sys-a
    """

    for run_id, m in api.metrics(open_store(ctx, reads=True), run=run).items():
        stale = f"; stale: {m.stale_reason}" if m.stale else ""
        click.echo(f"run {terminal(run_id)} (evaluation {terminal(m.evaluation)}{terminal(stale)})")
        if not m.interventions:
            click.echo("no answered intervention\n")
            continue
        rows = []
        for variant, named in m.interventions.items():
            for name, p in named.items():
                value = "undefined" if p.value is None else f"{100 * p.value:.1f}%"
                rows.append(
                    {
                        "variant": variant,
                        "figure": name.replace("_", " "),
                        "numerator": p.numerator,
                        "denominator": p.denominator,
                        "value": value,
                    }
                )
        columns = ["variant", "figure", "numerator", "denominator", "value"]
        click.echo(render(rows, columns=columns, format="table"))


COMMANDS = [interventions_command]

__all__ = ["COMMANDS"]
