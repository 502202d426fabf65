"""A team's history on one Virtuoso server: run after run loaded and evaluated as history grows.

Issue 29 item 4. One private Virtuoso (tests/virtuoso.py, with the settings
docs/servers.md asks for) holds the evidence of ``--claims`` claims and,
step by step, the cases of one more system run each (``bench/synthetic.py``
with ``--runs`` runs, split as ``bench/history.py`` splits them). Each step
loads the run's ledger, evaluates the run on the server (``evaluate
--run``), and reads its verdicts and metrics, each timed in a child process
of its own (so its peak resident memory, VmHWM, is the client's for that
step). After each step the server's resident memory (VmRSS of
``virtuoso-t``) and its database's size on disk are read. Prints one line
per run and the ratio of each evaluation to the first; asserts nothing.

    nice python bench/team_history.py --claims 10000 --runs 10
    nice python bench/team_history.py --claims 10000 --runs 8 --phases   # where each run's time goes
    nice python bench/team_history.py --claims 10000 --runs 8 --phases --checkpoint
    nice python bench/team_history.py --claims 10000 --runs 8 --phases --pause 240
    nice python bench/team_history.py --claims 10000 --runs 8 --phases --buffers 1360000
    nice python bench/team_history.py --claims 1000000 --runs 1   # one large store
    nice python bench/team_history.py --claims 2000 --runs 10 --on-client   # rules in the client

Step 0 loads the evidence with run0's cases; the others load one run's cases.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bench.history import split  # noqa: E402
from bench.synthetic import write_ledger  # noqa: E402


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM), not ru_maxrss (kept across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _server_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _disk_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


#: The evaluation's phases ``--phases`` times from its profile: where a run's
#: evaluation could grow with the history (the staleness checks, the walk of its
#: inputs, the result queries with the rule steps, the bundle, its publication and
#: the recorded answers), each the cumulative seconds of (module file, function).
#: The rule steps themselves are timed per rule file beside the profile.
PHASES = {
    "staleness": ("store/catalog.py", "staleness"),
    "inputs": ("store/catalog.py", "run_inputs"),
    "plans": ("decide/outcomes.py", "planned"),
    "decide": ("decide/evaluation.py", "_compute"),
    "bundle": ("decide/evaluation.py", "_write_bundle"),
    "publish": ("store/publish.py", "publish"),
    "answers-written": ("store/answers.py", "record_written"),
}


def _phase_seconds(stats: pstats.Stats) -> dict[str, float]:
    """The seconds of each of :data:`PHASES` in ``stats``."""
    found = dict.fromkeys(PHASES, 0.0)
    table = stats.stats  # type: ignore[attr-defined]
    for (filename, _, name), (_, _, _, cumulative, _) in table.items():
        for phase, (suffix, function) in PHASES.items():
            if name == function and filename.endswith(suffix):
                found[phase] += cumulative
    return found


def _child(
    port: str,
    run: str,
    ledger: str,
    phases: bool = False,
    checkpoint_port: str | None = None,
    pause: float = 0.0,
    on_client: bool = False,
) -> None:
    """Load ``ledger``, evaluate ``run`` on the server, read its verdicts and metrics; print JSON.

    ``on_client``: the evaluation's rule files run on a copy of the run's load graphs in
    the client (``--evaluate-on-client``), not on the server.

    ``checkpoint_port``: the server's SQL port, where a checkpoint is made after the
    load (timed apart), so that the evaluation does not meet the load's writes.
    ``pause``: seconds to wait between the load (and checkpoint) and the evaluation:
    an evaluation right after a load of 10,000 cases paid 10-25% more on Virtuoso
    for a minute or more (bench/README.md "5 December").
    """
    from virtuoso import DBA_PASSWORD, ISQL, PASSWORD, USER

    import hopgate
    from hopgate.store.remote import RemoteStore

    store = RemoteStore(
        f"http://127.0.0.1:{port}/sparql",
        update_endpoint=f"http://127.0.0.1:{port}/sparql-auth",
        graph_store=f"http://127.0.0.1:{port}/sparql-graph-crud-auth",
        user=USER,
        password=PASSWORD,
        timeout=7200,
        evaluate_on_server=not on_client,
    )
    times: dict[str, Any] = {}
    clock = time.perf_counter()
    hopgate.load(store, Path(ledger))
    times["load"] = time.perf_counter() - clock
    if checkpoint_port is not None:
        clock = time.perf_counter()
        subprocess.run(
            [ISQL, f"127.0.0.1:{checkpoint_port}", "dba", DBA_PASSWORD, "VERBOSE=OFF"],
            input=b"checkpoint;\n",
            check=True,
            capture_output=True,
        )
        times["checkpoint"] = time.perf_counter() - clock
    time.sleep(pause)
    rule_files: dict[str, float] = {}
    if phases:
        # Each rule file's updates, timed apart (the profile sees one `update`).
        plain_update = RemoteStore.update

        def timed_update(self: RemoteStore, update: str, **kw: object) -> None:
            started = time.perf_counter()
            try:
                plain_update(self, update, **kw)  # type: ignore[arg-type]
            finally:
                head = update.split("\n", 1)[0]
                name = head[len("# id: ") :] if head.startswith("# id: ") else "other"
                rule_files[name] = rule_files.get(name, 0.0) + time.perf_counter() - started

        RemoteStore.update = timed_update  # type: ignore[method-assign]
    clock = time.perf_counter()
    profile = cProfile.Profile() if phases else None
    if profile is not None:
        profile.enable()
    record = hopgate.evaluate(store, run=run)[0]
    if profile is not None:
        profile.disable()
    times["evaluate"] = time.perf_counter() - clock
    if profile is not None:
        times["phases"] = _phase_seconds(pstats.Stats(profile))
        times["rule_files"] = {
            name.removeprefix("evaluation-"): seconds
            for name, seconds in rule_files.items()
            if name.startswith("evaluation-")
        }
        times["phases"]["rules"] = sum(times["rule_files"].values())
    clock = time.perf_counter()
    rows = hopgate.verdicts(store, run=run)
    hopgate.metrics(store, run=run)
    times["read"] = time.perf_counter() - clock
    print(json.dumps({**times, "cards": record.cards, "rows": len(rows), "peak_mb": _peak_mb()}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--phases",
        action="store_true",
        help="profile each evaluation and print the seconds of its phases (cProfile's overhead "
        "is in the evaluate column then)",
    )
    parser.add_argument(
        "--checkpoint",
        action="store_true",
        help="checkpoint the server after each load (timed apart from the evaluation)",
    )
    parser.add_argument(
        "--buffers",
        type=int,
        help="the server's [Parameters] NumberOfBuffers (8 kB pages; MaxDirtyBuffers 3/4 of "
        "it); default the tests' 170,000",
    )
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="seconds to wait between each load and its evaluation (default none)",
    )
    parser.add_argument(
        "--on-client",
        action="store_true",
        help="evaluate with the rule files on a copy in the client (--evaluate-on-client)",
    )
    parser.add_argument("--child", nargs=7, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        port, run, ledger, phases, checkpoint, pause, where = args.child
        _child(
            port,
            run,
            ledger,
            phases == "phases",
            None if checkpoint == "-" else checkpoint,
            float(pause),
            where == "client",
        )
        return 0
    from virtuoso import VirtuosoServer, missing

    reason = missing()
    if reason:
        print(reason)
        return 1
    with tempfile.TemporaryDirectory(prefix="hopgate-team-") as scratch:
        folder = Path(scratch)
        clock = time.perf_counter()
        write_ledger(folder / "all.jsonl", args.claims, runs=args.runs)
        first, others = split(folder / "all.jsonl", folder, args.runs)
        print(
            f"{args.claims} claims, {args.runs} runs: ledgers in {time.perf_counter() - clock:.0f} s"
        )
        settings = (
            {
                ("Parameters", "NumberOfBuffers"): str(args.buffers),
                ("Parameters", "MaxDirtyBuffers"): str(args.buffers * 3 // 4),
            }
            if args.buffers
            else {}
        )
        server = VirtuosoServer(folder / "virtuoso", settings=settings)
        server.start()
        assert server.process is not None
        try:
            print("run  load s  evaluate s  read s  ratio  cards  client MB  server MB  disk MB")
            base = None
            for index, ledger in enumerate([first, *others]):
                run = f"run{index}"
                done = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        str(server.http_port),
                        run,
                        str(ledger),
                        "phases" if args.phases else "-",
                        str(server.sql_port) if args.checkpoint else "-",
                        str(args.pause),
                        "client" if args.on_client else "server",
                    ],
                    capture_output=True,
                    text=True,
                )
                if done.returncode != 0:
                    print(f"{run} stopped: {done.stderr.strip().splitlines()[-1:]}")
                    return 1
                found = json.loads(done.stdout.strip().splitlines()[-1])
                base = base or found["evaluate"]
                print(
                    f"{run:>4}  {found['load']:>6.1f}  {found['evaluate']:>10.1f}  "
                    f"{found['read']:>6.1f}  {found['evaluate'] / base:>5.2f}  "
                    f"{found['cards']:>5}  {found['peak_mb']:>9.0f}  "
                    f"{_server_mb(server.process.pid):>9.0f}  "
                    f"{_disk_mb(server.directory / 'db'):>7.0f}",
                    flush=True,
                )
                if "checkpoint" in found:
                    print(
                        f"      checkpoint after the load {found['checkpoint']:.1f} s", flush=True
                    )
                if found.get("rule_files"):
                    print(
                        "      rule files: "
                        + ", ".join(f"{k} {v:.1f}" for k, v in found["rule_files"].items()),
                        flush=True,
                    )
                if "phases" in found:
                    print(
                        "      " + ", ".join(f"{k} {v:.1f}" for k, v in found["phases"].items()),
                        flush=True,
                    )
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
