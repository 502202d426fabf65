"""The signature line of a report's header: is the bundle this report renders the one signed.

The store records no signature: signatures live with an export (``hopgate
export`` then ``hopgate sign``, proofs in ``proofs.json``). A report is told
where that export is (``hopgate report --signed-export DIR``), checks it
exactly as ``hopgate verify`` does, picks the signed file that holds the
evaluation's bundle for the report's reader, and compares that file's
canonical dataset with the store's export of the same bundles
(:func:`hopgate.bundles.store_match.compare_with_store`): the report renders the
store, so only when the two are equal does the line say "signed by". The
line names the signed file and the sha256 of its bytes. Any other outcome is
CHECK FAILED with the reason, and the command exits non-zero. Without a
directory the line says the signature was not checked, never that the
bundle is unsigned (docs/spec/records.md "Signed exports").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hopgate.bundles.formats import EXTENSIONS
from hopgate.bundles.proofs import SignedFile
from hopgate.bundles.scope import rendered_graphs
from hopgate.bundles.store_match import compare_with_store
from hopgate.bundles.verify import verify
from hopgate.errors import HopgateError
from hopgate.store import Store

NOT_CHECKED = (
    "not checked: the store records no signature; signatures live with an export "
    "(hopgate report --signed-export DIR checks one)"
)


@dataclass(frozen=True)
class SignatureCheck:
    """The header's signature line, and whether a check that was asked for failed."""

    line: str
    failed: bool = False


def _order(signed: SignedFile) -> int:
    """TriG first: its dataset is the export's quads as written, with no format's mapping."""
    return list(EXTENSIONS).index(signed.statement.entry.format)


def check_signature(
    store: Store,
    directory: Path | None,
    *,
    bundle: str,
    reader: str,
    trusted: Sequence[str] | None,
) -> SignatureCheck:
    """The signature line of a report on ``bundle`` for ``reader``, from the export at
    ``directory`` (checked with ``trusted`` keys when given).

    Signed only when ``hopgate verify`` finds no problem, a signed file holds the
    bundle and every load graph the report shows texts of, for the same reader,
    and its canonical dataset equals the store's export of the same bundles;
    else CHECK FAILED, naming the first problem.
    """
    if directory is None:
        return SignatureCheck(NOT_CHECKED)

    def failed(reason: str) -> SignatureCheck:
        return SignatureCheck(f"CHECK FAILED for the export at {directory}: {reason}", True)

    try:
        report = verify(directory, trusted=trusted)
        if report.problems:
            more = len(report.problems) - 1
            extra = f" (and {more} more problem{'s' if more != 1 else ''})" if more else ""
            return failed(f"{report.problems[0]}{extra}")
        if not report.signed:
            return failed("the export carries no proofs (it is not signed)")
        holding = [f for f in report.signed.values() if bundle in f.graphs]
        candidates = sorted((f for f in holding if f.statement.entry.reader == reader), key=_order)
        if not candidates:
            readers = sorted({str(f.statement.entry.reader) for f in holding})
            found = f" (only for reader {', '.join(readers)})" if readers else ""
            return failed(
                f"no signed file holds this evaluation's bundle for reader {reader}{found}"
            )
        # The report shows the loads' texts (questions, claims, outputs, quotes) beside
        # the bundle's verdicts: a signature of the bundle alone vouches for none of them.
        shown = set(rendered_graphs(store, bundle))
        whole = [f for f in candidates if shown <= set(f.graphs)]
        if not whole:
            left = sorted(shown - set(candidates[0].graphs))
            return failed(
                f"{candidates[0].name} holds this evaluation's bundle but not the load "
                f"graph(s) whose texts the report shows ({', '.join(left)}): sign an export "
                f"of the run (hopgate export --run RUN), which holds them"
            )
        candidates = whole
        chosen = candidates[0]
        comparison = compare_with_store(store, directory, chosen)
    except HopgateError as exc:
        return failed(str(exc))
    signers = [s for s in chosen.signers if s.trusted or not trusted]
    who = "; ".join(signer.shown for signer in signers)
    file = f"{chosen.name} (sha256:{chosen.statement.entry.sha256})"
    if not comparison.equal:
        return failed(
            f"{file}, whose proof by {who} verifies, does not equal the rendered bundle: the "
            f"store's bundles, exported for reader {reader} as {chosen.name} was, differ from "
            f"the signed dataset in {comparison.only_store} quad(s) only in the store and "
            f"{comparison.only_signed} only in the signed file (canonical N-Quads sha256:"
            f"{comparison.store_sha256}, signed sha256:{comparison.signed_sha256})"
        )
    trust = "by a trusted key" if trusted else "(keys not checked against trusted ones: --trust)"
    return SignatureCheck(
        f"signed by {who} {trust}: {file} equals the rendered bundle (the store's bundles, "
        f"exported for reader {reader} as it was, give its canonical dataset, RDFC-1.0 N-Quads "
        f"sha256:{comparison.signed_sha256})"
    )


__all__ = ["NOT_CHECKED", "SignatureCheck", "check_signature"]
