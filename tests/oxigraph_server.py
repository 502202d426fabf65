"""Run a private Oxigraph server (``oxigraph serve``, PyPI package ``oxigraph``) for tests and benchmarks.

The second remote store hopgate is tested on (docs/servers.md): the server
binary ships in the ``oxigraph`` wheel (a test extra), listens on loopback,
keeps its data under a folder the caller owns (or in memory), and is
stopped by its PID. Its endpoints: ``/query``, ``/update`` and ``/store``
(SPARQL 1.1 Graph Store Protocol); it has no users and no row cap.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def binary() -> str | None:
    """The ``oxigraph`` command: beside this Python (a venv's bin), else on PATH."""
    beside = Path(sys.executable).with_name("oxigraph")
    if beside.is_file():
        return str(beside)
    return shutil.which("oxigraph")


def missing() -> str | None:
    """Why no Oxigraph server can be started here (None when it can)."""
    if binary() is None:
        return "the Oxigraph server is not installed; install it with: pip install oxigraph"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class OxigraphServer:
    """One private ``oxigraph serve``: its folder, port and process."""

    directory: Path
    port: int = 0
    #: ``serve-read-only`` instead of ``serve`` (writes refused).
    read_only: bool = False
    process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        """The query endpoint."""
        return f"http://127.0.0.1:{self.port}/query"

    @property
    def update_endpoint(self) -> str:
        """The update endpoint."""
        return f"http://127.0.0.1:{self.port}/update"

    @property
    def graph_store(self) -> str:
        """The Graph Store Protocol endpoint."""
        return f"http://127.0.0.1:{self.port}/store"

    def remote_store(self, **options: Any) -> Any:
        """A hopgate RemoteStore on this server with its Graph Store bulk path."""
        from hopgate.store.remote import RemoteStore

        return RemoteStore(
            self.endpoint,
            update_endpoint=self.update_endpoint,
            graph_store=self.graph_store,
            **options,
        )

    def start(self, *, timeout: float = 60.0) -> None:
        """Start the server and wait until it answers."""
        command = binary()
        if command is None:
            raise RuntimeError(missing())
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = self.port or _free_port()
        log = (self.directory / "server.out").open("ab")
        mode = "serve-read-only" if self.read_only else "serve"
        self.process = subprocess.Popen(
            [command, mode, "--location", str(self.directory / "data"),
             "--bind", f"127.0.0.1:{self.port}"],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"oxigraph exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.endpoint + "?query=ASK%7B%7D", timeout=2):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"oxigraph did not answer within {timeout} s")

    def stop(self) -> None:
        """Stop the server by its PID."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        self.process = None
