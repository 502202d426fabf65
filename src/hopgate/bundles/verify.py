"""``hopgate verify EXPORT_DIR``: nothing altered, and every retained quote is true.

Checks, in order: every Data Integrity proof in ``proofs.json`` against the
dataset of its file (independently of the manifest; :mod:`.signing`), and
with trusted keys that every export file carries a proof by one of them;
every file the manifest lists is present with its sha256;
no other export file lies beside them unlisted; and, in every exported file
that can be read back (TriG and JSON-LD by Oxigraph, the PROV formats by
``prov``), every version text hashes to its digest, every digest agrees with
the manifest, and every span's exact quote (with its prefix and suffix) is
the text at its offsets in its version, wherever that version's text was
exported; and the PROV-CONSTRAINTS that apply to hopgate's terms, bundle by
bundle (:mod:`.constraints`). The facts are gathered with SPARQL over the
file's triples loaded into an in-memory store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from hopgate.bundles.constraints import check as check_constraints
from hopgate.bundles.formats import format_of, parse_rdf
from hopgate.bundles.manifest import MANIFEST, read_manifest, sha256_file
from hopgate.bundles.provdoc import PROV_FORMATS, parse_document, prov_quads
from hopgate.bundles.signing import (
    PROOFS,
    check_dataset,
    file_dataset,
    public_key_of,
    read_proofs,
    signed_formats,
)
from hopgate.errors import SigningError
from hopgate.ingest.anchoring import sha256_digest
from hopgate.store import Store, open_store

#: Spans with an exact quote, and their versions' digests and texts where exported.
QUOTES_QUERY = """
SELECT ?span ?spanId ?exact ?prefix ?suffix ?start ?end ?version ?versionId ?digest WHERE {
  ?span prov:wasQuotedFrom ?version ; oa:hasSelector ?quote .
  ?quote oa:exact ?exact .
  OPTIONAL { ?span hg:ledgerId ?spanId }
  OPTIONAL { ?quote oa:prefix ?prefix }
  OPTIONAL { ?quote oa:suffix ?suffix }
  OPTIONAL { ?span oa:hasSelector ?position . ?position oa:start ?start ; oa:end ?end }
  OPTIONAL { ?version hg:ledgerId ?versionId }
  OPTIONAL { ?version hg:digest ?digest }
}
"""
#: Every version with its digest, and its text where exported.
VERSIONS_QUERY = """
SELECT ?version ?versionId ?digest ?text WHERE {
  ?version a hg:Version .
  OPTIONAL { ?version hg:ledgerId ?versionId }
  OPTIONAL { ?version hg:digest ?digest }
  OPTIONAL { ?version prov:value ?text }
}
"""


@dataclass
class VerifyReport:
    """What ``verify`` checked and every problem it found (empty: the export is intact)."""

    files: int = 0
    signatures_checked: int = 0
    constraints_checked: int = 0
    signers: list[str] = field(default_factory=list)
    quotes_checked: int = 0
    quotes_without_text: int = 0
    texts_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was altered and every quote is true."""
        return not self.problems


def _read_back(path: Path, fmt: str) -> list[ox.Quad]:
    data = path.read_bytes()
    if fmt in ("trig", "jsonld"):
        return parse_rdf(data, fmt)
    return prov_quads(parse_document(data, fmt))


def _check_quotes(
    name: str, quads: list[ox.Quad], versions: dict[str, str], report: VerifyReport
) -> None:
    store: Store
    with open_store(None) as store:
        # An in-memory store of the file's own triples: the checks are SPARQL too.
        store.add_quads(quads)
        texts: dict[str, str] = {}  # each version's text once, not once per quote row
        for row in store.select(VERSIONS_QUERY):
            version_id = str(row["versionId"] or row["version"])
            if row["text"] is not None:
                texts[str(row["version"])] = str(row["text"])
            digest = row["digest"]
            if digest is not None and versions.get(version_id, digest) != digest:
                report.problems.append(
                    f"{name}: version {version_id}: digest {digest} differs from the "
                    f"manifest's {versions[version_id]}"
                )
            if row["text"] is not None:
                report.texts_checked += 1
                if row["digest"] is not None and sha256_digest(str(row["text"])) != row["digest"]:
                    report.problems.append(
                        f"{name}: version {version_id}: its text does not hash to {row['digest']}"
                    )
        for row in store.select(QUOTES_QUERY):
            span_id = str(row["spanId"] or row["span"])
            text = texts.get(str(row["version"]))
            if text is None:
                report.quotes_without_text += 1
                continue
            report.quotes_checked += 1
            problem = _quote_problem(row, text)
            if problem:
                report.problems.append(f"{name}: span {span_id}: {problem}")


