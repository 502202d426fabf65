"""The ledger reader (hopgate.ingest.ledger): bad ledgers are rejected with a message naming file, record, field and what was expected.

Every case starts from the fixture's minimal valid ledger, breaks one thing,
and loads it in each spelling (YAML and JSON documents, JSON Lines). The error
must name the file, the record (``versions[0]`` or ``line N``), the field and
the expectation, and the store must stay empty (nothing of that load is kept).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CEDAR

import hopgate
from hopgate import ids
from hopgate.vocab import HG

Ledger = dict[str, Any]
Mutator = Callable[[Ledger], None]
FORMATS = ("yaml", "json", "jsonl")
ZEROS = "sha256:" + "0" * 64
WITHHELD = {"id": "private@1", "source": "registry", "observed_at": "2026-10-01"}


# ---- mutators ----------------------------------------------------------------


def setf(plural: str, index: int, key: str, value: Any) -> Mutator:
    """Set ``ledger[plural][index][key]`` (a dotted key reaches into nested mappings)."""

    def mutate(ledger: Ledger) -> None:
        target = ledger[plural][index]
        *path, last = key.split(".")
        for part in path:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value

    return mutate


def delf(plural: str, index: int, key: str) -> Mutator:
    """Delete ``ledger[plural][index][key]`` (dotted for nested mappings)."""

    def mutate(ledger: Ledger) -> None:
        target = ledger[plural][index]
        *path, last = key.split(".")
        for part in path:
            target = target[int(part)] if part.isdigit() else target[part]
        del target[last]

    return mutate


def append(plural: str, record: Ledger) -> Mutator:
    """Append ``record`` to ``ledger[plural]`` (created when absent)."""

    def mutate(ledger: Ledger) -> None:
        ledger.setdefault(plural, []).append(json.loads(json.dumps(record)))

    return mutate


def replace(plural: str, index: int, record: Ledger) -> Mutator:
    """Replace ``ledger[plural][index]`` by ``record``."""

    def mutate(ledger: Ledger) -> None:
        ledger[plural][index] = json.loads(json.dumps(record))

    return mutate


def both(*mutators: Mutator) -> Mutator:
    """Apply several mutators in order."""

    def mutate(ledger: Ledger) -> None:
        for mutator in mutators:
            mutator(ledger)

    return mutate


def duplicate_case(ledger: Ledger) -> None:
    """A second case for the same run and question (its output id differs)."""
    case = json.loads(json.dumps(ledger["cases"][0]))
    case["outputs"][0]["id"] = "sys-a/q1/o2"
    ledger["cases"].append(case)


def duplicate_output(ledger: Ledger) -> None:
    """A second output with the first one's id, in the same case."""
    outputs = ledger["cases"][0]["outputs"]
    outputs.append({**outputs[0], "text": "Another answer."})


# ---- the error table -----------------------------------------------------------------

