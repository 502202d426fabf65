"""What a reader is shown: the one reader filter that every output applies.

docs/spec/records.md "What a reader is shown" is the rule; this module is its
one home in Python. ``queries/withheld.rq`` decides which spans and versions a
reader may not inspect (docs/spec/ledger.md "Reader lists"); their texts (a
span's exact quote, a version's whole text) are the reader's **withheld
texts**, and any string that repeats one of them (compared as
:func:`normalize` makes them) is withheld too, whatever record or sentence
carries it. An export leaves such a literal out and marks its subject
``hg:withheldFor`` (hopgate.export.quads); every other output shows
:data:`MARKER` in its place. Numbers and booleans are never touched, so no
figure changes; hopgate's own words and the names of records (ids, agent
names) are names, not texts (:data:`NAMES`), and stay as written.
"""

from __future__ import annotations

import functools
import html
import operator
import re
import sys
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any, TypeVar

from hopgate import ids
from hopgate.errors import HopgateError
from hopgate.escaping import DEFAULT_IGNORABLE
from hopgate.library.projection import query_projection
from hopgate.library.reader_rule import (
    HIDDEN_PAIRS,
    RULE_QUERY,
    TEXTS_QUERY,
    VIEW_QUERY,
    WITHHELD,
)
from hopgate.library.steps import reader_projection
from hopgate.store import (
    IRI,
    BNode,
    Row,
    Store,
    catalog,
    reader_answers,
    snapshots,
)
from hopgate.store.oxigraph import changed_copy
from hopgate.store.terms import term_ntriples
from hopgate.vocab import HG, OA, XSD

#: The section of the specification every marker cites.
SECTION = 'docs/spec/records.md "What a reader is shown"'
#: What an output shows in place of a withheld text.
MARKER = f"[withheld from this reader: {SECTION}]"

#: Literal datatypes that are never text: numbers, booleans, times (figures stay as they are).
NOT_TEXT = frozenset(
    XSD + name
    for name in [
        "integer",
        "decimal",
        "double",
        "float",
        "boolean",
        "dateTime",
        "dateTimeStamp",
        "date",
        "time",
        "gYear",
        "nonNegativeInteger",
        "positiveInteger",
        "long",
        "int",
        "short",
        "byte",
        "unsignedLong",
        "unsignedInt",
    ]
)

#: Per output class, the fields (and the keys of dicts inside them) that hold names
#: or hopgate's own words, never a record's text: ids, agent names, verdicts,
#: statuses, rule ids, spec citations, times. Everything else that is a string is
#: text and passes the filter (a field left out of this table is filtered: the safe side).
NAMES: dict[str, frozenset[str]] = {
    name: frozenset(value.split())
    for name, value in {
        "VerdictRow": "run question output claim answerability missing inadmissible_citations "
        "cited_route retrieved_route verdict card id interventions unretrieved_citations "
        "route_authority weighed_route span version source authority basis_from "
        "effective_from effective_until observed_at status",
        "Proportion": "interval",
        "GateResult": "run",
        "RunMetrics": "run evaluation strata interventions",
        "Report": "peers charts",
        "GateDecision": "failing policy require_authority",
        "Header": "run system run_started evaluation evaluation_record reader "
        "evaluation_reader cutoff started ended hopgate_version bundle previous policy",
        "LoadUsed": "graph digest loaded agent",
        "CardDetail": "rule applies_at covered_by_citation",
        "SpanInfo": "id version source observed failed",
        "Member": "id version source observed failed cited_by retrieved_by",
        "EvidenceSetInfo": "id status",
        "ContradictionInfo": "id status span",
        "Explanation": "run evaluation reader output verdict",
        "Step": "step spec",
        "Diff": "run before after added_outputs removed_outputs loads_added loads_dropped",
        "OutputChange": "output claim verdict cited_route retrieved_route missing answerability",
        "StoreChange": "load kind record claim",
        "QueueItem": "run subject kind question outputs",
        "JudgmentRecord": "id subject by at question settles recorded_at recorded_by",
        "Signature": "state signer key",
        "ScoreChanges": "run before after",
        "VerdictChange": "output question before after judgments annotation_versions",
        "Agreement": "judge question",
        "Comparison": "judge question subject judgment decision final_judgment final_decision",
    }.items()
}

T = TypeVar("T")

#: What the lexical form of a number, boolean or time can be: digits, signs, a point,
#: an exponent, the date and time separators and a zone; INF, NaN, true and false.
_NOT_TEXT_FORM = re.compile(r"\s*(?:[-+0-9.eE:TZ]*|[-+]?INF|NaN|true|false)\s*")

