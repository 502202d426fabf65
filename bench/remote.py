"""Load and evaluate times on Virtuoso (remote store) and on the embedded store, and their ratios.

Starts a private Virtuoso (tests/virtuoso.py) under a temporary folder, writes
synthetic ledgers (bench/synthetic.py), and for each size loads and evaluates
the same ledger on an on-disk embedded store and on Virtuoso through the
Graph Store bulk path. Prints figures; asserts nothing about time.

    python bench/remote.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from synthetic import write_ledger  # noqa: E402
from virtuoso import PASSWORD, USER, VirtuosoServer, missing  # noqa: E402

import hopgate  # noqa: E402
from hopgate.evaluate import evaluate  # noqa: E402
from hopgate.remote import RemoteStore  # noqa: E402


def _timed(action: object) -> float:
    clock = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - clock


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    args = parser.parse_args(argv)
    reason = missing()
    if reason:
        print(reason)
        return 1
    with tempfile.TemporaryDirectory(prefix="hopgate-remote-bench-") as folder:
        server = VirtuosoServer(Path(folder) / "virtuoso")
        server.start()
        try:
            print(
                "claims  triples  load embedded  load Virtuoso  ratio  evaluate embedded  evaluate Virtuoso  ratio"
            )
            for size in (int(s) for s in args.sizes.split(",")):
                ledger = Path(folder) / f"ledger-{size}.jsonl"
                write_ledger(ledger, size)
                embedded = hopgate.open_store(Path(folder) / f"store-{size}")
                remote = RemoteStore(
                    server.endpoint,
                    update_endpoint=server.update_endpoint,
                    graph_store=f"http://127.0.0.1:{server.http_port}/sparql-graph-crud-auth",
                    user=USER,
                    password=PASSWORD,
                )
                for graph in remote.graphs():
                    remote.remove_graph(graph)
                load_e = _timed(lambda s=embedded, p=ledger: hopgate.load(s, p))
                load_r = _timed(lambda s=remote, p=ledger: hopgate.load(s, p))
                eval_e = _timed(lambda s=embedded: evaluate(s))
                eval_r = _timed(lambda s=remote: evaluate(s))
                print(
                    f"{size:>6}  {embedded.count():>7}  {load_e:>11.1f} s  {load_r:>11.1f} s  "
                    f"{load_r / load_e:>4.1f}x  {eval_e:>15.1f} s  {eval_r:>15.1f} s  "
                    f"{eval_r / eval_e:>4.1f}x",
                    flush=True,
                )
                embedded.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
