"""A picture of one acceptance card's provenance, drawn with graphviz.

The card's neighbourhood (claim, question, output, the run and evaluation,
reference evidence sets, their member spans, the cited spans, the versions
they quote and the fetches that captured them) is read with SPARQL; this
module writes it as DOT in PROV's colours (entities yellow ellipses,
activities blue boxes) and the missing hop in red: a dashed red span and a
dashed red "missing hop" edge from the output to it. Quotes the reader may
not inspect are not drawn; the span says "withheld for <reader>".
"""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict

from hopgate import ids
from hopgate.export.quads import WITHHELD, narrowed_texts, repeats
from hopgate.export.scope import ExportError, Scope
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
  { ?card hg:referenceRoute ?set . ?set prov:hadMember ?span ; hg:setStatus ?status .
    BIND("member" AS ?role) }
  UNION { ?card hg:deliveredCitation ?span . BIND("cited" AS ?role) }
  UNION { ?card hg:missingSpan ?span . BIND("missing" AS ?role) }
  UNION { ?card hg:inadmissibleCitation ?span . BIND("inadmissible" AS ?role) }
  ?span prov:wasQuotedFrom ?version .
  OPTIONAL { ?version prov:wasGeneratedBy ?fetch . OPTIONAL { ?fetch prov:endedAtTime ?observed } }
  OPTIONAL { ?span oa:hasSelector ?selector . ?selector oa:exact ?exact }
}
"""

WITHHELD_QUERY = f"SELECT ?node WHERE {{ {WITHHELD} }}"

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
    try:
        return ids.ledger_id(str(iri))
    except ValueError:
        return str(iri)


def card_dot(store: Store, scope: Scope) -> str:
    """The DOT source of the picture of ``scope.card`` for ``scope.reader``.

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
    withheld = {
        str(row["node"])
        for row in store.select(WITHHELD_QUERY, params={"reader": IRI(scope.reader_iri)})
    }
    # A text repeating a narrowed span's words is withheld too, as in the exports.
    secrets = narrowed_texts(store, scope.reader_iri)
    if secrets:
        info = {
            key: (f"(withheld for {scope.reader})" if repeats(str(value), secrets) else value)
            if key in ("outputText", "claimText", "questionText") and value is not None
            else value
            for key, value in info.items()
        }
    return _draw(info, spans, withheld, scope.reader)


def _draw(info: Row, spans: list[Row], withheld: set[str], reader: str) -> str:
    lines = [
        "digraph card {",
        '  graph [rankdir=BT, fontname="Helvetica", fontsize=11, labelloc=t,'
        f" label={_quote('Acceptance card ' + _id(info['card']) + ' (reader ' + reader + ')')}];",
        '  node [fontname="Helvetica", fontsize=10];',
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
        f" label={_quote('verdict: ' + verdict + chr(10) + ', '.join(flags))}];"
    )
    output, activity, run = (_quote(str(info[k])) for k in ("output", "activity", "run"))
    output_label = f"output {_id(info['output'])}\n{_short(str(info['outputText'] or ''))}"
    lines.append(f"  {output} [{_ENTITY}, label={_quote(output_label)}];")
    evaluation_label = "evaluation " + _id(info["activity"])
    if info["by"] is not None:
        evaluation_label += f"\non behalf of {info['by']}"
    lines.append(f"  {activity} [{_ACTIVITY}, label={_quote(evaluation_label)}];")
    lines.append(f"  {run} [{_ACTIVITY}, label={_quote('run ' + _id(info['run']))}];")
    question_label = f"question {_id(info['question'])}\n{_short(str(info['questionText'] or ''))}"
    question = _quote(str(info["question"]))
    lines.append(f"  {question} [{_ENTITY}, label={_quote(question_label)}];")
    lines += [
        f"  {card} -> {activity} [label=wasGeneratedBy];",
        f"  {card} -> {output} [label=forOutput];",
        f"  {output} -> {run} [label=wasGeneratedBy];",
        f"  {activity} -> {run} [label=evaluationOf];",
        f"  {output} -> {question} [label=answers];",
    ]
    if info["claim"] is not None:
        claim = _quote(str(info["claim"]))
        claim_label = f"claim {_id(info['claim'])}\n{_short(str(info['claimText'] or ''))}"
        lines.append(f"  {claim} [{_ENTITY}, label={_quote(claim_label)}];")
        lines.append(f"  {output} -> {claim} [label=asserts];")
    roles: dict[str, set[str]] = defaultdict(set)
    sets: dict[str, str] = {}
    members: set[tuple[str, str]] = set()
    span_info: dict[str, Row] = {}
    for row in spans:
        span = str(row["span"])
        roles[span].add(str(row["role"]))
        span_info.setdefault(span, row)
        if row["set"] is not None:
            sets[str(row["set"])] = _id(row["status"]).lower() if row["status"] else ""
            members.add((str(row["set"]), span))
    cited_route = str(info["citedRoute"]) if info["citedRoute"] is not None else None
    for set_iri in sorted(sets):
        status = str(sets[set_iri]).rsplit("#", 1)[-1].lower()
        label = f"evidence set {_id(set_iri)}\n{status}"
        width = ", penwidth=3" if set_iri == cited_route else ""
        lines.append(
            f'  {_quote(set_iri)} [shape=folder, style=filled, fillcolor="#FFFC87"{width},'
            f" label={_quote(label + (chr(10) + 'cited route' if width else ''))}];"
        )
        if info["claim"] is not None:
            lines.append(
                f"  {_quote(set_iri)} -> {_quote(str(info['claim']))} [label=supportsClaim];"
            )
    versions: dict[str, Row] = {}
    for span in sorted(span_info):
        row = span_info[span]
        versions.setdefault(str(row["version"]), row)
        if span in withheld:
            text = f"withheld for {reader}"
        elif row["exact"] is not None:
            text = _short(str(row["exact"]))
        else:
            text = ""
        label = f"span {_id(span)}\n{text}"
        style = _ENTITY
        if "missing" in roles[span]:
            style, label = _MISSING, f"MISSING HOP\n{label}"
        elif "inadmissible" in roles[span]:
            style, label = _INADMISSIBLE, f"inadmissible\n{label}"
        lines.append(f"  {_quote(span)} [{style}, label={_quote(label)}];")
        lines.append(f"  {_quote(span)} -> {_quote(str(row['version']))} [label=wasQuotedFrom];")
        if "cited" in roles[span]:
            lines.append(f"  {output} -> {_quote(span)} [label=cites, penwidth=2];")
        if "missing" in roles[span]:
            lines.append(
                f'  {output} -> {_quote(span)} [label="missing hop", style=dashed,'
                ' color="#D00000", fontcolor="#D00000", penwidth=2];'
            )
    for set_iri, span in sorted(members):
        lines.append(f"  {_quote(set_iri)} -> {_quote(span)} [label=hadMember];")
    for version in sorted(versions):
        row = versions[version]
        lines.append(f"  {_quote(version)} [{_ENTITY}, label={_quote('version ' + _id(version))}];")
        if row["fetch"] is not None:
            observed = str(row["observed"] or "")
            label = f"fetch {_id(row['fetch'])}\n{observed}"
            lines.append(f"  {_quote(str(row['fetch']))} [{_ACTIVITY}, label={_quote(label)}];")
            lines.append(
                f"  {_quote(version)} -> {_quote(str(row['fetch']))} [label=wasGeneratedBy];"
            )
    lines.append("}")
    return "\n".join(lines) + "\n"


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
