"""Decisions and reads beside their floors, in one command (issue 26).

For each size (claims of ``bench/synthetic.py``, two runs by default), in a
fresh subprocess so that peak memory is per size:

1. write the ledger, and evaluate it with the plain-Python reference
   (``bench/reference.py``): the yardstick of a decision;
2. ``hopgate.load`` it into a fresh on-disk store; dump the store's quads and
   ``bulk_load`` them with pyoxigraph alone into another fresh on-disk store:
   the floor of a load;
3. reopen the store and time, as in-process ``hopgate`` api calls:
   ``evaluate`` (every run), ``metrics``, then each read: ``verdicts``,
   ``gate``, ``explain`` of one card, ``review queue``, ``report`` (JSON, no
   pictures), and, after ``evaluate --run run0 --force`` records a second
   evaluation of run0, ``diff``; every verdict row and metric is compared
   with the reference's (``agrees``);
4. unless ``--no-budget``: the evaluation of run0 once more, step by step as
   ``hopgate.decide.evaluation`` runs it (each operation of each rule file, each result
   query into the spool, the bundle's writing, bulk load, snapshot and
   catalog entry), each step beside its floor: the cheapest SPARQL over the
   same data (one ``COUNT`` over the triples of every predicate and class the
   step's text names, on the same store), plus, for a step that writes, a
   bulk load of the quads it wrote into a fresh memory store.

``--split`` loads each run as a ledger of its own (the evidence with run0's
cases, then each other run's cases, as ``bench/history.py`` splits them), as a
team loads its runs: the first evaluation of each run then walks
``queries/run-inputs.rq`` (one load needs no walk).

``--fever`` runs FEVER's 9,999 claims end to end the same way (import, load,
evaluate, ``metrics --peers``, ``verdicts``) beside ``bulk_load`` of the same
quads and the reference. It prints tables and one JSON line per size on
stderr; it asserts nothing::

    python bench/decide.py --sizes 3300,10000
    python bench/decide.py --sizes 3300 --split
    python bench/decide.py --sizes 1000 --no-budget --fever
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
# The checkout's hopgate, not an installed copy: src/ changes under the benchmark.
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from bench.per_size import measure_sizes  # noqa: E402 - after the path is set
from bench.read_commands import run_command  # noqa: E402

READS = ("verdicts", "gate", "explain", "review_queue", "report_json", "diff")


class Seconds(NamedTuple):
    """Wall and CPU seconds (all threads of this process) of one step."""

    wall: float
    cpu: float

    def __add__(self, other: object) -> Seconds:  # type: ignore[override]
        assert isinstance(other, Seconds)
        return Seconds(self.wall + other.wall, self.cpu + other.cpu)


ZERO = Seconds(0.0, 0.0)


def _timed(fn: Callable[[], Any]) -> tuple[Any, Seconds]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, Seconds(time.perf_counter() - wall, time.process_time() - cpu)


class Clock:
    """Wall and CPU seconds of named steps, in the order they ran."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.wall[name] = round(time.perf_counter() - wall, 3)
            self.cpu[name] = round(time.process_time() - cpu, 3)


def _peak_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _bulk_load_floor(store: Any, scratch: Path, clock: Clock) -> int:
    """Time pyoxigraph's own bulk_load of the store's quads into a fresh on-disk store."""
    import pyoxigraph as ox

    dump = scratch / "dump.nq"
    with dump.open("wb") as out:
        store.dump(out, format="nquads")
    floor = ox.Store(str(scratch / "floor-store"))
    with clock("bulk_load"):
        floor.bulk_load(path=str(dump), format=ox.RdfFormat.N_QUADS)
        floor.flush()
    quads = len(floor)
    del floor
    shutil.rmtree(scratch / "floor-store")
    dump.unlink()
    return quads


def _reference(ledger: Path, clock: Clock) -> Any:
    from bench import reference

    with clock("reference"):
        return reference.evaluate_ledger([ledger])


