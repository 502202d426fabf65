"""The ``hopgate`` command line: thin click commands, each calling one library function.

The console script's entry point is :func:`hopgate.cli.launch.main` (``python -m
hopgate.cli`` runs it too): it may start the process again on a faster memory
allocator before importing anything else, so this package imports nothing
until a name is used (PEP 562). ``main`` runs the group in this process;
``cli`` is the click group, for tests with ``CliRunner``.

- :mod:`hopgate.cli.shared`: opening the store (embedded or remote),
  errors as exit codes, the shared options;
- one module per command family: :mod:`~hopgate.cli.data` (load, import,
  baseline, demo), :mod:`~hopgate.cli.query` (query, stats, dump),
  :mod:`~hopgate.cli.evaluation` (evaluate, verdicts, metrics, gate),
  :mod:`~hopgate.cli.validation` (validate, shacl), :mod:`~hopgate.cli.export`
  (export, verify, keys, sign), :mod:`~hopgate.cli.review` (review, judge),
  :mod:`~hopgate.cli.interventions`, :mod:`~hopgate.cli.report` (report,
  explain, diff);
- :mod:`hopgate.cli.group`: the group, importing a command's family when it is asked for;
- :mod:`hopgate.cli.launch`: the console script's first step (the memory allocator).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hopgate.cli.group import cli, main
    from hopgate.cli.query import parse_param

#: Where each name lives (imported when first used).
_HOMES = {
    "cli": "hopgate.cli.group",
    "main": "hopgate.cli.group",
    "parse_param": "hopgate.cli.query",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = found
    return found


__all__ = ["cli", "main", "parse_param"]
