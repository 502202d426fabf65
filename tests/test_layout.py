"""The package layout holds: no import upward, no import circle, no function shadowing a module.

The floors are the import-linter contract in ``pyproject.toml`` (one home);
this test reads every ``import`` of ``src/hopgate`` with :mod:`ast`, those
inside functions too (import-linter's contract is checked by ``make lint``,
and an in-function import must not dodge it).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import tomllib
from pathlib import Path

import pytest

import hopgate

pytestmark = pytest.mark.metadata

SRC = Path(__file__).resolve().parents[1] / "src"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / "hopgate").rglob("*.py")):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _target(module: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The hopgate modules one import statement reads (a name imported from a package may be one)."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if not str(MODULES[module]).endswith("__init__.py"):
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join(package + ([node.module] if node.module else []))
        names = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
            for alias in node.names
        ]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name.startswith("hopgate"):
            out.append(name)
    return out


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text("utf-8"))
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets.update(t for t in _target(module, node) if t != module)
        graph[module] = targets
    return graph


IMPORTS = _imports()


def _floors() -> list[set[str]]:
    contract = tomllib.loads(PYPROJECT.read_text("utf-8"))["tool"]["importlinter"]["contracts"][0]
    floors = []
    for layer in contract["layers"]:
        floors.append({part.strip() for part in layer.replace(":", "|").split("|")})
    return floors


def _floor_of(module: str, floors: list[set[str]]) -> tuple[int, str] | None:
    for index, floor in enumerate(floors):
        for package in floor:
            if module == package or module.startswith(package + "."):
                return index, package
    return None


def test_every_module_has_a_floor() -> None:
    floors = _floors()
    homeless = [m for m in MODULES if m != "hopgate" and _floor_of(m, floors) is None]
    assert homeless == []


def test_no_import_reaches_up_a_floor_or_across_independent_packages() -> None:
    floors = _floors()
    contract = tomllib.loads(PYPROJECT.read_text("utf-8"))["tool"]["importlinter"]["contracts"][0]
    independent = ["|" in layer for layer in contract["layers"]]
    wrong = []
    for module, targets in IMPORTS.items():
        mine = _floor_of(module, floors)
        if mine is None:
            continue
        for target in targets:
            theirs = _floor_of(target, floors)
            if theirs is None:
                continue
            if theirs[0] < mine[0] or (
                theirs[0] == mine[0] and theirs[1] != mine[1] and independent[mine[0]]
            ):
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_no_import_circle_between_modules() -> None:
    """No cycle at all in the module graph, in-function imports included (Tarjan's SCCs)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(IMPORTS.get(node, ())):
            # A package's __init__ importing its own submodules is how a package exposes them.
            if nxt.startswith(node + "."):
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(IMPORTS):
        if module not in index:
            visit(module)
    assert cycles == []


def test_no_function_shadows_a_module() -> None:
    """``import hopgate.x.y as m`` gives a module, and every package attribute named as a module is it."""
    shadowed = []
    for info in pkgutil.walk_packages(hopgate.__path__, "hopgate."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    for name in MODULES:
        parent, _, last = name.rpartition(".")
        if not parent or last == "__main__":
            continue
        package = importlib.import_module(parent)
        attribute = getattr(package, last, None)
        if attribute is not importlib.import_module(name):
            shadowed.append(name)
    assert shadowed == []


def test_every_package_is_in_the_wheel() -> None:
    """pyproject lists packages by name: one left out is missing from ``pip install .``."""
    config = tomllib.loads(PYPROJECT.read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(SRC).parts) for init in SRC.rglob("__init__.py")}
    assert sorted(found - listed) == []
