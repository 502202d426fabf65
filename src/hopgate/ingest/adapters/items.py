"""One item of a pipeline's file: where it is, its fields, and the error naming them.

The files of ``hopgate import rag`` (docs/rag-format.md) are read item by item
(a line of JSON Lines, an element of a JSON list); a problem inside an item
is an :class:`ItemError` naming its field, to which the caller adds the file
and the line (:func:`item_error`). Which fields an item may carry is checked
here (:func:`check_fields`): a field close to a known one is an error with
"did you mean" (:mod:`hopgate.suggest`), any other unknown field is counted
for the import's notes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hopgate.errors import LedgerError
from hopgate.ingest.adapters.common import Record
from hopgate.suggest import did_you_mean, near_misses
from hopgate.times import xsd_datetime

#: One item of an input: (file name, where in the file, the parsed item).
Item = tuple[str, str, Any]


class ItemError(Exception):
    """A problem inside one item; the caller adds file and line."""

    def __init__(self, message: str, field: str | None) -> None:
        super().__init__(message)
        self.field = field


def item_error(file: str, where: str, exc: ItemError, record_id: str | None = None) -> LedgerError:
    """The ``LedgerError`` of an item's problem: file, line (or call) and field."""
    return LedgerError(str(exc), file=file, record=where, field=exc.field, record_id=record_id)


@dataclass
class Conversion:
    """What a conversion made: ledger records, and what the import should say."""

    records: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def field_id(item: dict[str, Any], key: str = "id") -> str:
    """The id in ``item[key]``: a non-empty string or an integer (read as its decimal string)."""
    if key not in item:
        raise ItemError("missing field" + did_you_mean(key, item), key)
    value = item[key]
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise ItemError(f"expected a non-empty string id, got {value!r}", key)
    return str(value)


def as_object(item: Any) -> dict[str, Any]:
    """``item`` when it is a JSON object."""
    if not isinstance(item, dict):
        raise ItemError(f"expected a JSON object, got {type(item).__name__}", None)
    return item


def field_string(item: dict[str, Any], key: str, *, required: bool) -> str | None:
    """The string in ``item[key]`` (a number is read as its text); None when absent."""
    value = item.get(key)
    if value is None:
        if required:
            raise ItemError("missing field" + did_you_mean(key, item), key)
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # an answer such as 1969
    if not isinstance(value, str):
        raise ItemError(f"expected a string, got {type(value).__name__}", key)
    if required and not value.strip():
        raise ItemError("expected a non-empty string", key)
    return value


def field_bool(item: dict[str, Any], key: str) -> bool | None:
    """The boolean in ``item[key]``; None when absent."""
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ItemError(f"expected true or false, got {value!r}", key)
    return value


def check_fields(
    item: dict[str, Any],
    known: Iterable[str],
    unknown: Counter[str] | None = None,
    *,
    at: str = "",
    strict: bool = False,
) -> None:
    """Refuse a field of ``item`` that is a near miss of a known one; count the other unknowns.

    ``at`` prefixes the field named in the error (``claims[0].``). Fields
    starting with ``x-`` are the user's own and never counted. With
    ``strict``, every unknown field is an error.

    Raises:
        ItemError: a field close to a known one ("did you mean"), or any
            unknown field when ``strict``.
    """
    allowed = set(known)
    for key in item:
        if key in allowed or str(key).startswith("x-"):
            continue
        if strict or near_misses(str(key), allowed):
            listed = (
                ""
                if near_misses(str(key), allowed)
                else f" (allowed: {', '.join(sorted(allowed))})"
            )
            raise ItemError(f"unknown field{did_you_mean(str(key), allowed)}{listed}", f"{at}{key}")
        if unknown is not None:
            unknown[f"{at}{key}"] += 1


def note_unknown(notes: list[str], file: str, fields: Counter[str]) -> None:
    """Say which fields of ``file`` the import ignored, with how many items had each."""
    if fields:
        listed = ", ".join(f"'{k}' ({n})" for k, n in sorted(fields.items()))
        notes.append(f"{file}: ignored fields not in the format: {listed}")


def file_time(path: Path) -> str:
    """The modification time of ``path`` as an ISO 8601 UTC date-time (whole seconds)."""
    moment = datetime.fromtimestamp(int(path.stat().st_mtime), UTC)
    return xsd_datetime(moment, seconds_only=True)