# (mutation, record kind, record index, field, expected phrase); one per check.
ERRORS = [
    # -- the list of docs/spec/ledger.md "Errors" --
    pytest.param(
        setf("evidence_sets", 0, "claim", "nope"),
        "evidence_sets", 0, "claim", "unknown claim id 'nope'",
        id="unknown-ref-claim",
    ),
    pytest.param(
        setf("spans", 0, "version", "registry@9"),
        "spans", 0, "version", "unknown version id 'registry@9'",
        id="unknown-ref-span-version",
    ),
    pytest.param(
        setf("evidence_sets", 0, "members", ["a1", "zz"]),
        "evidence_sets", 0, "members", "unknown span id 'zz'",
        id="unknown-ref-member",
    ),
    pytest.param(
        setf("questions", 0, "claims", ["c1", "c9"]),
        "questions", 0, "claims", "unknown claim id 'c9'",
        id="unknown-ref-question-claim",
    ),
    pytest.param(
        setf("runs", 0, "evaluation", "eval-nov"),
        "runs", 0, "evaluation", "unknown evaluation id 'eval-nov'",
        id="unknown-ref-run-evaluation",
    ),
    pytest.param(
        setf("evaluations", 0, "reader", "nobody"),
        "evaluations", 0, "reader", "unknown reader id 'nobody'",
        id="unknown-ref-evaluation-reader",
    ),
    pytest.param(
        setf("versions", 0, "source", "elsewhere"),
        "versions", 0, "source", "unknown source id 'elsewhere'",
        id="unknown-ref-version-source",
    ),
    pytest.param(
        setf("versions", 0, "revision_of", "registry@0"),
        "versions", 0, "revision_of", "unknown version id 'registry@0'",
        id="unknown-ref-revision-of",
    ),
    pytest.param(
        setf("spans", 0, "readers", ["ghost"]),
        "spans", 0, "readers", "unknown reader id 'ghost'",
        id="unknown-ref-span-reader",
    ),
    pytest.param(
        setf("cases", 0, "run", "sys-z"),
        "cases", 0, "run", "unknown run id 'sys-z'",
        id="unknown-ref-case-run",
    ),
    pytest.param(
        setf("cases", 0, "question", "q9"),
        "cases", 0, "question", "unknown question id 'q9'",
        id="unknown-ref-case-question",
    ),
    pytest.param(
        setf("cases", 0, "retrieved", ["a1", "zz"]),
        "cases", 0, "retrieved[1]", "unknown span id 'zz'",
        id="unknown-ref-retrieved",
    ),
    pytest.param(
        setf("cases", 0, "outputs.0.cites", ["a2", "zz"]),
        "cases", 0, "outputs[0].cites[1]", "unknown span id 'zz'",
        id="unknown-ref-cites",
    ),
    pytest.param(
        setf("cases", 0, "outputs.0.claim", "c9"),
        "cases", 0, "outputs[0].claim", "unknown claim id 'c9'",
        id="unknown-ref-output-claim",
    ),
    pytest.param(
        append("judgments", {"id": "j1", "subject": "g9", "by": "rev", "decision": "ok"}),
        "judgments", 0, "subject", "unknown subject 'g9'",
        id="unknown-ref-judgment-subject",
    ),
    pytest.param(
        append("spans", {"id": "a1", "version": "registry@1", "quote": "Zürich"}),
        "spans", 2, "id", "duplicate span id",
        id="duplicate-span-id",
    ),
    pytest.param(
        append("claims", {"id": "c1", "text": "Another claim."}),
        "claims", 1, "id", "duplicate claim id",
        id="duplicate-claim-id",
    ),
    pytest.param(
        setf("versions", 0, "digest", ZEROS),
        "versions", 0, "digest", "digest does not match the bytes",
        id="digest-mismatch",
    ),
    pytest.param(
        both(setf("spans", 0, "start", 0), setf("spans", 0, "end", 37)),
        "spans", 0, "quote", "quote is not at its offsets",
        id="quote-not-at-offsets",
    ),
    pytest.param(
        setf("spans", 0, "quote", "Project Birch"),
        "spans", 0, "quote", "quote not found",
        id="quote-not-found",
    ),
    pytest.param(
        setf("spans", 0, "quote", "R17"),
        "spans", 0, "quote", "quote occurs 2 times",
        id="quote-ambiguous",
    ),
    pytest.param(
        both(setf("spans", 0, "quote", "R17"), setf("spans", 0, "prefix", "Birch ")),
        "spans", 0, "quote", "not found in the version's text with that prefix",
        id="quote-prefix-matches-nothing",
    ),
    pytest.param(
        both(setf("spans", 1, "start", 80), setf("spans", 1, "end", 200)),
        "spans", 1, "end", "offsets outside the text",
        id="offsets-outside-text",
    ),
    pytest.param(
        setf("spans", 1, "end", 56),
        "spans", 1, "end", "expected end > start",
        id="end-equals-start",
    ),
    pytest.param(
        both(setf("spans", 1, "start", 60), setf("spans", 1, "end", 50)),
        "spans", 1, "end", "expected end > start",
        id="end-before-start",
    ),
    pytest.param(
        both(
            append("readers", {"id": "public"}),
            setf("versions", 0, "readers", ["analyst"]),
            setf("spans", 0, "readers", ["analyst", "public"]),
        ),
        "spans", 0, "readers", "widen the version's readers",
        id="span-readers-widen",
    ),
    pytest.param(
        setf("evidence_sets", 0, "members", []),
        "evidence_sets", 0, "members", "at least 1 item",
        id="evidence-set-no-members",
    ),
    pytest.param(
        setf("evidence_sets", 0, "status", "approved"),
        "evidence_sets", 0, "status", 'one of "adjudicated", "proposed", "rejected"',
        id="unknown-set-status",
    ),
    pytest.param(
        append("contradictions", {"id": "k1", "claim": "c1", "span": "a1", "status": "open"}),
        "contradictions", 0, "status", 'one of "resolved", "unresolved"',
        id="unknown-contradiction-status",
    ),
    pytest.param(
        setf("versions", 0, "observed_at", "yesterday"),
        "versions", 0, "observed_at", "expected an ISO 8601 date or date-time",
        id="time-observed-at",
    ),
    pytest.param(
        setf("evidence_sets", 0, "annotation.at", "2026-13-01"),
        "evidence_sets", 0, "annotation.at", "expected an ISO 8601 date or date-time",
        id="time-annotation-at",
    ),
    pytest.param(
        setf("versions", 0, "effective", {"from": "soon"}),
        "versions", 0, "effective.from", "expected an ISO 8601 date or date-time",
        id="time-effective-from",
    ),
    pytest.param(
        setf("runs", 0, "started_at", "5 Oct 2026"),
        "runs", 0, "started_at", "expected an ISO 8601 date or date-time",
        id="time-started-at",
    ),
    pytest.param(
        setf("evaluations", 0, "observation_cutoff", "2026-02-30"),
        "evaluations", 0, "observation_cutoff", "expected an ISO 8601 date or date-time",
        id="time-impossible-date",
    ),
    # -- further checks --
    pytest.param(
        setf("versions", 0, "colour", "red"),
        "versions", 0, "colour", "unknown field",
        id="unknown-field",
    ),
    pytest.param(
        setf("evidence_sets", 0, "annotation.note", "x"),
        "evidence_sets", 0, "annotation.note", "unknown field (allowed: at, by, version)",
        id="unknown-nested-field",
    ),
    pytest.param(
        setf("evidence_sets", 0, "annotation.x-note", "x"),
        "evidence_sets", 0, "annotation.x-note", "unknown field (allowed: at, by, version)",
        id="x-field-where-schema-allows-none",
    ),
    pytest.param(
        setf("cases", 0, "outputs.0.score", 0.5),
        "cases", 0, "outputs[0].score", "unknown field",
        id="unknown-output-field",
    ),
    pytest.param(
        delf("versions", 0, "observed_at"),
        "versions", 0, "observed_at", "required field is missing",
        id="missing-required-field",
    ),
    pytest.param(
        delf("cases", 0, "outputs.0.correct"),
        "cases", 0, "outputs[0].correct", "required field is missing",
        id="missing-required-output-field",
    ),
    pytest.param(
        setf("versions", 0, "digest", "sha256:ABC"),
        "versions", 0, "digest", "sha256: then 64 lowercase hex digits",
        id="bad-digest-pattern",
    ),
    pytest.param(
        setf("versions", 0, "digest", "sha256:" + "AB" * 32),
        "versions", 0, "digest", "sha256: then 64 lowercase hex digits",
        id="bad-digest-uppercase",
    ),
    pytest.param(
        setf("claims", 0, "consequential", "yes"),
        "claims", 0, "consequential", "expected a value of type boolean",
        id="wrong-type",
    ),
    pytest.param(
        setf("claims", 0, "id", ""),
        "claims", 0, "id", "a non-empty string",
        id="empty-id",
    ),
    pytest.param(
        duplicate_case,
        "cases", 1, "question", "duplicate case for run 'sys-a' and question 'q1'",
        id="duplicate-case",
    ),
    pytest.param(
        duplicate_output,
        "cases", 0, "id", "duplicate output id",
        id="duplicate-output-id",
    ),
    pytest.param(
        append("contradictions", {"id": "k1", "claim": "c1", "span": "a1", "status": "resolved"}),
        "contradictions", 0, "decision", "a resolved contradiction needs its decision",
        id="resolved-contradiction-without-decision",
    ),
    pytest.param(
        replace("spans", 0, {"id": "a1", "version": "registry@1", "locator": "line 1"}),
        "spans", 0, "locator", "retains its text",
        id="locator-on-retained-version",
    ),
    pytest.param(
        both(
            append("versions", WITHHELD),
            replace("spans", 1, {"id": "a2", "version": "private@1", "start": 0, "end": 5}),
        ),
        "spans", 1, "locator", "withholds its text: address the span by locator",
        id="offsets-on-withheld-version",
    ),
    pytest.param(
        both(
            append("versions", WITHHELD),
            replace("spans", 1, {"id": "a2", "version": "private@1", "quote": "Zürich"}),
        ),
        "spans", 1, "locator", "withholds its text: address the span by locator",
        id="quote-on-withheld-version",
    ),
    pytest.param(
        both(
            append("versions", WITHHELD),
            replace(
                "spans", 1, {"id": "a2", "version": "private@1", "locator": "l 3", "start": 0}
            ),
        ),
        "spans", 1, "start", "give a locator or offsets/quote, not both",
        id="locator-and-offsets",
    ),
    pytest.param(
        setf("spans", 0, "start", 17),
        "spans", 0, "end", "expected both start and end",
        id="start-without-end",
    ),
    pytest.param(
        delf("spans", 1, "start"),
        "spans", 1, "start", "expected both start and end",
        id="end-without-start",
    ),
    pytest.param(
        delf("spans", 0, "quote"),
        "spans", 0, "quote", "expected start and end, a quote, or a locator",
        id="span-without-position",
    ),
    pytest.param(
        setf("cases", 0, "retrieved", ["a1", {"version": "registry@1", "quote": "nowhere"}]),
        "cases", 0, "retrieved[1].quote", "quote not found",
        id="inline-quote-not-found",
    ),
    pytest.param(
        setf("cases", 0, "outputs.0.cites", [{"version": "registry@1", "quote": "R17"}]),
        "cases", 0, "outputs[0].cites[0].quote", "quote occurs 2 times",
        id="inline-quote-ambiguous",
    ),
    pytest.param(
        setf("cases", 0, "retrieved", [{"version": "registry@1", "start": 80, "end": 99}]),
        "cases", 0, "retrieved[0].end", "offsets outside the text",
        id="inline-offsets-outside-text",
    ),
    pytest.param(
        setf("cases", 0, "retrieved", [{"version": "registry@9", "quote": "Zürich"}]),
        "cases", 0, "retrieved[0].version", "unknown version id 'registry@9'",
        id="inline-unknown-version",
    ),
    pytest.param(
        setf("cases", 0, "retrieved", ["a1", {"version": "registry@1", "start": 3}]),
        "cases", 0, "retrieved[1]", "{version, start, end} or {version, quote}",
        id="inline-start-without-end",
    ),
    pytest.param(
        both(
            append("versions", WITHHELD),
            setf("cases", 0, "retrieved", [{"version": "private@1", "start": 0, "end": 3}]),
        ),
        "cases", 0, "retrieved[0]", "withholds its text: deliver its spans by id",
        id="inline-on-withheld-version",
    ),
    pytest.param(
        setf("versions", 0, "file", "registry.txt"),
        "versions", 0, "file", "give text or file, not both",
        id="text-and-file",
    ),
    pytest.param(
        both(delf("versions", 0, "text"), setf("versions", 0, "file", "missing.txt")),
        "versions", 0, "file", "cannot read the version's file",
        id="file-missing",
    ),
    pytest.param(
        setf("evidence_sets", 0, "members", ["a1", "a1"]),
        "evidence_sets", 0, "members", "member 'a1' is listed twice",
        id="member-twice",
    ),
    pytest.param(
        setf("versions", 0, "effective", {"from": "2026-06-01", "until": "2026-01-01"}),
        "versions", 0, "effective.until", "expected effective.from before effective.until",
        id="effective-backwards",
    ),
    pytest.param(
        both(
            append(
                "contradictions", {"id": "g1", "claim": "c1", "span": "a1", "status": "unresolved"}
            ),
            append("judgments", {"id": "j1", "subject": "g1", "by": "rev", "decision": "ok"}),
        ),
        "judgments", 0, "subject", "names more than one of evidence set, output, contradiction",
        id="judgment-subject-ambiguous",
    ),
]  # fmt: skip


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("mutate", "plural", "index", "field", "phrase"), ERRORS)
def test_bad_record_is_rejected_naming_file_record_field(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    locate: Callable[[Ledger, str, int, str], str],
    store: hopgate.Store,
    fmt: str,
    mutate: Mutator,
    plural: str,
    index: int,
    field: str,
    phrase: str,
) -> None:
    ledger = minimal_ledger()
    mutate(ledger)
    path = write_ledger(ledger, fmt)
    record = locate(ledger, plural, index, fmt)

    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)

    message = str(caught.value)
    assert str(path) in message
    assert f"{record}:" in message or f"{record} " in message or f"{record}." in message
    assert f"field '{field}'" in message
    assert phrase in message
    assert caught.value.file == str(path)
    assert caught.value.field == field
    assert caught.value.record is not None and caught.value.record.startswith(record)
    assert store.count() == 0, "nothing of a failed load may be kept"