def _agreement(store: Any, answers: Any) -> dict[str, Any]:
    from bench import reference

    rows, figures = reference.hopgate_answers(store)
    differences = reference.compare(answers, rows, figures)
    return {"agrees": not differences, "differences": differences[:5], "rows": len(rows)}


def measure(
    claims: int, *, runs: int, seed: int, budget: bool, split: bool = False
) -> dict[str, Any]:
    """Every figure of one size; the store lives in a temporary folder."""
    import hopgate
    from bench.history import split as split_runs
    from bench.synthetic import write_ledger
    from hopgate import api
    from hopgate.report.pages import render

    clock = Clock()
    figures: dict[str, Any] = {"claims": claims if not split else f"{claims} split", "runs": runs}
    with tempfile.TemporaryDirectory(prefix="hopgate-decide-") as folder:
        scratch = Path(folder)
        ledger = scratch / "ledger.jsonl"
        write_ledger(ledger, claims, seed=seed, runs=runs)
        answers = _reference(ledger, clock)
        first, others = split_runs(ledger, scratch, runs) if split else (ledger, [])
        store = hopgate.open_store(scratch / "store")
        with clock("load"):
            triples = sum(hopgate.load(store, part).triples for part in [first, *others])
            store.close()
        figures["triples"] = triples
        store = hopgate.open_store(scratch / "store")
        figures["quads"] = _bulk_load_floor(store, scratch, clock)
        with clock("evaluate"):
            records = api.evaluate(store, force=True)
        with clock("metrics"):
            api.metrics(store)
        figures["cards"] = sum(r.cards for r in records)
        with clock("verdicts"):
            rows = api.verdicts(store)
        with clock("gate"):
            api.gate(store, run="run0")
        output = next(r.output for r in rows if r.run == "run0")
        with clock("explain"):
            api.explain(store, output)
        with clock("review_queue"):
            api.review_queue(store)
        with clock("report_json"):
            render(api.build_report(store, run="run0", pictures=0), "json")
        figures.update(_agreement(store, answers))
        with clock("evaluate_run0_again"):
            api.evaluate(store, run="run0", force=True)
        with clock("diff"):
            api.diff(store, run="run0")
        if budget:
            figures["budget"] = step_budget(store, "run0", scratch)
        store.close()
    figures["wall"], figures["cpu"] = clock.wall, clock.cpu
    figures["peak_rss_mb"] = _peak_mb()
    return figures


# ---- the per-step budget ------------------------------------------------------------


def _read_floor(store: Any, texts: list[str]) -> Seconds:
    """Seconds of one COUNT over every triple whose predicate (or class) the texts name."""
    from hopgate.library.projection import RDF_TYPE, projection_of

    projection = projection_of(texts)
    branches = [f"{{ GRAPH ?g {{ ?s <{p}> ?o }} }}" for p in sorted(projection.predicates)]
    branches += [f"{{ GRAPH ?g {{ ?s <{RDF_TYPE}> <{c}> }} }}" for c in sorted(projection.classes)]
    if not branches:
        return ZERO
    query = "SELECT (COUNT(*) AS ?n) WHERE { " + " UNION ".join(branches) + " }"
    return _timed(lambda: store.select(query))[1]


def _template_predicates(operation: str) -> list[str]:
    """The predicates an update's INSERT template writes (expanded IRIs)."""
    from hopgate.library.projection import RDF_TYPE, query_iris

    start = operation.find("INSERT")
    where = operation.find("WHERE", start)
    template = operation[start:where]
    found = query_iris(template)
    return sorted(p for p in found if p != RDF_TYPE)


def _scratch_quads(work: Any, scratch: str, predicates: list[str]) -> set[Any]:
    import pyoxigraph as ox

    graph = ox.NamedNode(scratch)
    return {
        quad
        for p in predicates
        for quad in work._store.quads_for_pattern(None, ox.NamedNode(p), None, graph)
    }


