"""Property test: no output shows a reader a withheld word; the reader who may see it does.

Random ledgers from tests/ledger_strategies.py, made adversarial: every word
of every version text becomes a distinctive random token (same length, so
every offset still holds), more spans are narrowed to some readers, and the
texts other records carry (claims, questions, reference answers, outputs,
inferences, contradiction decisions, judgment reasons, titles, the corpus)
repeat a span's words or a whole version text. For every reader of the
ledger, every output (export in every format, with and without texts, card
pictures, report in HTML, Markdown and JSON, explain, verdicts, metrics,
diff, review queue and changes, query) is searched for the words the reader
may not see, by a plain model of docs/spec/records.md "What a reader is
shown" written here without hopgate; and query results are held to the
model both ways: a text holding no withheld text reads as written, one
holding one reads as the marker.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
from pathlib import Path
from typing import Any

from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hopgate
from hopgate.audit.withholding import MARKER, evaluation_reader
from hopgate.bundles.export import FORMATS, export_bundle
from hopgate.bundles.picture import card_dot
from hopgate.bundles.scope import resolve_scope
from hopgate.decide.evaluation import evaluate
from hopgate.report.build import build_report
from hopgate.report.explain import explain
from hopgate.report.pages import render
from hopgate.store.catalog import runs

try:
    from tests.conftest import write
    from tests.ledger_strategies import READERS, ledgers
except ImportError:  # run from inside tests/
    from conftest import write  # type: ignore[no-redef]
    from ledger_strategies import READERS, ledgers  # type: ignore[no-redef]

#: A fixed seed under CI (derandomize); random examples on a workstation.
IN_CI = os.environ.get("CI", "").lower() == "true"
#: Token letters: no z, q or digits, so "zq" starts a token and a digit ends it,
#: and no token is part of another.
LETTERS = "abcdefghijkmnoprstuvwxy"
_WORD = re.compile(r"[^ \n]+")


def _tokenize(text: str, rng: random.Random, seen: set[str]) -> str:
    """``text`` with each word a new distinctive token of the same length."""

    def token(match: re.Match[str]) -> str:
        size = len(match.group())
        while True:
            made = (
                "zq"
                + "".join(rng.choice(LETTERS) for _ in range(size - 3))
                + rng.choice("23456789")
            )
            if made not in seen:
                seen.add(made)
                return made

    return _WORD.sub(token, text)


def _exact(text: str, item: dict[str, Any], old: str) -> tuple[int, int]:
    if "start" in item:
        return item["start"], item["end"]
    at = old.index(item["quote"])
    return at, at + len(item["quote"])


@st.composite
def narrowed_ledgers(draw: st.DrawFn) -> tuple[dict[str, Any], list[tuple[str, ...]], str]:
    """A ledger of distinctive tokens, narrowed, whose records repeat spans and versions;
    where each repeat was put (a path of keys and indexes); an export format besides TriG."""
    ledger = copy.deepcopy(draw(ledgers()))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    seen: set[str] = set()
    versions = {v["id"]: v for v in ledger["versions"]}
    old = {vid: v["text"] for vid, v in versions.items() if "text" in v}
    for vid in old:
        versions[vid]["text"] = _tokenize(old[vid], rng, seen)

    def placed(item: dict[str, Any]) -> dict[str, Any]:
        # Offsets, so that a quote need not stay unique among the new tokens.
        start, end = _exact(versions[item["version"]]["text"], item, old[item["version"]])
        return {
            **{k: v for k, v in item.items() if k not in ("quote", "start", "end")},
            "start": start,
            "end": end,
        }

    # Every reader class of the strategy, so that each ledger has readers to withhold from.
    readers = list(READERS)
    ledger["readers"] = [{"id": r} for r in readers]
    for index, span in enumerate(ledger["spans"]):
        if "locator" in span:
            continue
        span = ledger["spans"][index] = placed(span)
        version = versions[span["version"]]
        pool = version.get("readers") or readers
        if version.get("readers") != [] and len(pool) > 1 and draw(st.booleans()):
            # Narrowed to some of its version's readers, never all; widened to whole
            # words, so that it holds at least one token wholly.
            chosen = st.lists(
                st.sampled_from(pool), min_size=1, max_size=len(pool) - 1, unique=True
            )
            span["readers"] = sorted(draw(chosen))
            text = version["text"]
            while span["start"] > 0 and text[span["start"] - 1] not in " \n":
                span["start"] -= 1
            while span["end"] < len(text) and text[span["end"]] not in " \n":
                span["end"] += 1
    for case in ledger["cases"]:
        case["retrieved"] = [i if isinstance(i, str) else placed(i) for i in case["retrieved"]]
        for output in case.get("outputs") or []:
            if "cites" in output:
                output["cites"] = [i if isinstance(i, str) else placed(i) for i in output["cites"]]

    sources = [
        versions[s["version"]]["text"][s["start"] : s["end"]]
        for s in ledger["spans"]
        if "locator" not in s
    ]
    sources += [v["text"] for v in versions.values() if "text" in v]
    fields: list[tuple[str, ...]] = [("evaluations", "0", "corpus"), ("sources", "0", "title")]
    for kind, names in (
        ("claims", ("text",)),
        ("questions", ("text", "answer")),
        ("evidence_sets", ("inference",)),
        ("contradictions", ("decision",)),
        ("judgments", ("reason",)),
    ):
        fields += [(kind, str(i), n) for i in range(len(ledger[kind])) for n in names]
    fields += [
        ("cases", str(c), "outputs", str(o), "text")
        for c, case in enumerate(ledger["cases"])
        for o in range(len(case.get("outputs") or []))
    ]
    repeated = []
    for path in fields:
        if not sources or not draw(st.booleans()):
            continue
        record: Any = ledger
        for key in path[:-1]:
            record = record[int(key)] if isinstance(record, list) else record[key]
        if path[0] == "contradictions" and "decision" not in record and draw(st.booleans()):
            continue
        record[path[-1]] = f"so {draw(st.sampled_from(sources))} indeed"
        repeated.append(path)
    return ledger, repeated, draw(st.sampled_from([f for f in FORMATS if f != "trig"]))


# --- the plain model of docs/spec/records.md "What a reader is shown" -----------------


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def _model(ledger: dict[str, Any], reader: str) -> tuple[set[str], list[str]]:
    """The words ``reader`` may see nowhere (tokens wholly inside a span whose readers or
    whose version's exclude it, every token of a version whose readers exclude it) and its
    withheld texts (those spans' quotes, the quotes overlapping a span narrowed by its own
    readers, the texts of versions excluded or holding a narrowed span)."""
    versions = {v["id"]: v for v in ledger["versions"]}

    def excludes(listed: list[str] | None) -> bool:
        return bool(listed) and reader not in (listed or [])

    placed: list[tuple[str, int, int, bool, bool]] = []  # version, start, end, own, any
    for span in ledger["spans"]:
        if "start" in span:
            version = versions[span["version"]]
            own = excludes(span.get("readers"))
            placed.append(
                (
                    span["version"],
                    span["start"],
                    span["end"],
                    own,
                    own or excludes(version.get("readers")),
                )
            )
    for case in ledger["cases"]:
        items = list(case.get("retrieved") or [])
        for output in case.get("outputs") or []:
            items += output.get("cites") or []
        for item in items:
            if isinstance(item, dict):
                excluded = excludes(versions[item["version"]].get("readers"))
                placed.append((item["version"], item["start"], item["end"], False, excluded))
    narrowed = [(v, s, e) for v, s, e, own, _ in placed if own]
    forbidden: set[str] = set()
    texts: list[str] = []
    for vid, start, end, _, excluded in placed:
        text = versions[vid]["text"]
        overlaps = any(v == vid and s < end and start < e for v, s, e in narrowed)
        if excluded or overlaps:
            texts.append(text[start:end])
        if excluded:
            forbidden.update(
                m.group() for m in _WORD.finditer(text) if start <= m.start() and m.end() <= end
            )
    for vid, version in versions.items():
        if "text" not in version:
            continue
        if excludes(version.get("readers")):
            forbidden.update(version["text"].split())
            texts.append(version["text"])
        elif any(v == vid for v, _, _ in narrowed):
            texts.append(version["text"])
    return forbidden, [_squash(t) for t in texts if t.strip()]


def _withheld(text: str, texts: list[str]) -> bool:
    return any(t in _squash(text) for t in texts)


# --- every output for one reader ------------------------------------------------------


def _outputs(store: Any, reader: str, other: str) -> list[tuple[str, str]]:
    """(name, text) of every output of the store for ``reader``; ``other`` is the export
    format drawn besides TriG (the formats share one filtered set of quads, and
    tests/test_reader_filter.py writes each)."""
    found: list[tuple[str, str]] = []
    for fmt, with_text in (("trig", False), ("trig", True), (other, True)):
        data = export_bundle(store, format=fmt, reader=reader, with_text=with_text).data
        found.append((f"export {fmt} {with_text}", data.decode("utf-8")))
    for run in runs(store):
        report = build_report(store, run=run, reader=reader, pictures=0)
        found += [(f"report {run} {fmt}", render(report, fmt)) for fmt in ("html", "md", "json")]
        for card in report.cards[:2]:
            scope = resolve_scope(store, card=card.row.output, reader=reader)
            found.append((f"picture {card.row.output}", card_dot(store, scope)))
            said = explain(store, card.row.output, run=run, reader=reader)
            found.append((f"explain {card.row.output}", json.dumps(said.as_dict())))
        found.append(
            (f"diff {run}", json.dumps(hopgate.diff(store, run=run, reader=reader).as_dict()))
        )
        changes = hopgate.review_changes(store, run=run, reader=reader)
        found.append((f"review changes {run}", json.dumps(changes.as_dict())))
        if reader == evaluation_reader(store, run):  # the gate is for the evaluation's reader
            gated = hopgate.gate(store, run=run)
            rows = [row.as_dict() for row in gated.failing]
            found.append((f"gate {run}", json.dumps([rows, gated.reasons, gated.reason])))
    rows = [r.as_dict() for r in hopgate.verdicts(store, reader=reader)]
    found.append(("verdicts", json.dumps(rows)))
    figures = {k: m.as_dict() for k, m in hopgate.metrics(store, reader=reader).items()}
    found.append(("metrics", json.dumps(figures)))
    queue = [i.as_dict() for i in hopgate.review_queue(store, reader=reader)]
    found.append(("review queue", json.dumps(queue)))
    judged = hopgate.review_judgments(store, final_only=False, reader=reader)
    found.append(("review judgments", json.dumps([(j.as_dict(), s.as_dict()) for j, s in judged])))
    every = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER (isLiteral(?o)) }"
    constructed = hopgate.query(store, every, reader=reader)
    assert isinstance(constructed, bytes)
    found.append(("query construct", constructed.decode("utf-8")))
    return found


def _literals(store: Any, reader: str | None) -> list[str]:
    rows = hopgate.query(
        store, "SELECT ?o WHERE { ?s ?p ?o FILTER (isLiteral(?o)) }", reader=reader
    )
    assert isinstance(rows, list)
    return [str(row["o"]) for row in rows]


@settings(
    max_examples=examples(8),
    deadline=None,
    derandomize=IN_CI,
    database=None if IN_CI else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(drawn=narrowed_ledgers())
def test_no_output_shows_a_reader_a_withheld_word(
    drawn: tuple[dict[str, Any], list[tuple[str, ...]], str], tmp_path: Path
) -> None:
    ledger, repeated, other = drawn
    path = write(tmp_path / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        if not runs(store):
            return
        evaluate(store)
        evaluate(store, force=True)  # a second evaluation, for diff and review changes
        for reader in (r["id"] for r in ledger["readers"]):
            forbidden, texts = _model(ledger, reader)
            for name, text in _outputs(store, reader, other):
                leaked = sorted(token for token in forbidden if token in text)
                assert not leaked, (reader, name, leaked)
            # Both ways, for every repeating record: withheld exactly when the model says.
            shown = _literals(store, reader)
            for place in repeated:
                record: Any = ledger
                for key in place:
                    record = record[int(key)] if isinstance(record, list) else record[key]
                if _withheld(record, texts):
                    assert record not in shown and MARKER in shown, (reader, place)
                else:
                    assert record in shown, (reader, place)
        # Without a reader, query reads the store as it is.
        every = _literals(store, None)
        assert MARKER not in every