# ---- JSON Lines only -----------------------------------------------------------------

JSONL_ERRORS = [
    # (lines after the header, bad line number, field or None, phrase)
    pytest.param(
        ['{"type": "reader", "id": "r1"}', '{"type": "reader", "id": '],
        3, None, "not valid JSON",
        id="bad-json-line",
    ),
    pytest.param(
        ['{"type": "reader", "id": "r1"}', "[1, 2]"],
        3, None, "expected a JSON object",
        id="json-array-line",
    ),
    pytest.param(
        ['{"type": "reader", "id": "r1"}', '{"type": "ledger", "ledger": 1}'],
        3, "type", "the ledger header must be the first line",
        id="header-not-first",
    ),
    pytest.param(
        ['{"type": "reader", "id": "r1"}', '{"type": "widget", "id": "w1"}'],
        3, "type", "expected one of case, claim, contradiction",
        id="unknown-record-type",
    ),
    pytest.param(
        ['{"type": "readers", "id": "r1"}'],
        2, "type", "got 'readers'",
        id="plural-record-type",
    ),
    pytest.param(
        ['{"id": "r1"}'],
        2, "type", "expected one of",
        id="missing-record-type",
    ),
    pytest.param(
        ['{"type": "reader", "id": "r1", "colour": "red"}'],
        2, "colour", "unknown field",
        id="unknown-field",
    ),
    pytest.param(
        ['{"type": "claim", "id": "c0", "text": "a pair \\ud83d\\ude00 is fine"}',
         '{"type": "claim", "id": "c1", "text": "lone \\udc00"}'],
        3, "text", "expected Unicode text, got a lone surrogate",
        id="lone-surrogate",
    ),
    pytest.param(
        ['{"type": "reader", "id": "r\\ud800"}'],
        2, "id", "lone surrogate",
        id="lone-surrogate-in-id",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "number", "field", "phrase"), JSONL_ERRORS)
