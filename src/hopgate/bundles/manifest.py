"""The manifest written beside exported files: each file's sha256 and the versions' digests.

``manifest.json`` in the export directory lists every file written there by
``hopgate export`` (name, format, reader, scope, size, sha256) and the digest
of every source version the exports mention, so a recipient can check that
nothing was altered. It holds no time stamp: the same exports give the same
manifest bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopgate._version import __version__
from hopgate.errors import ManifestError
from hopgate.escaping import json_data
from hopgate.inputs import decode_text, open_regular, parse_json, read_regular

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class FileEntry:
    """One exported file as the manifest records it."""

    format: str
    reader: str | None
    scope: str
    with_text: bool
    bytes: int
    sha256: str


def sha256_file(path: Path) -> str:
    """The lowercase hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:  # a FIFO would hang the read
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest of an export directory.

    Raises:
        ManifestError: no manifest, not JSON, or not a hopgate manifest.
    """
    path = directory / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{directory}: no {MANIFEST} (not a hopgate export directory)")
    try:
        data = parse_json(decode_text(read_regular(path)), strict=False)
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: not a readable JSON manifest: {exc}") from None
    if not isinstance(data, dict) or data.get("manifest") != MANIFEST_VERSION:
        raise ManifestError(f"{path}: not a hopgate manifest (field 'manifest' must be 1)")
    if not isinstance(data.get("files"), dict) or not isinstance(data.get("versions"), dict):
        raise ManifestError(f"{path}: field 'files' and 'versions' must be objects")
    return data


def record_file(path: Path, entry: FileEntry, versions: dict[str, str]) -> Path:
    """Add (or replace) ``path``'s entry in the manifest of its directory; return the manifest.

    ``versions`` maps version ids to their digests; they join the manifest's
    list (a version's digest never changes in a store).
    """
    directory = path.parent
    manifest_path = directory / MANIFEST
    data: dict[str, Any] = (
        read_manifest(directory)
        if manifest_path.exists()
        else {"manifest": MANIFEST_VERSION, "files": {}, "versions": {}}
    )
    data["generator"] = f"hopgate {__version__}"
    data["files"][path.name] = entry.__dict__
    data["versions"].update(versions)
    text = json_data(data, indent=2) + "\n"
    manifest_path.write_text(text, encoding="utf-8")
    return manifest_path
