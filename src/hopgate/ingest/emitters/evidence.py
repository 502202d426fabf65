"""The evidence universe: evaluations, readers, sources, versions, spans, delivered spans.

docs/model.md "Records" gives the triples; docs/spec/ledger.md "Evaluations",
"Readers", "Sources", "Versions", "Spans" and "Delivered spans" the fields
and what is checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.errors import AnchorError
from hopgate.ingest.anchoring import anchor, sha256_digest
from hopgate.ingest.emitters.context import A, Context, locator_lines, position_lines
from hopgate.ingest.ledger import Record
from hopgate.vocab import AUTHORITY, DCTERMS, HG, PROV

#: A source's ``authority`` (the schema's enum) -> its hg: individual.
AUTHORITIES = {name: iri for iri, name in AUTHORITY.items() if name != "unstated"}


def emit_evaluation(ctx: Context, record: Record) -> Iterator[str]:
    """The frozen test specification: reader, cutoff, corpus, coverage policy."""
    d = record.data
    s = nt.iri(ids.mint("evaluation", d["id"]))
    yield from ctx.common(s, record, (PROV + "Plan", HG + "Evaluation"), d["id"])
    yield f"{s} <{HG}reader> {nt.iri(ctx.ref('reader', d['reader'], record, 'reader'))}"
    yield f"{s} <{HG}observationCutoff> {nt.datetime(ctx.time(record, d, 'observation_cutoff'))}"
    if d.get("corpus") is not None:
        yield f"{s} <{HG}corpus> {nt.string(d['corpus'])}"
    yield f"{s} <{HG}coveragePolicy> <{HG}Containment>"


def emit_reader(ctx: Context, record: Record) -> Iterator[str]:
    """A reader class."""
    d = record.data
    s = nt.iri(ids.mint("reader", d["id"]))
    yield from ctx.common(s, record, (PROV + "Agent", HG + "ReaderClass"), d["id"])
    if d.get("title"):
        yield f"{s} <{DCTERMS}title> {nt.string(d['title'])}"


def emit_source(ctx: Context, record: Record) -> Iterator[str]:
    """A document identity."""
    d = record.data
    s = nt.iri(ids.mint("source", d["id"]))
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Source"), d["id"])
    yield f"{s} <{HG}address> {nt.typed(d['address'], 'anyURI')}"
    if d.get("title"):
        yield f"{s} <{DCTERMS}title> {nt.string(d['title'])}"
    # docs/spec/ledger.md "Sources": absent means unstated, which is no triple.
    if d.get("authority") is not None:
        yield f"{s} <{HG}authority> <{AUTHORITIES[d['authority']]}>"
    if d.get("authority_basis") is not None:
        yield f"{s} <{HG}authorityBasis> {nt.string(d['authority_basis'])}"


def emit_version(ctx: Context, record: Record) -> Iterator[str]:
    """The bytes of a source as one fetch captured them, and that fetch."""
    d = record.data
    vid = d["id"]
    facts = ctx.index.versions[vid]
    s = nt.iri(ids.mint("version", vid))
    fetch = nt.iri(ids.mint("fetch", vid))
    source = nt.iri(ctx.ref("source", d["source"], record, "source"))
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Version"), vid)
    yield f"{s} <{PROV}specializationOf> {source}"
    yield f"{s} <{PROV}wasGeneratedBy> {fetch}"
    if facts.text is not None:
        yield f"{s} <{PROV}value> {nt.string(facts.text)}"
        yield f"{s} <{HG}digest> {nt.string(sha256_digest(facts.text))}"
        yield f"{s} <{HG}textWithheld> {nt.boolean(False)}"
    else:
        yield f"{s} <{HG}textWithheld> {nt.boolean(True)}"
        if d.get("digest"):
            yield f"{s} <{HG}digest> {nt.string(d['digest'])}"
    if d.get("media_type"):
        yield f"{s} <{HG}mediaType> {nt.string(d['media_type'])}"
    if d.get("published_at"):
        yield f"{s} <{HG}publishedAt> {nt.datetime(ctx.time(record, d, 'published_at'))}"
    effective = d.get("effective") or {}
    starts = ends = None
    if effective.get("from"):
        starts = ctx.time(record, effective, "from", "effective.from")
        yield f"{s} <{HG}effectiveFrom> {nt.datetime(starts)}"
    if effective.get("until"):
        ends = ctx.time(record, effective, "until", "effective.until")
        yield f"{s} <{HG}effectiveUntil> {nt.datetime(ends)}"
    if starts and ends and not starts < ends:
        ctx.fail(
            f"expected effective.from before effective.until ({starts} >= {ends})",
            record,
            "effective.until",
        )
    if d.get("invalidated_at"):
        yield f"{s} <{PROV}invalidatedAtTime> {nt.datetime(ctx.time(record, d, 'invalidated_at'))}"
    readers = list(ctx.readers(record, d.get("readers") or []))
    for reader in readers:
        yield f"{s} <{HG}readableBy> {reader}"
    if d.get("revision_of"):
        revision = ctx.ref("version", d["revision_of"], record, "revision_of")
        yield f"{s} <{PROV}wasRevisionOf> {nt.iri(revision)}"
    yield f"{fetch} <{A}> <{PROV}Activity>"
    yield f"{fetch} <{A}> <{HG}Fetch>"
    yield f"{fetch} <{PROV}endedAtTime> {nt.datetime(ctx.time(record, d, 'observed_at'))}"
    yield f"{fetch} <{PROV}used> {source}"
    if d.get("fetched_by"):
        yield f"{fetch} <{PROV}wasAssociatedWith> {nt.iri(ids.mint('agent', d['fetched_by']))}"
        yield from ctx.agent(d["fetched_by"])


def emit_span(ctx: Context, record: Record) -> Iterator[str]:
    """An exact excerpt of one version, anchored by offsets, quote or locator."""
    d = record.data
    node = ids.mint("span", d["id"])
    s = nt.iri(node)
    facts = ctx.version(d["version"], record, "version")
    yield from ctx.common(s, record, (PROV + "Entity", HG + "Span"), d["id"])
    yield f"{s} <{PROV}wasQuotedFrom> {nt.iri(ids.mint('version', d['version']))}"
    if "locator" in d:
        if facts.text is not None:
            ctx.fail(
                f"version {d['version']!r} retains its text: address the span by "
                "start/end or quote (a locator is for withheld text)",
                record,
                "locator",
            )
        for name in ("start", "end", "quote", "prefix", "suffix"):
            if name in d:
                ctx.fail("give a locator or offsets/quote, not both", record, name)
        yield from locator_lines(node, d["locator"])
    else:
        if facts.text is None:
            ctx.fail(
                f"version {d['version']!r} withholds its text: address the span by locator",
                record,
                "locator",
            )
        assert facts.text is not None
        try:
            found = anchor(
                facts.text,
                start=d.get("start"),
                end=d.get("end"),
                quote=d.get("quote"),
                prefix=d.get("prefix"),
                suffix=d.get("suffix"),
            )
        except AnchorError as exc:
            ctx.fail(str(exc), record, exc.field)
        yield from position_lines(
            node, found.start, found.end, found.exact, d.get("prefix"), d.get("suffix")
        )
    readers = d.get("readers")
    if readers is not None:
        if facts.readers is not None:
            wider = sorted(set(readers) - facts.readers)
            if wider:
                ctx.fail(
                    f"readers {wider} widen the version's readers {sorted(facts.readers)}; "
                    "a span may only narrow them",
                    record,
                    "readers",
                )
        for reader in ctx.readers(record, readers):
            yield f"{s} <{HG}readableBy> {reader}"


def delivered(ctx: Context, record: Record, item: Any, name: str) -> tuple[str, list[str]]:
    """The IRI of a delivered span (an id or an inline span), and lines for a new inline span.

    docs/spec/ledger.md "Delivered spans": an inline span is anchored in its
    version's text as a span record is, and named ``<version>[<start>:<end>]``;
    the same inline span delivered again, here or in an earlier load, is that
    one span.
    """
    if isinstance(item, str):
        return ctx.ref("span", item, record, name), []
    version = item["version"]
    facts = ctx.version(version, record, f"{name}.version")
    if facts.text is None:
        ctx.fail(f"version {version!r} withholds its text: deliver its spans by id", record, name)
    assert facts.text is not None
    try:
        found = anchor(
            facts.text,
            start=item.get("start"),
            end=item.get("end"),
            quote=item.get("quote"),
            prefix=item.get("prefix"),
            suffix=item.get("suffix"),
        )
    except AnchorError as exc:
        ctx.fail(str(exc), record, f"{name}.{exc.field}")
    span_id = f"{version}[{found.start}:{found.end}]"
    if span_id in ctx.index.ids["span"]:
        ctx.fail(
            f"inline span id {span_id!r} collides with the ledger span defined at "
            f"{ctx.index.ids['span'][span_id]}",
            record,
            name,
        )
    node = ids.mint("span", span_id)
    if node in ctx.emitted:
        return node, []
    if ctx.inline_span_stored(node, span_id, ids.mint("version", version), found, record, name):
        return node, []
    ctx.emitted.add(node)
    s = nt.iri(node)
    lines = [
        f"{s} <{A}> <{PROV}Entity>",
        f"{s} <{A}> <{HG}Span>",
        f"{s} <{HG}ledgerId> {nt.string(span_id)}",
        f"{s} <{HG}inline> {nt.boolean(True)}",
        f"{s} <{PROV}wasQuotedFrom> {nt.iri(ids.mint('version', version))}",
    ]
    lines += position_lines(node, found.start, found.end, found.exact, None, None)
    ctx.counts["inline span"] += 1
    return node, lines


__all__ = [
    "delivered",
    "emit_evaluation",
    "emit_reader",
    "emit_source",
    "emit_span",
    "emit_version",
]