def test_bad_jsonl_line_is_rejected_naming_its_line(
    tmp_path: Path,
    store: hopgate.Store,
    lines: list[str],
    number: int,
    field: str | None,
    phrase: str,
) -> None:
    path = tmp_path / "bad.jsonl"
    header = '{"type": "ledger", "ledger": 1}'
    # blank lines are skipped but still counted
    path.write_text("\n".join([header, *lines]) + "\n\n", encoding="utf-8")

    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)

    message = str(caught.value)
    assert str(path) in message
    assert f"line {number}" in message
    assert caught.value.record == f"line {number}"
    if field is not None:
        assert f"field '{field}'" in message
        assert caught.value.field == field
    assert phrase in message
    assert store.count() == 0


def test_jsonl_line_numbers_count_blank_lines(tmp_path: Path, store: hopgate.Store) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_text(
        '{"type": "ledger", "ledger": 1}\n\n{"type": "reader", "id": "r1"}\n\n'
        '{"type": "claim", "id": "c1"}\n',
        encoding="utf-8",
    )
    with pytest.raises(hopgate.LedgerError, match=r"line 5.*field 'text'.*required"):
        hopgate.load(store, path)


@pytest.mark.parametrize("header", ['{"type": "ledger", "ledger": 2}', '{"type": "ledger"}'])
def test_jsonl_header_must_say_format_version_1(
    tmp_path: Path, store: hopgate.Store, header: str
) -> None:
    path = tmp_path / "v2.jsonl"
    path.write_text(header + '\n{"type": "reader", "id": "r1"}\n', encoding="utf-8")
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)
    assert "line 1" in str(caught.value)
    assert "field 'ledger'" in str(caught.value)
    assert store.count() == 0


