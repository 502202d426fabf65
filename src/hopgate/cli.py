"""The ``hopgate`` command line: thin click commands, each calling one library function."""

from __future__ import annotations

import functools
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import pyoxigraph as ox

from hopgate import ids, progress
from hopgate._version import __version__
from hopgate.errors import HopgateError
from hopgate.formatting import render
from hopgate.inspection import stats as store_stats
from hopgate.library import artefact, library_queries
from hopgate.loader import load as load_ledger
from hopgate.remote_cli import open_remote, remote_options, remote_settings
from hopgate.store import IRI, Store, Value, open_store

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_STORE = Path(".hopgate") / "store"


class UsageError(click.ClickException):
    """Bad input or usage: exit code 2, message starting ``Error:``."""

    exit_code = 2


def _handle_errors(func: F) -> F:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except HopgateError as exc:
            raise UsageError(str(exc)) from None

    return wrapper  # type: ignore[return-value]


@click.group()
@click.version_option(__version__, prog_name="hopgate")
@click.option(
    "--store",
    "store_path",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="HOPGATE_STORE",
    default=DEFAULT_STORE,
    show_default=True,
    help="Directory of the embedded store (env HOPGATE_STORE).",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress on stderr (default: a bar on a terminal, one line per phase otherwise).",
)
@remote_options
@click.pass_context
def cli(ctx: click.Context, /, store_path: Path, quiet: bool, **remote: Any) -> None:
    """hopgate: decide whether cited evidence contains a complete, adjudicated evidence set.

    Exit codes: 0 ok, 1 a gate failed or violations were found, 2 usage or
    input error (the message starts with "Error:").
    """
    ctx.ensure_object(dict)
    ctx.obj["store_path"] = store_path
    ctx.obj["remote"] = remote_settings(**remote)
    # Long work (load, import, evaluate) reports its phases here (hopgate.progress).
    ctx.with_resource(progress.reporting(progress.for_stream(quiet=quiet)))


