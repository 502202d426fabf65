"""``hopgate doctor``: what a remote SPARQL server needs changed for hopgate (docs/servers.md)."""

from __future__ import annotations

import click

from hopgate import api
from hopgate.cli.shared import UsageError, format_option, handle_errors
from hopgate.escaping import json_text, terminal


@click.command()
@format_option("text", "json")
@click.pass_context
@handle_errors
def doctor(ctx: click.Context, /, fmt: str) -> None:
    """Check the remote store's server (--endpoint) for what hopgate needs; change nothing.

    Prints each check with what was found and, where hopgate would fail or
    slow down, the setting to change and the value to use. Exits 1 when a
    setting must change before hopgate's commands work on the server.

    Example: hopgate --endpoint http://localhost:8890/sparql doctor --format json
    """
    remote = ctx.obj.get("remote")
    if remote is None:
        raise UsageError("doctor checks a remote store: give --endpoint (or HOPGATE_ENDPOINT)")
    settings = {key: value for key, value in remote.items() if key != "evaluate_on_server"}
    report = api.doctor(**settings)
    if fmt == "json":
        click.echo(json_text(report.as_dict()))
    else:
        click.echo(f"{terminal(report.endpoint)}: {terminal(report.product)}")
        for finding in report.findings:
            mark = {"ok": "ok    ", "note": "note  ", "change": "CHANGE"}[finding.severity]
            click.echo(f"{mark} {terminal(finding.check)}: {terminal(finding.found)}")
            if finding.change:
                click.echo(f"       set: {terminal(finding.change)}")
    if report.needs_change:
        ctx.exit(1)


COMMANDS = [doctor]

__all__ = ["COMMANDS", "doctor"]