def test_jsonl_without_header_is_format_1(
    minimal_ledger: Callable[[], Ledger], write_ledger: Callable[..., Path], store: hopgate.Store
) -> None:
    path = write_ledger(minimal_ledger(), "jsonl")
    header, rest = path.read_text(encoding="utf-8").split("\n", 1)
    assert json.loads(header) == {"type": "ledger", "ledger": 1}
    path.write_text(rest, encoding="utf-8")
    result = hopgate.load(store, path)
    assert result.records["span"] == 2
    assert result.records["case"] == 1


# ---- one document only ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_unknown_record_kind_in_document(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    ledger = minimal_ledger()
    ledger["widgets"] = [{"id": "w1"}]
    path = write_ledger(ledger, fmt)
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)
    message = str(caught.value)
    assert str(path) in message
    assert "field 'widgets'" in message
    assert "unknown record kind" in message
    assert store.count() == 0


@pytest.mark.parametrize(
    ("change", "field", "phrase"),
    [
        pytest.param({"ledger": None}, "ledger", "required field is missing", id="no-version"),
        pytest.param({"ledger": 2}, "ledger", "expected format version 1", id="version-2"),
        pytest.param({"ledger": True}, "ledger", "expected format version 1", id="version-true"),
        pytest.param({"ledger": "1"}, "ledger", "expected format version 1", id="version-text"),
        pytest.param({"claims": {"id": "c1"}}, "claims", "expected a list", id="not-a-list"),
    ],
)
def test_bad_document_top_level(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    change: Ledger,
    field: str,
    phrase: str,
) -> None:
    ledger = minimal_ledger()
    for key, value in change.items():
        if value is None:
            del ledger[key]
        else:
            ledger[key] = value
    path = write_ledger(ledger, "yaml")
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)
    assert str(path) in str(caught.value)
    assert f"field '{field}'" in str(caught.value)
    assert phrase in str(caught.value)
    assert store.count() == 0


