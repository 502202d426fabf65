"""What every command shares: opening the store, mapping errors, the common options.

The store is the embedded one under ``--store`` or a remote SPARQL 1.1 store
chosen by the global options ``hopgate --endpoint URL [--update-endpoint URL]
[--graph-store URL] [--user U --password-env VAR] [--auth digest|basic]
[--evaluate-on-server/--evaluate-on-client] COMMAND``; the endpoint may also come from ``HOPGATE_ENDPOINT``. The password
is read from the named environment variable, never from the command line
(where ``ps`` shows it).

Errors: a :class:`~hopgate.errors.HopgateError` becomes :class:`UsageError`
(exit 2, a message starting ``Error:``); a gate that fails or data that does
not conform exits 1 from its command.

This module imports none of the command modules (an import-linter contract
in ``pyproject.toml`` keeps it so).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import click

from hopgate import api
from hopgate.errors import DiskFullError, HopgateError, is_disk_full
from hopgate.escaping import terminal

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
    click.option(
        "--evaluate-on-server/--evaluate-on-client",
        default=None,
        envvar="HOPGATE_EVALUATE_ON_SERVER",
        help="Where a remote store's evaluation runs: on the server, as SPARQL Update "
        "into a scratch graph there (the default), or on a copy of the run's load "
        "graphs in client memory (docs/remote-virtuoso.md).",
    ),
    click.option(
        "--request-timeout",
        type=float,
        default=None,
        envvar="HOPGATE_REQUEST_TIMEOUT",
        metavar="SECONDS",
        help="Longest wait for one answer of a remote store (env HOPGATE_REQUEST_TIMEOUT; "
        "default 600): a rule step of an evaluation on the server at hundreds of "
        "thousands of claims runs longer (docs/servers.md).",
    ),
]


def remote_options(func: F) -> F:
    """Add the remote-store options to the ``hopgate`` group."""
    for option in reversed(_OPTIONS):
        func = option(func)
    return func


def _is_http_url(value: str) -> bool:
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
    evaluate_on_server: bool | None = None,
    request_timeout: float | None = None,
) -> dict[str, Any] | None:
    """Check the remote options; None when no endpoint is given (the embedded store)."""
    if endpoint is None:
        for name, value in (
            ("--update-endpoint", update_endpoint),
            ("--graph-store", graph_store),
            ("--password-env", password_env),
            ("--evaluate-on-server/--evaluate-on-client", evaluate_on_server),
            ("--request-timeout", request_timeout),
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
    if request_timeout is not None and not 0 < request_timeout < float("inf"):
        raise click.UsageError(
            f"--request-timeout: expected a number of seconds above 0, got {request_timeout:g}"
        )
    return {
        "endpoint": endpoint,
        "update_endpoint": update_endpoint,
        "graph_store": graph_store,
        "user": user,
        "password": password,
        "auth": auth,
        "evaluate_on_server": evaluate_on_server is not False,
        **({"timeout": request_timeout} if request_timeout is not None else {}),
    }


def open_remote(settings: dict[str, Any]) -> api.Store:
    """The remote store the checked settings describe."""
    return api.open_endpoint(**settings)


DEFAULT_STORE = Path(".hopgate") / "store"


class UsageError(click.ClickException):
    """Bad input or usage: exit code 2, message starting ``Error:``.

    The message is printed on one line: an id or text it quotes cannot start a
    line of its own or send a control sequence to the terminal.
    """

    exit_code = 2

    def format_message(self) -> str:
        """The message with line ends, control characters and bidi controls made visible."""
        return terminal(self.message)


def handle_errors(func: F) -> F:
    """Let a command's :class:`~hopgate.errors.HopgateError`, or a full disk, end it as a
    :class:`UsageError`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except DiskFullError as exc:
            raise UsageError(f"{exc}. {_free_space()}") from None
        except HopgateError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            if not is_disk_full(exc):
                raise
            # A load's or an evaluation's temporary files, an output file, standard output.
            where = f" of {exc.filename}" if exc.filename else ""
            raise UsageError(
                f"no space left on the device{where}; nothing half written is visible in "
                f"the store. {_free_space()}"
            ) from None

    return wrapper  # type: ignore[return-value]


def _free_space() -> str:
    """Where a command writes and how much room each place has, for a full disk's message."""
    places = [(Path(tempfile.gettempdir()), "the temporary folder (set TMPDIR to move it)")]
    context = click.get_current_context(silent=True)
    settings = {} if context is None else (context.find_root().obj or {})
    if settings.get("remote") is None and settings.get("store_path") is not None:
        places.append((Path(settings["store_path"]), "the store"))
    found = []
    for path, what in places:
        existing = next((p for p in [path, *path.parents] if p.exists()), path)
        try:
            free = shutil.disk_usage(existing).free
        except OSError:
            continue
        size = f"{free / 2**30:.1f} GB" if free >= 2**30 else f"{free / 2**20:.1f} MB"
        found.append(f"{what}, {path}: {size} free")
    return "Free space, then run the command again: " + "; ".join(found) + "."


