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

hopgate signs each exported file twice over in one proof (:mod:`.proofs`): the
document is the file's dataset (the quads of a TriG or JSON-LD file as parsed;
for PROV-N, PROV-JSON and PROV-XML the plain PROV-O dataset of the document's
records; none for a picture), and the proof configuration states the file
itself (:class:`FileStatement`: its name, the sha256 and length of its exact
bytes, and its manifest entry: format, reader, scope, with or without texts).
So a proof holds the exact bytes: a foreign XML attribute, an unmapped JSON-LD
key or a differently spelled literal, which a dataset cannot see, break it as
surely as a changed quad. The signer is named in the configuration too:
``prov:wasAttributedTo`` a ``prov:Person`` with a ``foaf:name``; being inside
the signed configuration, the name cannot be changed without breaking the
signature.

A proof read back (:func:`options_of`) is checked field by field before any
of it is used: every field is of its kind and size, every IRI is an IRI, and
a field hopgate does not sign is refused (it could say anything, unsigned).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from hopgate.bundles.formats import EXTENSIONS, PICTURE_EXTENSIONS
from hopgate.bundles.manifest import FileEntry
from hopgate.errors import SigningError
from hopgate.inputs import parse_json
from hopgate.shacl.lexical import well_formed
from hopgate.times import xsd_datetime
from hopgate.vocab import HG, PROV, RDF_TYPE, XSD

SECURITY = "https://w3id.org/security#"
FOAF = "http://xmlns.com/foaf/0.1/"
DCTERMS_CREATED = "http://purl.org/dc/terms/created"
CRYPTOSUITE = "eddsa-rdfc-2022"
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
    try:
        data = b58decode(value[1:])
    except SigningError as exc:
        raise SigningError(f"{what}: {exc}") from None
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
        raw = self.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return _multikey(ED25519_PRIVATE, raw)

    @property
    def verification_method(self) -> str:
        """``did:key:<multikey>#<multikey>``, the proof's verificationMethod."""
        return verification_method(self.public_multibase)


@dataclass(frozen=True)
class WrittenKey(SigningKey):
    """A new key pair (:class:`SigningKey`) and the two files ``hopgate keys new`` wrote
    it to (:func:`write_key`; given as ``hopgate.api.WrittenKey``)."""

    #: The private key's file (mode 0600).
    private_file: Path
    #: The public key's file, ``<private_file>.pub``.
    public_file: Path


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

    Neither file may exist already (a key is never overwritten). A missing
    folder is made, readable by its owner only (``-o ~/.hopgate/ann.key`` on a
    fresh home, as the README writes it).

    Raises:
        SigningError: a file exists, or it or its folder cannot be written.
    """
    public_path = path.with_name(path.name + ".pub")
    for target in (path, public_path):
        if target.exists():
            raise SigningError(f"{target}: exists; a key is never overwritten")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise SigningError(f"{path.parent}: cannot make the key's folder: {exc}") from None
    if not path.parent.is_dir():
        raise SigningError(f"{path.parent}: not a directory")
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
        data = parse_json(path.read_text(encoding="utf-8"), strict=False)
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
    data = _read_json(path, "private key")
    value = data.get("secretKeyMultibase", data.get("privateKeyMultibase"))
    # Whether it holds a private key at all first: the .pub file given by mistake was
    # told to be made private (chmod 600) before being called the wrong file (user trial).
    if not isinstance(value, str):
        raise SigningError(f"{path}: no secretKeyMultibase (is this the .pub file?)")
    if mode & 0o077:
        raise SigningError(
            f"{path}: the private key is readable by others (mode {stat.S_IMODE(mode):o}); "
            f"chmod 600 {path}"
        )
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
    sorted by code point (UTF-8 byte order is code point order).

    A dataset without blank nodes (every export hopgate writes) has nothing to
    relabel: its canonical form is its quads in canonical N-Quads, each once,
    sorted, which Oxigraph's writer gives without building and canonicalizing
    a dataset (at 10k claims, 2.3M quads: about 8 s against 38 s).
    """
    quads = list(quads)
    if any(
        not _ground(q.subject) or not _ground(q.object) or not _ground(q.graph_name) for q in quads
    ):
        dataset = ox.Dataset(quads)
        dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
        quads = list(dataset)
    data = ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b""
    lines = sorted({line + b"\n" for line in data.split(b"\n") if line})
    return b"".join(lines)


