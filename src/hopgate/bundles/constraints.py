"""PROV-CONSTRAINTS on what hopgate writes, checked in SPARQL over an exported bundle.

W3C PROV-CONSTRAINTS (Recommendation, 30 April 2013) defines when a PROV
document is valid. ``hopgate verify`` checks the constraints that apply to the
terms hopgate writes, on each bundle (named graph) and on the document's top
level separately, as PROV-CONSTRAINTS validates each bundle on its own. Each
check is one SELECT whose rows are violations; a time is compared only where
the file states it (hopgate writes activity start and end times, entity
generation and invalidation times, and no usage times).

The data are plain PROV-O (``prov:wasGeneratedBy``, ``prov:generatedAtTime``,
``prov:used`` ...): TriG and JSON-LD exports state them directly; PROV-N,
PROV-JSON and PROV-XML documents are mapped onto them by
:func:`hopgate.bundles.provdoc.prov_quads`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from hopgate.vocab import sparql_prologue

#: An entity's generation time (hopgate writes it as prov:generatedAtTime).
_ENTITY_TERMS = """
  prov:wasGeneratedBy prov:wasDerivedFrom prov:wasRevisionOf prov:wasQuotedFrom
  prov:specializationOf prov:wasAttributedTo prov:wasInvalidatedBy prov:generatedAtTime
  prov:invalidatedAtTime
