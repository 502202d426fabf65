"""Recorded answers: the bundle queries' rows, kept with the bundle they answer.

Every read of a recorded evaluation (``verdicts``, ``gate``, ``metrics``,
``explain``, ``diff``, ``review changes``, the report, ``metrics --peers``)
runs the bundle queries (:data:`hopgate.library.steps.BUNDLE_QUERIES`) or the
peer queries (``PEER_QUERIES``) over the bundle and the loads it used. Those
graphs never change once published, so neither do the answers: the
evaluation runs the queries once and keeps their rows. On an on-disk store
they run on a copy of the loads and the bundle it is about to publish, and
the rows are kept in a file beside the store; on a server they run on the
server once the bundle is written, and the rows are kept there, in a graph
outside every query's dataset (:mod:`hopgate.store.remote.caches`). Reads
take the rows from there instead of asking the queries again (seconds at
10k claims).

It is a cache like a snapshot (docs/spec/records.md "Caches"): written
before the bundle is published (a file under a temporary name, then
renamed), its digest recorded in the catalog entry that publishes the
bundle, hashed again before each use. A missing, damaged or unrecorded
file, or one written for other query texts (its key is a digest of them),
is not used: the read runs the queries, as it does on a store without such
files (in memory, or a server an earlier hopgate evaluated). The rows are
the queries' own; what the read makes of them is decided where it was
before (:mod:`hopgate.audit.results`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from hopgate.errors import HopgateError
from hopgate.library.artefacts import library_query
from hopgate.library.steps import (
    PEER_QUERIES,
    REPORT_QUERIES,
    RUN_QUEUE,
    reading_projection,
    recorded_requests,
)
from hopgate.store import snapshots
from hopgate.store.base import IRI, BNode, Row, Store, Value
from hopgate.vocab import sparql_prologue

log = logging.getLogger(__name__)

#: The format of the file; part of its key, so a file another format wrote is not read.
_FORMAT = "hopgate recorded answers 2"

#: The largest copy of the loads (in bytes of their reading snapshots) that an evaluation
#: parses beside its rules (:meth:`ReadingCopies.start`): FEVER's is 160 MB, a synthetic
#: load of 10k claims about 90 MB, of 100k claims about 900 MB.
EARLY_COPY_BYTES = 256 * 2**20

#: How many recorded queries run at once on the evaluation's copy.
_QUERY_THREADS = 2

#: The files a bundle's answers are kept in: what only the report reads (each
#: card's spans with their texts, their coverage, the verdicts per stratum;
#: half of the bytes) in a file of its own, which the other reads do not read
#: or hash; what ``metrics`` reads (:data:`_FIGURES`, a tenth of the rest) in
#: another, so that it neither reads nor hashes (on a server: fetches) the
#: cards' rows; the peer figures' sums (``metrics --peers``), a few hundred
#: bytes, in a fourth; and the run's review queue (``RUN_QUEUE``) in a fifth, so
#: that a store's earlier evaluations keep the files they recorded before it
#: was recorded (each file's key is a digest of the query texts it holds).
GROUPS = ("reads", "figures", "report", "peers", "queue")
#: The files a server keeps (hopgate.store.remote.caches): not the peer figures'.
SERVER_GROUPS = ("reads", "figures", "report", "queue")
#: The queries ``metrics`` reads: at 10k claims 1.7 MB of a run's 17.7 MB of rows
#: (the interventions' rows, which the cards read too, are most of it).
_FIGURES = frozenset({"metrics", "metrics-by-question", "metrics-strata", "interventions"})


def _group(name: str) -> str:
    if name == RUN_QUEUE:
        return "queue"
    if name in REPORT_QUERIES:
        return "report"
    if name in _FIGURES:
        return "figures"
    return "peers" if name in PEER_QUERIES else "reads"


#: What the review queue's rows depend on besides its own text: the walk that chose the
#: loads the run used (docs/spec/records.md), whose answer a live read walks again.
_QUEUE_DEPENDS = ("run-inputs", "run-new-inputs")


@functools.cache
def cache_key(group: str) -> str:
    """The key of one file (``group``, one of :data:`GROUPS`): a digest of the format, of
    the prologue every query runs with, and of the id and text of every recorded query the
    file holds (for the review queue, also of the walk that chose the loads it read).

    A file another hopgate wrote for other texts is then never read. A change to how
    rows are encoded or their values converted (:func:`hopgate.store.terms.from_term`)
    changes :data:`_FORMAT`.
    """
    names = {n for n, _ in recorded_requests()} | {RUN_QUEUE}
    held = sorted(n for n in names if _group(n) == group)
    if group == _group(RUN_QUEUE):
        held += _QUEUE_DEPENDS
    text = (
        _FORMAT
        + f"\n{sparql_prologue()}"
        + "".join(f"\n{name}\n{library_query(name).text}" for name in held)
    )
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return f"answers-{digest}" if group == "reads" else f"answers-{group}-{digest}"


def _request(name: str, params: Mapping[str, Value]) -> str:
    """The key of one query with its parameters (other than ``?bundle``)."""
    return json.dumps([name, sorted((k, str(v)) for k, v in params.items() if k != "bundle")])


class Answers:
    """The recorded rows of one bundle's queries: each file verified and read when one of
    its queries is first asked for, each query's rows decoded when first asked for."""

    def __init__(self, read_file: Callable[[str], bytes | None]) -> None:
        self._read_file = read_file
        self._files: dict[str, dict[str, bytes] | None] = {}
        self._rows: dict[tuple[str, bool], list[Row]] = {}
        self._fetching: dict[str, Future[bytes | None]] = {}

    def fetch_beside(self, names: Iterable[str], pool: Executor) -> None:
        """Start reading, in ``pool``, the files that hold the queries ``names`` (on a server
        a fetch is mostly waiting for it: a read of several bundles fetches the next
        while it decodes one); :meth:`get` then waits for them. An error reading one
        is raised by :meth:`get`, as without."""
        for group in dict.fromkeys(_group(name) for name in names):
            if group not in self._files and group not in self._fetching:
                self._fetching[group] = pool.submit(self._read_file, group)

    def get(
        self,
        name: str,
        params: Mapping[str, Value],
        *,
        cards: Set[str] | None = None,
        plain: bool = False,
    ) -> list[Row] | None:
        """The rows of query ``name`` with ``params`` (``?bundle`` is this bundle's), or None
        when they were not recorded. The list is shared: do not change it.

        ``cards``: only the rows whose ``?card`` is one of these IRIs or unbound
        (a table without that column: every row), the others not decoded.
        ``plain``: IRIs and blank node labels as plain ``str`` (for a caller that
        reads every term as its text: a ``str`` subclass costs ten times as much to
        make, a quarter of building the cards at 10k claims).
        """
        request = _request(name, params)
        table = self._table(name, request)
        if table is None:
            return None
        if cards is not None:
            return _decode_table(table, cards, plain=plain)
        key = (request, plain)
        if key not in self._rows:
            self._rows[key] = _decode_table(table, plain=plain)
        return self._rows[key]

    def columns(
        self,
        name: str,
        params: Mapping[str, Value],
        names: Sequence[str],
        *,
        cards: Set[str] | None = None,
    ) -> list[list[Value]] | None:
        """The columns ``names`` of query ``name``'s rows with ``params`` (each a list in
        the rows' order, IRIs and blank node labels as plain ``str``), or None when they
        were not recorded; ``cards`` as in :meth:`get`.

        For a caller that reads a few columns of many rows: a dict per row cost a
        fifth of building the cards at 10k claims (bench/README.md, 5 December).
        """
        table = self._table(name, _request(name, params))
        if table is None:
            return None
        found, count = _decode_columns(table, cards, plain=True)
        if count == 0:
            return [[] for _ in names]
        return [found[column] for column in names]

    def _table(self, name: str, request: str) -> bytes | None:
        """The undecoded table line of ``request`` (a request of query ``name``), or None."""
        group = _group(name)
        if group not in self._files:
            fetching = self._fetching.pop(group, None)
            data = self._read_file(group) if fetching is None else fetching.result()
            self._files[group] = None if data is None else _tables(data)
        tables = self._files[group]
        return None if tables is None else tables.get(request)


