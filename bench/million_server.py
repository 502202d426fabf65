"""1M claims in one Virtuoso store: the ledger loaded in parts, then evaluated on the server.

Issue 26 item 5 and issue 29 item 4 ask for 1M claims on Virtuoso with the
evaluation on the server: time, memory, and where it stops if it does. The
ledger (``bench/synthetic.py --parts``) is loaded as several ledgers, one
after another: each part's temporary N-Quads (3.2 GB for 100k claims, 32 GB
for 1M) is removed before the next. (Until 7 December a load was also
published in one transaction, which Virtuoso held to at most some 83M
triples: bench/README.md "6 December, midday: 1M claims on Virtuoso".) Each step is a ``hopgate`` command, as a user runs it,
under ``/usr/bin/time -v``; every ``--every`` seconds the client's and the
server's resident memory, the database's size and the free disk are printed.
A step is stopped (SIGTERM: it removes what it was writing) when the free
disk falls under ``--min-free-gb``, the machine's available memory under
``--min-available-gb`` (the server is killed then: a server that goes on
growing would have the kernel kill a process of its choosing), or at the
``--minutes`` deadline, and the steps after it are not run. Prints figures and asserts nothing.

    nice python bench/million_server.py --claims 1000000 --parts 3 --minutes 140 \\
        --folder /work/vt1m

``--evaluate-only`` starts the server on the database a run left in ``--folder``
and runs the evaluation and ``metrics`` only (the loads as they were). A rule
step at 1M claims runs longer than the tests' server allows a query (3,600 s),
so in every run the server has no query time limit and the client waits up to
``--request-timeout`` seconds for each answer.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bench.synthetic import part_paths, write_ledger  # noqa: E402


def rss_mb(pid: int) -> int:
    """A process's resident memory (VmRSS), 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def _available_gb() -> float:
    """The machine's available memory (MemAvailable)."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 2**20
    return float("inf")


def _size_mb(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) // 2**20


def _step(
    name: str,
    command: list[str],
    *,
    env: dict[str, str],
    folder: Path,
    server_pid: int,
    db: Path,
    deadline: float,
    min_free_gb: float,
    min_available_gb: float,
    every: float,
) -> bool:
    """Run one hopgate command under /usr/bin/time -v, sampled; whether it succeeded."""
    print(f"== {name} (started {time.strftime('%H:%M:%S')})", flush=True)
    log_path = folder / f"{name}.log"
    clock = time.perf_counter()
    with log_path.open("w") as log:
        child = subprocess.Popen(
            ["/usr/bin/time", "-v", *command],
            stdout=log,
            stderr=log,
            env=env,
            start_new_session=True,
        )
        stopped = None
        peak = server_peak = 0
        while child.poll() is None:
            time.sleep(every)
            found = subprocess.run(
                ["pgrep", "-P", str(child.pid)], capture_output=True, text=True
            ).stdout.split()
            client = max([rss_mb(int(pid)) for pid in found] or [0])
            server = rss_mb(server_pid)
            peak, server_peak = max(peak, client), max(server_peak, server)
            free, available = shutil.disk_usage(folder).free / 2**30, _available_gb()
            print(
                f"  {time.perf_counter() - clock:7.0f} s  client {client:6} MB  server "
                f"{server:6} MB  database {_size_mb(db):7} MB  free disk {free:5.1f} GB  "
                f"available memory {available:4.1f} GB",
                flush=True,
            )
            if stopped is None and available < min_available_gb:
                stopped = "memory"
                print("  stopping it and the server (memory)", flush=True)
                os.kill(server_pid, signal.SIGKILL)
            if stopped is None and (free < min_free_gb or time.time() > deadline):
                stopped = "disk" if free < min_free_gb else "deadline"
                print(f"  stopping it ({stopped})", flush=True)
                for pid in found:
                    os.kill(int(pid), signal.SIGTERM)
    seconds = time.perf_counter() - clock
    text = log_path.read_text(errors="replace").splitlines()
    said = [line for line in text if line.startswith(("hopgate:", "Error", "/"))]
    peak_kb = [line.split(":")[-1].strip() for line in text if "Maximum resident" in line]
    print(
        f"  {name}: exit {child.returncode} after {seconds:.0f} s; client peak "
        f"{int(peak_kb[-1]) // 1024 if peak_kb else peak} MB; server peak {server_peak} MB",
        flush=True,
    )
    for line in said[-12:]:
        print(f"    {line[:400]}", flush=True)
    return child.returncode == 0 and stopped is None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--parts", type=int, default=3, help="ledgers the claims are split into")
    parser.add_argument("--folder", type=Path, required=True, help="for the ledgers and server")
    parser.add_argument("--minutes", type=float, default=120, help="stop everything after this")
    parser.add_argument("--buffers", type=int, default=1_000_000, help="NumberOfBuffers (8 kB)")
    parser.add_argument("--min-free-gb", type=float, default=8.0)
    parser.add_argument("--min-available-gb", type=float, default=2.0)
    parser.add_argument("--every", type=float, default=30.0, help="seconds between samples")
    parser.add_argument(
        "--evaluate-only", action="store_true", help="the loads a run left; evaluate them"
    )
    parser.add_argument(
        "--request-timeout", type=float, default=14400, help="the client's wait for one answer"
    )
    args = parser.parse_args(argv)
    from virtuoso import PASSWORD, USER, VirtuosoServer, missing

    reason = missing()
    if reason:
        print(reason)
        return 1
    deadline = time.time() + args.minutes * 60
    args.folder.mkdir(parents=True, exist_ok=True)
    ledger = args.folder / "ledger.jsonl"
    parts = part_paths(ledger, args.parts)
    if not args.evaluate_only and not all(part.is_file() for part in parts):
        clock = time.perf_counter()
        counts = write_ledger(ledger, args.claims, runs=1, parts=args.parts)
        print(f"{args.parts} ledgers of {counts} in {time.perf_counter() - clock:.0f} s")
    server = VirtuosoServer(
        args.folder / "virtuoso",
        settings={
            ("Parameters", "NumberOfBuffers"): str(args.buffers),
            ("Parameters", "MaxDirtyBuffers"): str(args.buffers * 3 // 4),
            ("SPARQL", "MaxQueryExecutionTime"): "0",
        },
    )
    # Started again on the folder of a run that was stopped, the server first replays
    # its transaction log: minutes after a part of 100k claims.
    server.start(timeout=3600)
    assert server.process is not None
    env = {**os.environ, "HOPGATE_BENCH_PASSWORD": PASSWORD}
    hopgate = [
        str(Path(sys.executable).with_name("hopgate")),
        "--endpoint",
        server.endpoint,
        "--update-endpoint",
        server.update_endpoint,
        "--graph-store",
        f"http://127.0.0.1:{server.http_port}/sparql-graph-crud-auth",
        "--user",
        USER,
        "--password-env",
        "HOPGATE_BENCH_PASSWORD",
        "--request-timeout",
        str(args.request_timeout),
    ]
    common = {
        "env": env,
        "folder": args.folder,
        "server_pid": server.process.pid,
        "db": server.directory / "db",
        "deadline": deadline,
        "min_free_gb": args.min_free_gb,
        "min_available_gb": args.min_available_gb,
        "every": args.every,
    }
    try:
        loads = enumerate([] if args.evaluate_only else parts, 1)
        steps = [(f"load-part{k}", ["load", str(part)]) for k, part in loads]
        steps += [("evaluate", ["evaluate"]), ("metrics", ["metrics"])]
        for name, command in steps:
            if not _step(name, [*hopgate, *command], **common):  # type: ignore[arg-type]
                break
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
