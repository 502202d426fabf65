"""Provenance bundles out: reader-filtered, deterministic, verifiable exports of the store.

:func:`export_bundle` resolves what to export (:mod:`.scope`), reads its quads
filtered for the reader with SPARQL (:mod:`.quads`) and serialises them
(:mod:`.formats`: TriG and JSON-LD by Oxigraph, PROV-N, PROV-JSON and PROV-XML
through a ``prov`` document built from the same quads, :mod:`.provdoc`).
:func:`write_export` writes the bytes and records them in the directory's
manifest (:mod:`.manifest`), which :func:`hopgate.bundles.verify.verify` checks.
Pictures of one acceptance card are in :mod:`.picture`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from hopgate import progress
from hopgate.bundles.formats import EXTENSIONS, PICTURE_EXTENSIONS, serialize
from hopgate.bundles.manifest import FileEntry, read_manifest, record_file, sha256_file
from hopgate.bundles.quads import ExportQuads, export_quads
from hopgate.bundles.scope import Scope, resolve_scope
from hopgate.errors import ExportError
from hopgate.store import Store
from hopgate.vocab import HG, RDF_TYPE

FORMATS = tuple(EXTENSIONS)


@dataclass(frozen=True)
class Export:
    """The bytes of one export and what they hold."""

    data: bytes
    format: str
    scope: Scope
    with_text: bool
    versions: dict[str, str] = field(default_factory=dict)
    #: The file written (:func:`write_export`), None while only in memory.
    path: Path | None = None
    #: Who signed the written file (``hopgate export --sign``), None when unsigned.
    signer: str | None = None


def version_digests(quads: ExportQuads) -> dict[str, str]:
    """Ledger id -> digest of every version the exported quads describe.

    Only the lines that can state a version's type, ledger id or digest are
    parsed (a line naming one of those IRIs anywhere); each parsed quad is then
    read by its terms, so a literal quoting such an IRI is read as a literal.
    """
    markers = (f"<{HG}Version>".encode(), f"<{HG}ledgerId>".encode(), f"<{HG}digest>".encode())
    found = b"".join(line for line in quads.lines if any(m in line for m in markers))
    versions: set[str] = set()
    ledger_ids: dict[str, str] = {}
    digests: dict[str, str] = {}
    for quad in ox.parse(found, format=ox.RdfFormat.N_QUADS):
        subject = str(quad.subject.value)
        predicate, obj = quad.predicate.value, quad.object
        if predicate == RDF_TYPE and obj == ox.NamedNode(HG + "Version"):
            versions.add(subject)
        elif predicate == HG + "ledgerId" and isinstance(obj, ox.Literal):
            ledger_ids[subject] = obj.value
        elif predicate == HG + "digest" and isinstance(obj, ox.Literal):
            digests[subject] = obj.value
    return {ledger_ids.get(v, v): digests[v] for v in sorted(versions) if v in digests}


def export_bundle(
    store: Store,
    *,
    format: str,
    run: str | None = None,
    evaluation: str | None = None,
    graph: str | None = None,
    card: str | None = None,
    reader: str | None = None,
    with_text: bool = False,
) -> Export:
    """Export bundles of the store as ``reader`` may see them, in ``format`` (see FORMATS).

    Choose at most one of ``run`` (its latest evaluation and the loads it
    used), ``evaluation`` (an evaluation activity id, ``RUN@TIME``), ``graph``
    (one bundle's IRI) or ``card`` (the evaluation holding that card); none
    exports every bundle. Without ``reader``, the export is for the reader of
    the evaluation(s) it holds. Version texts leave only with ``with_text``.

    Raises:
        ExportError: an unknown format, scope or reader, or an ambiguous reader.
    """
    if format not in EXTENSIONS:
        raise ExportError(f"unknown export format {format!r} (one of {', '.join(FORMATS)})")
    scope = resolve_scope(
        store, run=run, evaluation=evaluation, graph=graph, card=card, reader=reader
    )
    with progress.phase(f"export {scope.description}: select quads for {scope.reader}"):
        quads = export_quads(store, scope, with_text=with_text)
    with progress.phase(f"export: write {format}", len(quads.lines), unit="quads") as step:
        data = serialize(quads, format)
        step(len(quads.lines))
    return Export(data, format, scope, with_text, version_digests(quads))


def output_path(path: Path, fmt: str) -> Path:
    """Where an export goes: ``path`` itself when it names a file of a known kind, else
    ``path/export<extension>`` (a directory).

    Raises:
        ExportError: ``path`` names a file of another format (``-o x.provn --format
            trig``), or an existing directory is named like a file.
    """
    extensions = {**EXTENSIONS, **PICTURE_EXTENSIONS}
    named = [f for f, ext in extensions.items() if path.name.endswith(ext)]
    # ".prov.json" also ends in ".json"-like names; the longest extension decides.
    named.sort(key=lambda f: len(extensions[f]), reverse=True)
    if named and not path.is_dir():
        if named[0] != fmt:
            raise ExportError(
                f"{path}: the name says {named[0]}, but --format is {fmt} "
                f"(name the file *{extensions[fmt]} or give a directory)"
            )
        return path
    return path / f"export{extensions[fmt]}"


def write_file(target: Path, data: bytes) -> None:
    """Write ``data`` at ``target`` atomically (a temporary file beside it, then a rename).

    Raises:
        ExportError: the target is a directory or cannot be written.
    """
    if target.is_dir():
        raise ExportError(f"{target}: is a directory")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = target.with_name(f".{target.name}.tmp")
        scratch.write_bytes(data)
        scratch.replace(target)
    except OSError as exc:
        raise ExportError(f"{target}: cannot write: {exc.strerror or exc}") from None


def write_export(export: Export, path: Path) -> Path:
    """Write ``export`` at ``path`` (see :func:`output_path`) and record it in the manifest.

    The directory's manifest is read first: a foreign ``manifest.json`` stops
    the export before any file is written.

    Raises:
        ExportError: the target cannot be written.
        ManifestError: the directory holds a manifest that is not hopgate's.
    """
    target = output_path(path, export.format)
    if (target.parent / "manifest.json").exists():
        read_manifest(target.parent)
    write_file(target, export.data)
    record_file(
        target,
        FileEntry(
            format=export.format,
            reader=export.scope.reader,
            scope=export.scope.description,
            with_text=export.with_text,
            bytes=len(export.data),
            sha256=sha256_file(target),
        ),
        export.versions,
    )
    return target


__all__ = [
    "FORMATS",
    "Export",
    "export_bundle",
    "output_path",
    "version_digests",
    "write_export",
    "write_file",
]
