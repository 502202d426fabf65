"""Synthetic ledgers of any size, for benchmarks and tests.

:func:`write_ledger` streams a JSON Lines ledger (docs/spec/ledger.md) of N
claims to a file, one claim at a time, so 100k claims take bounded memory.
Per claim: one question requiring it, one source with one retained version
(a text of a few sentences, 300-680 code points, median 490), 1-3 alternative evidence
sets of 2-4 spans each, sometimes a contradiction, and per run one case whose
retrieval and cited output vary. Eligibility varies too: some versions are
observed after the evaluation's cutoff, restricted to a reader class,
invalidated, or effective only for an interval.

Everything is drawn from ``random.Random(seed)``: the same arguments give a
byte-identical file.

Usable as a module (``bench.synthetic`` from the repository root, or loaded
by path) and from the shell::

    python bench/synthetic.py 10000 ledger.jsonl [--seed 0] [--runs 1] [--parts 1]

``--parts N`` writes the same records as N ledgers (``ledger.part1.jsonl``
...), split between claims, the evaluation, readers and runs in the first:
loaded one after another they give the store one ledger gives (a later part's
records refer to the first part's, which the loader finds in the store). A
server that publishes a load in one transaction needs this for 1M claims
(bench/README.md "1M claims on Virtuoso, in parts").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

EVALUATION = "eval-synth"
CUTOFF = "2026-10-07T00:00:00Z"
EVALUATION_READER = "analyst"
READERS = ("analyst", "public", "partner")

_PROJECT_WORDS = (
    "Cedar", "Birch", "Alder", "Rowan", "Hazel", "Aspen", "Larch", "Maple", "Willow", "Elm",
    "Juniper", "Spruce", "Linden", "Poplar", "Sorbus", "Tilia",
)  # fmt: skip
_HOLDERS = (
    "Entity R", "Entity S", "Société Arnaud", "Nørdlys AS", "Kobe Trading", "Vendor V",
    "Ibérica Holdings", "Mercer & Sons", "Łódź Textiles", "Oakridge Partners",
)  # fmt: skip
_PLACES = ("Lyon", "Kraków", "Porto", "Tromsø", "Osaka", "Leeds", "Graz", "Turku")
_INTERFACES = ("Q", "K7", "Delta", "M2", "Lattice", "Pier")
_FILLERS = (
    "Section {n} of this export was reviewed on {date} without changes.",
    "Entry {n} carries no obligations beyond the standard terms.",
    "Note {n}: figures are reported as filed and are not audited.",
    "Item {n} was reconciled against the previous export by the registry clerk.",
    "Paragraph {n} lists contact details, which are withheld in this copy.",
    "Annex {n} repeats the definitions of the framework agreement.",
)


def _date(rng: random.Random, month: int, first: int, last: int) -> str:
    return f"2026-{month:02d}-{rng.randint(first, last):02d}"


def _moment(rng: random.Random, month: int, first: int, last: int) -> str:
    day = _date(rng, month, first, last)
    return f"{day}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"


def _status(rng: random.Random, first: bool) -> str:
    roll = rng.random()
    if first:
        return "adjudicated" if roll < 0.9 else "proposed"
    if roll < 0.75:
        return "adjudicated"
    return "proposed" if roll < 0.9 else "rejected"


def _claim_facts(rng: random.Random, i: int) -> tuple[str, str, str, list[str]]:
    """Claim text, question text, reference answer and the hop sentences (evidence pool)."""
    project = f"Project {rng.choice(_PROJECT_WORDS)}-{i}"
    record = f"R{i}"
    kind = rng.randrange(4)
    if kind == 0:
        holder = rng.choice(_HOLDERS)
        claim = f"{holder} holds the rights to {project}."
        question = f"Who holds the rights to {project}?"
        answer = holder
        final = f"Record {record}-1: the rights are held by {holder}."
    elif kind == 1:
        interface = rng.choice(_INTERFACES)
        holder = rng.choice(_HOLDERS)
        claim = f"{holder} supplies interface {interface} of {project}."
        question = f"Who supplies the interface of {project}?"
        answer = holder
        final = f"Interface {interface} of record {record}-1 is supplied by {holder}."
    elif kind == 2:
        year = str(rng.randint(2027, 2031))
        claim = f"The licence of {project} renews in {year}."
        question = f"When does the licence of {project} renew?"
        answer = year
        final = f"Licence record {record}-1 renews in {year}."
    else:
        place = rng.choice(_PLACES)
        claim = f"{project} is operated from {place}."
        question = f"Where is {project} operated from?"
        answer = place
        final = f"Site record {record}-1 places operations in {place}."
    pool = [f"{project} is mapped to record {record}-0.", final]
    extra = (
        "Record {r}-{j} confirms the mapping of record {r}-0 to {p}.",
        "Record {r}-{j} was cross-checked against record {r}-1 by the registry.",
        "Record {r}-{j} states that record {r}-1 is current for {p}.",
        "Record {r}-{j} links {p} to the schedule entry of record {r}-1.",
    )
    for j in range(2, 6):
        pool.append(rng.choice(extra).format(r=record, j=j, p=project))
    return claim, question, answer, pool


def _version_record(rng: random.Random, i: int, text: str) -> dict[str, Any]:
    version: dict[str, Any] = {
        "type": "version",
        "id": f"src{i}@1",
        "source": f"src{i}",
        "text": text,
    }
    if rng.random() < 0.3:
        version["digest"] = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    if rng.random() < 0.3:
        version["media_type"] = "text/plain"
    # Observed after the cutoff (Oct 8-20) for about one version in ten.
    if rng.random() < 0.1:
        version["observed_at"] = _moment(rng, 10, 8, 20)
    else:
        version["observed_at"] = _moment(rng, 9, 1, 30)
    version["fetched_by"] = f"crawler-{rng.randint(1, 3)}"
    if rng.random() < 0.5:
        version["published_at"] = _date(rng, 8, 1, 31)
    roll = rng.random()
    if roll < 0.08:
        version["effective"] = {"from": "2026-01-01", "until": None}
    elif roll < 0.13:
        version["effective"] = {"from": "2025-01-01", "until": _date(rng, 9, 1, 30)}
    elif roll < 0.16:
        version["effective"] = {"from": _date(rng, 10, 10, 31), "until": "2027-01-01"}
    roll = rng.random()
    if roll < 0.03:
        version["invalidated_at"] = _moment(rng, 10, 1, 6)  # before the cutoff
    elif roll < 0.05:
        version["invalidated_at"] = _moment(rng, 10, 10, 30)  # after it
    roll = rng.random()
    if roll < 0.07:
        version["readers"] = ["analyst"]
    elif roll < 0.12:
        version["readers"] = ["partner"]
    elif roll < 0.15:
        version["readers"] = ["analyst", "partner"]
    return version


def _claim_lines(
    rng: random.Random, i: int, runs: int, counts: Counter[str]
) -> list[dict[str, Any]]:
    """Every record of claim ``i`` (its source, version, spans, sets, cases...)."""
    claim_text, question_text, answer, pool = _claim_facts(rng, i)
    sizes = [rng.randint(2, 4) for _ in range(rng.choices((1, 2, 3), (50, 35, 15))[0])]
    pool = pool[: max(sizes) + rng.randint(0, 2)]
    has_contradiction = rng.random() < 0.04
    conflict = (
        f"An older export maps record R{i}-1 to a different holder." if has_contradiction else ""
    )

    # The text: a header, the hop sentences and fillers in random order, at least 300-600
    # code points (the hop sentences alone may make it longer).
    target = rng.randint(300, 600)
    header = f"Registry export src{i}, {_date(rng, 9, 1, 30)}."
    body = list(pool) + ([conflict] if conflict else [])
    filler_number = 0
    while len(header) + sum(len(s) + 1 for s in body) < target:
        filler_number += 1
        body.append(
            rng.choice(_FILLERS).format(n=f"{i}.{filler_number}", date=_date(rng, 9, 1, 30))
        )
    rng.shuffle(body)
    parts = [header]
    places: dict[str, tuple[int, int]] = {}
    offset = len(header)
    for sentence in body:
        separator = "\n" if rng.random() < 0.2 else " "
        parts.append(separator)
        offset += 1
        places[sentence] = (offset, offset + len(sentence))
        parts.append(sentence)
        offset += len(sentence)
    parts.append("\n")
    text = "".join(parts)

    version = _version_record(rng, i, text)
    vid = version["id"]
    version_readers = version.get("readers")
    records: list[dict[str, Any]] = [
        {
            "type": "source",
            "id": f"src{i}",
            "address": f"https://example.org/registry/{i}",
            **({"title": f"Registry export {i}"} if rng.random() < 0.5 else {}),
        },
        version,
    ]

    # Evidence sets over the pool; one span record per pool sentence used.
    sets = [rng.sample(range(len(pool)), size) for size in sizes]
    used = sorted({j for members in sets for j in members})
    span_place: dict[int, tuple[int, int]] = {}
    for j in used:
        sentence = pool[j]
        start, end = places[sentence]
        if rng.random() < 0.2:
            end -= 1  # without the full stop: a sub-sentence span
        span: dict[str, Any] = {"type": "span", "id": f"c{i}-a{j}", "version": vid}
        if rng.random() < 0.15 and text.count(text[start:end]) == 1:
            span["quote"] = text[start:end]  # anchored by quote alone
        else:
            span.update(start=start, end=end, quote=text[start:end])
        if rng.random() < 0.04 and (version_readers is None or "analyst" in version_readers):
            span["readers"] = ["analyst"]  # narrows (or equals) the version's readers
        span_place[j] = (start, end)
        records.append(span)

    claim: dict[str, Any] = {"type": "claim", "id": f"c{i}", "text": claim_text}
    if rng.random() < 0.4:
        claim["applies_at"] = _date(rng, 10, 1, 6)
    if rng.random() < 0.3:
        claim["consequential"] = True
    records.append(claim)
    records.append(
        {
            "type": "question",
            "id": f"q{i}",
            "text": question_text,
            "answer": answer,
            "claims": [f"c{i}"],
        }
    )
    set_ids = []
    for number, members in enumerate(sets):
        set_id = f"c{i}-g{number}"
        set_ids.append(set_id)
        refs = " and ".join(f"R{i}-{j}" for j in sorted(members))
        records.append(
            {
                "type": "evidence_set",
                "id": set_id,
                "claim": f"c{i}",
                "members": [f"c{i}-a{j}" for j in members],
                "inference": f"identity join on records {refs}",
                "status": _status(rng, number == 0),
                "annotation": {
                    "version": 1 if rng.random() < 0.85 else 2,
                    "by": f"annotator-{rng.randint(1, 5)}",
                    "at": _date(rng, 10, 1, 5),
                },
            }
        )
    if has_contradiction:
        start, end = places[conflict]
        records.append(
            {
                "type": "span",
                "id": f"c{i}-k",
                "version": vid,
                "start": start,
                "end": end,
                "quote": conflict,
            }
        )
        contradiction: dict[str, Any] = {
            "type": "contradiction",
            "id": f"c{i}-x",
            "claim": f"c{i}",
            "span": f"c{i}-k",
        }
        if rng.random() < 0.6:
            contradiction["status"] = "resolved"
            contradiction["decision"] = f"superseded by {vid}"
        else:
            contradiction["status"] = "unresolved"
        records.append(contradiction)

    inline_seen: set[tuple[int, int]] = set()
    for run in range(runs):
        records.append(_case(rng, i, run, vid, len(text), sets, span_place, inline_seen, counts))
    counts["inline span"] += len(inline_seen)
    return records


def _case(
    rng: random.Random,
    i: int,
    run: int,
    vid: str,
    length: int,
    sets: list[list[int]],
    span_place: dict[int, tuple[int, int]],
    inline_seen: set[tuple[int, int]],
    counts: Counter[str],
) -> dict[str, Any]:
    run_id = f"run{run}"
    case: dict[str, Any] = {"type": "case", "run": run_id, "question": f"q{i}"}
    target = rng.randrange(len(sets))
    members = sets[target]
    partial = rng.sample(members, rng.randint(1, len(members) - 1))
    roll = rng.random()
    retrieved: list[Any] = []
    if roll < 0.45:
        retrieved += [f"c{i}-a{j}" for j in members]  # a complete set
    elif roll < 0.8:
        retrieved += [f"c{i}-a{j}" for j in partial]  # a partial set
    chunk = None
    if roll >= 0.8 or rng.random() < 0.3:
        # A wider chunk covering one or two member spans, delivered inline.
        covered = sorted(span_place[j] for j in rng.sample(members, min(2, len(members))))
        start = max(0, covered[0][0] - rng.randint(0, 40))
        end = min(length, covered[-1][1] + rng.randint(0, 60))
        chunk = {"version": vid, "start": start, "end": end}
        inline_seen.add((start, end))
        retrieved.append(chunk)
    if len(sets) > 1 and rng.random() < 0.3:
        other = sets[(target + 1) % len(sets)]
        retrieved.append(f"c{i}-a{rng.choice(other)}")  # a span of another set
    rng.shuffle(retrieved)
    seen: set[str] = set()
    case["retrieved"] = []
    for item in retrieved:  # a span of another set may also be in the target set
        key = item if isinstance(item, str) else f"{item['start']}:{item['end']}"
        if key not in seen:
            seen.add(key)
            case["retrieved"].append(item)

    if rng.random() < 0.06:
        case["abstained"] = True
        case["outputs"] = []
        return case
    if rng.random() < 0.5:
        case["abstained"] = False
    roll = rng.random()
    if roll < 0.45:
        cites: list[Any] = [f"c{i}-a{j}" for j in members]
        correct = rng.random() < 0.9
    elif roll < 0.85:
        cites = [f"c{i}-a{j}" for j in partial]
        correct = rng.random() < 0.7
    elif chunk is not None:
        cites = [chunk]
        correct = rng.random() < 0.6
    else:
        cites = []
        correct = rng.random() < 0.4
    outputs: list[dict[str, Any]] = [
        {
            "id": f"{run_id}/q{i}/o1",
            "text": f"Answer to q{i}, {'as' if correct else 'unlike'} the reference.",
            "claim": f"c{i}",
            "correct": correct,
            "cites": cites,
        }
    ]
    if rng.random() < 0.1:
        outputs.append(
            {
                "id": f"{run_id}/q{i}/o2",
                "text": f"An extra assertion about record R{i}-1.",
                "claim": None,
                "correct": rng.random() < 0.3,
                "cites": [f"c{i}-a{rng.choice(members)}"] if rng.random() < 0.5 else [],
            }
        )
    counts["output"] += len(outputs)
    case["outputs"] = outputs
    return case


def part_paths(path: Path, parts: int) -> list[Path]:
    """The files :func:`write_ledger` writes with ``parts``: ``path`` itself for one part,
    else ``NAME.part1.jsonl`` ... beside it."""
    path = Path(path)
    if parts == 1:
        return [path]
    return [path.with_name(f"{path.stem}.part{k}{path.suffix}") for k in range(1, parts + 1)]


def write_ledger(
    path: Path, claims: int, *, seed: int = 0, runs: int = 1, parts: int = 1
) -> dict[str, int]:
    """Stream a JSON Lines ledger of ``claims`` claims to ``path``; return counts by kind.

    The counts use the keys of ``hopgate.load``'s ``LoadResult.records``: one per
    record kind written, plus ``"output"`` (output claims inside cases) and
    ``"inline span"`` (distinct inline spans delivered by cases). Only records
    and lines of one claim are held in memory at a time. ``parts`` splits the
    records between claims into that many files (:func:`part_paths`), each with
    the ledger header; the records are those of one file, in the same order.
    """
    if claims < 1 or runs < 1:
        raise ValueError("expected at least one claim and one run")
    if not 1 <= parts <= claims:
        raise ValueError("expected between one part and one part per claim")
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    head: list[dict[str, Any]] = [
        {
            "type": "evaluation",
            "id": EVALUATION,
            "reader": EVALUATION_READER,
            "observation_cutoff": CUTOFF,
            "corpus": f"Synthetic registry exports, {claims} sources, seed {seed}",
            "policy": {"coverage": "containment"},
        },
        *({"type": "reader", "id": reader} for reader in READERS),
        *(
            {
                "type": "run",
                "id": f"run{run}",
                "evaluation": EVALUATION,
                "system": f"rag-synth-{run}",
                "started_at": f"2026-10-05T{9 + run % 10:02d}:00:00Z",
            }
            for run in range(runs)
        ),
    ]
    # Part k holds claims first[k-1] .. first[k]-1: the claims shared out evenly.
    first = [1 + claims * k // parts for k in range(parts + 1)]
    for k, part in enumerate(part_paths(path, parts)):
        with part.open("w", encoding="utf-8", newline="\n") as out:
            out.write('{"type":"ledger","ledger":1}\n')
            for record in head if k == 0 else ():
                counts[record["type"]] += 1
                out.write(dumps(record) + "\n")
            for i in range(first[k], first[k + 1]):
                records = _claim_lines(rng, i, runs, counts)
                for record in records:
                    counts[record["type"]] += 1
                out.write("".join(dumps(record) + "\n" for record in records))
    return dict(counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write a synthetic JSON Lines ledger.")
    parser.add_argument("claims", type=int, help="number of claims (one question each)")
    parser.add_argument("out", type=Path, help="the .jsonl file to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1, help="system runs (one case per question)")
    parser.add_argument(
        "--parts", type=int, default=1, help="write the records as this many ledgers, in order"
    )
    args = parser.parse_args(argv)
    counts = write_ledger(args.out, args.claims, seed=args.seed, runs=args.runs, parts=args.parts)
    print(json.dumps(counts, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
