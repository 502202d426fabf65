"""The ``hopgate`` command group: the global options, and every command family added to it.

Each family module (``hopgate.cli.data``, ``query``, ``evaluation``,
``validation``, ``export``, ``review``, ``interventions``, ``report``)
defines its commands and lists them in ``COMMANDS``; this module adds them
to the group. No family module imports this one or another family
(import-linter contracts in ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from hopgate import api
from hopgate.cli import (
    data,
    evaluation,
    export,
    interventions,
    query,
    report,
    review,
    servers,
    validation,
)
from hopgate.cli.shared import DEFAULT_STORE, remote_options, remote_settings, show_notes


@click.group()
@click.version_option(api.__version__, prog_name="hopgate")
@click.option(
    "--store",
    "store_path",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="HOPGATE_STORE",
    default=DEFAULT_STORE,
    show_default=True,
    help="Directory of the embedded store (env HOPGATE_STORE).",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress on stderr (default: a bar on a terminal, one line per phase otherwise).",
)
@remote_options
@click.pass_context
def cli(ctx: click.Context, /, store_path: Path, quiet: bool, **remote: Any) -> None:
    """hopgate: decide whether cited evidence contains a complete, adjudicated evidence set.

    Exit codes: 0 ok, 1 a gate failed or violations were found, 2 usage or
    input error (the message starts with "Error:").

    Example: hopgate --store audit/store load ledger.yaml

    Example: hopgate --endpoint http://localhost:8890/sparql verdicts --run sys-a
    """
    ctx.ensure_object(dict)
    show_notes()
    ctx.obj["store_path"] = store_path
    ctx.obj["remote"] = remote_settings(**remote)
    # Long work (load, import, evaluate) reports its phases on stderr while the command runs.
    ctx.with_resource(api.show_progress(quiet=quiet))


for family in (data, query, evaluation, validation, export, review, interventions, report, servers):
    for command in family.COMMANDS:
        cli.add_command(command)


def main() -> None:
    """Entry point of the ``hopgate`` console script."""
    cli(obj={})


__all__ = ["cli", "main"]
