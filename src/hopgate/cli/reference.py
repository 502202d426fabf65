"""The command-line reference (``docs/cli.md``), generated from the commands themselves.

Every command and subcommand with its help text, options and examples, as
``hopgate COMMAND --help`` prints them. ``tests/cli/test_reference.py``
regenerates it and fails when ``docs/cli.md`` differs; to regenerate::

    python -m hopgate.cli.reference docs/cli.md
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from hopgate.cli.group import cli

#: The width the help is wrapped at (as on a terminal this wide).
WIDTH = 88

#: How to regenerate the file (the test's failure message says so too).
REGENERATE = "python -m hopgate.cli.reference docs/cli.md"


def contexts(group: click.Group = cli, *, width: int = WIDTH) -> Iterator[click.Context]:
    """A context for the group and for each of its commands, depth first, by name."""

    def walk(
        command: click.Command, name: str, parent: click.Context | None
    ) -> Iterator[click.Context]:
        ctx = click.Context(
            command, info_name=name, parent=parent, terminal_width=width, max_content_width=width
        )
        yield ctx
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                found = command.get_command(ctx, sub)
                if found is not None and not found.hidden:
                    yield from walk(found, sub, ctx)

    yield from walk(group, "hopgate", None)


def _anchor(path: str) -> str:
    return path.lower().replace(" ", "-")


def reference(group: click.Group = cli, *, width: int = WIDTH) -> str:
    """The Markdown of ``docs/cli.md``: an index, then each command's ``--help``."""
    found = list(contexts(group, width=width))
    lines = [
        "# Command-line reference",
        "",
        f"<!-- Generated from the commands: `{REGENERATE}`; do not edit by hand. -->",
        "",
        "Every `hopgate` command and subcommand as `hopgate COMMAND --help` prints it:",
        "its help text, options and examples. Each command parses its options, calls",
        "one function of `hopgate.api` and prints the result; [api.md](api.md) lists",
        "the function of each command. Exit codes: 0 ok, 1 a gate failed or violations",
        'were found, 2 usage or input error (the message starts with "Error:"), 143',
        "stopped by SIGTERM (what it was writing is removed).",
        "",
    ]
    for ctx in found:
        path = ctx.command_path
        summary = ctx.command.get_short_help_str(limit=width)
        lines.append(f"- [`{path}`](#{_anchor(path)}): {summary}")
    for ctx in found:
        lines += ["", f"## {ctx.command_path}", "", "```text", ctx.command.get_help(ctx), "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Write the reference to the file named by the one argument (stdout without one)."""
    args = sys.argv[1:] if argv is None else argv
    text = reference()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


__all__ = ["REGENERATE", "contexts", "main", "reference"]

if __name__ == "__main__":
    main()
