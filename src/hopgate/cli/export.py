"""``hopgate export``, ``verify``, ``keys`` and ``sign``: provenance bundles out, signed and checked."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hopgate import api
from hopgate.cli.shared import UsageError, open_store
from hopgate.errors import HopgateError
from hopgate.escaping import terminal

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
    try:
        key = api.new_key(output)
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"{key.private_file}: private key (mode 600; keep it secret)", err=True)
    click.echo(f"{key.public_file}: public key", err=True)
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

    Each proof signs, with Ed25519, a file's RDF dataset (canonicalized with
    RDFC-1.0; none for a picture) together with a statement of the file: the
    sha256 and length of its exact bytes and its manifest entry (format,
    reader, scope, texts). The proofs, naming the signer, the key and the
    time, go to proofs.json beside manifest.json. A second signer adds a proof.

    Example: hopgate sign bundles/ --key alice.key --by "Alice Example"
    """
    try:
        result = api.sign(export_dir, key=key_path, by=by or "")
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
    type=click.Choice([*api.EXPORT_FORMATS, *api.PICTURE_FORMATS]),
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
    if sign_key is not None:
        if output is None:
            raise UsageError("--sign signs an export written with -o")
        if not (by or "").strip():
            raise UsageError("name the person signing with --by NAME (or HOPGATE_SIGNER)")
    try:
        result = api.export(
            open_store(ctx, reads=True),
            format=fmt,
            run=run,
            evaluation=evaluation,
            graph=graph,
            card=card,
            reader=reader,
            with_text=with_text,
            output=output,
            key=sign_key,
            by=by,
        )
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    if result.path is None:
        sys.stdout.buffer.write(result.data)
        return
    target, scope = result.path, result.scope
    if fmt in api.PICTURE_FORMATS:
        # The manifest beside the picture is what hopgate verify (and sign) read: say why
        # a second file appeared.
        click.echo(
            f"{terminal(target)}: picture of {terminal(scope.description)} for reader "
            f"{terminal(scope.reader)}; its sha256 recorded in "
            f"{terminal(target.parent / 'manifest.json')} (hopgate verify and sign read it)",
            err=True,
        )
    if result.signer is not None:
        click.echo(f"{terminal(target)}: signed by {terminal(result.signer)}", err=True)
    if fmt in api.PICTURE_FORMATS:
        return
    click.echo(
        f"{terminal(target)}: {fmt} of {terminal(scope.description)} for reader "
        f"{terminal(scope.reader)} ({len(result.data)} bytes; manifest "
        f"{terminal(target.parent / 'manifest.json')})",
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
    """Check an export directory: every signature (proofs.json) against its file's bytes and
    dataset, every file's sha256 against manifest.json, every retained span's quote against
    its version's text (where the text was exported), and the PROV-CONSTRAINTS that apply.

    In a signed directory (one with proofs.json, or with --trust) every export
    file, pictures included, needs a valid proof: an empty or missing proof
    list fails, and so does a manifest entry other than the signed one.
    "signed by" is printed only when every file is covered.

    Exit 0 when intact, 1 when a file was altered, a signature fails, a quote
    is false or a constraint is broken (each problem on a FAILED line, then one
    Error line), 2 when there is no manifest (1 in a signed directory: a
    manifest gone from beside its proofs is a failure, its signatures still checked).

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
    if report.quotes_without_text:
        # Say whether the count is a problem: it is what an export without texts holds.
        click.echo(
            f"{report.quotes_without_text} quote(s) without an exported text: not a problem "
            "(the export carries quotes, not the version texts they come from); the files "
            "holding them are covered by their sha256 in the manifest, their words are not "
            "re-checked against a text "
            "(hopgate export --with-text exports the texts the reader may read, to re-check them)"
        )
    if not report.ok:
        # Nothing is said to be signed unless every file is: the problems above say what not.
        raise click.ClickException(
            f"{terminal(export_dir)}: NOT intact: {len(report.problems)} problem(s), each on a "
            "FAILED line above"
        )
    if report.signed:
        click.echo(
            f"{report.signatures_checked} signature(s) checked; every export file carries a "
            f"valid proof; signed by {terminal(_signers(report, trusted=bool(trust)))}"
        )
    else:
        click.echo("not signed (hopgate sign DIR --key KEY --by NAME)")


def _signers(report: api.VerifyReport, *, trusted: bool) -> str:
    """Who signed, each once with how many files, and (with --trust) whether trusted."""
    counts: dict[str, int] = {}
    marks: dict[str, bool] = {}
    for signed in report.signed.values():
        for signer in signed.signers:
            counts[signer.shown] = counts.get(signer.shown, 0) + 1
            marks[signer.shown] = signer.trusted
    parts = []
    for shown, count in counts.items():
        mark = ("; a trusted key" if marks[shown] else "; NOT a trusted key") if trusted else ""
        parts.append(f"{shown} ({count} file(s){mark})")
    note = "" if trusted else " (no --trust given: keys not checked against trusted ones)"
    return "; ".join(parts) + note


COMMANDS = [export_command, verify_command, keys_command, sign_command]

__all__ = ["COMMANDS"]
