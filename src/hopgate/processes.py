"""Running a command the user names: a minimal environment, its own process group, bounded.

A command named on hopgate's command line (``interventions run --system``,
``import rag --correctness-judge``) is a program hopgate did not write, and
what it prints is attacker-controlled (docs/security.md). Every such command
runs through :func:`run_command`, the one place that starts one:

- **environment**: only ``PATH``, ``HOME``, ``LANG`` and ``TMPDIR`` are passed
  (:data:`MINIMAL_ENVIRONMENT`), plus the variables the user names
  (``--pass-env NAME``); nothing else of hopgate's environment (a store's
  password, a cloud token) reaches it;
- **process group**: it runs in a session of its own (``start_new_session``),
  so on a timeout, on output over the cap, and once it has answered, the
  whole group is killed: a shell's child does not outlive it;
- **bounded output**: its standard output is read up to a byte cap
  (:data:`DEFAULT_OUTPUT_CAP`); more is an error naming the cap, and the
  group is killed as soon as the cap is passed. Of its standard error only
  the last bytes are kept, for the failure's message.

It reads nothing from the store and writes nothing.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass

from hopgate.errors import CommandError

#: The variables of hopgate's own environment a command gets (more with ``--pass-env``).
MINIMAL_ENVIRONMENT = ("PATH", "HOME", "LANG", "TMPDIR")
#: The most a command may write to its standard output, in bytes (16 MiB).
DEFAULT_OUTPUT_CAP = 16 * 1024 * 1024
#: How much of a command's standard error is kept (its last bytes).
STDERR_TAIL = 4096
_CHUNK = 65536
#: How often (seconds) to look whether the command itself has exited.
_POLL = 0.05


@dataclass(frozen=True)
class Limits:
    """How a command runs: its time limit, output cap and the extra variables it gets."""

    timeout: float
    output_cap: int = DEFAULT_OUTPUT_CAP
    pass_env: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finished:
    """A command that ran to its end: exit status, standard output, the tail of its errors."""

    returncode: int
    stdout: bytes
    stderr_tail: str

    def last_error_line(self) -> str:
        """The last non-blank line the command wrote to standard error ('' for none)."""
        lines = [line for line in self.stderr_tail.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


def environment(pass_env: Sequence[str] = ()) -> dict[str, str]:
    """The environment a command gets: the minimal variables and ``pass_env``, where set."""
    names = [*MINIMAL_ENVIRONMENT, *pass_env]
    return {name: os.environ[name] for name in names if name in os.environ}


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    # The command leads its own session, so its group id is its pid; its
    # children (a shell's pipeline) are in the group unless they left it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def run_command(command: str, *, stdin: bytes, limits: Limits) -> Finished:
    """Run ``command`` in a shell with ``stdin`` as its input, within ``limits``.

    The exit status is returned, not judged: a caller decides what a non-zero
    status means. Nothing of the command's process group outlives the call.

    Raises:
        CommandError: it could not start, ran past ``limits.timeout`` seconds,
            or wrote more than ``limits.output_cap`` bytes to standard output.
    """
    try:
        process = subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment(limits.pass_env),
            start_new_session=True,
        )
    except OSError as exc:
        raise CommandError(f"cannot start the command: {exc.strerror or exc}") from None
    deadline = time.monotonic() + limits.timeout
    try:
        stdout, stderr = _exchange(process, stdin, limits, deadline)
        returncode = process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise CommandError(f"timeout after {limits.timeout:g} s") from None
    finally:
        _kill_group(process)
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    return Finished(returncode, stdout, stderr.decode("utf-8", "replace"))


def _exchange(
    process: subprocess.Popen[bytes], stdin: bytes, limits: Limits, deadline: float
) -> tuple[bytes, bytes]:
    """Feed ``stdin`` and read both outputs until they close, within the time and the cap.

    Once the command itself has exited, its group is killed: a child left
    holding the output open (``cmd &``) would otherwise keep the read waiting.
    """
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    exited = False
    out = bytearray()
    err = bytearray()
    pending = memoryview(stdin)
    with selectors.DefaultSelector() as selector:
        if pending:
            os.set_blocking(process.stdin.fileno(), False)
            selector.register(process.stdin, selectors.EVENT_WRITE)
        else:
            process.stdin.close()
        selector.register(process.stdout, selectors.EVENT_READ)
        selector.register(process.stderr, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(str(process.args), limits.timeout)
            if not exited and process.poll() is not None:
                exited = True
                _kill_group(process)
            for key, _ in selector.select(timeout=min(left, _POLL)):
                stream = key.fileobj
                if stream is process.stdin:
                    try:
                        written = os.write(process.stdin.fileno(), pending[:_CHUNK])
                    except BrokenPipeError:
                        written = len(pending)  # it stopped reading: the rest is not wanted
                    except BlockingIOError:
                        continue
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(process.stdin)
                        process.stdin.close()
                    continue
                assert hasattr(stream, "fileno")
                chunk = os.read(stream.fileno(), _CHUNK)
                if not chunk:
                    selector.unregister(stream)
                elif stream is process.stdout:
                    out += chunk
                    if len(out) > limits.output_cap:
                        _kill_group(process)
                        raise CommandError(
                            f"output over the cap of {limits.output_cap:,} bytes "
                            "(the command's standard output is read up to the cap only)"
                        )
                else:
                    err += chunk
                    del err[:-STDERR_TAIL]
    return bytes(out), bytes(err)


__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "Finished",
    "Limits",
    "MINIMAL_ENVIRONMENT",
    "environment",
    "run_command",
]
