"""Load and evaluate on Virtuoso (remote store) against the embedded store: times, ratios, client memory.

Starts a private Virtuoso (tests/virtuoso.py) under a temporary folder, writes
synthetic ledgers (bench/synthetic.py), and for each size loads the same
ledger into an on-disk embedded store and into Virtuoso (Graph Store bulk
path). Each evaluation then runs in a child process of its own, so its peak
resident memory (VmHWM) is the evaluation's alone:

- ``embedded``: the on-disk embedded store;
- ``on the server``: the rule files run on Virtuoso (``RemoteStore.scoped``);
- ``working copy``: the older way, the run's load graphs copied into client
  memory and the rules run there (``evaluate_on_server=False``);
- ``Oxigraph server``: the rule files run on ``oxigraph serve``
  (tests/oxigraph_server.py), with ``--servers virtuoso,oxigraph``.

Prints figures; asserts nothing about time.

    python bench/remote.py --sizes 1000,10000 [--servers virtuoso,oxigraph]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from oxigraph_server import OxigraphServer  # noqa: E402
from synthetic import write_ledger  # noqa: E402
from virtuoso import PASSWORD, USER, VirtuosoServer, missing  # noqa: E402

import hopgate  # noqa: E402
from hopgate.store.remote import RemoteStore  # noqa: E402

WAYS = ("embedded", "on the server", "working copy", "Oxigraph server")


def _remote(port: int, *, on_server: bool = True) -> RemoteStore:
    return RemoteStore(
        f"http://127.0.0.1:{port}/sparql",
        update_endpoint=f"http://127.0.0.1:{port}/sparql-auth",
        graph_store=f"http://127.0.0.1:{port}/sparql-graph-crud-auth",
        user=USER,
        password=PASSWORD,
        timeout=3600,
        evaluate_on_server=on_server,
    )


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM).

    Not ``ru_maxrss``: Linux keeps it across ``execve``, so a child would
    report the parent's peak from before it started.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _child(way: str, target: str) -> None:
    """Evaluate once (forced) in this process; print seconds and peak RSS as JSON."""
    if way == "embedded":
        store: hopgate.Store = hopgate.open_store(Path(target))
    elif way == "Oxigraph server":
        store = RemoteStore(
            f"http://127.0.0.1:{target}/query",
            update_endpoint=f"http://127.0.0.1:{target}/update",
            graph_store=f"http://127.0.0.1:{target}/store",
            timeout=3600,
        )
    else:
        store = _remote(int(target), on_server=way == "on the server")
    clock = time.perf_counter()
    records = hopgate.evaluate(store, force=True)
    seconds = time.perf_counter() - clock
    print(json.dumps({"seconds": seconds, "peak_mb": _peak_mb(), "cards": records[0].cards}))
    store.close()


def _measure(way: str, target: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", way, target], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"the {way} evaluation failed:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--child", nargs=2, metavar=("WAY", "TARGET"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--skip-copy", action="store_true", help="leave out the working-copy way (slow)"
    )
    parser.add_argument(
        "--servers", default="virtuoso", help="virtuoso, or virtuoso,oxigraph for both"
    )
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    reason = missing()
    if reason:
        print(reason)
        return 1
    oxigraph = "oxigraph" in args.servers.split(",")
    ways = [
        w
        for w in WAYS
        if not (args.skip_copy and w == "working copy") and (oxigraph or w != "Oxigraph server")
    ]
    with tempfile.TemporaryDirectory(prefix="hopgate-remote-bench-") as folder:
        server = VirtuosoServer(Path(folder) / "virtuoso")
        server.start()
        second = OxigraphServer(Path(folder) / "oxigraph") if oxigraph else None
        if second is not None:
            second.start()
        try:
            print(
                "claims  triples  load embedded  load Virtuoso  ratio  load Oxigraph server  ratio"
            )
            results: list[tuple[int, dict[str, dict[str, float]]]] = []
            for size in (int(s) for s in args.sizes.split(",")):
                ledger = Path(folder) / f"ledger-{size}.jsonl"
                write_ledger(ledger, size)
                path = Path(folder) / f"store-{size}"
                remote = _remote(server.http_port)
                for graph in remote.graphs():
                    remote.remove_graph(graph)
                with hopgate.open_store(path) as embedded:
                    clock = time.perf_counter()
                    hopgate.load(embedded, ledger)
                    load_e = time.perf_counter() - clock
                    triples = embedded.count()
                clock = time.perf_counter()
                hopgate.load(remote, ledger)
                load_r = time.perf_counter() - clock
                load_o = float("nan")
                if second is not None:
                    other = second.remote_store(timeout=3600)
                    for graph in other.graphs():
                        other.remove_graph(graph)
                    clock = time.perf_counter()
                    hopgate.load(other, ledger)
                    load_o = time.perf_counter() - clock
                print(
                    f"{size:>6}  {triples:>7}  {load_e:>11.1f} s  {load_r:>11.1f} s  "
                    f"{load_r / load_e:>4.1f}x  {load_o:>18.1f} s  {load_o / load_e:>4.1f}x",
                    flush=True,
                )
                figures = {}
                for way in ways:
                    target = str(path) if way == "embedded" else str(server.http_port)
                    if way == "Oxigraph server" and second is not None:
                        target = str(second.port)
                    figures[way] = _measure(way, target)
                results.append((size, figures))
            print()
            print("claims  way            evaluate  ratio to embedded  peak RSS of the process")
            for size, figures in results:
                base = figures["embedded"]["seconds"]
                for way, found in figures.items():
                    print(
                        f"{size:>6}  {way:<13}  {found['seconds']:>6.1f} s  "
                        f"{found['seconds'] / base:>16.2f}x  {found['peak_mb']:>10.0f} MB",
                        flush=True,
                    )
        finally:
            server.stop()
            if second is not None:
                second.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
