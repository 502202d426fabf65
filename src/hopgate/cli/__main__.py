"""``python -m hopgate.cli``: the ``hopgate`` command."""

from hopgate.cli.group import main

main()
