"""The CLI reference (docs/cli.md) is generated from the commands and kept current.

As sqlite-utils keeps its CLI reference: the test regenerates the file from the
click group and fails when it differs, and every command's help carries an
``Example:``.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from hopgate.cli import cli
from hopgate.cli.reference import REGENERATE, contexts, reference

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

#: Every command path, the group's own included ("hopgate", "hopgate keys new", ...).
PATHS = [ctx.command_path for ctx in contexts()]


def test_docs_cli_md_is_the_generated_reference() -> None:
    assert DOCS.read_text("utf-8") == reference(), (
        f"docs/cli.md differs from the commands; regenerate it: {REGENERATE}"
    )


def _help(path: str) -> str:
    return next(ctx.command.get_help(ctx) for ctx in contexts() if ctx.command_path == path)


@pytest.mark.parametrize("path", PATHS)
def test_every_command_and_group_has_an_example(path: str) -> None:
    assert "Example: hopgate" in _help(path), f"`{path} --help` shows no Example:"


@pytest.mark.parametrize("path", PATHS)
def test_the_reference_has_a_section_per_command(path: str) -> None:
    text = reference()
    assert f"\n## {path}\n" in text and _help(path) in text


def test_every_command_is_walked() -> None:
    """Subcommands of groups too: the walk misses no command the group answers to."""

    def names(group: click.Group, prefix: str) -> set[str]:
        found = set()
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            found.add(f"{prefix} {name}")
            if isinstance(command, click.Group):
                found |= names(command, f"{prefix} {name}")
        return found

    assert set(PATHS) == {"hopgate"} | names(cli, "hopgate")
    assert {"hopgate keys new", "hopgate review queue", "hopgate interventions run"} <= set(PATHS)


def test_a_missing_example_is_seen() -> None:
    """The check can fail: a command without an Example: in its help is caught."""

    @click.group()
    def group() -> None:
        """A group. Example: hopgate x"""

    @group.command()
    def bare() -> None:
        """No example here."""

    shown = {ctx.command_path: ctx.command.get_help(ctx) for ctx in contexts(group)}
    assert [path for path, text in shown.items() if "Example: hopgate" not in text] == [
        "hopgate bare"
    ]


ROOT = DOCS.parents[1]
#: The global options that take a value (``hopgate --store S verdicts``).
_VALUED = {"--store", "--endpoint", "--update-endpoint", "--graph-store", "--user"}
_VALUED |= {"--password-env", "--auth", "--request-timeout"}


def _named_commands(text: str) -> list[str]:
    """The ``hopgate ...`` command lines of a text: code spans and fenced code lines."""
    found = re.findall(r"`+(hopgate [^`\n]+)`+", text)
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S):
        found += re.findall(r"^\s*(?:\$ )?(hopgate [^\n]+)$", block, re.M)
    return found


def _exists(line: str) -> bool:
    words = line.split()[1:]
    while words and words[0].startswith("-"):
        if words.pop(0) in _VALUED and words:
            words.pop(0)
    ctx = click.Context(cli)
    command: click.Command | None = cli
    for word in words[:2]:
        if not isinstance(command, click.Group) or not re.fullmatch(r"[a-z][a-z-]*", word):
            break
        command = command.get_command(ctx, word)
    return command is not None


def test_the_docs_and_helps_name_only_commands_that_exist() -> None:
    # `hopgate history` in a help sent users to a command that never existed.
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted((ROOT / "src" / "hopgate").rglob("*.py"))
    missing = [
        f"{path.relative_to(ROOT)}: {line}"
        for path in files
        for line in _named_commands(path.read_text("utf-8"))
        if not _exists(line)
    ]
    assert not missing, missing