class ReadingCopies:
    """The copy of the loads an evaluation's recorded queries run on, one run at a time.

    The copy is parsed in a thread of its own (in Python: the engine parses
    without the GIL): before the rules when it is small (:meth:`start`), else
    while the evaluation writes its bundle, once the rules' working copy is
    freed. A copy the last run added its bundle to is freed when the next run
    starts, never reused: Oxigraph's memory store keeps a removed quad's memory
    until the store is dropped, so a copy kept with its bundles removed would
    grow by a bundle a run. On a store without snapshots (in memory, a server)
    nothing is copied.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopgate-answers")
        self._stack = ExitStack()
        self._graphs: tuple[str, ...] | None = None
        self._copy: Future[Store] | None = None
        self._bundle: str | None = None
        # The run's review queue being asked (ask_queue): the run's IRI and its table.
        self._queue: tuple[str, Future[str]] | None = None

    def __enter__(self) -> ReadingCopies:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def of(self, used: list[str]) -> Future[Store] | None:
        """The copy of the loads ``used``, being made (the one :meth:`start` began, when it
        is of the same loads and holds no bundle yet); None on a store without snapshots."""
        if self._store.folder is None:
            return None
        key = tuple(sorted(used))
        if self._copy is None or key != self._graphs or self._bundle is not None:
            self.release()
            made = snapshots.working_copy(self._store, reading_projection(), list(key))
            self._copy = self._pool.submit(self._stack.enter_context, made)
            self._graphs = key
        return self._copy

    def start(self, used: list[str]) -> None:
        """Free the last run's copy, and start the copy of the loads ``used`` now when their
        snapshots together are at most :data:`EARLY_COPY_BYTES`: an evaluation calls it
        before its rules, which run on one core, so the copy is parsed on the other (on
        FEVER the recording then no longer waits 1.1-1.2 s for it; bench/README.md
        "4 December, evening"). A larger copy is made when the recording asks for it,
        after the rules: held beside the rules' working copy, the two would take
        gigabytes at 100k claims. Either way it is the same copy."""
        self.release()
        sizes = snapshots.snapshot_sizes(self._store, used, reading_projection())
        if sizes is not None and sum(sizes.values()) <= EARLY_COPY_BYTES:
            self.of(used)

    def ask_queue(self, used: list[str], run: str) -> None:
        """Ask the review queue of the run IRI ``run`` (``RUN_QUEUE``) of the store seen
        through the loads ``used`` now, in the copy's thread, for :meth:`Recorder.record`.

        It reads the loads only, never the bundle, so an evaluation asks it before its
        rules, which leave the other core idle, rather than beside the bundle's bulk load
        and the other requests, which keep both cores busy (0.4-0.5 s at 10k claims). On a
        store without snapshots nothing is asked here (a server asks it with the rest).
        """
        if self._store.folder is None:
            return
        view = self._store.view(list(used))
        self._queue = (run, self._pool.submit(_queue_table, view, run))

    def queue_table(self, run: str) -> Future[str] | None:
        """The review queue :meth:`ask_queue` asked for the run IRI ``run``, if it did."""
        if self._queue is None or self._queue[0] != run:
            return None
        return self._queue[1]

    def adding(self, bundle: str) -> None:
        """Say that ``bundle`` is being added to the copy (no later run reuses it)."""
        self._bundle = bundle

    def release(self) -> None:
        """Free the copy, once made (an error making it was raised to the run that asked
        for it, or is dropped with the copy nobody asked for)."""
        if self._copy is not None:
            wait([self._copy])
        self._stack.close()
        self._stack = ExitStack()
        self._copy, self._graphs, self._bundle = None, None, None

    def close(self) -> None:
        """Wait for the copy being made, free it."""
        self._pool.shutdown(wait=True)
        self.release()


class Recorder:
    """The copy an evaluation's recorded queries run on (:class:`ReadingCopies`): what
    they read of the loads it used, then the bundle (:meth:`record`). On a store that
    keeps its caches on its server, the queries run there once the bundle is written
    (:meth:`record_written`).

    Use :func:`recording`. On a store in memory nothing is copied or recorded.
    """

    def __init__(
        self,
        store: Store,
        used: list[str],
        copies: ReadingCopies | None = None,
        run: str | None = None,
    ) -> None:
        self._store = store
        self._used = list(used)
        self._run = run
        self._own = copies is None
        self._copies = ReadingCopies(store) if copies is None else copies
        self._copy = self._copies.of(used)

    def record(self, bundle: str, file: Path) -> list[str]:
        """Run the recorded queries on the loads and the bundle in ``file``; keep their rows.

        Called before the bundle is published; returns the catalog lines to
        publish with it, one per file (none on a store without snapshots).
        """
        if self._copy is None:
            return []
        copy = self._copy.result()
        self._copies.adding(bundle)
        copy.add_graph(file, bundle, trusted=True)
        # The engine answers a query without the GIL: two at a time on the memory copy
        # took 0.6x the time of one after another (FEVER's bundle, bench/README.md).
        # The review queue reads the loads only, never the bundle: asked of the store
        # through the loads used (0.4 s for a run at 10k claims), so that the copy and
        # the loads' snapshots hold nothing more for it.
        asked = None if self._run is None else self._copies.queue_table(self._run)
        tables = _answer(
            copy,
            bundle,
            threads=_QUERY_THREADS,
            queue=self._queue(),
            queue_table=asked,
        )
        return _keep(self._store, bundle, tables)

    def _queue(self) -> tuple[Store, str] | None:
        """Where the run's review queue is asked: the store seen through the loads used."""
        return None if self._run is None else (self._store.view(self._used), self._run)

    def record_written(self, bundle: str) -> list[str]:
        """On a store that keeps its caches on its server (remote): run the recorded
        queries there, on the loads and the bundle just written (not yet published),
        and keep their rows on the server beside it; else nothing.

        Called once the bundle is written, before its catalog entry publishes it;
        returns the catalog lines to publish with it.
        """
        if not self._store.server_caches:
            return []
        # Seen through the loads and the bundle only, as a read of it would be: the
        # bundle is not in the store's dataset until it is published. Two queries at a
        # time: on Virtuoso at 10k claims, 19.1 -> 14.7 s (bench/README.md).
        # Not the peer queries: Virtuoso 7.2.5 answers two of them wrongly or not at all,
        # so on a server they run on a copy in the client (hopgate.audit.peers).
        on_server = self._store.scoped([*self._used, bundle])
        try:
            tables = _answer(
                on_server,
                bundle,
                threads=_QUERY_THREADS,
                groups=SERVER_GROUPS,
                queue=self._queue(),
            )
        except HopgateError as exc:
            # A cache: without it each read asks its queries of the server, as before.
            log.warning("hopgate: note: the answers of %s were not kept (%s)", bundle, exc)
            return []
        return _keep(self._store, bundle, tables)

    def close(self) -> None:
        """Free the copy, unless it belongs to the evaluation's :class:`ReadingCopies`
        (which frees it when the next run starts or the evaluation ends)."""
        if self._own:
            self._copies.close()