def format_option(*choices: str) -> Callable[[F], F]:
    """The shared ``--format`` option; the first choice is the default."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=choices[0],
        show_default=True,
        help="Output format.",
    )


def command_limits_options(unit: str) -> Callable[[F], F]:
    """``--timeout`` and ``--max-output``: the limits on a named command, per ``unit`` it answers.

    One home for both, as ``interventions run`` and ``triage`` run commands
    the same way (hopgate.processes).
    """

    def decorate(func: F) -> F:
        func = click.option(
            "--max-output",
            type=click.IntRange(min=1),
            default=api.DEFAULT_OUTPUT_CAP,
            show_default=True,
            help=f"Bytes of standard output read per {unit}; more is a failed {unit}.",
        )(func)
        return click.option(
            "--timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=60.0,
            show_default=True,
            help=f"Seconds per {unit}; past it the command's whole process group is killed.",
        )(func)

    return decorate


def pass_env_option(func: F) -> F:
    """``--pass-env NAME`` (repeatable): a variable a named command gets beyond the minimal ones.

    A command the user names (a system, a correctness judge) gets only PATH,
    HOME, LANG and TMPDIR of hopgate's environment (hopgate.processes).
    """
    return click.option(
        "--pass-env",
        "pass_env",
        multiple=True,
        metavar="NAME",
        help="Pass this environment variable to the named command too (repeatable); it gets "
        "only PATH, HOME, LANG and TMPDIR otherwise.",
    )(func)


def correctness_judge_option(func: F) -> F:
    """``--correctness-judge CMD``: the judge command that decides unlabelled answers."""
    return click.option(
        "--correctness-judge",
        "correctness_judge",
        metavar="CMD",
        help="A shell command judging answers that carry no correct label and no short answer "
        'matching the reference: JSON {"question", "answer", "short_answer", '
        '"reference_answer"} on stdin, {"correct": true|false|null} on stdout. Without it such '
        "answers are of unknown correctness.",
    )(func)


def stop_on_judge_failures(
    ctx: click.Context, failed: int, output: Path, *, loading: bool, again: str
) -> None:
    """Exit 1 when the ``--correctness-judge`` failed for ``failed`` answers, before ``output``
    is loaded: loaded, they would stay of unknown correctness for the run for good (a run's
    cases are never restated), as a failed triage judge exits 1. ``again`` is the verb
    ("import", "run") of the command to repeat."""
    if not failed:
        return
    click.echo(
        f"the correctness judge failed for {failed} answer(s): {terminal(output)} is written"
        + (" but not loaded" if loading else "")
        + f"; {again} again once the judge answers, or `hopgate load {terminal(output)}` to "
        "record them as of unknown correctness",
        err=True,
    )
    ctx.exit(1)


def require_authority_option(func: F) -> F:
    """``--require-authority``: the route authority an accepted output needs to pass the
    gate, a disclosed policy (docs/spec/acceptance.md "Source truth")."""
    return click.option(
        "--require-authority",
        "require_authority",
        type=click.Choice(api.AUTHORITY_POLICIES),
        default=api.AUTHORITY_POLICY,
        show_default=True,
        help="The route authority an accepted output needs to pass the gate: primary, "
        "secondary (secondary or primary), or none. A disclosed policy, stated on the "
        "report; it never changes a verdict.",
    )(func)


def reader_option(default: str = "the evaluation's reader") -> Callable[[F], F]:
    """The shared ``--reader`` option: the reader class an output is for
    (docs/spec/records.md "What a reader is shown")."""
    return click.option(
        "--reader",
        help=f"The reader class to show it for (default: {default}); texts withheld from "
        "it, and texts repeating them, are shown as a withheld marker.",
    )


def open_store(ctx: click.Context, *, writes: bool = False, reads: bool = False) -> api.Store:
    """The store the command works on; only a writing command may create an embedded one.

    Reads never write (docs/spec/records.md "Writes and reads"): a read of a
    store path that holds no store is an error, not a new empty store, and a
    command that only reads (``reads``) opens an embedded store for reading
    only. The store is closed when the command's context closes.
    """
    store: api.Store
    if ctx.obj.get("remote") is not None:
        store = open_remote(ctx.obj["remote"])
    else:
        path: Path = ctx.obj["store_path"]
        if not writes and not (path.is_dir() and any(path.iterdir())):
            raise UsageError(
                f"no store at {path}: `hopgate load LEDGER` makes one (or give --store PATH)"
            )
        store = api.open_store(path, read_only=reads and not writes)
    ctx.call_on_close(store.close)
    return store


class _NoteLines(logging.Handler):
    """Log notes on stderr, as Python's last-resort handler prints them, except that each
    is one line, its message alone (no traceback), with line ends and control characters
    made visible: a library's warning can quote a shapes or data file (rdflib's about an
    ill-typed literal printed the literal raw in its traceback: an escape sequence in a
    shapes file reached the terminal; security review, 7 December)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            click.echo(terminal(record.getMessage()), err=True)
        except Exception:  # noqa: BLE001 (logging's contract: a failed note never raises)
            self.handleError(record)


@contextmanager
def show_notes() -> Iterator[None]:
    """While the command runs, print every logger's warnings (hopgate's notes, and its
    libraries') through :class:`_NoteLines`, and leave out rdflib's warnings about literals
    it cannot convert to Python values, which hopgate reads as written (the SHACL checks
    report an ill-typed value). Both are undone when the command ends, so a program that
    runs the command in-process keeps its own logging as it was."""
    root = logging.getLogger()
    terms = logging.getLogger("rdflib.term")
    handler = _NoteLines(logging.WARNING)
    level = terms.level
    root.addHandler(handler)
    terms.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.removeHandler(handler)
        terms.setLevel(level)


def note_stale(stale: set[tuple[str, str | None]]) -> None:
    """Say on stderr which runs are read from a stale evaluation, and why."""
    for run_id, reason in sorted(stale, key=lambda item: item[0]):
        click.echo(
            f"hopgate: note: run {terminal(run_id)}'s latest evaluation is stale "
            f"({terminal(reason)}); `hopgate evaluate --run {terminal(run_id)}` brings it "
            "up to date",
            err=True,
        )


__all__ = [
    "DEFAULT_STORE",
    "UsageError",
    "format_option",
    "handle_errors",
    "note_stale",
    "open_remote",
    "open_store",
    "reader_option",
    "remote_options",
    "remote_settings",
    "show_notes",
    "stop_on_judge_failures",
]
