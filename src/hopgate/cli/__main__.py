"""``python -m hopgate.cli``: the ``hopgate`` command."""

from hopgate.cli.main import main

main()