def _answer(
    source: Store,
    bundle: str,
    *,
    threads: int,
    groups: tuple[str, ...] = GROUPS,
    queue: tuple[Store, str] | None = None,
    queue_table: Future[str] | None = None,
) -> dict[str, dict[str, str]]:
    """Each recorded request of ``groups``' files, encoded, by file, as ``source`` answers it;
    with ``queue`` (a store seen through the loads used, and the run's id), the run's
    review queue as that store answers it (:func:`queue_request`), or as it answered it
    already (``queue_table``: :meth:`ReadingCopies.ask_queue`)."""
    tables: dict[str, dict[str, str]] = {group: {} for group in groups}
    # Each request: the query, its key's parameters, where it is asked, what is bound.
    requests: list[tuple[str, dict[str, str], Store, dict[str, Value]]] = [
        (name, params, source, {"bundle": IRI(bundle), **params})
        for name, params in recorded_requests()
        if _group(name) in groups
    ]
    queued = queue if _group(RUN_QUEUE) in groups else None
    if queued is not None and queue_table is None:
        asked, run = queued  # not a bundle query: only ?run is bound
        requests.append((RUN_QUEUE, queue_request(run), asked, {"run": IRI(run)}))

    def answer(
        request: tuple[str, dict[str, str], Store, dict[str, Value]],
    ) -> tuple[str, str, str]:
        # Each query's rows are encoded as soon as they are read: held as Python
        # rows until the end, the tables of a 100k-claim run took gigabytes.
        name, params, asked, bound = request
        found = asked.select(library_query(name).text, params=bound)
        return _group(name), _request(name, params), _encode_table(found)

    # In the requests' order, so the file is the same.
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for group, request, table in pool.map(answer, requests):
            tables[group][request] = table
    if queued is not None and queue_table is not None:
        tables[_group(RUN_QUEUE)][_request(RUN_QUEUE, queue_request(queued[1]))] = (
            queue_table.result()
        )
    return tables