_ECHAR = re.compile(
    r"\\u(?P<high>[dD][89abAB][0-9A-Fa-f]{2})\\u(?P<low>[dD][c-fC-F][0-9A-Fa-f]{2})"
    r"|\\(?:u(?P<u4>[0-9A-Fa-f]{4})|U(?P<u8>[0-9A-Fa-f]{8})|(?P<char>.))",
    re.S,
)
#: How many escape levels a text is read through (an x- field's JSON, JSON inside it):
#: one still escaped after these is withheld, as a text that may hide one.
_ESCAPE_LEVELS = 8
#: How many decodings of one text (each escape read through on its own, level by level,
#: every reading tried) are run before it is withheld as a text that may hide one.
_MOST_DECODINGS = 32
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
#: The longest piece of a withheld text the filter looks up, and the most characters
#: between two lookups (:class:`_Grams`): 16 and 8 index 8 pieces a text.
_GRAM = 16
_STEP = 8
#: How many texts may share an indexed piece before it is split by what follows it.
_SHARED = 8


@functools.cache
def _format_characters() -> dict[int, None]:
    """Every character drawn as nothing, to delete: the format characters (Unicode
    category Cf: zero-width, bidi controls) and the other default-ignorable ones
    (hopgate.escaping.DEFAULT_IGNORABLE: the combining grapheme joiner, the variation
    selectors, the Hangul fillers...). A withheld text repeated with one of them inside
    it reads the same, so it is the same text here."""
    # Outside the BMP they sit in these blocks only (Kaithi, Egyptian format controls,
    # shorthand, musical symbols, tags); scanning all 1.1M code points takes 0.25 s.
    blocks = [(0x80, 0x10000), (0x11000, 0x11100), (0x13430, 0x13460), (0x1BCA0, 0x1BCB0)]
    blocks += [(0x1D170, 0x1D180), (0xE0000, 0xE0080)]
    found: dict[int, None] = {
        point: None
        for start, end in blocks
        for point in range(start, end)
        if unicodedata.category(chr(point)) == "Cf"
    }
    for start, end in DEFAULT_IGNORABLE:
        found.update(dict.fromkeys(range(start, end + 1)))
    return found


#: The Turkish dotless i (U+0131) and dotted capital I (U+0130), compared as i.
_TURKISH_I = {0x131: "i", 0x130: "i"}


def normalize(text: str) -> str:
    """``text`` as the filter compares it: NFKC, case folded, format characters
    removed, every run of white space one space, trimmed. A repeat that differs
    only in case, spacing, compatibility forms or invisible characters is a repeat."""
    if not text.isascii():
        # Removed before NFKC too: one between a letter and its combining accent would
        # keep them from composing ("Cafe<U+034F><U+0301>" is not "Café" after NFKC
        # alone); and after, as NFKC makes some (U+3164, U+FFA0 become U+1160).
        invisible = _format_characters()
        text = unicodedata.normalize("NFKC", text.translate(invisible)).translate(invisible)
        # Unicode's NFKC_Casefold: NFKC again after the fold, which decomposes some
        # letters (U+0390 folds to three code points, its capital U+03AA U+0301 to
        # one). The Turkish dotless and dotted i are read as i, whose case pairs they
        # are in Turkish (BÜTÇE upper-cased from bütçe).
        # "İ".lower() is "i" and U+0307 (a combining dot above): read as i as well.
        folded = text.translate(_TURKISH_I).casefold().replace("i\u0307", "i")
        text = folded if folded.isascii() else unicodedata.normalize("NFKC", folded)
        return " ".join(text.split())
    # str.split() splits at the characters regex's \s matches (str.isspace()): 65k
    # texts of the 10k-claim ledger in 0.07 s, against 0.27-0.5 s by re.sub.
    return " ".join(text.casefold().split())


