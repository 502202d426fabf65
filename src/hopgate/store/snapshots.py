"""The store's only accelerator: digest-checked snapshots and the copies made from them.

Reading quads out of the on-disk Oxigraph store costs a term lookup per quad,
while parsing the same quads from an N-Quads file into a memory store is
several times faster (figures in ``bench/README.md``). So when a load (or an
intervention plan) is published, the quads of it that a projection keeps are
also written to a file beside the store's data
(``STORE/hopgate-snapshots/``), and copies for evaluating and reading are
parsed from those files instead of read from the disk store.

A snapshot is a cache, never a source of truth (docs/spec/records.md
"Caches"):

- it is written to a temporary name, fsynced and renamed, so a reader never
  sees half a file;
- its sha256 is recorded in the store's catalog in the same transaction that
  publishes the graph it caches (``hg:snapshotDigest``), so a snapshot of a
  graph that was never published is never used;
- before use its bytes are hashed again and compared with the recorded
  digest; a missing, damaged or unrecorded snapshot is skipped with a note on
  stderr and the graph is read from the store: the answer never changes.

Only this module knows snapshots exist; the :class:`~hopgate.store.Store`
contract is the same on every engine.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import BinaryIO

from hopgate import ntriples as nt
from hopgate.errors import QueryError, StoreError
from hopgate.library.projection import Projection
from hopgate.scratch import remove_abandoned
from hopgate.store.base import IRI, Store
from hopgate.vocab import CATALOG_GRAPH, HG, RDF_TYPE

FOLDER = "hopgate-snapshots"
#: The catalog property that records a snapshot: "<projection key> sha256:<hex>".
SNAPSHOT_DIGEST = HG + "snapshotDigest"

log = logging.getLogger("hopgate")

# Subject, predicate and object's first token of an N-Quads line: IRIs and
# blank node labels hold no whitespace, so the first three tokens are the
# subject, the predicate and (for rdf:type) the class.
_LINE = re.compile(rb"^\S+[ \t]+<([^>]*)>[ \t]+(\S+)")
_CHUNK = 1 << 20
_BATCH = 8192


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def projection_key(projection: Projection) -> str:
    """A short digest of a projection, which names the snapshots cut with it."""
    text = "\n".join(sorted(projection.predicates)) + "\n\n" + "\n".join(sorted(projection.classes))
    return _digest(text)[:16]


def file_sha256(path: Path) -> str:
    """The ``sha256:<hex>`` digest of a file's bytes."""
    hasher = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(_CHUNK):
            hasher.update(chunk)
    return "sha256:" + hasher.hexdigest()


def _folder(store: Store) -> Path | None:
    """The snapshot folder of an on-disk store; None for any other store."""
    return None if store.folder is None else store.folder / FOLDER


def snapshot_path(folder: Path, graph: str, projection: Projection) -> Path:
    """The snapshot file of ``graph`` cut with ``projection`` (it may not exist)."""
    return folder / f"{_digest(graph)[:32]}-{projection_key(projection)}.nq"


def snapshot_sizes(
    store: Store, graphs: Sequence[str], projection: Projection
) -> dict[str, int] | None:
    """The bytes of each graph's snapshot cut with ``projection`` (not verified), or None
    when the store keeps no snapshots or one of them is missing: for a caller sizing a
    copy before it makes one."""
    folder = _folder(store)
    if folder is None:
        return None
    paths = {graph: snapshot_path(folder, graph, projection) for graph in graphs}
    if not all(path.is_file() for path in paths.values()):
        return None
    return {graph: path.stat().st_size for graph, path in paths.items()}