def _queue_table(view: Store, run: str) -> str:
    """The review queue of the run IRI ``run`` as ``view`` answers it, encoded."""
    return _encode_table(view.select(library_query(RUN_QUEUE).text, params={"run": IRI(run)}))


def _keep(store: Store, bundle: str, tables: dict[str, dict[str, str]]) -> list[str]:
    """Keep each file of ``tables`` as a cache of ``bundle``; their catalog lines."""
    lines = []
    for group, encoded in tables.items():
        lines += snapshots.keep_bytes(store, bundle, cache_key(group), _encode(encoded))
    return lines


def queue_request(run: str) -> dict[str, str]:
    """The parameters under which an evaluation of the run IRI ``run`` records its review
    queue (:data:`hopgate.library.steps.RUN_QUEUE`), for :meth:`Answers.get`."""
    return {"run": run}


@contextmanager
def recording(
    store: Store, used: list[str], copies: ReadingCopies | None = None, run: str | None = None
) -> Iterator[Recorder]:
    """A :class:`Recorder` of the answers of a bundle about to be published from ``used``,
    its copy started now (or by ``copies``, which then frees it) and freed at the end of
    the block; with ``run`` (the run's IRI), also the run's review queue over ``used``."""
    recorder = Recorder(store, used, copies, run)
    try:
        yield recorder
    finally:
        recorder.close()


