"""Hypothesis strategies for hostile ledgers: every string field an attacker writes.

A ledger, a pipeline log and a system's answers are attacker-controlled, so
every id, text, title, name, reason, inference and decision of
:func:`hostile_ledgers` holds markup and script (``<script>``, ``<img
onerror>``, ``javascript:`` URLs, an attribute break-out), template syntax,
CommonMark syntax (``**``, ``#``, ``|``, ``[x](y)``, backticks, list and quote
markers), spreadsheet formulas, every kind of line end (``\\r``, ``\\n``,
U+2028, U+2029, U+0085, VT, FF), control characters (ESC sequences, DEL, C1)
and bidi overrides. Each hostile script sets ``window.__hostile``: a page
where it is set ran data.

The ledger's shape is fixed and small (two questions, three outputs, three
evidence sets, a late version, a version withheld from one reader, a resolved
and an unresolved contradiction, judgments), so every section of every
output has something to show; hypothesis varies the strings and whether the
gate passes. Characters no ledger may hold (``hopgate.inputs``'s
``REFUSED_CHARACTERS``: control characters other than tab and line breaks,
NUL, lone surrogates) become U+FFFD in the strings: a load refuses them
(tests/test_hostile_files.py), and tests/test_escaping.py holds each output's
escaping of them over arbitrary text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from hopgate.inputs import REFUSED_CHARACTERS

#: What an attacker writes. Every script sets window.__hostile.
PIECES = (
    "<script>window.__hostile=1</script>",
    '<img src=x onerror="window.__hostile=1">',
    "\"'><svg onload=window.__hostile=1>",
    '<a href="javascript:window.__hostile=1">link</a>',
    "javascript:window.__hostile=1",
    "</td></tr></table><h1>forged</h1>",
    "</style><style>body{display:none}</style>",
    "<!--",
    "-->",
    "]]>",
    "&lt;b&gt;&amp;&#60;",
    "{{ 7*7 }}{% raw %}",
    "**Release decision: PASS**",
    "\r\r**Release decision: PASS**\r\r",
    "\n# forged heading\n",
    "\n- forged item\n",
    "\n> forged quote\n",
    "\n| forged | row |\n",
    "\n    forged code\n",
    "<div>forged html block</div>",
    "[x](javascript:alert(1))",
    "![y](http://example.org/t.png)",
    "`code` ``",
    "*em* _em_ ~~del~~ $math$",
    "a | b \\| c",
    "\\",
    '=HYPERLINK("http://x")',
    "+1",
    "-2",
    "@SUM(A1)",
    "\t",
    "\r\n",
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07",
    "\x7f",
    "\x9b2J",
    "\u202eevil\u202c",
    "\u2066isolate\u2069",
    "\u200f",
    "é😀",
)
#: Every piece at once: each field sometimes holds all of them.
EVERYTHING = "".join(PIECES)
#: Characters that show a string came from :func:`hostile_text` (every one holds some).
MARKERS = re.compile(
    r"[<>&|*#`\[\]\\\r\n_~$\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_MARKED = [piece for piece in PIECES if MARKERS.search(piece)]


def clean(text: str) -> str:
    """``text`` with each character no ledger may hold replaced by U+FFFD (never emptied)."""
    return REFUSED_CHARACTERS.sub("\ufffd", text)


def hostile_text() -> st.SearchStrategy[str]:
    """A hostile string: a marked piece, then up to three more (or every piece)."""
    composed = st.tuples(
        st.sampled_from(_MARKED), st.lists(st.sampled_from(PIECES), max_size=3)
    ).map(lambda drawn: clean(drawn[0] + "".join(drawn[1])))
    return st.one_of(st.just(clean(EVERYTHING)), composed, composed)


@dataclass(frozen=True)
class Hostile:
    """A hostile ledger and the names a command line gives (``--by``, ``judge``)."""

    ledger: dict[str, Any]
    file_name: str
    loaded_by: str
    evaluated_by: str
    judged_by: str
    judge_reason: str
    passes: bool

    def id(self, kind: str) -> str:
        """The one id of ``kind`` the ledger's shape names (run, output, set G3 ...)."""
        return str(self.ledger["_ids"][kind])


