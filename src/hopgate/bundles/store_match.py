"""Does the store still give what was signed: a signed file against the store's bundles now.

A report renders an evaluation from the store, not from the signed export; a
signature beside it vouches for the report only when the store's bundles are
still the signed ones. :func:`compare_with_store` exports, from the store,
exactly what the signed file holds (the bundles its dataset names, for the
reader, scope and texts its proof states, in its format) and compares the two
canonical datasets (RDFC-1.0 N-Quads, as signing computes them): any quad
added, removed or changed in those bundles since the signing, by any writer
of the store, makes them differ.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from hopgate.bundles.formats import serialize
from hopgate.bundles.proofs import SignedFile, dataset_of, read_regular
from hopgate.bundles.quads import export_quads
from hopgate.bundles.scope import Scope
from hopgate.bundles.signing import canonical_nquads
from hopgate.errors import SigningError
from hopgate.store import Store

#: The largest signed file compared (an export of a large run is tens of MB).
MAX_COMPARED_BYTES = 1 << 32


@dataclass(frozen=True)
class Comparison:
    """The signed file's canonical dataset beside the store's, and how many quads differ."""

    signed_sha256: str
    store_sha256: str
    only_signed: int
    only_store: int

    @property
    def equal(self) -> bool:
        """True when the store gives the signed dataset, quad for quad."""
        return self.signed_sha256 == self.store_sha256


def compare_with_store(store: Store, directory: Path, signed: SignedFile) -> Comparison:
    """Compare the signed file's dataset with the store's export of the same bundles.

    The file is read again and must still be the signed bytes (its sha256),
    so what is compared is what was verified.

    Raises:
        SigningError: the file changed since it was verified, is not a dataset,
            or states no reader.
    """
    entry = signed.statement.entry
    if entry.reader is None or not signed.graphs:
        raise SigningError(f"{signed.name}: states no bundle and reader to compare")
    data = read_regular(directory / signed.name, MAX_COMPARED_BYTES)
    if hashlib.sha256(data).hexdigest() != entry.sha256:
        raise SigningError(f"{signed.name}: changed since its signature was checked")
    theirs = canonical_nquads(dataset_of(data, entry.format, signed.name))
    scope = Scope(signed.graphs, entry.reader, entry.scope)
    exported = serialize(export_quads(store, scope, with_text=entry.with_text), entry.format)
    ours = canonical_nquads(dataset_of(exported, entry.format, signed.name))
    signed_lines, store_lines = set(theirs.splitlines()), set(ours.splitlines())
    return Comparison(
        signed_sha256=hashlib.sha256(theirs).hexdigest(),
        store_sha256=hashlib.sha256(ours).hexdigest(),
        only_signed=len(signed_lines - store_lines),
        only_store=len(store_lines - signed_lines),
    )


__all__ = ["Comparison", "compare_with_store"]
