"""The signature line of a report's header: is this evaluation's bundle signed, and by whom.

The store records no signature: signatures live with an export
(``hopgate export`` then ``hopgate sign``, proofs in ``proofs.json``). A
report is told where that export is (``hopgate report --signed-export DIR``)
and checks it exactly as ``hopgate verify`` does, then says whether a signed
file there holds the bundle the report is about. Without a directory the
line says the signature was not checked, never that the bundle is unsigned.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyoxigraph as ox

from hopgate.bundles.formats import format_of
from hopgate.bundles.signing import file_dataset, read_proofs
from hopgate.bundles.verify import verify
from hopgate.errors import HopgateError

NOT_CHECKED = (
    "not checked: the store records no signature; signatures live with an export "
    "(hopgate report --signed-export DIR checks one)"
)


def _holds(quads: list[ox.Quad], bundle: ox.NamedNode) -> bool:
    return any(q.graph_name == bundle or q.subject == bundle for q in quads)


def signature_status(directory: Path | None, bundle: str, trusted: Sequence[str] | None) -> str:
    """One line on the signatures of ``bundle`` in the export at ``directory``.

    Every proof in the directory is checked (as ``hopgate verify`` checks
    them, with ``trusted`` keys when given); the bundle counts as signed only
    when the check finds no problem and a signed file states the bundle (as a
    named graph or as a subject). A problem is reported, never hidden: the
    first one is quoted and the others counted.
    """
    if directory is None:
        return NOT_CHECKED
    try:
        report = verify(directory, trusted=trusted)
        if report.problems:
            more = len(report.problems) - 1
            extra = f" (and {more} more problem{'s' if more != 1 else ''})" if more else ""
            return f"CHECK FAILED for the export at {directory}: {report.problems[0]}{extra}"
        proofs = read_proofs(directory)
        if not proofs:
            return f"not signed: the export at {directory} carries no proofs"
        node = ox.NamedNode(bundle)
        holding = []
        for name in sorted(proofs):
            fmt = format_of(name)
            if fmt is not None and _holds(file_dataset(directory / name, fmt), node):
                holding.append(name)
    except HopgateError as exc:
        return f"CHECK FAILED for the export at {directory}: {exc}"
    if not holding:
        return f"not signed: no signed file of the export at {directory} holds this bundle"
    trust = "by a trusted key" if trusted else "(keys not checked against trusted ones: --trust)"
    return (
        f"signed by {'; '.join(report.signers)}: every signature verifies {trust}; "
        f"the bundle is in {', '.join(holding)}"
    )
