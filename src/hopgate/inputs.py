"""Untrusted input, read within bounds: the one home of hopgate's input limits.

Every file hopgate reads was written by someone else: ledgers, a pipeline's
or a benchmark's files, shapes and data for ``hopgate shacl``, proofs and
manifests for ``verify``, query files. Each reader opens and parses it here,
so one set of bounds holds everywhere (docs/security.md "Bounded input"):

- only regular files are opened: a FIFO or a device is refused without a
  blocking read (:func:`open_regular`);
- a file read whole holds at most :data:`MAX_DOCUMENT_BYTES`, gunzipped too,
  so a small gzip cannot become a large document (:func:`read_document`);
- lines are split on LF only (U+2028, U+0085 and CR are data inside a line,
  as JSON Lines says), hold at most :data:`MAX_LINE_BYTES`, and blank lines
  are skipped at the speed of a byte search (:func:`lines`);
- JSON numbers have at most :data:`MAX_DIGITS` digits and values nest at most
  :data:`MAX_DEPTH` levels, checked without recursion (:func:`parse_json`,
  :func:`scan`);
- text holds no control character other than tab and the line breaks LF, CR
  and NEL (U+0085), no NUL, no lone surrogate and neither U+FFFE nor U+FFFF
  (:data:`REFUSED_CHARACTERS`).

Each refusal is an :class:`~hopgate.errors.InputRefused` naming the line or
field where it is known; the reader adds the file and reports it in its own
error, so the command ends with one ``Error:`` line.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any

from hopgate.errors import InputRefused

#: Nesting depth of a value (lists and mappings), of shapes (sh:node, sh:property, ...)
#: and of a property path; a ledger needs about 6, the SHACL-for-SHACL shapes 16.
MAX_DEPTH = 64
#: Digits of a JSON integer (Python's own default bound on int conversion, made explicit).
MAX_DIGITS = 4300
#: Bytes of a file read whole (a YAML or JSON ledger, an input of ``import``, RDF for
#: ``hopgate shacl``, a proofs file), after gunzip; larger ledgers are JSON Lines, a stream.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
#: Bytes of a benchmark's or a pipeline's file read whole by ``hopgate import``, after
#: gunzip (HotpotQA's training set is 540 MB).
MAX_IMPORT_BYTES = 1024 * 1024 * 1024
#: Bytes of one line of a JSON Lines file (a version text of MAX_LITERAL_BYTES fits).
MAX_LINE_BYTES = 64 * 1024 * 1024
#: Bytes of a text written as one N-Quads literal (escapes included): the largest token
#: Oxigraph's parser takes is 16 MiB.
MAX_LITERAL_BYTES = 16 * 1024 * 1024 - 4096
#: A YAML document's nodes after aliases are expanded, per node written (plus a margin):
#: an alias bomb (each alias doubling the size) is refused before it is expanded.
MAX_ALIAS_EXPANSION = 10
#: IRIs in one SHACL property path (sequence, alternatives and nested paths together).
MAX_PATH_STEPS = 64
#: Shapes one targeted shape expands to, each nested shape counted every time it is
#: reached (the SHACL-for-SHACL shapes reach 157): a "shape bomb" of shapes that each
#: name the next twice is refused before any engine expands it.
MAX_SHAPE_EXPANSION = 1024
#: Seconds the reference engine (pySHACL) may run: it matches ``sh:pattern`` with
#: Python's backtracking regular expressions, which have no time limit of their own.
REFERENCE_SECONDS = 600.0

#: Control characters text may hold: tab and the line breaks LF, CR and NEL.
ALLOWED_CONTROLS = "\t\n\r\x85"
#: Characters no RDF syntax or store round-trips: NUL, lone surrogates, U+FFFE, U+FFFF.
UNCARRIED = re.compile("[\x00\ud800-\udfff\ufffe\uffff]")
#: Characters refused in any input text: the uncarried ones and every C0 and C1 control
#: character but those of :data:`ALLOWED_CONTROLS` (ESC, DEL and form feed among them).
REFUSED_CHARACTERS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
)

_BLOCK = 1 << 20
_CONTENT = re.compile(rb"[^ \t\r\n]")


def refused_character(text: str) -> str | None:
    """Why ``text`` is refused (its first refused character), or None when it is not."""
    found = REFUSED_CHARACTERS.search(text)
    if found is None:
        return None
    char = found.group()
    if "\ud800" <= char <= "\udfff":
        return "expected Unicode text, got a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    if UNCARRIED.fullmatch(char):
        return f"expected text without U+{ord(char):04X} (no RDF format carries it)"
    return (
        f"expected text without the control character U+{ord(char):04X} "
        "(only tab and line breaks are allowed)"
    )


def literal_size(text: str) -> int:
    """Bytes of ``text`` written as an N-Quads literal (hopgate escapes \\, ", LF, CR)."""
    escaped = text.count("\\") + text.count('"') + text.count("\n") + text.count("\r")
    return len(text.encode("utf-8")) + escaped


# ---- files ----------------------------------------------------------------------------------


def open_regular(path: str | os.PathLike[str], *, follow_links: bool = True) -> IO[bytes]:
    """``path`` opened for reading in binary, if it is a regular file.

    The file is opened without blocking and checked before anything is read:
    a FIFO, a socket, a device or a directory is refused (a FIFO would hang
    the read). With ``follow_links`` False a symbolic link is refused too.

    Raises:
        InputRefused: no such file, not a regular file, or not readable.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY
    if not follow_links:
        flags |= os.O_NOFOLLOW
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise InputRefused("no such file") from None
    except OSError as exc:
        raise InputRefused(f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(descriptor).st_mode
    except OSError as exc:
        os.close(descriptor)
        raise InputRefused(f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO, socket or device"
        raise InputRefused(f"not a regular file ({kind}; only regular files are read)")
    return os.fdopen(descriptor, "rb")


def _gzip_name(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).lower().endswith(".gz")


@contextlib.contextmanager
def open_stream(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A regular file's bytes as a stream, gunzipped when its name ends in ``.gz``.

    Raises:
        InputRefused: as :func:`open_regular`.
    """
    with open_regular(path) as raw:
        if not _gzip_name(path):
            yield raw
            return
        # GzipFile never closes the file it is given: the outer ``with`` does.
        with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
            yield unzipped  # type: ignore[misc]


def read_regular(path: str | os.PathLike[str], *, limit: int | None = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (None: any size; never gunzipped).

    Raises:
        InputRefused: as :func:`open_regular`, or the file is larger than ``limit``.
    """
    with open_regular(path) as handle:
        try:
            data = handle.read(-1 if limit is None else limit + 1)
        except OSError as exc:
            raise InputRefused(f"cannot read: {exc.strerror or exc}") from None
    if limit is not None and len(data) > limit:
        raise InputRefused(f"larger than {limit:,} bytes (the limit of a file read whole)")
    return data


def read_document(path: str | os.PathLike[str], *, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of a file read whole, gunzipped when its name ends in ``.gz``; at most
    ``limit`` bytes after gunzip (a gzip bomb stops at the limit, not in memory).

    Raises:
        InputRefused: as :func:`open_regular`, not a gzip file, or over ``limit``.
    """
    if not _gzip_name(path):
        return read_regular(path, limit=limit)
    with open_regular(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as handle:
        try:
            data = handle.read(limit + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputRefused(f"not a readable gzip file: {exc}") from None
    if len(data) > limit:
        raise InputRefused(
            f"larger than {limit:,} bytes once gunzipped (the limit of a file read whole)"
        )
    return data


def decode_text(data: bytes) -> str:
    """UTF-8 text, with or without a byte-order mark.

    Raises:
        InputRefused: not UTF-8 (``record`` names the line of the first bad byte).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputRefused(f"not UTF-8 text (byte {exc.start})", record=f"line {line}") from None


def lines(
    stream: IO[bytes], *, limit: int = MAX_LINE_BYTES, block: int = _BLOCK
) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each line of ``stream`` that is not blank.

    Lines end at LF only (a CR before it stays, as JSON whitespace). Blank
    lines (spaces, tabs, CRs) are counted with a byte search, never yielded,
    so a file of a billion of them costs what reading it costs. A line's
    leading blanks are dropped. The stream is read in blocks of ``block``
    bytes; a line over ``limit`` bytes is refused when it reaches the limit,
    not after.

    Raises:
        InputRefused: a line over ``limit`` bytes, or the stream cannot be read
            (a damaged gzip).
    """
    number = 1  # the line the next byte belongs to
    carry: list[bytes] = []  # the started line (not blank) that the chunk ended inside
    carried = 0

    def too_long() -> InputRefused:
        return InputRefused(
            f"line longer than {limit:,} bytes (a JSON Lines line holds one record)",
            record=f"line {number}",
        )

    while True:
        try:
            chunk = stream.read(block)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputRefused(f"cannot read: {exc}") from None
        if not chunk:
            if carry:
                yield number, b"".join(carry)
            return
        position = 0
        size = len(chunk)
        while position < size:
            if carry:
                end = chunk.find(b"\n", position)
                piece = chunk[position:] if end < 0 else chunk[position:end]
                carry.append(piece)
                carried += len(piece)
                if carried > limit:
                    raise too_long()
                if end < 0:
                    break
                yield number, b"".join(carry)
                carry, carried = [], 0
                number += 1
                position = end + 1
                continue
            content = _CONTENT.search(chunk, position)
            if content is None:
                number += chunk.count(b"\n", position)
                break
            start = content.start()
            number += chunk.count(b"\n", position, start)
            end = chunk.find(b"\n", start)
            if end < 0:
                carry, carried = [chunk[start:]], size - start
                if carried > limit:
                    raise too_long()
                break
            if end - start > limit:
                raise too_long()
            yield number, chunk[start:end]
            number += 1
            position = end + 1


def text_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line of a (possibly gzip'd) UTF-8 file.

    A byte-order mark on the first line is dropped.

    Raises:
        InputRefused: as :func:`open_stream` and :func:`lines`, or a line is not UTF-8
            (``record`` names the line).
    """
    with open_stream(path) as stream:
        for number, raw in lines(stream):
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise InputRefused(
                    f"not UTF-8 text (byte {exc.start} of the line)", record=f"line {number}"
                ) from None
            yield number, text


# ---- JSON -----------------------------------------------------------------------------------


def bounded_int(text: str) -> int:
    """A JSON integer of at most :data:`MAX_DIGITS` digits (json's ``parse_int``).

    Raises:
        InputRefused: more digits.
    """
    digits = len(text) - text.startswith("-")
    if digits > MAX_DIGITS:
        raise InputRefused(f"a number of {digits:,} digits, over the limit of {MAX_DIGITS:,}")
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InputRefused(f"the key {key!r} is given twice")
            seen.add(key)
    return result


def _no_constant(name: str) -> Any:
    raise InputRefused(f"{name} is not a JSON number")


def parse_json(
    text: str | bytes, *, strict: bool = True, parse_float: Callable[[str], Any] | None = None
) -> Any:
    """``json.loads`` within bounds: integers of at most :data:`MAX_DIGITS` digits, and
    nesting too deep for the parser refused (:func:`scan` bounds it to
    :data:`MAX_DEPTH`). ``strict`` (the ledger's JSON) also refuses a key
    given twice, and NaN and the infinities spelled as words (a number beyond a
    float's range, such as ``1e400``, is read as infinity: ``parse_float``, called
    with each number's text that is not an integer, may note it).

    Raises:
        json.JSONDecodeError: not JSON (the caller says where).
        InputRefused: a bound or a strict rule is broken.
    """
    try:
        if strict:
            return json.loads(
                text,
                parse_int=bounded_int,
                object_pairs_hook=_unique_keys,
                parse_constant=_no_constant,
                parse_float=parse_float,
            )
        return json.loads(text, parse_int=bounded_int, parse_float=parse_float)
    except RecursionError:
        raise InputRefused(f"nested more than {MAX_DEPTH} levels deep") from None


# ---- values ---------------------------------------------------------------------------------


def replace_refused(value: Any) -> tuple[Any, int]:
    """``value`` with every refused character of its texts and keys replaced by U+FFFD, one
    for one (so offsets into a text still hold), and how many were replaced. Without
    recursion; nesting past :data:`MAX_DEPTH` is left for :func:`scan` to refuse.

    For public benchmark files, whose scraped texts hold mojibake (WiCE: U+0095); a
    pipeline's own files and ledgers are refused instead.
    """
    count = 0

    def clean(text: str) -> str:
        nonlocal count
        cleaned, found = REFUSED_CHARACTERS.subn("\ufffd", text)
        count += found
        return cleaned

    root: list[Any] = [value]
    stack: list[tuple[Any, Any, int]] = [(root, 0, 0)]
    while stack:
        parent, key, depth = stack.pop()
        item = parent[key]
        if isinstance(item, str):
            parent[key] = clean(item)
        elif isinstance(item, list) and depth < MAX_DEPTH:
            stack.extend((item, index, depth + 1) for index in range(len(item)))
        elif isinstance(item, dict) and depth < MAX_DEPTH:
            if any(isinstance(k, str) and REFUSED_CHARACTERS.search(k) for k in item):
                item = {clean(k) if isinstance(k, str) else k: v for k, v in item.items()}
                parent[key] = item
            stack.extend((item, name, depth + 1) for name in item)
    return root[0], count


def scan(value: Any, *, characters: bool = True) -> None:
    """Check a parsed value (JSON or YAML) against the bounds, without recursion.

    Refused: nesting deeper than :data:`MAX_DEPTH`, keys that are not text,
    refused characters in keys and texts (:func:`refused_character`), a text
    over :data:`MAX_LITERAL_BYTES` as a literal, NaN and the infinities, and
    values JSON cannot hold (YAML's ``!!binary``, ``!!set``, ``!!timestamp``).
    With ``characters`` False (RDF, whose own syntax escapes any character)
    only the nesting, the keys and the values' types are checked.

    Raises:
        InputRefused: ``field`` names the value (``claims[0].text``; None for the whole).
    """
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        path, item, depth = stack.pop()
        problem = None
        if isinstance(item, str):
            if not characters:
                continue
            problem = refused_character(item)
            if (
                problem is None
                and len(item) > MAX_LITERAL_BYTES // 2
                and literal_size(item) > MAX_LITERAL_BYTES
            ):
                problem = (
                    f"a text of {literal_size(item):,} bytes as a literal, over the "
                    f"{MAX_LITERAL_BYTES:,}-byte limit of one text"
                )
        elif isinstance(item, bool) or item is None or isinstance(item, int):
            pass
        elif isinstance(item, float):
            if not math.isfinite(item):
                problem = f"expected a finite number, got {item!r} (JSON has no NaN or Infinity)"
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                problem = f"nested more than {MAX_DEPTH} levels deep"
            elif isinstance(item, dict):
                for key, member in item.items():
                    if not isinstance(key, str):
                        problem = f"expected text keys, got the key {key!r} ({type(key).__name__})"
                        break
                    name = f"{path}.{key}" if path else key
                    stack.append((name, key, depth + 1))
                    stack.append((name, member, depth + 1))
            else:
                stack.extend((f"{path}[{i}]", member, depth + 1) for i, member in enumerate(item))
        else:
            kind = type(item).__name__
            problem = (
                f"expected a JSON value, got a YAML {kind} (such as !!binary, !!set, !!timestamp)"
            )
        if problem is not None:
            raise InputRefused(problem, field=path or None)


__all__ = [
    "ALLOWED_CONTROLS",
    "MAX_ALIAS_EXPANSION",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_DOCUMENT_BYTES",
    "MAX_IMPORT_BYTES",
    "MAX_LINE_BYTES",
    "MAX_LITERAL_BYTES",
    "MAX_PATH_STEPS",
    "MAX_SHAPE_EXPANSION",
    "REFERENCE_SECONDS",
    "REFUSED_CHARACTERS",
    "UNCARRIED",
    "bounded_int",
    "decode_text",
    "lines",
    "literal_size",
    "open_regular",
    "open_stream",
    "parse_json",
    "read_document",
    "read_regular",
    "refused_character",
    "replace_refused",
    "scan",
    "text_lines",
]
