"""``hopgate export`` and ``hopgate verify``: provenance bundles out, and their check."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hopgate.export import FORMATS, export_bundle, output_path, write_export
from hopgate.export.formats import PICTURE_EXTENSIONS
from hopgate.export.manifest import FileEntry, record_file, sha256_file


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
) -> None:
    """Export PROV bundles (TriG, JSON-LD, PROV-N, PROV-JSON, PROV-XML) or a card's picture.

    Nothing the reader may not inspect leaves: a withheld span appears with its
    id, its version's digest and hg:withheldFor. Output is deterministic; with
    -o, manifest.json beside the file records its sha256 (see hopgate verify).

    Example: hopgate export --run sys-a --format provn -o bundles/

    Example: hopgate export --card sys-a/qA/o1 --format svg -o card-a.svg
    """
    from hopgate.cli import UsageError, _open
    from hopgate.errors import HopgateError

    try:
        store = _open(ctx)
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
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    click.echo(
        f"{target}: {fmt} of {result.scope.description} for reader {result.scope.reader} "
        f"({len(result.data)} bytes; manifest {target.parent / 'manifest.json'})",
        err=True,
    )


def _picture(
    store: object, card: str | None, reader: str | None, fmt: str, output: Path | None
) -> None:
    from hopgate.export.picture import card_dot, render
    from hopgate.export.scope import ExportError, resolve_scope
    from hopgate.store import Store

    assert isinstance(store, Store)
    if card is None:
        raise ExportError("a picture shows one acceptance card: give --card ID")
    scope = resolve_scope(store, card=card, reader=reader)
    data = render(card_dot(store, scope), fmt)
    if output is None:
        sys.stdout.buffer.write(data)
        return
    target = output_path(output, fmt)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    entry = FileEntry(fmt, scope.reader, scope.description, False, len(data), sha256_file(target))
    record_file(target, entry, {})
    click.echo(f"{target}: picture of {scope.description} for reader {scope.reader}", err=True)


@click.command("verify")
@click.argument("export_dir", type=click.Path(file_okay=False, path_type=Path))
def verify_command(export_dir: Path) -> None:
    """Check an export directory: every file's sha256 against manifest.json, and every
    retained span's quote against its version's text (where the text was exported).

    Exit 0 when intact, 1 when a file was altered or a quote is false, 2 when
    there is no manifest.

    Example: hopgate verify bundles/
    """
    from hopgate.cli import UsageError
    from hopgate.errors import HopgateError
    from hopgate.export.verify import verify

    try:
        report = verify(export_dir)
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    for problem in report.problems:
        click.echo(f"FAILED: {problem}")
    state = "intact" if report.ok else f"NOT intact ({len(report.problems)} problem(s))"
    click.echo(
        f"{export_dir}: {report.files} file(s) {state}; {report.quotes_checked} quote(s) "
        f"re-checked against their version texts, {report.texts_checked} text digest(s) checked, "
        f"{report.quotes_without_text} quote(s) without an exported text"
    )
    if not report.ok:
        sys.exit(1)
