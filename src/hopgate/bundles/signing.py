"""Signed bundles: Data Integrity proofs of the ``eddsa-rdfc-2022`` cryptosuite.

W3C "Data Integrity EdDSA Cryptosuites v1.0", section 3.3 (eddsa-rdfc-2022):
the signed document and the proof configuration (the proof without its
``proofValue``) are each canonicalized with RDFC-1.0 into N-Quads (Oxigraph
canonicalizes), each hashed with SHA-256, and the Ed25519 signature is taken
over ``SHA-256(proof configuration) || SHA-256(document)``. The proof value is
that signature in multibase base58btc (``z...``). Keys are Multikeys:
``z`` + base58btc of the multicodec prefix (``ed01`` public, ``8026`` private)
and the 32 key bytes; the verification method is the ``did:key`` of the
public key.

hopgate signs each exported file's dataset: the quads of a TriG or JSON-LD
file as parsed, and for PROV-N, PROV-JSON and PROV-XML the plain PROV-O
dataset of the document's records (:func:`file_dataset`). The proofs of a directory are kept in
``proofs.json`` beside the manifest (a list per file: several people may sign),
so a proof does not depend on the manifest, and the manifest's sha256 is not
what an attacker must forge. Besides the standard proof options, the proof
configuration names the signer: ``prov:wasAttributedTo`` a ``prov:Person`` with
a ``foaf:name``; being inside the signed configuration, the name cannot be
changed without breaking the signature.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hopgate import ids
from hopgate.bundles.formats import EXTENSIONS, format_of, parse_rdf
from hopgate.bundles.manifest import read_manifest, sha256_file
from hopgate.bundles.provdoc import PROV_FORMATS, parse_document, prov_quads
from hopgate.errors import SigningError
from hopgate.vocab import PROV, RDF, XSD

SECURITY = "https://w3id.org/security#"
FOAF = "http://xmlns.com/foaf/0.1/"
DCTERMS_CREATED = "http://purl.org/dc/terms/created"
CRYPTOSUITE = "eddsa-rdfc-2022"
PROOFS = "proofs.json"
#: Multicodec prefixes (varint) of Ed25519 public and private keys.
ED25519_PUBLIC = b"\xed\x01"
ED25519_PRIVATE = b"\x80\x26"

_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_INDEX = {ch: i for i, ch in enumerate(_ALPHABET)}


# ---- multibase base58btc ---------------------------------------------------------------


def b58encode(data: bytes) -> str:
    """Base58 (Bitcoin alphabet) of ``data``; each leading zero byte is a ``1``."""
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, rest = divmod(number, 58)
        digits.append(_ALPHABET[rest])
    zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * zeros + "".join(reversed(digits))


def b58decode(text: str) -> bytes:
    """The bytes of a base58 (Bitcoin alphabet) string.

    Raises:
        SigningError: a character outside the alphabet.
    """
    number = 0
    for ch in text:
        if ch not in _INDEX:
            raise SigningError(f"not base58btc: unexpected character {ch!r}")
        number = number * 58 + _INDEX[ch]
    zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * zeros + body


def _multikey(prefix: bytes, raw: bytes) -> str:
    return "z" + b58encode(prefix + raw)


def _unmultikey(value: str, prefix: bytes, what: str) -> bytes:
    if not value.startswith("z"):
        raise SigningError(f"{what}: expected a multibase base58btc value starting with 'z'")
    data = b58decode(value[1:])
    if not data.startswith(prefix) or len(data) != len(prefix) + 32:
        raise SigningError(
            f"{what}: not an Ed25519 Multikey (expected the prefix {prefix.hex()} and 32 bytes)"
        )
    return data[len(prefix) :]


# ---- keys ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SigningKey:
    """An Ed25519 key pair, with its Multikey and ``did:key`` spellings."""

    private: Ed25519PrivateKey

    @classmethod
    def from_multibase(cls, value: str) -> SigningKey:
        """The key pair of a ``privateKeyMultibase`` / ``secretKeyMultibase`` value."""
        seed = _unmultikey(value, ED25519_PRIVATE, "private key")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @property
    def public_multibase(self) -> str:
        """The public key as a Multikey value (``z6Mk...``)."""
        raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return _multikey(ED25519_PUBLIC, raw)

    @property
    def private_multibase(self) -> str:
        """The private key (the 32-byte seed) as a Multikey value."""
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        raw = self.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return _multikey(ED25519_PRIVATE, raw)

    @property
    def verification_method(self) -> str:
        """``did:key:<multikey>#<multikey>``, the proof's verificationMethod."""
        return verification_method(self.public_multibase)