def _ground(term: Any) -> bool:
    """Whether ``term`` holds no blank node (an IRI, a literal, the default graph)."""
    return isinstance(term, (ox.NamedNode, ox.Literal, ox.DefaultGraph))


@dataclass(frozen=True)
class FileStatement:
    """What a proof states about the file it signs: its name and its manifest entry (format,
    reader, scope, with or without texts, and the length and sha256 of its exact bytes)."""

    name: str
    entry: FileEntry

    def as_json(self) -> dict[str, Any]:
        """The statement as the proof object's ``file`` field."""
        return {"name": self.name, **self.entry.__dict__}


@dataclass(frozen=True)
class ProofOptions:
    """A proof without its value: what the proof configuration holds."""

    created: str
    verification_method: str
    signer_iri: str | None = None
    signer_name: str | None = None
    proof_purpose: str = "assertionMethod"
    file: FileStatement | None = None


def proof_configuration(options: ProofOptions) -> list[ox.Quad]:
    """The proof configuration as RDF (the proof node is a blank node, as in JSON-LD)."""
    proof = ox.BlankNode("proof")
    graph = ox.DefaultGraph()

    def quad(s: Any, p: str, o: Any) -> ox.Quad:
        return ox.Quad(s, ox.NamedNode(p), o, graph)

    quads = [
        quad(proof, RDF_TYPE, ox.NamedNode(SECURITY + "DataIntegrityProof")),
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
            quad(signer, RDF_TYPE, ox.NamedNode(PROV + "Person")),
            quad(signer, RDF_TYPE, ox.NamedNode(PROV + "Agent")),
        ]
        if options.signer_name is not None:
            quads.append(quad(signer, FOAF + "name", ox.Literal(options.signer_name)))
    if options.file is not None:
        quads += _file_quads(proof, options.file, quad)
    return quads


def _file_quads(proof: ox.BlankNode, statement: FileStatement, quad: Any) -> list[ox.Quad]:
    """The file a proof signs, described in its configuration (docs/spec/records.md "Signed
    exports"): the manifest's entry of it and the sha256 of its bytes."""
    file = ox.BlankNode("file")
    entry = statement.entry
    flag = "true" if entry.with_text else "false"
    quads = [
        quad(proof, HG + "signedFile", file),
        quad(file, RDF_TYPE, ox.NamedNode(HG + "ExportFile")),
        quad(file, HG + "fileName", ox.Literal(statement.name)),
        quad(file, HG + "exportFormat", ox.Literal(entry.format)),
        quad(file, HG + "exportScope", ox.Literal(entry.scope)),
        quad(file, HG + "withText", ox.Literal(flag, datatype=ox.NamedNode(XSD + "boolean"))),
        quad(
            file,
            HG + "byteSize",
            ox.Literal(str(entry.bytes), datatype=ox.NamedNode(XSD + "integer")),
        ),
        quad(file, HG + "digest", ox.Literal(f"sha256:{entry.sha256}")),
    ]
    if entry.reader is not None:
        quads.append(quad(file, HG + "exportReader", ox.Literal(entry.reader)))
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

