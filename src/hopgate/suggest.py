"""Near misses: the known name a mistyped one was probably meant to be.

One rule for every "did you mean" hopgate prints (an unknown field of an
input, an unknown run, an output id given without its run): a known name is
a near miss of the given one when their similarity (difflib's ratio, case
ignored) is at least :data:`CUTOFF`, or when the given name is the known
one's last ``/`` parts (``q3`` or ``qA/o1`` for ``my-rag/q3`` or ``sys-a/qA/o1``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: The similarity from which a known name is offered (``citation`` for ``citations``: 0.94).
CUTOFF = 0.8


def near_misses(given: str, known: Iterable[str], *, limit: int = 3) -> list[str]:
    """The known names ``given`` was probably meant to be, the closest first (at most ``limit``).

    Example:
        >>> near_misses("citation", ["id", "answer", "citations", "contexts"])
        ['citations']
        >>> near_misses("q3", ["my-rag/q1", "my-rag/q3", "other/q3"])
        ['my-rag/q3', 'other/q3']
        >>> near_misses("qA/o1", ["sys-a/qA/o1", "sys-a/qB/o1"])
        ['sys-a/qA/o1']
    """
    candidates = sorted(set(known))
    if given in candidates:
        return []
    # An id given without the prefix its records carry (an output id without its run).
    tails = [name for name in candidates if name.endswith("/" + given)]
    lowered = {name.lower(): name for name in candidates}
    close = [
        lowered[name]
        for name in difflib.get_close_matches(given.lower(), list(lowered), n=limit, cutoff=CUTOFF)
    ]
    found = list(dict.fromkeys(tails + close))
    return found[:limit]


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` naming the near misses of ``given``, or an empty string.

    Example:
        >>> did_you_mean("corect", ["correct", "answer"])
        " (did you mean 'correct'?)"
    """
    found = near_misses(given, known)
    if not found:
        return ""
    return " (did you mean " + " or ".join(repr(name) for name in found) + "?)"


def unknown_name(kind: str, given: str, known: Iterable[str], *, where: str) -> str:
    """The message for an unknown name: its near misses, then every known one (``where``).

    Example:
        >>> unknown_name("run", "my-rg", ["my-rag", "sys-a"], where="runs in the store")
        "unknown run 'my-rg' (did you mean 'my-rag'?) (runs in the store: my-rag, sys-a)"
    """
    names = sorted(set(known))
    listed = ", ".join(names) if names else "none"
    return f"unknown {kind} {given!r}{did_you_mean(given, names)} ({where}: {listed})"


__all__ = ["CUTOFF", "did_you_mean", "near_misses", "unknown_name"]
