"""What every importer shares: the ledger records it writes, and how it writes them.

An adapter turns one benchmark's files into ledger records (docs/spec/ledger.md,
the contract; the ledger format is not extended). The records are plain
dicts with a ``type`` field, written as JSON Lines so that the existing
reader and loader check and load them like any other ledger.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hopgate.errors import LedgerError

Record = dict[str, Any]

#: The reader class every imported evaluation is for: benchmark data is public.
PUBLIC = "public"


@dataclass
class ImportResult:
    """What an import wrote: records by kind, and what it dropped (with reasons)."""

    format: str
    ledger: str
    records: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


def header() -> Record:
    """The JSON Lines header of a format-1 ledger."""
    return {"type": "ledger", "ledger": 1}


def evaluation(evaluation_id: str, *, cutoff: str, corpus: str) -> Iterator[Record]:
    """The public reader and one evaluation of the imported data."""
    yield {"type": "reader", "id": PUBLIC}
    yield {
        "type": "evaluation",
        "id": evaluation_id,
        "reader": PUBLIC,
        "observation_cutoff": cutoff,
        "corpus": corpus,
    }


def wiki_address(title: str) -> str:
    """The English Wikipedia address of a page title (underscores, percent-encoded)."""
    return "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe="")


def sentence_spans(
    sentences: list[str], *, separator: str = ""
) -> tuple[str, list[tuple[int, int] | None]]:
    """The text of a version made of ``sentences`` and each sentence's offsets.

    Sentences are joined with ``separator``. A sentence that is empty or only
    whitespace has no span (None): a span needs ``end > start`` and text.
    """
    parts: list[str] = []
    offsets: list[tuple[int, int] | None] = []
    position = 0
    for number, sentence in enumerate(sentences):
        if number and separator:
            parts.append(separator)
            position += len(separator)
        parts.append(sentence)
        offsets.append((position, position + len(sentence)) if sentence.strip() else None)
        position += len(sentence)
    return "".join(parts), offsets


def read_json(path: Path) -> Any:
    """Parse one JSON document, naming the file in the error."""
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise LedgerError("no such file", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise LedgerError(
            f"not JSON: {exc.msg}", file=str(path), record=f"line {exc.lineno}"
        ) from None


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line of a JSON Lines file."""
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise LedgerError("no such file", file=str(path)) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise LedgerError(
                    f"not JSON: {exc.msg}", file=str(path), record=f"line {number}"
                ) from None


def read_items(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, parsed object) for each item of a JSON Lines file or of one JSON list.

    The spelling is told by the first non-space character (``[`` for a list);
    UTF-8 with or without a byte-order mark, gzip'd when the name ends in
    ``.gz``. ``where`` is ``line N`` (for a list item, the line it starts on
    and its index: ``line N ([i])``).
    """
    text = _read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        yield from _list_items(path, text)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"line {number}", json.loads(line)
        except json.JSONDecodeError as exc:
            hint = (
                " (one JSON object per line, or one JSON list)" if stripped.startswith("{") else ""
            )
            raise LedgerError(
                f"not JSON: {exc.msg}{hint}", file=str(path), record=f"line {number}"
            ) from None


def _read_text(path: Path) -> str:
    """The text of ``path``: gzip'd when named ``.gz``, UTF-8 with or without a BOM."""
    import gzip

    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    except FileNotFoundError:
        raise LedgerError("no such file", file=str(path)) from None
    except (OSError, EOFError) as exc:
        raise LedgerError(f"cannot read: {exc}", file=str(path)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise LedgerError(
            f"not UTF-8 text (byte {exc.start})", file=str(path), record=f"line {line}"
        ) from None


def _list_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    decoder = json.JSONDecoder()

    def line_of(position: int) -> int:
        return text.count("\n", 0, position) + 1

    def skip(position: int) -> int:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        return position

    position = skip(0) + 1  # past "["
    index = 0
    while True:
        position = skip(position)
        if position < len(text) and text[position] == "]":
            position += 1
            break
        try:
            item, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise LedgerError(
                f"not JSON: {exc.msg}", file=str(path), record=f"line {exc.lineno}"
            ) from None
        yield f"line {line_of(position)} ([{index}])", item
        index += 1
        position = skip(end)
        if position < len(text) and text[position] == ",":
            position += 1
        elif position < len(text) and text[position] == "]":
            position += 1
            break
        else:
            raise LedgerError(
                "not JSON: expected ',' or ']' after a list item",
                file=str(path),
                record=f"line {line_of(position)}",
            )
    if skip(position) != len(text):
        raise LedgerError(
            "not JSON: extra data after the list",
            file=str(path),
            record=f"line {line_of(position)}",
        )


def require(data: Any, name: str, kind: type | tuple[type, ...], *, file: Path, record: str) -> Any:
    """``data[name]``, which must be present and of ``kind``; else a LedgerError."""
    if not isinstance(data, dict):
        raise LedgerError("expected a JSON object", file=str(file), record=record)
    if name not in data:
        raise LedgerError("missing field", file=str(file), record=record, field=name)
    value = data[name]
    if not isinstance(value, kind):
        expected = (
            kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        )
        raise LedgerError(
            f"expected {expected}, got {type(value).__name__}",
            file=str(file),
            record=record,
            field=name,
        )
    return value


def write_ledger(records: Iterable[Record], path: Path) -> Counter[str]:
    """Write ``records`` as a JSON Lines ledger at ``path``; counts by kind.

    The file is written next to its final name and renamed at the end, so a
    failing import leaves no partial ledger behind.
    """
    counts: Counter[str] = Counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            out.write(json.dumps(header()) + "\n")
            for record in records:
                counts[record["type"]] += 1
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return counts