def _write_atomically(targets: list[Path], write: Callable[[list[_Hashing]], None]) -> list[str]:
    """Write ``targets`` by fsynced temporary files and renames; return their digests.

    ``write`` receives one binary file per target (hashing as it writes).
    """
    partials = [target.with_suffix(".partial") for target in targets]
    try:
        with ExitStack() as stack:
            outs = [_Hashing(stack.enter_context(path.open("wb"))) for path in partials]
            write(outs)
            for out in outs:
                out.file.flush()
                os.fsync(out.file.fileno())
        for partial, target in zip(partials, targets, strict=True):
            os.replace(partial, target)
        directory = os.open(targets[0].parent, os.O_RDONLY) if targets else None
        if directory is not None:
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
    except BaseException:
        for partial in partials:
            partial.unlink(missing_ok=True)
        raise
    return ["sha256:" + out.hasher.hexdigest() for out in outs]


class _Hashing:
    """A binary file that hashes what is written to it."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.hasher = hashlib.sha256()

    def write(self, data: bytes) -> None:
        self.hasher.update(data)
        self.file.write(data)


def keep(store: Store, nquads: Path, graph: str, projections: list[Projection]) -> list[str]:
    """Write the snapshots of a graph about to be published; return its catalog lines.

    ``nquads`` is the file the graph was added from. Each projection gets
    the lines it keeps. The returned
    N-Triples statements (without a graph term) record each snapshot's
    digest; the caller publishes them with the graph's catalog entry. On an
    engine without snapshots, or when a file cannot be written, nothing is
    kept (with a note) and the graph is read from the store.
    """
    folder = _folder(store)
    if folder is None:
        return []
    try:
        folder.mkdir(exist_ok=True)
        targets = [snapshot_path(folder, graph, projection) for projection in projections]
        digests = _write_atomically(targets, lambda outs: _cut(nquads, projections, outs))
    except OSError as exc:
        log.warning(
            "hopgate: note: no snapshot of %s (%s); it will be read from the store", graph, exc
        )
        remove(store, graph)
        return []
    return [
        _digest_line(graph, projection_key(projection), digest)
        for projection, digest in zip(projections, digests, strict=True)
    ]


def _digest_line(graph: str, key: str, digest: str) -> str:
    """The catalog line recording the digest of ``graph``'s cache ``key``."""
    return f"{nt.iri(graph)} <{SNAPSHOT_DIGEST}> " + nt.string(f"{key} {digest}")


def _cut(nquads: Path, projections: list[Projection], outs: list[_Hashing]) -> None:
    """Write to each of ``outs`` the lines of ``nquads`` its projection keeps, in one pass.

    The lines are the loader's or the evaluation's own N-Quads (one space
    between terms, an IRI never holds a space): split at the first two
    spaces; any other line is read with the general pattern.
    """
    kept: list[list[bytes]] = [[] for _ in outs]
    # Which outputs keep a line, looked up once per line by its predicate (or, for an
    # rdf:type line, its class) rather than tested per projection: the cut of a 10k-claim
    # load (1.9M lines, three projections) was a third of the load's Python.
    by_predicate: dict[bytes, list[list[bytes]]] = {}
    by_class: dict[bytes, list[list[bytes]]] = {}
    for projection, lines in zip(projections, kept, strict=True):
        for iri in projection.predicates - {RDF_TYPE}:
            by_predicate.setdefault(f"<{iri}>".encode(), []).append(lines)
        for iri in projection.classes:
            by_class.setdefault(f"<{iri}>".encode(), []).append(lines)
    type_iri = f"<{RDF_TYPE}>".encode()
    nowhere: list[list[bytes]] = []
    with nquads.open("rb") as source:
        for number, line in enumerate(source, 1):
            parts = line.split(b" ", 3)
            if len(parts) < 3 or not parts[1].startswith(b"<") or not parts[1].endswith(b">"):
                match = _LINE.match(line)
                if match is None:
                    continue  # blank or comment line
                predicate = b"<" + match.group(1) + b">"
                obj = match.group(2)
            else:
                predicate, obj = parts[1], parts[2]
            if predicate == type_iri:
                targets = by_class.get(obj, nowhere)
            else:
                targets = by_predicate.get(predicate, nowhere)
            for lines in targets:
                lines.append(line)
            if number % _BATCH == 0:
                _flush(kept, outs)
    _flush(kept, outs)


