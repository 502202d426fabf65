"""``hopgate query``, ``hopgate stats`` and ``hopgate dump``: the store read as it is."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import BinaryIO

import click

from hopgate import api
from hopgate.cli.formatting import render
from hopgate.cli.shared import UsageError, format_option, handle_errors, open_store, reader_option
from hopgate.errors import InputRefused, QueryError
from hopgate.escaping import json_text, rdf_text, terminal
from hopgate.store import Value

_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)


def parse_param(text: str) -> tuple[str, Value]:
    """Parse ``NAME=VALUE`` into a bound SPARQL value (VALUE read by :func:`hopgate.api.parse_value`).

    ``<iri>`` is an IRI; ``KIND:ID`` with a record kind (``run:sys-a``) is the
    minted IRI of that ledger id; ``"text"`` is a string; an integer, ``true``
    and ``false`` are typed; anything else is a string.
    """
    match = _PARAM.match(text)
    if not match:
        raise UsageError(f"expected --param NAME=VALUE, got {text!r}")
    name, raw = match.groups()
    try:
        return name, api.parse_value(raw)
    except QueryError as exc:
        raise UsageError(f"--param {name}: {exc}") from None


def read_query_argument(query: str) -> str:
    """The SPARQL text of QUERY: a path ending in .rq, a library query id, or text."""
    if query.endswith(".rq"):
        try:
            return api.read_query(Path(query))
        except InputRefused as exc:
            raise UsageError(f"{query}: cannot read the query file: {exc.detail}") from None
    if re.fullmatch(r"[a-z0-9][a-z0-9-]*", query):
        queries = api.library_queries()
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
@reader_option("none: the store as it is, unfiltered")
@click.pass_context
@handle_errors
def query(
    ctx: click.Context,
    query: str,
    params: tuple[str, ...],
    fmt: str,
    iris: bool,
    reader: str | None,
) -> None:
    """Run a SPARQL query: a .rq file, a library query id, or the query text.

    Parameters are bound as escaped terms, never formatted from the text: an IRI
    that is only matched is written in, the rest bound by VALUES. A NAME the
    query has no variable for, or a VALUE of another kind than the query's
    "# parameters:" header declares (a bare id for an IRI), is an error; an
    IRI the store does not hold is noted on stderr. The default
    graph is the union of all loaded graphs. With --reader, every text in the
    results that repeats a text withheld from that reader is shown as the
    withheld marker (docs/spec/records.md "What a reader is shown"); without
    it, results are the store's, unfiltered.

    Example: hopgate query 'SELECT ?s WHERE { ?s a hg:Claim }' --format csv

    Example: hopgate query queries/claim-status.rq --param evaluation=evaluation:eval-oct

    Example: hopgate query 'SELECT ?text WHERE { ?c a hg:Claim ; prov:value ?text }' --reader public
    """
    text = read_query_argument(query)
    bindings = dict(parse_param(p) for p in params)
    written = {p.partition("=")[0]: p for p in params}
    store = open_store(ctx, reads=True)
    result = api.query(store, text, params=bindings, reader=reader)
    if bindings and not result:
        # An empty answer to a mistyped id (run:sys-b for run:sys-a) looks like a real one.
        for name in api.absent_parameters(store, bindings):
            click.echo(
                f"note: --param {terminal(written[name])}: no such IRI in the store",
                err=True,
            )
    if isinstance(result, bool):
        click.echo(json_text(result) if fmt == "json" else str(result).lower())
        return
    if isinstance(result, bytes):
        # A CONSTRUCT or DESCRIBE: N-Triples, with what a terminal acts on escaped.
        sys.stdout.write(rdf_text(result.decode("utf-8")))
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
    result = api.stats(open_store(ctx, reads=True))
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
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write ('-': standard output, the default).",
)
@click.pass_context
@handle_errors
def dump(ctx: click.Context, graph: str | None, fmt: str, output: Path | None) -> None:
    """Write the store (or one graph) as TriG or N-Quads (sorted lines).

    Example: hopgate dump --format nquads -o store.nq
    """
    to_stdout = output is None or str(output) == "-"
    # On the terminal, what it would act on is escaped (a file keeps the store's bytes).
    escaped = _EscapedLines(sys.stdout.buffer) if to_stdout else None
    path = None if to_stdout else output
    api.dump(open_store(ctx, reads=True), escaped, path=path, format=fmt, graph=graph)  # type: ignore[arg-type]
    if escaped is not None:
        escaped.close()


class _EscapedLines:
    """A binary stream that writes RDF text to ``target`` a whole line at a time, through
    :func:`hopgate.escaping.rdf_text` (a line end never splits a UTF-8 sequence)."""

    def __init__(self, target: BinaryIO) -> None:
        self._target = target
        self._pending = b""

    def write(self, data: bytes) -> int:
        """Write the complete lines of what was written so far; keep the rest."""
        whole, end, self._pending = (self._pending + bytes(data)).rpartition(b"\n")
        if end:
            self._target.write(rdf_text((whole + end).decode("utf-8")).encode("utf-8"))
        return len(data)

    def flush(self) -> None:
        """Flush ``target`` (a partial line waits for its end or :meth:`close`)."""
        self._target.flush()

    def close(self) -> None:
        """Write what is left and flush ``target`` (which stays open)."""
        if self._pending:
            self._target.write(rdf_text(self._pending.decode("utf-8")).encode("utf-8"))
            self._pending = b""
        self._target.flush()


COMMANDS = [query, stats, dump]

__all__ = ["COMMANDS", "parse_param", "read_query_argument"]
