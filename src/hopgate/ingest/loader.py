"""Loading a ledger into the store as PROV-O: check everything, then write once.

A load reads the ledger twice as a stream. Pass one indexes ids (and keeps
each version's text and readers, which spans need). Pass two checks every
reference, anchors every span and writes N-Quads to a temporary file. Only
when both passes succeed is the file added to the store, in one transaction,
as the named graph of this load: any error leaves the store as it was.
The model is documented in ``docs/model.md``; what is checked, in
docs/spec/ledger.md "Errors" and "Loading".
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from hopgate import ids
from hopgate import ntriples as nt
from hopgate import progress as _progress
from hopgate._version import __version__
from hopgate.errors import AnchorError, ConflictError, FileRefused, LedgerError
from hopgate.ids import case_iri, case_key
from hopgate.ingest import judgments
from hopgate.ingest.anchoring import Anchor, anchor, sha256_digest
from hopgate.ingest.ledger import (
    Record,
    check_values,
    file_digest,
    parse_time,
    read_records,
    read_version_file,
)
from hopgate.inputs import MAX_LITERAL_BYTES, literal_size
from hopgate.library.steps import evaluation_projection, reading_projection
from hopgate.store import IRI, Store, Value, snapshots
from hopgate.store.publish import publish
from hopgate.vocab import CATALOG_GRAPH, DCTERMS, HG, ID_BASE, OA, PROV, RDF

A = RDF + "type"
_STATUS = {"adjudicated": "Adjudicated", "proposed": "Proposed", "rejected": "Rejected"}
_CONTRADICTION = {"resolved": "Resolved", "unresolved": "Unresolved"}
#: Ledger kinds and the IRI kind and class their ids denote.
_ID_KINDS = {
    "evaluation": ("evaluation", HG + "Evaluation"),
    "reader": ("reader", HG + "ReaderClass"),
    "source": ("source", HG + "Source"),
    "version": ("version", HG + "Version"),
    "span": ("span", HG + "Span"),
    "question": ("question", HG + "Question"),
    "claim": ("claim", HG + "Claim"),
    "evidence_set": ("set", HG + "EvidenceSet"),
    "contradiction": ("contradiction", HG + "Contradiction"),
    "run": ("run", HG + "Run"),
    "output": ("output", HG + "OutputClaim"),
    "judgment": ("judgment", HG + "Judgment"),
}


@dataclass(frozen=True)
class LoadResult:
    """What one load did."""

    file: str
    graph: str
    digest: str
    records: dict[str, int]
    triples: int
    already_loaded: bool = False
    skipped_identical: int = 0
    seconds: float = 0.0


@dataclass
class _Version:
    text: str | None
    readers: frozenset[str] | None


@dataclass(frozen=True)
class _StoredSpan:
    """A span the store already holds under an inline span's IRI: where, and what."""

    loads: tuple[str, ...]  # the ledger file and load graph of each load holding it
    facts: frozenset[tuple[bool, Value, Value, Value, Value]]  # inline, version, start, end, exact
    version_ids: tuple[str, ...]  # the hg:ledgerId of its version(s), as stored

    def is_inline_span(self, version: str, found: Anchor) -> bool:
        """True when the stored span is the inline span of ``version`` at ``found``."""
        return self.facts == {(True, version, found.start, found.end, found.exact)}

    def describe(self) -> str:
        """The stored span as an error names it: kind, version, and the loads holding it."""
        kinds = {"an inline span" if inline else "a ledger span" for inline, *_ in self.facts}
        of = ", ".join(repr(v) for v in self.version_ids) or "(unknown)"
        return (
            f"{' or '.join(sorted(kinds))} of version {of} already in the store, "
            f"loaded from {'; '.join(self.loads)}"
        )


@dataclass
class _Index:
    """Pass one: the ids this ledger defines, and the facts spans need of versions."""

    ids: dict[str, dict[str, str]] = field(default_factory=lambda: {k: {} for k in _ID_KINDS})
    versions: dict[str, _Version] = field(default_factory=dict)
    cases: dict[tuple[str, ...], str] = field(default_factory=dict)
    # Judgments: id -> (subject, question, final); outputs that assert no claim.
    judgments: dict[str, tuple[str, str | None, bool]] = field(default_factory=dict)
    extra_outputs: set[str] = field(default_factory=set)


def graph_for_digest(digest: str) -> str:
    """The named graph IRI of the load of a ledger with this ``sha256:`` digest."""
    return ids.mint("load", digest.removeprefix("sha256:"))


def load(
    store: Store,
    path: Path | str,
    *,
    agent: str | None = None,
    progress: _progress.Reporter | None = None,
    allow_files: tuple[Path, ...] = (),
) -> LoadResult:
    """Load one ledger file into ``store`` as a named graph that is a ``prov:Bundle``.

    Loading a ledger whose bytes are already loaded is a no-op
    (``already_loaded`` is True). Records identical to ones already in the
    store are not written twice. ``agent`` names the person on whose behalf
    the load ran (recorded with ``prov:actedOnBehalfOf``; no one when None).
    A version's ``file:`` is read only inside the ledger's folder or one of
    ``allow_files`` (see :func:`hopgate.ingest.ledger.read_version_file`).

    ``progress`` (default: the ambient reporter, :mod:`hopgate.progress`)
    hears of each pass over the records.

    Raises:
        LedgerError: the file is malformed; the message names file, record, field.
        ConflictError: the ledger redefines ids already in the store differently.
        StoreError: the store could not be written (nothing is kept).

    Example (``hopgate load LEDGER``):
        >>> from hopgate import load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> result = load(store, artefact("examples") / "cedar.yaml")
        >>> result.records["claim"], result.records["case"], result.triples
        (4, 4, 542)
        >>> load(store, artefact("examples") / "cedar.yaml").already_loaded
        True
    """
    path = Path(path)
    with _progress.reporting(_progress.current(progress)):
        return _load(store, path, agent=agent, allow_files=allow_files)


