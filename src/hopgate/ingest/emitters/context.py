"""What every record emitter shares: the ledger's index, the store's records, this load's writes.

An emitter turns one ledger record into the N-Triples statements (without a
graph term) that docs/model.md gives for its kind. It checks what only the
second pass can check (references, anchoring, readers, times), through the
helpers here, and raises a :class:`~hopgate.errors.LedgerError` naming the
file, record and field (docs/spec/ledger.md "Errors").
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.errors import LedgerError
from hopgate.ingest.anchoring import Anchor
from hopgate.ingest.index import ID_KINDS, LedgerIndex, VersionFacts, fail
from hopgate.ingest.ledger import Record, parse_time
from hopgate.ingest.stored import StoredRecords, StoredSpan
from hopgate.inputs import MAX_LITERAL_BYTES, literal_size
from hopgate.times import xsd_datetime
from hopgate.vocab import HG, OA, PROV, RDF
from hopgate.vocab import RDF_TYPE as A


@dataclass
class Context:
    """One load's second pass: its index, the store's records, and what it already wrote."""

    file: str
    index: LedgerIndex
    stored: StoredRecords
    #: Records written (or restated) by kind, plus ``output`` and ``inline span``.
    counts: Counter[str] = field(default_factory=Counter)
    #: Agents and inline spans this load already wrote (each is written once).
    emitted: set[str] = field(default_factory=set)
    #: When this load records what it writes: a judgment may not claim a later
    #: time (docs/spec/adjudication.md "Recording").
    recorded_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: The recording number of each judgment this load writes, by its IRI
    #: (:func:`hopgate.ingest.emitters.adjudication.recording_numbers`).
    numbers: dict[str, int] = field(default_factory=dict)
    #: References to the store not yet checked: (kind, id) -> where first made
    #: (record, its id, the field), in file order (:meth:`check_references`).
    pending: dict[tuple[str, str], tuple[str, str | None, str]] = field(default_factory=dict)
    #: New inline spans whose ids a span of another version may hold in the store:
    #: node -> (record, its id, the field, the span id), checked with the references.
    pending_spans: dict[str, tuple[str, str | None, str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.recorded_at = self.recorded_at.astimezone(UTC)

    def fail(self, message: str, record: Record, name: str) -> NoReturn:
        """Refuse the ledger: the error names the file, the record, its id and the field."""
        fail(self.file, message, record, name)

    def ref(self, kind: str, ledger_id: str, record: Record, name: str) -> str:
        """The IRI of a referenced record; it must be in this ledger or in the store.

        A reference to the store is checked by :meth:`check_references` at the
        end of the pass, with every other one, in a few batched queries: one
        query per reference made a later run's load cost 3-8x the first's on a
        remote store (bench/README.md, "Two servers and a team's history").
        """
        minted = ids.mint(ID_KINDS[kind][0], ledger_id)
        if ledger_id not in self.index.ids[kind]:
            self.pending.setdefault((kind, ledger_id), (record.where, record.id, name))
        return minted

    def check_references(self) -> None:
        """Refuse the ledger at its first reference (in file order) the store does not hold.

        Raises:
            LedgerError: naming the file, the record, its id and the field.
        """
        taken = self.stored.spans_held(list(self.pending_spans))
        for node, (where, record_id, name, span_id) in self.pending_spans.items():
            stored = self.stored.span(node) if node in taken else None
            if stored is not None:
                raise LedgerError(
                    _collision(span_id, stored),
                    file=self.file,
                    record=where,
                    field=name,
                    record_id=record_id,
                )
        self.pending_spans.clear()
        missing = self.stored.undefined(list(self.pending))
        for key, (where, record_id, name) in self.pending.items():
            if key in missing:
                kind, ledger_id = key
                raise LedgerError(
                    f"unknown {kind.replace('_', ' ')} id {ledger_id!r}",
                    file=self.file,
                    record=where,
                    field=name,
                    record_id=record_id,
                )
        self.pending.clear()

    def inline_span_stored(
        self, node: str, span_id: str, version: str, found: Anchor, record: Record, name: str
    ) -> bool:
        """Whether the store already holds the inline span ``node`` (of ``version`` at ``found``).

        The same check as within one file, across loads: a span the store
        holds under this id must be this very inline span. When every span
        quoting the version was read beforehand (:meth:`StoredRecords.prefetch`),
        a span of another version under this id is looked for at the end, with
        the other references (:meth:`check_references`).
        """
        if self.stored.absent_known(node, version):
            self.pending_spans.setdefault(node, (record.where, record.id, name, span_id))
            return False
        stored = self.stored.span(node)
        if stored is not None and not stored.is_inline_span(version, found):
            # A prefetched (batched) answer is confirmed by a query of its own
            # before the ledger is refused.
            stored = self.stored.span(node, alone=True)
            if stored is not None and not stored.is_inline_span(version, found):
                self.fail(_collision(span_id, stored), record, name)
        return stored is not None

    def version(self, ledger_id: str, record: Record, name: str) -> VersionFacts:
        """The text and readers of a referenced version, from this ledger or the store."""
        # Checked now, not at the end: an unknown version has no text to anchor in.
        if ledger_id not in self.index.ids["version"] and not self.stored.defines(
            "version", ledger_id
        ):
            self.fail(f"unknown version id {ledger_id!r}", record, name)
        if ledger_id in self.index.versions:
            return self.index.versions[ledger_id]
        return self.stored.version(ledger_id)

    def time(
        self, record: Record, data: dict[str, Any], name: str, label: str | None = None
    ) -> str:
        """A field's time as a UTC ``xsd:dateTime`` lexical form (docs/spec/ledger.md "Times")."""
        return parse_time(
            data[name], file=self.file, where=record.where, field=label or name, record_id=record.id
        )

    def readers(self, record: Record, readers: list[str]) -> Iterator[str]:
        """The IRI terms of a ``readers`` list, each a reader of this ledger or the store."""
        for reader in readers:
            yield nt.iri(self.ref("reader", reader, record, "readers"))

    def agent(self, ledger_id: str, *, software: bool = False) -> Iterator[str]:
        """An agent's statements, the first time this load names it."""
        node = ids.mint("agent", ledger_id)
        if node in self.emitted:
            return
        self.emitted.add(node)
        s = nt.iri(node)
        yield f"{s} <{A}> <{PROV}Agent>"
        if software:
            yield f"{s} <{A}> <{PROV}SoftwareAgent>"
        yield f"{s} <{HG}ledgerId> {nt.string(ledger_id)}"

    def common(
        self, s: str, record: Record, classes: Iterable[str], ledger_id: str
    ) -> Iterator[str]:
        """A record's classes, its ledger id and its ``x-`` fields."""
        for cls in classes:
            yield f"{s} <{A}> <{cls}>"
        yield f"{s} <{HG}ledgerId> {nt.string(ledger_id)}"
        yield from extension(s, record.data)


