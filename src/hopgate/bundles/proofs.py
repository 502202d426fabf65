"""The proofs of an export directory: ``proofs.json``, signing its files, checking one file.

What a signature covers is docs/spec/records.md "Signed exports".

Each export file (a dataset or a picture) carries a list of Data Integrity
proofs (:mod:`.signing`) in ``proofs.json`` beside ``manifest.json``: several
people may sign. A proof signs the file's dataset and states the file: its
name, the sha256 and length of its exact bytes and its manifest entry
(:class:`~hopgate.bundles.signing.FileStatement`), so a file is signed exactly
as it is, byte for byte, and the manifest's reader and scope of it are what
its signer signed. A picture states no dataset: its proof signs its bytes.

``proofs.json`` is attacker-controlled input: it is opened without blocking
(a FIFO answers at once), read only when it is a regular file of bounded
size, and every proof in it is checked field by field before use; whatever is
wrong is one problem that names the file, the proof and the field.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from hopgate import ids, inputs
from hopgate.bundles.formats import EXTENSIONS, format_of, parse_rdf
from hopgate.bundles.manifest import read_manifest
from hopgate.bundles.provdoc import PROV_FORMATS, parse_document, prov_quads
from hopgate.bundles.signing import (
    FileStatement,
    SigningKey,
    canonical_nquads,
    check_proof,
    file_statement,
    now,
    public_key_of,
    shown,
    sign_dataset,
)
from hopgate.errors import InputRefused, SigningError
from hopgate.escaping import json_data

PROOFS = "proofs.json"
#: The largest ``proofs.json`` read (a proof is under 2 KB; this allows thousands).
MAX_PROOFS_BYTES = 4 << 20
#: The most proofs one file may carry.
MAX_PROOFS_PER_FILE = 64


# ---- proofs.json ---------------------------------------------------------------------------


def read_regular(path: Path, limit: int | None) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes (None: any
    size), read through :func:`hopgate.inputs.read_regular`, the one way hopgate opens an
    input: a FIFO, a device or a directory is refused at once instead of blocking the read.

    Raises:
        SigningError: not a regular file, too large, or unreadable.
    """
    try:
        return inputs.read_regular(path, limit=limit)
    except InputRefused as exc:
        raise SigningError(f"{path.name}: {exc.detail}") from None


def plain_name(name: str) -> bool:
    """A file name an export directory may hold: no path, no control character."""
    return (
        0 < len(name) <= 255
        and "/" not in name
        and "\\" not in name
        and name.isprintable()
        and format_of(name) is not None
    )


def read_proofs(directory: Path) -> dict[str, list[Any]]:
    """File name -> its proofs, from ``proofs.json`` (empty when there is no such file).

    Raises:
        SigningError: ``proofs.json`` is not a regular file, too large, not JSON (too
            deep, a number too long), or not an object of lists of proofs per export
            file name.
    """
    path = directory / PROOFS
    if not os.path.lexists(path):
        return {}
    data = read_regular(path, MAX_PROOFS_BYTES)
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise SigningError(f"{PROOFS}: not readable JSON: {reason}") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("proofs"), dict):
        raise SigningError(f"{PROOFS}: expected an object with a 'proofs' object")
    proofs: dict[str, list[Any]] = {}
    for name, listed in parsed["proofs"].items():
        if not plain_name(name):
            raise SigningError(f"{PROOFS}: {shown(name)} is not the name of an export file")
        if not isinstance(listed, list):
            raise SigningError(f"{PROOFS}: the proofs of {shown(name)} must be a list")
        if len(listed) > MAX_PROOFS_PER_FILE:
            raise SigningError(
                f"{PROOFS}: {shown(name)} has {len(listed)} proofs (at most {MAX_PROOFS_PER_FILE})"
            )
        proofs[name] = listed
    return proofs


def write_proofs(directory: Path, proofs: dict[str, list[Any]]) -> Path:
    """Write ``proofs.json`` (atomically: a temporary file, then a rename)."""
    path = directory / PROOFS
    text = json_data({"proofs": proofs}, indent=2) + "\n"
    scratch = directory / (PROOFS + ".tmp")
    scratch.write_text(text, encoding="utf-8")
    scratch.replace(path)
    return path


# ---- the dataset of an exported file -------------------------------------------------------


