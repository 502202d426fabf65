"""The documents a pipeline retrieves from, and where a reference lands in them.

Shared by ``hopgate import rag`` (:mod:`.rag`), its pipeline readers
(:mod:`.shapes`) and the record API (:mod:`hopgate.ingest.pipeline`): a
:class:`Corpus` holds the documents' texts and places references (a document
id, ``{doc, quote}``, ``{doc, start, end}``, a retrieved chunk) as
:class:`Located` offsets, anchored as the loader anchors spans
(docs/spec/ledger.md "Spans"); a problem inside one input item is an
:class:`ItemError` naming its field, to which the caller adds file and line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hopgate.errors import AnchorError
from hopgate.ingest.adapters.common import Record
from hopgate.ingest.adapters.items import ItemError, check_fields
from hopgate.ingest.anchoring import anchor
from hopgate.suggest import did_you_mean

#: The fields of a reference given as an object (docs/rag-format.md "gold: questions and their evidence sets").
REF_FIELDS = {"doc", "quote", "text", "start", "end", "prefix", "suffix"}


@dataclass(frozen=True)
class Located:
    """A reference placed in a document: offsets in its text."""

    doc: str
    start: int
    end: int

    @property
    def span_id(self) -> str:
        """The id of the ledger span a gold reference becomes."""
        return f"{self.doc}@{self.start}-{self.end}"

    def inline(self) -> Record:
        """The inline span a context becomes in a case."""
        return {"version": self.doc, "start": self.start, "end": self.end}


class Corpus:
    """Document texts by id, and where a reference or a context lies in them.

    ``fetch`` (optional) supplies the text of a document not added yet (the
    store's, for :func:`hopgate.ingest.pipeline.record`); ``universe`` lists every
    document id for a context given as bare text.
    """

    def __init__(
        self,
        fetch: Callable[[str], str | None] | None = None,
        universe: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.texts: dict[str, str] = {}
        self._fetch = fetch
        self._universe = universe
        self._collapsed: dict[tuple[str, int, int], tuple[str, list[int]]] = {}
        self.first_occurrence = 0
        self.whitespace_matched = 0

    def text(self, doc: str) -> str | None:
        """The text of ``doc``, or None when no such document is known."""
        if doc not in self.texts and self._fetch is not None:
            found = self._fetch(doc)
            if found is not None:
                self.texts[doc] = found
        return self.texts.get(doc)

    def _doc(self, value: Any, name: str) -> tuple[str, str]:
        if not isinstance(value, str | int) or isinstance(value, bool) or value == "":
            raise ItemError(f"expected a document id, got {value!r}", name)
        doc = str(value)
        text = self.text(doc)
        if text is None:
            raise ItemError(
                f"unknown document {doc!r} (not in the docs){did_you_mean(doc, self.known())}",
                name,
            )
        return doc, text

    def known(self) -> list[str]:
        """Every document id (the store's too, for the record API)."""
        return list(self._universe()) if self._universe is not None else list(self.texts)

    def whole(self, doc: str) -> Located:
        """The whole of a known document ``doc``."""
        text = self.text(doc)
        assert text is not None, doc
        return Located(doc, 0, len(text))

    def gold(self, ref: Any, name: str) -> Located:
        """Place a gold reference: a document id, ``{doc, quote}`` or ``{doc, start, end}``."""
        if not isinstance(ref, dict):
            doc, text = self._doc(ref, name)
            return Located(doc, 0, len(text))
        check_fields(ref, REF_FIELDS, at=f"{name}.")
        doc, text = self._doc(ref.get("doc"), f"{name}.doc")
        return self.within(Located(doc, 0, len(text)), ref, name)

    def within(self, region: Located, ref: dict[str, Any], name: str) -> Located:
        """Place ``ref``'s ``quote`` (or ``text``) or ``start``/``end`` inside ``region``.

        Offsets count code points from the region's start; a quote is
        anchored as the loader anchors one (``prefix``/``suffix`` choose
        between occurrences), and found with whitespace collapsed when it is
        not found as written. Neither given: the whole region.
        """
        full = self.text(region.doc)
        assert full is not None, region.doc
        text = full[region.start : region.end]
        quote = ref.get("quote", ref.get("text"))
        start, end = ref.get("start"), ref.get("end")
        if quote is None and start is None and end is None:
            return region
        _check_offsets(start, end, name)
        if quote is not None and not isinstance(quote, str):
            raise ItemError(f"expected a string, got {type(quote).__name__}", f"{name}.quote")
        try:
            found = anchor(
                text,
                start=start,
                end=end,
                quote=quote,
                prefix=_optional_str(ref, "prefix", name),
                suffix=_optional_str(ref, "suffix", name),
            )
        except AnchorError as exc:
            if quote is not None and start is None and "not found" in str(exc):
                spaced = self._collapsed_match(region, quote)
                if spaced is not None:
                    return spaced
            where = f"document {region.doc!r}"
            if (region.start, region.end) != (0, len(full)):
                where = f"{where} (within {region.start}-{region.end})"
            raise ItemError(f"in {where}: {exc}", f"{name}.{exc.field}") from None
        return Located(region.doc, region.start + found.start, region.start + found.end)

    def context(self, ref: Any, name: str) -> Located:
        """Place a context: a gold-style reference, ``{doc, text}``, or a bare text."""
        if isinstance(ref, dict):
            check_fields(ref, REF_FIELDS, at=f"{name}.")
        if isinstance(ref, dict) and not any(
            k in ref for k in ("start", "end", "prefix", "suffix")
        ):
            # A chunk as retrieved: taken at its first occurrence, whitespace forgiven.
            for key in ("text", "quote"):
                if isinstance(ref.get(key), str):
                    doc, text = self._doc(ref.get("doc"), f"{name}.doc")
                    return self._find(doc, text, ref[key], f"{name}.{key}")
        if isinstance(ref, str) and self.text(ref) is None:
            return self._search(ref, name)
        return self.gold(ref, name)

    def _find(self, doc: str, text: str, passage: str, name: str) -> Located:
        if not passage.strip():
            raise ItemError("expected a non-empty context text", name)
        position = text.find(passage)
        if position != -1:
            if text.find(passage, position + 1) != -1:
                self.first_occurrence += 1
            return Located(doc, position, position + len(passage))
        spaced = self._collapsed_match(Located(doc, 0, len(text)), passage)
        if spaced is None:
            raise ItemError(
                f"context text not found in document {doc!r} (even with whitespace collapsed): "
                f"{_show(passage)}",
                name,
            )
        return spaced

    def _collapsed_match(self, region: Located, passage: str) -> Located | None:
        key = (region.doc, region.start, region.end)
        if key not in self._collapsed:
            full = self.text(region.doc)
            assert full is not None, region.doc
            self._collapsed[key] = _collapse(full[region.start : region.end])
        collapsed, origin = self._collapsed[key]
        wanted = " ".join(passage.split())
        if not wanted:
            return None
        position = collapsed.find(wanted)
        if position == -1:
            return None
        self.whitespace_matched += 1
        return Located(
            region.doc,
            region.start + origin[position],
            region.start + origin[position + len(wanted) - 1] + 1,
        )

    def _search(self, passage: str, name: str) -> Located:
        if not passage.strip():
            raise ItemError("expected a non-empty context text or a document id", name)
        universe = list(self._universe()) if self._universe is not None else list(self.texts)
        texts = [(doc, text) for doc in universe if (text := self.text(doc)) is not None]
        # Exact text first (one scan per document); whitespace forgiven only when none has it.
        hits = [self._find(doc, text, passage, name) for doc, text in texts if passage in text]
        if not hits:
            for doc, text in texts:
                spaced = self._collapsed_match(Located(doc, 0, len(text)), passage)
                if spaced is not None:
                    hits.append(spaced)
        if not hits:
            raise ItemError(
                f"neither a document id nor a text found in any document: {_show(passage)}; "
                'give {"doc": ID, "text": ...}',
                name,
            )
        if len(hits) > 1:
            docs = ", ".join(repr(h.doc) for h in hits[:5])
            raise ItemError(
                f"context text found in several documents ({docs}); "
                'give {"doc": ID, "text": ...} to choose',
                name,
            )
        return hits[0]


def _collapse(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs as one space, and each character's offset in ``text``."""
    out: list[str] = []
    origin: list[int] = []
    in_space = False
    for position, ch in enumerate(text):
        if ch.isspace():
            if not in_space and out:
                out.append(" ")
                origin.append(position)
            in_space = True
            continue
        in_space = False
        out.append(ch)
        origin.append(position)
    return "".join(out), origin


def _check_offsets(start: Any, end: Any, name: str) -> None:
    for label, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ItemError(f"expected an integer offset, got {value!r}", f"{name}.{label}")
        # A negative offset would be read from the text's end (Python's slices) and land
        # on other text: a citation of context 2 at -36..-1 became a gold span it never cited.
        if value is not None and value < 0:
            raise ItemError(
                f"expected an offset of 0 or more (code points from the start), got {value}",
                f"{name}.{label}",
            )


def _optional_str(ref: dict[str, Any], key: str, name: str) -> str | None:
    value = ref.get(key)
    if value is not None and not isinstance(value, str):
        raise ItemError(f"expected a string, got {type(value).__name__}", f"{name}.{key}")
    return value


def _show(value: str, limit: int = 80) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "...")
