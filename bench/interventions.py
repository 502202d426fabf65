"""Benchmark interventions on a synthetic run: plan, run (builtin:bm25), load, score.

For each size (claims): write a synthetic ledger (``bench/synthetic.py``),
load it into a fresh on-disk store and evaluate it (not timed in the
figures), then time

1. ``plan``: queries/interventions-plan.rq and the variant expansion, with the
   plan recorded in the store (seconds, variants, microseconds per variant);
2. ``run``: the built-in BM25 system on every variant, in process;
3. ``load`` of the answers and the ``evaluate`` that scores them (the
   evaluation-interventions step beside the plain steps).

It prints figures and asserts nothing::

    python bench/interventions.py --sizes 1000,10000
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _phase(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def measure(claims: int) -> dict[str, Any]:
    """Plan, answer and score the interventions of one synthetic store of ``claims`` claims."""
    import hopgate
    from bench.synthetic import write_ledger
    from hopgate.decide.evaluation import evaluate
    from hopgate.decide.outcomes import recorded
    from hopgate.interventions.plan import plan
    from hopgate.interventions.run import BUILTIN_BM25, run_plan
    from hopgate.store import catalog

    with tempfile.TemporaryDirectory(prefix="hopgate-bench-iv-") as scratch:
        ledger = Path(scratch) / "ledger.jsonl"
        write_ledger(ledger, claims)
        store = hopgate.open_store(Path(scratch) / "store")
        clock = time.perf_counter()
        hopgate.load(store, ledger)
        [plain] = evaluate(store)
        setup = time.perf_counter() - clock
        run = plain.run
        _phase(f"{claims} claims: loaded and evaluated in {setup:.1f} s")

        clock = time.perf_counter()
        planned = plan(store, run)
        plan_seconds = time.perf_counter() - clock
        variants = len(planned.variants)
        _phase(f"planned {variants} variants in {plan_seconds:.1f} s")

        answers = Path(scratch) / "answers.jsonl"
        clock = time.perf_counter()
        ran = run_plan(planned.variants, BUILTIN_BM25, answers)
        run_seconds = time.perf_counter() - clock
        _phase(f"answered in {run_seconds:.1f} s")

        clock = time.perf_counter()
        hopgate.load(store, answers)
        load_seconds = time.perf_counter() - clock
        _phase(f"answers loaded in {load_seconds:.1f} s")
        clock = time.perf_counter()
        [scored] = evaluate(store, run=run)
        score_seconds = time.perf_counter() - clock
        latest = catalog.latest(store, run)
        assert latest is not None
        outcomes = len(recorded(store, latest.bundle))
        store.close()
    per = (lambda s: round(1e6 * s / variants, 1)) if variants else (lambda s: None)
    return {
        "claims": claims,
        "variants": variants,
        "not_applicable": sum(planned.inapplicable.values()),
        "answered": ran.answered,
        "outcomes": outcomes,
        "setup_s (load + plain evaluate)": round(setup, 2),
        "plain_evaluate_s": round(plain.seconds, 2),
        "plan_s": round(plan_seconds, 2),
        "plan_us_per_variant": per(plan_seconds),
        "run_bm25_s": round(run_seconds, 2),
        "load_answers_s": round(load_seconds, 2),
        "evaluate_with_interventions_s": round(score_seconds, 2),
        "score_us_per_variant": per(score_seconds - plain.seconds),
        "evaluate_seconds_recorded": round(scored.seconds, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="claims per store, comma-separated")
    args = parser.parse_args(argv)
    for size in (int(s) for s in args.sizes.split(",")):
        print(json.dumps(measure(size)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