def _load(
    store: Store, path: Path, *, agent: str | None, allow_files: tuple[Path, ...]
) -> LoadResult:
    started = datetime.now(UTC)
    clock = time.perf_counter()
    if not path.exists():
        raise LedgerError("no such file", file=str(path))
    digest = file_digest(path)
    graph = graph_for_digest(digest)
    if _already_loaded(store, graph):
        return LoadResult(str(path), graph, digest, {}, 0, already_loaded=True)
    # Graphs that a killed load or evaluation left without a catalog entry
    # (this one's among them) are invisible; remove them so that this load
    # starts from the store as it was. Asked unconditionally: a remote store
    # lists only published graphs.
    snapshots.discard_unpublished(store)
    store.remove_graph(graph)
    loader = _Loader(store, path, graph, allow_files=allow_files, recorded_at=started)
    index = loader.index()
    if not any(table for table in index.ids.values()) and not index.cases:
        raise LedgerError("the ledger holds no records (nothing to load)", file=str(path))
    existing = loader.existing_records(index)
    with tempfile.TemporaryDirectory(prefix="hopgate-load-") as scratch:
        records, catalog = Path(scratch) / "records.nq", Path(scratch) / "catalog.nq"
        with records.open("w", encoding="utf-8") as out:
            loader.emit(index, out, existing)
        if file_digest(path) != digest:
            # Pass two reads without the schema: it must read what pass one checked.
            raise LedgerError("the ledger changed while it was being loaded", file=str(path))

        def entry(kept: list[str]) -> Path:
            with catalog.open("w", encoding="utf-8") as out:
                loader.emit_catalog(out, digest, started, datetime.now(UTC), agent, kept)
            return catalog

        with _progress.phase(f"load {path.name}: store"):
            publish(
                store,
                graph,
                records,
                catalog_entry=entry,
                kind="load",
                projections=[evaluation_projection(), reading_projection()],
            )
    return LoadResult(
        file=str(path),
        graph=graph,
        digest=digest,
        records=dict(loader.counts),
        triples=loader.triples,
        skipped_identical=loader.skipped,
        seconds=time.perf_counter() - clock,
    )


def _already_loaded(store: Store, graph: str) -> bool:
    return store.ask(
        "ASK { GRAPH ?catalog { ?graph a prov:Bundle } }",
        params={"catalog": IRI(CATALOG_GRAPH), "graph": IRI(graph)},
    )