@pytest.mark.parametrize(
    ("name", "text", "phrase"),
    [
        ("bad.yaml", "ledger: 1\nclaims:\n  - {id: c1, text: [unclosed\n", "not valid YAML"),
        ("bad.json", '{"ledger": 1,\n "claims": [\n', "not valid JSON"),
        ("list.yaml", "- ledger: 1\n", "expected a mapping"),
        ("ledger.txt", "ledger: 1\n", "expected a ledger ending in"),
    ],
)
def test_unparseable_document(
    tmp_path: Path, store: hopgate.Store, name: str, text: str, phrase: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)
    assert str(path) in str(caught.value)
    assert phrase in str(caught.value)
    assert store.count() == 0


def test_a_name_of_no_spelling_is_refused_though_its_bytes_were_loaded(
    tmp_path: Path, store: hopgate.Store
) -> None:
    """The digest of the bytes was looked up before the name was checked: a .txt copy of
    a loaded ledger said "already loaded" where a fresh store refuses it (user trial)."""
    hopgate.load(store, CEDAR)
    copied = tmp_path / "cedar.txt"
    copied.write_bytes(CEDAR.read_bytes())
    with pytest.raises(hopgate.LedgerError, match=r"\.jsonl\.gz or \.ndjson") as caught:
        hopgate.load(store, copied)
    assert str(copied) in str(caught.value)


def test_a_file_name_that_is_not_utf8_is_refused_by_name(
    tmp_path: Path, store: hopgate.Store
) -> None:
    """The catalog records the name: writing it ended in a UnicodeEncodeError traceback
    (security review, 7 December)."""
    path = tmp_path / os.fsdecode(b"l\xff.yaml")
    path.write_bytes(CEDAR.read_bytes())
    with pytest.raises(hopgate.LedgerError, match="not UTF-8 text; rename it"):
        hopgate.load(store, path)
    assert store.count() == 0


def test_missing_file_is_a_ledger_error(tmp_path: Path, store: hopgate.Store) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(hopgate.LedgerError, match="no such file") as caught:
        hopgate.load(store, path)
    assert str(path) in str(caught.value)


def test_lone_surrogate_in_a_document(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path, store: hopgate.Store
) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["text"] = "lone \udc00"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(ledger), encoding="ascii")  # spelt as the escape \udc00
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(store, path)
    assert "cases[0]" in str(caught.value)
    assert "field 'outputs[0].text'" in str(caught.value)
    assert "lone surrogate" in str(caught.value)
    assert store.count() == 0


# ---- what is accepted ----------------------------------------------------------------