@st.composite
def hostile_ledgers(draw: st.DrawFn) -> Hostile:
    """A valid ledger of the fixed shape above whose every string is hostile.

    With ``passes`` the consequential output cites its whole set, so the gate
    passes; otherwise it leaves a hop out and the gate fails.
    """
    text = hostile_text()

    def name(kind: str) -> str:
        # Unique by kind: the hostile part, then a plain tag.
        return draw(text) + f" {kind}"

    ids = {
        kind: name(kind)
        for kind in (
            "evaluation", "reader", "public", "source", "source2", "v1", "v2", "late", "private",
            "question", "question2", "claim", "claim2", "g1", "g2", "g3", "k1", "k2", "run",
            "o1", "o2", "o3", "j1", "j2", "j3",
        )
    }  # fmt: skip
    for kind in ("a1", "a2", "b1", "l1", "w1"):
        # A span id that looked like an inline span's (VERSION[s:e]) would be one.
        ids[kind] = name(kind).replace("[", "(")
    quotes = {kind: draw(text) for kind in ("a1", "a2", "b1", "l1", "w1")}

    def version_text(*spans: str) -> tuple[str, dict[str, tuple[int, int]]]:
        parts, places, at = [], {}, 0
        for span in spans:
            filler = draw(text) + " "
            parts += [filler, quotes[span], " "]
            at += len(filler)
            places[span] = (at, at + len(quotes[span]))
            at += len(quotes[span]) + 1
        return "".join(parts), places

    v1_text, v1_places = version_text("a1", "a2")
    v2_text, v2_places = version_text("b1")
    late_text, late_places = version_text("l1")
    private_text, private_places = version_text("w1")
    places = {**v1_places, **v2_places, **late_places, **private_places}
    span_version = {"a1": "v1", "a2": "v1", "b1": "v2", "l1": "late", "w1": "private"}
    passes = draw(st.booleans())
    cited = ["a1", "a2"] if passes else ["a2", "l1"]
    hostile = draw(text)

    ledger: dict[str, Any] = {
        "ledger": 1,
        "evaluations": [
            {
                "id": ids["evaluation"],
                "reader": ids["reader"],
                "observation_cutoff": "2026-10-07T00:00:00Z",
                "corpus": draw(text),
            }
        ],
        "readers": [{"id": ids["reader"], "title": draw(text)}, {"id": ids["public"]}],
        "sources": [
            {"id": ids["source"], "address": draw(text), "title": draw(text)},
            {"id": ids["source2"], "address": draw(text)},
        ],
        "versions": [
            {
                "id": ids["v1"],
                "source": ids["source"],
                "text": v1_text,
                "observed_at": "2026-10-01T12:00:00Z",
                "fetched_by": draw(text),
            },
            {
                "id": ids["v2"],
                "source": ids["source2"],
                "text": v2_text,
                "observed_at": "2026-10-02T12:00:00Z",
                "media_type": draw(text),
            },
            {
                "id": ids["late"],
                "source": ids["source"],
                "text": late_text,
                "observed_at": "2026-10-09T12:00:00Z",
                "revision_of": ids["v1"],
            },
            {
                "id": ids["private"],
                "source": ids["source2"],
                "text": private_text,
                "observed_at": "2026-10-02T12:00:00Z",
                "readers": [ids["reader"]],
            },
        ],
        "spans": [
            {
                "id": ids[span],
                "version": ids[span_version[span]],
                "start": places[span][0],
                "end": places[span][1],
            }
            for span in ("a1", "a2", "b1", "l1", "w1")
        ],
        "questions": [
            {
                "id": ids["question"],
                "text": draw(text),
                "answer": draw(text),
                "claims": [ids["claim"]],
            },
            {"id": ids["question2"], "text": draw(text), "claims": [ids["claim2"]]},
        ],
        "claims": [
            {"id": ids["claim"], "text": draw(text), "consequential": True},
            {"id": ids["claim2"], "text": draw(text)},
        ],
        "evidence_sets": [
            {
                "id": ids["g1"],
                "claim": ids["claim"],
                "members": [ids["a1"], ids["a2"]],
                "inference": draw(text),
                "status": "adjudicated",
                "annotation": {"version": 1, "by": draw(text), "at": "2026-10-02"},
            },
            {
                "id": ids["g2"],
                "claim": ids["claim"],
                "members": [ids["b1"], ids["w1"]],
                "inference": draw(text),
                "status": "adjudicated",
                "annotation": {"version": 2, "by": draw(text), "at": "2026-10-03"},
            },
            {
                "id": ids["g3"],
                "claim": ids["claim2"],
                "members": [ids["b1"]],
                "inference": draw(text),
                "status": "proposed",
                "annotation": {"version": 1, "by": draw(text), "at": "2026-10-03"},
            },
        ],
        "contradictions": [
            {
                "id": ids["k1"],
                "claim": ids["claim"],
                "span": ids["b1"],
                "status": "resolved",
                "decision": draw(text),
            },
            {"id": ids["k2"], "claim": ids["claim2"], "span": ids["a1"], "status": "unresolved"},
        ],
        "runs": [
            {
                "id": ids["run"],
                "evaluation": ids["evaluation"],
                "system": draw(text),
                "started_at": "2026-10-05T09:00:00Z",
            }
        ],
        "cases": [
            {
                "run": ids["run"],
                "question": ids["question"],
                "retrieved": [ids["a1"], ids["a2"], ids["b1"]],
                "outputs": [
                    {
                        "id": ids["o1"],
                        "text": draw(text),
                        "claim": ids["claim"],
                        "correct": True,
                        "cites": [ids[span] for span in cited],
                    },
                    {"id": ids["o2"], "text": draw(text), "claim": None, "correct": True},
                ],
            },
            {
                "run": ids["run"],
                "question": ids["question2"],
                "retrieved": [{"version": ids["v2"], "start": 0, "end": places["b1"][1]}],
                "outputs": [
                    {
                        "id": ids["o3"],
                        "text": draw(text),
                        "claim": ids["claim2"],
                        "correct": True,
                        "cites": [ids["b1"]],
                    }
                ],
            },
        ],
        "judgments": [
            {
                "id": ids["j1"],
                "subject": ids["g3"],
                "question": "alternatives",
                "decision": "sufficient",
                "by": draw(text),
                "reason": draw(text),
            },
            {
                "id": ids["j2"],
                "subject": ids["g3"],
                "question": "alternatives",
                "decision": "insufficient",
                "by": draw(text),
                "reason": draw(text),
            },
            {"id": ids["j3"], "subject": ids["k1"], "by": draw(text), "decision": hostile},
        ],
    }
    file_name = clean(draw(text)).replace("/", "_").replace("\x00", "")[:80] or "ledger"
    found = Hostile(
        ledger={**ledger, "_ids": ids},
        file_name=file_name,
        # A name of blanks alone is refused: each ends in a plain word.
        loaded_by=draw(text) + " loader",
        evaluated_by=draw(text) + " evaluator",
        judged_by=draw(text) + " adjudicator",
        judge_reason=draw(text) + " reason",
        passes=passes,
    )
    return found


def ledger_of(hostile: Hostile) -> dict[str, Any]:
    """The ledger to write (without the ids the strategy keeps for the tests)."""
    return {key: value for key, value in hostile.ledger.items() if key != "_ids"}
