"""``hopgate keys new`` and ``hopgate sign``: Ed25519 keys and signed export directories."""

from __future__ import annotations

from pathlib import Path

import click

from hopgate.errors import HopgateError


def _usage(exc: HopgateError) -> click.ClickException:
    from hopgate.cli import UsageError

    return UsageError(str(exc))


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
    from hopgate.export.signing import new_key, write_key

    key = new_key()
    try:
        private, public = write_key(key, output)
    except HopgateError as exc:
        raise _usage(exc) from None
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
    from hopgate.export.signing import read_private_key, sign_directory

    try:
        key = read_private_key(key_path)
        result = sign_directory(export_dir, key, by=by or "")
    except HopgateError as exc:
        raise _usage(exc) from None
    click.echo(
        f"{export_dir}: signed {len(result.files)} file(s) ({', '.join(result.files)}) "
        f"by {result.signer} with {result.verification_method.split('#', 1)[0]}"
    )


__all__ = ["by_option", "keys_command", "sign_command"]
