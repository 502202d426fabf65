"""The command line calls ``hopgate.api`` only: each command parses, calls one function, prints.

Every ``import`` of ``src/hopgate/cli`` (those inside functions too) is read with
:mod:`ast`; a hopgate module other than the CLI's own, ``hopgate.api``,
``hopgate.errors`` (the error types), ``hopgate.store`` (its public types, for
typing) and ``hopgate.escaping`` (the one home of output escaping, through which
every printed text passes) fails the test. ``make lint`` holds the same rule as an
import-linter contract in ``pyproject.toml``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "src" / "hopgate" / "cli"

#: What a CLI module may import from hopgate besides ``hopgate.cli`` itself.
ALLOWED = {"hopgate.api", "hopgate.errors", "hopgate.store", "hopgate.escaping"}


def hopgate_imports(source: str, *, package: str = "hopgate.cli") -> list[tuple[int, str]]:
    """(line, module) of every hopgate module an import statement of ``source`` names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            # ``from hopgate import api`` names the module hopgate.api, not the package.
            found += [(node.lineno, f"{base}.{alias.name}" if base == "hopgate" else base)
                      for alias in node.names]  # fmt: skip
    return [(line, name) for line, name in found if name.split(".")[0] == "hopgate"]


def wrong_imports(source: str) -> list[str]:
    """The imports of ``source`` a CLI module may not have."""
    return [
        f"line {line}: {name}"
        for line, name in hopgate_imports(source)
        if name not in ALLOWED and name != "hopgate.cli" and not name.startswith("hopgate.cli.")
    ]


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_cli_module_imports_only_the_api(path: Path) -> None:
    wrong = wrong_imports(path.read_text("utf-8"))
    assert wrong == [], (
        f"{path.name} imports below hopgate.api; give the command a function in "
        f"src/hopgate/api.py and call that: {wrong}"
    )


def test_the_rule_sees_every_kind_of_import() -> None:
    """The check fails for what it must: module and name imports, relative, inside functions."""
    source = """
import hopgate.store.catalog
from hopgate import ids, api
from hopgate.audit.results import FIGURES
from .shared import open_store
from ..bundles import export

def command():
    from hopgate.report.pages import render
    import hopgate.vocab as v
"""
    assert wrong_imports(source) == [
        "line 2: hopgate.store.catalog",
        "line 3: hopgate.ids",
        "line 4: hopgate.audit.results",
        "line 6: hopgate.bundles",
        "line 9: hopgate.report.pages",
        "line 10: hopgate.vocab",
    ]
    assert wrong_imports("from hopgate import api\nfrom hopgate.store import IRI\n") == []
