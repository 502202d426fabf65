"""Loading a ledger into the store as PROV-O: check everything, then write once.

A load passes over the ledger in four steps, each in its own module:

1. **index** (:mod:`hopgate.ingest.index`): read the file once, validate every
   record against the schema, and keep the ids it defines (and each version's
   text and readers, which spans need);
2. **check** (:mod:`hopgate.ingest.stored`): ask the store which of those
   records it already holds (a restated record is compared, not written);
3. **emit**: read the file again and turn each record into N-Quads of this
   load's graph, through the record emitters (:mod:`hopgate.ingest.emitters`,
   one per kind), which check every reference, anchor every span and refuse
   what the schema cannot see; each judgment written gets its recording
   number (docs/spec/adjudication.md "Recording");
4. **catalog**: the load's own provenance, the entry that publishes the
   graph (:func:`catalog_lines`).

Only when every step succeeds is the graph added to the store and published
(:func:`hopgate.store.publish.publish`): any error leaves the store as it was.
The model is documented in ``docs/model.md``; what is checked, in
docs/spec/ledger.md "Errors" and "Loading".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from hopgate import ids
from hopgate import ntriples as nt
from hopgate import progress as _progress
from hopgate._version import __version__
from hopgate.errors import DiskFullError, LedgerError, StoreError, is_disk_full
from hopgate.ids import case_iri, case_key
from hopgate.ingest.emitters import Context, record_lines
from hopgate.ingest.emitters.adjudication import recording_numbers
from hopgate.ingest.emitters.context import stamp
from hopgate.ingest.index import ID_KINDS, index_ledger
from hopgate.ingest.ledger import Record, file_digest, ledger_format, read_records
from hopgate.ingest.stored import StoredRecords
from hopgate.scratch import folder as scratch_folder
from hopgate.store import IRI, Store, snapshots
from hopgate.store.publish import publish_records
from hopgate.vocab import CATALOG_GRAPH, HG, ID_BASE, PROV
from hopgate.vocab import RDF_TYPE as A


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
        (4, 4, 549)
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
    # The name first: a name of no ledger spelling is refused whatever the store
    # holds (a .txt copy of a loaded ledger said "already loaded"; user trial).
    ledger_format(path)
    try:
        # Its name is recorded in the catalog (records.md "Records"), which is UTF-8 text.
        path.name.encode("utf-8")
    except UnicodeEncodeError:
        raise LedgerError("the file's name is not UTF-8 text; rename it", file=str(path)) from None
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
    index = index_ledger(path, allow_files=allow_files)  # pass one
    if index.empty():
        raise LedgerError("the ledger holds no records (nothing to load)", file=str(path))
    stored = StoredRecords(store)
    existing = stored.existing(index)  # the check against the store
    stored.prefetch(
        sorted(index.named_versions - index.ids["version"].keys()),
        placed=index.placed_spans,
        unplaced=index.unplaced_versions,
    )
    ctx = Context(
        str(path),
        index,
        stored,
        recorded_at=started,  # a judgment may not claim a later time
        numbers=recording_numbers(index, existing, stored),
    )
    with scratch_folder("load") as scratch:
        records, catalog = scratch / "records.nq", scratch / "catalog.nq"
        try:
            with records.open("w", encoding="utf-8") as out:
                written = _emit(ctx, path, graph, out, existing)  # pass two
        except OSError as exc:
            if not is_disk_full(exc):
                raise
            raise DiskFullError(
                f"{path}: the temporary folder {scratch} filled while the records were "
                "written (N-Quads, about 13 times the size of bench/'s JSON Lines ledgers); "
                "nothing was loaded"
            ) from None
        if file_digest(path) != digest:
            # Pass two reads without the schema: it must read what pass one checked.
            raise LedgerError("the ledger changed while it was being loaded", file=str(path))

        def entry(kept: list[str]) -> Path:
            lines = catalog_lines(graph, path, digest, started, datetime.now(UTC), agent, kept)
            with catalog.open("w", encoding="utf-8") as out:
                out.write("".join(f"{line} <{CATALOG_GRAPH}> .\n" for line in lines))
            return catalog

        with _progress.phase(f"load {path.name}: store"):
            try:
                publish_records(store, graph, records, catalog_entry=entry, kind="load")
            except StoreError as exc:
                # Said of the ledger, not of the temporary file the store was given.
                if type(exc) not in (StoreError, DiskFullError):
                    raise
                raise type(exc)(f"{path}: {exc}") from None
    return LoadResult(
        file=str(path),
        graph=graph,
        digest=digest,
        records=dict(ctx.counts),
        triples=written.triples,
        skipped_identical=written.skipped,
        seconds=time.perf_counter() - clock,
    )


def _already_loaded(store: Store, graph: str) -> bool:
    return store.ask(
        "ASK { GRAPH ?catalog { ?graph a prov:Bundle } }",
        params={"catalog": IRI(CATALOG_GRAPH), "graph": IRI(graph)},
    )


@dataclass(frozen=True)
class _Written:
    """What pass two wrote: statements, and restated records found identical."""

    triples: int
    skipped: int


def _emit(ctx: Context, path: Path, graph: str, out: TextIO, existing: set[str]) -> _Written:
    """Pass two: every record's statements, as N-Quads of ``graph``, to ``out``.

    A record the store already holds (``existing``) is not written: it is
    compared with the store's at the end, and any difference (or an output
    id the store holds under a new case) is a conflict.
    """
    captured: dict[str, tuple[Record, list[str]]] = {}
    taken: list[tuple[str, str]] = []  # output ids of new cases that the store holds
    graph_term = f" <{graph}> .\n"
    triples = 0
    name = f"load {path.name}: write"
    records = read_records(path, validate=False)  # validated in pass one
    for record in _progress.counted(records, name, ctx.index.records(), unit="records"):
        lines = record_lines(ctx, record)
        main = (
            case_iri(case_key(record.data))
            if record.kind == "case"
            else ids.mint(ID_KINDS[record.kind][0], record.id or "")
        )
        ctx.counts[record.kind] += 1
        if main in existing:
            captured[main] = (record, lines)
            continue
        if record.kind == "case":
            outputs = [o["id"] for o in record.data.get("outputs") or []]
            taken += [("output", o) for o in outputs if ids.mint("output", o) in existing]
        if lines:
            out.write(graph_term.join(lines) + graph_term)
        triples += len(lines)
    ctx.check_references()
    skipped = ctx.stored.settle(ctx.file, captured, taken) if captured or taken else 0
    return _Written(triples, skipped)


# ---- the load's own provenance ---------------------------------------------


def catalog_lines(
    graph: str,
    path: Path,
    digest: str,
    started: datetime,
    ended: datetime,
    agent: str | None,
    snapshot_lines: list[str],
) -> list[str]:
    """The catalog entry that publishes a load graph (docs/model.md "Loads").

    N-Triples statements without a graph term: the graph as a ``prov:Bundle``,
    the load activity, the ledger file, hopgate as the software agent, the
    person named by ``agent`` (only when named), and the snapshots kept.
    """
    hexdigest = digest.removeprefix("sha256:")
    bundle = nt.iri(graph)
    activity = nt.iri(graph + "/activity")
    ledger = nt.iri(ids.mint("ledger", hexdigest))
    software = nt.iri(ids.mint("agent", f"hopgate {__version__}"))
    lines = [
        f"{bundle} <{A}> <{PROV}Bundle>",
        f"{bundle} <{A}> <{PROV}Entity>",
        f"{bundle} <{PROV}wasGeneratedBy> {activity}",
        f"{bundle} <{PROV}wasDerivedFrom> {ledger}",
        f"{bundle} <{HG}ledgerDigest> {nt.string(digest)}",
        f"{bundle} <{HG}ledgerFile> {nt.string(path.name)}",
        f"{bundle} <{PROV}generatedAtTime> {nt.datetime(stamp(ended))}",
        f"{activity} <{A}> <{PROV}Activity>",
        f"{activity} <{A}> <{HG}Load>",
        f"{activity} <{PROV}startedAtTime> {nt.datetime(stamp(started))}",
        f"{activity} <{PROV}endedAtTime> {nt.datetime(stamp(ended))}",
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
    return lines


__all__ = ["LoadResult", "catalog_lines", "graph_for_digest", "load", "ID_BASE"]
