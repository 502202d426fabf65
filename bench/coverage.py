"""Benchmark coverage within one version: many spans of one text, many cases citing them.

Issue 14, item 5: one version holding 1,000, 2,000 and 4,000 spans cited by
2,000 cases took 2.7, 11.8 and 51 s to evaluate, because the coverage update
paired every delivered span of a version with every member span of that
version. For each size (spans in the one version), in a fresh subprocess:

1. build a ledger (:func:`coverage_ledger`): one source with one retained
   version, a text of sentences; ``spans`` reference spans over it (most a
   whole sentence, some nested in a sentence, some overlapping two); one claim
   and one question per case, with one or two evidence sets of two or three
   nearby spans; per case the retrieved spans (members, distractors, a wider
   inline chunk) and one output citing members, a chunk or a wider span;
2. load it into an in-memory store (load time printed apart);
3. time ``evaluate(store, force=True)`` (wall clock and the process's CPU
   time, steadier on a shared machine) with the library's coverage update
   and, with ``--baseline``, with the update it replaced
   (``bench/coverage-quadratic.ru``, commit be4da24) on the same store;
4. compare the verdict rows of each with the plain-Python model of the spec
   (``tests/spec_model.py``).

The growth column compares CPU times from one size to the next. It prints
figures and asserts nothing::

    python bench/coverage.py --sizes 1000,2000,4000 --baseline
    python bench/coverage.py --sizes 1000,4000 --baseline --locators
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import importlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.per_size import measure_sizes  # noqa: E402 - after the path is set

QUADRATIC = Path(__file__).with_name("coverage-quadratic.ru")
VERSION = "register@1"
_HOLDERS = ("Entity R", "Société Arnaud", "Nørdlys AS", "Kobe Trading", "Łódź Textiles")
#: The fields the engine's verdict rows share with the model's.
_COMPARED = (
    "run",
    "question",
    "output",
    "claim",
    "supported",
    "retrieved_complete",
    "citation_complete",
    "missing",
    "inadmissible_citations",
    "verdict",
)


def _text(rng: random.Random, sentences: int) -> tuple[str, list[tuple[int, int]]]:
    """A text of ``sentences`` sentences and the (start, end) of each, full stop included."""
    parts: list[str] = ["Register export, October 2026."]
    offset = len(parts[0])
    places = []
    for i in range(sentences):
        holder = rng.choice(_HOLDERS)
        sentence = (
            f"Entry {i} maps record R{i} to {holder}, filed under schedule {rng.randint(1, 99)}."
        )
        separator = "\n" if rng.random() < 0.1 else " "
        parts += [separator, sentence]
        offset += len(separator)
        places.append((offset, offset + len(sentence)))
        offset += len(sentence)
    return "".join(parts) + "\n", places


def _spans(rng: random.Random, count: int, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``count`` (start, end) offsets, in text order: whole sentences, nested, overlapping."""
    found = []
    for _ in range(count):
        j = rng.randrange(len(places) - 1)
        start, end = places[j]
        roll = rng.random()
        if roll < 0.55:
            pass  # the whole sentence
        elif roll < 0.7:
            end -= 1  # without the full stop
        elif roll < 0.85:
            start += rng.randint(1, 10)  # nested: a clause inside the sentence
            end -= rng.randint(1, 10)
        else:
            start += rng.randint(5, 20)  # overlapping: the end of one, the start of the next
            end = places[j + 1][0] + rng.randint(5, 20)
        found.append((start, end))
    return sorted(found)


