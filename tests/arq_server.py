"""Run Apache Jena ARQ, the reference SPARQL engine, behind a small SPARQL 1.1 Protocol endpoint.

Debian's ``libapache-jena-java`` (Jena 4.5, on the machine's Java 17) ships
Jena's libraries and no Fuseki; ``tests/arq/ArqEndpoint.java`` (run by the
JDK's source launcher) answers the requests of hopgate's remote store with
ARQ over an in-memory dataset. The classpath is the package's jars and those
of the Java packages it depends on (read from dpkg), with one logger
binding. Debian's ``jena-core.jar`` moved Jena's bundled Xerces classes to
the package ``xerces`` but left their message files under
``org/apache/jena/ext/xerces``, so ARQ fails at start ("internal error" in
``XSSimpleTypeDecl``); the files are copied where the classes look.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).resolve().parent / "arq" / "ArqEndpoint.java"
PACKAGE = "libapache-jena-java"
JAVA = Path("/usr/share/java")


def missing() -> str | None:
    """Why ARQ cannot be started here (None when it can)."""
    if shutil.which("java") is None:
        return "Java is not installed; install it with: apt-get install openjdk-17-jdk-headless"
    if not (JAVA / "jena-arq.jar").is_file():
        return f"Jena is not installed; install it with: apt-get install {PACKAGE}"
    return None


def _packages(root: str) -> list[str]:
    """``root`` and the Java library packages it depends on, transitively (from dpkg)."""
    seen: list[str] = []
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        depends = subprocess.run(
            ["dpkg-query", "-W", "-f=${Depends}", name], capture_output=True, text=True
        ).stdout
        for part in depends.split(","):
            dependency = part.strip().split(" ")[0].split(":")[0]
            if dependency.startswith("lib") and dependency.endswith("-java"):
                todo.append(dependency)
    return seen


def classpath(fix: Path) -> str:
    """The jars ARQ needs, one logger binding (no-op), and the folder of the Xerces fix."""
    jars: list[str] = []
    for package in _packages(PACKAGE):
        listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True).stdout
        for line in listed.split():
            # The unversioned link of each jar, and no logging bridges (they loop).
            if re.fullmatch(r"/usr/share/java/[^/]+\.jar", line) and not re.search(
                r"-\d[\d.]*\.jar$|slf4j|log4j", line
            ):
                jars.append(line)
    jars += [str(JAVA / "slf4j-api.jar"), str(JAVA / "slf4j-nop.jar")]
    _xerces_messages(fix)
    return ":".join([*jars, str(fix)])


def _xerces_messages(fix: Path) -> None:
    prefix = "org/apache/jena/ext/xerces/"
    with zipfile.ZipFile(JAVA / "jena-core.jar") as jar:
        for name in jar.namelist():
            if name.startswith(prefix) and name.endswith(".properties"):
                target = fix / "xerces" / name[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(jar.read(name))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ArqServer:
    """One ARQ endpoint process: its folder, port and process."""

    directory: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        """The query endpoint."""
        return f"http://127.0.0.1:{self.port}/sparql"

    def remote_store(self, **options: Any) -> Any:
        """A hopgate RemoteStore on this endpoint with its Graph Store bulk path."""
        from hopgate.store.remote import RemoteStore

        return RemoteStore(
            self.endpoint,
            update_endpoint=f"http://127.0.0.1:{self.port}/update",
            graph_store=f"http://127.0.0.1:{self.port}/store",
            **options,
        )

    def start(self, *, timeout: float = 180.0) -> None:
        """Compile and start the endpoint; wait until it answers."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = self.port or _free_port()
        log = (self.directory / "server.out").open("ab")
        self.process = subprocess.Popen(
            ["java", "-Xmx2g", "-cp", classpath(self.directory / "fix"), str(SOURCE),
             str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out = (self.directory / "server.out").read_text("utf-8", "replace")[-2000:]
                raise RuntimeError(f"the ARQ endpoint exited with {self.process.returncode}: {out}")
            try:
                with urllib.request.urlopen(self.endpoint + "?query=ASK%7B%7D", timeout=5):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                time.sleep(0.5)
        raise RuntimeError(f"the ARQ endpoint did not answer within {timeout} s")

    def stop(self) -> None:
        """Stop the endpoint by its PID."""
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