def _values(store: hopgate.Store, node: str, predicate: str) -> list[Any]:
    params = {"s": hopgate.IRI(node), "p": hopgate.IRI(predicate)}
    rows = store.select("SELECT ?o WHERE { ?s ?p ?o }", params=params)
    return [row["o"] for row in rows]


@pytest.mark.parametrize("fmt", FORMATS)
def test_x_fields_are_accepted_and_kept(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    ledger = minimal_ledger()
    ledger["versions"][0]["x-crawl"] = {"depth": 2, "note": "Zürich"}
    ledger["claims"][0]["x-topic"] = "rights"
    ledger["cases"][0]["x-latency-ms"] = 830
    ledger["cases"][0]["outputs"][0]["x-tokens"] = [3, 4]
    if fmt != "jsonl":
        ledger["x-team"] = "evaluation"  # a top-level x- key in one document
    hopgate.load(store, write_ledger(ledger, fmt))

    (version_ext,) = _values(store, ids.mint("version", "registry@1"), HG + "extension")
    assert json.loads(version_ext) == {"x-crawl": {"depth": 2, "note": "Zürich"}}
    (claim_ext,) = _values(store, ids.mint("claim", "c1"), HG + "extension")
    assert json.loads(claim_ext) == {"x-topic": "rights"}
    (case_ext,) = _values(store, ids.mint_case("sys-a", "q1"), HG + "extension")
    assert json.loads(case_ext) == {"x-latency-ms": 830}
    (output_ext,) = _values(store, ids.mint("output", "sys-a/q1/o1"), HG + "extension")
    assert json.loads(output_ext) == {"x-tokens": [3, 4]}
    assert _values(store, ids.mint("span", "a1"), HG + "extension") == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_id_in_different_kinds_is_allowed(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    ledger = minimal_ledger()
    ledger["claims"].append({"id": "a1", "text": "A claim that shares a span's id."})
    result = hopgate.load(store, write_ledger(ledger, fmt))
    assert result.records["claim"] == 2
    assert _values(store, ids.mint("claim", "a1"), HG + "ledgerId") == ["a1"]
    assert _values(store, ids.mint("span", "a1"), HG + "ledgerId") == ["a1"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_prefix_and_suffix_choose_an_ambiguous_quote(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    from hopgate.vocab import OA

    ledger = minimal_ledger()
    ledger["spans"][0] = {"id": "a1", "version": "registry@1", "quote": "R17", "prefix": "record "}
    ledger["spans"].append({"id": "a3", "version": "registry@1", "quote": "R17", "suffix": " is"})
    hopgate.load(store, write_ledger(ledger, fmt))
    for span_id, start in (("a1", 51), ("a3", 63)):
        position = ids.mint("span", span_id) + "/position"
        assert _values(store, position, OA + "start") == [start]
        assert _values(store, position, OA + "end") == [start + 3]


@pytest.mark.parametrize("fmt", FORMATS)
def test_withheld_version_with_locator_spans_and_narrowed_readers(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    ledger = minimal_ledger()
    ledger["readers"].append({"id": "public"})
    ledger["versions"][0]["readers"] = ["analyst", "public"]
    ledger["spans"][0]["readers"] = ["analyst"]
    ledger["versions"].append({**WITHHELD, "readers": ["analyst"]})
    ledger["spans"].append(
        {"id": "p1", "version": "private@1", "locator": "line 3", "readers": ["analyst"]}
    )
    hopgate.load(store, write_ledger(ledger, fmt))
    version = ids.mint("version", "private@1")
    assert _values(store, version, HG + "textWithheld") == [True]
    locator = ids.mint("span", "p1") + "/locator"
    assert _values(store, locator, "http://www.w3.org/1999/02/22-rdf-syntax-ns#value") == ["line 3"]


def test_version_text_from_file_with_verified_digest(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    tmp_path: Path,
    store: hopgate.Store,
) -> None:
    from hopgate.ingest.anchoring import sha256_digest

    ledger = minimal_ledger()
    text = ledger["versions"][0]["text"]
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "registry-1.txt").write_text(text, encoding="utf-8")
    del ledger["versions"][0]["text"]
    ledger["versions"][0]["file"] = "snapshots/registry-1.txt"
    ledger["versions"][0]["digest"] = sha256_digest(text)
    hopgate.load(store, write_ledger(ledger, "yaml"))
    version = ids.mint("version", "registry@1")
    assert _values(store, version, "http://www.w3.org/ns/prov#value") == [text]


# ---- ids that are not IRI-safe ---------------------------------------------------------

WEIRD = "Zürich/é #1 @x"


def _rename_everything(ledger: Ledger) -> list[tuple[str, str]]:
    """Give every record of the minimal ledger the same awkward id (ids are unique per kind).

    Returns the (IRI kind, ledger id) of the nodes that must carry that id.
    """
    span_ids = {"a1": WEIRD, "a2": WEIRD + " two"}
    ledger["evaluations"][0].update(id=WEIRD, reader=WEIRD)
    ledger["readers"][0]["id"] = WEIRD
    ledger["sources"][0]["id"] = WEIRD
    ledger["versions"][0].update(id=WEIRD, source=WEIRD, readers=[WEIRD], fetched_by=WEIRD)
    for span in ledger["spans"]:
        span.update(id=span_ids[span["id"]], version=WEIRD)
    ledger["questions"][0].update(id=WEIRD, claims=[WEIRD])
    ledger["claims"][0]["id"] = WEIRD
    ledger["evidence_sets"][0].update(id=WEIRD, claim=WEIRD, members=list(span_ids.values()))
    ledger["runs"][0].update(id=WEIRD, evaluation=WEIRD, system=WEIRD + " system")
    case = ledger["cases"][0]
    case.update(run=WEIRD, question=WEIRD, retrieved=list(span_ids.values()))
    case["outputs"][0].update(id=WEIRD, claim=WEIRD, cites=[span_ids["a2"]])
    return [
        ("evaluation", WEIRD),
        ("reader", WEIRD),
        ("source", WEIRD),
        ("version", WEIRD),
        ("span", WEIRD),
        ("span", WEIRD + " two"),
        ("question", WEIRD),
        ("claim", WEIRD),
        ("set", WEIRD),
        ("run", WEIRD),
        ("output", WEIRD),
        ("agent", WEIRD),
        ("agent", WEIRD + " system"),
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_ids_with_iri_characters_load_and_round_trip(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    ledger = minimal_ledger()
    nodes = _rename_everything(ledger)
    result = hopgate.load(store, write_ledger(ledger, fmt))
    assert result.records["span"] == 2

    for kind, ledger_id in nodes:
        node = ids.mint(kind, ledger_id)
        assert ids.parse(node) == (kind, ledger_id)
        assert _values(store, node, HG + "ledgerId") == [ledger_id], (kind, node)

    case = ids.mint_case(WEIRD, WEIRD)
    assert ids.parse_case(case) == (WEIRD, WEIRD)
    assert _values(store, case, HG + "ofRun") == [ids.mint("run", WEIRD)]
    assert _values(store, case, HG + "forQuestion") == [ids.mint("question", WEIRD)]
    output = ids.mint("output", WEIRD)
    assert _values(store, output, HG + "cites") == [ids.mint("span", WEIRD + " two")]
    members = _values(store, ids.mint("set", WEIRD), "http://www.w3.org/ns/prov#hadMember")
    assert sorted(members) == sorted(ids.mint("span", i) for i in (WEIRD, WEIRD + " two"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_integral_numbers_written_as_floats_are_integers(
    minimal_ledger: Callable[[], Ledger],
    write_ledger: Callable[..., Path],
    store: hopgate.Store,
    fmt: str,
) -> None:
    """JSON Schema counts 56.0 as an integer; Python's json.dumps writes floats so."""
    from hopgate.vocab import OA

    ledger = minimal_ledger()
    ledger["spans"][1].update(start=56.0, end=86.0)
    ledger["evidence_sets"][0]["annotation"]["version"] = 2.0
    ledger["cases"][0]["retrieved"] = [{"version": "registry@1", "start": 0.0, "end": 6.0}]
    hopgate.load(store, write_ledger(ledger, fmt))
    position = ids.mint("span", "a2") + "/position"
    assert _values(store, position, OA + "start") == [56]
    assert _values(store, position, OA + "end") == [86]
    assert _values(store, ids.mint("set", "g1"), HG + "annotationVersion") == [2]
    inline = ids.mint("span", "registry@1[0:6]")
    assert _values(store, inline + "/quote", OA + "exact") == ["Zürich"]
