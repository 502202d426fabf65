"""Benchmark ``hopgate.load`` on synthetic ledgers against pyoxigraph's own loaders.

For each size (claims), each step in a fresh subprocess so that peak memory is per step:

1. write a synthetic JSON Lines ledger (``bench/synthetic.py``);
2. ``hopgate.load`` it into a fresh on-disk store (``hopgate.open_store(path)``)
   and close the store (which flushes): time, records, triples, peak RSS, store
   size on disk (right after the load, and after a reopen and the dump, while
   RocksDB compacts in the background); then dump the store as N-Quads;
3. the floor: load that N-Quads file with pyoxigraph alone into a fresh
   on-disk store, with ``Store.bulk_load`` (what ``store.add_graph`` uses) and
   with the transactional ``Store.load`` (what ``add_nquads`` uses), each timed
   to a flush.

A watchdog kills a step whose resident memory passes ``--max-rss-gb`` (and
steps volunteer to the kernel's OOM killer first), so a size that does not fit
reports where it stopped instead of taking the machine down. If the hopgate
step is killed, the floor loads the N-Quads file hopgate had written for the
store (the same quads, in hopgate's order).

It prints figures and asserts nothing::

    python bench/load.py --sizes 1000,10000,100000
    python bench/load.py --profile 10000    # cProfile of one load, top functions
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import hashlib
import io
import json
import os
import platform
import pstats
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Keys of LoadResult.records that count things inside records, not ledger records.
DERIVED = ("output", "inline span")
PHASES = ("ledger digest", "pass 1 (index)", "existing records", "pass 2 (emit N-Quads)")
#: The store methods a load writes through (``add_graph`` is absent from older versions).
STORE_WRITES = ("add_graph", "add_nquads")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _du(path: Path) -> int:
    """Bytes allocated on disk under ``path`` (as ``du -s`` counts them)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


def _synthetic() -> Any:
    sys.path.insert(0, str(ROOT))
    from bench import synthetic

    return synthetic


def _say(message: str) -> None:
    """A progress line on stderr, which the parent keeps to report where a killed step was."""
    print(f"{time.monotonic():.3f} {message}", file=sys.stderr, flush=True)


# ---- children: one step each, in a fresh process ------------------------------------


def child_generate(claims: int, seed: int, ledger: Path) -> dict[str, Any]:
    clock = time.perf_counter()
    counts = _synthetic().write_ledger(ledger, claims, seed=seed)
    return {
        "seconds": time.perf_counter() - clock,
        "counts": counts,
        "bytes": ledger.stat().st_size,
        "peak_mb": _peak_mb(),
    }


def _instrument(capture: Path | None) -> tuple[Counter[str], Counter[str]]:
    """Wrap the loader's phases and the store's methods with timers (src/ is not changed).

    With ``capture``, the first N-Quads file the loader hands to the store (the
    records) is hard-linked there, for the floor if this step is killed.
    """
    import hopgate.ingest.loader as loader
    import hopgate.store as store

    seconds: Counter[str] = Counter()
    calls: Counter[str] = Counter()

    def timed(owner: Any, name: str, label: str, announce: bool = False) -> None:
        original: Callable[..., Any] | None = getattr(owner, name, None)
        if original is None:  # not in this version of hopgate
            return

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if announce:
                _say(f"start {label}")
            clock = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                seconds[label] += time.perf_counter() - clock
                calls[label] += 1
                if announce:
                    _say(f"end {label} {seconds[label]:.2f}")

        setattr(owner, name, wrapper)

    def capturing(name: str) -> None:
        original: Callable[..., Any] | None = getattr(store.OxigraphStore, name, None)
        if original is None:
            return

        def wrapper(self: Any, path: Path, *args: Any, **kwargs: Any) -> Any:
            _say(f"{name}: {path.stat().st_size:,} bytes")
            if capture is not None and not capture.exists():
                with contextlib.suppress(OSError):
                    os.link(path, capture)
            return original(self, path, *args, **kwargs)

        setattr(store.OxigraphStore, name, wrapper)

    for name in STORE_WRITES:
        capturing(name)
        timed(store.OxigraphStore, name, f"store.{name}", announce=True)
    timed(loader, "file_digest", PHASES[0], announce=True)
    timed(loader, "index_ledger", PHASES[1], announce=True)
    timed(loader.StoredRecords, "existing", PHASES[2], announce=True)
    timed(loader, "_emit", PHASES[3], announce=True)
    timed(store.OxigraphStore, "ask", "ASK queries")
    timed(store.OxigraphStore, "select", "SELECT queries")
    return seconds, calls


