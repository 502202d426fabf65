"""Caches kept on the server, beside the graphs they cache and outside every query's dataset.

An on-disk store keeps its caches as files beside it (:mod:`hopgate.store.snapshots`);
a server has no such folder, and every client of it should find the caches
one evaluation wrote (the recorded answers of :mod:`hopgate.store.answers`).
So a cache's bytes are kept on the server itself, in a graph of their own
(``urn:hopgate:cache:...``) that the catalog never lists: no query of the
store, and no dump or export, reads it (:class:`~hopgate.store.remote.RemoteStore`'s
dataset is the catalog's graphs).

The bytes are written compressed (zlib), then base64-encoded in numbered
parts, so that no server's handling of long or unusual literals can change
them, and a read checks them against the digest the catalog entry records,
as for a file (docs/spec/records.md "Caches"): a cache a server lost, cut or
changed is not used, and the read asks its queries of the server instead.
Compressed, a 10k-claim run's recorded answers are a tenth of their bytes
(16 MB of rows, 1.6 MB kept): every read fetches, and the server sends,
that much less. A cache an earlier hopgate kept uncompressed is still read.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import zlib

from hopgate.errors import StoreError
from hopgate.store.base import Row
from hopgate.store.remote.uploads import Uploads
from hopgate.store.remote.values import check_iri
from hopgate.vocab import HG

#: The graphs caches are kept in: one per cached graph, never in any dataset.
CACHE_BASE = "urn:hopgate:cache:"
#: Base64 characters in one part (one literal). Virtuoso 7.2.5's Graph Store
#: parser answers HTTP 500 to a literal of 32k characters; 16k pass.
PART_CHARS = 16_000
#: Parts in one write request (about 1 MB of N-Triples): 3 MB kept in 0.13 s there.
PARTS_PER_REQUEST = 64
_PART = f"{HG}cachePart"
#: What starts the text of a compressed cache, then its size and a space: no base64
#: character, so a cache kept uncompressed (by an earlier hopgate) is told apart.
_COMPRESSED = "~"


def cache_graph(graph: str) -> str:
    """The server graph holding the caches of ``graph``."""
    return CACHE_BASE + hashlib.sha256(graph.encode("utf-8")).hexdigest()[:32]


def _node(graph: str, key: str) -> str:
    return f"{cache_graph(graph)}:{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}"


class Caches(Uploads):
    """The server-kept caches of a :class:`~hopgate.store.remote.RemoteStore`."""

    #: This store keeps caches on the server (hopgate.store.snapshots asks).
    server_caches = True

    def keep_cache(self, graph: str, key: str, data: bytes) -> None:
        """Keep ``data``, the cache ``key`` of ``graph``, on the server (replacing any earlier)."""
        where, node = cache_graph(graph), _node(graph, key)
        # Level 1: 0.05 s for 16 MB of rows, within a few percent of the best ratio.
        packed = base64.b64encode(zlib.compress(data, 1)).decode("ascii")
        text = f"{_COMPRESSED}{len(data)} {packed}"
        parts = [text[i : i + PART_CHARS] for i in range(0, len(text), PART_CHARS)] or [""]
        forget = f"DELETE WHERE {{ GRAPH <{where}> {{ <{node}> <{_PART}> ?part }} }}"
        self._update(forget, idempotent=True)
        lines = [
            # "<number> <base64>": a part's place, then its characters (no escapes needed).
            f'<{node}> <{_PART}> "{number:08d} {part}" .\n'
            for number, part in enumerate(parts)
        ]
        try:
            for start in range(0, len(lines), PARTS_PER_REQUEST):
                self._send_batch(where, lines[start : start + PARTS_PER_REQUEST])
        except StoreError:
            # No digest is recorded for a cache cut short; its parts are not left behind.
            with contextlib.suppress(StoreError):
                self._update(forget, idempotent=True)
            raise

    def read_cache(self, graph: str, key: str) -> bytes | None:
        """The bytes :meth:`keep_cache` kept as ``key`` of ``graph``, or None (the caller
        checks them against the catalog's digest)."""
        where, node = check_iri(cache_graph(graph)), _node(graph, key)
        # Read in pages where the server caps its rows (a 100k-claim run's answers
        # are more parts than Virtuoso's packaged 10,000 rows).
        found = self._all_rows(
            f"SELECT ?part WHERE {{ GRAPH <{where}> {{ <{node}> <{_PART}> ?part }} }}",
            dataset=False,
        )
        if not found:
            return None
        parts = sorted(str(row["part"]) for row in found)
        text = "".join(part.partition(" ")[2] for part in parts)
        size = None
        if text.startswith(_COMPRESSED):
            stated, _, text = text[1:].partition(" ")
            # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
            if not (stated.isascii() and stated.isdigit()):
                return None
            size = int(stated)
        try:
            data = base64.b64decode(text, validate=True)
        except ValueError:
            return None
        return data if size is None else _decompressed(data, size)

    def _all_rows(self, text: str, *, dataset: bool = True) -> list[Row]:
        """Every row of a SELECT, paged where the server caps rows (the store's own)."""
        raise NotImplementedError

    def remove_caches(self, graph: str) -> None:
        """Remove every cache kept of ``graph``."""
        self._update(f"DROP SILENT GRAPH <{cache_graph(graph)}>", idempotent=True)


#: The most bytes one byte of a zlib stream can grow to (its format's limit is about
#: 1032): a cache that states more is not what it says.
_MOST_GROWTH = 1040


def _decompressed(data: bytes, size: int) -> bytes:
    """The ``size`` bytes ``data`` compresses; where it is not a whole zlib stream of
    exactly that many bytes, ``data`` itself, which the caller's digest check then reports
    as damaged (as it would a changed uncompressed cache). Never more than ``size``
    bytes are made, and a size no stream of ``data``'s length can reach is refused
    unread (the cache's text is the server's to forge)."""
    if size > _MOST_GROWTH * len(data) + 64:
        return data
    stream = zlib.decompressobj()
    try:
        found = stream.decompress(data, size + 1)
    except zlib.error:
        return data
    if not stream.eof or stream.unconsumed_tail or len(found) != size:
        return data
    return found


__all__ = ["CACHE_BASE", "Caches", "cache_graph"]
