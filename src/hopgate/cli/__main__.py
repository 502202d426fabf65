"""``python -m hopgate.cli``: the ``hopgate`` command."""

from hopgate.cli.launch import main

main()
