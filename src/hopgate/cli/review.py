"""``hopgate review`` (the queue, agreement, changed scores), ``judge`` and ``triage``.

docs/spec/adjudication.md. ``review queue``, ``review agreement`` and
``review changes`` only read; ``judge`` writes, as ``load`` does: one
judgment appended as a small ledger loaded all or nothing; ``triage``
records a named judge command's answers as machine judgments the same way
(docs/spec/adjudication.md "Machine triage").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from hopgate import api
from hopgate.cli.shared import (
    command_limits_options,
    handle_errors,
    open_store,
    pass_env_option,
    reader_option,
)
from hopgate.escaping import json_text, terminal


def _open(ctx: click.Context) -> api.Store:
    return open_store(ctx)


def _read(ctx: click.Context) -> api.Store:
    """The store of a command that only reads it (opened for reading only)."""
    return open_store(ctx, reads=True)


@click.group("review")
def review_group() -> None:
    """What awaits adjudication, and the scores judgments changed (reads only).

    Example: hopgate review queue --run sys-a
    """


@review_group.command("queue")
@click.option("--run", "run", help="Only the subjects holding back outputs of this run.")
@reader_option("each run's evaluation's reader")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
@handle_errors
def queue_command(ctx: click.Context, run: str | None, reader: str | None, fmt: str) -> None:
    """List the subjects awaiting adjudication: disagreements first.

    Reviewers' disagreements first, then a machine judgment's, then subjects
    holding back a consequential output. Each with the question to decide,
    the outputs it holds back and its initial judgments (machine ones marked)
    with reviewer, time, decision and reason.

    Example: hopgate review queue --run sys-a
    """
    items = api.review_queue(_read(ctx), run=run, reader=reader)
    if fmt == "json":
        click.echo(json_text([i.as_dict() for i in items]))
        return
    # Each subject counts once (adjudication.md "Awaiting adjudication"), though it is
    # listed under each run whose outputs it holds back.
    subjects = len({item.subject for item in items})
    runs = len({item.run for item in items})
    listed = f" (listed under {runs} runs)" if subjects != len(items) else ""
    click.echo(f"{subjects} awaiting adjudication{listed}")
    for item in items:
        flags = [f for f, on in (("disagreement", item.disagreement),
                                 ("machine disagreement", item.machine_disagreement),
                                 ("consequential", item.consequential)) if on]  # fmt: skip
        shown = f" [{', '.join(flags)}]" if flags else ""
        click.echo(
            f"- {terminal(item.run)}: {item.kind} {terminal(repr(item.subject))}: "
            f"decide {terminal(str(item.question))}{shown}"
        )
        click.echo(f"  holds back: {', '.join(terminal(o) for o in item.outputs)}")
        for j in item.judgments:
            reason = f": {terminal(j.reason)}" if j.reason else ""
            machine = " (machine)" if j.machine else ""
            click.echo(
                f"  {terminal(j.id)} by {terminal(j.by)}{machine} "
                f"at {terminal(j.at or '(no time)')}: "
                f"{terminal(j.decision)}{reason} ({_recorded(j)})"
            )


def _recorded(j: api.JudgmentRecord) -> str:
    """Where the store put a judgment: its recording number, when, and for whom."""
    number = "unnumbered" if j.record_number is None else f"#{j.record_number}"
    who = terminal(j.recorded_by or "no one named")
    return f"recorded {number} at {terminal(j.recorded_at or '(unknown)')} for {who}"


@review_group.command("judgments")
@click.option("--subject", help="Only the judgments of this subject (its ledger id).")
@click.option("--all", "show_all", is_flag=True, help="Initial judgments too (default: final).")
@click.option(
    "--trust",
    multiple=True,
    help="A trusted signer's public key (.pub file, did:key or Multikey); repeatable.",
)
@reader_option("withhold what any reader may not see")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
@handle_errors
def judgments_command(
    ctx: click.Context,
    subject: str | None,
    show_all: bool,
    trust: tuple[str, ...],
    reader: str | None,
    fmt: str,
) -> None:
    """List final judgments in the order the store recorded them: who recorded each, and its signature.

    The last recorded final judgment of a subject's question is the one in
    force (docs/spec/adjudication.md "Recording"); the time a judgment claims
    never orders it. Each says whether it is signed by a trusted key.

    Example: hopgate review judgments --subject gC2 --trust adjudicator.key.pub
    """
    found = api.review_judgments(
        _read(ctx), subject=subject, final_only=not show_all, trust=trust, reader=reader
    )
    if fmt == "json":
        click.echo(json_text([{**j.as_dict(), "signature": sig.as_dict()} for j, sig in found]))
        return
    click.echo(f"{len(found)} {'judgment' if show_all else 'final judgment'}(s)")
    for j, sig in found:
        kind = "final" if j.final else "initial"
        click.echo(
            f"- {terminal(repr(j.subject))}: {kind} {terminal(j.question or '(no question)')} "
            f"{terminal(repr(j.decision))}, {terminal(repr(j.id))} by {terminal(repr(j.by))} "
            f"(claims {terminal(j.at or 'no time')})"
        )
        click.echo(f"  {_recorded(j)}; {terminal(sig.describe())}")


@review_group.command("agreement")
@reader_option("withhold what any reader may not see")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
@handle_errors
def agreement_command(ctx: click.Context, reader: str | None, fmt: str) -> None:
    """Show how far each automated judge agrees with the final decisions, per question.

    Agreed / finals judged: a judge's latest machine judgment of each subject
    beside the final judgment in force of its question
    (docs/spec/adjudication.md "Machine triage"); the disagreements are
    listed with the judge's reason.

    Example: hopgate review agreement --format json
    """
    found = api.review_agreement(_read(ctx), reader=reader)
    if fmt == "json":
        click.echo(json_text([a.as_dict() for a in found]))
        return
    click.echo(f"{len(found)} judge and question pair(s)")
    for item in found:
        figure = (
            f"{item.agreed}/{item.judged} ({item.agreed / item.judged:.0%})"
            if item.judged
            else "0/0 (undefined: no final judged yet)"
        )
        click.echo(
            f"- {terminal(repr(item.judge))} on {terminal(item.question)}: agreed {figure}; "
            f"{item.machine_judged} subject(s) judged"
        )
        for c in item.comparisons:
            if c.agrees is False:
                reason = f": {terminal(c.reason)}" if c.reason else ""
                click.echo(
                    f"  {terminal(repr(c.subject))}: said {terminal(c.decision)}, final "
                    f"{terminal(c.final_judgment or '')} decided {terminal(c.final_decision or '')}"
                    f"{reason}"
                )


@review_group.command("changes")
@click.option(
    "--run", "run", required=True, help="The run whose two latest evaluations to compare."
)
@reader_option()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
@handle_errors
def changes_command(ctx: click.Context, run: str, reader: str | None, fmt: str) -> None:
    """Compare a run's two latest evaluations: changed verdicts, metrics before and after.

    Example: hopgate evaluate && hopgate review changes --run sys-a
    """
    found = api.review_changes(_read(ctx), run=run, reader=reader)
    if fmt == "json":
        click.echo(json_text(found.as_dict()))
        return
    click.echo(
        f"run {terminal(found.run)}: {terminal(found.before or '(no earlier evaluation)')} -> "
        f"{terminal(found.after)}"
    )
    click.echo(f"{len(found.verdicts)} verdict(s) changed")
    for change in found.verdicts:
        click.echo(
            f"- {terminal(change.output)}: {terminal(change.before)} -> {terminal(change.after)}"
        )
        for cause in change.causes or ("(nothing recorded on its card changed)",):
            click.echo(f"  {terminal(cause)}")
    for name, figure in found.metrics.items():
        click.echo(f"{name}: {_figure(figure['before'])} -> {_figure(figure['after'])}"
                   + (" (changed)" if figure["changed"] else ""))  # fmt: skip


def _figure(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return f"{value['numerator']}/{value['denominator']}"
    return str(value)


@click.command("judge")
@click.argument("subject")
@click.option("--question", required=True, type=click.Choice(list(api.JUDGMENT_QUESTIONS)))
@click.option(
    "--decision", required=True, help="A term of the question (docs/spec/adjudication.md)."
)
@click.option("--by", "by", required=True, help="The reviewer.")
@click.option("--reason", required=True, help="Why: kept with the judgment.")
@click.option("--final", is_flag=True, help="The adjudicator's final decision (default: initial).")
@click.option("--settles", default="", help="Final only: the initial judgments it settles (J1,J2).")
@click.option("--id", "judgment_id", help="The judgment's id (default: question:subject:by@time).")
@click.option(
    "--keep-in",
    "keep_in",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to keep the judgment's ledger file (default: beside an on-disk store).",
)
@click.option(
    "--sign",
    "sign",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Sign the judgment with this private key (hopgate keys new); readers check it "
    "against the keys they trust (review judgments --trust, report --trust).",
)
@click.pass_context
@handle_errors
def judge_command(
    ctx: click.Context,
    subject: str,
    question: str,
    decision: str,
    by: str,
    reason: str,
    final: bool,
    settles: str,
    judgment_id: str | None,
    keep_in: Path | None,
    sign: Path | None,
) -> None:
    """Record one judgment of SUBJECT (an evidence set, contradiction, output, span or version).

    Appended as a one-judgment ledger, loaded all or nothing; nothing earlier
    is edited. A final judgment re-annotates a set, resolves a contradiction
    or decides an extra assertion at the next `hopgate evaluate`: the one the
    store recorded last is in force. --by is also who the store records it for.

    Example: hopgate judge gC2 --question alternatives --decision sufficient --by ana --reason "both hops stated" --final --settles j1,j2
    """
    settled = [s for s in (part.strip() for part in settles.split(",")) if s]
    recorded = api.judge(
        _open(ctx),
        subject,
        question=question,
        decision=decision,
        by=by,
        reason=reason,
        final=final,
        settles=settled,
        judgment_id=judgment_id,
        keep_in=keep_in,
        sign=sign,
    )
    kind = "final" if final else "initial"
    signed = ", signed" if sign is not None else ""
    click.echo(
        f"recorded {kind} judgment {terminal(repr(recorded.id))}{signed} "
        f"({terminal(recorded.file)})"
    )


@click.command("triage")
@click.option("--run", "run", required=True, help="The run whose awaiting subjects are judged.")
@click.option(
    "--judge",
    "judge",
    required=True,
    help='Shell command judging one subject (JSON on stdin, {"decision", "reason"} out).',
)
@click.option(
    "--by",
    "by",
    help="The judge's name and version, recorded as the judgments' by (default: the command).",
)
@command_limits_options("subject")
@pass_env_option
@click.option(
    "--keep-in",
    "keep_in",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to keep the judgments' ledger files (default: beside an on-disk store).",
)
@click.pass_context
@handle_errors
def triage_command(
    ctx: click.Context,
    run: str,
    judge: str,
    by: str | None,
    timeout: float,
    max_output: int,
    pass_env: tuple[str, ...],
    keep_in: Path | None,
) -> None:
    """Run an automated judge on each subject awaiting adjudication; record machine judgments.

    The judge reads the claim, the question asked, the subject's quoted spans
    with their versions and the question to decide (as the run's evaluation
    reader may see them) and answers a decision and a reason. Its answers are
    initial machine judgments: they order the queue and change nothing that
    is scored (docs/spec/adjudication.md "Machine triage"). It gets only
    PATH, HOME, LANG and TMPDIR of the environment (and each --pass-env
    NAME). A failed or malformed answer names its subject and records
    nothing for it; the exit status is then 1.

    Example: hopgate triage --run sys-a --judge "python3 examples/lexical_judge.py" --by lexical-overlap/1
    """
    result = api.triage(
        _open(ctx),
        run=run,
        judge=judge,
        by=by,
        timeout=timeout,
        max_output=max_output,
        pass_env=pass_env,
        keep_in=keep_in,
    )
    click.echo(
        f"run {terminal(result.run)}, judge {terminal(repr(result.judge))}: "
        f"{len(result.answered)} recorded, {len(result.skipped)} already judged, "
        f"{len(result.failed)} failed"
    )
    for answered in result.answered:
        click.echo(
            f"- {terminal(repr(answered.subject))}: {terminal(answered.question)} "
            f"{terminal(answered.decision)} ({terminal(answered.judgment)})"
        )
    for failed in result.failed:
        click.echo(
            f"- {terminal(repr(failed.subject))}: failed, nothing recorded: {terminal(failed.reason)}"
        )
    if result.failed:
        ctx.exit(1)


COMMANDS = [review_group, judge_command, triage_command]

__all__ = ["COMMANDS"]
