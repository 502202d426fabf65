"""The one way the command modules beside hopgate.cli handle errors and open the store.

hopgate.cli is imported when a command runs, not when a command module is
read: ``python -m hopgate.cli`` imports those modules while cli is ``__main__``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from hopgate.store import Store

F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(func: F) -> F:
    """hopgate.cli's error handling (HopgateError -> exit 2), looked up when the command runs."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from hopgate.cli import _handle_errors

        return _handle_errors(func)(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def open_store(ctx: click.Context, *, writes: bool = False) -> Store:
    """hopgate.cli's store for this command (only a writing command may create one)."""
    from hopgate.cli import _open

    return _open(ctx, writes=writes)