def _flush(kept: list[list[bytes]], outs: list[_Hashing]) -> None:
    # One write (and one hash update) per batch of lines, not per line.
    for lines, out in zip(kept, outs, strict=True):
        out.write(b"".join(lines))
        lines.clear()


def keep_bytes(store: Store, graph: str, key: str, data: bytes) -> list[str]:
    """Keep ``data``, a cache of ``graph`` named ``key``, beside the store; its catalog line.

    For caches that are not quads (:mod:`hopgate.store.answers`): written
    like a snapshot (temporary name, fsync, rename) and recorded the same
    way, to be published with the graph's catalog entry. On an engine
    without snapshots, or when the file cannot be written, nothing is kept.
    """
    folder = _folder(store)
    if folder is None:
        return _keep_on_server(store, graph, key, data)
    try:
        folder.mkdir(exist_ok=True)
        (digest,) = _write_atomically(
            [_cache_path(folder, graph, key)], lambda outs: outs[0].write(data)
        )
    except OSError as exc:
        log.warning("hopgate: note: no %s cache of %s (%s)", key.split("-")[0], graph, exc)
        return []
    return [_digest_line(graph, key, digest)]


def _keep_on_server(store: Store, graph: str, key: str, data: bytes) -> list[str]:
    """:func:`keep_bytes` on a store that keeps its caches on its server (remote)."""
    if not store.server_caches:
        return []
    try:
        store.keep_cache(graph, key, data)
    except (StoreError, QueryError) as exc:
        # A cache: the reads ask their queries of the server instead.
        log.warning(
            "hopgate: note: no %s cache of %s on the server (%s)", key.split("-")[0], graph, exc
        )
        return []
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    return [_digest_line(graph, key, digest)]


def kept_by_any(
    store: Store, graphs: list[str], key: str, digests: dict[str, dict[str, str]]
) -> bytes | None:
    """The cache ``key`` as :func:`verified_bytes` gives it, kept by whichever of ``graphs``
    records it (a cache of the store as a load left it, kept with that load); None when
    none does."""
    owner = next((g for g in graphs if key in digests.get(g, {})), None)
    return None if owner is None else verified_bytes(store, owner, key, digests)


def verified_bytes(
    store: Store, graph: str, key: str, digests: dict[str, dict[str, str]]
) -> bytes | None:
    """The cache ``key`` of ``graph`` (:func:`keep_bytes`) when its bytes match the recorded digest.

    As :func:`verified`: unrecorded means none; missing or damaged is noted
    on stderr and None.
    """
    folder = _folder(store)
    expected = digests.get(graph, {}).get(key)
    if expected is None or (folder is None and not store.server_caches):
        return None
    try:
        data = (
            _cache_path(folder, graph, key).read_bytes()
            if folder is not None
            else store.read_cache(graph, key)
        )
    except (OSError, StoreError, QueryError):
        data = None
    if data is None:
        log.warning(
            "hopgate: note: the %s cache of %s is missing; reading the store",
            key.split("-")[0],
            graph,
        )
        return None
    if "sha256:" + hashlib.sha256(data).hexdigest() != expected:
        log.warning(
            "hopgate: note: the %s cache of %s is damaged (its digest differs from the "
            "catalog's); reading the store",
            key.split("-")[0],
            graph,
        )
        return None
    return data


def _cache_path(folder: Path, graph: str, key: str) -> Path:
    return folder / f"{_digest(graph)[:32]}-{key}.cache"


@contextmanager
def copy_with_file(
    store: Store, projection: Projection, graphs: list[str], graph: str, file: Path
) -> Iterator[Store]:
    """A copy of what ``projection`` keeps of the published ``graphs`` and all of ``graph``,
    a graph about to be published, parsed from its N-Quads ``file``."""
    parts = [(g, projection) for g in graphs]
    files = _verified_files(store, parts)
    files[graph] = file
    with _engine_copy(store, projection, [*parts, (graph, projection)], files) as copy:
        yield copy


