"""A large graph removed from Virtuoso: one ``DROP`` against the batched removal.

The 1M-claim evaluation on Virtuoso stopped at the removal of its scratch graph:
one ``DROP SILENT GRAPH`` grew the server from 16.6 to 21.8 GB in two minutes
(bench/README.md "7 December, midday"). ``RemoteStore.remove_graph`` now
deletes ``REMOVE_BATCH`` triples a request, each its own transaction. For each
way, a fresh private Virtuoso (tests/virtuoso.py) loads the same synthetic
ledger (``bench/synthetic.py``), then its load graph is removed while the
server's resident memory is sampled every 0.2 s. Prints figures and asserts
nothing.

    python bench/remove_graph.py --claims 30000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bench.million_server import rss_mb  # noqa: E402
from bench.synthetic import write_ledger  # noqa: E402


def _one(way: str, ledger: Path, folder: Path, buffers: int) -> None:
    """Load ``ledger`` on a fresh server, then remove its load graph ``way``; print figures."""
    from virtuoso import VirtuosoServer

    import hopgate
    from hopgate.store.remote.store import REMOVE_BATCH

    server = VirtuosoServer(
        folder / way,
        settings={
            ("Parameters", "NumberOfBuffers"): str(buffers),
            ("Parameters", "MaxDirtyBuffers"): str(buffers * 3 // 4),
        },
    )
    server.start(timeout=600)
    assert server.process is not None
    pid = server.process.pid
    try:
        store = server.remote_store()
        clock = time.perf_counter()
        result = hopgate.load(store, ledger)
        loaded = time.perf_counter() - clock
        triples = store.select(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{result.graph}> {{ ?s ?p ?o }} }}"
        )[0]["n"]
        before = rss_mb(pid)
        peak = [before]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.2):
                peak[0] = max(peak[0], rss_mb(pid))

        watcher = threading.Thread(target=sample, daemon=True)
        watcher.start()
        clock = time.perf_counter()
        if way == "drop":
            store._update(f"DROP SILENT GRAPH <{result.graph}>", idempotent=True)
        else:
            store.remove_graph(result.graph)
        seconds = time.perf_counter() - clock
        done.set()
        watcher.join()
        print(
            f"{way:8} {triples:>10,} triples (loaded in {loaded:.0f} s): removed in "
            f"{seconds:6.1f} s; server {before:,} MB before, peak {peak[0]:,} MB "
            f"(+{peak[0] - before:,} MB)"
            + (f"; {REMOVE_BATCH:,} triples a batch" if way == "batched" else ""),
            flush=True,
        )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=30_000)
    parser.add_argument("--buffers", type=int, default=250_000, help="NumberOfBuffers (8 kB)")
    parser.add_argument("--ways", default="drop,batched")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hopgate-remove-") as folder:
        ledger = Path(folder) / "ledger.jsonl"
        write_ledger(ledger, args.claims, runs=1)
        for way in args.ways.split(","):
            _one(way, ledger, Path(folder), args.buffers)


if __name__ == "__main__":
    main()
