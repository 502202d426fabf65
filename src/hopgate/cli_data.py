"""``hopgate import`` and ``hopgate baseline``: benchmark data in, baseline runs out.

``hopgate.cli`` registers these commands on its group; this module imports
``hopgate.cli`` only inside the commands, so either module may be imported
first (and ``python -m hopgate.cli`` sees them too).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from hopgate.adapters import FORMATS, import_files
from hopgate.cli_shared import handle_errors, open_store
from hopgate.formatting import render
from hopgate.loader import load as load_ledger
from hopgate.peers import PeerMetric
from hopgate.store import Store

F = TypeVar("F", bound=Callable[..., Any])


_handle_errors = handle_errors


def _open(ctx: click.Context) -> Store:
    # Both of this module's commands that open the store write to it (import --load, baseline).
    return open_store(ctx, writes=True)


def _usage(message: str) -> click.ClickException:
    from hopgate.cli import UsageError

    return UsageError(message)


@click.command("import")
@click.argument("format", type=click.Choice(FORMATS))
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--docs",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="rag: the documents (JSON Lines or a JSON list; repeatable).",
)
@click.option(
    "--gold",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="rag: the questions with their evidence sets.",
)
@click.option(
    "--answers",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="rag: the pipeline's answers with contexts and citations (one run).",
)
@click.option("--run", "run", help="rag: the run's id (default rag-run).")
@click.option("--evaluation", help="rag: the evaluation's id (default rag).")
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
    docs: tuple[Path, ...],
    gold: Path | None,
    answers: Path | None,
    run: str | None,
    evaluation: str | None,
    output: Path | None,
    load_it: bool,
    predictions: Path | None,
    max_evidence: int,
    drop_empty: bool,
) -> None:
    """Convert a pipeline's or a benchmark's files to a ledger.

    FORMAT: rag (your pipeline: --docs, --gold, --answers; docs/rag-format.md),
    fever, hotpotqa, multihop-rag, wice, ragas (docs/adapters.md). A malformed
    input stops the import with an error naming file, record and field; no
    ledger is written.

    Example: hopgate import rag --docs docs.jsonl --gold gold.jsonl --answers answers.jsonl --load

    Example: hopgate import fever actual.jsonl --predictions predictions.jsonl -o fever.jsonl --load
    """
    rag_given = bool(docs or gold or answers or run or evaluation)
    if format == "rag":
        if inputs:
            raise _usage("rag reads --docs, --gold and --answers, not input arguments")
        if not docs or gold is None:
            raise _usage("rag needs --docs and --gold (and --answers for a run)")
    elif rag_given:
        raise _usage(
            f"--docs, --gold, --answers, --run and --evaluation apply to rag, not {format}"
        )
    elif not inputs:
        raise _usage(f"{format} needs input files")
    if predictions is not None and format not in ("fever", "hotpotqa"):
        raise _usage(f"--predictions applies to fever and hotpotqa, not {format}")
    if drop_empty and format != "wice":
        raise _usage(f"--drop-empty applies to wice, not {format}")
    if output is None:
        if inputs:
            output = inputs[0].with_name(inputs[0].name + ".ledger.jsonl")
        else:
            first = answers or gold
            assert first is not None
            output = first.with_name(first.name.split(".")[0] + ".ledger.jsonl")
    result = import_files(
        format,
        list(inputs),
        output=output,
        predictions=predictions,
        max_evidence=max_evidence,
        drop_empty=drop_empty,
        docs=docs,
        gold=gold,
        answers=answers,
        run=run,
        evaluation=evaluation,
    )
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.records.items()))
    click.echo(f"{output}: wrote {kinds}")
    for note in result.notes:
        click.echo(f"  {note}")
    for reason, n in sorted(result.dropped.items()):
        click.echo(f"dropped {n} {reason}(s)")
    if load_it:
        loaded = load_ledger(_open(ctx), output)
        state = "already loaded" if loaded.already_loaded else f"{loaded.triples} triples"
        click.echo(f"{output}: {state} in {loaded.graph}")


@click.command("baseline")
@click.option(
    "--retriever",
    type=click.Choice(["bm25"]),
    default="bm25",
    show_default=True,
    help="The retriever (BM25 from the bm25s library).",
)
@click.option(
    "--k",
    "k",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Spans retrieved per question.",
)
@click.option(
    "--citer",
    type=click.Choice(["top1", "topk"]),
    default="top1",
    show_default=True,
    help="Cite the top span, or all k.",
)
@click.option(
    "--evaluation", help="The evaluation the run is for (needed when the store has several)."
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Keep the baseline run's ledger in this JSON Lines file.",
)
@click.pass_context
@_handle_errors
def baseline_command(
    ctx: click.Context,
    retriever: str,
    k: int,
    citer: str,
    evaluation: str | None,
    output: Path | None,
) -> None:
    """Make a BASELINE run: BM25 over the store's own spans, one output per required claim.

    The run (id baseline-<retriever>-k<K>-<citer>) measures retrieval and
    citation only: no answer is generated, so its outputs are recorded as
    correct. Every verdict row and metrics table names it as a baseline.

    Example: hopgate baseline --retriever bm25 --k 10 --citer top1
    """
    from hopgate.baseline import baseline

    result = baseline(
        _open(ctx), retriever=retriever, k=k, citer=citer, evaluation=evaluation, output=output
    )
    state = "already loaded" if result.load.already_loaded else f"{result.load.triples} triples"
    click.echo(
        f"BASELINE run {result.run}: {result.questions} questions, BM25 over {result.spans} spans; "
        f"{state} in {result.load.graph}"
    )


def baseline_labels(store: Store) -> dict[str, dict[str, Any]]:
    """The baseline settings of each baseline run, with a one-line ``summary``."""
    from hopgate.baseline import baseline_settings

    labels = {}
    for run, settings in baseline_settings(store).items():
        summary = (
            f"{settings.get('retriever')} k={settings.get('k')} citer={settings.get('citer')}; "
            "outputs recorded as correct, no answer generated"
        )
        labels[run] = {**settings, "summary": summary}
    return labels


def peer_table(figures: list[PeerMetric]) -> str:
    """The peer figures as a table beside hopgate's own."""
    rows = [
        {
            "peer metric": p.name,
            "defined by": p.source,
            "numerator": round(p.numerator, 4),
            "denominator": p.denominator,
            "value": "undefined" if p.value is None else f"{100 * p.value:.1f}%",
        }
        for p in figures
    ]
    return render(
        rows,
        columns=["peer metric", "defined by", "numerator", "denominator", "value"],
        format="table",
    )