def remove(store: Store, graph: str) -> None:
    """Remove every snapshot file of ``graph``, whatever its projection."""
    folder = _folder(store)
    if folder is not None and folder.is_dir():
        for path in folder.glob(f"{_digest(graph)[:32]}-*"):
            path.unlink(missing_ok=True)
    if store.server_caches:
        store.remove_caches(graph)


def recorded(store: Store, graphs: list[str]) -> dict[str, dict[str, str]]:
    """The snapshot digests the catalog records: graph -> projection key -> digest."""
    found: dict[str, dict[str, str]] = {}
    if (_folder(store) is None and not store.server_caches) or not graphs:
        return found
    rows = store.select(
        "SELECT ?g ?record WHERE { GRAPH ?catalog { ?g hg:snapshotDigest ?record } }",
        params={"catalog": IRI(CATALOG_GRAPH)},
    )
    wanted = set(graphs)
    for row in rows:
        graph = str(row["g"])
        if graph in wanted:
            key, _, digest = str(row["record"]).partition(" ")
            found.setdefault(graph, {})[key] = digest
    return found


def verified(
    store: Store, graph: str, projection: Projection, digests: dict[str, dict[str, str]]
) -> Path | None:
    """The snapshot of ``graph`` for ``projection`` when its bytes match the recorded digest.

    ``digests`` is :func:`recorded`'s answer. Without a recorded digest
    (another projection, or a graph published by an older hopgate) there is
    no usable snapshot; a recorded one that is missing or whose bytes differ
    is reported on stderr and skipped.
    """
    folder = _folder(store)
    expected = digests.get(graph, {}).get(projection_key(projection))
    if folder is None or expected is None:
        return None
    path = snapshot_path(folder, graph, projection)
    if not path.is_file():
        log.warning("hopgate: note: the snapshot of %s is missing; reading the store", graph)
        return None
    if file_sha256(path) != expected:
        log.warning(
            "hopgate: note: the snapshot of %s is damaged (its digest differs from the "
            "catalog's); reading the store",
            graph,
        )
        return None
    return path


@contextmanager
def working_copy(
    store: Store, projection: Projection, graphs: Sequence[str | tuple[str, Projection]]
) -> Iterator[Store]:
    """A store holding what ``projection`` keeps of ``graphs``, for an evaluation's queries.

    On an on-disk store: a memory copy, each graph parsed from its verified
    snapshot or else read from the store. Elsewhere: the engine's own
    :meth:`~hopgate.store.Store.working_copy`. A graph may be given with the
    projection of the snapshot to parse (one that keeps at least what
    ``projection`` does).
    """
    parts = [part if isinstance(part, tuple) else (part, projection) for part in graphs]
    files = _verified_files(store, parts)
    with _engine_copy(store, projection, parts, files) as copy:
        yield copy


@contextmanager
def _engine_copy(
    store: Store,
    projection: Projection,
    parts: list[tuple[str, Projection]],
    files: dict[str, Path],
) -> Iterator[Store]:
    """The engine's copy of ``parts``: each verified snapshot in ``files`` parsed, the rest read."""
    with store.working_copy(
        projection,
        [graph for graph, _ in parts],
        files=files,
        lacking=_lacking(parts, projection, files),
    ) as copy:
        yield copy