"""


@dataclass(frozen=True)
class Constraint:
    """One PROV-CONSTRAINTS rule and the query whose rows break it (?node, ?detail)."""

    name: str
    description: str
    query: str


CONSTRAINTS = (
    Constraint(
        "start-precedes-end",
        "an activity's start precedes (or equals) its end",
        """SELECT ?node ?detail WHERE {
  ?node prov:startedAtTime ?start ; prov:endedAtTime ?end . FILTER (?end < ?start)
  BIND (CONCAT("ends at ", STR(?end), " before it starts at ", STR(?start)) AS ?detail) }""",
    ),
    Constraint(
        "unique-startTime",
        "an activity has one start time",
        """SELECT ?node ?detail WHERE {
  ?node prov:startedAtTime ?one, ?other . FILTER (STR(?one) < STR(?other))
  BIND (CONCAT("starts at ", STR(?one), " and at ", STR(?other)) AS ?detail) }""",
    ),
    Constraint(
        "unique-endTime",
        "an activity has one end time",
        """SELECT ?node ?detail WHERE {
  ?node prov:endedAtTime ?one, ?other . FILTER (STR(?one) < STR(?other))
  BIND (CONCAT("ends at ", STR(?one), " and at ", STR(?other)) AS ?detail) }""",
    ),
    Constraint(
        "generation-within-activity",
        "an entity is generated after its generating activity starts and before it ends",
        """SELECT ?node ?detail WHERE {
  ?node prov:wasGeneratedBy ?activity ; prov:generatedAtTime ?at .
  OPTIONAL { ?activity prov:startedAtTime ?start }
  OPTIONAL { ?activity prov:endedAtTime ?end }
  FILTER ((BOUND(?start) && ?at < ?start) || (BOUND(?end) && ?at > ?end))
  BIND (CONCAT("generated at ", STR(?at), " outside its activity ", STR(?activity)) AS ?detail)
}""",
    ),
    Constraint(
        "generation-precedes-usage",
        "an entity is generated before an activity uses it (the usage falls within the "
        "activity: usage-within-activity)",
        """SELECT ?node ?detail WHERE {
  ?activity prov:used ?node ; prov:endedAtTime ?end . ?node prov:generatedAtTime ?at .
  FILTER (?at > ?end)
  BIND (CONCAT("generated at ", STR(?at), ", after ", STR(?activity), " used it (ended ",
               STR(?end), ")") AS ?detail) }""",
    ),
    Constraint(
        "generation-precedes-invalidation",
        "an entity is generated before it is invalidated",
        """SELECT ?node ?detail WHERE {
  ?node prov:generatedAtTime ?at ; prov:invalidatedAtTime ?gone . FILTER (?gone < ?at)
  BIND (CONCAT("invalidated at ", STR(?gone), " before its generation at ", STR(?at))
        AS ?detail) }""",
    ),
    Constraint(
        "derivation-generation-generation-ordering",
        "a derived entity (revision, quotation) is generated after what it derives from",
        """SELECT ?node ?detail WHERE {
  ?node prov:wasDerivedFrom|prov:wasRevisionOf|prov:wasQuotedFrom ?source .
  ?node prov:generatedAtTime ?at . ?source prov:generatedAtTime ?sourceAt .
  FILTER (?at < ?sourceAt)
  BIND (CONCAT("generated at ", STR(?at), " before ", STR(?source), ", which it derives from (",
               STR(?sourceAt), ")") AS ?detail) }""",
    ),
    Constraint(
        "specialization-generation-ordering",
        "a specialization is generated after the entity it specializes",
        """SELECT ?node ?detail WHERE {
  ?node prov:specializationOf ?general ; prov:generatedAtTime ?at .
  ?general prov:generatedAtTime ?generalAt . FILTER (?at < ?generalAt)
  BIND (CONCAT("generated before ", STR(?general), ", which it specializes") AS ?detail) }""",
    ),
    Constraint(
        "impossible-specialization-reflexive",
        "no entity is a specialization of itself",
        """SELECT ?node ?detail WHERE {
  ?node prov:specializationOf ?node . BIND ("is a specialization of itself" AS ?detail) }""",
    ),
    Constraint(
        "entity-activity-disjoint",
        "nothing is both an entity and an activity (by the typing constraint: what a "
        "relation's position says a node is)",
        f"""SELECT DISTINCT ?node ?detail WHERE {{
  {{ ?node a prov:Entity }} UNION {{ ?node ?entityTerm ?any . VALUES ?entityTerm {{ {_ENTITY_TERMS} }} }}
  UNION {{ ?any prov:used|prov:wasDerivedFrom|prov:wasRevisionOf|prov:wasQuotedFrom|prov:hadMember ?node }}
  UNION {{ ?node prov:hadMember ?any }}
  {{ ?node a prov:Activity }}
  UNION {{ ?node prov:used|prov:wasAssociatedWith|prov:startedAtTime|prov:endedAtTime ?other }}
  UNION {{ ?other prov:wasGeneratedBy|prov:wasInvalidatedBy ?node }}
  BIND ("is both an entity and an activity" AS ?detail) }}""",
    ),
    Constraint(
        "typing",
        "the agents of associations, attributions and delegations are agents, not activities",
        """SELECT DISTINCT ?node ?detail WHERE {
  { ?any prov:wasAssociatedWith|prov:wasAttributedTo ?node }
  UNION { ?node prov:actedOnBehalfOf ?any } UNION { ?any prov:actedOnBehalfOf ?node }
  { ?node a prov:Activity } UNION { ?node prov:startedAtTime|prov:endedAtTime ?time }
  BIND ("is an agent (by typing) and an activity" AS ?detail) }""",
    ),
)


@dataclass(frozen=True)
class Violation:
    """One broken constraint: where, which node, and why."""

    constraint: str
    graph: str | None
    node: str
    detail: str

    def __str__(self) -> str:
        where = f"bundle {self.graph}" if self.graph else "top level"
        return f"PROV-CONSTRAINTS {self.constraint}: {where}: {self.node} {self.detail}"


def check(quads: list[ox.Quad]) -> list[Violation]:
    """Every violation of :data:`CONSTRAINTS` in ``quads``, bundle by bundle."""
    graphs: dict[str | None, list[ox.Quad]] = {}
    for quad in quads:
        graph = quad.graph_name
        name = None if isinstance(graph, ox.DefaultGraph) else graph.value
        graphs.setdefault(name, []).append(quad)
    prologue = sparql_prologue()
    violations = []
    for name in sorted(graphs, key=lambda g: g or ""):
        # Each bundle is checked on its own, in a store of its own: its quads as they
        # are, the default graph the union of the store's one named graph. (Each quad
        # remade in the default graph and added in a transaction took 2-3x as long:
        # 2.3M quads at 10k claims, bench/README.md.)
        store = ox.Store()
        store.bulk_extend(graphs[name])
        for constraint in CONSTRAINTS:
            result = store.query(
                prologue + constraint.query, use_default_graph_as_union=name is not None
            )
            assert isinstance(result, ox.QuerySolutions)
            for row in result:
                node, detail = row["node"], row["detail"]
                violations.append(
                    Violation(
                        constraint.name,
                        name,
                        str(getattr(node, "value", node)),
                        str(getattr(detail, "value", detail)),
                    )
                )
    return violations


__all__ = ["CONSTRAINTS", "Constraint", "Violation", "check"]