def record(store: Store, used: list[str], bundle: str, file: Path) -> list[str]:
    """:meth:`Recorder.record` with a copy made for it (the evaluation starts its copy
    earlier, with :func:`recording`)."""
    with recording(store, used) as recorder:
        return recorder.record(bundle, file)


def read(store: Store, bundle: str) -> Answers | None:
    """The recorded answers of ``bundle`` when the catalog records a file of them, else None
    (a file is verified when first read: missing or damaged, its queries are not answered)."""
    if store.folder is None and not store.server_caches:
        return None
    digests = snapshots.recorded(store, [bundle])
    keys = digests.get(bundle, {})
    if not any(cache_key(group) in keys for group in GROUPS):
        return None
    return Answers(lambda group: snapshots.verified_bytes(store, bundle, cache_key(group), digests))


# ---- the file: JSON Lines, a header naming the requests, then one table per line ----
# (a read decodes only the tables it asks for). A table is stored by column: each
# column's values in a list, with its kind: "" plain JSON values, "i" IRIs, "b"
# blank node labels, "d" decimals (as text), "t" each value tagged as its own kind
# (["i", iri], ...). An IRI column keeps its values' common prefix once ("prefix"):
# decoding then builds each value in C (map), not in a Python loop per row.

_KINDS: dict[str, Any] = {"i": IRI, "b": BNode, "d": Decimal}
#: The same, IRIs and blank node labels as ``str`` (``Answers.get(plain=True)``).
_PLAIN_KINDS: dict[str, Any] = {**_KINDS, "i": str, "b": str}