def verification_method(public_multibase: str) -> str:
    """The ``did:key`` verification method of an Ed25519 public Multikey."""
    return f"did:key:{public_multibase}#{public_multibase}"


def public_key_of(method: str) -> str:
    """The public Multikey a ``did:key`` verification method (or a bare did:key) names.

    Raises:
        SigningError: not a did:key of an Ed25519 key.
    """
    did = method.split("#", 1)[0]
    if not did.startswith("did:key:"):
        raise SigningError(f"verification method {method!r} is not a did:key")
    value = did.removeprefix("did:key:")
    _unmultikey(value, ED25519_PUBLIC, f"verification method {method!r}")
    return value


def new_key() -> SigningKey:
    """A fresh Ed25519 key pair."""
    return SigningKey(Ed25519PrivateKey.generate())


def write_key(key: SigningKey, path: Path) -> tuple[Path, Path]:
    """Write the private key at ``path`` (mode 0600) and the public key at ``path.pub``.

    Neither file may exist already (a key is never overwritten).

    Raises:
        SigningError: a file exists or cannot be written.
    """
    public_path = path.with_name(path.name + ".pub")
    for target in (path, public_path):
        if target.exists():
            raise SigningError(f"{target}: exists; a key is never overwritten")
    if not path.parent.is_dir():
        raise SigningError(f"{path.parent}: no such directory")
    private = {
        "type": "Multikey",
        "controller": f"did:key:{key.public_multibase}",
        "publicKeyMultibase": key.public_multibase,
        "secretKeyMultibase": key.private_multibase,
    }
    public = {
        "type": "Multikey",
        "id": key.verification_method,
        "controller": f"did:key:{key.public_multibase}",
        "publicKeyMultibase": key.public_multibase,
    }
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(private, indent=2) + "\n")
        with public_path.open("x", encoding="utf-8") as handle:
            handle.write(json.dumps(public, indent=2) + "\n")
    except OSError as exc:
        raise SigningError(f"cannot write the key: {exc}") from None
    return path, public_path


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read
            raise SigningError(f"{path}: not a regular file")
        if path.stat().st_size > 1 << 16:
            raise SigningError(f"{path}: too large for a {what} file")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SigningError(f"{path}: not a readable {what} file: {exc}") from None
    if not isinstance(data, dict):
        raise SigningError(f"{path}: not a {what} file (expected a JSON object)")
    return data