def coverage_ledger(
    spans: int, cases: int, *, seed: int = 0, locators: bool = False
) -> dict[str, Any]:
    """A one-document ledger: one version holding ``spans`` spans, cited by ``cases`` cases.

    With ``locators`` the version withholds its text and each span is addressed
    by the line (sentence) it starts in, so spans of one line share a locator;
    inline chunks are left out (a withheld text has no offsets).
    """
    rng = random.Random(seed)
    text, places = _text(rng, max(2, spans * 3 // 4))
    offsets = _spans(rng, spans, places)
    span_records = [
        {"id": f"s{k}", "version": VERSION, "start": s, "end": e, "quote": text[s:e]}
        for k, (s, e) in enumerate(offsets)
    ]
    ledger: dict[str, Any] = {
        "ledger": 1,
        "evaluations": [
            {
                "id": "eval-coverage",
                "reader": "analyst",
                "observation_cutoff": "2026-10-07T00:00:00Z",
                "corpus": f"One register export, {spans} spans",
                "policy": {"coverage": "containment"},
            }
        ],
        "readers": [{"id": "analyst"}],
        "sources": [{"id": "register", "address": "https://example.org/register"}],
        "versions": [
            {
                "id": VERSION,
                "source": "register",
                "text": text,
                "observed_at": "2026-10-01T12:00:00Z",
            }
        ],
        "spans": span_records,
        "claims": [],
        "questions": [],
        "evidence_sets": [],
        "runs": [
            {
                "id": "run1",
                "evaluation": "eval-coverage",
                "system": "rag-coverage",
                "started_at": "2026-10-05T09:00:00Z",
            }
        ],
        "cases": [],
    }
    for i in range(cases):
        ledger["claims"].append({"id": f"c{i}", "text": f"Claim {i} about the register."})
        ledger["questions"].append({"id": f"q{i}", "text": f"Question {i}?", "claims": [f"c{i}"]})
        # Members are nearby spans, so a chunk or a wider span may cover several.
        base = rng.randrange(max(1, spans - 6))
        nearby = list(range(base, min(spans, base + 6)))
        sets = [sorted(rng.sample(nearby, rng.randint(2, 3)))]
        if rng.random() < 0.4:
            sets.append(sorted(rng.sample(nearby, rng.randint(2, 3))))
        for number, members in enumerate(sets):
            status = "adjudicated" if number == 0 or rng.random() < 0.7 else "proposed"
            ledger["evidence_sets"].append(
                {
                    "id": f"c{i}-g{number}",
                    "claim": f"c{i}",
                    "members": [f"s{k}" for k in members],
                    "inference": "identity join on record ids",
                    "status": status,
                    "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
                }
            )
        ledger["cases"].append(_case(rng, i, sets[0], offsets, len(text)))
    if locators:
        _withhold(ledger, [start for start, _ in places])
    return ledger


def _withhold(ledger: dict[str, Any], line_starts: list[int]) -> None:
    """Withhold the version's text: spans by locator, no inline chunks."""
    del ledger["versions"][0]["text"]
    for span in ledger["spans"]:
        line = max(0, bisect.bisect_right(line_starts, span.pop("start")) - 1)
        del span["end"], span["quote"]
        span["locator"] = f"line {line}"
    for case in ledger["cases"]:
        case["retrieved"] = [item for item in case["retrieved"] if isinstance(item, str)]
        for output in case["outputs"]:
            output["cites"] = [item for item in output["cites"] if isinstance(item, str)]


def _case(
    rng: random.Random, i: int, members: list[int], offsets: list[tuple[int, int]], length: int
) -> dict[str, Any]:
    partial = rng.sample(members, rng.randint(1, len(members) - 1))
    covered = sorted(offsets[k] for k in rng.sample(members, min(2, len(members))))
    chunk = {
        "version": VERSION,
        "start": max(0, covered[0][0] - rng.randint(0, 40)),
        "end": min(length, max(e for _, e in covered) + rng.randint(0, 60)),
    }
    roll = rng.random()
    retrieved: list[Any] = []
    if roll < 0.45:
        retrieved += [f"s{k}" for k in members]
    elif roll < 0.8:
        retrieved += [f"s{k}" for k in partial]
    if roll >= 0.8 or rng.random() < 0.3:
        retrieved.append(chunk)
    # Distractors: other spans of the same version, anywhere in the text.
    retrieved += [f"s{k}" for k in rng.sample(range(len(offsets)), 2) if k not in members]
    roll = rng.random()
    if roll < 0.45:
        cites: list[Any] = [f"s{k}" for k in members]
    elif roll < 0.8:
        cites = [f"s{k}" for k in partial]
    elif roll < 0.9:
        cites = [chunk]
    else:
        # The widest span overlapping the first member: it may contain it, or not.
        first = offsets[members[0]]
        wider = max(
            (k for k, (s, e) in enumerate(offsets) if s < first[1] and first[0] < e),
            key=lambda k: offsets[k][1] - offsets[k][0],
        )
        cites = [f"s{wider}"]
    outputs = [
        {
            "id": f"run1/q{i}/o1",
            "text": f"Answer to q{i}.",
            "claim": f"c{i}",
            "correct": rng.random() < 0.85,
            "cites": cites,
        }
    ]
    if rng.random() < 0.05:
        outputs.append(
            {
                "id": f"run1/q{i}/o2",
                "text": "An extra assertion.",
                "claim": None,
                "correct": False,
                "cites": [f"s{members[0]}"],
            }
        )
    return {"run": "run1", "question": f"q{i}", "retrieved": retrieved, "outputs": outputs}


def _write_lines(ledger: dict[str, Any], path: Path) -> None:
    """Write a one-document ledger as JSON Lines (``docs/spec/ledger.md``)."""
    from hopgate.ingest.ledger import KINDS

    with path.open("w", encoding="utf-8") as out:
        out.write('{"type":"ledger","ledger":1}\n')
        for plural, kind in KINDS.items():
            for record in ledger.get(plural, []):
                out.write(json.dumps({"type": kind, **record}, ensure_ascii=False) + "\n")


@contextlib.contextmanager
def _coverage_update(path: Path | None) -> Iterator[None]:
    """Evaluate with the coverage update in ``path`` (None: the library's own)."""
    from hopgate.library import artefacts

    evaluation = importlib.import_module("hopgate.decide.evaluation")

    if path is None:
        yield
        return
    replaced = artefacts.parse_query(path.read_text("utf-8"), name=path.name)

    def patched(update_id: str) -> artefacts.LibraryQuery:
        if update_id == "evaluation-coverage":
            return replaced
        return artefacts.library_update(update_id)

    # hopgate.evaluate imported library_update by name: replace it there.
    original = vars(evaluation)["library_update"]
    vars(evaluation)["library_update"] = patched
    try:
        yield
    finally:
        vars(evaluation)["library_update"] = original


def _timed(store: Any, update: Path | None, model: list[dict[str, Any]]) -> dict[str, Any]:
    from hopgate.audit.results import verdicts
    from hopgate.decide.evaluation import evaluate

    with _coverage_update(update):
        started, cpu = time.perf_counter(), time.process_time()
        evaluate(store, force=True)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    rows = sorted(
        ({k: row.as_dict()[k] for k in _COMPARED} for row in verdicts(store)),
        key=lambda r: (r["run"], r["question"], r["output"]),
    )
    return {"seconds": round(seconds, 2), "cpu": round(cpu, 2), "agrees": rows == model}


def measure(spans: int, cases: int, *, baseline: bool, locators: bool) -> dict[str, Any]:
    """Load one ledger of ``spans`` spans and ``cases`` cases; time its evaluation(s)."""
    import hopgate
    from tests import spec_model

    ledger = coverage_ledger(spans, cases, locators=locators)
    model = [{k: row[k] for k in _COMPARED} for row in spec_model.verdict_rows(ledger)]
    with tempfile.TemporaryDirectory(prefix="hopgate-bench-") as scratch:
        # JSON Lines: a one-document ledger's load scans the whole document once
        # per record for escapes (hopgate.ingest.ledger._read_document), 53 s at 1,000 spans.
        path = Path(scratch) / "ledger.jsonl"
        _write_lines(ledger, path)
        store = hopgate.open_store(None)
        started = time.perf_counter()
        loaded = hopgate.load(store, path)
        load_seconds = time.perf_counter() - started
        current = _timed(store, None, model)
        before = _timed(store, QUADRATIC, model) if baseline else None
        store.close()
    row: dict[str, Any] = {
        "spans": spans,
        "cases": cases,
        "triples": loaded.triples,
        "load_s": round(load_seconds, 2),
        "evaluate_s": current["seconds"],
        "evaluate_cpu_s": current["cpu"],
        "agrees_with_model": current["agrees"],
    }
    if before is not None:
        row["quadratic_s"] = before["seconds"]
        row["quadratic_cpu_s"] = before["cpu"]
        row["quadratic_agrees"] = before["agrees"]
    return row


def main(argv: list[str] | None = None) -> int:
    """Run each size in its own subprocess and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,4000", help="spans in the one version")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also time the update of bench/coverage-quadratic.ru",
    )
    parser.add_argument(
        "--locators", action="store_true", help="a withheld text, spans addressed by locators"
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        figures = measure(args.one, args.cases, baseline=args.baseline, locators=args.locators)
        print(json.dumps(figures))
        return 0
    extra = ["--cases", str(args.cases)] + (["--baseline"] if args.baseline else [])
    extra += ["--locators"] if args.locators else []
    rows = []
    for _, row in measure_sizes(__file__, args.sizes, extra):
        assert row is not None  # no timeout given
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    columns = ["spans", "cases", "triples", "load_s", "evaluate_s", "evaluate_cpu_s"]
    columns += ["agrees_with_model"]
    if args.baseline:
        columns += ["quadratic_s", "quadratic_cpu_s", "quadratic_agrees"]
    print("| " + " | ".join(columns) + " | growth |")
    print("|" + "---|" * (len(columns) + 1))
    previous: dict[str, Any] | None = None
    for row in rows:
        growth = []
        if previous is not None:
            size = row["spans"] / previous["spans"]
            for key in ("evaluate_cpu_s", "quadratic_cpu_s"):
                if key in row and previous[key]:
                    name = key.removesuffix("_cpu_s")
                    growth.append(f"{name} {row[key] / previous[key]:.1f}x for {size:g}x")
        print("| " + " | ".join(str(row[c]) for c in columns) + f" | {'; '.join(growth)} |")
        previous = row
    return 0


if __name__ == "__main__":
    sys.exit(main())