def format_option(*choices: str) -> Callable[[F], F]:
    """The shared ``--format`` option; the first choice is the default."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=choices[0],
        show_default=True,
        help="Output format.",
    )


def _open(ctx: click.Context, *, writes: bool = False) -> Store:
    """The store the command works on; only a writing command may create an embedded one.

    Reads never write (docs/spec/records.md "Writes and reads"): a read of a
    store path that holds no store is an error, not a new empty store.
    """
    store: Store
    if ctx.obj.get("remote") is not None:
        store = open_remote(ctx.obj["remote"])
    else:
        path: Path = ctx.obj["store_path"]
        if not writes and not (path.is_dir() and any(path.iterdir())):
            raise UsageError(
                f"no store at {path}: `hopgate load LEDGER` makes one (or give --store PATH)"
            )
        store = open_store(path)
    ctx.call_on_close(store.close)
    return store


@cli.command()
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
@_handle_errors
def load(
    ctx: click.Context, ledgers: tuple[Path, ...], allow_files: tuple[Path, ...], by: str | None
) -> None:
    """Load ledger files (YAML, JSON, JSON Lines, .jsonl.gz) into the store.

    Each file is one named graph; a failing file leaves the store as it was.
    A version's file: is read only inside the ledger's folder (or --allow-files).

    Example: hopgate load examples/cedar.yaml --by "Alice Example"
    """
    store = _open(ctx, writes=True)
    for path in ledgers:
        result = load_ledger(store, path, agent=by or None, allow_files=allow_files)
        if result.already_loaded:
            click.echo(f"{path}: already loaded as {result.graph}; nothing to do")
            continue
        kinds = ", ".join(f"{n} {kind}" for kind, n in result.records.items())
        skipped = (
            f"; {result.skipped_identical} identical record(s) already in the store"
            if result.skipped_identical
            else ""
        )
        click.echo(
            f"{path}: loaded {kinds}; {result.triples} triples into {result.graph} "
            f"in {result.seconds:.2f} s{skipped}"
        )


_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)


def parse_param(text: str) -> tuple[str, Value]:
    """Parse ``NAME=VALUE`` into a bound SPARQL value.

    ``<iri>`` is an IRI; ``KIND:ID`` with a record kind (``run:sys-a``) is the
    minted IRI of that ledger id; ``"text"`` is a string; an integer, ``true``
    and ``false`` are typed; anything else is a string.
    """
    match = _PARAM.match(text)
    if not match:
        raise UsageError(f"expected --param NAME=VALUE, got {text!r}")
    name, raw = match.groups()
    kind, sep, rest = raw.partition(":")
    value: Value
    if raw.startswith("<") and raw.endswith(">"):
        try:
            value = IRI(ox.NamedNode(raw[1:-1]).value)
        except ValueError as exc:
            raise UsageError(f"--param {name}: not an IRI: {raw} ({exc})") from None
    elif sep and kind in ids.KINDS and rest:
        value = IRI(ids.mint(kind, rest))
    elif len(raw) >= 2 and raw.startswith('"') and raw.endswith('"'):
        value = raw[1:-1]
    elif re.fullmatch(r"-?\d+", raw):
        value = int(raw)
    elif raw in ("true", "false"):
        value = raw == "true"
    else:
        value = raw
    return name, value


def read_query_argument(query: str) -> str:
    """The SPARQL text of QUERY: a path ending in .rq, a library query id, or text."""
    if query.endswith(".rq"):
        path = Path(query)
        if not path.is_file():
            raise UsageError(f"no such query file: {query}")
        return path.read_text("utf-8")
    if re.fullmatch(r"[a-z0-9][a-z0-9-]*", query):
        queries = library_queries()
        if query in queries:
            return queries[query].text
        raise UsageError(
            f"{query!r} is neither SPARQL nor a library query (known: {', '.join(sorted(queries))})"
        )
    return query


@cli.command()
@click.argument("query")
@click.option("--param", "params", multiple=True, help="NAME=VALUE bound to ?NAME (repeatable).")
@format_option("table", "json", "csv")
@click.option("--iris", is_flag=True, help="Show full IRIs instead of ledger ids.")
@click.pass_context
@_handle_errors
def query(ctx: click.Context, query: str, params: tuple[str, ...], fmt: str, iris: bool) -> None:
    """Run a SPARQL query: a .rq file, a library query id, or the query text.

    Parameters are bound as values, never spliced into the text. The default
    graph is the union of all loaded graphs.

    Example: hopgate query 'SELECT ?s WHERE { ?s a hg:Claim }' --format csv

    Example: hopgate query queries/claim-status.rq --param evaluation=evaluation:eval-oct
    """
    text = read_query_argument(query)
    bindings = dict(parse_param(p) for p in params)
    result = _open(ctx).query_any(text, params=bindings)
    if isinstance(result, bool):
        click.echo(json.dumps(result) if fmt == "json" else str(result).lower())
        return
    if isinstance(result, bytes):
        sys.stdout.write(result.decode("utf-8"))
        return
    columns = list(result[0]) if result else _select_variables(text)
    click.echo(render(result, columns=columns, format=fmt, iris=iris), nl=False)


def _select_variables(text: str) -> list[str]:
    head = re.search(
        r"SELECT\s+(?:DISTINCT\s+|REDUCED\s+)?(.*?)\s+(?:WHERE|FROM|\{)", text, re.S | re.I
    )
    if not head:
        return []
    return re.findall(r"\?([A-Za-z_][A-Za-z0-9_]*)\s*\)?\s*(?=\s|$|\))", head.group(1))


@cli.command()
@format_option("table", "json")
@click.pass_context
@_handle_errors
def stats(ctx: click.Context, fmt: str) -> None:
    """Count records by kind, triples, and the named graphs of the store.

    Example: hopgate stats --format json
    """
    result = store_stats(_open(ctx))
    if fmt == "json":
        payload = {
            "records": result.records,
            "quads": result.quads,
            "graphs": [g.__dict__ for g in result.graphs],
        }
        click.echo(json.dumps(payload, indent=2))
        return
    click.echo(
        render(
            [{"kind": k, "records": n} for k, n in result.records.items()],
            columns=["kind", "records"],
            format="table",
        ),
        nl=False,
    )
    click.echo(f"\n{result.quads} quads in {len(result.graphs)} named graphs\n")
    click.echo(
        render(
            [
                {"graph": g.iri, "kind": g.kind, "file": g.label, "quads": g.quads}
                for g in result.graphs
            ],
            columns=["graph", "kind", "file", "quads"],
            format="table",
        ),
        nl=False,
    )


@cli.command()
@click.option("--graph", help="Dump only this named graph (its IRI).")
@format_option("trig", "nquads")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File to write."
)
@click.pass_context
@_handle_errors
def dump(ctx: click.Context, graph: str | None, fmt: str, output: Path | None) -> None:
    """Write the store (or one graph) as TriG or N-Quads (sorted lines).

    Example: hopgate dump --format nquads -o store.nq
    """
    store = _open(ctx)
    if graph is not None and graph not in store.graphs():
        raise UsageError(f"no named graph {graph} in the store")
    if output is None:
        store.dump(sys.stdout.buffer, format=fmt, graph=graph)  # type: ignore[arg-type]
        return
    try:
        handle = output.open("wb")
    except OSError as exc:
        raise UsageError(f"{output}: cannot write: {exc.strerror or exc}") from None
    with handle:
        store.dump(handle, format=fmt, graph=graph)  # type: ignore[arg-type]


@cli.command()
@click.option("--run", "run", help="Evaluate only this run (its ledger id).")
@click.option("--force", is_flag=True, help="Evaluate even when the latest evaluation is current.")
@click.option(
    "--by",
    envvar="HOPGATE_USER",
    help="The person responsible, recorded with a new evaluation (env HOPGATE_USER; "
    "--force to record one when the latest is current).",
)
@click.pass_context
@_handle_errors
def evaluate(ctx: click.Context, run: str | None, force: bool, by: str | None) -> None:
    """Decide every output claim of a run and record acceptance cards as a PROV bundle.

    A run whose latest evaluation used the store's current loads is not
    evaluated again (unless --force); earlier evaluations stay, each new one
    linked to the previous by prov:wasRevisionOf.

    Example: hopgate evaluate --run sys-a
    """
    from hopgate.evaluate import evaluate as run_evaluation

    for record in run_evaluation(_open(ctx, writes=True), run=run, force=force, by=by or None):
        state = "up to date" if record.reused else f"evaluated in {record.seconds:.2f} s"
        click.echo(
            f"run {record.run}: {record.cards} acceptance cards, {record.claim_cases} claim-cases "
            f"({state}) in {record.graph}"
        )


@cli.command()
@click.option("--run", "run", help="Only this run (its ledger id).")
@format_option("table", "json", "csv")
@click.pass_context
@_handle_errors
def verdicts(ctx: click.Context, run: str | None, fmt: str) -> None:
    """Show the acceptance card of every output claim of each run's latest evaluation.

    Reads only: a run never evaluated is not shown (run `hopgate evaluate`);
    a stale evaluation is shown with a note on stderr and, in JSON and CSV,
    "stale": true and its reason.

    Example: hopgate verdicts --run sys-a --format json
    """
    from hopgate.results import VERDICT_COLUMNS
    from hopgate.results import verdicts as read_verdicts

    found = read_verdicts(_open(ctx), run=run)
    _note_stale({(r.run, r.stale_reason) for r in found if r.stale})
    rows = [row.as_dict() for row in found]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    columns = VERDICT_COLUMNS + (
        ["inadmissible_citations", "answerability", "card", "stale", "stale_reason"]
        if fmt == "csv"
        else []
    )
    click.echo(render(rows, columns=columns, format=fmt), nl=False)


@cli.command()
@click.option("--run", "run", help="Only this run (its ledger id).")
@click.option(
    "--peers",
    is_flag=True,
    help="Also MultiHop-RAG, Ragas, HotpotQA and FEVER figures on the same claim-cases.",
)
@format_option("table", "json")
@click.pass_context
@_handle_errors
def metrics(ctx: click.Context, run: str | None, peers: bool, fmt: str) -> None:
    """Show complete-set recall, citation-set completeness and answer correctness per run.

    Every figure carries its numerator and denominator; an empty denominator
    gives no value (never 100%). --peers adds the figures other benchmarks
    report (Hits@k, MAP, MRR, context recall, supporting-fact EM/F1, FEVER
    scores), each with its own name and denominator.

    Example: hopgate metrics --peers --format json
    """
    from hopgate.cli_data import baseline_labels, peer_table
    from hopgate.results import metrics as read_metrics

    store = _open(ctx)
    result = read_metrics(store, run=run)
    _note_stale({(m.run, m.stale_reason) for m in result.values() if m.stale})
    labels = baseline_labels(store)
    peer_figures = {}
    if peers:
        from hopgate.peers import peer_metrics

        peer_figures = peer_metrics(store, run=run)
    if fmt == "json":
        payload = {run_id: m.as_dict() for run_id, m in result.items()}
        for run_id, entry in payload.items():
            if run_id in labels:
                entry["baseline"] = labels[run_id]
            if peers:
                entry["peers"] = [p.as_dict() for p in peer_figures.get(run_id, [])]
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for run_id, m in result.items():
        label = f" BASELINE ({labels[run_id]['summary']})" if run_id in labels else ""
        click.echo(f"run {run_id}{label} (evaluation {m.evaluation})")
        rows = [
            _metric_row(name, getattr(m, name))
            for name in (
                "complete_set_recall",
                "citation_set_completeness",
                "answer_correctness",
                "whole_answer",
            )
        ]
        click.echo(
            render(
                rows,
                columns=["metric", "numerator", "denominator", "value", "95% interval"],
                format="table",
            ),
            nl=False,
        )
        click.echo("counts: " + ", ".join(f"{k} {v}" for k, v in m.counts.items()))
        click.echo(
            f"awaiting adjudication: {m.awaiting_adjudication}"
            + (f" (hopgate review --run {run_id} lists them)" if m.awaiting_adjudication else "")
        )
        if m.interventions:
            # docs/spec/interventions.md "Cards and figures": per variant, apart from the above.
            click.echo("interventions (never part of the figures above):")
            rows = []
            for variant, named in m.interventions.items():
                for name, figure in named.items():
                    row = _metric_row(name, figure)
                    rows.append({"variant": variant, "figure": row.pop("metric"), **row})
            click.echo(
                render(
                    rows,
                    columns=[
                        "variant",
                        "figure",
                        "numerator",
                        "denominator",
                        "value",
                        "95% interval",
                    ],
                    format="table",
                ),
                nl=False,
            )
        click.echo("")
        if peers:
            click.echo(peer_table(peer_figures.get(run_id, [])), nl=False)
            click.echo("")


def _note_stale(stale: set[tuple[str, str | None]]) -> None:
    """Say on stderr which runs are read from a stale evaluation, and why."""
    for run_id, reason in sorted(stale, key=lambda item: item[0]):
        click.echo(
            f"hopgate: note: run {run_id}'s latest evaluation is stale ({reason}); "
            f"`hopgate evaluate --run {run_id}` brings it up to date",
            err=True,
        )


def _metric_row(name: str, p: Any) -> dict[str, Any]:
    value = "undefined" if p.value is None else f"{100 * p.value:.1f}%"
    interval = "" if p.ci_low is None else f"{100 * p.ci_low:.1f}-{100 * p.ci_high:.1f}%"
    return {
        "metric": name.replace("_", " "),
        "numerator": p.numerator,
        "denominator": p.denominator,
        "value": value,
        "95% interval": interval,
    }


@cli.command()
@click.option("--run", "run", required=True, help="The run to gate (its ledger id).")
@click.option(
    "--evaluate",
    "evaluate_first",
    is_flag=True,
    help="Evaluate the run first when its latest evaluation is missing or stale.",
)
@click.pass_context
@_handle_errors
def gate(ctx: click.Context, run: str, evaluate_first: bool) -> None:
    """Exit 1 when any consequential claim's output is not accepted (for release pipelines).

    Reads only, unless --evaluate: a run whose latest evaluation is missing
    or stale fails the gate (exit 1) and says why.

    Example: hopgate gate --run sys-a --evaluate
    """
    from hopgate.evaluate import evaluate as run_evaluation
    from hopgate.results import gate as run_gate

    store = _open(ctx, writes=evaluate_first)
    if evaluate_first:
        run_evaluation(store, run=run)
    result = run_gate(store, run=run)
    if result.stale:
        click.echo(
            f"run {run}: gate FAILED: its latest evaluation is not current ({result.reason}); "
            f"run `hopgate evaluate --run {run}` or `hopgate gate --run {run} --evaluate`"
        )
        ctx.exit(1)
    if result.passed:
        click.echo(
            f"run {run}: gate passed ({result.consequential} consequential output claims accepted)"
        )
        return
    click.echo(
        f"run {run}: gate FAILED: {len(result.failing)} of {result.consequential} consequential output claims not accepted"
    )
    from hopgate.explain import reasons

    because = reasons(store, run, result.failing)
    for row in result.failing:
        click.echo(f"  {row.output} (claim {row.claim}): {because.get(row.output, row.verdict)}")
    ctx.exit(1)


@cli.command()
@click.option(
    "--shapes",
    "extra_shapes",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A Turtle file of further shapes, run with the shipped ones (repeatable).",
)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@format_option("text", "json", "turtle")
@click.option("--graph", help="Validate only this named graph (its IRI).")
@click.option("--run", "run", help="Validate only this run's latest evaluation (its ledger id).")
@click.option(
    "--all-history",
    is_flag=True,
    help="Check every evaluation bundle, each against the loads it used (not only the latest).",
)
@click.option(
    "--engine",
    type=click.Choice(["store", "pyshacl"]),
    default="store",
    show_default=True,
    help="store: the shapes compiled to SPARQL, run in the store (scales); "
    "pyshacl: the reference engine (slow on big stores).",
)
@click.pass_context
@_handle_errors
def validate(
    ctx: click.Context,
    extra_shapes: tuple[Path, ...],
    strict: bool,
    fmt: str,
    graph: str | None,
    run: str | None,
    all_history: bool,
    engine: str,
) -> None:
    """Check the store against the SHACL shapes; report results grouped by focus node.

    Each evaluation bundle is checked with the loads it used, so a later load
    never fails an earlier card: with no scope, the load graphs and each
    run's latest evaluation (every evaluation with --all-history).

    Exit 0 when the data conforms, 1 on Violations (or Warnings under
    --strict), 2 on an error. --format turtle prints the sh:ValidationReport.

    Example: hopgate validate --run sys-a --strict
    """
    from hopgate.validate import validate as run_validation

    result = run_validation(
        _open(ctx),
        extra_shapes=extra_shapes,
        graph=graph,
        run=run,
        strict=strict,
        engine=engine,
        all_history=all_history,
    )
    if fmt == "turtle":
        sys.stdout.write(result.report)
    elif fmt == "json":
        payload = {
            "conforms": result.conforms,
            "strict": result.strict,
            "engine": result.engine,
            "violations": len(result.violations),
            "warnings": len(result.warnings),
            "focus_nodes": [
                {
                    "focus": focus,
                    "id": results[0].focus_id,
                    "results": [
                        {
                            "shape": r.shape,
                            "severity": r.severity,
                            "message": r.message,
                            "path": r.path,
                            "value": r.value,
                        }
                        for r in results
                    ],
                }
                for focus, results in result.by_focus().items()
            ],
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        for focus, results in result.by_focus().items():
            label = results[0].focus_id
            click.echo(f"{label} <{focus}>" if label else f"<{focus}>")
            for r in results:
                click.echo(f"  {r.severity}: {r.shape}: {r.message}")
                where = [f"path {r.path}"] if r.path else []
                where += [f"value {r.value}"] if r.value is not None and r.value != focus else []
                if where:
                    click.echo(f"    ({', '.join(where)})")
        state = "conforms" if result.conforms else "does not conform"
        click.echo(
            f"{result.triples} triples {state}: {len(result.violations)} violation(s), "
            f"{len(result.warnings)} warning(s){' (strict)' if strict else ''} "
            f"in {result.seconds:.2f} s ({result.engine})"
        )
    if not result.conforms:
        ctx.exit(1)


@cli.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to put the demo store and outputs (default: a fresh temporary directory).",
)
@_handle_errors
def demo(directory: Path | None) -> None:
    """Load the bundled worked example (the Cedar ledger) into a fresh store and report.

    Example: hopgate demo --dir demo-output
    """
    from hopgate.demo import run_demo

    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="hopgate-demo-"))
    elif (directory / "store").exists():
        shutil.rmtree(directory / "store")
    run_demo(directory, echo=click.echo)


from hopgate.cli_data import baseline_command, import_command  # noqa: E402

cli.add_command(import_command)
cli.add_command(baseline_command)

# Provenance bundles out (export, verify) live in their own module.
from hopgate.export_cli import export_command, verify_command  # noqa: E402

cli.add_command(export_command)
cli.add_command(verify_command)
from hopgate.cli_sign import keys_command, sign_command  # noqa: E402

cli.add_command(keys_command)
cli.add_command(sign_command)

from hopgate.cli_shacl import shacl_command  # noqa: E402

cli.add_command(shacl_command)

from hopgate.cli_review import register as register_review  # noqa: E402

register_review(cli)  # review, judge

from hopgate.cli_interventions import interventions_command  # noqa: E402

cli.add_command(interventions_command)

# The audit report and the answers to "why" and "what changed" (report, explain, diff).
from hopgate.cli_report import diff_command, explain_command, report_command  # noqa: E402

cli.add_command(report_command)
cli.add_command(explain_command)
cli.add_command(diff_command)


def main() -> None:
    """Entry point of the ``hopgate`` console script."""
    cli(obj={})


__all__ = ["cli", "main", "parse_param", "artefact"]


if __name__ == "__main__":
    main()
