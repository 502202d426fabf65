"""Anchoring spans in version texts, and the integrity of version bytes.

Offsets are Unicode code points (``start`` inclusive, ``end`` exclusive), the
same unit Python's ``str`` indexes by, so ``text[start:end]`` is the span
(docs/spec/ledger.md "Spans").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from hopgate.errors import AnchorError


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a span sits in its version's text, with the exact text there."""

    start: int
    end: int
    exact: str


def sha256_digest(text: str) -> str:
    """``sha256:<hex>`` of the UTF-8 bytes of ``text``."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def anchor(
    text: str,
    *,
    start: int | None = None,
    end: int | None = None,
    quote: str | None = None,
    prefix: str | None = None,
    suffix: str | None = None,
) -> Anchor:
    """Place a span by offsets, by quote (prefix / suffix disambiguate), or both.

    With offsets and a quote, the quote must be the text at those offsets.

    Raises:
        AnchorError: offsets outside the text, ``end <= start``, a quote that is
            not at its offsets, not found, or found more than once with nothing
            to choose between the occurrences.
    """
    # JSON Schema counts 3.0 as an integer (and a ledger may spell it so): use the int.
    start = int(start) if isinstance(start, float) and start.is_integer() else start
    end = int(end) if isinstance(end, float) and end.is_integer() else end
    if (start is None) != (end is None):
        missing = "end" if end is None else "start"
        raise AnchorError("expected both start and end, or neither (with a quote)", missing)
    if start is not None and end is not None:
        if start < 0:
            raise AnchorError(f"expected start >= 0, got {start}", "start")
        if end <= start:
            raise AnchorError(f"expected end > start, got start {start}, end {end}", "end")
        if end > len(text):
            raise AnchorError(
                f"offsets outside the text: end {end} > text length {len(text)} code points",
                "end",
            )
        exact = text[start:end]
        if quote is not None and quote != exact:
            raise AnchorError(
                f"quote is not at its offsets: text[{start}:{end}] is {_show(exact)}", "quote"
            )
        if prefix is not None and not _precedes(text, prefix, start):
            raise AnchorError(f"prefix does not precede offset {start}", "prefix")
        if suffix is not None and not text.startswith(suffix, end):
            raise AnchorError(f"suffix does not follow offset {end}", "suffix")
        return Anchor(start, end, exact)
    if quote is None:
        raise AnchorError("expected start and end, a quote, or a locator", "quote")
    found = _occurrences(text, quote, prefix, suffix)
    if not found:
        hint = " with that prefix/suffix" if prefix is not None or suffix is not None else ""
        raise AnchorError(f"quote not found in the version's text{hint}", "quote")
    if len(found) > 1:
        raise AnchorError(
            f"quote occurs {_times(found)} (at {', '.join(map(str, found[:5]))}); "
            "give a prefix or suffix, or offsets, to choose one",
            "quote",
        )
    return Anchor(found[0], found[0] + len(quote), quote)


def _precedes(text: str, prefix: str, position: int) -> bool:
    """True when ``prefix`` ends at ``position`` (compared in place: no copy of the text)."""
    return len(prefix) <= position and text.startswith(prefix, position - len(prefix))


#: Occurrences counted before a quote is reported as ambiguous ("more than").
MAX_COUNTED = 1000


def _occurrences(text: str, quote: str, prefix: str | None, suffix: str | None) -> list[int]:
    """Starts of ``quote`` with its prefix before and its suffix after (at most
    MAX_COUNTED + 1 of them).

    The quote occurs there exactly where prefix + quote + suffix occurs, so one
    ``str.find`` per hit does it: linear in the text (testing each occurrence
    of the bare quote by slicing ``text[:position]`` was quadratic in the
    text's length).
    """
    needle = (prefix or "") + quote + (suffix or "")
    offset = len(prefix or "")
    hits: list[int] = []
    position = text.find(needle)
    while position != -1 and len(hits) <= MAX_COUNTED:
        hits.append(position + offset)
        position = text.find(needle, position + 1)
    return hits


def _times(found: list[int]) -> str:
    return f"more than {MAX_COUNTED} times" if len(found) > MAX_COUNTED else f"{len(found)} times"


def _show(value: str, limit: int = 60) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "...")