def _write_floor(quads: set[Any]) -> Seconds:
    """Seconds to bulk-load ``quads`` into a fresh memory store."""
    import pyoxigraph as ox

    fresh = ox.Store()
    return _timed(lambda: fresh.bulk_extend(quads))[1]


def _parse_floor(nquads: Path, disk: Path | None) -> Seconds:
    """Seconds to bulk-load an N-Quads file hopgate wrote into a fresh store (memory or ``disk``)."""
    import pyoxigraph as ox

    fresh = ox.Store() if disk is None else ox.Store(str(disk))

    def load() -> None:
        fresh.bulk_load(path=str(nquads), format=ox.RdfFormat.N_QUADS, lenient=True)
        fresh.flush()

    return _timed(load)[1]


def step_budget(store: Any, run: str, scratch_dir: Path) -> list[dict[str, Any]]:
    """Evaluate ``run`` once more step by step, as hopgate.decide.evaluation does; each step beside its floor.

    The steps are hopgate.decide.evaluation's own, called one by one (its private
    helpers, so the budget follows the code); nothing in src/ changes.
    """

    from hopgate import ids
    from hopgate.decide import evaluation
    from hopgate.decide.spool import Spool
    from hopgate.library.artefacts import library_query, library_update
    from hopgate.library.steps import SCRATCH_UPDATES, evaluation_projection
    from hopgate.store import IRI, catalog, dialect, snapshots
    from hopgate.vocab import CATALOG_GRAPH

    steps: list[dict[str, Any]] = []

    def step(
        name: str, seconds: Seconds, floor: Seconds | None, kind: str, count: int | None = None
    ) -> None:
        steps.append(
            {
                "step": name,
                "s": round(seconds.wall, 3),
                "cpu": round(seconds.cpu, 3),
                "floor_s": None if floor is None else round(floor.wall, 3),
                "floor_cpu": None if floor is None else round(floor.cpu, 3),
                "floor": kind,
                "count": count,
            }
        )

    timed = _timed

    state, seconds = timed(lambda: catalog.staleness(store, run))
    step("catalog: staleness", seconds, None, "")
    graphs, seconds = timed(lambda: catalog.run_inputs(store, run))
    floor = _read_floor(store, [library_query("run-inputs").text])
    step(
        "catalog: run inputs walked on the store (first evaluation only; one load: no walk)",
        seconds,
        floor,
        "COUNT of its predicates",
    )
    if evaluation._walked_on_a_copy(store, run) is not None:
        # What a first evaluation in a store of several loads does instead: the walk on
        # a copy of every load (kept as its working copy; here freed again).
        with evaluation._SharedCopy(store) as copies:
            _, seconds = timed(lambda: copies.inputs(run))
        step(
            "catalog: run inputs walked on a copy of every load (parse included)",
            seconds,
            floor,
            "COUNT of its predicates",
        )
    graphs = list(state.inputs) if state.inputs is not None else graphs
    scratch = evaluation._scratch_graph(run)
    params = {"run": IRI(ids.mint("run", run)), "scratch": IRI(scratch)}
    folder = scratch_dir / "budget"
    folder.mkdir()
    spool = Spool(folder)
    copy = snapshots.working_copy(store, evaluation_projection(), graphs)
    work, seconds = timed(copy.__enter__)
    step("working copy: parse the snapshots", seconds, ZERO, "none: the disk store holds them")
    try:
        for update_id in SCRATCH_UPDATES:
            for number, operation in enumerate(
                dialect.operations(library_update(update_id).text), 1
            ):
                written = _template_predicates(operation)
                before = _scratch_quads(work, scratch, written)
                _, seconds = timed(lambda op=operation: work.update(op, params=params))
                added = _scratch_quads(work, scratch, written) - before
                floor = _read_floor(work, [operation]) + _write_floor(added)
                step(
                    f"{update_id}.ru #{number}",
                    seconds,
                    floor,
                    "COUNT of its predicates + bulk load of its quads",
                    len(added),
                )
        results: list[tuple[str, Callable[[Iterator[Any]], Any]]] = [
            ("evaluation-verdicts", spool.verdicts),
            ("evaluation-route-candidates", spool.candidates),
            ("evaluation-source-truth", spool.truth),
            ("card-links", spool.relations),
            ("evaluation-missing-hops", lambda rows: spool.links("missing", rows, "span")),
            (
                "evaluation-inadmissible-citations",
                lambda rows: spool.links("inadmissible", rows, "span"),
            ),
            ("evaluation-admissibility", spool.flags),
            ("evaluation-span-coverage", spool.coverage),
            ("evaluation-claim-cases", spool.claim_cases),
            ("evaluation-annotations", list),
            ("evaluation-interventions", list),
        ]
        for query_id, sink in results:
            counted = [0]

            def rows(query_id: str = query_id, counted: list[int] = counted) -> Iterator[Any]:
                for row in evaluation._rows(work, query_id, run, scratch):
                    counted[0] += 1
                    yield row

            _, seconds = timed(lambda sink=sink, rows=rows: sink(rows()))
            floor = _read_floor(work, [library_query(query_id).text])
            step(f"{query_id}.rq -> spool", seconds, floor, "COUNT of its predicates", counted[0])
        state_rows = list(evaluation._rows(work, "evaluation-annotations", run, scratch))
        _, seconds = timed(lambda: work.remove_graph(scratch))
        step("remove the scratch graph", seconds, ZERO, "none")
    finally:
        _, seconds = timed(lambda: copy.__exit__(None, None, None))
    step("free the working copy", seconds, ZERO, "none")

    from hopgate.decide.annotations import AnnotationState

    decided = evaluation._Decided(spool, AnnotationState.from_rows(state_rows), [], {})
    bundle_file, catalog_file = folder / "bundle.nq", folder / "catalog.nq"
    from datetime import UTC, datetime

    started = datetime.now(UTC)
    writer, seconds = timed(
        lambda: evaluation._write_bundle(
            decided,
            store,
            run,
            graphs,
            bundle_file,
            catalog_file,
            started=started,
            ended=datetime.now(UTC),
            previous=None,
            by=None,
        )
    )
    spool.close()
    quads = sum(1 for _ in bundle_file.open(encoding="utf-8"))
    floor = _parse_floor(bundle_file, None)
    step("write the bundle (Python, from the spool)", seconds, floor, "parse its quads", quads)
    _, seconds = timed(lambda: store.add_graph(bundle_file, writer.bundle, trusted=True))
    floor = _parse_floor(bundle_file, folder / "fresh")
    step("bulk-load the bundle into the store", seconds, floor, "bulk_load, fresh disk store")
    # No snapshot of the bundle since 5 December 2026 (bench/README.md).
    from hopgate.store import answers

    kept, seconds = timed(lambda: answers.record(store, graphs, writer.bundle, bundle_file))
    step(
        "record the bundle queries' answers (beside the bulk load, in a thread)", seconds, None, ""
    )
    with catalog_file.open("a", encoding="utf-8") as out:
        out.write("".join(f"{line} <{CATALOG_GRAPH}> .\n" for line in kept))
    _, seconds = timed(lambda: store.add_nquads(catalog_file))
    step("catalog entry", seconds, None, "")
    return steps