class _Grams:
    """Where a string may repeat one of a set of texts that are all ``shortest`` or longer.

    Any repeat of a text at least ``gram + step - 1`` long covers one of the
    string's positions ``0, step, 2 * step, ...`` together with the ``gram``
    characters after it, at an offset into the text below ``step``. So the
    texts' pieces at those offsets are indexed once, and a string costs one
    lookup every ``step`` characters; each piece found is checked in full.
    A regex of the texts' prefixes did the same but took 0.5-0.9 s to compile
    for 7k-11k texts (10k claims); this index builds in 0.03 s.
    """

    def __init__(self, texts: Sequence[str], shortest: int) -> None:
        self.texts = texts
        self.gram = min(_GRAM, max(1, shortest // 2))
        self.step = min(_STEP, shortest - self.gram + 1)
        # A piece maps to ``text number * step + offset``, or to a list of those when
        # several texts share it: an int per piece keeps the build cheap.
        pieces: dict[str, int | list[int]] = {}
        for number, text in enumerate(texts):
            for offset in range(self.step):
                piece, code = text[offset : offset + self.gram], number * self.step + offset
                known = pieces.get(piece)
                if known is None:
                    pieces[piece] = code
                elif isinstance(known, int):
                    pieces[piece] = [known, code]
                else:
                    known.append(code)
        self._pieces = pieces
        # A piece many texts share (every version text of a ledger may open with the same
        # header) is split once more by the ``gram`` characters after it, when first met:
        # checking each sharing text in full at every such place took 30 s for a 10k-claim
        # store's version texts.
        self._split: dict[str, tuple[dict[str, list[int]], list[int]]] = {}

    def found_in(self, found: str) -> bool:
        """True when ``found`` contains one of the texts."""
        pieces, gram, step = self._pieces, self.gram, self.step
        for at in range(0, len(found) - gram + 1, step):
            piece = found[at : at + gram]
            known = pieces.get(piece)
            if known is None:
                continue
            if isinstance(known, int):
                codes: Sequence[int] = (known,)
            elif len(known) <= _SHARED:
                codes = known
            else:
                table, short = self._split.get(piece) or self._split_piece(piece, known)
                codes = [*table.get(found[at + gram : at + 2 * gram], ()), *short]
            for code in codes:
                number, offset = divmod(code, step)
                if at >= offset and found.startswith(self.texts[number], at - offset):
                    return True
        return False

    def _split_piece(self, piece: str, codes: list[int]) -> tuple[dict[str, list[int]], list[int]]:
        """The texts sharing ``piece`` by the ``gram`` characters after it in each; those
        ending sooner apart (checked at every place, as before)."""
        table: dict[str, list[int]] = {}
        short: list[int] = []
        for code in codes:
            number, offset = divmod(code, self.step)
            after = self.texts[number][offset + self.gram : offset + 2 * self.gram]
            if len(after) == self.gram:
                table.setdefault(after, []).append(code)
            else:
                short.append(code)
        self._split[piece] = (table, short)
        return table, short


def _grams(texts: Sequence[str]) -> list[_Grams]:
    """The indexes of ``texts``, one per length class (1, 2-3, 4-7, ..., 32 and longer),
    so that a short text does not make every long one looked up at every position."""
    classes: dict[int, list[str]] = {}
    for text in texts:
        classes.setdefault(min(len(text).bit_length(), 6), []).append(text)
    return [_Grams(members, min(map(len, members))) for _, members in sorted(classes.items())]


def _unescape(lexical: str) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group("high"):
            # A UTF-16 surrogate pair (JSON's way to escape U+10000 and above): one character.
            high, low = int(match.group("high"), 16), int(match.group("low"), 16)
            return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        code = match.group("u4") or match.group("u8")
        if code:
            point = int(code, 16)
            return chr(point) if point <= sys.maxunicode else match.group(0)
        return _ESCAPES.get(match.group("char"), match.group("char"))

    return _ECHAR.sub(one, lexical) if "\\" in lexical else lexical


def _decodings(text: str) -> Iterator[str]:
    """``text`` with one level of one escape read through, for each escape it holds:
    backslash escapes (JSON, N-Triples), percent-encoding (an address's path or query;
    read with ``+`` as itself, and as a space), HTML character references. A decoder that
    could change nothing is not run (a search finds no escape of its kind faster)."""
    if "\\" in text and _ECHAR.search(text):
        yield _unescape(text)
    if "%" in text and _PERCENT.search(text):
        yield urllib.parse.unquote(text)
    if "+" in text:
        yield urllib.parse.unquote_plus(text)
    if "&" in text and _REFERENCE.search(text):
        yield html.unescape(text)


#: A percent escape, and the start of an HTML character reference (html.unescape reads
#: some named ones without their ";").
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_REFERENCE = re.compile(r"&(?:#[0-9xX]|[A-Za-z])")


def ntriples_literal(line: bytes) -> tuple[int, int, str, str | None] | None:
    """The object literal of one N-Triples / N-Quads line: where its quoted form starts
    and ends in ``line``, its lexical form and its datatype (None: a string or a
    language-tagged string). None when the object is not a literal. IRIs and blank
    node labels cannot hold ``"``, so the literal runs from the first ``"`` to the last."""
    first = line.find(b'"')
    if first == -1:
        return None
    last = line.rfind(b'"')
    lexical = _unescape(line[first + 1 : last].decode("utf-8"))
    rest = line[last + 1 :]
    datatype = None
    if rest.startswith(b"^^<"):
        datatype = rest[3 : rest.index(b">")].decode("utf-8")
    return first, last + 1, lexical, datatype


#: Values that are never text (bool is an int).
_SCALARS = (int, float, type(None))
#: The exact types the filter keeps as they are: never text, or a name (an IRI).
_KEPT = frozenset({int, float, bool, type(None), IRI, BNode})
_SEQUENCES = frozenset({list, tuple})


@functools.cache
def _text_fields(cls: type) -> tuple[frozenset[str], tuple[str, ...]]:
    """A dataclass's name fields (:data:`NAMES`) and the fields the filter walks."""
    kept = NAMES.get(cls.__name__, frozenset())
    return kept, tuple(f.name for f in fields(cls) if f.init and f.name not in kept)


def _is_row(value: Any) -> bool:
    """True for a dataclass instance (not a dataclass itself)."""
    return is_dataclass(value) and not isinstance(value, type)


def _flat_rows(column: list[Any]) -> list[Any] | None:
    """The items of a column of lists (or tuples) and kept values, one list, when they
    are all instances of one dataclass; else None."""
    flat = [item for sequence in column if type(sequence) in _SEQUENCES for item in sequence]
    if not flat or len(set(map(type, flat))) != 1 or not _is_row(flat[0]):
        return None
    return flat


def _regrouped(column: list[Any], flat: list[Any]) -> Iterator[tuple[int, Any]]:
    """The lists and tuples of ``column`` whose items, taken in turn from ``flat`` (as
    :func:`_flat_rows` listed them), are other objects: their positions, each rebuilt
    of the same type."""
    start = 0
    for at, sequence in enumerate(column):
        if type(sequence) not in _SEQUENCES:
            continue
        end = start + len(sequence)
        items = flat[start:end]
        start = end
        if not all(map(operator.is_, items, sequence)):
            yield at, items if type(sequence) is list else tuple(items)


def _changed(before: list[Any], after: list[Any]) -> Iterator[tuple[int, Any]]:
    """The positions where ``after`` holds another object than ``before``, with it."""
    if after is before:
        return
    for at, (old, new) in enumerate(zip(before, after, strict=True)):
        if new is not old:
            yield at, new


def _shallow_texts(column: list[Any]) -> set[str] | None:
    """The distinct strings in a column of lists (or tuples) of strings, kept values
    and flat dicts of them (a card's judgments, source truth, missing spans), dict keys
    left out; None where something lies deeper, for the walk to take.

    A column none of whose strings is withheld is passed over whole: walking
    20,600 cards' 42,000 judgment and member dicts one by one was a third of
    the filter's time in ``verdicts`` at 10k claims, and nearly every column
    holds no withheld text. A name field's strings are looked at too, which
    can only send the column to the walk.
    """
    texts: set[str] = set()
    add = texts.add
    for sequence in column:
        if type(sequence) in _KEPT:
            continue
        for item in sequence:
            kind = type(item)
            if kind is str:
                add(item)
            elif kind is dict:
                for value in item.values():
                    value_kind = type(value)
                    if value_kind is str:
                        add(value)
                    elif value_kind not in _KEPT:
                        return None
            elif kind not in _KEPT:
                return None
    return texts


class Withholding:
    """The filter for one reader: its withheld texts, and what repeats them.

    ``reader`` None is the unfiltered store (``query`` without ``--reader``):
    nothing is withheld.
    """

    def __init__(self, reader: str | None, texts: Iterable[str]) -> None:
        self.reader = reader
        normalized = {normalize(text) for text in texts}
        self.texts: tuple[str, ...] = tuple(sorted(t for t in normalized if t))
        self._shortest = min((len(t) for t in self.texts), default=0)
        # Built when first needed: most readers' outputs never reach the filter.
        self._index: list[_Grams] | None = None
        self._withheld: dict[str, bool] = {}

    def __bool__(self) -> bool:
        """True when anything is withheld from the reader."""
        return bool(self.texts)

    def withholds(self, text: str) -> bool:
        """True when ``text`` is or repeats one of the reader's withheld texts."""
        if not self.texts or (text.isascii() and len(text) < self._shortest):
            return False
        if self._index is None:
            self._index = _grams(self.texts)
        found = normalize(text)
        if any(grams.found_in(found) for grams in self._index):
            return True
        # A text escaped inside another (an ``x-`` field's JSON: a quote's ``"`` and line
        # ends become ``\"`` and ``\n``; a search address's query: ``%20`` or ``+``; an
        # HTML fragment: ``&#32;``) repeats it once unescaped, level by level. Each escape
        # is read through on its own (the withheld text may hold a ``+``, ``%41`` or
        # ``&amp;`` that another decoder would rewrite: one pass of all of them made
        # ``C++`` escaped in JSON unseen; review, 7 December), and every reading is tried.
        seen = {text}
        readings = [text]
        # How many decodings are run before the text is withheld as one that may hide a
        # withheld text: 2 MB of nested escapes of every kind took 6.7 s of readings; a
        # text of escapes of all four kinds takes about 24.
        budget = _MOST_DECODINGS
        for _ in range(_ESCAPE_LEVELS):
            found_now = []
            for reading in readings:
                for decoded in _decodings(reading):
                    budget -= 1
                    if budget < 0:
                        return True
                    if decoded in seen:
                        continue
                    seen.add(decoded)
                    if any(grams.found_in(normalize(decoded)) for grams in self._index):
                        return True
                    found_now.append(decoded)
            if not found_now:
                return False
            readings = found_now
        # Still escaped after the levels: withheld, as a text that may hide one.
        return any(d not in seen for reading in readings for d in _decodings(reading))

    def withholds_literal(self, lexical: str, datatype: str | None) -> bool:
        """True when a literal is text that :meth:`withholds`: a number, boolean or time
        is not text, but only when its lexical form is one (a query can type any text
        as ``xsd:dateTime``)."""
        if datatype in NOT_TEXT and _NOT_TEXT_FORM.fullmatch(lexical):
            return False
        return self.withholds(lexical)

    def shown(self, text: str) -> str:
        """``text``, or :data:`MARKER` when it repeats a withheld text."""
        # Outputs repeat their texts (a decision, a basis) across thousands of rows.
        withheld = self._withheld.get(text)
        if withheld is None:
            withheld = self._withheld[text] = self.withholds(text)
        return MARKER if withheld else text

    def redact(self, value: T, names: frozenset[str] = frozenset()) -> T:
        """``value`` (dataclasses, dicts, lists, tuples, strings) with every text that
        repeats a withheld text replaced by :data:`MARKER`: a copy of each part that
        changed, the same objects where nothing did.

        A dataclass field (or a key of a dict inside it) named in :data:`NAMES` for
        its class holds names and is kept; ``names`` are such keys of a top-level
        dict. Dict keys, IRIs, numbers and booleans are kept.
        """
        if not self.texts:
            return value
        found: T = self._redact(value, names)
        return found

    def _redact(self, value: Any, names: frozenset[str]) -> Any:
        # Returns ``value`` itself where nothing in it is withheld: a row of
        # thousands is rebuilt only where a text changes (dataclasses.replace
        # on every row was a third of the filter's time in ``verdicts``).
        # The walk meets a million values in a 10k-claim report: a container's
        # plain strings and kept values are handled in place, by exact type,
        # rather than by a call each (0.98 -> 0.72 s there; bench/README.md).
        kind = type(value)
        if kind is str:
            return self.shown(value)
        if kind in _KEPT:
            return value
        if kind is list or kind is tuple:
            return self._sequence(value, names)
        if kind is dict:
            return self._mapping(value, names)
        if isinstance(value, (IRI, BNode, *_SCALARS)):
            return value
        if isinstance(value, str):
            return self.shown(value)
        if isinstance(value, dict):
            return self._mapping(value, names)
        if isinstance(value, list | tuple):
            return self._sequence(value, names)
        if _is_row(value):
            kept, walked = _text_fields(value.__class__)
            shown, redact = self.shown, self._redact
            changes = {}
            for name in walked:
                item = getattr(value, name)
                item_kind = type(item)
                if item_kind in _KEPT:
                    continue
                found = shown(item) if item_kind is str else redact(item, kept)
                if found is not item:
                    changes[name] = found
            return replace(value, **changes) if changes else value
        return value

    def _sequence(self, value: list[Any] | tuple[Any, ...], names: frozenset[str]) -> Any:
        first = value[0] if value else None
        if len(value) > 1 and _is_row(first) and len(set(map(type, value))) == 1:
            return self._rows(value)
        shown, redact = self.shown, self._redact
        items = [
            shown(item)
            if type(item) is str
            else item
            if type(item) in _KEPT
            else redact(item, names)
            for item in value
        ]
        if all(map(operator.is_, items, value)):
            return value
        return items if isinstance(value, list) else tuple(items)

    def _rows(self, value: list[Any] | tuple[Any, ...]) -> Any:
        """Rows of one dataclass (``verdicts``' 20,600 cards) walked field by field: a
        field no row holds text in (flags, None, empty lists: most of a brief card), or
        whose lists and flat dicts hold no withheld text, is passed over in one scan of
        its column, a column of strings is looked up once per distinct string; the same
        result as walking row by row (held by a test)."""
        kept, walked = _text_fields(value[0].__class__)
        shown, redact = self.shown, self._redact
        changes: dict[int, dict[str, Any]] = {}
        for name in walked:
            column = list(map(operator.attrgetter(name), value))
            kinds = set(map(type, column))
            if kinds <= _KEPT:
                continue
            if len(kinds) == 1 and _is_row(column[0]):
                # A column of one dataclass (each card's row) is walked as rows itself.
                for at, found in _changed(column, self._rows(column)):
                    changes.setdefault(at, {})[name] = found
                continue
            if kinds <= _KEPT | _SEQUENCES:
                texts = _shallow_texts(column)
                if texts is not None and not any(shown(text) is not text for text in texts):
                    continue  # no withheld text in any of the column's lists
                flat = _flat_rows(column)
                if flat is not None:
                    # Lists of one dataclass (each card's sets and spans) are walked as
                    # the rows of one list: a walk per list of one to three rows cost
                    # more than its rows (the report's filter at 10k claims 0.89 ->
                    # 0.62 s, its walk without the texts' checks 0.51 -> 0.26 s).
                    shown_rows = self._rows(flat)
                    if shown_rows is not flat:
                        for at, found in _regrouped(column, shown_rows):
                            changes.setdefault(at, {})[name] = found
                    continue
            if kinds <= _KEPT | {str}:
                texts = {item for item in column if type(item) is str}
                withheld = {text for text in texts if shown(text) is not text}
                if not withheld:
                    continue
            for at, item in enumerate(column):
                item_kind = type(item)
                if item_kind in _KEPT:
                    continue
                found = shown(item) if item_kind is str else redact(item, kept)
                if found is not item:
                    changes.setdefault(at, {})[name] = found
        if not changes:
            return value
        items = [
            replace(row, **changes[at]) if at in changes else row for at, row in enumerate(value)
        ]
        return items if isinstance(value, list) else tuple(items)

    def _mapping(self, value: dict[Any, Any], names: frozenset[str]) -> Any:
        shown, redact = self.shown, self._redact
        changed = {}
        for key, item in value.items():
            kind = type(item)
            if kind in _KEPT or key in names:
                continue
            found = shown(item) if kind is str else redact(item, names)
            if found is not item:
                changed[key] = found
        return {**value, **changed} if changed else value

    def rows(self, rows: list[Row]) -> list[Row]:
        """Query rows with every literal string that repeats a withheld text replaced."""
        return self.redact(rows)

    def ntriples(self, data: bytes) -> bytes:
        """N-Triples (or N-Quads) with every withheld text literal replaced by the marker."""
        if not self.texts:
            return data
        marker = b'"' + MARKER.replace('"', '\\"').encode("utf-8") + b'"'
        lines = []
        for line in data.splitlines(keepends=True):
            found = ntriples_literal(line)
            if found is not None and self.withholds_literal(found[2], found[3]):
                start, end = found[0], found[1]
                rest = line[end:]
                # The marker is a plain string: a datatype or language tag goes with the text.
                if rest.startswith((b"^^<", b"@")):
                    cut = rest.find(b" ")
                    rest = rest[cut:] if cut != -1 else rest[len(rest.rstrip(b"\r\n")) :]
                line = line[:start] + marker + rest
            lines.append(line)
        return b"".join(lines)


#: The filter that withholds nothing (no reader chosen).
NOTHING = Withholding(None, ())


@contextmanager
def _rule_copy(store: Store) -> Iterator[Store]:
    """Where the reader rule is asked: a memory copy of the quads it can read.

    The rule joins every span with its version's narrowed spans; on the disk
    store each of those lookups decodes its terms (about 2.8 s of a 3.3k-claim
    store's reads), in memory it costs 0.3 s. The copy holds every quad the
    rule can match (:func:`hopgate.library.steps.reader_projection`), so it
    answers as the store does; loads keep a snapshot of it.
    """
    with snapshots.projected_copy(store, reader_projection()) as copy:
        yield copy


@dataclass(frozen=True)
class ReaderView:
    """What one reader may not inspect: the withheld spans and versions (``nodes``,
    queries/withheld.rq) and the filter of their texts (``withholding``)."""

    nodes: frozenset[str]
    withholding: Withholding


def _view(store: Store, reader_iri: str) -> tuple[list[Row], list[str]] | None:
    """The rule's rows for the reader (``?node ?class ?text``, VIEW_QUERY's) and its
    withheld texts: those the last load recorded for the store as it is
    (hopgate.store.reader_answers), else asked of the rule's copy, which holds the
    texts too; None where there is no copy (memory, remote)."""
    recorded = reader_answers.answers(store, reader_iri)
    if recorded is not None:
        return recorded
    with _rule_copy(store) as copy:
        if copy is store:
            return None
        rows = copy.select(VIEW_QUERY, params={"reader": IRI(reader_iri)})
        return rows, reader_answers.withheld_texts(copy, reader_iri, rows)


def reader_view(store: Store, reader: str) -> ReaderView:
    """Both answers of the reader rule for ``reader`` (its ledger id), from one run of it."""
    iri = str(ids.mint("reader", reader))
    view = _view(store, iri)
    if view is None:  # no copy (memory, remote): the rule's two queries
        return ReaderView(_nodes(store, iri), _rule_texts(store, reader))
    rows, texts = view
    return ReaderView(frozenset(str(row["node"]) for row in rows), Withholding(reader, texts))


@contextmanager
def reader_view_beside(store: Store, reader: str) -> Iterator[Callable[[], ReaderView]]:
    """:func:`reader_view` begun beside the caller; the block calls what it yields for it.

    On an on-disk store the rule's work (its copy's parse, the rule, the texts)
    runs in the filters' thread, mostly in the engine with Python's lock free,
    while the caller reads the rest (:meth:`Readers.start`), and on a server its
    queries; in memory it is computed when first asked for. The block does not end
    before the thread has finished with the store, so a caller that stops at an
    error closes no store under it.
    """
    if store.folder is None and not store.server_caches:
        yield functools.cache(functools.partial(reader_view, store, reader))
        return
    future = _side().submit(reader_view, store, reader)
    try:
        yield future.result
    finally:
        if not future.cancel():
            wait([future])


def withheld_nodes(store: Store, reader_iri: str) -> set[str]:
    """The spans and versions whose text the reader may not inspect (queries/withheld.rq)."""
    view = _view(store, reader_iri)
    if view is None:
        return set(_nodes(store, reader_iri))
    return {str(row["node"]) for row in view[0]}


def for_reader(store: Store, reader: str) -> Withholding:
    """The filter for the reader class ``reader`` (its ledger id), read from the store."""
    view = _view(store, str(ids.mint("reader", reader)))
    return _rule_texts(store, reader) if view is None else Withholding(reader, view[1])


def _nodes(copy: Store, reader_iri: str) -> frozenset[str]:
    rows = copy.select(RULE_QUERY, params={"reader": IRI(reader_iri)})
    return frozenset(str(row["node"]) for row in rows)


def _rule_texts(store: Store, reader: str) -> Withholding:
    """The filter of the rule's texts, asked of the store in one query (no copy)."""
    rows = store.select(TEXTS_QUERY, params={"reader": IRI(ids.mint("reader", reader))})
    return Withholding(reader, (str(row["text"]) for row in rows if row["text"]))


def evaluation_reader(store: Store, run: str) -> str:
    """The reader an output about ``run`` is for by default: its evaluation's reader
    (docs/spec/ledger.md "Evaluations"), ``public`` when the record names none."""
    rows = store.select(
        "SELECT ?id WHERE { ?run hg:evaluation ?e . ?e hg:reader ?r . ?r hg:ledgerId ?id }",
        params={"run": IRI(ids.mint("run", run))},
    )
    return str(rows[0]["id"]) if rows else "public"


def reader_copy(store: Store, withholding: Withholding, query: str | None = None) -> Store:
    """A memory copy of the store's published graphs with every literal the reader may
    not inspect replaced by the marker (:meth:`Withholding.withholds_literal`): what
    ``query --reader`` asks.

    Filtering only the answer cannot hold against a query written to carry a text
    out in another form (a substring a row, percent-encoded in an IRI, typed as a
    number); a text the copy does not hold cannot be carried out at all. Each
    withheld literal is still there, as the marker, so counts stay the same. Given the
    ``query`` the copy is for, it holds only the quads that query can read, when its
    algebra says which (:func:`hopgate.library.projection.query_projection`).
    """

    def change(lexical: str, datatype: str | None) -> str | None:
        return MARKER if withholding.withholds_literal(lexical, datatype) else None

    # What an export leaves out of the withheld spans and versions (their prefixes,
    # suffixes and x- fields too) is the marker as well, where the copy holds any of it.
    # A withheld version's text and a withheld span's quote are withheld texts already.
    projection = None if query is None else query_projection(query)
    pairs: frozenset[tuple[str, str]] = frozenset()
    if projection is None or projection.predicates & _BESIDE_TEXTS:
        nodes = withheld_nodes(store, str(ids.mint("reader", withholding.reader or "")))
        hidden = HIDDEN_PAIRS.format(withheld=withheld_values(nodes)) if nodes else None
        rows = store.select(f"SELECT ?s ?p WHERE {hidden}") if hidden else []
        pairs = frozenset((str(row["s"]), str(row["p"])) for row in rows)
    return changed_copy(store, change, projection, hidden=pairs, marker=MARKER)


#: The predicates of HIDDEN_PAIRS besides a version's text (prov:value).
_BESIDE_TEXTS = frozenset(
    {HG + "extension", *(OA + name for name in ("exact", "prefix", "suffix"))}
)


def withheld_values(nodes: Iterable[str]) -> str:
    """The reader rule's answer (the withheld spans and versions, queries/withheld.rq) bound
    to ``?node`` as a VALUES block, for a query to join (:data:`HIDDEN_PAIRS`).

    The export's queries take the rule's answer the reader filter already has
    (recorded by the loads on an on-disk store, else asked once) instead of
    asking the rule again in each of them: at 10k claims the rule costs 3.5-5 s
    on the disk store, and an export asked it twice per bundle.
    """
    return "VALUES ?node { " + " ".join(term_ntriples(IRI(n)) for n in sorted(nodes)) + " }"


def check_reader(store: Store, reader: str, error: type[HopgateError]) -> None:
    """Raise ``error`` naming the readers of the store when ``reader`` is not one of them."""
    if store.ask(
        "ASK WHERE { ?r a hg:ReaderClass }", params={"r": IRI(ids.mint("reader", reader))}
    ):
        return
    rows = store.select("SELECT ?id WHERE { ?r a hg:ReaderClass ; hg:ledgerId ?id }")
    known = ", ".join(sorted({str(row["id"]) for row in rows})) or "none"
    raise error(f"unknown reader {reader!r} (readers in the store: {known})")


class Readers:
    """The filter of each run's default reader, or of one chosen reader for every run.

    Outputs over several runs (``verdicts``, ``metrics`` and ``review queue``
    without ``--run``) filter each run's rows for that run's evaluation reader.
    """

    def __init__(self, store: Store, reader: str | None, error: type[HopgateError]) -> None:
        if reader is not None:
            check_reader(store, reader, error)
        self._store = store
        self._reader = reader
        self._filters: dict[str, Withholding] = {}
        self._pending: dict[str, Future[Withholding]] = {}
        # A read never writes, so a run's evaluation reader holds for this
        # object's life; asking once per card cost a query per row.
        self._run_readers: dict[str, str] = {}

    def reader_of(self, run: str) -> str:
        """The reader an output about ``run`` is for."""
        if self._reader is not None:
            return self._reader
        if run not in self._run_readers:
            self._run_readers[run] = evaluation_reader(self._store, run)
        return self._run_readers[run]

    def start(self, runs: Iterable[str]) -> None:
        """Begin the filters of ``runs`` (those the store holds) in a thread, beside the caller.

        A filter's work is mostly the engine's (parsing the rule's copy,
        asking the rule, looking the texts up), which leaves Python's lock
        free: it runs on a second core while the caller builds its rows (at
        10k claims `verdicts` 1.0 s sooner; bench/README.md). Its answer is
        the one :meth:`of_run` would compute. On an on-disk store, and on a server,
        where its queries (or the fetch of the rule's kept answers) are the
        server's work and each request is a connection of its own: not in memory,
        where the filter is one query on the store.
        """
        if self._store.folder is None and not self._store.server_caches:
            return
        known = set(catalog.runs(self._store))
        for run in runs:
            # Only a run the read will show (known, evaluated): a read that stops
            # at an error must not leave a thread reading the store it closes.
            if run not in known or catalog.latest(self._store, run) is None:
                continue
            reader = self.reader_of(run)
            if reader not in self._filters and reader not in self._pending:
                self._pending[reader] = _side().submit(for_reader, self._store, reader)

    def of_run(self, run: str) -> Withholding:
        """The filter for ``run``'s output."""
        reader = self.reader_of(run)
        if reader in self._pending:
            self._filters[reader] = self._pending.pop(reader).result()
        if reader not in self._filters:
            self._filters[reader] = for_reader(self._store, reader)
        return self._filters[reader]


@functools.cache
def _side() -> ThreadPoolExecutor:
    """The thread the filters started by :meth:`Readers.start` run in."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopgate-reader")


__all__ = [
    "MARKER",
    "NAMES",
    "NOTHING",
    "SECTION",
    "WITHHELD",
    "ReaderView",
    "Readers",
    "Withholding",
    "check_reader",
    "evaluation_reader",
    "for_reader",
    "normalize",
    "ntriples_literal",
    "reader_view",
    "withheld_nodes",
]
