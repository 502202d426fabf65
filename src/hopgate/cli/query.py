"""``hopgate query``, ``hopgate stats`` and ``hopgate dump``: the store read as it is."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click
import pyoxigraph as ox

from hopgate import ids
from hopgate.audit.inspection import stats as store_stats
from hopgate.cli.formatting import render
from hopgate.cli.shared import UsageError, format_option, handle_errors, open_store
from hopgate.escaping import json_text
from hopgate.library.artefacts import library_queries
from hopgate.store import IRI, Value

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


@click.command()
@click.argument("query")
@click.option("--param", "params", multiple=True, help="NAME=VALUE bound to ?NAME (repeatable).")
@format_option("table", "json", "csv")
@click.option("--iris", is_flag=True, help="Show full IRIs instead of ledger ids.")
@click.pass_context
@handle_errors
def query(ctx: click.Context, query: str, params: tuple[str, ...], fmt: str, iris: bool) -> None:
    """Run a SPARQL query: a .rq file, a library query id, or the query text.

    Parameters are bound as values, never spliced into the text. The default
    graph is the union of all loaded graphs.

    Example: hopgate query 'SELECT ?s WHERE { ?s a hg:Claim }' --format csv

    Example: hopgate query queries/claim-status.rq --param evaluation=evaluation:eval-oct
    """
    text = read_query_argument(query)
    bindings = dict(parse_param(p) for p in params)
    result = open_store(ctx).query_any(text, params=bindings)
    if isinstance(result, bool):
        click.echo(json_text(result) if fmt == "json" else str(result).lower())
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


@click.command()
@format_option("table", "json")
@click.pass_context
@handle_errors
def stats(ctx: click.Context, fmt: str) -> None:
    """Count records by kind, triples, and the named graphs of the store.

    Example: hopgate stats --format json
    """
    result = store_stats(open_store(ctx))
    if fmt == "json":
        payload = {
            "records": result.records,
            "quads": result.quads,
            "graphs": [g.__dict__ for g in result.graphs],
        }
        click.echo(json_text(payload))
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


@click.command()
@click.option("--graph", help="Dump only this named graph (its IRI).")
@format_option("trig", "nquads")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File to write."
)
@click.pass_context
@handle_errors
def dump(ctx: click.Context, graph: str | None, fmt: str, output: Path | None) -> None:
    """Write the store (or one graph) as TriG or N-Quads (sorted lines).

    Example: hopgate dump --format nquads -o store.nq
    """
    store = open_store(ctx)
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


COMMANDS = [query, stats, dump]

__all__ = ["COMMANDS", "parse_param", "read_query_argument"]
