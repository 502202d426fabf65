"""A picture of one acceptance card's provenance, drawn with graphviz.

The card's neighbourhood (claim, question, output, the run and evaluation,
reference evidence sets, their member spans, the cited spans, the versions
they quote and when those were observed) is read with SPARQL; this module
writes it as DOT in PROV's colours (entities yellow ellipses, activities
blue boxes) and the missing hop in red: a dashed red span and a dashed red
"missing hop" edge from the output to it. Quotes the reader may not inspect
are not drawn, nor any text repeating a withheld text (hopgate.audit.withholding,
docs/spec/records.md "What a reader is shown"): the marker stands in their
place. The layout runs top
down, each evidence set below the previous one with its members wrapped two
to a row, so a card with 5 sets of 5 members fits an A4 page's width.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from hopgate import ids
from hopgate.audit.withholding import MARKER, ReaderView, reader_view
from hopgate.bundles.scope import Scope
from hopgate.errors import ExportError
from hopgate.escaping import visible
from hopgate.store import IRI, Row, Store
from hopgate.vocab import VERDICTS

CARD_QUERY = """
SELECT ?card ?verdict ?output ?outputText ?claim ?claimText ?question ?questionText ?run
       ?activity ?by ?supported ?retrievedComplete ?citationComplete ?citedRoute WHERE {
  ?card a hg:AcceptanceCard ; hg:verdict ?verdict ; hg:forOutput ?output ;
        hg:forQuestion ?question ; prov:wasGeneratedBy ?activity ;
        hg:supported ?supported ; hg:retrievedComplete ?retrievedComplete ;
        hg:citationComplete ?citationComplete .
  ?activity hg:evaluationOf ?run .
  OPTIONAL { ?output prov:value ?outputText }
  OPTIONAL { ?question prov:value ?questionText }
  OPTIONAL { ?card hg:forClaim ?claim . OPTIONAL { ?claim prov:value ?claimText } }
  OPTIONAL { ?card hg:citedRoute ?citedRoute }
  OPTIONAL { ?activity prov:wasAssociatedWith ?person . ?person a prov:Person ; hg:ledgerId ?by }
}
"""

#: Every span the card names, in which role, with its version and fetch.
SPANS_QUERY = """
SELECT ?role ?set ?status ?span ?version ?fetch ?observed ?exact WHERE {
  { ?card hg:referenceRoute ?set . ?set prov:hadMember ?span ; hg:setStatus ?loaded .
    # The status in force when a final judgment re-annotated the set (the card's
    # hg:routeVersion; docs/spec/adjudication.md "Effect on scoring").
    OPTIONAL { ?card hg:routeVersion ?revised .
               ?revised prov:wasRevisionOf ?set ; hg:setStatus ?revisedStatus }
    BIND(COALESCE(?revisedStatus, ?loaded) AS ?status)
    BIND("member" AS ?role) }
  UNION { ?card hg:deliveredCitation ?span . BIND("cited" AS ?role) }
  UNION { ?card hg:missingSpan ?span . BIND("missing" AS ?role) }
  UNION { ?card hg:inadmissibleCitation ?span . BIND("inadmissible" AS ?role) }
  ?span prov:wasQuotedFrom ?version .
  OPTIONAL { ?version prov:wasGeneratedBy ?fetch . OPTIONAL { ?fetch prov:endedAtTime ?observed } }
  OPTIONAL { ?span oa:hasSelector ?selector . ?selector oa:exact ?exact }
}
"""

#: Which member of a reference set each citation of the card covers, as the evaluation
#: decided it and its bundle records (docs/spec/acceptance.md "Coverage"; hg:coversSpan).
#: A citation that is a member itself is drawn inside its set and needs no link.
COVERS_QUERY = """
SELECT DISTINCT ?span ?member ?set WHERE {
  GRAPH ?bundle {
    ?card hg:deliveredCitation ?span ; hg:referenceRoute ?set . ?span hg:coversSpan ?member
  }
  ?set prov:hadMember ?member .
  FILTER (?span != ?member)
}
"""

#: The card's texts drawn in the picture (ids and times are names, drawn as they are).
_TEXTS = ("outputText", "claimText", "questionText")

_ENTITY = 'shape=ellipse, style=filled, fillcolor="#FFFC87", color="#808080"'
_ACTIVITY = 'shape=box, style=filled, fillcolor="#9FB1FC", color="#0000FF"'
_MISSING = 'shape=ellipse, style="filled,dashed", fillcolor="#FFD6D6", color="#D00000", penwidth=2'
_INADMISSIBLE = 'shape=ellipse, style=filled, fillcolor="#FFE0B0", color="#E07000", penwidth=2'


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _short(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _id(iri: object) -> str:
    """The ledger id of ``iri`` as a label shows it (line ends and controls as escapes)."""
    try:
        return visible(ids.ledger_id(str(iri)))
    except ValueError:
        return visible(str(iri))


def card_dot(store: Store, scope: Scope, view: ReaderView | None = None) -> str:
    """The DOT source of the picture of ``scope.card`` for ``scope.reader``.

    ``view`` is the reader rule's answer for ``scope.reader``
    (:func:`hopgate.audit.withholding.reader_view`), read from the store when
    not given: a caller drawing many cards for one reader reads it once.

    Raises:
        ExportError: the scope names no card.
    """
    if scope.card is None:
        raise ExportError("a picture shows one acceptance card: give --card ID")
    card = IRI(scope.card)
    rows = store.select(CARD_QUERY, params={"card": card})
    if not rows:
        raise ExportError(f"no acceptance card {scope.card} in the store")
    info = rows[0]
    spans = store.select(SPANS_QUERY, params={"card": card})
    if view is None:
        view = reader_view(store, scope.reader)
    # A text repeating a withheld text is withheld too, as in every output.
    withholding = view.withholding
    if withholding:
        info = {
            key: withholding.shown(value) if key in _TEXTS and isinstance(value, str) else value
            for key, value in info.items()
        }
        spans = [
            {**row, "exact": withholding.shown(row["exact"])}
            if isinstance(row["exact"], str)
            else row
            for row in spans
        ]
    covers: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in store.select(COVERS_QUERY, params={"card": card}):
        covers[str(row["span"])].append((str(row["member"]), str(row["set"])))
    return _draw(info, spans, view.nodes, scope.reader, covers)


#: Members drawn side by side in a set before the row wraps: with labels wrapped
#: at ``_WRAP`` characters, a card of 5 sets of 5 members fits an A4 page width.
_PER_ROW = 2
_WRAP = 20
#: Up to this many spans, citations and missing hops are drawn as edges from the output.
_EDGES_UP_TO = 6
#: The width (inches) a picture is scaled down to, should a label be wider than the
#: layout allows: an A4 page less 15 mm margins (the height is left free).
_PAGE = "7.08,1000"


def _wrapped(text: str, limit: int = _WRAP, lines: int = 3) -> str:
    """``text`` on at most ``lines`` lines of ``limit`` characters (an ellipsis if cut).

    The withheld marker is drawn whole, with its section.
    """
    if text == MARKER:
        lines = max(lines, len(textwrap.wrap(MARKER, limit, break_long_words=True)))
    # Data never breaks a label's lines nor reaches graphviz as a control character.
    words = visible(" ".join(text.split()))
    found = textwrap.wrap(words, limit, break_long_words=True) or [""]
    if len(found) > lines:
        found = found[:lines]
        found[-1] = found[-1][: limit - 1] + "…"
    return "\n".join(found)


def _draw(
    info: Row,
    spans: list[Row],
    withheld: frozenset[str],
    reader: str,
    covers: dict[str, list[tuple[str, str]]] | None = None,
) -> str:
    """DOT, top-down: the card, then the output and what it answers, then each evidence set
    (stacked, its members wrapped ``_PER_ROW`` to a row), then citations outside every set.

    A span's version and the fetch that observed it are named in the span's label, so a
    card with many members grows down the page, not across it. A citation outside every
    set (a pipeline's passage, not a gold span) names in its label the members it covers
    (``covers``: span -> [(member, set)]), with a "covers" edge to each on a small card.
    """
    covers = covers or {}
    title = "Acceptance card " + _id(info["card"]) + " (reader " + visible(reader) + ")"
    lines = [
        "digraph card {",
        f'  graph [rankdir=TB, fontname="Helvetica", fontsize=11, labelloc=t, size="{_PAGE}",'
        f" nodesep=0.2, ranksep=0.35, newrank=true, label={_quote(_wrapped(title, 60, 2))}];",
        '  node [fontname="Helvetica", fontsize=10, margin="0.08,0.04"];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    verdict = VERDICTS.get(str(info["verdict"]), _id(info["verdict"]))
    flags = [
        "supported" if info["supported"] else "not supported",
        "retrieval complete" if info["retrievedComplete"] else "retrieval incomplete",
        "citations complete" if info["citationComplete"] else "citations incomplete",
    ]
    card = _quote(str(info["card"]))
    lines.append(
        f'  {card} [shape=note, style=filled, fillcolor="#E8E8E8", penwidth=2,'
        f" label={_quote('verdict: ' + verdict + chr(10) + chr(10).join(flags))}];"
    )
    output, activity, run = (_quote(str(info[k])) for k in ("output", "activity", "run"))
    output_label = f"output {_id(info['output'])}\n{_wrapped(str(info['outputText'] or ''))}"
    lines.append(f"  {output} [{_ENTITY}, label={_quote(output_label)}];")
    activity_label = "evaluation\n" + _wrapped(_id(info["activity"]), _WRAP, 2)
    if info["by"] is not None:
        activity_label += f"\non behalf of {visible(str(info['by']))}"
    lines.append(f"  {activity} [{_ACTIVITY}, label={_quote(activity_label)}];")
    lines.append(f"  {run} [{_ACTIVITY}, label={_quote('run ' + _id(info['run']))}];")
    question_label = (
        f"question {_id(info['question'])}\n{_wrapped(str(info['questionText'] or ''))}"
    )
    question = _quote(str(info["question"]))
    lines.append(f"  {question} [{_ENTITY}, label={_quote(question_label)}];")
    # Edges point the PROV way (from the dependent); ``dir=back`` on an edge written
    # top-down keeps the picture reading downwards.
    lines += [
        f"  {card} -> {activity} [label=wasGeneratedBy];",
        f"  {activity} -> {run} [label=evaluationOf];",
        f"  {card} -> {output} [label=forOutput];",
        f"  {output} -> {run} [label=wasGeneratedBy, constraint=false];",
        f"  {output} -> {question} [label=answers];",
    ]
    anchor = question
    if info["claim"] is not None:
        claim = _quote(str(info["claim"]))
        claim_label = f"claim {_id(info['claim'])}\n{_wrapped(str(info['claimText'] or ''))}"
        lines.append(f"  {claim} [{_ENTITY}, label={_quote(claim_label)}];")
        lines.append(f"  {output} -> {claim} [label=asserts];")
        lines.append(f"  {{ rank=same; {question}; {claim}; }}")
        anchor = claim
    roles: dict[str, set[str]] = defaultdict(set)
    sets: dict[str, str] = {}
    members: dict[str, list[str]] = defaultdict(list)
    span_info: dict[str, Row] = {}
    for row in spans:
        span = str(row["span"])
        roles[span].add(str(row["role"]))
        span_info.setdefault(span, row)
        if row["set"] is not None:
            sets[str(row["set"])] = _id(row["status"]).lower() if row["status"] else ""
            if span not in members[str(row["set"])]:
                members[str(row["set"])].append(span)
    cited_route = str(info["citedRoute"]) if info["citedRoute"] is not None else None
    in_sets = {span for found in members.values() for span in found}
    groups: list[tuple[str | None, list[str]]] = [
        (set_iri, sorted(members[set_iri])) for set_iri in sorted(sets)
    ]
    outside = sorted(span for span in span_info if span not in in_sets)
    linked = any(covers.get(span) for span in outside)
    if outside:
        groups.append((None, outside))
    # A small card draws every relation as an edge; a larger one marks cited spans in
    # their labels instead of drawing long edges across the page.
    edges = len(span_info) <= _EDGES_UP_TO
    for number, (set_iri, group) in enumerate(groups):
        lines.append(f"  subgraph cluster_{number} {{")
        lines.append('    graph [style="rounded,dashed", color="#A0A0A0", label=""];')
        if set_iri is not None:
            status = str(sets[set_iri]).rsplit("#", 1)[-1].lower()
            label = f"evidence set {_id(set_iri)}\n{status}"
            if number > 0 and info["claim"] is not None:
                label += f"\nsupportsClaim {_id(info['claim'])}"
            width = ", penwidth=3" if set_iri == cited_route else ""
            label += "\ncited route" if width else ""
            head = _quote(set_iri)
            lines.append(
                f'    {head} [shape=folder, style=filled, fillcolor="#FFFC87"{width},'
                f" group=spine, label={_quote(label)}];"
            )
        else:
            head = _quote(f"outside:{info['card']}")
            said = (
                "cited, each linked to the member it covers"
                if linked
                else "cited outside every set"
            )
            lines.append(f"    {head} [shape=plaintext, group=spine, label={_quote(said)}];")
        for index, span in enumerate(group):
            covered = covers.get(span, []) if set_iri is None else None
            node = _span_node(span, span_info[span], roles[span], withheld, edges, covered)
            spine = ", group=spine" if index % _PER_ROW == 0 else ""
            lines.append(f"    {node[:-2]}{spine}];")
        lines.append("  }")
        # Stack the groups: each hangs below the first column of the previous one.
        if number == 0:
            above = anchor
        else:
            previous = groups[number - 1][1]
            above = _quote(previous[(len(previous) - 1) // _PER_ROW * _PER_ROW])
        lines.append(f"  {above} -> {head} [style=invis, weight=10];")
        if number == 0 and set_iri is not None and info["claim"] is not None:
            lines.append(f"  {anchor} -> {head} [label=supportsClaim, dir=back];")
        for index, span in enumerate(group):
            if index < _PER_ROW:
                style = "label=hadMember" if set_iri is not None else "style=invis"
                lines.append(f"  {head} -> {_quote(span)} [{style}];")
            else:
                lines.append(
                    f"  {_quote(group[index - _PER_ROW])} -> {_quote(span)} [style=invis];"
                )
    for span in sorted(span_info):
        if "cited" in roles[span] and edges:
            lines.append(
                f"  {output} -> {_quote(span)} [label=cites, penwidth=2, constraint=false];"
            )
        for member, _ in covers.get(span, []) if edges and span not in in_sets else []:
            lines.append(
                f'  {_quote(span)} -> {_quote(member)} [label=covers, color="#207020",'
                ' fontcolor="#207020", penwidth=2, constraint=false];'
            )
        if "missing" in roles[span] and edges:
            lines.append(
                f'  {output} -> {_quote(span)} [label="missing hop", style=dashed,'
                ' color="#D00000", fontcolor="#D00000", penwidth=2, constraint=false];'
            )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _span_node(
    span: str,
    row: Row,
    roles: set[str],
    withheld: frozenset[str],
    edges: bool,
    covered: list[tuple[str, str]] | None = None,
) -> str:
    """One span: its id, its quote as the reader may see it, the version it is quoted from.

    Without ``edges`` a cited span says so in its label (and is drawn bold). ``covered``
    (a cited span outside every set): the members it covers, named in its label.
    """
    if span in withheld:
        text = _wrapped(MARKER)
    elif row["exact"] is not None:
        text = _wrapped(str(row["exact"]))
    else:
        text = ""
    origin = _wrapped(f"quoted from {_id(row['version'])}", _WRAP + 4, 2)
    if row["observed"] is not None:
        origin += f"\nobserved {str(row['observed'])[:10]}"
    label = f"span {_id(span)}\n{text}\n{origin}" if text else f"span {_id(span)}\n{origin}"
    if covered is not None and "cited" in roles:
        named = ", ".join(f"{_id(member)} of {_id(set_iri)}" for member, set_iri in sorted(covered))
        label += "\n" + _wrapped(
            f"covers {named}" if named else "covers no member of any set", _WRAP + 4, 3
        )
    style = _ENTITY
    if "cited" in roles and not edges:
        style, label = _ENTITY + ", penwidth=3", f"cited by the output\n{label}"
    if "missing" in roles:
        style, label = _MISSING, f"MISSING HOP\n{label}"
    elif "inadmissible" in roles:
        style, label = _INADMISSIBLE, f"inadmissible\n{label}"
    return f"{_quote(span)} [{style}, label={_quote(label)}];"


def render_svgs(dots: Sequence[str]) -> list[str]:
    """Each DOT source of ``dots`` as an SVG element (from its ``<svg``: the XML prologue
    and doctype do not belong inside an HTML page), drawn as :func:`render` draws it,
    one ``dot`` process a picture, as many at once as the machine has cores: 50 cards
    in 0.45 s on two cores, against 0.86 s one after another. (One ``dot`` process
    drawing every graph took 0.1 s, but graphviz carries state from graph to graph:
    a card's clusters came out in another order from one run to the next.)

    Raises:
        ExportError: graphviz's ``dot`` program is missing or fails.
    """
    if not dots:
        return []
    with ThreadPoolExecutor(max_workers=min(len(dots), os.cpu_count() or 1)) as pool:
        drawn = [svg.decode("utf-8") for svg in pool.map(lambda dot: render(dot, "svg"), dots)]
    return [svg[svg.index("<svg") :] for svg in drawn]


def render(dot: str, fmt: str) -> bytes:
    """DOT source as ``dot``, ``svg`` or ``png`` bytes (the latter two need graphviz's dot).

    Raises:
        ExportError: graphviz's ``dot`` program is missing or fails.
    """
    if fmt == "dot":
        return dot.encode("utf-8")
    program = shutil.which("dot")
    if program is None:
        raise ExportError(
            "drawing svg or png needs graphviz's dot program (Debian: apt-get install graphviz); "
            "--format dot writes the DOT source without it"
        )
    done = subprocess.run(
        [program, f"-T{fmt}"], input=dot.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0:
        raise ExportError(f"graphviz's dot failed: {done.stderr.decode(errors='replace')}")
    return done.stdout
