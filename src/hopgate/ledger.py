"""Reading ledgers: both spellings of the ledger, checked against the schema.

The format is docs/spec/ledger.md "Spellings" and "Record basics".

A ledger is read as a stream of :class:`Record` objects. JSON Lines
(optionally gzip'd) is read line by line, so memory does not grow with the
file; a YAML or JSON document is parsed whole (these are the small spelling).
Every record is validated against the packaged JSON Schema
(``hopgate/schema/ledger.schema.json``), the single definition of the fields.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

import fastjsonschema
import yaml

from hopgate.errors import LedgerError

#: Plural document keys and the singular record kinds they hold, in load order.
KINDS: dict[str, str] = {
    "evaluations": "evaluation",
    "readers": "reader",
    "sources": "source",
    "versions": "version",
    "spans": "span",
    "questions": "question",
    "claims": "claim",
    "evidence_sets": "evidence_set",
    "contradictions": "contradiction",
    "runs": "run",
    "cases": "case",
    "judgments": "judgment",
}
SINGULAR = frozenset(KINDS.values())


@dataclass(frozen=True, slots=True)
class Record:
    """One ledger record: its kind, its fields and where it was read."""

    kind: str
    data: dict[str, Any]
    where: str

    @property
    def id(self) -> str | None:
        """The record's ledger id (a case has none)."""
        value = self.data.get("id")
        return value if isinstance(value, str) else None


@cache
def schema() -> dict[str, Any]:
    """The packaged JSON Schema of ledger records."""
    text = resources.files("hopgate").joinpath("schema/ledger.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(kind: str) -> Callable[[Any], Any]:
    full = schema()
    sub = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": f"#/$defs/{kind}",
        "$defs": full["$defs"],
    }
    return fastjsonschema.compile(sub)


class _StringDatesLoader(yaml.SafeLoader):
    """A YAML loader that keeps dates as the strings written (the loader parses times)."""


_StringDatesLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def validate_record(kind: str, data: Any, *, file: str, where: str) -> None:
    """Check one record against the schema; raise :class:`LedgerError` naming the field."""
    try:
        _validator(kind)(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise _schema_error(exc, kind, data, file=file, where=where) from None


def _schema_error(
    exc: fastjsonschema.JsonSchemaValueException, kind: str, data: Any, *, file: str, where: str
) -> LedgerError:
    path = [str(p) for p in (exc.path or [])][1:]  # drop the leading "data"
    # Spell the field as a path like the record's own: outputs[0].cites[1].
    field = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in path).lstrip(".") or None
    record_id = data.get("id") if isinstance(data, dict) else None
    message = exc.message.replace("data." + field if field else "data", "").strip() or exc.message
    rule = exc.rule
    if rule == "additionalProperties" and isinstance(exc.value, dict):
        known = set((exc.definition or {}).get("properties", {}))
        x_ok = "^x-" in (exc.definition or {}).get("patternProperties", {})
        extra = sorted(
            k for k in exc.value if k not in known and not (x_ok and str(k).startswith("x-"))
        )
        prefix = (field + ".") if field else ""
        return LedgerError(
            f"unknown field (allowed: {', '.join(sorted(known - {'type'}))}"
            + ("; extra fields must start with 'x-')" if x_ok else ")"),
            file=file,
            record=where,
            field=prefix + (extra[0] if extra else "?"),
            record_id=record_id if isinstance(record_id, str) else None,
        )
    if rule == "required":
        missing = [
            name
            for name in (exc.rule_definition or [])
            if isinstance(exc.value, dict) and name not in exc.value
        ]
        prefix = (field + ".") if field else ""
        return LedgerError(
            f"required field is missing in {kind}",
            file=file,
            record=where,
            field=prefix + (missing[0] if missing else "?"),
            record_id=record_id if isinstance(record_id, str) else None,
        )
    expected = _expected(rule, exc.rule_definition)
    return LedgerError(
        f"expected {expected}, got {json.dumps(exc.value, ensure_ascii=False, default=str)[:80]}"
        if expected
        else message,
        file=file,
        record=where,
        field=field,
        record_id=record_id if isinstance(record_id, str) else None,
    )


def _expected(rule: str | None, definition: Any) -> str | None:
    if rule == "enum":
        return "one of " + ", ".join(json.dumps(v) for v in definition)
    if rule == "type":
        return f"a value of type {definition}"
    if rule == "minLength":
        return "a non-empty string"
    if rule == "minItems":
        return f"at least {definition} item(s)"
    if rule == "minimum":
        return f"a number >= {definition}"
    if rule == "pattern":
        return f"a string matching {definition}" + (
            " (sha256: then 64 lowercase hex digits)" if "sha256" in str(definition) else ""
        )
    if rule == "const":
        return json.dumps(definition)
    if rule in ("anyOf", "oneOf"):
        return "a span id, {version, start, end} or {version, quote}" if definition else None
    return None


