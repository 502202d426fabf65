"""Reading ledgers: both spellings of the ledger, checked against the schema.

The format is docs/spec/ledger.md "Spellings" and "Record basics".

A ledger is read as a stream of :class:`Record` objects. JSON Lines
(optionally gzip'd) is read line by line, so memory does not grow with the
file; a YAML or JSON document is parsed whole (these are the small spelling).
Every record is validated against the packaged JSON Schema
(``hopgate/ingest/schema/ledger.schema.json``), the single definition of the fields.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

import fastjsonschema
import yaml

from hopgate.errors import FileRefused, InputRefused, LedgerError
from hopgate.inputs import (
    MAX_ALIAS_EXPANSION,
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_LINE_BYTES,
    MAX_LITERAL_BYTES,
    REFUSED_CHARACTERS,
    UNCARRIED,
    decode_text,
    lines,
    open_regular,
    open_stream,
    read_regular,
    scan,
)
from hopgate.inputs import parse_json as _parse_json
from hopgate.suggest import did_you_mean, near_misses

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

#: Characters no RDF syntax or store round-trips (what a PROV export refuses to write);
#: the bounds on input, refused characters among them, live in hopgate.inputs.
FORBIDDEN_CHARACTERS = UNCARRIED


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
    text = (
        resources.files("hopgate.ingest").joinpath("schema/ledger.schema.json").read_text("utf-8")
    )
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
        near = did_you_mean(str(extra[0]), known - {"type"}) if extra else ""
        return LedgerError(
            f"unknown field{near} (allowed: {', '.join(sorted(known - {'type'}))}"
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
        given = [str(k) for k in exc.value] if isinstance(exc.value, dict) else []
        meant = [k for k in given if missing and missing[0] in near_misses(k, [missing[0]])]
        return LedgerError(
            f"required field is missing in {kind}"
            + (f" (is {meant[0]!r} meant to be {missing[0]!r}?)" if meant else ""),
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
        if not definition:
            return None
        spellings = "a span id, {version, start, end} or {version, quote}"
        if any("span" in (option.get("properties") or {}) for option in definition):
            return spellings.replace(" or ", ", ") + " or {span, segment}"
        return spellings
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
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise LedgerError(
            f"expected an ISO 8601 date or date-time (years 0001 to 9999 in UTC), got {value!r}",
            file=file,
            record=where,
            field=field,
            record_id=record_id,
        ) from None
    # strftime's %Y drops leading zeros of years before 1000 on glibc.
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S") + _fraction(moment) + "Z"


def _fraction(moment: datetime) -> str:
    return f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else ""


def check_values(data: Any, *, file: str, where: str) -> None:
    """Reject what JSON cannot hold or hopgate cannot write (:func:`hopgate.inputs.scan`):
    keys that are not strings, YAML-only values (``!!binary``, ``!!set``, ``!!timestamp``),
    NaN and infinities, control characters other than tab and line breaks, lone
    surrogates, texts over the literal limit, and nesting deeper than MAX_DEPTH.

    Iterative (no recursion), so a deep document cannot exhaust the stack.
    """
    try:
        scan(data)
    except InputRefused as exc:
        record_id = data.get("id") if isinstance(data, dict) else None
        raise LedgerError(
            exc.detail,
            file=file,
            record=where,
            field=exc.field,
            record_id=record_id if isinstance(record_id, str) else None,
        ) from None


def parse_json(text: str, parse_float: Callable[[str], Any] | None = None) -> Any:
    """``json.loads`` refusing duplicate keys, NaN / Infinity and numbers over the digit limit
    (``parse_float``: as :func:`hopgate.inputs.parse_json` takes it).

    Raises:
        ValueError: json.JSONDecodeError, or :class:`~hopgate.errors.InputRefused`.
    """
    return _parse_json(text, strict=True, parse_float=parse_float)


class _Infinities:
    """``parse_float`` for one JSON Lines line at a time: notes a number Python reads as
    infinity (``1e400``), so that the line's values are walked and the walk names its
    field (the walk is skipped for most lines). Called only for the numbers that are
    not integers, rare in a ledger."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found = False

    def __call__(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self.found = True
        return value


def _json_error(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    return f"not valid JSON ({exc})"


def read_version_file(base: Path, name: str, *, allowed: tuple[Path, ...] = ()) -> str:
    """The UTF-8 text of a version's ``file:``, confined to the ledger's folder.

    ``name`` is relative to ``base`` (the ledger's folder) and may not climb
    out of it with ``..``; an absolute path, or a symbolic link leading
    elsewhere, is read only when one of ``allowed`` holds the file. Only
    regular files are read (a FIFO or a device is refused without being
    opened for a blocking read), at most a text that fits in one literal.

    Raises:
        FileRefused: the reason, in words for an ``Error:`` message.
    """
    given = Path(name)
    if "\0" in name:
        raise FileRefused("expected a file name, got a NUL character")
    if ".." in given.parts:
        raise FileRefused(f"{name!r} climbs out of the ledger's folder with '..'")
    roots = [Path(os.path.realpath(base))] + [Path(os.path.realpath(a)) for a in allowed]
    if given.is_absolute() and not allowed:
        raise FileRefused(
            f"{name!r} is an absolute path; name files relative to the ledger's folder, "
            "or allow their folder with --allow-files DIR"
        )
    real = Path(os.path.realpath(base / given))
    inside = roots if not given.is_absolute() else roots[1:]
    if not any(real == root or root in real.parents for root in inside):
        where = "the ledger's folder" + (" or an --allow-files folder" if allowed else "")
        raise FileRefused(f"{name!r} resolves to {real}, outside {where}")
    try:
        # Not following links: a symbolic link swapped in after the check above is refused.
        with open_regular(real, follow_links=False) as handle:
            data = handle.read(MAX_LITERAL_BYTES + 1)
    except InputRefused as exc:
        if exc.detail.startswith("not a regular file"):
            raise FileRefused(f"{real} is {exc.detail}") from None
        raise FileRefused(f"cannot read the version's file {real}: {exc.detail}") from None
    except OSError as exc:
        raise FileRefused(f"cannot read the version's file {real}: {exc.strerror or exc}") from None
    if len(data) > MAX_LITERAL_BYTES:
        raise FileRefused(f"{real} is larger than {MAX_LITERAL_BYTES:,} bytes (the text limit)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused(f"{real} is not UTF-8 text: {exc}") from None


def ledger_format(path: Path) -> str:
    """``"jsonl"`` or ``"document"``, from the file name; raise for anything else."""
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return "jsonl"
    if name.endswith((".yaml", ".yml", ".json")):
        return "document"
    raise LedgerError(
        "expected a ledger ending in .yaml, .yml, .json, .jsonl, .jsonl.gz or .ndjson",
        file=str(path),
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
    try:
        handle = open_regular(path)
    except InputRefused as exc:
        raise LedgerError(f"cannot read the ledger: {exc.detail}", file=str(path)) from None
    with handle:
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
    seen_record = False
    infinities = _Infinities()
    try:
        with open_stream(path) as stream:
            for number, raw in lines(stream, limit=MAX_LINE_BYTES):
                where = f"line {number}"
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise LedgerError(
                        f"cannot read the ledger: not UTF-8 text (byte {exc.start} of the line)",
                        file=file,
                        record=where,
                    ) from None
                try:
                    # Pass two reads the bytes pass one checked (the loader compares the
                    # file's digest after it): the bounds' hooks would find nothing, and
                    # json's C parser without them takes half the time.
                    infinities.found = False
                    data = parse_json(line, infinities) if validate else json.loads(line)
                except ValueError as exc:
                    raise LedgerError(_json_error(exc), file=file, record=where) from None
                if not isinstance(data, dict):
                    raise LedgerError("expected a JSON object", file=file, record=where)
                # A refused character is written raw or as an escape, a line with fewer
                # brackets than MAX_DEPTH cannot nest deeper, and a number read as
                # infinity was noted: skip the walk otherwise.
                if validate and (
                    "\\" in line
                    or infinities.found
                    or REFUSED_CHARACTERS.search(line) is not None
                    or line.count("[") + line.count("{") >= MAX_DEPTH
                    or len(line) > MAX_LITERAL_BYTES // 2
                ):
                    check_values(data, file=file, where=where)
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
                    _check_version_number(data.get("ledger"), file=file, where=where)
                    continue
                seen_record = True
                if not isinstance(kind, str) or kind not in SINGULAR:
                    raise LedgerError(
                        f"expected one of {', '.join(sorted(SINGULAR))}, got {kind!r:.80}",
                        file=file,
                        record=where,
                        field="type",
                        record_id=data.get("id") if isinstance(data.get("id"), str) else None,
                    )
                if validate:
                    validate_record(kind, data, file=file, where=where)
                yield Record(kind, data, where)
    except InputRefused as exc:
        raise LedgerError(
            f"cannot read the ledger: {exc.detail}",
            file=file,
            record=exc.record,
        ) from None


def _check_version_number(value: Any, *, file: str, where: str | None = None) -> None:
    # 1.0 == 1 and True == 1 in Python: the format version is the integer 1, nothing else.
    if type(value) is not int or value != 1:
        raise LedgerError(
            f"expected format version 1, got {json.dumps(value, default=str)[:40]}",
            file=file,
            record=where,
            field="ledger",
        )


class _BoundedLoader(yaml.SafeLoader):
    """The safe YAML loader with dates kept as written, duplicate keys refused, and
    nesting and alias expansion bounded (an alias bomb is refused before it grows)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.nodes = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            error = _YamlRefused(f"nested more than {MAX_DEPTH} levels deep")
            event = self.peek_event()  # type: ignore[no-untyped-call]
            error.line = event.start_mark.line + 1
            raise error
        try:
            self.nodes += 1
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


_BoundedLoader.yaml_implicit_resolvers = _StringDatesLoader.yaml_implicit_resolvers


def _expanded_size(root: Any, limit: int) -> int:
    """Nodes of a composed YAML document with every alias expanded, counted without
    expanding (shared nodes are sized once); stops counting past ``limit``."""
    sizes: dict[int, int] = {}
    order: list[Any] = []
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if done:
            sizes[id(node)] = min(limit + 1, 1 + sum(sizes.get(id(c), 0) for c in children))
            continue
        stack.append((node, True))
        order.append(node)
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes.get(id(root), 0)


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class _YamlRefused(yaml.YAMLError):
    """A YAML document refused before it is built, with the field that grows."""

    field: str | None = None
    line: int | None = None


def _parse_yaml(text: str) -> Any:
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        limit = MAX_ALIAS_EXPANSION * loader.nodes + 10_000
        if _expanded_size(node, limit) > limit:
            error = _YamlRefused(
                "YAML aliases expand to more than "
                f"{MAX_ALIAS_EXPANSION} times the document's {loader.nodes} nodes (an alias bomb?)"
            )
            # Name the top-level field that grows (each size is bounded by the limit).
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if _expanded_size(value, limit) > limit // 2:
                        error.field = str(key.value)
                        error.line = key.start_mark.line + 1
                        break
            raise error
        try:
            return loader.construct_document(node)
        except yaml.YAMLError:
            raise
        except Exception as exc:  # noqa: BLE001 - PyYAML's constructors raise anything on bad input
            raise yaml.YAMLError(f"cannot read a value: {exc}") from None
    finally:
        loader.dispose()


def _read_document(path: Path, validate: bool) -> Iterator[Record]:
    file = str(path)
    try:
        text = decode_text(read_regular(path, limit=MAX_DOCUMENT_BYTES))
    except InputRefused as exc:
        hint = (
            "; write large ledgers as JSON Lines (read as a stream)"
            if "larger than" in exc.detail
            else ""
        )
        raise LedgerError(
            f"cannot read the ledger: {exc.detail}{hint}", file=file, record=exc.record
        ) from None
    try:
        document = parse_json(text) if path.suffix.lower() == ".json" else _parse_yaml(text)
    except json.JSONDecodeError as exc:
        raise LedgerError(
            f"not valid JSON ({exc.msg})", file=file, record=f"line {exc.lineno}"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        record = f"line {mark.line + 1}" if mark is not None else None
        if isinstance(exc, _YamlRefused) and exc.line is not None:
            record = f"line {exc.line}"
        field = exc.field if isinstance(exc, _YamlRefused) else None
        # One line: PyYAML's messages span several, with a caret drawing.
        raise LedgerError(
            f"not valid YAML ({' '.join(str(exc).split())})", file=file, record=record, field=field
        ) from None
    except (ValueError, RecursionError) as exc:
        # A duplicate JSON key, NaN, a number over the digit limit, or nesting too deep.
        spelling = "JSON" if path.suffix.lower() == ".json" else "YAML"
        if isinstance(exc, RecursionError):
            exc = InputRefused(f"nested more than {MAX_DEPTH} levels deep")
        raise LedgerError(f"not valid {spelling} ({exc})", file=file) from None
    if not isinstance(document, dict):
        raise LedgerError("expected a mapping with 'ledger: 1' and record lists", file=file)
    if "ledger" not in document:
        raise LedgerError("required field is missing", file=file, field="ledger")
    _check_version_number(document.get("ledger"), file=file)
    for key in document:
        if not isinstance(key, str):
            raise LedgerError(
                f"expected text keys, got the key {key!r} ({type(key).__name__})", file=file
            )
        if key != "ledger" and key not in KINDS and not key.startswith("x-"):
            raise LedgerError(
                f"unknown record kind (expected one of {', '.join(KINDS)})", file=file, field=key
            )
        if key.startswith("x-"):
            check_values(document[key], file=file, where=key)
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
            check_values(data, file=file, where=where)
            validate_record(kind, data, file=file, where=where)
            yield Record(kind, data, where)
