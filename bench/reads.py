"""Reads of a recorded evaluation, with the recorded answers and without them, in one process.

An evaluation keeps the answers of the bundle queries (``hopgate.store.answers``);
reads take their rows from there instead of copying the loads and the bundle into
memory and querying them. Per size: a synthetic ledger (2 runs) is loaded into a
fresh on-disk store and evaluated twice, once without recording the answers (the
recorder replaced by one that keeps nothing: the evaluation as before) and once
as shipped; then every read is timed on the store as shipped, first with the
answer files, then with them moved away (the reads as before), and the two
answers compared. The reader filter's share (its withheld texts, asked once per
read) is timed alone, as one query on the disk store and as shipped. Wall and CPU seconds.

    python bench/reads.py --sizes 3300
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _timed(action: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _reads(store: Any) -> dict[str, Callable[[], Any]]:
    from hopgate import api
    from hopgate.store import catalog

    runs = catalog.runs(store)
    output = next(row.output for row in api.verdicts(store, run=runs[0]))

    def verdicts() -> Any:
        return [row.as_dict() for row in api.verdicts(store)]

    def metrics() -> Any:
        return {run: figures.as_dict() for run, figures in api.metrics(store).items()}

    def gate() -> Any:
        return [
            (result.passed, [row.output for row in result.failing])
            for result in (api.gate(store, run=run) for run in runs)
        ]

    def explain() -> Any:
        return api.explain(store, output).as_dict()

    return {"verdicts": verdicts, "metrics": metrics, "gate": gate, "explain": explain}


def _filter_alone(store: Any) -> tuple[float, float, bool]:
    """The reader filter's withheld texts: as one query on the disk store (before), and
    as shipped (the rule on a memory copy of the loads' reader snapshots, then the texts)."""
    from hopgate import ids
    from hopgate.audit.withholding import TEXTS_QUERY, Withholding, evaluation_reader, for_reader
    from hopgate.store import IRI, catalog

    reader = evaluation_reader(store, catalog.runs(store)[0])
    params = {"reader": IRI(ids.mint("reader", reader))}
    rows, before, _ = _timed(lambda: store.select(TEXTS_QUERY, params=params))
    shipped, now, _ = _timed(lambda: for_reader(store, reader))
    same = (
        Withholding(reader, (str(row["text"]) for row in rows if row["text"])).texts
        == shipped.texts
    )
    return before, now, same


def measure(claims: int, seed: int) -> dict[str, Any]:
    import hopgate
    from bench.synthetic import write_ledger
    from hopgate import api
    from hopgate.store import answers
    from hopgate.store.snapshots import FOLDER

    figures: dict[str, Any] = {"claims": claims}
    with tempfile.TemporaryDirectory(prefix="hopgate-reads-") as folder:
        scratch = Path(folder)
        ledger = scratch / "ledger.jsonl"
        write_ledger(ledger, claims, seed=seed, runs=2)
        shipped = answers.Recorder.record
        for mode in ("without recording", "recording"):
            path = scratch / mode.replace(" ", "-")
            store = hopgate.open_store(path)
            hopgate.load(store, ledger)
            if mode == "without recording":
                answers.Recorder.record = lambda *args, **kwargs: []  # type: ignore[method-assign]
            try:
                _, wall, cpu = _timed(lambda s=store: api.evaluate(s, force=True))
            finally:
                answers.Recorder.record = shipped  # type: ignore[method-assign]
            figures[f"evaluate {mode}"] = (wall, cpu)
            if mode == "without recording":
                store.close()
                shutil.rmtree(path)
        reads = _reads(store)
        found: dict[str, Any] = {}
        for name, read in reads.items():
            found[name], wall, cpu = _timed(read)
            figures[f"{name} recorded"] = (wall, cpu)
        hidden = scratch / "hidden"
        hidden.mkdir()
        for cache in (path / FOLDER).glob("*.cache"):
            cache.rename(hidden / cache.name)
        same = True
        for name, read in reads.items():
            answer, wall, cpu = _timed(read)
            figures[f"{name} queried"] = (wall, cpu)
            same = same and answer == found[name]
        figures["same answers"] = same
        figures["reader filter"] = _filter_alone(store)
        store.close()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3300")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; seconds wall (CPU)")
    for size in (int(s) for s in args.sizes.split(",") if s):
        figures = measure(size, args.seed)
        print(
            f"\n{size:,} claims x 2 runs; same answers: {'yes' if figures['same answers'] else 'NO'}"
        )
        print("| step | as before | with recorded answers | ratio (wall) |")
        print("|---|---|---|---|")
        before, now = figures["evaluate without recording"], figures["evaluate recording"]
        print(
            f"| evaluate (both runs) | {before[0]:.2f} ({before[1]:.2f}) "
            f"| {now[0]:.2f} ({now[1]:.2f}) | {now[0] / before[0]:.2f}x |"
        )
        for name in ("verdicts", "metrics", "gate", "explain"):
            before, now = figures[f"{name} queried"], figures[f"{name} recorded"]
            print(
                f"| `{name}` | {before[0]:.2f} ({before[1]:.2f}) "
                f"| {now[0]:.2f} ({now[1]:.2f}) | {now[0] / before[0]:.2f}x |"
            )
        before, now, same = figures["reader filter"]
        print(
            f"\nreader filter's withheld texts (same: {'yes' if same else 'NO'}): one query on "
            f"the disk store {before:.2f}, rule on a memory copy {now:.2f} ({now / before:.2f}x)"
        )


if __name__ == "__main__":
    main()
