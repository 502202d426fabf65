"""A command stopped by SIGTERM unwinds: its temporary files and half-written graph go.

docs/spec/records.md "Records": the first SIGTERM stops a command as an error
does (exit status 143); Python's default ended it where it stood, and a load
stopped that way left its N-Quads in the temporary folder (30 GB at 1M claims).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import bench_module

import hopgate
from hopgate.cli.group import TERMINATED

ROOT = Path(__file__).resolve().parents[2]


def _ledger(path: Path, claims: int) -> Path:
    bench_module("synthetic").write_ledger(path, claims)
    return path


def _stop_once(
    process: subprocess.Popen[str], started: Callable[[], bool], seconds: float, never: str
) -> None:
    """Send ``process`` one SIGTERM once ``started()`` holds; it must end as stopped."""
    deadline = time.monotonic() + seconds
    while not started() and process.poll() is None:
        assert time.monotonic() < deadline, never
        time.sleep(0.02)
    assert process.poll() is None, "the load ended before it could be stopped"
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == TERMINATED, stderr


def test_a_load_stopped_by_sigterm_leaves_no_files_and_no_graph(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("signals as on Linux")
    ledger = _ledger(tmp_path / "ledger.jsonl", 3000)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    store = tmp_path / "store"
    process = subprocess.Popen(
        [sys.executable, "-m", "hopgate.cli", "-q", "--store", str(store), "load", str(ledger)],
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Stopped once it is writing its N-Quads in its temporary folder.
    _stop_once(
        process,
        lambda: any(scratch.glob("hopgate-load-*/*")),
        60,
        "the load never wrote its temporary file",
    )
    assert not list(scratch.iterdir())
    with hopgate.open_store(store) as opened:
        assert opened.graphs() == []
        assert opened.unpublished_graphs() == []


def test_a_load_on_a_server_stopped_by_sigterm_ends_its_upload_and_removes_it(
    tmp_path: Path, oxigraph: Any
) -> None:
    """A server's upload runs in batches beside the command's main thread: SIGTERM ends it
    at its next batch and the graph it was writing is dropped. Before, the command waited
    for the whole upload and left it on the server, unpublished."""
    if not sys.platform.startswith("linux"):
        pytest.skip("signals as on Linux")
    from hopgate.ingest.ledger import file_digest
    from hopgate.ingest.loader import graph_for_digest
    from hopgate.store.remote import RemoteStore

    ledger = _ledger(tmp_path / "ledger.jsonl", 600)
    graph = graph_for_digest(file_digest(ledger))
    # INSERT DATA batches of 1,000 triples (no Graph Store endpoint): many requests.
    server = ["--endpoint", oxigraph.endpoint, "--update-endpoint", oxigraph.update_endpoint]
    store = RemoteStore(oxigraph.endpoint, update_endpoint=oxigraph.update_endpoint)
    process = subprocess.Popen(
        [sys.executable, "-m", "hopgate.cli", "-q", *server, "load", str(ledger)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _stop_once(process, lambda: store.count(graph) >= 5_000, 120, "the upload never started")
    assert store.count(graph) == 0
    assert store.graphs() == []
