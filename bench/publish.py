"""Publishing a graph: the bulk write and the snapshot cut in sequence, and side by side.

``hopgate.store.publish.publish`` bulk-writes a load's graph or an evaluation's
bundle (Rust, which releases the GIL) while it cuts the graph's snapshots from
the same file (Python). This benchmark measures, in one process, the load and
the evaluation of one synthetic ledger into fresh on-disk stores twice: with
the two steps in sequence (as before 2 December: the executor replaced by one
that runs each step at once) and side by side (as shipped); and pyoxigraph's
own ``bulk_load`` of the same quads, the load's floor. Wall and CPU seconds;
the answers are compared (same verdict rows and figures).

    python bench/publish.py --sizes 3300 --runs 2
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class _InSequence:
    """An executor that runs each task at once, in the caller's thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> _InSequence:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, task: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
        done: Future[Any] = Future()
        try:
            done.set_result(task(*args, **kwargs))
        except BaseException as exc:  # handed to the caller, as a thread's would be
            done.set_exception(exc)
        return done


@contextmanager
def _in_sequence(on: bool) -> Iterator[None]:
    from hopgate.store import publish

    shipped = publish.ThreadPoolExecutor
    if on:
        publish.ThreadPoolExecutor = _InSequence  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        publish.ThreadPoolExecutor = shipped  # type: ignore[misc]


def _timed(action: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _answers(store: Any) -> Any:
    from hopgate import api

    rows = [(r.output, r.verdict, tuple(r.missing)) for r in api.verdicts(store)]
    # The figures without the evaluation's id, which holds its time.
    figures = {run: replace(f, evaluation="") for run, f in api.metrics(store).items()}
    return sorted(rows), figures


def measure(claims: int, runs: int, seed: int) -> list[dict[str, Any]]:
    """Load and evaluate one ledger in each mode; then the bulk_load floor."""
    import pyoxigraph as ox

    import hopgate
    from bench.synthetic import write_ledger
    from hopgate import api

    rows: list[dict[str, Any]] = []
    answers = []
    with tempfile.TemporaryDirectory(prefix="hopgate-publish-") as folder:
        scratch = Path(folder)
        ledger = scratch / "ledger.jsonl"
        write_ledger(ledger, claims, seed=seed, runs=runs)
        for mode in ("in sequence", "side by side"):
            path = scratch / "store"
            with _in_sequence(mode == "in sequence"):
                store = hopgate.open_store(path)
                _, load_wall, load_cpu = _timed(lambda s=store: hopgate.load(s, ledger))
                if mode == "side by side":  # the floor loads what the load wrote
                    dump = scratch / "dump.nq"
                    with dump.open("wb") as out:
                        store.dump(out, format="nquads")
                _, eval_wall, eval_cpu = _timed(lambda s=store: api.evaluate(s, force=True))
            answers.append(_answers(store))
            rows.append(
                {
                    "claims": claims,
                    "mode": mode,
                    "load": (load_wall, load_cpu),
                    "evaluate": (eval_wall, eval_cpu),
                }
            )
            store.close()
            shutil.rmtree(path)
        floor = ox.Store(str(scratch / "floor"))
        _, wall, cpu = _timed(
            lambda: (floor.bulk_load(path=str(dump), format=ox.RdfFormat.N_QUADS), floor.flush())
        )
        rows.append({"claims": claims, "mode": "bulk_load floor", "load": (wall, cpu)})
    for row in rows:
        row["same answers"] = answers[0] == answers[1]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3300")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; seconds wall (CPU)")
    print("| claims | publishing | load | evaluate | load / bulk_load, wall (CPU) | same answers |")
    print("|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",") if s):
        rows = measure(size, args.runs, args.seed)
        floor = rows[-1]["load"]
        for row in rows:
            load = row["load"]
            ratio = f"{load[0] / floor[0]:.2f}x ({load[1] / floor[1]:.2f}x)"
            evaluate = row.get("evaluate")
            shown = f"{evaluate[0]:.2f} ({evaluate[1]:.2f})" if evaluate else "-"
            print(
                f"| {row['claims']:,} | {row['mode']} | {load[0]:.2f} ({load[1]:.2f}) "
                f"| {shown} | {ratio} | {'yes' if row['same answers'] else 'NO'} |"
            )


if __name__ == "__main__":
    main()