#: The fields of a proof object hopgate reads; any other is refused, since it is not signed.
PROOF_FIELDS = (
    "type",
    "cryptosuite",
    "created",
    "verificationMethod",
    "proofPurpose",
    "proofValue",
    "signer",
    "file",
)
#: The longest text a proof field may hold (an IRI, a name, a reader, a scope).
MAX_FIELD = 2048
#: An Ed25519 signature is 64 bytes: at most 88 base58 characters after the ``z``.
MAX_PROOF_VALUE = 100
#: The longest file length a statement may give (no file is larger).
MAX_BYTES = 1 << 62
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_PURPOSE = re.compile(r"[A-Za-z]{1,64}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: Joiners some scripts need in a name; every other non-printable character is refused.
_JOINERS = {"\u200c", "\u200d"}


def proof_object(options: ProofOptions, proof_value: str) -> dict[str, Any]:
    """The proof as the JSON object Data Integrity writes (plus hopgate's signer and file)."""
    proof: dict[str, Any] = {
        "type": "DataIntegrityProof",
        "cryptosuite": CRYPTOSUITE,
        "created": options.created,
        "verificationMethod": options.verification_method,
        "proofPurpose": options.proof_purpose,
    }
    if options.signer_iri is not None:
        proof["signer"] = {"id": options.signer_iri, "type": "Person", "name": options.signer_name}
    if options.file is not None:
        proof["file"] = options.file.as_json()
    proof["proofValue"] = proof_value
    return proof


def shown(value: str, limit: int = 60) -> str:
    """``value`` quoted for one line of output: control and bidi characters escaped, cut short."""
    cut = value if len(value) <= limit else value[:limit] + "..."
    return repr(cut)


def _text(value: Any, field: str, limit: int = MAX_FIELD) -> str:
    if not isinstance(value, str):
        raise SigningError(f"proof field {field!r} is missing or not a string")
    if len(value) > limit:
        raise SigningError(f"proof field {field!r} is too long ({len(value):,} characters)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise SigningError(f"proof field {field!r} holds a lone surrogate") from None
    return value


def _iri(value: Any, field: str) -> str:
    text = _text(value, field)
    try:
        ox.NamedNode(text)
    except ValueError:
        text = ""
    if not _SCHEME.match(text):
        raise SigningError(f"proof field {field!r}: {shown(str(value))} is not an IRI")
    return text


def _fields(value: Any, field: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SigningError(f"proof field {field!r} must be a JSON object")
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise SigningError(
            f"proof field {field!r} has a field hopgate does not sign: {shown(unknown[0])}"
        )
    return value


def _signer(value: Any) -> tuple[str, str | None]:
    signer = _fields(value, "signer", ("id", "type", "name"))
    iri = _iri(signer.get("id"), "signer")
    if signer.get("type", "Person") != "Person":
        raise SigningError("proof field 'signer': its type must be 'Person'")
    name = signer.get("name")
    if name is None:
        return iri, None
    name = _text(name, "signer", 256)
    if not all(ch.isprintable() or ch in _JOINERS for ch in name):
        raise SigningError(
            f"proof field 'signer': the name {shown(name)} holds a control character"
        )
    return iri, name


def file_statement(value: Any) -> FileStatement:
    """The file a proof's ``file`` field states, checked field by field.

    Raises:
        SigningError: a field missing, unknown, or of the wrong kind or size.
    """
    names = ("name", "format", "reader", "scope", "with_text", "bytes", "sha256")
    file = _fields(value, "file", names)
    missing = [name for name in names if name not in file]
    if missing:
        raise SigningError(f"proof field 'file' lacks {missing[0]!r}")
    name = _text(file["name"], "file", 255)
    if "/" in name or "\\" in name or not name.isprintable() or name in (".", ".."):
        raise SigningError(f"proof field 'file': {shown(name)} is not a file name")
    formats = {**EXTENSIONS, **PICTURE_EXTENSIONS}
    if file["format"] not in formats:
        raise SigningError(f"proof field 'file': {shown(str(file['format']))} is not a format")
    reader = None if file["reader"] is None else _text(file["reader"], "file")
    size = file["bytes"]
    if type(size) is not int or not 0 <= size <= MAX_BYTES:
        raise SigningError("proof field 'file': its bytes must be a whole number of bytes")
    if type(file["with_text"]) is not bool:
        raise SigningError("proof field 'file': its with_text must be true or false")
    digest = _text(file["sha256"], "file", 64)
    if not _SHA256.fullmatch(digest):
        raise SigningError("proof field 'file': its sha256 must be 64 lowercase hex digits")
    entry = FileEntry(
        format=str(file["format"]),
        reader=reader,
        scope=_text(file["scope"], "file"),
        with_text=file["with_text"],
        bytes=size,
        sha256=digest,
    )
    return FileStatement(name, entry)


def options_of(proof: Any) -> tuple[ProofOptions, str]:
    """The options and the proofValue of a proof object read from ``proofs.json``.

    Every field is checked before it is used (a proof file is attacker-controlled):
    its kind, its size, an IRI where the configuration needs one.

    Raises:
        SigningError: a field missing, of the wrong kind or size, not an IRI, not one
            hopgate signs, or another cryptosuite; the message names the field.
    """
    if not isinstance(proof, dict):
        raise SigningError("a proof must be a JSON object")
    unknown = sorted(str(name) for name in proof if name not in PROOF_FIELDS)
    if unknown:
        raise SigningError(
            f"proof field {shown(unknown[0])} is not one hopgate signs (an unsigned field "
            "could say anything)"
        )
    kind = _text(proof.get("type"), "type", 64)
    suite = _text(proof.get("cryptosuite"), "cryptosuite", 64)
    if kind != "DataIntegrityProof" or suite != CRYPTOSUITE:
        raise SigningError(
            f"unsupported proof {shown(kind)}/{shown(suite)} (expected "
            f"DataIntegrityProof/{CRYPTOSUITE})"
        )
    created = _text(proof.get("created"), "created", 64)
    if not well_formed(created, XSD + "dateTime"):
        raise SigningError(f"proof field 'created': {shown(created)} is not an xsd:dateTime")
    method = _iri(proof.get("verificationMethod"), "verificationMethod")
    try:
        public_key_of(method)
    except SigningError:
        raise SigningError(
            f"proof field 'verificationMethod': {shown(method)} is not the did:key of an "
            "Ed25519 key"
        ) from None
    purpose = _text(proof.get("proofPurpose", "assertionMethod"), "proofPurpose", 64)
    if not _PURPOSE.fullmatch(purpose):
        raise SigningError(f"proof field 'proofPurpose': {shown(purpose)} is not a purpose")
    value = _text(proof.get("proofValue"), "proofValue", MAX_PROOF_VALUE)
    if not value.startswith("z") or any(ch not in _INDEX for ch in value[1:]):
        raise SigningError("proof field 'proofValue' is not multibase base58btc ('z...')")
    signer_iri, signer_name = _signer(proof["signer"]) if "signer" in proof else (None, None)
    statement = file_statement(proof["file"]) if "file" in proof else None
    options = ProofOptions(
        created=created,
        verification_method=method,
        signer_iri=signer_iri,
        signer_name=signer_name,
        proof_purpose=purpose,
        file=statement,
    )
    return options, value


def now() -> str:
    """The current UTC time as an ``xsd:dateTime`` to the second."""
    return xsd_datetime(seconds_only=True)


def sign_dataset(
    key: SigningKey,
    quads: Any,
    *,
    signer_iri: str,
    signer_name: str,
    created: str | None = None,
    file: FileStatement | None = None,
) -> dict[str, Any]:
    """A Data Integrity proof (eddsa-rdfc-2022) of the dataset ``quads``, naming its signer
    and, with ``file``, the file whose dataset it is (its bytes' sha256 among the rest)."""
    options = ProofOptions(
        created=created or now(),
        verification_method=key.verification_method,
        signer_iri=signer_iri,
        signer_name=signer_name,
        file=file,
    )
    document = canonical_nquads(quads)
    configuration = canonical_nquads(proof_configuration(options))
    return proof_object(options, sign_canonical(key, document, configuration))


def check_proof(document: bytes, proof: Any) -> tuple[ProofOptions, str | None]:
    """Check ``proof`` over a canonical N-Quads document: its options, and None when it
    verifies (else what failed).

    Raises:
        SigningError: the proof is malformed (:func:`options_of`).
    """
    options, value = options_of(proof)
    public = public_key_of(options.verification_method)
    configuration = canonical_nquads(proof_configuration(options))
    if not check_canonical(public, document, configuration, value):
        return options, (
            "signature does not verify: the dataset or the proof changed since it was signed"
        )
    return options, None


def check_dataset(quads: Any, proof: Any) -> str | None:
    """None when ``proof`` verifies over the dataset ``quads``; else what failed."""
    try:
        return check_proof(canonical_nquads(quads), proof)[1]
    except SigningError as exc:
        return str(exc)


__all__ = [
    "CRYPTOSUITE",
    "FileStatement",
    "ProofOptions",
    "SigningKey",
    "canonical_nquads",
    "check_canonical",
    "check_dataset",
    "check_proof",
    "file_statement",
    "new_key",
    "options_of",
    "proof_configuration",
    "read_private_key",
    "read_public_key",
    "sign_canonical",
    "sign_dataset",
    "verification_method",
    "write_key",
]