# ---- FEVER end to end ------------------------------------------------------------------


def measure_fever() -> dict[str, Any]:
    """FEVER's 9,999 claims: import, load, evaluate, metrics --peers, verdicts; and the floor."""
    import hopgate
    from hopgate import api
    from hopgate.audit.peers import peer_metrics

    clock = Clock()
    figures: dict[str, Any] = {"claims": "fever"}
    gold = DATA / "fever-scorer-testdata" / "actual.jsonl"
    predictions = DATA / "fever-scorer-testdata" / "predictions.jsonl"
    with tempfile.TemporaryDirectory(prefix="hopgate-decide-fever-") as folder:
        scratch = Path(folder)
        ledger = scratch / "fever.jsonl"
        with clock("import"):
            api.import_files("fever", [gold], output=ledger, predictions=predictions)
        answers = _reference(ledger, clock)
        store = hopgate.open_store(scratch / "store")
        with clock("load"):
            loaded = hopgate.load(store, ledger)
            store.close()
        figures["triples"] = loaded.triples
        store = hopgate.open_store(scratch / "store")
        figures["quads"] = _bulk_load_floor(store, scratch, clock)
        with clock("evaluate"):
            api.evaluate(store, force=True)
        with clock("metrics"):
            api.metrics(store)
        with clock("peer_metrics"):
            peers = peer_metrics(store)
        with clock("verdicts"):
            api.verdicts(store)
        figures["peers"] = {
            run: {p.name: f"{p.numerator:g}/{p.denominator}" for p in found}
            for run, found in peers.items()
        }
        figures.update(_agreement(store, answers))
        store.close()
        # As a user runs it: a process whose store pages are not cached by the
        # process that evaluated (which makes reading from the store look cheap).
        _, wall, cpu = run_command(ROOT, scratch, ["metrics", "--peers", "--format", "json"])
        figures["peer_process"] = (round(wall, 3), round(cpu, 3))
    figures["wall"], figures["cpu"] = clock.wall, clock.cpu
    figures["peak_rss_mb"] = _peak_mb()
    return figures