def stamp(moment: datetime) -> str:
    """A moment as the UTC ``xsd:dateTime`` lexical form a load writes (microseconds kept)."""
    return xsd_datetime(moment)


class TooLarge(ValueError):
    """A literal over the limit; ``field`` names the first field it holds."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def extension(s: str, data: dict[str, Any]) -> Iterator[str]:
    """A record's (or output's) ``x-`` fields, kept as one ``rdf:JSON`` literal."""
    extra = {k: v for k, v in data.items() if k.startswith("x-")}
    if extra:
        payload = json.dumps(extra, sort_keys=True, ensure_ascii=False)
        if literal_size(payload) > MAX_LITERAL_BYTES:
            raise TooLarge(
                f"the x- fields are {literal_size(payload):,} bytes as one literal, over the "
                f"{MAX_LITERAL_BYTES:,}-byte limit",
                min(extra),
            )
        yield f"{s} <{HG}extension> {nt.literal(payload, RDF + 'JSON')}"


def locator_lines(node: str, locator: str) -> Iterator[str]:
    """A withheld text's span selector: an opaque locator (docs/spec/ledger.md "Withheld text")."""
    selector = nt.iri(node + "/locator")
    yield f"{nt.iri(node)} <{OA}hasSelector> {selector}"
    yield f"{selector} <{A}> <{HG}LocatorSelector>"
    yield f"{selector} <{RDF}value> {nt.string(locator)}"


def position_lines(
    node: str, start: int, end: int, exact: str, prefix: str | None, suffix: str | None
) -> list[str]:
    """A span's two selectors: its offsets and its exact text (with prefix and suffix)."""
    s = nt.iri(node)
    position = nt.iri(node + "/position")
    quote = nt.iri(node + "/quote")
    lines = [
        f"{s} <{OA}hasSelector> {position}",
        f"{s} <{OA}hasSelector> {quote}",
        f"{position} <{A}> <{OA}TextPositionSelector>",
        f"{position} <{OA}start> {nt.integer(start)}",
        f"{position} <{OA}end> {nt.integer(end)}",
        f"{quote} <{A}> <{OA}TextQuoteSelector>",
        f"{quote} <{OA}exact> {nt.string(exact)}",
    ]
    if prefix is not None:
        lines.append(f"{quote} <{OA}prefix> {nt.string(prefix)}")
    if suffix is not None:
        lines.append(f"{quote} <{OA}suffix> {nt.string(suffix)}")
    return lines


def _collision(span_id: str, stored: StoredSpan) -> str:
    return (
        f"inline span id {span_id!r} collides with {stored.describe()}; "
        "give the ledger span another id"
    )


__all__ = [
    "A",
    "Context",
    "TooLarge",
    "extension",
    "locator_lines",
    "position_lines",
    "stamp",
]