def read_private_key(path: Path) -> SigningKey:
    """The key pair in a private key file written by :func:`write_key`.

    Raises:
        SigningError: unreadable, readable by others than its owner, or not an Ed25519 key.
    """
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise SigningError(f"{path}: cannot read the key: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise SigningError(f"{path}: not a regular file")
    if mode & 0o077:
        raise SigningError(
            f"{path}: the private key is readable by others (mode {stat.S_IMODE(mode):o}); "
            f"chmod 600 {path}"
        )
    data = _read_json(path, "private key")
    value = data.get("secretKeyMultibase", data.get("privateKeyMultibase"))
    if not isinstance(value, str):
        raise SigningError(f"{path}: no secretKeyMultibase (is this the .pub file?)")
    key = SigningKey.from_multibase(value)
    if data.get("publicKeyMultibase", key.public_multibase) != key.public_multibase:
        raise SigningError(f"{path}: publicKeyMultibase does not belong to the private key")
    return key


def read_public_key(value: str) -> str:
    """The public Multikey named by ``value``: a ``.pub`` file, a did:key, or a Multikey.

    Raises:
        SigningError: none of these, or not an Ed25519 key.
    """
    if value.startswith("did:key:"):
        return public_key_of(value)
    if value.startswith("z6Mk") and "/" not in value and not Path(value).exists():
        _unmultikey(value, ED25519_PUBLIC, "public key")
        return value
    data = _read_json(Path(value), "public key")
    found = data.get("publicKeyMultibase")
    if not isinstance(found, str):
        raise SigningError(f"{value}: no publicKeyMultibase")
    _unmultikey(found, ED25519_PUBLIC, f"{value}: publicKeyMultibase")
    return found


# ---- canonical forms -------------------------------------------------------------------


def canonical_nquads(quads: Any) -> bytes:
    """RDFC-1.0 canonical N-Quads of a dataset: blank nodes relabelled ``_:c14nN``, lines
    sorted by code point (UTF-8 byte order is code point order)."""
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    data = ox.serialize(dataset, format=ox.RdfFormat.N_QUADS) or b""
    lines = sorted(line + b"\n" for line in data.split(b"\n") if line)
    return b"".join(lines)


@dataclass(frozen=True)
class ProofOptions:
    """A proof without its value: what the proof configuration holds."""

    created: str
    verification_method: str
    signer_iri: str | None = None
    signer_name: str | None = None
    proof_purpose: str = "assertionMethod"


def proof_configuration(options: ProofOptions) -> list[ox.Quad]:
    """The proof configuration as RDF (the proof node is a blank node, as in JSON-LD)."""
    proof = ox.BlankNode("proof")
    graph = ox.DefaultGraph()

    def quad(s: Any, p: str, o: Any) -> ox.Quad:
        return ox.Quad(s, ox.NamedNode(p), o, graph)

    quads = [
        quad(proof, RDF + "type", ox.NamedNode(SECURITY + "DataIntegrityProof")),
        quad(
            proof,
            SECURITY + "cryptosuite",
            ox.Literal(CRYPTOSUITE, datatype=ox.NamedNode(SECURITY + "cryptosuiteString")),
        ),
        quad(
            proof,
            DCTERMS_CREATED,
            ox.Literal(options.created, datatype=ox.NamedNode(XSD + "dateTime")),
        ),
        quad(proof, SECURITY + "proofPurpose", ox.NamedNode(SECURITY + options.proof_purpose)),
        quad(proof, SECURITY + "verificationMethod", ox.NamedNode(options.verification_method)),
    ]
    if options.signer_iri is not None:
        signer = ox.NamedNode(options.signer_iri)
        quads += [
            quad(proof, PROV + "wasAttributedTo", signer),
            quad(signer, RDF + "type", ox.NamedNode(PROV + "Person")),
            quad(signer, RDF + "type", ox.NamedNode(PROV + "Agent")),
        ]
        if options.signer_name is not None:
            quads.append(quad(signer, FOAF + "name", ox.Literal(options.signer_name)))
    return quads


def hash_data(document: bytes, configuration: bytes) -> bytes:
    """SHA-256 of the canonical proof configuration, then of the canonical document."""
    return hashlib.sha256(configuration).digest() + hashlib.sha256(document).digest()


def sign_canonical(key: SigningKey, document: bytes, configuration: bytes) -> str:
    """The proofValue (multibase base58btc) signing two canonical N-Quads documents."""
    return "z" + b58encode(key.private.sign(hash_data(document, configuration)))


def check_canonical(
    public_multibase: str, document: bytes, configuration: bytes, proof_value: str
) -> bool:
    """True when ``proof_value`` is the Ed25519 signature of the two canonical documents."""
    raw = _unmultikey(public_multibase, ED25519_PUBLIC, "public key")
    if not proof_value.startswith("z"):
        return False
    try:
        signature = b58decode(proof_value[1:])
        Ed25519PublicKey.from_public_bytes(raw).verify(
            signature, hash_data(document, configuration)
        )
    except (InvalidSignature, SigningError, ValueError):
        return False
    return True


# ---- proofs as JSON (the Data Integrity proof object) ------------------------------------


def proof_object(options: ProofOptions, proof_value: str) -> dict[str, Any]:
    """The proof as the JSON object Data Integrity writes (plus hopgate's signer)."""
    proof: dict[str, Any] = {
        "type": "DataIntegrityProof",
        "cryptosuite": CRYPTOSUITE,
        "created": options.created,
        "verificationMethod": options.verification_method,
        "proofPurpose": options.proof_purpose,
    }
    if options.signer_iri is not None:
        proof["signer"] = {"id": options.signer_iri, "type": "Person", "name": options.signer_name}
    proof["proofValue"] = proof_value
    return proof


def options_of(proof: Any) -> tuple[ProofOptions, str]:
    """The options and the proofValue of a proof object read from ``proofs.json``.

    Raises:
        SigningError: a field is missing or of the wrong kind, or another cryptosuite.
    """
    if not isinstance(proof, dict):
        raise SigningError("a proof must be a JSON object")
    for name in ("type", "cryptosuite", "created", "verificationMethod", "proofValue"):
        if not isinstance(proof.get(name), str):
            raise SigningError(f"proof field {name!r} is missing or not a string")
    if proof["type"] != "DataIntegrityProof" or proof["cryptosuite"] != CRYPTOSUITE:
        raise SigningError(
            f"unsupported proof {proof['type']}/{proof['cryptosuite']} (expected "
            f"DataIntegrityProof/{CRYPTOSUITE})"
        )
    signer = proof.get("signer")
    signer_iri: str | None = None
    signer_name: str | None = None
    if signer is not None:
        if not isinstance(signer, dict) or not isinstance(signer.get("id"), str):
            raise SigningError("proof field 'signer' must be an object with an 'id'")
        signer_iri = str(signer["id"])
        written = signer.get("name")
        signer_name = written if isinstance(written, str) else None
    purpose = proof.get("proofPurpose", "assertionMethod")
    if not isinstance(purpose, str):
        raise SigningError("proof field 'proofPurpose' is not a string")
    options = ProofOptions(
        created=proof["created"],
        verification_method=proof["verificationMethod"],
        signer_iri=signer_iri,
        signer_name=signer_name,
        proof_purpose=purpose,
    )
    return options, proof["proofValue"]


def now() -> str:
    """The current UTC time as an ``xsd:dateTime`` to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sign_dataset(
    key: SigningKey, quads: Any, *, signer_iri: str, signer_name: str, created: str | None = None
) -> dict[str, Any]:
    """A Data Integrity proof (eddsa-rdfc-2022) of the dataset ``quads``, naming its signer."""
    options = ProofOptions(
        created=created or now(),
        verification_method=key.verification_method,
        signer_iri=signer_iri,
        signer_name=signer_name,
    )
    document = canonical_nquads(quads)
    configuration = canonical_nquads(proof_configuration(options))
    return proof_object(options, sign_canonical(key, document, configuration))


def check_dataset(quads: Any, proof: Any) -> str | None:
    """None when ``proof`` verifies over the dataset ``quads``; else what failed."""
    try:
        options, value = options_of(proof)
        public = public_key_of(options.verification_method)
    except SigningError as exc:
        return str(exc)
    document = canonical_nquads(quads)
    configuration = canonical_nquads(proof_configuration(options))
    if not check_canonical(public, document, configuration, value):
        return "signature does not verify: the dataset or the proof changed since it was signed"
    return None


# ---- the dataset of an exported file -----------------------------------------------------


def file_dataset(path: Path, fmt: str) -> list[ox.Quad]:
    """The RDF dataset an exported file states (what its proof signs).

    TriG and JSON-LD are parsed by Oxigraph; a PROV-N, PROV-JSON or PROV-XML
    document is parsed by ``prov`` and mapped onto plain PROV-O quads record by
    record (:func:`hopgate.bundles.verify.prov_quads`, strict: a record it cannot
    map in full is refused, so nothing in the file escapes the signature).

    Raises:
        SigningError: the file does not parse, or is not an RDF or PROV format.
    """

    try:
        data = path.read_bytes()
        if fmt in ("trig", "jsonld"):
            return _without_blank_nodes(path, parse_rdf(data, fmt))
        if fmt in PROV_FORMATS:
            return prov_quads(parse_document(data, fmt), strict=True)
    except SigningError:
        raise
    except Exception as exc:  # any parser's error: the file is not what was signed
        raise SigningError(f"{path.name}: does not parse as {fmt}: {exc}") from None
    raise SigningError(f"{path.name}: a {fmt} file is not an RDF dataset; it cannot be signed")


def _without_blank_nodes(path: Path, quads: list[ox.Quad]) -> list[ox.Quad]:
    """``quads``, refused when they hold a blank node: hopgate writes none, and RDFC-1.0 on
    crafted blank nodes (a "poison" dataset) can take exponential time."""
    for quad in quads:
        if isinstance(quad.subject, ox.BlankNode) or isinstance(quad.object, ox.BlankNode):
            raise SigningError(
                f"{path.name}: holds blank nodes, which hopgate's exports never do (and which "
                "can make canonicalization take exponential time); not checked"
            )
    return quads


# ---- the proofs of an export directory ----------------------------------------------------


def read_proofs(directory: Path) -> dict[str, list[Any]]:
    """File name -> its proofs, from ``proofs.json`` (empty when the directory is unsigned).

    Raises:
        SigningError: ``proofs.json`` is unreadable or malformed.
    """
    path = directory / PROOFS
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SigningError(f"{path}: not readable JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("proofs"), dict):
        raise SigningError(f"{path}: expected an object with a 'proofs' object")
    proofs: dict[str, list[Any]] = {}
    for name, listed in data["proofs"].items():
        if not isinstance(listed, list):
            raise SigningError(f"{path}: the proofs of {name!r} must be a list")
        proofs[str(name)] = listed
    return proofs


def write_proofs(directory: Path, proofs: dict[str, list[Any]]) -> Path:
    """Write ``proofs.json`` (atomically: a temporary file, then a rename)."""
    path = directory / PROOFS
    text = json.dumps({"proofs": proofs}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    scratch = directory / (PROOFS + ".tmp")
    scratch.write_text(text, encoding="utf-8")
    scratch.replace(path)
    return path


def signed_formats() -> dict[str, str]:
    """Format -> file name extension of the files a signature covers (RDF and PROV formats)."""

    return dict(EXTENSIONS)


@dataclass(frozen=True)
class SignResult:
    """What :func:`sign_directory` signed."""

    files: list[str]
    verification_method: str
    signer: str


def sign_directory(
    directory: Path, key: SigningKey, *, by: str, names: list[str] | None = None
) -> SignResult:
    """Sign every export file the directory's manifest lists (or only ``names``).

    A proof by the same key replaces that key's earlier proof of the file;
    proofs by other keys stay (a proof set: several people may sign).

    Raises:
        SigningError: no signer name, a file that is not an RDF or PROV export, or
            one whose sha256 no longer matches the manifest (nothing is signed then).
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
        if fmt is None or fmt not in signed_formats():
            continue  # pictures are not datasets
        entry = manifest["files"].get(name)
        path = directory / name
        # Signing attests what hopgate wrote: a file that no longer matches the manifest
        # (edited since the export) is refused, not laundered by a signature.
        if not isinstance(entry, dict) or not path.is_file():
            raise SigningError(f"{name}: not an export file the manifest lists")
        if sha256_file(path) != entry.get("sha256"):
            raise SigningError(
                f"{name}: its sha256 differs from the manifest's (changed since it was "
                "exported); not signing it"
            )
        dataset = file_dataset(path, fmt)
        proof = sign_dataset(
            key, dataset, signer_iri=ids.mint("agent", by), signer_name=by, created=created
        )
        kept = [
            p
            for p in proofs.get(name, [])
            if not (isinstance(p, dict) and p.get("verificationMethod") == key.verification_method)
        ]
        proofs[name] = [*kept, proof]
        signed.append(name)
    if not signed:
        raise SigningError(f"{directory}: no RDF or PROV export file to sign")
    write_proofs(directory, proofs)
    return SignResult(signed, key.verification_method, by)


__all__ = [
    "CRYPTOSUITE",
    "PROOFS",
    "ProofOptions",
    "SignResult",
    "SigningKey",
    "canonical_nquads",
    "check_canonical",
    "check_dataset",
    "file_dataset",
    "new_key",
    "proof_configuration",
    "read_private_key",
    "read_proofs",
    "read_public_key",
    "sign_canonical",
    "sign_dataset",
    "sign_directory",
    "verification_method",
    "write_key",
]