def _quote_problem(row: dict[str, Any], text: str) -> str | None:
    exact = str(row["exact"])
    if row["start"] is None or row["end"] is None:
        return None if exact in text else f"quote {exact!r} is not in its version's text"
    start, end = int(row["start"]), int(row["end"])
    if text[start:end] != exact:
        return f"quote {exact!r} is not the text at [{start}:{end}] ({text[start:end]!r})"
    # Compared in place (no copy of the text per quote: a long text has many quotes).
    prefix = None if row["prefix"] is None else str(row["prefix"])
    if prefix is not None and not (
        len(prefix) <= start and text.startswith(prefix, start - len(prefix))
    ):
        return f"prefix {row['prefix']!r} does not precede the quote"
    if row["suffix"] is not None and not text.startswith(str(row["suffix"]), end):
        return f"suffix {row['suffix']!r} does not follow the quote"
    return None


def _check_signatures(
    directory: Path,
    listed: list[str],
    trusted: Sequence[str] | None,
    report: VerifyReport,
    datasets: dict[str, list[ox.Quad]],
) -> None:
    """Check every proof in ``proofs.json`` against the dataset of its file, independently of
    the manifest; with ``trusted``, every export file needs a proof by a trusted key."""
    try:
        proofs = read_proofs(directory)
    except SigningError as exc:
        report.problems.append(str(exc))
        return
    present = sorted(
        path.name
        for path in directory.iterdir()
        if format_of(path.name) in signed_formats() and path.is_file()
    )
    must_sign = sorted(set(present) | set(listed)) if (proofs or trusted) else []
    for name in must_sign:
        if name not in proofs:
            report.problems.append(f"{name}: not signed (no proof in {PROOFS})")
    for name, listed_proofs in sorted(proofs.items()):
        fmt = format_of(name)
        path = directory / name
        if fmt is None or "/" in name or not path.is_file():
            report.problems.append(f"{name}: signed in {PROOFS} but missing")
            continue
        try:
            dataset = datasets[name] = file_dataset(path, fmt)
        except SigningError as exc:
            report.problems.append(f"{name}: signature not checked: {exc}")
            continue
        trusted_ok = False
        for proof in listed_proofs:
            report.signatures_checked += 1
            problem = check_dataset(dataset, proof)
            who = _signer(proof)
            if problem is not None:
                report.problems.append(f"{name}: proof by {who}: {problem}")
                continue
            if who not in report.signers:
                report.signers.append(who)
            method = proof.get("verificationMethod", "") if isinstance(proof, dict) else ""
            if trusted is not None and _key_of(method) in trusted:
                trusted_ok = True
        if trusted is not None and not trusted_ok:
            report.problems.append(f"{name}: no valid proof by a trusted key (--trust)")


def _key_of(method: str) -> str | None:
    try:
        return public_key_of(method)
    except SigningError:
        return None


def _signer(proof: Any) -> str:
    if not isinstance(proof, dict):
        return "?"
    signer = proof.get("signer")
    name = signer.get("name") if isinstance(signer, dict) else None
    method = str(proof.get("verificationMethod", "?")).split("#", 1)[0]
    return f"{name} ({method})" if name else method


def verify(directory: Path, *, trusted: Sequence[str] | None = None) -> VerifyReport:
    """Check an export directory: signatures, the manifest, every retained quote.

    ``trusted`` lists public Multikeys: every export file must then carry a
    valid proof by one of them. Without it, every proof present must verify,
    and a signed directory may hold no unsigned export file.

    A signed directory whose manifest is gone still has its signatures checked
    (the missing manifest is a problem reported beside them).

    Raises:
        ManifestError: the directory has no readable hopgate manifest, and no proofs.
    """
    report = VerifyReport()
    if not (directory / MANIFEST).exists() and (directory / PROOFS).is_file():
        manifest: dict[str, Any] = {"files": {}, "versions": {}}
        report.problems.append(f"{MANIFEST}: missing (the signatures were checked without it)")
    else:
        manifest = read_manifest(directory)
    datasets: dict[str, list[ox.Quad]] = {}  # each file is read once
    _check_signatures(directory, sorted(manifest["files"]), trusted, report, datasets)
    versions = {str(k): str(v) for k, v in manifest["versions"].items()}
    for name, entry in sorted(manifest["files"].items()):
        path = directory / name
        report.files += 1
        if not path.is_file():
            report.problems.append(f"{name}: listed in the manifest but missing")
            continue
        actual = sha256_file(path)
        if actual != entry.get("sha256"):
            report.problems.append(
                f"{name}: sha256 {actual} differs from the manifest's {entry.get('sha256')}"
            )
            continue
        fmt = format_of(name)
        if fmt in ("trig", "jsonld") or fmt in PROV_FORMATS:
            try:
                quads = datasets[name] if name in datasets else _read_back(path, fmt)
            except Exception as exc:  # any parser's error: report it, keep checking
                report.problems.append(f"{name}: does not parse as {fmt}: {exc}")
                continue
            _check_quotes(name, quads, versions, report)
            report.constraints_checked += 1
            report.problems.extend(f"{name}: {v}" for v in check_constraints(quads))
    listing = sorted(directory.iterdir()) if (directory / MANIFEST).exists() else []
    for path in listing:
        if path.name in (MANIFEST, PROOFS):
            continue
        if path.name not in manifest["files"] and format_of(path.name):
            report.problems.append(f"{path.name}: an export file the manifest does not list")
    return report