def dataset_of(data: bytes, fmt: str, name: str) -> list[ox.Quad]:
    """The RDF dataset the bytes of an exported file state (what its proof's document is).

    TriG and JSON-LD are parsed by Oxigraph; a PROV-N, PROV-JSON or PROV-XML
    document is parsed by ``prov`` and mapped onto plain PROV-O quads record by
    record (:func:`~hopgate.bundles.provdoc.prov_quads`, strict). A picture
    states no dataset (its proof signs its bytes alone).

    Raises:
        SigningError: the bytes do not parse, or hold blank nodes.
    """
    if fmt not in EXTENSIONS:
        return []
    try:
        if fmt in PROV_FORMATS:
            return prov_quads(parse_document(data, fmt), strict=True)
        return _without_blank_nodes(name, parse_rdf(data, fmt))
    except SigningError:
        raise
    except Exception as exc:  # any parser's error: the file is not what was signed
        raise SigningError(f"{name}: does not parse as {fmt}: {str(exc)[:200]}") from None


def file_dataset(path: Path, fmt: str) -> list[ox.Quad]:
    """The dataset of the export file at ``path`` (see :func:`dataset_of`).

    Raises:
        SigningError: unreadable, or its bytes do not parse.
    """
    try:
        data = read_regular(path, None)
    except OSError as exc:
        raise SigningError(f"{path.name}: cannot be read: {exc.strerror or exc}") from None
    return dataset_of(data, fmt, path.name)


def _without_blank_nodes(name: str, quads: list[ox.Quad]) -> list[ox.Quad]:
    """``quads``, refused when they hold a blank node: hopgate writes none, and RDFC-1.0 on
    crafted blank nodes (a "poison" dataset) can take exponential time."""
    for quad in quads:
        if isinstance(quad.subject, ox.BlankNode) or isinstance(quad.object, ox.BlankNode):
            raise SigningError(
                f"{name}: holds blank nodes, which hopgate's exports never do (and which "
                "can make canonicalization take exponential time); not checked"
            )
    return quads


# ---- signing a directory --------------------------------------------------------------------


@dataclass(frozen=True)
class SignResult:
    """What :func:`sign_directory` signed."""

    files: list[str]
    verification_method: str
    signer: str


def _statement(name: str, entry: Any) -> FileStatement:
    """The manifest's entry of ``name`` as a proof states it, read as a verifier reads it.

    Raises:
        SigningError: the entry is not one hopgate writes.
    """
    if not isinstance(entry, dict):
        raise SigningError(f"{name}: not an export file the manifest lists")
    try:
        return file_statement({"name": name, **entry})
    except SigningError as exc:
        raise SigningError(f"{name}: its manifest entry is not one hopgate writes: {exc}") from None


def sign_directory(
    directory: Path, key: SigningKey, *, by: str, names: list[str] | None = None
) -> SignResult:
    """Sign every export file the directory's manifest lists (or only ``names``): datasets
    and pictures, each proof stating the file's bytes and manifest entry.

    A proof by the same key replaces that key's earlier proof of the file;
    proofs by other keys stay (a proof set: several people may sign).

    Raises:
        SigningError: no signer name, a file that is not an export, or one whose
            sha256 or length no longer matches the manifest (nothing is signed then).
        ManifestError: the directory has no hopgate manifest.
    """
    by = by.strip()
    if not by:
        raise SigningError("name the person signing with --by NAME (or HOPGATE_SIGNER)")
    manifest = read_manifest(directory)
    wanted = sorted(manifest["files"]) if names is None else sorted(names)
    proofs = read_proofs(directory)
    created = now()
    signed = []
    for name in wanted:
        fmt = format_of(name)
        path = directory / name
        if fmt is None or not plain_name(name) or not path.is_file():
            raise SigningError(f"{shown(name)}: not an export file the manifest lists")
        statement = _statement(name, manifest["files"].get(name))
        data = read_regular(path, None)
        # Signing attests what hopgate wrote: a file that no longer matches the manifest
        # (edited since the export) is refused, not laundered by a signature.
        if hashlib.sha256(data).hexdigest() != statement.entry.sha256 or len(data) != (
            statement.entry.bytes
        ):
            raise SigningError(
                f"{name}: its sha256 differs from the manifest's (changed since it was "
                "exported); not signing it"
            )
        proof = sign_dataset(
            key,
            dataset_of(data, fmt, name),
            signer_iri=ids.mint("agent", by),
            signer_name=by,
            created=created,
            file=statement,
        )
        kept = [
            p
            for p in proofs.get(name, [])
            if not (isinstance(p, dict) and p.get("verificationMethod") == key.verification_method)
        ]
        proofs[name] = [*kept, proof]
        signed.append(name)
    if not signed:
        raise SigningError(f"{directory}: no export file to sign")
    write_proofs(directory, proofs)
    return SignResult(signed, key.verification_method, by)


