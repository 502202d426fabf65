"""``hopgate validate`` (the store against its shapes) and ``hopgate shacl`` (any file, any shapes)."""

from __future__ import annotations

import sys
import typing
from pathlib import Path

import click
import rdflib
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate import api
from hopgate.cli.shared import UsageError, format_option, handle_errors, open_store
from hopgate.errors import HopgateError
from hopgate.escaping import INVISIBLE, json_text, rdf_text, terminal


def _text(node: Node | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, Literal | BNode):
        return node.n3()
    return str(node)


def _json(report: api.ShaclReport) -> str:

    payload = {
        "conforms": report.conforms,
        "engine": report.engine,
        "fallback": report.fallback,
        "results": [
            {
                "focus_node": _text(r.focus_node),
                "severity": _text(r.severity),
                "source_shape": _text(r.source_shape),
                "source_constraint_component": _text(r.source_constraint_component),
                "path": report.path_text(r),
                "value": _text(r.value),
                "messages": list(r.messages),
            }
            for r in sorted(report.results, key=lambda r: (str(r.focus_node), str(r.source_shape)))
        ],
    }
    return json_text(payload)


def _turtle(graph: rdflib.Graph, serialize: typing.Callable[[str], str]) -> str:
    """A report graph as Turtle on the terminal: what a terminal acts on written as
    Turtle's ``\\u`` escapes (:func:`hopgate.escaping.rdf_text`). Turtle has no escape in
    a prefixed name, so a graph with an IRI holding such a character (a datatype
    ``xsd:in<U+200D>teger`` from a data file) is written as N-Triples, which is Turtle with
    every IRI in full (review, 7 December)."""

    def hidden(term: Node) -> bool:
        if isinstance(term, Literal):
            return term.datatype is not None and INVISIBLE.search(term.datatype) is not None
        return isinstance(term, URIRef) and INVISIBLE.search(term) is not None

    if any(hidden(term) for triple in graph for term in triple):
        return rdf_text(serialize("nt"))
    return rdf_text(serialize("turtle"))


@click.command("shacl")
@click.argument("data", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("shapes", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--engine",
    type=click.Choice(list(api.SHACL_ENGINES)),
    default="store",
    show_default=True,
    help="store: compiled SPARQL in a scratch Oxigraph store (pySHACL for what it does "
    "not compile); pyshacl: the reference engine.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "turtle"]),
    default="text",
    show_default=True,
    help="Output format; turtle prints the W3C sh:ValidationReport.",
)
@click.pass_context
def shacl_command(ctx: click.Context, data: Path, shapes: Path, engine: str, fmt: str) -> None:
    """Validate the RDF file DATA against the SHACL shapes file SHAPES (no store needed).

    SHACL Core and SHACL-SPARQL constraints; literals are validated as
    written. Exit 0 when the data conforms (no result of any severity), 1
    when it does not, 2 on an error (unreadable file, ill-formed shapes).

    Example: hopgate shacl data.ttl shapes.ttl --format turtle
    """

    try:
        report = api.validate_graph(data, shapes, engine=engine)
    except HopgateError as exc:
        raise UsageError(str(exc)) from None
    if fmt == "turtle":
        sys.stdout.write(_turtle(report.graph, lambda fmt: report.serialize(format=fmt)))
    elif fmt == "json":
        click.echo(_json(report))
    else:
        verdict = (
            "conforms" if report.conforms else f"does not conform: {len(report.results)} results"
        )
        click.echo(f"{terminal(data)}: {verdict} (engine {report.engine})")
        if report.fallback:
            click.echo(f"  (pySHACL ran: {terminal(report.fallback)})")
        for r in sorted(report.results, key=lambda r: (str(r.focus_node), str(r.source_shape))):
            severity = str(r.severity).rpartition("#")[2]
            component = str(r.source_constraint_component).rpartition("#")[2]
            click.echo(
                f"{terminal(severity)}: {terminal(_text(r.focus_node))}: {terminal(component)}"
            )
            if r.path is not None:
                click.echo(f"  path: {terminal(report.path_text(r))}")
            if r.value is not None:
                click.echo(f"  value: {terminal(_text(r.value))}")
            for message in r.messages:
                click.echo(f"  {terminal(message)}")
    if not report.conforms:
        ctx.exit(1)


@click.command()
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
@handle_errors
def validate(
    ctx: click.Context,
    extra_shapes: tuple[Path, ...],
    strict: bool,
    fmt: str,
    graph: str | None,
    run: str | None,
    all_history: bool,
    engine: typing.Literal["store", "pyshacl"],
) -> None:
    """Check the store against the SHACL shapes; report results grouped by focus node.

    Each evaluation bundle is checked with the loads it used, so a later load
    never fails an earlier card: with no scope, the load graphs and each
    run's latest evaluation (every evaluation with --all-history).

    Exit 0 when the data conforms, 1 on Violations (or Warnings under
    --strict), 2 on an error. --format turtle prints the sh:ValidationReport.

    Example: hopgate validate --run sys-a --strict
    """

    result = api.validate(
        open_store(ctx, reads=True),
        extra_shapes=extra_shapes,
        graph=graph,
        run=run,
        strict=strict,
        engine=engine,
        all_history=all_history,
    )
    if fmt == "turtle":
        # Its messages and values come from shapes and ledgers: escaped as Turtle allows.
        sys.stdout.write(
            _turtle(
                result.report_graph,
                lambda fmt: (
                    result.report if fmt == "turtle" else result.report_graph.serialize(format=fmt)
                ),
            )
        )
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
        click.echo(json_text(payload))
    else:
        for focus, results in result.by_focus().items():
            label = results[0].focus_id
            shown = terminal(f"{label} <{focus}>" if label else f"<{focus}>")
            click.echo(shown)
            for r in results:
                click.echo(f"  {terminal(r.severity)}: {terminal(r.shape)}: {terminal(r.message)}")
                where = [f"path {r.path}"] if r.path else []
                where += [f"value {r.value}"] if r.value is not None and r.value != focus else []
                if where:
                    click.echo(f"    ({terminal(', '.join(where))})")
        state = "conforms" if result.conforms else "does not conform"
        click.echo(
            f"{result.triples} triples {state}: {len(result.violations)} violation(s), "
            f"{len(result.warnings)} warning(s){' (strict)' if strict else ''} "
            f"in {result.seconds:.2f} s ({result.engine})"
        )
    if not result.conforms:
        ctx.exit(1)


COMMANDS = [validate, shacl_command]

__all__ = ["COMMANDS"]
