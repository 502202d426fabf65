"""``hopgate import`` and ``hopgate baseline``: benchmark data in, baseline runs out."""

from __future__ import annotations

from pathlib import Path

import click

from hopgate.adapters import FORMATS, import_files
from hopgate.cli import UsageError, _handle_errors, _open
from hopgate.loader import load as load_ledger


@click.command("import")
@click.argument("format", type=click.Choice(FORMATS))
@click.argument(
    "inputs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The JSON Lines ledger to write (default: <first input>.ledger.jsonl).",
)
@click.option("--load", "load_it", is_flag=True, help="Load the ledger into the store too.")
@click.option(
    "--predictions",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="fever: the scorer's predictions file; hotpotqa: an official prediction file.",
)
@click.option(
    "--max-evidence",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="fever: predicted sentences retrieved per claim (the scorer's max_evidence).",
)
@click.option("--drop-empty", is_flag=True, help="wice: drop empty supporting sets (counted).")
@click.pass_context
@_handle_errors
def import_command(
    ctx: click.Context,
    format: str,
    inputs: tuple[Path, ...],
    output: Path | None,
    load_it: bool,
    predictions: Path | None,
    max_evidence: int,
    drop_empty: bool,
) -> None:
    """Convert benchmark files (FORMAT: fever, hotpotqa, multihop-rag, wice, ragas) to a ledger.

    The mapping of each format is documented in docs/adapters.md. A malformed
    input stops the import with an error naming file, record and field; no
    ledger is written.

    Example: hopgate import fever actual.jsonl --predictions predictions.jsonl -o fever.jsonl --load
    """
    if predictions is not None and format not in ("fever", "hotpotqa"):
        raise UsageError(f"--predictions applies to fever and hotpotqa, not {format}")
    if drop_empty and format != "wice":
        raise UsageError(f"--drop-empty applies to wice, not {format}")
    if output is None:
        output = inputs[0].with_name(inputs[0].name + ".ledger.jsonl")
    result = import_files(
        format,
        list(inputs),
        output=output,
        predictions=predictions,
        max_evidence=max_evidence,
        drop_empty=drop_empty,
    )
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.records.items()))
    click.echo(f"{output}: wrote {kinds}")
    for reason, n in sorted(result.dropped.items()):
        click.echo(f"dropped {n} {reason}(s)")
    if load_it:
        loaded = load_ledger(_open(ctx), output)
        state = "already loaded" if loaded.already_loaded else f"{loaded.triples} triples"
        click.echo(f"{output}: {state} in {loaded.graph}")
