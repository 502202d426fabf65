"""The ``hopgate`` command group: the global options, and every command family added to it.

Each family module (``hopgate.cli.data``, ``query``, ``evaluation``,
``validation``, ``export``, ``review``, ``interventions``, ``report``,
``servers``) defines its commands and lists them in ``COMMANDS``; the group
imports a family when one of its commands is asked for (:data:`FAMILIES`), so
that ``hopgate gate`` does not import what ``validate`` or ``export`` need
(rdflib, PROV: 0.1 s of a 1 s read). No family module imports this one or
another family (import-linter contracts in ``pyproject.toml``).
"""

from __future__ import annotations

import gc
import importlib
import signal
from pathlib import Path
from typing import Any

import click

from hopgate import api
from hopgate.cli.shared import DEFAULT_STORE, remote_options, remote_settings, show_notes

#: The family module (``hopgate.cli.<family>``) of each command; each family's
#: ``COMMANDS`` holds the commands themselves (tests/cli/test_cli.py holds the two equal).
FAMILIES = {
    **dict.fromkeys(["load", "import", "baseline", "demo"], "data"),
    **dict.fromkeys(["query", "stats", "dump"], "query"),
    **dict.fromkeys(["evaluate", "verdicts", "metrics", "gate"], "evaluation"),
    **dict.fromkeys(["validate", "shacl"], "validation"),
    **dict.fromkeys(["export", "verify", "keys", "sign"], "export"),
    **dict.fromkeys(["review", "judge", "triage"], "review"),
    "interventions": "interventions",
    **dict.fromkeys(["report", "explain", "diff"], "report"),
    "doctor": "servers",
}


class _Families(click.Group):
    """A group that imports a command's family module when the command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(FAMILIES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        family = FAMILIES.get(cmd_name)
        if family is not None and cmd_name not in self.commands:
            for command in importlib.import_module(f"hopgate.cli.{family}").COMMANDS:
                self.add_command(command)
        return super().get_command(ctx, cmd_name)


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # The version is read from the installed metadata only when asked for.
    if value and not ctx.resilient_parsing:
        click.echo(f"hopgate, version {api.__version__}")
        ctx.exit()


@click.group(cls=_Families)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version and exit.",
)
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
    input error (the message starts with "Error:"), 143 stopped by SIGTERM
    (what it was writing is removed).

    On Linux the command runs on the mimalloc memory allocator where the
    system has it (apt install libmimalloc2.0; an evaluation takes 0.8-0.93x
    the time, with the same answers); HOPGATE_ALLOCATOR=system keeps the C
    library's, HOPGATE_ALLOCATOR=PATH preloads another; with LD_PRELOAD set
    (a sanitizer, valgrind) nothing changes.

    Example: hopgate --store audit/store load ledger.yaml

    Example: hopgate --endpoint http://localhost:8890/sparql verdicts --run sys-a
    """
    ctx.ensure_object(dict)
    ctx.with_resource(show_notes())
    ctx.obj["store_path"] = store_path
    ctx.obj["remote"] = remote_settings(**remote)
    # Long work (load, import, evaluate) reports its phases on stderr while the command runs.
    ctx.with_resource(api.show_progress(quiet=quiet))


def commands() -> dict[str, click.Command]:
    """Every command of the group by name (each family imported), for help and tests."""
    context = click.Context(cli)
    found = {name: cli.get_command(context, name) for name in cli.list_commands(context)}
    return {name: command for name, command in found.items() if command is not None}


def main() -> None:
    """Entry point of the ``hopgate`` console script."""
    _collect_less()
    _unwind_on_terminate()
    cli(obj={})


#: The exit status of a command stopped by SIGTERM (128 + the signal's number, as a shell reports it).
TERMINATED = 128 + signal.SIGTERM


def _unwind_on_terminate() -> None:
    """Make the first SIGTERM stop the command as an error does: it unwinds, so a load's or
    an evaluation's temporary folder is removed and a graph half written is taken out
    again, then it exits with :data:`TERMINATED` (docs/spec/records.md "Records").

    Python's default for SIGTERM ends the process where it stands: a load of 1M
    claims stopped that way left its 30 GB of N-Quads in the temporary folder.
    A second SIGTERM ends the process at once (the unwinding may wait for a bulk
    write in progress), as does SIGKILL; the store survives both.
    """

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise SystemExit(TERMINATED)

    signal.signal(signal.SIGTERM, stop)


def _collect_less() -> None:
    """Fewer passes of Python's cycle collector over what a command holds.

    A read holds tens of thousands of rows at once (a dataclass and its lists
    per card), and every full pass of the collector walks all of them:
    `verdicts` at 10k claims spent 0.1-0.15 s of its 0.65-0.8 s in them. The
    objects of the imports are set aside (never collected, as they never die)
    and a pass comes after 50,000 new containers, not 700. hopgate's rows hold
    no reference cycles, so memory is freed as before; only cycles wait longer.
    """
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(50_000, middle, oldest)


__all__ = ["cli", "commands", "main"]
