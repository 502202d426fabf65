"""``hopgate report``, ``hopgate explain`` and ``hopgate diff``: results for people who sign.

Each reads recorded evaluations only (docs/spec/records.md "Writes and reads"); a run
never evaluated is an error that says to run ``hopgate evaluate``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from hopgate import api
from hopgate.cli.shared import (
    UsageError,
    handle_errors,
    open_store,
    reader_option,
    require_authority_option,
)
from hopgate.escaping import json_text, terminal


def _store(ctx: click.Context) -> api.Store:
    return open_store(ctx, reads=True)


def _write(text: str, output: Path | None) -> None:
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")


@click.command("report")
@click.option("--run", "run", required=True, help="The run (its ledger id).")
@click.option("--reader", help="The reader class the report is for (default: the evaluation's).")
@click.option("--evaluation", help="A recorded evaluation of the run (RUN@TIME); default: latest.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "md", "json"]),
    default="html",
    show_default=True,
    help="html: one self-contained page; md: for a pull-request comment; json: the data.",
)
@click.option(
    "--pictures",
    type=int,
    default=50,
    show_default=True,
    help="Draw the pictures of at most this many cards (graphviz's dot; cards needing "
    "attention first).",
)
@click.option(
    "--peers",
    is_flag=True,
    help="Also chart the peer figures of the same claim-cases (as metrics --peers).",
)
@click.option(
    "--signed-export",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="A signed export of the evaluation (hopgate export, then hopgate sign): its "
    "signatures are checked, as hopgate verify does, for the header's signature line.",
)
@click.option(
    "--trust",
    multiple=True,
    help="A trusted signer's public key (.pub file, did:key or Multikey); repeatable. "
    "Checks the signatures of the final judgments in force and, with --signed-export, "
    "of the export.",
)
@click.option(
    "--consequential",
    type=click.Choice(api.GATE_POLICIES),
    default=api.GATE_POLICY,
    show_default=True,
    help="The release decision's policy, as hopgate gate --consequential: the outputs "
    "asserting a claim marked consequential (marked), or every output (all).",
)
@require_authority_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write ('-': standard output, the default).",
)
@click.pass_context
@handle_errors
def report_command(
    ctx: click.Context,
    run: str,
    reader: str | None,
    evaluation: str | None,
    fmt: str,
    pictures: int,
    peers: bool,
    signed_export: Path | None,
    trust: tuple[str, ...],
    consequential: str,
    require_authority: str,
    output: Path | None,
) -> None:
    """Write the audit report of a run: header to sign, metrics, charts, every card and why.

    Reads the run's latest recorded evaluation (or --evaluation), filtered for
    the reader exactly as an export is: no text the reader may not inspect,
    nor any text repeating one, appears (a withheld marker stands in its
    place). A stale evaluation is reported as recorded and marked stale.

    Example: hopgate report --run sys-a --peers -o report.html

    Example: hopgate report --run sys-a --reader public --format md -o report.md

    With --signed-export the header's signature line says "signed by" only when
    the export verifies and its signed file holding this evaluation's bundle
    (for this reader) equals the store's bundles now (canonical datasets
    compared); it names that file and its sha256. Otherwise the line says
    CHECK FAILED and the command exits 1 after writing the report.

    Example: hopgate report --run sys-a --signed-export bundles/ --trust alice.key.pub
    """

    # Only the HTML page shows pictures; the other formats need none drawn.
    result = api.build_report(
        _store(ctx),
        run=run,
        reader=reader,
        evaluation=evaluation,
        pictures=pictures if fmt == "html" else 0,
        peers=peers,
        signed_export=signed_export,
        trust=trust,
        consequential=consequential,
        require_authority=require_authority,
    )
    if result.header.stale:
        click.echo(
            f"hopgate: note: run {terminal(run)}'s latest evaluation is stale "
            f"({terminal(result.header.stale_reason)}); the report says so in its header",
            err=True,
        )
    _write(api.render_report(result, format=fmt), output)
    if output is not None and str(output) != "-":
        click.echo(
            f"{terminal(output)}: {fmt} report of run {terminal(run)}, evaluation "
            f"{terminal(result.header.evaluation)}, for reader {terminal(result.header.reader)} "
            f"({len(result.cards)} cards)",
            err=True,
        )
    if result.signature.failed:
        # The report is written (its header says CHECK FAILED and why); the exit says so too,
        # so no pipeline takes a report whose signature did not hold for a signed one.
        raise click.ClickException(
            "the signature check failed; the report's header says CHECK FAILED and why"
        )


@click.command("explain")
@click.argument("output_id", metavar="OUTPUT")
@click.option("--run", "run", help="The run (default: the output's).")
@click.option("--evaluation", help="A recorded evaluation of the run (RUN@TIME); default: latest.")
@click.option("--reader", help="The reader whose view to show (default: the evaluation's).")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.pass_context
@handle_errors
def explain_command(
    ctx: click.Context,
    output_id: str,
    run: str | None,
    evaluation: str | None,
    reader: str | None,
    fmt: str,
) -> None:
    """Say why an output claim received its verdict, a sentence per step, with the spec rule.

    Example: hopgate explain sys-a/qA/o1
    """

    result = api.explain(_store(ctx), output_id, run=run, evaluation=evaluation, reader=reader)
    if fmt == "json":
        click.echo(json_text(result.as_dict()))
        return
    click.echo(
        f"{terminal(result.output)} in run {terminal(result.run)}, evaluation "
        f"{terminal(result.evaluation)}, reader {terminal(result.reader)}: {result.verdict}"
    )
    if result.stale:
        click.echo(f"  (stale: {terminal(result.stale_reason)})")
    for number, step in enumerate(result.steps, start=1):
        click.echo(f"{number}. {terminal(step.sentence)}\n   [{step.spec}]")


@click.command("diff")
@click.argument("evaluations", nargs=-1, metavar="[EVAL_A EVAL_B]")
@click.option("--run", "run", help="The run (default: the only run in the store).")
@reader_option()
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.pass_context
@handle_errors
def diff_command(
    ctx: click.Context,
    evaluations: tuple[str, ...],
    run: str | None,
    reader: str | None,
    fmt: str,
) -> None:
    """Show what changed between two recorded evaluations of a run (default: its two latest).

    Every output whose verdict, route or missing hops changed; the loads,
    evidence sets, contradictions and judgments added between them; the
    metrics side by side with numerators and denominators.

    Example: hopgate diff --run sys-a

    Example: hopgate diff sys-a@2026-10-05T09:00:00.000000Z sys-a@2026-10-06T09:00:00.000000Z
    """

    if len(evaluations) not in (0, 2):
        raise UsageError("give two evaluations (EVAL_A EVAL_B) or none (the run's two latest)")
    before, after = evaluations if evaluations else (None, None)
    result = api.diff(_store(ctx), run=run, before=before, after=after, reader=reader)
    if fmt == "json":
        click.echo(json_text(result.as_dict()))
        return
    before, after = terminal(result.before), terminal(result.after)
    click.echo(f"run {terminal(result.run)}: {before} -> {after}")
    click.echo(
        f"loads added: {len(result.loads_added)}"
        + "".join(f"\n  + {terminal(g)}" for g in result.loads_added)
        + (f"\nloads no longer used: {len(result.loads_dropped)}" if result.loads_dropped else "")
        + "".join(f"\n  - {terminal(g)}" for g in result.loads_dropped)
    )
    for change in result.store_changes:
        detail = f" ({terminal(change.detail)})" if change.detail else ""
        about = (
            f"claim {terminal(change.claim)}" if change.claim is not None else "an extra assertion"
        )
        click.echo(
            f"  {change.kind} {terminal(change.record)} for {about}: "
            f"{terminal(change.status)}{detail}"
        )
    if not (result.outputs or result.added_outputs or result.removed_outputs):
        click.echo("no output's verdict, route or missing hops changed")
    for output in result.outputs:
        parts = "; ".join(
            f"{name} {_show(old)} -> {_show(new)}" for name, (old, new) in output.changes.items()
        )
        click.echo(f"{terminal(output.output)}: {parts}")
        if output.causes:
            click.echo(f"  because: {terminal('; '.join(output.causes))}")
    for added in result.added_outputs:
        click.echo(f"{terminal(added)}: new output claim")
    for removed in result.removed_outputs:
        click.echo(f"{terminal(removed)}: no longer in the run")
    click.echo(f"\n{'metric':<28}{before:>34}  {after:>34}")
    before_m, after_m = result.metrics_before, result.metrics_after
    assert before_m is not None and after_m is not None
    for name in api.FIGURES:
        click.echo(
            f"{name.replace('_', ' '):<28}{_figure(getattr(before_m, name)):>34}  "
            f"{_figure(getattr(after_m, name)):>34}"
        )
    for key in before_m.counts:
        click.echo(
            f"{key.replace('_', ' '):<28}{before_m.counts[key]:>34}  "
            f"{after_m.counts.get(key, 0):>34}"
        )


def _show(value: Any) -> str:
    if value is None or value == []:
        return "-"
    if isinstance(value, list):
        return ",".join(terminal(v) for v in value)
    return terminal(value)


def _figure(p: Any) -> str:
    value = "undefined" if p.value is None else f"{100 * p.value:.1f}%"
    return f"{p.numerator}/{p.denominator} = {value}"


COMMANDS = [report_command, explain_command, diff_command]

__all__ = ["COMMANDS"]