class _Loader:
    def __init__(
        self,
        store: Store,
        path: Path,
        graph: str,
        *,
        allow_files: tuple[Path, ...] = (),
        recorded_at: datetime | None = None,
    ) -> None:
        self.store = store
        # When this load records what it writes: a judgment may not claim a
        # later time (docs/spec/adjudication.md "Recording").
        self.recorded_at = (recorded_at or datetime.now(UTC)).astimezone(UTC)
        self._numbers: dict[str, int] | None = None
        self.allow_files = allow_files
        self.path = path
        self.file = str(path)
        self.graph = graph
        self.base = path.parent
        self.counts: Counter[str] = Counter()
        self.triples = 0
        self.skipped = 0
        self._store_ids: dict[tuple[str, str], bool] = {}
        # Whether the store holds any ledger record at all: when it does not,
        # nothing needs looking up there (one ASK per record is skipped; figures
        # in bench/README.md, "Figures behind the code").
        self._store_has_records = store.ask("ASK { ?s hg:ledgerId ?id }")
        self._store_versions: dict[str, _Version | None] = {}
        self._emitted: set[str] = set()
        self._graph_term = f" <{graph}> .\n"

    # ---- pass one ---------------------------------------------------------

    def index(self) -> _Index:
        index = _Index()
        finals: dict[tuple[str, str], Record] = {}
        name = f"load {self.path.name}: check"
        for record in _progress.counted(read_records(self.path), name, unit="records"):
            if record.kind == "case":
                key = case_key(record.data)
                if key in index.cases:
                    self._fail(
                        f"duplicate case for run {key[0]!r} and question {key[1]!r}"
                        f"{' and this intervention' if len(key) > 2 else ''} "
                        f"(first at {index.cases[key]})",
                        record,
                        "question",
                    )
                index.cases[key] = record.where
                for number, output in enumerate(record.data.get("outputs") or []):
                    where = f"{record.where}.outputs[{number}]"
                    self._register(index, "output", output["id"], where, record, "outputs")
                    if output.get("claim") is None:
                        index.extra_outputs.add(output["id"])
                continue
            assert record.id is not None
            self._register(index, record.kind, record.id, record.where, record, "id")
            if record.kind == "version":
                index.versions[record.id] = self._version_facts(record)
            elif record.kind == "judgment":
                d = record.data
                index.judgments[record.id] = (d["subject"], d.get("question"), bool(d.get("final")))
                self._one_final(finals, record)
        return index

    def _one_final(self, finals: dict[tuple[str, str], Record], record: Record) -> None:
        """At most one final judgment of a subject's question per load (adjudication.md
        "Recording"): which one is in force never depends on the order of a file."""
        d = record.data
        question = d.get("question")
        if not d.get("final") or question is None:
            return
        # Entailment and alternatives both re-annotate a set: one decision.
        decides = "re-annotation" if question in ("entailment", "alternatives") else question
        key = (str(d["subject"]), decides)
        first = finals.setdefault(key, record)
        if first is not record:
            self._fail(
                f"a second final judgment of {d['subject']!r} ({decides}) in this ledger, after "
                f"{first.id!r} at {first.where}: one load records at most one final judgment of a "
                "subject's question, so which is in force never depends on the order of a file; "
                "record it with a later load (hopgate judge, or another ledger)",
                record,
                "final",
            )

    def _register(
        self, index: _Index, kind: str, ledger_id: str, where: str, record: Record, name: str
    ) -> None:
        table = index.ids[kind]
        if ledger_id in table:
            raise LedgerError(
                f"duplicate {kind} id (first defined at {table[ledger_id]})",
                file=self.file,
                record=where,
                field="id",  # ``where`` already names the output: cases[0].outputs[1]
                record_id=ledger_id,
            )
        table[ledger_id] = where

    def _version_facts(self, record: Record) -> _Version:
        data = record.data
        if "text" in data and "file" in data:
            self._fail("give text or file, not both", record, "file")
        text: str | None = data.get("text")
        if "file" in data:
            try:
                text = read_version_file(self.base, data["file"], allowed=self.allow_files)
            except FileRefused as exc:
                self._fail(str(exc), record, "file")
            if text is not None:  # what the ledger's own strings may not hold, neither may it
                check_values({"file": text}, file=self.file, where=record.where)
        if text is not None and literal_size(text) > MAX_LITERAL_BYTES:
            self._fail(
                f"the text is {literal_size(text):,} bytes as a literal, over the "
                f"{MAX_LITERAL_BYTES:,}-byte limit of one text (split the version)",
                record,
                "file" if "file" in data else "text",
            )
        if text is not None and "digest" in data:
            actual = sha256_digest(text)
            if actual != data["digest"]:
                self._fail(
                    f"digest does not match the bytes (they hash to {actual})", record, "digest"
                )
        readers = data.get("readers")
        return _Version(text, frozenset(readers) if readers else None)

    # ---- redefinitions ----------------------------------------------------

    def existing_records(self, index: _Index) -> set[str]:
        """Minted IRIs of this ledger's records that the store already holds."""
        if not self._store_has_records:
            return set()
        found: set[str] = set()
        candidates = [
            ids.mint(_ID_KINDS[kind][0], i) for kind, table in index.ids.items() for i in table
        ]
        candidates += [case_iri(key) for key in index.cases]
        for start in range(0, len(candidates), 500):
            chunk = candidates[start : start + 500]
            values = " ".join(f"<{c}>" for c in chunk)  # minted IRIs: percent-encoded, safe
            rows = self.store.select(
                f"SELECT DISTINCT ?s WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o }}"
            )
            found.update(str(row["s"]) for row in rows)
        return found

    # ---- pass two ---------------------------------------------------------

    def emit(self, index: _Index, out: TextIO, existing: set[str]) -> None:
        self._number_judgments(index, existing)
        captured: dict[str, tuple[Record, list[str]]] = {}
        taken: list[tuple[str, str]] = []  # output ids of new cases that the store holds
        total = len(index.cases) + sum(len(t) for k, t in index.ids.items() if k != "output")
        name = f"load {self.path.name}: write"
        records = read_records(self.path, validate=False)  # validated in pass one
        for record in _progress.counted(records, name, total, unit="records"):
            try:
                lines = list(self._record_lines(index, record))
            except _TooLarge as exc:
                self._fail(str(exc), record, exc.field)
            main = (
                case_iri(case_key(record.data))
                if record.kind == "case"
                else ids.mint(_ID_KINDS[record.kind][0], record.id or "")
            )
            self.counts[record.kind] += 1
            if main in existing:
                captured[main] = (record, lines)
                continue
            if record.kind == "case":
                outputs = [o["id"] for o in record.data.get("outputs") or []]
                taken += [("output", o) for o in outputs if ids.mint("output", o) in existing]
            elif record.kind == "judgment":
                lines += self._recording(main)
            self._write(out, lines)
        if captured or taken:
            self._settle_existing(out, captured, taken)

    def _write(self, out: TextIO, lines: list[str]) -> None:
        graph_term = self._graph_term
        out.write("".join(line + graph_term for line in lines))
        self.triples += len(lines)

    def _recording(self, judgment: str) -> list[str]:
        """The store's stamp on a judgment this load writes (adjudication.md "Recording").

        Its recording number: one more than the greatest in the store, then
        in the order of the ids of the judgments this load writes (never the
        order of the file, so the same ledger loads the same triples), so that
        recordings are strictly ordered; each load holds the store's writer
        lock (see the spec on remote stores). When and for whom the load ran
        is its catalog entry's. A ledger cannot write this: it is the
        loader's, never a record's field.
        """
        assert self._numbers is not None
        return [f"{nt.iri(judgment)} <{HG}recordNumber> {nt.integer(self._numbers[judgment])}"]

    def _number_judgments(self, index: _Index, existing: set[str]) -> None:
        written = sorted(
            node
            for node in (ids.mint("judgment", j) for j in index.judgments)
            if node not in existing
        )
        base = 0
        if written:
            rows = self.store.select("SELECT (MAX(?n) AS ?latest) WHERE { ?j hg:recordNumber ?n }")
            latest = rows[0]["latest"] if rows else None
            base = latest if isinstance(latest, int) and not isinstance(latest, bool) else 0
        self._numbers = {node: base + rank for rank, node in enumerate(written, start=1)}

    def _settle_existing(
        self,
        out: TextIO,
        captured: dict[str, tuple[Record, list[str]]],
        taken: list[tuple[str, str]],
    ) -> None:
        import rdflib

        conflicts: list[tuple[str, str]] = list(taken)
        for main, (_record, lines) in captured.items():
            subjects = sorted({line.split(" ", 1)[0] for line in lines})
            mine = _normalised(
                rdflib.Graph().parse(data="".join(x + " .\n" for x in lines), format="nt")
            )
            values = " ".join(subjects)
            # The records as loaded (load graphs only: not the catalog's facts
            # about agents, nor what an evaluation recorded about a record),
            # without the store's own stamp (a judgment's recording number).
            theirs_nt = self.store.construct(
                f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g {{ ?s ?p ?o }}"
                f" GRAPH <{CATALOG_GRAPH}> {{ ?g prov:wasGeneratedBy ?load . ?load a hg:Load }}"
                f" FILTER (?p NOT IN ({_RECORDING})) }}"
            )
            theirs = _normalised(rdflib.Graph().parse(data=theirs_nt.decode("utf-8"), format="nt"))
            if mine == theirs:
                self.skipped += 1
                continue
            kind, ledger_id = ids.parse(main)
            conflicts.append((kind, ledger_id))
        if conflicts:
            raise ConflictError(self.file, sorted(conflicts))

    def _record_lines(self, index: _Index, record: Record) -> Iterator[str]:
        emit = getattr(self, f"_emit_{record.kind}")
        lines: Iterator[str] = emit(index, record)
        return lines

    # ---- helpers for pass two ---------------------------------------------

    def _fail(self, message: str, record: Record, name: str) -> None:
        raise LedgerError(
            message, file=self.file, record=record.where, field=name, record_id=record.id
        )

    def _ref(self, index: _Index, kind: str, ledger_id: str, record: Record, name: str) -> str:
        """The IRI of a referenced record; it must be in this ledger or in the store."""
        iri_kind, cls = _ID_KINDS[kind]
        minted = ids.mint(iri_kind, ledger_id)
        if ledger_id in index.ids[kind]:
            return minted
        key = (kind, ledger_id)
        if key not in self._store_ids:
            self._store_ids[key] = self.store.ask(
                "ASK { ?node a ?class }", params={"node": IRI(minted), "class": IRI(cls)}
            )
        if not self._store_ids[key]:
            self._fail(f"unknown {kind.replace('_', ' ')} id {ledger_id!r}", record, name)
        return minted

    def _version(self, index: _Index, ledger_id: str, record: Record, name: str) -> _Version:
        self._ref(index, "version", ledger_id, record, name)
        if ledger_id in index.versions:
            return index.versions[ledger_id]
        if ledger_id not in self._store_versions:
            rows = self.store.select(
                "SELECT ?text ?reader WHERE { OPTIONAL { ?v prov:value ?text } "
                "OPTIONAL { ?v hg:readableBy ?r . ?r hg:ledgerId ?reader } }",
                params={"v": IRI(ids.mint("version", ledger_id))},
            )
            text = next((r["text"] for r in rows if r["text"] is not None), None)
            readers = {str(r["reader"]) for r in rows if r["reader"] is not None}
            self._store_versions[ledger_id] = _Version(
                text if isinstance(text, str) else None, frozenset(readers) if readers else None
            )
        found = self._store_versions[ledger_id]
        assert found is not None
        return found

    def _time(
        self, record: Record, data: dict[str, Any], name: str, label: str | None = None
    ) -> str:
        return parse_time(
            data[name], file=self.file, where=record.where, field=label or name, record_id=record.id
        )

    def _readers(self, index: _Index, record: Record, readers: list[str]) -> Iterator[str]:
        for reader in readers:
            yield nt.iri(self._ref(index, "reader", reader, record, "readers"))

    def _agent(self, ledger_id: str, *, software: bool = False) -> Iterator[str]:
        node = ids.mint("agent", ledger_id)
        if node in self._emitted:
            return
        self._emitted.add(node)
        s = nt.iri(node)
        yield f"{s} <{A}> <{PROV}Agent>"
        if software:
            yield f"{s} <{A}> <{PROV}SoftwareAgent>"
        yield f"{s} <{HG}ledgerId> {nt.string(ledger_id)}"

    def _common(
        self, s: str, record: Record, classes: Iterable[str], ledger_id: str
    ) -> Iterator[str]:
        for cls in classes:
            yield f"{s} <{A}> <{cls}>"
        yield f"{s} <{HG}ledgerId> {nt.string(ledger_id)}"
        yield from _extension(s, record.data)

    # ---- one emitter per record kind --------------------------------------

    def _emit_evaluation(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("evaluation", d["id"]))
        yield from self._common(s, record, (PROV + "Plan", HG + "Evaluation"), d["id"])
        yield f"{s} <{HG}reader> {nt.iri(self._ref(index, 'reader', d['reader'], record, 'reader'))}"
        yield f"{s} <{HG}observationCutoff> {nt.datetime(self._time(record, d, 'observation_cutoff'))}"
        if d.get("corpus") is not None:
            yield f"{s} <{HG}corpus> {nt.string(d['corpus'])}"
        yield f"{s} <{HG}coveragePolicy> <{HG}Containment>"

    def _emit_reader(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("reader", d["id"]))
        yield from self._common(s, record, (PROV + "Agent", HG + "ReaderClass"), d["id"])
        if d.get("title"):
            yield f"{s} <{DCTERMS}title> {nt.string(d['title'])}"

    def _emit_source(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("source", d["id"]))
        yield from self._common(s, record, (PROV + "Entity", HG + "Source"), d["id"])
        yield f"{s} <{HG}address> {nt.typed(d['address'], 'anyURI')}"
        if d.get("title"):
            yield f"{s} <{DCTERMS}title> {nt.string(d['title'])}"

    def _emit_version(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        vid = d["id"]
        facts = index.versions[vid]
        s = nt.iri(ids.mint("version", vid))
        fetch = nt.iri(ids.mint("fetch", vid))
        source = nt.iri(self._ref(index, "source", d["source"], record, "source"))
        yield from self._common(s, record, (PROV + "Entity", HG + "Version"), vid)
        yield f"{s} <{PROV}specializationOf> {source}"
        yield f"{s} <{PROV}wasGeneratedBy> {fetch}"
        if facts.text is not None:
            yield f"{s} <{PROV}value> {nt.string(facts.text)}"
            yield f"{s} <{HG}digest> {nt.string(sha256_digest(facts.text))}"
            yield f"{s} <{HG}textWithheld> {nt.boolean(False)}"
        else:
            yield f"{s} <{HG}textWithheld> {nt.boolean(True)}"
            if d.get("digest"):
                yield f"{s} <{HG}digest> {nt.string(d['digest'])}"
        if d.get("media_type"):
            yield f"{s} <{HG}mediaType> {nt.string(d['media_type'])}"
        if d.get("published_at"):
            yield f"{s} <{HG}publishedAt> {nt.datetime(self._time(record, d, 'published_at'))}"
        effective = d.get("effective") or {}
        starts = ends = None
        if effective.get("from"):
            starts = self._time(record, effective, "from", "effective.from")
            yield f"{s} <{HG}effectiveFrom> {nt.datetime(starts)}"
        if effective.get("until"):
            ends = self._time(record, effective, "until", "effective.until")
            yield f"{s} <{HG}effectiveUntil> {nt.datetime(ends)}"
        if starts and ends and not starts < ends:
            self._fail(
                f"expected effective.from before effective.until ({starts} >= {ends})",
                record,
                "effective.until",
            )
        if d.get("invalidated_at"):
            yield f"{s} <{PROV}invalidatedAtTime> {nt.datetime(self._time(record, d, 'invalidated_at'))}"
        readers = list(self._readers(index, record, d.get("readers") or []))
        for reader in readers:
            yield f"{s} <{HG}readableBy> {reader}"
        if d.get("revision_of"):
            revision = self._ref(index, "version", d["revision_of"], record, "revision_of")
            yield f"{s} <{PROV}wasRevisionOf> {nt.iri(revision)}"
        yield f"{fetch} <{A}> <{PROV}Activity>"
        yield f"{fetch} <{A}> <{HG}Fetch>"
        yield f"{fetch} <{PROV}endedAtTime> {nt.datetime(self._time(record, d, 'observed_at'))}"
        yield f"{fetch} <{PROV}used> {source}"
        if d.get("fetched_by"):
            yield f"{fetch} <{PROV}wasAssociatedWith> {nt.iri(ids.mint('agent', d['fetched_by']))}"
            yield from self._agent(d["fetched_by"])

    def _emit_span(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        node = ids.mint("span", d["id"])
        s = nt.iri(node)
        facts = self._version(index, d["version"], record, "version")
        yield from self._common(s, record, (PROV + "Entity", HG + "Span"), d["id"])
        yield f"{s} <{PROV}wasQuotedFrom> {nt.iri(ids.mint('version', d['version']))}"
        if "locator" in d:
            if facts.text is not None:
                self._fail(
                    f"version {d['version']!r} retains its text: address the span by "
                    "start/end or quote (a locator is for withheld text)",
                    record,
                    "locator",
                )
            for name in ("start", "end", "quote", "prefix", "suffix"):
                if name in d:
                    self._fail("give a locator or offsets/quote, not both", record, name)
            yield from _locator_lines(node, d["locator"])
        else:
            if facts.text is None:
                self._fail(
                    f"version {d['version']!r} withholds its text: address the span by locator",
                    record,
                    "locator",
                )
            assert facts.text is not None
            try:
                found = anchor(
                    facts.text,
                    start=d.get("start"),
                    end=d.get("end"),
                    quote=d.get("quote"),
                    prefix=d.get("prefix"),
                    suffix=d.get("suffix"),
                )
            except AnchorError as exc:
                self._fail(str(exc), record, exc.field)
            yield from _position_lines(
                node, found.start, found.end, found.exact, d.get("prefix"), d.get("suffix")
            )
        readers = d.get("readers")
        if readers is not None:
            if facts.readers is not None:
                wider = sorted(set(readers) - facts.readers)
                if wider:
                    self._fail(
                        f"readers {wider} widen the version's readers {sorted(facts.readers)}; "
                        "a span may only narrow them",
                        record,
                        "readers",
                    )
            for reader in self._readers(index, record, readers):
                yield f"{s} <{HG}readableBy> {reader}"

    def _delivered(
        self, index: _Index, record: Record, item: Any, name: str
    ) -> tuple[str, list[str]]:
        """The IRI of a delivered span (an id or an inline span), and lines for a new inline span."""
        if isinstance(item, str):
            return self._ref(index, "span", item, record, name), []
        version = item["version"]
        facts = self._version(index, version, record, f"{name}.version")
        if facts.text is None:
            self._fail(
                f"version {version!r} withholds its text: deliver its spans by id", record, name
            )
        assert facts.text is not None
        try:
            found = anchor(
                facts.text,
                start=item.get("start"),
                end=item.get("end"),
                quote=item.get("quote"),
                prefix=item.get("prefix"),
                suffix=item.get("suffix"),
            )
        except AnchorError as exc:
            self._fail(str(exc), record, f"{name}.{exc.field}")
        span_id = f"{version}[{found.start}:{found.end}]"
        if span_id in index.ids["span"]:
            self._fail(
                f"inline span id {span_id!r} collides with the ledger span defined at "
                f"{index.ids['span'][span_id]}",
                record,
                name,
            )
        node = ids.mint("span", span_id)
        if node in self._emitted:
            return node, []
        stored = self._stored_span(node)
        if stored is not None:
            # The same check as within one file, across loads: the span the
            # store holds under this id must be this very inline span.
            if not stored.is_inline_span(ids.mint("version", version), found):
                self._fail(
                    f"inline span id {span_id!r} collides with {stored.describe()}; "
                    "give the ledger span another id",
                    record,
                    name,
                )
            return node, []
        self._emitted.add(node)
        s = nt.iri(node)
        lines = [
            f"{s} <{A}> <{PROV}Entity>",
            f"{s} <{A}> <{HG}Span>",
            f"{s} <{HG}ledgerId> {nt.string(span_id)}",
            f"{s} <{HG}inline> {nt.boolean(True)}",
            f"{s} <{PROV}wasQuotedFrom> {nt.iri(ids.mint('version', version))}",
        ]
        lines += _position_lines(node, found.start, found.end, found.exact, None, None)
        self.counts["inline span"] += 1
        return node, lines

    def _stored_span(self, node: str) -> _StoredSpan | None:
        """What the store holds of the span ``node`` (None when it holds no such span)."""
        if not self._store_has_records:
            return None
        rows = self.store.select(
            "SELECT ?graph ?file ?inline ?version ?versionId ?start ?end ?exact WHERE { "
            "GRAPH ?graph { ?span a hg:Span } "
            "OPTIONAL { GRAPH ?catalog { ?graph hg:ledgerFile ?file } } "
            "OPTIONAL { ?span hg:inline ?inline } "
            "OPTIONAL { ?span prov:wasQuotedFrom ?version "
            "OPTIONAL { ?version hg:ledgerId ?versionId } } "
            "OPTIONAL { ?span oa:hasSelector ?position . "
            "?position oa:start ?start ; oa:end ?end } "
            "OPTIONAL { ?span oa:hasSelector ?quote . ?quote oa:exact ?exact } }",
            params={"span": IRI(node), "catalog": IRI(CATALOG_GRAPH)},
        )
        if not rows:
            return None
        loads = {f"{row['file'] or 'an unknown file'} (load graph {row['graph']})" for row in rows}
        return _StoredSpan(
            loads=tuple(sorted(loads)),
            facts=frozenset(
                (row["inline"] is True, row["version"], row["start"], row["end"], row["exact"])
                for row in rows
            ),
            version_ids=tuple(sorted({str(r["versionId"]) for r in rows if r["versionId"]})),
        )

    def _in_store(self, node: str, cls: str) -> bool:
        if not self._store_has_records:
            return False
        return self.store.ask("ASK { ?n a ?c }", params={"n": IRI(node), "c": IRI(cls)})

    def _emit_question(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("question", d["id"]))
        yield from self._common(s, record, (PROV + "Entity", HG + "Question"), d["id"])
        yield f"{s} <{PROV}value> {nt.string(d['text'])}"
        if d.get("answer") is not None:
            yield f"{s} <{HG}referenceAnswer> {nt.string(d['answer'])}"
        for claim in d["claims"]:
            yield f"{s} <{HG}requiresClaim> {nt.iri(self._ref(index, 'claim', claim, record, 'claims'))}"

    def _emit_claim(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("claim", d["id"]))
        yield from self._common(s, record, (PROV + "Entity", HG + "Claim"), d["id"])
        yield f"{s} <{PROV}value> {nt.string(d['text'])}"
        if d.get("applies_at"):
            yield f"{s} <{HG}appliesAt> {nt.datetime(self._time(record, d, 'applies_at'))}"
        yield f"{s} <{HG}consequential> {nt.boolean(bool(d.get('consequential', False)))}"

    def _emit_evidence_set(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        set_id = d["id"]
        s = nt.iri(ids.mint("set", set_id))
        rule = nt.iri(ids.mint("rule", set_id))
        activity = nt.iri(ids.mint("annotation", set_id))
        yield from self._common(
            s, record, (PROV + "Entity", PROV + "Collection", HG + "EvidenceSet"), set_id
        )
        yield f"{s} <{HG}supportsClaim> {nt.iri(self._ref(index, 'claim', d['claim'], record, 'claim'))}"
        seen: set[str] = set()
        for member in d["members"]:
            if member in seen:
                self._fail(f"member {member!r} is listed twice", record, "members")
            seen.add(member)
            yield f"{s} <{PROV}hadMember> {nt.iri(self._ref(index, 'span', member, record, 'members'))}"
        yield f"{s} <{HG}setStatus> <{HG}{_STATUS[d['status']]}>"
        annotation = d["annotation"]
        yield f"{s} <{HG}annotationVersion> {nt.integer(int(annotation['version']))}"
        yield f"{s} <{HG}inferenceRule> {rule}"
        yield f"{s} <{PROV}wasGeneratedBy> {activity}"
        yield f"{rule} <{A}> <{PROV}Plan>"
        yield f"{rule} <{A}> <{HG}InferenceRule>"
        yield f"{rule} <{PROV}value> {nt.string(d['inference'])}"
        yield f"{activity} <{A}> <{PROV}Activity>"
        yield f"{activity} <{A}> <{HG}Annotation>"
        yield f"{activity} <{PROV}wasAssociatedWith> {nt.iri(ids.mint('agent', annotation['by']))}"
        at = parse_time(
            annotation["at"],
            file=self.file,
            where=record.where,
            field="annotation.at",
            record_id=set_id,
        )
        yield f"{activity} <{PROV}endedAtTime> {nt.datetime(at)}"
        yield from self._agent(annotation["by"])

    def _emit_contradiction(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("contradiction", d["id"]))
        if d["status"] == "resolved" and not d.get("decision"):
            self._fail("a resolved contradiction needs its decision", record, "decision")
        yield from self._common(s, record, (PROV + "Entity", HG + "Contradiction"), d["id"])
        yield f"{s} <{HG}contradictsClaim> {nt.iri(self._ref(index, 'claim', d['claim'], record, 'claim'))}"
        yield f"{s} <{HG}conflictingSpan> {nt.iri(self._ref(index, 'span', d['span'], record, 'span'))}"
        yield f"{s} <{HG}contradictionStatus> <{HG}{_CONTRADICTION[d['status']]}>"
        if d.get("decision"):
            yield f"{s} <{HG}decision> {nt.string(d['decision'])}"

    def _emit_run(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("run", d["id"]))
        yield from self._common(s, record, (PROV + "Activity", HG + "Run"), d["id"])
        evaluation = self._ref(index, "evaluation", d["evaluation"], record, "evaluation")
        yield f"{s} <{HG}evaluation> {nt.iri(evaluation)}"
        yield f"{s} <{PROV}wasAssociatedWith> {nt.iri(ids.mint('agent', d['system']))}"
        if d.get("started_at"):
            yield f"{s} <{PROV}startedAtTime> {nt.datetime(self._time(record, d, 'started_at'))}"
        yield from self._agent(d["system"], software=True)

    def _emit_case(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        case_node = case_iri(case_key(d))
        case = nt.iri(case_node)
        yield f"{case} <{A}> <{PROV}Activity>"
        run = nt.iri(self._ref(index, "run", d["run"], record, "run"))
        if d.get("intervention") is None:
            yield f"{case} <{A}> <{HG}Retrieval>"
            yield f"{case} <{HG}ofRun> {run}"
        else:  # kept apart from the plain cases (docs/spec/interventions.md "Recording answers")
            yield from self._intervention(index, record, case, run)
        question = self._ref(index, "question", d["question"], record, "question")
        asked = "forQuestion" if d.get("intervention") is None else "interventionQuestion"
        yield f"{case} <{HG}{asked}> {nt.iri(question)}"
        yield f"{case} <{HG}abstained> {nt.boolean(bool(d.get('abstained', False)))}"
        yield from _extension(case, d)
        for number, item in enumerate(d.get("retrieved") or []):
            span, lines = self._delivered(index, record, item, f"retrieved[{number}]")
            yield from lines
            yield f"{case} <{HG}retrieved> {nt.iri(span)}"
            # The list order is the retrieval rank (rank-based peer metrics read it).
            usage = nt.iri(f"{case_node}/rank/{number + 1}")
            yield f"{case} <{PROV}qualifiedUsage> {usage}"
            yield f"{usage} <{A}> <{PROV}Usage>"
            yield f"{usage} <{PROV}entity> {nt.iri(span)}"
            yield f"{usage} <{HG}rank> {nt.integer(number + 1)}"
        for number, output in enumerate(d.get("outputs") or []):
            name = f"outputs[{number}]"
            o = nt.iri(ids.mint("output", output["id"]))
            yield f"{o} <{A}> <{PROV}Entity>"
            yield f"{o} <{A}> <{HG}OutputClaim>"
            yield f"{o} <{HG}ledgerId> {nt.string(output['id'])}"
            yield from _extension(o, output)
            yield f"{o} <{PROV}wasGeneratedBy> {case}"
            if output.get("text") is not None:
                yield f"{o} <{PROV}value> {nt.string(output['text'])}"
            if output.get("claim") is not None:
                claim = self._ref(index, "claim", output["claim"], record, f"{name}.claim")
                yield f"{o} <{HG}asserts> {nt.iri(claim)}"
            if output["correct"] is not None:  # null: not judged (acceptance.md "Verdict")
                yield f"{o} <{HG}judgedCorrect> {nt.boolean(output['correct'])}"
            for cited_number, item in enumerate(output.get("cites") or []):
                where = f"{name}.cites[{cited_number}]"
                segmented = isinstance(item, dict) and "segment" in item
                delivered = item["span"] if segmented else item
                span, lines = self._delivered(
                    index, record, delivered, f"{where}.span" if segmented else where
                )
                yield from lines
                yield f"{o} <{HG}cites> {nt.iri(span)}"
                if segmented:
                    yield from self._segment(record, output, span, item["segment"], where)
            self.counts["output"] += 1

    def _segment(
        self, record: Record, output: dict[str, Any], span: str, segment: list[int], where: str
    ) -> Iterator[str]:
        """A citation with the segment of the output's text it supports (docs/spec/ledger.md
        "Outputs"): a qualified derivation whose segment is a Web Annotation selector on the
        output."""
        text = output.get("text")
        start, end = segment
        if text is None:
            self._fail(
                f"output {output['id']!r}: a citation segment needs the output's text",
                record,
                f"{where}.segment",
            )
        assert text is not None
        if not start < end <= len(text):
            self._fail(
                f"output {output['id']!r}: segment [{start}, {end}] is outside the output's text "
                f"({len(text)} code points; start inclusive, end exclusive, start < end)",
                record,
                f"{where}.segment",
            )
        o = ids.mint("output", output["id"])
        node = f"{o}/citation/{start}-{end}/{ids.encode_id(ids.ledger_id(span))}"
        target, selector = node + "/segment", node + "/segment/position"
        yield f"{nt.iri(o)} <{PROV}qualifiedDerivation> {nt.iri(node)}"
        yield f"{nt.iri(node)} <{A}> <{PROV}Derivation>"
        yield f"{nt.iri(node)} <{A}> <{HG}Citation>"
        yield f"{nt.iri(node)} <{PROV}entity> {nt.iri(span)}"
        yield f"{nt.iri(node)} <{HG}supportsSegment> {nt.iri(target)}"
        yield f"{nt.iri(target)} <{A}> <{OA}SpecificResource>"
        yield f"{nt.iri(target)} <{OA}hasSource> {nt.iri(o)}"
        yield f"{nt.iri(target)} <{OA}hasSelector> {nt.iri(selector)}"
        yield f"{nt.iri(selector)} <{A}> <{OA}TextPositionSelector>"
        yield f"{nt.iri(selector)} <{OA}start> {nt.integer(start)}"
        yield f"{nt.iri(selector)} <{OA}end> {nt.integer(end)}"

    def _intervention(self, index: _Index, record: Record, case: str, run: str) -> Iterator[str]:
        """The triples of a case's ``intervention`` mapping (docs/spec/ledger.md "Cases")."""
        spec = record.data["intervention"]
        yield f"{case} <{A}> <{HG}InterventionCase>"
        yield f"{case} <{HG}interventionOfRun> {run}"
        the_set = self._ref(index, "evidence_set", spec["set"], record, "intervention.set")
        yield f"{case} <{HG}selectedSet> {nt.iri(the_set)}"
        yield f"{case} <{HG}variant> {nt.string(spec['variant'])}"
        if spec.get("member") is not None:
            member = self._ref(index, "span", spec["member"], record, "intervention.member")
            yield f"{case} <{HG}interventionMember> {nt.iri(member)}"
        if spec.get("replacement") is not None:
            span, lines = self._delivered(
                index, record, spec["replacement"], "intervention.replacement"
            )
            yield from lines
            yield f"{case} <{HG}replacement> {nt.iri(span)}"
        for number, item in enumerate(spec.get("citable") or []):
            span, lines = self._delivered(index, record, item, f"intervention.citable[{number}]")
            yield from lines
            yield f"{case} <{HG}citable> {nt.iri(span)}"

    def _emit_judgment(self, index: _Index, record: Record) -> Iterator[str]:
        d = record.data
        s = nt.iri(ids.mint("judgment", d["id"]))
        question: str | None = d.get("question")
        if question is None:
            for name in ("final", "settles"):
                if name in d:
                    self._fail(f"field {name!r} needs the judgment's question", record, name)
        else:
            problem = judgments.decision_error(question, d["decision"])
            if problem is not None:
                self._fail(problem, record, "decision")
        yield from self._common(s, record, (PROV + "Entity", HG + "Judgment"), d["id"])
        subject = self._judged(index, record, d["subject"], question)
        yield f"{s} <{HG}judges> {nt.iri(subject)}"
        yield f"{s} <{PROV}wasAttributedTo> {nt.iri(ids.mint('agent', d['by']))}"
        if d.get("at"):
            at = self._time(record, d, "at")
            # A judgment's place is when the store recorded it, and it cannot
            # claim a time after that (docs/spec/adjudication.md "Recording").
            if datetime.fromisoformat(at.replace("Z", "+00:00")) > self.recorded_at:
                self._fail(
                    f"the judgment's time {at} is after its recording "
                    f"({_stamp(self.recorded_at)}): a judgment cannot be dated after the load "
                    "that records it",
                    record,
                    "at",
                )
            yield f"{s} <{PROV}generatedAtTime> {nt.datetime(at)}"
        if d.get("proof") is not None:
            # A signature over the judgment (docs/spec/adjudication.md "Signed
            # judgments"), kept as written; checked when read, against trusted keys.
            payload = json.dumps(d["proof"], sort_keys=True, ensure_ascii=False)
            if literal_size(payload) > MAX_LITERAL_BYTES:
                raise _TooLarge(f"the proof is over the {MAX_LITERAL_BYTES:,}-byte limit", "proof")
            yield f"{s} <{HG}proof> {nt.literal(payload, RDF + 'JSON')}"
        yield f"{s} <{HG}decision> {nt.string(d['decision'])}"
        if d.get("reason"):
            yield f"{s} <{HG}reason> {nt.string(d['reason'])}"
        if question is not None:
            # docs/spec/ledger.md "Judgments": the structured spelling.
            final = bool(d.get("final", False))
            yield f"{s} <{HG}question> {nt.string(question)}"
            yield f"{s} <{HG}final> {nt.boolean(final)}"
            settles = d.get("settles") or []
            if settles and not final:
                self._fail("only a final judgment settles others", record, "settles")
            for number, other in enumerate(settles):
                settled = self._settled(index, record, other, subject, question, number)
                yield f"{s} <{HG}settles> {nt.iri(settled)}"
        yield from self._agent(d["by"])

    def _judged(
        self, index: _Index, record: Record, subject: str, question: str | None = None
    ) -> str:
        kinds = (
            judgments.UNSTRUCTURED_SUBJECTS
            if question is None
            else judgments.QUESTIONS[question].subjects
        )
        found = []
        for kind in kinds:
            iri_kind, cls = _ID_KINDS[kind]
            node = ids.mint(iri_kind, subject)
            if subject in index.ids[kind] or self._in_store(node, cls):
                found.append(node)
        if not found:
            if question is None:
                expected = "an evidence set, output or contradiction id"
            else:
                expected = (
                    f"question {question!r} judges {judgments.QUESTIONS[question].subject_words}"
                )
            self._fail(f"unknown subject {subject!r}: expected {expected}", record, "subject")
        if len(found) > 1:
            self._fail(
                f"subject {subject!r} names more than one of "
                + ", ".join(k.replace("_", " ") for k in kinds),
                record,
                "subject",
            )
        if question == "boundary" and not self._is_extra(index, subject, found[0]):
            self._fail(
                f"output {subject!r} asserts a reference claim: question 'boundary' judges "
                "an output claim that asserts none",
                record,
                "subject",
            )
        return found[0]

    def _is_extra(self, index: _Index, output: str, node: str) -> bool:
        if output in index.ids["output"]:
            return output in index.extra_outputs
        return not self.store.ask("ASK { ?o hg:asserts ?claim }", params={"o": IRI(node)})

    def _settled(
        self, index: _Index, record: Record, other: str, subject: str, question: str, number: int
    ) -> str:
        """The IRI of a judgment a final one settles: an initial judgment, same subject and question."""
        name = f"settles[{number}]"
        node = ids.mint("judgment", other)
        if other == record.id:
            self._fail("a judgment cannot settle itself", record, name)
        if other in index.judgments:
            other_subject, other_question, other_final = index.judgments[other]
            facts = (other_question, other_final)
            # Both resolve among the kinds of one question: the same id is the same subject.
            matches_subject = other_subject == record.data["subject"]
        else:
            rows = (
                self.store.select(
                    "SELECT ?subject ?question ?final WHERE { ?j a hg:Judgment ; hg:judges ?subject . "
                    "OPTIONAL { ?j hg:question ?question } OPTIONAL { ?j hg:final ?final } }",
                    params={"j": IRI(node)},
                )
                if self._store_has_records
                else []
            )
            if not rows:
                self._fail(f"unknown judgment id {other!r}", record, name)
            row = rows[0]
            found_question = None if row["question"] is None else str(row["question"])
            facts = (found_question, bool(row["final"]))
            matches_subject = str(row["subject"]) == subject
        if not matches_subject or facts[0] != question:
            self._fail(
                f"judgment {other!r} is about another subject or question: a final judgment "
                "settles judgments of its own subject and question",
                record,
                name,
            )
        if facts[1]:
            self._fail(
                f"judgment {other!r} is final: only initial judgments are settled", record, name
            )
        return node

    # ---- the load's own provenance -----------------------------------------

    def emit_catalog(
        self,
        out: TextIO,
        digest: str,
        started: datetime,
        ended: datetime,
        agent: str | None,
        snapshot_lines: list[str],
    ) -> None:
        hexdigest = digest.removeprefix("sha256:")
        bundle = nt.iri(self.graph)
        activity = nt.iri(self.graph + "/activity")
        ledger = nt.iri(ids.mint("ledger", hexdigest))
        software = nt.iri(ids.mint("agent", f"hopgate {__version__}"))
        lines = [
            f"{bundle} <{A}> <{PROV}Bundle>",
            f"{bundle} <{A}> <{PROV}Entity>",
            f"{bundle} <{PROV}wasGeneratedBy> {activity}",
            f"{bundle} <{PROV}wasDerivedFrom> {ledger}",
            f"{bundle} <{HG}ledgerDigest> {nt.string(digest)}",
            f"{bundle} <{HG}ledgerFile> {nt.string(self.path.name)}",
            f"{bundle} <{PROV}generatedAtTime> {nt.datetime(_stamp(ended))}",
            f"{activity} <{A}> <{PROV}Activity>",
            f"{activity} <{A}> <{HG}Load>",
            f"{activity} <{PROV}startedAtTime> {nt.datetime(_stamp(started))}",
            f"{activity} <{PROV}endedAtTime> {nt.datetime(_stamp(ended))}",
            f"{activity} <{PROV}used> {ledger}",
            f"{activity} <{PROV}wasAssociatedWith> {software}",
            f"{ledger} <{A}> <{PROV}Entity>",
            f"{ledger} <{A}> <{HG}LedgerFile>",
            f"{ledger} <{HG}digest> {nt.string(digest)}",
            f"{software} <{A}> <{PROV}Agent>",
            f"{software} <{A}> <{PROV}SoftwareAgent>",
            f"{software} <{HG}ledgerId> {nt.string(f'hopgate {__version__}')}",
            *snapshot_lines,
        ]
        if agent is not None:
            # The person on whose behalf the load ran, only when named (never the OS user).
            person = nt.iri(ids.mint("agent", agent))
            lines += [
                f"{activity} <{PROV}wasAssociatedWith> {person}",
                f"{person} <{A}> <{PROV}Agent>",
                f"{person} <{A}> <{PROV}Person>",
                f"{person} <{HG}ledgerId> {nt.string(agent)}",
                f"{software} <{PROV}actedOnBehalfOf> {person}",
            ]
        catalog = f" <{CATALOG_GRAPH}> .\n"
        out.write("".join(line + catalog for line in lines))


#: The loader's stamp on a judgment it records (not a ledger's to state; adjudication.md).
_RECORDING = f"<{HG}recordNumber>"


def _extension(s: str, data: dict[str, Any]) -> Iterator[str]:
    """A record's (or output's) ``x-`` fields, kept as one ``rdf:JSON`` literal."""
    extra = {k: v for k, v in data.items() if k.startswith("x-")}
    if extra:
        payload = json.dumps(extra, sort_keys=True, ensure_ascii=False)
        if literal_size(payload) > MAX_LITERAL_BYTES:
            raise _TooLarge(
                f"the x- fields are {literal_size(payload):,} bytes as one literal, over the "
                f"{MAX_LITERAL_BYTES:,}-byte limit",
                min(extra),
            )
        yield f"{s} <{HG}extension> {nt.literal(payload, RDF + 'JSON')}"


class _TooLarge(ValueError):
    """A literal over the limit; ``field`` names the first field it holds."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def _locator_lines(node: str, locator: str) -> Iterator[str]:
    selector = nt.iri(node + "/locator")
    yield f"{nt.iri(node)} <{OA}hasSelector> {selector}"
    yield f"{selector} <{A}> <{HG}LocatorSelector>"
    yield f"{selector} <{RDF}value> {nt.string(locator)}"


def _position_lines(
    node: str, start: int, end: int, exact: str, prefix: str | None, suffix: str | None
) -> list[str]:
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


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _normalised(graph: Any) -> set[tuple[Any, Any, Any]]:
    """Triples with ``xsd:string`` literals made plain, so both spellings compare equal."""
    from rdflib import XSD as RDFLIB_XSD
    from rdflib import Literal

    result = set()
    for s, p, o in graph:
        if isinstance(o, Literal) and o.datatype == RDFLIB_XSD.string:
            o = Literal(str(o))
        result.add((s, p, o))
    return result


__all__ = ["LoadResult", "graph_for_digest", "load", "ID_BASE"]