def _sources() -> dict[str, str]:
    """A digest of each hopgate module the load runs, to tell which code was measured."""
    import hopgate

    folder = Path(hopgate.__file__).parent
    return {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest()[:12]
        for name in ("loader.py", "store.py", "ledger.py", "ids.py")
        if (folder / name).exists()
    }


def child_hopgate(
    ledger: Path, store_dir: Path, capture: Path | None, dump: Path | None
) -> dict[str, Any]:
    import pyoxigraph as ox

    import hopgate

    seconds, calls = _instrument(capture)
    sources = _sources()
    store = hopgate.open_store(store_dir)
    _say("start hopgate.load")
    clock = time.perf_counter()
    result = hopgate.load(store, ledger)
    loaded = time.perf_counter() - clock
    _say(f"end hopgate.load {loaded:.2f}")
    _say("start close")
    clock = time.perf_counter()
    store.close()
    closed = time.perf_counter() - clock
    figures: dict[str, Any] = {
        "load_s": loaded,
        "close_s": closed,
        "seconds": loaded + closed,
        "records": result.records,
        "triples": result.triples,
        "peak_mb": _peak_mb(),
        "store_bytes": _du(store_dir),
        "phases": dict(seconds),
        "calls": dict(calls),
        "sources": sources,
    }
    _say("start reopen")
    clock = time.perf_counter()
    raw = ox.Store(str(store_dir))
    figures["reopen_s"] = time.perf_counter() - clock
    figures["quads"] = len(raw)
    if dump is not None:
        _say("start dump")
        clock = time.perf_counter()
        raw.dump(str(dump), format=ox.RdfFormat.N_QUADS)
        figures["dump_s"] = time.perf_counter() - clock
        figures["nquads_bytes"] = dump.stat().st_size
    raw.flush()
    del raw
    figures["reopened_store_bytes"] = _du(store_dir)
    return figures


def child_floor(nquads: Path, store_dir: Path, method: str) -> dict[str, Any]:
    import pyoxigraph as ox

    store = ox.Store(str(store_dir))
    _say(f"start {method}")
    clock = time.perf_counter()
    if method == "bulk_load":
        store.bulk_load(path=str(nquads), format=ox.RdfFormat.N_QUADS)
    else:
        store.load(path=str(nquads), format=ox.RdfFormat.N_QUADS)
    store.flush()
    seconds = time.perf_counter() - clock
    quads = len(store)
    del store
    return {
        "seconds": seconds,
        "quads": quads,
        "peak_mb": _peak_mb(),
        "store_bytes": _du(store_dir),
    }


def child_profile(claims: int, seed: int, top: int, save: Path | None) -> None:
    import hopgate

    with tempfile.TemporaryDirectory(prefix="hopgate-profile-") as work:
        ledger = Path(work) / "ledger.jsonl"
        _synthetic().write_ledger(ledger, claims, seed=seed)
        store = hopgate.open_store(Path(work) / "store")
        profiler = cProfile.Profile()
        clock = time.perf_counter()
        profiler.enable()
        result = hopgate.load(store, ledger)
        store.close()
        profiler.disable()
        elapsed = time.perf_counter() - clock
    print(f"# cProfile of hopgate.load + close: {claims:,} claims, {result.triples:,} triples,")
    print(f"# {elapsed:.1f} s under the profiler\n")
    if save is not None:
        profiler.dump_stats(str(save))
    for order in ("tottime", "cumulative"):
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).strip_dirs().sort_stats(order).print_stats(top)
        text = buffer.getvalue()
        print(f"## top {top} by {order}\n")
        print(text[text.find("   ncalls") :].rstrip() if "   ncalls" in text else text)
        print()


