"""The global CLI options that choose a remote SPARQL 1.1 store instead of the embedded one.

``hopgate --endpoint URL [--update-endpoint URL] [--graph-store URL]
[--user U --password-env VAR] [--auth digest|basic] COMMAND``; the endpoint
may also come from ``HOPGATE_ENDPOINT``. The password is read from the named
environment variable, never from the command line (where ``ps`` shows it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from hopgate.remote import RemoteStore

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = [
    click.option(
        "--endpoint",
        envvar="HOPGATE_ENDPOINT",
        help="SPARQL 1.1 query endpoint of a remote store (env HOPGATE_ENDPOINT); "
        "replaces --store.",
    ),
    click.option(
        "--update-endpoint",
        envvar="HOPGATE_UPDATE_ENDPOINT",
        help="SPARQL 1.1 Update endpoint (default: --endpoint).",
    ),
    click.option(
        "--graph-store",
        envvar="HOPGATE_GRAPH_STORE",
        help="SPARQL 1.1 Graph Store endpoint for bulk writes "
        "(e.g. Virtuoso's /sparql-graph-crud-auth); default: INSERT DATA batches.",
    ),
    click.option("--user", envvar="HOPGATE_USER", help="User name for the remote store."),
    click.option(
        "--password-env",
        metavar="VAR",
        help="Name of the environment variable holding the remote store's password.",
    ),
    click.option(
        "--auth",
        type=click.Choice(["digest", "basic"]),
        default="digest",
        show_default=True,
        help="HTTP authentication of the remote store.",
    ),
]


def remote_options(func: F) -> F:
    """Add the remote-store options to the ``hopgate`` group."""
    for option in reversed(_OPTIONS):
        func = option(func)
    return func


def _is_http_url(value: str) -> bool:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and " " not in value


def remote_settings(
    *,
    endpoint: str | None,
    update_endpoint: str | None,
    graph_store: str | None,
    user: str | None,
    password_env: str | None,
    auth: str,
) -> dict[str, Any] | None:
    """Check the remote options; None when no endpoint is given (the embedded store)."""
    if endpoint is None:
        for name, value in (
            ("--update-endpoint", update_endpoint),
            ("--graph-store", graph_store),
            ("--password-env", password_env),
        ):
            if value is not None:
                raise click.UsageError(f"{name} needs --endpoint (or HOPGATE_ENDPOINT)")
        return None
    for name, value in (
        ("--endpoint", endpoint),
        ("--update-endpoint", update_endpoint),
        ("--graph-store", graph_store),
    ):
        if value is not None and not _is_http_url(value):
            raise click.UsageError(f"{name}: expected an http:// or https:// URL, got {value!r}")
    password = None
    if password_env is not None:
        if user is None:
            raise click.UsageError("--password-env needs --user")
        password = os.environ.get(password_env)
        if password is None:
            raise click.UsageError(f"--password-env {password_env}: the variable is not set")
    elif user is not None:
        raise click.UsageError(
            "--user needs --password-env VAR (the variable holding the password)"
        )
    return {
        "endpoint": endpoint,
        "update_endpoint": update_endpoint,
        "graph_store": graph_store,
        "user": user,
        "password": password,
        "auth": auth,
    }


def open_remote(settings: dict[str, Any]) -> RemoteStore:
    """The remote store the checked settings describe."""
    return RemoteStore(**settings)