def parse_time(value: str, *, file: str, where: str, field: str, record_id: str | None) -> str:
    """Parse an ISO 8601 date or date-time into a UTC ``xsd:dateTime`` lexical form.

    A date alone means 00:00 UTC; a date-time without a zone is read as UTC.
    """
    try:
        if len(value) == 10:
            moment = datetime.combine(date.fromisoformat(value), time(0), tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(value)
            moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    except ValueError:
        raise LedgerError(
            f"expected an ISO 8601 date or date-time, got {value!r}",
            file=file,
            record=where,
            field=field,
            record_id=record_id,
        ) from None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S") + _fraction(moment) + "Z"


def _fraction(moment: datetime) -> str:
    return f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else ""


def _check_unicode(data: dict[str, Any], *, file: str, where: str) -> None:
    """Reject a lone surrogate (an unpaired ``\\ud800`` escape): it is not Unicode text."""
    field = _surrogate_at(data, "")
    if field is not None:
        record_id = data.get("id")
        raise LedgerError(
            "expected Unicode text, got a lone surrogate (an unpaired \\ud800-\\udfff escape)",
            file=file,
            record=where,
            field=field or None,
            record_id=record_id if isinstance(record_id, str) else None,
        )


def _surrogate_at(value: Any, path: str) -> str | None:
    """The path of the first key or string in ``value`` holding a lone surrogate."""
    if isinstance(value, str):
        return path if any("\ud800" <= ch <= "\udfff" for ch in value) else None
    if isinstance(value, dict):
        pairs = [(f"{path}.{k}" if path else str(k), k, v) for k, v in value.items()]
    elif isinstance(value, list):
        pairs = [(f"{path}[{i}]", None, v) for i, v in enumerate(value)]
    else:
        return None
    for name, key, item in pairs:
        found = _surrogate_at(key, name) or _surrogate_at(item, name)
        if found:
            return found
    return None


def ledger_format(path: Path) -> str:
    """``"jsonl"`` or ``"document"``, from the file name; raise for anything else."""
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return "jsonl"
    if name.endswith((".yaml", ".yml", ".json")):
        return "document"
    raise LedgerError(
        "expected a ledger ending in .yaml, .yml, .json, .jsonl or .jsonl.gz", file=str(path)
    )


class _DigestingReader:
    """Wraps a binary file and hashes every byte read, so one pass gives the digest."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        chunk = self.raw.read(size)
        self.sha.update(chunk)
        return chunk


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` of the file's bytes (as stored, so a .gz is hashed compressed)."""
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha.update(chunk)
    return "sha256:" + sha.hexdigest()


def read_records(path: Path, *, validate: bool = True) -> Iterator[Record]:
    """Yield the records of the ledger at ``path``, each validated against the schema.

    ``validate=False`` skips the schema (for a second pass over a file already
    read with validation: the loader's pass two).

    Raises:
        LedgerError: the file cannot be read, a record does not parse, names an
            unknown kind or fails the schema.
    """
    if ledger_format(path) == "jsonl":
        yield from _read_jsonl(path, validate)
    else:
        yield from _read_document(path, validate)


def _read_jsonl(path: Path, validate: bool) -> Iterator[Record]:
    file = str(path)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        handle = opener(path, "rt", encoding="utf-8")
    except OSError as exc:
        raise LedgerError(f"cannot read the ledger: {exc.strerror or exc}", file=file) from None
    seen_record = False
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = f"line {number}"
                try:
                    data = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise LedgerError(
                        f"not valid JSON ({exc.msg} at column {exc.colno})", file=file, record=where
                    ) from None
                if not isinstance(data, dict):
                    raise LedgerError("expected a JSON object", file=file, record=where)
                kind = data.get("type")
                if kind == "ledger":
                    if seen_record:
                        raise LedgerError(
                            "the ledger header must be the first line",
                            file=file,
                            record=where,
                            field="type",
                        )
                    validate_record("ledger", data, file=file, where=where)
                    continue
                seen_record = True
                if kind not in SINGULAR:
                    raise LedgerError(
                        f"expected one of {', '.join(sorted(SINGULAR))}, got {kind!r}",
                        file=file,
                        record=where,
                        field="type",
                        record_id=data.get("id") if isinstance(data.get("id"), str) else None,
                    )
                if validate:
                    validate_record(kind, data, file=file, where=where)
                if validate and "\\u" in line:  # only an escape can make a lone surrogate
                    _check_unicode(data, file=file, where=where)
                yield Record(kind, data, where)
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise LedgerError(f"cannot read the ledger: {exc}", file=file) from None


def _read_document(path: Path, validate: bool) -> Iterator[Record]:
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"cannot read the ledger: {exc}", file=file) from None
    try:
        if path.suffix.lower() == ".json":
            document = json.loads(text)
        else:
            document = yaml.load(text, Loader=_StringDatesLoader)  # noqa: S506 - safe loader subclass
    except json.JSONDecodeError as exc:
        raise LedgerError(
            f"not valid JSON ({exc.msg})", file=file, record=f"line {exc.lineno}"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        record = f"line {mark.line + 1}" if mark is not None else None
        raise LedgerError(f"not valid YAML ({exc})", file=file, record=record) from None
    if not isinstance(document, dict):
        raise LedgerError("expected a mapping with 'ledger: 1' and record lists", file=file)
    if "ledger" not in document:
        raise LedgerError("required field is missing", file=file, field="ledger")
    if document.get("ledger") != 1 or isinstance(document.get("ledger"), bool):  # true == 1
        raise LedgerError(
            f"expected format version 1, got {document.get('ledger')!r}", file=file, field="ledger"
        )
    for key in document:
        if key != "ledger" and key not in KINDS and not str(key).startswith("x-"):
            raise LedgerError(
                f"unknown record kind (expected one of {', '.join(KINDS)})", file=file, field=key
            )
    for plural, kind in KINDS.items():
        items = document.get(plural)
        if items is None:
            continue
        if not isinstance(items, list):
            raise LedgerError("expected a list of records", file=file, field=plural)
        for index, data in enumerate(items):
            where = f"{plural}[{index}]"
            if not validate:
                yield Record(kind, data, where)
                continue
            validate_record(kind, data, file=file, where=where)
            if "\\u" in text or "\\U" in text:  # only an escape can make a lone surrogate
                _check_unicode(data, file=file, where=where)
            yield Record(kind, data, where)
