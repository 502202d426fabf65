"""What every importer shares: the ledger records it writes, and how it writes them.

An adapter turns one benchmark's files into ledger records (docs/spec/ledger.md,
the contract; the ledger format is not extended). The records are plain
dicts with a ``type`` field, written as JSON Lines so that the existing
reader and loader check and load them like any other ledger.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hopgate.errors import InputRefused, LedgerError
from hopgate.escaping import json_data
from hopgate.inputs import (
    MAX_DEPTH,
    MAX_IMPORT_BYTES,
    bounded_int,
    decode_text,
    lines,
    parse_json,
    read_document,
    replace_refused,
    scan,
    text_lines,
)

_CONTENT = re.compile(rb"[^ \t\r\n]")
_BLANKS = re.compile(r"[ \t\r\n]*")

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
    #: What the conversion counted besides the records (``judge failure``: answers the
    #: correctness judge failed to decide, left of unknown correctness).
    counts: Counter[str] = field(default_factory=Counter)


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


def refused(path: Path, exc: InputRefused, record: str | None = None) -> LedgerError:
    """The :class:`LedgerError` of an input refused by :mod:`hopgate.inputs`."""
    return LedgerError(exc.detail, file=str(path), record=exc.record or record, field=exc.field)


def checked(path: Path, value: Any, record: str | None, *, benchmark: bool = False) -> Any:
    """``value`` (one parsed item), checked against the input bounds (:func:`hopgate.inputs.scan`:
    depth, refused characters, text size); the error names file, record and field.

    A public benchmark's file (``benchmark``) has its refused characters replaced by U+FFFD
    instead (:func:`hopgate.inputs.replace_refused`): scraped pages hold mojibake.
    """
    if benchmark:
        value, _ = replace_refused(value)
    try:
        scan(value)
    except InputRefused as exc:
        raise refused(path, exc, record) from None
    return value


def read_json(path: Path) -> Any:
    """Parse one JSON document of a public benchmark (gzip'd when named ``.gz``), naming the
    file in the error.

    The file is read whole, at most :data:`~hopgate.inputs.MAX_IMPORT_BYTES`;
    refused characters in its texts become U+FFFD (:func:`checked`).
    """
    try:
        text = decode_text(read_document(path, limit=MAX_IMPORT_BYTES))
        data = parse_json(text, strict=False)
    except InputRefused as exc:
        raise refused(path, exc) from None
    except json.JSONDecodeError as exc:
        raise LedgerError(
            f"not JSON: {exc.msg}", file=str(path), record=f"line {exc.lineno}"
        ) from None
    return checked(path, data, None, benchmark=True)


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line of a public benchmark's
    JSON Lines file.

    Lines end at LF only (U+2028 and U+0085 are text inside a line); refused
    characters in its texts become U+FFFD (:func:`checked`).
    """
    try:
        for number, line in text_lines(path):
            where = f"line {number}"
            try:
                item = parse_json(line, strict=False)
            except json.JSONDecodeError as exc:
                raise LedgerError(f"not JSON: {exc.msg}", file=str(path), record=where) from None
            except InputRefused as exc:
                raise refused(path, exc, where) from None
            yield number, checked(path, item, where, benchmark=True)
    except InputRefused as exc:
        raise refused(path, exc) from None


def read_items(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, parsed object) for each item of a JSON Lines file or of one JSON list.

    The spelling is told by the first non-space character (``[`` for a list);
    UTF-8 with or without a byte-order mark, gzip'd when the name ends in
    ``.gz``; lines end at LF only (U+2028 and U+0085 are text inside a line).
    ``where`` is ``line N`` (for a list item, the line it starts on and its
    index: ``line N ([i])``). Each item is checked against the input bounds.
    """
    try:
        data = read_document(path, limit=MAX_IMPORT_BYTES)
    except InputRefused as exc:
        raise refused(path, exc) from None
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    start = _CONTENT.search(body)
    if start is not None and body[start.start()] == ord("["):
        try:
            text = decode_text(data)
        except InputRefused as exc:
            raise refused(path, exc) from None
        for where, item in _list_items(path, text):
            yield where, checked(path, item, where)
        return
    first = True
    try:
        for number, raw in lines(io.BytesIO(data)):
            where = f"line {number}"
            try:
                line = raw.decode("utf-8-sig" if first else "utf-8")
            except UnicodeDecodeError as exc:
                raise LedgerError(
                    f"not UTF-8 text (byte {exc.start} of the line)", file=str(path), record=where
                ) from None
            first = False
            try:
                item = parse_json(line, strict=False)
            except json.JSONDecodeError as exc:
                hint = (
                    " (one JSON object per line, or one JSON list)"
                    if line.lstrip().startswith("{")
                    else ""
                )
                raise LedgerError(
                    f"not JSON: {exc.msg}{hint}", file=str(path), record=where
                ) from None
            except InputRefused as exc:
                raise refused(path, exc, where) from None
            yield where, checked(path, item, where)
    except InputRefused as exc:
        raise refused(path, exc) from None


def _list_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    decoder = json.JSONDecoder(parse_int=bounded_int)
    counted = [0, 1]  # position and line number reached: lines are counted once, forward

    def line_of(position: int) -> int:
        counted[1] += text.count("\n", counted[0], position)
        counted[0] = position
        return counted[1]

    def skip(position: int) -> int:
        found = _BLANKS.match(text, position)
        return found.end() if found is not None else position

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
        except RecursionError:
            raise LedgerError(
                f"not JSON: nested more than {MAX_DEPTH} levels deep",
                file=str(path),
                record=f"line {line_of(position)} ([{index}])",
            ) from None
        except InputRefused as exc:
            raise refused(path, exc, f"line {line_of(position)} ([{index}])") from None
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


def id_text(value: Any, *, file: Path, record: str, field: str) -> str:
    """An id given as text or an integer (not empty, not a boolean), as text; else a
    LedgerError naming ``field`` (null became the id "None"). The text must be
    :func:`kept_apart`."""
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise LedgerError(
            f"expected an id (text or an integer, not empty), got {value!r:.80}",
            file=str(file),
            record=record,
            field=field,
        )
    return kept_apart(str(value), file=file, record=record, field=field)


def kept_apart(name: str, *, file: Path, record: str, field: str) -> str:
    """``name``, an id or a page name read from a public benchmark's file; a LedgerError
    when it holds U+FFFD.

    :func:`checked` replaces each refused character of such a file by U+FFFD, which
    keeps a text's offsets but makes two names differing only there one name ("A\x01"
    and "A\x02" would both be "A\ufffd"): one source, or one claim, where the file
    has two. A name is refused instead, naming where it is.
    """
    if "\ufffd" in name:
        raise LedgerError(
            f"the name {name!r:.80} holds a character hopgate refuses (a control "
            "character, shown as U+FFFD) or U+FFFD itself: two such names could not be "
            "told apart",
            file=str(file),
            record=record,
            field=field,
        )
    return name


def first_time(
    seen: dict[str, str], key: str, what: str, *, file: Path, record: str, field: str
) -> None:
    """Note that ``key`` was read at ``record`` of ``file``; a LedgerError when it was read
    before: ids equal as text (1 and "1") are one id in a ledger, so the import refuses
    the second, naming the input, rather than write a ledger that does not load."""
    if key in seen:
        raise LedgerError(
            f"duplicate {what} {key!r} (first at {seen[key]})",
            file=str(file),
            record=record,
            field=field,
        )
    seen[key] = f"{file.name} {record}"


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
                out.write(json_data(record) + "\n")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return counts
