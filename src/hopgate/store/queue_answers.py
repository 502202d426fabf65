"""The review queue's rows, recorded by each load (and intervention plan).

``queries/review-queue.rq`` reads the published records only: the load and
plan graphs (docs/spec/adjudication.md "Awaiting adjudication"), never a
bundle or the catalog. A published load or plan graph never changes (a load
graph's IRI is its ledger's digest; a plan graph is written once), so the
query's answer for every run depends on nothing but which of them are
published. A load, once its graph is written and before its catalog entry
publishes it, asks the query over the records the store will then hold and
keeps the rows, beside an on-disk store as a file or on a server in a graph
outside every dataset (docs/spec/records.md "Caches"); a read takes them from
there when their key is the key of the records as they are, and asks the
query otherwise. At 10k claims the query was 0.7-0.95 s of ``metrics``' 1.0 s
(its count of the subjects awaiting adjudication).

The key is a digest of the query's text and of the sorted IRIs of the
records; the file is verified against the digest its catalog line records
before each use (missing or damaged, the query is asked, as before). Rows the
file could not name (a blank node, an unexpected term) are not kept.
"""

from __future__ import annotations

import hashlib
import json
import logging

from hopgate.errors import HopgateError
from hopgate.library.artefacts import library_query
from hopgate.store import snapshots
from hopgate.store.base import IRI, Row, Store, Value
from hopgate.vocab import CATALOG_GRAPH

log = logging.getLogger(__name__)

#: The format of the file; part of its key.
_FORMAT = "hopgate review queue answers 1"

#: The query whose rows are kept.
QUERY = "review-queue"

#: Its columns by kind of value: IRIs, texts and flags (booleans; a server may
#: type one as 0/1, docs/servers.md).
_IRIS = ("run", "subject", "output")
_TEXTS = ("kind", "question")
_FLAGS = ("disagreement", "machineDisagreement", "consequential")

#: The published records: the graphs the catalog says a load or a plan generated.
_RECORDS = (
    "SELECT DISTINCT ?g WHERE { GRAPH ?catalog { ?g prov:wasGeneratedBy ?a . ?a a ?kind } "
    "VALUES ?kind { hg:Load hg:InterventionPlanning } }"
)


def records(store: Store) -> list[str]:
    """The published load and plan graphs (sorted): the graphs the review queue reads."""
    rows = store.select(_RECORDS, params={"catalog": IRI(CATALOG_GRAPH)})
    return sorted({str(row["g"]) for row in rows})


def _key(graphs: list[str]) -> str:
    text = "\n".join([_FORMAT, library_query(QUERY).text, *graphs])
    return "queue-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _asked(store: Store, graphs: list[str], params: dict[str, Value] | None = None) -> list[Row]:
    """The query's rows over ``graphs`` (none: no rows)."""
    if not graphs:
        return []
    return store.view(graphs).select(library_query(QUERY).text, params=params)


def _encoded(rows: list[Row]) -> bytes | None:
    """The record's bytes: one list per row, in the order of the columns; None when a
    row holds a value the columns do not expect."""
    kept: list[list[object]] = []
    for row in rows:
        iris = [row.get(name) for name in _IRIS]
        texts = [row.get(name) for name in _TEXTS]
        flags = [row.get(name) for name in _FLAGS]
        if not all(isinstance(v, IRI) for v in iris) or not all(type(v) is str for v in texts):
            return None
        if not all(v in (True, False) for v in flags):  # 1 and 0 too (a server's booleans)
            return None
        kept.append([*map(str, iris), *texts, *map(bool, flags)])
    data = {"format": _FORMAT, "rows": kept}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _decoded(data: bytes) -> list[Row] | None:
    found = json.loads(data)
    if found.get("format") != _FORMAT:
        return None
    iris = len(_IRIS)
    rows: list[Row] = []
    for kept in found["rows"]:
        row: Row = dict(zip(_IRIS, map(IRI, kept[:iris]), strict=True))
        row.update(zip((*_TEXTS, *_FLAGS), kept[iris:], strict=True))
        rows.append(row)
    return rows


def record_written(store: Store, graph: str) -> list[str]:
    """Ask the queue over the records as they will be once ``graph`` (a load's or a plan's,
    written, not yet published) is; keep its rows; return the catalog line to publish
    with it (none on a store in memory, or when the rows cannot be kept).

    Called by :func:`hopgate.store.publish.publish`'s ``written``. A server error
    is a note: without the record each read asks the query, as before.
    """
    if store.folder is None and not store.server_caches:
        return []
    graphs = sorted({*records(store), graph})
    try:
        data = _encoded(_asked(store, graphs))
    except HopgateError as exc:
        log.warning("hopgate: note: the review queue's rows were not kept (%s)", exc)
        return []
    if data is None:
        return []
    return snapshots.keep_bytes(store, graph, _key(graphs), data)


def rows(store: Store, run: IRI | None = None) -> list[Row]:
    """``queries/review-queue.rq``'s rows over the published records (for ``run``, when
    given): those a load recorded for the records as they are, else asked."""
    graphs = records(store)
    if graphs and (store.folder is not None or store.server_caches):
        digests = snapshots.recorded(store, graphs)
        data = snapshots.kept_by_any(store, graphs, _key(graphs), digests)
        found = None if data is None else _decoded(data)
        if found is not None:
            return found if run is None else [row for row in found if row["run"] == run]
    return _asked(store, graphs, None if run is None else {"run": run})


__all__ = ["QUERY", "record_written", "records", "rows"]