# ---- checking one file's proofs --------------------------------------------------------------


@dataclass(frozen=True)
class Signer:
    """Who made one valid proof: the name it states, its key, and whether that key is trusted."""

    name: str | None
    public_key: str
    trusted: bool

    @property
    def shown(self) -> str:
        """``Name (did:key:...)``, or the did:key alone."""
        did = f"did:key:{self.public_key}"
        return f"{self.name} ({did})" if self.name else did


@dataclass(frozen=True)
class SignedFile:
    """An export file at least one valid proof covers, and what its proofs state."""

    name: str
    statement: FileStatement
    signers: list[Signer]
    #: The named graphs (bundles) of its dataset.
    graphs: tuple[str, ...]
    #: The sha256 of its dataset's canonical N-Quads (RDFC-1.0).
    dataset_sha256: str


@dataclass
class FileCheck:
    """What checking the proofs of one file found."""

    problems: list[str]
    signed: SignedFile | None = None
    checked: int = 0
    #: The file's dataset, when it was read (so a verifier reads each file once).
    dataset: list[ox.Quad] | None = None


def check_file(
    directory: Path, name: str, listed: list[Any], *, trusted: list[str] | None
) -> FileCheck:
    """Check every proof of the file ``name`` against its bytes and its dataset.

    A proof holds when it is well formed, its signature verifies over the
    file's canonical dataset and its configuration, and the file it states is
    this one: its name, format, length and sha256. The file is signed when one
    proof holds (with ``trusted``, one by a trusted key); every proof that does
    not hold is a problem.
    """
    problems: list[str] = []
    check = FileCheck(problems=problems)
    path = directory / name
    fmt = format_of(name)
    if fmt is None or not path.is_file():
        problems.append(f"{name}: signed in {PROOFS} but missing")
        return check
    if not listed:
        problems.append(f"{name}: not signed (no proof in {PROOFS})")
        return check
    try:
        data = read_regular(path, None)
        dataset = dataset_of(data, fmt, name)
    except (OSError, SigningError) as exc:
        problems.append(f"{name}: signature not checked: {exc}")
        return check
    check.dataset = dataset
    digest = hashlib.sha256(data).hexdigest()
    document = canonical_nquads(dataset)
    signers: list[Signer] = []
    statement = None
    for index, proof in enumerate(listed, start=1):
        check.checked += 1
        try:
            options, problem = check_proof(document, proof)
        except SigningError as exc:
            problems.append(f"{name}: proof {index}: {exc}")
            continue
        public = public_key_of(options.verification_method)
        who = Signer(options.signer_name, public, trusted is not None and public in trusted)
        stated = options.file
        if problem is None and stated is None:
            problem = (
                "it does not state the file's bytes (a proof of the dataset alone, as "
                "hopgate wrote before it signed bytes); sign the directory again"
            )
        elif problem is None and stated is not None:
            problem = _not_this_file(stated, name, fmt, data, digest)
        if problem is not None:
            problems.append(f"{name}: proof by {who.shown}: {problem}")
            continue
        signers.append(who)
        statement = statement or stated
    # A file whose proofs failed has its problem already; one line says why.
    if trusted is not None and not problems and not any(s.trusted for s in signers):
        problems.append(f"{name}: no valid proof by a trusted key (--trust)")
    if signers and statement is not None:
        graphs = {q.graph_name.value for q in dataset if isinstance(q.graph_name, ox.NamedNode)}
        check.signed = SignedFile(
            name, statement, signers, tuple(sorted(graphs)), hashlib.sha256(document).hexdigest()
        )
    return check


def _not_this_file(
    stated: FileStatement, name: str, fmt: str, data: bytes, digest: str
) -> str | None:
    """What differs between the file a proof states and the file it is listed for."""
    if stated.name != name:
        return f"it signs the file {shown(stated.name)}, not this one"
    if stated.entry.format != fmt:
        return f"it signs a {shown(stated.entry.format)} file, not {fmt}"
    if stated.entry.sha256 != digest or stated.entry.bytes != len(data):
        return (
            f"the file is not the signed bytes (sha256 {digest}, {len(data):,} bytes; signed "
            f"sha256 {stated.entry.sha256}, {stated.entry.bytes:,} bytes)"
        )
    return None


__all__ = [
    "MAX_PROOFS_BYTES",
    "PROOFS",
    "FileCheck",
    "SignResult",
    "SignedFile",
    "Signer",
    "check_file",
    "dataset_of",
    "file_dataset",
    "plain_name",
    "read_proofs",
    "read_regular",
    "sign_directory",
    "write_proofs",
]
