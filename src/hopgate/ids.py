"""Reversible minting of IRIs from ledger ids.

Ledger ids are arbitrary non-empty strings. Each becomes
``ID_BASE + kind + "/" + quote(id)``, where every character outside the
unreserved set ``A-Z a-z 0-9 - . _ ~`` is percent-encoded as UTF-8, so the
encoded id never contains ``/`` or ``#`` and reads back exactly.

Why reading an id back from a minted IRI is safe for any id (a newline, a
tab, U+0001, an emoji, ``/``, ``@``, ``[0:10]``): the encoding is injective
(``%`` itself is escaped, so no two ids share a segment) and :func:`parse`
accepts only what :func:`mint` makes (it re-encodes the decoded id and
compares). A case IRI joins two such segments with ``/``, which neither
contains, so :func:`parse_case` splits exactly. ``tests/test_ids.py`` holds
both properties over arbitrary text. The queries never take ids apart: they
compare terms, and read ``hg:ledgerId`` literals where they need an id
(docs/spec/records.md "Identifiers"; docs/spec/ledger.md "Record basics").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import quote, unquote

from hopgate.vocab import ID_BASE, PREFIXES

KINDS = frozenset(
    {
        "evaluation",
        "reader",
        "source",
        "version",
        "fetch",
        "span",
        "question",
        "claim",
        "set",
        "annotation",
        "rule",
        "contradiction",
        "run",
        "case",
        "output",
        "judgment",
        "agent",
        "load",
        "ledger",
        "evaluation-activity",
        "card",
    }
)


#: A path segment quote(safe="") leaves as it is (its always-safe characters).
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]+")


@lru_cache(maxsize=1 << 16)
def encode_id(ledger_id: str) -> str:
    """Percent-encode one ledger id so that it is a single IRI path segment."""
    # Most ids are of the characters quote() leaves as they are: a load of 10k claims
    # mints more ids than the cache holds, and the match costs a tenth of quote().
    if _PLAIN.fullmatch(ledger_id):
        return ledger_id
    return quote(ledger_id, safe="")


def mint(kind: str, ledger_id: str) -> str:
    """Return the IRI of the record of ``kind`` whose ledger id is ``ledger_id``."""
    if kind not in KINDS:
        raise ValueError(f"unknown record kind {kind!r}")
    if kind == "case":
        raise ValueError("a case has no ledger id of its own: use mint_case(run, question)")
    if not ledger_id:
        raise ValueError("a ledger id must be a non-empty string")
    return f"{ID_BASE}{kind}/{encode_id(ledger_id)}"


def case_id(run: str, question: str) -> str:
    """The IRI path of the case of ``run`` on ``question`` (two encoded segments)."""
    return f"{encode_id(run)}/{encode_id(question)}"


def mint_case(run: str, question: str) -> str:
    """Return the IRI of the case (retrieval activity) of ``run`` on ``question``."""
    return f"{ID_BASE}case/{case_id(run, question)}"


#: A segment of safe characters and upper-case escapes, as quote(safe="") writes them.
_ESCAPED = re.compile(r"(?:[A-Za-z0-9_.~-]|%[0-9A-F]{2})+")
#: Each ASCII character quote(safe="") encodes, by the hex digits of its escape.
_ASCII_ESCAPES = {
    f"{code:02X}": chr(code) for code in range(128) if quote(chr(code), safe="") != chr(code)
}


def _unescape_ascii(segment: str) -> str | None:
    """A segment whose escapes are all of ASCII characters quote() encodes, decoded
    (its encoding is then the segment itself); None for any other segment."""
    if not _ESCAPED.fullmatch(segment):
        return None
    head, *escaped = segment.split("%")
    decoded = [head]
    for part in escaped:
        char = _ASCII_ESCAPES.get(part[:2])
        if char is None:  # a non-ASCII byte, or a character quote() leaves as it is
            return None
        decoded += (char, part[2:])
    return "".join(decoded)


@lru_cache(maxsize=1 << 17)
def parse(iri: str) -> tuple[str, str]:
    """Return ``(kind, ledger id)`` of a minted IRI; raise ValueError otherwise.

    A case IRI reads back as ``("case", "run/question")`` with both parts decoded
    and joined by ``/``; use :func:`parse_case` to get them apart.
    """
    if not iri.startswith(ID_BASE):
        raise ValueError(f"not a hopgate IRI: {iri}")
    kind, _, rest = iri[len(ID_BASE) :].partition("/")
    if kind not in KINDS or not rest:
        raise ValueError(f"not a hopgate record IRI: {iri}")
    if kind == "case":
        run, question = parse_case(iri)
        return kind, f"{run}/{question}"
    if "/" in rest:
        raise ValueError(f"not a hopgate record IRI (a sub-node): {iri}")
    if _PLAIN.fullmatch(rest):
        # Only characters quote() never encodes: decoding and encoding leave it as it is.
        return kind, rest
    # Ids like "sys-a/q1/o1" escape only ASCII: decoded without unquote and quote.
    simple = _unescape_ascii(rest)
    if simple is not None:
        return kind, simple
    decoded = unquote(rest)
    if encode_id(decoded) != rest:  # e.g. a raw '#', space or non-ASCII: not minted here
        raise ValueError(f"not a hopgate record IRI (not as minted): {iri}")
    return kind, decoded


def parse_case(iri: str) -> tuple[str, str]:
    """Return ``(run id, question id)`` of a case IRI."""
    prefix = f"{ID_BASE}case/"
    if not iri.startswith(prefix):
        raise ValueError(f"not a hopgate case IRI: {iri}")
    run, sep, question = iri[len(prefix) :].partition("/")
    if not sep or "/" in question:
        raise ValueError(f"not a hopgate case IRI: {iri}")
    run_id, question_id = unquote(run), unquote(question)
    if not run or not question or case_id(run_id, question_id) != f"{run}/{question}":
        raise ValueError(f"not a hopgate case IRI (not as minted): {iri}")
    return run_id, question_id


def ledger_id(iri: str) -> str:
    """Return the ledger id of a minted IRI (any kind)."""
    return parse(iri)[1]


#: Segments joined by line ends, of unreserved characters and "%" only.
_ESCAPED_LINES = re.compile(r"[A-Za-z0-9_.~%\n-]*")


def ledger_ids(iris: Sequence[str | None]) -> list[str | None]:
    """:func:`ledger_id` of each IRI (None stays None), the IRIs of one kind decoded
    together when their segments escape only ASCII characters (checked in one scan).

    A read of 20,600 cards decoded 130k ids one call each: a third of building
    the cards at 10k claims (bench/README.md, "5 December, night").
    """
    present = [iri for iri in iris if iri is not None]
    decoded = _decoded_together(present) if present else []
    if decoded is None:
        decoded = [ledger_id(iri) for iri in present]
    if len(present) == len(iris):
        return list(decoded)
    found = iter(decoded)
    return [None if iri is None else next(found) for iri in iris]


def _decoded_together(iris: list[str]) -> list[str] | None:
    """The ids of ``iris`` when all are of one kind (not a case) with segments of
    unreserved characters and escapes of ASCII characters; None otherwise (each is
    then parsed on its own). Every step is one pass of C over the IRIs joined: at
    20,600 card IRIs about 30 ms, where a call each took 0.1 s."""
    first = iris[0]
    if not first.startswith(ID_BASE):
        return None
    kind, sep, _ = first[len(ID_BASE) :].partition("/")
    if not sep or kind not in KINDS or kind == "case":
        return None
    prefix = f"{ID_BASE}{kind}/"
    joined = "\n".join(iris)
    # One line per IRI (no line end inside one), each starting with the prefix.
    if joined.count("\n") != len(iris) - 1 or joined.count(f"\n{prefix}") != len(iris) - 1:
        return None
    joined = joined[len(prefix) :].replace(f"\n{prefix}", "\n")
    # An empty segment is no minted IRI: its error comes from parse().
    if not joined or "\n\n" in joined or joined[0] == "\n" or joined[-1] == "\n":
        return None
    if not _ESCAPED_LINES.fullmatch(joined):
        return None
    # Each "%" starts an escape of an ASCII character quote() encodes (as
    # _unescape_ascii decodes), not of a line end, which would split a segment.
    # The distinct escapes, each found once and then removed from a scratch copy
    # (a pass per distinct escape, not a step per escape).
    codes, rest = set(), joined
    while (at := rest.find("%")) != -1:
        code = rest[at + 1 : at + 3]
        if code == "0A" or code not in _ASCII_ESCAPES:
            return None
        codes.add(code)
        rest = rest.replace(f"%{code}", "")
    # A removal can bring a lone "%" next to two digits ("%2F%%2F1A"): each "%" must
    # start one of the escapes found.
    if sum(joined.count(f"%{code}") for code in codes) != joined.count("%"):
        return None
    # Every "%" starts an escape, so replacing one escape's text replaces exactly
    # its escapes; "%25" ("%") last, so that no "%" it makes starts another.
    for code in sorted(codes, key=lambda code: code == "25"):
        joined = joined.replace(f"%{code}", _ASCII_ESCAPES[code])
    return joined.split("\n")


def short_name(iri: str) -> str:
    """The name users read for an IRI: a minted one's ledger id, else a prefixed name, else itself.

    Example:
        >>> short_name(mint("run", "sys-a")), short_name("https://w3id.org/hopgate/ns#Claim")
        ('sys-a', 'hg:Claim')
    """
    try:
        return ledger_id(iri)
    except ValueError:
        pass
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return str(iri)


def delivered_key(item: Any) -> str:
    """A stable text for a delivered span (a span id, or an inline span mapping)."""
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        if "start" in item and "end" in item:
            return f"{item.get('version')}[{item.get('start')}:{item.get('end')}]"
        return f"{item.get('version')}[{item.get('quote')!r}]"
    return repr(item)


def case_key(case: Mapping[str, Any]) -> tuple[str, ...]:
    """What names a case: (run, question), and for an intervention case its variant too."""
    key: tuple[str, ...] = (case["run"], case["question"])
    intervention = case.get("intervention")
    if intervention is None:
        return key
    return key + (
        str(intervention["set"]),
        str(intervention["variant"]),
        delivered_key(intervention.get("member", "")),
        delivered_key(intervention.get("replacement", "")),
    )


def case_iri(key: tuple[str, ...]) -> str:
    """The IRI of the case named by ``key`` (:func:`case_key`).

    A plain case is ``mint_case(run, question)``; an intervention case
    lives under ``intervention-case/`` so no read of plain cases (which all
    go through ``hg:ofRun``) can meet it.
    """
    if len(key) == 2:
        return mint_case(key[0], key[1])
    return f"{ID_BASE}intervention-case/" + "/".join(encode_id(part or "-") for part in key)
