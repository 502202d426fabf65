"""Run a private Virtuoso Open Source server for tests and benchmarks.

Each server gets its own ini and database directory under a folder the caller
owns, binds its SQL and HTTP ports to 127.0.0.1, raises the result-row cap
(the packaged 10,000 silently truncates results), and has a user allowed to
run SPARQL Update through ``/sparql-auth`` (HTTP digest). It is stopped by
its PID. Used by ``tests/conftest.py`` and ``bench/remote.py``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVER = "virtuoso-t"
ISQL = "isql-vt"
PACKAGED_INI = Path("/etc/virtuoso-opensource-7/virtuoso.ini")
#: The password of ``dba`` in a new Virtuoso database.
DBA_PASSWORD = "dba"
USER = "hopgate"
PASSWORD = "hopgate-test-password"


def missing() -> str | None:
    """Why no server can be started here (None when Virtuoso is installed)."""
    for tool in (SERVER, ISQL):
        if shutil.which(tool) is None:
            return (
                f"Virtuoso is not installed ({tool} not on PATH); "
                "install it with: apt-get install virtuoso-opensource"
            )
    if not PACKAGED_INI.is_file():
        return f"Virtuoso's packaged configuration {PACKAGED_INI} is missing"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ini(
    directory: Path,
    sql_port: int,
    http_port: int,
    *,
    packaged: bool = False,
    settings: dict[tuple[str, str], str] | None = None,
) -> str:
    """The packaged ini with this server's paths, loopback ports and limits.

    With ``packaged``, only the paths and ports change: every limit stays as
    Debian ships it (``ResultSetMaxRows = 10000``, ``MaxQueryCostEstimationTime
    = 400``, ``MaxQueryExecutionTime = 60``, the 50 MB transaction log), the
    server a user who installs the package has. ``settings`` (section, key)
    -> value are changed last, on either.
    """
    db = directory / "db"
    paths = {
        ("Database", "DatabaseFile"): db / "virtuoso.db",
        ("Database", "ErrorLogFile"): db / "virtuoso.log",
        ("Database", "LockFile"): db / "virtuoso.lck",
        ("Database", "TransactionFile"): db / "virtuoso.trx",
        ("Database", "xa_persistent_file"): db / "virtuoso.pxa",
        ("TempDatabase", "DatabaseFile"): db / "virtuoso-temp.db",
        ("TempDatabase", "TransactionFile"): db / "virtuoso-temp.trx",
        ("Parameters", "ServerPort"): f"127.0.0.1:{sql_port}",
        ("HTTPServer", "ServerPort"): f"127.0.0.1:{http_port}",
        ("URIQA", "DefaultHost"): f"127.0.0.1:{http_port}",
    }
    limits = {
        ("Parameters", "DirsAllowed"): f"., /usr/share/virtuoso-opensource-7/vad, {directory}",
        ("Parameters", "NumberOfBuffers"): "170000",
        ("Parameters", "MaxDirtyBuffers"): "130000",
        ("Parameters", "MaxClientConnections"): "20",
        ("HTTPServer", "ServerRoot"): "/var/lib/virtuoso-opensource-7/vsp",
        ("HTTPServer", "ServerThreads"): "10",
        ("SPARQL", "ResultSetMaxRows"): "100000000",
        ("SPARQL", "MaxQueryExecutionTime"): "3600",
        ("SPARQL", "MaxQueryCostEstimationTime"): "0",
    }
    # Not in the packaged ini. A rule step of an evaluation on the server is one
    # transaction (and a load was, when it was published by one MOVE: at 100k
    # claims, 13M triples, it overran the default 50 MB after-image limit, SR325).
    # The value is read as 32 bits: 50 GB wrapped to a limit that refused every
    # 4 MB upload.
    extra = {} if packaged else {("Parameters", "TransactionAfterImageLimit"): "2000000000"}
    replacements = {**paths, **({} if packaged else limits), **extra, **(settings or {})}
    present = _keys(PACKAGED_INI.read_text("utf-8"))
    additions: dict[str, list[str]] = {}
    for (section, key), value in replacements.items():
        if (section, key) not in present:
            additions.setdefault(section, []).append(f"{key} = {value}")
    lines = []
    section = ""
    for line in PACKAGED_INI.read_text("utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
            lines.append(line)
            lines.extend(additions.get(section, []))
            continue
        elif "=" in stripped and not stripped.startswith(";"):
            key = stripped.split("=", 1)[0].strip()
            if (section, key) in replacements:
                line = f"{key} = {replacements[(section, key)]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _keys(ini: str) -> set[tuple[str, str]]:
    """The (section, key) pairs an ini text sets."""
    found = set()
    section = ""
    for line in ini.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
        elif "=" in stripped and not stripped.startswith(";"):
            found.add((section, stripped.split("=", 1)[0].strip()))
    return found


@dataclass
class VirtuosoServer:
    """One private Virtuoso server: its folder, ports and process."""

    directory: Path
    sql_port: int = 0
    http_port: int = 0
    process: subprocess.Popen[bytes] | None = None
    #: Debian's limits as packaged (only paths and ports changed), not the tests' raised ones.
    packaged: bool = False
    #: (section, key) -> value changed in the ini after the rest.
    settings: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def endpoint(self) -> str:
        """The read endpoint (anonymous SPARQL 1.1 Protocol)."""
        return f"http://127.0.0.1:{self.http_port}/sparql"

    @property
    def update_endpoint(self) -> str:
        """The endpoint that accepts SPARQL Update for an authenticated user (digest)."""
        return f"http://127.0.0.1:{self.http_port}/sparql-auth"

    def remote_store(self, **options: Any) -> Any:
        """A hopgate RemoteStore on this server, as the test user, with the Graph Store bulk path.

        ``options`` go to :class:`hopgate.store.remote.RemoteStore` (``timeout``,
        ``evaluate_on_server``, ...).
        """
        from hopgate.store.remote import RemoteStore

        return RemoteStore(
            self.endpoint,
            update_endpoint=self.update_endpoint,
            graph_store=f"http://127.0.0.1:{self.http_port}/sparql-graph-crud-auth",
            user=USER,
            password=PASSWORD,
            **options,
        )

    def start(self, *, timeout: float = 90.0, first: bool = True) -> None:
        """Start the server (writing its ini the first time) and wait until HTTP answers."""
        if first:
            (self.directory / "db").mkdir(parents=True, exist_ok=True)
            self.sql_port = self.sql_port or _free_port()
            self.http_port = self.http_port or _free_port()
            (self.directory / "virtuoso.ini").write_text(
                _ini(
                    self.directory,
                    self.sql_port,
                    self.http_port,
                    packaged=self.packaged,
                    settings=self.settings,
                ),
                "utf-8",
            )
        log = (self.directory / "server.out").open("ab")
        self.process = subprocess.Popen(
            [SERVER, "+configfile", str(self.directory / "virtuoso.ini"), "+foreground"],
            cwd=self.directory,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._wait(timeout)
        if first:
            self._create_user()

    def _wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        # A CONSTRUCT, not an ASK: a fresh server answered ASK while a CONSTRUCT
        # was still refused (SR186, no permission on DB.DBA.SPARQL_CONSTRUCT_FIN).
        query = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 1"
        url = self.endpoint + "?query=" + urllib.parse.quote(query)
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"Virtuoso exited with {self.process.returncode}; see {self.directory}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.3)
        raise RuntimeError(f"Virtuoso did not answer within {timeout} s; see {self.directory}")

    def isql(self, sql: str) -> str:
        """Run SQL statements as ``dba`` through ``isql-vt``; return its output."""
        result = subprocess.run(
            [ISQL, f"127.0.0.1:{self.sql_port}", "dba", DBA_PASSWORD, "VERBOSE=OFF", "BANNER=OFF"],
            input=sql.encode("utf-8"),
            capture_output=True,
            timeout=600,
        )
        out = result.stdout.decode("utf-8", "replace")
        if result.returncode != 0 or "*** Error" in out:
            raise RuntimeError(f"isql failed: {out}{result.stderr.decode('utf-8', 'replace')}")
        return out

    def _create_user(self) -> None:
        # A plain SQL user with the SPARQL_UPDATE role and read-write default
        # graph permissions: what an organisation would give hopgate.
        self.isql(
            f"DB.DBA.USER_CREATE('{USER}', '{PASSWORD}');\n"
            f'GRANT SPARQL_UPDATE TO "{USER}";\n'
            f"DB.DBA.RDF_DEFAULT_USER_PERMS_SET('{USER}', 7);\n"
            "checkpoint;\n"
        )

    def restart(self, settings: dict[tuple[str, str], str]) -> None:
        """Checkpoint, stop, change ``settings`` in the ini and start again (the data kept)."""
        self.isql("checkpoint;\n")
        self.stop()
        self.settings = {**self.settings, **settings}
        (self.directory / "virtuoso.ini").write_text(
            _ini(
                self.directory,
                self.sql_port,
                self.http_port,
                packaged=self.packaged,
                settings=self.settings,
            ),
            "utf-8",
        )
        self.start(first=False)

    def kill(self) -> None:
        """Kill the server at once (SIGKILL): no checkpoint, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        """Stop the server by its PID (SIGTERM, then SIGKILL if it lingers)."""
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