# ---- tables ---------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}x" if a is not None and b else "-"


def _both(row: dict[str, Any], *names: str) -> str:
    """Wall seconds of the named steps together, CPU seconds in brackets."""
    wall = sum(row["wall"][n] for n in names)
    cpu = sum(row["cpu"][n] for n in names)
    return f"{wall:.2f} ({cpu:.2f})"


def _sum_ratio(row: dict[str, Any], key: str, top: tuple[str, ...], bottom: tuple[str, ...]) -> str:
    return _ratio(sum(row[key][n] for n in top), sum(row[key][n] for n in bottom))


def print_tables(rows: list[dict[str, Any]]) -> None:
    """The side-by-side table, the reads, and each size's budget (markdown).

    Seconds are wall clock, with the process's CPU seconds (all its threads)
    in brackets: on a shared machine the CPU figure is the steadier one.
    """
    decision = ("evaluate", "metrics")
    print(
        "| claims | triples | cards | reference | evaluate | metrics | evaluate + metrics "
        "| / reference, wall (CPU) | load | bulk_load | load / bulk_load, wall (CPU) "
        "| agrees | peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['claims']} | {row.get('triples', '-'):,} | {row.get('cards', '-')} "
            f"| {_both(row, 'reference')} | {_both(row, 'evaluate')} | {_both(row, 'metrics')} "
            f"| {_both(row, *decision)} | {_sum_ratio(row, 'wall', decision, ('reference',))} "
            f"({_sum_ratio(row, 'cpu', decision, ('reference',))}) | {_both(row, 'load')} "
            f"| {_both(row, 'bulk_load')} | {_sum_ratio(row, 'wall', ('load',), ('bulk_load',))} "
            f"({_sum_ratio(row, 'cpu', ('load',), ('bulk_load',))}) "
            f"| {'yes' if row.get('agrees') else 'NO'} | {row['peak_rss_mb']:,} MB |"
        )
    synthetic = [row for row in rows if row["claims"] != "fever"]
    if synthetic:
        print()
        print("| claims | " + " | ".join(READS) + " | evaluate run0 again |")
        print("|---|" + "---|" * (len(READS) + 1))
        for row in synthetic:
            cells = " | ".join(_both(row, name) for name in READS)
            print(f"| {row['claims']} | {cells} | {_both(row, 'evaluate_run0_again')} |")
    for row in rows:
        if row["claims"] == "fever":
            chain = ("import", "load", "evaluate", "metrics", "peer_metrics")
            print()
            print(
                f"FEVER: import {_both(row, 'import')} s, load {_both(row, 'load')} s, evaluate "
                f"{_both(row, 'evaluate')} s, metrics {_both(row, 'metrics')} s, metrics --peers "
                f"{_both(row, 'peer_metrics')} s, verdicts {_both(row, 'verdicts')} s; import + "
                f"load + evaluate + metrics --peers {_both(row, *chain)} s = "
                f"{_sum_ratio(row, 'wall', chain, ('bulk_load',))} "
                f"({_sum_ratio(row, 'cpu', chain, ('bulk_load',))}) bulk_load "
                f"({_both(row, 'bulk_load')} s); reference {_both(row, 'reference')} s; "
                f"agrees: {'yes' if row.get('agrees') else 'NO'}; peers {json.dumps(row['peers'])}"
            )
            wall, cpu = row["peer_process"]
            steps = sum(row["wall"][name] for name in chain[:-1]) + wall
            print(
                f"FEVER, metrics --peers as a process: {wall:.2f} ({cpu:.2f}) s; import + load + "
                f"evaluate + metrics + that process {steps:.2f} s = "
                f"{steps / row['wall']['bulk_load']:.1f}x bulk_load"
            )
    for row in synthetic:
        if "budget" not in row:
            continue
        print()
        print(f"Budget of one evaluation of run0, {row['claims']} claims:")
        print()
        print(
            "| step | wall s | CPU s | floor wall s | floor CPU s | floor is | CPU / floor CPU | rows or quads |"
        )
        print("|---|---|---|---|---|---|---|---|")
        totals = [0.0, 0.0, 0.0, 0.0]
        # One walk counts: on a copy when the evaluation takes that way, else on the store.
        on_copy = any("on a copy" in s["step"] for s in row["budget"])
        for s in row["budget"]:
            if on_copy and "walked on the store" in s["step"]:
                print(
                    f"| {s['step']} (not counted) | {s['s']:.3f} | {s['cpu']:.3f} | - | - | | | |"
                )
                continue
            totals[0] += s["s"]
            totals[1] += s["cpu"]
            totals[2] += s["floor_s"] or 0.0
            totals[3] += s["floor_cpu"] or 0.0
            floor = "-" if s["floor_s"] is None else f"{s['floor_s']:.3f} | {s['floor_cpu']:.3f}"
            if s["floor_s"] is None:
                floor = "- | -"
            count = "" if s["count"] is None else f"{s['count']:,}"
            print(
                f"| {s['step']} | {s['s']:.3f} | {s['cpu']:.3f} | {floor} | {s['floor']} "
                f"| {_ratio(s['cpu'], s['floor_cpu'])} | {count} |"
            )
        print(
            f"| total | {totals[0]:.2f} | {totals[1]:.2f} | {totals[2]:.2f} | {totals[3]:.2f} "
            f"| | {_ratio(totals[1], totals[3])} | |"
        )


def main(argv: list[str] | None = None) -> int:
    """Run each size (and FEVER) in its own subprocess; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3300,10000")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-budget", action="store_true")
    parser.add_argument("--split", action="store_true", help="one load per run")
    parser.add_argument("--fever", action="store_true", help="also FEVER end to end")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--one-fever", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_fever:
        print(json.dumps(measure_fever()))
        return 0
    if args.one is not None:
        found = measure(
            args.one, runs=args.runs, seed=args.seed, budget=not args.no_budget, split=args.split
        )
        print(json.dumps(found))
        return 0
    extra = ["--runs", str(args.runs), "--seed", str(args.seed)]
    extra += ["--no-budget"] if args.no_budget else []
    extra += ["--split"] if args.split else []
    rows = []
    if args.sizes:
        for _, row in measure_sizes(__file__, args.sizes, extra):
            assert row is not None  # no timeout given
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    if args.fever:
        done = subprocess.run(
            [sys.executable, __file__, "--one-fever"], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            print(f"FEVER: failed\n{done.stderr[-2000:]}", file=sys.stderr)
        else:
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print_tables(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
