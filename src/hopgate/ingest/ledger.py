"""Reading ledgers: both spellings of the ledger, checked against the schema.

The format is docs/spec/ledger.md "Spellings" and "Record basics".

A ledger is read as a stream of :class:`Record` objects. JSON Lines
(optionally gzip'd) is read line by line, so memory does not grow with the
file; a YAML or JSON document is parsed whole (these are the small spelling).
Every record is validated against the packaged JSON Schema
(``hopgate/ingest/schema/ledger.schema.json``), the single definition of the fields.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

import fastjsonschema
import yaml

from hopgate.errors import FileRefused, LedgerError

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

#: Bounds on input, so that a small file cannot do large harm.
#: Nesting depth of a record (lists and mappings); a ledger needs about 6.
MAX_DEPTH = 64
#: Characters of one JSON Lines line (a version text of MAX_LITERAL_BYTES fits).
MAX_LINE_CHARS = 64 * 1024 * 1024
#: Bytes of a one-document ledger (YAML, JSON); larger ledgers are JSON Lines, read as a stream.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
#: A YAML document's nodes after aliases are expanded, per node written (plus a margin):
#: an alias bomb (each alias doubling the size) is refused before it is expanded.
MAX_ALIAS_EXPANSION = 10
#: Bytes of a version text written as one N-Quads literal (escapes included): the largest
#: token Oxigraph's parser takes is 16 MiB.
MAX_LITERAL_BYTES = 16 * 1024 * 1024 - 4096
#: Characters no ledger string may hold: NUL, lone surrogates, U+FFFE and U+FFFF (no RDF
#: syntax or store round-trips them). Other control characters are data, in ids as in
#: texts (docs/spec/records.md "Identifiers"); PROV-XML, whose XML 1.0 cannot carry them,
#: writes such strings as xsd:base64Binary (hopgate.bundles.provdoc).
FORBIDDEN_CHARACTERS = re.compile("[\x00\ud800-\udfff\ufffe\uffff]")


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
    """Reject what JSON cannot hold or hopgate cannot write: keys that are not strings,
    YAML-only values (``!!binary``, ``!!set``, ``!!timestamp``), NaN and infinities,
    control characters and lone surrogates, and nesting deeper than MAX_DEPTH.

    Iterative (no recursion), so a deep document cannot exhaust the stack.
    """
    record_id = data.get("id") if isinstance(data, dict) else None
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    while stack:
        path, value, depth = stack.pop()
        problem = None
        if isinstance(value, str):
            found = FORBIDDEN_CHARACTERS.search(value)
            if len(value) > MAX_LITERAL_BYTES // 2 and literal_size(value) > MAX_LITERAL_BYTES:
                problem = (
                    f"a text of {literal_size(value):,} bytes as a literal, over the "
                    f"{MAX_LITERAL_BYTES:,}-byte limit of one text"
                )
            if found is not None:
                char = found.group()
                problem = (
                    "expected Unicode text, got a lone surrogate (an unpaired \\ud800-\\udfff escape)"
                    if "\ud800" <= char <= "\udfff"
                    else f"expected text without U+{ord(char):04X} (no RDF format carries it)"
                )
        elif isinstance(value, bool) or value is None or isinstance(value, int):
            pass
        elif isinstance(value, float):
            if not math.isfinite(value):
                problem = f"expected a finite number, got {value!r} (JSON has no NaN or Infinity)"
        elif isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                problem = f"nested more than {MAX_DEPTH} levels deep"
            elif isinstance(value, dict):
                for key, item in value.items():
                    if not isinstance(key, str):
                        problem = f"expected text keys, got the key {key!r} ({type(key).__name__})"
                        break
                    name = f"{path}.{key}" if path else key
                    stack.append((name, key, depth + 1))
                    stack.append((name, item, depth + 1))
            else:
                stack.extend((f"{path}[{i}]", item, depth + 1) for i, item in enumerate(value))
        else:
            kind = type(value).__name__
            problem = (
                f"expected a JSON value, got a YAML {kind} (such as !!binary, !!set, !!timestamp)"
            )
        if problem is not None:
            raise LedgerError(
                problem,
                file=file,
                record=where,
                field=path or None,
                record_id=record_id if isinstance(record_id, str) else None,
            )


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object that names each key once (json's object_pairs_hook)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str) -> Any:
    """``json.loads`` refusing duplicate keys and NaN / Infinity.

    Raises:
        ValueError: (json.JSONDecodeError, a duplicate key, a constant, a number
            too long to convert) or RecursionError.
    """
    return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)


def _json_error(exc: BaseException, spelling: str = "JSON") -> str:
    if isinstance(exc, _DuplicateKey):
        return f"the key {exc.key!r} is given twice"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if isinstance(exc, RecursionError):
        return f"not valid {spelling} (nested more than {MAX_DEPTH} levels deep)"
    return f"not valid {spelling} ({exc})"


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
        # O_NOFOLLOW: a symbolic link swapped in after the check above is not followed.
        descriptor = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        raise FileRefused(f"cannot read the version's file {real}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise FileRefused(f"{real} is not a regular file")
    with os.fdopen(descriptor, "rb") as handle:
        data = handle.read(MAX_LITERAL_BYTES + 1)
    if len(data) > MAX_LITERAL_BYTES:
        raise FileRefused(f"{real} is larger than {MAX_LITERAL_BYTES:,} bytes (the text limit)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused(f"{real} is not UTF-8 text: {exc}") from None


def literal_size(text: str) -> int:
    """Bytes of ``text`` written as an N-Quads literal (hopgate escapes \\, ", LF, CR)."""
    escaped = text.count("\\") + text.count('"') + text.count("\n") + text.count("\r")
    return len(text.encode("utf-8")) + escaped


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


def _lines(handle: Any, file: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of a text stream, each at most MAX_LINE_CHARS (read in bounded steps)."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_CHARS:
            raise LedgerError(
                f"line longer than {MAX_LINE_CHARS:,} characters (a ledger line holds one record)",
                file=file,
                record=f"line {number}",
            )
        yield number, line


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
            for number, line in _lines(handle, file):
                if not line.strip():
                    continue
                where = f"line {number}"
                try:
                    data = parse_json(line)
                except (ValueError, RecursionError) as exc:
                    raise LedgerError(_json_error(exc), file=file, record=where) from None
                if not isinstance(data, dict):
                    raise LedgerError("expected a JSON object", file=file, record=where)
                # Only an escape makes a control character or a lone surrogate, and a line
                # with fewer brackets than MAX_DEPTH cannot nest deeper: skip the walk then.
                if validate and (
                    "\\" in line
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
        except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as exc:
            raise LedgerError(f"cannot read the ledger: {exc}", file=file) from None


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
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise LedgerError(
                f"a {size:,}-byte document is over the {MAX_DOCUMENT_BYTES:,}-byte limit of "
                "YAML and JSON ledgers; write large ledgers as JSON Lines (read as a stream)",
                file=file,
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"cannot read the ledger: {exc}", file=file) from None
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
        raise LedgerError(
            f"not valid YAML ({exc})", file=file, record=record, field=field
        ) from None
    except (ValueError, RecursionError) as exc:
        # A duplicate JSON key, NaN, a number too long to convert, or nesting too deep.
        spelling = "JSON" if path.suffix.lower() == ".json" else "YAML"
        raise LedgerError(_json_error(exc, spelling), file=file) from None
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