@contextmanager
def reading_copy(
    store: Store, projection: Projection, graphs: list[str] | list[tuple[str, Projection]]
) -> Iterator[Store]:
    """Like :func:`working_copy`, but only when every graph has a verified snapshot.

    For short reads (an evaluation's results), which a copy read from the
    disk store would not repay; otherwise the store's view of those graphs
    (:meth:`Store.view`: nothing copied; an evaluation keeps no snapshot of its
    bundle since 5 December 2026: its reads take its recorded answers). Never
    the whole store: a query of the bundle would then also match what loads
    published since hold (an abstaining case of the run loaded after the
    evaluation counted in its metrics when its recorded answers were missing).
    A graph may be given with the projection its snapshot was cut with, else
    it is ``projection``'s.
    """
    parts = [part if isinstance(part, tuple) else (part, projection) for part in graphs]
    files = _verified_files(store, parts)
    if _folder(store) is None or len(files) < len(parts):
        yield store.view([graph for graph, _ in parts])
        return
    with _engine_copy(store, projection, parts, files) as copy:
        yield copy


@contextmanager
def projected_copy(store: Store, projection: Projection) -> Iterator[Store]:
    """On an on-disk store, a memory copy of what ``projection`` keeps of every visible graph.

    For a small query over the whole store, whose nested lookups on the disk
    store cost a term decoding each: each graph with a verified snapshot of
    ``projection`` is parsed from it, the others (bundles, the catalog) are
    read from the store with one index scan per predicate, so a graph holding
    none of those quads costs nothing. The copy holds exactly the quads of the
    store that ``projection`` keeps, so a query whose patterns it serves
    answers on it as on the store. Elsewhere (memory, remote): the store itself.
    """
    if _folder(store) is None:
        yield store
        return
    with working_copy(store, projection, store.graphs()) as copy:
        yield copy


def _lacking(
    parts: list[tuple[str, Projection]], wanted: Projection, files: dict[str, Path]
) -> dict[str, Projection]:
    """What each graph's snapshot lacks of ``wanted`` (its quads are read from the store)."""
    found = {}
    for graph, cut in parts:
        if graph in files:
            predicates = wanted.predicates - cut.predicates
            classes = wanted.classes - cut.classes
            if predicates - {RDF_TYPE} or classes:
                found[graph] = Projection(predicates, classes)
    return found


def _verified_files(store: Store, parts: list[tuple[str, Projection]]) -> dict[str, Path]:
    """The verified snapshot of each graph for its projection, where it has one."""
    if _folder(store) is None:
        return {}
    digests = recorded(store, [graph for graph, _ in parts])
    found = {}
    for graph, projection in parts:
        path = verified(store, graph, projection, digests)
        if path is not None:
            found[graph] = path
    return found


def discard_unpublished(store: Store) -> list[str]:
    """Remove the graphs a killed load or evaluation left without a catalog entry.

    Such a graph is already invisible to every query; a writer (load,
    evaluate) removes it and its snapshot files (on a server, only a graph
    whose write the catalog has listed for a day: another client may be
    writing a younger one, :meth:`hopgate.store.remote.uploads.Uploads.unpublished_graphs`), and the files its bulk
    write left beside the store (:meth:`~hopgate.store.Store.remove_leftovers`),
    so a corrected reload starts from the store as it was before the killed
    write; and the temporary folders of hopgate commands that have ended
    (:func:`hopgate.scratch.remove_abandoned`). Returns the removed graphs.
    """
    removed = store.unpublished_graphs()
    for graph in removed:
        store.remove_graph(graph)
        remove(store, graph)
    _remove_orphans(store)
    store.remove_leftovers()
    # And the temporary folders of commands killed at once (their N-Quads: 32 GB at 1M claims).
    remove_abandoned()
    return removed


def _remove_orphans(store: Store) -> None:
    """Remove snapshot files no published graph owns.

    A graph's snapshots are cut while it is bulk-written
    (:func:`hopgate.store.publish.publish`), so a process killed before the
    bulk write left anything can leave snapshot files of a graph the store
    never held. They are never read (only a digest the catalog records is
    trusted); this keeps them from piling up.
    """
    folder = _folder(store)
    if folder is None or not folder.is_dir():
        return
    owned = {_digest(graph)[:32] for graph in store.graphs()}
    for path in folder.iterdir():
        if path.name.split("-", 1)[0] not in owned:
            path.unlink(missing_ok=True)
