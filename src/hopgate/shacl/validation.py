"""Validation: run the SHACL shapes of ``shapes/`` over the store.

The shapes are the rule (an auditor can run them with any SHACL engine). Two
engines run them here:

- ``store`` (the default): the shapes compiled to SPARQL
  (:mod:`hopgate.shacl.compiler`), one query per constraint over all focus
  nodes, answered inside the store. It scales: pySHACL evaluates each
  SHACL-SPARQL constraint once per focus node and could not validate 100
  synthetic claims in two minutes.
- ``pyshacl``: the reference engine whose report defines correctness; the
  tests run every fixture, and the W3C SHACL test suite, through both. Chosen
  automatically when a shape uses a feature the compiler does not translate
  exactly (:class:`~hopgate.errors.UnsupportedShape`); shapes that break
  SHACL 1.0 are refused (:class:`~hopgate.errors.IllFormedShape`, reported as a
  :class:`~hopgate.errors.ValidationError` naming the shapes files).

The store is validated as it is stored: the loader writes canonical literals,
and the ledger is where their original text lives. Arbitrary RDF is validated
as written by :func:`hopgate.shacl.graphs.validate_graph`.

The data is the union of the store's named graphs, one named graph
(``graph=``), or one run's latest evaluation bundle together with the load
graphs it used (``run=``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

import rdflib
from rdflib.namespace import RDF, SH
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate import ids, progress
from hopgate.errors import (
    IllFormedShape,
    InputRefused,
    ShaclError,
    UnsupportedShape,
    ValidationError,
)
from hopgate.inputs import read_regular
from hopgate.library.artefacts import artefact
from hopgate.shacl import unchanged
from hopgate.shacl.bounds import check_shapes
from hopgate.shacl.compiler import Check, compile_shapes
from hopgate.shacl.reference import validate_reference
from hopgate.shacl.runner import run_checks
from hopgate.store import IRI, Store, catalog
from hopgate.store.catalog import latest
from hopgate.vocab import CATALOG_GRAPH, HG, PROV

#: The validation engines: ``store`` (compiled SPARQL in the store) and ``pyshacl`` (reference).
ENGINES = ("store", "pyshacl")

#: The namespace of the shipped shapes.
SHAPES = "https://w3id.org/hopgate/shapes#"

_PREFIXES = {
    HG: "hg:",
    PROV: "prov:",
    "http://www.w3.org/ns/oa#": "oa:",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf:",
    SHAPES: "shapes:",
}
_SEVERITIES = {SH.Violation: "Violation", SH.Warning: "Warning", SH.Info: "Info"}


@dataclass(frozen=True)
class ShapeResult:
    """One result of the validation report: a focus node that fails one constraint."""

    focus: str
    focus_id: str | None
    shape: str
    source_shape: str
    severity: str
    message: str
    value: str | None = None
    path: str | None = None
    component: str = ""


@dataclass(frozen=True)
class ValidationResult:
    """The outcome of :func:`validate`: conformance, the results, the report graph."""

    conforms: bool
    results: list[ShapeResult]
    #: The ``sh:ValidationReport`` (:attr:`report` writes it as Turtle).
    report_graph: rdflib.Graph = field(repr=False, compare=False)
    strict: bool = False
    triples: int = 0
    seconds: float = 0.0
    shapes: list[str] = field(default_factory=list)
    engine: str = "pyshacl"

    @cached_property
    def report(self) -> str:
        """The ``sh:ValidationReport`` as Turtle, written when first asked for (only
        ``--format turtle`` prints it; writing it took 0.5 s at 10k claims)."""
        return self.report_graph.serialize(format="turtle")

    @property
    def violations(self) -> list[ShapeResult]:
        """The results of severity Violation."""
        return [r for r in self.results if r.severity == "Violation"]

    @property
    def warnings(self) -> list[ShapeResult]:
        """The results of severity Warning."""
        return [r for r in self.results if r.severity == "Warning"]

    def by_focus(self) -> dict[str, list[ShapeResult]]:
        """The results grouped by focus node, focus nodes sorted by ledger id then IRI."""
        groups: dict[str, list[ShapeResult]] = {}
        for result in sorted(self.results, key=_order):
            groups.setdefault(result.focus, []).append(result)
        return groups


def _order(result: ShapeResult) -> tuple[str, str, str, str, str]:
    return (
        result.focus_id or "~",
        result.focus,
        result.severity,
        result.shape,
        result.value or "",
    )


def shapes_graph(extra_shapes: Iterable[Path] = ()) -> rdflib.Graph:
    """The shipped shapes and ``extra_shapes`` as one rdflib graph.

    Raises:
        ValidationError: an extra shapes file is missing or is not valid Turtle.
    """
    graph = rdflib.Graph()
    for entry in artefact("shapes").iterdir():
        if entry.name.endswith(".ttl"):
            graph.parse(data=entry.read_text("utf-8"), format="turtle")
    for path in extra_shapes:
        if not os.path.lexists(path):
            raise ValidationError(f"no such shapes file: {path}")
        try:
            data = read_regular(path)
        except InputRefused as exc:
            raise ValidationError(f"{path}: cannot read the shapes file: {exc.detail}") from None
        try:
            graph.parse(data=data, format="turtle", publicID=Path(path).absolute().as_uri())
        except RecursionError:
            raise ValidationError(f"{path}: not valid Turtle: nested too deeply") from None
        except Exception as exc:  # rdflib raises several unrelated parser exceptions
            raise ValidationError(
                f"{path}: not valid Turtle: {' '.join(str(exc).split())}"
            ) from None
    if extra_shapes:
        try:
            check_shapes(graph)
        except InputRefused as exc:
            raise ValidationError(f"{', '.join(map(str, extra_shapes))}: {exc.detail}") from None
    return graph


def data_graph(
    store: Store,
    *,
    graph: str | None = None,
    run: str | None = None,
    graphs: list[str] | None = None,
) -> rdflib.Graph:
    """The triples to validate: the store's union, one named graph, one run's evaluation,
    or the union of ``graphs``.

    With ``run``, the data is the run's latest evaluation bundle and the load
    graphs that evaluation used (what its cards point to).

    Raises:
        ValidationError: both ``graph`` and ``run`` are given, the graph is not
            in the store, or the run has no evaluation.
    """
    if graph is not None and run is not None:
        raise ValidationError("give either a graph or a run to validate, not both")
    if graph is not None:
        if graph not in store.graphs():
            raise ValidationError(f"no named graph {graph} in the store")
        graphs = [graph]
    elif run is not None:
        graphs = _run_graphs(store, run)
    data = rdflib.Graph()
    if graphs is None:
        data.parse(data=store.construct("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"), format="nt")
        return data
    for name in graphs:
        text = store.construct(
            "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }", params={"g": IRI(name)}
        )
        data.parse(data=text, format="nt")
    return data


def _run_graphs(store: Store, run: str) -> list[str]:

    found = latest(store, run)
    if found is None:
        raise ValidationError(
            f"run {run!r} has no evaluation in the store; run `hopgate evaluate --run {run}` first"
        )
    return [found.bundle, *found.used]


def validate(
    store: Store,
    *,
    extra_shapes: Sequence[Path] = (),
    graph: str | None = None,
    run: str | None = None,
    strict: bool = False,
    engine: str = "store",
    all_history: bool = False,
) -> ValidationResult:
    """Validate the store (or one graph, or one run's evaluation) against the shapes.

    History is judged against its own past (docs/spec/records.md "History"):
    each evaluation bundle is validated together with the load graphs it
    used, never with loads published after it. With no scope, the data is
    the load graphs (with the catalog), then each run's latest bundle with
    the loads it used; results found in several parts are reported once.

    Args:
        store: the store to read.
        extra_shapes: Turtle files of further shapes, run with the shipped ones.
        graph: validate only this named graph (its IRI).
        run: validate only this run's latest evaluation bundle and the loads it used.
        strict: Warnings make the data fail to conform, as Violations do.
        engine: ``store`` (the shapes compiled to SPARQL and run in the store;
            falls back to pyshacl when a shape uses a feature it does not
            translate) or ``pyshacl`` (the reference engine).
        all_history: with no scope, check every evaluation bundle (not only
            each run's latest), each with the loads it used.

    Raises:
        ValidationError: a shapes file cannot be read or is ill-formed (SHACL 1.0
            refuses it), the data cannot be selected, or the engine is unknown.
    """
    import time

    if engine not in ENGINES:
        raise ValidationError(f"unknown validation engine {engine!r}; expected one of {ENGINES}")
    clock = time.perf_counter()
    shapes = shapes_graph(extra_shapes)
    checks: list[Check] = []
    if engine == "store":
        try:
            checks = compile_shapes(shapes)
        except UnsupportedShape:
            engine = "pyshacl"
        except IllFormedShape as exc:
            files = ", ".join(map(str, extra_shapes)) or "the shipped shapes"
            raise ValidationError(f"{files}: ill-formed shapes: {exc}") from None
    reports = []
    triples = 0
    data: rdflib.Graph | None = rdflib.Graph() if engine == "pyshacl" else None
    parts = _parts(store, graph=graph, run=run, all_history=all_history)
    first: _FirstPart | None = None
    # Each graph's size counted once: published graphs never change, and every
    # run's part holds the loads again (at 10k claims with two runs, counting
    # each part took 2.5 s, each graph once 1.0 s).
    count = cache(store.count)
    for names in progress.counted(parts, f"validate ({engine})", len(parts), unit="parts"):
        if engine == "store":
            report, first = _report_in_store(store, shapes, checks, names, first)
            size = sum(map(count, names))
        else:
            part = data_graph(store, graphs=names)
            report, size = _pyshacl_report(part, shapes), len(part)
            assert data is not None
            data += part
        reports.append(report)
        triples += size
    result = _result(_merge_reports(reports), shapes, strict=strict, data=data)
    return ValidationResult(
        conforms=result.conforms,
        results=result.results,
        report_graph=result.report_graph,
        strict=strict,
        triples=triples,
        seconds=time.perf_counter() - clock,
        shapes=[str(p) for p in extra_shapes],
        engine=engine,
    )


def _parts(
    store: Store, *, graph: str | None, run: str | None, all_history: bool
) -> list[list[str]]:
    """The sets of graphs validated together: each bundle only with the loads it used."""

    if graph is not None and run is not None:
        raise ValidationError("give either a graph or a run to validate, not both")
    if graph is not None:
        if graph not in store.graphs():
            raise ValidationError(f"no named graph {graph} in the store")
        return [[graph]]
    if run is not None:
        return [_run_graphs(store, run)]
    loads = catalog.load_graphs(store)
    parts = [[*loads, CATALOG_GRAPH]] if loads else []
    if all_history:
        evaluations = catalog.evaluations(store)
    else:
        latest = (catalog.latest(store, r) for r in catalog.runs(store))
        evaluations = [e for e in latest if e is not None]
    parts += [[e.bundle, *e.used] for e in evaluations]
    return parts


@dataclass(frozen=True)
class _FirstPart:
    """The first part validated (the loads with the catalog): its graphs, and whether
    its checks were compiled without class membership through ``rdfs:subClassOf``."""

    graphs: frozenset[str]
    plain: bool


def _report_in_store(
    store: Store,
    shapes: rdflib.Graph,
    checks: list[Check],
    names: list[str],
    first: _FirstPart | None,
) -> tuple[rdflib.Graph, _FirstPart]:
    """Run the compiled checks over the union of ``names`` only; those whose answer the
    ``first`` part gave are not run again (:mod:`hopgate.shacl.unchanged`)."""
    # The embedded store answers through a view (nothing copied); a server's
    # engine may not answer the compiled queries as Oxigraph does (Virtuoso
    # 7.2.5 drops rows in MINUS of subqueries), so it is validated on a local copy.
    with store.local_view(names) as view:
        plain = not view.ask(_SUBCLASS_ASK)
        if not plain:
            checks = compile_shapes(shapes, subclasses=True)
        elif first is not None and first.plain:
            read = {
                iri for c in checks if (found := unchanged.reads(c, shapes)) for iri in found[0]
            }
            differing = sorted(first.graphs ^ set(names))
            changed = unchanged.present(store, differing, read)
            asked = unchanged.candidates(checks, changed, shapes)
            owned = unchanged.owned(store, differing, sorted(first.graphs & set(names)), asked)
            skipped = unchanged.answered(checks, changed, owned, shapes)
            checks = [c for i, c in enumerate(checks) if i not in skipped]
        report = run_checks(view, checks, shapes)
        return report, first or _FirstPart(frozenset(names), plain)


def _merge_reports(reports: list[rdflib.Graph]) -> rdflib.Graph:
    """One ``sh:ValidationReport`` holding each distinct result of ``reports`` once.

    The first report becomes the merged one (the loads' part, the largest, is not
    copied); the others add the results it lacks.
    """
    if not reports:
        reports = [rdflib.Graph()]
    merged = reports[0]
    root = merged.value(None, RDF.type, SH.ValidationReport) or BNode()
    merged.add((root, RDF.type, SH.ValidationReport))
    seen: set[tuple[object, ...]] = set()
    for node in list(merged.objects(root, SH.result)):
        key = _result_key(merged, node)
        if key in seen:
            merged.remove((root, SH.result, node))
            _remove_node(merged, node)
        seen.add(key)
    for report in reports[1:]:
        for node in report.objects(None, SH.result):
            key = _result_key(report, node)
            if key in seen:
                continue
            seen.add(key)
            merged.add((root, SH.result, node))
            _copy_node(report, merged, node)
    merged.set((root, SH.conforms, Literal(not seen)))
    return merged


def _result_key(report: rdflib.Graph, node: Node) -> tuple[object, ...]:
    """What makes two results the same result, whichever part found them."""
    return (
        report.value(node, SH.focusNode),
        report.value(node, SH.sourceShape),
        report.value(node, SH.sourceConstraint),
        report.value(node, SH.sourceConstraintComponent),
        report.value(node, SH.resultSeverity),
        report.value(node, SH.value),
        path_text(report, path) if (path := report.value(node, SH.resultPath)) else None,
        tuple(sorted(str(m) for m in report.objects(node, SH.resultMessage))),
    )


def _remove_node(graph: rdflib.Graph, node: Node) -> None:
    """Remove ``node``'s triples, and those of the blank nodes only it reaches."""
    for _, predicate, obj in list(graph.triples((node, None, None))):
        graph.remove((node, predicate, obj))
        if isinstance(obj, BNode) and (None, None, obj) not in graph:
            _remove_node(graph, obj)


def _copy_node(source: rdflib.Graph, target: rdflib.Graph, node: Node) -> None:
    """Copy ``node``'s triples, and those of the blank nodes it reaches (paths, lists)."""
    for _, predicate, obj in source.triples((node, None, None)):
        target.add((node, predicate, obj))
        if isinstance(obj, BNode):
            _copy_node(source, target, obj)


_SUBCLASS_ASK = "ASK { ?a <http://www.w3.org/2000/01/rdf-schema#subClassOf> ?b }"


def validate_graphs(
    data: rdflib.Graph, shapes: rdflib.Graph, *, strict: bool = False
) -> ValidationResult:
    """Run pySHACL on ``data`` with ``shapes``; read its report into a :class:`ValidationResult`."""
    return _result(_pyshacl_report(data, shapes), shapes, strict=strict, data=data)


def _pyshacl_report(data: rdflib.Graph, shapes: rdflib.Graph) -> rdflib.Graph:
    """pySHACL's ``sh:ValidationReport`` of ``data`` against ``shapes`` (in a child process,
    with a time limit: :mod:`hopgate.shacl.reference`).

    Raises:
        ValidationError: pySHACL refused the shapes or did not finish in time.
    """
    try:
        return validate_reference(data, shapes)
    except ShaclError as exc:
        raise ValidationError(str(exc)) from None


def _result(
    report: rdflib.Graph,
    shapes: rdflib.Graph,
    *,
    strict: bool,
    data: rdflib.Graph | None = None,
) -> ValidationResult:
    """Read a report graph into a result; conformance as hopgate decides it."""
    results = read_report(report, shapes=shapes, data=data)
    failing = {"Violation", "Warning"} if strict else {"Violation"}
    conforms = not any(r.severity in failing for r in results)
    # The report states conformance as hopgate decides it (Warnings fail under --strict).
    for node in report.subjects(RDF.type, SH.ValidationReport):
        report.set((node, SH.conforms, Literal(conforms)))
    report.bind("sh", SH)
    report.bind("hg", HG)
    report.bind("shapes", SHAPES)
    return ValidationResult(
        conforms=conforms,
        results=sorted(results, key=_order),
        report_graph=report,
        strict=strict,
    )


def read_report(
    report: rdflib.Graph, *, shapes: rdflib.Graph, data: rdflib.Graph | None = None
) -> list[ShapeResult]:
    """The ``sh:result`` nodes of a SHACL validation report as :class:`ShapeResult` values."""
    found = []
    for node in report.objects(None, SH.result):
        focus = report.value(node, SH.focusNode)
        source = report.value(node, SH.sourceShape)
        constraint = report.value(node, SH.sourceConstraint)
        severity = report.value(node, SH.resultSeverity)
        value = report.value(node, SH.value)
        path = report.value(node, SH.resultPath)
        messages = sorted(str(m) for m in report.objects(node, SH.resultMessage))
        named = constraint if constraint is not None else source
        name = shapes.value(named, SH.name) if named is not None else None
        if name is None and source is not None:
            name = shapes.value(source, SH.name)
        if name is None and source is not None:
            parent = shapes.value(None, SH.property, source)
            name = shapes.value(parent, SH.name) if parent is not None else None
        found.append(
            ShapeResult(
                focus=str(focus),
                focus_id=_ledger_id(focus, data),
                shape=str(name) if name is not None else _short(source),
                source_shape=_short(source),
                severity=_SEVERITIES.get(severity, _short(severity))
                if isinstance(severity, URIRef)
                else "Violation",
                message=" ".join(messages),
                value=None if value is None else _term_text(value),
                path=None if path is None else path_text(report, path),
                component=_short(report.value(node, SH.sourceConstraintComponent)),
            )
        )
    return found


def _ledger_id(focus: Node | None, data: rdflib.Graph | None) -> str | None:
    if not isinstance(focus, URIRef):
        return None
    try:
        return ids.ledger_id(str(focus))
    except ValueError:
        pass
    if data is not None:
        recorded = data.value(focus, URIRef(HG + "ledgerId"))
        if recorded is not None:
            return str(recorded)
    return None


def _short(term: Node | None) -> str:
    if term is None:
        return ""
    text = str(term)
    if isinstance(term, URIRef):
        for namespace, prefix in _PREFIXES.items():
            if text.startswith(namespace):
                return prefix + text[len(namespace) :]
        if text.startswith(str(SH)):
            return "sh:" + text[len(str(SH)) :]
    return text


def _term_text(term: Node) -> str:
    if isinstance(term, Literal):
        return str(term)
    if isinstance(term, URIRef):
        return str(term)
    return f"_:{term}"


def path_text(graph: rdflib.Graph, path: Node) -> str:
    """A SHACL property path written compactly: ``hg:forOutput/hg:cites``, ``^hg:supportsClaim``."""
    if isinstance(path, URIRef):
        return _short(path)
    if not isinstance(path, BNode):
        return str(path)
    inverse = graph.value(path, SH.inversePath)
    if inverse is not None:
        return "^" + _group(graph, inverse)
    alternatives = graph.value(path, SH.alternativePath)
    if alternatives is not None:
        return "|".join(_group(graph, p) for p in rdflib.collection.Collection(graph, alternatives))
    for predicate, suffix in (
        (SH.zeroOrMorePath, "*"),
        (SH.oneOrMorePath, "+"),
        (SH.zeroOrOnePath, "?"),
    ):
        inner = graph.value(path, predicate)
        if inner is not None:
            return _group(graph, inner) + suffix
    if graph.value(path, RDF.first) is not None:
        return "/".join(_group(graph, p) for p in rdflib.collection.Collection(graph, path))
    return f"_:{path}"


def _group(graph: rdflib.Graph, path: Node) -> str:
    text = path_text(graph, path)
    return f"({text})" if "/" in text or "|" in text else text


__all__ = [
    "ENGINES",
    "SHAPES",
    "ShapeResult",
    "ValidationResult",
    "data_graph",
    "path_text",
    "read_report",
    "shapes_graph",
    "validate",
    "validate_graphs",
]
