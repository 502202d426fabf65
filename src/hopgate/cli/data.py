"""``hopgate load``, ``import``, ``baseline`` and ``demo``: data into the store.

Ledgers are loaded as they are; benchmark files are imported as ledgers;
a baseline run is made from the store's own spans; the demo loads the
worked example into a fresh store.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from hopgate import api
from hopgate.cli.demo import run_demo
from hopgate.cli.shared import (
    UsageError,
    correctness_judge_option,
    handle_errors,
    open_store,
    pass_env_option,
    stop_on_judge_failures,
)
from hopgate.escaping import terminal


def _open(ctx: click.Context) -> api.Store:
    # `import --load` loads, and a load may make the store.
    return open_store(ctx, writes=True)


def _usage(message: str) -> click.ClickException:
    return UsageError(message)


@click.command()
@click.argument("ledgers", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--allow-files",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A folder outside the ledger's own from which versions may read file: (repeatable).",
)
@click.option(
    "--by", envvar="HOPGATE_USER", help="The person on whose behalf you load (env HOPGATE_USER)."
)
@click.pass_context
@handle_errors
def load(
    ctx: click.Context, ledgers: tuple[Path, ...], allow_files: tuple[Path, ...], by: str | None
) -> None:
    """Load ledger files (YAML, JSON, JSON Lines, .jsonl.gz) into the store.

    Each file is one named graph; a failing file leaves the store as it was.
    A version's file: is read only inside the ledger's folder (or --allow-files).

    Example: hopgate load examples/cedar.yaml --by "Alice Example"
    """
    store = open_store(ctx, writes=True)
    for path in ledgers:
        result = api.load(store, path, agent=by or None, allow_files=allow_files)
        if result.already_loaded:
            click.echo(
                f"{terminal(path)}: already loaded as {terminal(result.graph)}; nothing to do"
            )
            continue
        kinds = ", ".join(f"{n} {kind}" for kind, n in result.records.items())
        skipped = (
            f"; {result.skipped_identical} identical record(s) already in the store"
            if result.skipped_identical
            else ""
        )
        click.echo(
            f"{terminal(path)}: loaded {kinds}; {result.triples} triples into "
            f"{terminal(result.graph)} in {result.seconds:.2f} s{skipped}"
        )


@click.command("import")
@click.argument("format", type=click.Choice(api.IMPORT_FORMATS))
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
@click.option(
    "--shape",
    type=click.Choice(api.ANSWER_SHAPES),
    metavar="NAME",
    help="rag: the shape the answers were logged in: "
    + ", ".join(api.ANSWER_SHAPES)
    + " (default: detected from the first line; docs/pipeline-shapes.md).",
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
@correctness_judge_option
@click.option(
    "--judge-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="rag: seconds per call of --correctness-judge.",
)
@pass_env_option
@click.pass_context
@handle_errors
def import_command(
    ctx: click.Context,
    format: str,
    inputs: tuple[Path, ...],
    docs: tuple[Path, ...],
    gold: Path | None,
    answers: Path | None,
    shape: str | None,
    run: str | None,
    evaluation: str | None,
    output: Path | None,
    load_it: bool,
    predictions: Path | None,
    max_evidence: int,
    drop_empty: bool,
    correctness_judge: str | None,
    judge_timeout: float,
    pass_env: tuple[str, ...],
) -> None:
    """Convert a pipeline's or a benchmark's files to a ledger.

    FORMAT: rag (your pipeline: --docs, --gold, --answers; docs/rag-format.md),
    fever, hotpotqa, multihop-rag, wice, ragas (docs/adapters.md). A malformed
    input stops the import with an error naming file, record and field; no
    ledger is written. When --correctness-judge fails for an answer, the
    ledger is written but not loaded, and the command exits 1.

    Example: hopgate import rag --docs docs.jsonl --gold gold.jsonl --answers answers.jsonl --load

    Example: hopgate import fever actual.jsonl --predictions predictions.jsonl -o fever.jsonl --load
    """
    rag_given = bool(docs or gold or answers or run or evaluation or shape)
    if format == "rag":
        if inputs:
            raise _usage("rag reads --docs, --gold and --answers, not input arguments")
        if not docs or gold is None:
            raise _usage("rag needs --docs and --gold (and --answers for a run)")
    elif rag_given:
        raise _usage(
            f"--docs, --gold, --answers, --shape, --run and --evaluation apply to rag, not {format}"
        )
    elif not inputs:
        raise _usage(f"{format} needs input files")
    if predictions is not None and format not in ("fever", "hotpotqa"):
        raise _usage(f"--predictions applies to fever and hotpotqa, not {format}")
    if drop_empty and format != "wice":
        raise _usage(f"--drop-empty applies to wice, not {format}")
    if correctness_judge is not None and format != "rag":
        raise _usage(f"--correctness-judge applies to rag, not {format}")
    if output is None:
        if inputs:
            output = inputs[0].with_name(inputs[0].name + ".ledger.jsonl")
        else:
            first = answers or gold
            assert first is not None
            output = first.with_name(first.name.split(".")[0] + ".ledger.jsonl")
    result = api.import_files(
        format,
        inputs,
        output=output,
        predictions=predictions,
        max_evidence=max_evidence,
        drop_empty=drop_empty,
        docs=docs,
        gold=gold,
        answers=answers,
        run=run,
        evaluation=evaluation,
        shape=shape,
        correctness_judge=correctness_judge,
        judge_timeout=judge_timeout,
        pass_env=pass_env,
    )
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.records.items()))
    click.echo(f"{terminal(output)}: wrote {kinds}")
    for note in result.notes:
        click.echo(f"  {terminal(note)}")
    for reason, n in sorted(result.dropped.items()):
        click.echo(f"dropped {n} {terminal(reason)}(s)")
    stop_on_judge_failures(
        ctx, result.counts["judge failure"], output, loading=load_it, again="import"
    )
    if load_it:
        # --load is `hopgate load OUTPUT` after the import (docs/api.md "import_files").
        loaded = api.load(_open(ctx), output)
        state = "already loaded" if loaded.already_loaded else f"{loaded.triples} triples"
        click.echo(f"{terminal(output)}: {state} in {terminal(loaded.graph)}")


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
@handle_errors
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

    result = api.baseline(
        # A baseline reads an evaluation's spans: a path holding no store is an error.
        open_store(ctx),
        retriever=retriever,
        k=k,
        citer=citer,
        evaluation=evaluation,
        output=output,
    )
    state = "already loaded" if result.load.already_loaded else f"{result.load.triples} triples"
    click.echo(
        f"BASELINE run {terminal(result.run)}: {result.questions} questions, BM25 over "
        f"{result.spans} spans; {state} in {terminal(result.load.graph)}"
    )
    if result.members == result.spans:
        click.echo(
            "note: every span searched is a member of an evidence set (the ledgers declare "
            "only the gold passages, as `import rag` does): the baseline knows where the "
            "answers are, and its recall says nothing about a retriever (docs/adapters.md "
            '"Baselines")',
            err=True,
        )


@click.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to put the demo store and outputs (default: a fresh temporary directory).",
)
@handle_errors
def demo(directory: Path | None) -> None:
    """Load the bundled worked example (the Cedar ledger) into a fresh store and report.

    Example: hopgate demo --dir demo-output
    """

    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="hopgate-demo-"))
    elif (directory / "store").exists():
        shutil.rmtree(directory / "store")
    run_demo(directory, echo=click.echo)


COMMANDS = [load, import_command, baseline_command, demo]

__all__ = ["COMMANDS"]
