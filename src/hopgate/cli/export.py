"""``hopgate export``, ``verify``, ``keys`` and ``sign``: provenance bundles out, signed and checked."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hopgate import api
from hopgate.bundles.export import FORMATS, export_bundle, output_path, write_export, write_file
from hopgate.bundles.formats import PICTURE_EXTENSIONS
from hopgate.bundles.manifest import FileEntry, read_manifest, record_file, sha256_file
from hopgate.bundles.picture import card_dot, render
from hopgate.bundles.scope import resolve_scope
from hopgate.bundles.signing import new_key, read_private_key, sign_directory, write_key
from hopgate.cli.shared import UsageError, open_store
from hopgate.errors import ExportError, HopgateError
from hopgate.escaping import terminal
from hopgate.store import Store

#: The signer's name: --by, else HOPGATE_SIGNER.
by_option = click.option(
    "--by",
    envvar="HOPGATE_SIGNER",
    help="The person signing (a name recorded in the proof; env HOPGATE_SIGNER).",
)


@click.group("keys")
def keys_command() -> None:
    """Signing keys (Ed25519 Multikeys, did:key).

    Example: hopgate keys new -o ~/.hopgate/ann.key
    """


@keys_command.command("new")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The private key file (mode 0600); the public key goes to OUTPUT.pub.",
)
def keys_new(output: Path) -> None:
    """Make an Ed25519 key pair: the private key (mode 0600) and OUTPUT.pub.

    Existing files are never overwritten. The public key is printed as a
    did:key; give it (or the .pub file) to auditors for hopgate verify --trust.

    Example: hopgate keys new -o ~/.hopgate/alice.key
    """

    key = new_key()
    try:
        private, public = write_key(key, output)
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"{private}: private key (mode 600; keep it secret)", err=True)
    click.echo(f"{public}: public key", err=True)
    click.echo(f"did:key:{key.public_multibase}")


@click.command("sign")
@click.argument("export_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--key",
    "key_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The private key file (from hopgate keys new).",
)
@by_option
def sign_command(export_dir: Path, key_path: Path, by: str | None) -> None:
    """Sign every export file of a directory (W3C Data Integrity, eddsa-rdfc-2022).

    Each file's RDF dataset is canonicalized (RDFC-1.0), hashed and signed
    with Ed25519; the proofs, naming the signer, the key and the time, go to
    proofs.json beside manifest.json. A second signer adds a proof.

    Example: hopgate sign bundles/ --key alice.key --by "Alice Example"
    """

    try:
        key = read_private_key(key_path)
        result = sign_directory(export_dir, key, by=by or "")
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    click.echo(
        f"{terminal(export_dir)}: signed {len(result.files)} file(s) "
        f"({terminal(', '.join(result.files))}) by {terminal(result.signer)} with "
        f"{terminal(result.verification_method.split('#', 1)[0])}"
    )


@click.command("export")
@click.option("--run", "run", help="The run's latest evaluation and the loads it used.")
@click.option("--evaluation", help="One evaluation activity (its id, RUN@TIME).")
@click.option("--graph", help="One bundle (its named graph's IRI).")
@click.option("--card", help="An acceptance card (its id, or its output's id): its evaluation, "
              "or with --format svg|png|dot its picture.")  # fmt: skip
@click.option("--reader", help="The reader class to export for (default: the evaluation's own).")
@click.option("--with-text", is_flag=True, help="Include the version texts the reader may read.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice([*FORMATS, *PICTURE_EXTENSIONS]),
    default="trig",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="A directory (file export.<ext> and manifest.json in it) or a file; default stdout.",
)
@click.option(
    "--sign",
    "sign_key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Sign the written file with this private key (needs -o and --by).",
)
@by_option
@click.pass_context
def export_command(
    ctx: click.Context,
    run: str | None,
    evaluation: str | None,
    graph: str | None,
    card: str | None,
    reader: str | None,
    with_text: bool,
    fmt: str,
    output: Path | None,
    sign_key: Path | None,
    by: str | None,
) -> None:
    """Export PROV bundles (TriG, JSON-LD, PROV-N, PROV-JSON, PROV-XML) or a card's picture.

    Nothing the reader may not inspect leaves: a withheld span appears with its
    id, its version's digest and hg:withheldFor. Output is deterministic; with
    -o, manifest.json beside the file records its sha256 (see hopgate verify).

    Example: hopgate export --run sys-a --format provn -o bundles/

    Example: hopgate export --card sys-a/qA/o1 --format svg -o card-a.svg

    Example: hopgate export --run sys-a -o bundles/ --sign alice.key --by "Alice Example"
    """

    key = None
    if sign_key is not None:
        if output is None or fmt in PICTURE_EXTENSIONS:
            raise UsageError("--sign signs an export written with -o (not a picture)")
        if not (by or "").strip():
            raise UsageError("name the person signing with --by NAME (or HOPGATE_SIGNER)")
        try:
            key = read_private_key(sign_key)
        except HopgateError as exc:
            raise UsageError(str(exc)) from None
    try:
        store = open_store(ctx)
        if fmt in PICTURE_EXTENSIONS:
            _picture(store, card, reader, fmt, output)
            return
        result = export_bundle(
            store,
            format=fmt,
            run=run,
            evaluation=evaluation,
            graph=graph,
            card=card,
            reader=reader,
            with_text=with_text,
        )
        if output is None:
            sys.stdout.buffer.write(result.data)
            return
        target = write_export(result, output)
        if key is not None:
            signed = sign_directory(target.parent, key, by=by or "", names=[target.name])
            click.echo(f"{terminal(target)}: signed by {terminal(signed.signer)}", err=True)
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    click.echo(
        f"{terminal(target)}: {fmt} of {terminal(result.scope.description)} for reader "
        f"{terminal(result.scope.reader)} ({len(result.data)} bytes; manifest "
        f"{terminal(target.parent / 'manifest.json')})",
        err=True,
    )


def _picture(
    store: object, card: str | None, reader: str | None, fmt: str, output: Path | None
) -> None:

    assert isinstance(store, Store)
    if card is None:
        raise ExportError("a picture shows one acceptance card: give --card ID")
    scope = resolve_scope(store, card=card, reader=reader)
    data = render(card_dot(store, scope), fmt)
    if output is None:
        sys.stdout.buffer.write(data)
        return
    target = output_path(output, fmt)
    if (target.parent / "manifest.json").exists():
        read_manifest(target.parent)
    write_file(target, data)
    entry = FileEntry(fmt, scope.reader, scope.description, False, len(data), sha256_file(target))
    record_file(target, entry, {})
    click.echo(
        f"{terminal(target)}: picture of {terminal(scope.description)} for reader "
        f"{terminal(scope.reader)}",
        err=True,
    )


@click.command("verify")
@click.argument("export_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--trust",
    multiple=True,
    help="A trusted signer's public key (.pub file, did:key or Multikey); repeatable. "
    "Every export file must then carry a valid proof by one of them.",
)
def verify_command(export_dir: Path, trust: tuple[str, ...]) -> None:
    """Check an export directory: every signature (proofs.json) against its file's dataset,
    every file's sha256 against manifest.json, every retained span's quote against its
    version's text (where the text was exported), and the PROV-CONSTRAINTS that apply.

    Exit 0 when intact, 1 when a file was altered, a signature fails, a quote
    is false or a constraint is broken, 2 when there is no manifest.

    Example: hopgate verify bundles/ --trust alice.key.pub
    """

    try:
        report = api.verify(export_dir, trust=trust)
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    for problem in report.problems:
        click.echo(f"FAILED: {terminal(problem)}")
    state = "intact" if report.ok else f"NOT intact ({len(report.problems)} problem(s))"
    click.echo(
        f"{terminal(export_dir)}: {report.files} file(s) {state}; {report.quotes_checked} quote(s) "
        f"re-checked against their version texts, {report.texts_checked} text digest(s) checked, "
        f"{report.quotes_without_text} quote(s) without an exported text; "
        f"PROV-CONSTRAINTS checked in {report.constraints_checked} file(s)"
    )
    if report.signers:
        trust_note = "" if trust else " (no --trust given: keys not checked against trusted ones)"
        click.echo(
            f"{report.signatures_checked} signature(s) checked; signed by "
            f"{terminal('; '.join(report.signers))}{trust_note}"
        )
    elif report.signatures_checked == 0:
        click.echo("not signed (hopgate sign DIR --key KEY --by NAME)")
    if not report.ok:
        sys.exit(1)


COMMANDS = [export_command, verify_command, keys_command, sign_command]

__all__ = ["COMMANDS"]