# ---- the parent: runs the children under a watchdog, prints the tables ---------------


def _rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB, or zeros once it is gone."""
    values = {"VmRSS:": 0, "VmHWM:": 0}
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            parts = line.split()
            if parts and parts[0] in values:
                values[parts[0]] = int(parts[1])
    return values["VmRSS:"], values["VmHWM:"]


def _run_child(max_rss_gb: float, *args: str) -> dict[str, Any]:
    """Run one step; return its figures, or ``{"failed": why, ...}`` if it died or was killed."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", *args]
    limit_kib = int(max_rss_gb * 1024 * 1024)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.monotonic()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        high = 0
        killed = False
        while child.poll() is None:
            rss, hwm = _rss_kib(child.pid)
            high = max(high, hwm)
            if rss > limit_kib:
                child.send_signal(signal.SIGKILL)
                killed = True
                child.wait()
                break
            time.sleep(0.25)
        elapsed = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    progress = [line for line in stderr.splitlines() if line[:1].isdigit()]
    if child.returncode == 0 and not killed:
        result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
        if progress:  # seconds since the first progress line, and the message
            first = float(progress[0].split(" ", 1)[0])
            result["progress"] = [
                [round(float(line.split(" ", 1)[0]) - first, 2), line.split(" ", 1)[1]]
                for line in progress
            ]
        return result
    last = progress[-1].split(" ")[1:] if progress else ["?"]
    where = " ".join(last[1:] if last[0] == "start" else last[1:-1]) if last[0] != "?" else "?"
    where = where if last[0] == "start" else f"after {where}"
    if killed:
        why = f"killed by the watchdog at RSS > {max_rss_gb:g} GB after {elapsed:.0f} s, in {where}"
    elif child.returncode == -signal.SIGKILL:
        why = (
            f"killed (SIGKILL: out of memory) at RSS {high / 1024**2:.1f} GB "
            f"after {elapsed:.0f} s, in {where}"
        )
    else:
        why = f"exit {child.returncode} after {elapsed:.0f} s, in {where}"
        sys.stderr.write(stderr[-3000:])
    phases = {}
    for line in progress:
        words = line.split(" ")
        if words[1] == "end":
            phases[" ".join(words[2:-1])] = float(words[-1])
    return {"failed": why, "seconds": elapsed, "peak_mb": high / 1024, "phases": phases}


