"""The ``hopgate`` command line: thin click commands, each calling one library function.

``main`` is the console script's entry point (``python -m hopgate.cli`` runs
it too); ``cli`` is the click group, for tests with ``CliRunner``.

- :mod:`hopgate.cli.shared`: opening the store (embedded or remote),
  errors as exit codes, the shared options;
- one module per command family: :mod:`~hopgate.cli.data` (load, import,
  baseline, demo), :mod:`~hopgate.cli.query` (query, stats, dump),
  :mod:`~hopgate.cli.evaluation` (evaluate, verdicts, metrics, gate),
  :mod:`~hopgate.cli.validation` (validate, shacl), :mod:`~hopgate.cli.export`
  (export, verify, keys, sign), :mod:`~hopgate.cli.review` (review, judge),
  :mod:`~hopgate.cli.interventions`, :mod:`~hopgate.cli.report` (report,
  explain, diff);
- :mod:`hopgate.cli.group`: the group, importing a command's family when it is asked for.
"""

from __future__ import annotations

from hopgate.cli.group import cli, main
from hopgate.cli.query import parse_param

__all__ = ["cli", "main", "parse_param"]