def _kind(value: Value) -> str:
    if isinstance(value, IRI):
        return "i"
    if isinstance(value, BNode):
        return "b"
    if isinstance(value, Decimal):
        return "d"
    return ""


def _column(values: list[Value]) -> dict[str, Any]:
    kinds = {_kind(v) for v in values if v is not None}
    if len(kinds) > 1:  # mixed kinds: each value tagged
        tagged = [v if _kind(v) == "" else [_kind(v), str(v)] for v in values]
        return {"kind": "t", "values": tagged}
    kind = kinds.pop() if kinds else ""
    if kind == "":
        return {"kind": "", "values": values}
    texts = [None if v is None else str(v) for v in values]
    prefix = os.path.commonprefix([t for t in texts if t is not None]) if kind == "i" else ""
    cut = len(prefix)
    return {
        "kind": kind,
        "prefix": prefix,
        "values": [None if t is None else t[cut:] for t in texts],
    }


def _encode_table(found: list[Row]) -> str:
    """One table's line."""
    names = list(found[0]) if found else []
    columns = [_column([row[name] for row in found]) for name in names]
    table = {"names": names, "count": len(found), "columns": columns}
    return json.dumps(table, ensure_ascii=False)


def _encode(tables: dict[str, str]) -> bytes:
    """The file: the header naming the requests, then each request's table line."""
    lines = [json.dumps({"format": _FORMAT, "requests": list(tables)}), *tables.values()]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _tables(data: bytes) -> dict[str, bytes]:
    """Each request's undecoded table line."""
    header, *lines = data.rstrip(b"\n").split(b"\n")
    requests = json.loads(header)["requests"]
    return dict(zip(requests, lines, strict=True))


def _decode_column(column: dict[str, Any], plain: bool = False) -> list[Value]:
    kind, values = column["kind"], column["values"]
    if kind == "":
        return values  # type: ignore[no-any-return]
    kinds = _PLAIN_KINDS if plain else _KINDS
    if kind == "t":
        return [kinds[v[0]](v[1]) if type(v) is list else v for v in values]
    make, prefix = kinds[kind], column.get("prefix", "")
    if make is str:
        if None in values:
            return [None if v is None else prefix + v for v in values]
        return list(map(prefix.__add__, values)) if prefix else values
    if None in values:
        return [None if v is None else make(prefix + v) for v in values]
    return list(map(make, map(prefix.__add__, values)) if prefix else map(make, values))


def _rows_of_cards(column: dict[str, Any], cards: Set[str]) -> list[int]:
    """Where a ``?card`` column holds one of ``cards`` or nothing."""
    if column["kind"] == "i":
        prefix = column.get("prefix", "")
        wanted = {card[len(prefix) :] for card in cards if card.startswith(prefix)}
        return [i for i, v in enumerate(column["values"]) if v is None or v in wanted]
    values = _decode_column(column)
    return [i for i, v in enumerate(values) if v is None or str(v) in cards]


def _decode_columns(
    line: bytes, cards: Set[str] | None = None, *, plain: bool = False
) -> tuple[dict[str, list[Value]], int]:
    """A table's columns by name, and its number of rows (``cards``: only those rows)."""
    table = json.loads(line)
    names, count, encoded = table["names"], table["count"], table["columns"]
    if cards is not None and "card" in names:
        keep = _rows_of_cards(encoded[names.index("card")], cards)
        encoded = [{**c, "values": [c["values"][i] for i in keep]} for c in encoded]
        count = len(keep)
    columns = [_decode_column(column, plain) for column in encoded]
    return dict(zip(names, columns, strict=True)), count


def _decode_table(line: bytes, cards: Set[str] | None = None, *, plain: bool = False) -> list[Row]:
    columns, count = _decode_columns(line, cards, plain=plain)
    if not columns:
        return [{} for _ in range(count)]
    names = list(columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*columns.values(), strict=True)]


__all__ = [
    "GROUPS",
    "SERVER_GROUPS",
    "Answers",
    "Recorder",
    "cache_key",
    "queue_request",
    "read",
    "record",
    "recording",
]
