"""Rewrites that let the library's portable SPARQL run on servers with known gaps.

The query files in ``queries/`` are the only copy of the logic; a server that
needs a different spelling of the same meaning gets it here, applied by the
remote store just before sending, never in the library. Each rewrite keeps
the query's meaning and is pinned by a test (``tests/test_dialect.py``) and by
the Virtuoso parity tests.
"""

from __future__ import annotations

import re

_EXISTS = re.compile(r"(NOT\s+)?EXISTS\s*\{", re.IGNORECASE)
_BIND = re.compile(r"\bBIND\s*\(", re.IGNORECASE)
_IRIREF = re.compile(r'<[^<>"{}|^`\\\s]*>')


def _skip_token(text: str, i: int) -> int:
    """The index after a string literal, IRI or comment starting at ``i`` (``i`` otherwise)."""
    ch = text[i]
    if ch == "#":
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if ch in "\"'":
        quote = ch * 3 if text.startswith(ch * 3, i) else ch
        j = i + len(quote)
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text.startswith(quote, j):
                return j + len(quote)
            j += 1
        return len(text)
    if ch == "<":
        match = _IRIREF.match(text, i)
        if match:
            return match.end()
    return i


def _closing(text: str, i: int, opener: str, closer: str) -> int:
    """The index of the bracket closing the one at ``i``."""
    depth = 0
    j = i
    while j < len(text):
        skipped = _skip_token(text, j)
        if skipped != j:
            j = skipped
            continue
        if text[j] == opener:
            depth += 1
        elif text[j] == closer:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ValueError(f"unbalanced {opener}{closer} in the query")


def _wrap_exists(expression: str) -> str:
    out = []
    i = 0
    while True:
        match = _EXISTS.search(expression, i)
        if match is None:
            out.append(expression[i:])
            return "".join(out)
        brace = match.end() - 1
        end = _closing(expression, brace, "{", "}")
        out.append(expression[i : match.start()])
        out.append(f"IF({expression[match.start() : end + 1]}, true, false)")
        i = end + 1


def exists_as_values(query: str) -> str:
    """Write each ``EXISTS {...}`` / ``NOT EXISTS {...}`` inside a ``BIND`` as ``IF(..., true, false)``.

    Virtuoso 7 compiles ``BIND (EXISTS {...} && NOT EXISTS {...} AS ?v)`` into
    SQL it then rejects (SQ074); it accepts each EXISTS wrapped in ``IF``,
    which has the same value. FILTERs are left alone (Virtuoso compiles
    ``FILTER (NOT EXISTS ...)`` as an anti-join, which ``IF`` would defeat).
    """
    out = []
    i = 0
    while True:
        match = _BIND.search(query, i)
        if match is None:
            out.append(query[i:])
            return "".join(out)
        # A BIND inside a comment or string is left alone.
        if _inside_comment_or_string(query, match.start()):
            out.append(query[i : match.end()])
            i = match.end()
            continue
        paren = match.end() - 1
        end = _closing(query, paren, "(", ")")
        out.append(query[i : paren + 1])
        out.append(_wrap_exists(query[paren + 1 : end]))
        out.append(")")
        i = end + 1


def _inside_comment_or_string(text: str, position: int) -> bool:
    j = 0
    while j < position:
        skipped = _skip_token(text, j)
        if skipped != j:
            if skipped > position:
                return True
            j = skipped
            continue
        j += 1
    return False


__all__ = ["exists_as_values"]