def measure(
    claims: int,
    seed: int,
    workdir: Path | None,
    floor: bool,
    keep: bool,
    max_rss_gb: float,
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"hopgate-bench-{claims}-", dir=workdir))
    try:
        ledger = work / "ledger.jsonl"
        dump, captured = work / "dump.nq", work / "hopgate-input.nq"
        figures: dict[str, Any] = {"claims": claims}
        step = figures["generate"] = _run_child(
            max_rss_gb, "generate", str(claims), str(seed), str(ledger)
        )
        _report(claims, "ledger written", step)
        if "failed" in step:
            return figures
        step = figures["hopgate"] = _run_child(
            max_rss_gb,
            "hopgate",
            str(ledger),
            str(work / "store"),
            str(captured) if floor else "-",
            str(dump) if floor else "-",
        )
        _report(claims, "hopgate.load", step)
        if floor:
            if dump.exists():
                captured.unlink(missing_ok=True)
            nquads = dump if dump.exists() else captured
            figures["floor_input"] = "dump of the store" if nquads == dump else "hopgate's file"
            for method in ("bulk_load", "load"):
                if not nquads.exists():
                    break
                step = figures[method] = _run_child(
                    max_rss_gb, "floor", str(nquads), str(work / f"floor-{method}"), method
                )
                _report(claims, method, step)
                shutil.rmtree(work / f"floor-{method}", ignore_errors=True)
        return figures
    finally:
        if keep:
            print(f"  kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def _report(claims: int, what: str, step: dict[str, Any]) -> None:
    state = step["failed"] if "failed" in step else f"{step['seconds']:.1f} s"
    print(f"  {claims:,} claims: {what}: {state}", file=sys.stderr, flush=True)


def _mb(value: float) -> str:
    return f"{value / 1e6:,.0f}" if value >= 10e6 else f"{value / 1e6:,.1f}"


def _rate(count: float, seconds: float) -> str:
    return f"{count / seconds:,.0f}" if seconds > 0 else "-"


def _seconds(step: dict[str, Any] | None) -> str:
    if not step:
        return "-"
    if "failed" in step:
        return f"killed after {step['seconds']:.0f}" if "killed" in step["failed"] else "failed"
    return f"{step['seconds']:.2f}"


def render(all_figures: list[dict[str, Any]]) -> str:
    out = [
        "| claims | records | triples | hopgate s | records/s | triples/s | peak MB | "
        "store MB on disk (after reopen) | floor bulk_load s | floor load s | "
        "hopgate/bulk_load | hopgate/load |",
        "|" + "---|" * 12,
    ]
    notes = []
    for f in all_figures:
        counts = f["generate"].get("counts", {})
        records = sum(v for k, v in counts.items() if k not in DERIVED)
        h = f.get("hopgate", {})
        bulk, txn = f.get("bulk_load"), f.get("load")
        if "triples" in h:
            seconds = h["seconds"]
            cells = [
                f"{h['triples']:,}",
                f"{seconds:.2f}",
                _rate(records, seconds),
                _rate(h["triples"], seconds),
                f"{h['peak_mb']:,.0f}",
                f"{_mb(h['store_bytes'])} ({_mb(h['reopened_store_bytes'])})",
            ]
        else:
            quads = (bulk or {}).get("quads")
            cells = [f"({quads - 23:,})" if quads else "-", _seconds(h), "-", "-"]
            cells += [f">= {h.get('peak_mb', 0):,.0f}", "-"]
            notes.append(f"{f['claims']:,} claims, hopgate: {h.get('failed', 'not run')}")
        ratios = []
        for floor in (bulk, txn):
            if floor and "failed" in floor:
                notes.append(f"{f['claims']:,} claims, floor: {floor['failed']}")
            ok = floor and "failed" not in floor and "triples" in h
            ratios.append(f"{h['seconds'] / floor['seconds']:.1f}x" if ok else "-")
        out.append(
            f"| {f['claims']:,} | {records:,} | "
            + " | ".join(cells)
            + f" | {_seconds(bulk)} | {_seconds(txn)} | "
            + " | ".join(ratios)
            + " |"
        )
    if notes:
        out += [""] + [f"- {note}" for note in notes]
    columns = [*PHASES, "ASK queries", "SELECT queries", *(f"store.{n}" for n in STORE_WRITES)]
    out += [
        "",
        "Where hopgate's time goes (seconds; the queries are timed wherever they run: pass 2's, "
        "and the reader rule's record beside store.add_graph; other = the rest of "
        "hopgate.load; close flushes):",
        "",
        "| claims | "
        + " | ".join(columns)
        + " | other | close | reopen | ledger MB | N-Quads MB | modules (sha256) |",
        "|" + "---|" * (len(columns) + 7),
    ]
    for f in all_figures:
        h = f.get("hopgate", {})
        if "phases" not in h:
            continue
        p, c = h["phases"], h.get("calls", {})
        cells = []
        for column in columns:
            if column in p:
                count = f" ({c[column]:,})" if column.endswith("queries") and column in c else ""
                cells.append(f"{p[column]:.2f}{count}")
            else:
                cells.append("-" if "failed" not in h else "?")
        if "failed" in h:  # only the phases that ended before the step died
            cells += ["-", "-", "-", _mb(f["generate"]["bytes"]), "-", "-"]
        else:
            inner = sum(p.get(x, 0) for x in columns if not x.endswith("queries"))
            sources = ", ".join(f"{k} {v[:7]}" for k, v in h.get("sources", {}).items())
            cells += [
                f"{h['load_s'] - inner:.2f}",
                f"{h['close_s']:.2f}",
                f"{h['reopen_s']:.2f}",
                _mb(f["generate"]["bytes"]),
                _mb(h["nquads_bytes"]) if "nquads_bytes" in h else "-",
                sources,
            ]
        out.append(f"| {f['claims']:,} | " + " | ".join(cells) + " |")
    floors = [f for f in all_figures if "bulk_load" in f or "load" in f]
    if floors:
        out += [
            "",
            "The floor: pyoxigraph alone on the same quads, each into a fresh on-disk store:",
            "",
            "| claims | input | quads | bulk_load s | quads/s | peak MB | store MB | "
            "load s | quads/s | peak MB | store MB |",
            "|" + "---|" * 11,
        ]
        for f in floors:
            row = [f"{f['claims']:,}", f["floor_input"]]
            quads = f.get("bulk_load", {}).get("quads") or f.get("load", {}).get("quads")
            row.append(f"{quads:,}" if quads else "-")
            for method in ("bulk_load", "load"):
                step = f.get(method, {})
                if "quads" in step:
                    row += [
                        f"{step['seconds']:.2f}",
                        _rate(step["quads"], step["seconds"]),
                        f"{step['peak_mb']:,.0f}",
                        _mb(step["store_bytes"]),
                    ]
                else:
                    row += [_seconds(step), "-", f">= {step.get('peak_mb', 0):,.0f}", "-"]
            out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return _child(argv[1:])
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="claims, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None, help="where temporary files go")
    parser.add_argument("--no-floor", action="store_true", help="skip the pyoxigraph floor")
    parser.add_argument("--keep", action="store_true", help="keep the ledgers, stores and dumps")
    parser.add_argument("--max-rss-gb", type=float, default=12.0, help="kill a step above this")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--profile", type=int, default=0, metavar="CLAIMS", help="cProfile a load")
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    parser.add_argument("--profile-out", type=Path, default=None, help="save the pstats file")
    args = parser.parse_args(argv)
    if args.profile:
        child_profile(args.profile, args.seed, args.top, args.profile_out)
        return 0
    import pyoxigraph

    import hopgate

    sizes = [int(size) for size in args.sizes.split(",") if size]
    load_before = os.getloadavg()[0]
    all_figures = []
    for claims in sizes:
        all_figures.append(
            measure(
                claims,
                args.seed,
                args.workdir,
                not args.no_floor,
                args.keep,
                args.max_rss_gb,
            )
        )
        if args.json is not None:
            args.json.write_text(json.dumps(all_figures, indent=1), encoding="utf-8")
    print(
        f"hopgate {hopgate.__version__}, "
        f"pyoxigraph {pyoxigraph.__version__}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {load_before:.1f} before / "
        f"{os.getloadavg()[0]:.1f} after, seed {args.seed}\n"
    )
    print(render(all_figures))
    return 0


def _child(args: list[str]) -> int:
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as adj:
        adj.write("1000")  # if memory runs out, the kernel kills this step first
    step, rest = args[0], args[1:]

    def optional(value: str) -> Path | None:
        return None if value == "-" else Path(value)

    if step == "generate":
        figures = child_generate(int(rest[0]), int(rest[1]), Path(rest[2]))
    elif step == "hopgate":
        figures = child_hopgate(Path(rest[0]), Path(rest[1]), optional(rest[2]), optional(rest[3]))
    elif step == "floor":
        figures = child_floor(Path(rest[0]), Path(rest[1]), rest[2])
    else:
        raise SystemExit(f"unknown step {step!r}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
